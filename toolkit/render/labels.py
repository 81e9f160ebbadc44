"""What a node says about itself, and how that text is made safe for each medium.

Every renderer takes its words from here, so a field named
`<script>alert(1)</script>` or `a\\N"|{}` reads the same in a terminal, in DOT,
in SVG and in HTML, and never becomes markup or a graphviz escape: control
characters are spelled out (`\\n`), then each medium escapes its own specials.
"""

from __future__ import annotations

import html
import re

import pyarrow.compute as pc

from ..errors import UsageError
from ..model.expression import COMPARISON_SYMBOLS, Expression, Literal
from ..model.options import (
    cast_target,
    field_name_at,
    field_names,
    option_values,
    options_changed_text,
    options_to_string,
    value_set,
)
from ..observe import FUSED_MEMBER
from ..rewrite.positions import TreePath
from ..support.visible_text import visible as visible_characters

__all__ = [
    "MAX_FORM_COLUMNS",
    "SPECIAL_FORMS",
    "dot_text",
    "html_text",
    "node_detail",
    "node_kind",
    "node_title",
    "parse_path_text",
    "path_text",
    "readable",
    "share_text",
    "shorten",
    "type_text",
    "visible",
]

MAX_FORM_COLUMNS = 12  # branch columns in a table of rows (the outermost forms; the rest counted)
SPECIAL_FORMS = frozenset({"if_else", "case_when", "coalesce", "choose", "and_kleene",
                           "or_kleene"})

