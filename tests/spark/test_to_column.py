"""Every catalog function translates to a Spark Column that computes what exprscope computes.

Each expression runs twice on the same small table full of nulls, NaNs, zeros
and edge dates: once by `tk.evaluate` (Arrow's semantics), once by Spark through
`tks.to_column`. The values (nulls equal, NaN equal to NaN) and the types must
agree; failures (integer division by zero) must fail on both sides.
"""

from __future__ import annotations

import datetime
import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk
from toolkit.functions import function_names

pytestmark = pytest.mark.spark

TABLE = pa.table({
    "a": pa.array([1, -7, 0, None, 5, 9], pa.int64()),
    "b": pa.array([2, 2, 0, 3, None, -4], pa.int64()),
    "x": pa.array([1.5, float("nan"), 0.0, None, -2.5, 2.5]),
    "y": pa.array([0.0, 1.0, 0.0, 2.0, float("inf"), float("nan")]),
    "s": pa.array(["Abc", "12", None, " héllo\t", "", "x_lo"]),
    "p": pa.array([True, False, None, True, None, False]),
    "q": pa.array([None, True, False, False, True, False]),
    "d": pa.array([datetime.date(2024, 1, 1), datetime.date(2023, 12, 31), None,
                   datetime.date(2024, 2, 29), datetime.date(1999, 7, 4),
                   datetime.date(2024, 1, 7)]),
    "ts": pa.array([datetime.datetime(2024, 1, 1, 12, 30, 15, 123456), None,
                    datetime.datetime(2020, 2, 29, 23, 59, 59), datetime.datetime(1970, 1, 1),
                    datetime.datetime(2024, 3, 10, 1, 2, 3),
                    datetime.datetime(2024, 1, 7, 0, 0, 1, 999)], pa.timestamp("us")),
    "l": pa.array([[1, 2], [], None, [3], [4, 5, 6], [None]], pa.list_(pa.int64())),
})

a, b, x, y, s, p, q, d, ts = (tk.field(n) for n in ["a", "b", "x", "y", "s", "p", "q", "d", "ts"])
c = tk.call
HOUR = tk.literal(pa.scalar(datetime.timedelta(hours=1), pa.duration("us")))
STRUCT = tk.make_struct([a, s], ["a", "s"])

