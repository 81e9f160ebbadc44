"""`with tk.trace() as t:` records what the engine does inside the block.

The tracer is an ordinary observer installed with `observe.observing`, so the
user's code in the block is unchanged and the engine never imports it. It keeps
the engine's event records as they are, in order: a trace is data (`to_json`,
`from_json`) that every renderer draws, live or loaded.
"""

from __future__ import annotations

import binascii
import contextlib
import json
import zlib
from typing import Iterator

import pyarrow as pa

from ..errors import TraceFormatError
from ..observe import EvalEvent, InvariantCheck, Observer, PassEvent, PlanRuleEvent, observing
from ..support import late
from .json_checks import check_trace_doc, check_trace_text, whole_number
from .json_steps import steps_from_doc, steps_to_doc

__all__ = ["Trace", "trace"]


class Trace(Observer):
    """The recorded steps: PassEvent, EvalEvent, InvariantCheck and PlanRuleEvent records."""

    def __init__(self, steps=None):
        self.steps: list = list(steps or [])

    # -- observer hooks: record, nothing more (tracing must stay cheap) --------------
    def on_pass(self, event: PassEvent) -> None:
        self.steps.append(event)

    def on_eval(self, event: EvalEvent) -> None:
        self.steps.append(event)

    def on_invariant(self, event: InvariantCheck) -> None:
        self.steps.append(event)

    def on_plan_rule(self, event: PlanRuleEvent) -> None:
        self.steps.append(event)

    # -- views -----------------------------------------------------------------------
    @property
    def passes(self) -> list[PassEvent]:
        return [s for s in self.steps if isinstance(s, PassEvent)]

    @property
    def evaluations(self) -> list[EvalEvent]:
        return [s for s in self.steps if isinstance(s, EvalEvent)]

    @property
    def invariant_checks(self) -> list[InvariantCheck]:
        return [s for s in self.steps if isinstance(s, InvariantCheck)]

    @property
    def plan_rules(self) -> list[PlanRuleEvent]:
        return [s for s in self.steps if isinstance(s, PlanRuleEvent)]

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def __getitem__(self, index):
        return self.steps[index]

    def summary(self) -> str:
        """One line: how many steps of each kind, changes, failures (kinds that ran)."""
        def count(n: int, noun: str, plural: str = "s") -> str:
            return f"{n:,} {noun}{plural if n != 1 else ''}"

        parts = []
        passes = self.passes
        if passes:
            changed = sum(1 for p in passes if p.changed)
            rewrites = sum(len(p.rewrites) for p in passes)
            parts.append(f"{count(len(passes), 'pass', 'es')} ({changed} changed, "
                         f"{count(rewrites, 'rewrite')})")
        evals = self.evaluations
        if evals:
            errors = sum(1 for e in evals if e.error is not None)
            parts.append(count(len(evals), "evaluation")
                         + (f" ({errors} failed)" if errors else ""))
        checks = self.invariant_checks
        if checks:
            failed = sum(1 for c in checks if not c.passed)
            parts.append(count(len(checks), "invariant check")
                         + (f" ({failed} failed)" if failed else ""))
        if self.plan_rules:
            parts.append(count(len(self.plan_rules), "plan rule"))
        return ", ".join(parts) or "nothing recorded"

    def __repr__(self) -> str:
        return f"<toolkit.Trace {len(self.steps)} steps: {self.summary()}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        return late.mimebundle(self)

    # -- traces are data -------------------------------------------------------------
    def to_json(self, indent: int | None = None) -> str:
        """The whole trace as JSON text; `Trace.from_json` reads it back."""
        return json.dumps(steps_to_doc(self.steps), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Trace":
        """A saved trace, checked whole first: a file from someone else is untrusted input.

        Anything that is not a trace `to_json` wrote raises one `TraceFormatError`
        naming what is wrong and where; a trace that loads renders everywhere.
        """
        check_trace_text(text)
        try:
            doc = json.loads(text, parse_int=whole_number)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise TraceFormatError(f"a trace must be JSON written by Trace.to_json: {exc}") \
                from None
        check_trace_doc(doc)
        try:
            return cls(steps_from_doc(doc))
        except TraceFormatError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError,
                zlib.error, binascii.Error, pa.ArrowException) as exc:
            raise TraceFormatError(f"not a valid exprscope trace: {type(exc).__name__}: "
                                   f"{str(exc)[:300]}") from None


@contextlib.contextmanager
def trace() -> Iterator[Trace]:
    """Record the passes, evaluations and checks the engine runs inside the block."""
    recorder = Trace()
    with observing(recorder):
        yield recorder
