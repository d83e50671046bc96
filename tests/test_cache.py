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
        echo "$$" >> "$POLYOPT_TEST_CC_LOG"
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


@pytest.mark.parametrize("corrupt", [_truncate, _garbage, _delete, _bad_manifest, _unloadable])
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
