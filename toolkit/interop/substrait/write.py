"""A bound exprscope expression written as a Substrait expression.

What Substrait cannot say is refused, naming the node and why, never written
as something near: a function with no mapping, `choose`, `and`/`or` without
Kleene logic, options with no Substrait form, an unsafe cast that can lose
values (Substrait's casts throw or return null; Arrow's unsafe ones wrap). A
safe cast is Substrait's throwing cast, and a cast that cannot fail for its
types (the widening casts binding inserts) is written the same way.

The writer recurses, one level of the tree at a time; a tree is measured first
(iteratively) and refused when no protobuf reader could take it back: every
level nests at least one message, and readers stop at 100. Substrait has no
shared subtrees, so a tree that shares one is written once per use, and
refused when that unfolds past a million nodes.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
from substrait import algebra_pb2

from ...errors import SubstraitError
from ...functions.cast import cast_can_fail, cast_options_target
from ...model.expression import Call, Expression, postorder
from ...model.options import option_values, options_changed_text, value_set
from ...support.visible_text import visible
from .functions import ARGUMENT_OPTIONS, EXTRACT_COMPONENTS, ROUNDING_MODES, mapping_for_arrow
from .limits import MAX_NESTING
from .types import UserTypes, check_type_depth, literal_to_substrait, type_to_substrait

__all__ = ["ExpressionWriter"]

_COMPONENT_OF = {arrow: component for component, arrow in EXTRACT_COMPONENTS.items()}
_THROW = algebra_pb2.Expression.Cast.FAILURE_BEHAVIOR_THROW_EXCEPTION
_INDEX = re.compile(r"\[(\d+)\]")
MAX_WRITTEN_NODES = 1_000_000


class ExpressionWriter:
    """Writes expressions of one message, collecting the functions they declare."""

    def __init__(self):
        self.anchors: dict[tuple[str, str], int] = {}  # (extension, name) -> anchor
        self.user_types = UserTypes()  # Arrow's extension types the expressions use

    def write(self, root: Expression) -> algebra_pb2.Expression:
        """`root` as a Substrait expression; refused, naming its depth and the readers'
        limit, when it nests deeper than protobuf's readers take."""
        shape = tree_shape(root)
        head = visible(root.name) + "(...)" if root.is_call else visible(str(root))[:80]
        if shape.depth > MAX_NESTING:
            raise SubstraitError(
                f"cannot write {head} as Substrait: it is {shape.depth:,} levels deep, and "
                f"protobuf's readers (pyarrow's, DataFusion's, Python's) take messages nested "
                f"{MAX_NESTING} deep at most; each level nests one or more (a call three: "
                "about 30 levels of calls fit)")
        if shape.written_nodes > MAX_WRITTEN_NODES:
            raise SubstraitError(
                f"cannot write {head} as Substrait: it shares subtrees, which Substrait "
                f"writes once per use, and unfolds into more than {MAX_WRITTEN_NODES:,} nodes")
        return self._write(root, ())

    def _write(self, node: Expression, path: tuple[int, ...]) -> algebra_pb2.Expression:
        out = algebra_pb2.Expression()
        if node.is_literal:
            if isinstance(node.value, pa.Array):
                raise _refuse("an array literal has no Substrait form", node, path)
            _check_type_depth(node, path)
            if _has_struct(node.type) and any(f.name for f in _structs_fields(node.type)):
                raise _refuse("Substrait's struct literals carry no field names, so a struct "
                              "value with named fields would read back as another type",
                              node, path)
            out.literal.CopyFrom(self._literal(node.value, _where(path)))
        elif node.is_field:
            if node.path is None:
                raise _refuse("an unbound field reference", node, path)
            _check_type_depth(node, path)
            _reference(out.selection, list(node.path.indices))
            out.selection.root_reference.SetInParent()
        else:
            self._call(node, path, out)
        return out

    def _call(self, call: Call, path, out) -> None:
        name = call.name
        if name == "if_else":
            self._if_else(call, path, out)
        elif name == "case_when":
            self._case_when(call, path, out)
        elif name == "cast":
            self._cast(call, path, out)
        elif name == "is_in":
            self._is_in(call, path, out)
        elif name == "struct_field":
            self._struct_field(call, path, out)
        elif name == "list_element":
            self._list_element(call, path, out)
        elif name in ARGUMENT_OPTIONS:
            self._argument_options(call, path, out)
        elif name in _COMPONENT_OF and call.args and _is_temporal(call.args[0].type):
            self._function(out, "functions_datetime", "extract", call, self._args(call, path), (),
                           enum=_COMPONENT_OF[name], path=path)
        else:
            mapping = mapping_for_arrow(name)
            if mapping is None:
                raise _refuse(_why_not(name), call, path)
            _no_changed_options(call, path)
            self._function(out, mapping.extension, mapping.substrait, call,
                           self._args(call, path), mapping.options, path=path)

    def _type(self, t, nullable: bool = True, node: Expression | None = None, path=()):
        """The Substrait type of `t`; a refusal names `node` (its text is made only then:
        a node's text is as long as its subtree)."""
        try:
            return type_to_substrait(t, nullable, "", self.user_types)
        except SubstraitError as exc:
            if node is None:
                raise
            raise _refuse(str(exc), node, path) from None

    def _literal(self, value, where: str = ""):
        return literal_to_substrait(value, where, self.user_types)

    def _args(self, call: Call, path) -> list:
        return [self._write(a, (*path, i)) for i, a in enumerate(call.args)]

    def _function(self, out, extension: str, name: str, call: Call, args, options,
                  enum: str | None = None, path=()) -> None:
        anchor = self.anchors.setdefault((extension, name), len(self.anchors) + 1)
        f = out.scalar_function
        f.function_reference = anchor
        if enum is not None:
            f.arguments.add().enum = enum
        for a in args:
            f.arguments.add().value.CopyFrom(a)
        for option, value in options:
            f.options.add(name=option, preference=[value])
        f.output_type.CopyFrom(self._type(call.type, True, call, path))

    def _if_else(self, call: Call, path, out) -> None:
        """Substrait's if_then is SQL's CASE: a null condition takes the else branch, where
        Arrow's if_else gives null. `if c then t; if not c then f` leaves exactly the rows
        where c is null to the else, a null of the type (none for a struct: Substrait's
        struct types carry no names, and no else means null too, though Acero wants one)."""
        c, t, f = self._args(call, path)
        yes = out.if_then.ifs.add()
        getattr(yes, "if").CopyFrom(c)
        yes.then.CopyFrom(t)
        no = out.if_then.ifs.add()
        negation = getattr(no, "if").scalar_function
        negation.function_reference = self.anchors.setdefault(("functions_boolean", "not"),
                                                              len(self.anchors) + 1)
        negation.arguments.add().value.CopyFrom(c)
        negation.output_type.CopyFrom(self._type(pa.bool_()))
        no.then.CopyFrom(f)
        if not _has_struct(call.type):  # Acero needs an else; a typed null is exact here
            getattr(out.if_then, "else").literal.CopyFrom(self._literal(pa.scalar(None, call.type)))

    def _case_when(self, call: Call, path, out) -> None:
        conditions = call.args[0]
        if not (conditions.is_call and conditions.name == "make_struct"):
            raise _refuse("a case_when whose conditions are not a make_struct of them has "
                          "no Substrait form (if_then needs each condition)", call, path)
        values = call.args[1:]
        n = len(conditions.args)
        for i, cond in enumerate(conditions.args):
            clause = out.if_then.ifs.add()
            getattr(clause, "if").CopyFrom(self._write(cond, (*path, 0, i)))
            clause.then.CopyFrom(self._write(values[i], (*path, i + 1)))
        if len(values) > n:
            getattr(out.if_then, "else").CopyFrom(self._write(values[n], (*path, n + 1)))

    def _cast(self, call: Call, path, out) -> None:
        target = cast_options_target(call.options)
        safe_twin = Call("cast", call.args, pc.CastOptions.safe(target),
                         function=call.function, kernel=call.kernel, call_type=call.type)
        unsafe = any(v for k, v in option_values(call.options).items() if k.startswith("allow"))
        if unsafe and cast_can_fail(safe_twin):
            raise _refuse(f"an unsafe cast from {call.args[0].type} to {target} gives a "
                          "changed value (wrapped, truncated or rounded) where a safe one "
                          "raises; Substrait's casts raise or return null", call, path)
        out.cast.type.CopyFrom(self._type(target, True, call, path))
        out.cast.input.CopyFrom(self._write(call.args[0], (*path, 0)))
        out.cast.failure_behavior = _THROW

    def _is_in(self, call: Call, path, out) -> None:
        values = value_set(call.options)
        skip_nulls = option_values(call.options).get("null_matching_behavior", 0) != 0
        nulls_in_set = values.null_count > 0
        present = values.drop_null() if nulls_in_set else values
        value = self._write(call.args[0], (*path, 0))
        if len(present) == 0:
            raise _refuse("is_in with no non-null value has no Substrait IN list", call, path)
        in_list = algebra_pb2.Expression()
        in_list.singular_or_list.value.CopyFrom(value)
        for v in present:
            in_list.singular_or_list.options.add().literal.CopyFrom(
                self._literal(v, _where(path)))
        # Arrow's is_in is false, never null, where SQL's IN is null: a null value
        # (unless the set holds a null it matches) and a miss with a null in the list
        false = algebra_pb2.Expression()
        false.literal.boolean = False
        anchor = self.anchors.setdefault(("functions_comparison", "coalesce"),
                                         len(self.anchors) + 1)
        coalesce = algebra_pb2.Expression()
        f = coalesce.scalar_function
        f.function_reference = anchor
        f.arguments.add().value.CopyFrom(in_list)
        f.arguments.add().value.CopyFrom(false)
        f.output_type.CopyFrom(self._type(pa.bool_(), True))
        if nulls_in_set and not skip_nulls:
            or_anchor = self.anchors.setdefault(("functions_boolean", "or"),
                                                len(self.anchors) + 1)
            null_anchor = self.anchors.setdefault(("functions_comparison", "is_null"),
                                                  len(self.anchors) + 1)
            g = out.scalar_function
            g.function_reference = or_anchor
            g.arguments.add().value.CopyFrom(coalesce)
            is_null = g.arguments.add().value.scalar_function
            is_null.function_reference = null_anchor
            is_null.arguments.add().value.CopyFrom(value)
            is_null.output_type.CopyFrom(self._type(pa.bool_(), False))
            g.output_type.CopyFrom(self._type(pa.bool_(), True))
        else:
            out.CopyFrom(coalesce)

    def _struct_field(self, call: Call, path, out) -> None:
        indices = _struct_indices(call)
        if indices is None:
            raise _refuse("struct_field by a name that does not resolve to one field",
                          call, path)
        inner = call.args[0]
        if not indices:
            out.CopyFrom(self._write(inner, (*path, 0)))
            return
        _reference(out.selection, indices)  # on its argument, so it reads back as itself
        out.selection.expression.CopyFrom(self._write(inner, (*path, 0)))

    def _list_element(self, call: Call, path, out) -> None:
        index = call.args[1]
        if not (index.is_literal and index.value.is_valid and
                pa.types.is_integer(index.type)) or not 0 <= index.value.as_py() < 2**31:
            # Substrait's list reference holds its offset as an int32
            raise _refuse("list_element at an index that is not an integer literal from 0 "
                          "to 2,147,483,647 has no Substrait reference", call, path)
        out.selection.direct_reference.list_element.offset = index.value.as_py()
        out.selection.expression.CopyFrom(self._write(call.args[0], (*path, 0)))

    def _argument_options(self, call: Call, path, out) -> None:
        name = call.name
        extension, substrait = ARGUMENT_OPTIONS[name]
        args = self._args(call, path)
        values = option_values(call.options) if call.options is not None else {}
        if name in ("max_element_wise", "min_element_wise"):
            if not values.get("skip_nulls", True):
                substrait = substrait.removesuffix("_skip_null")
            self._function(out, extension, substrait, call, args, (), path=path)
        elif name in ("round", "round_binary"):
            mode = ROUNDING_MODES[values.get("round_mode", 8)][0]
            if name == "round":
                digits = algebra_pb2.Expression()
                digits.literal.i32 = values.get("ndigits", 0)
                args = [*args, digits]
            self._function(out, extension, substrait, call, args, (("rounding", mode),),
                           path=path)
        elif name == "binary_join_element_wise":
            separator = call.args[-1]
            if not (separator.is_literal and separator.value.is_valid
                    and separator.value.as_py() in ("", b"")):
                raise _refuse("binary_join_element_wise with a separator other than '' has "
                              "no Substrait form (concat joins with nothing)", call, path)
            self._function(out, extension, substrait, call, args[:-1], (), path=path)
        else:
            # Arrow reads the pattern as an option, a string whatever the column's type:
            # Acero refuses a large_string or binary pattern literal
            pattern = pa.scalar(values["pattern"], pa.string())
            lit = algebra_pb2.Expression()
            lit.literal.CopyFrom(self._literal(pattern, _where(path)))
            case = "CASE_INSENSITIVE" if values.get("ignore_case") else "CASE_SENSITIVE"
            self._function(out, extension, substrait, call, [*args, lit],
                           (("case_sensitivity", case),), path=path)


