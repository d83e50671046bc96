"""nussinov: Nussinov's dynamic program for RNA secondary structure (maximum base pairing).

PolyBench category: medley.
"""

import numpy as np
import numpy.typing as npt

NAME = "nussinov"
SIZES = {
    "MINI": {"n": 60},
    "SMALL": {"n": 180},
    "MEDIUM": {"n": 500},
    "LARGE": {"n": 2500},
}
OUTPUTS = ("table",)


def FLOPS(n: int) -> int:
    return n * (n - 1) * (n - 2) // 3 + 4 * n * (n - 1) // 2


def init(n: int, dtype: npt.DTypeLike = np.int32) -> dict[str, object]:
    return {
        # RNA bases A, G, C, T encoded as 0..3 (PolyBench's ``base`` is a char).
        "seq": ((np.arange(n) + 1) % 4).astype(np.int32),
        "table": np.zeros((n, n), dtype=dtype),
    }


def kernel(seq, table):
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < n:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < n:
                # Adjacent bases are not allowed to bond.
                if i < j - 1:
                    table[i, j] = max(
                        table[i, j], table[i + 1, j - 1] + (1 if seq[i] + seq[j] == 3 else 0)
                    )
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
