"""Finding 011: a private array copied back from a tile that holds no iteration.

Found by the program generator (``make fuzz``, option set ``tile23``): in ::

    for i in range(n):
        B[i] += B[n - 1 - i]
        for j in range(1, n, 3):       # tiled by 2: the tile loop runs (n + 1) // 2 tiles
            for k in range(n):
                B[0] = j * k           # B private to each thread of the tile loop

the tile loop over ``j`` ran in parallel with a copy of ``B`` per thread, and the copy
of the thread that ran the loop's last iteration was copied back (``lastprivate``).  The
legality check proved that the last iteration *holding instances* writes every element,
but the tiles of the strided ``j`` leave some empty: the loop C runs ended on an empty
tile, whose thread never wrote ``B[0]``.  A private array with a copy back now also
needs every iteration between a run's first and last to hold an instance.
"""

from __future__ import annotations

import numpy as np

import polyopt


def strided_tiles(B):
    n = B.shape[0]
    for i in range(n):
        B[i] += B[((n - 1) - i)]
        for j in range(1, n, 3):
            for k in range(n):
                B[0] = j * k


def test_the_copy_back_comes_from_a_tile_that_wrote() -> None:
    for n in range(2, 12):
        B = np.arange(n, dtype=np.int64) - 2
        expected, got = B.copy(), B.copy()
        strided_tiles(expected)
        polyopt.jit(strided_tiles, tile=(2, 3), unroll_jam=False)(got)
        assert np.array_equal(got, expected), n
