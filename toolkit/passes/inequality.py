"""What `field <cmp> literal` as a guarantee says about comparisons in a filter.

Arrow's Inequality (docs/semantics.md §5).

A guarantee `a > 3` is an Inequality (GREATER, a, 3). Against a filter `a <cmp> M`
the answer is bit arithmetic on the Comparison masks: with r = how M compares
with 3, the filter is always true, always false, or undecided. `a > 3 or
is_null(a)` is the same inequality but *nullable*: then "always true" is only
"true unless a is null", spelled `true_unless_null(a)`.

`is_in` filters are trimmed instead: only the values the guarantee allows stay in
the value set (none left: false), with Arrow's table for null matching.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from ..model.expression import Call, Expression, Literal, Parameter
from ..model.field_ref import FieldRef
from ..model.options import value_set
from ..rewrite import Transformed
from .comparison import (
    BITS,
    EQUAL,
    NAMES,
    SYMBOLS,
    compare_scalars,
    flipped,
    strip_order_preserving_casts,
)
from .errors import GuaranteeError
from .fold_constants import literal_text
from .rebind import bind_new_call
from .set_lookup import (
    EMIT_NULL,
    INCONCLUSIVE,
    MATCH,
    SKIP,
    null_matching_behavior,
    set_lookup_options,
)

__all__ = ["MAX_IS_IN_VALUES", "Inequality"]

MAX_IS_IN_VALUES = 50  # GH-46777: trimming larger value sets costs more than it saves


@dataclass(frozen=True)
class Inequality:
    cmp: int  # the Comparison mask of the guarantee
    target: FieldRef
    bound: pa.Scalar
    nullable: bool  # the guarantee also allows the target to be null

    @staticmethod
    def extract_one(guarantee: Expression) -> Inequality | None:
        """`field <cmp> scalar` (not !=), or that `or_kleene is_null(field)`."""
        if not guarantee.is_call:
            return None
        if guarantee.name == "or_kleene" and len(guarantee.args) == 2:
            out = Inequality._from_comparison(guarantee.args[0])
            rhs = guarantee.args[1]
            if out is None or not rhs.is_call or rhs.name != "is_null" or not rhs.args:
                return None
            if not rhs.args[0].is_field or rhs.args[0].ref != out.target:
                return None
            return Inequality(out.cmp, out.target, out.bound, True)
        return Inequality._from_comparison(guarantee)

    @staticmethod
    def _from_comparison(expr: Expression) -> Inequality | None:
        if not expr.is_call or len(expr.args) != 2:
            return None
        bits = BITS.get(expr.name)
        if bits is None or bits == BITS["not_equal"]:
            return None
        target, bound = expr.args
        if not target.is_field or not bound.is_literal or not bound.is_scalar:
            return None
        return Inequality(bits, target.ref, bound.value, False)

    def describe(self) -> str:
        text = f"{Parameter(self.target)} {SYMBOLS[self.cmp]} {literal_text(self.bound)}"
        return text + " or null" if self.nullable else text

    # -- the rule: simplify one call, post-order ---------------------------------------
    def simplify(self, call: Call) -> Transformed | None:
        name = call.name
        if name in ("is_valid", "is_null") and call.args:
            return self._simplify_validity(call)
        if name == "is_in":
            return self._simplify_is_in(call)
        bits = BITS.get(name)
        if bits is None or len(call.args) != 2:
            return None
        rhs = call.args[1]
        if not rhs.is_literal or not rhs.is_scalar:
            return None
        lhs = strip_order_preserving_casts(call.args[0])
        if not lhs.is_field or lhs.ref != self.target:
            return None
        r = compare_scalars(rhs.value, self.bound)
        if r is None:
            return None  # a null on either side: Arrow's NA, nothing to conclude
        g = self.cmp
        if r == EQUAL:
            if bits & g == g:
                return self._decided(lhs, True, call)
            if bits & g == 0:
                return self._decided(lhs, False, call)
            return None
        if g & r:
            return None
        return self._decided(lhs, bool(bits & flipped(r)), call)

    def _decided(self, target: Expression, value: bool, call: Call) -> Transformed:
        why = f"the guarantee {self.describe()} makes {_short(call)} always {str(value).lower()}"
        if not self.nullable:
            return Transformed.fired(Literal(pa.scalar(value)),
                         f"simplify/inequality-{str(value).lower()}", why)
        after = bind_new_call("true_unless_null", (target,))
        if not value:
            after = bind_new_call("invert", (after,))
        return Transformed.fired(after, f"simplify/inequality-{str(value).lower()}-unless-null",
                     why + " where it is not null")

    def _simplify_validity(self, call: Call) -> Transformed | None:
        if self.nullable:
            return None
        lhs = strip_order_preserving_casts(call.args[0])
        if not lhs.is_field or lhs.ref != self.target:
            return None
        value = call.name == "is_valid"
        return Transformed.fired(Literal(pa.scalar(value)), f"simplify/{call.name}-by-inequality",
                     f"the guarantee {self.describe()} means {lhs.to_string()} is never null")

    def _simplify_is_in(self, call: Call) -> Transformed | None:
        if not call.args or not isinstance(call.options, pc.SetLookupOptions):
            return None
        lhs = strip_order_preserving_casts(call.args[0])
        if not lhs.is_field or lhs.ref != self.target:
            return None
        values = value_set(call.options)
        if len(values) > MAX_IS_IN_VALUES:
            return None
        behavior = null_matching_behavior(call.options)
        selection = self._null_selection(behavior, values)
        if selection is None:
            return None
        try:
            mask = pc.call_function(NAMES[self.cmp], [values, self.bound])
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise GuaranteeError(
                f"cannot compare the value set of {_short(call)} with the guarantee "
                f"{self.describe()}: {exc}") from exc
        kept = pc.filter(values, mask, null_selection_behavior=selection)
        if len(kept) == 0:
            return Transformed.fired(Literal(pa.scalar(False)), "simplify/is-in-empty",
                         f"no value of the set can satisfy the guarantee {self.describe()}")
        if len(kept) == len(values):
            return None
        after = bind_new_call("is_in", call.args, set_lookup_options(kept, behavior))
        return Transformed.fired(after, "simplify/is-in-trim",
                     f"the guarantee {self.describe()} rules out {len(values) - len(kept)} of "
                     f"the {len(values)} values in the set")

    def _null_selection(self, behavior: int, values: pa.Array) -> str | None:
        """How nulls in the value set survive the trim (Arrow's table); None: leave the call."""
        if behavior == MATCH:
            return "emit_null" if self.nullable else "drop"
        if behavior == SKIP:
            return "drop"
        if behavior == EMIT_NULL:
            return None if self.nullable else "drop"
        if behavior == INCONCLUSIVE:
            if self.nullable or values.null_count > 0:
                return None
            return "drop"
        return None


def _short(expr: Expression, limit: int = 60) -> str:
    text = expr.to_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."
