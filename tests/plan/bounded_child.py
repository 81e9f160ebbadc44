"""Run a piece of Python in a child process with a time and an address-space limit.

For repros that once looped or ate memory without end: if one regresses, the child
is killed or fails with MemoryError, and the test fails instead of hanging the suite
(or the machine). The child imports this checkout's `toolkit`, not an installed one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import toolkit

CHECKOUT = str(Path(toolkit.__file__).resolve().parent.parent)
_LIMITED = """\
import resource
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
"""


def run_bounded(code: str, seconds: float = 60, memory_mb: int = 1_500) -> str:
    """The child's stdout; an AssertionError with its stderr when it fails or runs out."""
    limit = memory_mb * 1024 * 1024
    script = _LIMITED.format(limit=limit) + textwrap.dedent(code)
    env = dict(os.environ, PYTHONPATH=CHECKOUT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True,
                              text=True, timeout=seconds, env=env, cwd=CHECKOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the child ran past {seconds} s") from None
    if done.returncode != 0:
        raise AssertionError(f"the child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout
