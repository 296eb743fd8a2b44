"""Supervised refinement: the net fit to its own deeper look-ahead, on the plays it must rank.

TD self-play trains the net on the positions its games reach, the ones after its chosen
plays; to choose a play it must also value the plays it did not choose.  A refinement run

1. plays ``games`` 0-ply self-play games of the starting net (dice of run ``seed``) and
   keeps, at every ``stride``-th roll, the positions after its best ``most`` plays within
   ``window`` (cubeless equity) of the best, the *candidates*
   (:meth:`bgfast._core.training.SelfPlay.candidates`), and every ``stride``-th
   position before a roll (:meth:`~bgfast._core.training.SelfPlay.positions`);
2. labels each with the starting net's ``plies``-ply probabilities
   (:meth:`bgfast._core.evaluator.CoreEvaluator.on_roll_batch`: the average over the 21
   rolls of the value after the 0-ply play, itself valued ``plies - 1`` plies deep);
3. fits the net to the labels by Adam (Kingma and Ba 2015) on minibatches in a seeded
   order, minimizing the cross-entropy of its five conditional outputs, the loss of TD
   training (:mod:`bgfast._core.neural`), plus ``rank_weight`` times the squared error of
   each candidate's equity *relative to the other candidates of its roll* (the label's
   equity minus the mean of its roll's labels, against the same of the net's), the part of
   the value that decides the play; a cosine learning-rate schedule; a held-out share of
   the positions (a roll's candidates together, with the term) gives the validation figures;
4. with ``lookahead_weight``, also fits the *look-ahead ranking term*: the same relative
   error of the candidates' 1-ply equity (the mean over the 21 rolls of the net's value
   after the start net's reply, the value a 1-ply search compares) against their
   ``lookahead_plies``-ply labels (``lookahead.npz``: the candidates' rows, replies and
   labels).  The 0-ply term leaves each roll's level free; a 1-ply search compares the
   levels of positions a roll apart, so without this term the net's 1-ply play was no
   better than its 0-ply play;
5. with ``lookahead_value_weight``, also fits the *look-ahead value term*: the squared
   error of the rollout-labelled positions' 1-ply equity against their rollouts'
   (``lookahead_value.npz``: their rows and replies), so that the values a 1-ply search
   averages are right on average, not only each position's own 0-ply value.

Every label comes from bgfast's own net: gnubg only measures the result.  The fit is
plain numpy (float32), so training needs nothing beyond bgfast's own dependencies.

A run folder holds ``start.bgw`` (the starting net), ``block-NNNN.npz`` (the labelled
positions of ``block_games`` games each, ``boards`` (n, 50) uint8, ``targets`` (n, 5)
float32 and ``decisions`` (n,) int64: the roll within the block a candidate came from, -1
for the positions before the rolls), ``lookahead.npz`` (with ``lookahead_weight``: the
candidates' rows, replies and labels, the settings and a SHA-256 of the positions they
were drawn for, and a SHA-256 of it all), ``lookahead_value.npz`` (with
``lookahead_value_weight``: the rollout-labelled positions' rows and replies, the same
SHA-256s), ``fit.npz`` (the weights and Adam's moments
after each epoch), ``refined.bgw`` (the result, its facts in the meta) and ``log.txt``.
Each file is replaced atomically, so a run killed at any moment resumes where it was,
and the same config and start give the same net on the same build: a position's label
does not depend on the threads that computed it, and the fit's order is seeded.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from bgfast._core import neural as _neural
from bgfast._core.training import PLAYERS
from bgfast.bots.neural_weights import Weights
from bgfast.dice import ALL_21
from bgfast.errors import InvalidSpecError
from bgfast.train.checkpoint import LOG, load_checkpoint, save_checkpoint, unreadable
from bgfast.train.config import changed_settings, self_play
from bgfast.train.curve import paired_ppg
from bgfast.validation import real_number, whole_number, write_output_file

__all__ = ["RefineConfig", "label_positions", "refine_positions", "fit_net", "run_refine", "NetFit", "Lookahead",
           "lookahead_positions", "lookahead_value_positions", "lookahead_equity", "lookahead_error"]

START = "start.bgw"
REFINED = "refined.bgw"
FIT = "fit.npz"
LOOKAHEAD = "lookahead.npz"
LOOKAHEAD_VALUE = "lookahead_value.npz"
_F32 = NDArray[np.float32]


@dataclass(frozen=True)
class RefineConfig:
    """Settings of a refinement run; the same settings and start give the same net.

    :ivar seed: the run seed: the dice of the self-play games, the fit's order and the
        held-out positions.
    :ivar games: self-play games the positions come from.
    :ivar block_games: games a block (a block is labelled and saved at once).
    :ivar stride: keep every ``stride``-th roll's candidates and position.
    :ivar most: candidate plays a roll (1 to 64).
    :ivar window: candidates have a cubeless equity within this of the best.
    :ivar on_policy: also keep the positions before the rolls.
    :ivar opponents: who plays the other side of the games, comma-separated names of
        :data:`bgfast._core.training.PLAYERS` taken in turn block by block (``"neural,pubeval"``:
        even blocks are self-play, odd ones against pubeval), so the net also learns the
        positions other styles lead to; the labels are the net's own all the same.
    :ivar explore: the chance that a decision of the net plays one of its candidates at
        random instead of the best (more varied games).
    :ivar plies: the teacher's look-ahead, 0 to 3 (2 costs about 21 times 1; 0, the net's
        own values, keeps what the net knows while ``rollouts`` teach it more).
    :ivar rank_weight: the weight in the loss, next to the cross-entropy, of the squared
        relative equity error of a candidate: its net equity minus the mean of its roll's
        candidates, against the same of the labels (cubeless equity in points, so the
        ranking of the plays of a roll); 0 fits the cross-entropy alone, as the rounds
        before it was added were fit.  40 took the net's checker-play error from 3.12 to
        2.78 millipoints a decision in offline fits to the same labels (model card).  It
        weighs the fits of the contact, backgame and crashed nets; the race net's has its own,
        ``race_rank_weight``.
    :ivar race_rank_weight: ``rank_weight`` for the race net.  0 (the default) fits its
        races best: offline on round 9's labels the race net fit with 0 lost 0.24
        millipoints a race decision at 0 ply and 0.36 at 1 ply, with 40 0.32 and 0.45 (model
        card).
    :ivar lookahead_weight: the weight of the *look-ahead ranking term* (0: none), for the
        contact net alone: for ``lookahead_rolls`` rolls of the self-play candidates (contact
        positions, two or more candidates, every reply a contact position: not a back game,
        crashed or prime-versus-prime position, whose nets the term does not fit), the squared
        relative equity error, as ``rank_weight``'s, of each candidate's 1-ply value (the
        average over the 21 rolls of the net's value after the start net's 0-ply reply,
        :meth:`~bgfast._core.evaluator.CoreEvaluator.replies_batch`) against its
        ``lookahead_plies``-ply label by the start net.  The 0-ply ranking term fits the
        order of a roll's plays but leaves each position's level free, and the 1-ply search
        compares levels of positions a roll apart: with 40 (and ``deep_rank_weight`` 40) round
        14's 1-ply checker play went from 2.36 to 1.89 millipoints a decision, at a cost of
        about 0.003 ppg at 0 ply (model card, stage 10).
    :ivar lookahead_rolls: rolls the look-ahead term fits (drawn in a seeded order from the
        self-play blocks' rolls; fewer if the blocks have fewer).
    :ivar lookahead_plies: the plies of the look-ahead term's labels, 2 or 3 (deeper than
        the 1-ply value it fits).
    :ivar deep_rank_weight: the weight of the same relative error of the look-ahead term's
        candidates' 0-ply equity against the same deeper labels (0: none), so that the 0-ply
        order of their plays follows the labels the 1-ply values are fit to rather than only
        the start's own 0-ply labels.
    :ivar lookahead_value_weight: the weight of the *look-ahead value term* (0: none; it
        needs ``rollouts``): for the rollout-labelled positions of each net the fit moves
        whose 21 replies (the start net's 0-ply plays,
        :meth:`~bgfast._core.evaluator.CoreEvaluator.replies_batch`) are all positions of
        that net, the squared error of their 1-ply cubeless equity by the net (minus the
        chance-weighted mean of its equity of the replies: the value a 1-ply search gives
        them) against their rollout's equity, in points.  The rollouts' cross-entropy fits
        each position's own 0-ply value; a 1-ply search averages the values of the positions
        a roll later, and the errors those share do not average out.
    :ivar epochs: passes over the positions.
    :ivar lr: Adam's peak learning rate (after a warm-up of 5% of the steps, then a cosine
        decay to 0).
    :ivar batch: positions a step.
    :ivar held_out: the share of positions kept out of the fit, for the validation figures
        (0.001 to 0.5); with a ``rank_weight``, a roll's candidates are held out together.
    :ivar threads: threads labelling positions (the labels do not depend on it).
    :ivar rollouts: folders of rollout labels (:mod:`bgfast.train.rollout_labels`), separated
        by commas, each ``FOLDER`` or ``FOLDER:N`` (its first ``N`` blocks; ``N`` 0 or left
        out: every block there), whose positions join the fit with their rollout targets
        ("" = none); they are not candidates of a roll, so the ranking term does not weigh
        them.  A new run records each folder as an absolute path with its blocks:
        ``rollout_blocks`` for one folder named without ``N``, ``FOLDER:N`` for the others.
    :ivar rollout_blocks: the first this many blocks of a single ``rollouts`` folder (all of
        them must be there; 0 = every block there when the run starts, recorded in the meta).
    :ivar rollout_weight: the weight of a rollout-labelled position's cross-entropy.
    :ivar self_weight: the weight of a self-labelled position's cross-entropy (the
        ranking term's weight is ``rank_weight`` all the same), for the contact net.
    :ivar race_self_weight: ``self_weight`` for the race net (0: the race net learns from
        the rollouts alone, which value races better than its own look-ahead does).
    :ivar nets: the nets the fit moves, names of :data:`bgfast._core.neural.NETS` separated
        by commas (stored in the order of ``NETS``: any order names the same run); the others are the start's, bit for bit (``"race"``
        refits the race net alone, and every position with contact is valued as before),
        and only the positions of the nets named are labelled and kept in the blocks (the
        race net's are about a seventh of the candidates of self-play).  A net with no
        positions to fit is kept as the start's.  From a start without a backgame or crashed
        net of its own (a file written before it: that net is a copy of its contact net,
        which valued those positions), nets that name ``contact`` must name that net too,
        or those positions would be left to the old contact net.
    :ivar contact_hidden: hidden units of the contact, backgame and crashed nets, widened from the
        start's before the fit (function-preserving, :func:`bgfast.train.td.widen`, the new
        units' input weights normal with deviation 0.1 from ``seed``); 0 keeps the start's.
    :ivar race_hidden: the same for the race net.  Only a net that ``nets`` names may be
        widened.
    :ivar eval_pairs: paired games against pubeval of the result (dice of run ``eval_seed``).
    :ivar eval_seed: the run seed of those games.
    """

    seed: int = 1
    games: int = 30000
    block_games: int = 2000
    stride: int = 3
    most: int = 6
    window: float = 0.16
    on_policy: bool = True
    opponents: str = "neural"
    explore: float = 0.0
    plies: int = 1
    rank_weight: float = 40.0
    race_rank_weight: float = 0.0
    lookahead_weight: float = 0.0
    lookahead_rolls: int = 12000
    lookahead_plies: int = 2
    deep_rank_weight: float = 0.0
    lookahead_value_weight: float = 0.0
    epochs: int = 6
    lr: float = 0.001
    batch: int = 512
    held_out: float = 0.05
    threads: int = 2
    rollouts: str = ""
    rollout_blocks: int = 0
    rollout_weight: float = 1.0
    self_weight: float = 1.0
    race_self_weight: float = 1.0
    nets: str = ",".join(_neural.NETS)
    contact_hidden: int = 0
    race_hidden: int = 0
    eval_pairs: int = 10000
    eval_seed: int = 99

    def __post_init__(self) -> None:
        for name in ("seed", "eval_seed", "eval_pairs"):
            whole_number(getattr(self, name), name, low=0, error=InvalidSpecError)
        for name in ("games", "block_games", "stride", "epochs", "batch", "threads"):
            whole_number(getattr(self, name), name, low=1, error=InvalidSpecError)
        whole_number(self.most, "most", low=1, high=64, error=InvalidSpecError)
        whole_number(self.plies, "plies", low=0, high=3, error=InvalidSpecError)
        whole_number(self.rollout_blocks, "rollout_blocks", low=0, error=InvalidSpecError)
        whole_number(self.lookahead_rolls, "lookahead_rolls", low=1, error=InvalidSpecError)
        whole_number(self.lookahead_plies, "lookahead_plies", low=2, high=3, error=InvalidSpecError)
        if self.rollouts:
            from bgfast.train.rollout_labels import parse_sources

            parse_sources(self.rollouts, self.rollout_blocks)
        for name in ("contact_hidden", "race_hidden"):
            whole_number(getattr(self, name), name, low=0, high=_neural.MAX_HIDDEN, error=InvalidSpecError)
            if getattr(self, name) % 8:
                raise InvalidSpecError(f"{name} must be 0 or a multiple of 8, got {getattr(self, name)}")
        names = self.nets.split(",") if isinstance(self.nets, str) else [None]
        if not all(name in _neural.NETS for name in names) or len(set(names)) < len(names):
            raise InvalidSpecError(f"nets must be names of {', '.join(_neural.NETS)} separated by commas, "
                                   f"each once, got {self.nets!r}")
        object.__setattr__(self, "nets", ",".join(net for net in _neural.NETS if net in names))
        if self.race_hidden and "race" not in names:
            raise InvalidSpecError("race_hidden widens the race net, which nets does not name")
        if self.contact_hidden and not {"contact", "backgame", "crashed"} & set(names):
            raise InvalidSpecError("contact_hidden widens the contact, backgame and crashed nets, which nets does "
                                   "not name")
        real_number(self.rollout_weight, "rollout_weight", low=0.0, error=InvalidSpecError)
        real_number(self.self_weight, "self_weight", low=0.0, error=InvalidSpecError)
        real_number(self.race_self_weight, "race_self_weight", low=0.0, error=InvalidSpecError)
        real_number(self.window, "window", low=0.0, error=InvalidSpecError)
        real_number(self.rank_weight, "rank_weight", low=0.0, error=InvalidSpecError)
        real_number(self.race_rank_weight, "race_rank_weight", low=0.0, error=InvalidSpecError)
        real_number(self.lookahead_weight, "lookahead_weight", low=0.0, error=InvalidSpecError)
        real_number(self.deep_rank_weight, "deep_rank_weight", low=0.0, error=InvalidSpecError)
        if self.deep_rank_weight and not self.lookahead_weight:
            raise InvalidSpecError("deep_rank_weight ranks the look-ahead term's candidates: give a lookahead_weight")
        if self.lookahead_weight and "contact" not in names:
            raise InvalidSpecError("lookahead_weight fits the contact net, which nets does not name")
        real_number(self.lookahead_value_weight, "lookahead_value_weight", low=0.0, error=InvalidSpecError)
        if self.lookahead_value_weight and not self.rollouts:
            raise InvalidSpecError("lookahead_value_weight fits the 1-ply values of rollout-labelled positions: "
                                   "give rollouts")
        real_number(self.explore, "explore", low=0.0, high=1.0, error=InvalidSpecError)
        unknown = [name for name in self.opponents.split(",") if name not in PLAYERS]
        if unknown or not self.opponents:
            raise InvalidSpecError(f"opponents must be names of {', '.join(PLAYERS)} separated by commas, "
                                   f"got {self.opponents!r}")
        real_number(self.lr, "lr", low=0.0, error=InvalidSpecError)
        real_number(self.held_out, "held_out", low=0.001, high=0.5, error=InvalidSpecError)
        if not isinstance(self.on_policy, bool):
            raise InvalidSpecError(f"on_policy must be true or false, got {self.on_policy!r}")

    @property
    def blocks(self) -> int:
        """Blocks of positions: ``games`` in blocks of ``block_games`` (the last may be short)."""
        return -(-self.games // self.block_games)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def saved(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings of a run folder written by an older bgfast, with the settings it did
        not have yet at the values that reproduce it (``rank_weight`` 0, ``race_rank_weight``
        the ``rank_weight``)."""
        old = {"rank_weight": 0.0, "rollouts": "", "rollout_blocks": 0, "rollout_weight": 1.0, "self_weight": 1.0,
               "race_self_weight": 1.0, "nets": ",".join(_neural.NETS), "contact_hidden": 0, "race_hidden": 0,
               "lookahead_weight": 0.0, "lookahead_rolls": 12000, "lookahead_plies": 2, "deep_rank_weight": 0.0,
               "lookahead_value_weight": 0.0, **settings}
        return {"race_rank_weight": old["rank_weight"], **old}


REFINE_RESUMABLE = ("threads", "eval_pairs", "eval_seed")
"""Settings a resumed refinement may change: they do not change the net."""


def label_positions(model: _neural.Model, boards: NDArray[np.uint8], plies: int = 1, *, threads: int = 1,
                    block: int = 1024) -> _F32:
    """The ``plies``-ply probabilities (n, 5) float32 of each (n, 50) board (side 1 on roll)
    by the net of ``model`` through the core's evaluator dispatch, ``threads`` at once (the
    core releases the GIL; the result does not depend on ``threads``).  Each reply below the
    root is the net's 0-ply play (the search's greedy filters)."""
    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
    from bgfast._core.search import GREEDY_FILTERS

    evaluator = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, filters=GREEDY_FILTERS)
    starts = range(0, len(boards), block)
    out = np.zeros((len(boards), 5), dtype=np.float32)

    def one(start: int) -> None:
        out[start:start + block] = evaluator.on_roll_batch(np.ascontiguousarray(boards[start:start + block]), plies)

    if threads <= 1:
        for start in starts:
            one(start)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, starts))
    return out


