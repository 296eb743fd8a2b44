"""The rollout engine: seeded trials, stratified first rolls, blocks over processes.

A trial is one game played from the position to its end (or for N plies) by
the bot on both sides, in the C game loop (and with ``cubeful``, the same dice
again with the bot's cube).  Trial ``i`` of a run seeded ``seed`` draws its
dice and the players' random choices from the streams of ``(seed, i)`` only
(:mod:`bgfast._core.rng`), so a trial is a pure function of the rollout's
arguments (a checked :class:`~bgfast.rollout.request.RolloutRequest`) and its
index.  Trials are cut into blocks, the blocks are played in worker processes
(:class:`bgfast.procs.WorkerPool`) or as Dask tasks (:func:`_dask_blocks`), and the
per-trial results are put back in trial order: the result is the same, bit for bit,
whatever the backend and the number of workers.
One core call plays a block of trials of a line and writes their numbers
(:class:`bgfast._core.rollout.TrialRunner`: in C, without the GIL, for the
built-in bots and evaluators; a Python bot or evaluator is called back with
it), as a tournament's worker plays a chunk of matches; this module sets the
call up (:class:`_Worker`), cuts the blocks and estimates from the numbers.

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
initial cube, or the match winning chance), each less the trial's luck when
luck-adjusted (see :func:`rollout`).  That is 48 bytes a trial a line.
"""
from __future__ import annotations

import dataclasses
import math
import pickle
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from bgfast._core.game import CubeKind, PlayKind
from bgfast._core.rollout import VALUES, TrialRunner
from bgfast.bots.base import CoreBot, CubeResponse
from bgfast.bots.spec import BotRecipe, portable_bot, rebuild_bot
from bgfast.cube import cubeless_equities, dead_cube_mwc, mwc
from bgfast.dice import ALL_36, Dice
from bgfast.errors import BotFailedError, InvalidRolloutError, OutputFileError, RolloutSaveError, RolloutWorkerError, failure_text
from bgfast.game import CoreConfig, failed_bot, make_runner, position_played
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Move, Position
from bgfast.probabilities import OUTCOME_KINDS, Probabilities
from bgfast.procs import JobWindow, WorkerPool, check_bots_on_workers, dask_client, dask_workers
from bgfast.rollout.cube_decision import cube_rollout, double_take_state
from bgfast.rollout.request import RolloutRequest
from bgfast.rollout.result import Estimate, PlayResult, RolloutResult
from bgfast.rollout.stats import estimate_columns, variance_strata
from bgfast.terminal import progress_bar

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from bgfast._core.evaluator import CoreEvaluator

__all__ = ["CHECK_EVERY", "MIN_STRATIFIED_TRIALS", "Evaluator", "RolloutRequest", "rollout", "run_rollout"]

CHECK_EVERY = 1296
"""With a target standard error, the error is checked after multiples of this many trials."""

LUCK_FILTER = 4
"""A neural evaluator's luck measure values pubeval's best this many plays of each roll (0: every
play; see ``evaluator_luck`` in ``bgfast/_core/evaluator.pyx``).  Measured on the six positions
of ``benchmarks/bench_rollout_precision.py``, 1296 trials, two seeds: the precision per
CPU-second is within 3% from 3 to 6 plays and about 2.5 times that of valuing every play."""

MIN_STRATIFIED_TRIALS = 72
"""Fewer trials than this (two per first roll) are sampled plainly."""

