"""How a command takes the signals that stop it: bgfast.command_line.stopped_by_signals.

The commands' behaviour (a rollout's result kept, status 130 or 143) is tested through the
command line in test_rollout_robust.py and test_store_resume.py; these tests pin the helper's
promises in this process, with the handlers put back after each.
"""
from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from bgfast.command_line import stopped_by_signals
from bgfast.errors import Terminated


@pytest.fixture
def handlers() -> Iterator[None]:
    """This process's SIGINT and SIGTERM handlers, put back after the test."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_ctrl_c_ignored_when_started_is_taken_back_and_only_the_first_one_raises(handlers: None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # as a script's background job starts
    with pytest.raises(KeyboardInterrupt):
        with stopped_by_signals(sigterm=False) as stop:
            try:
                signal.raise_signal(signal.SIGINT)
            finally:   # the finished work is gathered here: more Ctrl-Cs do not cut it
                signal.raise_signal(signal.SIGINT)
                signal.raise_signal(signal.SIGINT)
    assert stop.received == signal.SIGINT and not stop.terminated
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN   # the command is ending: a late one is ignored


def test_sigterm_raises_terminated_only_when_asked_and_the_handlers_come_back_after_a_block_not_stopped(
        handlers: None) -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with stopped_by_signals(sigterm=True) as stop:
        pass
    assert stop.received is None
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    with stopped_by_signals(sigterm=False):
        assert signal.getsignal(signal.SIGTERM) == before[1]   # left to its default action
    with pytest.raises(Terminated):
        with stopped_by_signals(sigterm=True) as stop:
            signal.raise_signal(signal.SIGTERM)
    assert stop.terminated and stop.received == signal.SIGTERM
