"""Which Arrow function each Substrait function is, in one table both directions read.

A Substrait function is named by its extension file (`functions_arithmetic`) and
its name (`add`); enum options choose among Arrow's variants (`overflow: ERROR`
is `add_checked`). The table follows Arrow's own Substrait consumer where it has
a mapping (so what pyarrow sends reads as Acero runs it) and the Substrait
extension files' definitions elsewhere. A function that is not here, or whose
options have no Substrait form, is refused by name rather than written as a
near one. Calls whose Substrait arguments are Arrow options (the pattern of
`starts_with`, the component of `extract`, the separator of `concat`) are the
`ARGUMENT_OPTIONS` shapes, read and written by `substrait_read`/`substrait_write`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AGGREGATE_DISTRIBUTIONS",
    "AGGREGATE_MAPPINGS",
    "ARGUMENT_OPTIONS",
    "EXTRACT_COMPONENTS",
    "FUNCTION_MAPPINGS",
    "ROUNDING_MODES",
    "FunctionMapping",
    "mapping_for_arrow",
    "mappings_for_substrait",
    "urn_of",
]


@dataclass(frozen=True)
class FunctionMapping:
    """One Arrow function and the Substrait function (with enum options) it is."""

    arrow: str
    extension: str  # the extension file's stem, e.g. "functions_arithmetic"
    substrait: str
    options: tuple[tuple[str, str], ...] = ()  # enum options that pick this Arrow function
    default: bool = True  # the reading when the message sets none of `options`


def urn_of(extension: str) -> str:
    """The URN Substrait names a standard extension file by (`extension:io.substrait:...`)."""
    return f"extension:io.substrait:{extension}"


def _overflowing(arrow: str, substrait: str, extension: str = "functions_arithmetic"):
    return [FunctionMapping(arrow, extension, substrait, (("overflow", "SILENT"),)),
            FunctionMapping(arrow + "_checked", extension, substrait, (("overflow", "ERROR"),),
                            default=False)]


def _plain(extension: str, pairs: dict[str, str]) -> list[FunctionMapping]:
    return [FunctionMapping(arrow, extension, substrait) for arrow, substrait in pairs.items()]


FUNCTION_MAPPINGS: tuple[FunctionMapping, ...] = tuple(
    [m for name in ("add", "subtract", "multiply", "divide", "power", "abs", "negate")
     for m in _overflowing(name, name)]
    # modulus's division_type says which remainder: SQL's % (and the default) truncates
    # like Arrow's remainder; FLOOR is Arrow's modulo (the divisor's sign)
    + [FunctionMapping(arrow, "functions_arithmetic", "modulus",
                       (("division_type", kind), ("overflow", overflow)),
                       default=(arrow == "remainder"))
       for arrow, kind, overflow in (("remainder", "TRUNCATE", "SILENT"),
                                     ("remainder_checked", "TRUNCATE", "ERROR"),
                                     ("modulo", "FLOOR", "SILENT"),
                                     ("modulo_checked", "FLOOR", "ERROR"))]
    + [FunctionMapping("sqrt", "functions_arithmetic", "sqrt", (("on_domain_error", "NAN"),)),
       FunctionMapping("sqrt_checked", "functions_arithmetic", "sqrt",
                       (("on_domain_error", "ERROR"),), default=False)]
    + _plain("functions_arithmetic", {
        "exp": "exp", "sign": "sign",
        "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
        "atan": "atan", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
        "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
        "bit_wise_and": "bitwise_and", "bit_wise_or": "bitwise_or",
        "bit_wise_xor": "bitwise_xor", "bit_wise_not": "bitwise_not",
    })
    + _plain("functions_logarithmic", {
        "ln": "ln", "log10": "log10", "log2": "log2", "log1p": "log1p", "logb": "logb"})
    + _plain("functions_rounding", {"ceil": "ceil", "floor": "floor"})
    + _plain("functions_boolean", {
        "and_kleene": "and", "or_kleene": "or", "xor": "xor", "invert": "not"})
    + _plain("functions_comparison", {
        "equal": "equal", "not_equal": "not_equal", "less": "lt", "less_equal": "lte",
        "greater": "gt", "greater_equal": "gte", "is_null": "is_null",
        "is_valid": "is_not_null", "is_nan": "is_nan", "is_finite": "is_finite",
        "is_inf": "is_infinite", "coalesce": "coalesce"})
    + _plain("functions_string", {
        "utf8_lower": "lower", "utf8_upper": "upper", "utf8_length": "char_length",
        "binary_length": "octet_length", "utf8_reverse": "reverse"})
)

# Arrow functions whose Substrait form moves an option into an argument or a name:
# arrow name -> (extension, substrait name); read and written by their own code.
ARGUMENT_OPTIONS: dict[str, tuple[str, str]] = {
    "starts_with": ("functions_string", "starts_with"),
    "ends_with": ("functions_string", "ends_with"),
    "match_substring": ("functions_string", "contains"),
    "match_like": ("functions_string", "like"),
    "binary_join_element_wise": ("functions_string", "concat"),
    "max_element_wise": ("functions_comparison", "greatest_skip_null"),
    "min_element_wise": ("functions_comparison", "least_skip_null"),
    "round": ("functions_rounding", "round"),
    "round_binary": ("functions_rounding", "round"),
}

# round(x, digits)'s rounding option: Arrow's RoundMode of each, in Arrow's enum order
ROUNDING_MODES: tuple[tuple[str, str], ...] = (
    ("FLOOR", "down"), ("CEILING", "up"), ("TRUNCATE", "towards_zero"),
    ("AWAY_FROM_ZERO", "towards_infinity"), ("TIE_DOWN", "half_down"), ("TIE_UP", "half_up"),
    ("TIE_TOWARDS_ZERO", "half_towards_zero"), ("TIE_AWAY_FROM_ZERO", "half_towards_infinity"),
    ("TIE_TO_EVEN", "half_to_even"), ("TIE_TO_ODD", "half_to_odd"),
)

# extract(component, x): the Arrow function of each component Substrait names
EXTRACT_COMPONENTS: dict[str, str] = {
    "YEAR": "year", "MONTH": "month", "DAY": "day", "HOUR": "hour", "MINUTE": "minute",
    "SECOND": "second", "QUARTER": "quarter", "DAY_OF_YEAR": "day_of_year",
    "MILLISECOND": "millisecond", "MICROSECOND": "microsecond", "NANOSECOND": "nanosecond",
}

# the aggregates of exprscope's plans: plan function -> (extension, Substrait name); the
# Substrait `count` with no argument counts rows (count(*)); `avg` is exprscope's `mean`.
# `percentile` has none: Substrait's `quantile` returns a list of n-tile boundaries and
# its `median` the 0.5 one only (as the argument's type for integers, not a double)
AGGREGATE_MAPPINGS: dict[str, tuple[str, str]] = {
    "sum": ("functions_arithmetic", "sum"),
    "min": ("functions_arithmetic", "min"),
    "max": ("functions_arithmetic", "max"),
    "mean": ("functions_arithmetic", "avg"),
    "count": ("functions_aggregate_generic", "count"),
    "var_samp": ("functions_arithmetic", "variance"),
    "var_pop": ("functions_arithmetic", "variance"),
    "stddev_samp": ("functions_arithmetic", "std_dev"),
    "stddev_pop": ("functions_arithmetic", "std_dev"),
    "bool_and": ("functions_boolean", "bool_and"),
    "bool_or": ("functions_boolean", "bool_or"),
}
# Substrait's `variance` and `std_dev` say which one by their `distribution` option
AGGREGATE_DISTRIBUTIONS: dict[str, str] = {
    "var_samp": "SAMPLE", "var_pop": "POPULATION",
    "stddev_samp": "SAMPLE", "stddev_pop": "POPULATION",
}

_BY_ARROW = {m.arrow: m for m in FUNCTION_MAPPINGS}
_BY_SUBSTRAIT: dict[str, list[FunctionMapping]] = {}
for _m in FUNCTION_MAPPINGS:
    _BY_SUBSTRAIT.setdefault(_m.substrait, []).append(_m)


def mapping_for_arrow(name: str) -> FunctionMapping | None:
    return _BY_ARROW.get(name)


def mappings_for_substrait(name: str) -> list[FunctionMapping]:
    """The Arrow functions a Substrait name may be, by its name alone (extension files
    agree: `gt` is `greater` in both the comparison and the datetime files)."""
    return _BY_SUBSTRAIT.get(name, [])
