"""A row's story as terminal text: the sentence, the inputs, then the tree with each
node's value for the row (untaken branches marked, the deciding nodes starred).

Every value and expression is already `visible` text; lines are fitted to the
width by the caller (`text.fit_line`).
"""

from __future__ import annotations

from ..explain import RowStories, RowStory
from ..explain.value_text import value_text

__all__ = ["stories_lines", "story_lines"]

_INDENT_CAP = 12  # a deep tree's indent stops growing here; the path says the depth


def story_lines(story: RowStory, paint) -> list[str]:
    head = f"row {story.row:,} of {story.num_rows:,} ({story.source}), {story.mode} mode"
    lines = [paint(head, "title"), f"expression: {story.expression}"]
    if story.evaluated_expression != story.expression:
        lines.append(paint(f"evaluated as: {story.evaluated_expression}", "dim"))
        for c in story.changes[:8]:
            lines.append(paint(f"  {c.pass_name} · {c.rule}: {c.written} -> {c.evaluated}",
                               "dim"))
    lines.append(paint("value: ", "title") + value_text(story.value))
    lines.append(paint("why: ", "title") + story.why)
    if story.inputs:
        lines.append("inputs: " + " · ".join(f"{k} = {value_text(v)}"
                                             for k, v in story.inputs.items()))
    lines.append("")
    for n in story.nodes:
        indent = "  " * min(n.depth, _INDENT_CAP)
        mark = paint("★ ", "changed") if n.decided else ""
        if n.evaluated:
            shown = f"{n.label} = {value_text(n.value)}" if n.error is None else \
                f"{n.label} " + paint("✗ failed", "error")
        else:
            shown = paint(f"{n.label} (not evaluated)", "dim")
        parts = [f"{indent}{mark}{shown}"]
        if n.branch:
            parts.append(f"took {n.branch}")
        parts.append(paint(n.path_text, "dim"))
        if n.note:
            parts.append(paint(n.note, "error" if n.error and n.evaluated else "dim"))
        lines.append("  ".join(parts))
    return lines


def stories_lines(stories: RowStories, paint) -> list[str]:
    lines = [paint(str(stories), "title")]
    for story in stories:
        lines.append("")
        lines.extend(story_lines(story, paint))
    return lines
