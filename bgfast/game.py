"""Playing games and matches over the C game loop: the records they produce, their history.

A match is played between two bots sitting as player 0 and player 1, entirely in
the compiled loop (:mod:`bgfast._core.game`) for the built-in bots, through
callbacks for bots written in Python.  Its dice come from the xoshiro256** stream
of ``(seed, index)`` (:mod:`bgfast._core.rng`: the run seed through
``numpy.random.SeedSequence``, the match index and a lane), so the same
``(seed, index)`` replays the same match exactly, whichever process plays it; a
tournament's paired matches share an ``index`` with the seats swapped.

What a match leaves:

* :class:`MatchSummary` -- the numbers a tournament stores (:meth:`MatchPlayer.play`);
* :class:`MatchRecord` -- the results game by game (:meth:`MatchPlayer.record`);
* :class:`MatchHistory` -- the record and every turn: each roll and its play, each
  double and its answer (:meth:`MatchPlayer.history`, :func:`play_match_with_history`).
  The loop writes the turns down as it plays them, so the history is the played match
  itself, for every bot and rule option.

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

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bgfast._core import game as _game
from bgfast._core.cube import Met
from bgfast._core.evaluator import CoreEvaluator
from bgfast._core.game import CubeKind, PlayKind, TurnAction
from bgfast.dice import Dice
from bgfast.errors import IllegalMoveError, InvalidPositionError, InvalidSpecError
from bgfast.evaluator import default_evaluator
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import VARIANTS, CheckerMove, Move, Position
from bgfast.validation import whole_number

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "ACTIONS", "MAX_MATCH_LENGTH", "CoreConfig", "CubeAction", "GameRecord", "MatchHistory", "MatchPlayer",
    "JUDGED_COLUMNS", "MatchRecord", "MatchSummary", "Turn", "decisions", "failed_bot", "make_runner", "never_doubles",
    "play_match",
    "play_match_with_history", "play_matches", "position_played",
]

MAX_MATCH_LENGTH = 64
"""The longest match the core plays (the match equity tables reach 64 at most)."""

JUDGED_COLUMNS = ("luck0", "luck1", "checker_error0", "checker_error1", "checker_decisions0",
                  "checker_decisions1", "cube_error0", "cube_error1", "cube_decisions0", "cube_decisions1")
"""A match's judged figures (:meth:`MatchPlayer.judged`), each seat's in its own view: the
summed luck of its rolls, the summed error and the count of its unforced checker plays and
of its close or actual cube decisions.  Luck is in the result's unit (money: points; match
play: match winning chance); errors are normalized as gnubg's error rates are (money: points
per unit of the cube; match play: EMG), so their rates are ``bgfast analyse``'s mEMG."""

ACTIONS = ("move", "double", "take", "pass", "beaver")
"""The kinds of :class:`Turn`, in the order of the core's :class:`~bgfast._core.game.TurnAction`."""


