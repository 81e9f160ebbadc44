"""How big and how deep a Substrait message may be: what every protobuf reader takes.

protobuf's readers refuse a message whose messages nest more than 100 deep
below it: Python's (upb), pyarrow's (C++ protobuf) and DataFusion's (prost)
all draw the line at the same place, one past 100 refused. The writers check
their own bytes against it, and name how deep a refused message nests.
"""

from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

__all__ = ["MAX_MESSAGE_BYTES", "MAX_NESTING", "nesting", "readable_bytes"]

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_NESTING = 100


def readable_bytes(message: Message) -> bytes | None:
    """`message`'s bytes if protobuf's readers take them back (a writer's last check),
    else None."""
    data = message.SerializeToString()
    try:
        type(message)().ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return None
    return data


def nesting(message: Message) -> int:
    """How deep messages nest below `message` (0: it holds none), walked iteratively."""
    deepest, stack = 0, [(message, 0)]
    while stack:
        m, depth = stack.pop()
        deepest = max(deepest, depth)
        for field, value in m.ListFields():
            if field.type != FieldDescriptor.TYPE_MESSAGE:
                continue
            if not field.is_repeated:
                stack.append((value, depth + 1))
            elif field.message_type.GetOptions().map_entry:
                stack.extend((v, depth + 2) for v in value.values()
                             if isinstance(v, Message))
            else:
                stack.extend((v, depth + 1) for v in value)
    return deepest
