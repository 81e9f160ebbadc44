"""tks.explain_row(df, predicate): a source row's journey through a Spark query, read from
Spark only for the rows the predicate picks; each node value of the filter's story checked
against Spark evaluating that sub-expression on the same row."""

from __future__ import annotations

import pyarrow as pa
import pytest

from toolkit.errors import FieldRefError, RowNotFoundError

pytestmark = pytest.mark.spark

ROWS = {
    "id": [1, 2, 3, 4, 5, 6],
    "a": [10, None, 0, -3, 7, 2],
    "b": [2.5, 1.0, None, 4.0, 0.5, 8.0],
    "s": ["apple", "pear", None, "Apple", "fig", "kiwi"],
}


@pytest.fixture(scope="module")
def people(spark):
    table = pa.table(ROWS, schema=pa.schema([("id", pa.int64()), ("a", pa.int64()),
                                             ("b", pa.float64()), ("s", pa.string())]))
    return spark.createDataFrame(table.to_pandas().astype({"a": "Int64"}))


def test_the_conjunct_that_dropped_the_row(people):
    from toolkit import spark as tks

    query = people.filter("a > 0 and s < 'm'").select("id", "s")
    journey = tks.explain_row(query, "id = 6")  # a = 2 > 0, but s = 'kiwi' < 'm' holds: kept
    assert journey.kept
    journey = tks.explain_row(query, "id = 2")  # a is null, and s = 'pear' < 'm' is false
    assert not journey.kept and journey.stops[-1].kind == "Filter"
    story = journey.stops[-1].story
    assert story is not None and story.value.as_py() is False  # null and false is false
    assert "pear" in journey.why
    journey = tks.explain_row(query, "id = 5")  # s = 'fig' < 'm', a = 7: kept
    assert journey.kept
    dropped = tks.explain_row(query, "id = 4")  # a = -3 is false
    assert not dropped.kept and dropped.stops[-1].story.value.as_py() is False
    assert "-3" in dropped.why and "df1.a > 0" in dropped.why.replace("(", "").replace(")", "")


def test_only_compatible_rows_are_read(people):
    from toolkit import spark as tks
    from toolkit.spark.running.explain_row import _scan_for, _spark_scans, spark_compatible_rows

    query = people.filter("b > 1")
    scan = _scan_for(_spark_scans(tks.from_spark(query)), "a >= 2")
    rows = spark_compatible_rows(scan, "a >= 2", limit=2)
    assert rows.num_rows == 2 and all(v >= 2 for v in rows.column("a").to_pylist())
    journey = tks.explain_row(query, "a >= 2")
    assert "the first of 3 rows of df1 matching a >= 2" in journey.why  # a = 10, 7, 2
    assert "the first of at least 2 rows" in tks.explain_row(query, "a >= 2", limit=2).why
    assert "the only row of df1 matching id = 4" in tks.explain_row(query, "id = 4").why


def test_the_whole_source_is_never_read(people, monkeypatch):
    """A single-relation query's journey runs on the rows Spark matched alone: reading the
    DataFrame as a plan source (every row through toArrow) would fail here."""
    from toolkit import spark as tks

    def whole_read(self, columns=None, limit=None):
        raise AssertionError("the whole DataFrame was read")

    monkeypatch.setattr(tks.SparkSource, "batches", whole_read)
    journey = tks.explain_row(people.filter("b > 1").select("id", "b"), "id = 5")
    assert not journey.kept and "0.5" in journey.why


def test_clear_errors(people):
    from toolkit import spark as tks

    query = people.filter("a > 0")
    with pytest.raises(FieldRefError) as info:
        tks.explain_row(query, "idd = 1")
    text = str(info.value)
    assert "^" in text and "id" in text
    with pytest.raises(RowNotFoundError, match="no row"):
        tks.explain_row(query, "id = 99")


FILTERS = [
    "a > 0 and s < 'm'",
    "a is null or b * 2 > 3",
    "case when a > 5 then b else a + 1 end > 2",
    "coalesce(s, 'zz') >= 'b' and a - 1 <> 1",
    "not (s = 'pear') or b / 2 < 1",
]


def _evaluated_nodes(condition, batch: pa.RecordBatch) -> dict:
    """The tree evaluation ran for the filter's condition, node by path (as the story's)."""
    import toolkit as tk
    from toolkit.explain.story import _Recorder, _walk
    from toolkit.observe import observing

    recorder = _Recorder()
    with observing(recorder):
        tk.evaluate(condition, batch)
    event = recorder.evals[-1]
    return {tuple(path): node for path, node, _ in _walk(event.expr, event.root_path())}


@pytest.mark.parametrize("condition", FILTERS)
def test_every_node_value_is_sparks(people, condition):
    """Each evaluated node of the filter's story equals Spark's value of that sub-expression
    on the same row: `df.filter(id = k).select(to_column(node))`."""
    from toolkit import spark as tks
    from toolkit.plan import Filter

    query = people.filter(condition)
    checked = dropped = 0
    for key in ROWS["id"]:
        journey = tks.explain_row(query, f"id = {key}")
        if journey.kept:
            continue  # a kept row's filter holds; a dropped one's story is checked
        dropped += 1
        stop = journey.stops[-1]
        assert stop.kind == "Filter" and stop.story is not None, journey.why
        node = journey.plan
        for i in stop.at:
            node = node.children[i]
        assert isinstance(node, Filter)
        before = journey.stops[-2].rows.combine_chunks().to_batches()[0]
        tree = _evaluated_nodes(node.predicate, before)
        row = people.filter(f"id = {key}").toDF(*before.schema.names)  # named as the plan's
        for story in stop.story.nodes:
            if not story.evaluated or story.value is None:
                continue
            try:
                column = tks.to_column(tree[tuple(story.path)], before.schema)
            except tks.SparkTranslationError:
                continue
            spark_value = row.select(column.alias("v")).toArrow().column("v")[0].as_py()
            ours = story.value.as_py()
            if isinstance(ours, float) and spark_value is not None:
                assert spark_value == pytest.approx(ours), (condition, key, story.expression)
            else:
                assert spark_value == ours, (condition, key, story.expression)
            checked += 1
    assert dropped > 0 and checked > dropped


def test_a_row_through_a_sort_is_explained(people):
    """A sorted query: the row's journey reruns the sort with and without it."""
    from pyspark.sql import functions as F

    from toolkit import spark as tks

    text = str(tks.explain_row(people.orderBy(F.desc("b")), "id = 1"))
    assert "kept" in text
