"""Expression -> SQL-expression text that `toolkit.parse` reads back to an equal tree.

The promise is `parse(e.to_sql()).equals(e)` for every unbound expression that
has a text form. Operators print infix with the fewest parentheses that keep
the tree (so a long `a + 1 + 1 + ...` chain prints flat and parses flat);
functions print in the SQL spelling of the one table in `toolkit.sql.functions`
when the call fits it, otherwise as Arrow's own call, quoting the name when the
bare name would mean something else and writing options as `key => value`.
Literals whose type a bare SQL constant does not say print as
`CAST(<constant> AS <type>)`, which `parse` reads as a typed constant; a cast
*call* of a constant prints `CAST((<constant>) AS <type>)`.

What has no text (array literals, index-path field refs, options holding types or
arrays outside CAST/IN, types with no SQL name) raises ExprscopeError naming it.
The walk uses an explicit stack and the text is assembled as a rope, so
10,000-deep trees print in linear time without recursion.
"""

from __future__ import annotations

import functools
import math
import re

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ExprscopeError
from ..functions.registry import has_function
from ..model.expression import Call, Expression, Literal, Parameter, postorder
from ..model.field_ref import FieldPath
from ..model.options import cast_target, field_names, option_values, options_equal, value_set
from ..model.scalar_values import value_text
from ..support import late
from .functions import SQL_FUNCTIONS, entries_for, kwargs_for_options
from .types import SqlTypeError, sql_type_name

sql_reader = late.module("toolkit.sql.reader")  # sqlglot, loaded by the first to_sql

__all__ = ["to_sql"]

# binding strength, loosest first; each is sqlglot's own order
OR, AND, NOT, CMP, BIT, ADD, MUL, UNARY, ATOM = 20, 30, 40, 50, 60, 70, 80, 90, 100

_INFIX = {
    "add": ("+", ADD), "subtract": ("-", ADD), "multiply": ("*", MUL), "divide": ("/", MUL),
    "and_kleene": ("AND", AND), "or_kleene": ("OR", OR),
    "bit_wise_and": ("&", BIT), "bit_wise_or": ("|", BIT), "bit_wise_xor": ("^", BIT),
    "shift_left": ("<<", BIT), "shift_right": (">>", BIT),
}
_COMPARISON = {"equal": "=", "not_equal": "<>", "less": "<", "less_equal": "<=",
               "greater": ">", "greater_equal": ">="}
# besides sqlglot's keywords, the words parse reads as constructs rather than names
_CONSTRUCTS = frozenset({"STRUCT", "IF", "CAST", "TRY_CAST", "EXTRACT", "SUBSTRING", "ANY",
                         "UNIQUE"})
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _fail(what: str) -> ExprscopeError:
    return ExprscopeError(f"cannot write as SQL text: {what}")


def to_sql(expr: Expression) -> str:
    """The SQL-expression text of `expr` (see the module docstring)."""
    if not isinstance(expr, Expression):
        raise ExprscopeError(f"to_sql() takes an Expression, not {type(expr).__name__}")
    printed: dict[int, tuple[int, object]] = {}
    for node in postorder(expr):
        printed[id(node)] = _print_node(node, printed)
    return _flatten(printed[id(expr)][1])


def _flatten(rope) -> str:
    out: list[str] = []
    stack = [rope]
    while stack:
        part = stack.pop()
        if isinstance(part, str):
            out.append(part)
        else:
            stack.extend(reversed(part))
    return "".join(out)


def _tight(printed, minimum: int):
    """The rope of an argument, parenthesized unless it binds at least as tight as `minimum`."""
    prec, rope = printed
    return rope if prec >= minimum else ("(", rope, ")")


def _joined(ropes, sep: str = ", "):
    out: list = []
    for i, r in enumerate(ropes):
        if i:
            out.append(sep)
        out.append(r)
    return tuple(out)


# -- nodes ------------------------------------------------------------------------------
def _print_node(node: Expression, printed) -> tuple[int, object]:
    """(binding strength, rope) of one node; `printed` holds its arguments' results."""
    if isinstance(node, Literal):
        return _literal(node)
    if isinstance(node, Parameter):
        return ATOM, _field(node)
    return _call(node, printed)


@functools.cache
def _keywords() -> frozenset[str]:
    """The words a bare name cannot be: it would read back as a keyword or a construct."""
    return sql_reader.KEYWORDS | _CONSTRUCTS


def quote_name(name: str) -> str:
    """A column or function name as SQL text, quoted when bare text would not read back."""
    if _PLAIN_NAME.match(name) and name.upper() not in _keywords():
        return name
    return '"' + name.replace('"', '""') + '"'


