"""tk.parse: SQL expression text -> Expression, and Expression.to_sql() back to text."""

import datetime as dt
import decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given

import toolkit as tk
from tests.strategies.untyped import expressions, expressions_with_options
from toolkit.model.expression import Call, Literal

a, b, s, t, u = (tk.field(n) for n in "abstu")


def lit(v, typ=None):
    return tk.literal(v, typ)


CONSTRUCTS = [
    # columns
    ("a", a),
    ('"a b"', tk.field("a b")),
    ('"say ""hi"""', tk.field('say "hi"')),
    ('"a.b"', tk.field("a.b")),
    ("a.b", tk.field("a", "b")),
    ('st."in ner".e', tk.field("st", "in ner", "e")),
    ("a.b.c.d.e", tk.field("a", "b", "c", "d", "e")),
    # constants
    ("42", lit(42)),
    ("-7", lit(-7)),
    ("-9223372036854775808", lit(-(2**63))),
    ("18446744073709551615", lit(2**64 - 1, pa.uint64())),
    ("1.5", lit(1.5)),
    ("1e3", lit(1000.0)),
    ("'it''s'", lit("it's")),
    ("'back\\slash'", lit("back\\slash")),
    ("TRUE", lit(True)),
    ("false", lit(False)),
    ("NULL", Literal(pa.scalar(None))),
    ("DATE '2024-02-29'", lit(dt.date(2024, 2, 29), pa.date32())),
    ("TIMESTAMP '2024-02-29 10:11:12'", lit(dt.datetime(2024, 2, 29, 10, 11, 12), pa.timestamp("us"))),
    ("INTERVAL '90' MINUTE", Literal(pa.scalar(5400, pa.duration("s")))),
    ("INTERVAL '2' DAY", Literal(pa.scalar(172800, pa.duration("s")))),
    ("INTERVAL '1.5' SECOND", Literal(pa.scalar(1500, pa.duration("ms")))),
    ("INTERVAL '7' MILLISECOND", Literal(pa.scalar(7, pa.duration("ms")))),
    # typed constants and casts
    ("CAST(1 AS INT)", lit(1, pa.int32())),
    ("CAST(NULL AS BIGINT)", lit(None, pa.int64())),
    ("CAST('nan' AS DOUBLE)", lit(float("nan"))),
    ("CAST('1.25' AS DECIMAL(5, 2))", lit(decimal.Decimal("1.25"), pa.decimal128(5, 2))),
    ("CAST(a AS SMALLINT)", tk.cast(a, pa.int16())),
    ("CAST((1) AS INT)", tk.cast(lit(1), pa.int32())),
    ("CAST('x' AS INT)", tk.cast(lit("x"), pa.int32())),  # cannot be done now: stays a call
    ("a::DOUBLE", tk.cast(a, pa.float64())),
    # arithmetic and comparisons
    # SQL arithmetic is the unchecked kernels (the Python operators build the checked ones)
    ("a + 1", Call("add", [a, lit(1)])),
    ("a - b * 2", Call("subtract", [a, Call("multiply", [b, lit(2)])])),
    ("(a - b) * 2", Call("multiply", [Call("subtract", [a, b]), lit(2)])),
    ("a / b", Call("divide", [a, b])),
    ("-a", Call("negate", [a])),
    ("a = 1", a == 1), ("a <> 1", a != 1), ("a != 1", a != 1), ("a < 1", a < 1),
    ("a <= 1", a <= 1), ("a > 1", a > 1), ("a >= 1", a >= 1),
    ("a + 1 > 3", Call("add", [a, lit(1)]) > 3),
    ("a & 3", Call("bit_wise_and", [a, lit(3)])),
    ("a << 2", Call("shift_left", [a, lit(2)])),
    ("~a", Call("bit_wise_not", [a])),
    # logic
    ("a AND b", tk.and_(a, b)),
    ("a OR b AND s", tk.or_(a, tk.and_(b, s))),
    ("NOT a", tk.not_(a)),
    ("a IS NULL", tk.is_null(a)),
    ("a IS NOT NULL", tk.is_valid(a)),
    ("NOT (a IS NULL)", tk.not_(tk.is_null(a))),
    ("a IN (1, 2, 3)", Call("is_in", [a], pc.SetLookupOptions(pa.array([1, 2, 3])))),
    ("a IN (1, 2.5)", Call("is_in", [a], pc.SetLookupOptions(pa.array([1.0, 2.5])))),
    ("s IN ('x', NULL)", Call("is_in", [s], pc.SetLookupOptions(pa.array(["x", None])))),
    ("a NOT IN (1)", tk.not_(Call("is_in", [a], pc.SetLookupOptions(pa.array([1]))))),
    ("a BETWEEN 1 AND 5", tk.and_(a >= 1, a <= 5)),
    ("a NOT BETWEEN 1 AND 5", tk.not_(tk.and_(a >= 1, a <= 5))),
    # conditionals
    ("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END",
     tk.case_when([(a > 1, "big"), (a > 0, "small")], else_="none")),
    ("CASE a WHEN 1 THEN 'one' END", tk.case_when([(a == 1, "one")])),
    ("IF(a > 0, a, 0)", tk.if_else(a > 0, a, 0)),
    ("COALESCE(a, b, 0)", tk.coalesce(a, b, 0)),
    ("ifnull(a, 0)", tk.coalesce(a, 0)),
    # functions through the one table
    ("upper(s)", Call("utf8_upper", [s])),
    ("LOWER(s)", Call("utf8_lower", [s])),
    ("length(s)", Call("utf8_length", [s])),
    ("s LIKE 'ab%'", Call("match_like", [s], pc.MatchSubstringOptions("ab%"))),
    ("s ILIKE 'ab%'", Call("match_like", [s], pc.MatchSubstringOptions("ab%", ignore_case=True))),
    ("s NOT LIKE 'ab%'", tk.not_(Call("match_like", [s], pc.MatchSubstringOptions("ab%")))),
    ("starts_with(s, 'ab')", Call("starts_with", [s], pc.MatchSubstringOptions("ab"))),
    ("ends_with(s, 'ab')", Call("ends_with", [s], pc.MatchSubstringOptions("ab"))),
    ("substr(s, 2, 3)", Call("utf8_slice_codeunits", [s], pc.SliceOptions(1, 4))),
    ("substring(s FROM 2 FOR 3)", Call("utf8_slice_codeunits", [s], pc.SliceOptions(1, 4))),
    ("substr(s, 2)", Call("utf8_slice_codeunits", [s], pc.SliceOptions(1))),
    ("substr(s, -2)", Call("utf8_slice_codeunits", [s], pc.SliceOptions(-2))),
    ("abs(a)", Call("abs", [a])),
    ("round(b)", Call("round", [b], pc.RoundOptions(0))),
    ("round(b, 2)", Call("round", [b], pc.RoundOptions(2))),
    ("round(b, -1, 'half_up')", Call("round", [b], pc.RoundOptions(-1, "half_up"))),
    ("floor(b)", Call("floor", [b])), ("ceil(b)", Call("ceil", [b])),
    ("ceiling(b)", Call("ceil", [b])), ("sqrt(b)", Call("sqrt", [b])),
    ("power(b, 2)", Call("power", [b, lit(2)])), ("pow(b, 2)", Call("power", [b, lit(2)])),
    ("year(t)", Call("year", [t])), ("month(t)", Call("month", [t])), ("day(t)", Call("day", [t])),
    ("hour(t)", Call("hour", [t])), ("minute(t)", Call("minute", [t])),
    ("second(t)", Call("second", [t])), ("day_of_week(t)", Call("day_of_week", [t])),
    ("dayofweek(t)", Call("day_of_week", [t])),
    ("EXTRACT(YEAR FROM t)", Call("year", [t])),
    ("regexp_like(s, 'a+')", Call("match_substring_regex", [s], pc.MatchSubstringOptions("a+"))),
    ("regexp_matches(s, 'a+')",
     Call("match_substring_regex", [s], pc.MatchSubstringOptions("a+"))),
    ("octet_length(s)", Call("binary_length", [s])),
    ("mod(a, b)", Call("remainder", [a, b])),
    ("greatest(a, b, 1)", Call("max_element_wise", [a, b, lit(1)])),
    ("least(a, b)", Call("min_element_wise", [a, b])),
    ("isfinite(b)", Call("is_finite", [b])), ("isinf(b)", Call("is_inf", [b])),
    ("datediff(t, u)", Call("days_between", [u, t])),  # the end first, as Spark and MySQL
    ("date_diff('hour', t, u)", Call("hours_between", [t, u])),
    ("DATEDIFF('Weeks', t, u)", Call("weeks_between", [t, u])),
    ("concat(s, 'x', s)", Call("binary_join_element_wise", [s, lit("x"), s, lit("")])),
    ("s || 'x'", Call("binary_join_element_wise", [s, lit("x"), lit("")])),
    ("concat_ws('-', s, s)", Call("binary_join_element_wise", [s, s, lit("-")])),
    # Arrow's own calls
    ("utf8_upper(s)", Call("utf8_upper", [s])),
    ('"my_udf"(a, 1)', Call("my_udf", [a, lit(1)])),  # quoted: kept, registered or not
    ('"MyUdf"(a)', Call("MyUdf", [a])),
    ('"upper"(s)', Call("upper", [s])),  # quoted: verbatim, no table lookup
    ('"round"(b)', Call("round", [b])),
    ("is_null(b, nan_is_null => TRUE)", tk.is_null(b, nan_is_null=True)),
    ("round(b, ndigits => 1, round_mode => 'down')", Call("round", [b], pc.RoundOptions(1, "down"))),
    ("struct(a AS x, b + 1 AS y)", tk.project([a, tk.call("add", [b, 1])], ["x", "y"])),
]


