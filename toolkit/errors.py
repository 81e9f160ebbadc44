"""The errors exprscope raises, each naming what was wrong and where.

One base class so callers (the CLI, the magics) can catch exprscope's own errors
and show them as one concise message instead of a traceback.
"""

from __future__ import annotations

from .support import text_spans
from .support.visible_text import visible, visible_lines

__all__ = [
    "AmbiguousColumnError",
    "ArgumentError",
    "ArityError",
    "BindError",
    "BuildError",
    "ColumnNotFoundError",
    "DataSourceError",
    "DotNotFound",
    "DuplicateFieldError",
    "EndlessCallError",
    "EvaluationError",
    "ExprscopeError",
    "FieldRefError",
    "GuaranteeError",
    "InputError",
    "InvariantViolation",
    "KernelError",
    "MagicInputError",
    "NoKernelError",
    "ParseError",
    "PassError",
    "PlanError",
    "PyarrowConversionError",
    "RegistryError",
    "RowNotFoundError",
    "RuleError",
    "ScanError",
    "SelectionError",
    "SparkArgumentError",
    "SparkError",
    "SparkImportError",
    "SparkPartitionError",
    "SparkSchemaMismatch",
    "SparkTranslationError",
    "SparkUnavailableError",
    "SqlTypeError",
    "SubstraitError",
    "TraceFormatError",
    "UnboundError",
    "UnknownFunctionError",
    "UnknownFunctionNameError",
    "UnknownPassError",
    "UsageError",
    "caret_snippet",
]


class ExprscopeError(Exception):
    """Base of every error exprscope raises on purpose."""


class FieldRefError(ExprscopeError, KeyError):
    """A field reference that matches no field, or more than one.

    The message is for a person (the field, a close name, the schema in one line);
    Arrow's own text (`No match for FieldRef.Name(x) in ...`) is `arrow_message`.
    """

    def __init__(self, message: str, ref=None, schema=None, arrow_message: str | None = None,
                 name: str | None = None):
        super().__init__(message)
        self.message = message
        self.ref = ref
        self.schema = schema
        self.arrow_message = arrow_message if arrow_message is not None else message
        self.name = name  # the name as the user wrote it, to find in their text

    def __str__(self):  # KeyError would quote the message
        return self.message

    def located(self, text: str) -> str:
        """The message with a caret under the field where `text` names it (if it does)."""
        position = find_identifier(text, self.name) if self.name else None
        if position is None:
            return self.message
        first, _, rest = self.message.partition("\n")
        snippet = caret_snippet(text, position, len(self.name))
        return f"{first}\n{snippet}" + (f"\n{rest}" if rest else "")


def find_identifier(text: str, name: str) -> int | None:
    """Where `name` first appears in `text` as a whole identifier outside string literals."""
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch == "'":
            quote = ch
        elif text.startswith(name, i) and _boundary(text, i - 1) and _boundary(text, i + len(name)):
            return i
        i += 1
    return None


def _boundary(text: str, i: int) -> bool:
    return i < 0 or i >= len(text) or not (text[i].isalnum() or text[i] == "_")


