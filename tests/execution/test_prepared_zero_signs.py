"""Trees equal but for the sign of a float zero literal are prepared apart.

Expression equality follows Arrow's (a -0.0 literal equals a 0.0 one), and prepared
trees are cached by equality: the second tree evaluated ran the first one's literal, so
`if_else(p, g, 0.0)` gave -0.0 after `if_else(p, g, -0.0)` had run. Oracle: pyarrow's
kernels on the literal as written.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolkit as tk


@pytest.mark.parametrize("fuse", [True, False])
@pytest.mark.parametrize("kind", [pa.float32(), pa.float64()])
def test_a_zero_literal_keeps_its_sign_after_the_other_zero_ran(fuse, kind):
    table = pa.table({"p": pa.array([False, None, True]),
                      "g": pa.array([1.5, 2.5, 3.5], kind)})
    for first, second in ((-0.0, 0.0), (0.0, -0.0)):
        for zero in (first, second):
            literal = pa.scalar(zero, kind)
            expr = tk.call("if_else", [tk.field("p"), tk.field("g"), tk.literal(literal)])
            got = tk.evaluate(expr, table, fuse=fuse, simplify=False).to_pylist()
            want = pc.if_else(table["p"], table["g"], literal).to_pylist()
            assert got == want
            assert math.copysign(1.0, got[0]) == math.copysign(1.0, zero)
