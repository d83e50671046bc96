"""Affine expressions: ``floordiv`` simplifications agree with Python's ``//``."""

from __future__ import annotations

import itertools

import pytest

from polyopt.model.aff import FloorDiv, Lin, floordiv


def value(e: Lin, env: dict[str, int]) -> int:
    total = e.const
    for atom, c in e.terms:
        total += c * (env[atom] if isinstance(atom, str) else value(atom.num, env) // atom.den)
    return total


@pytest.mark.parametrize("cx,cy,const,den", [
    (6, 0, 0, 96), (6, 0, 5, 96), (6, 12, -3, 96), (-6, 0, 3, 96), (4, 6, 7, 8),
    (3, 0, 1, 7), (2, -4, -9, 6), (96, 0, 95, 96), (1, 1, 0, 2),
])
def test_floordiv_matches_python(cx, cy, const, den):
    num = Lin.var("x").scale(cx) + Lin.var("y").scale(cy) + Lin.constant(const)
    e = floordiv(num, den)
    for x, y in itertools.product(range(-40, 41, 3), range(-9, 10, 4)):
        env = {"x": x, "y": y}
        assert value(e, env) == (cx * x + cy * y + const) // den, (e, env)


def test_common_factor_is_divided_out():
    """floor((6 * c + 1) / 96) is floor(c / 16): the unrolled rows of a register tile then
    share one row-buffer index."""
    e = floordiv(Lin.var("c").scale(6) + Lin.constant(1), 96)
    assert e == Lin(((FloorDiv(Lin.var("c"), 16), 1),), 0)
