"""`%explain_row`: a row's story in a notebook, displayed as its tree."""

import pyarrow as pa

import toolkit as tk


def test_the_magic_returns_the_story(ip):
    ip.user_ns["t"] = pa.table({"a": [0, 2], "b": [5, 6]})
    story = ip.run_line_magic("explain_row", "--data t --row 0 if_else(a != 0, b / a, 0)")
    assert isinstance(story, tk.RowStory) and story.value.as_py() == 0
    data, _ = ip.display_formatter.format(story)
    assert "<svg" in data["text/html"] and "took else" in data["text/plain"]
    stories = ip.run_line_magic("explain_row", '--data t --where "b > 4" a + b')
    assert stories.matched == 2


def test_the_magic_reports_a_bad_row_in_one_line(ip, capsys):
    ip.user_ns["t"] = pa.table({"a": [0, 2]})
    assert ip.run_line_magic("explain_row", "--data t --row 9 a + 1") is None
    err = capsys.readouterr().err
    assert "row 9 is out of range: the table has 2 rows" in err and "Traceback" not in err
