"""The rollout engine: seeded trials, stratified first rolls, blocks over processes.

A trial is one game played from the position to its end (or for N plies) by
the bot on both sides, in the C game loop (:meth:`MatchRunner.play_from`).
Trial ``i`` of a run seeded ``seed`` draws its dice and the players' random
choices from the streams of ``(seed, i)`` only (:mod:`bgfast._core.rng`), so
a trial is a pure function of the rollout's arguments and its index.  Trials
are cut into blocks, the blocks are played in worker processes (a process pool),
and the per-trial results are put back in trial order: the result is the
same, bit for bit, whatever the number of workers.

Variance reduction is stratified sampling of the first rolls (with at least
:data:`MIN_STRATIFIED_TRIALS` trials), rotating through
them as gnubg's quasi-random dice do: trial ``i`` first rolls
``ALL_36[i % 36]``; when the number of trials is a multiple of 1296, its
second roll is ``ALL_36[(i // 36) % 36]`` as well, so every block of 1296
trials plays each (first, second) pair once.  The rolls stratified are the
first ones rolled *after* the given dice (with ``dice``, the opponent's reply
comes first).  See :mod:`bgfast.rollout.stats` for the estimator and its error.

Per trial and per line (a position, or one play of a roll), the engine keeps
six numbers, all from the view of the side on roll at the root: the five
cumulative outcome probabilities (0/1 for a finished game, the evaluator's
estimate for a truncated one) and the cubeful value (money points per
initial cube, or the match winning chance).  That is 48 bytes a trial a line.
"""
from __future__ import annotations

import collections
import dataclasses
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np

from bgfast._core.game import CubeKind, GameResult, PlayKind
from bgfast.bots import available_bots, get_bot
from bgfast.bots.base import CoreBot, CubeResponse
from bgfast.cube import Probs, as_probs, cubeless_equities, dead_cube_mwc, flip, money_equity, mwc
from bgfast.dice import ALL_36, Dice
from bgfast.errors import InvalidRolloutError, RolloutWorkerError
from bgfast.game import MAX_MATCH_LENGTH, CoreConfig, make_runner
from bgfast.match import MatchEquityTable, MatchState, Rules, parse_position
from bgfast.position import VARIANTS, Move, Position
from bgfast.procs import exit_with_parent
from bgfast.rollout.result import Estimate, PlayResult, RolloutResult
from bgfast.rollout.stats import estimate_columns, variance_strata

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from bgfast._core.game import MatchRunner

__all__ = ["CHECK_EVERY", "MIN_STRATIFIED_TRIALS", "Evaluator", "parse_position", "rollout"]

CHECK_EVERY = 1296
"""With a target standard error, the error is checked after multiples of this many trials."""

MIN_STRATIFIED_TRIALS = 72
"""Fewer trials than this (two per first roll) are sampled plainly."""

