"""`a || b` on pandas-made tables: large_string columns with a plain string separator."""

import pyarrow as pa

import toolkit as tk


def test_concat_binds_large_strings_with_a_string_separator():
    table = pa.table({"s": pa.array(["Adelie", None], pa.large_string()),
                      "i": pa.array(["Torgersen", "Biscoe"], pa.large_string())})
    e = tk.parse("s || i").bind(table.schema)
    assert e.type == pa.large_string()
    assert tk.evaluate(e, table).to_pylist() == ["AdelieTorgersen", None]
