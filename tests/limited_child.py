"""A child Python with a memory cap and a time limit, for what could take the suite down.

A crafted trace could crash the interpreter (a segfault inside pyarrow) or exhaust
memory; in the test process either would take the whole suite down. The child
runs this checkout's toolkit under `RLIMIT_AS`, reads trace files one by one,
loads each (`Trace.from_json`) and renders it (`to_text`, `write_report`), and
answers one JSON line per file. A file that crashes it, or takes longer than the
limit, is answered here as "crashed" or "timeout", and a new child is started.
`LimitedChild` runs any such script (one JSON answer per line asked), e.g. Arrow
kernels that may never finish.
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


class LimitedChild:
    """A child Python running `script` under a memory cap: it reads one line per question
    from stdin and prints one JSON line per answer. `ask(line)` gives the answer, or
    {"outcome": "timeout" | "crashed", "message"} when the child takes longer than
    `seconds` or dies; a new child then takes the next question."""

    def __init__(self, script: str, memory_bytes: int = 3 << 30, seconds: float = 30.0):
        self.script = script
        self.memory_bytes = memory_bytes
        self.seconds = seconds
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="exprscope-child-"))
        self.child: subprocess.Popen | None = None
        self.count = 0

    def _start(self) -> subprocess.Popen:
        limit = self.memory_bytes

        def cap_memory():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        self.errors = open(self.folder / f"stderr-{self.count}.txt", "w+b")  # noqa: SIM115
        env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
        return subprocess.Popen([sys.executable, "-c", self.script], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=self.errors, cwd=CHECKOUT,
                                env=env, preexec_fn=cap_memory, text=True, bufsize=1)

    def ask(self, line: str, keep: str = "") -> dict:
        """The child's JSON answer to `line` (one line of text); `keep` names what to look
        at when there is none."""
        if self.child is None or self.child.poll() is not None:
            self.child = self._start()
        self.count += 1
        self.child.stdin.write(f"{line}\n")
        self.child.stdin.flush()
        ready, _, _ = select.select([self.child.stdout], [], [], self.seconds)
        answer = self.child.stdout.readline() if ready else ""
        if answer:
            return json.loads(answer)
        timed_out = not ready
        self.close()
        self.errors.seek(0)
        tail = self.errors.read()[-2000:].decode("utf-8", "replace")
        return {"outcome": "timeout" if timed_out else "crashed",
                "message": f"{keep or line}: {tail}"}

    def close(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child.wait()
            self.child = None


class TraceLoader(LimitedChild):
    """Loads and renders traces in a limited child process; `load(text)` gives its answer."""

    def __init__(self, memory_bytes: int = 3 << 30, seconds: float = 30.0):
        super().__init__(_CHILD, memory_bytes, seconds)

    def load(self, text: str | bytes) -> dict:
        """{"outcome": "ok" | "refused" | "raised ..." | "crashed" | "timeout", "message"}."""
        path = self.folder / f"trace-{self.count + 1}.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str)
                         else text)
        answer = self.ask(str(path), keep=f"{path} (kept)")
        if answer["outcome"] not in ("timeout", "crashed"):
            path.unlink()
        return answer
