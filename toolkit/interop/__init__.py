"""Bridges to other systems' expressions and plans, in one place.

    pyarrow_serialized    pyarrow compute expressions, read through Arrow's own
                          serialization (`tk.from_pyarrow`; `Expression.to_pyarrow`
                          writes them back)
    pyarrow_text          pyarrow expression text, read without running it
    substrait_*           Substrait, the format engines exchange expressions and plans in:
        tk.from_substrait(data)            one ExtendedExpression -> a bound Expression
        tk.from_substrait_all(data)        every expression, by name, with the schema
        e.to_substrait(schema)             -> bytes pyarrow.substrait reads
        plan.from_substrait(data, tables)  a Substrait Plan -> LogicalPlan
        p.to_substrait()                   -> Plan bytes pyarrow.substrait.run_query runs

`substrait_functions` is the table of which Arrow function each Substrait
function is; docs/substrait.md is generated from it. The expression model reads
pyarrow objects on construction (`as_expression`), so `from_pyarrow` itself stays
in `toolkit.model.expression`; the Substrait modules load on first use (protobuf's
classes cost as much to import as the rest of the engine).
"""


from ..support import late

late.declare(__name__, {
    "BoundExpressions": "toolkit.interop.substrait.expressions",
    "from_substrait": "toolkit.interop.substrait.expressions",
    "from_substrait_all": "toolkit.interop.substrait.expressions",
    "to_substrait": "toolkit.interop.substrait.expressions",
})

__all__ = ["BoundExpressions", "from_substrait", "from_substrait_all", "to_substrait"]


__getattr__, __dir__ = late.names(__name__)
