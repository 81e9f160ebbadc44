"""`explain_row(expr, data, row)`: one row's value at every node, the branch it took, and why.

Nothing is recorded on normal runs: the row is cut out as a one-row batch and
evaluated again, traced, exactly as `tk.evaluate` runs it (bound, canonicalized
and folded; lazy special forms under selection vectors). The trace of that run
says which nodes the row reached: a node under a branch whose selection left the
row out was not evaluated for it. Each node's value is then computed on the
one-row batch from its arguments' values (a call with its computed arguments put
in as literals, so the work is linear in the tree), with the engine's own lazy
semantics; a node the row never reached is still tried, so a node that would
raise there (a division by zero an `if_else` avoided) is named as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyarrow as pa

from ..errors import FieldRefError, InputError, KernelError
from ..execution import evaluate
from ..functions import FunctionKind
from ..functions.bind import bind
from ..model.expression import Expression, Literal, as_expression
from ..observe import Observer, observing, silenced
from ..sql.parse import parse
from ..support.visible_text import visible
from ..tracing.steps import branch_target
from .expression_text import expression_text
from .records import NodeStory, RowStories, RowStory, TreeChange
from .rows import MAX_EXPLAINED, PickedRows, check_data, pick_rows
from .value_text import value_text
from .why import Deciders, explain_why, null_note, path_text

__all__ = ["explain_row", "story_of_batch"]

MODES = ("lazy", "eager")


def explain_row(expr, data, row, mode: str = "lazy", limit: int = MAX_EXPLAINED):
    """The story of `row` of `data` through `expr`.

    `row` is a row number (0-based, in the table's order; a Dataset's in scan order)
    or a predicate (text, a tk.Expression or a pyarrow.compute.Expression): then a
    `RowStories` of the first `limit` matching rows, with how many matched.
    """
    if mode not in MODES:
        raise InputError(f"explain_row: mode must be one of {MODES}, not {mode!r}")
    check_data(data, "explain_row")
    written = written_expression(expr, data.schema)
    picked = pick_rows(data, row, limit=limit)
    stories = tuple(story_of_batch(written, batch, number, mode, picked)
                    for number, batch in zip(picked.rows, picked.batches))
    if picked.predicate is None:
        return stories[0]
    return RowStories(picked.predicate, picked.matched, stories, picked.num_rows)


def written_expression(expr, schema: pa.Schema) -> Expression:
    """The user's expression, bound; an unknown column in text is shown with a caret."""
    if isinstance(expr, str):
        try:
            return bind(parse(expr), schema)
        except FieldRefError as exc:
            raise FieldRefError(f"the expression: {exc.located(expr)}") from None
    expr = as_expression(expr)
    return expr if expr.is_bound else bind(expr, schema)


class _Recorder(Observer):
    def __init__(self):
        self.passes, self.evals = [], []

    def on_pass(self, event) -> None:
        self.passes.append(event)

    def on_eval(self, event) -> None:
        self.evals.append(event)


@dataclass(frozen=True)
class _Computed:
    """A node's value on the one-row batch, or the error computing it raised."""

    value: pa.Scalar | None
    error: KernelError | None = None
    inherited: bool = False  # the error is an argument's, not the node's own


