"""Terminal pictures: box-drawing trees, with ANSI color only when the terminal has it.

The same trees as the DOT views, as text: a pass marks what changed (`~`),
what was added (`+`) and removed (`-`) with the rules that fired; an
evaluation shows rows per node and each branch's selection as a strip
(`▕·██·█▏`, or a density bar for large batches). User text is passed through
`labels.visible`, so a field name cannot smuggle terminal escape codes.
Deep trees stop indenting at `INDENT_CAP` levels (fewer in a narrow terminal) and say
the depth instead,
so a 10,000-deep chain prints in linear space; nothing recurses.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from dataclasses import dataclass
from functools import singledispatch

import pyarrow.compute as pc

from ..errors import UsageError
from ..explain import RowJourney, RowStories, RowStory, WhyNot
from ..model.expression import Expression, from_pyarrow, postorder
from ..observe import EvalEvent, InvariantCheck, PassEvent, PlanRuleEvent
from ..rewrite.positions import TreePositions
from ..scan import ScanExplanation
from ..tracing.catalyst_steps import CatalystStep, CatalystSteps
from ..tracing.plan_shape import (
    changed_positions,
    is_plan,
    plan_label,
    plan_nodes,
    plan_schema_text,
)
from ..tracing.recorded_error import error_facts
from ..tracing.steps import branch_target, step_title
from ..tracing.tracer import Trace
from .branch_table import NULL_BECAUSE, NullRows, folded_rows
from .catalyst_text import catalyst_lines, catalyst_step_lines
from .labels import (
    CONDITIONS_RAN,
    arg_role,
    bounded_text,
    conditions_ran,
    node_detail,
    node_title,
    path_text,
    rows_lines,
    shorten,
    type_text,
    visible,
)
from .row_journey import journey_lines, why_not_lines
from .row_story_text import stories_lines, story_lines
from .scan_text import scan_lines
from .selection_strip import DENSITY_CELLS, strip_of
from .tree_diff import diff_pass
from .wide_nodes import (
    AUTO_DEPTH,
    TreeWindow,
    chain_fold_title,
    chain_place,
    depth_fold_title,
    focus_text,
    fold_noun,
    fold_range_text,
    shown_args,
    span_text,
    subtree_sizes,
)

__all__ = ["DEFAULT_WIDTH", "INDENT_CAP", "display_width", "fit_line", "strip_text", "to_text",
           "wants_color"]

INDENT_CAP = 24
DEFAULT_WIDTH = 100  # columns of a line, unless the caller knows its terminal's
MIN_WIDTH = 40
MAX_REWRITE_LINES = 40  # a pass with more rewrites lists these, then every rule once
_DENSITY = "▁▂▃▄▅▆▇█"
_ANSI = {"changed": "33", "added": "32", "removed": "31", "moved": "36", "kept": "33",
         "error": "1;31", "dim": "2",
         "strip": "34", "rule": "35", "title": "1", "pass": "32", "fail": "1;31"}


def wants_color(stream=None) -> bool:
    """Color when writing to a terminal, unless NO_COLOR is set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class _Paint:
    """Colors text when asked, and carries how many cells a strip or a bar may take."""

    def __init__(self, color: bool, width: int = DEFAULT_WIDTH):
        self.color = color
        self.width = width
        self.cells = strip_cells(width)
        self.indent_cap = max(4, min(INDENT_CAP, width // 8))  # a deep tree's indent: <= 1/2

    def __call__(self, text: str, what: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{_ANSI[what]}m{text}\x1b[0m"


def to_text(obj, *, color: bool | None = None, stream=None, limit: int = 50,
            width: int | None = None, focus=(), depth: int | str | None = AUTO_DEPTH) -> str:
    """The picture as text; `color=None` colors only when `stream` (stdout) is a terminal.

    `limit`: how many files a scan explanation lists (the rest are counted).
    `width`: no line is wider than this many columns (None: 100); strips and bars
    take a share of it, and a line that would still be wider is cut with `…`.
    `focus`: print only the subtree at that path (a tuple, or text such as "1/0"), or
    a range of its node's arguments ("5-248"): what a folded line says opens it.
    `depth`: how many levels of a tree are printed, each subtree below one line naming
    the focus that opens it; by default (`"auto"`) a tree deeper than the pictures'
    `FOLD_DEPTH` prints its top `OPEN_DEPTH` levels, as the SVG draws it; None: every
    level.
    """
    width = DEFAULT_WIDTH if width is None else width
    if not isinstance(width, int) or width < MIN_WIDTH:
        raise UsageError(f"to_text needs a width of at least {MIN_WIDTH} columns, not {width!r}")
    paint = _Paint(wants_color(stream) if color is None else color, width)
    if isinstance(obj, ScanExplanation):
        lines = scan_lines(obj, paint, limit)
    else:
        lines = _lines(obj, paint, TreeWindow.of(focus, depth))
    return "\n".join(part for line in lines for part in fit_line(line, width))


def strip_cells(width: int) -> int:
    """Cells of a branch strip at a terminal width: 40 at 100 columns, 64 from 160 on."""
    return max(16, min(64, width * 2 // 5))


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: color codes take none, wide characters two."""
    plain = _ESCAPE.sub("", text)
    if plain.isascii():
        return len(plain)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in plain)


def fit_line(line: str, width: int) -> list[str]:
    """`line` as lines of at most `width` columns (its colors dropped then), each
    continuation indented under the tree's lines. It breaks between phrases first (the
    pieces between ` · ` or a double space), so `used on 3,373` stays whole, then between
    words of a phrase too wide for a line of its own; a word wider than the room left is
    cut with `…`."""
    if len(line) <= width and line.isascii() or display_width(line) <= width:
        return [line]
    plain = _ESCAPE.sub("", line)
    body = plain.lstrip(_TREE_CHARS)
    lead = plain[: len(plain) - len(body)]
    indent = lead.replace("├── ", "│   ").replace("└── ", "    ").replace("─", " ") + "  "
    # a tree indents at most half the width (to_text's cap) past a step's two columns, so
    # its lines go on under a wrapped line up to there; deeper ones start at the left
    if display_width(indent) > width // 2 + 4:
        indent = "  "
    out, current = [], lead
    for joint, phrase in _phrases(body):
        # the room of the line the phrase starts: the rest of the lead's, or a new one
        room = width - display_width(current if current in (lead, indent) else indent)
        pieces = [phrase] if display_width(phrase) <= room else phrase.split(" ")
        for k, piece in enumerate(pieces):
            glue = joint if k == 0 else " "
            candidate = piece if current in (lead, indent) else glue + piece
            if display_width(candidate) <= width - display_width(current):
                current += candidate
                continue
            if current not in (lead, indent):
                out.append(current.rstrip())
                current = indent
            room = width - display_width(current)
            current += piece if display_width(piece) <= room else _cut(piece, room)
    out.append(current)
    return out


_PHRASE_BREAK = re.compile(r"( · |  +)")


def _phrases(body: str) -> list[tuple[str, str]]:
    """[(the separator before it, phrase)] of `body`, split at ` · ` and runs of spaces."""
    parts = _PHRASE_BREAK.split(body)
    return [("", parts[0])] + [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


_TREE_CHARS = " │├└─"


def _cut(text: str, room: int) -> str:
    """`text` cut with `…` to `room` columns."""
    out, used = [], 0
    for c in text:
        w = 2 if unicodedata.east_asian_width(c) in "WF" else 1
        if used + w > room - 1:
            break
        out.append(c)
        used += w
    return "".join(out) + "…"


def strip_text(rows, total: int, cells: int = DENSITY_CELLS) -> str:
    """`▕·██·█▏` (a cell per row, up to `cells` rows) or a density bar for more."""
    strip = strip_of(rows, total, cells)
    if strip.per_row:
        marks = "".join("█" if c else "·" for c in strip.cells)
    else:
        marks = "".join("·" if c == 0 else _DENSITY[min(7, int(c * 8))] for c in strip.cells)
    return f"▕{marks}▏ {strip.caption}"


_AUTO_WINDOW = TreeWindow(depth=AUTO_DEPTH)  # the whole tree, a deep one folded (`wide_nodes`)


def _lines(obj, paint, window: TreeWindow = _AUTO_WINDOW) -> list[str]:
    return _printing(obj, paint, window)


@singledispatch
def _printing(obj, paint, window: TreeWindow) -> list[str]:
    """The lines of `obj`: one registered function per kind of thing printed; a plan is
    any object that looks like one (live or loaded from a trace)."""
    if not is_plan(obj):
        raise UsageError(f"exprscope cannot draw a {type(obj).__name__}: give an Expression, "
                         "a Trace, one of its steps, or a plan")
    return _plan_lines(obj, paint)


@_printing.register
def _(obj: pc.Expression, paint, window) -> list[str]:  # the user's own pyarrow expression
    return _printing(from_pyarrow(obj), paint, window)


@_printing.register
def _(obj: Trace, paint, window) -> list[str]:
    return _trace_lines(obj, paint, window.depth)


@_printing.register
def _(obj: RowStory, paint, window) -> list[str]:
    return story_lines(obj, paint)


@_printing.register
def _(obj: RowStories, paint, window) -> list[str]:
    return stories_lines(obj, paint)


@_printing.register
def _(obj: RowJourney, paint, window) -> list[str]:
    return journey_lines(obj, paint)


@_printing.register
def _(obj: WhyNot, paint, window) -> list[str]:
    return why_not_lines(obj, paint)


@_printing.register
def _(obj: PassEvent, paint, window) -> list[str]:
    return _pass_lines(obj, paint, window)


@_printing.register
def _(obj: EvalEvent, paint, window) -> list[str]:
    return _eval_lines(obj, paint, window)


@_printing.register
def _(obj: InvariantCheck, paint, window) -> list[str]:
    return _invariant_lines(obj, paint)


@_printing.register
def _(obj: PlanRuleEvent, paint, window) -> list[str]:
    return _plan_rule_lines(obj, paint)


@_printing.register
def _(obj: CatalystSteps, paint, window) -> list[str]:
    return catalyst_lines(obj, paint)


@_printing.register
def _(obj: CatalystStep, paint, window) -> list[str]:
    return catalyst_step_lines(obj, paint)


@_printing.register
def _(obj: Expression, paint, window) -> list[str]:
    return _tree_lines(obj, lambda path, node: _describe(node, paint), _role_lead,
                       indent_cap=paint.indent_cap, window=window)


# -- trees ------------------------------------------------------------------------
def _describe(node: Expression, paint) -> str:
    text = visible(shorten(node_title(node), 80))
    detail = node_detail(node)
    if detail:
        text += " " + paint(visible(shorten(detail, 60)), "dim")
    t = type_text(node)
    if t:
        text += paint(f": {visible(shorten(t, 60))}", "dim")  # a 170-field struct is 1,800
    return text


@dataclass(frozen=True)
class _Folded:
    """A wide node's middle arguments `first` to `last`, printed as one line."""

    node: Expression
    parent: Expression | None  # the node's own parent: it names a conditions struct
    first: int
    last: int


def _size(node: Expression) -> int:
    """Nodes in the subtree at `node` (a shared subtree counted where it is used)."""
    sizes: dict[int, int] = {}
    for n in postorder(node):
        sizes[id(n)] = 1 + sum(sizes[id(a)] for a in n.args)
    return sizes[id(node)]


def _tree_lines(root: Expression, describe, lead, extra=None, root_path=None,
                indent_cap: int = INDENT_CAP, window: TreeWindow = _AUTO_WINDOW,
                fold_rows=None) -> list[str]:
    """Box-drawing lines, pre-order, with an explicit stack.

    `describe(path, node)` is a node's text, `lead(path, node, parent)` what goes
    before it (a role, a strip), `extra(path, node)` lines printed under it.
    Paths are `TreePath`s grown from `root_path` (constant cost per node at any
    depth); without one they grow in a table of their own. Only the window's
    subtree is printed, and a wide node prints its first and last arguments and
    one line for the rest (as the pictures draw it, `wide_nodes`): what they are,
    the rows they got (`fold_rows(path, node, indices)`, None: not counted), and the
    focus that opens them. A long and/or chain prints the links the pictures draw and
    one line for the rest, at the same link (`wide_nodes.chain_place`). A subtree below
    the window's depth (a deep tree's, by default) prints as one line: its size and the
    focus that opens it, and a last line says how the tree was cut.
    """
    start = window.start(root)
    sizes = levels = None
    if window.depth is not None:
        sizes, levels = subtree_sizes(start)
        window = window.resolved(levels[id(start)])
    path = root_path if root_path is not None else TreePositions().root
    for i in window.focus:
        path = path.child(i)
    lines: list[str] = []
    stack = [(path, 0, start, None, "", True, 0)]
    while stack:
        path, depth, node, parent, prefix, last, links = stack.pop()
        if depth == 0:
            branch, child_prefix = "", ""
        else:
            branch = "└── " if last else "├── "
            child_prefix = prefix + ("    " if last else "│   ")
            if depth > indent_cap:
                child_prefix = prefix  # stop growing: say the depth instead
                branch = f"⋯[depth {depth}] " + branch
        if isinstance(node, _Folded):
            lines.append(f"{prefix}{branch}{_folded_line(path, node, fold_rows)}")
            continue
        place = chain_place(node, parent[0] if parent else None, parent[1] if parent else 0,
                            links)
        fold_title = None  # a subtree below the depth, or the rest of a long and/or chain
        if window.depth is not None and depth > window.depth and node.args:
            fold_title = depth_fold_title(node, sizes[id(node)], levels[id(node)])
        elif place.folded:
            fold_title = chain_fold_title(node, place.folded, _size(node))
        before = lead(path, node, parent)
        text = describe(path, node) if fold_title is None else \
            f'{fold_title} · open: focus="{focus_text(tuple(path))}"'
        if callable(before):  # a lead that fits itself in the room the line leaves it
            before = before(display_width(prefix + branch + text))
        lines.append(f"{prefix}{branch}{before}{text}")
        if fold_title is not None:  # one line for all of it
            continue
        for line in (extra(path, node) if extra else ()):
            lines.append(f"{child_prefix}{line}")
        shown = shown_args(node, window.span if depth == 0 else None)
        for k in range(len(shown) - 1, -1, -1):
            item, is_last = shown[k], k == len(shown) - 1
            if isinstance(item, tuple):  # the folded middle, under its node's own path
                folded = _Folded(node, parent[0] if parent else None, *item)
                stack.append((path, depth + 1, folded, parent, child_prefix, is_last, 0))
            else:
                stack.append((path.child(item), depth + 1, node.args[item], (node, item),
                              child_prefix, is_last, place.links))
    if window.levels is not None:  # folded by default, the tree being this deep
        lines.append(f"({window.levels:,} levels deep: its top {window.depth} levels printed, "
                     'the rest folded (▸); a line opens with focus="<the path it names>", '
                     "every level with depth=None)")
    return lines


def _folded_line(path, folded: _Folded, fold_rows) -> str:
    """`⋯ 244 more branches: 51,051 rows · then 4 – then 247 · open: focus="5-248"`."""
    node, first, last = folded.node, folded.first, folded.last
    text = f"⋯ {last - first + 1:,} more {fold_noun(node, folded.parent)}"
    rows = fold_rows(path, node, range(first, last + 1)) if fold_rows is not None else None
    if rows is not None:
        text += f": {rows:,} rows"
    text += f" · {visible(fold_range_text(node, folded.parent, first, last))}"
    return text + f' · open: focus="{span_text(tuple(path), first, last)}"'


def _role_lead(path, node, parent) -> str:
    if parent is None:
        return ""
    role = arg_role(*parent)
    return f"{visible(role)}: " if role else ""


# -- steps ------------------------------------------------------------------------
def _pass_lines(event: PassEvent, paint, window: TreeWindow = _AUTO_WINDOW) -> list[str]:
    diff = diff_pass(event)
    lines = [paint(visible(step_title(event)), "title")]
    shown = event.rewrites[:MAX_REWRITE_LINES]
    for r in shown:
        where = "at " + path_text(r.path)
        lines.append(f"  {paint('⟲ ' + visible(r.rule), 'rule')} {where}: {visible(r.reason)}")
    if len(event.rewrites) > len(shown):
        lines.append(paint(f"  … {len(event.rewrites) - len(shown):,} more rewrites; every rule "
                           f"that fired: {visible(diff.rules_summary())}", "dim"))
    root = event.after if isinstance(event.after, Expression) else event.before
    if root is None:
        return lines
    marks = {"changed": "~ ", "added": "+ ", "moved": "↔ ", "kept": "^ "}

    def describe(path, node):
        status = diff.status_of(node)
        text = _describe(node, paint)
        if status in marks:
            text = paint(marks[status], status) + text
            rules = diff.rules_of(node)
            if rules:
                text += " " + paint("[" + ", ".join(visible(x) for x in rules) + "]", "rule")
            was = diff.was_text(node)
            if status == "moved":
                text += paint(" (moved from another position)", "dim")
            elif was is not None:
                text += paint(f" (was {visible(was)})", "dim")
            above = diff.removed_above_of(node)
            if above:
                chain = " ▸ ".join(node_title(n) for n in above[:6])
                more = f" ▸ … {len(above) - 6:,} more" if len(above) > 6 else ""
                text += paint(f" (removed above it: {visible(chain)}{more})", "removed")
        return text

    def extra(path, node):
        if not diff.removed:
            return ()
        return [paint("- removed: " + visible(bounded_text(g, 80, short=True)), "removed")
                for g in diff.removed_under(node)]

    lines += ["  " + line for line in _tree_lines(root, describe, _role_lead, extra,
                                                  indent_cap=paint.indent_cap, window=window)]
    return lines


def _eval_lines(event: EvalEvent, paint, window: TreeWindow = _AUTO_WINDOW) -> list[str]:
    lines = [paint(visible(step_title(event)), "title")]
    facts = error_facts(event.error)
    root = event.expr
    if root is None:
        return lines
    stats = {s.path: s for s in event.nodes}
    failed = event.failed_path()
    unfinished = set(failed.ancestors()) - {failed} if failed is not None else set()
    strips: dict[tuple, list] = {}
    for b in event.branches:
        strips.setdefault(branch_target(root, b), []).append(b)
    nulls = NullRows(event)  # read for the forms printed only
    reasons: dict = {}  # path -> why a node computed more rows than it used
    def lead(path, node, parent):
        if path not in strips:
            return _role_lead(path, node, parent)

        def fitted(used: int) -> str:  # density strips shrink (to 8 cells) to fit the line
            chosen = strips[path]
            fixed = sum(len(visible(b.branch)) + len(f"{b.count:,}{b.total_rows:,}") + 25
                        for b in chosen)  # name, counts, " of ", " rows (40.0%)", brackets
            cells = max(8, min(paint.cells, (paint.width - used - fixed) // len(chosen)))
            if all(b.total_rows <= paint.cells for b in chosen):
                cells = paint.cells  # a cell per row reads better than a shrunk density bar
            return paint("[" + "; ".join(f"{visible(b.branch)} "
                                         f"{strip_text(b.rows, b.total_rows, cells)}"
                                         for b in chosen) + "] ", "strip")
        return fitted

    def describe(path, node):
        text = _describe(node, paint)
        stat = stats.get(path)
        if stat is not None:
            rows = rows_lines(stat, event.num_rows, stats.get(path[:-1]) if path else None)
            text += paint(f" · {visible(rows[0])}", "dim")
            if len(rows) > 1:  # why it computed more rows than it used, that it ran fused:
                reasons[path] = rows[1:]  # each a line of its own
        elif path in unfinished:
            text += paint(" · did not finish", "dim")
        elif conditions_ran(node, path, stats):
            text += paint(f" · {CONDITIONS_RAN}", "dim")
        elif not node.is_literal and failed != path:
            text += paint(" · not evaluated", "dim")
        if failed is not None and failed == path:
            at = f" at row {facts.row}" if facts.row is not None else ""
            text += " " + paint(f"✖ {visible(facts.message)}{'' if at in facts.message else at}",
                                "error")
        return text

    def extra(path, node):
        out = []
        for reason in reasons.pop(path, ()):
            out.append(paint(f"({visible(reason)})", "dim"))
        null = nulls.at(path) if node.is_call and node.name in NULL_BECAUSE else None
        if null is not None and node.args:
            strip = strip_text(null.rows, null.total_rows, paint.cells)
            out.append(f"├── {paint(f'[{null.branch} {strip}]', 'strip')} "
                       + paint(NULL_BECAUSE[node.name], "dim"))
        return out

    def fold_rows(path, node, indices):  # the rows the folded arguments gave values for
        return folded_rows(node, lambda i: strips.get(path.child(i), ()),
                           indices[0], indices[-1])

    tree = _tree_lines(root, describe, lead, extra, root_path=event.root_path(),
                       indent_cap=paint.indent_cap, window=window, fold_rows=fold_rows)
    lines += ["  " + line for line in tree]
    if facts is not None and facts.path is None:
        lines.append("  " + paint(f"✖ {visible(facts.message)}", "error"))
    return lines


def _invariant_lines(check: InvariantCheck, paint) -> list[str]:
    verdict = paint("✔ pass", "pass") if check.passed else paint("✖ FAIL", "fail")
    lines = [f"{verdict} [{visible(check.level)}] {visible(check.name)}",
             f"  subject: {visible(shorten(str(check.subject), 120))}"]
    if check.details:
        lines.append(f"  {visible(check.details)}")
    if not check.passed and (check.expected is not None or check.actual is not None):
        lines.append(f"  expected: {visible(str(check.expected))}")
        lines.append(f"  actual:   {visible(str(check.actual))}")
    return lines


def _plan_lines(plan, paint, changed: set[int] = frozenset()) -> list[str]:
    """A plan's tree, indented up to the terminal's cap (`paint.indent_cap` levels)."""
    rows = plan_nodes(plan)
    lines = []
    # siblings: is each node the last child of its parent?
    last_child: dict[int | None, int] = {}
    for position, (_, _, parent) in enumerate(rows):
        last_child[parent] = position
    prefixes: dict[int, str] = {}
    for position, (depth, node, parent) in enumerate(rows):
        label = visible(shorten(plan_label(node), 100))
        schema = plan_schema_text(node)
        text = label + (paint(f"  [{visible(shorten(schema, 80))}]", "dim") if schema else "")
        if position in changed:
            text = paint("~ ", "changed") + text
        if parent is None:
            lines.append(text)
            prefixes[position] = ""
            continue
        last = last_child[parent] == position
        base = prefixes[parent]
        branch = "└── " if last else "├── "
        if depth > paint.indent_cap:  # stop growing: say the depth instead, as expression trees do
            lines.append(f"{base}⋯[depth {depth}] {branch}{text}")
            prefixes[position] = base
            continue
        lines.append(f"{base}{branch}{text}")
        prefixes[position] = base + ("    " if last else "│   ")
    return lines


def _plan_rule_lines(event: PlanRuleEvent, paint) -> list[str]:
    lines = [paint(visible(step_title(event)), "title")]
    for a in event.applied[:MAX_REWRITE_LINES]:
        where = f"at {path_text(a.path)} (plan after)"
        lines.append(f"  {paint('⟲ ' + visible(a.rule), 'rule')} {where}: {visible(a.reason)}")
    if len(event.applied) > MAX_REWRITE_LINES:
        lines.append(paint(f"  … {len(event.applied) - MAX_REWRITE_LINES:,} more", "dim"))
    sides = (("before", event.before), ("after", event.after)) if event.changed \
        else (("plan", event.after),)
    for side, plan in sides:
        lines.append(f"  {side}:")
        if is_plan(plan):
            changed = changed_positions(event) if side == "after" else set()
            lines += ["    " + line for line in _plan_lines(plan, paint, changed)]
        else:
            lines.append(f"    {visible(str(plan))}")
    return lines


def _trace_lines(t: Trace, paint, depth=AUTO_DEPTH) -> list[str]:
    """Every step, its trees `depth` levels deep; a pass that changed nothing is one line
    (its tree is the one before)."""
    lines = [paint(f"trace: {t.summary()}", "title")]
    for i, step in enumerate(t.steps):
        heading = paint(f"── step {i + 1} of {len(t.steps)} ", "dim")
        if isinstance(step, PassEvent) and not step.changed:
            lines.append(heading + paint(visible(step_title(step)), "dim"))
            continue
        lines.append("")
        lines.append(heading + "─" * 20)
        lines += _lines(step, paint, TreeWindow(depth=depth))
    return lines
