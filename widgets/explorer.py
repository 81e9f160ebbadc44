"""`Explorer(trace)`: step through what the engine did, one recorded step at a time.

Buttons and a slider move over the trace's steps. Each step shows its tree
(the renderer highlights the nodes a pass changed), the rules that fired with
their reasons, the tree before and after as text, and, for an evaluation, the
selection view; the invariants panel lists every check of the trace. All of it
is driven from Python too (`next()`, `previous()`, `jump_to_next_change()`,
`slider.value`), so notebooks and tests can script a walk through a trace.
"""

from __future__ import annotations

import ipywidgets as w
from ipyevents import Event

import toolkit as tk
from toolkit.errors import UsageError
from toolkit.model.expression import Expression
from toolkit.render.labels import bounded_text, html_text, path_text, repeat_key, visible
from toolkit.render.wide_nodes import AUTO_DEPTH, FOLD_DEPTH, OPEN_DEPTH, open_depth
from toolkit.support.bounded_cache import BoundedCache
from toolkit.tracing.steps import (
    CATALYST_RULE,
    EVAL,
    INVARIANT,
    PASS,
    PLAN_RULE,
    depth_of,
    is_change,
    step_kind,
    step_title,
    tree_of,
)

from .invariants_panel import InvariantsPanel
from .rich_display import text_html, tree_html
from .selection_view import SelectionView
from .step_cursor import StepCursor

__all__ = ["AUTO_DEPTH", "FOLD_DEPTH", "OPEN_DEPTH", "Explorer"]

# trees deeper than FOLD_DEPTH open OPEN_DEPTH levels down, as every picture does
# (`toolkit.render.wide_nodes`); the explorer names the choice in its depth picker
TREE_PICTURES = 32  # pictures the explorer keeps drawn (each step, zoom, focus and depth)
PICK_A_CHECK = "choose one: failures first"
KEYS_HINT = ("keys, with the pointer over the picture: ← → step · n / p next / previous "
             "change · Home / End first / last step")
_DEPTH_OPTIONS = [(f"auto ({OPEN_DEPTH} levels when deeper than {FOLD_DEPTH})", AUTO_DEPTH),
                  ("every level", None), *((f"{n} levels", n) for n in (2, 4, 8, 16, 32, 64))]


