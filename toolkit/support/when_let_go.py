"""Work done on objects when the caller lets go of the data they were made from.

A trace puts work off until it is read (a fused loop's branch codes, an evaluation's
sample), keeping its own handles on the caller's columns and result meanwhile: nothing
is copied, and while the caller keeps its data they cost nothing. When the caller lets
the data go, the work is done from those handles and they are let go: the trace then
holds what it would have made at once. The objects are held weakly, so a trace let go
first leaves nothing behind (many traces of one long-lived table keep no finalizer).
"""

from __future__ import annotations

import weakref

__all__ = ["when_let_go"]


def when_let_go(owners, targets: list, act) -> None:
    """Call `act(target)` for every target still alive when the first of `owners` (the
    weakly referable ones) is let go."""
    _WhenLetGo(owners, targets, act)


class _WhenLetGo:
    def __init__(self, owners, targets: list, act):
        self._act = act
        self._left = len(targets)
        self._targets = [weakref.ref(t, self._gone) for t in targets]
        self._finalizers = []
        for owner in owners:
            try:
                finalizer = weakref.finalize(owner, self._run)
            except TypeError:  # not weakly referable (a scalar): it holds nothing
                continue
            finalizer.atexit = False
            self._finalizers.append(finalizer)

    def _gone(self, _ref) -> None:
        self._left -= 1
        if self._left == 0:
            self._detach()

    def _run(self) -> None:
        self._detach()
        for ref in self._targets:
            target = ref()
            if target is not None:
                self._act(target)

    def _detach(self) -> None:
        for finalizer in self._finalizers:
            finalizer.detach()
