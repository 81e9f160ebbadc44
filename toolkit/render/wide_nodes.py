"""Which arguments of a wide node a picture draws, and which long chains it cuts short.

A `case_when` with 250 branches drawn whole is a strip tens of thousands of pixels
wide whose labels shrink to nothing when fitted, and `dot` takes seconds on it. A
node with more than `WIDE_ARGS` arguments draws its first `HEAD` and last `TAIL`,
and the ones between become one box that names its range of arguments; that range
opens as a focus (`to_dot(step, focus="5-248")`, "subtree at" in the explorer),
folded the same way again if it is still wide. A `case_when` keeps its conditions
struct in front and its `else` behind, so its first and last branches line up with
the conditions drawn. A left-deep `and`/`or` chain (what `tk.or_(terms)` builds) is
a wide node laid on its side: past `CHAIN_SHOWN` links it folds into one box, as a
deep tree folds past its depth. The SVG and the text fold a chain at the same link
(`chain_place`), and say so in the same words (`chain_fold_title`).

A deep tree drawn whole is a diagonal staircase thousands of points wide and tall
(a 1,000-deep `a + c + c …` is 14,000 by 13,000 pt), whose root sits in a corner a
window opened on the picture never shows. So a picture's depth is `AUTO_DEPTH` unless
asked: a tree deeper than `FOLD_DEPTH` levels draws its top `OPEN_DEPTH` levels and
folds each subtree below into a box naming its size and the path that opens it
(`TreeWindow.resolved`). It is the explorer's choice, made here once for every picture.
Folding by depth works for any tree's shape (a bushy one too, a nested `if_else` whose
run goes through its `then`), and a box opens with the `focus` every picture takes;
`depth=None` still draws every level. What stays drawn of a deep run of one function
is kept in a straight column (`spines`), so the picture grows down from its root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import NamedTuple

from ..errors import UsageError
from ..model.expression import Expression, postorder
from .labels import arg_role, node_title, parse_path_text, path_text

__all__ = ["AUTO_DEPTH", "CHAIN_SHOWN", "FOLD_DEPTH", "HEAD", "OPEN_DEPTH", "TAIL", "WIDE_ARGS",
           "ChainPlace", "TreeWindow", "chain_fold_title", "chain_length", "chain_place",
           "depth_fold_title", "focus_text", "fold_noun", "fold_range_text", "folded_spans",
           "open_depth", "parse_focus_text", "shown_args", "span_text", "subtree_sizes"]

WIDE_ARGS = 10  # a node with more arguments than this draws its ends and folds the middle
HEAD = 4  # arguments drawn before the fold ...
TAIL = 2  # ... and after it
CHAIN_SHOWN = 4  # links of a long and/or chain drawn above its folded rest
CHAIN_FUNCTIONS = frozenset({"and_kleene", "or_kleene", "and", "or"})
FOLD_DEPTH = 16  # a tree deeper than this many levels opens folded (a 12-term `or` stays open)
OPEN_DEPTH = 8  # ... this many levels down: a picture that fits a window, its labels readable
AUTO_DEPTH = "auto"  # the depth a picture takes unless told: OPEN_DEPTH when the tree is deep


def _has_else(node: Expression) -> bool:
    first = node.args[0] if node.args else None
    return (first is not None and first.is_call and first.name == "make_struct"
            and len(node.args) == len(first.args) + 2)


def shown_args(node: Expression, span: tuple[int, int] | None = None) -> list:
    """The arguments drawn, in order: an index each, and one (first, last) pair for the
    folded middle. `span` limits them to a range (a focus that opened a folded box)."""
    first, last = span if span is not None else (0, len(node.args) - 1)
    if last - first + 1 <= WIDE_ARGS:
        return list(range(first, last + 1))
    head, tail = HEAD, TAIL
    if node.is_call and node.name == "case_when":  # conditions in front, `else` behind
        head += first == 0
        tail += last == len(node.args) - 1 and _has_else(node)
    return [*range(first, first + head), (first + head, last - tail),
            *range(last - tail + 1, last + 1)]


def fold_noun(node: Expression, parent: Expression | None = None) -> str:
    """What a wide node's folded arguments are called in its box."""
    name = node.name if node.is_call else ""
    if name == "make_struct" and parent is not None and parent.is_call \
            and parent.name == "case_when" and parent.args[0] is node:
        return "conditions"
    return {"case_when": "branches", "coalesce": "arguments", "choose": "values",
            "make_struct": "fields"}.get(name, "arguments")