def refine_positions(model: _neural.Model, config: RefineConfig,
                     block: int) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """The unlabelled positions (n, 50) of block ``block``, candidates first, then (with
    ``on_policy``) the positions before the rolls of the net's greedy self-play; and (n,)
    the roll of the block each candidate came from (-1 for the positions before the rolls)."""
    first = block * config.block_games
    games = min(config.block_games, config.games - first)
    names = config.opponents.split(",")
    games_of = self_play(model)
    candidates, decisions = games_of.candidates(config.seed, first, games, config.stride, config.most,
                                                config.window, config.explore, names[block % len(names)])
    if not config.on_policy:
        return candidates, decisions
    before = games_of.positions(config.seed, first, games, config.stride)
    return np.concatenate([candidates, before]), np.concatenate([decisions, np.full(len(before), -1, np.int64)])


# ---------------------------------------------------------------- the fit


@dataclass
class NetFit:
    """One net's weights and Adam's state, in the core's layout (``w1`` inputs x hidden)."""

    w1: _F32
    b1: _F32
    w2: _F32
    b2: _F32
    moments: dict[str, tuple[_F32, _F32]]
    step: int = 0

    @classmethod
    def of(cls, weights: Weights, net: str) -> NetFit:
        arrays = {part: weights.arrays[f"{net}.{part}"].copy() for part in ("w1", "b1", "w2", "b2")}
        moments = {part: (np.zeros_like(a), np.zeros_like(a)) for part, a in arrays.items()}
        return cls(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], moments)

    def params(self) -> dict[str, _F32]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}


