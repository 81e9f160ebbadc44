"""Late modules first used by several threads at once (evaluation's workers reaching a
numba loop together) are imported once, whole: numba's package imported by two threads
together was handed half made to one of them (a deadlock error, `numba` without `njit`).
Run in a fresh interpreter, where nothing has imported numba yet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import threading
import numpy as np
import pyarrow as pa
import toolkit  # noqa: F401
from toolkit.execution import fused_math
from toolkit.functions.select_values import select_values

cond = pa.array(np.arange(10_000) % 3 == 0)
a, b = pa.array(np.arange(10_000, dtype=np.float64)), pa.array(np.zeros(10_000))
start = threading.Barrier(6)
errors = []

def first_use(k):
    start.wait()
    try:
        if k % 3 == 0:
            select_values(cond, a, b)
        elif k % 3 == 1:
            fused_math.extending.intrinsic
        else:
            fused_math.numba_types.int64
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=first_use, args=(k,)) for k in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors or "ok")
"""


def test_threads_reaching_late_modules_together_each_get_the_whole_module():
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    for _ in range(3):  # the race needed no more than one try without the lock
        run = subprocess.run([sys.executable, "-c", _SCRIPT], check=False, capture_output=True,
                             text=True, env=env, timeout=300, cwd=root)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.strip() == "ok", run.stdout
