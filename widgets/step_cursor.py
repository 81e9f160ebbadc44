"""Where the explorer stands in a trace: the state behind its buttons and slider.

Kept apart from the widgets so the stepping rules (bounds, "jump to the next
change") are plain Python that tests and the widgets share.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.tracing.steps import is_change

__all__ = ["StepCursor"]


class StepCursor:
    """An index into a list of steps that never leaves its bounds."""

    def __init__(self, steps: Sequence):
        self.steps = list(steps)
        self.index = 0

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def current(self):
        return self.steps[self.index] if self.steps else None

    @property
    def at_start(self) -> bool:
        return self.index == 0

    @property
    def at_end(self) -> bool:
        return self.index >= len(self.steps) - 1

    def go(self, index: int) -> int:
        """Move to `index`, clamped to the steps that exist."""
        self.index = max(0, min(int(index), len(self.steps) - 1)) if self.steps else 0
        return self.index

    def next(self) -> int:
        return self.go(self.index + 1)

    def previous(self) -> int:
        return self.go(self.index - 1)

    def next_change(self) -> int | None:
        """The index of the first changing step after the current one, if any."""
        for i in range(self.index + 1, len(self.steps)):
            if is_change(self.steps[i]):
                return i
        return None

    def previous_change(self) -> int | None:
        """The index of the last changing step before the current one, if any."""
        for i in range(self.index - 1, -1, -1):
            if is_change(self.steps[i]):
                return i
        return None
