"""Substrait's sort directions and exprscope's (ascending, nulls first), both ways: the
sort rel, the window rel and a project's window functions all read and write them."""

from __future__ import annotations

from substrait import algebra_pb2

__all__ = ["ORDER_OF_DIRECTION", "SORT_DIRECTION"]

SORT_DIRECTION = {
    (True, True): algebra_pb2.SortField.SORT_DIRECTION_ASC_NULLS_FIRST,
    (True, False): algebra_pb2.SortField.SORT_DIRECTION_ASC_NULLS_LAST,
    (False, True): algebra_pb2.SortField.SORT_DIRECTION_DESC_NULLS_FIRST,
    (False, False): algebra_pb2.SortField.SORT_DIRECTION_DESC_NULLS_LAST,
}
ORDER_OF_DIRECTION = {direction: order for order, direction in SORT_DIRECTION.items()}
