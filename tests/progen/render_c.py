"""A :class:`~progen.nodes.Program` as a C file: the kernel's loops as a ``#pragma scop``
region inside a C function, and a ``main`` that runs it on the program's inputs and prints
every result (floats in hexadecimal, exactly).

The C program means what C means (float32 arithmetic is promoted to double), so its
oracle is the same file compiled without polyopt, at ``-O0``; ``%`` and ``//`` are
written with Python's meaning (macros) where C's differs, so that its values stay the
Python program's and the shadow run's error bounds hold for them (finding 016).
Allocated temporaries become parameters (the harness allocates them), so they can be
printed like the arguments.
"""

from __future__ import annotations

import numpy as np

from progen import oracle
from progen.nodes import (
    Assign,
    Bin,
    BoolOp,
    Call,
    Cmp,
    Expr,
    For,
    If,
    IfExp,
    Index,
    Name,
    Neg,
    Not,
    Num,
    Program,
    Stmt,
)

CTYPE = {"float64": "double", "float32": "float", "int64": "long", "int32": "int", "int16": "short",
         "uint8": "unsigned char", "int8": "signed char", "uint16": "unsigned short",
         "uint32": "unsigned int"}
FN = "kernel"


class CRender:
    def __init__(self, p: Program) -> None:
        self.p = p
        self.kinds = oracle.kinds(p)
        self.declared: set[str] = set()
        self.loop_vars: set[str] = set()  # of the loops around what is rendered

    def kind(self, e: Expr) -> str:
        return oracle.kind_of(e, self.p, self.kinds)

    # --- expressions ---------------------------------------------------------------------

    def expr(self, e: Expr) -> str:
        if isinstance(e, Num):
            if isinstance(e.value, float):
                text = repr(e.value)
                return f"({text})" if e.value < 0 else text
            return f"({e.value})" if e.value < 0 else str(e.value)
        if isinstance(e, Name):
            return e.id
        if isinstance(e, Index):
            dims = self.p.array_dims(e.array)
            parts = []
            for d, i in zip(dims, e.idx, strict=True):
                if isinstance(i, Num) and i.value < 0:  # Python counts from the end
                    parts.append(f"[{d} - {-i.value}]")
                else:
                    parts.append(f"[{self.expr(i)}]")
            return e.array + "".join(parts)
        if isinstance(e, Bin):
            return self.binary(e)
        if isinstance(e, Neg):
            return f"(-{self.expr(e.operand)})"
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Cmp):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, BoolOp):
            op = " && " if e.op == "and" else " || "
            return "(" + op.join(self.expr(v) for v in e.values) + ")"
        if isinstance(e, Not):
            return f"(!{self.expr(e.operand)})"
        if isinstance(e, IfExp):
            return f"({self.expr(e.cond)} ? {self.expr(e.then)} : {self.expr(e.other)})"
        raise TypeError(e)

    def binary(self, e: Bin) -> str:
        a, b = self.expr(e.left), self.expr(e.right)
        floaty = self.kind(e) == "float"
        if e.op == "**":
            return f"pow({a}, {b})" if floaty else _int_power(a, e.right)
        if e.op == "//" and floaty:
            return f"floor({a} / {b})"
        if e.op == "%" and floaty:
            return f"PYFMOD({a}, {b})"
        if e.op in ("//", "%") and not (self._nonnegative(e.left) and isinstance(e.right, Num)
                                        and e.right.value > 0):
            return f"{'PYDIV' if e.op == '//' else 'PYMOD'}({a}, {b})"
        if e.op == "//":
            return f"({a} / {b})"
        if e.op == "/":
            return f"((double){a} / {b})"
        return f"({a} {e.op} {b})"

    def _nonnegative(self, e: Expr) -> bool:
        """Loop variables, sizes and constants of at least 0, added and multiplied: C's
        ``/`` and ``%`` by a positive constant are Python's there, and stay affine."""
        if isinstance(e, Num):
            return e.value >= 0
        if isinstance(e, Name):
            return e.id in self.loop_vars or e.id in self.p.sizes
        if isinstance(e, Bin) and e.op in ("+", "*"):
            return self._nonnegative(e.left) and self._nonnegative(e.right)
        return False

    def call(self, e: Call) -> str:
        args = [self.expr(a) for a in e.args]
        if e.module == "np" and e.fn == "power" and self.kind(e) == "int":
            return _int_power(args[0], e.args[1])
        if e.module:
            return f"{e.fn}({', '.join(args)})"
        floaty = self.kind(e) == "float"
        if e.fn == "abs":
            return f"{'fabs' if floaty else 'labs'}({args[0]})"
        if e.fn in ("min", "max"):
            if floaty:
                return f"PYF{e.fn.upper()}({args[0]}, {args[1]})"
            return f"{e.fn.upper()}({args[0]}, {args[1]})"
        if e.fn == "int":
            return f"((long)({args[0]}))"
        if e.fn == "float":
            return f"((double)({args[0]}))"
        raise ValueError(e.fn)

    def bound(self, e: Expr) -> str:
        """A loop bound: ``min``/``max`` as macros (polyopt sees the ternaries)."""
        if isinstance(e, Call) and e.fn in ("min", "max"):
            return f"{e.fn.upper()}({self.bound(e.args[0])}, {self.bound(e.args[1])})"
        if isinstance(e, Bin) and e.op in "+-*":
            return f"({self.bound(e.left)} {e.op} {self.bound(e.right)})"
        return self.expr(e)

    # --- statements ------------------------------------------------------------------------

    def loop_header(self, s: For) -> str:
        v = s.var
        start = self.bound(s.start)
        if isinstance(s.stop, Bin) and s.stop.op == "//" and isinstance(s.stop.right, Num):
            # v < floor(x / c)  <=>  c * v + c <= x: no integer division in a bound
            c = s.stop.right.value
            cond = f"{c} * {v} + {c} <= {self.bound(s.stop.left)}"
        else:
            cond = f"{v} {'<' if s.step > 0 else '>'} {self.bound(s.stop)}"
        inc = f"{v}++" if s.step == 1 else f"{v}--" if s.step == -1 else (
            f"{v} += {s.step}" if s.step > 0 else f"{v} -= {-s.step}")
        return f"for (int {v} = {start}; {cond}; {inc})"

    def stmts(self, body: tuple[Stmt, ...], indent: int) -> list[str]:
        pad = "  " * indent
        out: list[str] = []
        for s in body:
            if isinstance(s, For):
                out.append(f"{pad}{self.loop_header(s)} {{")
                outer = set(self.loop_vars)
                self.loop_vars.add(s.var)
                out += self.stmts(s.body, indent + 1)
                self.loop_vars = outer
                out.append(f"{pad}}}")
            elif isinstance(s, If):
                out += self.if_(s, indent)
            else:
                out.append(pad + self.assign(s))
        return out

    def if_(self, s: If, indent: int, word: str = "if") -> list[str]:
        pad = "  " * indent
        out = [f"{pad}{word} ({self.expr(s.cond)}) {{"]
        out += self.stmts(s.body, indent + 1)
        if len(s.orelse) == 1 and isinstance(s.orelse[0], If):
            out.append(f"{pad}}} else")
            out += self.if_(s.orelse[0], indent)
        elif s.orelse:
            out.append(f"{pad}}} else {{")
            out += self.stmts(s.orelse, indent + 1)
            out.append(f"{pad}}}")
        else:
            out.append(f"{pad}}}")
        return out

    def assign(self, s: Assign) -> str:
        target = self.expr(s.target)
        value = self.expr(s.value)
        if s.op in ("", "+", "-", "*", "/"):
            op = f"{s.op}=" if s.op else "="
            if isinstance(s.target, Name) and s.target.id not in self.declared and not s.op \
                    and s.target.id.startswith("t"):
                self.declared.add(s.target.id)
                ctype = "double" if self.kinds[s.target.id] == "float" else "long"
                return f"{ctype} {target} = {value};"
            return f"{target} {op} {value};"
        return f"{target} = {self.expr(Bin(s.op, s.target, s.value))};"

    # --- the file ---------------------------------------------------------------------------

    def params(self) -> list[tuple[str, str]]:
        """(C declaration, name) of the kernel's parameters, in order."""
        p = self.p
        out = [(f"int {s}", s) for s in p.sizes]
        for a in (*p.arrays, *p.allocs):
            dims = "".join(f"[{d}]" for d in a.dims)
            out.append((f"{CTYPE[a.dtype]} {a.name}{dims}", a.name))
        for s in p.scalars:
            out.append((f"{'long' if s.kind == 'int' else 'double'} {s.name}", s.name))
        return out

    def kernel(self) -> str:
        p = self.p
        ret_kind = self.kind(p.ret) if p.ret is not None and not self._returns_array() else None
        rtype = {"float": "double", "int": "long", None: "void"}[ret_kind]
        lines = [f"{rtype} {FN}({', '.join(d for d, _ in self.params())})", "{"]
        scalars = sorted({n for n, k in self.kinds.items()
                          if n.startswith("s") and n not in p.sizes})
        for n in scalars:
            lines.append(f"  {'double' if self.kinds[n] == 'float' else 'long'} {n};")
        lines.append("#pragma scop")
        lines += self.stmts(p.body, 1)
        lines.append("#pragma endscop")
        if ret_kind is not None:
            assert p.ret is not None
            lines.append(f"  return {self.expr(p.ret)};")
        lines.append("}")
        return "\n".join(lines)

    def _returns_array(self) -> bool:
        return isinstance(self.p.ret, Name) and any(a.name == self.p.ret.id for a in self.p.allocs)

    def main(self, args: tuple) -> str:
        p = self.p
        lines = ["int main(void)", "{"]
        arrays = [*p.arrays, *p.allocs]
        values = list(args[:len(p.arrays)])
        for a in p.allocs:
            shape = tuple(p.sizes[d] for d in a.dims)
            values.append(np.full(shape, 1 if a.fill == "ones" else 0, dtype=a.dtype))
        for s in p.sizes:
            lines.append(f"  int {s} = {p.sizes[s]};")
        for a, v in zip(arrays, values, strict=True):
            flat = v.reshape(-1)
            if a.dtype.startswith("float"):
                init = ", ".join(float(x).hex() for x in flat)
            else:
                init = ", ".join(str(int(x)) for x in flat)
            ct = CTYPE[a.dtype]
            lines.append(f"  static {ct} {a.name}_data[{flat.size}] = {{{init}}};")
        for s, v in zip(p.scalars, args[len(p.arrays):], strict=True):
            lit = float(v).hex() if s.kind == "float" else str(int(v))
            lines.append(f"  {'double' if s.kind == 'float' else 'long'} {s.name} = {lit};")
        call_args = []
        for _, name in self.params():
            if any(a.name == name for a in arrays):
                a = next(a for a in arrays if a.name == name)
                dims = "".join(f"[{d}]" for d in a.dims[1:])
                call_args.append(f"({CTYPE[a.dtype]} (*){dims}){name}_data")
            else:
                call_args.append(name)
        call = f"{FN}({', '.join(call_args)})"
        if p.ret is not None and not self._returns_array():
            kind = self.kind(p.ret)
            if kind == "float":
                lines.append(f'  printf("ret %a\\n", (double){call});')
            else:
                lines.append(f'  printf("ret %ld\\n", (long){call});')
        else:
            lines.append(f"  {call};")
        for a, v in zip(arrays, values, strict=True):
            fmt = '"%a\\n", (double)' if a.dtype.startswith("float") else '"%ld\\n", (long)'
            lines.append(f'  printf("array {a.name} {v.size}\\n");')
            lines.append(f"  for (int e = 0; e < {v.size}; e++) printf({fmt}{a.name}_data[e]);")
        lines += ["  return 0;", "}"]
        return "\n".join(lines)


HEADER = """#include <math.h>
#include <stdio.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* Python's max and min of floats: the first operand unless the second is greater
   (smaller).  fmax and fmin leave the sign of a tie of zeros unspecified, and gcc's
   builtins (-O1 and up) and glibc's functions differ on it (fuzz finding 028) */
#define PYFMAX(a, b) ((b) > (a) ? (b) : (a))
#define PYFMIN(a, b) ((b) < (a) ? (b) : (a))
/* Python's % and // (the sign of the divisor, the floor), so that the C program computes
   what the Python one does and the shadow run's error bounds hold for it */
#define PYFMOD(a, b) (fmod(a, b) + ((fmod(a, b) != 0 && ((fmod(a, b) < 0) != ((b) < 0))) ? (b) : 0))
#define PYMOD(a, b) ((a) % (b) + ((((a) % (b)) != 0 && ((((a) % (b)) < 0) != ((b) < 0))) ? (b) : 0))
#define PYDIV(a, b) ((a) / (b) - ((((a) % (b)) != 0 && ((((a) % (b)) < 0) != ((b) < 0))) ? 1 : 0))

"""


def c_file(p: Program) -> str:
    r = CRender(p)
    kernel = r.kernel()
    return HEADER + kernel + "\n\n" + r.main(oracle.inputs(p)) + "\n"


def _int_power(base: str, exponent: Expr) -> str:
    """An int's power by a constant (the generator's ``ipow``), as products in C."""
    assert isinstance(exponent, Num) and isinstance(exponent.value, int)
    return "(" + " * ".join([f"({base})"] * exponent.value or ["1L"]) + ")"
