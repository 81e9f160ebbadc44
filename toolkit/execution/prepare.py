"""`prepare(expr, schema)`: everything evaluating a tree needs to know, before its first kernel.

As Arrow's expressions are run (Bind, then SimplifyWithGuarantee(true), then
ExecuteScalarExpression), a tree is bound to the data's schema and simplified
(canonicalized, constants folded), and every fact evaluation and tracing read is
computed: the fields it reads, the morsel size its widest intermediate calls for, the
array literal it must not hold, the density facts of every node (what can fail, what is
cheap; `dense_path.DensityFacts`) and how each case_when runs
(`forms.case_when.CaseWhenMethod`). All of it happens in one post-order walk of the tree
as given (`_PreparingWalk`): each node is bound over its bound arguments, simplified over
their simplified trees (`passes.bottom_up_simplifier`, node for node the tree
canonicalize then fold_constants give) and its facts computed from theirs. The answer is
one immutable `PreparedTree`.

Prepared trees are remembered, keyed by what they depend on: the schema (a few
per tree), whether to simplify, and the tree: its structure for an unbound tree (so a second
`evaluate(parse(text), table)` prepares nothing), the very object for a bound one
(binding fixed its kernels; two bound trees alike in structure may differ in types).
A traced evaluation simplifies by running the passes themselves, so its trace shows the
simplification as a pass with every rule that fired; a tree prepared while someone
listened keeps the pass events it reported (`simplify_steps`), and a traced evaluation
that finds it reports that event again instead of preparing afresh.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

import pyarrow as pa

from ..errors import EvaluationError
from ..functions.bind import Binder
from ..model.expression import Expression, Parameter, postorder
from ..model.visit import modify_expression
from ..observe import Observer, active_observers, notify
from ..observe import observing as observing_also
from ..passes.bottom_up_simplifier import BottomUpSimplifier
from ..passes.canonicalize import canonicalize
from ..passes.common_conjuncts import CONJUNCTION_OF, has_or_of_ands, taken_out_of_ors
from ..passes.fold_constants import fold_constants
from ..passes.framework import run_as_pass
from ..rewrite.positions import TreePositions
from ..support.bounded_cache import BoundedCache
from ..support.gc_pause import gc_paused
from ..support.visible_text import visible
from .dense_path import DensityFacts, DensityFactsBuilder
from .forms.case_when import CaseWhenMethod, case_when_method
from .fusion import Fusion, fusion_of
from .morsel_size import call_width, rows_for_width
from .thread_choice import ThreadChoice

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
    # nodes the walk computed facts for that `expr` does not hold (the tree as bound when
    # the simplified one runs, or the other way round; subtrees a fold dropped), held so
    # that no node made later takes one of their ids while these facts are read
    held: tuple = ()
    # the positions of `expr`'s nodes that traced evaluations numbered (their statistics
    # are kept by position id): numbered once for every evaluation of this tree
    positions: TreePositions = dataclasses.field(default_factory=TreePositions, compare=False)
    # position id -> the label its NodeStats shows (a field's or a literal's text)
    labels: dict = dataclasses.field(default_factory=dict, compare=False)
    # the top-level data columns the tree reads, in the schema's order (None: not known,
    # take them all): a traced evaluation's sample keeps these columns only
    read_columns: tuple[int, ...] | None = None
    # every call is pure: the value at a row depends on that row alone, so any rows of
    # it can be computed again from the same rows of the columns (not with `random`)
    pure: bool = True
    # whether its large evaluations run faster on the pool's threads or in the caller's
    # (measured by its evaluations)
    threads: ThreadChoice = dataclasses.field(default_factory=ThreadChoice, compare=False)


def prepare(expr: Expression, schema: pa.Schema, *, simplify: bool = True,
            observer=None) -> PreparedTree:
    """`expr` bound to `schema` and simplified (unless `simplify=False`), with its facts.

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
    if observing:
        walked = _traced(expr, schema, simplify, observer)
    else:
        walked = _PreparingWalk(schema, bind=not given_bound, simplify=simplify).run(expr)
        if simplify and walked.or_of_ands:
            walked = _common_conjuncts_out(walked, schema, None)
    if walked.array_literal is not None:
        _refuse_array_literal(walked.array_literal)
    prepared = walked.prepared
    if given_bound:
        moved = _moved_fields(walked.fields, schema)
        if moved:
            followed = _follow_names(prepared.expr, moved, schema)
            again = _PreparingWalk(schema, bind=False, simplify=False).run(followed)
            prepared = dataclasses.replace(again.prepared, reads_fields=prepared.reads_fields)
    if walked.simplify_steps is not None:
        prepared = dataclasses.replace(prepared, simplify_steps=walked.simplify_steps)
    _remember(key, prepared)
    return prepared


class _PassEvents(Observer):
    """The pass events reported while a tree is simplified, kept with the prepared tree."""

    def __init__(self):
        self.events: list = []

    def on_pass(self, event) -> None:
        self.events.append(event)