class CoreConfig(NamedTuple):
    """How a built-in bot plays in the C game loop (its :meth:`~bgfast.bots.Bot.core_config`).

    >>> CoreConfig(PlayKind.PLAY_PUBEVAL, CubeKind.CUBE_KEITH).cube.name
    'CUBE_KEITH'
    """

    play: PlayKind
    """How it chooses its checker plays."""
    cube: CubeKind
    """How it handles the cube."""
    cube_efficiency: float = 0.68
    """Janowski's cube efficiency ``x`` of the Janowski and MET policies."""
    evaluator: CoreEvaluator | None = None
    """The evaluator it plays, doubles and measures luck by; None: the default (the heuristic)."""
    seed: int = 0
    """The bot's own seed (its ``seed`` option, 0 or more): its random choices in a match come
    from the match's stream for its seat moved by this seed (taken modulo 2**62), so that
    random bots of two seeds play differently on the same dice; 0 leaves the seat's stream."""


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
    :ivar kind: ``"single"``, ``"gammon"``, ``"backgammon"`` or ``"pass"``; ``"resign"`` for a
        game that ended by a resignation, which only a match read from a file has
        (:mod:`bgfast.formats.sgf`, :mod:`bgfast.formats.mat`; ``points`` is the cube times
        1, 2 or 3).
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

    :ivar record: the results, as :meth:`MatchPlayer.record` gives them.
    :ivar games: one tuple of :class:`Turn` per game of ``record.games``.
    """

    record: MatchRecord
    games: tuple[tuple[Turn, ...], ...]


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


# ---------------------------------------------------------------------- the players

def _as_bot(bot: object) -> object:
    """``bot``, if it is a bot object (names are resolved one layer up, by :func:`bgfast.bots.get_bot`)."""
    if isinstance(bot, str):
        raise InvalidSpecError(f"a bot object is needed here, got the name {bot!r}: "
                               f"use bgfast.bots.get_bot({bot!r})")
    if not hasattr(bot, "choose_move") and not hasattr(bot, "core_config"):
        raise InvalidSpecError(f"{bot!r} is not a bot: it has no choose_move method")
    return bot


_FAILED_BOT = "_bgfast_bot"
"""The attribute of an exception that names the bot whose method raised it (see :func:`failed_bot`)."""


def failed_bot(exc: BaseException) -> object | None:
    """The Python bot whose own code raised ``exc`` while a match was played (its
    ``choose_move``, ``should_double`` or ``accept_double`` raised, or returned no play or
    an illegal one), or None if ``exc`` did not come from a bot.  The exception itself is
    the bot's, unchanged: callers that know the bots' names can say which one failed."""
    return getattr(exc, _FAILED_BOT, None)


@contextlib.contextmanager
def _blamed(bot: object) -> Iterator[None]:
    """Mark an exception raised inside as ``bot``'s (see :func:`failed_bot`) and let it go on."""
    try:
        yield
    except Exception as exc:
        if failed_bot(exc) is None:
            with contextlib.suppress(AttributeError, TypeError):  # an exception that takes no attributes
                setattr(exc, _FAILED_BOT, bot)
        raise


def position_played(bot: object, choice: object, position: Position, dice: Dice) -> Position:
    """The position ``bot``'s ``choose_move`` answer ``choice`` plays to: a Move's, a
    Position, or move notation read for ``dice`` in ``position``.

    :raises TypeError: an answer of another type (None, a number, a list...), named as
        the bot's: ``choose_move`` must return a Move, a Position or move notation.
    :raises InvalidMoveError: notation that does not parse.
    """
    if isinstance(choice, Move):
        return choice.position
    if isinstance(choice, Position):
        return choice
    if isinstance(choice, str):
        return position.parse_move(choice, dice).position
    what = "None" if choice is None else f"{choice!r} (a {type(choice).__name__})"
    raise TypeError(f"{type(bot).__qualname__}.choose_move returned {what}, not a Move: a bot's choose_move "
                    "must return a Move, a Position or move notation")


def cube_answer(bot: object, answer: object) -> int:
    """``bot``'s ``accept_double`` answer as the core's response: a
    :class:`~bgfast.bots.base.CubeResponse` or its value (True takes, False passes).

    :raises TypeError: an answer of another type (``"maybe"``, None...), named as the bot's.
    :raises ValueError: a number that is no response (``7``).
    """
    from bgfast._core.cube import CubeAnswer     # CubeResponse's values (bgfast.bots is a layer above)

    responses = {int(CubeAnswer.RESPONSE_PASS), int(CubeAnswer.RESPONSE_TAKE), int(CubeAnswer.RESPONSE_BEAVER)}
    if isinstance(answer, (bool, int)) and int(answer) in responses:
        return int(answer)
    error = ValueError if isinstance(answer, int) else TypeError
    raise error(f"{type(bot).__qualname__}.accept_double returned {answer!r}, not a CubeResponse: a bot's "
                "accept_double must return CubeResponse.TAKE, PASS or BEAVER (or True to take, False to pass)")


