"""Each of DataFusion's invariants is checked, reported, and fires on a deliberately broken fixture."""

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import toolkit as tk
from toolkit import plan
from toolkit.functions import Function, FunctionKind, Kernel, NullHandling, registry
from toolkit.functions.function import Arity
from toolkit.functions.types import exact, fixed
from toolkit.plan import invariants


@pytest.fixture
def table():
    return pa.table({"a": pa.array([1, 2, 3, 4], pa.int64()),
                     "b": pa.array([10, None, 30, 40], pa.int64()),
                     "g": pa.array(["x", "y", "x", "y"])})


def _register(monkeypatch, name, output, null_handling=NullHandling.INTERSECTION, execute=None):
    """A test-local function in the registry (gone after the test)."""
    kernel = Kernel(name, (exact(pa.int64()), exact(pa.int64())), output)
    fn = Function(name=name, kind=FunctionKind.SCALAR, arity=Arity(2, 2), kernels=[kernel],
                  null_handling=null_handling, doc="test-only", pc_name="add")
    if execute is not None:
        fn.execute = execute
    monkeypatch.setitem(registry._FUNCTIONS, name, fn)
    return fn, kernel


def test_every_check_reports_an_event_when_all_is_well(table, recorder):
    p = plan.scan("t", table).filter(tk.field("a") > 1).project(
        ["g", tk.field("a") + tk.field("b")], names=["g", "s"]).aggregate(["g"], [("sum", "s", "total")])
    optimized = plan.optimize(p)
    plan.create_physical_plan(optimized).collect()
    assert recorder.names(passed=False) == set()
    assert recorder.names(passed=True) == {
        "unique (relation, name)", "logical schema invariant under logical optimization",
        "physical schema invariant under planning",
        "physical schema invariant under physical optimization",
        "physical schema consistent with data", "output batch schema equals plan schema",
        "physical functions return what they declare"}
    levels = {c.name: c.level for c in recorder.checks}
    assert levels["unique (relation, name)"] == "MUST"
    assert levels["physical schema invariant under planning"] == "MUST"
    assert levels["logical schema invariant under logical optimization"] == "SHOULD"
    assert levels["physical schema invariant under physical optimization"] == "SHOULD"
    assert levels["physical schema consistent with data"] == "CAN"


def test_duplicate_names_from_a_join_are_refused(table, recorder):
    left = plan.scan("t", table)
    with pytest.raises(plan.InvariantViolation) as info:
        left.join(plan.scan("t", table), on="a")
    err = info.value
    assert err.invariant == "unique (relation, name)" and err.level == "MUST"
    assert "field 0 and field 3 are both 't.a'" in str(err)
    assert "scan that input under another relation name" in str(err)
    assert err.subject == "Inner Join: t.a = t.a"
    failed = [c for c in recorder.checks if not c.passed]
    assert [c.name for c in failed] == ["unique (relation, name)"]


def test_duplicate_computed_names_from_two_projections_are_refused(table):
    left = plan.scan("t", table).project(["a", tk.field("b") * 2], names=["a", "x"])
    right = plan.scan("u", table).project(["a", tk.field("b") * 3], names=["a", "x"])
    with pytest.raises(plan.DuplicateFieldError, match="both 'x' \\(no relation\\)"):
        left.join(right, on=[("t.a", "u.a")])


def test_a_function_that_lies_about_its_output_type_is_caught_at_execution(table, monkeypatch):
    # declares int32, but pyarrow's add returns int64
    _register(monkeypatch, "lying_add", fixed(pa.int32()))
    p = plan.scan("t", table).project([tk.call("lying_add", [tk.field("a"), tk.field("a")])],
                                      names=["twice"])
    assert p.schema[0].type == pa.int32()
    physical = plan.create_physical_plan(p)  # planning agrees with itself: same registry
    with pytest.raises(plan.InvariantViolation) as info:
        physical.collect()
    err = info.value
    assert err.invariant == "physical functions return what they declare"
    assert "lying_add: declared int32, returned int64" in str(err)
    assert err.subject.startswith("ProjectionExec")
    # with validation off the CAN checks do not run; the evaluator conforms the result
    assert physical.collect(validation="off").column(0).to_pylist() == [2, 4, 6, 8]


def test_a_function_that_lies_about_nullability_is_caught(table, monkeypatch, recorder):
    def add_with_nulls(function, args, options, kernel):
        return pc.add(*args)  # nulls where b is null, though declared never null

    _register(monkeypatch, "never_null_add", fixed(pa.int64()),
              null_handling=NullHandling.OUTPUT_NOT_NULL, execute=add_with_nulls)
    p = plan.scan("t", table).project([tk.call("never_null_add", [tk.field("a"), tk.field("b")])],
                                      names=["s"])
    assert p.schema[0].nullable is False
    with pytest.raises(plan.InvariantViolation, match="declared NOT NULL, returned 1 nulls"):
        plan.create_physical_plan(p).collect()
    with plan.validation("off"):
        out = plan.create_physical_plan(p).collect()
    assert out.column(0).null_count == 1  # unchecked, the lie reaches the user


