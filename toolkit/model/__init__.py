"""The expression model: Expression = Literal | Parameter | Call, field references, builders,
walking and rebuilding trees, function options, and pyarrow expressions in and out.

The bottom of the engine: it imports nothing of toolkit but errors and support.
"""
