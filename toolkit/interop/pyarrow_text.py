"""pyarrow expression text, as people write it in Python, read without running it.

    pc.field("year") >= 2022
    (pc.field("x") * 2 < 4000) & ~pc.field("s").isin(["a", "b"])
    ds.field("t").cast("timestamp[ms]") > pc.scalar(5)

The command line (`--pyarrow`) and the magics take this text. It is never
evaluated: Python's own parser (`ast.parse`) reads it into a syntax tree, and
only the forms above are turned into the `pyarrow.compute.Expression` that
pyarrow itself would build (`pc.field`, `ds.field`, `pc.scalar`, Python
literals, `+ - * /`, comparisons, `& | ~`, unary minus, the methods
`isin`, `is_null`, `is_valid`, `is_nan`, `cast`, and the compute functions
called by name with expressions and values, `pc.if_else(pc.field("a") > 0,
pc.field("a"), 0)`, options as keywords: pyarrow builds the call as an
expression, it runs nothing). Anything else is a `ParseError` with a caret
under it.
"""

from __future__ import annotations

import ast
import difflib
import operator

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ParseError, UnknownFunctionNameError

__all__ = ["MAX_PYARROW_NESTING", "MAX_PYARROW_TEXT", "parse_pyarrow"]

MAX_PYARROW_TEXT = 100_000  # characters
# operators, calls and brackets inside each other: Python's own parser gives up near
# 3,000 prefix operators (and at 200 parentheses, with its own message), and pyarrow
# crashes the interpreter on expressions some 10,000 deep
MAX_PYARROW_NESTING = 1_000

_MODULES = {"pc", "ds", "pyarrow.compute", "pyarrow.dataset"}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_METHODS = {"isin": (1, 1), "is_null": (0, 1), "is_valid": (0, 0), "is_nan": (0, 0),
            "cast": (1, 2)}


def parse_pyarrow(text: str) -> pc.Expression:
    """The pyarrow expression the text spells, built by pyarrow; never run as Python."""
    if not isinstance(text, str):
        raise ParseError(f"pyarrow expression text must be a str, not {type(text).__name__}",
                         repr(text))
    text = text.strip()
    if len(text) > MAX_PYARROW_TEXT:
        raise ParseError(f"pyarrow expression text over {MAX_PYARROW_TEXT:,} characters",
                         text[:200])
    deep = _too_deep_at(text)
    if deep is not None:
        raise ParseError(_TOO_DEEP, text, deep)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        position = _position(text, err.lineno or 1, err.offset - 1 if err.offset else 0, False)
        raise ParseError(f"not a pyarrow expression: {err.msg}", text, position) from None
    except (RecursionError, MemoryError) as err:
        raise ParseError(f"{_TOO_DEEP} ({type(err).__name__} in Python's parser)",
                         text, 0) from None
    except ValueError as err:  # a NUL in the text
        raise ParseError(f"not a pyarrow expression: {err}", text, 0) from None
    reader = _Reader(text)
    deep_node = _deeper_than_allowed(tree.body)
    if deep_node is not None:
        reader.fail(deep_node, _TOO_DEEP)
    return reader.expression(tree.body)


_TOO_DEEP = (f"the expression nests more than {MAX_PYARROW_NESTING:,} levels deep (operators, "
             "calls and brackets inside each other); the caret is where it gets too deep")


def _too_deep_at(text: str) -> int | None:
    """Where brackets and runs of prefix operators (`~~~x`, `--x`) first nest deeper than
    MAX_PYARROW_NESTING, outside string quotes; None when they never do. Checked before
    Python's parser, which recurses on them."""
    depth = prefix = 0
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch in "~-+":
            prefix += 1
        elif not ch.isspace():
            prefix = 0
        if depth + prefix > MAX_PYARROW_NESTING:
            return i
    return None


def _deeper_than_allowed(root: ast.AST) -> ast.AST | None:
    """The first node below MAX_PYARROW_NESTING levels of the syntax tree (a long
    `a | b | ...` chain nests one level a term), found with an explicit stack."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PYARROW_NESTING and hasattr(node, "lineno"):
            return node
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None


def _position(text: str, lineno: int, column: int, in_bytes: bool = True) -> int:
    """A character offset into `text` from Python's (line, column); ast columns count bytes."""
    lines = text.split("\n")
    line_index = max(0, min(lineno - 1, len(lines) - 1))
    line = lines[line_index]
    if in_bytes:
        column = len(line.encode("utf-8")[:column].decode("utf-8", errors="ignore"))
    return sum(len(x) + 1 for x in lines[:line_index]) + max(0, min(column, len(line)))


