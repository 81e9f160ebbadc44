"""Substrait, the format engines exchange expressions and plans in: types, functions,
expressions and plans, read and written through the substrait package's protobuf classes."""
