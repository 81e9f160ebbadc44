"""The part of `toolkit.sql.parse` that needs sqlglot: its parse tree, read as an Expression.

sqlglot costs more to import than the rest of toolkit (docs/benchmarks.md), so
`toolkit.sql.parse` checks the text on its own and loads this module (a stand-in from
`toolkit.support.late`) on the first parse.
`read` parses the checked text and translates sqlglot's tree: each kind of node
has a pair of handlers in `_HANDLERS`. `KEYWORDS` are the words sqlglot's
tokenizer takes as keywords, which `toolkit.sql.to_sql` quotes when a name is one.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import ClassVar

import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.parser import Parser
from sqlglot.tokens import Tokenizer, TokenType

from ..errors import BuildError, ParseError, UnknownFunctionNameError
from ..functions.registry import has_function, near_names
from ..model.builders import case_when, make_struct
from ..model.expression import Call, Expression, Literal, Parameter
from ..model.field_ref import FieldRef
from ..support import text_spans
from ..support.gc_pause import gc_paused
from .functions import EXTRACT_UNITS, SQL_FUNCTIONS, ArgumentError, options_from_kwargs
from .types import SqlTypeError, arrow_type_for

__all__ = ["KEYWORDS", "read"]

KEYWORDS = frozenset(k.upper() for k in Tokenizer.KEYWORDS)


class _ExpressionParser(Parser):
    # no built-in function table: every call stays Anonymous with its name as written,
    # so the one table in sql_functions decides what a name means
    FUNCTIONS: ClassVar[dict] = {}
    FUNCTION_PARSERS: ClassVar[dict] = {k: v for k, v in Parser.FUNCTION_PARSERS.items()
                        if k in ("CAST", "TRY_CAST", "EXTRACT", "SUBSTRING")}


class _ExpressionDialect(Dialect):
    parser_class = _ExpressionParser

    class Parser(_ExpressionParser):
        pass


_DIALECT = _ExpressionDialect()


def read(text: str) -> Expression:
    """The Expression of `text`, which `toolkit.parse` has checked (see its docstring).

    The cyclic collector is paused meanwhile (as for a pass, see `gc_pause`): a
    megabyte of text builds a million small objects, and collections rescanning
    them made reading super-linear; sqlglot's tree (its nodes point to their
    parents) is collected after.
    """
    with gc_paused():
        return _read(text)


def _read(text: str) -> Expression:
    try:
        tokens = _DIALECT.tokenize(text)
        statements = _sqlglot_parse(tokens, text)
    except sqlglot.errors.ParseError as exc:
        err = exc.errors[0] if exc.errors else {}
        highlight = err.get("highlight") or " "
        pos = _position_of(text, err.get("line", 1), err.get("col", 1), highlight)
        reason = _readable(err.get("description") or str(exc))
        raise ParseError(f"cannot parse the expression: {reason}", text, pos,
                         len(highlight)) from None
    except sqlglot.errors.TokenError as exc:
        quote = _unterminated_quote(text)
        if quote is not None:
            raise ParseError(f"unterminated quote {text[quote]}", text, quote) from None
        pos = exc.start if exc.start is not None else 0
        raise ParseError(f"cannot read the text: {exc}", text, pos) from None
    if "," in text:
        _reject_empty_arguments(tokens, text)
    statements = [s for s in statements if s is not None]
    if not statements:
        raise ParseError("there is no expression in the text", text, 0)
    if len(statements) > 1:
        span = _spans(statements[1]).get(id(statements[1]))
        raise ParseError(f"expected one expression, found {len(statements)} statements",
                         text, span[0] if span else text.find(";") + 1)
    return _translate(statements[0], _Context(text, statements[0]))


# -- running sqlglot -------------------------------------------------------------------
def _sqlglot_parse(tokens: list, text: str) -> list:
    """sqlglot's statements (`toolkit.parse` already refused text that nests too deeply)."""
    try:
        return _DIALECT.parser().parse(tokens, text)
    except RecursionError:
        raise ParseError("the expression nests too deeply to read", text, 0) from None