class TreeShape(NamedTuple):
    depth: int  # nodes on the longest path from the root
    written_nodes: int  # nodes once every shared subtree is unfolded, as Substrait writes it


def tree_shape(root: Expression) -> TreeShape:
    """The depth and the written size of a tree, walked iteratively (shared subtrees once)."""
    depth: dict[int, int] = {}
    size: dict[int, int] = {}
    for node in postorder(root):
        args = node.args
        depth[id(node)] = 1 + max((depth[id(a)] for a in args), default=0)
        size[id(node)] = min(1 + sum(size[id(a)] for a in args), MAX_WRITTEN_NODES + 1)
    return TreeShape(depth[id(root)], size[id(root)])


def _reference(selection, indices: list[int]) -> None:
    segment = selection.direct_reference
    for n, i in enumerate(indices):
        if n:
            segment = segment.struct_field.child
        segment.struct_field.field = i


def _struct_indices(call: Call) -> list[int] | None:
    text = str(option_values(call.options).get("field_ref", ""))
    if _INDEX.sub("", text) == "":
        return [int(i) for i in _INDEX.findall(text)]
    t = call.args[0].type
    out = []
    for name in text.lstrip(".").split("."):
        if not pa.types.is_struct(t):
            return None
        matches = [i for i, f in enumerate(t) if f.name == name]
        if len(matches) != 1:
            return None
        out.append(matches[0])
        t = t.field(matches[0]).type
    return out


