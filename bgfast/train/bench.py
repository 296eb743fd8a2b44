"""Speed of the neural net against GNU Backgammon's (gnubg-nn), on the same work.

Three figures, one core each, ours and gnubg_nn's (``bgfast bench neural [--json]``),
measured in CPU time of this process (both run in it), so that other work on a
shared machine does not skew the ratios:

* evaluations per second at 0 ply, on distinct positions from self-play that no
  evaluator has seen before (gnubg_nn caches evaluations, so each side gets its
  own fresh positions of the same kind): ours in batch
  (:meth:`~bgfast._core.neural.Model.evaluate_batch`), gnubg_nn's
  ``probabilities(board, 0)`` in a loop (it has no batch call);
* checker-play decisions per second at 0 ply on the same positions and dice:
  :meth:`~bgfast._core.neural.Model.choose_batch` against ``best_move``;
* checker-play decisions per second at 2 plies on the first ``deep_positions`` of those
  positions and dice: the ``neural:ply=2`` bot's evaluator (the core's search with gnubg's
  default move filters and its default replies, the 0-ply play below the root as in
  gnubg's tree, :mod:`bgfast._core.search`) against ``best_move(..., n=2)``
  (``decisions_2ply_per_s``, ``gnubg_nn_decisions_2ply_per_s``, ``decisions_2ply_ratio``);
* self-play games per second at 0 ply, cubeless, no Jacoby rule, in the C game loop:
  the ``neural`` bot one match a call from Python (:class:`bgfast._core.game.MatchRunner`,
  what tournaments and rollouts play; ``games_per_s``) and the training's games, all in
  one call (:meth:`~bgfast._core.training.SelfPlay.versus`; ``train_games_per_s``),
  against a Python loop over gnubg_nn's ``best_move`` on the same dice (bgfast's dice
  streams).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from bgfast._core import neural as _neural
from bgfast._core import rng as _rng
from bgfast.position import VARIANTS
from bgfast.train.config import self_play

__all__ = ["bench_neural", "format_bench", "unseen_positions"]


def unseen_positions(model: _neural.Model, n: int, seed: int) -> np.ndarray:
    """``n`` distinct positions (side 1 on roll, (n, 50) uint8) from 0-ply self-play of run ``seed``."""
    out: list[np.ndarray] = []
    seen: set[bytes] = set()
    first = 0
    games = self_play(model)
    while sum(len(b) for b in out) < n:
        boards = games.positions(seed, first, 200, 1)
        first += 200
        keep = []
        for row in boards:
            key = row.tobytes()
            if key not in seen:
                seen.add(key)
                keep.append(row)
        if keep:
            out.append(np.array(keep, dtype=np.uint8))
    return np.concatenate(out)[:n].copy()


def _dice(n: int, seed: int) -> np.ndarray:
    stream = _rng.Stream(seed, 0, 0)
    return np.array([[stream.die(), stream.die()] for _ in range(n)], dtype=np.int64)


def _gnubg_game(nn: Any, seed: int, index: int) -> int:
    """One cubeless gnubg_nn 0-ply self-play game on the dice of game ``index``; its plies."""
    dice = _rng.Stream(seed, index, 0)
    board = [list(VARIANTS["standard"][1]), list(VARIANTS["standard"][1])]
    while True:
        a, c = dice.die(), dice.die()
        if a != c:
            break
    d1, d2, plies = a, c, 0
    while True:
        result = nn.best_move(board, max(d1, d2), min(d1, d2), n=0, b=1)
        key = result[1] if isinstance(result, tuple) and len(result) > 1 else None
        if key:
            board = [list(s) for s in nn.board_from_position_key(key)]
        else:                               # no legal play: the turn passes
            board = [board[1], board[0]]
        plies += 1
        if sum(board[0]) == 0:              # the side that just moved has borne off everything
            return plies
        d1, d2 = dice.die(), dice.die()


_PEERS = {"evals": "evals", "decisions": "decisions", "decisions_2ply": "decisions_2ply", "games": "games",
          "train_games": "games"}
"""Each figure's gnubg_nn counterpart."""


def _self_play_runner(model: _neural.Model) -> Any:
    """The C game loop's runner of cubeless self-play by the ``neural`` bot with ``model``."""
    from bgfast.bots.neural import NeuralBot
    from bgfast.bots.neural_weights import Weights
    from bgfast.game import make_runner
    from bgfast.match import Rules

    bot = NeuralBot(cube="never", weights=Weights.of(model))
    return make_runner(bot, bot, rules=Rules(jacoby=False))


def _two_ply_evaluator(model: _neural.Model) -> Any:
    """The ``neural:ply=2`` bot's evaluator with ``model`` (the core's 2-ply search)."""
    from bgfast.bots.neural import NeuralBot
    from bgfast.bots.neural_weights import Weights

    return NeuralBot(ply=2, cube="never", weights=Weights.of(model)).evaluator