# one or more expressions per catalog function (the test below checks none is missing)
CASES = [
    c("add", [a, b]), c("subtract", [a, b]), c("multiply", [a, b]), c("divide", [x, y]),
    c("add", [x, y]), c("multiply", [x, y]), a + b, x * y,  # the operators: checked kernels
    c("divide", [a, tk.literal(3, "int64")]), c("divide", [a, tk.literal(-2, "int64")]),
    c("remainder", [a, tk.literal(3, "int64")]), c("remainder_checked", [a, tk.literal(-2, "int64")]),
    c("remainder", [x, y]), c("remainder", [y, x]),
    c("add_checked", [a, b]), c("subtract_checked", [a, b]), c("multiply_checked", [a, b]),
    c("divide_checked", [x, tk.literal(2.0)]), c("negate_checked", [a]), c("abs_checked", [a]),
    c("power", [a, tk.literal(2, "int64")]), c("power", [x, tk.literal(2.0)]),
    c("power_checked", [a, tk.literal(3, "int64")]), c("sqrt", [y]), c("sqrt", [x]),
    c("sqrt_checked", [y]), c("negate", [a]), c("abs", [x]), -a, abs(x), a.cast("float64"),
    x.cast("float32"),
    c("round", [x], pc.RoundOptions(0, "half_to_even")),
    c("round", [x], pc.RoundOptions(0, "half_towards_infinity")),
    c("floor", [x]), c("ceil", [x]), c("trunc", [x]),
    x == y, x != y, x < y, x <= y, x > y, x >= y, a == b, a != b, a < b, s == tk.literal("12"),
    # against a constant (a guard only where Spark finds NaN greater), constant on either side
    *[c(op, args) for op in ("equal", "not_equal", "less", "less_equal", "greater",
                             "greater_equal")
      for args in ([x, tk.literal(1.5)], [tk.literal(0.0), x], [x, tk.literal(float("nan"))])],
    tk.and_(p, q), tk.or_(p, q), c("and", [p, q]), c("or", [p, q]), c("xor", [p, q]),
    c("and_not", [p, q]), c("and_not_kleene", [p, q]), tk.not_(p),
    tk.is_null(x), tk.is_null(x, nan_is_null=True), tk.is_valid(a), c("is_nan", [x]),
    c("true_unless_null", [a]), tk.coalesce(a, b, tk.literal(0, "int64")), tk.coalesce(x, y),
    c("choose", [tk.if_else(p, tk.literal(0, "int64"), tk.literal(1, "int64")), a, b]),
    a.isin([1, 5]), a.isin([1, 5, None]), s.isin(["12", "Abc"]),
    c("is_in", [a], pc.SetLookupOptions(pa.array([1, None]), skip_nulls=True)),
    c("index_in", [a], pc.SetLookupOptions(pa.array([1, None]), skip_nulls=True)),
    c("index_in", [a], pc.SetLookupOptions(pa.array([5, 1]))),
    c("index_in", [a], pc.SetLookupOptions(pa.array([5, None, 1]))),
    c("utf8_upper", [s]), c("utf8_lower", [s]), c("utf8_length", [s]), c("utf8_is_digit", [s]),
    c("starts_with", [s], pc.MatchSubstringOptions("A")),
    c("ends_with", [s], pc.MatchSubstringOptions("LO", ignore_case=True)),
    c("match_substring", [s], pc.MatchSubstringOptions("b", ignore_case=True)),
    c("match_like", [s], pc.MatchSubstringOptions("%l_o")),
    c("match_like", [s], pc.MatchSubstringOptions("x\\_%")),
    c("utf8_slice_codeunits", [s], pc.SliceOptions(1, 3)),
    c("utf8_slice_codeunits", [s], pc.SliceOptions(-2)),
    c("utf8_slice_codeunits", [s], pc.SliceOptions(-4, -1)),
    c("binary_join_element_wise", [s, s, tk.literal("-")]),
    c("binary_join_element_wise", [s, tk.literal("z"), tk.literal("+")],
      pc.JoinOptions("replace", "?")),
    c("binary_join_element_wise", [s, tk.literal("z"), tk.literal("+")], pc.JoinOptions("skip")),
    c("year", [d]), c("month", [ts]), c("day", [d]), c("hour", [ts]), c("minute", [ts]),
    c("second", [ts]), c("day_of_week", [d]), c("day_of_week", [ts]),
    c("day_of_week", [d], pc.DayOfWeekOptions(count_from_zero=False, week_start=7)),
    c("add", [ts, HOUR]), c("subtract", [ts, HOUR]),
    c("day_of_year", [d]), c("quarter", [ts]), c("millisecond", [ts]), c("microsecond", [ts]),
    c("nanosecond", [ts]), c("exp", [x]), c("ln", [x]), c("sign", [a]), c("sign", [x]),
    c("utf8_trim_whitespace", [s]), c("utf8_ltrim_whitespace", [s]),
    c("utf8_rtrim_whitespace", [s]), c("utf8_reverse", [s]),
    c("utf8_lpad", [s], pc.PadOptions(6, "*")), c("utf8_lpad", [s], pc.PadOptions(2, "0")),
    c("struct_field", [c("extract_regex", [s], pc.ExtractRegexOptions(
        r"(?P<first>[A-Za-z]+)(?P<digit>\d)?"))], pc.StructFieldOptions(["digit"])),
    tk.is_valid(c("extract_regex", [s], pc.ExtractRegexOptions(r"^(?P<n>\d+)$"))),
    d.cast("int32"), tk.cast(d.cast("int32"), pa.date32()),
    tk.if_else(p, a, b), tk.if_else(a > 0, s, tk.literal(None, pa.string())),
    tk.case_when([(a > 1, tk.literal("big")), (a < 0, tk.literal("neg"))], else_=tk.literal("o")),
    tk.case_when([(p, x), (q, y)]),
    STRUCT, c("struct_field", [STRUCT], pc.StructFieldOptions("s")),
    c("struct_field", [STRUCT], pc.StructFieldOptions([0])),
    # functions whose Spark function means the same
    *[c(n, [x]) for n in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                          "asinh", "acosh", "atanh", "expm1")],
    c("atan2", [x, y]), c("hypot", [x, y]), c("binary_length", [s]), c("iso_week", [d]),
    c("bit_wise_and", [a, b]), c("bit_wise_or", [a, b]), c("bit_wise_xor", [a, b]),
    c("bit_wise_not", [a]), c("days_between", [d, tk.literal(datetime.date(2024, 1, 1))]),
    c("list_value_length", [tk.field("l")]),
]


def _same(u, v, rel=1e-12) -> bool:
    if isinstance(u, float) and isinstance(v, float):
        if math.isnan(u) or math.isnan(v):
            return math.isnan(u) and math.isnan(v)
        return u == v or abs(u - v) <= rel * max(abs(u), abs(v))
    if isinstance(u, dict) and isinstance(v, dict):
        return u.keys() == v.keys() and all(_same(u[k], v[k]) for k in u)
    return u == v


