"""The on-disk build cache, seen from separate processes.

Every worker process runs with ``CC`` set to a wrapper that logs each invocation
before running the real ``cc``, so "the second process got a cache hit" is
measured as "the compiler did not run again".  One worker builds a template
cache once per module; tests copy it (the wrapper is shared, because the
compiler's identity is part of the cache key).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent

WORKER = textwrap.dedent("""
    import numpy as np
    import kernels
    import polyopt

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((5, 6)), rng.standard_normal((6, 7))
    C = np.zeros((5, 7))
    polyopt.jit(kernels.matmul_acc)(A, B, C)
    assert np.allclose(C, A @ B, rtol=1e-12, atol=1e-14), C - A @ B
    print("ok")
""")


class Sandbox:
    """A cache directory, a compiler log, and the environment of worker processes."""

    def __init__(self, wrapper: Path, root: Path) -> None:
        self.cache = root / "cache"
        self.log = root / "cc.log"
        env = dict(os.environ)
        env.pop("CFLAGS", None)
        env.update(POLYOPT_CACHE_DIR=str(self.cache), CC=str(wrapper),
                   POLYOPT_TEST_CC_LOG=str(self.log),
                   PYTHONPATH=os.pathsep.join(
                       [str(TESTS_DIR), *filter(None, [env.get("PYTHONPATH")])]))
        self.env = env

    def compiler_runs(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0

    def start(self, **extra_env: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", WORKER], cwd=TESTS_DIR,
                                env={**self.env, **extra_env}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run(self) -> None:
        finish(self.start())

    def entries(self) -> list[Path]:
        """Published library entries (not temporary or discarded directories)."""
        root = self.cache / "lib"
        return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))

    def the_library(self) -> Path:
        entries = self.entries()
        assert len(entries) == 1, entries
        return entries[0] / "kernel.so"


def finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{out}{err}"
    assert out.strip() == "ok", out + err


def sound(lib: Path) -> bool:
    manifest = json.loads((lib.parent / "manifest.json").read_text())
    return manifest["sha256"] == hashlib.sha256(lib.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cc") / "cc-wrapper"
    path.write_text(textwrap.dedent("""\
        #!/bin/sh
        case " $* " in
          *" -E "*) ;;  # asking which compiler it is (build._is_gcc) builds nothing
          *) echo "$$" >> "$POLYOPT_TEST_CC_LOG" ;;
        esac
        sleep "${POLYOPT_TEST_CC_SLEEP:-0}"
        exec cc "$@"
    """))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture(scope="module")
def template(wrapper: Path, tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    """A cache holding the worker's kernel, built by one worker process."""
    box = Sandbox(wrapper, tmp_path_factory.mktemp("template"))
    box.run()
    assert box.compiler_runs() == 1
    return box


@pytest.fixture
def warm(template: Sandbox, wrapper: Path, tmp_path: Path) -> Sandbox:
    """A private copy of the template cache, with a fresh compiler log."""
    box = Sandbox(wrapper, tmp_path)
    shutil.copytree(template.cache, box.cache)
    return box


def test_second_process_gets_a_cache_hit(warm):
    assert sound(warm.the_library())
    warm.run()
    assert warm.compiler_runs() == 0


#: What a cache hit must not import: the frontend, the scheduler, the code generator and
#: the reports (with networkx).  Importing them made most of a warm start's time.
COMPILER_MODULES = ("polyopt.frontends.python", "polyopt.frontends.python_helpers",
                    "polyopt.scheduler.pipeline", "polyopt.scheduler.steps",
                    "polyopt.transforms.tile", "polyopt.analysis.dependences",
                    "polyopt.backend_c.emit", "polyopt.backend_c.interface_build",
                    "polyopt.model.scop", "polyopt.report.notebook", "networkx")


def test_a_cache_hit_does_not_import_the_compiler(warm):
    check = f"import sys; print(sorted(m for m in {COMPILER_MODULES!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", WORKER.replace('print("ok")', check)],
                          cwd=TESTS_DIR, env=warm.env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert warm.compiler_runs() == 0
    assert proc.stdout.strip() == "[]", proc.stdout


