"""SVG through graphviz's `dot` program, and SVG fit to sit inside an HTML page.

The Python package only writes DOT; the system's `dot` lays it out. When it is
missing, the error says how to install it instead of a FileNotFoundError.
"""

from __future__ import annotations

import html
import re
import shutil

from ..errors import (
    DotNotFound,  # defined with every other exprscope error
)
from ..support import late
from .dot import to_dot

graphviz_package = late.module("graphviz")

__all__ = [
    "DotNotFound",
    "caption_over_root",
    "dot_available",
    "fitted",
    "inline_svg",
    "opening_box",
    "readable_width",
    "root_box",
    "scrolling_picture",
    "to_svg",
    "to_svgs",
    "without_ids",
    "zoomed",
]


def dot_available() -> bool:
    return shutil.which("dot") is not None


def to_svg(obj, **options) -> str:
    """The picture of `obj` (anything `to_dot` draws, or a graphviz graph) as SVG text.

    A plain SVG at its natural size (its width and height in points, labels at 9pt
    and more), so a file of it opens readable in any viewer. Pages that show it
    inside HTML hold it with `scrolling_picture` or `fitted` instead."""
    graphviz = graphviz_package
    graph = obj if isinstance(obj, (graphviz.Digraph, graphviz.Graph)) else to_dot(obj, **options)
    try:
        return caption_over_root(without_ids(graph.pipe(format="svg", encoding="utf-8")))
    except graphviz.ExecutableNotFound:
        raise DotNotFound("graphviz's `dot` program is not installed; install it with "
                          "`apt-get install graphviz` (or `make system-packages`)") from None


# where one SVG document ends in `dot`'s output for several graphs, and the prefix it gives
# the ids of every graph after the first ("page0,1_graph0")
_SVG_END = re.compile(r"</svg>\s*")
_PAGE_ID = re.compile(r'id="page\d+,\d+_')


def to_svgs(objs, **options) -> list[str]:
    """The pictures of `objs`, as `to_svg` draws each, laid out by ONE `dot` run.

    `dot` reads several graphs from one input and writes one SVG document per
    graph, so a trace's pictures cost one process instead of one each (starting
    `dot` took most of a small picture's time)."""
    graphviz = graphviz_package
    graphs = [obj if isinstance(obj, (graphviz.Digraph, graphviz.Graph))
              else to_dot(obj, **options) for obj in objs]
    if not graphs:
        return []
    source = "\n".join(g.source for g in graphs).encode("utf-8")
    try:
        out = graphviz.pipe("dot", "svg", source, quiet=True).decode("utf-8")
    except graphviz.ExecutableNotFound:
        raise DotNotFound("graphviz's `dot` program is not installed; install it with "
                          "`apt-get install graphviz` (or `make system-packages`)") from None
    ends = [m.end() for m in _SVG_END.finditer(out)]
    if len(ends) != len(graphs):  # not one document per graph: draw each on its own
        return [to_svg(g) for g in graphs]
    starts = [0] + ends[:-1]
    return [caption_over_root(without_ids(_PAGE_ID.sub('id="', out[a:b])))
            for a, b in zip(starts, ends)]


_CAPTION_LINE = re.compile(r'(<text text-anchor="start" x=")([-\d.]+)(")')
CAPTION_MARGIN = 12.0  # points between a caption line and the picture's edge: graphviz's own


def caption_over_root(svg: str) -> str:
    """The picture's caption (its step and what it folded) moved over the root.

    Graphviz centers it over the whole drawing: on a wide picture that opens on its
    root, the title was off screen, cut at the box's edge. Each line keeps its
    width, stays inside the picture, and is centered on the root where it can be.

    A line's width is graphviz's estimate, from its own font metrics: a browser's
    font (DejaVu Sans for Helvetica on Debian) draws it a little wider. Graphviz
    leaves its widest line a margin on both sides for that; a moved line keeps
    within the same margins (pushed flush to the picture's edge, the end of a
    caption as wide as the picture was cut off).
    """
    view, shift, start = _VIEW.search(svg), _SHIFT.search(svg), svg.find('<g id="graph0"')
    box = root_box(svg)
    if view is None or shift is None or box is None or start < 0:
        return svg
    end = svg.find("<g id=", start + 1)
    end = len(svg) if end < 0 else end
    x0, width = float(view.group(1)), float(view.group(3))
    dx = float(shift.group(1))
    middle = width / 2 + x0 - dx  # where graphviz centered each line
    root = (box[0] + box[2]) / 2 * width + x0 - dx
    starts = [float(m.group(2)) for m in _CAPTION_LINE.finditer(svg, start, end)]
    if not starts:
        return svg
    # inside the picture by graphviz's margin (its widest line's, when that is less)
    margin = max(0.0, min(CAPTION_MARGIN, min(starts) - (x0 - dx)))
    low, high = x0 - dx + margin, x0 + width - dx - margin

    def moved(m):
        line = 2 * (middle - float(m.group(2)))  # the line's width, as graphviz centered it
        x = min(max(root - line / 2, low), high - line)
        return f"{m.group(1)}{max(low, x):.2f}{m.group(3)}"

    return svg[:start] + _CAPTION_LINE.sub(moved, svg[start:end]) + svg[end:]


