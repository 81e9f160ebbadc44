"""remove_named_refs: every field named by its index path, as Arrow's RemoveNamedRefs.

After binding a ref by name knows its path; writing the path instead makes the
expression independent of names (for plans whose columns get renamed).
"""

from __future__ import annotations

from ..model.expression import Expression, Parameter
from ..model.field_ref import FieldRef
from ..rewrite import Transformed
from .framework import optimization_pass, require_bound, sweep_pre

__all__ = ["remove_named_refs"]


@optimization_pass("remove_named_refs", idempotent=True)
def remove_named_refs(expr: Expression, **ctx) -> Expression:
    """`expr` with name refs replaced by FieldPath refs; the same object when none were."""
    require_bound(expr, "RemoveNamedRefs called on unbound expression")

    def rule(node: Expression) -> Transformed | None:
        if not node.is_field or node.ref.is_field_path:
            return None
        as_path = FieldRef(node.path)
        after = Parameter(as_path, node.field_type, node.path, node.nullable)
        return Transformed.fired(after, "remove_named_refs/name-to-path",
                     f"{node.to_string()} is {after.to_string()} in the bound schema")

    return sweep_pre(expr, rule)
