"""nussinov in NumPy style, as NPBench writes it, with the signature and the effect on
``OUTPUTS`` of the loop nest in ``examples/polybench/nussinov.py``: the innermost loop
over split points ``k`` is one ``np.max`` over a row slice plus a column slice."""

import numpy as np

NAME = "nussinov"


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
            if i + 1 < j:
                table[i, j] = max(table[i, j],
                                  np.max(table[i, i + 1 : j] + table[i + 2 : j + 1, j]))
