"""The full history of a match: every roll, every play and every cube action.

A :class:`~bgfast.game.MatchRecord` keeps only the results.  To get the
moves, :func:`play_match_with_history` plays the match again through the slow
Python path with a recording wrapper around each bot: the C loop is
deterministic given ``(seed, index)``, and a built-in bot answers the same
from Python as in C, so the replay is the same match.  The wrapper sees only
the decisions the loop asks for (a forced play or a dance asks nothing), so
the history is rebuilt turn by turn from the match's own dice stream and
checked against the record at the end of every game.

>>> from bgfast.bots import get_bot
>>> pubeval = get_bot("pubeval", cube="never")
>>> h = play_match_with_history(pubeval, pubeval, length=3, seed=2)
>>> h.record.score, len(h.games) == len(h.record.games)
((3, 0), True)
>>> first = h.games[0][0]
>>> first.player, first.action, str(first.dice), str(first.move)
(1, 'move', '51', '24/18')
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bgfast._core.rng import Stream
from bgfast.dice import Dice
from bgfast.game import MatchPlayer, MatchRecord
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Move, Position, starting_position

__all__ = ["Turn", "MatchHistory", "play_match_with_history"]

ACTIONS = ("move", "double", "take", "pass", "beaver")
"""The kinds of :class:`Turn`."""

_RESPONSES = ("pass", "take", "beaver")


@dataclass(frozen=True)
class Turn:
    """One action of a game: a roll and its play, a double, or the answer to a double.

    :ivar player: who acted, 0 or 1.
    :ivar action: ``"move"`` (a roll and its play, possibly empty when the roll
        cannot be played), ``"double"``, ``"take"``, ``"pass"`` or ``"beaver"``.
    :ivar position: the board before the action, from the acting player's view
        (side 1 = ``player``).
    :ivar dice: the roll, for ``"move"``; else None.
    :ivar move: the play, for ``"move"``; else None.
    :ivar cube: ``"double"``/``"pass"``: the value offered; ``"take"``/``"beaver"``:
        the cube value after the answer; ``"move"``: the cube value in play.
    """

    player: int
    action: str
    position: Position
    dice: Dice | None = None
    move: Move | None = None
    cube: int = 1


@dataclass(frozen=True)
class MatchHistory:
    """A match's record and, for each of its games, the turns in order.

    :ivar record: the results, as :meth:`~bgfast.game.MatchPlayer.record` gives them.
    :ivar games: one tuple of :class:`Turn` per game of ``record.games``.
    """

    record: MatchRecord
    games: tuple[tuple[Turn, ...], ...]


class _Event:
    __slots__ = ("kind", "player", "position", "dice", "move", "answer")

    def __init__(self, kind: str, player: int, position: Position, dice: Dice | None = None,
                 move: Move | None = None, answer: int = 0) -> None:
        self.kind, self.player, self.position = kind, player, position
        self.dice, self.move, self.answer = dice, move, answer


class _Recorder:
    """Wraps a bot for the Python path of the game loop and logs each decision asked of it."""

    def __init__(self, bot: object, seat: int, log: list[_Event]) -> None:
        self.bot = bot
        self.seat = seat
        self.log = log

    def core_config(self) -> None:
        return None

    def __repr__(self) -> str:
        return repr(self.bot)

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Move:
        choice = self.bot.choose_move(position, dice, match)  # type: ignore[attr-defined]
        move: Move | None
        if isinstance(choice, str):
            move = position.parse_move(choice, dice)
        else:
            target = choice.position if isinstance(choice, Move) else choice
            move = next((m for m in position.legal_moves(dice.high, dice.low) if m.position == target), None)
            if move is None:  # not legal: hand it on, the loop reports it
                return choice  # type: ignore[no-any-return]
        self.log.append(_Event("move", self.seat, position, dice, move))
        return move

    def should_double(self, position: Position, match: MatchState) -> bool:
        method = getattr(self.bot, "should_double", None)
        answer = bool(method(position, match)) if method else False
        self.log.append(_Event("offer", self.seat, position, answer=int(answer)))
        return answer

    def accept_double(self, position: Position, match: MatchState) -> int:
        method = getattr(self.bot, "accept_double", None)
        answer = int(method(position, match)) if method else 1
        self.log.append(_Event("answer", self.seat, position, answer=answer))
        return answer


def _dice_stream(seed: int, index: int, script: Sequence[int] | None) -> Iterator[int]:
    yield from script or ()
    stream = Stream(seed, index, 0)  # lane 0 is the dice of match ``index``
    while True:
        yield stream.die()


def play_match_with_history(bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
                            seed: int = 0, index: int = 0, met: MatchEquityTable | None = None,
                            dice: Sequence[int] | None = None) -> MatchHistory:
    """Play one match like :func:`bgfast.game.play_match` and keep every turn.

    Both bots are called from Python (a wrapper logs their decisions), so this
    is as slow as a Python bot; a match between deterministic bots is the
    same as the fast :func:`~bgfast.game.play_match` with the same arguments.

    :param dice: scripted dice, as for :meth:`bgfast.game.MatchPlayer.record`.
    :raises InvalidSpecError: a bad match length.
    :raises IllegalMoveError: a bot returned an illegal play.
    """
    rules = rules or Rules()
    log: list[_Event] = []
    player = MatchPlayer(_Recorder(bot0, 0, log), _Recorder(bot1, 1, log), length=length, rules=rules, met=met)
    record = player.record(seed, index, dice=dice)
    rolls = _dice_stream(seed, index, dice)
    events = iter(log)
    pending: list[_Event | None] = [next(events, None)]

    def take(kind: str, seat: int, position: Position) -> _Event | None:
        event = pending[0]
        if event is None or event.kind != kind or event.player != seat:
            return None
        if kind != "answer":
            assert event.position == position, "history out of step with the game"
        pending[0] = next(events, None)
        return event

    start = starting_position(rules.variant)
    games = []
    for game in record.games:
        turns = _replay_game(game, start, rolls, take)
        games.append(tuple(turns))
    assert pending[0] is None, "decisions left over after the last game"
    return MatchHistory(record, tuple(games))


def _replay_game(game: object, start: Position, rolls: Iterator[int], take) -> list[Turn]:  # type: ignore[no-untyped-def]
    turns: list[Turn] = []
    while True:
        a, c = next(rolls), next(rolls)
        if a != c:
            break
    turn = 0 if a > c else 1
    opening: Dice | None = Dice(a, c)
    pos = start
    cube, owner, plies = 1, -1, 0
    while True:
        if opening is None:
            offer = take("offer", turn, pos)
            if offer is not None and offer.answer:
                turns.append(Turn(turn, "double", pos, cube=cube * 2))
                answer = take("answer", 1 - turn, pos)
                assert answer is not None, "a double without an answer"
                kind = _answer_kind(game, turns)
                if kind == "pass":
                    turns.append(Turn(1 - turn, "pass", pos.swap_sides(), cube=cube * 2))
                    break
                cube *= 4 if kind == "beaver" else 2
                owner = 1 - turn
                turns.append(Turn(1 - turn, kind, pos.swap_sides(), cube=cube))
            dice = Dice(next(rolls), next(rolls))
        else:
            dice, opening = opening, None
        legal = pos.legal_moves(dice.high, dice.low)
        if len(legal) > 1:
            event = take("move", turn, pos)
            assert event is not None and event.dice == dice, "history out of step with the dice"
            move = event.move
        else:
            move = legal[0]
        turns.append(Turn(turn, "move", pos, dice, move, cube))
        plies += 1
        if move.position.checkers()[1] == 0:
            break
        pos = move.position.swap_sides()
        turn = 1 - turn
    assert plies == game.plies, "history out of step with the record"  # type: ignore[attr-defined]
    return turns


def _answer_kind(game: object, turns: list[Turn]) -> str:
    """The answer to the n-th double of ``game`` as the loop applied it (a beaver it does
    not allow counts as a take)."""
    n = sum(1 for t in turns if t.action == "double")
    action = game.doubles[n - 1]  # type: ignore[attr-defined]
    return "pass" if not action.taken else "beaver" if action.beavered else "take"
