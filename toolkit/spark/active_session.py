"""The SparkSession exprscope runs on: the user's active one, or an embedded local one.

Users who own a cluster hand it over simply by having a session active; everyone
else gets a local Spark that needs nothing but Java 17 (started once, reused).
The embedded session binds to 127.0.0.1, runs Python workers with the very
interpreter that imported exprscope (so they see the same packages), turns on
Arrow for pandas/Arrow transfers, keeps logs quiet and the UI off.

Its JVM's standard error comes through a pipe that a thread passes on to
Python's `sys.stderr`, less the line every Java 17+ start prints for the vector
module Spark loads ("WARNING: Using incubator modules: jdk.incubator.vector"):
written straight to the process's descriptor, a notebook showed it as a red
error box under the first cell that started Spark.
"""

from __future__ import annotations

import os
import shutil
import subprocess
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
# what the JVM prints at every start that says nothing to a user
_NOISE = (b"WARNING: Using incubator modules:",)


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
        settings = {**LOCAL_CONF, **(conf or {})}
        quiet = f"-Dlog4j2.configurationFile={LOGGING.as_uri()}"
        settings[_JAVA_OPTIONS] = " ".join(filter(None, [quiet, settings.get(_JAVA_OPTIONS)]))
        try:
            _start_context(master or "local[*]", settings)
            spark = SparkSession.builder.getOrCreate()
        except Exception as exc:
            raise SparkUnavailableError(
                f"could not start the embedded local Spark ({type(exc).__name__}: {exc}); "
                "it needs a Java 17+ runtime (`make demo` installs one)") from exc
        spark.sparkContext.setLogLevel("ERROR")
        return spark


def _start_context(master: str, settings: dict) -> None:
    """The embedded SparkContext, its JVM launched with standard error piped to us."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf().setMaster(master).setAppName("exprscope").setAll(settings.items())
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(target=_pass_on, args=(gateway.proc.stderr,), daemon=True,
                     name="exprscope-spark-stderr").start()
    SparkContext(conf=conf, gateway=gateway)


def _pass_on(pipe) -> None:
    """Every line the JVM writes to standard error, on to `sys.stderr`, but the noise."""
    for line in iter(pipe.readline, b""):
        if not line.startswith(_NOISE):
            sys.stderr.write(line.decode("utf-8", "replace"))
            sys.stderr.flush()


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