def caret_snippet(text: str, position: int, width: int = 1) -> str:
    """The line of `text` holding `position`, with carets under the culprit; characters
    that do not show as themselves are spelled out (`visible`), the carets moved along."""
    position = max(0, min(position, len(text)))
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    end = len(text) if end < 0 else end
    line = text[start:end]
    col = position - start
    if len(line) > _SNIPPET_WIDTH:  # a long line (a 10,000-term chain): a window around the spot
        lo = max(0, col - _SNIPPET_WIDTH // 2)
        hi = min(len(line), lo + _SNIPPET_WIDTH)
        prefix, suffix = ("..." if lo else ""), ("..." if hi < len(line) else "")
        line = prefix + line[lo:hi] + suffix
        col = col - lo + len(prefix)
        width = min(width, hi - (position - start))
    # the line as a person may see it, the carets under the culprit's spelled-out form
    before, culprit = visible(line[:col]), visible(line[col:col + max(1, width)])
    line = before + culprit + visible(line[col + max(1, width):])
    return f"  {line}\n  {' ' * len(before)}{'^' * max(1, len(culprit), width)}"


_SNIPPET_WIDTH = 100


class RuleError(ExprscopeError, ValueError):
    """A rewrite rule driven the wrong way (an unknown walk order, a rule returning a non-node)."""


class UsageError(ExprscopeError, TypeError):
    """An exprscope function given an argument of the wrong kind (a table for an expression)."""


class RegistryError(ExprscopeError, ValueError):
    """A function registered twice, or with kernels that disagree."""


class ParseError(ExprscopeError, ValueError):
    """Expression text that is not a single expression exprscope can read."""

    def __init__(self, reason: str, text: str, position: int = 0, width: int = 1):
        self.reason = reason
        self.text = text
        self.position = position
        self.width = width
        super().__init__(f"{reason}\n{caret_snippet(text, position, width)}")


class BuildError(ExprscopeError, ValueError):
    """A builder called with arguments that make no expression (e.g. case_when with no cases)."""


class BindError(ExprscopeError, TypeError):
    """An expression that cannot be bound to a schema."""


class UnknownFunctionError(BindError, KeyError):
    def __init__(self, name: str, suggestions=()):
        self.name = name
        self.suggestions = tuple(suggestions)
        msg = f"No function registered with name: {name}"
        if self.suggestions:
            msg += " (did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?)"
        self.message = msg
        super().__init__(msg)

    def __str__(self):
        return self.message


class UnknownFunctionNameError(UnknownFunctionError, ParseError):
    """Expression text that calls a function no one registered: like every parse error, a
    caret under the name in the text, and the near names. Both an UnknownFunctionError (what
    binding raises for the same name) and a ParseError (where `parse` found it)."""

    def __init__(self, name: str, suggestions, text: str, position: int, width: int):
        self.name = name
        self.suggestions = tuple(suggestions)
        near = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?" \
            if self.suggestions else ""
        ParseError.__init__(self, f"no function is called {visible(name)!r}{near}", text,
                            position, width)
        self.message = Exception.__str__(self)


class ArityError(BindError):
    pass


class NoKernelError(BindError):
    """No signature of the function accepts the argument types (lists those that exist)."""

    def __init__(self, message: str, function: str = "", types=(), signatures=(),
                 arrow_message: str | None = None):
        self.function = function
        self.types = tuple(types)
        self.signatures = tuple(signatures)
        self.arrow_message = arrow_message if arrow_message is not None else message
        self.call = None  # the call as the user wrote it; binding fills it in
        super().__init__(message)

    def located(self, text: str) -> str:
        """The message with a caret under the call where `text` (the parsed text) has it."""
        span = text_spans.span_in(self.call, text) if self.call is not None else None
        message = str(self)
        if span is None:
            return message
        first, _, rest = message.partition("\n")
        snippet = caret_snippet(text, span[0], max(1, span[1] - span[0]))
        return f"{first}\n{snippet}" + (f"\n{rest}" if rest else "")


class UnboundError(ExprscopeError, ValueError):
    """A pass or evaluation that needs a bound expression got an unbound one."""


class KernelError(ExprscopeError, ArithmeticError):
    """A kernel failed: names the expression node and, per row, the first offending row."""

    def __init__(self, message: str, node=None, path=(), row: int | None = None, cause=None):
        self.node = node
        self.path = tuple(path)
        self.row = row
        self.cause = cause
        where = f" in {visible(str(node))}" if node is not None else ""
        at_row = f" at row {row}" if row is not None else ""
        super().__init__(f"{visible_lines(message)}{where}{at_row}")


class EndlessCallError(BindError, ValueError):
    """A call Arrow's kernel would never finish (a split on a pattern that matches the empty
    string): refused when it binds, and again before its kernel runs."""

    def __init__(self, message: str, function: str = ""):
        self.function = function
        super().__init__(message)


class PyarrowConversionError(ExprscopeError, ValueError):
    """A pyarrow expression exprscope cannot read, or an expression pyarrow cannot hold."""


class TraceFormatError(ExprscopeError, ValueError):
    """A saved trace that is not one exprscope wrote: what is wrong, and where in the JSON."""


class PassError(ExprscopeError, ValueError):
    """A pass that cannot run on what it was given."""


class UnknownPassError(PassError, KeyError):
    """A pass name `optimize(passes=...)` does not know; the message lists the known ones."""

    def __init__(self, name, known):
        self.name = name
        self.known = tuple(known)
        self.message = (f"unknown pass {name!r}; known passes: " + ", ".join(self.known))
        super().__init__(self.message)

    def __str__(self):  # KeyError would quote the message
        return self.message


class GuaranteeError(PassError):
    """A guarantee that does not fit the expression (a value of the wrong type, say)."""


class PlanError(ExprscopeError, ValueError):
    """A plan that cannot be built as asked (wrong argument, unsupported shape)."""


class ColumnNotFoundError(FieldRefError):
    """A column reference that matches no field of the input schema."""

    def __init__(self, message: str, ref=None, candidates=()):
        super().__init__(message, ref=ref)
        self.candidates = tuple(candidates)


class AmbiguousColumnError(FieldRefError):
    """A bare column name that more than one relation provides."""

    def __init__(self, message: str, ref=None, candidates=()):
        super().__init__(message, ref=ref)
        self.candidates = tuple(candidates)


class InvariantViolation(ExprscopeError, AssertionError):
    """A DataFusion invariant did not hold: which one, where, expected against actual."""

    def __init__(self, invariant: str, level: str, subject: str, details: str,
                 expected=None, actual=None):
        self.invariant = invariant
        self.level = level
        self.subject = subject
        self.details = details
        self.expected = expected
        self.actual = actual
        text = f"invariant '{invariant}' ({level}) violated at {subject}: {details}"
        if expected is not None or actual is not None:
            text += f"\n  expected: {expected}\n  actual:   {actual}"
        super().__init__(text)


class DuplicateFieldError(InvariantViolation):
    """Two fields of one logical schema share (relation, name)."""


class SparkError(ExprscopeError):
    """Base of the errors of `toolkit.spark`."""


class SparkUnavailableError(SparkError, RuntimeError):
    """No Spark could be started (no pyspark, no Java)."""


class SparkTranslationError(SparkError, ValueError):
    """An exprscope expression or plan that has no Spark equivalent: names the function."""

    def __init__(self, message: str, function: str | None = None):
        self.function = function
        super().__init__(message)


class SparkImportError(SparkError, ValueError):
    """A Spark query node that exprscope cannot read: names the Spark class."""

    def __init__(self, message: str, spark_class: str | None = None):
        self.spark_class = spark_class
        super().__init__(message)


class SparkArgumentError(SparkError, ValueError):
    """A Spark entry point given an argument it cannot use (a mode, a query, a column name)."""


class SparkPartitionError(SparkError, RuntimeError):
    """Raised inside a Spark worker: carries a failing row's marked message to the driver."""


class SparkSchemaMismatch(SparkError, AssertionError):
    """Engine mode produced a batch whose schema is not the plan's (checked on every batch)."""


class ArgumentError(ExprscopeError, ValueError):
    """A SQL call whose argument `index` (None: the call itself) does not fit the function."""

    def __init__(self, reason: str, index: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.index = index


class DotNotFound(ExprscopeError, RuntimeError):
    """graphviz's `dot` program is not installed, so nothing can be laid out."""


class SqlTypeError(ExprscopeError, ValueError):
    """A type name (or an Arrow type) with no counterpart on the other side."""


class InputError(ExprscopeError, ValueError):
    """A command-line input (a data file, a schema spec) that cannot be used."""


class RowNotFoundError(InputError):
    """The row asked about is not there: out of range, or no row matches the predicate."""


class SelectionError(ExprscopeError, ValueError):
    """Indices or a mask that do not describe a selection of a batch."""


class EvaluationError(ExprscopeError, ValueError):
    """Evaluation asked for something it cannot do: a bad mode, data or binding."""


class MagicInputError(ExprscopeError, ValueError):
    """Something missing from what the user typed into a magic (an empty cell)."""


class DataSourceError(ExprscopeError, ValueError):
    """The name does not lead to data exprscope can read; says what it found instead."""


class ScanError(ExprscopeError, ValueError):
    """A dataset scan that cannot be explained (pyarrow's own scan fails there too)."""


class SubstraitError(ExprscopeError, ValueError):
    """A Substrait message exprscope cannot read, or an expression or plan it cannot write
    as one: what, and where in the message (a path such as `referred_expr[0].if_then`)."""