# -- positions ---------------------------------------------------------------------------
def _spans(root) -> dict[int, tuple[int, int]]:
    """(start, end) offsets in the text covered by each node of `root`'s tree, by id.

    A node covers its own tokens and all of its descendants'; one breadth-first
    walk, then children before parents, so a 10,000-term chain costs one pass
    over the tree rather than one pass per node.
    """
    order = list(root.walk())  # breadth-first, iterative
    spans: dict[int, tuple[int, int]] = {}
    for n in reversed(order):  # every child comes after its parent in `order`
        meta = n.meta if isinstance(n, exp.Expression) else None
        lo = hi = None
        if meta and "start" in meta:
            lo, hi = meta["start"], meta["end"] + 1
        for child in n.iter_expressions():
            span = spans.get(id(child))
            if span is not None:
                lo = span[0] if lo is None else min(lo, span[0])
                hi = span[1] if hi is None else max(hi, span[1])
        if lo is not None:
            spans[id(n)] = (lo, hi)
    return spans


class _Context:
    def __init__(self, text: str, root):
        self.text = text
        self.spans = _spans(root)

    def span(self, node) -> tuple[int, int] | None:
        return self.spans.get(id(node))

    def error(self, reason: str, node=None, fallback: int = 0) -> ParseError:
        span = None
        if node is not None:
            span = self.span(node) or self._locate(node)
        if span is None:
            return ParseError(reason, self.text, fallback, 1)
        return ParseError(reason, self.text, span[0], max(1, span[1] - span[0]))

    def _locate(self, node) -> tuple[int, int] | None:
        """Nodes sqlglot keeps no position for (TRUE, NULL, a type name): find their text
        after the start of the nearest ancestor that has a position."""
        start, parent = 0, node.parent
        while parent is not None:
            span = self.span(parent)
            if span is not None:
                start = span[0]
                break
            parent = parent.parent
        try:
            word = node.sql()
        except (sqlglot.errors.SqlglotError, ValueError, TypeError, KeyError, AttributeError):
            # sqlglot cannot print every fragment on its own
            return None
        m = re.compile(re.escape(word), re.IGNORECASE).search(self.text, start) if word else None
        return (m.start(), m.end()) if m else None

    def snippet(self, node) -> str:
        span = self.span(node)
        if span is None:
            return type(node).__name__
        return self.text[span[0]: span[1]]


def _position_of(text: str, line: int, col: int, highlight: str) -> int:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    line_start = starts[min(max(line, 1), len(starts)) - 1]
    return max(0, min(len(text), line_start + col - len(highlight)))


def _unterminated_quote(text: str) -> int | None:
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":
            j = i + 1
            while True:
                j = text.find(ch, j)
                if j < 0:
                    return i
                if j + 1 < n and text[j + 1] == ch:  # a doubled quote is a quote
                    j += 2
                    continue
                break
            i = j + 1
        else:
            i += 1
    return None


# -- sqlglot's messages, and the translation ---------------------------------------------
_OPERATOR_NAMES = {
    "Add": "'+'", "Sub": "'-'", "Mul": "'*'", "Div": "'/'", "IntDiv": "'DIV'", "Mod": "'%'",
    "EQ": "'='", "NEQ": "'!='", "GT": "'>'", "GTE": "'>='", "LT": "'<'", "LTE": "'<='",
    "And": "AND", "Or": "OR", "Not": "NOT", "Neg": "unary '-'", "Is": "IS", "In": "IN",
    "Like": "LIKE", "ILike": "ILIKE", "Between": "BETWEEN", "DPipe": "'||'", "BitwiseAnd": "'&'",
    "BitwiseOr": "'|'", "BitwiseXor": "'^'", "Paren": "'('", "Cast": "CAST", "Case": "CASE",
    "If": "IF", "Xor": "XOR",
}


