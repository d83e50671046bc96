"""plan+emit of two versions of polyopt side by side: an earlier commit and the
installed one (or a later commit), in CPU seconds, interleaved (base, new, base, new ...) so that the
machine's drift hits both alike.

``python -m bench.plan_emit_ab --base REV [--new REV] [--rounds 3] [--suite polybench|polybench-numpy|fuzz]
[KERNEL ...]`` (from outside the checkout, as ``make bench`` runs modules).  ``REV``'s
``polyopt``, ``frontends`` and ``backend_c`` are exported with ``git archive`` and laid
out as the installed package is (``frontends`` as ``polyopt.frontends``...).  Each round
runs one new process per version and kernel: imports and isl's set-up off the clock,
then ``c_source`` of a fresh ``polyopt.jit`` (MINI inputs for the NumPy-style suite,
SMALL for the loops, as tools/c_snapshot.py), its forked children's CPU time
included.  ``lu-right-looking`` is the LU of issue 16.  ``--suite fuzz`` takes the fuzzer's programs (tests/progen) by seed, each
under its ``default``, ``fuse_max`` and ``tile444`` option sets (the sum of the three).  Prints the medians, their ratio, and the suite's median and maximum.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import ROOT, WORKDIR
from bench.timing import median

PACKAGES = ("polyopt", "frontends", "backend_c")
LU = "lu-right-looking"

# the child (a file: polyopt reads its kernels' source): the version on its path (or
# the installed one), then one measurement
_CHILD = r"""
import json, sys, time
layout, root, suite, name = sys.argv[1:5]
if layout:
    sys.path.insert(0, layout)
import numpy as np
import polyopt
sys.path.append(root)
from bench.specs import load_spec
from bench.timing import cpu_seconds

def lu(A):
    n = A.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]

options = [{}]
if name == "lu-right-looking":
    fn, args = lu, (np.eye(24) * 24.0,)
elif suite == "fuzz":  # the fuzzer's program of this seed, under three option sets
    import tempfile
    sys.path.append(root + "/tests")
    from progen import matrix, oracle
    from pathlib import Path
    prep = oracle.draw_usable(int(name), Path(tempfile.mkdtemp(prefix="polyopt-ab-")))
    fn, args = prep.fn, prep.args
    options = [matrix.BY_NAME[o].kwargs for o in ("default", "fuse_max", "tile444")]
else:
    spec = load_spec(suite, name)
    fn = spec.kernel
    args = spec.positional(spec.args("MINI" if suite == "polybench-numpy" else "SMALL"))
# imports and isl's set-up off the clock: every module (code generation imports its
# parts when first used, and where bytecode is not cached, PYTHONDONTWRITEBYTECODE=1,
# their compilation took a kernel like 3mm 0.15 s), then a small kernel
import importlib, pkgutil
for m in pkgutil.walk_packages(polyopt.__path__, "polyopt."):
    if not m.name.endswith("__main__"):
        importlib.import_module(m.name)
polyopt.jit(lu).c_source(np.eye(8))
total = 0.0
for kwargs in options:
    fresh = polyopt.jit(fn, **kwargs)
    t0 = cpu_seconds()
    try:
        fresh.c_source(*args)
    except polyopt.PolyoptError:
        pass  # a refusal costs its time too
    total += cpu_seconds() - t0
print(json.dumps({"s": total, "from": polyopt.__file__}))
"""


def export(rev: str, into: Path) -> Path:
    """``rev``'s packages laid out as the installed ``polyopt`` package; the path entry."""
    src = into / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *PACKAGES],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = into / "layout" / "polyopt"
    pkg.mkdir(parents=True)
    for entry in (src / "polyopt").iterdir():
        (pkg / entry.name).symlink_to(entry)
    for sub in PACKAGES[1:]:
        (pkg / sub).symlink_to(src / sub)
    return pkg.parent


def measure(child: Path, layout: Path | None, suite: str, name: str) -> float:
    proc = subprocess.run([sys.executable, str(child), str(layout or ""), str(ROOT), suite,
                           name], cwd=WORKDIR, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"{name}: {last}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    expected = str(layout) if layout else str(ROOT)
    if not out["from"].startswith(expected):
        raise RuntimeError(f"{name}: measured {out['from']}, not the version under {expected}")
    return float(out["s"])


def main() -> None:
    from examples.polybench import KERNELS
    from examples.polybench_numpy import KERNELS as NUMPY_STYLE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", help="kernels, or the fuzzer's seeds (default: "
                        "the suite's kernels, and the LU with the loops; seeds 1000-1007)")
    parser.add_argument("--base", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--new", default=None,
                        help="the later commit (default: the installed polyopt)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--suite", default="polybench",
                        choices=("polybench", "polybench-numpy", "fuzz"))
    opts = parser.parse_args()
    if not opts.kernels:
        opts.kernels = {"fuzz": [str(seed) for seed in range(1000, 1008)],
                        "polybench-numpy": sorted(NUMPY_STYLE),
                        "polybench": [*sorted(KERNELS), LU]}[opts.suite]
    with tempfile.TemporaryDirectory(prefix="polyopt-ab-") as tmp:
        layout = export(opts.base, Path(tmp) / "base")
        later = export(opts.new, Path(tmp) / "new") if opts.new else None
        child = Path(tmp) / "plan_emit_child.py"
        child.write_text(_CHILD)
        print(f"{'kernel':18} {'base s':>8} {'new s':>8} {'new/base':>8}", flush=True)
        base_all, new_all = [], []
        for name in opts.kernels:
            base, new = [], []
            for _ in range(opts.rounds):
                base.append(measure(child, layout, opts.suite, name))
                new.append(measure(child, later, opts.suite, name))
            b, n = median(base), median(new)
            base_all.append(b)
            new_all.append(n)
            print(f"{name:18} {b:8.3f} {n:8.3f} {n / b:8.2f}", flush=True)
    print(f"{'median':18} {median(base_all):8.3f} {median(new_all):8.3f}")
    print(f"{'max':18} {max(base_all):8.3f} {max(new_all):8.3f}")


if __name__ == "__main__":
    main()