def story_of_batch(written: Expression, batch: pa.RecordBatch, row: int, mode: str,
                   picked: PickedRows | None = None) -> RowStory:
    """The story of the one row in `batch` (row number `row` of the data)."""
    recorder = _Recorder()
    error = None
    with silenced(), observing(recorder):  # the user's own trace does not see this re-run
        try:
            evaluate(written, batch, mode=mode)
        except KernelError as exc:
            error = exc
    event = recorder.evals[-1]
    tree = event.expr
    nodes = _walk(tree, event.root_path())
    with silenced():
        computed = _compute(nodes, batch, mode)
    stats = {s.path for s in event.nodes}  # TreePaths of the run's table: O(1) to hash
    skipped = _skipped_subtrees(event, nodes, mode)
    taken = _taken_branches(event)
    failed_at = event.failed_path() if error is not None else None
    stories = []
    roots = _skip_roots(nodes, skipped)
    by_path = {p: n for p, n, _ in nodes}
    texts = _node_texts(nodes)
    ran = _ran(nodes, stats)
    for path, node, depth in nodes:
        root = roots[path]
        reason = skipped[root] if root is not None else None
        if reason is None and error is not None and failed_at is not None \
                and path != failed_at:
            if path.is_prefix_of(failed_at):
                reason = (None, f"not computed: its argument at {path_text(failed_at)} failed")
            elif path not in ran:
                reason = (None, ("not run: evaluation stopped at the failing node "
                                 f"{path_text(failed_at)} first"))
        result = computed[path]
        evaluated = reason is None
        note, node_error = "", None
        if result.error is not None and not result.inherited:
            node_error = _error_text(result.error, row)
        if evaluated:
            value = result.value
            if result.error is not None:
                note = ("fails: " + node_error) if node_error else "not computed: an argument failed"
            elif value is not None and not value.is_valid:
                note = null_note(node, path, computed)
        else:
            value = None
            form_path, why_not = reason
            note = why_not
            if root is not None and root != path:
                note = f"not evaluated: inside {path_text(root)}, which the row did not reach"
            if node_error and form_path is not None:
                form = by_path[form_path]
                note = f"would raise {node_error} here; {form.name} did not run it for this row"
        branch = None
        if node.is_call and node.function is not None and \
                node.function.kind is FunctionKind.SPECIAL_FORM and evaluated and mode == "lazy":
            branch = ", ".join(taken.get(path, ())) or _no_branch(node)
        stories.append(NodeStory(path, texts[path], _label(node), value, evaluated,
                                 branch, note, node_error, False, depth))
    value = None if error is not None else computed[()].value
    spared = tuple(s.note for s in stories if not s.evaluated and s.note.startswith("would raise"))
    deciders = Deciders(tree, nodes, computed, {s.path for s in stories if s.evaluated})
    why, decided = explain_why(deciders, value, error, event, spared, row)
    stories = [s if s.path not in decided else _with_decided(s) for s in stories]
    root = stories[0]
    if root.branch and error is None and not why.startswith("the result is false") \
            and not why.startswith("the result is null"):
        why = why.replace(f"the result is {value_text(value)}",
                          f"the result is {value_text(value)}: {root.label} took {root.branch}", 1)
    inputs = _inputs(written, batch)
    return RowStory(row=row, mode=mode, expression=expression_text(written),
                    evaluated_expression=expression_text(tree), value=value, inputs=inputs,
                    nodes=tuple(stories), why=why,
                    error=None if error is None else _error_text(error, row),
                    spared=spared, changes=_changes(recorder.passes),
                    num_rows=picked.num_rows if picked else batch.num_rows,
                    source=picked.source if picked else "record batch")


def _error_text(error: Exception, row: int) -> str:
    """The error's first line, its row the data's row (the one-row batch calls it row 0)."""
    text = str(error).splitlines()[0]
    return visible(re.sub(r"\bat row 0\b", f"at row {row:,}", text))


def _no_branch(node: Expression) -> str:
    if node.name in ("and_kleene", "or_kleene"):
        return "left only"
    if node.name == "if_else":
        return "none (the condition is null)"
    return "none"


def _ran(nodes, stats) -> set:
    """The nodes the traced run computed, or computed below (a case_when's conditions
    struct is never computed whole: each condition runs as its own branch)."""
    ran = set()
    for path, node, _ in reversed(nodes):
        if path in stats or any(path.child(i) in ran for i in range(len(node.args))
                                if node.is_call):
            ran.add(path)
    return ran


_SMALL_SUBTREE = 64  # nodes: a subtree this small is written whole
_ARG_CHARS = 40  # each argument of a bigger node's text is cut to this many characters