_SVG_HEAD = re.compile(r'<svg(?: width="[^"]*")?(?: height="[^"]*")?'
                       r'(?: data-natural-width="[^"]*")?')
_TITLE = re.compile(r"<title>[^<]*</title>\n?")


def without_ids(svg: str) -> str:
    """The SVG without graphviz's <title> elements.

    Graphviz gives every node, edge and cluster a <title> holding its internal
    name (`n6`, `n0->n1`, `cluster_legend`), which browsers show as a tooltip
    wherever an element has no tooltip of its own. The pictures' own tooltips
    (their full labels) are kept: graphviz writes those as the links' titles.
    """
    return _TITLE.sub("", svg)


_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def inline_svg(svg: str) -> str:
    """The `<svg>` element alone: no XML prolog, DTD, comments or namespace URIs.

    HTML parses inline SVG without them, and a report that opens offline
    should not even name a URL it could fetch.
    """
    svg = _PROLOG.sub("", svg, count=1)
    svg = _COMMENT.sub("", svg)
    head, sep, rest = svg.partition(">")
    return _XMLNS.sub("", head) + sep + rest


# -- how big a picture is shown: one rule for the notebook and the HTML report ---------
_VIEW = re.compile(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"')
_SHIFT = re.compile(r'<g id="graph0"[^>]*translate\(([-\d.]+) ([-\d.]+)\)')
_ROOT = re.compile(r'<g id="node1" class="node[^"]*">(.*?)</g>', re.DOTALL)
_SHAPE = re.compile(r'\b(?:points|d)="([^"]*)"|<ellipse[^>]*cx="([-\d.]+)" cy="([-\d.]+)" '
                    r'rx="([\d.]+)" ry="([\d.]+)"')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


FIT_HEIGHT = "78vh"  # a fitted picture is at most this tall: whole on screen below its controls
MIN_FIT_SCALE = 0.8  # ... unless that would shrink its smallest (9pt) text below 9 px
ROOT_MARGIN = "40px"  # room kept around the root when the box opens scrolled to it


def fitted(svg: str) -> str:
    """The SVG scaled to be seen whole: no wider than the cell nor taller than the window,
    never above its natural size nor below `MIN_FIT_SCALE` of it (labels stay readable;
    the box around it scrolls then, opening on the root)."""
    size = _natural_size(svg)
    if size is None:
        return svg
    width, height = size
    fit = f"min(100%, {width:.0f}pt, calc({FIT_HEIGHT} * {width / height:.4f}))"
    return _framed(svg, f"max({width * MIN_FIT_SCALE:.0f}pt, {fit})", width)


def readable_width(svg: str) -> float | None:
    """The narrowest width, in points, at which `fitted` shows the picture whole (its
    labels still readable): a panel that gives it this much shows it with no scrolling."""
    size = _natural_size(svg)
    return None if size is None else size[0] * MIN_FIT_SCALE


def zoomed(svg: str, zoom: float) -> str:
    """The SVG at `zoom` times its natural size (its viewBox keeps the drawing whole)."""
    size = _natural_size(svg)
    if size is None:
        return svg
    return _framed(svg, f"{size[0] * zoom:.0f}pt", size[0])


def _natural_size(svg: str) -> tuple[float, float] | None:
    """The picture's natural width and height in points: its viewBox (graphviz draws
    one unit per point)."""
    view = _VIEW.search(svg)
    if view is None:
        return None
    return max(1.0, float(view.group(3))), max(1.0, float(view.group(4)))


def _framed(svg: str, width_rule: str, natural_width: float) -> str:
    """The SVG filling a frame `width_rule` wide, with a mark where the box that holds
    it starts scrolled (`scroll-initial-target`): a wide picture whose root sits far
    right opens on the root, not on an empty corner.

    The mark's left edge is where the box scrolls to: nowhere (0) when the root, its
    caption and its legend (`opening_box`) are already in view unscrolled; else those
    centered in the box (`cqw`: the box's width, it being a size container), as far
    as the root itself stays in view, its left edge first."""
    svg = _SVG_HEAD.sub('<svg style="display:block;width:100%;height:auto" '
                        f'data-natural-width="{natural_width:.0f}pt"', svg, count=1)
    root, around = root_box(svg), opening_box(svg)
    mark = ""
    if root is not None and around is not None:
        left, right = (f"{100 * v:.2f}%" for v in (root[0], root[2]))
        top, far = (f"{100 * v:.2f}%" for v in (around[1], around[2]))
        center = f"{50 * (around[0] + around[2]):.2f}%"
        centered = (f"min(calc({center} - 50cqw), "
                    f"calc(({far} + {ROOT_MARGIN} - 100cqw) * 1000))")
        scroll = (f"max(0px, min(max({centered}, calc({right} + {ROOT_MARGIN} - 100cqw)), "
                  f"calc({left} - {ROOT_MARGIN})))")
        mark = ('<div class="exprscope-root-mark" style="position:absolute;'
                f"left:{scroll};top:{top};width:1px;height:1px;"
                'scroll-initial-target:nearest;pointer-events:none"></div>')
    return (f'<div class="exprscope-picture" style="position:relative;width:{width_rule};'
            f'max-width:none">{svg}{mark}</div>')


def scrolling_picture(svg: str) -> str:
    """A picture for a page that shows it once, as it is (a notebook's rich display):
    `fitted` to the width it is given while its text stays readable, else held at that
    smallest readable scale in a box as wide as the page's column that scrolls
    sideways and opens on the root. A size container, so the picture cannot widen it."""
    return ('<div class="exprscope-static-picture" style="overflow-x:auto;overflow-y:hidden;'
            f'width:100%;container-type:inline-size">{fitted(inline_svg(svg))}</div>')


def root_box(svg: str) -> tuple[float, float, float, float] | None:
    """Where the root node (graphviz's first node) lies in the picture, as shares of its
    width and height: (left, top, right, bottom); None when the SVG has no nodes."""
    root = _ROOT.search(svg)
    return None if root is None else _shares(svg, _extent(root.group(1)))


def opening_box(svg: str) -> tuple[float, float, float, float] | None:
    """What a picture should open on, as `root_box` gives it: the root, the caption over
    it (its step, what it folded) and the legend beside it; None without a root."""
    root = _ROOT.search(svg)
    if root is None:
        return None
    boxes = [_extent(root.group(1))]
    legend = _LEGEND.search(svg)
    if legend is not None:
        boxes.append(_extent(legend.group(1)))
    start = svg.find('<g id="graph0"')
    end = svg.find("<g id=", start + 1)
    if start >= 0:
        boxes += [_caption_extent(m) for m in _CAPTION_TEXT.finditer(svg, start, end)]
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return _shares(svg, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                         max(b[2] for b in boxes), max(b[3] for b in boxes)))


