"""The argument parser of every bgfast command line (``bgfast``, ``bgfast train``,
``python -m bgfast.engines.ubgi_server``): one home for how they treat bad arguments.

* An error is one line, ``bgfast: error: MESSAGE (see 'PROG --help')``, and exit status 2,
  like every other bgfast error (argparse prints the whole usage text first).
* Options are never abbreviated (``allow_abbrev=False``): ``--cube`` is not taken for
  ``--cubeful``, so a mistyped option, or one a later version adds, is an error instead of
  another option silently.

It is also the one home of how a command takes the signals that stop it
(:func:`stopped_by_signals`): Ctrl-C even when started in a script's background, SIGTERM
as Ctrl-C, and only the first of them.
"""
from __future__ import annotations

import argparse
import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any, NoReturn

from bgfast.errors import Terminated

__all__ = ["EXIT_USAGE", "Parser", "StopSignal", "stopped_by_signals"]

EXIT_USAGE = 2
"""The exit status of bad input, as argparse uses it."""


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line and which takes no
    abbreviated option; its sub-parsers (``add_subparsers``) are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"bgfast: error: {message} (see '{self.prog} --help')\n")


class StopSignal:
    """The signal that stopped a command (see :func:`stopped_by_signals`)."""

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        """The first SIGINT or SIGTERM received in the block, or None while none was."""

    @property
    def terminated(self) -> bool:
        """Whether it was SIGTERM (``kill PID``), not Ctrl-C."""
        return self.received == signal.SIGTERM


@contextlib.contextmanager
def stopped_by_signals(*, sigterm: bool) -> Iterator[StopSignal]:
    """Run a command's block so that Ctrl-C, and with ``sigterm`` SIGTERM, stop it cleanly.

    * SIGINT (Ctrl-C, ``kill -INT PID``) raises :class:`KeyboardInterrupt`, also in a
      command started with SIGINT ignored: a script's background job (``bgfast rollout
      ... &``) inherits it so from its shell, Python then sets no handler, and ``kill -INT``
      would do nothing;
    * with ``sigterm``, SIGTERM (``kill PID``) raises :class:`~bgfast.errors.Terminated`,
      a :class:`KeyboardInterrupt`: a long run stops as after a Ctrl-C, keeping its
      finished work (without, SIGTERM keeps its default action: the process ends);
    * only the first of them raises: later ones are ignored, so that a second Ctrl-C
      pressed while the finished work is saved or printed does not lose it (``kill -9``
      still ends the command at once).

    Yields a :class:`StopSignal` that tells which signal came first.  The handlers in
    place before the block come back after it; after a stop, the signals taken stay
    ignored instead: the command is ending, and a late Ctrl-C would otherwise end the
    process by the signal itself while it exits (Python restores SIGINT's default action
    then).  Outside the main thread, where Python sets no signal handler, it changes nothing.

    >>> with stopped_by_signals(sigterm=True) as stop:
    ...     stop.received is None
    True
    """
    stop = StopSignal()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def first_stops(signum: int, frame: FrameType | None) -> None:
        if stop.received is not None:
            return   # already stopping: let the finished work be saved and printed
        stop.received = signal.Signals(signum)
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    taken = [signal.SIGINT, signal.SIGTERM] if sigterm else [signal.SIGINT]
    previous = {signum: signal.signal(signum, first_stops) for signum in taken}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            if stop.received is not None:
                signal.signal(signum, signal.SIG_IGN)
            elif handler is not None:   # None: a handler set outside Python, which cannot be put back
                signal.signal(signum, handler)