def _node_texts(nodes) -> dict:
    """Each node's text: whole for a small subtree, else its call over its arguments' cut
    texts, so a 10,000-deep tree costs linear time (not one whole subtree per node)."""
    sizes: dict = {}
    texts: dict = {}
    for path, node, _ in reversed(nodes):
        size = 1 + sum(sizes[path.child(i)] for i in range(len(node.args))) if node.is_call \
            else 1
        sizes[path] = size
        if size <= _SMALL_SUBTREE:
            texts[path] = expression_text(node)
        else:
            args = [texts[path.child(i)] for i in range(len(node.args[:8]))]
            args = [a if len(a) <= _ARG_CHARS else a[: _ARG_CHARS - 1] + "…" for a in args]
            more = ", …" if len(node.args) > 8 else ""
            texts[path] = f"{node.name}({', '.join(args)}{more})"
    return texts


def _with_decided(story: NodeStory) -> NodeStory:
    return NodeStory(story.path, story.expression, story.label, story.value, story.evaluated,
                     story.branch, story.note, story.error, True, story.depth)


def _label(node: Expression) -> str:
    if node.is_call:
        return node.name
    return visible(str(node))


def _walk(tree: Expression, root) -> list[tuple]:
    """(path, node, depth) of every node, parents first (an explicit stack: deep trees work).

    Paths are `TreePath`s of the traced run's table (`root`), so extending, hashing and
    comparing one costs O(1) at any depth, and they equal the trace's own paths."""
    out, stack = [], [(root, tree)]
    while stack:
        path, node = stack.pop()
        out.append((path, node, len(path)))
        if node.is_call:
            for i in range(len(node.args) - 1, -1, -1):
                stack.append((path.child(i), node.args[i]))
    return out


def _compute(nodes, batch: pa.RecordBatch, mode: str) -> dict[tuple, _Computed]:
    """Every node's value on the one-row batch, children first.

    A call runs with its arguments' values put in as literals (its own kernel, once),
    so the work is linear in the tree. An argument that failed stays as its subtree:
    a lazy special form may not need it, an ordinary call fails with it.
    """
    out: dict[tuple, _Computed] = {}
    for path, node, _ in reversed(nodes):
        if node.kind == "literal":
            out[path] = _Computed(node.value if isinstance(node.value, pa.Scalar) else None)
            continue
        if node.kind == "field":
            out[path] = _run(node, batch, mode)
            continue
        kids = [out[path.child(i)] for i in range(len(node.args))]
        special = node.function is not None and node.function.kind is FunctionKind.SPECIAL_FORM
        if not (special and mode == "lazy"):
            failed = next((k for k in kids if k.error is not None), None)
            if failed is not None:
                out[path] = _Computed(None, failed.error, True)
                continue
        if not special:
            direct = _kernel_value(node, kids)
            if direct is not None:
                out[path] = direct
                continue
        args = [_as_argument(arg, kid, path.child(i), out)
                for i, (arg, kid) in enumerate(zip(node.args, kids))]
        out[path] = _run(node.with_args(args), batch, mode)
    return out


def _kernel_value(node: Expression, kids: list[_Computed]) -> _Computed | None:
    """An ordinary bound call's value from its arguments' values, by its own kernel, as
    evaluation runs it on literal arguments (without preparing a one-node tree for each
    node of a deep tree); None when it does not succeed plainly, so that evaluation gives
    the error, with its node and row, in the same words as ever."""
    fn = node.function
    values = [k.value for k in kids]
    if fn is None or not all(isinstance(v, pa.Scalar) for v in values):
        return None
    try:
        value = fn.execute(fn, values, fn.default_options if node.options is None
                           else node.options, node.kernel)
    except Exception:  # noqa: BLE001 - the slow path raises it again, as the user sees it
        return None
    if not isinstance(value, pa.Scalar) or value.type != node.type:
        return None
    return _Computed(value)


