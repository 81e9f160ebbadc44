"""ASCII fast paths for Unicode string functions, as Velox and DataFusion have.

On ASCII text, `utf8_upper`, `utf8_lower` and `utf8_length` give exactly what
`ascii_upper`, `ascii_lower` and `binary_length` give, and those skip UTF-8
decoding, several times faster (docs/benchmarks.md, "Figures the code relies on").
Whether an array is ASCII is one vectorized `max` over the bytes its strings
occupy, far cheaper than the decoding it saves.
Anything else, invalid UTF-8 included, takes Arrow's UTF-8 kernel and its
errors, unchanged.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ASCII_MIN_ROWS", "ascii_when_possible", "is_ascii"]

ASCII_MIN_ROWS = 1024  # below this the check costs about what it saves


def is_ascii(array: pa.Array) -> bool:
    """Whether every byte the (string or large_string) array's values span is below 0x80.

    Null slots may span bytes too; any non-ASCII byte among them only means
    the slower, always-correct UTF-8 kernel runs.
    """
    if len(array) == 0:
        return True
    width = pa.int64() if pa.types.is_large_string(array.type) else pa.int32()
    offsets = pa.Array.from_buffers(width, len(array) + 1, [None, array.buffers()[1]],
                                    offset=array.offset)
    first, last = offsets[0].as_py(), offsets[len(array)].as_py()
    if last <= first:
        return True
    data = array.buffers()[2]
    view = pa.Array.from_buffers(pa.uint8(), last - first, [None, data], offset=first)
    return pc.max(view).as_py() < 0x80


def ascii_when_possible(ascii_name: str):
    """An `execute` for a one-argument UTF-8 function that runs `ascii_name` on ASCII arrays."""
    utf8_function: list = []
    ascii_function = []

    def execute(function, args, options, kernel):
        value = args[0]
        if not utf8_function:
            utf8_function.append(pc.get_function(function.pc_name or function.name))
            ascii_function.append(pc.get_function(ascii_name))
        if isinstance(value, pa.Array) and len(value) >= ASCII_MIN_ROWS and is_ascii(value):
            return ascii_function[0].call(args, options)
        return utf8_function[0].call(args, options)

    return execute