@pytest.fixture(scope="module")
def df(spark):
    from toolkit.spark.translate.dataframe import dataframe

    return dataframe(TABLE, spark)


def _spark_values(df, expr):
    from toolkit import spark as tks

    return df.select(tks.to_column(expr, TABLE.schema).alias("r")).toArrow().column("r")


@pytest.mark.parametrize("expr", CASES, ids=[str(e) for e in CASES])
def test_spark_computes_what_exprscope_computes(df, expr):
    want = tk.evaluate(expr, TABLE)
    got = _spark_values(df, expr)
    assert got.type == want.type
    w, g = want.to_pylist(), got.to_pylist()
    assert all(_same(u, v) for u, v in zip(w, g)) and len(w) == len(g), (w, g)


def test_every_translated_function_has_a_case():
    from toolkit.spark.translate.to_column import translatable_names

    covered = set()
    for e in CASES:
        covered.update(n.name for _, n in tk.walk(e) if n.is_call)
    assert sorted(set(translatable_names()) & set(function_names()) - covered) == []


def test_a_function_without_a_spark_equivalent_is_named_and_runs_in_engine_mode(spark, df):
    from toolkit import spark as tks
    from toolkit.spark import SparkTranslationError

    expr = c("utf8_center", [s], pc.PadOptions(6, "*"))
    with pytest.raises(SparkTranslationError, match="cannot translate utf8_center to Spark"):
        tks.to_column(expr, TABLE.schema)
    # a native run refuses it by name and says which mode runs it
    with pytest.raises(SparkTranslationError, match=r"utf8_center .*mode='engine' runs it"):
        tks.run(expr, df, mode="native", name="r").to_arrow()
    got = tks.run(expr, df, mode="engine", name="r").to_arrow().column("r")
    assert got.to_pylist() == tk.evaluate(expr, TABLE).to_pylist()


@pytest.mark.parametrize("expr", [c("divide", [a, b]), c("divide_checked", [x, y]),
                                  c("remainder", [a, b]), c("remainder_checked", [y, x]),
                                  c("sqrt_checked", [x]),
                                  c("power", [a, tk.literal(-1, "int64")])],
                         ids=str)
def test_a_kernel_failure_fails_on_spark_too(df, expr):
    with pytest.raises(tk.KernelError):
        tk.evaluate(expr, TABLE)
    with pytest.raises(Exception, match="divide by zero|negative"):
        _spark_values(df, expr)


def test_lazy_if_else_guards_a_division_on_spark(df):
    guarded = tk.if_else(b != 0, c("divide", [a, b]), tk.literal(0, "int64"))
    assert _spark_values(df, guarded).to_pylist() == tk.evaluate(guarded, TABLE).to_pylist()


def test_arrow_semantics_where_spark_differs(df):
    # if_else with a null condition: null in Arrow, the else branch in plain Spark
    assert _spark_values(df, tk.if_else(p, a, b)).to_pylist()[2] is None
    # NaN == NaN is false in Arrow (Spark says true)
    nan = tk.literal(float("nan"))
    assert _spark_values(df, x == nan).to_pylist()[1] is False
    # integer division truncates toward zero and stays an integer
    assert _spark_values(df, c("divide", [a, tk.literal(2, "int64")])).to_pylist()[:2] == [0, -3]
    # Monday = 0 (2024-01-01 was a Monday; 2024-01-07 a Sunday)
    days = _spark_values(df, c("day_of_week", [d])).to_pylist()
    assert days[0] == 0 and days[5] == 6


@pytest.mark.parametrize("expr, name", [
    (c("utf8_slice_codeunits", [s], pc.SliceOptions(0, 4, 2)), "utf8_slice_codeunits"),
    (c("round", [x], pc.RoundOptions(1, "half_down")), "round"),
    (c("no_such_function", [a]), "no_such_function"),
], ids=["slice-step", "round-mode", "unknown"])
def test_untranslatable_functions_are_named(spark, expr, name):
    from toolkit import spark as tks
    from toolkit.spark import SparkTranslationError

    with pytest.raises(SparkTranslationError, match=f"cannot translate {name} to Spark") as info:
        tks.to_column(expr)
    assert info.value.function == name


def test_import_toolkit_does_not_import_pyspark():
    import subprocess
    import sys

    code = ("import sys, toolkit; from toolkit import spark; "
            "print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_translation_does_not_leave_pyspark_call_site_capture_changed(spark):
    from pyspark.errors import utils

    from toolkit import spark as tks

    before = utils._enable_debugging_cache
    tks.to_column(tk.if_else(p, a, b) + 1)
    assert utils._enable_debugging_cache == before
