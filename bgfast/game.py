"""Playing games and matches: the records they produce and the entry points.

A match is played between two bots sitting as player 0 and player 1.  Its
dice come from ``SeededDice(seed, index)`` (see :mod:`bgfast.dice`), so the
same ``(seed, index)`` replays the same match exactly, whichever process
plays it; a tournament's paired matches share an ``index`` with the seats
swapped.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np

from bgfast._core import game as _game
from bgfast.dice import Dice
from bgfast.errors import IllegalMoveError, InvalidSpecError
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import VARIANTS, Move, Position

PLAY_PYTHON = 3
CUBE_PYTHON = 4
CUBE_MET = 3
MAX_MATCH_LENGTH = 64
"""The longest match the core plays (the match equity tables reach 64 at most)."""


@dataclass(frozen=True)
class CubeAction:
    """One double in a game: who doubled (0 or 1) and whether it was taken."""

    by: int
    taken: bool
    beavered: bool = False


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a match.

    :ivar number: 1-based game number in the match.
    :ivar crawford: this was the Crawford game (no doubling allowed).
    :ivar cube: the cube value the game was played for (a passed double does not raise it).
    :ivar doubles: the cube actions, in order.
    :ivar points: points won by ``winner`` (cube x 1/2/3, after the Jacoby rule).
    :ivar winner: 0 or 1.
    :ivar kind: ``"single"``, ``"gammon"``, ``"backgammon"`` or ``"pass"``.
    :ivar score_after: the match score after the game, (player 0, player 1).
    :ivar plies: checker plays made in the game (both sides).
    """

    number: int
    crawford: bool
    cube: int
    doubles: tuple[CubeAction, ...]
    points: int
    winner: int
    kind: str
    score_after: tuple[int, int]
    plies: int = 0


@dataclass(frozen=True)
class MatchRecord:
    """A finished match (or, at length 0, one money game).

    :ivar length: match length in points, 0 = a money game.
    :ivar seed: the run seed; :ivar index: the dice stream index within the run.
    :ivar score: final score (player 0, player 1); a score past ``length`` is kept as is.
    :ivar winner: 0 or 1.
    :ivar games: every game, in order.
    """

    length: int
    seed: int
    index: int
    score: tuple[int, int]
    winner: int
    games: tuple[GameRecord, ...] = field(default_factory=tuple)

    @property
    def gammons(self) -> tuple[int, int]:
        """Gammons (not backgammons) won by (player 0, player 1)."""
        return (sum(1 for g in self.games if g.kind == "gammon" and g.winner == 0),
                sum(1 for g in self.games if g.kind == "gammon" and g.winner == 1))

    @property
    def backgammons(self) -> tuple[int, int]:
        """Backgammons won by (player 0, player 1)."""
        return (sum(1 for g in self.games if g.kind == "backgammon" and g.winner == 0),
                sum(1 for g in self.games if g.kind == "backgammon" and g.winner == 1))

    @property
    def cube_actions(self) -> int:
        """Doubles offered in the whole match."""
        return sum(len(g.doubles) for g in self.games)


# ---------------------------------------------------------------------- playing

def _met_arrays(met: MatchEquityTable, size: int = 64) -> tuple[list[list[float]], list[float]]:
    n = min(size, met.max_length + 1)
    pre = [[met.equity(a, b) for b in range(n)] for a in range(n)]
    post = [met.post_crawford(a) if a >= 1 else 1.0 for a in range(n)]
    return pre, post


def _as_bot(bot: object) -> object:
    """``bot``, if it is a bot object (names are resolved one layer up, by :func:`bgfast.bots.get_bot`)."""
    if isinstance(bot, str):
        raise InvalidSpecError(f"a bot object is needed here, got the name {bot!r}: "
                               f"use bgfast.bots.get_bot({bot!r})")
    if not hasattr(bot, "choose_move") and not hasattr(bot, "core_config"):
        raise InvalidSpecError(f"{bot!r} is not a bot: it has no choose_move method")
    return bot


class _PythonAdapter:
    """Turns the core's callbacks (bytes and tuples) into calls on a Python bot."""

    def __init__(self, bot: object) -> None:
        self.bot = bot

    @staticmethod
    def _match(state: _game._State, *, doubled: bool = False) -> MatchState:
        player, length, s0, s1, cube, owner, crawford, jacoby, _beaver, _max = state
        on_roll = 1 - player if doubled else player
        return MatchState(length=length, score=(s0, s1), cube_value=cube, cube_owner=owner,
                          crawford=crawford, player_on_roll=on_roll, turn=player,
                          double_offered=doubled, jacoby=jacoby and length == 0)

    def choose_play(self, board: bytes, d1: int, d2: int, state: _game._State) -> bytes:
        pos = Position._from_key(board)
        dice = Dice(d1, d2)
        match = dataclasses.replace(self._match(state), dice=(dice.high, dice.low))
        choice = self.bot.choose_move(pos, dice, match)  # type: ignore[attr-defined]
        if isinstance(choice, Move):
            return choice.position._key
        if isinstance(choice, Position):
            return choice._key
        if isinstance(choice, str):
            return pos.parse_move(choice, dice).position._key
        raise TypeError(f"choose_move must return a Move, a Position or notation, got {choice!r}")

    def illegal_play(self, board: bytes, d1: int, d2: int, result: bytes) -> int:
        raise IllegalMoveError(
            f"bot {self.bot!r} played to {Position._from_key(result).id()}, not a legal play "
            f"of {Dice(d1, d2)} in {Position._from_key(board).id()}"
        )

    def should_double(self, board: bytes, state: _game._State) -> bool:
        method = getattr(self.bot, "should_double", None)
        return bool(method(Position._from_key(board), self._match(state))) if method else False

    def accept_double(self, board: bytes, state: _game._State) -> int:
        method = getattr(self.bot, "accept_double", None)
        if method is None:
            return 1
        answer = method(Position._from_key(board), self._match(state, doubled=True))
        if isinstance(answer, bool):
            return int(answer)
        return int(answer)


