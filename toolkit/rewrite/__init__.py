"""The one rewrite core shared by expression passes and plan rules.

A rule looks at one node and answers with a `Transformed` (the node it stands
for now, whether that is a change, which rules fired and why). `apply_rule`
owns everything else: the iterative walk over any tree shape, where each node
is, the `RuleApplied` records with their paths in the result, and whether
anything changed at all. Expression passes (`toolkit.passes`) and the logical
optimizer (`toolkit.plan.optimizer`) both run their rules through it, so a
trace shows the same kind of step for both.
"""

from .driver import RewriteLog, apply_rule
from .rule_applied import RuleApplied
from .transformed import Firing, Transformed
from .tree_shape import ROOT, PathCell, TreeShape, modify_tree

__all__ = ["ROOT", "Firing", "PathCell", "RewriteLog", "RuleApplied", "Transformed", "TreeShape",
           "apply_rule", "modify_tree"]
