"""The long fuzz run: random programs under the option matrix, in child processes.

    python tests/fuzz_run.py --n 500 --seed 1 [--jobs 2] [--options all|default]
                             [--sanitize] [--findings fuzz-findings]

Works from any directory with any Python that has polyopt installed (it imports the
generator from beside this file).  Programs run in child processes, ``--batch`` programs
to a child (``--batch 1``: one process per program), so a crash is counted (as the
verdict of the option set that was running) and a fresh child runs the other option sets
and programs.  Every failing (program, option set) is written to the findings directory
with a reproducer shrunk by :mod:`progen.shrink`.  The last line is

    fuzz: N programs x M option sets: ok A, wrong B, error C, crash D, refused E, unstable F

``unstable`` results differ from CPython's by more than rounding allows, in a program that
compares floats rounding may move across each other: a branch may have gone the other way
(:mod:`progen.matrix`).  They are listed and written to the findings like ``wrong``, to read.

``--sanitize`` builds the generated C with AddressSanitizer and UBSan (the library is
loaded by CPython, so libasan is preloaded); any sanitizer report is a crash.

``--resume`` continues a run that was stopped (a run of 5,000 programs takes hours): the
programs whose every option set has a result in ``FINDINGS/results.jsonl`` under the same
seed are counted, not run again, and the last line covers the whole run.  ``--summary``
prints the figures so far of a run (with its ``--n``, ``--seed`` and ``--findings``),
which may still be running.
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


# --- the child: several programs, several option sets each ------------------------------------


def emit(kind: str, payload: object) -> None:
    sys.stdout.write(f"{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


def child(args: argparse.Namespace) -> int:
    """Run the jobs of ``--jobs-spec`` (``index:seed:opt,opt;...``) in order: one process
    runs several programs, since importing polyopt, islpy and NumPy is a fifth of a
    program's time."""
    from progen import oracle

    workdir = Path(tempfile.mkdtemp(prefix="progen-"))
    if args.check:
        program = pickle.loads(Path(args.check).read_bytes())
        prep = oracle.prepare(program, workdir)
        if prep is None:
            emit("UNUSABLE", {})
            return 0
        run_options(args, -1, prep, args.options.split(","), workdir)
    else:
        for job in args.jobs_spec.split(";"):
            index, pseed, options = job.split(":")
            prep = oracle.draw_usable(int(pseed), workdir)
            run_options(args, int(index), prep, options.split(","), workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def run_options(args: argparse.Namespace, index: int, prep, options: list[str],
                workdir: Path) -> None:
    from progen import matrix

    blob = base64.b64encode(pickle.dumps(prep.program)).decode()
    emit("PROGRAM", {"index": index, "blob": blob})
    findings = Path(args.findings) if args.findings else None
    shrunk: set[tuple[str, str]] = set()  # one shrink per kind of failure and program
    for name in options:
        option = matrix.BY_NAME[name]
        emit("START", {"index": index, "option": name})
        if os.environ.get("PROGEN_SELFTEST_CRASH") == f"{index}:{name}":
            os.abort()  # the runner's own test: a crash must be counted, and the rest run
        start, cpu = time.monotonic(), _cpu_seconds()
        r = matrix.run_option(prep, option, workdir)
        emit("RESULT", {"index": index, "option": name, "verdict": r.verdict,
                        "detail": r.detail, "seconds": round(time.monotonic() - start, 3),
                        "cpu_seconds": round(_cpu_seconds() - cpu, 3)})
        if findings is not None and r.verdict not in ("ok",) and not args.check:
            kind = (r.verdict, _signature(r.detail))
            budget = 0.0 if kind in shrunk else args.shrink_s
            shrunk.add(kind)
            record(findings, prep.program, option, r.verdict, r.detail, workdir, budget)


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the compilers): unlike the
    wall clock, it does not grow with the machine's load."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


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


def run_batch(indices: list[int], args: argparse.Namespace, env: dict[str, str],
              names: list[str]) -> list[dict]:
    """All option sets of the programs ``indices``, in one child while none crashes: after
    a crash (or a hang) the option set that was running gets the verdict, and a fresh
    child runs the rest."""
    todo = {k: list(names) for k in indices}
    blobs: dict[int, str] = {}
    results: list[dict] = []
    while any(todo.values()):
        spec = ";".join(f"{k}:{program_seed(args.seed, k)}:{','.join(todo[k])}"
                        for k in indices if todo[k])
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--jobs-spec", spec,
               "--shrink-s", str(args.shrink_s)]
        if args.findings:
            cmd += ["--findings", args.findings]
        got, rc, stderr, timed_out = _run_child(cmd, env, OPTION_TIMEOUT_S)
        current: tuple[int, str] | None = None
        for line in got:
            kind, _, payload = line.partition(" ")
            msg = json.loads(payload)
            if kind == "PROGRAM":
                blobs[msg["index"]] = msg["blob"]
            elif kind == "START":
                current = (msg["index"], msg["option"])
            elif kind == "RESULT":
                results.append(msg)
                todo[msg["index"]].remove(msg["option"])
                current = None
        if not any(todo.values()):
            break
        if current is None:  # died outside an option set: drawing a program, or shrinking
            k = next(k for k in indices if todo[k])
            if k in blobs and not timed_out and rc != 0:
                continue  # died while shrinking a finding: run the rest in a fresh child
            current = (k, todo[k][0])
        k, option = current
        verdict = "error" if timed_out else "crash"
        detail = (f"timed out after {OPTION_TIMEOUT_S}s" if timed_out else
                  f"exit status {rc}\n{stderr[-4000:]}")
        results.append({"index": k, "option": option, "verdict": verdict, "detail": detail})
        todo[k].remove(option)
        if args.findings and k in blobs:
            _record_crash(args, env, blobs[k], option, verdict, detail)
    for r in results:
        r["seed"] = program_seed(args.seed, r["index"])
    return sorted(results, key=lambda r: r["index"])


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