_GNUBG_BEAROFF2 = 1          # gnubg_nn.classify: the two-sided (exact) bear-off database
_KINDS = {"single": 0, "gammon": 1, "backgammon": 2}
_SCRIPT1 = tuple([a, b] for a, b in ALL_36)
_SCRIPT2 = tuple([*ALL_36[i % 36], *ALL_36[i // 36]] for i in range(1296))


@runtime_checkable
class Evaluator(Protocol):
    """What truncation needs: probabilities for a position, side on roll's view.

    ``evaluate(position)`` returns ``(win, win_gammon, win_backgammon,
    lose_gammon, lose_backgammon)`` (cumulative, as gnubg) for the side on roll
    in ``position``: an object with those five attributes or a 5-sequence.
    """

    def evaluate(self, position: Position) -> Any: ...


# ---------------------------------------------------------------- the work


class _Cubeless:
    """A bot's checker play without its cube: never doubles, always takes."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", "bot")

    def core_config(self) -> CoreConfig | None:
        config = self.bot.core_config() if hasattr(self.bot, "core_config") else None
        return None if config is None else CoreConfig(*config)._replace(cube=CubeKind.CUBE_NEVER)

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Any:
        return self.bot.choose_move(position, dice, match)

    def should_double(self, position: Position, match: MatchState) -> bool:
        return False

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        return CubeResponse.TAKE


def _bot_ref(bot: Any) -> Any:
    """What a worker rebuilds a bot from: (name, options) for a registered built-in, else the bot."""
    if isinstance(bot, CoreBot) and bot.name in available_bots():
        return ("registered", bot.name, dict(bot.options()))
    return bot


def _from_ref(ref: Any) -> Any:
    if isinstance(ref, tuple) and ref and ref[0] == "registered":
        return get_bot(ref[1], **ref[2])
    return ref


@dataclass(frozen=True)
class _Line:
    """One thing rolled out: a board with ``turn`` on roll, maybe dice to play first."""

    board: bytes
    turn: int
    d1: int = 0
    d2: int = 0
    fixed: tuple[float, ...] | None = None   # the six numbers when the game is already over


@dataclass(frozen=True)
class _Task:
    """Everything a worker needs; a trial is a pure function of this and its index."""

    lines: tuple[_Line, ...]
    root: int
    seed: int
    scripted_rolls: int
    bot: Any
    evaluator: Any
    cubeful: bool
    truncate: int
    exact_bearoff: bool
    match: MatchState
    rules: Rules
    met: MatchEquityTable | None
    cube_efficiency: float
    luck: bool = False


def _root_luck(luck: tuple[Probs, Probs], root: int) -> np.ndarray:
    """The summed luck of both players as one vector in ``root``'s view (see game.pyx add_luck)."""
    own, other = np.asarray(luck[root]), np.asarray(luck[1 - root])
    # the opponent's win/gammon/backgammon luck is root's loss luck, and the other way round
    total: np.ndarray = own + np.array([-other[0], other[3], other[4], other[1], other[2]])
    return total


def _as_probabilities(p: Any, source: Any) -> tuple[float, float, float, float, float]:
    try:
        values: tuple[float, ...] = as_probs(p)
    except ValueError:
        values = ()
    if len(values) != 5 or not all(0.0 <= v <= 1.0 for v in values):
        raise InvalidRolloutError(f"evaluator {source!r} returned {p!r}, not five probabilities from 0 to 1")
    w, wg, wbg, lg, lbg = values
    eps = 1e-6
    if wg > w + eps or wbg > wg + eps or lg > 1.0 - w + eps or lbg > lg + eps:
        raise InvalidRolloutError(
            f"evaluator {source!r} returned {p!r}: gammons must not exceed wins (cumulative, as gnubg)"
        )
    return values


class _Worker:
    """Plays the trials of one task (in the parent or in a pool process)."""

    def __init__(self, task: _Task) -> None:
        self.task = task
        m = task.match
        bot = _from_ref(task.bot)
        rules = dataclasses.replace(task.rules, jacoby=m.jacoby)
        shim = _Cubeless(bot)
        self.cubeless = make_runner(shim, shim, length=m.length, rules=rules, jacoby=m.jacoby, met=task.met)
        self.cubeless.measure_luck(task.luck)
        config = bot.core_config() if hasattr(bot, "core_config") else None
        never = config is not None and CoreConfig(*config).cube == CubeKind.CUBE_NEVER
        self.cubeful = None
        if task.cubeful and not never:
            self.cubeful = make_runner(bot, bot, length=m.length, rules=rules, jacoby=m.jacoby, met=task.met)
        self.evaluator = _from_ref(task.evaluator)
        self.gnubg = None
        if task.exact_bearoff:
            import gnubg_nn

            self.gnubg = gnubg_nn
        self.scripts: Sequence[Sequence[int]] = ((),) if not task.scripted_rolls else (
            _SCRIPT1 if task.scripted_rolls == 1 else _SCRIPT2)
        if m.length:
            self.away = (m.length - m.score[task.root], m.length - m.score[1 - task.root])

    # -- one trial

    def _play(self, runner: MatchRunner, line: _Line, i: int) -> GameResult:
        t, m = self.task, self.task.match
        runner.reseed(t.seed, i)
        runner.script(self.scripts[i % len(self.scripts)])
        return runner.play_from(line.board, line.turn, m.cube_value, m.cube_owner, line.d1, line.d2,
                                t.truncate, m.score[0], m.score[1], m.crawford)

    def evaluate(self, board: bytes) -> tuple[float, float, float, float, float]:
        """Probabilities of the side on roll in ``board`` (database when exact, else the evaluator)."""
        if self.gnubg is not None:
            gboard = [list(board[:25]), list(board[25:])]
            if self.gnubg.classify(gboard) == _GNUBG_BEAROFF2:
                return tuple(float(x) for x in self.gnubg.probabilities(gboard, 0))  # type: ignore[return-value]
        return _as_probabilities(self.evaluator.evaluate(Position._from_key(board)), self.evaluator)

    def _cubeless_row(self, res: GameResult) -> tuple[float, float, float, float, float]:
        winner, kind, _points, _cube, _plies, truncated, final, final_turn = res
        if truncated:
            p = self.evaluate(cast(bytes, final))  # play_from gives the final board when truncated
            return p if final_turn == self.task.root else flip(p)
        k = _KINDS[kind]
        if winner == self.task.root:
            return (1.0, float(k >= 1), float(k >= 2), 0.0, 0.0)
        return (0.0, 0.0, 0.0, float(k >= 1), float(k >= 2))

    def _mwc_after(self, won: bool, points: int) -> float:
        return _mwc_after(self.task.met, self.away[0], self.away[1], won, points)  # type: ignore[arg-type]

    def _cubeful_value(self, res: GameResult, runner: MatchRunner, row: tuple[float, ...] | None) -> float:
        t, m = self.task, self.task.match
        winner, _kind, points, cube, _plies, truncated, final, final_turn = res
        if not truncated:
            if m.length == 0:
                return (points if winner == t.root else -points) / m.cube_value
            return self._mwc_after(winner == t.root, points)
        owner = m.cube_owner
        for by, response in runner.games()[0][2]:
            if response:
                owner = 1 - by
        if row is not None:      # the cubeless row of the same game: root's view
            p_root = row
        else:
            p = self.evaluate(cast(bytes, final))  # truncated: play_from gives the final board
            p_root = p if final_turn == t.root else flip(p)
        if m.length == 0:
            p_on_roll = p_root if final_turn == t.root else flip(p_root)
            value = money_equity(p_on_roll, owner=owner, player=final_turn, x=t.cube_efficiency,
                                 jacoby=m.jacoby) * cube / m.cube_value
            return value if final_turn == t.root else -value
        return dead_cube_mwc(p_root, t.met, self.away[0], self.away[1], cube)  # type: ignore[arg-type]

    def run(self, start: int, stop: int) -> np.ndarray:
        """The six numbers of trials ``start..stop-1``: shape ``(lines, stop - start, 6)``."""
        t = self.task
        out = np.zeros((len(t.lines), stop - start, 6))
        for j, line in enumerate(t.lines):
            if line.fixed is not None:
                out[j, :] = line.fixed
                continue
            for k, i in enumerate(range(start, stop)):
                res = self._play(self.cubeless, line, i)
                row = self._cubeless_row(res)
                out[j, k, :5] = row
                if t.luck:
                    out[j, k, :5] -= _root_luck(self.cubeless.luck(), t.root)
                if t.cubeful:
                    if self.cubeful is None:
                        out[j, k, 5] = self._cubeful_value(res, self.cubeless, row)
                    else:
                        out[j, k, 5] = self._cubeful_value(self._play(self.cubeful, line, i), self.cubeful, None)
        return out


_TASK: _Task | None = None
_WORKER: _Worker | None = None


def _init_worker(task: _Task, parent: int) -> None:
    """A pool process's initializer: Ctrl-C is the parent's business (it stops the pool),
    and the worker ends when the parent dies, even by kill -9."""
    global _TASK
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
    _TASK = task


def _run_block(bounds: tuple[int, int]) -> np.ndarray:
    global _WORKER
    if _WORKER is None:  # built here, not in the initializer, so that its errors reach the parent as they are
        assert _TASK is not None
        _WORKER = _Worker(_TASK)
    return _WORKER.run(*bounds)


# ---------------------------------------------------------------- checking the input


MAX_TRUNCATE = 2**31 - 1
"""The largest ``truncate`` (plies); the game loop counts plies in a C int."""


def _count(name: str, value: object, *, low: int = 1, high: int | None = None, none: bool = False) -> int | None:
    if value is None and none:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low
            or (high is not None and value > high)):
        what = "a positive integer" if low == 1 else f"an integer from {low}"
        if high is not None:
            what += f" up to {high:,}"
        raise InvalidRolloutError(f"{name} must be {what}, got {value!r}")
    return int(value)


def _outcome_row(pos: Position, root_wins: bool, match: MatchState, met: MatchEquityTable | None,
                 root: int, cubeful: bool, checkers: int) -> tuple[float, ...]:
    """The six numbers of a game already over (the given play bore off the last checker)."""
    outcome = pos.outcome(checkers)
    assert outcome is not None
    k = _KINDS[outcome.kind]
    row = [1.0, float(k >= 1), float(k >= 2), 0.0, 0.0] if root_wins else [0.0, 0.0, 0.0, float(k >= 1), float(k >= 2)]
    points = match.game_value(k + 1)
    value = 0.0
    if cubeful:
        if match.length == 0:
            value = (points if root_wins else -points) / match.cube_value
        else:
            a, b = match.length - match.score[root], match.length - match.score[1 - root]
            value = _mwc_after(met, a, b, root_wins, points)  # type: ignore[arg-type]
    return (*row, value)


def _mwc_after(met: MatchEquityTable, away: int, opp_away: int, won: bool, points: int) -> float:
    """The MWC of the side ``away`` points from winning once it has won (or lost) ``points``:
    the game was played with either side 1-away (post-Crawford) or not."""
    post = away == 1 or opp_away == 1
    return mwc(met, away - points, opp_away, post) if won else mwc(met, away, opp_away - points, post)


def _block_size(workers: int) -> int:
    """Trials per block: a divisor of :data:`CHECK_EVERY`, about four blocks per worker and round.

    >>> _block_size(1), _block_size(2), _block_size(324), _block_size(325)
    (324, 162, 1, 1)
    """
    k = next((d for d in range(4 * workers, CHECK_EVERY + 1) if CHECK_EVERY % d == 0), CHECK_EVERY)
    return CHECK_EVERY // k


def _next_check(n: int) -> int:
    """The next trial count at which a target error is checked (1296, 2592, ... then ~10% steps)."""
    return n + CHECK_EVERY * max(1, n // (10 * CHECK_EVERY))


# ---------------------------------------------------------------- the rollout


def rollout(
    position: Position | str,
    *,
    dice: Dice | str | tuple[int, int] | None = None,
    play: Move | str | None = None,
    plays: bool = False,
    bot: Any = "pubeval",
    evaluator: Any = None,
    match: MatchState | None = None,
    rules: Rules | None = None,
    met: MatchEquityTable | str | None = None,
    cubeful: bool = False,
    trials: int = 1296,
    seed: int = 0,
    workers: int = 1,
    truncate: int | None = None,
    exact_bearoff: bool = False,
    target_se: float | None = None,
    variance_reduction: bool = True,
    luck: bool | None = None,
    progress: bool | None = False,
) -> RolloutResult:
    """Roll a position out: play it to the end ``trials`` times with ``bot`` on both sides.

    Every number of the result is from the view of the side on roll in
    ``position``: before any dice, or with ``dice`` after rolling them: that
    side plays the roll first (``play``, or the bot's choice in every trial),
    then the game goes on with the opponent to roll; the result is still that
    side's.

    >>> result = rollout("4HPwATDgc/ABMA", trials=144, seed=1)
    >>> result.trials, result.strata, round(result.win.value, 3)
    (144, 36, 0.537)
    >>> low, high = result.equity.interval
    >>> low < result.equity.value < high
    True

    Variance reduction (on unless ``variance_reduction=False``) stratifies
    the first roll over the 36 dice combinations, and the first two rolls
    over 1296 when ``trials`` is a multiple of 1296; fewer than 72 trials
    (:data:`MIN_STRATIFIED_TRIALS`) are sampled plainly.  The rolls stratified
    are the first ones rolled: with ``dice``, which are fixed, the next ones
    (the opponent's reply first).  The standard errors are those of the stratified
    estimator: ``SE**2 = sum_h w_h**2 s_h**2 / n_h`` over the strata h, with
    ``w_h = 1/36`` (or ``1/1296``) the chance of the stratum's rolls, ``n_h``
    its trials and ``s_h**2`` the variance *within* it; with 1296 strata but
    fewer than two trials in each, over the 36 first-roll strata (which can
    only overstate the error).  Without variance reduction: ``s / sqrt(n)``.
    The 95% intervals are ``estimate ± 1.96 SE``.

    Luck adjustment (with ``luck=True``; the default follows
    ``variance_reduction``) is the variance reduction of GNU Backgammon and
    eXtreme Gammon: every rolled ply's luck, the heuristic evaluator's
    probabilities after its best play of the roll minus their average over all
    36 rolls, is summed over the trial and subtracted from its cubeless
    result.  Luck has expectation zero, so the estimate stays unbiased; on the
    opening position with pubeval it halves the standard error at the same
    trials, at the cost of 21 extra move generations and evaluations a ply
    (a trial is some 50 times slower).  Only the five chances and the cubeless
    equity are adjusted (and, when the plays are ranked by it, their
    differences): the cubeful equity and the match winning chance are not, so
    where they should agree with a chance (the MWC with the win chance at
    double match point) they can differ by more than the chance's error.
    :attr:`RolloutResult.luck_adjusted_figures` names the adjusted figures.

    :param position: a :class:`Position`, Position ID, ``PositionID:MatchID`` or XGID
        (the last two also give the match state).
    :param dice: a roll for the side on roll to play first (no cube action before it).
    :param play: with ``dice``, the play to roll out (notation or a :class:`Move`).
    :param plays: with ``dice``, roll out every distinct play with the same dice
        (common random numbers); the result is the best play's, its
        :attr:`~RolloutResult.plays` all of them ranked with their differences.
    :param bot: a bot name or object; it plays both sides, and with ``cubeful``
        its cube policy makes the cube actions.
    :param evaluator: what finishes truncated trials (default: the bot); see :class:`Evaluator`.
    :param match: score and cube (default: money, cube centred, the Jacoby
        rule as in ``rules``); ``match.player_on_roll`` is the side on roll.
    :param rules: beavers, maximum cube, variant (default :class:`Rules`); the
        variant's checkers a side (3 in hypergammon) decide gammons, and the
        position may not have more on the board.
    :param met: the match equity table for match play (default Kazaross-XG2).
    :param cubeful: also roll out with the cube: money points per game per
        initial cube, or in match play the match winning chance and its EMG.
        Cubeless numbers always come from games where nobody doubles (the same
        dice), so a passed double never cuts them short.
    :param trials: the number of trials, or with ``target_se`` the most.
    :param seed: the run seed; trial ``i`` uses the streams of ``(seed, i)``.
    :param workers: processes, at most one per block of trials (more would
        idle, so they are not started); the result does not depend on it.
    :param truncate: stop each trial after this many plies (half-moves) and
        use the evaluator's probabilities (cubeful: Janowski's formula in money
        play with the bot's ``cube_efficiency``, a dead cube in match play).
    :param exact_bearoff: at truncation, use GNU Backgammon's two-sided
        bear-off database (exact) when the position is in it (needs gnubg-nn).
    :param target_se: stop once the ranking equity's standard error (cubeful
        when computed; with ``plays`` the largest over the plays) is at most
        this; checked after 1296, 2592, ... trials, then every ~10%.
    :param variance_reduction: stratify the first roll(s) and, unless ``luck=False``, adjust for luck.
    :param luck: subtract each trial's luck from its cubeless result, not from its cubeful
        value (default: as ``variance_reduction``, except in hypergammon: the luck
        estimate's evaluator is fitted to 15 checkers, so it is off there and
        ``luck=True`` is refused).
    :param progress: show a tqdm progress bar on stderr (None: only on a terminal).
    :raises InvalidRolloutError: zero or negative trials, workers, plies or
        target, a finished position or match, a pending double, ``plays`` or
        ``play`` without dice, truncation with no evaluator, a position with
        more checkers than the variant has.
    :raises InvalidDiceError: bad dice.  :raises IllegalMoveError, InvalidMoveError: a bad play.
    :raises UnknownBotError: an unknown bot.
    :raises RolloutWorkerError: a worker process died (e.g. killed): no result.
    """
    started = time.perf_counter()
    pos, parsed_match = parse_position(position)
    trials = _count("trials", trials)  # type: ignore[assignment]
    workers = _count("workers", workers)  # type: ignore[assignment]
    seed = _count("seed", seed, low=0)  # type: ignore[assignment]
    truncate = _count("truncate", truncate, high=MAX_TRUNCATE, none=True)
    if target_se is not None and (isinstance(target_se, bool) or not isinstance(target_se, (int, float))
                                  or not target_se > 0):
        raise InvalidRolloutError(f"target_se must be a positive number, got {target_se!r}")
    if pos.is_over():
        raise InvalidRolloutError(f"position {pos.id()!r} is already over: nothing to roll out")
    rules = rules or Rules()
    if not isinstance(rules, Rules):
        raise InvalidRolloutError(f"rules must be a Rules, got {rules!r}")
    checkers = sum(VARIANTS[rules.variant][1])
    opponent_checkers, own_checkers = pos.checkers()
    if max(own_checkers, opponent_checkers) > checkers:
        raise InvalidRolloutError(
            f"position {pos.id()!r} has {own_checkers} checkers of the side on roll and {opponent_checkers} "
            f"of the opponent on the board, more than the {checkers} a side of {rules.variant}"
        )
    match = match or parsed_match or MatchState(jacoby=rules.jacoby)
    if not isinstance(match, MatchState):
        raise InvalidRolloutError(f"match must be a MatchState, got {match!r}")
    if match.double_offered:
        raise InvalidRolloutError(f"a double is pending in {match!r}: roll out the position before or after it")
    if match.length and min(match.away(0), match.away(1)) == 0:
        raise InvalidRolloutError(f"the match {match!r} is already over: nothing to roll out")
    if match.length > MAX_MATCH_LENGTH:
        raise InvalidRolloutError(f"match length {match.length} is beyond the longest the game loop plays ({MAX_MATCH_LENGTH})")
    root = match.player_on_roll
    table = None
    if match.length:
        table = met if isinstance(met, MatchEquityTable) else MatchEquityTable.load(met or "Kazaross-XG2")
        if cubeful and match.length > table.max_length:
            raise InvalidRolloutError(f"match length {match.length} is beyond the {table.max_length}-point table {table.name!r}")

    bot_obj = get_bot(bot) if isinstance(bot, str) else bot
    if not (hasattr(bot_obj, "choose_move") or hasattr(bot_obj, "core_config")):
        raise InvalidRolloutError(f"bot {bot!r} has neither choose_move() nor core_config(): it cannot play")
    bot_name = str(getattr(bot_obj, "name", type(bot_obj).__name__))
    eval_obj = bot_obj if evaluator is None else (get_bot(evaluator) if isinstance(evaluator, str) else evaluator)
    if truncate is not None and not callable(getattr(eval_obj, "evaluate", None)):
        raise InvalidRolloutError(
            f"truncation after {truncate} plies needs an evaluator: {getattr(eval_obj, 'name', eval_obj)!r} "
            "has no evaluate() giving probabilities"
        )
    if exact_bearoff:
        if truncate is None:
            raise InvalidRolloutError("exact_bearoff applies where trials are truncated: give truncate=N too")
        if rules.variant == "hypergammon":
            raise InvalidRolloutError("exact_bearoff uses a 15-checker database: not for hypergammon")
        try:
            import gnubg_nn  # noqa: F401
        except ImportError:
            raise InvalidRolloutError("exact_bearoff needs gnubg-nn (pip install bgfast[gnubg])") from None

    # what to roll out
    roll = None
    if dice is not None:
        roll = Dice.of(dice)
        if match.dice != (0, 0) and roll != Dice(*match.dice):
            raise InvalidRolloutError(f"the match state says {Dice(*match.dice)} was rolled, "
                                      f"but the dice given are {roll}: give one or make them agree")
    elif match.dice != (0, 0):
        roll = Dice(*match.dice)
    if (plays or play is not None) and roll is None:
        raise InvalidRolloutError(f"{'plays' if plays else 'a play'} needs the dice it is a play of")
    if plays and play is not None:
        raise InvalidRolloutError(f"give either plays=True or play={play!r}, not both")
    match = dataclasses.replace(match, dice=(0, 0))
    cube_on = cubeful

    def line_after(move: Move) -> _Line:
        after = move.position
        if after.is_over():
            return _Line(after._key, root, fixed=_outcome_row(after, True, match, table, root, cube_on, checkers))
        return _Line(after.swap_sides()._key, 1 - root)

    moves: list[Move] = []
    shown_play = None
    if plays:
        moves = sorted(pos.legal_moves(roll.high, roll.low), key=str)  # type: ignore[union-attr]
        lines = tuple(line_after(m) for m in moves)
    elif play is not None:
        move = play if isinstance(play, Move) else pos.parse_move(str(play), roll)  # type: ignore[arg-type]
        if move not in pos.legal_moves(roll.high, roll.low):  # type: ignore[union-attr]
            raise InvalidRolloutError(f"play {str(move)!r} is not a play of {roll} in {pos.id()}")
        shown_play = str(move)
        lines = (line_after(move),)
    elif roll is not None:
        lines = (_Line(pos._key, root, roll.high, roll.low),)
        if isinstance(bot_obj, CoreBot) and bot_obj.play_kind != PlayKind.PLAY_RANDOM:
            shown_play = str(bot_obj.choose_move(pos, roll, dataclasses.replace(match, dice=(roll.high, roll.low))))
    else:
        lines = (_Line(pos._key, root),)

    if not variance_reduction or trials < MIN_STRATIFIED_TRIALS:
        strata, scripted = 1, 0
    elif trials % 1296 == 0:
        strata, scripted = 1296, 2
    else:
        strata, scripted = 36, 1
    use_luck = variance_reduction if luck is None else bool(luck)
    if rules.variant == "hypergammon" and use_luck:
        # the luck estimate's evaluator is fitted to 15 checkers: it has no gammons with 3
        if luck:
            raise InvalidRolloutError("luck adjustment uses a 15-checker evaluator: not for hypergammon "
                                      "(give luck=False)")
        use_luck = False
    task = _Task(lines=lines, root=root, seed=seed, scripted_rolls=scripted, bot=_bot_ref(bot_obj),
                 evaluator=_bot_ref(eval_obj) if truncate is not None else None, cubeful=cubeful,
                 truncate=truncate or 0, exact_bearoff=exact_bearoff, match=match, rules=rules, met=table,
                 cube_efficiency=float(getattr(bot_obj, "cube_efficiency", 0.68)),
                 luck=use_luck)

    se_scale = 1.0
    if cubeful and match.length:   # the target is in EMG, the trials hold MWC
        a, b = match.away(root), match.away(1 - root)
        se_scale = abs(table.mwc_to_emg(1.0, a, b, match.cube_value) - table.mwc_to_emg(0.0, a, b, match.cube_value))  # type: ignore[union-attr]
    data, reached = _run(task, trials, workers, target_se, strata, progress, se_scale)
    n = data.shape[1]
    result = _results(pos, match, roll, shown_play, bot_name, n, seed, strata, task.luck, truncate, data, moves,
                      table, cubeful, time.perf_counter() - started)
    return dataclasses.replace(result, variant=rules.variant, target_se=target_se, target_reached=reached)


def _ranking_column(data: NDArray[np.float64], cubeful: bool) -> NDArray[np.float64]:
    """Per line and trial, the equity plays are ranked by (cubeful, or cubeless money equity)."""
    if cubeful:
        return data[..., 5]
    return cubeless_equities(data[..., :5])


def _blocks(total: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, total, size):
        yield start, min(start + size, total)


def _run(task: _Task, trials: int, workers: int, target_se: float | None, strata: int,
         progress: bool | None, se_scale: float = 1.0) -> tuple[np.ndarray, bool | None]:
    """Play the trials in blocks (in a pool if ``workers`` > 1): the ``(lines, n, 6)`` results
    in trial order, and whether ``target_se`` was reached (None without one).

    With ``target_se``, stop at the first check point where every line's ranking
    equity has a standard error (times ``se_scale``: MWC to EMG) of at most the target.
    """
    from tqdm import tqdm

    size = min(_block_size(workers), trials)
    if workers > 1:
        try:
            pickle.dumps(task)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise InvalidRolloutError(
                f"bot or evaluator cannot be sent to worker processes ({exc}); use workers=1"
            ) from None
    workers = min(workers, -(-trials // size))   # a worker per block at most: more would only idle
    chunks: list[np.ndarray] = []
    done = 0
    check = _next_check(0)

    def reached(n: int) -> bool:
        values = _ranking_column(np.concatenate(chunks, axis=1), task.cubeful)
        vstrata = variance_strata(n, strata)
        worst = max(estimate_columns(values[j][:, None], vstrata)[1][0] for j in range(len(values)))
        return bool(worst * se_scale <= target_se)

    pool = None
    if workers == 1:
        worker = _Worker(task)
        results: Iterator[np.ndarray] = (worker.run(a, b) for a, b in _blocks(trials, size))
    else:
        # the pool is started before the progress bar's thread exists (fork after threads is unsafe)
        pool = _Pool(task, workers, _blocks(trials, size))
        results = pool.results()
    bar = tqdm(total=trials, unit="trial", file=sys.stderr, dynamic_ncols=True, leave=False,
               disable=None if progress is None else not progress, desc="rollout")
    try:
        for block in results:
            chunks.append(block)
            done += block.shape[1]
            bar.update(block.shape[1])
            if target_se is not None and done >= check and done < trials:
                if reached(done):
                    break
                check = _next_check(done)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
    return np.concatenate(chunks, axis=1), (None if target_se is None else reached(done))


class _Pool:
    """Blocks of trials played in worker processes, their results in block order.

    A dead worker breaks the pool (:class:`ProcessPoolExecutor` notices, where a
    ``multiprocessing.Pool`` would replace the worker and wait forever for its
    block): the rollout stops with :class:`RolloutWorkerError`.  The workers
    ignore SIGINT; on Ctrl-C the parent's KeyboardInterrupt closes the pool.
    """

    def __init__(self, task: _Task, workers: int, blocks: Iterable[tuple[int, int]]) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                            initargs=(task, os.getpid()))
        self.todo = iter(blocks)
        self.pending: collections.deque[tuple[tuple[int, int], Future[np.ndarray]]] = collections.deque()
        self.window = 2 * workers + 2
        try:
            self._submit()  # forks the workers now
        except BaseException:  # e.g. Ctrl-C while they start: stop the ones started
            self.close()
            raise

    def _submit(self) -> None:
        while len(self.pending) < self.window:
            bounds = next(self.todo, None)
            if bounds is None:
                return
            self.pending.append((bounds, self.executor.submit(_run_block, bounds)))

    def results(self) -> Iterator[np.ndarray]:
        try:
            while self.pending:
                block = self.pending[0][1].result()
                self.pending.popleft()
                self._submit()
                yield block
        except BrokenProcessPool:  # from a result, or from submit once the pool is broken
            lost = f"trials {self.pending[0][0][0]}-{self.pending[-1][0][1] - 1}" if self.pending else "trials"
            raise RolloutWorkerError(
                f"a rollout worker process died (killed?) while {lost} were being played; "
                "the rollout is stopped, with no result"
            ) from None

    def close(self) -> None:
        """Shut the pool down: at once (terminating the workers) unless every block was collected."""
        if not self.pending:
            self.executor.shutdown(wait=True)
            return
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(5)


def _estimate(values: np.ndarray, strata: int) -> list[Estimate]:
    mean, se = estimate_columns(values, strata)
    return [Estimate(float(m), float(s)) for m, s in zip(mean, se)]


def _results(pos: Position, match: MatchState, roll: Dice | None, shown_play: str | None, bot: str, n: int,
             seed: int, strata: int, luck: bool, truncate: int | None, data: np.ndarray, moves: list[Move],
             table: MatchEquityTable | None, cubeful: bool, seconds: float) -> RolloutResult:
    vstrata = variance_strata(n, strata)
    cube0 = match.cube_value

    def one(j: int, play: str | None, plays: tuple[PlayResult, ...] = ()) -> RolloutResult:
        rows = data[j]
        columns = np.column_stack([rows[:, :5], _ranking_column(rows[None], False)[0], rows[:, 5]])
        est = _estimate(columns, vstrata)
        cf = mwc = None
        if cubeful:
            if match.length == 0:
                cf = est[6]
            else:
                a, b = match.away(match.player_on_roll), match.away(1 - match.player_on_roll)
                mwc = est[6]
                zero = table.mwc_to_emg(0.0, a, b, cube0)  # type: ignore[union-attr]
                scale = table.mwc_to_emg(1.0, a, b, cube0) - zero  # type: ignore[union-attr]
                cf = Estimate(zero + scale * mwc.value, abs(scale) * mwc.se)
        return RolloutResult(
            position=pos, match=match, dice=roll, play=play, bot=bot, trials=n, seed=seed, strata=strata,
            truncate=truncate, win=est[0], win_gammon=est[1], win_backgammon=est[2], lose_gammon=est[3],
            lose_backgammon=est[4], equity=est[5], cubeful_equity=cf, cubeful_mwc=mwc, seconds=seconds,
            plays=plays, luck_adjusted=luck,
        )

    if not moves:
        return one(0, shown_play)
    singles = [one(j, str(m)) for j, m in enumerate(moves)]
    ranking = _ranking_column(data, cubeful)
    best = int(np.argmax([r.ranking_equity.value for r in singles]))
    diffs = ranking - ranking[best]
    diff_est = _estimate(diffs.T, vstrata)
    if cubeful and match.length:
        a, b = match.away(match.player_on_roll), match.away(1 - match.player_on_roll)
        scale = table.mwc_to_emg(1.0, a, b, cube0) - table.mwc_to_emg(0.0, a, b, cube0)  # type: ignore[union-attr]
        diff_est = [Estimate(scale * e.value, abs(scale) * e.se) for e in diff_est]
    order = sorted(range(len(moves)), key=lambda j: (-singles[j].ranking_equity.value, str(moves[j])))
    ranked = tuple(PlayResult(move=str(moves[j]), position_id=moves[j].position.id(), result=singles[j],
                              difference=diff_est[j]) for j in order)
    return dataclasses.replace(singles[best], plays=ranked)
