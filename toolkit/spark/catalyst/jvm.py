"""Small bridges to Spark's JVM objects over py4j: Scala sequences, rule names, options."""

from __future__ import annotations

from ...support import late

__all__ = ["PIECE_CHARS", "java_class", "java_message", "jvm_errors", "jvm_text", "option_text",
           "seq", "short_rule_name"]

# pyspark loads when Spark is first used, not with `from toolkit import spark`
py4j_java_gateway = late.module("py4j.java_gateway")
py4j_protocol = late.module("py4j.protocol")
pyspark_errors = late.module("pyspark.errors")


def jvm_errors() -> tuple[type[BaseException], ...]:
    """What a JVM call raises: py4j's error, or the pyspark exception it was converted
    into (for `except jvm_errors():`)."""
    return py4j_protocol.Py4JError, pyspark_errors.PySparkException


def java_class(jvm, name: str):
    """The JVM class (or Scala object) of that full name, for its constructor and static
    methods, without the round trip to the JVM that `jvm.a.b.C` makes for every dotted
    part."""
    return py4j_java_gateway.JavaClass(name, jvm._gateway_client)


def seq(scala_seq) -> list:
    """A Scala Seq (or any Iterable) as a Python list."""
    it, out = scala_seq.iterator(), []
    while it.hasNext():
        out.append(it.next())
    return out


# py4j's JVM side sends a reply through an 8 KB buffer: a longer reply leaves in two
# writes, and on a socket without TCP_NODELAY the second waits for the receiver's delayed
# acknowledgement of the first. A piece's reply stays under PIECE_BYTES (the buffer less
# the reply's prefix); PIECE_CHARS is the first guess at the characters that take, plan
# text being mostly ASCII, and the pieces after one that went over are cut shorter.
PIECE_BYTES = 8_150
PIECE_CHARS = 7_000


def jvm_text(obj, piece_chars: int = PIECE_CHARS) -> str:
    """`obj.toString()` (a Catalyst plan's is its `treeString()`), built in the JVM and read
    in pieces that py4j sends in one write each, so a long plan costs a few quick round
    trips instead of a reply that stalls on the socket. `obj` is a plan or a collection,
    not a CharSequence (py4j would hand one to `StringBuilder.append(char)`)."""
    builder = py4j_java_gateway.JavaClass("java.lang.StringBuilder", obj._gateway_client)
    held = builder().append(obj)
    length = held.length()
    pieces, start = [], 0
    while start < length:
        end = min(length, start + piece_chars)
        piece = held.substring(start, end)
        # a piece that ends inside a surrogate pair reaches Python as "?" (Java's UTF-8
        # encoder replaces a lone surrogate): end it one character earlier
        if end < length and piece.endswith("?") and end - start > 1:
            piece, end = piece[:-1], end - 1
        pieces.append(piece)
        start = end
        sent = _reply_bytes(piece)
        if sent > PIECE_BYTES:
            piece_chars = max(2, len(piece) * PIECE_BYTES // sent)
    return "".join(pieces)


def _reply_bytes(piece: str) -> int:
    """The bytes py4j writes for `piece`: UTF-8, with a backslash before each backslash,
    carriage return and newline."""
    return len(piece.encode("utf-8", "surrogatepass")) + sum(map(piece.count, "\\\r\n"))


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
        except jvm_errors():
            pass
    text = str(exc).strip()
    return text.split("\n\nJVM stacktrace:")[0]