def _inputs(fit: NetFit, boards: NDArray[np.uint8]) -> tuple[_F32, _F32]:
    """The inputs (n, rows of ``fit.w1``) of each board for ``fit``'s net and the mask of its
    outputs (:func:`bgfast._core.neural.inputs_batch`): the shared inputs, and for the race
    net its own after them (:func:`bgfast._core.neural.race_inputs_batch`)."""
    boards = np.ascontiguousarray(boards)
    x, _, mask = _neural.inputs_batch(boards)
    if fit.w1.shape[0] > _neural.INPUTS:
        x = np.concatenate([x, _neural.race_inputs_batch(boards)], axis=1)
    return x, mask


def _sigmoid(x: _F32) -> _F32:
    return (1.0 / (1.0 + np.exp(-np.clip(x, -30.0, 30.0)))).astype(np.float32)


def _conditional(t: _F32) -> tuple[_F32, _F32]:
    """The targets of the five conditional outputs and their weights (the probability of the
    condition), from joint probabilities ``t`` (n, 5)."""
    eps = np.float32(1e-6)
    win, wg, wbg, lg, lbg = (t[:, k] for k in range(5))
    weight = np.stack([np.ones_like(win), win, wg, 1 - win, lg], axis=1)
    target = np.stack([win, wg / np.maximum(win, eps), wbg / np.maximum(wg, eps),
                       lg / np.maximum(1 - win, eps), lbg / np.maximum(lg, eps)], axis=1)
    return np.clip(target, 0.0, 1.0).astype(np.float32), weight.astype(np.float32)


def _forward(fit: NetFit, x: _F32) -> tuple[_F32, _F32]:
    h = _sigmoid(x @ fit.w1 + fit.b1)
    return h, _sigmoid(h @ fit.w2.T + fit.b2)


def _joint(o: _F32, mask: _F32) -> _F32:
    win = o[:, 0]
    wg = win * o[:, 1] * mask[:, 1]
    lg = (1 - win) * o[:, 3] * mask[:, 3]
    return np.stack([win, wg, wg * o[:, 2] * mask[:, 2], lg, lg * o[:, 4] * mask[:, 4]], axis=1)


def _equity(p: _F32) -> _F32:
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def _equity_gradient(o: _F32, mask: _F32) -> _F32:
    """The derivative (n, 5) of the cubeless equity of :func:`_joint` ``(o, mask)`` by each output."""
    win = o[:, 0]
    o1, o2, o3, o4 = (o[:, k] * mask[:, k] for k in range(1, 5))
    return np.stack([2 + o1 + o1 * o2 + o3 + o3 * o4, win * mask[:, 1] * (1 + o2), win * o1 * mask[:, 2],
                     -(1 - win) * mask[:, 3] * (1 + o4), -(1 - win) * o3 * mask[:, 4]], axis=1)


def _logit_gradient(o: _F32, mask: _F32, by_equity: NDArray[np.floating[Any]]) -> NDArray[np.floating[Any]]:
    """The gradient (n, 5) on the output logits of a loss whose derivative by each row's
    cubeless equity is ``by_equity`` (n,) (outputs ``o`` are sigmoids of the logits)."""
    out: NDArray[np.floating[Any]] = by_equity[:, None] * _equity_gradient(o, mask) * o * (1 - o)
    return out


def _relative_error(equity: _F32, target: _F32, groups: NDArray[np.int64]) -> _F32:
    """Each row's equity minus its group's mean, less the same of the targets (0 for rows of
    group -1, which belong to none; a group's mean is over its rows here)."""
    member = groups >= 0
    out = np.zeros(len(equity), dtype=np.float32)
    if not member.any():
        return out
    _, g = np.unique(groups[member], return_inverse=True)
    count = np.bincount(g)
    diff = (equity[member] - target[member]).astype(np.float64)
    out[member] = diff - (np.bincount(g, diff) / count)[g]
    return out


