"""CPython as the oracle: inputs, the reference run, taming, and the comparison.

A program is *prepared* once: its module is written to a file (polyopt reads the source),
CPython runs it with NumPy's floating-point and integer overflow warnings as errors, and
the result must be finite and of moderate size.  A program that fails that is tamed
(every stored value squashed) and tried again; one that still fails is discarded.  The
shadow run (:mod:`progen.shadow`) gives every float result its error bound.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib.util
import math
import operator
import signal
import sys
import threading
import types
import warnings
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from progen import render_py, shadow
from progen.nodes import (
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
    is_float_dtype,
)

FLOAT_LIMIT = 1e6
INT_LIMIT = 2**24
TOLERANCE_ULPS = 64  # times the unit roundoff times the error bound


def inputs(p: Program) -> tuple:
    rng = np.random.default_rng(p.seed)
    args: list[Any] = []
    for a in p.arrays:
        shape = tuple(p.sizes[d] for d in a.dims)
        if is_float_dtype(a.dtype):
            args.append(rng.uniform(-2.0, 2.0, shape).astype(a.dtype))
        else:
            args.append(rng.integers(-9, 10, shape).astype(a.dtype))
    args += [s.value for s in p.scalars]
    return tuple(args)


def source_key(p: Program) -> str:
    return hashlib.sha256(render_py.module(p).encode()).hexdigest()[:16]


def load(p: Program, directory: Path):
    """Write the program's module into ``directory`` and import its kernel."""
    key = source_key(p)
    name = f"progen_{key}"
    path = directory / f"{name}.py"
    if not path.exists():
        path.write_text(render_py.module(p))
    if name in sys.modules:
        return getattr(sys.modules[name], render_py.FUNCTION)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, render_py.FUNCTION)


@dataclass(frozen=True)
class Outcome:
    arrays: tuple[np.ndarray, ...]  # the array arguments after the call
    ret: Any


def call(fn, args: tuple) -> Outcome:
    mine = copy.deepcopy(args)
    ret = fn(*mine)
    return Outcome(tuple(a for a in mine if isinstance(a, np.ndarray)), ret)


class _CheckedStores(np.ndarray):
    """An int array that refuses a float stored outside its type: NumPy wraps an
    np.float64 into an unsigned array (-1.5 is 255 in uint8) where polyopt raises
    OverflowError (README, "Integers"), so the reference run of such a program fails
    and the program is tamed, like one that overflows."""

    def __setitem__(self, key: Any, value: Any) -> None:
        values = np.asarray(value)
        if values.dtype.kind == "f" and values.size:
            info = np.iinfo(self.dtype)
            with np.errstate(invalid="ignore"):
                inside = (values > info.min - 1.0) & (values < info.max + 1.0)
            if not np.all(inside):
                raise OverflowError(f"a float stored out of {self.dtype}'s range")
        super().__setitem__(key, value)


def _int64(x: Any) -> int:
    """``int()`` as the README's integer contract has it: a float no int64 holds is an
    OverflowError (CPython gives a big int), so such a program is tamed."""
    if isinstance(x, (float, np.floating)) and math.isfinite(x) and not -2.0**63 <= x < 2.0**63:
        raise OverflowError("int() of a float no int64 holds")
    return int(x)


def _int64_of(f: Any) -> Any:
    def g(x: Any) -> int:
        if isinstance(x, (float, np.floating)) and math.isfinite(x) and not (
                -2.0**63 <= x < 2.0**63):
            raise OverflowError(f"math.{f.__name__} of a float no int64 holds")
        return f(x)
    return g


#: ``math`` as the README's integer contract has it: ``floor``, ``ceil`` and ``trunc``
#: convert a float to an int, and one no int64 holds is an OverflowError (finding 022)
_MATH64 = types.SimpleNamespace(**{k: getattr(math, k) for k in dir(math) if not k.startswith("_")})
for _f in (math.floor, math.ceil, math.trunc):
    setattr(_MATH64, _f.__name__, _int64_of(_f))


