"""Growth of reading long generated filters: parse, bind and optimize, against sqlglot's parse.

    .venv/bin/python benchmarks/bench_parse.py [--repeats N] [--small 1000] [--large 10000]

For each shape (an `a + a + ...` chain, an OR of equalities, an AND of ORs, a
CASE with many WHENs, an IN list), prints the best-of-N seconds of `tk.parse`,
`bind`, `tk.optimize` and sqlglot's own `parse_one` of the same text (the peer:
exprscope parses with it, then translates), at --small and --large terms, and
the growth ratio t(large)/t(small) of each (10 for linear; the target is <= 12),
plus exprscope's parse time over sqlglot's at the large size. The four steps are
timed interleaved, round by round, so a slow stretch of the machine hits all alike.
On a shared machine times wander, so a second table counts the Python function
calls each step makes (cProfile): their growth ratio does not depend on the load.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pyarrow as pa
import sqlglot
from timing import best_of_each

import toolkit as tk

SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.float64())])

SHAPES = {
    "a + a + ...": lambda n: " + ".join(["a"] * n),
    "a = 0 OR a = 1 ...": lambda n: " OR ".join(f"a = {i}" for i in range(n)),
    "(a > i OR b < i) AND ...": lambda n: " AND ".join(f"(a > {i} OR b < {i})"
                                                      for i in range(n // 2)),
    "CASE WHEN a = i THEN b * i ...": lambda n: "CASE " + " ".join(
        f"WHEN a = {i} THEN b * {i}" for i in range(n // 2)) + " ELSE 0.0 END",
    "a IN (0, 1, ...)": lambda n: "a IN (" + ", ".join(str(i) for i in range(n * 10)) + ")",
}
STEPS = ("parse", "bind", "optimize", "sqlglot")


def times(text: str, repeat: int) -> list[float]:
    """Best seconds of each step on `text`, the steps interleaved round by round."""
    parsed = tk.parse(text)
    bound = parsed.bind(SCHEMA)
    return best_of_each([lambda: tk.parse(text), lambda: parsed.bind(SCHEMA),
                         lambda: tk.optimize(bound), lambda: sqlglot.parse_one(text)], repeat)


def calls(text: str) -> list[int]:
    """Python function calls made by each step on `text` (the same on every run)."""
    counts = []
    parsed = bound = None
    for step in STEPS:
        profile = cProfile.Profile()
        profile.enable()
        if step == "parse":
            parsed = tk.parse(text)
        elif step == "bind":
            bound = parsed.bind(SCHEMA)
        elif step == "optimize":
            tk.optimize(bound)
        else:
            sqlglot.parse_one(text)
        profile.disable()
        counts.append(pstats.Stats(profile).total_calls)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=10_000)
    args = parser.parse_args()
    tk.parse("a + 1")  # load sqlglot before timing
    print(f"terms {args.small:,} -> {args.large:,} (IN lists ten values a term); seconds, "
          "best of", args.repeats)
    print(f"{'shape':32} {'chars':>9} " + " ".join(f"{s:>17}" for s in STEPS)
          + "  parse/sqlglot")
    for name, make in SHAPES.items():
        small_text, large_text = make(args.small), make(args.large)
        small = times(small_text, args.repeats)
        large = times(large_text, args.repeats)
        cells = [f"{b:7.3f} x{b / max(a, 1e-9):5.1f}  " for a, b in zip(small, large)]
        print(f"{name:32} {len(large_text):>9,} " + " ".join(f"{c:>17}" for c in cells)
              + f"  {large[0] / large[3]:5.2f}")
    print("\nPython function calls at the large size, and their growth from the small size")
    for name, make in SHAPES.items():
        small, large = calls(make(args.small)), calls(make(args.large))
        cells = [f"{b:>10,} x{b / max(a, 1):5.1f}" for a, b in zip(small, large)]
        print(f"{name:32} " + " ".join(f"{c:>19}" for c in cells))


if __name__ == "__main__":
    main()
