"""How a run shows its progress: the :class:`Reporter` interface the runner tells, a tqdm
progress bar (:class:`ProgressReporter`) and :class:`QuietReporter`; the runner itself never
prints.
"""
from __future__ import annotations

import sys
from typing import IO, Any, Protocol

from bgfast.terminal import progress_bar
from bgfast.tournament.standings import Standings

__all__ = ["ProgressReporter", "QuietReporter", "Reporter", "get_reporter"]


class Reporter(Protocol):
    """What a run tells as it goes; the runner itself never prints."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        """The run starts: ``total`` matches in the spec, ``done`` already in the file."""

    def on_chunk_end(self, matches: int, done: int) -> None:
        """A chunk of ``matches`` matches was saved; ``done`` are saved in all."""

    def on_status(self, text: str) -> None:
        """The run's standing after that chunk, one line: the LLR and its bounds in an SPRT
        run, else the leader's and the runner-up's shares of match wins (optional: the runner
        skips reporters without it)."""

    def on_finish(self, standings: Standings) -> None:
        """The run ended (finished, stopped by SPRT, or interrupted: ``standings`` is what is saved)."""


class QuietReporter:
    """Shows nothing."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        pass

    def on_chunk_end(self, matches: int, done: int) -> None:
        pass

    def on_status(self, text: str) -> None:
        pass

    def on_finish(self, standings: Standings) -> None:
        pass


class ProgressReporter:
    """A tqdm progress bar on stderr: matches done, matches/s, ETA, and the standing
    (the LLR and its bounds in an SPRT run, else the leader's and the runner-up's shares of
    match wins)."""

    def __init__(self, file: IO[str] | None = None) -> None:
        self._file = file
        self._bar: Any = None

    def on_start(self, spec: Any, total: int, done: int) -> None:
        self._bar = progress_bar(total=total, initial=done, unit=" matches", unit_scale=total >= 100_000,
                                 smoothing=0.05, desc=getattr(spec, "name", "tournament"),
                                 file=self._file or sys.stderr)

    def on_chunk_end(self, matches: int, done: int) -> None:
        if self._bar is not None:
            self._bar.update(matches)

    def on_status(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

    def on_finish(self, standings: Standings) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def get_reporter(name: str) -> Reporter:
    """A reporter by name: ``"progress"`` or ``"quiet"``.

    :raises ValueError: an unknown name.
    """
    reporters: dict[str, type[ProgressReporter | QuietReporter]] = {
        "progress": ProgressReporter, "quiet": QuietReporter}
    try:
        return reporters[name]()
    except KeyError:
        raise ValueError(f"unknown reporter {name!r}; choose from {', '.join(reporters)}") from None