class _PythonAdapter:
    """Turns the core's callbacks (bytes and tuples) into calls on a Python bot; what the
    bot raises is marked as its own (:func:`failed_bot`)."""

    def __init__(self, bot: object) -> None:
        self.bot = bot

    @staticmethod
    def _match(state: _game._State, *, doubled: bool = False, dice: tuple[int, int] = (0, 0)) -> MatchState:
        player, length, s0, s1, cube, owner, crawford, jacoby, _beaver, _max = state
        on_roll = 1 - player if doubled else player
        return MatchState._from_valid_fields(length, (s0, s1), cube, owner, crawford, on_roll, player, doubled,
                                             dice, bool(jacoby and length == 0))

    def choose_play(self, board: bytes, d1: int, d2: int, state: _game._State) -> bytes:
        pos = Position._from_valid_bytes(board)
        dice = Dice(d1, d2)
        match = self._match(state, dice=(dice.high, dice.low))
        with _blamed(self.bot):
            choice = self.bot.choose_move(pos, dice, match)  # type: ignore[attr-defined]
            return position_played(self.bot, choice, pos, dice).to_bytes()

    def illegal_play(self, board: bytes, d1: int, d2: int, result: bytes) -> int:
        with _blamed(self.bot):
            raise IllegalMoveError(
                f"bot {self.bot!r} played to {Position._from_valid_bytes(result).id()}, not a legal play "
                f"of {Dice(d1, d2)} in {Position._from_valid_bytes(board).id()}"
            )

    def should_double(self, board: bytes, state: _game._State) -> bool:
        method = getattr(self.bot, "should_double", None)
        with _blamed(self.bot):
            return bool(method(Position._from_valid_bytes(board), self._match(state))) if method else False

    def accept_double(self, board: bytes, state: _game._State) -> int:
        method = getattr(self.bot, "accept_double", None)
        if method is None:
            return 1
        with _blamed(self.bot):
            return cube_answer(self.bot, method(Position._from_valid_bytes(board), self._match(state, doubled=True)))


def _config(bot: object) -> CoreConfig | None:
    config = bot.core_config() if hasattr(bot, "core_config") else None
    return None if config is None else CoreConfig(*config)


def _core_rules(length: int, rules: Rules, jacoby: bool | None) -> tuple[int, int, int, int, int, int]:
    """``(length, crawford, jacoby, beaver, max_cube, dead_cube_allowed)`` as the core takes
    them; ``jacoby`` overrides ``rules.jacoby`` (a :class:`MatchState` carries its own), money
    play only."""
    use_jacoby = rules.jacoby if jacoby is None else jacoby
    return (length, int(rules.crawford), int(use_jacoby and length == 0), int(rules.beaver), rules.max_cube,
            int(rules.dead_cube == "allow"))


def _core_player(config: CoreConfig) -> tuple[int, int, float, CoreEvaluator, None, int]:
    return (config.play, config.cube, config.cube_efficiency, config.evaluator or default_evaluator(), None,
            config.seed % 2**62)


_BY_TABLE = (CubeKind.CUBE_MET, CubeKind.CUBE_NEVER_MET)
"""The cube policies that read the match equity table (for the cube, or the checker play only)."""


def _core_met(uses_met: bool, length: int, met: MatchEquityTable | None) -> Met | None:
    return (met or MatchEquityTable.load()).core_table if uses_met and length > 0 else None


def never_doubles(bot: object) -> bool:
    """True for a bot whose cube policy is ``"never"`` (``bot.cube``): it never doubles and
    always takes, as every bgfast bot and cube policy of that name.

    >>> from bgfast.bots import get_bot
    >>> never_doubles(get_bot("pubeval", cube="never")), never_doubles(object())
    (True, False)
    """
    return getattr(bot, "cube", None) == "never"


def _python_cube_kind(bot: object) -> CubeKind:
    """How the loop makes the cube actions of a bot written in Python: ``CUBE_NEVER`` for one
    that :func:`never_doubles`, so that the loop answers for it and a judge counts
    no double of its to make (its answers to doubles are judged as anyone's); ``CUBE_PYTHON``
    (asked back) for any other."""
    return CubeKind.CUBE_NEVER if never_doubles(bot) else CubeKind.CUBE_PYTHON


def make_runner(bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
                jacoby: bool | None = None, met: MatchEquityTable | None = None) -> _game.MatchRunner:
    """The C match runner for two bots under ``rules`` (built-in bots use their fast path).

    A bot without a :meth:`~bgfast.bots.Bot.core_config` is called back from the loop;
    every player gets an evaluator (its own, or :func:`~bgfast.evaluator.default_evaluator`)
    for its cube decisions and for measuring luck.
    """
    rules = rules or Rules()
    players: list[tuple[int, int, float, CoreEvaluator, _PythonAdapter | None]
                  | tuple[int, int, float, CoreEvaluator, None, int]] = []
    uses_met = False
    for bot in (bot0, bot1):
        config = _config(bot)
        if config is None:
            players.append((PlayKind.PLAY_PYTHON, _python_cube_kind(bot), 0.0, default_evaluator(), _PythonAdapter(bot)))
        else:
            players.append(_core_player(config))
            uses_met |= config.cube in _BY_TABLE
    return _game.MatchRunner(_core_rules(length, rules, jacoby), VARIANTS[rules.variant][1], players,
                             _core_met(uses_met, length, met))


