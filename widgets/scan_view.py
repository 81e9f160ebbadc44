"""`ScanView(scan)`: a dataset scan explanation to page through, each file opening its trace.

The table of files (read or skipped, why, rows, bytes) shows one page at a
time, so a scan of thousands of files stays responsive; picking a file opens
the explorer on the passes that simplified the filter with its partition
guarantee. A saved notebook keeps the first page as plain HTML.
"""

from __future__ import annotations

import ipywidgets as w

from toolkit.render.scan_html import PAGE_SIZE, scan_html
from toolkit.render.scan_text import relative_paths
from toolkit.scan import ScanExplanation
from toolkit.support.visible_text import visible

from .explorer import Explorer

__all__ = ["ScanView"]


class ScanView(w.VBox):
    """The paged table of a `tk.explain_scan` result, with an explorer per file."""

    def __init__(self, scan: ScanExplanation, page_size: int = PAGE_SIZE, **kwargs):
        super().__init__(**kwargs)
        self.add_class("exprscope-scan-view")
        self.scan = scan
        self.page_size = page_size
        self.pages = max(1, -(-len(scan.fragments) // page_size))
        self.page = 0
        self.table = w.HTML()
        self.previous_button = w.Button(description="previous page", icon="arrow-left")
        self.next_button = w.Button(description="next page", icon="arrow-right")
        self.previous_button.on_click(lambda _: self.show_page(self.page - 1))
        self.next_button.on_click(lambda _: self.show_page(self.page + 1))
        names = relative_paths([f.path for f in scan.fragments])
        self.picker = w.Dropdown(
            options=[("pick a file to see its simplification", -1)]
            + [(("✓ " if f.kept else "✗ ") + visible(name), i)
               for i, (f, name) in enumerate(zip(scan.fragments, names))],
            value=-1, layout=w.Layout(width="100%"))
        self.picker.observe(lambda change: self.open_fragment(change["new"]), names="value")
        self.explorer_box = w.VBox()
        pager = w.HBox([self.previous_button, self.next_button])
        self.children = [self.table, pager if self.pages > 1 else w.HBox(), self.picker,
                         self.explorer_box]
        self.show_page(0)

    def show_page(self, page: int) -> None:
        self.page = min(max(page, 0), self.pages - 1)
        self.table.value = scan_html(self.scan, self.page, self.page_size)
        self.previous_button.disabled = self.page == 0
        self.next_button.disabled = self.page >= self.pages - 1

    def open_fragment(self, index: int) -> Explorer | None:
        """Show the explorer on file `index`'s partition simplification (-1 closes it)."""
        if index is None or index < 0:
            self.explorer_box.children = []
            return None
        explorer = Explorer(self.scan.fragments[index].trace)
        self.explorer_box.children = [explorer]
        return explorer

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = scan_html(self.scan, 0, self.page_size)
        return bundle
