"""Compiling generated C into a shared library, with an on-disk cache.

Entries live under ``$POLYOPT_CACHE_DIR`` (default ``$XDG_CACHE_HOME/polyopt``,
else ``~/.cache/polyopt``) in ``lib/<key>/`` where ``key`` hashes the C text,
the compiler's identity and the flags.  An entry is built in a private
temporary directory and published with one atomic ``rename``, so concurrent
processes never see a half-written library; the manifest records the library's
SHA-256, and an entry that fails the check is discarded and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from polyopt.errors import CompileError

DEFAULT_CFLAGS = "-O3 -march=native -fopenmp"
# Always added: a shared library, and float flags that change no result (no errno
# from math functions, no traps) but let gcc vectorize calls such as exp.
REQUIRED_FLAGS = ("-shared", "-fPIC", "-std=gnu11", "-fno-math-errno", "-fno-trapping-math")
FORMAT_VERSION = "1"


def cache_root() -> Path:
    explicit = os.environ.get("POLYOPT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "polyopt"


@dataclass(frozen=True)
class Toolchain:
    compiler: list[str]
    flags: list[str]
    identity: str  # path, size and mtime of the compiler: changes when it is upgraded


def toolchain(extra_flags: tuple[str, ...] = ()) -> Toolchain:
    cc = shlex.split(os.environ.get("CC", "cc")) or ["cc"]
    flags = shlex.split(os.environ.get("CFLAGS", DEFAULT_CFLAGS))
    return Toolchain(cc, [*flags, *REQUIRED_FLAGS, *extra_flags], _identity(cc[0]))


@lru_cache(maxsize=16)
def _identity(cc: str) -> str:
    path = shutil.which(cc)
    if path is None:
        raise CompileError(
            f"C compiler {cc!r} not found. Install gcc or clang, or set CC to a C compiler."
        )
    real = os.path.realpath(path)
    st = os.stat(real)
    return f"{real}:{st.st_size}:{int(st.st_mtime)}"


def library_key(source: str, tc: Toolchain) -> str:
    h = hashlib.sha256()
    for part in (FORMAT_VERSION, sys.platform, tc.identity, " ".join(tc.compiler), " ".join(tc.flags), source):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cached_library(key: str) -> Path | None:
    """The library of a verified cache entry, or None (a corrupt entry is removed)."""
    entry = cache_root() / "lib" / key
    manifest = entry / "manifest.json"
    lib = entry / "kernel.so"
    if not manifest.exists():
        return None
    try:
        info = json.loads(manifest.read_text())
        if info.get("sha256") == _sha256(lib):
            return lib
    except (OSError, ValueError):
        pass
    discard(entry)
    return None


def discard(entry: Path) -> None:
    """Remove a cache entry atomically (rename first, so no reader sees it half-deleted)."""
    trash = entry.with_name(entry.name + f".trash-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        os.rename(entry, trash)
    except OSError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def build(source: str, tc: Toolchain, name_hint: str = "kernel") -> Path:
    """Compile ``source`` (or reuse the cached build) and return the library's path."""
    key = library_key(source, tc)
    hit = cached_library(key)
    if hit is not None:
        return hit
    root = cache_root() / "lib"
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=root))
    try:
        c_path = tmp / "kernel.c"
        c_path.write_text(source)
        lib = tmp / "kernel.so"
        cmd = [*tc.compiler, *tc.flags, str(c_path), "-o", str(lib), "-lm"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except FileNotFoundError:
            raise CompileError(f"C compiler {tc.compiler[0]!r} not found", None) from None
        except subprocess.TimeoutExpired:
            raise CompileError("the C compiler took more than 10 minutes", _keep(c_path)) from None
        if proc.returncode != 0:
            raise CompileError(
                f"the C compiler failed (exit {proc.returncode}) building {name_hint}: "
                f"{shlex.join(cmd)}", _keep(c_path), proc.stderr or proc.stdout,
            )
        manifest = {"sha256": _sha256(lib), "command": cmd, "name": name_hint}
        (tmp / "manifest.json").write_text(json.dumps(manifest))
        final = root / key
        try:
            os.rename(tmp, final)
        except OSError:
            # another process published the same entry first: use theirs if it is sound
            if cached_library(key) is None:
                os.rename(tmp, final)
        return final / "kernel.so"
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _keep(c_path: Path) -> str:
    """Copy a failing C file out of the temporary build dir so the user can read it."""
    dest_dir = cache_root() / "failed"
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / f"{hashlib.sha256(c_path.read_bytes()).hexdigest()[:16]}.c"
    shutil.copyfile(c_path, dest)
    return str(dest)