class _Walked(NamedTuple):
    """What one preparing walk found."""

    prepared: PreparedTree
    fields: list[Parameter]  # the distinct fields the tree as bound reads
    array_literal: Expression | None  # one the tree that runs holds (evaluation refuses it)
    simplify_steps: tuple | None = None  # the pass events a traced preparation reported
    or_of_ands: bool = False  # the tree as bound holds an `or` with an `and` argument


def _traced(expr: Expression, schema: pa.Schema, simplify: bool, observer) -> _Walked:
    """Prepared for a trace: bound (and its facts), then simplified by the passes as one
    recorded pass, whose tree, when it changed, is walked for its own facts."""
    walked = _PreparingWalk(schema, bind=not expr.is_bound, simplify=False).run(expr)
    if not simplify:
        return walked._replace(simplify_steps=())
    bound = walked.prepared.expr
    heard = _PassEvents()
    with observing_also(heard):
        tree = run_as_pass("simplify_before_evaluation", _folded, bound, observer=observer,
                           report_unchanged=False)
        if walked.or_of_ands:
            tree = run_as_pass("common_conjuncts", taken_out_of_ors, tree, observer=observer,
                               report_unchanged=False)
    steps = tuple(heard.events)
    if tree is bound:
        return walked._replace(simplify_steps=steps)
    return _walked_again(walked, tree, schema)._replace(simplify_steps=steps)


def _common_conjuncts_out(walked: _Walked, schema: pa.Schema, observer) -> _Walked:
    """The tree that runs with the terms every branch of an `or` shares taken out of it
    (`passes.common_conjuncts`: exact, nulls included), walked again for its facts when
    that changed it. Only a tree holding an `or` of `and`s pays for it."""
    tree = walked.prepared.expr
    out = run_as_pass("common_conjuncts", taken_out_of_ors, tree, observer=observer,
                      report_unchanged=False)
    return walked if out is tree else _walked_again(walked, out, schema)


def _top_level_columns(fields) -> tuple[int, ...] | None:
    """The top-level columns bound fields read (a nested field: its outer column), sorted;
    None when a field carries no bound path."""
    columns = set()
    for node in fields:
        path = node.path
        if path is None or not path.indices:
            return None
        columns.add(path.indices[0])
    return tuple(sorted(columns))


def _walked_again(walked: _Walked, tree: Expression, schema: pa.Schema) -> _Walked:
    """The facts of `tree`, a rewrite of the tree `walked` prepared, bound already."""
    again = _PreparingWalk(schema, bind=False, simplify=False).run(tree)
    # what the folded-away part read still counts
    prepared = dataclasses.replace(again.prepared, reads_fields=walked.prepared.reads_fields)
    return _Walked(prepared, walked.fields, again.array_literal, walked.simplify_steps)