def _has_struct(t: pa.DataType) -> bool:
    if pa.types.is_struct(t):
        return True
    if pa.types.is_list(t) or pa.types.is_map(t):
        return _has_struct(t.value_type if pa.types.is_list(t) else t.item_type) or (
            pa.types.is_map(t) and _has_struct(t.key_type))
    return False


def _structs_fields(t: pa.DataType):
    """Every field of every struct inside `t`."""
    if pa.types.is_struct(t):
        for f in t:
            yield f
            yield from _structs_fields(f.type)
    elif pa.types.is_list(t):
        yield from _structs_fields(t.value_type)
    elif pa.types.is_map(t):
        yield from _structs_fields(t.key_type)
        yield from _structs_fields(t.item_type)


def _check_type_depth(node: Expression, path) -> None:
    try:
        check_type_depth(node.type)
    except SubstraitError as exc:
        raise _refuse(str(exc), node, path) from None


def _is_temporal(t) -> bool:
    return t is not None and pa.types.is_temporal(t)


def _no_changed_options(call: Call, path) -> None:
    if call.options is None:
        return
    changed = options_changed_text(call.options)
    if changed not in ("{}", ""):
        raise _refuse(f"{call.name} with options {changed} has no Substrait form "
                      "(only its default options map)", call, path)


def _why_not(name: str) -> str:
    if name in ("and", "or"):
        return (f"{name} without Kleene logic (null if any side is null) has no Substrait "
                f"form; Substrait's {name} is {name}_kleene")
    if name == "choose":
        return "choose has no Substrait form (if_then needs a condition per branch)"
    return (f"{name} has no Substrait function exprscope maps it to; docs/substrait.md "
            "lists the ones it does")


def _position(path) -> str:
    """A node's position as every printer writes it: 1/0/2, or root."""
    return "/".join(map(str, path)) or "root"


def _where(path) -> str:
    return "the node at " + _position(path)


def _refuse(why: str, node: Expression, path) -> SubstraitError:
    shown = visible(str(node))
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return SubstraitError(f"cannot write {shown} (at {_position(path)}) as Substrait: {why}")

