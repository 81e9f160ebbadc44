"""The embedded Spark starts quietly and keeps the Java options a user passes."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_START = """
import sys
import toolkit.spark as tks
spark = tks.session("local[1]", {"spark.driver.extraJavaOptions": "-Dexprscope.probe=kept"})
print(spark.range(3).count(), spark.sparkContext._jvm.System.getProperty("exprscope.probe"))
spark.stop()
"""


def test_the_embedded_spark_starts_without_log_banners():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([sys.executable, "-c", _START], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "kept"]  # the user's Java option reached the driver
    for banner in ("log4j profile", "NativeCodeLoader", "Setting default log level"):
        assert banner not in out.stderr, out.stderr
