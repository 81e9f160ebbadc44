"""What the branch columns of a table of rows are called, and their order.

The notebook's selection view and the HTML report show an evaluation's rows with a
column per special form: which branch gave each row its value. Its head
names the form by what it is about, as a person reads the expression, never by
its node path: an `and`/`or` chain's column names the term it adds (`or x > 3`;
its cells say whether the row needed that term), an `if_else` its condition, any
other form its own text. Long texts are cut; the full text, the form's name and
its path go in the tooltip. Branch names in the cells are the pictures' (`then`,
`arg 0`, `then 0`, `left`, `right`), numbered from 0. A chain's columns come in the
order its terms were written (`or c1 == 1`, `or c2 == 2`, ...), not outermost first.
"""

from __future__ import annotations

from dataclasses import dataclass

from .labels import bounded_text, path_text, shorten

__all__ = ["CHAIN_FORMS", "ColumnHeading", "chain_legend", "form_heading", "reading_order"]

CHAIN_FORMS = {"and_kleene": "and", "or_kleene": "or"}
HEAD_CHARS = 30  # a column head's text; the tooltip holds the rest
_TOOLTIP_CHARS = 300


@dataclass(frozen=True)
class ColumnHeading:
    """A branch column's head: `short` is shown, `full` is its tooltip."""

    short: str
    full: str


def form_heading(form, node) -> ColumnHeading:
    """The head of the branch column of special form `form` (`node`: its tree node)."""
    where = f"{form.name} at {path_text(form.path)}"
    if node is None or not node.is_call or not node.args:
        return ColumnHeading(shorten(form.text or form.name, HEAD_CHARS), where)
    whole = bounded_text(node, _TOOLTIP_CHARS, short=True)
    word = CHAIN_FORMS.get(node.name)
    if word is not None and len(node.args) == 2:
        term = _term_text(node.args[1])
        short = f"{word} {shorten(term, HEAD_CHARS - len(word) - 1)}"
        full = (f"{word} {term}: whether the row needed this term ({_chain_meaning(word)})"
                f"\n{whole}\n{where}")
        return ColumnHeading(short, full)
    if node.name == "if_else":
        short = f"if {shorten(_term_text(node.args[0]), HEAD_CHARS - 3)}"
        return ColumnHeading(short, f"{whole}\n{where}")
    return ColumnHeading(shorten(whole, HEAD_CHARS), f"{whole}\n{where}")


def reading_order(forms: list) -> list:
    """`forms` (outermost first, as the table of forms lists them) with each left-deep
    `and`/`or` chain's run turned round, so its columns follow the written terms."""
    out, run = [], []
    for form in forms:
        if run and form.name == run[-1].name and form.path == (*run[-1].path, 0):
            run.append(form)
            continue
        out += reversed(run)
        run = [form] if form.name in CHAIN_FORMS else []
        if not run:
            out.append(form)
    out += reversed(run)
    return out


def chain_legend(words: set[str]) -> str:
    """What `left` and `right` mean in the columns of the `and`/`or` chains shown."""
    return "; ".join(f"in an “{w} …” column, {_chain_meaning(w)}" for w in sorted(words))


def _chain_meaning(word: str) -> str:
    already = "true" if word == "or" else "false"
    return (f"right: the row evaluated the term; left: the terms before it were already "
            f"{already}, so it was not evaluated")


def _term_text(node) -> str:
    """A term's text without the outer parentheses Arrow's format puts round infix calls."""
    text = bounded_text(node, _TOOLTIP_CHARS, short=True)
    if text.startswith("(") and text.endswith(")") and _one_group(text):
        return text[1:-1]
    return text


def _one_group(text: str) -> bool:
    """Whether the first `(` of `text` closes at its last character."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(text) - 1
    return False
