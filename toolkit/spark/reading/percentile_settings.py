"""A Spark percentile's settings, imported: exprscope's percentile takes one constant
fraction of the rows, each row counted once. Both readers (Catalyst's plans and Spark
Connect's messages) check their imported arguments here."""

from __future__ import annotations

import pyarrow as pa

import toolkit as tk

from ..errors import SparkImportError

__all__ = ["percentile_fraction"]


def percentile_fraction(fraction: tk.Expression, frequency: tk.Expression | None,
                        shown: str, spark_class: str) -> float:
    """The constant fraction of a percentile whose imported arguments past the values are
    `fraction` and `frequency` (None when it has none); a frequency other than 1, a
    fraction that is not one constant number, or a null one is refused naming `shown`."""
    if frequency is not None and not (frequency.is_literal and frequency.value.as_py() == 1):
        raise SparkImportError(f"cannot import {shown}: a percentile with frequencies (each "
                               "row counted several times)", spark_class=spark_class)
    if not fraction.is_literal or not (pa.types.is_floating(fraction.type)
                                       or pa.types.is_integer(fraction.type)
                                       or pa.types.is_decimal(fraction.type)):
        raise SparkImportError(f"cannot import {shown}: exprscope's percentile takes one "
                               "constant fraction (an array of them makes an array)",
                               spark_class=spark_class)
    if not fraction.value.is_valid:
        raise SparkImportError(f"cannot import {shown}: its fraction is null",
                               spark_class=spark_class)
    return float(fraction.value.as_py())
