"""Plan nodes that cannot change once built: rules and the planner make new ones.

A plan is shared (by the optimizer's before and after, by traces, by Spark
fragments shipped to workers), so a node changed in place would change every
picture and every run that holds it. Each class's `__init__` fills the node;
when the outermost `__init__` returns, assignments raise. `replaced(**fields)`
is the one way to a node like another with some fields changed.
"""

from __future__ import annotations

import copy
import functools

from ..errors import PlanError

__all__ = ["FrozenNode"]


class FrozenNode:
    __frozen = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return

        @functools.wraps(init)
        def init_then_freeze(self, *args, **kw):
            init(self, *args, **kw)
            if type(self).__init__ is init_then_freeze:  # the outermost __init__ is done
                object.__setattr__(self, "_FrozenNode__frozen", True)

        cls.__init__ = init_then_freeze

    def __setattr__(self, name, value):
        if self.__frozen:
            raise PlanError(f"a {type(self).__name__} cannot change once built (setting "
                            f"{name!r}); build a new node, e.g. with with_new_children")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if self.__frozen:
            raise PlanError(f"a {type(self).__name__} cannot change once built (deleting "
                            f"{name!r})")
        object.__delattr__(self, name)

    def replaced(self, **fields) -> FrozenNode:
        """A copy of this node with `fields` set to new values."""
        node = copy.copy(self)
        for name, value in fields.items():
            object.__setattr__(node, name, value)
        return node