def test_a_registry_change_between_logical_and_physical_planning_fails_planning(table, monkeypatch):
    _register(monkeypatch, "plain_add", fixed(pa.int64()))
    p = plan.scan("t", table).project([tk.call("plain_add", [tk.field("a"), tk.field("a")])],
                                      names=["twice"])
    _register(monkeypatch, "plain_add", fixed(pa.int32()))  # re-registered: now says int32
    with pytest.raises(plan.InvariantViolation) as info:
        plan.create_physical_plan(p, validation="off")  # MUST: runs even with validation off
    err = info.value
    assert err.invariant == "physical schema invariant under planning" and err.level == "MUST"
    assert "field 0 'twice' is int32, declared int64" in str(err)
    assert err.expected == "twice:int64" and err.actual == "twice:int32"


class _DropLastColumn(plan.Rule):
    """A broken optimizer rule: it changes the plan's schema."""

    name = "drop_last_column"
    order = "plan"

    def rewrite(self, p, ctx):
        names = p.schema.qualified_names[:-1]
        return self.fired(p.project(names), "drops the last column")


def test_an_optimizer_rule_that_changes_the_schema_is_caught(table, recorder):
    p = plan.scan("t", table).filter(tk.field("a") > 1)
    with pytest.raises(plan.InvariantViolation) as info:
        plan.optimize(p, rules=[_DropLastColumn()])
    err = info.value
    assert err.invariant == "logical schema invariant under logical optimization"
    assert err.level == "SHOULD"
    assert "2 fields, expected 3" in str(err)
    assert "drop_last_column" in err.subject
    # SHOULD checks are off with validation "off": the broken result goes through
    assert len(plan.optimize(p, rules=[_DropLastColumn()], max_rounds=1,
                             validation="off").schema) == 2


def test_a_physical_rule_that_changes_the_schema_is_caught(table):
    p = plan.scan("t", table).project(["a", "b"])
    physical = plan.create_physical_plan(p)

    def rename(node):
        if isinstance(node, plan.ProjectionExec):
            return plan.ProjectionExec(node.children[0], node.exprs, ["a", "renamed"],
                                       node.nullables, node.input_names)
        return node

    with pytest.raises(plan.InvariantViolation) as info:
        plan.optimize_physical(physical, rules=[plan.PhysicalRule("rename_b", rename)])
    assert info.value.invariant == "physical schema invariant under physical optimization"
    assert "field 1 is named 'renamed', declared 'b'" in str(info.value)


def test_a_file_rewritten_after_planning_gives_batches_of_the_wrong_type(table, tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    physical = plan.create_physical_plan(plan.scan("t", str(path)).project(["a", "g"]))
    pq.write_table(table.set_column(0, "a", pc.cast(table["a"], pa.string())), path)
    with pytest.raises(plan.InvariantViolation) as info:
        physical.collect()
    err = info.value
    assert err.invariant == "physical schema consistent with data"
    assert "column 0 'a' is string, declared int64" in str(err)
    assert err.subject.startswith("ParquetExec: t")


def test_a_node_that_forgets_to_label_its_output_is_caught(table, monkeypatch):
    p = plan.scan("t", table).project([tk.is_null(tk.field("b"))], names=["missing"])
    physical = plan.create_physical_plan(p)
    assert physical.schema.field(0).nullable is False
    # the arrays are right (bool, no nulls) but the batch is labelled nullable
    monkeypatch.setattr(plan.ProjectionExec, "_make_batch",
                        lambda self, arrays: pa.RecordBatch.from_arrays(
                            list(arrays), names=self.schema.names))
    with pytest.raises(plan.InvariantViolation) as info:
        physical.collect()
    assert info.value.invariant == "output batch schema equals plan schema"
    assert "field 0 'missing' is nullable, declared NOT NULL" in str(info.value)


def test_debug_mode_samples_the_first_batch_of_each_node(monkeypatch, recorder):
    monkeypatch.setattr("toolkit.plan.sources.BATCH_ROWS", 10)
    big = pa.table({"a": pa.array(range(100), pa.int64())})
    physical = plan.create_physical_plan(plan.scan("t", big).project([tk.field("a") + 1]))
    physical.collect(validation="always")
    always = [c for c in recorder.checks if c.name == "physical schema consistent with data"]
    recorder.checks.clear()
    physical.collect(validation="debug")
    debug = [c for c in recorder.checks if c.name == "physical schema consistent with data"]
    recorder.checks.clear()
    physical.collect(validation="off")
    off = [c for c in recorder.checks if c.name == "physical schema consistent with data"]
    assert (len(always), len(debug), len(off)) == (20, 2, 0)  # 10 batches x 2 nodes


def test_validation_modes_are_checked_and_scoped():
    with pytest.raises(plan.PlanError, match="validation mode must be one of"), \
            plan.validation("sometimes"):
        pass
    with plan.validation("debug"):
        assert plan.current_mode() == "debug"
        assert plan.current_mode("off") == "off"
    assert plan.current_mode() == "always"
    assert invariants.runs(invariants.UNIQUE_NAMES, "off")
    assert not invariants.runs(invariants.LOGICAL_OPTIMIZATION_KEEPS_SCHEMA, "off")


class _ReturnsAPlan(plan.Rule):
    """A rule written the old way: it returns the plan instead of a Transformed."""

    name = "returns_a_plan"

    def rewrite(self, node, ctx):
        return node


def test_a_rule_that_returns_a_plan_instead_of_transformed_is_told_how(table):
    p = plan.scan("t", table).filter(tk.field("a") > 1)
    with pytest.raises(tk.errors.RuleError, match=r"rule returns_a_plan returned a TableScan.*"
                                                  r"Transformed.*or None"):
        plan.optimize(p, rules=[_ReturnsAPlan()])
