"""The shortest true sentence for why a guarantee rules a filter out.

A skipped fragment or row group has a guarantee (`year == 2020`, `x >= 5 and
x <= 9`) under which the filter can never be true. The full guarantee and
filter can be long; the reader wants the one member of each that clash, such as
"year == 2020 contradicts year >= 2022". Members are tried pairwise, then each
guarantee member against the whole filter, then the whole against the whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..functions.facts import conjuncts
from ..model.expression import Expression
from ..passes import is_satisfiable, simplify_with_guarantee

__all__ = ["Clash", "skip_reason"]


@dataclass(frozen=True)
class Clash:
    """The part of a guarantee and the part of a filter that cannot both hold."""

    guarantee: Expression
    filter: Expression

    def __str__(self) -> str:
        return f"{_text(self.guarantee)} contradicts {_text(self.filter)}"

    @property
    def filter_text(self) -> str:
        return _text(self.filter)

    @property
    def guarantee_text(self) -> str:
        return _text(self.guarantee)


def skip_reason(filter_expr: Expression, guarantee: Expression) -> Clash:
    """The first clashing (guarantee member, filter member) pair, else the wholes."""
    guarantee_members = conjuncts(guarantee)
    filter_members = conjuncts(filter_expr)
    for member in guarantee_members:
        for part in filter_members:
            if _rules_out(part, member):
                return Clash(member, part)
    for member in guarantee_members:
        if _rules_out(filter_expr, member):
            return Clash(member, filter_expr)
    return Clash(guarantee, filter_expr)


def _rules_out(part: Expression, guarantee: Expression) -> bool:
    return not is_satisfiable(simplify_with_guarantee(part, guarantee))


def _text(expr: Expression) -> str:
    text = str(expr)
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        return text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0
