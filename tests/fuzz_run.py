"""The long fuzz run: random programs under the option matrix, one process per program.

    python tests/fuzz_run.py --n 500 --seed 1 [--jobs 2] [--options all|default]
                             [--sanitize] [--findings fuzz-findings]

Works from any directory with any Python that has polyopt installed (it imports the
generator from beside this file).  Each program runs in its own subprocess, so a crash is
counted (as the verdict of the option set that was running) and the other option sets
still run.  Every failing (program, option set) is written to the findings directory
with a reproducer shrunk by :mod:`progen.shrink`.  The last line is

    fuzz: N programs x M option sets: ok A, wrong B, error C, crash D, refused E

``--sanitize`` builds the generated C with AddressSanitizer and UBSan (the library is
loaded by CPython, so libasan is preloaded); any sanitizer report is a crash.
"""

from __future__ import annotations

import argparse
import base64
import collections
import hashlib
import json
import os
import pickle
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

SANITIZE_FLAGS = ("-O1 -g -fopenmp -fno-omit-frame-pointer -fsanitize=address,undefined "
                  "-fno-sanitize-recover=all")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                   "UndefinedBehaviorSanitizer")
OPTION_TIMEOUT_S = 300


def program_seed(seed: int, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{index}".encode()).digest()[:6], "big")


def option_names(which: str) -> list[str]:
    from progen.matrix import ALL_SETS

    if which == "default":
        return ["default"]
    if which == "all":
        return [o.name for o in ALL_SETS]
    return which.split(",")


# --- the child: one program, several option sets ------------------------------------------------


def emit(kind: str, payload: object) -> None:
    sys.stdout.write(f"{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


def child(args: argparse.Namespace) -> int:
    from progen import matrix, oracle

    workdir = Path(tempfile.mkdtemp(prefix="progen-"))
    if args.check:
        program = pickle.loads(Path(args.check).read_bytes())
        prep = oracle.prepare(program, workdir)
        if prep is None:
            emit("UNUSABLE", {})
            return 0
    else:
        prep = oracle.draw_usable(args.program_seed, workdir)
    blob = base64.b64encode(pickle.dumps(prep.program)).decode()
    emit("PROGRAM", blob)
    findings = Path(args.findings) if args.findings else None
    shrunk: set[tuple[str, str]] = set()  # one shrink per kind of failure and program
    for name in args.options.split(","):
        option = matrix.BY_NAME[name]
        emit("START", name)
        r = matrix.run_option(prep, option, workdir)
        emit("RESULT", {"option": name, "verdict": r.verdict, "detail": r.detail})
        if findings is not None and r.verdict not in ("ok",) and not args.check:
            kind = (r.verdict, _signature(r.detail))
            budget = 0.0 if kind in shrunk else args.shrink_s
            shrunk.add(kind)
            record(findings, prep.program, option, r.verdict, r.detail, workdir, budget)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _signature(detail: str) -> str:
    """What identifies a failure while shrinking: the exception's type (its last line's
    prefix), or the kind of difference."""
    lines = [x for x in detail.strip().splitlines() if x.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last.split(":")[0]


def record(findings: Path, program, option, verdict: str, detail: str, workdir: Path,
           budget_s: float, fails=None) -> Path:
    from progen import matrix, oracle, render_py, reproducer, shrink

    findings.mkdir(parents=True, exist_ok=True)
    key = oracle.source_key(program)
    stem = f"{verdict}-{option.name}-{key}"
    (findings / f"{stem}.original.py").write_text(
        reproducer.script(program, option, verdict, detail))
    if fails is None:
        sig = _signature(detail)

        def fails(c) -> bool:
            prep = oracle.prepare(c, workdir)
            if prep is None:
                return False
            r = matrix.run_option(prep, option, workdir)
            return r.verdict == verdict and _signature(r.detail) == sig

    small = shrink.shrink(program, fails, budget_s=budget_s) if budget_s > 0 else program
    (findings / f"{stem}.py").write_text(reproducer.script(small, option, verdict, detail))
    if option.kind == "c":  # the region itself: `polyopt opt STEM.c` and compare with -O0
        from progen import render_c

        (findings / f"{stem}.c").write_text(render_c.c_file(small))
    (findings / f"{stem}.json").write_text(json.dumps(
        {"verdict": verdict, "option": option.name, "detail": detail,
         "kernel": render_py.function(small)}, indent=1))
    return findings / f"{stem}.py"


# --- the parent --------------------------------------------------------------------------------


def child_env(args: argparse.Namespace, cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env["POLYOPT_CACHE_DIR"] = cache
    env.setdefault("POLYOPT_PARALLEL_MIN", "0")
    env.setdefault("OMP_NUM_THREADS", "2")
    env["PYTHONHASHSEED"] = "0"
    if args.sanitize:
        cc = env.get("CC", "cc")
        env["CFLAGS"] = SANITIZE_FLAGS
        libs = []
        for lib in ("libasan.so", "libubsan.so"):
            out = subprocess.run(shlex.split(cc) + [f"-print-file-name={lib}"], text=True,
                                 capture_output=True).stdout.strip()
            if out and os.path.isabs(out):
                libs.append(os.path.realpath(out))
        env["LD_PRELOAD"] = " ".join(libs)
        # CPython itself leaks by design, and is not instrumented
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1:verify_asan_link_order=0"
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        env["PROGEN_SANITIZE"] = "1"
    return env


def _run_child(cmd: list[str], env: dict[str, str], timeout_s: float):
    """Run a child, yielding its protocol lines; returns (lines, returncode, stderr, timed_out)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    lines: queue.Queue = queue.Queue()
    err_chunks: list[str] = []

    def pump_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    def pump_err() -> None:
        err_chunks.append(proc.stderr.read())  # type: ignore[union-attr]

    threads = [threading.Thread(target=pump_out, daemon=True),
               threading.Thread(target=pump_err, daemon=True)]
    for t in threads:
        t.start()
    got: list[str] = []
    timed_out = False
    while True:
        try:
            line = lines.get(timeout=timeout_s)
        except queue.Empty:
            timed_out = True
            proc.kill()
            break
        if line is None:
            break
        got.append(line)
    proc.wait()
    for t in threads:
        t.join(timeout=5)
    return got, proc.returncode, "".join(err_chunks), timed_out


def run_program(index: int, args: argparse.Namespace, env: dict[str, str],
                names: list[str]) -> list[dict]:
    """All option sets for program ``index``: a fresh child after each crash."""
    pseed = program_seed(args.seed, index)
    results: list[dict] = []
    remaining = list(names)
    program_blob = None
    while remaining:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--program-seed",
               str(pseed), "--options", ",".join(remaining), "--shrink-s", str(args.shrink_s)]
        if args.findings:
            cmd += ["--findings", args.findings]
        got, rc, stderr, timed_out = _run_child(cmd, env, OPTION_TIMEOUT_S)
        current = None
        for line in got:
            kind, _, payload = line.partition(" ")
            if kind == "PROGRAM":
                program_blob = json.loads(payload)
            elif kind == "START":
                current = json.loads(payload)
            elif kind == "RESULT":
                r = json.loads(payload)
                results.append(r)
                remaining.remove(r["option"])
                current = None
        if not remaining:
            break
        if current is None and program_blob is not None and got and not timed_out:
            continue  # died while shrinking a finding: run the rest in a fresh child
        if current is None:  # died before running anything (drawing the program)
            current = remaining[0]
        verdict = "error" if timed_out else "crash"
        detail = (f"timed out after {OPTION_TIMEOUT_S}s" if timed_out else
                  f"exit status {rc}\n{stderr[-4000:]}")
        results.append({"option": current, "verdict": verdict, "detail": detail})
        remaining.remove(current)
        if args.findings and program_blob is not None:
            _record_crash(args, env, program_blob, current, verdict, detail)
    for r in results:
        r["index"] = index
        r["seed"] = pseed
    return results


def _sanitizer_report(stderr: str) -> bool:
    return any(m in stderr for m in SANITIZER_MARKS)


def _record_crash(args, env, blob: str, option_name: str, verdict: str, detail: str) -> None:
    from progen import matrix

    program = pickle.loads(base64.b64decode(blob))
    workdir = Path(tempfile.mkdtemp(prefix="progen-crash-"))

    def fails(c) -> bool:
        path = workdir / "candidate.pkl"
        path.write_bytes(pickle.dumps(c))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--check", str(path),
               "--options", option_name]
        got, rc, stderr, timed_out = _run_child(cmd, env, OPTION_TIMEOUT_S)
        if any(x.startswith("UNUSABLE") for x in got):
            return False
        done = any(x.startswith("RESULT") for x in got)
        return (timed_out if verdict == "error" else (rc != 0 and not done))

    record(Path(args.findings), program, matrix.BY_NAME[option_name], verdict, detail, workdir,
           args.shrink_s, fails=fails)
    shutil.rmtree(workdir, ignore_errors=True)


def parent(args: argparse.Namespace) -> int:
    from progen.matrix import VERDICTS

    names = option_names(args.options)
    cache = tempfile.mkdtemp(prefix="progen-cache-")
    env = child_env(args, cache)
    counts: collections.Counter = collections.Counter()
    log = None
    if args.findings:
        Path(args.findings).mkdir(parents=True, exist_ok=True)
        log = open(Path(args.findings) / "results.jsonl", "a")  # noqa: SIM115
    start = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_program, k, args, env, names) for k in range(args.n)]
            for k, fut in enumerate(futures):
                for r in fut.result():
                    counts[r["verdict"]] += 1
                    if log is not None:
                        log.write(json.dumps(r) + "\n")
                    if r["verdict"] != "ok" and not args.quiet:
                        first = (r["detail"].strip().splitlines() or [""])[-1][:160]
                        print(f"program {k} (seed {r['seed']}) {r['option']}: {r['verdict']}: "
                              f"{first}", flush=True)
                if log is not None:
                    log.flush()
    finally:
        if log is not None:
            log.close()
        shutil.rmtree(cache, ignore_errors=True)
    elapsed = time.monotonic() - start
    if not args.quiet:
        print(f"({elapsed:.0f} s)")
    parts = ", ".join(f"{v} {counts[v]}" for v in VERDICTS)
    print(f"fuzz: {args.n} programs x {len(names)} option sets: {parts}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="number of programs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--options", default="all", help="all, default, or a comma-separated list")
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--findings", default="fuzz-findings",
                    help="where failing programs go ('' for nowhere)")
    ap.add_argument("--shrink-s", type=float, default=60.0, help="seconds to shrink each finding")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--program-seed", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--check", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    return parent(args)


if __name__ == "__main__":
    raise SystemExit(main())