class _Reader:
    """Reads the syntax tree children first, with an explicit stack: `value(node)` of a
    child is looked up, never computed by recursion, so a long `a | b | ...` chain reads."""

    def __init__(self, text: str):
        self.text = text
        self.done: dict[int, object] = {}

    def _compute(self, root: ast.AST) -> None:
        stack: list[tuple[ast.AST, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                self.done[id(node)] = self._build(node)
                continue
            stack.append((node, True))
            stack.extend((kid, False) for kid in reversed(self._kids(node)))

    def _kids(self, node: ast.AST) -> list:
        """The nodes whose values `node` is built from, after the checks that come first."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return list(node.elts)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.USub)):
            return [node.operand]
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                self.fail(node, "one comparison at a time (==, !=, <, <=, >, >=); "
                                "join several with & and parentheses")
            return [node.left, node.comparators[0]]
        if isinstance(node, ast.Call):
            func = node.func
            values = [*node.args, *(k.value for k in node.keywords)]
            if _is_compute_call(func):
                return values
            if node.keywords and not (isinstance(func, ast.Attribute)
                                      and func.attr in ("is_null", "cast")):
                self.fail(node.keywords[0], "keyword arguments are only read by is_null, cast "
                                            "and compute functions")
            if not isinstance(func, ast.Attribute):
                return []
            if _module(func.value) and func.attr in ("field", "scalar"):
                return values
            return [func.value, *values] if func.attr in _METHODS else []
        return []

    def fail(self, node: ast.AST, what: str):
        position = _position(self.text, getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        raise ParseError(what, self.text, position)

    def expression(self, root: ast.AST) -> pc.Expression:
        self._compute(root)
        value = self.value(root)
        if not isinstance(value, pc.Expression):
            return self.scalar(root, value)
        return value

    def scalar(self, node: ast.AST, value) -> pc.Expression:
        """pc.scalar(value), or a ParseError when no Arrow type holds the value."""
        try:
            return pc.scalar(value)
        except (OverflowError, ValueError, TypeError, pa.ArrowException) as err:
            self.fail(node, f"no Arrow value for this: {str(err).splitlines()[0][:120]}")

    def value(self, node: ast.AST):
        """The value read for `node`, a child already built."""
        return self.done[id(node)]

    def _build(self, node: ast.AST):
        """An Expression, or a plain Python value for literals and lists."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (int, float, str, bool, bytes)) or node.value is None:
                return node.value
            self.fail(node, f"{type(node.value).__name__} constants are not expression values")
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(item) for item in node.elts]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self.apply(node, _BINARY[type(node.op)], node.left, node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return ~self.operand(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.value(node.operand)
            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                return -inner
            operand = (inner if isinstance(inner, pc.Expression)
                       else self.scalar(node.operand, inner))
            return pc.Expression._call("negate_checked", [operand])
        if isinstance(node, ast.Compare):
            return self.apply(node, _COMPARE[type(node.ops[0])], node.left, node.comparators[0])
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Name):
            self.fail(node, f"`{node.id}` is not known here: name fields with "
                            f"pc.field(\"{node.id}\") and constants with literals")
        if isinstance(node, ast.Attribute):
            self.fail(node, f"`.{node.attr}` is not part of a pyarrow expression; the methods "
                            "are " + ", ".join(_METHODS))
        self.fail(node, f"{type(node).__name__} is not part of a pyarrow expression: use "
                        "pc.field, pc.scalar, literals, operators and the methods "
                        + ", ".join(_METHODS))

    def operand(self, node: ast.AST) -> pc.Expression:
        value = self.value(node)
        if isinstance(value, list):
            self.fail(node, "a list is not an expression (lists go in isin([...]))")
        return value if isinstance(value, pc.Expression) else self.scalar(node, value)

    def apply(self, node, op, left, right):
        a, b = self.value(left), self.value(right)
        if not isinstance(a, pc.Expression) and not isinstance(b, pc.Expression):
            a = self.scalar(left, a)
        try:
            return op(a if isinstance(a, pc.Expression) else self.operand(left),
                      b if isinstance(b, pc.Expression) else self.operand(right))
        except ParseError:
            raise
        except (TypeError, ValueError, OverflowError, pa.ArrowException) as err:
            self.fail(node, f"pyarrow refused this operation: {err}")

    def call(self, node: ast.Call) -> pc.Expression:
        func = node.func
        if _is_compute_call(func):
            return self.compute_call(node, func.attr)
        if isinstance(func, ast.Attribute) and _module(func.value) and func.attr == "field":
            parts = [self.value(a) for a in node.args]
            if not parts or not all(isinstance(p, (str, int)) and not isinstance(p, bool)
                                    for p in parts):
                self.fail(node, "field(...) takes names (strings) or indices (integers)")
            return pc.field(*parts)
        if isinstance(func, ast.Attribute) and _module(func.value) and func.attr == "scalar":
            if len(node.args) != 1:
                self.fail(node, "scalar(...) takes one value")
            return self.scalar(node, self.value(node.args[0]))
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            target = self.operand(func.value)
            low, high = _METHODS[func.attr]
            args = [self.value(a) for a in node.args]
            kwargs = {k.arg: self.value(k.value) for k in node.keywords}
            if not low <= len(args) + len(kwargs) <= high:
                self.fail(node, f".{func.attr}() takes {low} to {high} arguments")
            try:
                return getattr(target, func.attr)(*args, **kwargs)
            except (TypeError, ValueError, OverflowError, pa.ArrowException) as err:
                self.fail(node, f"pyarrow refused .{func.attr}(): {err}")
        if isinstance(func, ast.Attribute) and _compute_module(func.value):
            self.unknown_function(func)
        self.fail(node, "only pc.field, pc.scalar (or ds.field), compute functions "
                        "(pc.if_else, ...) and the methods " + ", ".join(_METHODS)
                        + " can be called")

    def unknown_function(self, func: ast.Attribute):
        """`pc.divde(...)`: no such compute function; a caret under the name, the near ones."""
        name = func.attr
        end = _position(self.text, getattr(func, "end_lineno", func.lineno),
                        getattr(func, "end_col_offset", func.col_offset))
        near = difflib.get_close_matches(name, sorted(_compute_functions()), n=3, cutoff=0.6)
        raise UnknownFunctionNameError(name, near, self.text, max(0, end - len(name)), len(name))

    def compute_call(self, node: ast.Call, name: str) -> pc.Expression:
        """`pc.name(...)` as pyarrow builds it from expressions: a call in the tree."""
        args = [self.operand(a) for a in node.args]
        kwargs = {k.arg: self.value(k.value) for k in node.keywords if k.arg is not None}
        for key, value in kwargs.items():
            if isinstance(value, list):  # a value set, as pyarrow reads it from an array
                try:
                    kwargs[key] = pa.array(value)
                except (TypeError, ValueError, pa.ArrowException) as err:
                    self.fail(node, f"pc.{name}({key}=[...]): {err}")
        if len(kwargs) != len(node.keywords):
            self.fail(node, f"pc.{name}(**...) cannot be read: name each option")
        try:
            out = getattr(pc, name)(*args, **kwargs)
        except (TypeError, ValueError, OverflowError, pa.ArrowException) as err:
            self.fail(node, f"pyarrow refused pc.{name}(): {err}")
        if not isinstance(out, pc.Expression):
            self.fail(node, f"pc.{name}() of these arguments is not an expression")
        return out


def _compute_functions() -> frozenset[str]:
    """The names pyarrow.compute registers (its expression calls take these)."""
    global _COMPUTE_NAMES
    if _COMPUTE_NAMES is None:
        _COMPUTE_NAMES = frozenset(pc.list_functions()) & frozenset(dir(pc))
    return _COMPUTE_NAMES


_COMPUTE_NAMES: frozenset[str] | None = None


def _is_compute_call(func: ast.AST) -> bool:
    """`pc.name(...)` for a compute function pyarrow has (not field or scalar)."""
    return (isinstance(func, ast.Attribute) and _compute_module(func.value)
            and func.attr not in ("field", "scalar") and func.attr in _compute_functions())


def _compute_module(node: ast.AST) -> bool:
    """`pc` or `pyarrow.compute` spelled out (ds has no compute functions)."""
    if isinstance(node, ast.Name):
        return node.id == "pc"
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and f"{node.value.id}.{node.attr}" == "pyarrow.compute")


def _module(node: ast.AST) -> bool:
    """`pc`, `ds`, or `pyarrow.compute` / `pyarrow.dataset` spelled out."""
    if isinstance(node, ast.Name):
        return node.id in _MODULES
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and f"{node.value.id}.{node.attr}" in _MODULES)
