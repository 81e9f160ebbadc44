"""Small bridges to Spark's JVM objects over py4j: Scala sequences, rule names, options."""

from __future__ import annotations

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException

__all__ = ["JVM_ERRORS", "java_message", "option_text", "seq", "short_rule_name"]

# what a JVM call raises: py4j's error, or the pyspark exception it was converted into
JVM_ERRORS = (Py4JError, PySparkException)


def seq(scala_seq) -> list:
    """A Scala Seq (or any Iterable) as a Python list."""
    it, out = scala_seq.iterator(), []
    while it.hasNext():
        out.append(it.next())
    return out


def option_text(option) -> str | None:
    """A `scala.Option[String]` as the string or None."""
    return None if option.isEmpty() else str(option.get())


def short_rule_name(rule_name: str) -> str:
    """`PushDownPredicates` of `org.apache.spark.sql.catalyst.optimizer.PushDownPredicates`,
    `FinishAnalysis` of `...Optimizer$FinishAnalysis`."""
    return rule_name.rsplit(".", 1)[-1].rstrip("$").rsplit("$", 1)[-1]


def java_message(exc: Exception) -> str:
    """Spark's message of a JVM exception that reached Python."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            return f"{java.getClass().getSimpleName()}: {java.getMessage()}"
        except JVM_ERRORS:
            pass
    text = str(exc).strip()
    return text.split("\n\nJVM stacktrace:")[0]
