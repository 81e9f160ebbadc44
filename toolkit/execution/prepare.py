"""`prepare(expr, schema)`: everything evaluating a tree needs to know, before its first kernel.

As Arrow's expressions are run (Bind, then SimplifyWithGuarantee(true), then
ExecuteScalarExpression), a tree is bound to the data's schema and simplified
(canonicalized, constants folded), then walked once for every fact evaluation and
tracing read: the fields it reads, the morsel size its widest intermediate calls
for, the array literal it must not hold, the density facts of every node (what can
fail, what is cheap; `dense_path.DensityFacts`), how each case_when runs
(`forms.case_when.CaseWhenMethod`) and which cheap subtrees run fused
(`fusion.FusedGroup`). The answer is one immutable `PreparedTree`.

Prepared trees are remembered, keyed by what they depend on: the schema (a few
per tree), whether to simplify, and the tree: its structure for an unbound tree (so a second
`evaluate(parse(text), table)` prepares nothing), the very object for a bound one
(binding fixed its kernels; two bound trees alike in structure may differ in types).
A traced evaluation shows the simplification: a tree prepared while someone listened
keeps the pass event it reported (`simplify_steps`), and a traced evaluation that finds
it reports that event again instead of preparing afresh.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pyarrow as pa

from ..errors import EvaluationError
from ..functions.bind import bind
from ..model.expression import Expression, Parameter, postorder
from ..model.visit import modify_expression
from ..observe import Observer, active_observers, notify
from ..observe import observing as observing_also
from ..passes.canonicalize import canonicalize
from ..passes.fold_constants import fold_constants
from ..passes.framework import run_as_pass
from ..support.bounded_cache import BoundedCache
from ..support.visible_text import visible
from .dense_path import DensityFacts, DensityFactsBuilder
from .forms.case_when import CaseWhenMethod, case_when_method
from .fusion import Fusion, fusion_of
from .morsel_size import call_width, rows_for_width

__all__ = ["PreparedTree", "prepare"]

CACHE_SIZE = 64  # trees: a notebook's loop or Spark's batches reuse a few at a time


@dataclass(frozen=True)
class PreparedTree:
    """A tree ready to run on data of one schema, and what evaluating it needs to know."""

    expr: Expression  # bound to `schema`, simplified: the tree that runs (held: ids stay valid)
    schema: pa.Schema
    reads_fields: bool  # False: an all-literal tree (as given), one value for every row
    rows_per_morsel: int | None  # None: do not cut the data
    density: DensityFacts
    case_methods: Mapping[int, CaseWhenMethod]  # id(case_when node) -> how it runs
    fused: Fusion  # the cheap subtrees that run as one pass each (`fusion.py`)
    # the pass events simplifying it reported to the observers (None: prepared unobserved)
    simplify_steps: tuple | None = None


def prepare(expr: Expression, schema: pa.Schema, *, simplify: bool = True,
            observer=None) -> PreparedTree:
    """`expr` bound to `schema`, simplified (unless `simplify=False`) and walked once.

    A bound tree is checked against `schema` by name: a column that moved is read where
    it is now; one whose type changed is an EvaluationError naming both.
    """
    observing = bool(active_observers(observer))
    key = (_SameTree(expr), simplify)
    hit = _remembered(key, schema)
    if hit is not None:
        if not observing:
            return hit
        if hit.simplify_steps is not None:  # what simplifying it reported, told again
            for event in hit.simplify_steps:
                notify("on_pass", event, observer)
            return hit
    given_bound = expr.is_bound
    bound = expr if given_bound else bind(expr, schema)
    steps = None
    if simplify and observing:
        heard = _PassEvents()
        with observing_also(heard):
            tree = _simplified(bound, observing, observer)
        steps = tuple(heard.events)
    else:
        tree = _simplified(bound, observing, observer) if simplify else bound
        steps = () if observing else None
    prepared, params = _walk(tree, schema)
    if tree is not bound:  # something folded away: what it read still counts
        params = _fields_read(bound)
        prepared = dataclasses.replace(prepared, reads_fields=bool(params))
    if given_bound:
        moved = _moved_fields(params, schema)
        if moved:
            followed, _ = _walk(_follow_names(prepared.expr, moved, schema), schema)
            prepared = dataclasses.replace(followed, reads_fields=prepared.reads_fields)
    if steps is not None:
        prepared = dataclasses.replace(prepared, simplify_steps=steps)
    _remember(key, prepared)
    return prepared


class _PassEvents(Observer):
    """The pass events reported while a tree is simplified, kept with the prepared tree."""

    def __init__(self):
        self.events: list = []

    def on_pass(self, event) -> None:
        self.events.append(event)


def _walk(tree: Expression, schema: pa.Schema) -> tuple[PreparedTree, list[Parameter]]:
    """The one walk: every fact of every node, each after its children."""
    density = DensityFactsBuilder()
    methods: dict[int, CaseWhenMethod] = {}
    params: dict = {}  # one per distinct field: a tree may read a column many times
    width = 0.0
    array_literal = None
    for node in postorder(tree):
        kind = node.kind
        if kind == "field":
            params.setdefault((node.ref, node.path), node)
        elif kind == "literal":
            if array_literal is None and isinstance(node.value, pa.Array):
                array_literal = node
        else:
            if node is not tree:
                width = max(width, call_width(node))
        density.visit(node)
        if kind == "call" and node.name == "case_when":
            methods[id(node)] = case_when_method(node, density)
    if array_literal is not None:
        _refuse_array_literal(array_literal)
    prepared = PreparedTree(expr=tree, schema=schema, reads_fields=bool(params),
                            rows_per_morsel=rows_for_width(width), density=density.done(),
                            case_methods=MappingProxyType(methods),
                            fused=fusion_of(tree))
    return prepared, list(params.values())


def _fields_read(tree: Expression) -> list[Parameter]:
    """The distinct fields a tree reads (before simplification folded some away)."""
    params: dict = {}
    for node in postorder(tree):
        if node.kind == "field":
            params.setdefault((node.ref, node.path), node)
    return list(params.values())


def _simplified(expr: Expression, observing: bool, observer) -> Expression:
    """SimplifyWithGuarantee(expr, true), as Acero runs it on each batch: a recorded pass
    when someone listens."""
    if observing:
        return run_as_pass("simplify_before_evaluation", _folded, expr, observer=observer,
                           report_unchanged=False)
    return _folded(expr)


def _folded(expr: Expression) -> Expression:
    """Canonicalized and folded (what SimplifyWithGuarantee does under `true`), or `expr`
    itself when nothing folds: a reordering alone changes no value, only the picture."""
    canonical = canonicalize(expr)
    folded = fold_constants(canonical)
    return expr if folded is canonical else folded


class _SameTree:
    """A cache key part: an unbound tree by structure, a bound one by identity (held)."""

    __slots__ = ("bound", "expr", "hash")

    def __init__(self, expr: Expression):
        self.expr = expr
        self.bound = expr.is_bound
        self.hash = hash(expr) if not self.bound else id(expr)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other) -> bool:
        if not isinstance(other, _SameTree) or self.bound != other.bound:
            return False
        if self.expr is other.expr:
            return True
        return not self.bound and self.expr.equals(other.expr)


# (tree, simplify) -> the trees prepared from it, one per schema (the newest first). A
# schema is compared, not hashed: hashing one formats it as text, comparing does not.
_PREPARED = BoundedCache(CACHE_SIZE)
SCHEMAS_PER_TREE = 4


def _remembered(key, schema: pa.Schema) -> PreparedTree | None:
    for prepared in _PREPARED.get(key, ()):
        if prepared.schema is schema or prepared.schema.equals(schema):
            return prepared
    return None


def _remember(key, prepared: PreparedTree) -> None:
    others = _PREPARED.get(key, ())
    _PREPARED.put(key, (prepared, *others[:SCHEMAS_PER_TREE - 1]))


def _refuse_array_literal(node) -> None:
    """An array literal has its own length, not the batch's: evaluating one would pair
    its values with rows by chance (Arrow's expressions do not run them either)."""
    raise EvaluationError(
        f"evaluate: {node} is an array literal ({len(node.value):,} values); an "
        "expression is evaluated row by row, so put the values in a column")


def _moved_fields(params: list[Parameter], schema: pa.Schema) -> dict:
    """ref -> its path in `schema`, for each bound field whose column is elsewhere now."""
    moved = {}
    for param in params:
        if param.path is None:
            continue
        where = _where_now(param, schema)
        if where != param.path:
            moved[param.ref] = where
    return moved


def _where_now(param, schema: pa.Schema):
    """The path `param` names in `schema`: by name for a named ref (never by position alone).

    A bound expression evaluated on data whose columns are in another order must
    read the column it names, not the one now at its old position. The type must
    still be the one it was bound with; otherwise binding again is the user's call.
    """
    by_name = any(leaf.name is not None for leaf in param.ref.leaves())
    found_paths = param.ref.find_all(schema) if by_name else [param.path]
    found = found_paths[0].get(schema) if len(found_paths) == 1 else None
    if found is None or found.type != param.field_type:
        bound = f"{param.field_type} at {param.path.to_string()}"
        if len(found_paths) > 1:
            have = f"{len(found_paths)} fields of that name"
        elif found is None:
            have = "no such field"
        else:
            have = f"it as {found.type} at {found_paths[0].to_string()}"
        fields = ", ".join(f"{visible(f.name)} ({f.type})" for f in list(schema)[:12])
        raise EvaluationError(
            f"evaluate: field {param.to_string(shown=True)} was bound as {bound}, but the data has "
            f"{have} (the data's fields: {fields}); bind the expression to this data's schema")
    return found_paths[0]


def _follow_names(expr: Expression, moved: dict, schema: pa.Schema) -> Expression:
    """`expr` with each moved field reading its column's new position (types are unchanged)."""
    def pre(node):
        if node.kind == "field" and node.ref in moved:
            path = moved[node.ref]
            return Parameter(node.ref, node.field_type, path, path.get(schema).nullable)
        return node

    return modify_expression(expr, pre, lambda new, old: new)
