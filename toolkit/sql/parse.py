"""SQL-expression text -> Expression. sqlglot parses; exprscope only translates.

    parse("a + 1 > 3")                    # (add(a, 1) > 3)
    parse("upper(name) LIKE 'AB%'")       # match_like(utf8_upper(name), {pattern="AB%", ...})

What the text means:

- Columns: `a`, `"a b"` (quoted, `""` for a quote), `a.b.c` -> field("a", "b", "c").
- Constants: integers are int64 (uint64 above int64's range), decimals and
  exponents double, `'text'` utf8 (`''` for a quote), TRUE/FALSE, NULL (type null),
  `DATE '2020-01-31'`, `TIMESTAMP '2020-01-31 10:00:00'` (timestamp[us]),
  `INTERVAL '90' MINUTE` (a duration; units NANOSECOND..WEEK, not MONTH/YEAR,
  whose length varies), `-5` is the constant -5, not negate(5).
- Typed constants: `CAST(<constant> AS T)` *is* a constant of type T
  (`CAST(1 AS INT)` is an int32 literal, `CAST(NULL AS INT)` a typed null); this
  is how `Expression.to_sql()` writes literals whose type plain SQL does not say.
  A cast that cannot be done now stays a `cast` call, as does a cast of anything
  else; write `CAST((1) AS INT)` to keep a cast call of a constant.
- Operators: + - * / (add, subtract, multiply, divide), unary - (negate),
  = <> != < <= > >= (equal ...), AND / OR / NOT (and_kleene, or_kleene, invert),
  & | ^ ~ << >> (bit_wise_*, shift_*), || (string concatenation).
- `x IS NULL` is is_null(x, {nan_is_null=false}); `x IS NOT NULL` is is_valid(x).
- `x IN (1, 2)` is is_in with a SetLookupOptions value set (constants only);
  `x BETWEEN lo AND hi` is `(x >= lo) and (x <= hi)`.
- `CASE WHEN c THEN v ... [ELSE e] END` (and the simple `CASE x WHEN 1 ...` form,
  whose conditions become `x == 1`) is Arrow's case_when; `IF(c, a, b)` is if_else.
- `LIKE` / `ILIKE` are match_like (ignore_case for ILIKE); `EXTRACT(YEAR FROM t)`
  is year(t). Function names go through one table (`toolkit.sql.functions`):
  upper -> utf8_upper, substr -> utf8_slice_codeunits, concat ->
  binary_join_element_wise, ...; day_of_week numbers Monday as 0, as Arrow does.
  Any other name is kept as written; a bare name no function has (`divde(a, 2)`)
  raises UnknownFunctionNameError (a ParseError and an UnknownFunctionError)
  with a caret under it and the near names. A quoted name is taken as it is,
  registered or not (`"my_udf"(a)`, for a function registered later).
- Arrow's own calls: a quoted function name is taken verbatim, `"round"(x)` is
  round with no options; `name => value` keywords build the function's pyarrow
  options, `is_null(x, nan_is_null => TRUE)`. `struct(a AS x, b AS y)` is make_struct.

Anything else (a SELECT, two statements, an alias, `*`, garbage, a construct with
no Arrow meaning) raises ParseError with a caret under the place. The text is
never evaluated. sqlglot recurses into parentheses, so text nested deeper than
`MAX_NESTING` (32 parentheses, NOT and CASE inside each other) is refused with a
caret where it gets too deep. A long chain of operators nests nothing
(`a + a + ... + a`, 10,000 terms), and the translation walks sqlglot's tree with
an explicit stack, so the deep trees such chains make parse.

This module checks the text on its own; sqlglot and the translation of its tree
(`toolkit.sql.reader`) are loaded on the first parse.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import ParseError
from ..model.expression import Expression
from ..support import late
from ..support.visible_text import hidden_at

# sqlglot costs more to import than the rest of toolkit; the first parse loads it
sql_reader = late.module("toolkit.sql.reader")

__all__ = ["parse"]

MAX_NESTING = 32  # parentheses, NOT and CASE inside each other; documented in docs/api.md


def parse(text: str) -> Expression:
    """Read one SQL expression as an exprscope Expression (see the module docstring)."""
    if not isinstance(text, str):
        raise ParseError(f"parse() reads text (a str), not {type(text).__name__}", repr(text), 0)
    if not text.strip():
        raise ParseError("there is no expression: the text is empty", text, 0)
    _check_text(text)
    _check_nesting(text)
    return sql_reader.read(text)


def _check_nesting(text: str) -> None:
    """Refuse text that nests deeper than `MAX_NESTING`, with a caret where it gets too deep.

    sqlglot's parser recurses (about 20 Python frames per level); raising the
    interpreter's recursion limit for it would change every thread's, so deep
    text is refused up front. Long chains (`a + b + c + ...`) do not nest and
    parse at any length.
    """
    where = _too_deep_at(text)
    if where is not None:
        raise ParseError(f"the expression nests more than {MAX_NESTING} levels deep "
                         "(parentheses, function calls, NOT and CASE inside each other)",
                         text, where)


def _too_deep_at(text: str) -> int | None:
    """Where the nesting first exceeds MAX_NESTING, outside quotes: open parentheses, open
    CASE ... END, and a run of NOTs (each NOT nests the next); None when it never does."""
    parens = cases = nots = 0
    quote = None
    for match in re.finditer(r"""['"`]|[()]|\w+""", text):
        token = match.group(0)
        if quote:
            if token == quote:
                quote = None
            continue
        upper = token.upper()
        nots = nots + 1 if upper == "NOT" else 0
        if token in ("'", '"', "`"):
            quote = token
        elif token == "(":
            parens += 1
        elif token == ")":
            parens -= 1
        elif upper == "CASE":
            cases += 1
        elif upper == "END":
            cases -= 1
        if parens + max(cases, 0) + nots > MAX_NESTING:
            return match.start()
    return None


_TYPOS = [
    (re.compile(r"[<>]\s+[<>=]"), "two comparison operators in a row (`> >` is not `>>`; "
                                   "write one operator, or `>>` for a shift without a space)"),
    (re.compile(r";"), "a semicolon ends a statement; write one expression without `;`"),
]


def _check_text(text: str) -> None:
    """Refuse what sqlglot would silently read as something else, with a caret under it.

    A string literal ('...') is data and may hold any character but a lone surrogate
    (which no encoding can carry); names, quoted or not, and the rest of the text may
    not hold a character that would not show as itself: whatever `visible` spells
    as an escape (controls but tab and line breaks, format characters such as
    U+200B, bidi controls, odd spaces, stray combining marks), the one rule for
    what a person can read.
    """
    surrogate = re.search("[\ud800-\udfff]", text)
    at = surrogate.start() if surrogate else hidden_at(_outside_quotes(text, "'"), keep=" \t\n\r")
    if at is not None:
        ch = text[at]
        name = unicodedata.name(ch, "") if not surrogate else "a lone surrogate"
        raise ParseError(f"the text holds an invisible or control character (U+{ord(ch):04X}"
                         f"{' ' + name if name else ''}) outside a string literal; a name "
                         "would print like another; remove it", text, at)
    outside = _outside_quotes(text)
    for pattern, reason in _TYPOS:
        found = pattern.search(outside)
        if found is not None:
            raise ParseError(reason, text, found.start(), len(found.group(0)))


def _outside_quotes(text: str, blank: str = "'\"`") -> str:
    """`text` with the insides of the quotes in `blank` blanked (same length, same
    positions); every kind of quote is tracked, so a `'` inside `"..."` opens nothing."""
    out = list(text)
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
            elif quote in blank:
                out[i] = " "
        elif ch in "'\"`":
            quote = ch
    return "".join(out)
