"""Code outside polyopt's language is refused with a precise ``UnsupportedError``.

Each refused construct below sits on a line marked ``# !<marker>``; the expected
line and column are computed from this file's text (the marker's line, the
column of the construct's first character), so the tests survive edits that
move lines.  The error must be a ``SyntaxError`` pointing at the construct, name
it, and list every problem of the function at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import polyopt

THIS_FILE = str(Path(__file__).resolve())
_LINES = Path(__file__).read_text().splitlines()


def where(marker: str, token: str) -> tuple[int, int]:
    """(line, 1-based column) of ``token`` on the line marked ``# !marker``."""
    hits = [k for k, line in enumerate(_LINES, 1) if re.search(rf"# !{marker}\b", line)]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    line = _LINES[hits[0] - 1]
    assert token in line, f"{token!r} not on line {hits[0]}: {line!r}"
    return hits[0], line.index(token) + 1


# --- the refused functions ---------------------------------------------------------------


def uses_while(x):
    i = 0
    while i < x.shape[0]:  # !while
        x[i] = 0.0
        i += 1


def uses_break(x):
    for i in range(x.shape[0]):
        if i > 2:
            break  # !break
        x[i] = 1.0


def indirect_subscript(x, idx, y):
    for i in range(x.shape[0]):
        y[i] = x[idx[i]]  # !indirect


def unknown_call(x):
    for i in range(x.shape[0]):
        x[i] = frobnicate(x[i])  # !unknown  # noqa: F821


def non_affine_bound(A):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            for k in range(i * j):  # !nonaffine  # noqa: B007
                A[i, j] += 1.0


def data_dependent_if(x):
    for i in range(x.shape[0]):
        if x[i] > 0.0:  # !datadep
            x[i] = 0.0


def scalar_dependent_if(x, s):
    for i in range(x.shape[0]):
        if s > 0.5:  # !scalardep
            x[i] = 0.0


def unreadable_affine_if(x):
    for i in range(x.shape[0]):
        if (i < 3) + (i > 1) == 1:  # !affinetest
            x[i] = 0.0


def slicing(x, y):
    for i in range(x.shape[0]):
        y[i] = x[1:3]  # !slice


def assigns_int_argument(x, n):
    n = n + 1  # !assignint
    for i in range(n):
        x[i] = 0.0


def rebinds_array_argument(x):
    x = np.zeros(3)  # !assignarray
    for i in range(3):
        x[i] = 1.0


def not_a_range(x):
    for v in x:  # !notrange
        v += 1.0


def return_in_loop(x):
    for i in range(x.shape[0]):
        return x[i]  # !return


def undefined_scalar(x):
    for i in range(x.shape[0]):
        x[i] = undefined_value  # !undefined  # noqa: F821


def use_before_assignment(x):
    for i in range(x.shape[0]):
        x[i] = tmp  # !usebefore  # noqa: F821
        tmp = x[i] * 2.0  # noqa: F841


def assigned_on_some_iterations(x):
    for i in range(x.shape[0]):
        if i > 0:
            acc = x[i]
        x[i] = acc  # !someiterations


def uses_try(x):
    try:  # !try
        x[0] = 1.0
    except IndexError:
        pass


def nested_function(x):
    def helper(v):  # !nested
        return v

    for i in range(x.shape[0]):
        x[i] = 1.0


def float_bound(x):
    for i in range(x.shape[0] / 2):  # !floatbound
        x[i] = 1.0


def float_literal_bound(x):
    for i in range(2.5):  # !floatliteral
        x[i] = 1.0


def float_argument_bound(x, a):
    for i in range(a):  # !floatarg
        x[i] = 1.0


def c_reserved_names(x, restrict):
    for i in range(x.shape[0]):
        double = x[i] * 2.0
        restrict[i] = double
    for i in range(x.shape[0]):
        M_PI = 3.0
        restrict[i] += M_PI


