"""A row's story printed: text within the width with hostile values escaped, and the
JSON round trip, whose reader refuses what a stranger's file may hold."""

import base64
import json

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit.errors import TraceFormatError

HOSTILE = "\x1b[2J\u202eevil\x00\n<script>alert(1)</script>"


@pytest.fixture
def table():
    return pa.table({"a": pa.array([0, 2, None], pa.int64()), "b": [5, 6, 7],
                     "s": [HOSTILE, "x", None],
                     "st": pa.array([{"x": 1}, None, {"x": None}],
                                    pa.struct([("x", pa.int64())]))})


EXPR = "if_else(a != 0, b / a, 0) > 1 and s != 'q' or st.x > 0"


def test_text_fits_80_columns_and_escapes_every_value(table):
    for row in range(3):
        for mode in ("lazy", "eager"):
            text = tk.to_text(tk.explain_row(EXPR, table, row, mode=mode), width=80)
            assert max(len(line) for line in text.splitlines()) <= 80
            assert "\x1b" not in text and "\u202e" not in text and "\x00" not in text
    text = tk.to_text(tk.explain_row("s", table, 0), width=80)
    assert "\\x1b[2J\\u202eevil\\x00\\n" in text


def test_text_of_several_rows_says_how_many_matched(table):
    text = tk.to_text(tk.explain_row("a + 1", table, "b > 5"), width=80)
    assert text.splitlines()[0] == "2 rows match b > 5"
    assert "row 1 of 3" in text and "row 2 of 3" in text


def test_the_json_round_trip_keeps_every_field(table):
    for row in range(3):
        for mode in ("lazy", "eager"):
            story = tk.explain_row(EXPR, table, row, mode=mode)
            again = tk.RowStory.from_json(story.to_json())
            assert again == story
            assert [n.value for n in again.nodes] == [n.value for n in story.nodes]


def _doc(table):
    return json.loads(tk.explain_row(EXPR, table, 0).to_json())


@pytest.mark.parametrize("spoil, where", [
    (lambda d: d.update(version=99), r"\$\.version"),
    (lambda d: d.update(format="other"), r"\$\.format"),
    (lambda d: d.update(mode="fast"), r"\$\.mode"),
    (lambda d: d["nodes"][2].update(parent=5), r"\$\.nodes\[2\]: the first node is the root"),
    (lambda d: d["nodes"][3].update(parent=1, index=0), r"\$\.nodes: two nodes at one place"),
    (lambda d: d["nodes"][1].update(evaluated="yes"), r"\$\.nodes\[1\]\.evaluated"),
    (lambda d: d["nodes"][0].update(value={"ipc": "not base64!"}), r"\$\.nodes\[0\]\.value"),
    (lambda d: d["nodes"][0].update(value={"ipc": base64.b64encode(b"\xff" * 64).decode()}),
     r"\$\.nodes\[0\]\.value: not an Arrow IPC stream"),
    (lambda d: d.update(row=True), r"\$\.row"),
    (lambda d: d.pop("why"), r"\$\.why: missing"),
])
def test_a_spoiled_story_is_refused_naming_where(table, spoil, where):
    doc = _doc(table)
    spoil(doc)
    with pytest.raises(TraceFormatError, match=where):
        tk.RowStory.from_json(json.dumps(doc))


def test_deep_or_huge_json_is_refused():
    with pytest.raises(TraceFormatError, match="nested too deeply|not JSON"):
        tk.RowStory.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(TraceFormatError, match="expected an object"):
        tk.RowStory.from_json("[1, 2]")


def test_hostile_text_in_a_loaded_story_is_made_visible(table):
    doc = _doc(table)
    doc["why"] = HOSTILE
    story = tk.RowStory.from_json(json.dumps(doc))
    assert "\x1b" not in story.why and "\x1b" not in tk.to_text(story, width=80)
