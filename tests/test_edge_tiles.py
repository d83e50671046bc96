"""The ragged columns of a register-tiled matmul in tiles of MR rows and 4 columns
(polyopt.scheduler.register_tiling._register_tile_edge).

Differential: gemm against CPython for main tiles the user sets (``unroll_jam``),
including widths that are not a multiple of 4, which leave half a narrow tile beside
the last main tile and so get no narrow tiles.  Refusal: a split whose full part holds
part of a tile, which the printer's unguarded copies would overrun.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import check_against_python
from kernels import gemm
from polyopt.frontends.python import parse_function

import polyopt
from polyopt.analysis.dependences import analyze
from polyopt.model import isl_text
from polyopt.model.aff import Cmp, Lin
from polyopt.model.options import Options
from polyopt.scheduler import register_tiling
from polyopt.transforms.split import full_tile_domain


@pytest.mark.parametrize("nr", [4, 5, 6, 8, 10, 12])
def test_user_tiles_of_any_width_match_python(nr, monkeypatch):
    """A main tile of 10 columns over 10 columns left j = 8, 9 to narrow tiles of 4
    aligned at 8: a first version ran j = 8..11, overwriting the next row's first two."""
    monkeypatch.setenv("POLYOPT_TARGET", "avx512")
    f = polyopt.jit(gemm, unroll_jam=(4, nr))
    rng = np.random.default_rng(nr)
    for nj in (3, 10, 13, 17, 23):
        check_against_python(f, 1.5, 1.2, rng.standard_normal((11, nj)),
                             rng.standard_normal((11, 7)), rng.standard_normal((7, nj)))


def test_a_full_part_of_half_a_tile_is_refused(monkeypatch):
    monkeypatch.setenv("POLYOPT_TARGET", "avx512")
    scop = parse_function(gemm)
    st = next(s for s in scop.statements if "k" in s.iterators)
    deps = analyze(scop)

    full, _ = full_tile_domain(scop, st, {"i": 4, "j": 4})

    def parts(columns: int) -> list:
        below = isl_text.make_set(scop.params, st.name, st.iterators,
                                  Cmp("<", Lin.var("j"), Lin.constant(columns)))
        mine = full.intersect(below)
        return [(f"{st.name}f", mine), (f"{st.name}r", st.domain.subtract(mine))]

    # tiles of 4 columns: j < 6 is one whole tile and half of the next, j < 8 two tiles
    options = Options(unroll_jam=(4, 4), tile=False)
    assert register_tiling._register_tile(scop, deps, scop.schedule, st.name, options,
                                          parts(6)) is None
    assert register_tiling._register_tile(scop, deps, scop.schedule, st.name, options,
                                          parts(8)) is not None