@dataclass(frozen=True)
class Lookahead:
    """The look-ahead ranking term's positions (:attr:`RefineConfig.lookahead_weight`): for
    each of n candidates, its 21 replies ``replies`` (n, 21, 50) uint8 (the position after
    the 0-ply reply to each roll of :data:`bgfast.dice.ALL_21`, its mover's opponent on
    roll: :meth:`~bgfast._core.evaluator.CoreEvaluator.replies_batch`), its roll ``groups``
    (n,) int64 and the cubeless equity ``equity`` (n,) float32 of its label (the
    candidate's side on roll, points); ``weight`` weighs the term.  With ``absolute`` it is
    the *look-ahead value term* (:attr:`RefineConfig.lookahead_value_weight`): each row a
    rollout-labelled position of a group of its own, and the error its 1-ply equity's own,
    not relative to its roll's."""

    replies: NDArray[np.uint8]
    groups: NDArray[np.int64]
    equity: _F32
    weight: float
    candidates: NDArray[np.uint8] | None = None
    deep_rank_weight: float = 0.0
    absolute: bool = False

    def subset(self, rows: NDArray[np.intp]) -> Lookahead:
        return Lookahead(self.replies[rows], self.groups[rows], self.equity[rows], self.weight,
                         None if self.candidates is None else self.candidates[rows], self.deep_rank_weight,
                         self.absolute)

    def error(self, equity: _F32) -> _F32:
        """The error of the rows' 1-ply ``equity`` (n,) against their labels: its own with
        ``absolute``, else :func:`_relative_error`."""
        if self.absolute:
            out: _F32 = (equity - self.equity).astype(np.float32)
            return out
        return _relative_error(equity, self.equity, self.groups)


ROLL_CHANCES = np.array([dice.weight for dice in ALL_21], dtype=np.float32) / 36
"""The chance (21,) of each roll of :data:`bgfast.dice.ALL_21`."""


def lookahead_equity(fit: NetFit, replies: NDArray[np.uint8]) -> tuple[_F32, tuple[_F32, _F32, _F32, _F32]]:
    """The 1-ply cubeless equity (n,) by ``fit``'s net of each candidate of ``replies``
    (n, 21, 50) (the candidate's side on roll, points: minus the chance-weighted mean of the
    net's equity of the replies), and the forward pass (inputs, mask, hidden, outputs) of
    the n * 21 replies."""
    x, mask = _inputs(fit, replies.reshape(-1, 50))
    h, o = _forward(fit, x)
    equity = -(_equity(_joint(o, mask)).reshape(len(replies), 21) * ROLL_CHANCES).sum(axis=1)
    return equity.astype(np.float32), (x, mask, h, o)


def lookahead_error(fit: NetFit, lookahead: Lookahead, block: int = 2048) -> float:
    """The mean absolute :meth:`Lookahead.error` of the rows' :func:`lookahead_equity`
    against their labels (nan for none)."""
    if not len(lookahead.groups):
        return float("nan")
    equity = np.concatenate([lookahead_equity(fit, lookahead.replies[k:k + block])[0]
                             for k in range(0, len(lookahead.groups), block)])
    return float(np.abs(lookahead.error(equity)).mean())


def _backprop(fit: NetFit, x: _F32, h: _F32, dl: NDArray[np.floating[Any]]) -> dict[str, _F32]:
    """The gradients of the weights from that ``dl`` (rows, 5) of the output logits."""
    dh = (dl @ fit.w2) * h * (1 - h)
    return {"w2": dl.T @ h, "b2": dl.sum(axis=0), "w1": x.T @ dh, "b1": dh.sum(axis=0)}


def _lookahead_gradients(fit: NetFit, lookahead: Lookahead) -> dict[str, _F32]:
    """The gradients of ``weight`` times the mean squared :meth:`Lookahead.error` of the
    1-ply equity of ``lookahead``'s rows (one or more whole rolls)."""
    equity, (x, mask, h, o) = lookahead_equity(fit, lookahead.replies)
    r = lookahead.error(equity)
    by_reply = (-(2 * lookahead.weight / len(r)) * r[:, None] * ROLL_CHANCES).reshape(-1)
    grads = _backprop(fit, x, h, _logit_gradient(o, mask, by_reply))
    if lookahead.candidates is not None and lookahead.deep_rank_weight:
        x, mask = _inputs(fit, lookahead.candidates)
        h, o = _forward(fit, x)
        r = lookahead.error(_equity(_joint(o, mask)))
        dl = _logit_gradient(o, mask, (2 * lookahead.deep_rank_weight / len(r)) * r)
        for name, g in _backprop(fit, x, h, dl).items():
            grads[name] += g
    return grads


def _terms(lookahead: Lookahead | Sequence[Lookahead] | None) -> tuple[Lookahead, ...]:
    """``lookahead`` as a tuple of terms (none, one, or several)."""
    if lookahead is None:
        return ()
    return (lookahead,) if isinstance(lookahead, Lookahead) else tuple(lookahead)


def _step(fit: NetFit, x: _F32, t: _F32, mask: _F32, lr: float, groups: NDArray[np.int64] | None = None,
          rank_weight: float = 0.0, row_weight: _F32 | None = None,
          lookahead: Lookahead | Sequence[Lookahead] | None = None) -> None:
    """One Adam step on a minibatch: the gradient of the conditional cross-entropy on the
    output logits is ``weight * (o - target)`` (outputs that are exactly 0 are masked),
    times each row's ``row_weight`` when given; with
    ``groups`` (the roll of each row, -1 for none) and ``rank_weight``, plus that of
    ``rank_weight`` times the squared :func:`_relative_error` of the equity; with
    ``lookahead`` (whole rolls; one term or several), plus that of each term
    (:func:`_lookahead_gradients`)."""
    h, o = _forward(fit, x)
    target, weight = _conditional(t)
    dl = weight * mask * (o - target) / np.float32(len(x))
    if row_weight is not None:
        dl *= row_weight[:, None]
    if groups is not None and rank_weight:
        r = _relative_error(_equity(_joint(o, mask)), _equity(t), groups)
        dl += _logit_gradient(o, mask, (2 * rank_weight / len(x)) * r)
    grads = _backprop(fit, x, h, dl)
    for term in _terms(lookahead):
        if term.weight and len(term.groups):
            for name, g in _lookahead_gradients(fit, term).items():
                grads[name] += g
    fit.step += 1
    b1, b2, eps = 0.9, 0.999, 1e-8
    scale = lr * math.sqrt(1 - b2 ** fit.step) / (1 - b1 ** fit.step)
    for name, param in fit.params().items():
        m, v = fit.moments[name]
        g = grads[name]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        param -= (scale * m / (np.sqrt(v) + eps)).astype(np.float32)


def _validate(fit: NetFit, boards: NDArray[np.uint8], targets: _F32,
              groups: NDArray[np.int64] | None = None) -> dict[str, float]:
    """The net's mean cross-entropy in excess of the targets' own (0 = a perfect fit), its
    mean absolute error of cubeless equity on held-out positions and (with ``groups``) the
    mean absolute :func:`_relative_error` of the candidates of rolls with two or more."""
    if not len(boards):
        return {"excess_loss": float("nan"), "equity_mae": float("nan"), "rank_error": float("nan")}
    x, mask = _inputs(fit, boards)
    _, o = _forward(fit, x)
    target, weight = _conditional(targets)
    eps = 1e-6

    def entropy(p: NDArray[Any], q: NDArray[Any]) -> NDArray[Any]:
        p = np.clip(p, eps, 1 - eps)
        out: NDArray[Any] = -(q * np.log(p) + (1 - q) * np.log(1 - p))
        return out

    excess = (weight * mask * (entropy(o, target) - entropy(target, target))).sum(axis=1).mean()
    equity = _equity(_joint(o, mask))
    mae = np.abs(equity - _equity(targets)).mean()
    rank = float("nan")
    if groups is not None:
        _, g, count = np.unique(groups, return_inverse=True, return_counts=True)
        ranked = (groups >= 0) & (count[g] >= 2)
        if ranked.any():
            rank = float(np.abs(_relative_error(equity, _equity(targets), np.where(ranked, groups, -1))[ranked]).mean())
    return {"excess_loss": float(excess), "equity_mae": float(mae), "rank_error": rank}


def _figures_text(figures: dict[str, float]) -> str:
    """:func:`_validate`'s figures as the log gives them (none for an empty held-out set)."""
    if math.isnan(figures["excess_loss"]):
        return "no figures (no position held out)"
    text = f"excess loss {figures['excess_loss']:.5f}, equity error {figures['equity_mae']:.5f}"
    if math.isnan(figures["rank_error"]):           # no held-out roll of two or more candidates
        return text
    return text + f", relative equity error {figures['rank_error']:.5f}"