def _readable(description: str) -> str:
    """sqlglot's "Required keyword: 'expression' missing for <class '...Add'>" in plain words."""
    m = re.fullmatch(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>", description)
    if m:
        part = {"this": "its left operand", "expression": "its right operand"}.get(
            m.group(1), f"its {m.group(1)} part")
        what = _OPERATOR_NAMES.get(m.group(2), "an expression")
        return f"{what} is missing {part}"
    return re.sub(r"<class '[\w.]*?(\w+)'>", lambda c: _OPERATOR_NAMES.get(c.group(1), "it"),
                  description)


def _reject_empty_arguments(tokens: list, text: str) -> None:
    """sqlglot silently drops empty list items (`f(1,,2)`); an expression never has them."""
    kinds = [t.token_type for t in tokens]
    comma, lp, rp = TokenType.COMMA, TokenType.L_PAREN, TokenType.R_PAREN
    for i, kind in enumerate(kinds):
        if kind != comma:
            continue
        before = kinds[i - 1] if i else None
        after = kinds[i + 1] if i + 1 < len(kinds) else None
        if before in (comma, lp, None) or after in (rp, None):
            raise ParseError("an argument is missing around this comma", text, tokens[i].start)


def _translate(root, ctx: _Context) -> Expression:
    """Post-order over sqlglot's tree with an explicit stack (no recursion)."""
    done: dict[int, Expression] = {}
    stack: list[tuple[object, list | None]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        if kids is None:
            handler = _HANDLERS.get(type(node))
            if handler is None:
                raise _unsupported(node, ctx)
            kids = handler[0](node, ctx)
            stack.append((node, kids))
            stack.extend((k, None) for k in reversed(kids))
            continue
        args = [done.pop(id(k)) for k in kids]
        try:
            built = done[id(node)] = _HANDLERS[type(node)][1](node, args, ctx)
            if built.is_call:
                text_spans.remember(built, ctx.text, ctx.span(node))
        except ArgumentError as exc:
            where = kids[exc.index] if exc.index is not None and exc.index < len(kids) else node
            raise ctx.error(exc.reason, where) from None
        except (ParseError, BuildError):
            raise
        except (OverflowError, ValueError, TypeError, UnicodeError, pa.ArrowException) as exc:
            # a value no Arrow type holds (an index past int64, a set Arrow cannot type)
            raise ctx.error(f"cannot use this here: {_plain(exc)}", node) from None
    return done[id(root)]


def _plain(exc: Exception) -> str:
    """An internal error's message in a few words, without Python's or Arrow's prefixes."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    text = text.replace("Python int too large to convert to C long",
                        "the number is too large (at most 2**63 - 1)")
    return text[:200]


def _unsupported(node, ctx: _Context) -> ParseError:
    if isinstance(node, exp.Alias):
        alias = node.args.get("alias")
        return ctx.error("an alias (`... AS name`) is not an expression: parse() reads one "
                         "expression, not a select list", alias or node)
    if isinstance(node, (exp.Query, exp.Subquery)):
        return ctx.error("a query (SELECT ...) is not an expression", node)
    if isinstance(node, exp.Star):
        return ctx.error("`*` is not an expression; name the columns", node)
    if isinstance(node, exp.TryCast):
        return ctx.error("TRY_CAST is not supported (Arrow's cast fails on bad values); use CAST",
                         node)
    if isinstance(node, exp.Mod):
        return ctx.error("`%` is not supported: Arrow has no modulo function", node)
    name = type(node).__name__
    return ctx.error(f"unsupported construct ({name}): {ctx.snippet(node)}", node)


# each handler: (children(node, ctx) -> sqlglot nodes to translate first,
#                build(node, translated children, ctx) -> Expression)
def _none(node, ctx):
    return []


def _this(node, ctx):
    return [node.this]


def _binary_kids(node, ctx):
    return [node.this, node.expression]


def _call_of(name):
    def build(node, args, ctx):
        return Call(name, args)

    return build


_MAX_NUMBER_CHARS = 400  # far beyond any Arrow type (decimal256 has 76 digits)


def _literal(node, args, ctx) -> Expression:
    if node.is_string:
        return Literal(pa.scalar(node.this, pa.string()))
    return Literal(_number(node.this, node, ctx))


def _number(text: str, node, ctx) -> pa.Scalar:
    if len(text) > _MAX_NUMBER_CHARS:
        raise ctx.error(f"a number of {len(text):,} characters; numbers have at most "
                        f"{_MAX_NUMBER_CHARS}", node)
    if re.fullmatch(r"-?\d+", text):
        value = int(text)
        if -(2**63) <= value < 2**63:
            return pa.scalar(value, pa.int64())
        if 0 <= value < 2**64:
            return pa.scalar(value, pa.uint64())
        raise ctx.error(f"integer {text} is outside the 64-bit range", node)
    try:
        value = float(text)
    except ValueError:
        raise ctx.error(f"cannot read the number {text}", node) from None
    if math.isinf(value):
        raise ctx.error(f"the number {text} is beyond the range of a double", node)
    return pa.scalar(value, pa.float64())


def _boolean(node, args, ctx):
    return Literal(pa.scalar(bool(node.this), pa.bool_()))


def _null(node, args, ctx):
    return Literal(pa.scalar(None))


def _neg(node, args, ctx):
    inner = node.this
    if isinstance(inner, exp.Literal) and not inner.is_string:
        return Literal(_number("-" + inner.this if not inner.this.startswith("-")
                               else inner.this[1:], node, ctx))
    return Call("negate", args)


def _not_kids(node, ctx):
    inner = node.this
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        return [inner.this]
    return [inner]


def _not(node, args, ctx):
    inner = node.this
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        return Call("is_valid", args)
    return Call("invert", args)


def _is(node, args, ctx):
    if not isinstance(node.expression, exp.Null):
        raise ctx.error("only `IS NULL` and `IS NOT NULL` are supported", node.expression)
    return Call("is_null", args[:1], pc.NullOptions(nan_is_null=False))


def _paren(node, args, ctx):
    return args[0]


def _column_names(node, ctx) -> list[str]:
    parts = []
    dots = []
    while isinstance(node, exp.Dot):
        dots.append(node.expression)
        node = node.this
    if not isinstance(node, exp.Column):
        raise ctx.error("field access (`.name`) works on columns only", node)
    for key in ("catalog", "db", "table", "this"):
        part = node.args.get(key)
        if part is not None:
            parts.append(part)
    parts.extend(reversed(dots))
    names = []
    for part in parts:
        if not isinstance(part, exp.Identifier):
            raise ctx.error(f"`{ctx.snippet(part)}` is not a field name", part)
        names.append(part.this)
    return names


def _column(node, args, ctx):
    return Parameter(FieldRef(*_column_names(node, ctx)))


def _in_kids(node, ctx):
    for key in ("query", "unnest", "field"):
        if node.args.get(key) is not None:
            raise ctx.error("IN takes a list of constants, not a query", node.args[key])
    values = node.expressions
    if not values:
        raise ctx.error("IN () needs at least one value", node)
    return [node.this, *values]


def _in(node, args, ctx):
    values = args[1:]
    kinds: list[pa.DataType] = []
    for v, src in zip(values, node.expressions):
        if not (v.is_literal and v.is_scalar):
            raise ctx.error(f"IN (...) takes constants; `{ctx.snippet(src)}` is not one", src)
        if v.type != pa.null() and v.type not in kinds:
            kinds.append(v.type)
    if not kinds:
        target = pa.null()
    elif len(kinds) == 1:
        target = kinds[0]
    elif set(kinds) <= {pa.int64(), pa.float64()}:
        target = pa.float64()
    else:
        raise ctx.error(f"IN (...) mixes constants of types {', '.join(map(str, kinds))}",
                        node.expressions[0])
    value_set = pa.array([(v.value if v.type == target else v.value.cast(target)).as_py()
                          for v in values], type=target)
    return Call("is_in", args[:1], pc.SetLookupOptions(value_set))


def _between_kids(node, ctx):
    if node.args.get("symmetric"):
        raise ctx.error("BETWEEN SYMMETRIC is not supported", node)
    return [node.this, node.args["low"], node.args["high"]]


def _between(node, args, ctx):
    x, low, high = args
    return Call("and_kleene", [Call("greater_equal", [x, low]), Call("less_equal", [x, high])])


def _like_kids(node, ctx):
    return [node.this, node.expression]


def _like(node, args, ctx):
    pattern = args[1]
    if not (pattern.is_literal and pattern.is_scalar and pattern.type == pa.string()
            and pattern.value.is_valid):
        raise ctx.error("the pattern of LIKE must be a string constant", node.expression)
    options = pc.MatchSubstringOptions(pattern.value.as_py(),
                                       ignore_case=isinstance(node, exp.ILike))
    out = Call("match_like", args[:1], options)
    return Call("invert", [out]) if node.args.get("negate") else out


def _case_kids(node, ctx):
    kids = []
    if node.this is not None:
        kids.append(node.this)
    for branch in node.args.get("ifs") or []:
        kids.extend([branch.this, branch.args["true"]])
    if node.args.get("default") is not None:
        kids.append(node.args["default"])
    return kids


def _case(node, args, ctx):
    args = list(args)
    subject = args.pop(0) if node.this is not None else None
    n = len(node.args.get("ifs") or [])
    if n == 0:
        raise ctx.error("CASE needs at least one WHEN ... THEN ...", node)
    cases = []
    for i in range(n):
        cond, value = args[2 * i], args[2 * i + 1]
        if subject is not None:
            cond = Call("equal", [subject, cond])
        cases.append((cond, value))
    else_ = args[2 * n] if node.args.get("default") is not None else None
    return case_when(cases, else_=else_)


def _if_kids(node, ctx):
    if node.args.get("false") is None:
        raise ctx.error("IF needs three arguments: IF(condition, then, else)", node)
    return [node.this, node.args["true"], node.args["false"]]


def _if(node, args, ctx):
    return Call("if_else", args)


def _sql_type(dt, ctx, where) -> pa.DataType:
    if not isinstance(dt, exp.DataType):
        raise ctx.error("CAST needs a type name", where)
    if dt.this == exp.DataType.Type.USERDEFINED:
        name = str(dt.args.get("kind") or "").upper()
    else:
        name = dt.this.value.upper()
    params = []
    for p in dt.expressions:
        inner = p.this if isinstance(p, exp.DataTypeParam) else p
        if not (isinstance(inner, exp.Literal) and re.fullmatch(r"\d+", inner.this)):
            raise ctx.error(f"type {name} has a parameter that is not a number; nested "
                            "types are not supported in CAST", where)
        if len(inner.this) > 6:
            raise ctx.error(f"type {name}'s parameter {inner.this} is far too large", where)
        params.append(int(inner.this))
    if name in ("DECIMAL", "NUMERIC", "DEC") and len(params) == 2 and params[1] > params[0]:
        raise ctx.error(f"{name}({params[0]}, {params[1]}): the scale cannot exceed the "
                        "precision", where)
    try:
        return arrow_type_for(name, params)
    except SqlTypeError as exc:
        raise ctx.error(str(exc), where) from None


def _cast_kids(node, ctx):
    if node.args.get("format") is not None:
        raise ctx.error("CAST ... FORMAT is not supported", node.args["format"])
    return [node.this]


def _cast(node, args, ctx):
    target = _sql_type(node.args.get("to"), ctx, node.args.get("to") or node)
    arg = args[0]
    if arg.is_literal and arg.is_scalar and not isinstance(node.this, exp.Paren):
        try:
            return Literal(arg.value.cast(target, safe=True))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            pass  # it cannot be cast now; the cast call will say so, with the row
    return Call("cast", [arg], pc.CastOptions.safe(target))


_INTERVAL_UNITS = {
    "NANOSECOND": ("ns", 1), "MICROSECOND": ("us", 1), "MILLISECOND": ("ms", 1),
    "SECOND": ("s", 1), "MINUTE": ("s", 60), "HOUR": ("s", 3600), "DAY": ("s", 86400),
    "WEEK": ("s", 604800),
}
_FINER = {"s": "ms", "ms": "us", "us": "ns"}


def _interval(node, args, ctx):
    value = node.this
    sign = ""
    if isinstance(value, exp.Neg):
        sign, value = "-", value.this
    if not isinstance(value, exp.Literal):
        raise ctx.error("INTERVAL takes a constant number", node)
    unit_node = node.args.get("unit")
    unit_name = (unit_node.name if unit_node is not None else "").upper()
    if unit_name not in _INTERVAL_UNITS and unit_name.endswith("S"):
        unit_name = unit_name[:-1]
    if unit_name not in _INTERVAL_UNITS:
        if unit_name in ("MONTH", "YEAR", "QUARTER"):
            reason = f"INTERVAL ... {unit_name} has no fixed length, so it is not an Arrow duration"
        else:
            reason = (f"INTERVAL needs one number and a unit among "
                      f"{', '.join(_INTERVAL_UNITS)}")
        raise ctx.error(reason, node)
    unit, factor = _INTERVAL_UNITS[unit_name]
    try:
        amount = Decimal(sign + value.this.strip()) * factor
    except InvalidOperation:
        raise ctx.error(f"INTERVAL takes a number, not {value.this!r}", value) from None
    while amount != amount.to_integral_value():
        if unit not in _FINER:
            raise ctx.error("INTERVAL is finer than a nanosecond", node)
        unit, amount = _FINER[unit], amount * 1000
    if not -(2**63) <= amount < 2**63:
        raise ctx.error("INTERVAL is outside the 64-bit range", node)
    return Literal(pa.scalar(int(amount), pa.duration(unit)))


def _extract_kids(node, ctx):
    return [node.expression]


def _extract(node, args, ctx):
    unit = node.this.name.upper() if node.this is not None else ""
    if unit not in EXTRACT_UNITS:
        raise ctx.error(f"EXTRACT of {unit or '?'} is not supported; one of "
                        f"{', '.join(EXTRACT_UNITS)}", node.this or node)
    return Call(EXTRACT_UNITS[unit], args)


def _substring_kids(node, ctx):
    return [k for k in (node.this, node.args.get("start"), node.args.get("length"))
            if k is not None]


def _substring(node, args, ctx):
    return SQL_FUNCTIONS["substr"].build(args)


def _dpipe(node, args, ctx):
    return Call("binary_join_element_wise", [*args, Literal(pa.scalar(""))])


def _function_name(node) -> tuple[str, bool]:
    name = node.this
    if isinstance(name, exp.Identifier):
        return name.this, bool(name.quoted)
    return str(name), False


def _is_keyword_arg(arg) -> bool:
    return isinstance(arg, (exp.Kwarg, exp.PropertyEQ))


def _anonymous_kids(node, ctx):
    name, quoted = _function_name(node)
    args = node.expressions
    if name.lower() == "struct" and not quoted:
        if not args:
            raise ctx.error("struct() needs at least one `value AS name` field (Arrow's "
                            "make_struct has no kernel for none)", node)
        seen = set()
        for a in args:
            if not isinstance(a, exp.Alias):
                raise ctx.error("struct() takes `value AS name` arguments", a)
            field = a.args["alias"].this
            if field in seen:
                raise ctx.error(f"struct() names the field {field!r} twice", a.args["alias"])
            seen.add(field)
        return [a.this for a in args]
    seen_keyword = False
    for a in args:
        if _is_keyword_arg(a):
            seen_keyword = True
        elif seen_keyword:
            raise ctx.error("a positional argument cannot follow a keyword argument", a)
    return [a.expression if _is_keyword_arg(a) else a for a in args]


def _anonymous(node, args, ctx):
    name, quoted = _function_name(node)
    sources = node.expressions
    if name.lower() == "struct" and not quoted:
        return make_struct(args, [a.args["alias"].this for a in sources])
    entry = None if quoted else SQL_FUNCTIONS.get(name.lower())
    if entry is None and not quoted and not has_function(name):
        raise _unknown_function(name, node, ctx)
    positional = [a for a, s in zip(args, sources) if not _is_keyword_arg(s)]
    keywords = {}
    for a, s in zip(args, sources):
        if _is_keyword_arg(s):
            if not (a.is_literal and a.is_scalar):
                raise ctx.error("a keyword argument takes a constant", s.expression)
            keywords[s.this.name] = a.value.as_py()
    if keywords or quoted:
        options = None
        if keywords:
            try:
                options = options_from_kwargs(name, keywords)
            except ArgumentError as exc:
                keyword = next(s for s in sources if _is_keyword_arg(s))
                raise ctx.error(exc.reason, keyword) from None
        return Call(name, positional, options)
    if entry is None:
        return Call(name, positional)
    return entry.build(positional)


def _unknown_function(name: str, node, ctx) -> UnknownFunctionNameError:
    """The error for a call of a function that exists nowhere, the caret under its name."""
    span = ctx.span(node) or (0, len(ctx.text))
    at = ctx.text.find(name, span[0], span[1])
    position, width = (at, len(name)) if at >= 0 else (span[0], max(1, span[1] - span[0]))
    return UnknownFunctionNameError(name, near_names(name, SQL_FUNCTIONS), ctx.text, position,
                                    width)


_BINARY = {
    exp.Add: "add", exp.Sub: "subtract", exp.Mul: "multiply", exp.Div: "divide",
    exp.EQ: "equal", exp.NEQ: "not_equal", exp.LT: "less", exp.LTE: "less_equal",
    exp.GT: "greater", exp.GTE: "greater_equal", exp.And: "and_kleene", exp.Or: "or_kleene",
    exp.BitwiseAnd: "bit_wise_and", exp.BitwiseOr: "bit_wise_or", exp.BitwiseXor: "bit_wise_xor",
    exp.BitwiseLeftShift: "shift_left", exp.BitwiseRightShift: "shift_right",
}

_HANDLERS: dict[type, tuple] = {cls: (_binary_kids, _call_of(name))
                                 for cls, name in _BINARY.items()}
_HANDLERS.update({
    exp.Literal: (_none, _literal),
    exp.Boolean: (_none, _boolean),
    exp.Null: (_none, _null),
    exp.Column: (_none, _column),
    exp.Dot: (_none, _column),
    exp.Paren: (_this, _paren),
    exp.Neg: (lambda n, c: [] if isinstance(n.this, exp.Literal) and not n.this.is_string
              else [n.this], _neg),
    exp.Not: (_not_kids, _not),
    exp.Is: (lambda n, c: [n.this], _is),
    exp.BitwiseNot: (_this, _call_of("bit_wise_not")),
    exp.In: (_in_kids, _in),
    exp.Between: (_between_kids, _between),
    exp.Like: (_like_kids, _like),
    exp.ILike: (_like_kids, _like),
    exp.Case: (_case_kids, _case),
    exp.If: (_if_kids, _if),
    exp.Cast: (_cast_kids, _cast),
    exp.Interval: (_none, _interval),
    exp.Extract: (_extract_kids, _extract),
    exp.Substring: (_substring_kids, _substring),
    exp.DPipe: (_binary_kids, _dpipe),
    exp.Anonymous: (_anonymous_kids, _anonymous),
})
