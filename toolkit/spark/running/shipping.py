"""Pickling exprscope's plan fragments for Spark's executors.

A fragment holds bound expressions whose options are pyarrow FunctionOptions,
and some of those (SetLookupOptions) refuse to pickle. Arrow can serialize
every FunctionOptions to bytes, so the fragment is pickled with a pickler that
ships each option object as its Arrow serialization and rebuilds it on arrival.
"""

from __future__ import annotations

import io
import pickle

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["dumps", "loads"]


def _options_from_bytes(data: bytes):
    return pc.FunctionOptions.deserialize(pa.py_buffer(data))


def _pickler_class():
    from pyspark import cloudpickle

    class FragmentPickler(cloudpickle.CloudPickler):
        def reducer_override(self, obj):
            if isinstance(obj, pc.FunctionOptions):
                return _options_from_bytes, (obj.serialize().to_pybytes(),)
            return super().reducer_override(obj)

    return FragmentPickler


def dumps(obj) -> bytes:
    sink = io.BytesIO()
    _pickler_class()(sink, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return sink.getvalue()


def loads(data: bytes):
    return pickle.loads(data)