_GNUBG_BEAROFF2 = 1          # gnubg_nn.classify: the two-sided (exact) bear-off database


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
    """A bot's checker play without its cube: never doubles, always takes.

    A built-in bot that plays match play by the score (the MET cube policy) keeps doing so
    (``CUBE_NEVER_MET``: the play of the best match winning chance with the cube dead where
    it stands, as nobody doubles in this game); the others play as they would (money play
    by cubeless equity); a Python bot is asked with the match state, as always."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = getattr(bot, "name", "bot")

    def __repr__(self) -> str:
        return repr(self.bot)

    def core_config(self) -> CoreConfig | None:
        config = self.bot.core_config() if hasattr(self.bot, "core_config") else None
        if config is None:
            return None
        config = CoreConfig(*config)
        by_score = config.cube == CubeKind.CUBE_MET
        return config._replace(cube=CubeKind.CUBE_NEVER_MET if by_score else CubeKind.CUBE_NEVER)

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Any:
        # read here so that a bad answer is named as the bot's, not this shim's
        return position_played(self.bot, self.bot.choose_move(position, dice, match), position, dice)

    def should_double(self, position: Position, match: MatchState) -> bool:
        return False

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        return CubeResponse.TAKE


@dataclass(frozen=True)
class _Line:
    """One thing rolled out: a board with ``turn`` on roll, maybe dice to play first."""

    board: bytes
    turn: int
    d1: int = 0
    d2: int = 0
    fixed: tuple[float, ...] | None = None   # the six numbers when the game is already over
    cube: tuple[int, int] | None = None      # the cube's value and owner (-1 centred) if not the task's
    no_double: bool = False                  # the side on roll rolls at once, no cube action (no double)


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
    luck_filter: int = 0
    late_bot: Any = None        # late evaluation: the bot as it plays after late_after plies (portable)
    late_after: int = 0
    truncate_ply: int | None = None   # the plies truncated trials are evaluated at (None: the evaluator's)


def _luck_scale(task: _Task, m: MatchState) -> np.ndarray:
    """The linear map from a cube-weighted luck vector (root's view, cube values as they are) to
    the cubeful value's scale: money, the cubeless equity's weights ``(2, 1, 1, -1, -1)`` per
    initial cube; match, the dead-cube MWC's weight of each of the five chances at the initial
    cube, per initial cube (the initial cube is ``m``'s: the task's, or a line's own).  Any
    fixed map keeps the luck's mean zero (each ply's luck has mean
    zero over the 36 rolls and its cube value is set before the roll), so the adjusted cubeful
    value stays unbiased; the map only decides how much of the dice's noise it removes."""
    if m.length == 0:
        return np.array([2.0, 1.0, 1.0, -1.0, -1.0]) / m.cube_value
    away = (m.away(task.root), m.away(1 - task.root))

    def at(won: bool, kind: str) -> float:
        p = Probabilities.from_outcome(won, kind)
        return dead_cube_mwc(p, task.met, away[0], away[1], m.cube_value)  # type: ignore[arg-type]

    # a single loss (all zeros), then each win, then the gammon and backgammon losses
    v = [at(False, "single"), *(at(True, kind) for kind in OUTCOME_KINDS), at(False, "gammon"),
         at(False, "backgammon")]
    return np.array([v[1] - v[0], v[2] - v[1], v[3] - v[2], v[4] - v[0], v[5] - v[4]]) / m.cube_value


def _as_probabilities(p: Any, source: Any) -> tuple[float, float, float, float, float]:
    """The five probabilities an evaluator returned, checked, as the tuple the core reads."""
    try:
        values = tuple(Probabilities.of(p))
    except ValueError:
        raise InvalidRolloutError(f"evaluator {source!r} returned {p!r}, not five probabilities from 0 to 1") from None
    if not all(0.0 <= v <= 1.0 for v in values):
        raise InvalidRolloutError(f"evaluator {source!r} returned {p!r}, not five probabilities from 0 to 1")
    w, wg, wbg, lg, lbg = values
    eps = 1e-6
    if wg > w + eps or wbg > wg + eps or lg > 1.0 - w + eps or lbg > lg + eps:
        raise InvalidRolloutError(
            f"evaluator {source!r} returned {p!r}: gammons must not exceed wins (cumulative, as gnubg)"
        )
    return w, wg, wbg, lg, lbg


class _Worker:
    """Plays the trials of one task (in the parent or in a pool process): the task's runners
    and a :class:`~bgfast._core.rollout.TrialRunner` that plays and values a block of trials
    of a line in one call."""

    def __init__(self, task: _Task) -> None:
        self.task = task
        m = task.match
        bot = rebuild_bot(task.bot)
        rules = dataclasses.replace(task.rules, jacoby=m.jacoby)
        shim = _Cubeless(bot)
        cubeless = make_runner(shim, shim, length=m.length, rules=rules, jacoby=m.jacoby, met=task.met)
        cubeless.measure_luck(task.luck, task.luck_filter)
        config = bot.core_config() if hasattr(bot, "core_config") else None
        never = config is not None and CoreConfig(*config).cube == CubeKind.CUBE_NEVER
        cubeful = None
        if task.cubeful and not never:
            cubeful = make_runner(bot, bot, length=m.length, rules=rules, jacoby=m.jacoby, met=task.met)
            cubeful.measure_luck(task.luck, task.luck_filter)
        if task.late_bot is not None:
            late = rebuild_bot(task.late_bot).evaluator
            for runner in (cubeless, cubeful):
                if runner is not None:
                    runner.late_evaluation(task.late_after, (late, late))
        self.evaluator = rebuild_bot(task.evaluator)
        self.gnubg = None
        if task.exact_bearoff:
            import gnubg_nn

            self.gnubg = gnubg_nn
        self.core = (None if not task.truncate or self.gnubg is not None
                     else _core_evaluation(self.evaluator, task.truncate_ply))
        self.games = (cubeless, cubeful)
        self.trials = self._trial_runner(m)
        self.by_cube = {(m.cube_value, m.cube_owner): self.trials}

    def _trial_runner(self, m: MatchState) -> TrialRunner:
        """The trials' runner with the cube as ``m`` has it (the task's, or a line's own)."""
        task, core = self.task, self.core
        luck_scale = _luck_scale(task, m) if task.cubeful and task.luck else np.zeros(5)
        return TrialRunner(
            *self.games, root=task.root, score=m.score, crawford=m.crawford, cube=m.cube_value,
            owner=m.cube_owner, length=m.length, jacoby=m.jacoby,
            met=None if task.met is None else task.met.core_table, cube_efficiency=task.cube_efficiency,
            max_cube=task.rules.max_cube,
            max_plies=task.truncate, stratified=task.scripted_rolls, rolls=ALL_36, luck=task.luck,
            cubeful_value=task.cubeful, luck_scale=tuple(float(w) for w in luck_scale),
            evaluator=None if core is None else core[0], evaluator_plies=0 if core is None else core[1],
            evaluate=self.evaluate if task.truncate and core is None else None)

    def _runner(self, line: _Line) -> TrialRunner:
        if line.cube is None:
            return self.trials
        if line.cube not in self.by_cube:
            value, owner = line.cube
            self.by_cube[line.cube] = self._trial_runner(
                dataclasses.replace(self.task.match, cube_value=value, cube_owner=owner))
        return self.by_cube[line.cube]

    def evaluate(self, board: bytes) -> tuple[float, float, float, float, float]:
        """Probabilities of the side on roll in ``board`` (database when exact, else the evaluator)."""
        if self.gnubg is not None:
            gboard = [list(board[:25]), list(board[25:])]
            if self.gnubg.classify(gboard) == _GNUBG_BEAROFF2:
                return tuple(Probabilities.of(self.gnubg.probabilities(gboard, 0)))  # type: ignore[return-value]
        position = Position._from_valid_bytes(board)
        if self.task.truncate_ply is None:
            return _as_probabilities(self.evaluator.evaluate(position), self.evaluator)
        return _as_probabilities(self.evaluator.evaluate(position, plies=self.task.truncate_ply), self.evaluator)

    def run(self, start: int, stop: int, active: tuple[int, ...] | None = None) -> np.ndarray:
        """The six numbers of trials ``start..stop-1``: shape ``(lines, stop - start, 6)``;
        only the lines ``active`` are played (None: all), the others' rows are NaN.

        :raises BotFailedError: the bot's own code raised, or returned no play or an illegal
            one (:func:`bgfast.game.failed_bot`); the message names the bot by its spec.
        """
        try:
            return self._run(start, stop, active)
        except Exception as exc:
            culprit = failed_bot(exc)
            if culprit is None:
                raise
            bot = culprit.bot if isinstance(culprit, _Cubeless) else culprit
            raise BotFailedError(f"bot {_bot_name(bot)!r} failed: {failure_text(exc)}") from exc

    def _run(self, start: int, stop: int, active: tuple[int, ...] | None) -> np.ndarray:
        out = np.zeros((len(self.task.lines), stop - start, VALUES))
        for j, line in enumerate(self.task.lines):
            if active is not None and j not in active:
                out[j, :] = np.nan
            elif line.fixed is not None:
                out[j, :] = line.fixed
            else:
                self._runner(line).play(self.task.seed, line.board, line.turn, line.d1, line.d2, start, out[j],
                                        line.no_double)
        return out


def _core_evaluation(evaluator: Any, plies: int | None = None) -> tuple[CoreEvaluator, int] | None:
    """The core evaluator and plies that a built-in bot's ``evaluate`` values a position with
    (the neural bot's at its ply, or at ``plies`` when given; the heuristic's at 0 ply), so
    that the trials value their truncated games in C; None for any other evaluator (called
    back from the trials)."""
    from bgfast.bots.heuristic import HeuristicBot
    from bgfast.bots.neural import NeuralBot

    if type(evaluator) not in (NeuralBot, HeuristicBot) or "evaluate" in vars(evaluator):
        return None
    if not isinstance(evaluator, NeuralBot):
        return evaluator.evaluator, 0
    return evaluator.evaluator, evaluator.ply if plies is None else plies


_TASK: _Task | None = None
_WORKER: _Worker | None = None


def _set_task(task: _Task) -> None:
    """A pool worker's initializer (see :class:`bgfast.procs.WorkerPool` for the rest of its start)."""
    global _TASK
    _TASK = task


def _run_block(bounds: tuple[int, int, tuple[int, ...] | None]) -> np.ndarray:
    global _WORKER
    if _WORKER is None:  # built here, not in the initializer, so that its errors reach the parent as they are
        assert _TASK is not None
        _WORKER = _Worker(_TASK)
    return _WORKER.run(*bounds)


def _worker_died(lost: list[tuple[int, int, tuple[int, ...] | None]]) -> RolloutWorkerError:
    """The pool's error when a worker died while the blocks ``lost`` were being played;
    :func:`_run` says what is kept."""
    trials = f"trials {lost[0][0]}-{lost[-1][1] - 1}" if lost else "trials"
    return RolloutWorkerError(f"a rollout worker process died (killed?) while {trials} were being played; "
                              "the rollout is stopped")


_LOCAL = threading.local()  # a Dask worker's _Worker, per thread (Dask may run several)


def _dask_block(task: _Task, run: str, bounds: tuple[int, int, tuple[int, ...] | None]) -> np.ndarray:
    """One Dask task: the block ``bounds`` of rollout ``run`` (its :class:`_Worker` built on
    this thread's first block of the run and kept for the next ones)."""
    cached: tuple[str, _Worker] | None = getattr(_LOCAL, "worker", None)
    if cached is None or cached[0] != run:
        _LOCAL.worker = None
        cached = _LOCAL.worker = (run, _Worker(task))
    return cached[1].run(*bounds)


def _dask_blocks(task: _Task, blocks: Callable[[int], Iterator[tuple[int, int, tuple[int, ...] | None]]],
                 workers: int, address: str | None) -> Generator[np.ndarray, None, None]:
    """The blocks played as Dask tasks, on a local cluster of ``workers`` processes or the
    scheduler at ``address``, their results in trial order; ``blocks(n)`` cuts the trials for
    ``n`` workers.  The bots named by a recipe are first checked on every worker, and a
    worker lost more times than Dask retries a task is a :class:`RolloutWorkerError`.
    Closing the iterator cancels the tasks in flight and closes the client (and the local
    cluster)."""
    with dask_client(workers, address, preload=("bgfast.rollout.engine",)) as client:
        n = dask_workers(client, workers)
        recipes = (task.bot, task.evaluator, task.late_bot)
        check_bots_on_workers(client, [("", r.text()) for r in recipes if isinstance(r, BotRecipe)])
        remote = client.scatter(task, broadcast=True)
        run = uuid.uuid4().hex
        window: JobWindow[tuple[int, int, tuple[int, ...] | None], np.ndarray] = JobWindow(
            blocks(n), lambda bounds: client.submit(_dask_block, remote, run, bounds, pure=False), 2 * n + 2)
        try:
            yield from window.results()
        except Exception as exc:
            if type(exc).__name__ != "KilledWorker":
                raise
            lost = sorted(window.pending.values())
            trials = f"trials {lost[0][0]}-{lost[0][1] - 1}" if lost else "trials"
            raise RolloutWorkerError(f"a Dask worker died (killed?) while {trials} were being played, more times "
                                     "than Dask retries a task; the rollout is stopped") from None
        finally:
            for future in window.pending:
                future.cancel()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- lines and blocks


def _outcome_row(pos: Position, root_wins: bool, match: MatchState, met: MatchEquityTable | None,
                 root: int, cubeful: bool, checkers: int) -> tuple[float, ...]:
    """The six numbers of a game already over (the given play bore off the last checker)."""
    outcome = pos.outcome(checkers)
    assert outcome is not None
    row = Probabilities.from_outcome(root_wins, outcome.kind)
    points = match.game_value(outcome.points)
    value = 0.0
    if cubeful:
        if match.length == 0:
            value = (points if root_wins else -points) / match.cube_value
        else:
            a, b = match.away(root), match.away(1 - root)
            value = _mwc_after(met, a, b, root_wins, points)  # type: ignore[arg-type]
    return (*row, value)


def _mwc_after(met: MatchEquityTable, away: int, opp_away: int, won: bool, points: int) -> float:
    """The MWC of the side ``away`` points from winning once it has won (or lost) ``points``:
    the game was played with either side 1-away (post-Crawford) or not."""
    post = away == 1 or opp_away == 1
    return mwc(met, away - points, opp_away, post) if won else mwc(met, away, opp_away - points, post)


_GAMES_PER_BLOCK = 324
"""A block plays at most about this many games (trials times lines), so that the progress
bar moves every few seconds also when every play of a roll is rolled out."""


def _block_size(workers: int, lines: int = 1) -> int:
    """Trials per block: a divisor of :data:`CHECK_EVERY`, about four blocks per worker and
    round, and at most :data:`_GAMES_PER_BLOCK` games when a trial plays ``lines`` games
    (a game a line rolled out, two with the cube).

    >>> _block_size(1), _block_size(2), _block_size(324), _block_size(325)
    (324, 162, 1, 1)
    >>> _block_size(1, lines=20), _block_size(4, lines=2), _block_size(1, lines=1000)
    (16, 81, 1)
    """
    k = next((d for d in range(4 * workers, CHECK_EVERY + 1) if CHECK_EVERY % d == 0
              and (CHECK_EVERY // d) * lines <= max(_GAMES_PER_BLOCK, lines)), CHECK_EVERY)
    return CHECK_EVERY // k


def _next_check(n: int) -> int:
    """The next trial count at which a target error is checked (1296, 2592, ... then ~10% steps)."""
    return n + CHECK_EVERY * max(1, n // (10 * CHECK_EVERY))


# ---------------------------------------------------------------- the rollout


def rollout(position: Position | str, **options: Any) -> RolloutResult:
    """Roll a position out: play it to the end ``trials`` times with ``bot`` on both sides.

    Every number of the result is from the view of the side on roll in
    ``position``: before any dice, or with ``dice`` after rolling them: that
    side plays the roll first (``play``, or the bot's choice in every trial),
    then the game goes on with the opponent to roll; the result is still that
    side's.

    >>> result = rollout("4HPwATDgc/ABMA", trials=144, seed=1)
    >>> result.trials, result.strata, 0.5 < result.win.value < 0.6
    (144, 36, True)
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
    eXtreme Gammon: every rolled ply's luck, the roller's evaluator's
    probabilities after its best 0-ply play of the roll minus their average
    over all 36 rolls, is summed over the trial and subtracted from its
    cubeless result.  The evaluator is the playing bot's own where it has one
    (``neural``, ``heuristic``; as gnubg uses its own net), the heuristic's
    otherwise (pubeval, random, Python bots).  A neural evaluator seeks each
    roll's best play among pubeval's best :data:`LUCK_FILTER` plays of it (a
    move filter, as the heuristic's own play always uses): some three times
    cheaper than valuing every play, for about 10% more error.  The luck is a
    function of the roll minus its exact mean over the 36 rolls, so it has
    expectation zero and the estimate stays unbiased; it costs 21 extra move
    generations a ply and a few evaluations each.

    With ``cubeful=True`` the cubeful value is luck-adjusted too, on the cubeless
    scale (exact cubeful luck would need a cubeful evaluation of all 21 rolls a
    ply): the cubeful game measures its own luck as above, each ply's luck times
    the cube value it was rolled at (the cube is turned before the dice, so the
    weight is fixed before the roll and the weighted luck keeps its mean of zero),
    and subtracts it valued by a fixed linear map: money, the cubeless equity per
    initial cube; match, the dead-cube match winning chance of each of the five
    chances at the initial cube.  The adjusted cubeful equity and MWC stay
    unbiased and their standard errors (of the adjusted per-trial values, as
    above) shrink, much as the cubeless equity's do; the cubeful game's luck
    costs as much again as the cubeless game's.  ``plays=True`` ranks the plays by
    the luck-adjusted cubeful equity with the cube, else by the luck-adjusted
    cubeless equity, and gives each difference to the best its own error.
    :attr:`RolloutResult.luck_adjusted_figures` names the adjusted figures.

    :param position: a :class:`Position`, Position ID, ``PositionID:MatchID`` or XGID
        (the last two also give the match state).
    :param options: ``dice``, ``play``, ``plays``, ``bot``, ``evaluator``, ``match``,
        ``rules``, ``met``, ``cubeful``, ``trials``, ``seed``, ``workers``, ``truncate``,
        ``exact_bearoff``, ``target_se``, ``variance_reduction``, ``luck``, ``progress``,
        ``interruptible``, ``late_ply``, ``late_after``, ``truncate_ply``:
        the keyword arguments of :meth:`RolloutRequest.create
        <bgfast.rollout.request.RolloutRequest.create>`, which describes and checks them.
    :raises InvalidRolloutError: zero, negative or too many trials (above
        :data:`~bgfast.rollout.request.MAX_TRIALS`); zero or negative workers, plies or
        target, a finished position or match, a pending double, ``plays`` or
        ``play`` without dice, truncation with no evaluator, a position with
        more checkers than the variant has.
    :raises InvalidDiceError: bad dice.  :raises IllegalMoveError, InvalidMoveError: a bad play.
    :raises UnknownBotError: an unknown bot.
    :raises RolloutWorkerError: a worker process died (e.g. killed): its ``partial`` is the
        result of the trials finished before, kept as an interrupted rollout keeps them
        (None with too few; see ``interruptible``).
    :raises BotFailedError: a Python bot's own code raised, or returned no play or an
        illegal one, named by the bot's spec (its exception is the ``__cause__``).
    """
    return run_rollout(RolloutRequest.create(position, **options))


def run_rollout(request: RolloutRequest, *, previous: tuple[np.ndarray, int] | None = None,
                record: Callable[[np.ndarray, int], None] | None = None) -> RolloutResult:
    """Play the trials of a checked request and estimate from them (:func:`rollout`, once checked).

    :param previous: the numbers of trials ``0..n-1`` of this request already played
        (``(lines, n, 6)``, as ``record`` gets them) and their strata: only trials ``n`` on
        are played, and the result is that of all (:mod:`bgfast.rollout.saved`).
    :param record: called with the numbers of every trial kept and the strata, before the
        result is built (to save them).

    :raises InvalidRolloutError: with workers, a bot or evaluator that cannot be pickled;
        ``previous`` trials of other lines or strata, or more than asked for (as many: the
        result of those, no trial played).
    :raises RolloutWorkerError: a worker process died (e.g. killed); its ``partial`` is the
        result of the trials finished before (or None).
    """
    started = time.perf_counter()
    match, table, root = request.match, request.met, request.match.player_on_roll
    lines, moves, shown_play = _lines(request)
    strata, scripted = _sampling(request)
    if previous is not None:
        _check_previous(previous, len(lines), strata, request.trials)
    task = _Task(lines=lines, root=root, seed=request.seed, scripted_rolls=scripted, bot=portable_bot(request.bot),
                 evaluator=portable_bot(request.evaluator) if request.truncate is not None else None,
                 cubeful=request.cubeful, truncate=request.truncate or 0, exact_bearoff=request.exact_bearoff,
                 match=match, rules=request.rules, met=table,
                 cube_efficiency=float(getattr(request.bot, "cube_efficiency", 0.68)), luck=request.luck,
                 luck_filter=LUCK_FILTER,
                 late_bot=None if request.late_ply is None else portable_bot(request.late_bot()),
                 late_after=request.late_after or 0, truncate_ply=request.truncate_ply)

    se_scale = 1.0
    if request.cubeful and match.length:   # the target is in EMG, the trials hold MWC
        a, b = match.away(root), match.away(1 - root)
        se_scale = abs(table.mwc_to_emg(1.0, a, b, match.cube_value) - table.mwc_to_emg(0.0, a, b, match.cube_value))  # type: ignore[union-attr]
    pruning = None
    if request.prune_se is not None and len(lines) > 1:
        pruning = _Pruning(request.prune_se, PRUNE_EVERY[strata], list(range(len(lines))))
    if previous is not None and previous[0].shape[1] == request.trials:   # nothing to play: the saved result
        data, reached, interrupted, died = previous[0], None, False, None
        if pruning is not None:           # its drops, as the trials' check points made them
            for at in range(pruning.every, request.trials, pruning.every):
                pruning.check(data, task.cubeful, strata, at)
    else:
        data, reached, interrupted, died = _run(task, request.trials, request.workers, request.target_se, strata,
                                                request.progress, se_scale, request.interruptible, pruning,
                                                None if previous is None else previous[0], request.backend,
                                                request.scheduler)
    n = data.shape[1]
    result = _results(request.position, match, request.dice, shown_play, request.bot_name, n, request.seed, strata,
                      task.luck, request.truncate, data, moves, table, request.cubeful, time.perf_counter() - started,
                      pruning)
    result = dataclasses.replace(result, variant=request.rules.variant, target_se=request.target_se,
                                 target_reached=reached, interrupted=interrupted,
                                 trials_requested=request.trials if n != request.trials else None,
                                 late_ply=request.late_ply, late_after=request.late_after,
                                 truncate_ply=request.truncate_ply)
    if request.cube:
        result = dataclasses.replace(result, cube_decision=_cube_decision(request, data, strata, result))
    if record is not None:
        try:
            record(data, strata)
        except OutputFileError as exc:
            error = RolloutSaveError(str(exc), result)
            error.errno = exc.errno
            raise error from None
    if died is not None:
        raise RolloutWorkerError(f"{died}, with the result of the {n:,} trials finished before it (of "
                                 f"{request.trials:,} asked for)", partial=result)
    return result


def _check_previous(previous: tuple[np.ndarray, int], lines: int, strata: int, trials: int) -> None:
    """:raises InvalidRolloutError: trials saved of other lines or strata, or more than ``trials``."""
    data, saved_strata = previous
    if data.shape[0] != lines:
        raise InvalidRolloutError(f"the saved rollout has {data.shape[0]} lines rolled out, this one {lines}: "
                                  "not the same rollout")
    if data.shape[1] > trials:
        raise InvalidRolloutError(f"the saved rollout has {data.shape[1]:,} trials already: extend it to more "
                                  f"than that (or to as many, to see it again), not {trials:,}")
    if saved_strata != strata:
        n = data.shape[1]
        if saved_strata == 1296:
            example = -(-trials // 1296) * 1296
            raise InvalidRolloutError(f"the saved rollout stratifies its first two rolls over 1,296 pairs: extend it "
                                      f"to a multiple of 1,296 trials, e.g. {example:,} (not {trials:,})")
        if saved_strata == 36:
            example = trials + 36 if trials % 1296 == 0 else trials
            raise InvalidRolloutError(f"the saved rollout stratifies only its first roll, over the 36 rolls: extend "
                                      f"it to a number of trials that is not a multiple of 1,296, e.g. {example:,} "
                                      f"(not {trials:,})")
        raise InvalidRolloutError(f"the saved rollout's {n:,} trials sample the first rolls plainly (fewer than "
                                  f"{MIN_STRATIFIED_TRIALS}): extend it to at most {MIN_STRATIFIED_TRIALS - 1} "
                                  f"trials (not {trials:,}), or roll the position out again")


def _cube_decision(request: RolloutRequest, data: np.ndarray, strata: int, result: RolloutResult) -> Any:
    """The cube decision of a ``cube`` rollout from its two lines' cubeful values (no double,
    double/take; :mod:`bgfast.rollout.cube_decision`)."""
    match, table, root = request.match, request.met, request.match.player_on_roll
    taken = double_take_state(match, request.rules)
    if match.length == 0:      # points per unit of the current cube: double/take's trials are per the doubled cube
        double_take, double_pass = data[1, :, 5] * (taken.cube_value / match.cube_value), 1.0
    else:
        double_take = data[1, :, 5]
        double_pass = _mwc_after(table, match.away(root), match.away(1 - root), True,  # type: ignore[arg-type]
                                 match.cube_value)
    n = data.shape[1]
    return cube_rollout(request.position, match, request.rules, table, data[0, :, 5], double_take, double_pass,
                        variance_strata(n, strata), result.probabilities)


def _lines(request: RolloutRequest) -> tuple[tuple[_Line, ...], list[Move], str | None]:
    """What is rolled out: the lines, the plays they are (with ``plays``), and the play the report names."""
    pos, roll, match, root = request.position, request.dice, request.match, request.match.player_on_roll
    if request.cube:           # no double, then double/take: the side rolls at once in both
        taken = double_take_state(match, request.rules)
        return (_Line(pos.to_bytes(), root, no_double=True),
                _Line(pos.to_bytes(), root, cube=(taken.cube_value, taken.cube_owner), no_double=True)), [], None

    def line_after(move: Move) -> _Line:
        after = move.position
        if after.is_over():
            return _Line(after.to_bytes(), root, fixed=_outcome_row(after, True, match, request.met, root, request.cubeful,
                                                              request.checkers))
        return _Line(after.swap_sides().to_bytes(), 1 - root)

    if request.plays:
        moves = list(request.candidates) if request.candidates is not None else \
            sorted(pos.legal_moves(roll.high, roll.low), key=str)  # type: ignore[union-attr]
        return tuple(line_after(m) for m in moves), moves, None
    if request.play is not None:
        return (line_after(request.play),), [], str(request.play)
    if roll is not None:
        shown_play = None
        bot = request.bot
        if isinstance(bot, CoreBot) and bot.play_kind != PlayKind.PLAY_RANDOM:
            shown_play = str(bot.choose_move(pos, roll, dataclasses.replace(match, dice=(roll.high, roll.low))))
        return (_Line(pos.to_bytes(), root, roll.high, roll.low),), [], shown_play
    return (_Line(pos.to_bytes(), root),), [], None


def _sampling(request: RolloutRequest) -> tuple[int, int]:
    """The strata of the estimate and the rolls scripted (0, 1 or 2) for the trials of ``request``."""
    if not request.variance_reduction or request.trials < MIN_STRATIFIED_TRIALS:
        return 1, 0
    if request.trials % 1296 == 0:
        return 1296, 2
    return 36, 1


def _ranking_column(data: NDArray[np.float64], cubeful: bool) -> NDArray[np.float64]:
    """Per line and trial, the equity plays are ranked by (cubeful, or cubeless money equity)."""
    if cubeful:
        return data[..., 5]
    return cubeless_equities(data[..., :5])


def _blocks(total: int, size: int, first: int = 0) -> Iterator[tuple[int, int]]:
    for start in range(first, total, size):
        yield start, min(start + size, total)


PRUNE_EVERY = {1296: 1296, 36: 324, 1: 324}
"""Trials between two checks of the candidates still rolled out (``prune_se``), by the
strata: every 1296 trials when the first two rolls are stratified (whole rounds of them),
else every 324 (nine rounds of the 36 first rolls)."""


def _behind(ranking: NDArray[np.float64], active: list[int], strata: int, prune_se: float) -> list[int]:
    """The lines of ``active`` clearly behind the best of them: their per-trial difference to
    the best (``ranking``: ``(lines, n)``, the ranking equity of the same ``n`` trials) is
    more than ``prune_se`` standard errors below zero.

    >>> ranking = np.array([[1.0, 0.0] * 36, [0.9, -0.1] * 36, [0.5, 0.45] * 36])
    >>> _behind(ranking, [0, 1, 2], 1, 3.0)
    [1]
    """
    n = ranking.shape[1]
    vstrata = variance_strata(n, strata)
    best = max(active, key=lambda j: float(ranking[j].mean()))
    dropped = []
    for j in active:
        if j == best:
            continue
        mean, se = estimate_columns((ranking[j] - ranking[best])[:, None], vstrata)
        if mean[0] < 0.0 and not math.isnan(se[0]) and mean[0] + prune_se * se[0] < 0.0:
            dropped.append(j)
    return dropped


@dataclass
class _Pruning:
    """The candidates still rolled out, and the trials each dropped one was dropped after.

    A check at ``c`` trials (a multiple of :data:`PRUNE_EVERY`) looks at trials ``0..c-1``
    only, and a line dropped there keeps those: the same whatever the blocks and workers."""

    se: float
    every: int
    active: list[int]
    dropped_after: dict[int, int] = dataclasses.field(default_factory=dict)

    def check(self, data: NDArray[np.float64], cubeful: bool, strata: int, at: int) -> None:
        """Drop the lines clearly behind after the first ``at`` trials of ``data``."""
        if len(self.active) < 2:
            return
        ranking = _ranking_column(data[:, :at], cubeful)
        for j in _behind(ranking, self.active, strata, self.se):
            self.active.remove(j)
            self.dropped_after[j] = at

    def kept(self, line: int, n: int) -> int:
        """The trials of ``line`` kept, of ``n``."""
        return min(self.dropped_after.get(line, n), n)


def _run(task: _Task, trials: int, workers: int, target_se: float | None, strata: int,
         progress: bool | None, se_scale: float = 1.0, interruptible: bool = False,
         pruning: _Pruning | None = None, previous: np.ndarray | None = None, backend: str = "process",
         address: str | None = None) -> tuple[np.ndarray, bool | None, bool, RolloutWorkerError | None]:
    """Play the trials in blocks (in a pool if ``workers`` > 1): the ``(lines, n, 6)`` results
    in trial order, whether ``target_se`` was reached (None without one), whether the
    trials were ended early, and the pool's error when that was a worker's death.

    A :class:`KeyboardInterrupt` (``interruptible``) or a worker's death ends the trials
    early: the blocks finished before, in trial order, are kept in whole rounds of the
    strata (:func:`_kept_after_interrupt`); with too few, it is raised after all.

    With ``target_se``, stop at the first check point where every line's ranking
    equity has a standard error (times ``se_scale``: MWC to EMG) of at most the target
    (of the lines still rolled out, with ``pruning``).  With ``pruning``, the lines clearly
    behind are dropped at its check points (:class:`_Pruning`): their later blocks are not
    played (a block already handed to a worker is, and its rows past the drop are ignored).

    ``previous``: the numbers of the first trials, already played: the trials go on from there.

    ``backend`` ``"dask"``: the blocks are Dask tasks (:func:`_dask_blocks`), on a local
    cluster of ``workers`` or the scheduler at ``address``; a Ctrl-C keeps the blocks
    finished as the process pool's does.

    :raises RolloutWorkerError: a worker died before enough trials were finished to keep.
    """
    games = len(task.lines) * (2 if task.cubeful else 1)   # games a trial
    size = min(_block_size(workers, games), trials)
    dask = backend == "dask"
    if workers > 1 or dask:
        try:
            pickle.dumps(task)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise InvalidRolloutError(
                f"bot or evaluator cannot be sent to worker processes ({exc}); use workers=1"
                + (" and the process backend" if dask else "")
            ) from None
    workers = min(workers, -(-(trials - (0 if previous is None else previous.shape[1])) // size))   # a worker a block at most
    chunks: list[np.ndarray] = [] if previous is None else [previous]
    done = 0 if previous is None else previous.shape[1]
    check = _next_check(done)

    def reached(n: int) -> bool:
        values = _ranking_column(np.concatenate(chunks, axis=1), task.cubeful)
        vstrata = variance_strata(n, strata)
        lines = range(len(values)) if pruning is None else pruning.active
        worst = max(estimate_columns(values[j][:, None], vstrata)[1][0] for j in lines)
        return bool(worst * se_scale <= target_se)

    def blocks(size: int = size) -> Iterator[tuple[int, int, tuple[int, ...] | None]]:
        for a, b in _blocks(trials, size, done):   # the lines still rolled out when the block is handed out
            yield a, b, None if pruning is None else tuple(pruning.active)

    prune_at = trials if pruning is None else pruning.every
    pool: WorkerPool[tuple[int, int, tuple[int, ...] | None], np.ndarray] | None = None
    remote: Generator[np.ndarray, None, None] | None = None
    results: Iterator[np.ndarray]
    bar: Any = None
    interrupted, died = False, None
    try:
        if dask:   # its workers are spawned or forked from a fresh server: the bar's thread is no matter
            remote = _dask_blocks(task, lambda n: blocks(min(_block_size(n, games), trials)), workers, address)
            results = remote
        elif workers == 1:
            worker = _Worker(task)
            results = (worker.run(*bounds) for bounds in blocks())
        else:
            # the pool is started before the progress bar's thread exists (fork after threads is unsafe)
            pool = WorkerPool(_run_block, blocks(), workers=workers, ordered=True,
                              initializer=_set_task, initargs=(task,), on_worker_death=_worker_died)
            results = pool.results()
        bar = progress_bar(total=trials, unit="trial", leave=False, initial=done,
                           disable=None if progress is None else not progress, desc="rollout")
        for block in results:
            chunks.append(block)
            done += block.shape[1]
            bar.update(block.shape[1])
            while pruning is not None and done >= prune_at and prune_at < trials:
                pruning.check(np.concatenate(chunks, axis=1), task.cubeful, strata, prune_at)
                prune_at += pruning.every
            if target_se is not None and done >= check and done < trials:
                if reached(done):
                    break
                check = _next_check(done)
    except (KeyboardInterrupt, RolloutWorkerError) as exc:
        kept = _kept_after_interrupt(done, strata)
        if isinstance(exc, RolloutWorkerError):
            if kept == 0:
                raise RolloutWorkerError(f"{exc}, with no result") from None
            died = exc
        elif not interruptible or kept == 0:
            raise
        chunks = [np.concatenate(chunks, axis=1)[:, :kept]]
        done, interrupted = kept, True
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.close()
        if remote is not None:
            remote.close()
    return np.concatenate(chunks, axis=1), (None if target_se is None else reached(done)), interrupted, died


def _kept_after_interrupt(done: int, strata: int) -> int:
    """The trials of an interrupted rollout (or one whose worker died) that its estimate
    keeps, of the first ``done``:
    whole rounds of the stratified rolls, so that every stratum is as often played: rounds
    of the 36 first rolls (at least two) when they alone are stratified, of the 1296 pairs
    of first two rolls (at least one) when both are (trial ``i``'s second roll is
    ``ALL_36[i // 36]``: a part round would hold only some second rolls); at least two
    trials without strata; 0 when there are too few.

    >>> _kept_after_interrupt(3000, 1296), _kept_after_interrupt(1000, 1296), _kept_after_interrupt(1000, 36)
    (2592, 0, 972)
    >>> _kept_after_interrupt(71, 36), _kept_after_interrupt(5, 1)
    (0, 5)
    """
    if strata <= 1:
        return done if done >= 2 else 0
    kept = done - done % strata
    return kept if kept >= max(72, strata) else 0


def _estimate(values: np.ndarray, strata: int) -> list[Estimate]:
    mean, se = estimate_columns(values, strata)
    return [Estimate(float(m), float(s)) for m, s in zip(mean, se)]


def _results(pos: Position, match: MatchState, roll: Dice | None, shown_play: str | None, bot: str, n: int,
             seed: int, strata: int, luck: bool, truncate: int | None, data: np.ndarray, moves: list[Move],
             table: MatchEquityTable | None, cubeful: bool, seconds: float,
             pruning: _Pruning | None = None) -> RolloutResult:
    cube0 = match.cube_value

    def kept(j: int) -> int:
        return n if pruning is None else pruning.kept(j, n)

    def one(j: int, play: str | None, plays: tuple[PlayResult, ...] = ()) -> RolloutResult:
        rows = data[j, :kept(j)]
        vstrata = variance_strata(len(rows), strata)
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
            position=pos, match=match, dice=roll, play=play, bot=bot, trials=len(rows), seed=seed, strata=strata,
            truncate=truncate, win=est[0], win_gammon=est[1], win_backgammon=est[2], lose_gammon=est[3],
            lose_backgammon=est[4], equity=est[5], cubeful_equity=cf, cubeful_mwc=mwc, seconds=seconds,
            plays=plays, luck_adjusted=luck,
        )

    if not moves:
        return one(0, shown_play)
    singles = [one(j, str(m)) for j, m in enumerate(moves)]
    ranking = _ranking_column(data, cubeful)
    dropped = {} if pruning is None else pruning.dropped_after
    best = max((j for j in range(len(moves)) if j not in dropped), key=lambda j: singles[j].ranking_equity.value)
    if pruning is None:
        diff_est = _estimate((ranking - ranking[best]).T, variance_strata(n, strata))
    else:   # a dropped play's difference over its trials (the best is never dropped: it has them all)
        diff_est = [_estimate((ranking[j, :kept(j)] - ranking[best, :kept(j)])[:, None],
                              variance_strata(kept(j), strata))[0] for j in range(len(moves))]
    if cubeful and match.length:
        a, b = match.away(match.player_on_roll), match.away(1 - match.player_on_roll)
        scale = table.mwc_to_emg(1.0, a, b, cube0) - table.mwc_to_emg(0.0, a, b, cube0)  # type: ignore[union-attr]
        diff_est = [Estimate(scale * e.value, abs(scale) * e.se) for e in diff_est]
    order = sorted(range(len(moves)), key=lambda j: (j in dropped, -singles[j].ranking_equity.value, str(moves[j])))
    ranked = tuple(PlayResult(move=str(moves[j]), position_id=moves[j].position.id(), result=singles[j],
                              difference=diff_est[j],
                              dropped_after=None if pruning is None else pruning.dropped_after.get(j))
                   for j in order)
    return dataclasses.replace(singles[best], plays=ranked)


def _bot_name(bot: object) -> str:
    """A bot as a failure names it: an outside engine by its label (its program's name),
    any other bot by its spec."""
    label = getattr(bot, "label", None)
    return label if isinstance(label, str) and label else BotRecipe.of(bot).text()