def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 group`, `2 groups`, `1,000 rows`: a count with its noun in the right number."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def shorten(text: str, limit: int = 60) -> str:
    """At most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def html_text(text: str, limit: int | None = None) -> str:
    """Text for HTML and SVG: visible, shortened when asked, then entity-escaped."""
    text = visible(str(text))
    if limit is not None:
        text = shorten(text, limit)
    return html.escape(text, quote=True)


def dot_text(text: str, limit: int | None = 60) -> str:
    """Text for a graphviz HTML-like label.

    Graphviz substitutes `\\N`, `\\G`, ... even inside HTML labels and after
    decoding entities; a doubled backslash is its escape for one backslash. Its
    HTML-label parser also fails on text that starts with `]` (a field named
    `]`), so brackets are written as character references.
    """
    text = visible(str(text))
    if limit is not None:
        text = shorten(text, limit)
    return html.escape(text.replace("\\", "\\\\"), quote=True).replace("]", "&#93;")


def dot_tooltip(text: str, limit: int = 400) -> str:
    """Text for a graphviz `tooltip` attribute: one printable line, bounded, backslashes escaped.

    Graphviz reads a tooltip's backslashes twice (`\\\\N` becomes the node's id),
    so each is written four times; it copies entities into the SVG as they are,
    so the text is escaped as for HTML (a name `&amp;` stays `&amp;`).
    """
    one_line = " ".join(readable(str(text)).split())  # Arrow prints value sets over many lines
    return html.escape(shorten(visible(one_line), limit).replace("\\", "\\" * 4), quote=True)


_VALUE_SET = re.compile(r"\{value_set=[^:\[{}]*:\[(?P<values>[^\]]*)\]"
                        r"(?:, null_matching_behavior=(?P<matching>\w+))?\}")
_CAST_OPTIONS = re.compile(r"\{to_type=(?P<type>.*?), allow_int_overflow=[^{}]*\}")
_SET_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"|[^,\s]+(?: [^,\s]+)*')  # a quoted string or a value
_ARROW_MATCHING = {"SKIP": 1, "EMIT_NULL": 2, "INCONCLUSIVE": 3}


def readable(text: str) -> str:
    """Text built from Arrow's expression strings (a rule's reason, a check's subject, a
    scan's filter) with options written as labels write them: a value set as literals
    on one line (`{1, 12}`), a cast's options as its target (`to double`)."""
    if "{" not in text:
        return text

    def value_set(found) -> str:
        values = _SET_ITEM.findall(found.group("values"))
        shown = values[:6] + ([f"… {len(values) - 6:,} more"] if len(values) > 6 else [])
        matching = _NULL_MATCHING.get(_ARROW_MATCHING.get(found.group("matching") or ""))
        return "{" + ", ".join(shown) + "}" + (f", {matching}" if matching else "")

    text = _VALUE_SET.sub(value_set, text)
    return _CAST_OPTIONS.sub(lambda found: f"to {found.group('type')}", text)


def visible(text: str) -> str:
    """Text as every printer shows it: options as labels write them (`readable`), then
    control and format characters spelled out (`visible_text.visible`)."""
    return visible_characters(readable(text))


def node_kind(node: Expression) -> str:
    """`literal`, `field`, `special` (a lazily evaluated special form) or `call`."""
    if node.is_literal:
        return "literal"
    if node.is_field:
        return "field"
    function = getattr(node, "function", None)
    if function is not None:
        kind = getattr(getattr(function, "kind", None), "name", "")
        return "special" if kind == "SPECIAL_FORM" else "call"
    return "special" if node.name in SPECIAL_FORMS else "call"


def node_title(node: Expression) -> str:
    """The main line: a call's name, a field's name or path, a literal's value."""
    if node.is_call:
        return node.name
    if node.is_literal and not node.is_scalar:
        return f"array of {len(node.value)}"
    return node.to_string()


def node_detail(node: Expression) -> str | None:
    """A second line for calls with options, e.g. `{to_type=int64, ...}`."""
    if node.is_call and node.options is not None:
        if node.name == "cast":
            try:
                return f"to {cast_target(node.options)}"
            except Exception:  # not CastOptions after all: fall through to the generic text
                pass
        if node.name in ("is_in", "index_in"):
            try:
                return value_set_text(node.options)
            except Exception:  # not SetLookupOptions after all: fall through
                pass
        if node.name == "make_struct":
            try:
                return _struct_fields_text(node.options)
            except Exception:  # not MakeStructOptions after all: fall through
                pass

        try:  # only what differs from the defaults: `{width=5, padding="*"}`
            text = options_changed_text(node.options)
            return text if text != "{}" else None
        except Exception:  # an options class Arrow cannot print: its class name still helps
            return type(node.options).__name__
    return None


def _struct_fields_text(options) -> str:
    """`fields 0, 1` for make_struct, unless nullability or metadata differ from Arrow's
    defaults (every field nullable, no metadata): then Arrow's full options text."""
    values = option_values(options)
    if all(values["field_nullability"]) and not any(values["field_metadata"]):
        return "fields " + ", ".join(values["field_names"])
    return options_to_string(options)


_NULL_MATCHING = {1: "nulls skipped", 2: "nulls give null", 3: "nulls inconclusive"}


def value_set_text(options, shown: int = 6) -> str:
    """An `is_in` value set on one line, as literals print: `{"Gentoo", "Chinstrap"}`.

    At most `shown` values, then how many more; a null matching other than
    Arrow's default (nulls match nulls) is named after the set.
    """

    values = value_set(options)
    texts = [Literal(values[i]).to_string() for i in range(min(shown, len(values)))]
    if len(values) > shown:
        texts.append(f"… {len(values) - shown:,} more")
    text = "{" + ", ".join(texts) + "}"
    matching = _NULL_MATCHING.get(option_values(options).get("null_matching_behavior"))
    return f"{text}, {matching}" if matching else text


def type_text(node: Expression) -> str | None:
    """The node's type once known (literals always; others after binding)."""
    t = node.type
    return None if t is None else str(t)


def arg_role(node: Expression, index: int) -> str | None:
    """What an argument is for, where the function gives it a role (if_else's cond/then/else)."""
    if not node.is_call:
        return None
    name, n = node.name, len(node.args)
    if name == "if_else" and n == 3:
        return ("cond", "then", "else")[index]
    if name == "case_when":
        if index == 0:
            return "conditions"
        has_else = n > 1 and node.args[0].is_call and node.args[0].name == "make_struct" \
            and n == len(node.args[0].args) + 2
        # numbered as Arrow's ToString numbers the conditions ({0=..., 1=...}): then k
        # is the value of condition k
        return "else" if has_else and index == n - 1 else f"then {index - 1}"
    if name == "coalesce":
        return f"arg {index}"
    if name == "choose":
        return "index" if index == 0 else f"value {index - 1}"
    if name == "make_struct" and node.options is not None:
        try:
            return field_name_at(node.options, index)
        except Exception:  # options that are not MakeStructOptions: no role
            return None
    return None


def bounded_text(expr: Expression, limit: int = 4000, short: bool = False) -> str:
    """`expr.to_string()`, streamed left to right and cut at `limit` characters (with `…`).

    The engine's `to_string` builds every subtree's text, which is quadratic on
    a 10,000-deep chain; a report or a label only shows the beginning anyway.
    Same format as Arrow's ToString (infix comparisons and Kleene logic,
    `{name=value}` structs, options last). `short`: options as a tree's labels
    show them (`cast(a, to double)`, `is_in(species, {"Gentoo", "Chinstrap"})`),
    for anything a person reads; Arrow's full text is for tests and exports.
    """
    out: list[str] = []
    size = 0
    # items: an Expression to print, or a literal piece of text
    stack: list = [expr]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            piece = item
        elif not item.is_call:
            piece = item.to_string()
        else:
            stack.extend(reversed(_call_pieces(item, COMPARISON_SYMBOLS, short)))
            continue
        out.append(piece)
        size += len(piece)
        if size > limit:
            return "".join(out)[: limit - 1] + "…"
    return "".join(out)


def _call_pieces(call, symbols, short: bool = False) -> list:
    """A call as a sequence of texts and argument expressions, in printing order."""
    args, name = call.args, call.name
    if name in symbols and len(args) == 2:
        return ["(", args[0], f" {symbols[name]} ", args[1], ")"]
    if name.endswith("_kleene") and len(args) == 2:
        return ["(", args[0], f" {name[: -len('_kleene')]} ", args[1], ")"]
    pieces: list = []
    if name == "make_struct" and call.options is not None:
        if isinstance(call.options, pc.MakeStructOptions):
            pieces.append("{")
            for i, (field_name, arg) in enumerate(zip(field_names(call.options), args)):
                pieces += [", " if i else "", f"{field_name}=", arg]
            pieces.append("}")
            return pieces
    pieces.append(f"{name}(")
    for i, arg in enumerate(args):
        pieces += [", " if i else "", arg]
    options = None if call.options is None else (
        node_detail(call) if short else options_to_string(call.options))
    if options:  # short text leaves out options that are Arrow's defaults
        pieces.append((", " if args else "") + options)
    pieces.append(")")
    return pieces


def rows_lines(stat, total: int, parent=None) -> list[str]:
    """A node's rows as short lines (a tree node's label): `3 of 5 rows`, or
    `computed on 100,000 · used on 51,051` and `dense: why` when it computed more
    rows than its value was used for; a literal is `one value for 212 of 344 rows`. The reason is left out when `parent` (the
    parent node's stat) ran on the same rows for the same reason: a tree says it
    once, at the top of the branch."""
    lines = _run_lines(stat, total, parent)
    fused = getattr(stat, "fused", "") or ""
    if fused and fused != FUSED_MEMBER:  # the group's top node: its mark, said once
        lines.append(f"fused: {fused}")
    return lines


def _run_lines(stat, total: int, parent) -> list[str]:
    used = stat.used
    how = getattr(stat, "how", "") or ""
    if how == "literal":  # nothing was computed: one value stands for the rows it is used on
        return [f"one value for {used:,} of {total:,} rows"]
    if used == stat.rows and how not in ("dense", "masked"):
        return [f"{stat.rows:,} of {total:,} rows"]
    computed = f"computed on {stat.rows:,} · used on {used:,}"
    if parent is not None and all(getattr(stat, name, None) == getattr(parent, name, None)
                                  for name in ("rows", "used", "how", "why")):
        return [computed]
    why = getattr(stat, "why", "") or ""
    return [computed, f"{how}: {why}" if why else how]


_VALUES = re.compile(r'-?\d[\d,.]*|"(?:[^"\\]|\\.)*"')


def repeat_key(rule: str, reason: str) -> tuple[str, str]:
    """Firings that are repeats of one another: the same rule for the same reason, the
    values in it aside (`literals moved ... 2 multiply_checked operands` at every branch
    of a 250-branch case_when). The report and the explorer list each group once."""
    return rule, _VALUES.sub("…", reason)


def time_text(stat) -> str:
    """A node's time as a label says it: `12.34 ms` when it is wall time (the node ran on
    one thread), `812.40 ms summed over 2 threads` when its morsels ran on several at
    once: that sum may pass the evaluation's wall time, so it never passes for it."""
    text = f"{stat.elapsed * 1000:,.2f} ms"
    threads = getattr(stat, "threads", 1) or 1
    return text if threads <= 1 else f"{text} summed over {threads:,} threads"


def wall_text(event) -> str:
    """An evaluation's wall time and the threads it ran on: `354.1 ms wall on 2 threads`."""
    threads = getattr(event, "threads", 1) or 1
    on = f" on {threads:,} threads" if threads > 1 else ""
    return f"{event.elapsed * 1000:,.1f} ms wall{on}"


CONDITIONS_RAN = "ran one condition at a time"


def conditions_ran(node: Expression, path, stats) -> bool:
    """Whether `node` is a struct of conditions that was never built as a whole because
    its fields ran one by one (case_when's conditions: each runs on the rows no earlier
    `when` took); `stats` maps paths to the evaluation's statistics."""
    return (node.is_call and node.name == "make_struct" and bool(node.args)
            and path not in stats and (*path, 0) in stats)


def rows_text(stat, total: int, parent=None) -> str:
    """The same as one line: `computed on 100,000 (dense: why) · used on 51,051`."""
    lines = rows_lines(stat, total, parent)
    if len(lines) == 1:
        return lines[0]
    if " · " not in lines[0]:  # rows, then the fused mark
        return f"{lines[0]} ({'; '.join(lines[1:])})"
    computed, used = lines[0].split(" · ")
    return f"{computed} ({'; '.join(lines[1:])}) · {used}"


def share_text(part: float, total: float, digits: int = 1) -> str:
    """`part` of `total` as a percentage that never rounds a few rows away: with one
    digit, 1 row of 50,000 is `<0.1%`, not `0.0%`, and all but one is `>99.9%`."""
    text, step = f"{100 * part / total:.{digits}f}%", 10.0 ** -digits
    if part > 0 and text == f"{0:.{digits}f}%":
        return f"<{step:.{digits}f}%"
    if part < total and text == f"{100:.{digits}f}%":
        return f">{100 - step:.{digits}f}%"
    return text


def path_text(path, sep: str = "/", limit: int = 12) -> str:
    """A path for people: `1/0/2`; past `limit` steps, runs written `1*400` (depth given).

    Chains (the usual deep tree) stay short and can be typed back (see
    `parse_path_text`); a long path without runs keeps its ends around `…`. A
    `TreePath` is printed from its table's runs, never copied whole: printing the
    paths of every node of a deep tree costs its size, not its size times its depth.
    """
    if not path:
        return "root"
    if isinstance(path, TreePath):
        return _tree_path_text(path, sep, limit)
    steps = tuple(path)
    if len(steps) <= limit:
        return sep.join(str(i) for i in steps)
    runs: list[list[int]] = []
    for i in steps:
        if runs and runs[-1][0] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    if len(runs) <= limit:
        return _runs_text(runs, len(steps), sep)
    return _ends_text(steps[:limit // 2], steps[-(limit // 2):], len(steps), sep)


def _runs_text(runs, depth: int, sep: str) -> str:
    parts = [f"{i}*{n}" if n >= 3 else sep.join([str(i)] * n) for i, n in runs]
    return f"{sep.join(parts)} (depth {depth:,})"


def _ends_text(head, tail, depth: int, sep: str) -> str:
    return (f"{sep.join(str(i) for i in head)}{sep}…{sep}{sep.join(str(i) for i in tail)} "
            f"(depth {depth:,})")


def _tree_path_text(path: TreePath, sep: str, limit: int) -> str:
    """`path_text` of a shared path: its runs read from the table, at most `limit` of them."""
    depth = len(path)
    if depth <= limit:
        return sep.join(str(i) for i in path.as_tuple())
    table = path.table
    summary = table.runs(path.pos)
    if summary.count <= limit:
        runs, at = [], summary
        while at.count:
            runs.append([at.index, at.length])
            at = table.runs(at.before) if at.before >= 0 else table.runs(0)
            if at.count == 0:
                break
        return _runs_text(runs[::-1], depth, sep)
    tail, at = [], path
    for _ in range(limit // 2):
        tail.append(at.last)
        at = at.parent
    return _ends_text(summary.head[:limit // 2], tail[::-1], depth, sep)


_MAX_TYPED_DEPTH = 10_000_000


def parse_path_text(text: str) -> tuple[int, ...]:
    """A path a person typed ("1/0/2", "1.0.2", "1*400/0", "root" or nothing) as indices.

    Reads what `path_text` writes, a trailing "(depth N)" included.
    """
    cleaned = re.sub(r"\s*\(depth [\d,]+\)\s*$", "", text.strip())
    if cleaned in ("", "root", "()"):
        return ()
    out: list[int] = []
    for part in cleaned.replace(".", "/").strip("/").split("/"):
        index, star, times = part.strip().partition("*")
        if not index.isdigit() or (star and not times.strip().isdigit()) or "…" in part:
            raise UsageError(f"{cleaned!r} is not a path: write argument numbers from the "
                             "root, such as 1/0/2, 1*400/0 for 400 steps into argument 1, "
                             "or root")
        count = int(times) if star else 1
        if len(out) + count > _MAX_TYPED_DEPTH:
            raise UsageError(f"{cleaned!r} goes deeper than any tree exprscope draws")
        out.extend([int(index)] * count)
    return tuple(out)