def _as_argument(arg: Expression, kid: _Computed, path, out) -> Expression:
    if arg.kind != "call":
        return arg
    if arg.name == "make_struct" and kid.error is not None:
        # case_when's conditions: each as its value, a failing one as itself
        return arg.with_args([_as_argument(a, out[path.child(j)], path.child(j), out)
                              for j, a in enumerate(arg.args)])
    if kid.error is not None or kid.value is None:
        return arg
    return Literal(kid.value)


def _run(expr: Expression, batch: pa.RecordBatch, mode: str) -> _Computed:
    try:
        value = evaluate(expr, batch, mode=mode, simplify=False)
    except KernelError as exc:
        return _Computed(None, exc)
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        value = value[0]
    return _Computed(value)


def _skipped_subtrees(event, nodes, mode) -> dict[tuple, tuple[tuple, str]]:
    """{root path of a subtree the row never reached: (its form's path, why)}."""
    if mode != "lazy":
        return {}
    by_form: dict[tuple, list] = {}
    for b in event.branches:
        by_form.setdefault(b.path, []).append(b)
    tree = {p: n for p, n, _ in nodes}
    out = {}
    for form_path, branches in by_form.items():
        taken = [b.branch for b in branches if b.count]
        for b in branches:
            if b.count:
                continue
            child = _branch_child(form_path, b, tree)
            if child is not None and child in tree:
                out[child] = (form_path, _skip_reason(tree[form_path], b.branch, taken))
    return out


def _branch_child(form_path, branch, tree):
    """The root of the subtree a branch's selection ran, or None: a case_when's `when k`
    over one computed struct reads a field of a struct computed for every row."""
    form = tree[form_path]
    child = branch_target(form, branch, form=form)
    if branch.branch.startswith("when ") and child == form_path.child(0):
        return None
    return child


def _taken_branches(event) -> dict[tuple, list[str]]:
    out: dict[tuple, list[str]] = {}
    for b in event.branches:
        if b.count and not b.branch.startswith("when "):
            out.setdefault(b.path, []).append(b.branch)
    return out


def _skip_reason(form: Expression, branch: str, taken: list[str]) -> str:
    name = form.name
    took = " and ".join(t for t in taken if not t.startswith("when ")) or "no branch"
    if name == "and_kleene":
        return "not evaluated: the left term is false, so `and` is false without it"
    if name == "or_kleene":
        return "not evaluated: the left term is true, so `or` is true without it"
    if name == "coalesce":
        return f"not evaluated: coalesce took {took}, the first non-null argument"
    if name == "if_else":
        if not taken:
            return "not evaluated: the condition is null, so if_else is null and runs no branch"
        return f"not evaluated: if_else took {took} for this row"
    if name == "case_when" and branch.startswith("when "):
        return f"not evaluated: an earlier condition was true (case_when took {took})"
    return f"not evaluated: {name} took {took} for this row"


def _skip_roots(nodes, skipped: dict) -> dict[tuple, tuple | None]:
    """{path: the outermost skipped subtree it lies in, or None}, parents first (linear)."""
    out: dict[tuple, tuple | None] = {}
    for path, _, _ in nodes:
        above = out.get(path.parent) if path else None
        out[path] = above if above is not None else (path if path in skipped else None)
    return out


def _inputs(written: Expression, batch: pa.RecordBatch) -> dict[str, pa.Scalar]:
    out = {}
    stack = [written]
    while stack:
        node = stack.pop()
        if node.kind == "field":
            key = visible(str(node))
            if key not in out:
                out[key] = _run(node, batch, "lazy").value
        elif node.kind == "call":
            stack.extend(node.args)
    return dict(sorted(out.items()))


def _changes(passes) -> tuple[TreeChange, ...]:
    out = []
    for event in passes:
        for r in getattr(event, "rewrites", ()):
            out.append(TreeChange(event.name, r.rule, visible(r.reason or ""), tuple(r.path or ()),
                                  expression_text(r.before), expression_text(r.after)))
    return tuple(out)


