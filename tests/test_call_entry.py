"""The compiled call entry (backend_c/call_entry.c, call_entry.py, trampoline.py): from the
first warm call on, a kernel is called through it; it computes what the Python wrapper
computes, and every call the wrapper refuses it hands to the slow path, which raises the
same error, before any C runs.  Without the extension the Python wrapper is the warm path.
"""

from __future__ import annotations

import copy
import threading

import numpy as np
import pytest
from conftest import check_against_python
from polyopt.backend_c import call_entry, call_entry_build, trampoline
from polyopt.backend_c.fastcall import MISS, make_fast_call

import polyopt


def add3(a, b, c):
    for i in range(c.shape[0]):
        c[i] = a[i] + b[i]


def scaled(alpha, n, x, y):
    for i in range(n):
        y[i] = alpha * x[i]


def f32_sum(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i]
    return s


def doubled(x):
    t = np.empty_like(x)
    for i in range(x.shape[0]):
        t[i] = 2.0 * x[i]
    return t


def int_quotients(k, n):
    s = 0
    for i in range(n):
        s += i // k
    return s


def add_k(k, x):
    for i in range(x.shape[0]):
        x[i] = x[i] + k


def _entered(fn, *args):
    """``polyopt.jit(fn)`` after its first warm call, which installs the entry."""
    kernel = polyopt.jit(fn)
    for _ in range(2):
        kernel(*copy.deepcopy(args))
    assert type(kernel._fast).__name__ == "Entry", call_entry_build.unavailable()
    return kernel


def _outcome(call, make):
    """What ``call(make())`` returns or raises, and the arguments afterwards."""
    args = make()
    try:
        out = ("returns", call(args))
    except Exception as exc:  # compared, not hidden: both paths must raise alike
        out = (type(exc).__name__, str(exc))
    return out, args


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def _agree(kernel, args):
    """The entry and the Python wrapper of ``kernel`` do the same with ``args`` (a tuple,
    copied for each, or a function that makes them: a copy loses views and flags)."""
    key, compiled = next(iter(kernel._specializations.items()))
    make = args if callable(args) else lambda: copy.deepcopy(args)
    (kind, value), after = _outcome(kernel._fast, make)
    (kind2, value2), after2 = _outcome(make_fast_call(compiled, key), make)
    assert kind == kind2 and _same(value, value2), ((kind, value), (kind2, value2))
    for x, y in zip(after, after2, strict=True):
        assert _same(x, y)
    return kind, value


def test_results_match_python_and_the_wrapper():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(7)
    cases = [
        (add3, (np.ones(4), np.full(4, 2.0), np.zeros(4))),
        (scaled, (1.5, 5, x, np.zeros(7))),
        (f32_sum, (x.astype(np.float32),)),
        (doubled, (x,)),
        (int_quotients, (3, 10)),
        (add_k, (7, np.arange(5, dtype=np.int32))),
    ]
    for fn, args in cases:
        kernel = _entered(fn, *args)
        check_against_python(kernel, *args)
        assert _agree(kernel, args)[0] == "returns"
    assert type(_entered(f32_sum, x.astype(np.float32))(x.astype(np.float32))) is np.float32


def test_every_refusal_is_the_slow_paths_error_before_c_runs():
    kernel = _entered(add3, np.ones(4), np.ones(4), np.zeros(4))

    def readonly():
        c = np.zeros(4)
        c.flags.writeable = False
        return np.ones(4), np.ones(4), c

    def overlapping():
        buf = np.zeros(10)
        return buf[:4], np.ones(4), buf[3:7]

    refused = {
        "not C-contiguous": lambda: (np.ones(8)[::2], np.ones(4), np.zeros(4)),
        "read-only": readonly,
        "overlap in memory": overlapping,
        "reads b": (np.ones(5), np.ones(4), np.zeros(5)),
    }
    for words, args in refused.items():
        kind, message = _agree(kernel, args)
        assert kind in ("ValueError", "IndexError") and words in message, message
    buf = np.zeros(10)
    assert kernel._fast((np.ones(4), np.ones(4))) is MISS  # another arity
    assert kernel._fast((np.ones(4, np.float32), np.ones(4), np.zeros(4))) is MISS
    assert kernel._fast((np.ones((2, 2)), np.ones(4), np.zeros(4))) is MISS
    check_against_python(kernel, buf[:4], np.ones(4), buf[4:8])  # adjacent: accepted


def test_sizes_change_and_are_checked_again():
    kernel = _entered(add3, np.ones(4), np.ones(4), np.zeros(4))
    for n, m in ((3, 3), (2, 3), (6, 6), (6, 5), (4, 4)):
        check_against_python(kernel, np.ones(n), np.ones(m), np.zeros(n))


