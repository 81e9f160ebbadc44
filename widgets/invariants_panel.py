"""The invariants panel: every invariant check of a trace with its verdict.

Plans check DataFusion-style invariants as they are optimized and executed;
this lists each check (name, level, the plan node, pass or fail, why) so a
failing MUST stands out among the passing ones.
"""

from __future__ import annotations

import ipywidgets as w

from toolkit.render.labels import html_text
from toolkit.tracing.steps import INVARIANT, step_kind

__all__ = ["InvariantsPanel", "invariant_checks"]


def invariant_checks(steps) -> list:
    """The invariant checks among `steps`, as (step index, check) pairs."""
    return [(i, s) for i, s in enumerate(steps) if step_kind(s) == INVARIANT]


class InvariantsPanel(w.HTML):
    """`InvariantsPanel(steps)`; `.highlight(step_index)` marks the check being looked at."""

    def __init__(self, steps, **kwargs):
        super().__init__(**kwargs)
        self.add_class("exprscope-invariants")
        self.checks = invariant_checks(steps)
        self.highlighted: int | None = None
        self.value = self._html()

    @property
    def failed(self) -> list:
        return [check for _, check in self.checks if not check.passed]

    def highlight(self, step_index: int | None) -> None:
        self.highlighted = step_index
        self.value = self._html()

    def _html(self) -> str:
        if not self.checks:
            return ("<div><i>No invariant checks in this trace: they are recorded when "
                    "plans are optimized, planned and executed.</i></div>")
        n_failed = len(self.failed)
        head = (f"<div><b>Invariant checks</b>: {len(self.checks)}, "
                f"{n_failed} failed</div>")
        rows = [head, f'<div style="{_SCROLL}"><table style="border-collapse:collapse">',
                "<tr>" + "".join(f'<th style="{_CELL}">{h}</th>' for h in
                                 ("step", "check", "level", "subject", "verdict", "why")) + "</tr>"]
        for index, check in self.checks:
            verdict = ("✔ pass", "#1b7f3b") if check.passed else ("✘ FAIL", "#b00020")
            background = "background:#fff6d5;" if index == self.highlighted else ""
            rows.append(
                f'<tr style="{background}">'
                f'<td style="{_CELL}">{index + 1}</td>'
                f'<td style="{_CELL}">{html_text(str(check.name))}</td>'
                f'<td style="{_CELL}">{html_text(str(check.level))}</td>'
                f'<td style="{_CELL}">{html_text(str(check.subject))}</td>'
                f'<td style="{_CELL}color:{verdict[1]};font-weight:bold">{verdict[0]}</td>'
                f'<td style="{_CELL}">{html_text(str(check.details or ""))}</td></tr>')
        rows.append("</table></div>")
        return "".join(rows)


_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:left;"
_SCROLL = "max-height:320px;overflow-y:auto"  # a plan checks dozens of times: keep it compact
