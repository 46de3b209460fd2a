"""search.sh as the verifier drives it: one JSON line in, one line out, for the tests and the benchmarks alike.

Reader threads pump stdout (and stderr, unless it goes to a file) so that writes never deadlock on a full
pipe and every wait is bounded. The process runs in its own session, so a hung one is killed with its
whole group. Tests import it with `scripts/` on sys.path (see tests/conftest.py); the scripts have it there.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any


class SearchProcess:
    """One running search.sh. `lines` holds every stdout line read so far (raw, newline included)."""

    def __init__(self, script: Path, index_dir: Path, env: dict[str, str], *, cwd: Path | None = None,
                 stderr: Path | IO[bytes] | int | None = None) -> None:
        """`stderr`: a file path (appended to), an open binary file or subprocess.DEVNULL; None keeps it in
        memory (`stderr_lines`)."""
        self._own_err = open(stderr, "ab") if isinstance(stderr, Path) else None  # noqa: SIM115 - closed in close()
        err_target: Any = self._own_err or (subprocess.PIPE if stderr is None else stderr)
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            ["bash", str(script), "--index-dir", str(index_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err_target, env=env, cwd=cwd,
            start_new_session=True,
        )
        self.lines: list[bytes] = []
        self._next = 0
        self._err: list[bytes] = []
        self._cv = threading.Condition()
        self._eof = False
        self._threads = [threading.Thread(target=self._pump_out, daemon=True)]
        if self.proc.stderr is not None:
            self._threads.append(threading.Thread(target=self._pump_err, daemon=True))
        for t in self._threads:
            t.start()

    def _pump_out(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            with self._cv:
                self.lines.append(raw)
                self._cv.notify_all()
        with self._cv:
            self._eof = True
            self._cv.notify_all()

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in iter(self.proc.stderr.readline, b""):
            with self._cv:
                self._err.append(raw)

    def stderr_lines(self) -> list[str]:
        """What the process wrote to stderr so far (only when it is kept in memory)."""
        with self._cv:
            return [b.decode("utf-8", "replace").rstrip("\n") for b in self._err]

    def wait_for(self, pred: Callable[[list[bytes]], bool], timeout: float) -> bool:
        """Wait until `pred(lines)` holds, stdout ends or `timeout` passes; the predicate's last value."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while not pred(self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or self._eof:
                    return pred(self.lines)
                self._cv.wait(left)
            return True

    def read(self, timeout: float) -> bytes | None:
        """The next unread stdout line, or None at EOF; TimeoutError when nothing comes within `timeout`."""
        if not self.wait_for(lambda lines: len(lines) > self._next, timeout):
            with self._cv:
                if self._eof:
                    return None
            raise TimeoutError(f"search.sh wrote nothing within {timeout:.0f}s")
        with self._cv:
            raw = self.lines[self._next]
            self._next += 1
        return raw

    def wait_ready(self, timeout: float) -> float:
        """Seconds from start to the `{"ready":true}` line; RuntimeError if the process ends first."""
        deadline = time.monotonic() + timeout
        while True:
            raw = self.read(max(deadline - time.monotonic(), 0.0))
            if raw is None:
                raise RuntimeError(f"search.sh exited before ready (rc={self.proc.wait()}): {self.stderr_lines()[-5:]}")
            with contextlib.suppress(ValueError):
                msg = json.loads(raw)
                if isinstance(msg, dict) and msg.get("ready") is True:
                    return time.monotonic() - self.t0

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj: Any, ensure_ascii: bool = True) -> None:
        self.send_raw(json.dumps(obj, ensure_ascii=ensure_ascii).encode("utf-8") + b"\n")

    def ask(self, query_id: str, question: str, timeout: float) -> tuple[bytes | None, float]:
        """One question: (its answer line or None at EOF, seconds from write to answer)."""
        t0 = time.monotonic()
        self.send({"query_id": query_id, "question": question})
        return self.read(timeout), time.monotonic() - t0

    def peak_rss_mb(self) -> float:
        """Peak resident set (VmHWM) so far; search.sh execs python, so its pid is the python's. NaN once gone."""
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def close(self, timeout: float = 60.0) -> int | None:
        """Close stdin (EOF) and wait for the exit code; a process that hangs is killed with its group (None)."""
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            rc: int | None = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            rc = None
        for t in self._threads:
            t.join(10)
        if self._own_err is not None:
            self._own_err.close()
        return rc


def pct(values: Sequence[float], q: float) -> float:
    """The q-quantile of latencies as the benchmarks report it (nearest rank); NaN for none."""
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")
