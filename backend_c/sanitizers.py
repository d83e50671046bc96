"""Sanitizers in ``CFLAGS``: a kernel built with ``-fsanitize=address`` (or ``thread``,
``hwaddress``) links against a runtime that must be the first library of the process.
Loaded into a CPython that did not start with it, the runtime ends the whole process
("ASan runtime does not come first in initial library list") instead of raising; so
the build refuses first, saying how to start Python with it."""

from __future__ import annotations

import ctypes

#: sanitizer -> (a symbol its runtime defines, the runtime's library)
_RUNTIMES = {"address": ("__asan_init", "libasan.so"),
             "thread": ("__tsan_init", "libtsan.so"),
             "hwaddress": ("__hwasan_init", "libhwasan.so")}


def requested(flags: list[str]) -> set[str]:
    """The sanitizers ``flags`` turn on (the last of ``-fsanitize=`` and
    ``-fno-sanitize=`` wins for each, as with gcc)."""
    on: set[str] = set()
    for flag in flags:
        for prefix, add in (("-fsanitize=", True), ("-fno-sanitize=", False)):
            if flag.startswith(prefix):
                names = set(flag[len(prefix):].split(","))
                on = on | names if add else on - names
    return on


def missing_runtime(compiler: list[str], flags: list[str]) -> str | None:
    """Why a library built with ``flags`` cannot be loaded into this process (None when
    it can): the sanitizer runtime it needs is not loaded already."""
    process = ctypes.CDLL(None)
    for name in sorted(requested(flags)):
        if name not in _RUNTIMES:
            continue
        symbol, library = _RUNTIMES[name]
        if not hasattr(process, symbol):
            cc = " ".join(compiler)
            return (f"CFLAGS has -fsanitize={name}, whose runtime must be loaded before "
                    f"anything else: its kernels would end this Python process when loaded. "
                    f"Start Python with LD_PRELOAD=$({cc} -print-file-name={library}) "
                    f"(and ASAN_OPTIONS=detect_leaks=0 for CPython), or drop the flag")
    return None
