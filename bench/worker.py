"""Worker processes: one per variant, speaking JSON lines over a pipe.

The parent (:class:`Worker`) sends a request per line on the worker's stdin and
reads one reply line.  Requests:

- ``{"op": "prepare", "suite", "kernel", "size", "ref_mini", "ref_bench",
  "save_bench"}``: build the variant, run it on the MINI checking inputs and
  compare with the CPython result stored at ``ref_mini``; run it on the bench
  size's checking inputs, store the result at ``save_bench`` (the baseline) or
  compare it with ``ref_bench`` (the others); then make the timed inputs.
  Replies ``{"status": "ok" | "WRONG" | "ERROR" | "n/a", "detail": ...}``.
- ``{"op": "time"}``: restore the timed inputs, run once, reply ``{"seconds": t}``.
  When this worker's previous run was short (< :data:`PRIME_BELOW_S`), the timed
  run is preceded by an untimed one (inputs restored after it): between two
  requests the worker idles while the other variants run, its OpenMP/BLAS/Numba
  threads go to sleep, and waking them would be timed as part of a short run.
  Priming measures the steady state of back-to-back calls instead.
- ``{"op": "quit"}``.

Everything the kernel or a compiler prints goes to the worker's log (its
stderr); the protocol uses a private copy of the original stdout.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import IO, Any

import numpy as np

from bench import WORKDIR, check, module_command
from bench.specs import load_spec, outputs_of
from bench.timing import time_call
from bench.variants import BY_KEY, Unavailable, Variant, build, too_slow_in_python, worker_env

#: Runs shorter than this are preceded by an untimed run (see the module docstring).
PRIME_BELOW_S = 0.05


class WorkerError(RuntimeError):
    """A worker died, timed out or failed a request."""


class Worker:
    """The parent's handle on one variant's worker process (started on first use)."""

    def __init__(self, variant: Variant, log_path: Path) -> None:
        self.variant = variant
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._buf = b""
        self._log: IO[bytes] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - lives as long as the worker
        env = worker_env(self.variant)
        self.proc = subprocess.Popen(
            module_command("bench.worker", self.variant.key), cwd=WORKDIR, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log)
        self._buf = b""
        return self.proc

    def send(self, req: dict[str, Any]) -> None:
        """Send ``req`` without waiting for the reply (see :meth:`receive`)."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None
        try:
            proc.stdin.write((json.dumps(req) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise WorkerError(f"{self.variant.key} worker died; see {self.log_path}") from None

    def receive(self, timeout: float) -> dict[str, Any]:
        """The reply to the last request; :class:`WorkerError` on a crash or timeout."""
        if self.proc is None:
            raise WorkerError(f"{self.variant.key} worker is not running")
        reply = json.loads(self._read_line(self.proc, timeout))
        if "exception" in reply:
            raise WorkerError(reply["exception"])
        return reply

    def request(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send ``req`` and return the reply."""
        self.send(req)
        return self.receive(timeout)

    def _read_line(self, proc: subprocess.Popen[bytes], timeout: float) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise WorkerError(f"timed out after {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = proc.wait()
                self.close()
                raise WorkerError(f"{self.variant.key} worker exited ({code}); "
                                  f"see {self.log_path}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def close(self) -> None:
        """Stop the worker (politely, then by force)."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(b'{"op": "quit"}\n')
                proc.stdin.flush()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


# --- the worker side -----------------------------------------------------------------


class _State:
    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.fn: Any = None
        self.pristine: dict[str, Any] = {}
        self.work: dict[str, Any] = {}
        self.positional: list[Any] = []
        self.last: float | None = None  # the duration of the previous run

    def prepare(self, req: dict[str, Any]) -> dict[str, Any]:
        self.fn = None
        spec = load_spec(req["suite"], req["kernel"])
        mini = spec.args("MINI", check=True)
        try:
            fn, note = build(self.variant, spec, mini)
        except Unavailable as exc:
            return {"status": "n/a", "detail": str(exc)}
        if self.variant.kind == "numpy" and (slow := too_slow_in_python(spec, req["size"])):
            return {"status": "n/a", "detail": slow}
        ret = fn(*spec.positional(mini))
        why = check.compare(check.load(Path(req["ref_mini"])), outputs_of(spec, mini, ret))
        if why is not None:
            return {"status": "WRONG", "detail": f"MINI vs CPython: {why}", "note": note}
        args = spec.args(req["size"], check=True)
        t0 = time.perf_counter()
        ret = fn(*spec.positional(args))
        check_seconds = time.perf_counter() - t0
        got = outputs_of(spec, args, ret)
        if req.get("save_bench"):
            check.save(Path(req["save_bench"]), got)
        if req.get("ref_bench"):
            why = check.compare(check.load(Path(req["ref_bench"])), got)
            if why is not None:
                return {"status": "WRONG", "detail": f"{req['size']} vs baseline: {why}",
                        "note": note}
        self.pristine = spec.args(req["size"])
        self.work = {k: v.copy() if isinstance(v, np.ndarray) else v
                     for k, v in self.pristine.items()}
        self.positional = spec.positional(self.work)
        self.fn = fn
        self.last = None
        return {"status": "ok", "detail": "", "note": note, "check_seconds": check_seconds}

    def _restore(self) -> None:
        for name, value in self.pristine.items():
            if isinstance(value, np.ndarray):
                np.copyto(self.work[name], value)

    def time(self) -> dict[str, Any]:
        if self.fn is None:
            raise RuntimeError("time before a successful prepare")
        fn, args = self.fn, self.positional
        primed = self.last is not None and self.last < PRIME_BELOW_S
        if primed:
            self._restore()
            fn(*args)
        self.last = time_call(lambda: fn(*args), self._restore)
        return {"seconds": self.last, "primed": primed}


def _serve(variant: Variant, requests: IO[str], replies: IO[str]) -> None:
    state = _State(variant)
    for line in requests:
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            return
        try:
            if op == "prepare":
                try:
                    reply = state.prepare(req)
                except Exception as exc:  # noqa: BLE001 - reported as the variant's status
                    traceback.print_exc()
                    reply = {"status": "ERROR", "detail": f"{type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}"}
            elif op == "time":
                reply = state.time()
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            reply = {"exception": f"{type(exc).__name__}: {exc}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    variant = BY_KEY[sys.argv[1]]
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything printed goes to the log, not into the protocol
    _serve(variant, sys.stdin, replies)


if __name__ == "__main__":
    main()