class Explorer(w.VBox):
    """The step-through explorer over a `tk.Trace` (or any list of recorded steps)."""

    def __init__(self, trace, page_size: int = 20, **kwargs):
        super().__init__(**kwargs)
        self.add_class("exprscope-explorer")
        self.trace = trace
        steps = trace.steps if hasattr(trace, "steps") else list(trace)
        self.cursor = StepCursor(steps)
        self.page_size = page_size
        self._views: dict[int, SelectionView] = {}  # built once per evaluation step
        # (step, zoom, focus, depth) -> (picture, note): the last pictures drawn, not all
        self._tree_cache = BoundedCache(TREE_PICTURES)
        self.selection_view: SelectionView | None = None
        self._depths: dict[int, int] = {}  # step index -> depth of its tree
        self._moving_slider = False
        self._make_widgets(steps)
        self._wire()
        self._lay_out()
        self._show()

    def _make_widgets(self, steps) -> None:
        """Every control and panel, each with the CSS class the tests and notebooks find."""
        self.header = w.HTML()
        self.header.add_class("exprscope-step-title")
        self.previous_button = _button("previous", "arrow-left", "exprscope-previous")
        self.next_button = _button("next", "arrow-right", "exprscope-next")
        self.previous_change_button = _button("previous change", "backward",
                                              "exprscope-jump-back")
        self.change_button = _button("next change", "forward", "exprscope-jump")
        # The slider counts steps from 1, as the header and the invariants panel do.
        self.slider = w.IntSlider(value=1, min=1, max=max(1, len(self.cursor)),
                                  description="step", continuous_update=False,
                                  layout=w.Layout(width="360px"))
        self.slider.add_class("exprscope-slider")
        self.changes_only = w.Checkbox(value=False, description="only steps that changed",
                                       indent=False, layout=w.Layout(width="auto"))
        self.changes_only.add_class("exprscope-changes-only")
        self.fit = w.Checkbox(value=True, description="fit the picture in view",
                              indent=False, layout=w.Layout(width="auto"))
        self.fit.add_class("exprscope-fit")
        # with the picture not fitted: its size, in a box that scrolls both ways (pan)
        self.zoom = w.Dropdown(options=[("50%", 0.5), ("100%", 1.0), ("150%", 1.5),
                                        ("200%", 2.0)], value=1.0, description="zoom",
                               disabled=True, style={"description_width": "initial"},
                               layout=w.Layout(width="auto", margin="0 0 0 24px"))
        self.zoom.add_class("exprscope-zoom")
        # folding: trees deeper than FOLD_DEPTH open OPEN_DEPTH levels down; any subtree opens
        self.depth_picker = w.Dropdown(options=_DEPTH_OPTIONS, value=AUTO_DEPTH,
                                       description="open", layout=w.Layout(width="auto"))
        self.depth_picker.add_class("exprscope-depth")
        self.subtree = w.Text(value="", placeholder="root, 1/0 or 5-248",
                              description="subtree at", continuous_update=False,
                              layout=w.Layout(width="280px"))
        self.subtree.add_class("exprscope-subtree")
        self.window_note = w.HTML()
        self.window_note.add_class("exprscope-window-note")
        self.tree = w.HTML()
        self.tree.add_class("exprscope-tree")
        self.rules = w.HTML()
        self.rules.add_class("exprscope-rules")
        self.before_after = w.HTML()
        self.before_after.add_class("exprscope-before-after")
        self.detail = w.VBox()
        self.invariants = InvariantsPanel(steps)
        # a picker of the invariant checks, failures first: choosing one goes to its step
        self.check_picker = w.Dropdown(options=_check_options(self.invariants.checks),
                                       index=0, description="go to check",
                                       layout=w.Layout(width="auto", max_width="720px"))
        self.check_picker.add_class("exprscope-check-picker")

    def _wire(self) -> None:
        """What each control does."""
        self.check_picker.observe(self._on_check_picked, names="value")
        self.previous_button.on_click(lambda _: self.previous())
        self.next_button.on_click(lambda _: self.next())
        self.previous_change_button.on_click(lambda _: self.jump_to_previous_change())
        self.change_button.on_click(lambda _: self.jump_to_next_change())
        self.slider.observe(self._on_slider, names="value")
        self.changes_only.observe(lambda _: self._show(), names="value")
        self.fit.observe(self._on_fit, names="value")
        self.zoom.observe(lambda _: self._show(), names="value")
        self.depth_picker.observe(lambda _: self._show(), names="value")
        self.subtree.observe(lambda _: self._show(), names="value")

    def _lay_out(self) -> None:
        """The controls in rows, the picture and the panels below; keys over the picture."""
        stepping = w.HBox([self.previous_button, self.next_button, self.slider])
        changes = w.HBox([self.previous_change_button, self.change_button, self.changes_only,
                          self.fit, self.zoom])
        window = w.HBox([self.depth_picker, self.subtree, self.window_note])
        controls = w.VBox([stepping, changes, window])
        checks = [self.check_picker] if self.invariants.checks else []
        # keys, while the pointer is over the picture or the stepping row: not over the
        # text boxes, whose typing the key listener would swallow
        self.keys_hint = w.HTML(f'<span style="color:#6b7280;font-size:90%">{KEYS_HINT}</span>')
        self.keys_hint.add_class("exprscope-keys-hint")
        self._key_listeners = [Event(source=source, watched_events=["keydown"],
                                     ignore_modifier_key_events=True)
                               for source in (self.tree, stepping, self.header)]
        for listener in self._key_listeners:
            listener.on_dom_event(lambda event: self.press(event.get("key", "")))
        self.children = [self.header, controls, self.keys_hint, self.tree, self.rules,
                         self.before_after,
                         self.detail, self.invariants, *checks]

    # -- driving it from Python ---------------------------------------------------------
    @property
    def steps(self) -> list:
        return self.cursor.steps

    @property
    def index(self) -> int:
        return self.cursor.index

    @property
    def current(self):
        return self.cursor.current

    def go(self, index: int) -> int:
        """Show step `index` (clamped to the steps there are)."""
        target = self.cursor.go(index)
        self._show()  # draws the step first, then moves the slider, header and tree together
        return target

    def next(self) -> int:
        """The next step, or the next change while "only steps that changed" is ticked."""
        if self.changes_only.value:
            self.jump_to_next_change()
            return self.cursor.index
        return self.go(self.cursor.index + 1)

    def previous(self) -> int:
        """The previous step, or the previous change while "only steps that changed" is ticked."""
        if self.changes_only.value:
            self.jump_to_previous_change()
            return self.cursor.index
        return self.go(self.cursor.index - 1)

    def jump_to_next_change(self) -> bool:
        """Go to the next step that changed the tree or plan; False when none is left."""
        return self._jump(self.cursor.next_change(), self.change_button)

    def jump_to_previous_change(self) -> bool:
        """Go to the last step before this one that changed something; False when none."""
        return self._jump(self.cursor.previous_change(), self.previous_change_button)

    def _jump(self, target: int | None, button: w.Button) -> bool:
        """Go to `target`; None: there is no such step, and `button` says so by graying."""
        if target is None:
            button.disabled = True
            return False
        self.go(target)
        return True

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, plus the current step as static HTML for a saved notebook."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        bundle = dict(bundle or {})
        bundle["text/html"] = (f"<div>{self.header.value}</div>{self.tree.value}"
                               f"{self.rules.value}{self.before_after.value}")
        return bundle

    # -- drawing ----------------------------------------------------------------------
    def _on_check_picked(self, change) -> None:
        if change["new"] is not None:
            self.go(change["new"])
            self.check_picker.index = 0  # ready for the next choice, the same one included

    def _on_fit(self, change) -> None:
        self.zoom.disabled = bool(change["new"])
        self._show()

    def _on_slider(self, change) -> None:
        if self._moving_slider:
            return  # the explorer moved it to the step it is showing
        self.cursor.go(change["new"] - 1)
        self._show()

    def _show(self) -> None:
        """Draw the current step, then show it everywhere at once.

        The picture (the slow part) is drawn before any widget changes, so the slider,
        the header and the tree never name different steps while a big tree is drawn.
        """
        cursor = self.cursor
        total = len(cursor)
        only_changes = self.changes_only.value
        if total == 0:
            self._set_controls(cursor, total, only_changes)
            self.header.value = "<b>The trace recorded no steps.</b>"
            self.tree.value = self.rules.value = self.before_after.value = ""
            self.detail.children = []
            return
        step, index = cursor.current, cursor.index
        changed = " <span style='color:#b35c00'>(changed)</span>" if is_change(step) else ""
        header = (f"<b>Step {index + 1} of {total}</b>: "
                  f"{html_text(step_title(step))}{changed}")
        tree = (f'<div class="exprscope-step-picture" data-step="{index + 1}">'
                f"{self._tree(index)}</div>")
        kind = step_kind(step)
        view = None
        if kind == EVAL:
            view = self._views.get(index)
            if view is None:
                view = self._views[index] = SelectionView(step, page_size=self.page_size)
        # everything is ready: the step is shown in one go
        self._set_controls(cursor, total, only_changes)
        if self.slider.value != index + 1:
            self._moving_slider = True
            try:
                self.slider.value = index + 1
            finally:
                self._moving_slider = False
        self.tree.value = tree
        self.header.value = header
        self.rules.value = _rules_html(step, kind)
        self.before_after.value = _before_after_html(step, kind)
        self.selection_view = view
        self.detail.children = [view] if view is not None else []
        self.invariants.highlight(index if kind == INVARIANT else None)

    def _set_controls(self, cursor: StepCursor, total: int, only_changes: bool) -> None:
        self.previous_button.disabled = total == 0 or cursor.at_start or (
            only_changes and cursor.previous_change() is None)
        self.next_button.disabled = total == 0 or cursor.at_end or (
            only_changes and cursor.next_change() is None)
        self.change_button.disabled = cursor.next_change() is None
        self.previous_change_button.disabled = cursor.previous_change() is None
        self.slider.disabled = total <= 1

    def press(self, key: str) -> bool:
        """Do what `key` does when pressed over the explorer; False if it is not one of
        its keys."""
        action = {"ArrowRight": self.next, "ArrowLeft": self.previous,
                  "n": self.jump_to_next_change, "p": self.jump_to_previous_change,
                  "Home": lambda: self.go(0), "End": lambda: self.go(len(self.steps) - 1),
                  }.get(key)
        if action is None:
            return False
        action()
        return True

    def open_subtree(self, path: str = "", depth=AUTO_DEPTH) -> str:
        """Draw only the subtree at `path` ("1/0"; "" for the root), `depth` levels open;
        a range ("5-248", "0/4-247") draws those arguments of the node before it."""
        self.depth_picker.value = depth
        self.subtree.value = path
        return self.window_note.value

    def tree_depth(self, index: int) -> int:
        """How many levels the tree of step `index` has (0 for steps without one)."""
        if index not in self._depths:
            root = tree_of(self.steps[index])
            self._depths[index] = 0 if root is None else depth_of(root)
        return self._depths[index]

    def _tree(self, index: int) -> str:
        depth = self.depth_picker.value
        if depth == AUTO_DEPTH:
            depth = open_depth(self.tree_depth(index))
        focus, note = self.subtree.value.strip(), ""
        if focus and tree_of(self.steps[index]) is None:
            focus, note = "", "This step has no expression tree; the subtree is not used here."
        zoom = None if self.fit.value else self.zoom.value
        key = (index, zoom, focus, depth)
        cached = self._tree_cache.get(key)
        if cached is None:
            try:
                picture = tree_html(self.steps[index], fit=zoom is None, focus=focus,
                                    depth=depth, zoom=zoom or 1.0)
            except UsageError as exc:  # a path that is not in this step's tree
                note = f"{str(exc).rstrip('.')}. Showing the whole tree."
                picture = tree_html(self.steps[index], fit=zoom is None, depth=depth,
                                    zoom=zoom or 1.0)
            cached = self._tree_cache.put(key, (picture, note))
        picture, note = cached[0], note or cached[1]
        if depth is not None and not note and self.depth_picker.value == AUTO_DEPTH:
            note = (f"{self.tree_depth(index):,} levels deep: folded past {depth} (▸); "
                    "type a folded box's path under \"subtree at\" to open it.")
        self.window_note.value = (f'<span style="color:#92400e">{html_text(note)}</span>'
                                  if note else "")
        return picture