def fold_range_text(node: Expression, parent: Expression | None, first: int, last: int) -> str:
    """What a folded range of arguments holds, in the names the branches go by:
    `then 4 – then 247`, `when 4 – when 247` (a case_when's conditions), `arg 3 – arg 30`,
    else `arguments 4–247`."""
    if fold_noun(node, parent) == "conditions":
        return f"when {first} – when {last}"
    low, high = arg_role(node, first), arg_role(node, last)
    if low and high and not low.isdigit():
        return f"{low} – {high}"
    return f"arguments {first}–{last}"


def chain_length(node: Expression, at_most: int | None = None) -> int:
    """How many links of the same and/or function run down argument 0 from `node`
    (counted up to `at_most`)."""
    if not (node.is_call and node.name in CHAIN_FUNCTIONS):
        return 0
    n, name = 0, node.name
    while node.is_call and node.name == name and node.args and n != at_most:
        n += 1
        node = node.args[0]
    return n


class ChainPlace(NamedTuple):
    """A node's place in an and/or chain as a picture draws it."""

    links: int  # links of its chain drawn above it (0: it continues no chain)
    folded: int  # links of the chain folded at it, from it down (0: it is drawn)


def chain_place(node: Expression, parent: Expression | None, index: int,
                parent_links: int) -> ChainPlace:
    """Whether `node`, argument `index` of `parent`, is drawn or folds the rest of its chain:
    the first `CHAIN_SHOWN` links of a chain are drawn, and the rest folds into one box
    when it holds more than two links. Both the SVG and the text ask this."""
    links = 0
    if parent is not None and index == 0 and parent.is_call \
            and parent.name in CHAIN_FUNCTIONS and node.is_call and node.name == parent.name:
        links = parent_links + 1
    chain = chain_length(node) if links == CHAIN_SHOWN else 0
    return ChainPlace(links, chain if chain > 2 else 0)


def chain_fold_title(node: Expression, chain: int, size: int) -> str:
    """What a folded chain holds: `▸ and_kleene chain: 996 more terms, 3,983 nodes folded`."""
    return f"▸ {node_title(node)} chain: {chain + 1:,} more terms, {size:,} nodes folded"


def depth_fold_title(node: Expression, size: int, levels: int) -> str:
    """What a subtree folded below a picture's depth holds:
    `▸ add: 1,993 nodes folded, 996 levels deep`."""
    title = f"▸ {node_title(node)}: {size:,} nodes folded"
    return title + (f", {levels:,} levels deep" if levels > 1 else "")


def subtree_sizes(root: Expression) -> tuple[dict[int, int], dict[int, int]]:
    """Nodes below and including each node, and its levels below (0: a leaf), by id:
    linear in the distinct nodes, a shared subtree counted where it is used."""
    sizes: dict[int, int] = {}
    levels: dict[int, int] = {}
    for node in postorder(root):
        sizes[id(node)] = 1 + sum(sizes[id(a)] for a in node.args)
        levels[id(node)] = 1 + max((levels[id(a)] for a in node.args), default=-1)
    return sizes, levels


def open_depth(levels: int) -> int | None:
    """The depth a tree `levels` deep opens to: `OPEN_DEPTH` past `FOLD_DEPTH`, else all."""
    return OPEN_DEPTH if levels > FOLD_DEPTH else None


_DEPTH_NOTE = re.compile(r"\s*\(depth [\d,]+\)\s*$")
_SPAN = re.compile(r"^(?:(.*?)[/.])?\s*(\d+)\s*[-–]\s*(\d+)\s*$")


