"""Placing every firing of a deep run costs work linear in the depth, and stays exact.

A firing at every level of a deep tree used to be placed by walking its whole
path and keeping it as a tuple: quadratic time and memory (a traced optimize of
a 20,000-deep expression took minutes and gigabytes). The growth is measured by
Python calls (cProfile) and bytes allocated (tracemalloc), not by time, in a
child process with time and memory limits.
"""

import json

import pyarrow as pa

import toolkit as tk
from tests.plan.bounded_child import run_bounded
from toolkit.model.visit import EXPRESSION_SHAPE, node_at
from toolkit.rewrite import RewriteLog, Transformed, apply_rule
from toolkit.rewrite.positions import TreePath

_GROWTH = """
import cProfile, json, pstats, sys, tracemalloc
import pyarrow as pa
import toolkit as tk
from toolkit import plan

def traced_optimize(depth):
    a = tk.field("a")
    expr = a
    for k in range(depth):
        expr = expr + (tk.literal(1) + 1) if k % 2 else tk.if_else(a > k, expr, tk.literal(k))
    schema = pa.schema([("a", pa.int64())])

    def run():
        with tk.trace() as trace:
            tk.optimize(expr, schema)
        assert sum(len(p.rewrites) for p in trace.passes) >= depth
    return run

class Quiet(tk.observe.Observer):
    pass

def traced_plan_optimize(depth):
    p = plan.scan("t", pa.table({"a": list(range(20))}))
    for i in range(depth):
        p = p.filter(tk.field("a") > i % 50)
    return lambda: plan.optimize(p, observer=Quiet())

def cost(run):
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return pstats.Stats(profile).total_calls, peak

make = {"optimize": traced_optimize, "plan": traced_plan_optimize}[sys.argv[1]]
small, big = (cost(make(d)) for d in map(int, sys.argv[2:]))
print(json.dumps({"calls": big[0] / small[0], "bytes": big[1] / small[1]}))
"""


def _growth(kind: str, small: int, big: int) -> dict:
    code = (f"import sys\nsys.argv = ['growth', {kind!r}, '{small}', '{big}']\n" + _GROWTH)
    return json.loads(run_bounded(code, seconds=240, memory_mb=2_000).strip().splitlines()[-1])


def test_a_traced_optimize_of_ten_times_the_depth_costs_at_most_twelve_times():
    growth = _growth("optimize", 300, 3_000)  # was 31x the calls, 38x the bytes
    assert growth["calls"] <= 12 and growth["bytes"] <= 12, growth


def test_a_traced_plan_optimize_of_ten_times_the_filters_costs_at_most_twelve_times():
    growth = _growth("plan", 400, 4_000)  # was 15x the calls, 47x the bytes
    assert growth["calls"] <= 12 and growth["bytes"] <= 12, growth


def test_firings_share_one_table_of_positions():
    a = tk.field("a")
    expr = a
    for _ in range(50):
        expr = expr + (tk.literal(1) + 1)
    with tk.trace() as trace:
        tk.optimize(expr, pa.schema([("a", pa.int64())]))
    paths = [r.path for p in trace.passes for r in p.rewrites]
    assert len(paths) >= 50 and all(isinstance(p, TreePath) for p in paths)
    assert len({id(p.table) for p in paths if p}) <= len(trace.passes)


def _shared_leaf_sum(leaf, count: int):
    expr = leaf
    for _ in range(count):
        expr = tk.call("add", [expr, leaf])
    return expr


def test_a_node_shared_by_many_places_is_placed_where_the_rule_found_it_each_time():
    # more places than the 16 paths kept per shared node: each firing still names its own
    leaf = tk.field("b")
    expr = _shared_leaf_sum(leaf, 40)
    log = RewriteLog(EXPRESSION_SHAPE, positions="given")

    def rule(node):
        if node is leaf:
            return Transformed.fired(tk.literal(0), "test/b-is-0", "b is 0 here")
        return None

    out = apply_rule(expr, rule, "pre", log)
    applied = log.resolve(out, expr)
    assert len(applied) == 41
    paths = [tuple(a.path) for a in applied]
    assert len(set(paths)) == 41
    for a in applied:
        assert node_at(expr, a.path) is leaf
        assert node_at(out, a.path) is a.after
