"""`write_report` of a row's journey through a plan (and of `why_not`'s journeys): the page
lists the operators the row passed, the one that dropped it and why, with values from the
data escaped. Both used to fail: a journey is not a trace, and a WhyNot iterates journeys."""

from html.parser import HTMLParser

import pyarrow as pa
import pytest

import toolkit as tk
from toolkit import plan


class _Text(HTMLParser):
    """The page's text as a reader sees it (outside scripts and styles), and its tags."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.tags: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _read(path) -> _Text:
    page = _Text()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _flat(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


@pytest.fixture
def journeys():
    table = pa.table({"a": [3, 0, 7], "b": [-203.0, 997.0, 8.0],
                      "name": ["<script>alert(1)</script>", "y", "z"]})
    p = (plan.scan("t", table).filter("if(a != 0, b / a, 0.0) > 1 and b > 3")
         .project(["a", "b", "name"]))
    return p


def test_the_report_of_a_dropped_row_lists_its_stops_and_why_the_filter_dropped_it(
        journeys, tmp_path):
    journey = journeys.explain_row("t", 0)
    assert not journey.kept
    page = _read(tk.write_report(journey, tmp_path / "journey.html"))
    text = _flat(page.parts)
    assert "Row 0 of t: dropped at Filter:" in text
    scan, dropped = text.index("✓ TableScan: t"), text.index("✗ Filter:")
    assert scan < dropped and "dropped here" in text[dropped:]
    assert "✓ Projection" not in text and "✗ Projection" not in text  # never reached
    # the filter's own sentence: which term was false, and its operands' values
    assert "is false (with `if_else((t.a != 0), divide(t.b, cast(t.a, {to_type=double})), " \
           "0)` = -67.66666666666667, `1`)" in text
    assert "<script>alert(1)</script>" in text and "script" not in page.tags  # escaped


def test_the_report_of_a_kept_row_shows_the_row_at_each_operator(journeys, tmp_path):
    journey = journeys.explain_row("t", 2)
    assert journey.kept
    text = _flat(_read(tk.write_report(journey, tmp_path / "kept.html")).parts)
    assert "Row 2 of t: kept" in text
    stops = [text.index(f"✓ {s.operator}") for s in journey.stops]
    assert stops == sorted(stops) and len(stops) == 3  # scan, filter, projection, in order
    assert "t.a t.b t.name 7 8.0 'z'" in text  # the row as the scan gave it


def test_why_not_s_report_gives_each_compatible_row_its_journey(journeys, tmp_path):
    result = journeys.why_not("a < 5")
    assert len(result) == 2
    text = _flat(_read(tk.write_report(result, tmp_path / "why_not.html")).parts)
    assert text.count("dropped at Filter:") >= 3  # the sentence, and one heading per row
    assert "Row 0 of t: dropped at Filter:" in text and "Row 1 of t: dropped at Filter:" in text
