"""The C name of a kernel's function: ``polyopt_`` and the Python name, made an ASCII
identifier, unless that name is one of the prelude's helpers.

``def abs_i8(k): ...`` would be ``polyopt_abs_i8``, the helper that takes an int8's
absolute value: gcc refused the file ("conflicting types for 'polyopt_abs_i8'").  Such
a kernel is ``polyopt_kernel_abs_i8`` instead (no helper's name starts ``kernel_``)::

    square_f64 -> polyopt_kernel_square_f64
    gemm       -> polyopt_gemm            (every other name, as before)
"""

from __future__ import annotations

import re

#: the names after ``polyopt_`` that the preludes (prelude.py, narrow.py) define at file
#: scope: per-type helpers ``<op>_<type suffix>`` and a few untyped ones
_HELPERS = re.compile(
    r"(add|sub|mul|neg|floordiv|mod|min|max|abs|square|ipow|to|maximum|minimum)"
    r"_(i64|i32|i16|i8|u64|u32|u16|u8|f64|f32|f16|b)(_chk)?"
    r"|floord|imin|imax|raise|lgamma|lgammaf|pypow|pyhypot|fit|v(exp|log|sin|cos)")


def kernel_symbol(name: str) -> str:
    """The C function name of the kernel ``name`` (C identifiers are ASCII here:
    ``def β(...)`` must not reach the C compiler as is)."""
    ident = "".join(c if c.isascii() and c.isalnum() else "_" for c in name)
    return "polyopt_kernel_" + ident if _HELPERS.fullmatch(ident) else "polyopt_" + ident
