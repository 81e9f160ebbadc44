"""Plan text read from the JVM in pieces: the same text Spark's treeString gives, and no py4j
reply long enough to stall on the socket while a 22-relation join is stepped."""

from __future__ import annotations

import py4j.clientserver
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit.spark import catalyst_steps, tpch
from toolkit.spark import tpch_queries as Q
from toolkit.spark.catalyst.jvm import jvm_text

pytestmark = pytest.mark.spark

# py4j's JVM side writes a reply through a buffer of this many bytes; a longer reply goes
# out in two writes, the second held until the first is acknowledged
PY4J_WRITE_BUFFER = 8192

# any text a plan can print: astral characters (surrogate pairs in Java), newlines and
# backslashes (escaped by py4j), question marks (what Java writes for a split pair)
_TEXT = st.text(st.characters(exclude_categories=("Cs",)) | st.sampled_from(
    ["\n", "\\", "?", "\U0001F600", "é", "\r"]), max_size=200)


@pytest.fixture(scope="module")
def chain(spark):
    Q.register_views(spark, tpch.tables(0.01, names=Q.TABLES))
    return spark.sql(Q.chain_join(22))


def _held(spark, text: str):
    """A JVM object whose toString is `text`, as a plan's is its tree string: a StringWriter
    (not a CharSequence, as plans are not). py4j would send a text of one character as a
    Java char, so two are written before it and taken away in the JVM."""
    writer = spark._jvm.java.io.StringWriter()
    writer.write("<>" + text)
    writer.getBuffer().delete(0, 2)
    return writer


@given(text=_TEXT, piece=st.integers(2, 40))
def test_any_text_reads_back_whole_in_pieces_of_any_size(spark, text, piece):
    held = _held(spark, text)
    assert jvm_text(held, piece_chars=piece) == text


def test_a_long_text_with_pairs_at_every_boundary_reads_back_whole(spark):
    text = ("a\U0001F600?\\\n" * 10_000)[:40_001]
    assert jvm_text(_held(spark, text)) == text
    assert jvm_text(_held(spark, text[:2_001]), piece_chars=3) == text[:2_001]


def test_plans_of_every_phase_read_as_their_tree_string(chain):
    qe = chain._jdf.queryExecution()
    plans = [qe.logical(), qe.analyzed(), qe.withCachedData(), qe.optimizedPlan(),
             qe.sparkPlan(), qe.executedPlan()]
    assert len(str(qe.analyzed().treeString()).encode()) > PY4J_WRITE_BUFFER
    for plan in plans:
        assert jvm_text(plan) == str(plan.treeString())


def test_stepping_a_22_relation_join_gets_no_reply_longer_than_py4js_buffer(
        chain, monkeypatch):
    sizes = []
    send = py4j.clientserver.ClientServerConnection.send_command

    def measured(self, command):
        answer = send(self, command)
        sizes.append(len(answer.encode("utf-8")) + 2)  # with its "!" prefix and newline
        return answer

    monkeypatch.setattr(py4j.clientserver.ClientServerConnection, "send_command", measured)
    trace = catalyst_steps(chain)
    assert trace.comparison.verdict == "equal"
    assert len(trace.final_plan.encode()) > PY4J_WRITE_BUFFER
    assert sizes and max(sizes) <= PY4J_WRITE_BUFFER
