"""pyarrow expression text read without running it: the same Expression pyarrow builds."""

from __future__ import annotations

import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.cli.command import main
from toolkit.errors import ParseError
from toolkit.interop.pyarrow_text import parse_pyarrow


@pytest.mark.parametrize("text, expected", [
    ('pc.field("year") >= 2022', pc.field("year") >= 2022),
    ('(pc.field("x") * 2 < 4000) & ~pc.field("s").isin(["a", "b"])',
     (pc.field("x") * 2 < 4000) & ~pc.field("s").isin(["a", "b"])),
    ('ds.field("t").cast("int8") > pc.scalar(5)', ds.field("t").cast("int8") > pc.scalar(5)),
    ('pc.field("a", "b").is_null(nan_is_null=True) | (pc.field("q") == -3)',
     pc.field("a", "b").is_null(nan_is_null=True) | (pc.field("q") == -3)),
    ('pyarrow.compute.field("a") / 2.5 != None', pc.field("a") / 2.5 != None),
    ('pc.field("a").cast("float32", safe=False)', pc.field("a").cast("float32", safe=False)),
    ('-pc.field("x") > 1', pc.Expression._call("negate_checked", [pc.field("x")]) > 1),
    ('pc.field(0) == "ü"', pc.field(0) == "ü"),
])
def test_reads_what_pyarrow_builds(text, expected):
    assert parse_pyarrow(text).equals(expected)


@pytest.mark.parametrize("text, culprit", [
    ('__import__("os").system("ls")', '__import__("os")'),
    ('pc.field("a").__class__', 'pc.field("a").__class__'),
    ("pc.field(x)", "x)"),
    ('1 < pc.field("a") < 3', '1 <'),
    ('open("/etc/passwd")', 'open'),
    ('pc.field("é") > "ü" + pc.nope()', "nope()"),  # under the unknown name
    ("lambda: 1", "lambda"),
    ('pc.field("a").isin(pc.field("b"))', 'pc.field("a").isin'),
])
def test_anything_else_is_a_parse_error_with_a_caret_under_it(text, culprit):
    with pytest.raises(ParseError) as caught:
        parse_pyarrow(text)
    line, carets = str(caught.value).splitlines()[-2:]
    column = carets.index("^")
    assert line[column:].startswith(culprit), str(caught.value)


def test_nothing_is_run(monkeypatch):
    called = []
    monkeypatch.setattr(sys, "exit", lambda *a: called.append(a))
    with pytest.raises(ParseError):
        parse_pyarrow("sys.exit(3)")
    assert not called


@given(st.text(max_size=60))
def test_arbitrary_text_gives_an_expression_or_a_parse_error(text):
    try:
        parse_pyarrow(text)
    except ParseError:
        pass


def test_cli_reads_pyarrow_text(tmp_path, capsys):
    table = pa.table({"year": [2020, 2021, 2022] * 10, "x": list(range(30))})
    ds.write_dataset(table, tmp_path, format="parquet", partitioning=["year"],
                     partitioning_flavor="hive")
    code = main(["scan", str(tmp_path), "--pyarrow", "--partitioning", "hive",
                 "--filter", '(pc.field("year") >= 2021) & (pc.field("x") < 50)'])
    assert code == 0 and "reads 2 of 3 files" in capsys.readouterr().out
    assert main(["explain", 'pc.field("a") + 1 > 3', "--schema", "a:int32", "--pyarrow"]) == 0
    assert "add_checked" in capsys.readouterr().out


@pytest.mark.parametrize("text, culprit", [
    ("~" * 10_000 + 'pc.field("a")', "~"),
    ("~" * 2_000 + 'pc.field("a")', "~"),  # Python parses this; reading it recursed too deep
    ("-" * 10_000 + "1", "-"),
    (" | ".join(['pc.field("a")'] * 2_000), None),
])
def test_too_deep_text_is_refused_naming_the_limit_and_where(text, culprit):
    from toolkit.interop.pyarrow_text import MAX_PYARROW_NESTING
    with pytest.raises(ParseError) as info:
        parse_pyarrow(text)
    assert f"more than {MAX_PYARROW_NESTING:,} levels" in info.value.reason
    assert 0 <= info.value.position < len(text)
    if culprit is not None:
        assert info.value.position == MAX_PYARROW_NESTING
        assert text[info.value.position] == culprit


def test_nesting_up_to_the_limit_reads_what_pyarrow_builds():
    inverted, chain = pc.field("a"), pc.field("a")
    for _ in range(600):
        inverted = ~inverted
        chain = chain | pc.field("b")
    assert parse_pyarrow("~" * 600 + 'pc.field("a")').equals(inverted)
    assert parse_pyarrow('pc.field("a")' + ' | pc.field("b")' * 600).equals(chain)
