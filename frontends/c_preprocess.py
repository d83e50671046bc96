"""Running the C preprocessor on a user's file so that pycparser can parse it.

The file's own macros and local headers (``#include "kernel.h"``, and headers
found through ``-I`` directories) are honoured by the real preprocessor
(``$CC -E``).  System headers are not: glibc's headers are full of GNU
extensions that pycparser cannot read.  Instead, ``-nostdinc`` points the
preprocessor at a directory of small *fake* system headers that declare the
usual typedefs (``size_t``, ``FILE``, ``int64_t``...) and macros (``M_PI``,
``INFINITY``, ``NULL``...), the approach of pycparser's ``fake_libc_include``.
A system header the fake directory lacks is created empty on the fly.

Line markers are kept, so every pycparser coordinate names the user's file
and line; :class:`LineMap` maps columns on macro-expanded lines back to the
original text.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from polyopt.model.errors import PolyoptError, Problem, SourceLocation, UnsupportedError


class PreprocessError(PolyoptError):
    """The C preprocessor is missing or rejected the file (outside polyopt's subset)."""


# Every fake system header includes this one.  Values follow glibc on x86-64 Linux,
# so a macro used inside a scop region means what it means in a real build.
_FAKE_COMMON = r"""#ifndef POLYOPT_FAKE_LIBC_H
#define POLYOPT_FAKE_LIBC_H
typedef unsigned long size_t;
typedef long ssize_t;
typedef long ptrdiff_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef int wchar_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
typedef struct _polyopt_FILE FILE;
typedef struct _polyopt_va_list *va_list;
typedef long time_t;
typedef long clock_t;
typedef long off_t;
typedef int pid_t;
typedef int pthread_t;
typedef int pthread_mutex_t;
typedef int pthread_attr_t;
typedef _Bool bool;
typedef float _Float16;
struct timeval { long tv_sec; long tv_usec; };
struct timespec { long tv_sec; long tv_nsec; };
struct timezone { int tz_minuteswest; int tz_dsttime; };
extern FILE *stdin;
extern FILE *stdout;
extern FILE *stderr;
#define NULL ((void *)0)
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#define EOF (-1)
#define true 1
#define false 0
#define CLOCKS_PER_SEC 1000000l
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define SHRT_MAX __SHRT_MAX__
#define CHAR_BIT 8
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define assert(x) ((void)0)
#define va_start(ap, last) ((void)0)
#define va_end(ap) ((void)0)
#define va_arg(ap, type) (*(type *)0)
#endif
"""

FAKE_LIBC = "_polyopt_fake_libc.h"  # the header every fake system header includes
_FAKE_HEADERS = (
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
    "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdarg.h",
    "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "strings.h",
    "tgmath.h", "time.h", "unistd.h", "omp.h", "malloc.h", "alloca.h", "fcntl.h",
    "pthread.h", "sched.h", "emmintrin.h", "xmmintrin.h", "immintrin.h", "sys/time.h",
    "sys/types.h", "sys/stat.h", "sys/resource.h", "sys/mman.h",
)

# GNU spellings pycparser does not know, removed or mapped to standard C.
_GNU_DEFINES = (
    "__attribute__(x)=", "__extension__=", "__asm__(x)=", "__asm(x)=", "__inline__=inline",
    "__inline=inline", "__restrict__=restrict", "__restrict=restrict", "__volatile__=volatile",
    "__const=const", "__signed__=signed", "__builtin_va_list=int", "__int128=long",
    "_Float128=double", "__float128=double",
)

#: a C comment, block or line (string literals are the caller's to blank first, where
#: they may hold `/*`)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_MISSING = re.compile(r"fatal error: (\S+?): No such file or directory")
_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$",
                   re.M)
_MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class CppOptions:
    """Preprocessor settings: ``-I`` directories and ``-D`` macros (``NAME`` or ``NAME=VALUE``)."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()


def compiler() -> list[str]:
    """The C compiler command (``$CC``, default ``cc``)."""
    return shlex.split(os.environ.get("CC", "cc")) or ["cc"]


def preprocess(path: Path, options: CppOptions = CppOptions(), text: str | None = None,
               keep_defines: bool = False) -> str:
    """The preprocessed text of ``path`` (line markers kept), with fake system headers;
    of ``text`` instead of the file's own, where given, as if it were the file;
    ``keep_defines``: with the ``#define`` and ``#undef`` lines where they were (``-dD``)."""
    cc = compiler()
    if shutil.which(cc[0]) is None:
        raise PreprocessError(f"no C compiler: {cc[0]!r} was not found (set CC to one); it is "
                              "needed to run the C preprocessor")
    with tempfile.TemporaryDirectory(prefix="polyopt-cpp-") as tmp:
        fake = Path(tmp)
        _write_fake(fake, _FAKE_HEADERS)
        cmd = [*cc, "-E", "-nostdinc", "-std=gnu11", *(["-dD"] if keep_defines else [])]
        source = path
        if text is not None:  # `#include "x.h"` still finds x.h beside the file
            source = fake / "polyopt-source" / path.name
            source.parent.mkdir()
            # named and numbered as the file itself, in line markers and messages
            quoted = str(path).replace("\\", "\\\\").replace('"', '\\"')
            source.write_text(f'#line 1 "{quoted}"\n' + text, encoding="utf-8",
                              errors="surrogateescape")
            cmd.append(f"-iquote{path.parent}")
        cmd += [f"-I{d}" for d in options.include_dirs]
        cmd += [f"-I{fake}", *(f"-D{d}" for d in _GNU_DEFINES)]
        cmd += [f"-D{d}" for d in options.defines]
        # as C whatever the name: gcc takes a file with no known suffix for a linker
        # input and prints nothing, and `.C`/`.cpp` for C++
        cmd += ["-x", "c", str(source)]
        for _ in range(64):  # each round may add one missing system header
            # the file's bytes as they are (Latin-1 comments, stray binary): never a decode error
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                                  encoding="utf-8", errors="surrogateescape")
            if proc.returncode == 0:
                return spell_digraphs(proc.stdout)
            missing = _MISSING.search(proc.stderr)
            if missing is None or not _is_system_include(proc.stderr, missing.group(1)):
                raise _error(proc.stderr, path)
            _write_fake(fake, (missing.group(1),))
        raise _error(proc.stderr, path)


# C99 6.4.6p3: the digraphs `<:` `:>` `<%` `%>` are the punctuators `[` `]` `{` `}` (the
# preprocessor has taken `%:` already); pycparser knows only the latter.  Each is spelled
# with a space after it, so that columns stay those of the file.  Literals are skipped.
_DIGRAPH = re.compile(r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|<:|:>|<%|%>")
_PUNCTUATOR = {"<:": "[ ", ":>": "] ", "<%": "{ ", "%>": "} "}


def spell_digraphs(text: str) -> str:
    """``text`` (preprocessed C) with each digraph written as its punctuator."""
    if not any(d in text for d in _PUNCTUATOR):
        return text
    return _DIGRAPH.sub(lambda m: _PUNCTUATOR.get(m.group(), m.group()), text)


def _is_system_include(stderr: str, header: str) -> bool:
    """Whether the missing header was included with ``<...>`` (we fake those only)."""
    return f"<{header}>" in stderr or f"include <{header}>" in stderr or (
        f'"{header}"' not in stderr)


def _write_fake(root: Path, headers: tuple[str, ...]) -> None:
    (root / FAKE_LIBC).write_text(_FAKE_COMMON)
    for h in headers:
        target = root / h
        if not target.resolve().is_relative_to(root.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        depth = h.count("/")
        target.write_text(f'#include "{"../" * depth}{FAKE_LIBC}"\n')


def _error(stderr: str, path: Path) -> PolyoptError:
    m = _DIAG.search(stderr)
    if m is None:
        text = stderr.strip() or "the preprocessor failed"
        return PreprocessError(f"{path}: cannot preprocess the file:\n{text}")
    line = int(m.group("line"))
    col = int(m.group("col") or 1)
    loc = SourceLocation(m.group("file"), line, col, _line_of(Path(m.group("file")), line))
    return UnsupportedError([Problem(loc, "preprocessing", m.group("msg").strip())])


def _line_of(path: Path, line: int) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def marker_name(filename: str) -> str:
    """``filename`` as cpp writes it in a line marker, a C string's escapes added."""
    return filename.replace("\\", "\\\\").replace('"', '\\"')


class LineMap:
    """Lines of the preprocessed text by (file, line), to map columns back to the source.

    gcc keeps a line's leading whitespace and its unexpanded tokens where they were, so
    a column is exact on lines without macros; on other lines the token at the column
    is looked up in the original line.
    """

    def __init__(self, output: str) -> None:
        self._lines: dict[tuple[str, int], str] = {}
        file, line = "", 0
        for text in output.splitlines():
            m = _MARKER.match(text)
            if m:
                file, line = m.group(2), int(m.group(1))
                continue
            self._lines.setdefault((file, line), text)
            line += 1

    def expanded(self, file: str, line: int) -> str:
        return self._lines.get((file, line), "")

    def column(self, file: str, line: int, col: int, original: str) -> int:
        """The column in ``original`` (the source line) of preprocessed column ``col``."""
        expanded = self.expanded(file, line)
        if expanded == original or not expanded:
            return col
        token = re.match(r"[A-Za-z_]\w*|\d[\w.]*|\S", expanded[col - 1:]) if col >= 1 else None
        if token is None:
            return col
        word = token.group(0)
        nth = len(re.findall(re.escape(word), expanded[: col - 1]))
        hits = [m.start() for m in re.finditer(re.escape(word), original)]
        if nth < len(hits):
            return hits[nth] + 1
        stripped = len(original) - len(original.lstrip())
        return stripped + 1
