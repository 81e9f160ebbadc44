"""The function registry: every function exprscope can bind, by name.

One process-wide dictionary, filled when `toolkit.functions` is imported (each
domain module registers its functions). Kernels are created once here, so a
bound Call's kernel is the same object every time a name binds to it, which is
what makes bound calls compare equal (Arrow compares kernel pointers).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable

from ..errors import RegistryError, UnknownFunctionError
from .function import Arity, Function, FunctionKind, Kernel, NullHandling

__all__ = ["define", "definer", "function_names", "get_function", "has_function", "register", "register_later"]

_FUNCTIONS: dict[str, Function] = {}
_ALIASES: dict[str, str] = {}
# functions built on first use: reading pyarrow's kernels for ~150 functions costs
# tens of milliseconds that `import toolkit` should not pay
_PENDING: dict[str, Callable[[], Function]] = {}
_BUILDING = threading.Lock()


def register(function: Function) -> Function:
    if function.name in _FUNCTIONS or function.name in _PENDING:
        raise RegistryError(f"function {function.name!r} is already registered")
    _FUNCTIONS[function.name] = function
    for alias in function.aliases:
        _ALIASES[alias] = function.name
    return function


def define(name: str, kernels: list[Kernel], doc: str, *, arity: Arity | None = None,
           null_handling: NullHandling = NullHandling.INTERSECTION,
           kind: FunctionKind = FunctionKind.SCALAR, **attributes) -> Function:
    """Build and register a Function; the arity defaults to the kernels' input count."""
    if arity is None:
        counts = {len(k.inputs) for k in kernels}
        if len(counts) != 1:
            raise RegistryError(f"{name}: kernels disagree on arity; pass arity=")
        n = counts.pop()
        arity = Arity(n, n)
    return register(Function(name=name, kind=kind, arity=arity, kernels=kernels,
                             null_handling=null_handling, doc=doc, **attributes))


def register_later(name: str, build: Callable[[], Function]) -> None:
    """A function `build()` defines when the name is first looked up."""
    if name in _FUNCTIONS or name in _PENDING:
        raise RegistryError(f"function {name!r} is already registered")
    _PENDING[name] = build


def _build_pending(name: str) -> Function | None:
    with _BUILDING:
        if name in _FUNCTIONS:  # another thread built it meanwhile
            return _FUNCTIONS[name]
        build = _PENDING.pop(name, None)
        return build() if build is not None else None


def has_function(name: str) -> bool:
    return name in _FUNCTIONS or name in _ALIASES or name in _PENDING


def get_function(name: str) -> Function:
    """The registered Function; an unknown name raises with the closest names."""
    function = _FUNCTIONS.get(name)
    if function is not None:
        return function
    if name in _PENDING:
        return _build_pending(name)
    if name in _ALIASES:
        return _FUNCTIONS[_ALIASES[name]]
    if not isinstance(name, str):
        raise UnknownFunctionError(repr(name))
    raise UnknownFunctionError(name, near_names(name))


def near_names(name: str, others=()) -> list[str]:
    """Up to three registered names (or `others`) close to `name`, closest first."""
    candidates = list(dict.fromkeys([*_FUNCTIONS, *_ALIASES, *_PENDING, *others]))
    same_letters = [c for c in candidates if c.lower() == name.lower()]  # ADD -> add
    close = same_letters + difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    if not close:  # a prefix or substring helps with e.g. "upper" -> utf8_upper
        close = [c for c in sorted(candidates) if name and (name in c or c in name)]
    return list(dict.fromkeys(close))[:3]


def function_names() -> list[str]:
    """Every registered function name, sorted."""
    return sorted(_FUNCTIONS.keys() | _PENDING.keys())


def definer(family: str):
    """`define` for one family's module: every function it registers is of `family`."""

    def define_in_family(name: str, kernels: list[Kernel], doc: str, **attributes) -> Function:
        return define(name, kernels, doc, family=family, **attributes)

    return define_in_family
