"""Spark SQL functions imported through spark_functions equal Spark's own results: every
function over a table with nulls, empty strings, non-ASCII text, negative numbers, zeros,
NaN and month ends, in one Spark query, compared row by row and by result type with
`df.toArrow()`; what cannot be exact is refused naming its class."""

from __future__ import annotations

import math

import pytest

from toolkit.errors import SparkImportError

pytestmark = pytest.mark.spark

ROWS = """
(0, 'a b ', 'Üß-日本', 5, 2.5D, CAST(12.35 AS DECIMAL(10,2)), DATE'2024-01-31', TIMESTAMP'2024-02-29 23:59:59'),
(1, '', '', 0, 0.0D, CAST(0 AS DECIMAL(10,2)), DATE'2024-02-29', TIMESTAMP'2023-12-31 00:00:00'),
(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
(3, '  aab ab ', 'ÄBC abc', -7, -1.5D, CAST(-2.45 AS DECIMAL(10,2)), DATE'2023-12-31', TIMESTAMP'2024-07-15 12:30:45.123456'),
(4, 'abab', ' x ', 2147483641, double('NaN'), CAST(99999999.99 AS DECIMAL(10,2)), DATE'2024-04-30', TIMESTAMP'1999-06-30 06:00:00'),
(5, 'b\u00e9b', 'a\\nb', -2147483644, -0.0D, CAST(-0.05 AS DECIMAL(10,2)), DATE'2021-01-03', TIMESTAMP'2021-01-03 10:00:00'),
(6, 'ab', 'AbAB', 3, double('Infinity'), CAST(0.15 AS DECIMAL(10,2)), DATE'2020-12-31', TIMESTAMP'2020-12-31 23:00:00'),
(7, 'aaa', 'ab\\rab', 1, 1.0D, CAST(1.25 AS DECIMAL(10,2)), DATE'2024-03-01', TIMESTAMP'2024-03-01 00:00:00')
"""

FUNCTIONS = [
    "concat(s, u)", "concat(s, 'x', u)", "concat_ws('-', s, u)", "concat_ws('-', s, NULL, u)", "concat_ws(', ', u)",
    "nvl(s, 'z')", "ifnull(i, 0)", "nvl2(s, 1, 2)", "nullif(i, 3)", "nanvl(d, 0D)",
    "greatest(i, 3)", "least(i, 3, NULL)", "greatest(d, 1D)", "least(d, 1D)",
    "greatest(m, 0.1)",
    "round(m, 1)", "bround(m, 1)", "round(m, -1)", "round(i, -1)", "bround(i, -1)",
    "round(m)", "pow(d, 2)", "pow(1D, d)", "ln(d)", "log10(d)", "log2(d)",
    "log(2, d)", "log1p(d)", "sign(d)", "signum(i)", "pmod(i, 3)", "pmod(i, -3)",
    "try_divide(i, 0)", "try_divide(d, 2)", "i div 2", "d / 4", "m * 2", "m / 3",
    "m / 7", "m + 1", "i & 3", "i | 12", "i ^ 5", "~i", "shiftleft(i, 3)",
    "shiftleft(i, 33)", "shiftright(i, 1)", "positive(i)", "e()", "pi()",
    "trim(s)", "ltrim(s)", "rtrim(s)", "trim(BOTH 'ab' FROM s)", "lpad(s, 5, '*')",
    "rpad(u, 3, '.')", "lpad(s, 0, '*')", "rpad(s, -1, '*')", "lpad(s, 4, '')",
    "replace(s, 'ab', 'X')", "replace(u, '', 'X')", "regexp_replace(s, 'a+', '<$0>')",
    "regexp_replace(s, 'a(b)', '[$1]')", "regexp_replace(u, '.', '_')",
    "regexp_extract(s, 'a(b)', 1)", "regexp_extract(s, '(a)(x)?', 2)",
    "regexp_extract(u, '[A-Z]+', 0)", "s rlike 'b$'", "u rlike 'a.b'", "s rlike '^a'",
    "instr(s, 'b')", "instr(u, '日')", "instr(s, '')", "locate('b', s, 3)",
    "locate('b', s, 0)", "locate('', s, 2)", "reverse(u)", "s ilike 'A%'",
    "u ilike '%äbc%'", "left(u, 2)", "right(u, 2)", "left(u, -1)", "right(u, 0)",
    "repeat(u, 2)", "repeat(u, -1)", "bit_length(u)", "octet_length(u)",
    "datediff(dt, DATE'2024-01-01')", "datediff(DATE'2024-01-01', dt)", "last_day(dt)",
    "trunc(dt, 'MM')", "trunc(dt, 'YEAR')", "trunc(dt, 'QUARTER')", "trunc(dt, 'WEEK')",
    "trunc(dt, 'bogus')", "date_trunc('month', ts)", "date_trunc('HOUR', ts)",
    "date_trunc('week', ts)", "date_trunc('DAY', ts)", "quarter(dt)", "weekofyear(dt)",
    "dayofyear(dt)", "extract(year FROM dt)", "date_part('month', dt)",
]


