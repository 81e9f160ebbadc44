"""The optimization passes (Arrow's, docs/semantics.md §5, and exprscope's own) and optimize().

Each pass returns the very same object when it changes nothing, and reports the
rules that fired to any observer (`toolkit.observe`) as one PassEvent.
"""

from .canonicalize import canonicalize
from .errors import GuaranteeError, PassError, UnknownPassError
from .fold_constants import fold_constants
from .framework import optimization_pass, run_as_pass
from .is_satisfiable import is_satisfiable
from .known_values import extract_known_field_values, replace_fields_with_known_values
from .optimize import DEFAULT_PASSES, PASSES, optimize
from .remove_named_refs import remove_named_refs
from .simplify_identities import simplify_identities
from .simplify_with_guarantee import simplify_with_guarantee

__all__ = [
    "DEFAULT_PASSES",
    "PASSES",
    "GuaranteeError",
    "PassError",
    "UnknownPassError",
    "canonicalize",
    "extract_known_field_values",
    "fold_constants",
    "is_satisfiable",
    "optimization_pass",
    "optimize",
    "remove_named_refs",
    "replace_fields_with_known_values",
    "run_as_pass",
    "simplify_identities",
    "simplify_with_guarantee",
]