class _PreparingWalk:
    """The one walk of a preparation: every node of the tree as given, after its
    arguments, bound (unless the tree is), simplified (if asked) and its facts computed.

    Which tree runs, the bound or the simplified one, is known only when the walk ends
    (the bound one unless a fold fires, as `_folded` decides), while each
    node's facts come from its arguments'. So the walk computes the facts of the bound
    tree until the simplifier first folds something, and from then on those of the
    simplified tree (catching up once on the new nodes made so far); the nodes whose
    facts it put off (bound nodes simplification changed, after that moment) get them
    when the walk ends, in the order the walk met them, only if the bound tree runs.
    """

    __slots__ = ("array_literals", "binder", "density", "impure", "methods", "new_nodes",
                 "or_of_ands", "params", "put_off", "schema", "simplified_facts", "simplifier",
                 "widest")

    def __init__(self, schema: pa.Schema, *, bind: bool, simplify: bool):
        self.schema = schema
        self.binder = Binder(schema) if bind else None
        self.simplifier = BottomUpSimplifier(self._made_by_simplifying) if simplify else None
        self.density = DensityFactsBuilder()
        self.methods: dict[int, CaseWhenMethod] = {}
        self.params: dict = {}  # one per distinct field: a tree may read a column many times
        # id(node) -> bytes per row of the widest call in its subtree (itself included)
        self.widest: dict[int, float] = {}
        # id(node) -> the first array literal of its subtree (only subtrees holding one)
        self.array_literals: dict[int, Expression] = {}
        self.simplified_facts = False  # True once a fold fired: the simplified tree's facts
        self.new_nodes: list[Expression] = []  # made by simplifying before that, facts put off
        self.put_off: list[Expression] = []  # bound nodes simplifying changed, after that
        self.or_of_ands = False  # an `or` with an `and` argument seen: shared terms may come out
        self.impure = False  # an impure call seen (simplifying keeps them all)

    def run(self, expr: Expression) -> _Walked:
        with gc_paused():  # a node or more made per node: see gc_pause.py
            bound = self._walk(expr)
            tree, held = self._tree_that_runs(bound)
        width = max((self.widest[id(a)] for a in tree.args), default=0.0)
        prepared = PreparedTree(expr=tree, schema=self.schema, reads_fields=bool(self.params),
                                rows_per_morsel=rows_for_width(width),
                                density=self.density.done(),
                                case_methods=MappingProxyType(self.methods),
                                fused=fusion_of(tree), held=held,
                                read_columns=_top_level_columns(self.params.values()),
                                pure=not self.impure)
        return _Walked(prepared, list(self.params.values()), self.array_literals.get(id(tree)),
                       or_of_ands=self.or_of_ands)

    def _walk(self, expr: Expression) -> Expression:
        """The tree as bound, every node of it visited."""
        binder = self.binder
        if binder is None:
            for node in postorder(expr):
                self._visit(node)
            return expr
        bound: dict[int, Expression] = {}
        for node in postorder(expr):
            args = [bound[id(a)] for a in node.args]
            out = bound[id(node)] = binder.node(node, args)
            if out is not node and out.is_call and any(
                    made is not arg for made, arg in zip(out.args, args)):
                self._visit_made_by_binding(out, args)
            self._visit(out)
        return bound[id(expr)]

    def _tree_that_runs(self, bound: Expression) -> tuple[Expression, tuple]:
        """The simplified tree when a fold fired, else the tree as bound; and the nodes
        with facts the other one holds."""
        simplifier = self.simplifier
        if simplifier is None:
            return bound, ()
        simplified = simplifier.simplified(bound)  # a chain at the root regroups here
        if simplifier.folded(bound):
            self._to_simplified_facts()
            return simplified, (bound, *simplifier.dropped)
        for node in self.put_off:
            self._add_facts(node)
        return bound, (simplified, *simplifier.dropped)

    def _visit(self, node: Expression) -> None:
        """One node of the tree as bound, after its arguments."""
        if node.kind == "field":
            self.params.setdefault((node.ref, node.path), node)
        elif node.is_call and node.name in CONJUNCTION_OF and not self.or_of_ands:
            self.or_of_ands = has_or_of_ands(node)
        if node.is_call and node.function is not None and not node.function.pure:
            self.impure = True
        simplifier = self.simplifier
        if simplifier is None:
            self._add_facts(node)
            return
        if node.is_call:
            simplifier.visit(node)
            if simplifier.fired and not self.simplified_facts:
                self._to_simplified_facts()
        if not self.simplified_facts or simplifier.unchanged(node):
            self._add_facts(node)
        else:
            self.put_off.append(node)

    def _made_by_simplifying(self, node: Expression) -> None:
        if self.simplified_facts:
            self._add_facts(node)
        else:
            self.new_nodes.append(node)

    def _to_simplified_facts(self) -> None:
        """From now on the facts of the simplified tree, first those of its nodes so far."""
        self.simplified_facts = True
        for node in self.new_nodes:
            self._add_facts(node)
        self.new_nodes = []

    def _visit_made_by_binding(self, out: Expression, args: list[Expression]) -> None:
        """The nodes binding made for `out` (an implicit cast over a bound argument, a
        re-typed literal), each after its arguments; `args` were visited."""
        visited = {id(a) for a in args}
        stack = [(made, False) for made in reversed(out.args) if id(made) not in visited]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                visited.add(id(node))
                self._visit(node)
            elif id(node) not in visited:
                stack.append((node, True))
                stack.extend((a, False) for a in reversed(node.args) if id(a) not in visited)

    def _add_facts(self, node: Expression) -> None:
        """The facts of `node` (once per node), from its arguments'."""
        key = id(node)
        widest = self.widest
        if key in widest:
            return
        self.density.visit(node)
        if not node.is_call:
            widest[key] = 0.0
            if node.kind == "literal" and isinstance(node.value, pa.Array):
                self.array_literals[key] = node
            return
        width = call_width(node)
        array_literal = None
        for arg in node.args:
            below = widest[id(arg)]
            width = max(width, below)
            if array_literal is None:
                array_literal = self.array_literals.get(id(arg))
        widest[key] = width
        if array_literal is not None:
            self.array_literals[key] = array_literal
        if node.name == "case_when":
            self.methods[key] = case_when_method(node, self.density)


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
        return not self.bound and self.expr.equals(other.expr) \
            and _same_zeros(self.expr, other.expr)


def _same_zeros(a: Expression, b: Expression) -> bool:
    """Two equal trees' float literals have the same signs: -0.0 and 0.0 are equal
    literals (as Arrow compares them), but a prepared tree computes with its own (a
    sum with -0.0 gives -0.0, with 0.0 gives 0.0)."""
    stack = [(a, b)]  # side by side (not a walk of the tree: one is made per preparation)
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if x.is_call:
            stack.extend(zip(x.args, y.args))
        elif x.is_literal and isinstance(x.value, pa.Scalar) and x.value.is_valid \
                and pa.types.is_floating(x.value.type) and x.value.as_py() == 0 \
                and math.copysign(1.0, x.value.as_py()) != math.copysign(1.0, y.value.as_py()):
            return False
    return True


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