def _field(node: Parameter) -> str:
    names = []
    for leaf in node.ref.leaves():
        if isinstance(leaf.impl, FieldPath) or not isinstance(leaf.impl, str):
            raise _fail(f"the field reference {node.ref.to_string()} uses an index path; "
                        "SQL text refers to fields by name")
        names.append(leaf.impl)
    if not names:
        raise _fail("an empty field reference")
    return ".".join(quote_name(n) for n in names)


def _string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _float_text(x: float) -> str:
    text = repr(float(x))
    return text if re.fullmatch(r"-?[0-9.]+(e[+-]?[0-9]+)?", text) else ""


def _literal(node: Literal) -> tuple[int, object]:
    value = node.value
    if isinstance(value, pa.Array):
        raise _fail(f"an array literal ({value.type})")
    t = value.type
    if t == pa.null():
        return ATOM, "NULL"
    if not value.is_valid:
        return ATOM, f"CAST(NULL AS {_type_name(t)})"
    if t == pa.bool_():
        return ATOM, "TRUE" if value.as_py() else "FALSE"
    if pa.types.is_integer(t):
        n = value.as_py()
        natural = pa.int64() if -(2**63) <= n < 2**63 else pa.uint64()
        if t == natural:
            return (UNARY if n < 0 else ATOM), str(n)
        return ATOM, f"CAST({n} AS {_type_name(t)})"
    if t == pa.float64() or t == pa.float32():
        x = value.as_py()
        text = _float_text(x) if math.isfinite(x) else ""
        if t == pa.float64() and text:
            return (UNARY if text.startswith("-") else ATOM), text
        const = text or _string("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
        return ATOM, f"CAST({const} AS {_type_name(t)})"
    if t == pa.string():
        return ATOM, _string(value.as_py())
    if pa.types.is_duration(t):
        word = {"s": "SECOND", "ms": "MILLISECOND", "us": "MICROSECOND", "ns": "NANOSECOND"}[t.unit]
        # parenthesized: sqlglot reads a following `+ 0` into a bare INTERVAL's unit
        return ATOM, f"(INTERVAL {_string(str(value.value))} {word})"
    return ATOM, _cast_constant(value)


def _cast_constant(value: pa.Scalar) -> str:
    """`CAST('<text>' AS T)` for dates, timestamps, decimals, binary: checked to read back."""
    t = value.type
    type_name = _type_name(t)
    try:
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            text = value.as_py().decode("utf-8")
        else:
            text = pc.cast(value, pa.string()).as_py()
        back = pa.scalar(text, pa.string()).cast(t)
    except (UnicodeDecodeError, pa.ArrowException) as exc:
        raise _fail(f"the {t} constant {value_text(value)} ({exc})") from None
    if not back.equals(value):
        raise _fail(f"the {t} constant {value_text(value)} does not survive its text form "
                    f"{text!r}")
    if t == pa.date32():
        return f"DATE {_string(text)}"
    if t == pa.timestamp("us"):
        return f"TIMESTAMP {_string(text)}"
    return f"CAST({_string(text)} AS {type_name})"


def _type_name(t: pa.DataType) -> str:
    try:
        return sql_type_name(t)
    except SqlTypeError as exc:
        raise _fail(str(exc)) from None


# -- calls ------------------------------------------------------------------------------
def _call(node: Call, printed) -> tuple[int, object]:
    args = [printed[id(a)] for a in node.args]
    name, options, n = node.name, node.options, len(args)
    if name in _INFIX and n == 2 and options is None:
        op, prec = _INFIX[name]
        return prec, (_tight(args[0], prec), f" {op} ", _tight(args[1], prec + 1))
    if name in _COMPARISON and n == 2 and options is None:
        return CMP, (_tight(args[0], CMP + 1), f" {_COMPARISON[name]} ", _tight(args[1], CMP + 1))
    if name == "invert" and n == 1 and options is None:
        return NOT, ("NOT ", _tight(args[0], ATOM))
    if name == "negate" and n == 1 and options is None and not node.args[0].is_literal:
        return UNARY, ("-", _tight(args[0], ATOM))
    if name == "bit_wise_not" and n == 1 and options is None:
        return UNARY, ("~", _tight(args[0], ATOM))
    # `None == options` crashes pyarrow (a segmentation fault): options_equal checks first
    if name == "is_null" and n == 1 and options_equal(options or pc.NullOptions(),
                                                      pc.NullOptions(nan_is_null=False)):
        return CMP, (_tight(args[0], CMP + 1), " IS NULL")
    if name == "is_valid" and n == 1 and options is None:
        return CMP, (_tight(args[0], CMP + 1), " IS NOT NULL")
    if name == "is_in" and n == 1:
        text = _is_in(node, args)
        if text is not None:
            return CMP, text
    if name == "match_like" and n == 1 and isinstance(options, pc.MatchSubstringOptions):
        v = option_values(options)
        if v["pattern"] is not None and options == pc.MatchSubstringOptions(
                v["pattern"], ignore_case=v["ignore_case"]):
            word = " ILIKE " if v["ignore_case"] else " LIKE "
            return CMP, (_tight(args[0], CMP + 1), word, _string(v["pattern"]))
    if name == "if_else" and n == 3 and options is None:
        return ATOM, ("IF(", _joined([a[1] for a in args]), ")")
    if name == "case_when" and options is None:
        text = _case_when(node, args, printed)
        if text is not None:
            return ATOM, text
    if name == "make_struct":
        return ATOM, _struct(node, args)
    if name == "cast":
        return ATOM, _cast(node, args)
    if name == "binary_join_element_wise" and n == 3 and options is None \
            and _is_empty_string(node.args[2]):
        return BIT, (_tight(args[0], BIT), " || ", _tight(args[1], BIT + 1))
    for entry in entries_for(name):
        sql_args = entry.unbuild(node)
        if sql_args is not None:
            ropes = [printed[id(a)][1] if id(a) in printed else _literal(a)[1] for a in sql_args]
            return ATOM, (entry.names[0], "(", _joined(ropes), ")")
    return ATOM, _arrow_call(node, args)


def _is_empty_string(e: Expression) -> bool:
    return isinstance(e, Literal) and e.is_scalar and e.type == pa.string() and e.value.as_py() == ""


def _is_in(node: Call, args):
    options = node.options
    if not isinstance(options, pc.SetLookupOptions):
        return None
    values = value_set(options)
    if len(values) == 0 or options != pc.SetLookupOptions(values):
        return None
    # each constant prints with its type, so the list reads back to the same value set
    consts = [_literal(Literal(values[i]))[1] for i in range(len(values))]
    return (_tight(args[0], CMP + 1), " IN (", _joined(consts), ")")


def _case_when(node: Call, args, printed):
    first = node.args[0] if node.args else None
    if not (isinstance(first, Call) and first.name == "make_struct"
            and isinstance(first.options, pc.MakeStructOptions)):
        return None
    k = len(first.args)
    names = [str(i) for i in range(k)]
    if k == 0 or first.options != pc.MakeStructOptions(names) or len(node.args) not in (k + 1, k + 2):
        return None
    conds = [printed[id(c)][1] for c in first.args]
    parts: list = ["CASE"]
    for i in range(k):
        parts += [" WHEN ", conds[i], " THEN ", args[1 + i][1]]
    if len(node.args) == k + 2:
        parts += [" ELSE ", args[k + 1][1]]
    parts.append(" END")
    return tuple(parts)


def _struct(node: Call, args):
    options = node.options
    if not isinstance(options, pc.MakeStructOptions):
        raise _fail(f"make_struct without MakeStructOptions: {node}")
    names = field_names(options)
    if options != pc.MakeStructOptions(names):
        raise _fail(f"make_struct with field nullability or metadata: {node}")
    items = [(a[1], " AS ", quote_name(n)) for a, n in zip(args, names)]
    return ("struct(", _joined(items), ")")


def _cast(node: Call, args):
    options = node.options
    if len(args) != 1 or not isinstance(options, pc.CastOptions):
        raise _fail(f"a cast call needs one argument and CastOptions: {node}")
    target = cast_target(options)
    if options != pc.CastOptions.safe(target):
        raise _fail(f"a cast that allows overflow or truncation has no SQL spelling: {node}")
    inner = args[0][1]
    if node.args[0].is_literal:  # a bare constant would be read as a typed constant
        inner = ("(", inner, ")")
    return ("CAST(", inner, f" AS {_type_name(target)})")


def _arrow_call(node: Call, args):
    """Arrow's own call: `name(args, key => value)`, the name quoted if bare text means else."""
    name = node.name
    if name.lower() == "cast":
        raise _fail(f"a call named cast: {node}")
    # a name no function has yet is quoted: `parse` refuses a bare unknown name
    bare = (_PLAIN_NAME.match(name) and name.upper() not in _keywords()
            and name.lower() not in SQL_FUNCTIONS and name.lower() != "struct"
            and has_function(name))
    shown = name if bare else '"' + name.replace('"', '""') + '"'
    ropes = [a[1] for a in args]
    if node.options is not None:
        for key, value in kwargs_for_options(node.options).items():
            ropes.append((key, " => ", _option_value(value)))
    return (shown, "(", _joined(ropes), ")")


def _option_value(value) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = _float_text(value)
        if not text:
            raise _fail(f"the option value {value}")
        return text
    return _string(value)


late.provide("to_sql", to_sql)
