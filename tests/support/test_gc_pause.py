"""A pass pauses the cyclic garbage collector while it runs and always restores it."""

import gc

import pyarrow as pa
import pytest

import toolkit as tk

SCHEMA = pa.schema([pa.field("a", pa.int32())])


@pytest.fixture
def gc_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_off_inside_a_pass_and_on_again_after(gc_enabled):
    seen = []

    def spy(expr):
        seen.append(gc.isenabled())
        return expr

    observed = []
    tk.optimize(tk.field("a") + 1, SCHEMA, passes=[spy],
                observer=lambda *event: observed.append(gc.isenabled()))
    assert seen == [False]
    assert observed == [True]  # observers (user code) run with the collector on
    assert gc.isenabled()


def test_the_collector_is_restored_when_a_pass_raises(gc_enabled):
    def broken(expr):
        raise RuntimeError("a pass that fails")

    with pytest.raises(RuntimeError, match="a pass that fails"):
        tk.optimize(tk.field("a") + 1, SCHEMA, passes=[broken])
    assert gc.isenabled()


def test_a_program_that_disabled_the_collector_keeps_it_disabled(gc_enabled):
    gc.disable()
    tk.optimize(tk.field("a") + 1, SCHEMA)
    assert not gc.isenabled()
