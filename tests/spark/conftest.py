"""One embedded Spark for every Spark test: starting one takes ~15 s, so it is shared.

Small on purpose (2 cores shared with the rest of the suite): `local[2]`, two
shuffle partitions, no UI. Tests that need Spark take the `spark` fixture and
carry `@pytest.mark.spark`.
"""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from toolkit.spark import session

    spark = session("local[2]", {"spark.sql.shuffle.partitions": "2",
                                 "spark.default.parallelism": "2"})
    yield spark
    spark.stop()
