"""Bridges to other systems' expressions and plans, in one place.

pyarrow's compute expressions (`from_pyarrow`, `Expression.to_pyarrow`) and their
text (`pyarrow_text`) live beside the engine they feed; Substrait, the format
engines exchange expressions and plans in, lives here:

    tk.from_substrait(data)            one ExtendedExpression -> a bound Expression
    tk.from_substrait_all(data)        every expression, by name, with the schema
    e.to_substrait(schema)             -> bytes pyarrow.substrait reads
    plan.from_substrait(data, tables)  a Substrait Plan -> LogicalPlan
    p.to_substrait()                   -> Plan bytes pyarrow.substrait.run_query runs

`substrait_functions` is the table of which Arrow function each Substrait
function is; docs/substrait.md is generated from it.
"""

from .substrait_expressions import (
    BoundExpressions,
    from_substrait,
    from_substrait_all,
    to_substrait,
)

__all__ = ["BoundExpressions", "from_substrait", "from_substrait_all", "to_substrait"]
