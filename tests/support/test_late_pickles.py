"""A late module's stand-in survives pickling: Spark's executors receive exprscope's
functions by value (cloudpickle), their module globals' stand-ins with them."""

from __future__ import annotations

import pickle

from pyspark import cloudpickle

from toolkit.support import late


def test_a_stand_in_pickles_by_name_and_loads_on_arrival():
    kernels = late.module("toolkit.functions.string_kernels")
    back = pickle.loads(pickle.dumps(kernels))
    assert isinstance(back, late.LateModule)
    assert back.EQUAL == kernels.EQUAL == 0


def test_a_function_shipped_by_value_keeps_its_late_global():
    """What a plan fragment does: a function reading a stand-in, pickled by value."""
    namespace = {"kernels": late.module("toolkit.functions.string_kernels")}
    exec("def mode(): return kernels.PREFIX", namespace)  # noqa: S102 - a fixed text
    shipped = pickle.loads(cloudpickle.dumps(namespace["mode"]))
    assert shipped() == 1
