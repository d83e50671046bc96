"""NumPy dtypes beyond float64 as a careless user mixes them (second hostile-user
round): results equal NumPy's exactly, and what NumPy refuses is refused naming the
user's construct."""

from __future__ import annotations

import numpy as np
import pytest

import polyopt
from polyopt.model.errors import UnsupportedError


def bool_range(a):
    return np.max(a) - np.min(a)


def test_a_refused_returned_value_names_the_users_operator() -> None:
    """`return np.max(a) - np.min(a)` on a bool array (NumPy raises TypeError for
    `-` on bools) was refused first as '`result1`: unknown name', the name the array
    lowering gives a returned value, with the real reason second."""
    with pytest.raises(UnsupportedError) as err:
        polyopt.jit(bool_range)(np.array([True, False]))
    message = str(err.value)
    assert "result" not in message and "unknown name" not in message
    assert "`-` on NumPy bools" in message and "more problem" not in message
