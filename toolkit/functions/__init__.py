"""The function registry: signatures in Python, execution by pyarrow.compute.

Importing this package registers the whole catalog (one module per domain).
`get_function(name)`, `function_names()`, `describe(name)`; dispatch rules in
`dispatch`, type rules in `types`.
"""

from . import (  # noqa: F401  (each registers its functions)
    arithmetic,
    cast,
    comparison,
    conditional,
    logic,
    math_family,
    nested_family,
    nulls,
    rounding,
    sets,
    string_family,
    strings,
    structs,
    temporal,
    temporal_family,
)
from .description import describe
from .function import Arity, Function, FunctionKind, InputType, Kernel, NullHandling, OutputType
from .registry import function_names, get_function, has_function, register

__all__ = [
    "Arity", "Function", "FunctionKind", "InputType", "Kernel", "NullHandling", "OutputType",
    "describe", "function_names", "get_function", "has_function", "register",
]