def run_python(fn, args: tuple) -> Outcome:
    checked = tuple(a.view(_CheckedStores) if isinstance(a, np.ndarray) and a.dtype.kind in "iu"
                    else a for a in args)
    names = {"int": _int64}
    if fn.__globals__.get("math") is math:
        names["math"] = _MATH64
    reference = types.FunctionType(fn.__code__, {**fn.__globals__, **names},
                                   fn.__name__, fn.__defaults__, fn.__closure__)
    with np.errstate(all="raise", under="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        out = call(reference, checked)
    return Outcome(tuple(np.asarray(a) for a in out.arrays), out.ret)


def _values(o: Outcome) -> list[np.ndarray]:
    out = [np.asarray(a) for a in o.arrays]
    if o.ret is not None:
        out.append(np.asarray(o.ret))
    return out


def sane(o: Outcome) -> bool:
    for v in _values(o):
        if v.dtype.kind == "f":
            if not np.all(np.isfinite(v)) or (v.size and np.max(np.abs(v)) > FLOAT_LIMIT):
                return False
        elif v.dtype.kind in "iu" and v.size and np.max(np.abs(v.astype(np.int64))) > INT_LIMIT:
            return False
    return True


# --- taming ---------------------------------------------------------------------------------


def kinds(p: Program) -> dict[str, str]:
    """The kind ("int"/"float") of every scalar name, from its first assignment."""
    env: dict[str, str] = {s: "int" for s in p.sizes}
    env.update({s.name: s.kind for s in p.scalars})

    def walk(body: tuple[Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, For):
                env[s.var] = "int"
                walk(s.body)
            elif isinstance(s, If):
                walk(s.body)
                walk(s.orelse)
            elif isinstance(s.target, Name) and s.target.id not in env:
                env[s.target.id] = kind_of(s.value, p, env)

    walk(p.body)
    return env


def kind_of(e: Expr, p: Program, env: dict[str, str]) -> str:
    def join(*xs: str) -> str:
        return "float" if "float" in xs else "int"

    if isinstance(e, Num):
        return "float" if isinstance(e.value, float) else "int"
    if isinstance(e, Name):
        return env.get(e.id, "int")
    if isinstance(e, Index):
        return "float" if is_float_dtype(p.array_dtype(e.array)) else "int"
    if isinstance(e, Bin):
        if e.op == "/":
            return "float"
        return join(kind_of(e.left, p, env), kind_of(e.right, p, env))
    if isinstance(e, Neg):
        return kind_of(e.operand, p, env)
    if isinstance(e, Call):
        if e.module == "np" and e.fn == "power":  # of ints, an int
            return join(*(kind_of(a, p, env) for a in e.args))
        if e.module or e.fn == "float":
            return "float"
        if e.fn == "int":
            return "int"
        return join(*(kind_of(a, p, env) for a in e.args))
    if isinstance(e, IfExp):
        return join(kind_of(e.then, p, env), kind_of(e.other, p, env))
    if isinstance(e, (Cmp, BoolOp, Not)):
        return "int"
    raise TypeError(e)


def tame(p: Program) -> Program:
    """Every value stored in a loop squashed: floats through tanh, integers modulo 97."""
    env = kinds(p)

    def squash(e: Expr, kind: str, mod: int = 97) -> Expr:
        return Call("tanh", (e,), "math") if kind == "float" else Bin("%", e, Num(mod))

    def stmt(s: Stmt) -> Stmt:
        if isinstance(s, For):
            return replace(s, body=tuple(stmt(x) for x in s.body))
        if isinstance(s, If):
            return replace(s, body=tuple(stmt(x) for x in s.body),
                           orelse=tuple(stmt(x) for x in s.orelse))
        kind = kind_of(s.target, p, env)
        v = s.value
        if s.op in ("*", "/", "//", "%"):
            return s  # factors of magnitude <= 1, divisors >= 1, constants
        if s.op == "" and isinstance(v, Call) and v.fn in ("min", "max") and v.args[0] == s.target:
            return replace(s, value=replace(v, args=(v.args[0], squash(v.args[1], kind))))
        return replace(s, value=squash(v, kind, 97 if s.op == "" else 7))

    body = tuple(stmt(s) if isinstance(s, (For, If)) else s for s in p.body)
    return replace(p, body=body)


# --- preparing a program ----------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    program: Program
    fn: Any  # the kernel, imported from its file
    args: tuple
    expected: Outcome
    errors: tuple[Any, ...]  # per array argument, then the return value: error bounds or None
    eps: float  # the unit roundoff the error bounds are counted in
    # the allocated arrays' error bounds, by name: a C region passes them as arguments
    alloc_errors: dict[str, Any] = field(default_factory=dict)
    # an int was taken of a float that rounding may move across an integer: nothing is
    # bounded, and the matrix compiles the program bit-exact (finding 021)
    int_jumps: bool = False
    # floats were compared that rounding may move across each other: a branch on them may
    # go the other way in a compiled run, so a difference beyond the bounds is ``unstable``
    unsure_branches: bool = False


REFERENCE_SECONDS = 2


@contextlib.contextmanager
def _time_limit(seconds: int):
    """Stop a reference run that takes too long (Python ints can grow without bound)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise TimeoutError("the CPython run took too long")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def reference(p: Program, directory: Path) -> tuple[Any, tuple, Outcome] | None:
    args = inputs(p)
    try:
        fn = load(p, directory)
        with _time_limit(REFERENCE_SECONDS):
            out = run_python(fn, args)
    except Exception:  # noqa: BLE001 - any failure of CPython's run makes the program unusable
        return None
    return (fn, args, out) if sane(out) else None


def prepare(p: Program, directory: Path) -> Prepared | None:
    """The program (tamed if it must be) with its CPython results, or None if unusable."""
    ref = reference(p, directory)
    if ref is None:
        p = tame(p)
        ref = reference(p, directory)
        if ref is None:
            return None
    fn, args, expected = ref
    allocated: list[np.ndarray] = []
    with shadow.tracking_branches() as unsure_branches:
        errs, int_jumps = shadow_errors(p, args, allocated)
    alloc_errors = {a.name: (shadow.errors_of(x) if len(allocated) == len(p.allocs)
                             else np.full(x.shape, np.inf))
                    for a, x in zip(p.allocs, allocated, strict=False)}
    uses32 = any(a.dtype == "float32" for a in (*p.arrays, *p.allocs))
    eps = 2.0**-24 if uses32 else 2.0**-53
    return Prepared(p, fn, args, expected, errs, eps, alloc_errors, int_jumps,
                    unsure_branches[0])


def shadow_errors(p: Program, args: tuple, allocated: list[np.ndarray] | None = None
                  ) -> tuple[tuple[Any, ...], bool]:
    """The error bounds of each array argument, then of the return value; and whether an
    int was taken of a float near a jump (then every bound is infinite)."""
    ns = shadow.namespace(allocated)
    source = render_py.function(p, shadow=True, rounded=locals_rounding_python_floats(p))
    exec(source, ns)  # noqa: S102 - our own generated code
    sargs = tuple(shadow.shadow_array(a) if isinstance(a, np.ndarray) else
                  shadow.lift(a) if isinstance(a, float) else a for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                with shadow.tracking_ints() as near_jump:
                    ret = ns[render_py.FUNCTION](*sargs)
            except (OverflowError, ValueError, TypeError):
                # the shadow run's Python ints (int() of an EF) left a narrow int type
                # where CPython's NumPy scalars stayed in it: no bound for its floats,
                # and its ints are compared exactly anyway
                return (*(np.full(a.shape, np.inf) if a.dtype.kind == "f" else None
                          for a in args if isinstance(a, np.ndarray)), math.inf), False
    if near_jump[0]:
        # an int of a float that rounding may move across an integer (finding 021): no
        # bound on anything, ints included; only a bit-exact run (strict_fp) is compared
        if allocated is not None:
            allocated[:] = [np.full(a.shape, shadow.EF(0.0, math.inf), dtype=object)
                            for a in allocated]
        return (*(np.full(a.shape, np.inf) for a in args if isinstance(a, np.ndarray)),
                math.inf), True
    arrays = [shadow.errors_of(a) for a in sargs if isinstance(a, np.ndarray)]
    return (*arrays, shadow.errors_of(ret)), False


# --- comparing ----------------------------------------------------------------------------------


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        return bool(np.all(same))
    return bool(np.array_equal(a, b))


def _close(expected: np.ndarray, actual: np.ndarray, err: Any, eps: float) -> np.ndarray:
    """Elementwise: within the error bound (NaN equal to NaN)."""
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    bound = TOLERANCE_ULPS * eps * (np.asarray(err, dtype=np.float64) if err is not None
                                    else np.abs(e)) + 1e-300
    return (np.abs(a - e) <= bound) | (np.isnan(a) & np.isnan(e))


# NumPy's own (SIMD) float kernels for these are not libm's: the README promises 2 ulp,
# not bit-exactness, for the `np.` forms (sqrt is correctly rounded, fabs exact)
_NP_INEXACT = frozenset({"exp", "log", "sin", "cos", "tanh", "pow", "sinh", "cosh", "expm1",
                         "log1p", "log2", "log10", "hypot"})


def bit_exact_possible(program: Program) -> bool:
    """Whether ``strict_fp`` promises bit-exact results for ``program``: it calls none of
    NumPy's transcendental functions, no local variable holds a choice CPython gives
    different types (:func:`local_holds_mixed_choice`), and none computes in float64
    where CPython's first computes in float32 (:func:`computes_on_weak_then_float64`)
    or rounds a Python float to a float32 local (:func:`locals_rounding_python_floats`)."""
    stack: list[object] = [program]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.module == "np" and node.fn in _NP_INEXACT:
            return False
        if isinstance(node, (list, tuple)):
            stack.extend(node)
        elif hasattr(node, "__dataclass_fields__"):
            stack.extend(getattr(node, f) for f in node.__dataclass_fields__)
    return (not local_holds_mixed_choice(program) and not computes_on_weak_then_float64(program)
            and not locals_rounding_python_floats(program))


# --- the types CPython gives values ----------------------------------------------------------
#
# Arithmetic on a choice (``a if c else b``, ``max``, ``min``) follows the chosen operand's
# type in polyopt as in CPython, and is compared bit for bit.  A local variable has one
# static type (the README's paragraph on ``max``, ``min`` and ``a if c else b``): assigned
# a choice CPython gives different types, it holds the chosen value, but later statements
# compute on it in that one type, where CPython computes in the type of the value it
# holds.  Such a program is compared within the error bound, also under strict_fp, as one
# calling NumPy's transcendental functions is.

_SAMPLES: dict[str, Any] = {
    "bool": True, "int": 1, "float": 1.0, "int32": np.int32(1), "int64": np.int64(1),
    "float32": np.float32(1), "float64": np.float64(1), "int16": np.int16(1),
    "uint8": np.uint8(1), "int8": np.int8(1), "uint16": np.uint16(1), "uint32": np.uint32(1),
}
_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b, "&": lambda a, b: _bitwise(operator.and_, a, b),
    "|": lambda a, b: _bitwise(operator.or_, a, b), "^": lambda a, b: _bitwise(operator.xor, a, b),
}


def _bitwise(op: Any, a: Any, b: Any) -> Any:
    """``a op b``; a float where CPython raises TypeError (a float operand): the program
    itself then raises, which the oracle reports."""
    try:
        return op(a, b)
    except TypeError:
        return 0.0


def _tag(v: Any) -> str:
    """``v``'s type: a NumPy dtype's name, or ``bool``, ``int``, ``float`` for Python's."""
    if isinstance(v, np.generic):
        return "bool" if v.dtype.kind == "b" else v.dtype.name
    return type(v).__name__


def value_types(e: Expr, p: Program, env: dict[str, frozenset[str]]) -> frozenset[str]:
    """The types (:func:`_tag`) CPython may give the value of ``e``: one, unless a choice
    between operands of different types decides it."""
    def sub(x: Expr) -> frozenset[str]:
        return value_types(x, p, env)

    def combos(fn, *sets: frozenset[str]) -> frozenset[str]:
        out: list[tuple[Any, ...]] = [()]
        for s in sets:
            out = [c + (_SAMPLES[t],) for c in out for t in sorted(s)]
        with np.errstate(all="ignore"):
            return frozenset(_tag(fn(*c)) for c in out)

    if isinstance(e, Num):
        return frozenset({_tag(e.value)})
    if isinstance(e, Name):
        return env.get(e.id, frozenset({"int"}))
    if isinstance(e, Index):
        return frozenset({p.array_dtype(e.array)})
    if isinstance(e, Bin):
        return combos(_BINOPS[e.op], sub(e.left), sub(e.right))
    if isinstance(e, Neg):
        return combos(lambda a: -a, sub(e.operand))
    if isinstance(e, IfExp):
        return sub(e.then) | sub(e.other)
    if isinstance(e, (Cmp, BoolOp, Not)):
        return frozenset({"bool"})
    assert isinstance(e, Call)
    return _call_types(e, [sub(a) for a in e.args], combos)


def _call_types(e: Call, args: list[frozenset[str]], combos: Any) -> frozenset[str]:
    if e.module == "math" and e.fn in ("floor", "ceil", "trunc"):
        return frozenset({"int"})  # CPython's math.floor(x) is an int
    if e.module == "math" or e.fn == "float":
        return frozenset({"float"})
    if e.fn == "int":
        return frozenset({"int"})
    if e.module == "np":
        return combos(getattr(np, e.fn), *args)
    if e.fn in ("min", "max"):
        return frozenset().union(*args)
    return combos(abs, *args)


def local_holds_mixed_choice(p: Program) -> bool:
    """Whether a local variable of ``p`` holds a value CPython may give one of several
    types that compute differently (a float32 or a Python float, say), and a later
    expression computes on it (arithmetic or a comparison, not a store, a conversion,
    ``max``/``min`` or ``a if c else b``, which pass the value on as it is)."""
    mixed, values, _ = _local_types(p)
    return bool(mixed) and any(_computes_on(v, mixed) for v in values)


def computes_on_weak_then_float64(p: Program) -> bool:
    """Whether a local variable of ``p`` is assigned a Python float and a float64, beside
    float32 arrays, and a later expression computes on it: its one static type (README)
    is float64, so ``C32[i] - s`` subtracts in float64, where CPython subtracts in float32
    while ``s`` still holds the Python float (``s = 0.0``, then ``s = t - np.sqrt(...)``).
    A recurrence may grow that first rounding difference far beyond an ulp."""
    _, values, kinds = _local_types(p)
    retyped = {n for n, k in kinds.items() if {"float", "float64"} <= k}
    return bool(retyped) and any(_computes_on(v, retyped) for v in values)


def locals_rounding_python_floats(p: Program) -> frozenset[str]:
    """The locals that the README types float32, NumPy's promotion of the values assigned
    to them, and that are also assigned a Python float that float32 may round (``s =
    T32[0, 0]``, then ``s = max(s, 0.1)``; not ``s = 0.0``): such an assignment rounds
    the value, where CPython keeps the Python float (finding 033).  The shadow run
    counts that rounding (``_S.round32``)."""
    env: dict[str, frozenset[str]] = {s: frozenset({"int"}) for s in p.sizes}
    env.update({s.name: frozenset({s.kind}) for s in p.scalars})
    assigned: list[tuple[str, Expr]] = []

    def walk(body: tuple[Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, For):
                env[s.var] = frozenset({"int"})
                walk(s.body)
            elif isinstance(s, If):
                walk(s.body)
                walk(s.orelse)
            elif isinstance(s.target, Name):
                value = Bin(s.op, s.target, s.value) if s.op else s.value
                assigned.append((s.target.id, value))
                t = _stored_type(value_types(value, p, env))
                old = env.get(s.target.id)
                env[s.target.id] = frozenset({t if old is None else _promoted({*old, t})})

    for _ in range(3):  # loop-carried locals
        assigned.clear()
        walk(p.body)

    def may_round(e: Expr) -> bool:
        """Whether ``e`` may be a Python float (or int) that float32 rounds."""
        if isinstance(e, Num):
            return (float(np.float32(e.value)) != e.value if isinstance(e.value, float)
                    else abs(e.value) > 2**24)
        if isinstance(e, Name):
            return env.get(e.id) == frozenset({"float"})
        if isinstance(e, IfExp):
            return may_round(e.then) or may_round(e.other)
        if isinstance(e, Call) and not e.module and e.fn in ("min", "max"):
            return any(may_round(a) for a in e.args)
        return "float" in value_types(e, p, env)

    return frozenset(name for name, value in assigned
                     if env[name] == frozenset({"float32"}) and may_round(value))


def _stored_type(types: frozenset[str]) -> str:
    """The README's one static type of a value CPython gives one of ``types``: a float32
    or a narrow int with a Python scalar is the Python scalar (a float if either is),
    other mixes NumPy's promotion."""
    if len(types) == 1:
        return next(iter(types))
    python = {"int", "float", "bool"} & types
    if python and all(t in python or t == "float32" or t in _NARROW_INTS for t in types):
        return "float" if "float" in types or "float32" in types else "int"
    return _promoted(set(types))


_NARROW_INTS = frozenset({"int8", "int16", "int32", "uint8", "uint16", "uint32"})


def _promoted(types: Collection[str]) -> str:
    """NumPy's promotion of one value of each of ``types`` (:func:`_tag` names; a name
    twice is two values: ``bool`` twice adds to an ``int``)."""
    ordered = sorted(types)
    value = _SAMPLES[ordered[0]]
    with np.errstate(all="ignore"):
        for t in ordered[1:]:
            value = value + _SAMPLES[t]
    return _tag(value)


def returns_reassigned_local(p: Program) -> bool:
    """Whether ``p`` returns a value of (or computed on) a local variable assigned values
    of different types (``s = A[2]`` then ``s = 1``; ``s = 0`` then ``s = C64[i]`` beside
    int32 arrays; ``s = max(s, math.floor(x))``): the README gives the local one static
    type, the promotion of all, where CPython's value has the type of the value last
    assigned or chosen."""
    _, _, kinds = _local_types(p)
    reassigned = {n for n, k in kinds.items() if len(k) > 1}
    return p.ret is not None and (_passes_on(p.ret, reassigned)
                                  or _computes_on(p.ret, reassigned))


def returns_mixed_choice(p: Program) -> bool:
    """Whether ``p`` returns a choice (``a if c else b``, ``max``, ``min``) between values
    of different NumPy types: the README gives it one static type, NumPy's promotion
    (``B8[i] if c else A64[j]`` is an int64), where CPython returns the chosen operand
    with its own type (finding 024)."""
    env: dict[str, frozenset[str]] = {s: frozenset({"int"}) for s in p.sizes}
    env.update({s.name: frozenset({s.kind}) for s in p.scalars})
    choice = isinstance(p.ret, IfExp) or (
        isinstance(p.ret, Call) and not p.ret.module and p.ret.fn in ("min", "max"))
    return choice and len(value_types(p.ret, p, env)) > 1


def _local_types(p: Program) -> tuple[set[str], list[Expr], dict[str, set[str]]]:
    """The locals that hold a choice of types, every expression of the program, and the
    types of the values assigned to each local (a Python int and an int64 are one type
    unless the program has 32-bit arrays)."""
    env: dict[str, frozenset[str]] = {s: frozenset({"int"}) for s in p.sizes}
    env.update({s.name: frozenset({s.kind}) for s in p.scalars})
    narrow = any(a.dtype.endswith("32") for a in (*p.arrays, *p.allocs))
    same = {"bool": "int"} if narrow else {"bool": "int", "int64": "int", "float64": "float"}
    mixed: set[str] = set()
    values: list[Expr] = []  # every expression of the program

    def join(old: frozenset[str] | None, new: frozenset[str]) -> frozenset[str]:
        """The README's type of a variable assigned values of both types."""
        if old is None:
            return new
        if len(old) == 1 and len(new) == 1:
            return frozenset({_promoted([*old, *new])})
        return old | new

    def walk(body: tuple[Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, For):
                env[s.var] = frozenset({"int"})
                values.extend((s.start, s.stop))
                walk(s.body)
            elif isinstance(s, If):
                values.append(s.cond)
                walk(s.body)
                walk(s.orelse)
            else:
                v = Bin(s.op, s.target, s.value) if s.op else s.value
                values.append(v)
                if isinstance(s.target, Name):
                    types = value_types(v, p, env)
                    if len({same.get(t, t) for t in types}) > 1:
                        mixed.add(s.target.id)
                    env[s.target.id] = join(env.get(s.target.id), types)
                    kinds.setdefault(s.target.id, set()).update(same.get(t, t) for t in types)

    kinds: dict[str, set[str]] = {}
    for _ in range(3):  # loop-carried locals
        values[:] = [] if p.ret is None else [p.ret]
        walk(p.body)
    return mixed, values, kinds


def _passes_on(e: Expr, names: set[str]) -> bool:
    """``e`` is one of ``names``, or a choice that may evaluate to one."""
    if isinstance(e, Name):
        return e.id in names
    if isinstance(e, IfExp):
        return _passes_on(e.then, names) or _passes_on(e.other, names)
    if isinstance(e, Call) and not e.module and e.fn in ("min", "max"):
        return any(_passes_on(a, names) for a in e.args)
    return False


def _computes_on(e: Expr, names: set[str]) -> bool:
    """Some operation in ``e`` other than a choice or a conversion computes on the value
    of one of ``names``."""
    if isinstance(e, (Num, Name)):
        return False
    if isinstance(e, Index):
        return False  # subscripts are ints
    if isinstance(e, IfExp):
        return any(_computes_on(x, names) for x in (e.cond, e.then, e.other))
    if isinstance(e, Call) and (e.module == "math" or e.fn in ("int", "float") or (
            not e.module and e.fn in ("min", "max"))):
        return any(_computes_on(a, names) for a in e.args)
    kids: tuple[Expr, ...]
    if isinstance(e, Bin):
        kids = (e.left, e.right)
    elif isinstance(e, Cmp):
        kids = (e.left, e.right)
    elif isinstance(e, (Neg, Not)):
        kids = (e.operand,)
    elif isinstance(e, BoolOp):
        kids = e.values
    else:
        assert isinstance(e, Call)
        kids = e.args
    return any(_passes_on(k, names) or _computes_on(k, names) for k in kids)



def compare(prep: Prepared, actual: Outcome, strict: bool) -> str | None:
    """None when ``actual`` matches CPython's results, else what differs."""
    names = [a.name for a in prep.program.arrays]
    exp = prep.expected
    for k, (e, a) in enumerate(zip(exp.arrays, actual.arrays, strict=True)):
        msg = _compare_array(names[k], e, a, prep.errors[k], prep.eps, strict)
        if msg:
            return msg
    return _compare_return(exp.ret, actual.ret, prep.errors[-1], prep.eps, strict,
                           local_holds_mixed_choice(prep.program),
                           returns_reassigned_local(prep.program)
                           or returns_mixed_choice(prep.program))


def _compare_array(what: str, e: np.ndarray, a: Any, err: Any, eps: float,
                   strict: bool) -> str | None:
    if not isinstance(a, np.ndarray):
        return f"{what}: expected an array, got {type(a).__name__}"
    if a.shape != e.shape or a.dtype != e.dtype:
        return f"{what}: {a.dtype}{a.shape} but CPython gives {e.dtype}{e.shape}"
    if e.dtype.kind != "f" and not strict and err is not None:
        if bool(np.all((e == a) | ~np.isfinite(err))):
            return None  # ints unbounded: an int taken of a float near a jump
    elif e.dtype.kind != "f" or strict:
        if _bits_equal(e, a):
            return None
    else:
        ok = _close(e, a, err, eps)
        if bool(np.all(ok)):
            return None
        bad = np.argwhere(~ok)
        idx = tuple(int(x) for x in bad[0])
        return (f"{what}: {len(bad)} of {e.size} elements differ; at {idx}: "
                f"{a[idx]!r} but CPython gives {e[idx]!r}")
    bad = np.argwhere(~((e == a) | ((e != e) & (a != a)))) if e.ndim else np.zeros((1, 0), int)
    idx = tuple(int(x) for x in bad[0]) if len(bad) else ()
    return (f"{what}: {len(bad)} of {e.size} elements differ{' (bit-exact asked)' if strict else ''};"
            f" at {idx}: {a[idx]!r} but CPython gives {e[idx]!r}")


def _documented_choice(e: Any, a: Any) -> bool:
    """A returned choice, ``s = A32[i] if c else 0.5`` or ``0.1 * (A32[i] if c else
    0.5)``: CPython gives the type of the operand chosen, polyopt the README's one static
    type (a Python float holding the float32 value exactly, a Python int holding an
    integer narrower than 64 bits, signed or not: finding 019).  Same value, a documented
    difference of type.  (Arithmetic on the choice follows the chosen operand in both:
    the value is compared as any other.)"""
    if isinstance(e, np.floating) and e.dtype.itemsize < 8 and isinstance(a, float):
        return float(e) == a
    return (isinstance(e, np.integer) and e.dtype.itemsize < 8 and isinstance(a, int)
            and int(e) == a)


def _compare_return(e: Any, a: Any, err: Any, eps: float, strict: bool,
                    static_local: bool = False, reassigned: bool = False) -> str | None:
    """``static_local``: a local variable holds a choice of two types that the program
    computes on (:func:`local_holds_mixed_choice`), so a value computed from it has the
    local's one static type, where CPython's has the chosen operand's: any float (int)
    type for a float (int) is documented."""
    if isinstance(e, np.ndarray):
        return _compare_array("return value", e, a, err, eps, strict)
    if e is None:
        return None if a is None else f"return value: {a!r}, CPython returns None"
    if not isinstance(a, (int, float, np.generic)):
        return f"return value: {type(a).__name__} {a!r}, CPython gives {e!r}"
    if isinstance(e, np.generic) and _documented_choice(e, a):
        return None  # the same value, in the README's one static type
    ed, ad = np.asarray(e).dtype, np.asarray(a).dtype
    if (isinstance(e, np.generic) and ed != ad
            and not ((static_local or reassigned) and ed.kind == ad.kind)):
        return f"return value: type {ad} but CPython gives {ed} ({a!r} vs {e!r})"
    if reassigned and ed.kind in "iub" and ad.kind == "f" and float(e) == float(a):
        return None  # the returned local's one static type (README): the same value
    if reassigned and ed.kind in "iu" and ad.kind in "iu" and int(e) == int(a):
        # ``s = 0``, then ``s = U16[i]`` in a loop that does not run: CPython returns the
        # Python int, polyopt the local's one static type, uint16 (finding 027)
        return None
    if ed.kind != ad.kind:
        return f"return value: {a!r} ({ad}) but CPython gives {e!r} ({ed})"
    if ed.kind != "f":
        unbounded = not strict and err is not None and not math.isfinite(err)
        return (None if int(a) == int(e) or unbounded
                else f"return value: {a!r} but CPython gives {e!r}")
    ev, av = float(e), float(a)
    if strict:
        same = ev == av or (math.isnan(ev) and math.isnan(av))
    else:
        same = bool(_close(np.asarray(ev), np.asarray(av), err, eps))
    return None if same else f"return value: {a!r} but CPython gives {e!r}"


def draw_usable(seed: int, directory: Path, features=None) -> Prepared:
    """The first usable program drawn from ``seed`` (trying a few successors)."""
    from progen.draw import Draw, RandomSource
    from progen.generate import generate

    for attempt in range(20):
        prep = prepare(generate(Draw(RandomSource(seed * 100 + attempt)), features), directory)
        if prep is not None:
            return prep
    raise RuntimeError(f"no usable program from seed {seed}")
