"""The records an explanation of one row is made of: plain, frozen values.

A `RowStory` is one row's walk through an expression: its value at every node
of the tree evaluation ran, which nodes the row never reached and why, and a
sentence saying what decided the result. `RowStories` holds the stories of the
rows a predicate picked. Printers, the JSON codec and the widgets read these and
nothing of the engine's state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..errors import InputError
from ..support.late import mimebundle, operation
from ..support.visible_text import visible

__all__ = ["NodeStory", "RowStories", "RowStory", "TreeChange"]


@dataclass(frozen=True)
class NodeStory:
    """One node of the evaluated tree, for one row.

    `path`: the node's position (child indices from the root, as the trace pictures
    number them); `value`: a pa.Scalar, or None where the row never reached the node
    (or its evaluation failed); `evaluated`: False for an untaken branch, a
    short-circuited `and`/`or` term, a `coalesce` argument after the first non-null;
    `branch`: for a special form, the branch or branches the row took (named as
    the pictures name them); `note`: where a null came from, why the node was not
    evaluated, or the error it raised or would raise; `decided`: the node is one of
    the terms that decided the result.
    """

    path: tuple[int, ...]
    expression: str
    label: str
    value: pa.Scalar | None
    evaluated: bool
    branch: str | None = None
    note: str = ""
    error: str | None = None
    decided: bool = False
    depth: int = 0

    @property
    def path_text(self) -> str:
        """`0/1/2` or `root`; a path deeper than 12 by its ends and its depth."""
        path = self.path
        if not path:
            return "root"
        if len(path) <= 12:
            return "/".join(str(i) for i in path)
        last = path.last if hasattr(path, "last") else path[-1]  # O(1) on a TreePath
        return f"…/{last} (depth {len(path)})"


@dataclass(frozen=True)
class TreeChange:
    """A rewrite that turned a node the user wrote into the one evaluation ran."""

    pass_name: str
    rule: str
    reason: str
    path: tuple[int, ...]
    written: str  # the node as the user wrote it (bound)
    evaluated: str  # the node that stands for it in the evaluated tree


@dataclass(frozen=True)
class RowStory:
    """Row `row` of `source` through `expression` (the tree as written, bound).

    `evaluated_expression` is the tree evaluation ran (canonicalized and folded as
    `tk.evaluate` does); `changes` the rewrites that turned one into the other.
    `value` equals `tk.evaluate(expression, data, mode=mode)` at the row, None when
    that evaluation fails (`error` then says where and why).
    """

    row: int
    mode: str
    expression: str
    evaluated_expression: str
    value: pa.Scalar | None
    inputs: dict[str, pa.Scalar]
    nodes: tuple[NodeStory, ...]
    why: str
    error: str | None = None
    spared: tuple[str, ...] = ()  # errors a special form spared this row (lazy mode)
    changes: tuple[TreeChange, ...] = ()
    num_rows: int = 0
    source: str = "table"  # "table", "record batch" or "dataset (row numbers in scan order)"

    def node(self, path) -> NodeStory:
        """The node at `path` (a tuple or its text, `0/1`, `root`)."""
        if isinstance(path, str):
            path = () if path == "root" else tuple(int(p) for p in path.split("/") if p)
        path = tuple(path)
        for n in self.nodes:
            if n.path == path:
                return n
        raise InputError(f"the story has no node at {visible(str(path))} "
                         f"(its {len(self.nodes):,} nodes are numbered from root)")

    def to_json(self) -> str:
        return operation("row_story_to_json")(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> RowStory:
        """A story saved by `to_json`, checked whole first: a file from others is untrusted."""
        return operation("row_story_from_json")(text)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self)

    def __str__(self) -> str:
        return f"row {self.row:,}: {self.why}"


@dataclass(frozen=True)
class RowStories:
    """The stories of the rows a predicate picked: the first ones, and how many matched.

    `value`, `inputs`, `nodes` and `why` are the first story's, so a predicate that
    picks one row reads like a row number.
    """

    predicate: str
    matched: int
    stories: tuple[RowStory, ...] = field(default_factory=tuple)
    num_rows: int = 0

    def __len__(self) -> int:
        return len(self.stories)

    def __iter__(self):
        return iter(self.stories)

    def __getitem__(self, i) -> RowStory:
        return self.stories[i]

    @property
    def rows(self) -> tuple[int, ...]:
        return tuple(s.row for s in self.stories)

    @property
    def value(self) -> Any:
        return self.stories[0].value

    @property
    def inputs(self) -> dict:
        return self.stories[0].inputs

    @property
    def nodes(self) -> tuple[NodeStory, ...]:
        return self.stories[0].nodes

    @property
    def why(self) -> str:
        return self.stories[0].why

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self)

    def __str__(self) -> str:
        shown = len(self.stories)
        more = f" (the first {shown} explained)" if shown < self.matched else ""
        return f"{self.matched:,} rows match {self.predicate}{more}"