def decisions(config: CoreConfig, *, length: int = 0, rules: Rules | None = None, jacoby: bool | None = None,
              met: MatchEquityTable | None = None) -> _game.Decisions:
    """The core's single decisions (a play, a double, an answer) of a built-in bot, under ``rules``:
    what :class:`~bgfast.bots.CoreBot` answers from Python, by the same functions as the loop."""
    return _game.Decisions(_core_rules(length, rules or Rules(), jacoby), _core_player(config),
                           _core_met(config.cube in _BY_TABLE, length, met))


# ---------------------------------------------------------------------- the history

def _turns_of_game(rows: NDArray[np.void]) -> tuple[Turn, ...]:
    """The :class:`Turn` objects of one game's rows of :data:`bgfast._core.game.TURN_DTYPE`."""
    turns = []
    for row in rows:
        position = Position._from_valid_bytes(row["before"].tobytes())
        action = int(row["action"])
        if action == TurnAction.ACTION_MOVE:
            dice = Dice(int(row["d1"]), int(row["d2"]))
            hit = int(row["hit"])
            steps = tuple(CheckerMove(int(row["src"][k]), int(row["dst"][k]), bool(hit >> k & 1))
                          for k in range(int(row["nsteps"])))
            move = Move(position, Position._from_valid_bytes(row["after"].tobytes()), dice, steps)
            turns.append(Turn(int(row["player"]), "move", position, dice, move, int(row["cube"])))
        else:
            turns.append(Turn(int(row["player"]), ACTIONS[action], position, cube=int(row["cube"])))
    return tuple(turns)


def _history(record: MatchRecord, rows: NDArray[np.void]) -> MatchHistory:
    games = tuple(_turns_of_game(rows[rows["game"] == g]) for g in range(len(record.games)))
    return MatchHistory(record, games)