def _check_options(checks) -> list:
    """(label, step index) per invariant check, the failed ones first."""
    ordered = sorted(checks, key=lambda pair: (pair[1].passed, pair[0]))
    out = [(PICK_A_CHECK, None)]
    for index, check in ordered:
        verdict = "✔" if check.passed else "✘ FAIL"
        subject = str(check.subject)
        subject = subject if len(subject) <= 60 else subject[:59] + "…"
        out.append((visible(f"step {index + 1}: {verdict} {check.name} on {subject}"), index))
    return out


def _button(description: str, icon: str, css_class: str) -> w.Button:
    button = w.Button(description=description, icon=icon, tooltip=description)
    button.add_class(css_class)
    return button


def _rules_html(step, kind: str) -> str:
    event = step
    if kind == PASS:
        if not event.rewrites:
            return "<div><i>No rule fired in this pass.</i></div>"
        rows = [(f"<tr><th style='{_CELL}'>rule</th><th style='{_CELL}'>why</th>"
                f"<th style='{_CELL}'>at</th><th style='{_CELL}'>before</th>"
                f"<th style='{_CELL}'>after</th></tr>")]
        groups: dict[tuple, list] = {}  # repeats of one firing: one row, the rest folded
        for r in event.rewrites:
            groups.setdefault(repeat_key(r.rule, r.reason), []).append(r)
        for firings in groups.values():
            rows.append(_firing_row(firings[0]))
            if len(firings) > 1:
                more = "".join(_firing_row(r) for r in firings[1:1 + _REPEATS_LISTED])
                left = len(firings) - 1 - min(len(firings) - 1, _REPEATS_LISTED)
                rest = f"<div>… {left:,} more</div>" if left else ""
                rows.append(f"<tr><td colspan='5' style='{_CELL}'><details><summary>and "
                            f"{len(firings) - 1:,} more firings of "
                            f"<code>{html_text(firings[0].rule)}</code> for the same reason"
                            "</summary><table style='border-collapse:collapse'>"
                            f"{more}</table>{rest}</details></td></tr>")
        return ("<div><b>Rules that fired</b></div><table style='border-collapse:collapse'>"
                + "".join(rows) + "</table>")
    if kind == PLAN_RULE:
        reason = f": {html_text(event.reason)}" if event.reason else ""
        return f"<div><b>Rule</b> <code>{html_text(event.rule)}</code>{reason}</div>"
    if kind == CATALYST_RULE:
        return _catalyst_checks_html(event)
    if kind == INVARIANT:
        verdict = "passed" if event.passed else "FAILED"
        details = html_text(str(event.details or ""))
        return (f"<div><b>{html_text(event.name)}</b> ({html_text(event.level)}) on "
                f"{html_text(str(event.subject))}: <b>{verdict}</b>. {details}</div>")
    return ""


