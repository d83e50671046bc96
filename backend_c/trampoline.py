"""Two C functions of one fixed signature each, linked into every kernel's library, so
that the compiled call entry (``call_entry.c``) can call any kernel without libffi.

The kernel's own signature varies (sizes, scalars of four types, arrays, an error flag,
a result); the trampoline takes a pointer to each argument instead and stores the result
through a pointer.  For ``double polyopt_f(int64_t n, double s, double *restrict A,
int32_t *restrict polyopt_err)``::

    void polyopt_f_pyentry(void *const *a, void *r)
    {
      *(double *)r = polyopt_f(*(const int64_t *)a[0], *(const double *)a[1],
                               (double *)a[2], (int32_t *)a[3]);
    }
    int64_t polyopt_f_pycheck(const int64_t *p) { return polyopt_f_check(p[0]); }

They are a translation unit of their own (``entry.c``, with the kernel's prototypes),
compiled in the same command as the kernel, so the kernel's C (``c_source``, the built
``kernel.c``, the snapshots) is unchanged; a library built before them has no such
symbols and is called through the Python wrapper (``fastcall.py``).
"""

from __future__ import annotations

from polyopt.backend_c.interface import KernelInterface


def entry_name(iface: KernelInterface) -> str:
    return f"{iface.function}_pyentry"


def check_name(iface: KernelInterface) -> str:
    return f"{iface.function}_pycheck"


def trampolines(iface: KernelInterface) -> str:
    """The C text of the kernel's two trampolines, a translation unit of its own."""
    args = []
    for k, (_, kind, ct) in enumerate(iface.c_args):
        args.append(f"({ct} *)a[{k}]" if kind == "array" else f"*(const {ct} *)a[{k}]")
    if iface.raises:
        args.append(f"(int32_t *)a[{len(iface.c_args)}]")
    call = f"{iface.function}({', '.join(args)})"
    body = f"*({iface.return_ctype} *)r = {call};" if iface.return_ctype else f"(void)r; {call};"
    n_sizes = sum(kind == "param" for _, kind, _ in iface.c_args)
    sizes = ", ".join(f"p[{k}]" for k in range(n_sizes))
    return ("#include <stdbool.h>\n#include <stdint.h>\n" + iface.cdef()
            + f"\nvoid {entry_name(iface)}(void *const *a, void *r)\n{{\n  {body}\n}}\n"
            f"int64_t {check_name(iface)}(const int64_t *p)\n{{\n"
            f"  {'(void)p; ' if not n_sizes else ''}return {iface.check_function}({sizes});\n}}\n")


def cdef(iface: KernelInterface) -> str:
    """The trampolines' declarations, for cffi to find their addresses."""
    return (f"void {entry_name(iface)}(void *const *a, void *r);\n"
            f"int64_t {check_name(iface)}(const int64_t *p);\n")
