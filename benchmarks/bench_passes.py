"""Speed of the optimization passes: growth with size, and optimize() on a typical filter.

    .venv/bin/python benchmarks/bench_passes.py [--quick] [--repeats N]

Prints, per pass, the CPU time per run (best of --repeats rounds) on generated
filters of about 1k, 10k and 100k nodes and the ratio t(100k)/t(10k), the median
over rounds of each round's ratio (10 for linear growth; the target is <= 12), then
the median time of `optimize` on a 20-node filter (bind included; target < 1 ms).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyarrow as pa

import toolkit as tk
from toolkit.model.visit import walk

SCHEMA = pa.schema([pa.field("a", pa.int32()), pa.field("b", pa.int32()),
                    pa.field("x", pa.float64()), pa.field("r", pa.int32(), nullable=False),
                    pa.field("flag", pa.bool_())])


def i32(n: int):
    return tk.literal(pa.scalar(n, pa.int32()))


def atom(rng: random.Random):
    """A small filter piece with work for every pass (flips, folds, identities)."""
    field = tk.field(rng.choice(["a", "b", "r"]))
    k = rng.randint(0, 9)
    choice = rng.randrange(6)
    if choice == 0:
        return tk.less(i32(k), field)  # canonicalize flips it
    if choice == 1:
        return tk.greater(field + i32(k) * i32(2), i32(k + 3))  # folds 2*k
    if choice == 2:
        return tk.is_null(tk.field("r"))  # non-nullable: false
    if choice == 3:
        return tk.not_(tk.not_(tk.field("flag")))  # double negation
    if choice == 4:
        return tk.less_equal(tk.field("x"), tk.literal(float(k)))
    return tk.coalesce(tk.field("flag"), tk.literal(True), tk.field("flag"))


def generated_filter(target_nodes: int, seed: int = 0):
    """A random and/or tree of atoms with about `target_nodes` nodes (depth ~ log n)."""
    rng = random.Random(seed)
    pieces = []
    nodes = 0
    while nodes < target_nodes:
        piece = atom(rng)
        nodes += sum(1 for _ in walk(piece)) + 1
        pieces.append(piece)
    while len(pieces) > 1:
        rng.shuffle(pieces)
        nxt = [(tk.and_ if rng.random() < 0.6 else tk.or_)(pieces[i], pieces[i + 1])
               for i in range(0, len(pieces) - 1, 2)]
        if len(pieces) % 2:
            nxt.append(pieces[-1])
        pieces = nxt
    return pieces[0]


def timed(fn) -> float:
    """CPU seconds of one run, after a full collection (less noise from big heaps).

    CPU time, not wall time: the passes are single-threaded, and on a shared machine
    another process taking the core must not decide a growth ratio.
    """
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="sizes 1k and 10k only")
    parser.add_argument("--repeats", type=int, default=5, help="runs per size (best is kept)")
    args = parser.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    guarantee = tk.and_(tk.greater(tk.field("a"), i32(4)), tk.equal(tk.field("b"), i32(3)))
    passes = {
        "canonicalize": tk.canonicalize,
        "fold_constants": tk.fold_constants,  # on canonical input, as optimize() runs it
        "simplify_identities": tk.simplify_identities,
        "simplify_with_guarantee": lambda e: tk.simplify_with_guarantee(e, guarantee),
        "optimize (bound input)": lambda e: tk.optimize(e, guarantee=guarantee),
    }
    times: dict[str, dict[int, float]] = {name: {} for name in passes}
    print(f"{'pass':<26}" + "".join(f"{n:>12,d} nodes" for n in sizes) + "   t(100k)/t(10k)")
    bound_by_size = {n: tk.bind(generated_filter(n), SCHEMA) for n in sizes}
    canonical_by_size = {n: tk.canonicalize(e) for n, e in bound_by_size.items()}
    for name, fn in passes.items():
        inputs = canonical_by_size if name == "fold_constants" else bound_by_size
        # Each round times every size over about the same span of time (a size of n
        # nodes runs 100k/n times), so a busy moment on a shared machine hits a pair of
        # sizes alike; the ratio is the median over rounds of the per-round ratios.
        rounds: list[dict[int, float]] = []
        for _ in range(args.repeats):
            per_run = {}
            for n in sizes:
                runs = max(1, sizes[-1] // n)
                per_run[n] = timed(lambda fn=fn, x=inputs[n], k=runs: [fn(x) for _ in range(k)]) / runs
            rounds.append(per_run)
        for n in sizes:
            times[name][n] = min(r[n] for r in rounds)
        ratio = (statistics.median(r[sizes[-1]] / r[sizes[-2]] for r in rounds)
                 if len(sizes) == 3 else float("nan"))
        print(f"{name:<26}" + "".join(f"{times[name][n]:>16.4f} s" for n in sizes)
              + f"   {ratio:>8.2f}")
    actual = {n: sum(1 for _ in walk(bound_by_size[n])) for n in sizes}
    print("actual bound sizes:", ", ".join(f"{v:,d}" for v in actual.values()))

    typical = (tk.field("a") > 3) & (tk.field("b") + 1 < tk.field("a") * 2) & \
        (tk.is_null(tk.field("x")) | (tk.literal(10) >= tk.field("r"))) & tk.field("flag")
    size = sum(1 for _ in walk(tk.bind(typical, SCHEMA)))
    samples = []
    for _ in range(300):
        start = time.perf_counter()
        tk.optimize(typical, SCHEMA)
        samples.append(time.perf_counter() - start)
    bound_typical = tk.bind(typical, SCHEMA)
    bound_samples = []
    for _ in range(300):
        start = time.perf_counter()
        tk.optimize(bound_typical)
        bound_samples.append(time.perf_counter() - start)
    print(f"optimize of a typical {size}-node filter (bind included): median "
          f"{statistics.median(samples) * 1e3:.3f} ms; already bound: "
          f"{statistics.median(bound_samples) * 1e3:.3f} ms")

    plan_growth(args.repeats)


def plan_growth(repeats: int) -> None:
    """A chain of n filters: optimize, explain (verbose) and collect, 1,000 against 100."""
    import pyarrow as pa

    from toolkit import plan

    table = pa.table({"a": list(range(1_000)), "b": [i % 7 for i in range(1_000)]})

    def chain(n: int):
        p = plan.scan("t", table)
        for i in range(n):
            p = p.filter(tk.field("a") > i % 50)
        return p

    steps = {"plan.optimize": plan.optimize, "explain(verbose=True)":
             lambda p: p.explain(verbose=True),
             "create_physical_plan + collect": lambda p: plan.create_physical_plan(p).collect()}
    print(f"\n{'plan of n filters':<32}{'100':>10}{'1,000':>10}   t(1000)/t(100)  (target <= 12)")
    for name, fn in steps.items():
        small, large = chain(100), chain(1_000)
        best = [min(timed(lambda p=p: fn(p)) for _ in range(repeats)) for p in (small, large)]
        print(f"{name:<32}{best[0]:>9.3f}s{best[1]:>9.3f}s   {best[1] / best[0]:>8.2f}")


if __name__ == "__main__":
    main()
