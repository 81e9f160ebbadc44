"""`exprscope row FILE EXPR --row N | --where PRED`: a row's story in the terminal."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import toolkit as tk
from toolkit.cli.command import main


@pytest.fixture
def parquet(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [0, 2, None], "b": [5, 6, 7],
                             "s": ["\x1b[31mred", "x", "y"]}), path)
    return str(path)


def test_the_row_command_tells_a_row_by_number(parquet, capsys, tmp_path):
    out_json, out_html = tmp_path / "s.json", tmp_path / "s.html"
    code = main(["row", parquet, "if_else(a != 0, b / a, 0)", "--row", "0",
                 "--json", str(out_json), "--html", str(out_html)])
    text = capsys.readouterr().out
    assert code == 0
    assert "took else" in text and "would raise divide failed: divide by zero" in text
    story = tk.RowStory.from_json(out_json.read_text())
    assert story.value.as_py() == 0 and story.row == 0
    assert "Row 0 of 3" in out_html.read_text()


def test_the_row_command_picks_rows_by_a_predicate_and_escapes_values(parquet, capsys):
    assert main(["row", parquet, "s", "--where", "b < 7"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("2 rows match b < 7")
    assert "\x1b[31m" not in text and "\\x1b[31mred" in text


@pytest.mark.parametrize("argv, message", [
    (["--row", "3"], "row 3 is out of range: the table has 3 rows"),
    (["--where", "b > 100"], "no row of the table's 3 rows matches b > 100"),
    (["--where", "bb > 1"], "did you mean 'b'?"),
])
def test_the_row_command_says_what_is_wrong(parquet, capsys, argv, message):
    assert main(["row", parquet, "a + 1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_json_of_the_story_is_plain_json(parquet, tmp_path):
    story = tk.explain_row("a + b", pq.read_table(parquet), 1)
    assert json.loads(story.to_json())["value"]["ipc"]
