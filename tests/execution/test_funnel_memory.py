"""The case_when funnel's peak memory stays near the output's size.

Measured in a fresh interpreter, where the Arrow pool's high-water mark is this
evaluation's alone, over numpy-backed input (outside the pool) so the pool holds
only what evaluation allocated. The bound is generous: a morsel's context kept
its branches' gathered columns, and the merge every branch's arrays, until the
end (2.75x the input at 5M rows); now the peak is the output plus a few morsel
columns (1.6x).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_CHILD = r"""
import json, sys
sys.path.insert(0, {root!r})
import numpy as np, pyarrow as pa
import toolkit as tk
from toolkit.execution import parallel
rows = 4_000_000  # an int64 output of 32 MB: written in place, as large outputs are
rng = np.random.default_rng(0)
table = pa.table({{"a": rng.integers(0, 1000, rows), "b": rng.integers(0, 1000, rows)}})
text = "case " + " ".join(f"when a < {{50 * (i + 1)}} then b * {{i}}" for i in range(20))
expr = tk.parse(text + " else 0 end")
pool = pa.default_memory_pool()
base = pool.bytes_allocated()
with parallel.serial():  # one morsel in flight, whatever the machine's cores
    out = tk.evaluate(expr, table)
print(json.dumps({{"ratio": 1 + (pool.max_memory() - base) / table.nbytes,
                  "rows": len(out), "nulls": out.null_count}}))
"""


def test_a_twenty_case_funnel_peaks_near_the_output_size():
    code = _CHILD.format(root=ROOT)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=300)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["rows"] == 4_000_000 and found["nulls"] == 0
    # the output alone is 1.5x (input + an int64 column half its size)
    assert found["ratio"] < 2.0, found
