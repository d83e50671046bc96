"""Random NumPy array code: whole-array and slice statements over two 2-D arrays ``A``,
``B`` (``n x m``), a row ``x`` (``m``) and a column ``y`` (``n``), with slices written
in every form polyopt reads (omitted, constant, negative, ``n - k``, steps of -1),
elementwise arithmetic and ufuncs, broadcasting of scalars, rows and columns,
reductions with ``axis=``, ``.T``, ``@``, and right-hand sides that overlap the target.

Every program is in bounds and well-shaped for the sizes it is drawn for (``SIZES``);
:func:`program` returns its source, which NumPy runs as the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

from progen.draw import Draw

SIZES = {"n": 6, "m": 5}
ARRAYS2 = ("A", "B")


@dataclass(frozen=True)
class Shape:
    rows: int
    cols: int


def _bound(d: Draw, value: int, size: str, extent: int, upper: bool) -> str:
    """``value`` as a slice bound of a dimension ``size`` long, in a random spelling."""
    forms = [str(value)]
    if value != 0:
        forms.append(f"{size} - {extent - value}" if value < extent else size)
        if value < extent:
            forms.append(f"-{extent - value}")
    if upper and value == extent or not upper and value == 0:
        forms.append("")
    return d.choice(forms)


def _slice(d: Draw, size: str, extent: int, length: int, reverse: bool) -> str:
    start = d.int(0, extent - length)
    if not reverse:
        return f"{_bound(d, start, size, extent, False)}:{_bound(d, start + length, size, extent, True)}"
    # the same elements backwards: start + length - 1 down to start
    hi = start + length - 1
    lo = "" if start == 0 else str(start - 1)
    return f"{hi}:{lo}:-1"


def view(d: Draw, shape: Shape) -> str:
    """A slice of ``A`` or ``B`` of ``shape``."""
    name = d.choice(ARRAYS2)
    rows = _slice(d, "n", SIZES["n"], shape.rows, d.chance(15))
    cols = _slice(d, "m", SIZES["m"], shape.cols, d.chance(15))
    if rows == ":" and cols == ":" and d.chance(50):
        return name
    return f"{name}[{rows}, {cols}]"


def operand(d: Draw, shape: Shape, depth: int) -> str:
    kind = d.weighted([("view", 6), ("scalar", 2), ("row", 2 if shape.cols == SIZES["m"] else 0),
                       ("col", 2), ("ufunc", 2 if depth else 0), ("bin", 4 if depth else 0),
                       ("where", 1 if depth else 0), ("reduce", 2), ("matmul", 1),
                       ("transpose", 1 if shape.rows == shape.cols else 0)])
    if kind == "view":
        return view(d, shape)
    if kind == "scalar":
        return d.choice(["alpha", "1.5", "(-2)", "0.25"])
    if kind == "row":
        return "x"
    if kind == "col":  # a column of extent-1 width broadcasts along the rows
        rows = _slice(d, "n", SIZES["n"], shape.rows, False)
        j = d.int(0, SIZES["m"] - 1)
        return f"{d.choice(ARRAYS2)}[{rows}, {j}:{j + 1}]"
    if kind == "ufunc":
        inner = operand(d, shape, depth - 1)
        return d.choice([f"np.sqrt(np.abs({inner}))", f"np.sin({inner})", f"np.exp(-np.abs({inner}))",
                         f"np.maximum({inner}, 0.5)", f"np.clip({inner}, -1.0, 1.0)"])
    if kind == "bin":
        op = d.choice(["+", "-", "*"])
        return f"({operand(d, shape, depth - 1)} {op} {operand(d, shape, depth - 1)})"
    if kind == "where":
        a, b = operand(d, shape, depth - 1), operand(d, shape, depth - 1)
        return f"np.where({a} > {b}, {a}, {b})"
    if kind == "reduce":  # a reduction broadcast back as a row (axis=0) or a scalar
        fn = d.choice(["sum", "max", "min", "mean"])
        if shape.cols == SIZES["m"] and d.chance(50):
            return f"np.{fn}({d.choice(ARRAYS2)}, axis=0)"
        return f"np.{fn}({view(d, shape)})"
    if kind == "matmul":  # (c x n) @ (n x c), square results only
        if shape.rows != shape.cols:
            return view(d, shape)
        a = _slice(d, "m", SIZES["m"], shape.cols, False)
        b = _slice(d, "m", SIZES["m"], shape.cols, False)
        return f"(0.1 * (A[:, {a}].T @ B[:, {b}]))"
    return f"{view(d, shape)}.T"


def statement(d: Draw) -> str:
    shape = Shape(d.int(1, SIZES["n"]), d.int(1, SIZES["m"]))
    target = view(d, shape)
    op = d.choice(["", "", "+", "-", "*"])
    return f"    {target} {op}= {operand(d, shape, 2)}"


def row_loop(d: Draw) -> str:
    """A statement on row ``i`` inside a loop (slices that depend on the loop variable)."""
    k = d.int(0, 2)
    return ("    for i in range(n):\n"
            f"        A[i, :] {d.choice(['', '+'])}= B[i, :] * {d.choice(['alpha', '0.5'])} + x\n"
            f"        y[i] = np.sum(A[i, : i // 2 + {k}])\n")


def program(d: Draw) -> str:
    body = [statement(d) if d.chance(80) else row_loop(d) for _ in range(d.int(1, 4))]
    return ("import numpy as np\n\n\ndef kernel(A, B, x, y, alpha):\n"
            "    n, m = A.shape\n" + "\n".join(body) + "\n")