# ---------------------------------------------------------------------- playing

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

    def play(self, seed: int, index: int, *, start: Position | None = None) -> MatchSummary:
        """Play match ``index`` of run ``seed`` and return its summary (fast).

        :param start: the position the first game starts from, player 1 on roll (side 1
            of ``start``; player 0 made the move before), the cube centred; later games
            start from the opening roll.  None: every game starts from the opening roll.
        :raises InvalidSpecError: a seed that is not a non-negative integer, or an
            index outside 0 .. 2**64 - 1 (the dice stream's 64-bit counter).
        :raises InvalidPositionError: a ``start`` no game reaches (:meth:`Position.unreachable`:
            one where neither side could ever move would never end).
        """
        _check_seed_index(seed, index)
        if start is None:
            return MatchSummary(*self._runner.play(int(seed), int(index)))
        _check_start(start)
        return MatchSummary(*self._runner.play(int(seed), int(index), start.to_bytes(), 1))

    def _script(self, dice: Sequence[int] | None) -> None:
        if dice is not None:
            for d in dice:
                Dice(d, d)  # raises InvalidDiceError
            self._runner.script(list(dice))
        else:
            self._runner.script([])

    def _record(self, seed: int, index: int, start: Position | None = None) -> MatchRecord:
        summary = self.play(seed, index, start=start)
        games = tuple(
            GameRecord(number=i + 1, crawford=crawford, cube=cube,
                       doubles=tuple(CubeAction(by, resp != 0, resp == 2) for by, resp in doubles),
                       points=points, winner=winner, kind=kind, score_after=score_after, plies=plies)
            for i, (crawford, cube, doubles, points, winner, kind, score_after, plies)
            in enumerate(self._runner.games())
        )
        return MatchRecord(self.length, seed, index, (summary.score0, summary.score1), summary.winner, games)

    def record(self, seed: int = 0, index: int = 0, *, dice: Sequence[int] | None = None) -> MatchRecord:
        """Play match ``index`` of run ``seed`` and return the full record, game by game.

        :param dice: scripted dice, rolled before the seeded stream takes over:
            a flat sequence of dice 1..6.  Each game opens with one die for
            player 0 then one for player 1 (ties re-rolled the same way); every
            later roll takes two.  :attr:`dice_left` tells how many went unused.
        :raises InvalidDiceError: a scripted die outside 1..6.
        """
        self._script(dice)
        return self._record(seed, index)

    def turns(self, seed: int = 0, index: int = 0, *, dice: Sequence[int] | None = None,
              start: Position | None = None) -> tuple[MatchRecord, NDArray[np.void]]:
        """Play match ``index`` of run ``seed``; its record and every turn as the loop wrote it down.

        :param start: where the first game starts, as for :meth:`play`.
        :returns: ``(record, turns)``; ``turns`` an array of
            :data:`bgfast._core.game.TURN_DTYPE`, one row per action in order (``game``
            is the index of the game in ``record.games``), for bulk use (training data).
        :raises InvalidDiceError: a scripted die outside 1..6.
        :raises InvalidPositionError: a ``start`` no game reaches, as for :meth:`play`.
        """
        self._script(dice)
        self._runner.record_turns(True)
        try:
            record = self._record(seed, index, start)
            return record, self._runner.turns()
        finally:
            self._runner.record_turns(False)

    def history(self, seed: int = 0, index: int = 0, *, dice: Sequence[int] | None = None) -> MatchHistory:
        """Play match ``index`` of run ``seed`` and keep every turn (see :class:`MatchHistory`).

        The same match as :meth:`record` with the same arguments, at the same speed
        plus the cost of the turns' objects.

        :raises InvalidDiceError: a scripted die outside 1..6.
        """
        record, rows = self.turns(seed, index, dice=dice)
        return _history(record, rows)

    def history_from(self, position: Position, seed: int = 0, index: int = 0) -> MatchHistory:
        """The match (or money game) ``index`` of run ``seed`` whose first game starts from
        ``position`` (see :meth:`play`'s ``start``), with every turn kept; as a tournament
        plays it from an opening.

        :raises InvalidSpecError: a bad seed or index.
        :raises InvalidPositionError: a ``position`` no game reaches, as for :meth:`play`.
        """
        record, rows = self.turns(seed, index, start=position)
        return _history(record, rows)

    def set_judge(self, evaluator: CoreEvaluator | None, cube_efficiency: float = 0.68, *,
                  luck_filter: int = 0) -> None:
        """Judge the next matches with ``evaluator`` (None: no judge): each side's luck and
        errors, read after each match with :meth:`judged` (see
        :meth:`bgfast._core.game.MatchRunner.set_judge`: luck in points (money) or match
        winning chance through the default table, errors normalized as gnubg's (points per
        unit of the cube, or EMG); ``luck_filter``: plays of each roll
        a neural judge's luck measure values, 0 all).

        :raises InvalidMetError: a match longer than the table."""
        if evaluator is not None and self.length > 0:
            MatchEquityTable.load().check_length(self.length)
        met = _core_met(True, self.length, None) if evaluator is not None else None
        self._runner.set_judge(evaluator, met, cube_efficiency, luck_filter)

    def judged(self) -> tuple[float, ...]:
        """The judge's figures of the last match played: ``JUDGED_COLUMNS`` in order."""
        return tuple(self._runner.judged())

    @property
    def dice_left(self) -> int:
        """Scripted dice of the last :meth:`record` call that were never rolled."""
        return int(self._runner.script_left())


def _check_start(start: Position) -> None:
    """Refuse a start no game reaches (:meth:`Position.unreachable`).

    :raises InvalidPositionError: such a start."""
    unreachable = start.unreachable()
    if unreachable is not None:
        raise InvalidPositionError(f"start {start.id()} {unreachable}")


def _check_seed_index(seed: object, index: object) -> None:
    whole_number(seed, "seed", low=0, error=InvalidSpecError)
    whole_number(index, "match index", low=0, high=2**64 - 1, error=InvalidSpecError)


