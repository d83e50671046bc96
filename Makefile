# polyopt: `make demo` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat setup.cfg pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: help demo test test-fast bench lint clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/:\t/'

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]' ruff
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)  ## compile a built-in example and show its report, C, check and speed
	$(PY) examples/quickstart.py

test: $(STAMP)  ## run the whole test suite
	$(PY) -m pytest -q -p no:cacheprovider tests

lint: $(STAMP)  ## ruff
	$(VENV)/bin/ruff check polyopt frontends backend_c tests examples bench

bench: $(STAMP)  ## benchmarks (SIZE=MINI|SMALL|MEDIUM|LARGE)
	$(PY) -m bench $(if $(SIZE),--size $(SIZE),)

clean:  ## remove the virtual environment and build leftovers
	rm -rf $(VENV) build *.egg-info