def test_two_processes_compiling_at_once_both_succeed(wrapper, tmp_path):
    box = Sandbox(wrapper, tmp_path)
    procs = [box.start(POLYOPT_TEST_CC_SLEEP="1") for _ in range(2)]  # both in the compiler
    for p in procs:
        finish(p)
    assert box.compiler_runs() == 2
    assert sound(box.the_library())
    assert [p.name for p in (box.cache / "lib").iterdir() if p.name.startswith(".")] == []
    box.run()  # and what was published is a hit
    assert box.compiler_runs() == 2


def _truncate(lib: Path) -> None:
    lib.write_bytes(lib.read_bytes()[:100])


def _garbage(lib: Path) -> None:
    lib.write_bytes(b"\0garbage" * (lib.stat().st_size // 8))


def _delete(lib: Path) -> None:
    lib.unlink()


def _bad_manifest(lib: Path) -> None:
    (lib.parent / "manifest.json").write_text("{not json")


def _unloadable(lib: Path) -> None:
    """A library that passes the SHA-256 check but cannot be loaded."""
    data = b"not an ELF file" * 100
    lib.write_bytes(data)
    manifest = json.loads((lib.parent / "manifest.json").read_text())
    manifest["sha256"] = hashlib.sha256(data).hexdigest()
    (lib.parent / "manifest.json").write_text(json.dumps(manifest))


def _another_kernels(lib: Path) -> None:
    """Another key's entry under this key (a hostile user swapped two entries' folders,
    and each script ran the other's kernel): its library and digest are sound, but its
    manifest names its own key."""
    manifest = json.loads((lib.parent / "manifest.json").read_text())
    manifest["key"] = "f" * len(manifest["key"])
    (lib.parent / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("corrupt", [_truncate, _garbage, _delete, _bad_manifest, _unloadable,
                                     _another_kernels])
def test_corrupt_cache_entry_is_detected_and_rebuilt(warm, corrupt):
    corrupt(warm.the_library())
    warm.run()  # the right result despite the corrupt entry
    assert warm.compiler_runs() == 1
    assert sound(warm.the_library())


def test_rebuilt_entry_is_a_hit_again(warm):
    _truncate(warm.the_library())
    warm.run()
    warm.run()
    assert warm.compiler_runs() == 1


def test_corrupt_index_falls_back_to_the_library_cache(warm):
    [index] = list((warm.cache / "index").glob("*.json"))
    index.write_text('{"library": 42}')
    warm.run()
    # the library was sound: found again from the C text, no second compile
    assert warm.compiler_runs() == 0
    rewritten = [json.loads(f.read_text()) for f in (warm.cache / "index").glob("*.json")]
    assert any(isinstance(d["library"], str) and "interface" in d for d in rewritten)


# --- a poisoned index: every entry is checked before the C trusts it ------------------


def _the_index(box: Sandbox) -> Path:
    [index] = list((box.cache / "index").glob("*.json"))
    return index


def _reseal(data: dict) -> dict:
    """The entry with its hash recomputed: only the schema and consistency checks see it."""
    from polyopt.backend_c.index import _digest

    data["sha256"] = _digest(data["library"], data["interface"])
    return data


def _rank(data: dict) -> dict:
    data["interface"]["arrays"][0]["rank"] = 3  # reads `shape[2]` of a 2-D array
    data["interface"]["arrays"][0]["shape"].append({"terms": [], "const": 5})
    return _reseal(data)


def _size_source(data: dict) -> dict:
    name = next(iter(data["interface"]["param_sources"]))
    data["interface"]["param_sources"][name][1] = 7
    return _reseal(data)


def _ctype(data: dict) -> dict:
    data["interface"]["c_args"][-1][2] = "doubel"  # a cffi error on every call, before
    return _reseal(data)


def _missing_field(data: dict) -> dict:
    del data["interface"]["param_limit"]  # a KeyError on every call, before
    return _reseal(data)


def _function(data: dict) -> dict:
    data["interface"]["function"] += "_x"
    data["interface"]["check_function"] = data["interface"]["function"] + "_check"
    return _reseal(data)


def _arg_names(data: dict) -> dict:
    data["interface"]["arg_names"].reverse()
    return _reseal(data)


def _digit(data: dict) -> dict:
    data["interface"]["param_limit"] += 1  # one digit, hash left as it was
    return data


@pytest.mark.parametrize("poison", [_rank, _size_source, _ctype, _missing_field, _function,
                                    _arg_names, _digit])
def test_poisoned_index_entry_is_discarded_with_a_warning_and_rebuilt(warm, poison):
    index = _the_index(warm)
    index.write_text(json.dumps(poison(json.loads(index.read_text()))))
    proc = warm.start()
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.strip() == "ok", f"exit {proc.returncode}\n{out}{err}"
    assert err.count("discarding the cache index entry") == 1, err
    # the library was sound: found again from the C text, no second compile
    assert warm.compiler_runs() == 0
    warm.run()  # and the rewritten entry is sound
    assert warm.compiler_runs() == 0
    assert json.loads(index.read_text())["sha256"] == _reseal(json.loads(index.read_text()))["sha256"]


def test_every_one_digit_change_of_an_index_entry_is_refused(warm):
    """Any digit changed anywhere in an entry (the shape of a poisoned disk block)."""
    from polyopt.backend_c.index import BadEntry, _check

    from polyopt.model.dtypes import DType
    from polyopt.model.signature import ArrayType, Signature

    text = _the_index(warm).read_text()
    sig = Signature(tuple((n, ArrayType(DType.FLOAT64, 2)) for n in ("A", "B", "C")))
    _check(text, ["A", "B", "C"], sig)  # the entry itself is sound
    digits = [k for k, ch in enumerate(text) if ch.isdigit()]
    assert len(digits) > 40
    for k in digits:
        changed = text[:k] + str((int(text[k]) + 1) % 10) + text[k + 1:]
        with pytest.raises(BadEntry):
            _check(changed, ["A", "B", "C"], sig)
    with pytest.raises(BadEntry, match="differs"):  # and an entry of another signature
        _check(text, ["A", "B", "C"], Signature(tuple(
            (n, ArrayType(DType.FLOAT32, 2)) for n in ("A", "B", "C"))))


def _no_manifest(lib: Path) -> None:
    (lib.parent / "manifest.json").unlink()


def _manifest_list(lib: Path) -> None:
    (lib.parent / "manifest.json").write_text("[1, 2]")


def _no_index_then(corrupt):
    def both(lib: Path) -> None:
        for f in (lib.parents[2] / "index").glob("*.json"):
            f.unlink()
        corrupt(lib)
    both.__name__ = f"no_index_and{corrupt.__name__}"
    return both


@pytest.mark.parametrize("corrupt", [_no_manifest, _manifest_list, _no_index_then(_no_manifest),
                                     _no_index_then(_manifest_list)])
def test_missing_or_malformed_manifest_is_rebuilt_every_time(warm, corrupt):
    """Once `OSError: Directory not empty` on every later call."""
    corrupt(warm.the_library())
    warm.run()
    assert warm.compiler_runs() == 1
    assert sound(warm.the_library())
    warm.run()
    assert warm.compiler_runs() == 1


# --- a cache that cannot be written ---------------------------------------------------


def _run_warning_once(box: Sandbox, **env: str) -> str:
    proc = box.start(**env)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.strip() == "ok", f"exit {proc.returncode}\n{out}{err}"
    return err


def test_cache_path_that_is_a_file_builds_privately_with_one_warning(wrapper, tmp_path):
    box = Sandbox(wrapper, tmp_path)
    box.cache.write_text("not a directory")
    err = _run_warning_once(box)
    assert err.count("cannot be used") == 1, err
    assert box.cache.read_text() == "not a directory"


def test_cache_path_that_cannot_be_created_builds_privately(wrapper, tmp_path):
    box = Sandbox(wrapper, tmp_path)
    err = _run_warning_once(box, POLYOPT_CACHE_DIR="/proc/polyopt-cache")  # even root cannot
    assert err.count("cannot be used") == 1, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_cache_builds_privately(wrapper, tmp_path):
    box = Sandbox(wrapper, tmp_path)
    box.cache.mkdir()
    box.cache.chmod(0o500)
    try:
        err = _run_warning_once(box)
    finally:
        box.cache.chmod(0o700)
    assert err.count("cannot be used") == 1, err


def test_read_only_warm_cache_is_still_a_hit(warm):
    """A cache that can be read but not written (a shared, read-only install) still serves."""
    for p in [warm.cache, *warm.cache.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        warm.run()
    finally:
        for p in [warm.cache, *warm.cache.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
    assert warm.compiler_runs() == 0


def test_full_cache_builds_privately_with_one_warning(monkeypatch, tmp_path):
    """A disk that fills up while the build is written into the cache."""
    import errno

    import kernels
    import numpy as np
    from polyopt.backend_c import build

    import polyopt

    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_warned", set())
    real = Path.write_text

    def write_text(self: Path, *args, **kwargs):
        if str(self).startswith(str(tmp_path / "cache")):
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    with pytest.warns(RuntimeWarning, match="cannot be used") as caught:
        for _ in range(2):
            C = np.zeros((3, 2))
            polyopt.jit(kernels.matmul_acc)(A, B, C)
            np.testing.assert_allclose(C, A @ B, rtol=1e-12)
    assert sum("cannot be used" in str(w.message) for w in caught) == 1


@pytest.mark.parametrize("fault", [
    # the cache removed while the compiler runs (rm -rf of it in another shell)
    'rm -rf "$POLYOPT_CACHE_DIR"; exec cc "$@"',
    # the linker runs out of space in the cache (the ENOSPC of a nearly full disk)
    'echo "/usr/bin/ld: final link failed: No space left on device" >&2; exit 1',
])
def test_a_build_the_cache_fails_is_redone_privately(monkeypatch, tmp_path, fault):
    """Hostile session 48b, findings 01 and 02: both raised CompileError, where a cache
    that cannot be written builds in a private directory with one warning."""
    import kernels
    import numpy as np
    from polyopt.backend_c import build

    import polyopt

    cache, flag = tmp_path / "cache", tmp_path / "once"
    wrapper = tmp_path / "cc.sh"
    wrapper.write_text(f'#!/bin/sh\nif [ ! -e "{flag}" ] && echo "$*" | grep -q "{cache}"; then\n'
                       f'  touch "{flag}"; {fault}\nfi\nexec cc "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("CC", str(wrapper))
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(cache))
    monkeypatch.setattr(build, "_warned", set())
    rng = np.random.default_rng(2)
    A, B, C = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), np.zeros((3, 2))
    with pytest.warns(RuntimeWarning, match="cannot be used"):
        polyopt.jit(kernels.matmul_acc)(A, B, C)
    assert flag.exists()
    np.testing.assert_allclose(C, A @ B, rtol=1e-12)


def test_build_directories_of_killed_processes_are_swept(warm):
    """A process killed while it compiles leaves ``lib/.tmp-<key>-*`` behind (hostile
    session, stop 33): the next build removes those older than a compile can run, and
    leaves a recent one, which may belong to a build that is still running."""
    from polyopt.backend_c import build

    lib = warm.cache / "lib"
    old, recent = lib / ".tmp-0123-killed", lib / ".tmp-4567-running"
    for d in (old, recent):
        d.mkdir()
        (d / "kernel.c").write_text("/* half built */")
    past = (d.stat().st_mtime - build.STALE_BUILD_S - 60,) * 2
    os.utime(old, past)
    shutil.rmtree(warm.cache / "index")  # so that the worker builds again (a cache miss)
    for entry in warm.entries():
        shutil.rmtree(entry)
    warm.run()
    assert warm.compiler_runs() == 1
    assert not old.exists() and recent.exists()


# --- the key covers everything that changes the code ----------------------------------


def _module(tmp_path: Path, text: str):
    """A module written to a file (the frontend reads the source) and imported."""
    import importlib.util

    path = tmp_path / f"mod_{hashlib.sha256(text.encode()).hexdigest()[:8]}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_closures_of_one_factory_get_their_own_builds(tmp_path):
    import numpy as np

    import polyopt

    mod = _module(tmp_path, """
        def make(c):
            def scale(x):
                for i in range(x.shape[0]):
                    x[i] = x[i] * c
            return scale
    """)
    for c in (2.0, 3.0, 2.0):
        x = np.arange(5.0)
        polyopt.jit(mod.make(c))(x)
        np.testing.assert_array_equal(x, np.arange(5.0) * c)


def test_global_constants_get_their_own_builds(tmp_path):
    import numpy as np

    import polyopt

    for k in (3, 4):
        mod = _module(tmp_path, f"""
            K = {k}
            def add(x):
                for i in range(x.shape[0]):
                    x[i] = x[i] + K
        """)
        x = np.arange(5)
        polyopt.jit(mod.add)(x)
        np.testing.assert_array_equal(x, np.arange(5) + k)


@pytest.mark.parametrize("builtin, definition, use", [
    ("range", "def range(n):\n    return [0]", "for i in range(x.shape[0]):\n        x[i] = 5.0"),
    ("abs", "def abs(v):\n    return v + 100.0", "for i in range(x.shape[0]):\n        x[i] = abs(x[i])"),
    ("len", "len = lambda a: 1", "for i in range(len(x)):\n        x[i] = 5.0"),
    ("min", "from numpy import maximum as min",
     "for i in range(x.shape[0]):\n        x[i] = min(x[i], 0.5)"),
])
def test_shadowed_builtin_is_refused_naming_it(tmp_path, builtin, definition, use):
    import numpy as np

    import polyopt

    mod = _module(tmp_path, f"{definition}\n\ndef f(x):\n    {use}\n")
    with pytest.raises(polyopt.UnsupportedError, match=rf"`{builtin}`: redefines the builtin"):
        polyopt.jit(mod.f)(np.ones(3))


def test_shadowing_through_a_closure_is_refused(tmp_path):
    import numpy as np

    import polyopt

    mod = _module(tmp_path, """
        def make():
            abs = lambda v: v + 100.0
            def f(x):
                for i in range(x.shape[0]):
                    x[i] = abs(x[i])
            return f
    """)
    with pytest.raises(polyopt.UnsupportedError, match="`abs`: redefines the builtin"):
        polyopt.jit(mod.make())(np.ones(3))


@pytest.mark.parametrize("use", ["x[i] = x[i] + BIG", "x[i] = BIG // 1024", "x[i] = x[i + BIG - BIG]"])
def test_global_int_beyond_64_bits_is_refused(tmp_path, use):
    import numpy as np

    import polyopt

    mod = _module(tmp_path, f"BIG = 2**70\n\ndef f(x):\n    for i in range(x.shape[0]):\n        {use}\n")
    with pytest.raises(polyopt.UnsupportedError, match="`BIG`: global int 1180591620717411303424 "
                       "does not fit in 64 bits"):
        polyopt.jit(mod.f)(np.ones(3, dtype=np.int64))


def _built_c(kernel) -> str:
    [compiled] = kernel._specializations.values()
    return compiled.library.with_name("kernel.c").read_text()


def test_parallel_min_is_part_of_the_key(monkeypatch):
    import kernels
    import numpy as np

    import polyopt

    A, B = np.ones((3, 4)), np.ones((4, 2))
    for threshold in ("0", "777", "778"):
        monkeypatch.setenv("POLYOPT_PARALLEL_MIN", threshold)
        k = polyopt.jit(kernels.matmul_acc)
        k(A, B, np.zeros((3, 2)))
        c = _built_c(k)
        # 0: every call on a team, so no flag at all
        assert f">= {threshold}.0;" in c if threshold != "0" else "polyopt_team" not in c


def test_target_is_part_of_the_key(monkeypatch):
    import kernels
    import numpy as np

    import polyopt
    from polyopt.model import target

    A, B = np.ones((30, 40)), np.ones((40, 20))
    sources = []
    for unit in (target.VectorUnit(128, 16), target.VectorUnit(512, 32)):
        monkeypatch.setattr(target, "vector_unit", lambda unit=unit: unit)
        k = polyopt.jit(kernels.matmul_acc)
        C = np.zeros((30, 20))
        k(A, B, C)
        np.testing.assert_allclose(C, A @ B)
        assert _built_c(k) == k.c_source(A, B, C)  # the build is this target's code
        sources.append(_built_c(k))
    assert sources[0] != sources[1]
