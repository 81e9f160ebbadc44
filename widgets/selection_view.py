"""The selection view: an evaluation shown row by row, a page at a time.

For one evaluation step it shows the batch's rows with the branch each row
took in every special form and the value it got (paged, so a 10,000-row batch
stays responsive), and every node with the rows it was evaluated on: the
selection vectors of lazy evaluation made visible. Clicking a row (or going to
it) opens that row's story beside the table, computed then for that row alone.
"""

from __future__ import annotations

import re

import ipywidgets as w
import numpy as np
import pyarrow as pa
from ipyevents import Event

from toolkit.errors import ExprscopeError
from toolkit.explain.records import RowStory
from toolkit.explain.value_text import value_text
from toolkit.render.form_heads import CHAIN_FORMS, chain_legend, form_heading
from toolkit.render.labels import arg_role, bounded_text, html_text, path_text
from toolkit.render.svg import readable_width
from toolkit.render.wide_nodes import shown_args
from toolkit.support.visible_text import visible

from .rich_display import mimebundle, text_html
from .selection_rows import NOT_REACHED, SelectionRows, form_key

__all__ = ["SelectionView"]

_ROW_PREVIEW = 12  # row indices listed per node before "…"


class SelectionView(w.VBox):
    """`SelectionView(eval_step, page_size=20)`.

    Drive it with `.next_page()`, `.previous_page()`, `.go_to_row(n)` and
    `.show_branch(form_index, branch)`; rows outside a sample are looked up in the
    batch while its owner still holds it. Clicking a row, or going to it, opens its
    story (`tk.explain_row`'s picture) beside the table: `.open_story(n)`, `.story`.
    """

    def __init__(self, step, page_size: int = 20, **kwargs):
        super().__init__(**kwargs)
        self.add_class("exprscope-selection")
        self.rows = SelectionRows(step)
        self.page_size = max(1, int(page_size))
        # the batch rows paged through: None for the kept rows (the batch, or its sample)
        self.listed: np.ndarray | range | None = None
        self.listing = ""  # what `listed` holds, for the page label
        self.target_row: int | None = None  # the row looked up, highlighted
        # a failed evaluation opens on the page of its failing row
        self.page = self.rows.kept_position(self.rows.failed_row) // self.page_size
        self.summary = w.HTML(self._summary_html())
        self.summary.add_class("exprscope-selection-summary")
        self.previous_button = w.Button(description="previous rows", icon="chevron-left")
        self.next_button = w.Button(description="next rows", icon="chevron-right")
        self.previous_button.add_class("exprscope-previous-rows")
        self.next_button.add_class("exprscope-next-rows")
        self.page_label = w.Label()
        self.page_label.add_class("exprscope-page-label")
        self.table = w.HTML()
        self.table.add_class("exprscope-rows")
        self.nodes = w.HTML(self._nodes_html())
        self.nodes.add_class("exprscope-node-rows")
        self.previous_button.on_click(lambda _: self.previous_page())
        self.next_button.on_click(lambda _: self.next_page())
        # one row's story, computed when a row is clicked or gone to, never before
        self.story: RowStory | None = None
        self.story_row: int | None = None
        self.story_pane = w.HTML()
        self.story_pane.add_class("exprscope-row-story")
        self.close_story_button = w.Button(description="close the story", icon="times")
        self.close_story_button.add_class("exprscope-close-story")
        self.close_story_button.on_click(lambda _: self.close_story())
        self.story_box = w.VBox([self.close_story_button, self.story_pane],
                                layout=w.Layout(display="none", flex="1 1 0",
                                                min_width=_STORY_WIDTH, margin="0 0 0 12px"))
        self.story_box.add_class("exprscope-row-story-box")
        # a click anywhere in a row's cells: the cell's class names the row
        self.row_clicks = Event(source=self.table, watched_events=["click"])
        self.row_clicks.on_dom_event(self._on_table_click)
        pager = w.HBox([self.previous_button, self.page_label, self.next_button])
        children = [self.summary]
        if self.rows.has_rows:
            # the table as wide as it needs, the story the rest (half the width at least)
            table_box = w.Box([self.table], layout=w.Layout(flex="0 1 auto", min_width="0",
                                                            overflow="auto hidden"))
            beside = w.HBox([table_box, self.story_box], layout=w.Layout(width="100%"))
            children += [pager, self._lookup_controls(), self.lookup_note, beside]
        else:
            self.lookup_note = w.HTML()
        children.append(self.nodes)
        self.children = children
        self._show_page()

    def _lookup_controls(self) -> w.HBox:
        r = self.rows
        self.row_number = w.BoundedIntText(value=r.failed_row or 0, min=0,
                                           max=max(0, r.num_rows - 1), description="row",
                                           layout=w.Layout(width="190px"))
        self.go_button = w.Button(description="go to row", icon="search")
        self.go_button.add_class("exprscope-go-to-row")
        self.go_button.on_click(lambda _: self.go_to_row(self.row_number.value))
        self.branch_filter = w.Dropdown(options=self._filter_options(), value=EVERY_ROW,
                                        description="rows that took", style={
                                            "description_width": "initial"},
                                        layout=w.Layout(width="auto"))
        self.branch_filter.add_class("exprscope-branch-filter")
        self.branch_filter.observe(lambda c: self.show_branch(*c["new"]), names="value")
        self.lookup_note = w.HTML()
        controls = [self.row_number, self.go_button, self.branch_filter]
        if r.failed_row is not None:
            self.failing_button = w.Button(description="failing row", icon="crosshairs")
            self.failing_button.add_class("exprscope-failing-row-button")
            self.failing_button.on_click(lambda _: self.go_to_row(r.failed_row))
            controls.append(self.failing_button)
        return w.HBox(controls)

    def _form_name(self, form) -> str:
        """A form as its column head names it (`or x > 3`, `if a != 0`), for menus and labels."""
        return form_heading(form, self.rows.branch_table.node(form.path)).short

    def _filter_options(self) -> list:
        options = [("every row", EVERY_ROW)]
        for k, form in enumerate(self.rows.shown_forms):
            for name, count in self.rows.branch_counts(form).items():
                label = (f"{self._form_name(form)}: {_branch_words(name)} "
                         f"({_rows(count)})")
                options.append((visible(label), (k, name)))
        return options

    # -- looking rows up ----------------------------------------------------------------
    def go_to_row(self, row: int) -> bool:
        """Show the page holding batch row `row`, highlighted; False (and why) when it cannot."""
        r, row = self.rows, int(row)
        self.target_row = row
        if not 0 <= row < r.num_rows:
            return self._note(f"There is no row {row:,}: the batch has {r.num_rows:,} rows.")
        for listed in (self.listed, None, r.row_list()):
            at = self._position_in(listed, row)
            if at is not None:
                if listed is not self.listed:
                    self._list(listed, "" if listed is None else f"all {r.num_rows:,} rows")
                self._note("")
                self.go_to_page(at // self.page_size)
                self.open_story(row)
                return True
        return self._note(f"Row {row:,} is not in the kept sample and the batch is no longer "
                          "in memory: evaluate again inside tk.trace() while you hold the "
                          "data to look any row up.")

    # -- one row's story ------------------------------------------------------------------
    def open_story(self, row: int) -> RowStory | None:
        """Show the story of batch row `row` beside the table (its value at every node, the
        branch it took, why), computed now on that row alone; None, with a note, when the
        row's data is no longer at hand."""
        row = int(row)
        if not 0 <= row < self.rows.num_rows:
            self._note(f"There is no row {row:,}: the batch has {self.rows.num_rows:,} rows.")
            return None
        try:
            story = self.rows.row_story(row)
        # a trace from elsewhere whose expression and data the engine cannot run again
        except (ExprscopeError, pa.ArrowException) as exc:
            self._note(f"The story of row {row:,} cannot be told: {exc}")
            return None
        if story is None:
            self._note(f"The story of row {row:,} needs its data: the row is not in the kept "
                       "sample and the batch is no longer in memory.")
            return None
        self.story, self.story_row = story, row
        self._note("")
        if hasattr(self, "row_number"):
            self.row_number.value = row  # the box says which row the story is of
        html, width = _story_html(story)
        self.story_pane.value = html
        # room for the whole picture where the window has it; the table scrolls sideways
        self.story_box.layout.min_width = (_STORY_WIDTH if width is None else
                                           f"max({_STORY_WIDTH}, min({_STORY_MOST}, "
                                           f"{width:.0f}pt + 24px))")
        self.story_box.layout.display = "flex"
        if self.target_row != row:
            self.target_row = row
            self._show_page()
        return story

    def close_story(self) -> None:
        self.story = self.story_row = None
        self.story_pane.value = ""
        self.story_box.layout.display = "none"

    def _on_table_click(self, event: dict) -> None:
        """A click in the table: the row whose cell was clicked (its class says which)."""
        target = event.get("target") or {}
        found = _ROW_CLASS.search(str(target.get("className", "")))
        if found is not None:
            self.open_story(int(found.group(1)))

    def show_branch(self, form_index: int | None, branch: str | None) -> int:
        """Page through the rows that took `branch` of shown form `form_index` (None: all rows)."""
        r = self.rows
        if form_index is None:
            self._list(None, "")
        else:
            form = r.shown_forms[form_index]
            rows = r.branch_rows(form, branch)
            whole = r.sample is None or r.live_data() is not None
            if not whole:
                rows = np.intersect1d(rows, r.sample, assume_unique=True)
            where = self._form_name(form)
            took = (f"rows that never reached {where}" if branch == NOT_REACHED
                    else f"rows that took {branch} of {where}")
            self._list(rows, took + ("" if whole else " (in the sample)"))
        self._note("")
        self.page = 0
        self._show_page()
        return self.row_count

    @property
    def row_count(self) -> int:
        """How many rows the pages go through now."""
        return self.rows.kept_rows if self.listed is None else len(self.listed)

    def _list(self, listed, listing: str) -> None:
        self.listed, self.listing = listed, listing

    def _position_in(self, listed, row: int) -> int | None:
        if listed is None:
            if not self.rows.has_rows:
                return None
            at = self.rows.kept_position(row)
            kept = self.rows.sample[at] if self.rows.sample is not None else at
            return at if kept == row and at < self.rows.kept_rows else None
        if isinstance(listed, range):
            return row if row in listed else None
        at = int(np.searchsorted(listed, row))
        return at if at < len(listed) and listed[at] == row else None

    def _note(self, text: str) -> bool:
        self.lookup_note.value = (f'<div class="exprscope-lookup-note" style="color:#92400e">'
                                  f"{html_text(text)}</div>") if text else ""
        return not text

    @property
    def page_count(self) -> int:
        return max(1, -(-self.row_count // self.page_size))

    def go_to_page(self, page: int) -> int:
        self.page = max(0, min(int(page), self.page_count - 1))
        self._show_page()
        return self.page

    def next_page(self) -> int:
        return self.go_to_page(self.page + 1)

    def previous_page(self) -> int:
        return self.go_to_page(self.page - 1)

    def visible_rows(self) -> list[dict]:
        """The rows on the current page, as the table shows them."""
        start = self.page * self.page_size
        if self.listed is None:
            return self.rows.page(start, self.page_size)
        return self.rows.look_up(np.asarray(self.listed[start:start + self.page_size]))

    # -- drawing --------------------------------------------------------------------
    def _show_page(self) -> None:
        if not self.rows.has_rows:
            return
        start = self.page * self.page_size
        total = self.row_count
        stop = min(total, start + self.page_size)
        what = "sampled rows" if self.rows.sample is not None else "rows"
        if self.listed is not None:
            what = self.listing + ":"
        self.page_label.value = (f"{what} {start:,}–{max(start, stop - 1):,} of "
                                 f"{total:,} (page {self.page + 1:,} of "
                                 f"{self.page_count:,})")
        self.previous_button.disabled = self.page == 0
        self.next_button.disabled = self.page >= self.page_count - 1
        self.table.value = self._table_html(self.visible_rows())

    def _summary_html(self) -> str:
        r = self.rows
        parts = [(f"<b>{html_text(bounded_text(r.expr, _HEADLINE_CHARS, short=True))}</b> on "
                  f"{_count(r.num_rows)} rows "
                 f"({html_text(r.event.mode)} evaluation)")]
        if r.error is not None:
            parts.append(f'<div class="exprscope-error" style="color:#b00020">'
                         f"{html_text(str(r.error))}</div>")
        forms = r.shown_forms
        head, tail = len(forms), 0
        if len(forms) > SUMMARY_FORMS:  # a long chain of forms: its ends, the middle counted
            head, tail = SUMMARY_FORMS - 3, 2
        for k, form in enumerate(forms):
            if head <= k < len(forms) - tail:
                if k == head:
                    parts.append(f"<div><i>… {len(forms) - head - tail:,} more special forms "
                                 "between these: each is a column of the table below.</i></div>")
                continue
            counts = _counts_text(r.branch_counts(form), r.branch_table.node(form.path))
            parts.append(f"<div><code>{html_text(form.text)}</code> "
                         f"({html_text(form.name)} at {_path_text(form.path)}): {counts}</div>")
        if len(r.forms) > len(r.shown_forms):
            parts.append(f"<div><i>… and {len(r.forms) - len(r.shown_forms):,} more special "
                         "forms below these (their nodes are in the table below).</i></div>")
        if r.sample is not None:
            parts.append(f"<div><i>A sample of {r.kept_rows:,} of the {r.num_rows:,} rows: the "
                         "first rows, the first rows of every branch"
                         + (", the rows around the failing one" if r.error is not None
                            and r.error.row is not None else "")
                         + ". Row numbers are the batch's; node counts below are complete."
                         "</i></div>")
        elif not r.has_rows:
            parts.append("<div><i>The batch's rows were not kept; "
                         "node counts below are complete.</i></div>")
        return "".join(parts)

    def _table_html(self, rows: list[dict]) -> str:
        """The page's rows: the row number and its value first (held in view while the
        table scrolls sideways), then the inputs, then a branch column per special form
        headed by what the form is about. Clicking a row opens its story."""
        r = self.rows
        inputs = r.input_columns()
        failed_row = r.failed_row
        no_values = r.error is not None and r.result is None
        value_head = "value (none: the evaluation failed)" if no_values else "value"
        heads = [form_heading(f, r.branch_table.node(f.path)) for f in r.shown_forms]
        out = [('<table class="exprscope-row-table" style="border-collapse:separate;'
                'border-spacing:0">'), '<tr style="background:#f3f4f6">',
               f'<th style="{_CELL}{_STICKY_ROW}">row</th>',
               (f'<th class="exprscope-value-head" style="{_CELL}{_STICKY_VALUE}">'
                f"{html_text(value_head)}</th>")]
        out += [f'<th style="{_CELL}">{html_text(name)}</th>' for name in inputs]
        out += [f'<th class="exprscope-form-head" style="{_CELL}white-space:nowrap" '
                f'title="{_tooltip(h.full)}"><code>{html_text(h.short)}</code></th>'
                for h in heads]
        out.append("</tr>")
        for record in rows:
            row = record["row"]
            failing = row == failed_row
            if failing:
                out.append('<tr class="exprscope-failing-row" style="background:#fee2e2">')
            elif row == self.target_row:
                out.append('<tr class="exprscope-target-row" style="background:#fef3c7">')
            else:
                out.append('<tr style="background:#fff">')
            cell = f'class="exprscope-row-{row}" style="{_CELL}{_CLICKABLE}'
            if failing:
                value = f"✘ fails here: {r.error.kind}"
            elif no_values:
                value = "—"
            else:
                value = _show(record["value"])
            out.append(f'<td {cell}{_STICKY_ROW}">{row:,}</td>')
            out.append(f'<td {cell}{_STICKY_VALUE}" title="{html_text(value, _TIP_CHARS)}">'
                       f"{html_text(value, _VALUE_CHARS)}</td>")
            out += [f'<td {cell}">{html_text(_show(record[c]))}</td>' for c in inputs]
            for form in r.shown_forms:
                branch = record[form_key(form)]
                style = "color:#999;" if branch == NOT_REACHED else "font-weight:bold;"
                out.append(f'<td {cell}{style}">{html_text(branch)}</td>')
            out.append("</tr>")
        out.append("</table>")
        notes = ["Click a row to see its story: its value at every node and why."]
        if any(record[key] == NOT_REACHED for record in rows
               for key in map(form_key, r.shown_forms)):
            notes.append(f"{NOT_REACHED} the row never reached that special form: an outer "
                         "branch did not send it there.")
        chains = {CHAIN_FORMS[f.name] for f in r.shown_forms if f.name in CHAIN_FORMS}
        if chains:
            notes.append(chain_legend(chains).capitalize() + ".")
        hidden = len(r.forms) - len(r.shown_forms)
        if hidden:
            notes.append(f"Branch columns for the outermost {len(r.shown_forms)} special "
                         f"forms; {hidden:,} more below them are counted in the node table.")
        out += [f'<div style="max-width:60em"><i>{html_text(n)}</i></div>' for n in notes]
        return "".join(out)

    def _nodes_html(self) -> str:
        out = [(f'<div style="{_SCROLL}">'
               '<table class="exprscope-node-table" style="border-collapse:collapse">'),
               (f'<tr><th style="{_CELL}">node</th><th style="{_CELL}">path</th>'
               f'<th style="{_CELL}">evaluated on</th><th style="{_CELL}">rows</th></tr>')]
        for node in self.rows.node_rows(MAX_NODE_ROWS, _ROW_PREVIEW):
            if node.row_indices is None or node.reached == node.total:
                which = "all"
            else:
                shown = ", ".join(str(i) for i in node.row_indices)
                which = shown + (", …" if node.reached > len(node.row_indices) else "")
            out.append(f'<tr><td style="{_CELL}"><code>{html_text(node.text)}</code></td>'
                       f'<td style="{_CELL}">{_path_text(node.path)}</td>'
                       f'<td style="{_CELL}">{html_text(node.summary)}</td>'
                       f'<td style="{_CELL}">{html_text(which)}</td></tr>')
        out.append("</table></div>")
        hidden = len(self.rows.event.nodes) - MAX_NODE_ROWS
        if hidden > 0:
            out.append(f"<div><i>The first {MAX_NODE_ROWS} nodes in evaluation order; "
                       f"{hidden:,} more are not listed.</i></div>")
        return "".join(out)


EVERY_ROW = (None, None)  # the branch filter's "no filter" (ipywidgets shows None as blank)
SUMMARY_FORMS = 8  # special forms counted one per line above the rows; more: ends and a count
MAX_NODE_ROWS = 500  # nodes listed; a deeper tree's are counted, the tree above shows them
_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:left;"
# the row number and the value stay at the left edge while the table scrolls sideways
_ROW_WIDTH = "7em"  # "1,999,999,999" fits
_STICKY_ROW = (f"position:sticky;left:0;z-index:1;background:inherit;min-width:{_ROW_WIDTH};"
               f"max-width:{_ROW_WIDTH};box-sizing:border-box;")
_STICKY_VALUE = (f"position:sticky;left:{_ROW_WIDTH};z-index:1;background:inherit;"
                 "box-shadow:2px 0 0 #9ca3af;")
_CLICKABLE = "cursor:pointer;"
_STORY_WIDTH = "40%"  # the story beside the table: at least this share of the width ...
_STORY_MOST = "60%"  # ... and as much as its picture needs to be seen whole, up to this
_VALUE_CHARS = 40  # a value's text in its cell; the tooltip holds more
_TIP_CHARS = 1000
_ROW_CLASS = re.compile(r"\bexprscope-row-(\d{1,19})\b")
_SCROLL = "max-height:360px;overflow-y:auto"  # big expressions have many nodes


_HEADLINE_CHARS = 160  # the expression above the rows: its beginning, on a line or two


def _tooltip(text: str) -> str:
    """Text for a title attribute: each line escaped, the lines kept (as `&#10;`)."""
    return "&#10;".join(html_text(line) for line in text.split("\n"))


def _story_html(story: RowStory) -> tuple[str, float | None]:
    """A row's story as `tk.explain_row` shows it in a notebook: its value and why above
    the picture (the text drawing when graphviz is missing); and the width, in points,
    the picture needs to be seen whole and readable (None without one)."""
    bundle = mimebundle(story)
    picture = bundle.get("text/html")
    svg = bundle.get("image/svg+xml")
    if picture is None:
        picture = text_html(bundle.get("text/plain", str(story)))
    return (f'<div class="exprscope-story-head"><b>Row {story.row:,}</b>: '
            f"{html_text(value_text(story.value) if story.error is None else 'fails')}</div>"
            f'<div class="exprscope-story-why" style="margin:4px 0">{html_text(story.why)}</div>'
            f"{picture}"), (readable_width(svg) if svg else None)


def _branch_words(name: str) -> str:
    """A branch as a count or a menu names it: `·` (the table's mark) in words."""
    return "not reached" if name == NOT_REACHED else name


def _counts_text(counts: dict[str, int], node) -> str:
    """A form's branch counts on a line: every one, or for a wide form the ones its picture
    draws, with those the picture folds counted together (the same branches, the same
    rows: a 250-branch case_when fills no page and agrees with its picture)."""
    folded = set()
    for item in shown_args(node) if node is not None and node.args else ():
        if isinstance(item, tuple):
            folded |= {arg_role(node, i) or f"arg {i}" for i in range(item[0], item[1] + 1)}
    items, hidden, rows = [], 0, 0
    for name, n in counts.items():
        if name in folded:
            if not hidden:
                items.append(None)  # where the folded ones go
            hidden, rows = hidden + 1, rows + n
        else:
            items.append(f"{html_text(_branch_words(name))}: {_count(n)}")
    middle = (f"<i>… {len(folded):,} more branches: {rows:,} rows (each in the menu "
              "\"rows that took\")</i>")
    return ", ".join(middle if item is None else item for item in items)


def _rows(count: int) -> str:
    return f"{count:,} row" + ("" if count == 1 else "s")


def _count(value) -> str:
    """A row count for HTML: thousands separators for a number, escaped text otherwise
    (a trace loaded from a file is a stranger's input)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return html_text(str(value))


def _path_text(path: tuple) -> str:
    return html_text(path_text(path))


def _show(value) -> str:
    """A cell's value as the pictures write it: `null`, `true`, `false`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