def bench_neural(model: _neural.Model, *, positions: int = 20000, games: int = 200, seed: int = 1,
                 gnubg: bool = True, repeats: int = 3, deep_positions: int = 100) -> dict[str, Any]:
    """The figures, as the ``--json`` of ``bgfast bench neural`` prints them.

    Each figure is measured ``repeats`` times, ours and gnubg_nn's in turn, each time on
    positions (and dice) neither has seen, the same for both; the best rate of each is
    kept: on a shared machine the slow outliers are the other work's.
    """
    nn: Any = None
    skipped: str | None = None           # why gnubg-nn was not measured, as bgfast bench's other figures say
    if gnubg:
        try:
            import gnubg_nn

            nn = gnubg_nn
        except ImportError:
            skipped = "gnubg_nn is not installed (pip install 'bgfast[gnubg]')"
    sets = unseen_positions(model, 2 * repeats * positions, seed)
    rates: dict[str, float] = {}

    def keep(name: str, count: int, seconds: float) -> None:
        rates[name] = max(rates.get(name, 0.0), count / max(seconds, 1e-9))

    plies: np.ndarray = np.zeros(0)
    runner = _self_play_runner(model)
    deep = _two_ply_evaluator(model)
    deep_positions = min(deep_positions, positions)
    training = self_play(model)
    if nn is not None:
        nn.set.score(0, 0)
        nn.set.cube(1)
    for r in range(repeats):
        evals = sets[2 * r * positions:(2 * r + 1) * positions]
        moves = sets[(2 * r + 1) * positions:(2 * r + 2) * positions]
        dice = _dice(positions, seed + r)
        t = time.process_time()
        model.evaluate_batch(evals)
        keep("evals_per_s", positions, time.process_time() - t)
        t = time.process_time()
        model.choose_batch(moves, dice)
        keep("decisions_per_s", positions, time.process_time() - t)
        t = time.process_time()
        for row, (d1, d2) in zip(moves[:deep_positions], dice[:deep_positions]):
            deep.choose(row.tobytes(), int(d1), int(d2))
        keep("decisions_2ply_per_s", deep_positions, time.process_time() - t)
        t = time.process_time()
        _, plies = training.versus("neural", "neural", seed, r * games, games)
        keep("train_games_per_s", games, time.process_time() - t)
        t = time.process_time()
        for i in range(games):
            runner.play(seed, r * games + i)
        keep("games_per_s", games, time.process_time() - t)
        if nn is None:
            continue
        boards = [[list(row[:25]), list(row[25:])] for row in evals]
        t = time.process_time()
        for b in boards:
            nn.probabilities(b, 0)
        keep("gnubg_nn_evals_per_s", positions, time.process_time() - t)
        boards = [[list(row[:25]), list(row[25:])] for row in moves]
        t = time.process_time()
        for b, (d1, d2) in zip(boards, dice):
            nn.best_move(b, int(max(d1, d2)), int(min(d1, d2)), n=0, b=1)
        keep("gnubg_nn_decisions_per_s", positions, time.process_time() - t)
        t = time.process_time()
        for b, (d1, d2) in zip(boards[:deep_positions], dice[:deep_positions]):
            nn.best_move(b, int(max(d1, d2)), int(min(d1, d2)), n=2, b=1)
        keep("gnubg_nn_decisions_2ply_per_s", deep_positions, time.process_time() - t)
        n = max(1, games // 4)
        t = time.process_time()
        for i in range(n):
            _gnubg_game(nn, seed, r * games + i)
        keep("gnubg_nn_games_per_s", n, time.process_time() - t)
    out: dict[str, Any] = {"positions": positions, "deep_positions": deep_positions, "games": games,
                           "repeats": repeats, **rates,
                           "plies_per_game": float(plies.mean()) if len(plies) else 0.0,
                           "gnubg_nn_skipped": skipped}
    if nn is not None:
        for kind, peer in _PEERS.items():
            out[f"{kind}_ratio"] = out[f"{kind}_per_s"] / out[f"gnubg_nn_{peer}_per_s"]
    return out


def format_bench(result: dict[str, Any]) -> str:
    """The figures as text, one line each."""
    lines = []
    for kind, unit in (("evals", "evaluations/s"), ("decisions", "decisions/s"),
                       ("decisions_2ply", "decisions/s"), ("games", "games/s"), ("train_games", "games/s")):
        line = f"{kind:<14} neural {result[kind + '_per_s']:>12,.0f} {unit}"
        if kind + "_ratio" in result:
            line += (f"   gnubg_nn {result['gnubg_nn_' + _PEERS[kind] + '_per_s']:>12,.0f}"
                     f"   x{result[kind + '_ratio']:.1f}")
        lines.append(line)
    if result.get("gnubg_nn_skipped"):
        lines.append(f"gnubg_nn not measured: {result['gnubg_nn_skipped']}")
    return "\n".join(lines)
