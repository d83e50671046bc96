"""Extents that NumPy requires to be equal, given one size parameter.

``C[:] = A @ B`` on argument arrays needs ``C.shape[0] == A.shape[0]``,
``A.shape[1] == B.shape[0]`` and ``C.shape[1] == B.shape[1]``.  With a parameter per
dimension, every loop would run to the ``max`` of its extents, and isl would work on
six parameters and piecewise bounds.  Instead a pass records the equalities its array
statements need (:class:`ShapeEquations`), :func:`solve` turns each into the
elimination of one array dimension's parameter, and the next pass reads that
dimension as the others' expression::

    pass 1:  A_shape1 == B_shape0        pass 2:  B.shape[0] is A_shape1
             C_shape0 == A_shape0                 C.shape[0] is A_shape0 ...

Every eliminated dimension, and every equality no parameter can absorb (``C[0:3] =
B[0:k]``: ``3 == k``), becomes a :class:`SizeCheck` that the call tests before the C
runs, raising ``ValueError`` as NumPy does.  Extents whose difference involves loop
variables are not recorded (a call-time check cannot see them): their loops run to
the ``max``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from polyopt.frontends.python_source import FunctionSource

from polyopt.model.aff import Lin, python_text
from polyopt.model.size_checks import SizeCheck

Key = tuple[str, int]  # (array, dimension)


def token(key: Key) -> str:
    """The name of an array dimension inside a :class:`Unified` value (not an identifier,
    so it meets no user name)."""
    return f"{key[0]}.shape[{key[1]}]"


def _key(name: str) -> Key | None:
    if not name.endswith("]") or ".shape[" not in name:
        return None
    array, _, dim = name[:-1].partition(".shape[")
    return array, int(dim)


@dataclass(frozen=True)
class Unified:
    """An array dimension that is no parameter: its ``value`` over other dimensions'
    tokens and int arguments; ``where`` is the statement that requires it."""

    value: Lin
    where: str


@dataclass(frozen=True)
class Equation:
    """``left == right`` in one pass's parameter names."""

    left: Lin
    right: Lin
    where: str


class ShapeEquations:
    """The equalities of extents one pass's array statements need."""

    def __init__(self, src: FunctionSource) -> None:
        self.src = src
        self.equations: list[Equation] = []

    def where(self, node: ast.AST) -> str:
        """``file.py:9: `A @ B```: the construct that needs an equality."""
        text = ast.unparse(node)
        if len(text) > 60:
            text = text[:57] + "..."
        loc = self.src.location(node)
        return f"{loc.filename}:{loc.line}: `{text}`"

    def equate(self, left: Lin, right: Lin, node: ast.AST, params: Collection[str]) -> bool:
        """Record ``left == right`` when their difference is in sizes only (then a loop
        may run to either: ``A.shape[0] - i`` against ``B.shape[0] - i`` needs
        ``A.shape[0] == B.shape[0]``); False when it involves loop variables."""
        d = left - right
        if not d.names() <= set(params):
            return False
        pos = Lin(tuple(t for t in d.terms if t[1] > 0), d.const)
        self.equations.append(Equation(pos, pos - d, self.where(node)))
        return True


def resolve(value: Lin, extent: Callable[[str, int], Lin]) -> Lin:
    """``value`` with each dimension token replaced by that dimension's extent."""
    keys = {n: _key(n) for n in value.names()}
    return value.substitute({n: extent(*k) for n, k in keys.items() if k is not None})


def solve(equations: list[Equation], unified: Mapping[Key, Unified],
          sources: Mapping[str, Key], auto: Collection[str]) -> dict[Key, Unified]:
    """``unified`` with one more dimension eliminated per independent equation.

    ``sources`` maps this pass's parameters to their array dimensions (an int argument
    has none and is never eliminated); parameters in ``auto`` have no user name and are
    eliminated first, so reports keep the user's names."""
    out = dict(unified)
    tokens = {name: token(key) for name, key in sources.items()}
    names = {key: name for name, key in sources.items()}
    for eq in equations:
        d = (eq.left - eq.right).substitute({n: Lin.var(t) for n, t in tokens.items()})
        d = d.substitute({token(k): u.value for k, u in out.items()})
        best: tuple[bool, int, str] | None = None
        for rank, (atom, c) in enumerate(d.terms):
            key = _key(atom) if isinstance(atom, str) else None
            if not isinstance(atom, str) or key is None or abs(c) != 1 or \
                    atom in (d - Lin(((atom, c),))).names():
                continue
            choice = (names.get(key, "") in auto, rank, atom)
            best = choice if best is None or choice > best else best
        if best is None:
            continue  # `3 == k`, or contradictory: the pass checks (or refuses) it again
        atom = best[2]
        c = d.coeff(atom)
        value = (d - Lin(((atom, c),))).scale(-c)  # c * t + rest == 0: t = -rest / c
        step = {atom: value}
        out = {k: Unified(u.value.substitute(step), u.where) for k, u in out.items()}
        found = _key(atom)
        assert found is not None
        out[found] = Unified(value, eq.where)
    return out


def size_checks(unified: Mapping[Key, Unified], extent: Callable[[str, int], Lin],
                equations: list[Equation], check_names: Mapping[Key, str],
                auto: Mapping[str, Key]) -> tuple[SizeCheck, ...]:
    """What the call tests: each eliminated dimension (named by ``check_names``) against
    its value, then each equality this pass recorded (none were left to a parameter).
    Parameters in ``auto`` (no user name) are shown as ``A.shape[1]``."""
    show = {n: Lin.var(token(k)) for n, k in auto.items()}
    show.update({n: Lin.var(token(k)) for k, n in check_names.items()})

    def check(left: Lin, right: Lin, at: str) -> SizeCheck:
        text = f"{at} needs {python_text(left.substitute(show))} == " \
            f"{python_text(right.substitute(show))}"
        return SizeCheck(left, right, text)

    out = [check(Lin.var(check_names[k]), resolve(u.value, extent), u.where)
           for k, u in unified.items()]
    out += [check(e.left, e.right, e.where) for e in equations]
    return tuple(out)


__all__ = ["Equation", "ShapeEquations", "Unified", "resolve", "size_checks", "solve", "token"]