def make_runner(bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
                jacoby: bool | None = None, met: MatchEquityTable | None = None) -> _game.MatchRunner:
    """The C match runner for two bots (built-in bots use their fast path)."""
    rules = rules or Rules()
    players = []
    uses_met = False
    for bot in (bot0, bot1):
        config = bot.core_config() if hasattr(bot, "core_config") else None
        if config is None:
            players.append((PLAY_PYTHON, CUBE_PYTHON, 0.0, _PythonAdapter(bot)))
        else:
            players.append((*config, None))
            uses_met |= config[1] == CUBE_MET
    table = None
    if uses_met and length > 0:
        table = _met_arrays(met or MatchEquityTable.load())
    use_jacoby = rules.jacoby if jacoby is None else jacoby
    runner_rules = (length, int(rules.crawford), int(use_jacoby and length == 0), int(rules.beaver),
                    rules.max_cube)
    return _game.MatchRunner(runner_rules, VARIANTS[rules.variant][1], players, table)


class MatchPlayer:
    """Plays matches of one pairing under fixed rules, reusing the C runner.

    >>> from bgfast.bots import get_bot
    >>> player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=3)
    >>> record = player.record(seed=1, index=0)
    >>> record.winner, max(record.score) >= 3
    (0, True)

    :param bot0: the bot in seat 0; :param bot1: the bot in seat 1 (bot objects, see
        :func:`bgfast.bots.get_bot`).
    :param length: match length, 0 = one money game.
    :raises InvalidSpecError: a negative or too long match length, rules that are not a
        :class:`~bgfast.match.Rules`, a table that is not a :class:`~bgfast.match.MatchEquityTable`.
    """

    def __init__(self, bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
                 met: MatchEquityTable | None = None) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= MAX_MATCH_LENGTH:
            raise InvalidSpecError(f"match length must be 0 (money) to {MAX_MATCH_LENGTH}, got {length!r}")
        if rules is not None and not isinstance(rules, Rules):
            raise InvalidSpecError(f"rules must be a Rules, got {rules!r}")
        if met is not None and not isinstance(met, MatchEquityTable):
            raise InvalidSpecError(f"met must be a MatchEquityTable (e.g. MatchEquityTable.load()), got {met!r}")
        self.length = length
        self.rules = rules or Rules()
        bot0, bot1 = (_as_bot(b) for b in (bot0, bot1))
        self._runner = make_runner(bot0, bot1, length=length, rules=self.rules, met=met)

    def play(self, seed: int, index: int) -> MatchSummary:
        """Play match ``index`` of run ``seed`` and return its summary (fast).

        :raises InvalidSpecError: a seed that is not a non-negative integer, or an
            index outside 0 .. 2**64 - 1 (the dice stream's 64-bit counter).
        """
        _check_seed_index(seed, index)
        return MatchSummary(*self._runner.play(int(seed), int(index)))

    def record(self, seed: int = 0, index: int = 0, *, dice: Sequence[int] | None = None) -> MatchRecord:
        """Play match ``index`` of run ``seed`` and return the full record, game by game.

        :param dice: scripted dice, rolled before the seeded stream takes over:
            a flat sequence of dice 1..6.  Each game opens with one die for
            player 0 then one for player 1 (ties re-rolled the same way); every
            later roll takes two.  :attr:`dice_left` tells how many went unused.
        :raises InvalidDiceError: a scripted die outside 1..6.
        """
        if dice is not None:
            for d in dice:
                Dice(d, d)
            self._runner.script(list(dice))
        else:
            self._runner.script([])
        summary = self.play(seed, index)
        games = tuple(
            GameRecord(number=i + 1, crawford=crawford, cube=cube,
                       doubles=tuple(CubeAction(by, resp != 0, resp == 2) for by, resp in doubles),
                       points=points, winner=winner, kind=kind, score_after=score_after, plies=plies)
            for i, (crawford, cube, doubles, points, winner, kind, score_after, plies)
            in enumerate(self._runner.games())
        )
        return MatchRecord(self.length, seed, index, (summary.score0, summary.score1), summary.winner, games)


    @property
    def dice_left(self) -> int:
        """Scripted dice of the last :meth:`record` call that were never rolled."""
        return int(self._runner.script_left())


class MatchSummary(NamedTuple):
    """The numbers a tournament stores for one match (seat 0 and seat 1)."""

    score0: int
    score1: int
    winner: int
    games: int
    gammons0: int
    gammons1: int
    backgammons0: int
    backgammons1: int
    doubles: int
    plies: int


def _check_seed_index(seed: object, index: object) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidSpecError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < 2**64:
        raise InvalidSpecError(f"match index must be an integer from 0 to 2**64 - 1, got {index!r}")


def play_match(bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
               seed: int = 0, index: int = 0, met: MatchEquityTable | None = None,
               dice: Sequence[int] | None = None) -> MatchRecord:
    """Play one match (length 0: one money game) and return its record.

    The dice are those of item ``index`` of run ``seed``, so the same arguments
    replay the same match.

    >>> from bgfast.bots import get_bot
    >>> a = play_match(get_bot("pubeval"), get_bot("pubeval"), length=5, seed=3)
    >>> a == play_match(get_bot("pubeval"), get_bot("pubeval"), length=5, seed=3)
    True
    """
    return MatchPlayer(bot0, bot1, length=length, rules=rules, met=met).record(seed, index, dice=dice)
