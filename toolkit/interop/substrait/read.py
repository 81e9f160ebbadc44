"""A Substrait expression read as exprscope's (unbound) tree.

Field references are positional in Substrait; they are read as names from the
base schema so the tree prints `(x > 3)`, not `FieldPath(0)`. Every refusal
names the message path it stands at, e.g. `referred_expr[0].scalar_function
.arguments[1]`. Protobuf readers stop at 100 nested messages (about 30
expression levels), so the recursion here is bounded by the message itself.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from substrait import algebra_pb2

from ...errors import ExprscopeError, SubstraitError
from ...model.expression import Call, Expression, Literal, Parameter
from ...model.field_ref import FieldRef
from ...support.visible_text import visible
from .functions import (
    ARGUMENT_OPTIONS,
    EXTRACT_COMPONENTS,
    ROUNDING_MODES,
    FunctionMapping,
    mappings_for_substrait,
)
from .types import UserTypes, literal_from_substrait, type_from_substrait

__all__ = ["ExpressionReader", "Functions"]

Functions = dict  # function anchor -> (extension stem or "", function name)

_CASE = {"CASE_SENSITIVE": False, "CASE_INSENSITIVE": True}
_BY_SUBSTRAIT_OPTION = {sub: arrow for arrow, (_, sub) in ARGUMENT_OPTIONS.items()
                        if arrow != "round"}  # round(x, digits) is round_binary
_BY_SUBSTRAIT_OPTION["ilike"] = "match_like"  # DataFusion's name for a case-blind like
_ROUND_MODE = dict(ROUNDING_MODES)


class ExpressionReader:
    """Reads expressions of one message: its functions by anchor and its base schema."""

    def __init__(self, functions: Functions, schema: pa.Schema, producer: str = "",
                 user_types: UserTypes | None = None):
        self.functions = functions
        self.schema = schema
        self.user_types = user_types or UserTypes()
        # Arrow's consumer reads a cast that throws as an unsafe cast; a message from
        # Acero means what Acero runs, any other what Substrait says
        self.unsafe_throwing_casts = producer.startswith("Acero")
        # likewise Acero runs a one-clause if_then as if_else (null where the condition
        # is null); Substrait's if_then is SQL's CASE (a null condition takes the else)
        self.acero_if_else = producer.startswith("Acero")

    def read(self, e: algebra_pb2.Expression, where: str) -> Expression:
        kind = e.WhichOneof("rex_type")
        if kind == "literal":
            at = where + ".literal"
            return _literal(literal_from_substrait(e.literal, at, self.user_types), at)
        if kind == "selection":
            return self._selection(e.selection, where + ".selection")
        if kind == "scalar_function":
            return self._function(e.scalar_function, where + ".scalar_function")
        if kind == "if_then":
            return self._if_then(e.if_then, where + ".if_then")
        if kind == "cast":
            return self._cast(e.cast, where + ".cast")
        if kind == "singular_or_list":
            return self._in_list(e.singular_or_list, where + ".singular_or_list")
        if kind is None:
            raise SubstraitError(f"an expression with nothing set (at {where})")
        raise SubstraitError(f"a {kind} expression has no exprscope form (at {where}); "
                             "exprscope reads literals, field references, scalar functions, "
                             "if_then, cast and singular_or_list")

    # -- field references ------------------------------------------------------------

    def _selection(self, sel, where: str) -> Expression:
        root = sel.WhichOneof("root_type")
        if sel.WhichOneof("reference_type") != "direct_reference":
            raise SubstraitError(f"a masked reference has no exprscope form (at {where})")
        segments = _segments(sel.direct_reference, where + ".direct_reference")
        if root == "expression":
            base = self.read(sel.expression, where + ".expression")
            return _segments_on(base, segments, where)
        if root not in ("root_reference", None):
            raise SubstraitError(f"a reference to an {root} has no exprscope form (at {where})")
        names: list[str | int] = []
        t: pa.DataType | pa.Schema = self.schema
        for n, (kind, value) in enumerate(segments):
            if kind != "struct_field":
                base = Parameter(FieldRef(*names)) if names else None
                if base is None:
                    raise SubstraitError(f"a reference must start with a field (at {where})")
                return _segments_on(base, segments[n:], where)
            # by position and by Arrow's own name index: a reference costs the same
            # however wide the schema or struct
            if isinstance(t, pa.Schema):
                width = len(t)
            elif pa.types.is_struct(t):
                width = t.num_fields
            else:
                raise SubstraitError(f"field {value} of a {t} value: only structs have fields "
                                     f"(at {where})")
            if not 0 <= value < width:
                raise SubstraitError(f"field {value} is past the {width} fields of "
                                     f"{'the base schema' if not names else _ref_text(names)} "
                                     f"(at {where})")
            found = t.field(value)
            unique = len(t.get_all_field_indices(found.name)) == 1
            names.append(found.name if unique else value)
            t = found.type
        if not names:
            raise SubstraitError(f"a reference that names no field (at {where})")
        return Parameter(FieldRef(*names))

    # -- calls -----------------------------------------------------------------------

    def _function(self, f, where: str) -> Expression:
        extension, name = self._function_name(f.function_reference, where)
        if name == "coalesce":
            found = self._is_in(f, where)
            if found is not None:
                return found
        options = _enum_options(f.options, where)
        args, enums = [], []
        for i, a in enumerate(f.arguments):
            kind = a.WhichOneof("arg_type")
            if kind == "value":
                args.append(self.read(a.value, f"{where}.arguments[{i}].value"))
            elif kind == "enum":
                enums.append(a.enum)
            else:
                raise SubstraitError(f"a {kind or 'empty'} argument of {visible(name)} has no "
                                     f"exprscope form (at {where}.arguments[{i}])")
        if name == "extract":
            return _extract(enums, args, where)
        if enums:
            raise SubstraitError(f"{visible(name)} takes no enum argument in exprscope "
                                 f"(at {where})")
        if name in _BY_SUBSTRAIT_OPTION:
            return _argument_options(_BY_SUBSTRAIT_OPTION[name], name, args, options, where)
        if name in ("greatest", "least"):
            arrow = "max_element_wise" if name == "greatest" else "min_element_wise"
            return Call(arrow, args, pc.ElementWiseAggregateOptions(skip_nulls=False))
        mapping = _choose(name, extension, options, where)
        if mapping.arrow in ("and_kleene", "or_kleene") and len(args) > 2:
            out = Call(mapping.arrow, args[:2])  # Substrait's and/or take any number
            for arg in args[2:]:
                out = Call(mapping.arrow, [out, arg])
            return out
        if mapping.arrow == "is_null":  # with Arrow's default options, as tk.is_null and
            # tk.parse build it, so what exprscope wrote reads back equal
            return Call("is_null", args, pc.NullOptions(nan_is_null=False))
        return Call(mapping.arrow, args)

    def _is_in(self, f, where: str) -> Expression | None:
        """`coalesce(x IN (v, ...), false)` of non-null literals: Arrow's is_in (false,
        never null, for a null x), as exprscope writes it; None for any other coalesce."""
        if len(f.arguments) != 2:
            return None
        in_list, otherwise = (a.value for a in f.arguments)
        if (in_list.WhichOneof("rex_type") != "singular_or_list"
                or otherwise.WhichOneof("rex_type") != "literal"
                or otherwise.literal.WhichOneof("literal_type") != "boolean"
                or otherwise.literal.boolean):
            return None
        options = in_list.singular_or_list.options
        if not options or any(o.WhichOneof("rex_type") != "literal" for o in options):
            return None
        at = where + ".arguments[0].value.singular_or_list"
        values = [literal_from_substrait(o.literal, f"{at}.options[{i}].literal",
                                         self.user_types) for i, o in enumerate(options)]
        if any(not v.is_valid for v in values) or len({v.type for v in values}) != 1:
            return None
        value = self.read(in_list.singular_or_list.value, at + ".value")
        return Call("is_in", [value], pc.SetLookupOptions(pa.array(values, values[0].type)))

    def _function_name(self, anchor: int, where: str) -> tuple[str, str]:
        found = self.functions.get(anchor)
        if found is None:
            raise SubstraitError(f"function reference {anchor} is declared nowhere in the "
                                 f"message's extensions (at {where})")
        extension, name = found
        return extension, name.split(":", 1)[0]  # a compound name: add:i64_i64

    def _if_then(self, it, where: str) -> Expression:
        if not it.ifs:
            raise SubstraitError(f"an if_then with no clause (at {where})")
        conds = [self.read(getattr(c, "if"), f"{where}.ifs[{i}].if")
                 for i, c in enumerate(it.ifs)]
        values = [self.read(c.then, f"{where}.ifs[{i}].then") for i, c in enumerate(it.ifs)]
        otherwise = (self.read(getattr(it, "else"), where + ".else")
                     if it.HasField("else") else None)
        if otherwise is not None and len(conds) == 1 and self.acero_if_else:
            return Call("if_else", [conds[0], values[0], otherwise])
        if len(conds) == 2 and self._negated_pair(it) and (
                otherwise is None or _is_null_literal(otherwise)):
            return Call("if_else", [conds[0], values[0], values[1]])
        names = [str(i) for i in range(len(conds))]
        conditions = Call("make_struct", conds, pc.MakeStructOptions(names))
        return Call("case_when", [conditions, *values, *([otherwise] if otherwise is not None else [])])

    def _negated_pair(self, it) -> bool:
        """Whether an if_then is `if c then t; if not c then f`: Arrow's if_else as
        exprscope writes it (null where c is null, as no clause matches)."""
        first, second = (getattr(clause, "if") for clause in it.ifs)
        if second.WhichOneof("rex_type") != "scalar_function":
            return False
        f = second.scalar_function
        name = self.functions.get(f.function_reference, ("", ""))[1].split(":", 1)[0]
        return name == "not" and len(f.arguments) == 1 and f.arguments[0].value == first

    def _cast(self, c, where: str) -> Expression:
        target = type_from_substrait(c.type, None, where + ".type", self.user_types)
        behavior = c.failure_behavior
        fb = algebra_pb2.Expression.Cast
        if behavior == fb.FAILURE_BEHAVIOR_RETURN_NULL:
            raise SubstraitError(f"a cast to {target} that returns null where it fails has "
                                 f"no Arrow form (Arrow's casts raise or wrap) (at {where})")
        unsafe = behavior == fb.FAILURE_BEHAVIOR_THROW_EXCEPTION and self.unsafe_throwing_casts
        options = pc.CastOptions.unsafe(target) if unsafe else pc.CastOptions.safe(target)
        return Call("cast", [self.read(c.input, where + ".input")], options)

    def _in_list(self, s, where: str) -> Expression:
        value = self.read(s.value, where + ".value")
        options = [self.read(o, f"{where}.options[{i}]") for i, o in enumerate(s.options)]
        if not options:
            raise SubstraitError(f"an IN list with no values (at {where})")
        # SQL's IN: null when the value is null, or when nothing matched and the list
        # holds a null; the or-chain of equalities is exactly that (Arrow reads it so)
        out: Expression = Call("equal", [value, options[0]])
        for o in options[1:]:
            out = Call("or_kleene", [out, Call("equal", [value, o])])
        return out


def _literal(value: pa.Scalar, where: str) -> Expression:
    """The literal node of a value read; one exprscope's literals cannot hold (a list of
    bytes that are not UTF-8, whose text Arrow cannot print) is refused."""
    try:
        return Literal(value)
    except (ExprscopeError, ValueError) as exc:
        raise SubstraitError(f"a {value.type} literal exprscope cannot hold: {exc} "
                             f"(at {where})") from None


def _is_null_literal(e: Expression) -> bool:
    return e.is_literal and not e.value.is_valid


def _ref_text(names) -> str:
    return "field " + ".".join(visible(str(n)) for n in names)


def _segments(ref, where: str) -> list[tuple[str, int]]:
    out = []
    segment = ref
    while True:
        kind = segment.WhichOneof("reference_type")
        if kind is None:
            break
        inner = getattr(segment, kind)
        if kind == "struct_field":
            out.append(("struct_field", inner.field))
        elif kind == "list_element":
            out.append(("list_element", inner.offset))
        else:
            raise SubstraitError(f"a {kind} reference has no exprscope form (at {where})")
        if not inner.HasField("child"):
            break
        segment = inner.child
    if not out:
        raise SubstraitError(f"a reference with no segment (at {where})")
    return out


def _segments_on(base: Expression, segments, where: str) -> Expression:
    out = base
    for kind, value in segments:
        if kind == "struct_field":
            out = Call("struct_field", [out], pc.StructFieldOptions([value]))
        else:
            out = Call("list_element", [out, Literal(pa.scalar(value, pa.int32()))])
    return out


def _enum_options(options, where: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i, o in enumerate(options):
        if not o.preference:
            raise SubstraitError(f"option {visible(o.name)!r} lists no preference "
                                 f"(at {where}.options[{i}])")
        out[o.name] = list(o.preference)
    return out


def _choose(name: str, extension: str, options: dict[str, list[str]],
            where: str) -> FunctionMapping:
    candidates = mappings_for_substrait(name)
    if not candidates:
        shown = f"{extension}.{name}" if extension else name
        raise SubstraitError(f"the Substrait function {visible(shown)} has no exprscope "
                             f"function (at {where}); docs/substrait.md lists the ones "
                             "exprscope reads")
    for option in options:
        if not any(option == o for c in candidates for o, _ in c.options):
            raise SubstraitError(f"{visible(name)} has no option {visible(option)!r} in "
                                 f"exprscope (at {where})")
    if not options:
        return next(c for c in candidates if c.default)
    # the Arrow variant every option allows, by the message's order of preference
    def rank(c: FunctionMapping) -> tuple | None:
        places = []
        for option, prefs in options.items():
            chosen = dict(c.options).get(option)
            if chosen not in prefs:
                return None
            places.append(prefs.index(chosen))
        return tuple(places)

    ranked = sorted((r, i) for i, c in enumerate(candidates) if (r := rank(c)) is not None)
    if not ranked:
        asked = "; ".join(f"{visible(o)} {' or '.join(visible(p) for p in prefs)}"
                          for o, prefs in options.items())
        known = ", ".join(f"{o} {v}" for c in candidates for o, v in c.options)
        raise SubstraitError(f"{visible(name)} with {asked} has no Arrow kernel (Arrow has "
                             f"{known}) (at {where})")
    return candidates[ranked[0][1]]


def _literal_text(arg: Expression, what: str, name: str, where: str) -> str:
    textual = pa.types.is_string(arg.type) or pa.types.is_large_string(arg.type)
    if not (arg.is_literal and textual and arg.value.is_valid):
        raise SubstraitError(f"the {what} of {name} must be a non-null string literal in "
                             f"exprscope (Arrow takes it as an option) (at {where})")
    return arg.value.as_py()


def _argument_options(arrow: str, name: str, args, options, where: str) -> Expression:
    if arrow in ("max_element_wise", "min_element_wise"):
        return Call(arrow, args, pc.ElementWiseAggregateOptions(skip_nulls=True))
    if arrow == "binary_join_element_wise":
        return Call(arrow, [*args, Literal(pa.scalar("", pa.string()))])
    if arrow == "round_binary":
        if len(args) != 2:
            raise SubstraitError(f"round takes a value and a number of digits, got {len(args)} "
                                 f"arguments (at {where})")
        prefs = options.pop("rounding", ["TIE_TO_EVEN"])
        mode = next((_ROUND_MODE[p] for p in prefs if p in _ROUND_MODE), None)
        if mode is None or options:
            raise SubstraitError(f"round with {', '.join(prefs)} "
                                 f"{' '.join(options)} has no Arrow form (at {where})")
        return Call(arrow, args, pc.RoundBinaryOptions(mode))
    if name in ("like", "ilike") and len(args) == 3:
        # like(input, pattern, escape): Arrow's match_like escapes with a backslash, which
        # is also what no escape (a null, as DataFusion writes) means
        escape = args.pop()
        if not (escape.is_literal and (not escape.value.is_valid
                                       or escape.value.as_py() == "\\")):
            raise SubstraitError(f"{name} with an escape character other than a backslash has "
                                 f"no Arrow form (match_like escapes with one) (at {where})")
    if len(args) != 2:
        raise SubstraitError(f"{name} takes 2 arguments, got {len(args)} (at {where})")
    pattern = _literal_text(args[1], "pattern", name, where)
    default_case = "CASE_INSENSITIVE" if name == "ilike" else "CASE_SENSITIVE"
    case = options.get("case_sensitivity", [default_case])
    ignore = next((_CASE[c] for c in case if c in _CASE), None)
    if ignore is None:
        raise SubstraitError(f"{name}'s case_sensitivity {', '.join(case)} has no Arrow "
                             f"form (at {where})")
    return Call(arrow, [args[0]], pc.MatchSubstringOptions(pattern, ignore_case=ignore))


def _extract(enums, args, where: str) -> Expression:
    if len(enums) != 1 or not args:
        raise SubstraitError(f"extract takes a component and a value (at {where})")
    arrow = EXTRACT_COMPONENTS.get(enums[0])
    if arrow is None:
        raise SubstraitError(f"extract of {visible(enums[0])} has no exprscope function "
                             f"(it has {', '.join(EXTRACT_COMPONENTS)}) (at {where})")
    if len(args) > 1:
        raise SubstraitError(f"extract with a time zone argument has no exprscope form; "
                             f"Arrow reads the zone from the timestamp's type (at {where})")
    return Call(arrow, [args[0]])