def _firing_row(r) -> str:
    return (f"<tr><td style='{_CELL}'><code>{html_text(r.rule)}</code></td>"
            f"<td style='{_CELL}'>{html_text(r.reason)}</td>"
            f"<td style='{_CELL}'>{html_text(path_text(r.path))}</td>"
            f"<td style='{_CELL}'><code>{html_text(_expr_text(r.before))}</code></td>"
            f"<td style='{_CELL}'><code>{html_text(_expr_text(r.after))}</code></td></tr>")


_REPEATS_LISTED = 200  # repeats of one firing listed under it (the rest counted)


def _before_after_html(step, kind: str) -> str:
    event = step
    if kind in (PASS, PLAN_RULE, CATALYST_RULE):
        before, after = _any_text(event.before), _any_text(event.after)
        same = "" if is_change(event) else " <i>(unchanged)</i>"
        return (f"<div style='{_SIDE_BY_SIDE}'>"
                f"<div><b>before</b>{text_html(before, 'exprscope-before')}</div>"
                f"<div><b>after</b>{same}{text_html(after, 'exprscope-after')}</div></div>")
    if kind == INVARIANT and (event.expected is not None or event.actual is not None):
        return (f"<div style='{_SIDE_BY_SIDE}'>"
                f"<div><b>expected</b>{text_html(str(event.expected))}</div>"
                f"<div><b>actual</b>{text_html(str(event.actual))}</div></div>")
    return ""


