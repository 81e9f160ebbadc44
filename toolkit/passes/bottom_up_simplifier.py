"""`fold_constants(canonicalize(tree))`, computed one node at a time, each after its arguments.

Evaluation simplifies a bound tree as Arrow's SimplifyWithGuarantee(true) does before it
runs it: canonicalize, then fold constants. As two passes that is two more walks of the
tree; `BottomUpSimplifier` gives the same tree (node for node: the same calls, kernels,
types and grouping) from inside one post-order walk that binds and computes facts too
(`execution/prepare.py`), so preparing a tree walks it once.

Why the result is the same tree although canonicalize runs before its arguments
(pre-order) and folding after them:

- A comparison is flipped on what it holds before simplification (a literal on the left
  of anything else), as canonicalize sees it, and rebuilt over its simplified arguments;
  simplifying keeps every type and never turns a non-literal into a literal before the
  flip is decided, so the kernel chosen is the one the two passes choose.
- A chain of one associative-commutative call (`a + b + 1`) is regrouped from its top,
  over the operands of the tree as bound. A chain already in canonical order, folded to
  the left, stays as it is, so each of its calls is simplified as soon as it is seen
  (`_chain_top` records the largest operand priority so far). Any other chain waits,
  unsimplified, until a call of another name (or the root) takes it as an argument:
  then its operands, each simplified, are sorted and folded to the left once, and each
  new call is folded as the fold pass would fold it.
- Folding is per call, after its arguments: `fold_rule` on the rebuilt call.

`folded(node)` says whether any fold fired in the simplified tree: evaluation runs the
tree as bound when nothing folds (`execution/prepare.py`'s `_folded` says why).
`tests/passes/test_bottom_up_simplifier.py` checks the sameness on generated trees.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model.expression import Call, Expression
from .canonicalize import canonical_order, canonical_priority, flipped_name, is_chain_call
from .chain import flatten_chain
from .fold_constants import fold_rule
from .rebind import bind_new_call, with_args_rebound

__all__ = ["BottomUpSimplifier"]

_WAITING = object()  # a chain not in canonical order: regrouped once its top is known


class BottomUpSimplifier:
    """Simplifies the calls of a bound tree in post-order; `simplified(node)` answers.

    `visit(call)` must see every call of the tree, each after its arguments. `on_new`
    is told of every node of a simplified tree that is not a node of the bound tree, after
    its arguments. `dropped` collects the simplified subtrees a fold or a regrouping
    left out (whoever keeps facts about them by id holds them).
    """

    __slots__ = ("_chain_top", "_folded", "_out", "dropped", "fired", "on_new")

    def __init__(self, on_new: Callable[[Expression], None]):
        self.on_new = on_new
        self.dropped: list[Expression] = []
        self.fired = False  # a fold fired somewhere (maybe in a part left out since)
        self._out: dict[int, object] = {}  # id(bound call) -> its simplified tree, or _WAITING
        self._folded: set[int] = set()  # ids of bound calls in whose simplified tree a fold fired
        # id(bound chain call in canonical order) -> the priority of its last operand
        self._chain_top: dict[int, int] = {}

    def simplified(self, node: Expression) -> Expression:
        """The simplified tree of a visited bound node (a leaf is its own)."""
        if not node.is_call:
            return node
        if self._out[id(node)] is _WAITING:
            self._regroup_waiting(node)
        return self._out[id(node)]

    def _regroup_waiting(self, top: Call) -> None:
        """Regroup `top`'s chain, and first every waiting chain among its operands, with a
        stack of our own: chains of different functions alternating thousands deep
        (`add(multiply(add(...), 2), 3)`) each wait on the one below."""
        stack = [top]
        while stack:
            node = stack[-1]
            if self._out[id(node)] is not _WAITING:
                stack.pop()
                continue
            fringe = canonical_order(flatten_chain(node).fringe)
            waiting = [o for o in fringe if o.is_call and self._out[id(o)] is _WAITING]
            if waiting:
                stack.extend(waiting)
                continue
            out, folded = self._regrouped(node, fringe)
            self._out[id(node)] = out
            if folded:
                self._folded.add(id(node))
            stack.pop()

    def unchanged(self, node: Expression) -> bool:
        """Whether a visited bound node is its own simplified tree (False while a chain
        it belongs to waits to be regrouped)."""
        return not node.is_call or self._out[id(node)] is node

    def folded(self, node: Expression) -> bool:
        """Whether a fold fired anywhere in `simplified(node)` (fold_constants would have
        changed the canonical tree)."""
        self.simplified(node)
        return id(node) in self._folded

    def visit(self, node: Call) -> None:
        """Simplify the bound call `node`, whose arguments were visited."""
        if is_chain_call(node) and not self._in_order(node):
            self._out[id(node)] = _WAITING
            return
        flip = flipped_name(node)
        args = [self.simplified(a) for a in node.args]
        if flip is not None:
            call = bind_new_call(flip, (args[1], args[0]), node.options)
        elif any(new is not old for new, old in zip(args, node.args)):
            call = node.with_args(args)
        else:
            call = node
        out, fired = self._fold(call, node)
        self._out[id(node)] = out
        if fired or any(id(a) in self._folded for a in node.args):
            self._folded.add(id(node))

    def _in_order(self, node: Call) -> bool:
        """Whether the chain ending at `node` is canonical: folded to the left, operands
        in canonical order (then its calls are simplified where they stand)."""
        name = node.name
        last = None
        for i, arg in enumerate(node.args):
            if arg.is_call and arg.name == name:
                below = self._chain_top.get(id(arg))
                if i > 0 or below is None:
                    return self._wait(node)
                priority = below
            else:
                priority = canonical_priority(arg)
            if last is not None and priority < last:
                return self._wait(node)
            last = priority
        self._chain_top[id(node)] = last
        return True

    def _wait(self, node: Call) -> bool:
        """`node`'s chain will be regrouped from its top: a canonical part below it,
        simplified already, is not part of the result."""
        for arg in node.args:
            if id(arg) in self._chain_top and arg.name == node.name:
                self.dropped.append(self._out[id(arg)])
        return False

    def _regrouped(self, top: Call, fringe: list[Expression]) -> tuple[Expression, bool]:
        """A chain out of canonical order, as canonicalize regroups it and fold_constants
        folds it: its operands (`fringe`, sorted, each simplified already) folded to the
        left, each new call folded; and whether a fold fired in it."""
        out = self.simplified(fringe[0])
        folded = id(fringe[0]) in self._folded
        for operand in fringe[1:]:
            call = with_args_rebound(top, (out, self.simplified(operand)))
            out, fired = self._fold(call, None)
            folded = folded or fired or id(operand) in self._folded
        return out, folded

    def _fold(self, call: Call, bound: Call | None) -> tuple[Expression, bool]:
        """`call` (the bound call `bound` over simplified arguments, or a new call) after
        fold_constants' rule, told to `on_new` unless it is the bound call itself; and
        whether the rule fired."""
        result = fold_rule(call)
        out = call if result is None else result.node
        if out is not call:
            self.fired = True
            self.dropped.extend(a for a in call.args if a is not out)
        if out is not bound:
            self.on_new(out)
        return out, out is not call
