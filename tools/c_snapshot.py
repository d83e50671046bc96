"""Write the generated C of every PolyBench kernel, on both paths, to a directory.

A refactoring that must not change the generated code is checked by running this
before and after and comparing the two directories (``diff -r``)::

    python tools/c_snapshot.py OUT_DIR            # against the installed polyopt

For each kernel of ``examples/polybench`` it writes ``jit/<name>.c`` (``c_source`` on
the SMALL inputs) and ``cli/<name>.c`` (``polyopt opt`` on ``examples/c``), and
``times.json``: the plan + emit time of each jit kernel in seconds (median of
``--repeat`` fresh ``polyopt.jit`` objects; the frontend is included, gcc is not).
Run it from outside the checkout so that the installed polyopt is the one imported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    sys.path.append(str(ROOT))
    import polyopt
    from examples.polybench import KERNELS

    (args.out / "jit").mkdir(parents=True, exist_ok=True)
    (args.out / "cli").mkdir(parents=True, exist_ok=True)
    times: dict[str, float] = {}
    for name, mod in sorted(KERNELS.items()):
        if args.only and name not in args.only:
            continue
        inputs = mod.init(**mod.SIZES["SMALL"])
        samples = []
        for _ in range(args.repeat):
            fn = polyopt.jit(mod.kernel)
            t0 = time.perf_counter()
            src = fn.c_source(**inputs)
            samples.append(time.perf_counter() - t0)
        times[name] = statistics.median(samples)
        (args.out / "jit" / f"{name}.c").write_text(src)
        print(f"{name:16s} {times[name]:7.3f} s", flush=True)
    for c_file in sorted((ROOT / "examples" / "c").glob("*.c")):
        if args.only and c_file.stem not in args.only:
            continue
        out = args.out / "cli" / c_file.name
        proc = subprocess.run([str(Path(sys.executable).parent / "polyopt"), "opt", str(c_file), "-o", str(out)],
                              capture_output=True, text=True)
        if proc.returncode:
            out.write_text(f"FAILED {proc.returncode}\n{proc.stderr}")
    (args.out / "times.json").write_text(json.dumps(times, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
