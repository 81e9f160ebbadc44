"""The embedded Spark's JVM writes its standard error through exprscope, which passes
every line on to Python's `sys.stderr` but the incubator-module warning Java prints at
every start (a red error box under a notebook's first Spark cell)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.spark


def test_the_jvm_start_warning_is_dropped_and_its_other_lines_pass_on():
    script = textwrap.dedent("""
        import sys
        from toolkit.spark import session
        spark = session("local[1]")
        spark.sparkContext._jvm.System.err.println("a line the JVM wrote")
        spark.sparkContext._jvm.System.err.flush()
        assert spark.range(3).count() == 3
        import time; time.sleep(0.5)
        spark.stop()
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "a line the JVM wrote" in done.stderr
    assert "incubator" not in done.stderr