_LEGEND = re.compile(r'<g id="node\d+" class="node legend">(.*?)</g>', re.DOTALL)
_CAPTION_TEXT = re.compile(r'<text text-anchor="start" x="([-\d.]+)" y="([-\d.]+)"'
                           r'[^>]*font-size="([\d.]+)"[^>]*>([^<]*)</text>')
_EM_PER_CHARACTER = 0.56  # Helvetica's average advance; a caption's width is only estimated


def _caption_extent(m) -> tuple[float, float, float, float]:
    """A caption line's box in drawing units (graphviz does not write text widths)."""
    x, y, size = (float(v) for v in m.group(1, 2, 3))
    width = len(html.unescape(m.group(4))) * size * _EM_PER_CHARACTER
    return x, y - size, x + width, y


def _extent(body: str) -> tuple[float, float, float, float] | None:
    """The box of the shapes in an SVG node's markup, in drawing units."""
    xs, ys = [], []
    for m in _SHAPE.finditer(body):
        if m.group(1) is not None:
            numbers = [float(v) for v in _NUMBER.findall(m.group(1))]
            xs += numbers[0::2]
            ys += numbers[1::2]
        else:
            cx, cy, rx, ry = (float(v) for v in m.groups()[1:])
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _shares(svg: str, box) -> tuple[float, float, float, float] | None:
    """A box in drawing units as shares of the picture's width and height."""
    view, shift = _VIEW.search(svg), _SHIFT.search(svg)
    if view is None or box is None:
        return None
    x0, y0, vw, vh = (float(v) for v in view.groups())
    dx, dy = (float(v) for v in shift.groups()) if shift else (0.0, 0.0)
    if vw <= 0 or vh <= 0:
        return None

    def share(v, origin, size):
        return min(1.0, max(0.0, (v - origin) / size))
    return (share(box[0] + dx, x0, vw), share(box[1] + dy, y0, vh),
            share(box[2] + dx, x0, vw), share(box[3] + dy, y0, vh))
