"""First-call preparation: what `tk.evaluate` does to a tree before its first kernel, timed
here against another checkout of exprscope (the peer: `main`, before a change).

    python benchmarks/bench_prepare.py --against /work/main [--rounds 5] [--calls 3]

Each tree is built, unbound and bound, and prepared with no preparation remembered
(`execution.prepare`'s cache emptied before every call), so every call is a first call:
bind, simplify, compute the facts. Each checkout runs in a child interpreter of its own
(its tree first on the path); the children alternate round by round, each round swapping
who goes first, and the best call of all rounds is kept per checkout. Timed as the CPU time
of the preparing thread, which other processes on a shared machine disturb less than wall
time. Printed: CPU milliseconds per first call, and before/after (> 1: this tree prepares
faster).

Shapes: a 20-case case_when (the text of tests/execution/test_prepare_walk.py); a tree
3,000 calls deep mixing chains in and out of canonical order, as it is (nothing folds: the
tree as bound runs) and under a literal sum that folds (the simplified tree runs); and a
tree of one case_when of 300 cases beside a coalesce of 300 arguments.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r'''
import importlib, json, sys, time
import pyarrow as pa
import toolkit as tk
from toolkit.model.expression import Call
prepare_module = importlib.import_module("toolkit.execution.prepare")
from toolkit.support.bounded_cache import BoundedCache

SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.float64())])
TEXT = "case " + " ".join(f"when a < {2 * (i + 1)} then b * {i}" for i in range(20)) + \
    " else 0.0 end"

def deep(depth, fold=True):
    expr = tk.field("b")
    for k in range(depth):
        if k % 3 == 0:
            expr = Call("abs", [expr])
        elif k % 3 == 1:
            expr = Call("add", [expr, tk.literal(float(k % 5))])
        else:
            expr = Call("multiply", [tk.literal(1.0), Call("add", [expr, tk.field("a")])])
    if not fold:
        return expr
    return Call("add", [expr, Call("add", [tk.literal(1.0), tk.literal(2.0)])])

def wide(width):
    case = tk.case_when([(tk.less(tk.field("a"), tk.literal(k)), tk.field("b") * float(k))
                         for k in range(width)], else_=tk.literal(0.0))
    return Call("add", [case, Call("coalesce", [tk.field("b") + float(k) for k in range(width)])])

shapes = {"case_when, 20 cases": tk.parse(TEXT), "3,000 deep, nothing folds": deep(3000, False),
          "3,000 deep, a fold at the top": deep(3000), "300 wide": wide(300)}
calls = int(sys.argv[1])
out = {}
for name, expr in shapes.items():
    for given, tree in (("unbound", expr), ("bound", tk.bind(expr, SCHEMA))):
        best = float("inf")
        for _ in range(calls):
            prepare_module._PREPARED = BoundedCache(prepare_module.CACHE_SIZE)
            start = time.thread_time()
            prepare_module.prepare(tree, SCHEMA)
            best = min(best, time.thread_time() - start)
        out[f"{name}, {given}"] = best
print(json.dumps(out))
'''


def run_child(root: Path, calls: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(calls)], cwd=root,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the other checkout's root")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=3, help="first calls per shape per round")
    args = parser.parse_args(argv)
    trees = {"before": Path(args.against).resolve(), "after": ROOT}
    best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        for who in order:
            for shape, seconds in run_child(trees[who], args.calls).items():
                best[who][shape] = min(best[who].get(shape, float("inf")), seconds)
    print(f"{'first call of prepare':<40} {'before ms':>10} {'after ms':>10} {'before/after':>13}")
    for shape, before in best["before"].items():
        after = best["after"][shape]
        print(f"{shape:<40} {before * 1e3:>10.2f} {after * 1e3:>10.2f} {before / after:>13.2f}")
    print(f"(best of {args.rounds} alternating rounds x {args.calls} calls; before: "
          f"{trees['before']}, after: {trees['after']})")


if __name__ == "__main__":
    main()
