# polyopt: `make demo` and `make test` set everything up themselves.
#
# polyopt is tested the way users install it: `make test` builds the wheel, installs it
# (not editable) into .venv, and runs the quickstart and the test suite from a directory
# outside the checkout, so `import polyopt` cannot pick up the source tree.
PYTHON ?= python3
VENV ?= .venv
PY := $(abspath $(VENV))/bin/python
ROOT := $(CURDIR)
N ?= 200
JOBS ?= 1
TESTS ?= tests
# test processes (pytest-xdist): one per core the machine gives us, at most TEST_MAX_JOBS;
# a file's tests run in one process, so its compiled kernels are built once
TEST_JOBS ?= auto
TEST_MAX_JOBS ?= 4
SEED ?= $(shell od -An -N2 -tu2 /dev/urandom | tr -d ' ')

# tools and dependencies: reinstalled when the requirements change
DEPS := $(VENV)/.deps-$(shell cat setup.cfg pyproject.toml | cksum | cut -d' ' -f1)
# the installed wheel: rebuilt when any file that goes into it changes
SOURCES := setup.cfg setup.py pyproject.toml LICENSE README.md \
	$(shell find polyopt frontends backend_c -name '*.py' -not -path '*/__pycache__/*' | sort)
INSTALLED := $(VENV)/.wheel-$(shell cat $(SOURCES) | cksum | cut -d' ' -f1)
WHEELS := build/wheel
# run a command from a fresh directory outside the checkout
OUTSIDE = cd "$$(mktemp -d)" &&
# run a module of the checkout (bench) against the installed polyopt, from the checkout
IN_TREE = $(PY) -c 'import sys; sys.path[:1] = []; import polyopt; sys.path.append("."); \
	import runpy; sys.argv[0] = "$(1)"; runpy.run_module("$(1)", run_name="__main__", alter_sys=True)'

.PHONY: help demo test install dev lint bench fuzz clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/:\t/'

$(DEPS): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q setuptools wheel ruff mypy
	rm -f $(VENV)/.deps-* $(VENV)/.wheel-*
	touch $@

$(INSTALLED): $(DEPS) $(SOURCES)
	rm -rf build *.egg-info
	$(PY) -m pip wheel -q --no-deps --no-build-isolation -w $(WHEELS) .
	$(PY) -m pip install -q --force-reinstall --no-deps $(WHEELS)/polyopt-*.whl
	$(PY) -m pip install -q "$$(ls $(WHEELS)/polyopt-*.whl)[test]"
	rm -rf build/lib build/bdist.* *.egg-info $(VENV)/.wheel-*
	touch $@

install: $(INSTALLED)  ## build the wheel and install it into .venv (not editable)

dev: $(DEPS)  ## an editable install into .venv, to run tests from the checkout while editing
	$(PY) -m pip install -q --no-build-isolation -e '.[test]'
	rm -f $(VENV)/.wheel-*

demo: $(INSTALLED)  ## compile a built-in example and show its report, C, check and speed
	$(OUTSIDE) $(PY) $(ROOT)/examples/quickstart.py

test: $(INSTALLED)  ## the quickstart and the test suite (TESTS=tests) against the installed wheel
	$(OUTSIDE) $(PY) $(ROOT)/examples/quickstart.py > quickstart.log || { cat quickstart.log; exit 1; }
	$(OUTSIDE) POLYOPT_TEST_INSTALLED=1 $(PY) -m pytest -q -p no:cacheprovider \
		-n $(TEST_JOBS) --maxprocesses=$(TEST_MAX_JOBS) --dist loadfile \
		--rootdir=$(ROOT) -c $(ROOT)/setup.cfg $(addprefix $(ROOT)/,$(TESTS))

# mypy sees the installed layout (frontends/ and backend_c/ inside polyopt/) through links
TYPECHECK := build/typecheck
lint: $(DEPS)  ## ruff, and mypy --strict on the package
	$(VENV)/bin/ruff check polyopt frontends backend_c tests examples bench tools
	rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)/polyopt
	for f in polyopt/*; do ln -s "$(ROOT)/$$f" $(TYPECHECK)/polyopt/; done
	ln -s $(ROOT)/frontends $(TYPECHECK)/polyopt/frontends
	ln -s $(ROOT)/backend_c $(TYPECHECK)/polyopt/backend_c
	cd $(TYPECHECK) && $(PY) -m mypy --config-file $(ROOT)/setup.cfg -p polyopt

bench: $(INSTALLED)  ## benchmarks (SIZE=MINI|SMALL|MEDIUM|LARGE)
	$(call IN_TREE,bench) $(if $(SIZE),--size $(SIZE),)

fuzz: $(INSTALLED)  ## random programs against CPython (N=200 SEED=random JOBS=1 RESUME=)
	$(OUTSIDE) $(PY) $(ROOT)/tests/fuzz_run.py --n $(N) --seed $(SEED) --jobs $(JOBS) \
		--findings $(CURDIR)/fuzz-findings $(if $(RESUME),--resume,)

clean:  ## remove the virtual environment and build leftovers
	rm -rf $(VENV) build *.egg-info
