"""What every translator shares: the tables, registering, typed nulls and casts back."""


from __future__ import annotations

import pyarrow.types as pat

from ....model.options import option_values
from ....support import late
from ...errors import SparkTranslationError
from ..types import to_spark_type

# pyspark takes seconds to import; it loads on the first translation, not on import
F = late.module("pyspark.sql.functions")

__all__ = ["STRUCTURAL_TRANSLATORS", "TRANSLATORS", "F", "as_call_type", "fail", "is_float",
           "is_int", "options_of", "register", "typed_null", "untranslatable"]

# name -> translate(call, columns of its arguments, their Arrow types)
TRANSLATORS: dict = {}
# name -> translate(call, column_of): for calls that need the columns of deeper nodes
# (case_when reads the conditions inside its make_struct)
STRUCTURAL_TRANSLATORS: dict = {}


def untranslatable(name: str, why: str = "") -> SparkTranslationError:
    suffix = f": {why}" if why else ""
    return SparkTranslationError(f"cannot translate {name} to Spark{suffix}", function=name)



def register(*names):
    def decorate(fn):
        for name in names:
            TRANSLATORS[name] = fn
        return fn

    return decorate


def typed_null(call):
    """A typed null of the call's result type (plain null when unbound)."""
    if call.type is not None:
        return F.lit(None).cast(to_spark_type(call.type))
    return F.lit(None)


def as_call_type(call, column):
    """Cast to the call's Arrow result type when it is known (Spark's may differ)."""
    if call.type is None:
        return column
    return column.cast(to_spark_type(call.type))


def fail(message: str):
    return F.raise_error(message)


def is_float(t) -> bool:
    return t is not None and pat.is_floating(t)


def is_int(t) -> bool:
    return t is not None and pat.is_integer(t)


def options_of(call):
    return option_values(call.options) if call.options is not None else {}
