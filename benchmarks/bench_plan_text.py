"""Deep plans: growth of plan text, EXPLAIN VERBOSE, invariant checks and the optimizer.

    python benchmarks/bench_plan_text.py                  # depths 1,000 and 10,000
    python benchmarks/bench_plan_text.py --depths 300 3000

A chain of filters (`a > i % 50`) over a 200-row scan, printed by `explain()`,
`explain(schema=True)`, the physical plan's `explain()` and `tk.to_text`; EXPLAIN
VERBOSE on a chain of limits (no rule merges them, so every rule walks the whole
depth) and on the filter chain (every filter merged and simplified); planning and
running the filter chain with every invariant checked and observed; the optimizer
on a mixed chain (projections that rename and recompute, filters). Reported per
depth: characters and seconds (best of 5; 1 for the slow phases), then for each
phase the growth ratios size(big)/size(small) and t(big)/t(small) against the
depth ratio, and each phase's time over a peer measured in the same run (the
labels alone for the printers; the optimizer and planner for EXPLAIN VERBOSE;
validation "off" for the checks). Linear is a ratio near the depth ratio; the
target is at most ~1.2x it. On a loaded machine the labels alone may grow faster
than the depth (cache effects), so a steady /peer column, and the growth of the
Python function calls made (cProfile, one more run), say the work is linear.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(__file__))

import pyarrow as pa
from timing import best_of_each

import toolkit as tk
from toolkit import observe, plan

TABLE = pa.table({"a": list(range(200)), "b": [i % 7 for i in range(200)]})


def filters(n: int):
    p = plan.scan("t", TABLE)
    for i in range(n):
        p = p.filter(tk.field("a") > i % 50)
    return p


def limits(n: int):
    p = plan.scan("t", TABLE)
    for _ in range(n):
        p = p.limit(150)
    return p


def mixed(n: int):
    f, p = tk.field, plan.scan("t", TABLE)
    steps = [lambda q: q.project([f("a"), f("b") + 1], names=["a", "b"]),
             lambda q: q.filter(f("a") > -1000),
             lambda q: q.project([f("b"), f("a")], names=["a", "b"]),
             lambda q: q.project([f("a") - 1, f("b")], names=["a", "b"]),
             lambda q: q.filter(f("b") > -1000)]
    for i in range(n):
        p = steps[i % 5](p)
    return p


class CountChecks(observe.Observer):
    def __init__(self):
        self.checks = 0

    def on_invariant(self, event):
        self.checks += 1


def checked_run(p, validation: str) -> str:
    """Plan and run `p`; its length is the number of checks made."""
    counter = CountChecks()
    physical = plan.create_physical_plan(p, validation=validation, observer=counter)
    physical.collect(validation=validation, observer=counter)
    return "x" * counter.checks


def labels(p) -> str:
    """Every node's label, nothing else: the least work any plan printer does."""
    out, stack = [], [p]
    while stack:
        node = stack.pop()
        out.append(node.label())
        stack.extend(node.children)
    return "\n".join(out)


def optimized_and_planned(p) -> str:
    """What EXPLAIN VERBOSE computes before it prints anything."""
    return str(plan.create_physical_plan(plan.optimize(p), optimize=True).schema)


def calls(fn) -> int:
    """Python function calls one run of `fn` makes: work, counted without the machine's noise."""
    profile = cProfile.Profile()
    profile.enable()
    fn()
    profile.disable()
    return pstats.Stats(profile).total_calls


def measure(depth: int) -> dict:
    """{phase: (characters, seconds, its peer's seconds, function calls)}."""
    chain, chain_of_limits, chain_mixed = filters(depth), limits(depth), mixed(depth)
    physical = plan.create_physical_plan(chain)
    printers = {"explain": lambda: chain.explain(),
                "explain(schema=True)": lambda: chain.explain(schema=True),
                "physical explain": lambda: physical.explain(),
                "to_text": lambda: tk.to_text(chain)}
    times = best_of_each([lambda: labels(chain)] + list(printers.values()), 5)
    out = {name: (len(fn()), t, times[0], calls(fn))
           for (name, fn), t in zip(printers.items(), times[1:])}
    slow = {  # phase: (its function, its peer)
        "verbose, limits": (lambda: chain_of_limits.explain(verbose=True),
                            lambda: optimized_and_planned(chain_of_limits)),
        "verbose, filters": (lambda: chain.explain(verbose=True),
                             lambda: optimized_and_planned(chain)),
        "invariant checks": (lambda: checked_run(chain, "always"),
                             lambda: checked_run(chain, "off")),
        "optimize, mixed": (lambda: plan.optimize(chain_mixed).explain(), None),
    }
    for name, (fn, peer) in slow.items():
        size = len(fn())
        t, t_peer = best_of_each([fn, peer or fn], 1)
        out[name] = (size, t, t_peer if peer else None, calls(fn))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs=2, default=[1_000, 10_000])
    args = parser.parse_args()
    small, big = args.depths
    results = {d: measure(d) for d in (small, big)}
    print(f"depth {small:,} -> {big:,} (x{big / small:g}); peer: the labels alone (printers), "
          "optimize + plan (verbose), validation off (checks)")
    print(f"{'phase':22} {'chars':>11} {'chars':>11} {'size x':>7} {'s':>8} {'s':>8} "
          f"{'time x':>7} {'/peer':>6} {'/peer':>6} {'calls x':>8}")
    for name in results[small]:
        (s1, t1, p1, c1), (s2, t2, p2, c2) = results[small][name], results[big][name]
        peers = f"{t1 / p1:>6.2f} {t2 / p2:>6.2f}" if p1 else f"{'-':>6} {'-':>6}"
        print(f"{name:22} {s1:>11,} {s2:>11,} {s2 / s1:>7.1f} {t1:>8.3f} {t2:>8.3f} "
              f"{t2 / t1:>7.1f} {peers} {c2 / c1:>8.1f}")


if __name__ == "__main__":
    main()
