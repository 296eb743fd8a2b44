"""What an outside engine did during play: decisions, time per decision, faults.

Each outside player (:class:`~bgfast.engines.base.OutsideBot`) keeps one
:class:`EngineCounters`.  A tournament worker takes the counts after each chunk
(:meth:`EngineCounters.take` returns them and starts again from zero), the parent adds
them up per player with ``+`` and saves them with the chunk, in the same transaction, so
a chunk that is lost and played again is counted once.  :meth:`EngineCounters.report`
gives the fields of ``bgfast report --json`` (zeros for the built-in bots).

>>> a = EngineCounters(decisions=2, decision_ms_total=3.0, decision_ms_max=2.0)
>>> b = EngineCounters(decisions=1, decision_ms_total=4.0, decision_ms_max=4.0, timeouts=1)
>>> (a + b).report()
{'decisions': 3, 'decision_ms_mean': 2.333, 'decision_ms_max': 4.0, 'restarts': 0, 'crashes': 0, 'timeouts': 1, 'illegal_answers': 0, 'forfeits': 0, 'cube_by_policy': 0}
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = ["REPORT_FIELDS", "EngineCounters"]

REPORT_FIELDS = ("decisions", "decision_ms_mean", "decision_ms_max", "restarts", "crashes", "timeouts",
                 "illegal_answers", "forfeits", "cube_by_policy")
"""The per-player fields of ``bgfast report --json`` that come from the counters."""


@dataclass
class EngineCounters:
    """Counts of one engine (mutable: the engine adds to it as it plays).

    :ivar decisions: answers the engine gave (checker plays and cube decisions); plays
        with a single legal choice are made without asking and not counted.
    :ivar decision_ms_total: wall time of those decisions, milliseconds (round trip).
    :ivar decision_ms_max: the longest one.
    :ivar restarts: times the engine was started again after a fault.
    :ivar crashes: faults where the process exited or closed its connection.
    :ivar timeouts: decisions with no answer within the time limit.
    :ivar illegal_answers: answers that were illegal or did not parse.
    :ivar forfeits: matches lost by forfeit after three faults of the same match.
    :ivar cube_by_policy: cube decisions that bgfast's default cube policy made because the
        engine does not make them (it answered ``unsupported``); not those of a ``cube``
        policy the player was given.
    """

    decisions: int = 0
    decision_ms_total: float = 0.0
    decision_ms_max: float = 0.0
    restarts: int = 0
    crashes: int = 0
    timeouts: int = 0
    illegal_answers: int = 0
    forfeits: int = 0
    cube_by_policy: int = 0

    def record(self, ms: float) -> None:
        """Count one decision that took ``ms`` milliseconds."""
        self.decisions += 1
        self.decision_ms_total += ms
        if ms > self.decision_ms_max:
            self.decision_ms_max = ms

    def count_fault(self, kind: str) -> None:
        """Count one fault of ``kind`` (``"crash"``, ``"timeout"`` or ``"illegal"``, as
        :attr:`bgfast.errors.EngineError.kind`)."""
        if kind == "timeout":
            self.timeouts += 1
        elif kind == "illegal":
            self.illegal_answers += 1
        else:
            self.crashes += 1

    @property
    def decision_ms_mean(self) -> float:
        """Mean milliseconds a decision (0 with none)."""
        return self.decision_ms_total / self.decisions if self.decisions else 0.0

    def __add__(self, other: EngineCounters) -> EngineCounters:
        return EngineCounters(
            decisions=self.decisions + other.decisions,
            decision_ms_total=self.decision_ms_total + other.decision_ms_total,
            decision_ms_max=max(self.decision_ms_max, other.decision_ms_max),
            restarts=self.restarts + other.restarts,
            crashes=self.crashes + other.crashes,
            timeouts=self.timeouts + other.timeouts,
            illegal_answers=self.illegal_answers + other.illegal_answers,
            forfeits=self.forfeits + other.forfeits,
            cube_by_policy=self.cube_by_policy + other.cube_by_policy,
        )

    def take(self) -> EngineCounters:
        """The counts so far, and start again from zero."""
        taken = dataclasses.replace(self)
        for f in dataclasses.fields(self):
            setattr(self, f.name, f.default)
        return taken

    def is_zero(self) -> bool:
        """True if nothing has been counted."""
        return self == EngineCounters()

    def to_dict(self) -> dict[str, Any]:
        """Every field, for storing (:meth:`from_dict` reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EngineCounters:
        """The counters :meth:`to_dict` wrote; unknown keys are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def report(self) -> dict[str, Any]:
        """The :data:`REPORT_FIELDS` (mean and max rounded to microseconds)."""
        return {
            "decisions": self.decisions,
            "decision_ms_mean": round(self.decision_ms_mean, 3),
            "decision_ms_max": round(self.decision_ms_max, 3),
            "restarts": self.restarts,
            "crashes": self.crashes,
            "timeouts": self.timeouts,
            "illegal_answers": self.illegal_answers,
            "forfeits": self.forfeits,
            "cube_by_policy": self.cube_by_policy,
        }
