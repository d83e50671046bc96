"""Cache blocks of register-tiled matmuls (polyopt.scheduler.blocking) and the cache
sizes of the target model (polyopt.model.target).

The blocks follow from the target's caches: fixed for the named targets (so tests
pass on any host), read from sysfs for the host.  The generated C uses them.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_transforms import matmul  # matmul(A, B, C): C[i, j] += A[i, k] * B[k, j]

import polyopt
from polyopt.model import target
from polyopt.model.dtypes import DType
from polyopt.model.target import KIB, Caches, VectorUnit, host_caches
from polyopt.scheduler.blocking import KC_RANGE, Blocks, blocks


def test_avx2_float64_blocks():
    # a 512 x 8 float64 micro-panel fills the 32 KiB L1; the 60 x 512 block of the row
    # operand half of the 512 KiB L2 (BLIS's Haswell dgemm: kc = 256, mc = 72..144)
    assert blocks(target.NAMED["avx2"], DType.FLOAT64, 6, 8) == Blocks(60, 512, 4096)


def test_avx512_blocks_fit_its_wider_panels():
    unit = target.NAMED["avx512"]
    b64 = blocks(unit, DType.FLOAT64, 8, 16)
    # a kc x 16 float64 micro-panel fills the 32 KiB L1
    assert b64.kc * 16 * 8 == unit.caches.l1 and b64.kc == 256
    assert b64 == Blocks(128, 256, 4096)
    # float32: twice the lanes per vector, the same bytes per micro-panel
    assert blocks(unit, DType.FLOAT32, 8, 32) == Blocks(128, 256, 4096)


def test_a_column_operand_read_in_place_gets_half_of_l1():
    """trmm writes its column operand B, so B is not packed: its strided micro-panel
    shares L1 with the row operand's panel, and gets half of it."""
    unit = target.NAMED["avx512"]
    packed, in_place = blocks(unit, DType.FLOAT64, 8, 16), blocks(unit, DType.FLOAT64, 8, 16, False)
    assert in_place.kc * 16 * 8 == unit.caches.l1 // 2 == packed.kc * 16 * 8 // 2


def test_trmm_blocks_k_for_its_unpacked_column_operand(monkeypatch):
    """The planner asks for the in-place blocks where the nest writes its column operand,
    and for the packed ones where it does not (gemm)."""
    from test_row_tiles import _args, trmm

    from polyopt.scheduler import register_tiling

    asked: list[bool] = []

    def spy(unit, dtype, mr, nr, packed=True):
        asked.append(packed)
        return blocks(unit, dtype, mr, nr, packed)

    monkeypatch.setattr(register_tiling, "blocks", spy)
    polyopt.jit(trmm, cache=False).c_source(*_args(np.random.default_rng(0), 40, 50))
    assert asked and not any(asked)
    asked.clear()
    polyopt.jit(matmul, cache=False).c_source(np.ones((40, 30)), np.ones((30, 50)), np.ones((40, 50)))
    assert asked and all(asked)


@pytest.mark.parametrize("mr, nr", [(6, 8), (8, 16), (5, 24), (2, 2)])
@pytest.mark.parametrize("caches", [Caches(), Caches(4 * KIB, 16 * KIB, 64 * KIB),
                                    Caches(48 * KIB, 2048 * KIB, 1 << 30)])
def test_blocks_are_whole_register_tiles_within_bounds(mr, nr, caches):
    b = blocks(VectorUnit(256, 16, caches), DType.FLOAT64, mr, nr)
    assert b.mc % mr == 0 and b.nc % nr == 0 and b.kc % 16 == 0
    assert KC_RANGE[0] <= b.kc <= KC_RANGE[1] and b.mc >= mr and b.nc >= nr


def test_named_targets_fix_the_caches(monkeypatch):
    monkeypatch.setenv("POLYOPT_TARGET", "avx512")
    assert target.vector_unit().caches == Caches(32 * KIB, 1024 * KIB, 32768 * KIB)
    monkeypatch.setenv("POLYOPT_TARGET", "avx2")
    assert target.vector_unit().caches.l2 == 512 * KIB


def _sysfs(root: Path, entries: list[tuple[int, str, str]]) -> Path:
    for n, (level, kind, size) in enumerate(entries):
        d = root / f"index{n}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    return root


def test_host_caches_read_sysfs(tmp_path):
    root = _sysfs(tmp_path, [(1, "Data", "48K"), (1, "Instruction", "64K"),
                             (2, "Unified", "2048K"), (3, "Unified", "96M")])
    assert host_caches(root, Caches()) == Caches(48 * KIB, 2048 * KIB, 96 * KIB * KIB)


def test_host_caches_keep_defaults_for_levels_not_listed(tmp_path):
    root = _sysfs(tmp_path, [(1, "Data", "32K"), (2, "Unified", "garbage")])
    assert host_caches(root, Caches(1, 2, 3)) == Caches(32 * KIB, 2, 3)
    assert host_caches(tmp_path / "missing", Caches(1, 2, 3)) == Caches(1, 2, 3)


def test_generated_matmul_uses_the_blocks(monkeypatch):
    """avx2 (conftest): a 6 x 8 float64 tile, kc = 512 and mc = 60; a target with a
    smaller L1 gets a shorter kc."""
    rng = np.random.default_rng(0)
    args = (rng.random((40, 40)), rng.random((40, 40)), np.zeros((40, 40)))
    c = polyopt.jit(matmul).c_source(*args)
    # the k block, and the row blocks of 60 rows: at most 10 register tiles each, cut in
    # ranges for the team (backend_c/ranged.py)
    assert re.search(r"\(512 \* c\d+\) \+ 511", c)
    assert re.search(r"polyopt_row_blocks\(polyopt_count, 10, ", c)
    small = VectorUnit(256, 16, Caches(8 * KIB, 128 * KIB, 1024 * KIB))
    monkeypatch.setattr(target, "vector_unit", lambda: small)
    c = polyopt.jit(matmul).c_source(*args)
    assert re.search(r"\(128 \* c\d+\) \+ 127", c) and not re.search(r"512 \* c\d+", c)