def span_text(focus: tuple, first: int, last: int) -> str:
    """Arguments `first` to `last` of the node at `focus`, as a person types them:
    `5-248` (of the root), `0/4-247`, `1*400/2-9`."""
    if not focus:
        return f"{first}-{last}"
    return f"{focus_text(focus)}/{first}-{last}"


def focus_text(path: tuple) -> str:
    """A path as a person types it back as a focus: `0/4`, `1*400/2` (never shortened
    with `…` as a path shown for reading may be)."""
    text = path_text(path)
    if "…" in text:
        text = "/".join(str(i) for i in path)
    return _DEPTH_NOTE.sub("", text)


def parse_focus_text(text: str) -> tuple[tuple[int, ...], tuple[int, int] | None]:
    """A typed focus: a path ("1/0"), or a path then a range of its node's arguments
    ("0/4-247", "5-248" of the root); reads what `span_text` writes."""
    match = _SPAN.match(_DEPTH_NOTE.sub("", text.strip()))
    if match is None:
        return parse_path_text(text), None
    first, last = int(match.group(2)), int(match.group(3))
    if first > last:
        raise UsageError(f"{text.strip()!r} is not a range of arguments: the first, "
                         f"{first}, comes after the last, {last}")
    head = match.group(1) or ""
    return parse_path_text("" if head.strip() == "root" else head), (first, last)


_OPEN_SPAN = re.compile(r"open: subtree ((?:[^<\"]*/)?\d+-\d+)<")


def folded_spans(dot_source: str) -> list[str]:
    """The ranges of arguments a drawn picture folded, as focus texts that open them."""
    return list(dict.fromkeys(_OPEN_SPAN.findall(dot_source)))


@dataclass(frozen=True)
class TreeWindow:
    """The part of a tree a picture draws: the subtree at `focus`, `depth` levels deep."""

    focus: tuple = ()
    depth: int | str | None = None  # None: every level; AUTO_DEPTH: as `resolved` decides
    span: tuple[int, int] | None = None  # the focus node's arguments drawn, first and last
    levels: int | None = None  # the tree's levels, when AUTO_DEPTH folded it

    @classmethod
    def of(cls, focus=(), depth: int | str | None = None) -> TreeWindow:
        span = None
        if isinstance(focus, str):
            focus, span = parse_focus_text(focus)
        elif focus and isinstance(focus[-1], range):  # (0, range(5, 249)): arguments 5-248
            span = (focus[-1].start, focus[-1].stop - 1)
            focus = focus[:-1]
        if depth is not None and depth != AUTO_DEPTH and (
                isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise UsageError(f"depth must be a whole number of levels, 1 or more, None for "
                             f"every level or {AUTO_DEPTH!r}; got {depth!r}")
        return cls(tuple(int(i) for i in focus), depth, span)

    def resolved(self, levels: int) -> TreeWindow:
        """The window as drawn over a subtree `levels` deep: `AUTO_DEPTH` made a number
        (`open_depth`), remembering the levels it folded for the caption."""
        if self.depth != AUTO_DEPTH:
            return self
        depth = open_depth(levels)
        return replace(self, depth=depth, levels=levels if depth is not None else None)

    def start(self, root: Expression) -> Expression:
        """The node at `focus`, or an error naming the first step that does not exist."""
        node = root
        for k, i in enumerate(self.focus):
            if not 0 <= i < len(node.args):
                where = path_text(self.focus[:k])
                raise UsageError(
                    f"no subtree at {path_text(self.focus)}: the node at {where} "
                    f"({node_title(node)}) has {len(node.args)} argument"
                    f"{'' if len(node.args) == 1 else 's'}, numbered from 0")
            node = node.args[i]
        if self.span is not None and not 0 <= self.span[0] <= self.span[1] < len(node.args):
            raise UsageError(
                f"no arguments {span_text(self.focus, *self.span)}: the node at "
                f"{path_text(self.focus)} ({node_title(node)}) has {len(node.args)} "
                "arguments, numbered from 0")
        return node

    def folds(self, path: tuple) -> bool:
        return self.depth is not None and len(path) - len(self.focus) > self.depth