@pytest.fixture(scope="module")
def table(spark):
    return spark.sql(f"SELECT * FROM VALUES {ROWS} AS t(k, s, u, i, d, m, dt, ts)")


@pytest.mark.parametrize("stage", ["analyzed"])
def test_every_function_equals_sparks_rows_and_types(spark, table, stage):
    from toolkit import spark as tks

    wrong = _differences(tks, table, stage, FUNCTIONS)
    assert not wrong, "\n".join(wrong)


def _differences(tks, table, stage, functions) -> list[str]:
    df = table.selectExpr("k", *[f"{f} AS c{n}" for n, f in enumerate(functions)])
    want = df.toArrow()
    got = tks.run(tks.from_spark(df, stage=stage), mode="engine").to_arrow()
    wrong = []
    for n, f in enumerate(functions):
        w, g = want.column(f"c{n}"), got.column(f"c{n}")
        if g.type != w.type:
            wrong.append(f"{f}: type {g.type}, Spark {w.type}")
            continue
        for k, (a, b) in enumerate(zip(g.to_pylist(), w.to_pylist())):
            same = a == b or (isinstance(a, float) and isinstance(b, float)
                              and math.isnan(a) and math.isnan(b))
            if not same or str(a) != str(b):  # str tells -0.0 from 0.0
                wrong.append(f"{f} row {k}: exprscope {a!r}, Spark {b!r}")
    return wrong


REFUSALS = {
    "rand(1)": "Rand", "uuid()": "Uuid", "hash(i)": "Murmur3Hash", "md5(s)": "Md5",
    "sha2(s, 256)": "Sha2", "crc32(s)": "Crc32", "format_string('%d', i)": "FormatString",
    "round(d, 2)": "Round", "initcap(s)": "InitCap", "translate(s, 'a', 'b')":
    "StringTranslate", "s rlike '(a)\\\\1'": "RLike", "s rlike '(?=a)'": "RLike",
    "regexp_replace(s, 'b$', 'x')": "RegExpReplace", "regexp_replace(s, 'a*', 'x')":
    "RegExpReplace", "s rlike '\\\\s'": "RLike", "lpad(s, 5, 'ab')": "StringLPad",
    "exp(d)": "Exp", "array(i, 2)": "CreateArray", "split(s, 'b')": "StringSplit",
    "cast(d as string)": "Cast", "concat(s, d)": "Cast",
}


@pytest.mark.parametrize("expression", sorted(REFUSALS))
def test_what_cannot_be_exact_is_refused_naming_its_class(table, expression):
    from toolkit import spark as tks

    with pytest.raises(SparkImportError) as info:
        tks.from_spark(table.selectExpr(f"{expression} AS r"))
    assert info.value.spark_class == REFUSALS[expression]
    assert REFUSALS[expression] in str(info.value)
