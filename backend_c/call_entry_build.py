"""Building and loading the compiled call entry (``call_entry.c``), a small CPython
extension shared by every kernel.

It is compiled once per cache directory, Python, NumPy and compiler (the key hashes
them with its source) into ``$POLYOPT_CACHE_DIR/entry/<key>/``, on the first warm call
of any kernel (so a process that calls each kernel once never compiles it), published
with one atomic rename like a kernel's build, and loaded once per process.  Where it cannot be
built (no ``Python.h``, no compiler, an unwritable cache) kernels are called through
the Python wrapper (``fastcall.py``), which performs the same checks more slowly;
:func:`unavailable` says why.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np
from polyopt.backend_c.build import _private_dir, cache_root, toolchain

from polyopt.model.errors import warn_user

MODULE = "polyopt_call_entry"
SOURCE = Path(__file__).with_name("call_entry.c")
_why: list[str] = []  # why the extension could not be had, once per process


def _flags() -> list[str]:
    return ["-O2", "-shared", "-fPIC", "-std=gnu11", f"-I{sysconfig.get_paths()['include']}",
            f"-I{np.get_include()}"]


def _key(source: str, compiler: list[str], identity: str) -> str:
    h = hashlib.sha256()
    for part in (source, sys.version, np.__version__, identity, " ".join(compiler),
                 " ".join(_flags())):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _compile(source: Path, where: Path, compiler: list[str]) -> Path:
    """Compile the extension into ``where``: the module's path."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    out = where / f"{MODULE}{suffix}"
    cmd = [*compiler, *_flags(), str(source), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or not out.is_file():
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        first = next((ln for ln in lines if "error" in ln), lines[-1] if lines else "")
        raise OSError(f"{' '.join(cmd)} failed: {first}")
    return out


def _cached() -> Path:
    """Where the cache keeps the extension of this source, Python, NumPy and compiler."""
    tc = toolchain()
    key = _key(SOURCE.read_text(), tc.compiler, tc.identity)
    return cache_root() / "entry" / key / f"{MODULE}{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def _built(use_cache: bool) -> Path:
    """The extension's file, from the cache or compiled now."""
    tc = toolchain()
    path = _cached()
    final, key = path.parent, path.parent.name
    if use_cache and path.is_file():
        return path
    try:
        if not use_cache:
            raise PermissionError("the cache is not to be used")
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=final.parent))
    except OSError:  # built privately, removed when the process exits
        return _compile(SOURCE, _private_dir("polyopt-entry-"), tc.compiler)
    try:
        _compile(SOURCE, tmp, tc.compiler)
        os.rename(tmp, final)
    except OSError:  # another process published it first, or the build failed
        if not path.is_file():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_or_rebuild(use_cache: bool) -> ModuleType:
    """The extension, loaded; a cached one that does not load (a truncated or garbled
    file: "invalid ELF header") is discarded, with a warning, and built again, as a bad
    kernel library is.  Otherwise every call of every process sharing the cache would
    go through the slower Python wrapper, silently."""
    path = _built(use_cache)
    try:
        return _load(path)
    except ImportError as exc:
        if not use_cache or path != _cached():
            raise
        warn_user(f"polyopt: the cached call entry {path} does not load ({exc}); it is "
                  "discarded and built again")
        _discard(path.parent)
        return _load(_built(use_cache))


def _discard(entry: Path) -> None:
    """Remove a cache entry's directory: renamed away first, so that another process
    sees it whole or not at all."""
    try:
        gone = Path(tempfile.mkdtemp(prefix=f".bad-{entry.name}-", dir=entry.parent))
        os.rename(entry, gone / entry.name)
    except OSError:
        return  # another process moved it first
    shutil.rmtree(gone, ignore_errors=True)


_warned: set[str] = set()
_loaded: dict[bool, ModuleType | None] = {}  # per use_cache: the extension, or None


def extension(use_cache: bool = True, build: bool = True) -> ModuleType | None:
    """The loaded extension, or None where it cannot be built or loaded.  With
    ``build=False``, None unless it is loaded already or built in the cache."""
    if use_cache in _loaded:
        return _loaded[use_cache]
    requested = os.environ.get("POLYOPT_CALL_ENTRY", "")
    if requested == "python":  # the fallback, on request
        _why.append("POLYOPT_CALL_ENTRY=python")
        return None
    if requested and requested not in _warned:  # a typo ('Python', 'py') was ignored silently
        _warned.add(requested)
        warn_user(f"polyopt: POLYOPT_CALL_ENTRY={requested!r} is not 'python', the one value it "
                  "takes; it is ignored and kernels are called through the compiled entry")
    if not build and not (use_cache and _cached().is_file()):
        return None
    try:
        _loaded[use_cache] = _load_or_rebuild(use_cache)
    except (OSError, ImportError, subprocess.SubprocessError) as exc:
        _why.append(str(exc))
        _loaded[use_cache] = None
    return _loaded[use_cache]


def unavailable() -> str | None:
    """Why kernels are called through the Python wrapper in this process, if they are."""
    return _why[-1] if _why else None
