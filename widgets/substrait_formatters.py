"""IPython's display of Substrait messages, registered without loading them.

The formatters name the substrait package's ExtendedExpression and Plan by
module and class, so `%load_ext widgets` imports neither protobuf nor the
reader; the first message displayed loads `substrait_display`, which draws it.
"""

from __future__ import annotations

from toolkit.support import late

# the reader carries protobuf and the substrait package: loaded on the first message shown
substrait_display = late.module("widgets.substrait_display")

__all__ = ["register_substrait_formatters"]

_MESSAGES = (("substrait.extended_expression_pb2", "ExtendedExpression"),
             ("substrait.plan_pb2", "Plan"))


def register_substrait_formatters(ip) -> None:
    formatter = ip.display_formatter.mimebundle_formatter
    for module, name in _MESSAGES:
        formatter.for_type_by_name(module, name, _format_substrait)


def _format_substrait(message, include=None, exclude=None):
    return substrait_display.substrait_mimebundle(message)
