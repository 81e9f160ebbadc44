"""The magics take pyarrow expression text with --pyarrow (read, never run)."""

import pyarrow as pa
import pyarrow.compute as pc

import toolkit as tk


def test_magics_read_pyarrow_cells(ip):
    ip.user_ns["t"] = pa.table({"a": [1, 2, 3]})
    explorer = ip.run_cell_magic("explain", "--data t --pyarrow", 'pc.field("a") * 1 > 1')
    assert explorer.trace.passes
    assert tk.evaluate(tk.from_pyarrow(pc.field("a") * 1 > 1), ip.user_ns["t"]).to_pylist() == [
        False, True, True]


def test_a_bad_pyarrow_cell_is_one_message(ip, capsys):
    ip.user_ns["t"] = pa.table({"a": [1, 2, 3]})
    assert ip.run_cell_magic("trace", "--data t --pyarrow", "import os") is None
    err = capsys.readouterr().err
    assert "invalid syntax" in err and "Traceback" not in err
