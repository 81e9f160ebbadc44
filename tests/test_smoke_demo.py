"""`make demo` is the product's front door: it must run and print trees."""

import subprocess
import sys


def test_demo_prints_expression_trees():
    out = subprocess.run([sys.executable, "-m", "toolkit.demo"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "(add(a, 1) > 3)" in out.stdout
    assert "└──" in out.stdout
