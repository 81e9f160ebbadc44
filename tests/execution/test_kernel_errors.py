"""Finding the first offending row by bisection, without row loops."""

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

from toolkit.execution.kernel_errors import first_failing_position


@given(st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=1, max_size=300))
def test_first_zero_divisor_is_found(divisors):
    args = [pa.array(range(len(divisors)), pa.int64()), pa.array(divisors, pa.int64())]
    expected = next((i for i, d in enumerate(divisors) if d == 0), None)
    run = lambda a: pc.divide(*a)
    assert first_failing_position(run, args) == expected


def test_scalar_arguments_are_not_sliced():
    run = lambda a: pc.add_checked(*a)
    args = [pa.array([1, 2, 2**63 - 1, 5], pa.int64()), pa.scalar(1, pa.int64())]
    assert first_failing_position(run, args) == 2


def test_an_error_of_no_single_row_gives_none():
    def run(a):  # fails only when the two halves come together
        if len(a[0]) > 1:
            raise pa.ArrowInvalid("needs the whole batch")
        return a[0]

    assert first_failing_position(run, [pa.array([1, 2, 3, 4])]) is None