@pytest.mark.parametrize("text,expected", CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_each_construct(text, expected):
    got = tk.parse(text)
    assert got.equals(expected), f"{got} != {expected}"
    assert hash(got) == hash(expected)


@pytest.mark.parametrize("text,expected", CONSTRUCTS, ids=[c[0] for c in CONSTRUCTS])
def test_each_construct_prints_back(text, expected):
    again = tk.parse(expected.to_sql())
    assert again.equals(expected), expected.to_sql()


def test_sql_spellings_compute_what_duckdb_computes():
    """The SQL spellings of Arrow functions mean what they mean in a SQL engine: the same
    text gives DuckDB's values (nulls, NaN, infinities, negative operands, leap days)."""
    duckdb = pytest.importorskip("duckdb")
    start = [dt.datetime(2024, 2, 29, 13, 5), dt.datetime(2021, 1, 3, 23, 59), None,
             dt.datetime(2000, 1, 1), dt.datetime(2024, 3, 4), dt.datetime(1999, 12, 31, 1, 2)]
    end = [dt.datetime(2024, 3, 4), dt.datetime(2021, 1, 4, 0, 1), dt.datetime(2000, 1, 1), None,
           dt.datetime(2023, 12, 31, 23), dt.datetime(2001, 1, 1)]
    table = pa.table({
        "a": pa.array([-7, 7, None, 9, -9, 0]), "b": pa.array([3, -3, 2, None, 4, 5]),
        "x": pa.array([1.5, float("inf"), None, float("nan"), float("-inf"), 0.0]),
        "s": pa.array(["aab", "ba", None, "", "xyz", "äb"]),
        "t": pa.array(start, pa.timestamp("us")), "u": pa.array(end, pa.timestamp("us")),
        "d": pa.array([v and v.date() for v in start], pa.date32()),
        "e": pa.array([v and v.date() for v in end], pa.date32()),
    })
    texts = ["lower(s)", "substr(s, 2, 2)", "substr(s, 2)", "regexp_matches(s, 'a+b')",
             "mod(a, b)", "greatest(a, b)", "least(a, b, 1)", "isfinite(x)", "isinf(x)",
             *[f"date_diff('{unit}', t, u)" for unit in
               ("year", "quarter", "day", "hour", "minute", "second", "millisecond",
                "microsecond")],
             *[f"datediff('{unit}', d, e)" for unit in ("years", "quarter", "day")]]
    con = duckdb.connect()
    con.register("tab", table)
    for text in texts:
        want = con.sql(f"SELECT {text} AS r FROM tab").to_arrow_table().column("r")
        got = tk.evaluate(tk.parse(text).bind(table.schema), table)
        assert got.to_pylist() == want.to_pylist(), text


def test_never_evaluates_the_text():
    # Python code is just a call of a function no one registered here, never run
    with pytest.raises(tk.UnknownFunctionError):
        tk.parse("__import__('os')")
    e = tk.parse("\"__import__\"('os')")
    assert e.equals(Call("__import__", [lit("os")]))
    with pytest.raises(tk.ParseError):
        tk.parse("__import__('os').system('true')")


# -- errors -------------------------------------------------------------------------------
def error_of(text):
    with pytest.raises(tk.ParseError) as info:
        tk.parse(text)
    return info.value


def caret_column(err):
    """The column of the first caret in the message's snippet."""
    line = err.args[0].splitlines()[-1]
    return line.index("^") - 2  # the snippet is indented by two spaces


@pytest.mark.parametrize("text,position,words", [
    ("SELECT a FROM t", 7, "query"),
    ("a; b", 1, "a semicolon ends a statement"),
    ("a AS b", 5, "alias"),
    ("a b", 2, "alias"),
    ("*", 0, "`*`"),
    ("count(*)", 6, "`*`"),
    ("a +", 2, "'+' is missing its right operand"),
    ("(a", 1, "Expecting )"),
    ("a + 'abc", 4, "unterminated quote"),
    ('"abc + 1', 0, "unterminated quote"),
    ("f(1,,2)", 4, "argument is missing"),
    ("a IN (b)", 6, "constants"),
    ("a IN (1, 'x')", 6, "mixes"),
    ("a IN (SELECT 1)", 13, "query"),
    ("CAST(a AS FOO)", 10, "unknown type FOO"),
    ("CAST(a AS VARCHAR(10))", 18, "takes no parameters"),
    ("a IS TRUE", 5, "IS NULL"),
    ("INTERVAL '1' MONTH", 9, "no fixed length"),
    ("a % 2", 0, "modulo"),
    ("round(b, a)", 9, "integer constant"),
    ("substr(s, 0)", 10, "counts from 1"),
    ("upper(s, s)", 0, "takes 1 argument, got 2"),
    ("s LIKE a", 7, "string constant"),
    ("TRY_CAST(a AS INT)", 9, "TRY_CAST"),
    ('"f"(x => 1)', 9, "no keyword options"),
    ("is_null(a, bogus => 1)", 20, "bad options"),
    ("IF(a, 1)", 3, "three arguments"),
    ("", 0, "empty"),
    ("99999999999999999999999", 0, "64-bit"),
])
def test_errors_point_at_the_culprit(text, position, words):
    err = error_of(text)
    assert isinstance(err, tk.ExprscopeError)
    assert words in err.reason
    assert err.position == position, err.args[0]
    assert caret_column(err) == position
    assert err.text == text


def test_error_caret_on_a_later_line():
    err = error_of("a +\n  b +* 2")
    lines = err.args[0].splitlines()
    assert lines[-2] == "    b +* 2"  # the offending line alone, indented
    assert err.text[err.position] == "2"  # where sqlglot noticed the problem


def test_non_text_is_rejected():
    with pytest.raises(tk.ParseError, match="not int"):
        tk.parse(42)


# -- round trips ---------------------------------------------------------------------------
@given(expressions())
def test_to_sql_parses_back_to_an_equal_tree(e):
    text = e.to_sql()
    back = tk.parse(text)
    assert back.equals(e), f"{text!r}: {back} != {e}"
    assert hash(back) == hash(e)


@given(expressions_with_options())
def test_calls_with_options_round_trip(e):
    text = e.to_sql()
    assert tk.parse(text).equals(e), text


@pytest.mark.parametrize("value", [
    pa.scalar(1, pa.int32()), pa.scalar(7, pa.uint8()), pa.scalar(None, pa.float32()),
    pa.scalar(float("-inf"), pa.float32()), pa.scalar(0.1, pa.float32()),
    pa.scalar(-0.0), pa.scalar(1e300), pa.scalar(5e-324),
    pa.scalar(decimal.Decimal("-12.345"), pa.decimal128(10, 3)),
    pa.scalar(decimal.Decimal(1), pa.decimal256(50, 0)),
    pa.scalar(b"bytes", pa.binary()),
    pa.scalar(dt.datetime(2020, 1, 1, 0, 0, 0, 1), pa.timestamp("ns")),
    pa.scalar(dt.datetime(2020, 1, 1), pa.timestamp("s")),
    pa.scalar(dt.datetime(2020, 1, 1, 12), pa.timestamp("us", tz="UTC")),
    pa.scalar(123, pa.duration("ns")), pa.scalar(-5, pa.duration("us")),
    pa.scalar("multi\nline\ttext 'quoted' \"double\" ünïcödé"),
    pa.scalar("x", pa.large_string()),
])
def test_typed_literals_round_trip(value):
    e = tk.literal(value) + tk.field("a")
    back = tk.parse(e.to_sql())
    assert back.equals(e), e.to_sql()
    assert back.args[0].type == value.type


def test_a_cast_call_of_a_constant_is_written_so_it_stays_a_call():
    e = tk.cast(lit(1), pa.int64())
    assert e.to_sql() == "CAST((1) AS BIGINT)"
    assert tk.parse(e.to_sql()).equals(e)


def test_names_that_need_quotes():
    for name in ["select", "a b", 'q"uote', "dotted.name", "", "1abc", "ünï"]:
        e = tk.field(name) + 1
        assert tk.parse(e.to_sql()).equals(e), e.to_sql()


def test_calls_whose_bare_name_means_something_else_are_quoted():
    for name in ["upper", "if", "case", "struct", "length", "and"]:
        e = Call(name, [a])
        text = e.to_sql()
        assert text.startswith('"'), text
        assert tk.parse(text).equals(e)


def test_operators_print_with_the_fewest_parentheses():
    for text in ("a + 1 + 2", "a - (b - 1)", "(a + b) * 2"):  # SQL's +, -, * are unchecked
        assert tk.parse(text).to_sql() == text
    assert (a + 1).to_sql() == "add_checked(a, 1)"  # the operators' checked kernels
    assert tk.and_(a > 1, tk.or_(b, s)).to_sql() == "a > 1 AND (b OR s)"
    assert tk.not_(tk.is_null(a)).to_sql() == "NOT (a IS NULL)"


@pytest.mark.parametrize("expr,words", [
    (Literal(pa.array([1, 2])), "array literal"),
    (tk.field(0, 1), "index path"),
    (tk.cast(a, pa.int8(), safe=False), "overflow or truncation"),
    (tk.cast(a, pa.list_(pa.int64())), "no SQL spelling"),
    (Call("make_struct", [a], pc.MakeStructOptions(["x"], field_nullability=[False])), "nullability"),
    (Call("is_in", [a], pc.SetLookupOptions(pa.array([], pa.int64()))), "no SQL text"),
    (tk.literal(pa.scalar([1], pa.list_(pa.int64()))), "no SQL spelling"),
    (Call("cast", [a]), "cast"),
])
def test_what_has_no_text_raises_a_clear_error(expr, words):
    with pytest.raises(tk.ExprscopeError, match=words):
        expr.to_sql()


# -- depth -----------------------------------------------------------------------------
def test_a_10000_deep_chain_parses_without_recursion_error():
    text = "a" + " + 1" * 10_000
    e = tk.parse(text)
    depth, node = 0, e
    while node.is_call:
        node, depth = node.args[0], depth + 1
    assert depth == 10_000 and node.equals(a)
    assert e.to_sql() == text
    assert tk.parse(e.to_sql()).equals(e)


def _nth(text: str, char: str, n: int) -> int:
    position = -1
    for _ in range(n):
        position = text.index(char, position + 1)
    return position


def test_nesting_up_to_the_documented_depth_round_trips():
    from toolkit.sql.parse import MAX_NESTING

    e = tk.field("a")
    for _ in range(MAX_NESTING):
        e = Call("subtract", [lit(1), e])  # right-nested: one parenthesis per level
    assert tk.parse(e.to_sql()).equals(e)


def test_deeper_text_is_refused_with_a_caret_without_touching_the_interpreter():
    import sys
    import threading

    from toolkit.sql.parse import MAX_NESTING

    e = tk.field("a")
    for _ in range(10_000):
        e = Call("subtract", [lit(1), e])
    text = e.to_sql()
    limit = sys.getrecursionlimit()
    outcome = {}

    def in_a_thread():
        try:
            tk.parse(text)
        except tk.ParseError as err:
            outcome["error"] = err
        outcome["limit"] = sys.getrecursionlimit()

    worker = threading.Thread(target=in_a_thread)
    worker.start()
    worker.join()
    err = outcome["error"]
    assert f"nests more than {MAX_NESTING} levels" in str(err)
    assert err.position == _nth(text, "(", MAX_NESTING + 1)  # the first parenthesis too deep
    assert outcome["limit"] == limit == sys.getrecursionlimit()
    for deep in ("NOT " * 40 + "a", "CASE WHEN a THEN " * 40 + "1" + " END" * 40,
                 "abs(" * 40 + "a" + ")" * 40):
        with pytest.raises(tk.ParseError, match="nests more than"):
            tk.parse(deep)
    assert tk.parse(" AND ".join(["NOT p"] * 500)).is_call  # NOTs side by side do not nest


def test_an_error_in_a_long_line_shows_a_window_around_it():
    text = "a" + " + 1" * 5_000 + " +* 2" + " + 1" * 100
    err = error_of(text)
    snippet, carets = err.args[0].splitlines()[-2:]
    assert len(snippet) < 120 and snippet.strip().startswith("...")
    col = carets.index("^")
    assert snippet[col] == text[err.position] == "2"


@pytest.mark.parametrize("text, name, near, caret", [
    ("a + divde(a, 2)", "divde", "divide", "      ^^^^^"),
    ("uper(s) > 'A'", "uper", "upper", "  ^^^^"),
    ("ADD(a, 1)", "ADD", "add", "  ^^^"),
    ("if_else(b, sqrtt(a), 0)", "sqrtt", "sqrt", "             ^^^^^"),
])
def test_an_unknown_function_is_a_parse_error_with_a_caret_and_the_near_name(text, name, near,
                                                                               caret):
    with pytest.raises(tk.ParseError) as info:
        tk.parse(text)
    error = info.value
    assert isinstance(error, tk.UnknownFunctionError) and error.name == name
    assert near in error.suggestions
    lines = str(error).splitlines()
    assert lines[0].startswith(f"no function is called {name!r}; did you mean ")
    assert lines[1] == f"  {text}" and lines[2] == caret
    assert "No function registered" not in str(error)