def test_scalar_conversions_and_int_ranges_refuse_as_before():
    kernel = _entered(scaled, 2.0, 3, np.ones(3), np.zeros(3))
    assert _agree(kernel, (2.0, 2**70, np.ones(3), np.zeros(3)))[0] == "OverflowError"
    assert "too large" in _agree(kernel, (2.0, 2**62, np.ones(3), np.zeros(3)))[1]
    assert _agree(kernel, (2.0, 4, np.ones(3), np.zeros(3)))[0] == "IndexError"
    int32 = _entered(add_k, 1, np.zeros(3, np.int32))
    kind, message = _agree(int32, (2**40, np.zeros(3, np.int32)))
    assert (kind, message) == ("OverflowError", "Python integer 1099511627776 out of bounds "
                                                "for int32")


def test_the_error_flag_raises_pythons_exception():
    kernel = _entered(int_quotients, 3, 10)
    assert _agree(kernel, (0, 10)) == ("ZeroDivisionError",
                                       "integer division or modulo by zero")
    check_against_python(kernel, 0, 10)
    assert _agree(kernel, (0, 0)) == ("returns", 0)  # no division runs


def test_without_the_extension_the_python_wrapper_is_the_warm_path(monkeypatch):
    monkeypatch.setattr(call_entry, "extension", lambda *a, **k: None)
    kernel = polyopt.jit(add3)
    for _ in range(3):
        check_against_python(kernel, np.ones(4), np.ones(4), np.zeros(4))
    assert kernel._fast.__name__ == "fast"  # fastcall's generated function
    with pytest.raises(ValueError, match="'a' is not C-contiguous"):
        kernel(np.ones(8)[::2], np.ones(4), np.zeros(4))


def test_a_library_without_trampolines_keeps_the_python_wrapper(monkeypatch):
    kernel = _entered(add3, np.ones(4), np.ones(4), np.zeros(4))
    key, compiled = next(iter(kernel._specializations.items()))
    monkeypatch.setattr(trampoline, "entry_name", lambda iface: iface.function + "_absent")
    assert call_entry.make_entry(compiled, key) is None


def test_an_extension_that_does_not_build_is_reported_not_raised(monkeypatch, tmp_path):
    broken = tmp_path / "call_entry.c"
    broken.write_text("#error this extension does not build\n")
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(call_entry_build, "SOURCE", broken)
    monkeypatch.setattr(call_entry_build, "_loaded", {})
    assert call_entry_build.extension() is None
    assert "this extension does not build" in (call_entry_build.unavailable() or "")


def test_the_entry_refuses_plans_past_its_limits():
    ext = call_entry_build.extension()
    assert ext is not None, call_entry_build.unavailable()
    too_many = (float,) * 65
    with pytest.raises(ValueError, match="differ in number"):
        ext.Entry(too_many, (None,) * 65, (), (), (), 1, (), (), (), None, 0, 0, print, None,
                  print, MISS)


def test_trampolines_call_through_pointers():
    kernel = _entered(int_quotients, 3, 10)
    iface = next(iter(kernel._specializations.values())).iface
    text = trampoline.trampolines(iface)
    assert f"*(int64_t *)r = {iface.function}(*(const int64_t *)a[0], " \
           "*(const int64_t *)a[1], (int32_t *)a[2]);" in text
    assert f"return {iface.function}_check(p[0], p[1]);" in text


def test_the_python_wrapper_on_request(monkeypatch):
    monkeypatch.setenv("POLYOPT_CALL_ENTRY", "python")
    monkeypatch.setattr(call_entry_build, "_loaded", {})
    assert call_entry_build.extension() is None
    assert call_entry_build.unavailable() == "POLYOPT_CALL_ENTRY=python"


def test_a_kernel_loaded_from_the_disk_cache_gets_the_entry():
    args = (np.ones(3), np.ones(3), np.zeros(3))
    _entered(add3, *args)
    again = _entered(add3, *args)  # a new kernel object: its build comes from the index
    check_against_python(again, *args)


def test_threads_calling_one_entry_with_other_sizes_get_their_own_results():
    kernel = _entered(add3, np.ones(4), np.ones(4), np.zeros(4))
    wrong: list[int] = []

    def calls(n: int) -> None:
        a, b = np.arange(n, dtype=np.float64), np.full(n, 2.0)
        for _ in range(300):
            c = np.zeros(n)
            kernel(a, b, c)
            if not np.array_equal(c, a + 2.0):
                wrong.append(n)
        try:
            kernel(a, b[:-1], np.zeros(n))  # the bounds check, between others' calls
        except IndexError:
            return
        wrong.append(-n)

    threads = [threading.Thread(target=calls, args=(n,)) for n in (3, 5, 8, 13)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_a_cached_extension_that_does_not_load_is_rebuilt_with_a_warning(monkeypatch,
                                                                           tmp_path):
    """Hostile session 36, finding 02: a garbled entry/*.so in the cache was never
    rebuilt, and every call of every process took the Python wrapper, silently."""
    monkeypatch.setenv("POLYOPT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(call_entry_build, "_loaded", {})
    built = call_entry_build._built(use_cache=True)  # compiled into the cache, not loaded
    assert built == call_entry_build._cached()
    built.write_bytes(b"garbage\n")
    with pytest.warns(RuntimeWarning, match="does not load .* built again"):
        assert call_entry_build.extension() is not None, call_entry_build.unavailable()
    assert built.read_bytes()[:4] == b"\x7fELF"
