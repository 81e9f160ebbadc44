"""Spark session settings for the length of a block, put back as they were after it."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def spark_settings(spark, settings: dict[str, str]):
    """`spark.conf` holds `settings` inside the block; unset or restored after it."""
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
