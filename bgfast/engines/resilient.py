"""Playing one match with outside engines: replays after faults, forfeits after three.

A match's dice are a pure function of (run seed, match index), so a match that an engine
broke off (it crashed, hung, or answered something illegal or unparsable) is played
again from its start and is the same match.  :func:`play_resilient` does that: it tells
the outside players a match begins (:meth:`~bgfast.engines.base.OutsideBot.new_match`),
plays, and on an :class:`~bgfast.errors.EngineError` (the engine has already counted it
and will restart at its next decision) plays again; after :data:`MAX_ATTEMPTS` failed
attempts the match is a forfeit of the engine that failed last: in match play its
opponent wins the match, in a money game the engine loses a single game at the cube value
of the moment of the fault.  The result is one row, whatever happened, so no match is
counted twice.

>>> from bgfast.game import MatchSummary
>>> from bgfast.match import MatchState
>>> forfeit_summary(length=7, seat=0, match=MatchState(length=7, score=(3, 5)), games=4)
MatchSummary(score0=3, score1=7, winner=1, games=4, gammons0=0, gammons1=0, backgammons0=0, backgammons1=0, doubles=0, plies=0)
>>> forfeit_summary(length=0, seat=1, match=MatchState(cube_value=4, cube_owner=0), games=1).score0
4
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bgfast.engines.base import OutsideBot
from bgfast.errors import EngineError
from bgfast.game import MatchSummary
from bgfast.match import MatchState

__all__ = ["MAX_ATTEMPTS", "MAX_FORFEITS_IN_A_ROW", "Fault", "ResilientResult", "forfeit_summary", "play_resilient"]

log = logging.getLogger("bgfast.engines")

MAX_ATTEMPTS = 3
"""Attempts at one match before it is a forfeit."""
MAX_FORFEITS_IN_A_ROW = 5
"""Matches an outside player may forfeit in a row, finishing none between them, before a
tournament stops (its finished chunks kept): five forfeits in a row are fifteen faults in a
row, an engine that cannot play rather than one that fails now and then.  The tournament
counts them over its matches in schedule order (:mod:`bgfast.tournament.runner`), so
whether, and at which match, a run stops does not depend on the number of workers."""


@dataclass(frozen=True)
class Fault:
    """One engine fault that stopped an attempt at a match.

    :ivar seat: the seat of the engine that failed.
    :ivar kind: ``"crash"``, ``"timeout"`` or ``"illegal"``.
    :ivar message: what happened, one line.
    """

    seat: int
    kind: str
    message: str


@dataclass(frozen=True)
class ResilientResult:
    """What :func:`play_resilient` returns.

    :ivar summary: the match's row (a forfeit's, after :data:`MAX_ATTEMPTS` faults).
    :ivar faults: the faults of the failed attempts, in order.
    :ivar forfeit: the seat that forfeited, or None.
    """

    summary: MatchSummary
    faults: tuple[Fault, ...] = ()
    forfeit: int | None = None


def forfeit_summary(*, length: int, seat: int, match: MatchState | None, games: int) -> MatchSummary:
    """The row of a match that ``seat`` forfeits, from the match state of its last fault.

    Match play: the opponent's score becomes the match length (it wins the match), the
    forfeiting side keeps its score.  Money play: the opponent wins a single game at the
    cube value of that moment.

    :param games: the games begun in the failed attempt (at least 1 is counted).
    """
    winner = 1 - seat
    state = match if match is not None else MatchState(length=length)
    if length > 0:
        score = list(state.score)
        score[winner] = max(length, score[winner])
        games = max(1, games)
    else:
        score = [0, 0]
        score[winner] = state.cube_value
        games = 1
    return MatchSummary(score[0], score[1], winner, games, 0, 0, 0, 0, 0, 0)


def _outside(bot: object) -> object:
    """``bot``, or the outside player a wrapper (``.inner``, e.g. a recorder) holds."""
    for _ in range(8):
        if isinstance(bot, OutsideBot) or not hasattr(bot, "inner"):
            break
        bot = bot.inner
    return bot


def play_resilient(play: Callable[[], MatchSummary], bots: Sequence[object], *, length: int,
                   attempts: int = MAX_ATTEMPTS) -> ResilientResult:
    """Play a match with ``play()`` until it finishes or ``attempts`` attempts have failed.

    :param play: plays the whole match from its start (e.g. ``lambda:
        match_player.play(seed, index)``) and returns its summary.
    :param bots: the bots in seat 0 and seat 1; those with a ``new_match`` method (outside
        players, recorders) are told of each new attempt, and the outside player that
        forfeits (or the one a wrapper holds as ``inner``) has its ``forfeits`` counter raised.
    :param length: the match length (0 = a money game).
    :raises EngineError: a fault that names no seat (it cannot be charged to a player).
    :raises EngineStartError: an engine that cannot be started at all.
    """
    faults: list[Fault] = []
    last: EngineError | None = None
    for attempt in range(attempts):
        for bot in bots:
            start = getattr(bot, "new_match", None)  # outside players and recorders of them
            if callable(start):
                start()
        try:
            return ResilientResult(play(), tuple(faults))
        except EngineError as exc:
            if exc.seat not in (0, 1):
                raise
            last = exc
            faults.append(Fault(exc.seat, exc.kind, " ".join(str(exc).split())))
            log.warning("attempt %d of %d failed: %s (%s, seat %d)%s", attempt + 1, attempts, exc,
                        exc.kind, exc.seat, "; playing the match again" if attempt + 1 < attempts else "")
    assert last is not None and last.seat is not None
    seat = last.seat
    loser = _outside(bots[seat])
    games = 1
    if isinstance(loser, OutsideBot):
        loser.counters.forfeits += 1
        games = loser.games_started
    match = last.match if isinstance(last.match, MatchState) else None
    log.warning("match forfeited by seat %d (engine %r) after %d faults", seat,
                getattr(loser, "label", None) or last.engine, len(faults))
    return ResilientResult(forfeit_summary(length=length, seat=seat, match=match, games=games),
                           tuple(faults), seat)
