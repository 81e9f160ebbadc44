"""The logical optimizer's rules, one module each, in the order the optimizer runs them."""

from .base import Rule, RuleContext
from .decorrelate_predicate_subquery import DecorrelatePredicateSubquery
from .decorrelate_scalar_subquery import DecorrelateScalarSubquery
from .eliminate_cross_join import EliminateCrossJoin
from .eliminate_filter import EliminateFilter
from .merge_filters import MergeFilters
from .merge_projections import MergeProjections
from .propagate_empty_relation import PropagateEmptyRelation
from .prune_columns import PruneColumns
from .push_down_filter import PushDownFilter
from .scalar_subquery_to_join import ScalarSubqueryToJoin
from .simplify_conjuncts import SimplifyConjuncts
from .simplify_expressions import SimplifyExpressions

__all__ = [
    "DecorrelatePredicateSubquery",
    "DecorrelateScalarSubquery",
    "EliminateCrossJoin",
    "EliminateFilter",
    "MergeFilters",
    "MergeProjections",
    "PropagateEmptyRelation",
    "PruneColumns",
    "PushDownFilter",
    "Rule",
    "RuleContext",
    "ScalarSubqueryToJoin",
    "SimplifyExpressions",
    "default_rules",
]


def default_rules() -> list[Rule]:
    return [DecorrelatePredicateSubquery(), DecorrelateScalarSubquery(), ScalarSubqueryToJoin(),
            SimplifyExpressions(), MergeFilters(), SimplifyConjuncts(), EliminateFilter(),
            EliminateCrossJoin(),
            PropagateEmptyRelation(), PushDownFilter(), MergeProjections(), PruneColumns()]