def _catalyst_checks_html(step) -> str:
    """A Catalyst step's rule, Spark's checks (each with its message when it failed), the
    error it threw and the rules inside it."""
    parts = [f"<div><b>Rule</b> <code>{html_text(step.rule_class)}</code></div>"]
    if step.error is not None:
        parts.append(f"<div style='color:#b91c1c'><b>threw</b>: {html_text(step.error, 2000)}"
                     "</div>")
    for c in step.checks:
        mark = "✔" if c.ok else "✘ FAIL"
        ours = f" <i>(exprscope: {html_text(c.exprscope_name)})</i>" if c.exprscope_name else ""
        message = "" if c.ok else f": {html_text(c.message, 2000)}"
        parts.append(f"<div>{mark} {html_text(c.name)}{ours}{message}</div>")
    if step.substeps:
        inner = ", ".join(html_text(s.rule + (f" ({s.scope})" if s.scope else ""))
                          for s in step.substeps)
        parts.append(f"<div><b>inside the rule</b>: {inner}</div>")
    return "".join(parts)


def _any_text(obj) -> str:
    """An expression as its one-line text; a plan (live or loaded) as its text tree."""
    if obj is None:
        return "(nothing)"
    if isinstance(obj, str):  # a Spark plan as Spark prints it
        return obj
    if isinstance(obj, Expression):
        return bounded_text(obj, _TEXT_CHARS, short=True)
    return tk.to_text(obj, color=False)


def _expr_text(obj) -> str:
    return bounded_text(obj, _TEXT_CHARS, short=True) if isinstance(obj, Expression) \
        else str(obj)


_TEXT_CHARS = 2000  # an expression's text in a panel: the beginning of a 10,000-deep one


# two texts side by side in equal halves: a long one cannot squeeze the other to a sliver
_SIDE_BY_SIDE = "display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px"
_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top;"