def play_matches(players: Sequence[MatchPlayer], seed: int, which: Sequence[int] | NDArray[np.integer],
                 indices: Sequence[int] | NDArray[np.integer], *, starts: Sequence[Position] = (),
                 start_of: Sequence[int] | NDArray[np.integer] | None = None,
                 judged: NDArray[np.float64] | None = None) -> NDArray[np.int64]:
    """Play match ``indices[i]`` of run ``seed`` with ``players[which[i]]``, for each i in
    order, in one call into the C loop: what :meth:`MatchPlayer.play` gives match by match,
    without the call from Python a match (a tournament's worker plays its chunks so).

    >>> from bgfast.bots import get_bot
    >>> pubeval, rand = get_bot("pubeval"), get_bot("random")
    >>> pair = [MatchPlayer(pubeval, rand, length=3), MatchPlayer(rand, pubeval, length=3)]
    >>> rows = play_matches(pair, 1, [0, 1, 0], [5, 5, 6])
    >>> rows.shape
    (3, 10)
    >>> MatchSummary(*rows[1].tolist()) == pair[1].play(1, 5)
    True

    :param which: for each match, the index into ``players`` of who plays it.
    :param indices: the matches' indices (their dice streams), 0 .. 2**64 - 1.
    :param starts: positions first games start from, as :meth:`MatchPlayer.play`'s ``start``;
        ``start_of[i]`` is the index into ``starts`` of match i's, -1 for the opening roll
        (without ``start_of``, every match starts with the opening roll).
    :param judged: filled, when given, with each match's judged figures (shape
        ``(len(indices), 10)``, float64, the columns :data:`JUDGED_COLUMNS`; zeros from a
        player without a judge, see :meth:`MatchPlayer.set_judge`).
    :returns: shape ``(len(indices), 10)``, int64: a row a match, the fields of
        :class:`MatchSummary` in order.
    :raises InvalidSpecError: a bad seed, an index outside 0 .. 2**64 - 1, a ``which`` or
        ``start_of`` entry with nothing at that index, or sequences of different lengths.
    :raises InvalidPositionError: a start no game reaches (:meth:`MatchPlayer.play`).
    """
    whole_number(seed, "seed", low=0, error=InvalidSpecError)
    for start in starts:
        _check_start(start)
    numbers = {"which": which, "indices": indices, "start_of": start_of if start_of is not None else []}
    arrays = {name: np.asarray(value) for name, value in numbers.items()}
    for name, array in arrays.items():
        if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
            raise InvalidSpecError(f"{name} must be a flat sequence of integers, got {array.dtype} of shape "
                                   f"{array.shape}")
    n = len(arrays["indices"])
    for name, array, low, high in (("which", arrays["which"], 0, len(players) - 1),
                                   ("indices", arrays["indices"], 0, 2**64 - 1),
                                   ("start_of", arrays["start_of"], -1, len(starts) - 1)):
        if name == "start_of" and start_of is None:
            continue
        if len(array) != n:
            raise InvalidSpecError(f"{name} has {len(array)} entries for {n} matches")
        if n and not (low <= int(array.min()) and int(array.max()) <= high):
            raise InvalidSpecError(f"{name} must be in {low} .. {high}, got {int(array.min())} .. {int(array.max())}")
    out = np.empty((n, len(MatchSummary._fields)), dtype=np.int64)
    _game.play_many(seed, [p._runner for p in players], np.ascontiguousarray(arrays["which"], dtype=np.int32),
                    np.ascontiguousarray(arrays["indices"], dtype=np.uint64), out,
                    [p.to_bytes() for p in starts],
                    None if start_of is None else np.ascontiguousarray(arrays["start_of"], dtype=np.int32),
                    judged)
    return out


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


def play_match_with_history(bot0: object, bot1: object, *, length: int = 0, rules: Rules | None = None,
                            seed: int = 0, index: int = 0, met: MatchEquityTable | None = None,
                            dice: Sequence[int] | None = None) -> MatchHistory:
    """Play one match like :func:`play_match` and keep every turn (:meth:`MatchPlayer.history`).

    :param dice: scripted dice, as for :meth:`MatchPlayer.record`.
    :raises InvalidSpecError: a bad match length.
    :raises IllegalMoveError: a bot returned an illegal play.
    """
    return MatchPlayer(bot0, bot1, length=length, rules=rules, met=met).history(seed, index, dice=dice)
