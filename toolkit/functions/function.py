"""Function and Kernel: what a function accepts, returns and how it runs.

Signatures live in Python so dispatch is exprscope's own and can be explained
(`tk.describe("add")`); execution calls pyarrow.compute. A Kernel is one
signature; binding picks one and stores it on the Call (its identity matters:
a bound call equals another only with the same kernel, as in Arrow).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "Arity",
    "Function",
    "FunctionKind",
    "InputType",
    "Kernel",
    "NullHandling",
    "OutputType",
    "call_can_fail",
    "call_pyarrow",
]


class NullHandling(enum.Enum):
    """Arrow's null handling: how nulls in the inputs reach the output."""

    INTERSECTION = "intersection"  # any null input gives a null output
    COMPUTED = "computed"  # the kernel decides (Kleene logic, coalesce, if_else)
    OUTPUT_NOT_NULL = "output_not_null"  # never null (is_null, is_valid)


class FunctionKind(enum.Enum):
    SCALAR = "scalar"  # all arguments evaluated first, then the kernel
    SPECIAL_FORM = "special_form"  # arguments evaluated lazily, under selection vectors


@dataclass(frozen=True)
class InputType:
    """A pattern an argument type must match: a name for display and a predicate."""

    name: str
    accepts: Callable[[pa.DataType], bool] = field(compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OutputType:
    """How the output type follows from the (already cast) argument types and options."""

    name: str
    resolve: Callable[[Sequence[pa.DataType], object], pa.DataType] = field(compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Arity:
    min: int
    max: int | None  # None: varargs

    def accepts(self, n: int) -> bool:
        return n >= self.min and (self.max is None or n <= self.max)

    def __str__(self) -> str:
        if self.max is None:
            return f"at least {self.min}"
        return str(self.min) if self.min == self.max else f"{self.min} to {self.max}"


@dataclass(eq=False)
class Kernel:
    """One signature of a function. Compared by identity."""

    function_name: str
    inputs: tuple[InputType, ...]
    output: OutputType
    varargs: bool = False  # the last input pattern repeats
    # None: as the function says; False/True where one signature differs (float divide by
    # zero gives inf and never fails, integer divide by zero does)
    can_fail: bool | None = None
    # an extra condition over all argument types, e.g. "the values share one type"
    # (Arrow leaves such checks to DispatchBest or to execution); described by `check_name`
    check: Callable[[Sequence[pa.DataType]], bool] | None = field(default=None, repr=False)
    check_name: str = ""

    def matches(self, types: Sequence[pa.DataType]) -> bool:
        if not self._matches_inputs(types):
            return False
        return self.check is None or bool(self.check(types))

    def _matches_inputs(self, types: Sequence[pa.DataType]) -> bool:
        if self.varargs:
            if len(types) < len(self.inputs) - 1:
                return False
            pats = list(self.inputs[:-1]) + [self.inputs[-1]] * (len(types) - len(self.inputs) + 1)
        else:
            if len(types) != len(self.inputs):
                return False
            pats = list(self.inputs)
        return all(p.accepts(t) for p, t in zip(pats, types))

    def signature(self) -> str:
        ins = [str(i) for i in self.inputs]
        if self.varargs and ins:
            ins[-1] += "..."
        where = f" where {self.check_name}" if self.check_name else ""
        return f"({', '.join(ins)}) -> {self.output}{where}"

    def __repr__(self) -> str:
        return f"<Kernel {self.function_name}{self.signature()}>"


def call_pyarrow(function: Function, args, options, kernel):
    """Run pyarrow's own kernel of `function` (its `pc_name`, or its name)."""
    name = function.pc_name or function.name
    found = _PC_FUNCTIONS.get(name)
    if found is None:
        found = _PC_FUNCTIONS[name] = pc.get_function(name)
    return found.call(args, options)


_PC_FUNCTIONS: dict[str, pc.Function] = {}  # pyarrow's registry, looked up once per name


@dataclass(eq=False)
class Function:
    """A function of the registry. See `toolkit.describe(name)` for any of them."""

    name: str
    kind: FunctionKind
    arity: Arity
    kernels: list[Kernel]
    null_handling: NullHandling
    doc: str
    pure: bool = True
    options_class: type | None = None
    default_options: object | None = None
    pc_name: str | None = None  # the pyarrow.compute function that runs it, if named differently
    # execute(function, args: list[pa.Array | pa.Scalar], options, kernel) -> pa.Array | pa.Scalar
    execute: Callable = call_pyarrow
    # an optional kernel that understands a selection: (function, args, options, kernel, selection)
    selective_execute: Callable | None = None
    # kernels that can fail per row (divide by zero, overflow, invalid cast) -> the lazy evaluator
    # must not run them densely over unselected rows
    can_fail: bool = False
    # where one kernel covers types that fail and types that cannot (cast): (call) -> bool
    can_fail_for: Callable | None = None
    aliases: tuple[str, ...] = ()
    # DispatchBest: (function, types) -> the types to cast the arguments to (None: exact only)
    dispatch_best: Callable | None = None
    # Arrow's kernel init: (function, kernel, types, options) -> None, raising on bad options
    init: Callable | None = None
    options_required: bool = False  # binding without options fails (is_in, cast, struct_field)
    family: str = ""  # math, strings, temporal, nested, comparison, ... (docs group by it)
    description: str = ""  # the longer text of pyarrow's documentation, when it has one

    def dispatch_exact(self, types: Sequence[pa.DataType]) -> Kernel | None:
        for kernel in self.kernels:
            if kernel.matches(types):
                return kernel
        return None

    def signatures(self) -> list[str]:
        return [f"{self.name}{k.signature()}" for k in self.kernels]

    def __call__(self, args, options=None, kernel=None):
        return self.execute(self, args, options if options is not None else self.default_options, kernel)

    def __repr__(self) -> str:
        return f"<Function {self.name} ({self.kind.value}, {len(self.kernels)} kernels)>"


def call_can_fail(call) -> bool:
    """Whether a bound call may raise on some row: its kernel's word, else its function's
    answer for the call's types (`can_fail_for`), else its function's word.

    Unbound calls are assumed to fail: the safe answer for the lazy evaluator and the
    plan optimizer, which use this to decide what may run on rows nobody selected.
    """
    function = getattr(call, "function", None)
    if function is None:
        return True
    kernel = getattr(call, "kernel", None)
    if kernel is not None and kernel.can_fail is not None:
        return kernel.can_fail
    if function.can_fail_for is not None and kernel is not None:
        return function.can_fail_for(call)
    return function.can_fail