def finished(path: Path, seed: int, n: int, names: list[str],
             rewrite: bool = True) -> dict[int, list[dict]]:
    """The results in ``path`` of the programs ``0 .. n-1`` of the run ``seed`` that have a
    result for each option set of ``names``; the file is rewritten with those alone (a run
    stopped mid-batch leaves a batch in part, or a line cut short) unless ``rewrite`` is
    false (a run may still be appending to it)."""
    by_index: dict[int, dict[str, dict]] = collections.defaultdict(dict)
    for line in path.read_text().splitlines() if path.exists() else ():
        try:
            r = json.loads(line)
            k = int(r["index"])
        except (ValueError, KeyError, TypeError):
            continue
        if 0 <= k < n and r.get("seed") == program_seed(seed, k) and r.get("option") in names:
            by_index[k][r["option"]] = r
    done = {k: [rs[o] for o in names] for k, rs in sorted(by_index.items())
            if all(o in rs for o in names)}
    if rewrite:
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for rs in done.values() for r in rs))
        os.replace(tmp, path)
    return done


def summary(args: argparse.Namespace) -> int:
    """The figures so far of the run in ``--findings`` (it may still be running): the
    programs with every result, their verdicts, and each run that is not ok or refused."""
    from progen.matrix import VERDICTS

    names = option_names(args.options)
    done = finished(Path(args.findings) / "results.jsonl", args.seed, args.n, names,
                    rewrite=False)
    counts = collections.Counter(r["verdict"] for rs in done.values() for r in rs)
    for k, rs in done.items():
        for r in rs:
            if r["verdict"] not in ("ok", "refused"):
                last = (r.get("detail", "").strip().splitlines() or [""])[-1][:160]
                print(f"program {k} (seed {r['seed']}) {r['option']}: {r['verdict']}: {last}")
    parts = ", ".join(f"{v} {counts[v]}" for v in VERDICTS)
    print(f"so far: {len(done)} of {args.n} programs x {len(names)} option sets: {parts}")
    return 0


def parent(args: argparse.Namespace) -> int:
    from progen.matrix import VERDICTS

    names = option_names(args.options)
    cache = tempfile.mkdtemp(prefix="progen-cache-")
    env = child_env(args, cache)
    counts: collections.Counter = collections.Counter()
    log = None
    done: dict[int, list[dict]] = {}
    if args.findings:
        Path(args.findings).mkdir(parents=True, exist_ok=True)
        results = Path(args.findings) / "results.jsonl"
        if args.resume:
            done = finished(results, args.seed, args.n, names)
            counts.update(r["verdict"] for rs in done.values() for r in rs)
            if not args.quiet:
                print(f"resuming: {len(done)} programs already have every result", flush=True)
        log = open(results, "a")  # noqa: SIM115
    start = time.monotonic()
    slowest = (0.0, -1, "")  # the costliest (program, option set): compile, run and compare
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            todo = [k for k in range(args.n) if k not in done]
            batches = [todo[k:k + args.batch] for k in range(0, len(todo), args.batch)]
            futures = [pool.submit(run_batch, b, args, env, names) for b in batches]
            for fut in futures:
                for r in fut.result():
                    counts[r["verdict"]] += 1
                    slowest = max(slowest, (r.get("cpu_seconds", 0.0), r["index"], r["option"]))
                    if log is not None:
                        log.write(json.dumps(r) + "\n")
                    if r["verdict"] != "ok" and not args.quiet:
                        first = (r["detail"].strip().splitlines() or [""])[-1][:160]
                        print(f"program {r['index']} (seed {r['seed']}) {r['option']}: {r['verdict']}: "
                              f"{first}", flush=True)
                if log is not None:
                    log.flush()
    finally:
        if log is not None:
            log.close()
        shutil.rmtree(cache, ignore_errors=True)
    elapsed = time.monotonic() - start
    if not args.quiet:
        print(f"({elapsed:.0f} s; the slowest program and option set took {slowest[0]:.1f} s "
              f"of CPU: program {slowest[1]} under {slowest[2]})")
    parts = ", ".join(f"{v} {counts[v]}" for v in VERDICTS)
    print(f"fuzz: {args.n} programs x {len(names)} option sets: {parts}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="number of programs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8,
                    help="programs per child process (a crash restarts the rest)")
    ap.add_argument("--options", default="all", help="all, default, or a comma-separated list")
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--findings", default="fuzz-findings",
                    help="where failing programs go ('' for nowhere)")
    ap.add_argument("--shrink-s", type=float, default=60.0, help="seconds to shrink each finding")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--resume", action="store_true",
                    help="skip the programs FINDINGS/results.jsonl has every result of")
    ap.add_argument("--summary", action="store_true",
                    help="print the figures so far of the run in FINDINGS and exit")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs-spec", help=argparse.SUPPRESS)
    ap.add_argument("--check", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if (args.resume or args.summary) and not args.findings:
        ap.error("--resume and --summary read the results of --findings")
    if args.summary:
        return summary(args)
    if args.child:
        return child(args)
    return parent(args)


if __name__ == "__main__":
    raise SystemExit(main())
