"""``polyopt.prange``: ``range`` that asks for its loop to run in parallel.

Under CPython it is ``range``.  In an ``@polyopt.jit`` function the frontend reads
``for i in prange(n)`` (or Numba's ``numba.prange``) as ``for i in range(n)`` plus a
request, checked against the dependences, to run that loop in parallel.  It lives in
the model layer because it imports nothing: ``import polyopt`` stays light.
"""

from __future__ import annotations


def prange(*args: int) -> range:
    """``range(*args)``; a loop over it runs in parallel when that is legal."""
    return range(*args)
