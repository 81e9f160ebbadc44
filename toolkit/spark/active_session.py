"""The SparkSession exprscope runs on: the user's active one, or an embedded local one.

Users who own a cluster hand it over simply by having a session active; everyone
else gets a local Spark that needs nothing but Java 17 (started once, reused).
The embedded session binds to 127.0.0.1, runs Python workers with the very
interpreter that imported exprscope (so they see the same packages), turns on
Arrow for pandas/Arrow transfers, keeps logs quiet and the UI off.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

from .errors import SparkUnavailableError

__all__ = ["LOCAL_CONF", "session"]

# settings of the embedded session; a user's own session is used as it is
LOCAL_CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    # engine mode hands exprscope Spark's Arrow batches: 262,144 rows beat 65,536 on three
    # of four TPC-H queries at scale 1 (docs/benchmarks.md, Spark section)
    "spark.sql.execution.arrow.maxRecordsPerBatch": "262144",
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
    "spark.python.worker.reuse": "true",
}

# the embedded driver logs errors only (the file says why); passed to the JVM at launch
LOGGING = Path(__file__).with_name("log4j2.properties")
_JAVA_OPTIONS = "spark.driver.extraJavaOptions"

_lock = threading.Lock()


def session(master: str | None = None, conf: dict | None = None):
    """The active SparkSession, or the embedded local one (started on first use).

    `master` (default `local[*]`) and `conf` apply only when a session is started;
    an active session is returned unchanged, so calling this is idempotent.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:  # pragma: no cover - pyspark is a dependency
        raise SparkUnavailableError("toolkit.spark needs pyspark: pip install pyspark") from exc
    with _lock:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        _prepare_environment()
        builder = SparkSession.builder.master(master or "local[*]").appName("exprscope")
        settings = {**LOCAL_CONF, **(conf or {})}
        quiet = f"-Dlog4j2.configurationFile={LOGGING.as_uri()}"
        settings[_JAVA_OPTIONS] = " ".join(filter(None, [quiet, settings.get(_JAVA_OPTIONS)]))
        for key, value in settings.items():
            builder = builder.config(key, value)
        try:
            spark = builder.getOrCreate()
        except Exception as exc:
            raise SparkUnavailableError(
                f"could not start the embedded local Spark ({type(exc).__name__}: {exc}); "
                "it needs a Java 17+ runtime (`make demo` installs one)") from exc
        spark.sparkContext.setLogLevel("ERROR")
        return spark


def _prepare_environment() -> None:
    """What a local Spark needs before its JVM and Python workers start."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # workers must run this interpreter: it is the one that has pyarrow and exprscope
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
        raise SparkUnavailableError(
            "the embedded local Spark needs Java 17+ and no `java` is on PATH "
            "(install openjdk-17-jre-headless, or run `make demo`, which installs it)")