def _units(decisions: NDArray[np.int64]) -> NDArray[np.int64]:
    """The unit of each row that an epoch's order shuffles: its roll for a candidate (the
    candidates of a roll stay together), a unit of its own for any other row."""
    member = decisions >= 0
    _, rolls = np.unique(decisions[member], return_inverse=True)
    units = np.empty(len(decisions), dtype=np.int64)
    units[member] = rolls
    units[~member] = np.arange((~member).sum()) + (rolls.max() + 1 if len(rolls) else 0)
    return units


def fit_net(fit: NetFit, boards: NDArray[np.uint8], targets: _F32, *, epochs: int, lr: float, batch: int,
            seed: int, first_epoch: int = 0, after_epoch: Callable[[int], None] | None = None,
            decisions: NDArray[np.int64] | None = None, rank_weight: float = 0.0,
            row_weights: _F32 | None = None, lookahead: Lookahead | Sequence[Lookahead] | None = None) -> None:
    """Fit ``fit`` to ``(boards, targets)`` (every board of its net's class) by Adam, from epoch
    ``first_epoch`` to ``epochs`` (epoch ``e``'s order is ``default_rng((seed, e))``'s);
    ``after_epoch(e)`` is called after each.  With ``decisions`` (the roll of each board, -1
    for none) the candidates of a roll come in the same minibatch (but at a batch's edge) and
    ``rank_weight`` weighs their relative equity error (:func:`_step`); ``row_weights`` (n,)
    weigh each board's cross-entropy.  With ``lookahead`` (one term or several) each step
    also takes the next few of each term's rolls (an epoch passes over them all once, term
    ``i``'s in ``default_rng((seed, e, 1 + i))``'s order) for its term."""
    steps_per_epoch = -(-len(boards) // batch)
    total = max(1, epochs * steps_per_epoch)
    warm = max(1, total // 20)
    units = None if decisions is None else _units(decisions)
    terms = _terms(lookahead)
    term_rolls = []
    for term in terms:
        by_roll = np.argsort(term.groups, kind="stable")
        _, first_row, roll_rows = np.unique(term.groups[by_roll], return_index=True, return_counts=True)
        term_rolls.append((by_roll, first_row, roll_rows, -(-len(first_row) // steps_per_epoch)))
    for epoch in range(first_epoch, epochs):
        rng = np.random.default_rng((seed, epoch))
        roll_orders = [np.random.default_rng((seed, epoch, 1 + i)).permutation(len(first_row))
                       for i, (_, first_row, _, _) in enumerate(term_rolls)]
        if units is None:
            order = rng.permutation(len(boards))
        else:
            place = np.empty(int(units.max()) + 1 if len(units) else 0, dtype=np.int64)
            place[rng.permutation(len(place))] = np.arange(len(place))
            order = np.argsort(place[units], kind="stable")
        for k, start in enumerate(range(0, len(boards), batch)):
            step = epoch * steps_per_epoch + k
            rate = lr * (step + 1) / warm if step < warm else lr * 0.5 * (1 + math.cos(math.pi * (step - warm)
                                                                                       / max(1, total - warm)))
            ix = np.sort(order[start:start + batch])
            x, mask = _inputs(fit, boards[ix])
            rolls = []
            for term, (by_roll, first_row, roll_rows, rolls_per_step), roll_order in zip(terms, term_rolls,
                                                                                       roll_orders):
                chosen = roll_order[k * rolls_per_step:(k + 1) * rolls_per_step]
                rows = np.concatenate([by_roll[first_row[r]:first_row[r] + roll_rows[r]] for r in chosen]
                                      or [np.zeros(0, np.intp)])
                rolls.append(term.subset(rows))
            _step(fit, x, targets[ix], mask, rate, None if decisions is None else decisions[ix], rank_weight,
                  None if row_weights is None else row_weights[ix], rolls)
        if after_epoch is not None:
            after_epoch(epoch)


def lookahead_positions(model: _neural.Model, boards: NDArray[np.uint8], decisions: NDArray[np.int64],
                        rolls: int, seed: int, *, block: int = 2048) -> tuple[NDArray[np.intp], NDArray[np.uint8]]:
    """The look-ahead term's candidates: up to ``rolls`` rolls of ``decisions`` (the roll
    of each of the (n, 50) ``boards``, -1 for none) in ``default_rng((seed, 3))``'s order,
    keeping the candidates that are contact positions and whose 21 replies by ``model`` at
    0 ply all are too, and the rolls that keep two or more: the rows (m,) of ``boards``
    they are (in ascending order) and their replies (m, 21, 50)."""
    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
    from bgfast._core.search import GREEDY_FILTERS

    contact = _neural.NETS.index("contact")
    candidates = np.nonzero(decisions >= 0)[0]
    candidates = candidates[_classes(boards[candidates]) == contact]
    found, count = np.unique(decisions[candidates], return_counts=True)
    order = np.random.default_rng((seed, 3)).permutation(found[count >= 2])
    evaluator = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, filters=GREEDY_FILTERS)
    rows_parts, reply_parts, kept = [], [], 0
    for start in range(0, len(order), block):
        if kept >= rolls:
            break
        chunk = order[start:start + block]
        rows = candidates[np.isin(decisions[candidates], chunk)]
        replies = evaluator.replies_batch(np.ascontiguousarray(boards[rows]))
        ok = (_classes(replies.reshape(-1, 50)).reshape(-1, 21) == contact).all(axis=1)
        rows, replies = rows[ok], replies[ok]
        left, count = np.unique(decisions[rows], return_counts=True)
        chunk = chunk[np.isin(chunk, left[count >= 2])][:rolls - kept]
        kept += len(chunk)
        take = np.isin(decisions[rows], chunk)
        rows_parts.append(rows[take])
        reply_parts.append(replies[take])
    if not rows_parts:
        return np.zeros(0, np.intp), np.zeros((0, 21, 50), np.uint8)
    return np.concatenate(rows_parts), np.concatenate(reply_parts)


def _lookahead_data(run: Path, teacher: _neural.Model, config: RefineConfig, boards: NDArray[np.uint8],
                    decisions: NDArray[np.int64], say: Callable[[str], None]) -> tuple[NDArray[np.intp], Lookahead]:
    """The run's look-ahead candidates (rows of the self-play ``boards``) and term, from
    ``lookahead.npz`` or made and labelled (by the start net, ``config.lookahead_plies``
    deep) and saved there.

    :raises InvalidSpecError: the file is damaged, or holds the look-ahead of other
        settings or other positions (copied from another run folder)."""
    path = run / LOOKAHEAD
    made = np.array([config.lookahead_rolls, config.lookahead_plies, config.seed], np.int64)
    if not path.exists():
        t = time.monotonic()
        drawn, drawn_replies = lookahead_positions(teacher, boards, decisions, config.lookahead_rolls, config.seed)
        labels = label_positions(teacher, boards[drawn], config.lookahead_plies, threads=config.threads)
        _save_digested(path, {"rows": drawn.astype(np.int64), "replies": drawn_replies, "targets": labels,
                              "made": made, "positions": _digest({"boards": boards[drawn]})})
        say(f"look-ahead: {len(np.unique(decisions[drawn])):,} rolls, {len(drawn):,} candidates labelled at "
            f"{config.lookahead_plies} plies in {time.monotonic() - t:,.0f} s")
    fix = "delete it and run again to make it anew"
    arrays = _load_digested(path, ("rows", "replies", "targets", "made", "positions"), fix)
    rows, replies, targets = arrays["rows"], arrays["replies"], arrays["targets"]
    n = len(rows)
    if (rows.dtype != np.int64 or rows.ndim != 1 or replies.dtype != np.uint8 or replies.shape != (n, 21, 50)
            or targets.dtype != np.float32 or targets.shape != (n, 5) or not _probabilities(targets)):
        raise InvalidSpecError(f"{path} is damaged (arrays of other shapes or types, or labels that are not "
                               f"probabilities): {fix}")
    if (not np.array_equal(arrays["made"], made) or (n and not 0 <= rows.min() <= rows.max() < len(boards))
            or not np.array_equal(arrays["positions"], _digest({"boards": boards[rows]}))):
        raise InvalidSpecError(f"{path} holds the look-ahead of other settings or positions (another run "
                               f"folder's?): {fix}")
    return rows, Lookahead(replies, decisions[rows], _equity(targets).astype(np.float32), config.lookahead_weight,
                           boards[rows], config.deep_rank_weight)


def lookahead_value_positions(model: _neural.Model, boards: NDArray[np.uint8], rows: NDArray[np.intp],
                              nets: Sequence[int], *, block: int = 4096) -> tuple[NDArray[np.intp], NDArray[np.uint8]]:
    """The look-ahead value term's positions: of ``rows`` of the (n, 50) ``boards`` (the
    rollout-labelled ones), those valued by one of the ``nets`` (indices of
    :data:`~bgfast._core.neural.NETS`) whose 21 replies by ``model`` at 0 ply all are
    valued by the same net: their rows (m,) (in the order given) and replies (m, 21, 50)."""
    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
    from bgfast._core.search import GREEDY_FILTERS

    classes = _classes(boards[rows])
    ours = np.isin(classes, list(nets))
    rows, classes = rows[ours], classes[ours]
    evaluator = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, filters=GREEDY_FILTERS)
    rows_parts, reply_parts = [np.zeros(0, np.intp)], [np.zeros((0, 21, 50), np.uint8)]
    for start in range(0, len(rows), block):
        chunk = rows[start:start + block]
        replies = evaluator.replies_batch(np.ascontiguousarray(boards[chunk]))
        same = (_classes(replies.reshape(-1, 50)).reshape(-1, 21) == classes[start:start + block, None]).all(axis=1)
        rows_parts.append(chunk[same])
        reply_parts.append(replies[same])
    return np.concatenate(rows_parts), np.concatenate(reply_parts)


def _lookahead_value_data(run: Path, teacher: _neural.Model, config: RefineConfig, boards: NDArray[np.uint8],
                          rollout_rows: NDArray[np.intp], say: Callable[[str], None]
                          ) -> tuple[NDArray[np.intp], NDArray[np.uint8]]:
    """The run's look-ahead value positions (rows of ``boards``, of the ``rollout_rows``) and
    their replies, from ``lookahead_value.npz`` or made (by the start net) and saved there.

    :raises InvalidSpecError: the file is damaged, or holds the replies of other positions
        (copied from another run folder)."""
    path = run / LOOKAHEAD_VALUE
    nets = [_neural.NETS.index(net) for net in config.nets.split(",")]
    drawn_from = _digest({"boards": boards[rollout_rows], "nets": np.array(nets, np.int64)})
    if not path.exists():
        t = time.monotonic()
        rows, replies = lookahead_value_positions(teacher, boards, rollout_rows, nets)
        _save_digested(path, {"rows": rows.astype(np.int64), "replies": replies, "drawn_from": drawn_from})
        say(f"look-ahead values: {len(rows):,} rollout-labelled positions whose replies their net values too, "
            f"in {time.monotonic() - t:,.0f} s")
    fix = "delete it and run again to make it anew"
    arrays = _load_digested(path, ("rows", "replies", "drawn_from"), fix)
    rows, replies = arrays["rows"], arrays["replies"]
    if rows.dtype != np.int64 or rows.ndim != 1 or replies.dtype != np.uint8 or replies.shape != (len(rows), 21, 50):
        raise InvalidSpecError(f"{path} is damaged (arrays of other shapes or types): {fix}")
    if not np.array_equal(arrays["drawn_from"], drawn_from) or not np.isin(rows, rollout_rows).all():
        raise InvalidSpecError(f"{path} holds the replies of other positions (another run folder's?): {fix}")
    return rows.astype(np.intp), replies


def _probabilities(targets: _F32) -> bool:
    """Whether every label is a probability (labels are averages: rounding may pass 0 or 1
    by 1e-6)."""
    return bool(np.all((targets >= -1e-6) & (targets <= 1 + 1e-6)))


def _digest(arrays: dict[str, NDArray[Any]]) -> NDArray[np.uint8]:
    """SHA-256 (32,) of the arrays' names, shapes, types and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    return np.frombuffer(h.digest(), np.uint8).copy()


# ---------------------------------------------------------------- the run


def _save_digested(path: Path, arrays: dict[str, NDArray[Any]]) -> None:
    """Save ``arrays`` to ``path`` with their SHA-256 (:func:`_digest`) beside them, as ``digest``."""
    _save_npz(path, digest=_digest(arrays), **arrays)


def _load_digested(path: Path, keys: tuple[str, ...], fix: str) -> dict[str, NDArray[Any]]:
    """The arrays ``keys`` of a file :func:`_save_digested` wrote.

    :raises InvalidSpecError: the file is unreadable, lacks one, or its arrays do not match
        their SHA-256 (the message ends with ``fix``)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays: dict[str, NDArray[Any]] = {key: data[key] for key in keys}
            digest = data["digest"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise InvalidSpecError(f"{path} is damaged ({unreadable(exc)}): {fix}") from None
    if not np.array_equal(digest, _digest(arrays)):
        raise InvalidSpecError(f"{path} is damaged (its arrays do not match their SHA-256): {fix}")
    return arrays


def _save_npz(path: Path, **arrays: NDArray[Any]) -> None:
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **arrays)
    write_output_file(path, buf.getvalue(), "the training data", sync=True)


def run_refine(config: RefineConfig, start: Weights | None, run_dir: str | Path, *,
               log: Callable[[str], None] | None = None) -> Weights:
    """Refine ``start`` into ``run_dir`` (resuming what is there): the refined weights.

    :param start: the starting net of a new run; None resumes the run folder's.
    :raises InvalidSpecError: ``run_dir`` holds a run of another config or start, or none
        and no ``start`` is given; ``nets`` name the contact net but not the backgame or
        crashed net of a start without such a net of its own (:attr:`RefineConfig.nets`).
    """
    run = Path(run_dir)
    saved = load_checkpoint(run, START)
    if start is None and saved is None:
        raise InvalidSpecError(f"{run} holds no refinement yet: give the starting weights (--start FILE)")
    if saved is None:
        _check_copied_nets(start, config)
    if start is not None and saved is None:
        _widened(start, config)                       # a net asked to shrink: refused before the folder is made
    if saved is None and config.rollouts:             # the labels are there (and counted), or no folder is made
        config = _counted_rollouts(config)
    run.mkdir(parents=True, exist_ok=True)

    def say(text: str) -> None:
        line = time.strftime("%Y-%m-%d %H:%M:%S ") + text
        with (run / LOG).open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        if log is not None:
            log(line)

    if saved is None:
        assert start is not None
        pruned = start.prune_hidden > 0
        start = start.nets_only()                    # pruning nets do not fit the nets once refined
        saved = Weights(start.arrays, {**refine_lineage(start), "refine": config.to_dict()})
        save_checkpoint(run, saved, START)
        say(f"new refinement: {json.dumps(config.to_dict(), sort_keys=True)}")
        if pruned:
            say(f"the start's pruning nets are left out (they fit its nets, not the refined ones): distil new "
                f"ones with 'bgfast train prune {run / REFINED} TARGET' once it is written")
    else:
        changed = changed_settings(RefineConfig.saved(saved.meta.get("refine") or {}), config.to_dict(),
                                   REFINE_RESUMABLE)
        if changed:
            raise InvalidSpecError(f"{run} holds a refinement with other settings ({'; '.join(changed)}): "
                                   f"give its settings to resume it, or start a new run folder")
        _check_copied_nets(saved, config)
        if start is not None:
            start = start.nets_only()
        if start is not None and (start.arrays.keys() != saved.arrays.keys() or any(
                not np.array_equal(start.arrays[k], saved.arrays[k]) for k in start.arrays)):
            raise InvalidSpecError(f"{run} holds a refinement of another start net: leave out --start to resume it")
        done = sum((run / f"block-{b:04d}.npz").exists() for b in range(config.blocks))
        say(f"resuming: {done} of {config.blocks} blocks labelled")
    teacher = saved.model()
    widened = _widened(saved, config)                 # a net asked to shrink fails before any labelling

    boards_parts, target_parts, decision_parts = [], [], []
    rolls = 0
    for b in range(config.blocks):
        path = run / f"block-{b:04d}.npz"
        if not path.exists():
            t = time.monotonic()
            boards, decisions = refine_positions(teacher, config, b)
            moved = [_neural.NETS.index(net) for net in config.nets.split(",")]
            if len(moved) < len(_neural.NETS):        # label only what the fit will read
                ours = np.isin(_classes(boards), moved)
                boards, decisions = boards[ours], decisions[ours]
            targets = label_positions(teacher, boards, config.plies, threads=config.threads)
            _save_npz(path, boards=boards, targets=targets, decisions=decisions)
            say(f"block {b + 1}/{config.blocks}: {len(boards):,} positions labelled at {config.plies} ply "
                f"in {time.monotonic() - t:,.0f} s")
        boards, targets, kept = _read_block(path)
        if kept is None:
            decisions = _block_decisions(teacher, config, b, boards, path)
            _save_npz(path, boards=boards, targets=targets, decisions=decisions)
        else:
            decisions = kept
        boards_parts.append(boards)
        target_parts.append(targets)
        decision_parts.append(np.where(decisions >= 0, decisions + rolls, -1))
        rolls += int(decisions.max()) + 1 if len(decisions) else 0
    boards = np.concatenate(boards_parts)
    targets = np.concatenate(target_parts)
    decisions = np.concatenate(decision_parts)
    own = len(boards)
    row_weights: _F32 | None = None
    if config.rollouts:
        from bgfast.train.rollout_labels import format_sources, parse_sources, read_sources

        labels, counted = read_sources(parse_sources(config.rollouts, config.rollout_blocks))
        boards = np.concatenate([boards, labels["boards"]])
        targets = np.concatenate([targets, labels["targets"]])
        decisions = np.concatenate([decisions, np.full(len(labels["boards"]), -1, np.int64)])
        row_weights = np.concatenate([np.full(own, config.self_weight, np.float32),
                                      np.full(len(labels["boards"]), config.rollout_weight, np.float32)])
        say(f"{len(labels['boards']):,} rollout-labelled positions from {format_sources(counted)}")
    lookahead_rows: NDArray[np.intp] = np.zeros(0, np.intp)
    lookahead: Lookahead | None = None
    if config.lookahead_weight:
        lookahead_rows, lookahead = _lookahead_data(run, teacher, config, boards, decisions, say)
    from_rollout = np.arange(len(boards)) >= own
    value_rows: NDArray[np.intp] = np.zeros(0, np.intp)
    value_replies = np.zeros((0, 21, 50), np.uint8)
    if config.lookahead_value_weight:
        value_rows, value_replies = _lookahead_value_data(run, teacher, config, boards,
                                                          np.nonzero(from_rollout)[0], say)
    classes = _classes(boards)
    if row_weights is not None:
        row_weights[(classes == _neural.NETS.index("race")) & ~from_rollout] = config.race_self_weight
    # with the ranking term a roll's candidates are held out, and shuffled, together; without
    # it each position on its own, as the rounds before the term were fit
    ranked = config.rank_weight > 0 or config.race_rank_weight > 0 or config.lookahead_weight > 0
    units = _units(decisions) if ranked else np.arange(len(boards))
    held = (np.random.default_rng((config.seed, 1)).random(int(units.max()) + 1 if len(units) else 0)
            < config.held_out)[units]

    result = dict(widened.arrays)
    facts: dict[str, Any] = {}
    state = _load_fit(run)
    for k, net in enumerate(_neural.NETS):
        if net not in config.nets.split(","):
            facts[net] = {"kept": True}
            continue
        train = np.nonzero((classes == k) & ~held)[0]
        if not len(train):
            say(f"{net}: no positions to fit; kept as the start's")
            facts[net] = {"kept": True, "positions": 0}
            continue
        fit = state.get(net) or NetFit.of(widened, net)
        val = np.nonzero((classes == k) & held)[0]
        val_rollout = np.nonzero((classes == k) & held & from_rollout)[0]
        before = _validate(NetFit.of(widened, net), boards[val], targets[val], decisions[val])
        term = lookahead if net == "contact" else None
        term_fit = term_val = None
        if term is not None:
            term_fit = term.subset(np.nonzero(~held[lookahead_rows])[0])
            term_val = term.subset(np.nonzero(held[lookahead_rows])[0])
            before["lookahead_error"] = lookahead_error(NetFit.of(widened, net), term_val)
        value_fit = value_val = None
        if config.lookahead_value_weight:
            in_net = np.nonzero(classes[value_rows] == k)[0]
            value = Lookahead(value_replies[in_net], np.arange(len(in_net), dtype=np.int64),
                              _equity(targets[value_rows[in_net]]).astype(np.float32), config.lookahead_value_weight,
                              absolute=True)
            value_fit = value.subset(np.nonzero(~held[value_rows[in_net]])[0])
            value_val = value.subset(np.nonzero(held[value_rows[in_net]])[0])
            before["lookahead_value_error"] = lookahead_error(NetFit.of(widened, net), value_val)
        before_rollout = _validate(NetFit.of(widened, net), boards[val_rollout], targets[val_rollout])
        done = int(state.get(f"{net}.epochs", 0))

        def after(epoch: int, net: str = net, fit: NetFit = fit, val: NDArray[np.intp] = val) -> None:
            if not all(np.isfinite(array).all() for array in fit.params().values()):
                weight = "--race-rank-weight" if net == "race" else "--rank-weight"
                raise InvalidSpecError(f"the {net} net diverged in epoch {epoch + 1} (weights not finite); "
                                       f"start a new run folder with a lower --lr or {weight} (copy the "
                                       f"block files into it to keep the labels)")
            state[net] = fit
            state[f"{net}.epochs"] = epoch + 1
            _save_fit(run, state)
            figures = _validate(fit, boards[val], targets[val], decisions[val])
            rolled = (f", rollout equity error {_validate(fit, boards[val_rollout], targets[val_rollout])['equity_mae']:.5f}"
                      if len(val_rollout) else "")
            ahead = (f", 1-ply relative equity error {lookahead_error(fit, term_val):.5f}"
                     if term_val is not None and len(term_val.groups) else "")
            if value_val is not None and len(value_val.groups):
                ahead += f", 1-ply rollout equity error {lookahead_error(fit, value_val):.5f}"
            say(f"{net} epoch {epoch + 1}/{config.epochs}: held-out {_figures_text(figures)}" + rolled + ahead)

        if done < config.epochs:
            say(f"{net}: {len(train):,} positions, {len(val):,} held out; before: {_figures_text(before)}"
                + (f", rollout equity error {before_rollout['equity_mae']:.5f} "
                                                  f"({len(val_rollout):,} held out)" if len(val_rollout) else "")
                + (f", 1-ply relative equity error {before['lookahead_error']:.5f} ({len(term_val.groups):,} "
                   f"candidates held out)" if term_val is not None and len(term_val.groups) else "")
                + (f", 1-ply rollout equity error {before['lookahead_value_error']:.5f} ({len(value_val.groups):,} "
                   f"held out)" if value_val is not None and len(value_val.groups) else ""))
            fit_net(fit, boards[train], targets[train], epochs=config.epochs, lr=config.lr, batch=config.batch,
                    seed=config.seed * 7 + k, first_epoch=done, after_epoch=after,
                    decisions=decisions[train] if ranked else None,
                    rank_weight=config.race_rank_weight if net == "race" else config.rank_weight,
                    row_weights=None if row_weights is None else row_weights[train],
                    lookahead=[t for t in (term_fit, value_fit) if t is not None])
        for part, array in fit.params().items():
            result[f"{net}.{part}"] = array
        facts[net] = {"positions": int(len(train)), "held_out": int(len(val)), "before": before,
                      "after": _validate(fit, boards[val], targets[val], decisions[val])}
        if term_fit is not None and term_val is not None:
            facts[net].update(lookahead_candidates=int(len(term_fit.groups)),
                              held_out_lookahead=int(len(term_val.groups)))
            facts[net]["after"]["lookahead_error"] = lookahead_error(fit, term_val)
        if value_fit is not None and value_val is not None:
            facts[net].update(lookahead_value_positions=int(len(value_fit.groups)),
                              held_out_lookahead_value=int(len(value_val.groups)))
            facts[net]["after"]["lookahead_value_error"] = lookahead_error(fit, value_val)
        if len(val_rollout):
            facts[net].update(rollout_positions=int((from_rollout[train]).sum()), held_out_rollout=int(len(val_rollout)),
                              before_rollout=before_rollout,
                              after_rollout=_validate(fit, boards[val_rollout], targets[val_rollout]))

    meta = {**saved.meta, "refine": config.to_dict(), "refined": facts,
            "refine_positions": int(len(boards))}
    weights = Weights(result, meta)
    if config.eval_pairs:
        ppg, se = paired_ppg(weights.model(), seed=config.eval_seed, pairs=config.eval_pairs)
        base, _ = paired_ppg(teacher, seed=config.eval_seed, pairs=config.eval_pairs)
        weights.meta.update({"ppg_vs_pubeval": ppg, "se": se, "pairs": config.eval_pairs})
        say(f"refined: vs pubeval {ppg:+.3f} +- {se:.3f} (the start on the same dice: {base:+.3f})")
    save_checkpoint(run, weights, REFINED)
    say(f"wrote {run / REFINED}")
    return weights


def _counted_rollouts(config: RefineConfig) -> RefineConfig:
    """``config`` with the blocks of each rollouts folder counted and the folders made
    absolute, as a new run records them (so that it resumes from any working folder).

    :raises InvalidSpecError: a folder without labels or with fewer blocks than named."""
    from bgfast.train.rollout_labels import format_sources, parse_sources, read_sources

    sources = parse_sources(config.rollouts)
    counted = [(str(Path(f).resolve()), n) for f, n in
               read_sources(parse_sources(config.rollouts, config.rollout_blocks))[1]]
    if len(sources) == 1 and not sources[0][1]:          # one folder named without a count
        return dataclasses.replace(config, rollouts=counted[0][0], rollout_blocks=counted[0][1])
    return dataclasses.replace(config, rollouts=format_sources(counted))


def _check_copied_nets(start: Weights | None, config: RefineConfig) -> None:
    """Refuse to refit the contact net without the backgame or crashed net from a start whose
    net of that name is a copy of its contact net (a file written before that net existed),
    as a run begun before it would resume: those positions would be left to the old contact
    net.

    :raises InvalidSpecError: that."""
    names = config.nets.split(",")
    if start is None or "contact" not in names:
        return
    missing = [net for net in ("backgame", "crashed") if net not in names and start.same_net(net, "contact")]
    if missing:
        raise InvalidSpecError(
            f"nets {config.nets!r} refit the contact net of a start without a {' or '.join(missing)} net of its own "
            f"(a file written before it, whose contact net valued those positions): name "
            f"{' and '.join(missing)} too (for instance --nets {','.join([*names, *missing])}), or those positions "
            f"would keep the old contact net")


def _widened(start: Weights, config: RefineConfig) -> Weights:
    """``start`` with the hidden units of ``config`` (0: the start's), computing the same values.

    :raises InvalidSpecError: a net asked to shrink."""
    from bgfast.train.td import widen

    contact, race = start.hidden[:2]
    if not config.contact_hidden and not config.race_hidden:
        return start
    return widen(start, config.contact_hidden or contact, config.race_hidden or race, seed=config.seed, scale=0.1)


ROUND_KEYS = ("refine", "refined", "refine_positions", "ppg_vs_pubeval", "se", "pairs")
"""The meta keys of one refinement round (the last one's stay at the top level)."""


def refine_lineage(start: Weights) -> dict[str, Any]:
    """The meta of a new round's start: the start's own meta with its last round (if it
    was refined) moved onto the list ``refine_rounds``, oldest first, so that a net
    refined round after round carries every round's config, seed and figures."""
    meta = {k: v for k, v in start.meta.items() if k not in ROUND_KEYS}
    if "refine" in start.meta:
        last = {k: start.meta[k] for k in ROUND_KEYS if k in start.meta}
        meta["refine_rounds"] = [*start.meta.get("refine_rounds", []), last]
    return meta


def _read_block(path: Path) -> tuple[NDArray[np.uint8], _F32, NDArray[np.int64] | None]:
    """A block file's ``boards``, ``targets`` and ``decisions`` (None in a block written
    before blocks kept them).

    :raises InvalidSpecError: the file is damaged (unreadable, arrays missing or of
        mismatched shapes or types, labels that are not probabilities)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ("boards", "targets", "decisions") if name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise InvalidSpecError(f"{path} is damaged ({unreadable(exc)}): delete it and run again to label it "
                               f"anew") from None
    boards, targets, decisions = arrays.get("boards"), arrays.get("targets"), arrays.get("decisions")
    problem = None
    if boards is None or targets is None:
        problem = "boards or targets missing"
    elif boards.dtype != np.uint8 or boards.ndim != 2 or boards.shape[1] != 50:
        problem = f"boards {boards.dtype} {boards.shape}, not uint8 (n, 50)"
    elif targets.dtype != np.float32 or targets.shape != (len(boards), 5):
        problem = f"targets {targets.dtype} {targets.shape}, not float32 ({len(boards)}, 5)"
    elif not _probabilities(targets):
        problem = "targets that are not probabilities"
    elif decisions is not None and (decisions.dtype != np.int64 or decisions.shape != (len(boards),)):
        problem = f"decisions {decisions.dtype} {decisions.shape}, not int64 ({len(boards)},)"
    if problem is not None:
        raise InvalidSpecError(f"{path} is damaged ({problem}): delete it and run again to label it anew")
    assert boards is not None and targets is not None
    return np.ascontiguousarray(boards), targets, decisions


def _block_decisions(teacher: _neural.Model, config: RefineConfig, block: int, boards: NDArray[np.uint8],
                     path: Path) -> NDArray[np.int64]:
    """The ``decisions`` of a block saved before blocks kept them, from the teacher's
    candidates (the same as it drew them then).

    :raises InvalidSpecError: they are not the block's first positions (another build or
        an edited file)."""
    candidates, decisions = refine_positions(teacher, dataclasses.replace(config, on_policy=False), block)
    if not np.array_equal(candidates, boards[:len(candidates)]):
        raise InvalidSpecError(f"{path} holds other positions than this run's start draws for it "
                               f"(another build, or an edited file): delete it and run again to label it anew")
    return np.concatenate([decisions, np.full(len(boards) - len(candidates), -1, np.int64)])


def _classes(boards: NDArray[np.uint8], block: int = 65536) -> NDArray[np.int8]:
    """The :func:`~bgfast._core.neural.board_class` of each board."""
    cls = np.empty(len(boards), dtype=np.int8)
    for start in range(0, len(boards), block):
        _, cls[start:start + block], _ = _neural.inputs_batch(np.ascontiguousarray(boards[start:start + block]))
    return cls


def _save_fit(run: Path, state: dict[str, Any]) -> None:
    arrays: dict[str, NDArray[Any]] = {}
    for net in _neural.NETS:
        fit = state.get(net)
        if fit is None:
            continue
        for part, array in fit.params().items():
            arrays[f"{net}.{part}"] = array
            arrays[f"{net}.{part}.m"], arrays[f"{net}.{part}.v"] = fit.moments[part]
        arrays[f"{net}.step"] = np.array(fit.step)
        arrays[f"{net}.epochs"] = np.array(state[f"{net}.epochs"])
    _save_npz(run / FIT, **arrays)


def _load_fit(run: Path) -> dict[str, Any]:
    path = run / FIT
    state: dict[str, Any] = {}
    if not path.exists():
        return state
    with np.load(path) as data:
        for net in _neural.NETS:
            if f"{net}.w1" not in data:
                continue
            params = {part: data[f"{net}.{part}"] for part in ("w1", "b1", "w2", "b2")}
            moments = {part: (data[f"{net}.{part}.m"], data[f"{net}.{part}.v"]) for part in params}
            state[net] = NetFit(params["w1"], params["b1"], params["w2"], params["b2"], moments,
                                int(data[f"{net}.step"]))
            state[f"{net}.epochs"] = int(data[f"{net}.epochs"])
    return state
