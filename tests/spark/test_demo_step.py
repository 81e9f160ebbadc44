"""The Spark part of `make demo` tells its story on the bundled flights."""

from toolkit.cli.demo_spark import run_demo_step


def test_the_spark_step_agrees_with_spark_and_prints_one_line_filters(spark):
    lines: list[str] = []
    run_demo_step(lambda text="": lines.extend(str(text).splitlines()))
    text = "\n".join(lines)
    assert "native vs engine: equal" in text
    assert any(line.rstrip().endswith("rows") and "then" in line for line in lines)
    imported = lines[lines.index("a Spark filter imported as an exprscope expression:") + 1]
    # Spark's `dep_delay > 60` holds for NaN too (Spark orders NaN above every number)
    assert imported.strip() == ('(((dep_delay > 60) or is_nan(dep_delay)) and '
                                'if_else(is_valid(dest), is_in(dest, {"LAX", "SFO"}), null[bool]))')
    assert lines[-1] == imported  # the set does not spill over further lines
