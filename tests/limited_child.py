"""A child Python with a memory cap and a time limit that loads and renders saved traces.

A crafted trace could crash the interpreter (a segfault inside pyarrow) or exhaust
memory; in the test process either would take the whole suite down. The child
runs this checkout's toolkit under `RLIMIT_AS`, reads trace files one by one,
loads each (`Trace.from_json`) and renders it (`to_text`, `write_report`), and
answers one JSON line per file. A file that crashes it, or takes longer than the
limit, is answered here as "crashed" or "timeout", and a new child is started.
"""

from __future__ import annotations

import json
import os
import pathlib
import resource
import select
import subprocess
import sys
import tempfile

import toolkit

CHECKOUT = pathlib.Path(toolkit.__file__).resolve().parent.parent

_CHILD = r"""
import json, pathlib, sys, tempfile, traceback
import toolkit as tk
from toolkit.errors import TraceFormatError

report = pathlib.Path(tempfile.mkdtemp()) / "report.html"
for line in sys.stdin:
    try:
        trace = tk.Trace.from_json(pathlib.Path(line.strip()).read_bytes())
    except TraceFormatError as exc:
        answer = {"outcome": "refused", "message": str(exc)}
    except BaseException:
        answer = {"outcome": "raised at load", "message": traceback.format_exc()[-3000:]}
    else:
        try:
            tk.to_text(trace, color=False)
            tk.write_report(trace, report)
            answer = {"outcome": "ok", "message": ""}
        except BaseException:
            answer = {"outcome": "raised rendering", "message": traceback.format_exc()[-3000:]}
    print(json.dumps(answer), flush=True)
"""


class TraceLoader:
    """Loads and renders traces in a limited child process; `load(text)` gives its answer."""

    def __init__(self, memory_bytes: int = 3 << 30, seconds: float = 30.0):
        self.memory_bytes = memory_bytes
        self.seconds = seconds
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="exprscope-traces-"))
        self.child: subprocess.Popen | None = None
        self.count = 0

    def _start(self) -> subprocess.Popen:
        limit = self.memory_bytes

        def cap_memory():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        self.errors = open(self.folder / f"stderr-{self.count}.txt", "w+b")  # noqa: SIM115
        env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
        return subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=self.errors, cwd=CHECKOUT,
                                env=env, preexec_fn=cap_memory, text=True, bufsize=1)

    def load(self, text: str | bytes) -> dict:
        """{"outcome": "ok" | "refused" | "raised ..." | "crashed" | "timeout", "message"}."""
        if self.child is None or self.child.poll() is not None:
            self.child = self._start()
        self.count += 1
        path = self.folder / f"trace-{self.count}.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str)
                         else text)
        self.child.stdin.write(f"{path}\n")
        self.child.stdin.flush()
        ready, _, _ = select.select([self.child.stdout], [], [], self.seconds)
        line = self.child.stdout.readline() if ready else ""
        if line:
            path.unlink()
            return json.loads(line)
        timed_out = not ready
        self.close()
        self.errors.seek(0)
        tail = self.errors.read()[-2000:].decode("utf-8", "replace")
        return {"outcome": "timeout" if timed_out else "crashed",
                "message": f"{path} (kept): {tail}"}

    def close(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child.wait()
            self.child = None
