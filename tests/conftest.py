"""Suite-wide settings: hypothesis profiles and the environment Spark needs.

`HYPOTHESIS_PROFILE=thorough make test` runs the properties harder than the
default, which is sized so the whole suite stays well inside CI's budget.
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


# One embedded Spark per test process (`make test` runs one per core) for every test that
# needs it (plans, Spark, widgets): starting one takes ~15 s, so it is shared. Small on
# purpose: `local[2]`, two shuffle partitions, no UI.
@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from toolkit.spark import session

    spark = session("local[2]", {"spark.sql.shuffle.partitions": "2",
                                 "spark.default.parallelism": "2"})
    yield spark
    spark.stop()


# A terminal's size is the test's to choose: pytest-xdist's workers export COLUMNS=80,
# which a plain run into a pipe does not have, and the CLI folds its messages to it.
@pytest.fixture(autouse=True)
def _no_ambient_terminal_size(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