def returns_a_tuple(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s, x[0]  # !tuple


def many_problems(x, idx):
    for i in range(x.shape[0]):
        while i < 3:  # !many1
            pass
        x[idx[i]] = 1.0  # !many2
        x[i] = mystery(i)  # !many3  # noqa: F821


def shape_past_ndim(x):
    n = x.shape[1]  # !pastndim
    x[0] = n


def store_through_view(x):
    x[2:][1] = 7.0  # !throughview


def _x():
    return np.zeros(5)


def _idx():
    return np.zeros(5, dtype=np.int64)


# (function, arguments, marker, token the column points at, words the message must contain)
CASES = [
    (uses_while, lambda: (_x(),), "while", "while", ["while"]),
    (uses_break, lambda: (_x(),), "break", "break", ["break"]),
    (indirect_subscript, lambda: (_x(), _idx(), _x()), "indirect", "idx[i]",
     ["indirect subscript", "idx[i]"]),
    (unknown_call, lambda: (_x(),), "unknown", "frobnicate(", ["frobnicate", "unknown function"]),
    (non_affine_bound, lambda: (np.zeros((3, 3)),), "nonaffine", "i * j", ["not affine"]),
    (data_dependent_if, lambda: (_x(),), "datadep", "x[i] > 0.0", ["data-dependent `if`", "x[i]"]),
    (scalar_dependent_if, lambda: (_x(), 0.7), "scalardep", "s > 0.5",
     ["data-dependent `if`", "conditional expression"]),
    # a test of loop variables alone is no data-dependent one (helper session 39b, 09)
    (unreadable_affine_if, lambda: (_x(),), "affinetest", "(i < 3) + (i > 1) == 1",
     ["`if` test", "joined by `and`, `or`, `not`"]),
    (slicing, lambda: (_x(), _x()), "slice", "x[1:3]", ["1-D value", "one element `y[i]`"]),
    (assigns_int_argument, lambda: (_x(), 3), "assignint", "n = n", ["assignment to argument `n`"]),
    (rebinds_array_argument, lambda: (_x(),), "assignarray", "x = np",
     ["assignment to array `x`"]),
    (not_a_range, lambda: (_x(),), "notrange", "x:", ["range"]),
    (return_in_loop, lambda: (_x(),), "return", "return", ["`return`"]),
    (undefined_scalar, lambda: (_x(),), "undefined", "undefined_value", ["undefined_value"]),
    (uses_try, lambda: (_x(),), "try", "try", ["`try`"]),
    (nested_function, lambda: (_x(),), "nested", "def helper", ["nested function"]),
    (float_bound, lambda: (_x(),), "floatbound", "x.shape[0] / 2", ["true division", "float"]),
    (float_literal_bound, lambda: (_x(),), "floatliteral", "2.5", ["2.5", "not an integer"]),
    (float_argument_bound, lambda: (_x(), 2.5), "floatarg", "a)", ["`a`", "float"]),
    # hostile-user finding (stop 34, session a, 09): it said "in a loop body value"
    (returns_a_tuple, lambda: (_x(),), "tuple", "s, x[0]", ["`return (s, x[0])`", "output array"]),
    # hostile-user finding (session 44a, 01): assigned to a local, it read x.shape[0]
    (shape_past_ndim, lambda: (_x(),), "pastndim", "x.shape[1]",
     ["`x.shape[1]`", "only 1 dimension"]),
    # (session 44a, 02): it said "x has 1 dimension(s) but is indexed with 2"
    (store_through_view, lambda: (_x(),), "throughview", "x[2:][1]",
     ["`x[2:][1]`", "sliced view", "index x itself"]),
]


def _raise(fn, args) -> polyopt.UnsupportedError:
    kernel = polyopt.jit(fn)
    with pytest.raises(polyopt.UnsupportedError) as info:
        kernel(*args)
    return info.value


@pytest.mark.parametrize(("fn", "args", "marker", "token", "words"), CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_refused_with_location(fn, args, marker, token, words):
    e = _raise(fn, args())
    assert isinstance(e, SyntaxError)
    assert isinstance(e, polyopt.PolyoptError)
    line, col = where(marker, token)
    assert e.filename == THIS_FILE
    assert (e.lineno, e.offset) == (line, col), str(e)
    assert e.text is not None and e.text.strip() == _LINES[line - 1].strip()
    message = str(e)
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"
    assert len(e.problems) == 1, message
    p = e.problems[0]
    assert (p.location.filename, p.location.line, p.location.col) == (THIS_FILE, line, col)
    assert p.reason


@pytest.mark.parametrize(("fn", "marker", "token"), [
    (use_before_assignment, "usebefore", "tmp"),
    (assigned_on_some_iterations, "someiterations", "acc"),
])
def test_read_before_assignment_is_refused(fn, marker, token):
    e = _raise(fn, (_x(),))
    line, col = where(marker, token)
    assert e.filename == THIS_FILE
    assert e.lineno == line
    assert token in str(e) and "before it is assigned" in str(e)


def test_read_before_assignment_points_at_the_read():
    e = _raise(use_before_assignment, (_x(),))
    assert (e.lineno, e.offset) == where("usebefore", "tmp")


def test_every_problem_is_reported_at_once():
    e = _raise(many_problems, (_x(), _idx()))
    expected = [where("many1", "while"), where("many2", "idx[i]"), where("many3", "mystery(")]
    got = [(p.location.line, p.location.col) for p in e.problems]
    assert got == expected
    assert (e.lineno, e.offset) == expected[0]
    message = str(e)
    assert "2 more problem" in message
    assert "`while` loop" in message and "indirect subscript" in message and "mystery" in message
    constructs = [p.construct for p in e.problems]
    assert constructs[0] == "`while` loop"
    assert constructs[1] == "indirect subscript"
    assert "mystery" in constructs[2]


def test_names_reserved_in_c_are_renamed_not_refused():
    """C keywords and macros (``restrict``, ``double``, ``M_PI``) are renamed internally:
    the kernel computes what CPython does (tests/test_names.py covers every kind)."""
    x = np.arange(7.0)
    want, got = np.zeros(7), np.zeros(7)
    c_reserved_names(x, want)
    polyopt.jit(c_reserved_names)(x, got)
    assert np.array_equal(got, want)


def test_report_refuses_too():
    kernel = polyopt.jit(uses_while)
    with pytest.raises(polyopt.UnsupportedError):
        kernel.report(_x())


def test_column_counts_the_indentation_of_a_nested_definition():
    def inner(x):
        for i in range(x.shape[0]):
            x[i] = x[i:]  # !indented

    e = _raise(inner, (_x(),))
    assert (e.filename, e.lineno, e.offset) == (THIS_FILE, *where("indented", "x[i:]"))


def test_function_without_source():
    namespace: dict = {}
    exec("def f(x):\n    x[0] = 1.0\n", namespace)
    e = _raise(namespace["f"], (_x(),))
    assert "source" in str(e)


def test_multiline_lambda_is_refused_cleanly():
    kernel = polyopt.jit(
        lambda x:
        None
    )
    with pytest.raises(polyopt.UnsupportedError, match="def"):
        kernel(_x())


def test_fallback_runs_python_and_warns_with_the_reason():
    kernel = polyopt.jit(fallback=True)(uses_while)
    x = np.arange(5.0)
    with pytest.warns(RuntimeWarning, match="while") as record:
        result = kernel(x)
    assert result is None
    np.testing.assert_array_equal(x, np.zeros(5))
    message = str(record[0].message)
    line, _ = where("while", "while")
    assert "uses_while" in message and f"line {line}" in message
    y = np.arange(3.0)  # later calls still run Python
    kernel(y)
    np.testing.assert_array_equal(y, np.zeros(3))


def test_fallback_keeps_python_results_and_return_values():
    def indirect_sum(x, idx):
        s = 0.0
        for i in range(idx.shape[0]):
            s += x[idx[i]]
        return s

    kernel = polyopt.jit(fallback=True)(indirect_sum)
    x = np.arange(5.0)
    idx = np.array([4, 4, 0], dtype=np.int64)
    with pytest.warns(RuntimeWarning, match="indirect subscript"):
        assert kernel(x, idx) == 8.0


def _shape_write(x):
    x.shape = (2, 5)


def _lambda_value(x):
    f = lambda v: v + 1  # noqa: E731, F841
    x[0] = 1.0


def _fmin(x, y):
    for i in range(x.shape[0]):
        y[i] = np.fmin(x[i], 1.0)


def test_messages_name_the_construct_as_it_is() -> None:
    """Hostile session 42a, finding 07: an attribute assignment and a top-level lambda
    were "not supported in a loop body value", and the list of supported functions for
    an unknown NumPy call left out np.maximum and the other NumPy names."""
    with pytest.raises(polyopt.UnsupportedError, match=r"assignment to `x.shape`: only array "
                                                       "elements and local variables"):
        polyopt.jit(_shape_write)(np.zeros(10))
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(_lambda_value)(np.zeros(10))
    assert "is not supported as a value" in str(info.value)
    assert "loop body" not in str(info.value)
    with pytest.raises(polyopt.UnsupportedError) as info:
        polyopt.jit(_fmin)(np.zeros(3), np.zeros(3))
    assert "np.maximum np.minimum np.power" in str(info.value)


def two_swaps(A, B, T):
    for _t in range(T):
        A, B = B, A  # !firstswap
        A, B = B, A


def test_a_problem_met_twice_is_reported_once():
    """A double buffer's body is converted for both parities: the swap before the last
    was listed twice at one place, which read as a second problem at the wrong line
    (hostile session 44a, 04)."""
    e = _raise(two_swaps, (_x(), _x(), 2))
    assert [(p.location.line, p.location.col) for p in e.problems] == [where("firstswap", "A,")]
    assert "more problem" not in str(e)


def powers(x, n):
    for i in range(0, n, 2**2):
        x[i + 2**2] += 1
    if n > 3**2 - 1:
        x[0] = -(2**3)


def test_an_int_power_of_constants_is_a_constant_in_bounds_and_subscripts():
    """Hostile session 47a, finding 05: `range(0, n, 2**2)` and `x[i + 2**2]` were "not an
    affine expression", where `2 * 2` was one."""
    want, got = np.zeros(20), np.zeros(20)
    powers(want, 12)
    polyopt.jit(powers)(got, 12)
    assert np.array_equal(want, got)


def power_bounds(x, case):
    if case == 0:
        for i in range(0, x.shape[0], 2**-1):
            x[i] = 1
    for i in range(x.shape[0] ** 2):
        x[i] = 1
    for i in range(2**64):
        x[i] = 1


def test_powers_that_are_not_int_constants_are_refused():
    with pytest.raises(polyopt.UnsupportedError) as err:
        polyopt.jit(power_bounds)(np.zeros(4), 0)
    text = str(err.value)
    for part in ("`2 ** (-1)`: gives a float", "`x.shape[0] ** 2`: is a power of a variable",
                 "`2 ** 64`: does not fit in int64"):
        assert part in text, text


def divmod_subscript(k, o):
    for i in range(k.shape[0]):
        o[i] = divmod(k[i], 3)[0]


def test_a_subscript_of_a_builtins_result_names_the_builtin():
    """Hostile session 47a, finding 04: it said "make it a local first (`t =
    divmod(k[i], 3)`, then `t[...]`)", and that local's call was refused in turn."""
    with pytest.raises(polyopt.UnsupportedError) as err:
        polyopt.jit(divmod_subscript)(np.arange(5), np.zeros(5, np.int64))
    text = str(err.value)
    assert "call to divmod(): unknown function: `divmod` is the function builtins.divmod" in text
    assert "make it a local" not in text


def countdown(x):
    while x[0] > 0:
        x[0] -= 1


def test_a_refusal_no_signature_changes_has_no_signature_hint():
    """Hostile session 48b, finding 07: the `while` refusal of a report made before any
    call ended with a long hint to give a signature, which cannot help."""
    with pytest.raises(polyopt.UnsupportedError) as err:
        polyopt.jit(countdown).report()
    assert "`while` loop" in str(err.value) and "--signature" not in str(err.value)
