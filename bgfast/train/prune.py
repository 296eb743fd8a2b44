"""The search's pruning nets: small nets distilled from the neural net, to rank a roll's plays.

Inside a search of 1 ply or more the net finds each roll's favourite reply at 0 ply
(:mod:`bgfast._core.search`), which means valuing every play of the roll.  GNU Backgammon
prunes there: a small net on the point codes alone ranks the plays, and its full net values
only the best ``5 + floor(log2(plays))`` of them (its ``FindBestMoveInEval``; the rule
is public, the nets here are bgfast's own).  :c:func:`neural_roll_best` does that with the
pruning nets of a weights file; this module makes them:

* :func:`prune_examples`: positions of the net's own 0-ply self-play, one random roll each,
  and every play of that roll valued by the net (its five probabilities for the side on roll
  after the play, the positions' point codes as inputs);
* :func:`fit_prune`: one net per class of the net (contact, race, backgame, crashed), ``hidden``
  sigmoid units on the ``RAW_INPUTS`` point codes and one linear output, fit to the net's
  cubeless equity by least squares (Adam, minibatches): a ranking needs no more;
* :func:`prune_misses`: on other positions, how often the pruned search's favourite differs
  from the net's, and what that costs in the net's own equity;
* :func:`distil_prune`: all three, returning the weights with their pruning nets.

The targets are the net's values, not another engine's: the pruning nets learn to guess
what the net would say, from fewer inputs.  A net trained further needs its pruning nets
distilled again (a refinement writes weights without them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from bgfast._core import neural as _neural
from bgfast.bots.neural_weights import Weights
from bgfast.errors import InvalidSpecError
from bgfast.position import Position
from bgfast.train.config import self_play
from bgfast.train.supervised import _equity, _sigmoid
from bgfast.validation import real_number, whole_number

__all__ = ["PruneExamples", "distil_prune", "fit_prune", "prune_examples", "prune_misses", "self_play_rolls"]


@dataclass
class PruneExamples:
    """Plays of rolls valued by the net, for fitting pruning nets.

    :ivar codes: (n, ``RAW_INPUTS``) float16 point codes of each position after a play (the
        side on roll next first), exact in float16 (multiples of 1/2).
    :ivar targets: (n, 5) float32: the net's probabilities for the side on roll next.
    :ivar mask: (n, 5) float32: 1 where an output can be non-zero (see
        :func:`bgfast._core.neural.inputs_batch`).
    :ivar classes: (n,) int8: :func:`bgfast._core.neural.board_class` of each position.
    """

    codes: NDArray[np.float16]
    targets: NDArray[np.float32]
    mask: NDArray[np.float32]
    classes: NDArray[np.int8]


def self_play_rolls(model: _neural.Model, positions: int, seed: int) -> tuple[NDArray[np.uint8], NDArray[np.int64]]:
    """``positions`` distinct positions of the model's 0-ply self-play of run ``seed`` (side 1
    on roll, (n, 50) uint8) and a roll for each ((n, 2), from ``numpy`` seeded by ``seed``)."""
    games = self_play(model)
    seen: set[bytes] = set()
    rows: list[NDArray[np.uint8]] = []
    first = 0
    while len(rows) < positions:
        for row in games.positions(seed, first, 200, 1):
            key = row.tobytes()
            if key not in seen and len(rows) < positions:
                seen.add(key)
                rows.append(row)
        first += 200
    dice = np.random.default_rng(seed).integers(1, 7, size=(positions, 2))
    return np.array(rows, dtype=np.uint8).reshape(-1, 50), dice.astype(np.int64)


def _after_boards(kids: list[bytes]) -> NDArray[np.uint8]:
    """The plays of :meth:`Model.children` as boards with the side to roll next on roll."""
    mover = np.frombuffer(b"".join(kids), dtype=np.uint8).reshape(-1, 50)
    return np.ascontiguousarray(np.concatenate([mover[:, 25:], mover[:, :25]], axis=1))


def prune_examples(model: _neural.Model, boards: NDArray[np.uint8], dice: NDArray[np.int64]) -> PruneExamples:
    """Every play of each ``(board, roll)`` of a roll with two plays or more, valued by ``model``
    at 0 ply (see :class:`PruneExamples`).

    :raises ValueError: a board that is not legal, dice out of range.
    """
    codes, targets, masks, classes = [], [], [], []
    for board, (d1, d2) in zip(boards, dice):
        kids, probs = model.children(board, int(d1), int(d2))
        if len(kids) < 2:
            continue
        x, cls, mask = _neural.inputs_batch(_after_boards(kids))
        codes.append(x[:, :_neural.RAW_INPUTS].astype(np.float16))
        # the mover's probabilities, turned to the side on roll next
        targets.append(np.stack([1 - probs[:, 0], probs[:, 3], probs[:, 4], probs[:, 1], probs[:, 2]], axis=1))
        masks.append(mask)
        classes.append(cls)
    if not codes:
        raise InvalidSpecError("no roll of these positions has two plays or more: nothing to fit")
    return PruneExamples(np.concatenate(codes), np.concatenate(targets).astype(np.float32),
                         np.concatenate(masks), np.concatenate(classes))


def _check_settings(hidden: object, epochs: object, seed: object, batch: object = 1, lr: object = 0.003
                    ) -> tuple[int, int, int, int, float]:
    """The fit's settings as plain numbers (numpy integers too: they go into the meta facts)."""
    h = whole_number(hidden, "hidden", low=8, high=_neural.PRUNE_MAX_HIDDEN, error=InvalidSpecError)
    if h % 8:
        raise InvalidSpecError(f"pruning nets have a multiple of 8 from 8 to {_neural.PRUNE_MAX_HIDDEN} "
                               f"hidden units, got {h}")
    return (h, whole_number(epochs, "epochs", low=1, error=InvalidSpecError),
            whole_number(seed, "seed", low=0, error=InvalidSpecError),
            whole_number(batch, "batch", low=1, error=InvalidSpecError),
            real_number(lr, "lr", low=0.0, strict=True, error=InvalidSpecError))


def fit_prune(examples: PruneExamples, hidden: int = 32, epochs: int = 12, seed: int = 1, lr: float = 0.003,
              batch: int = 256, log: Callable[[str], None] | None = None) -> dict[str, NDArray[np.float32]]:
    """The pruning nets, one for each net of ``NETS``, fit to ``examples``: ``{"contact.prune.w1": ..., ...}`` as a
    weights file holds them (``w1`` ``RAW_INPUTS`` x ``hidden``, ``b1``, ``w2`` 1 x
    ``hidden``, ``b2`` of 1).  Each has ``hidden`` sigmoid units and one linear output fit
    to the net's cubeless equity for the side on roll by least squares: Adam (0.9, 0.999)
    on minibatches of ``batch``, the rate ``lr`` times 0.7 each epoch.

    :raises InvalidSpecError: ``hidden`` not a multiple of 8 from 8 to ``PRUNE_MAX_HIDDEN``,
        ``epochs`` or ``batch`` not a whole number of at least 1, ``seed`` below 0, ``lr``
        not above 0, or a class of the nets with no example (its pruning net would be
        random).
    """
    hidden, epochs, seed, batch, lr = _check_settings(hidden, epochs, seed, batch, lr)
    missing = [net for k, net in enumerate(_neural.NETS) if not (examples.classes == k).any()]
    if missing:
        raise InvalidSpecError(f"no plays of the {' and '.join(missing)} class among the examples: each "
                               f"pruning net needs some (more positions)")
    equity = _equity(examples.targets)
    out: dict[str, NDArray[np.float32]] = {}
    for k, net in enumerate(_neural.NETS):
        rng = np.random.default_rng((seed, k))
        params = [(rng.standard_normal((_neural.RAW_INPUTS, hidden)) * 0.1).astype(np.float32),
                  np.zeros(hidden, np.float32),
                  (rng.standard_normal((1, hidden)) * 0.1).astype(np.float32),
                  np.zeros(1, np.float32)]
        rows = np.flatnonzero(examples.classes == k)
        moments = [np.zeros_like(p) for p in params]
        squares = [np.zeros_like(p) for p in params]
        step, rate = 0, lr
        for epoch in range(epochs if len(rows) else 0):
            loss = 0.0
            order = rows[rng.permutation(len(rows))]
            for start in range(0, len(order), batch):
                take = order[start:start + batch]
                x = examples.codes[take].astype(np.float32)
                w1, b1, w2, b2 = params
                h = _sigmoid(x @ w1 + b1)
                dz = (h @ w2.T + b2) - equity[take, None]
                loss += float((dz ** 2).sum())
                dh = (dz @ w2) * h * (1 - h)
                grads = [x.T @ dh / len(x), dh.mean(0), dz.T @ h / len(x), dz.mean(0)]
                step += 1
                for p, g, m, v in zip(params, grads, moments, squares):
                    m *= 0.9
                    m += 0.1 * g
                    v *= 0.999
                    v += 0.001 * g * g
                    p -= (rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)).astype(np.float32)
            rate *= 0.7
            if log is not None:
                log(f"{net} pruning net, epoch {epoch + 1}: equity error {np.sqrt(loss / len(rows)):.4f} "
                    f"(root mean square, {len(rows):,} plays)")
        for part, p in zip(("w1", "b1", "w2", "b2"), params):
            out[f"{net}.prune.{part}"] = p.astype(np.float32)
    return out


def prune_misses(model: _neural.Model, boards: NDArray[np.uint8], dice: NDArray[np.int64]) -> dict[str, Any]:
    """How the pruned favourite (:meth:`Model.choose` with ``prune``) compares with the net's
    own over the rolls ``(board, dice)``, ``model`` holding pruning nets.

    Returns ``rolls`` (with two plays or more), ``pruned`` (rolls the search prunes: more
    plays than pruning keeps, from a position with contact), ``misses`` (rolls whose pruned favourite is another play), ``loss_mp`` (the mean
    over ``rolls`` of the net's own equity of its favourite minus that of the pruned one,
    millipoints of cubeless money equity) and ``worst_mp``.

    :raises ValueError: a model without pruning nets.
    """
    if model.prune_hidden == 0:
        raise ValueError("the model has no pruning nets")
    rolls = pruned = misses = 0
    losses: list[float] = []
    for board, (d1, d2) in zip(boards, dice):
        kids, probs = model.children(board, int(d1), int(d2))
        if len(kids) < 2:
            continue
        rolls += 1
        keep = _neural.PRUNE_BASE + int(np.floor(np.log2(len(kids))))
        pruned += len(kids) > keep and not Position.from_bytes(bytes(board)).is_race()
        equity = _equity(probs)
        chosen = kids.index(model.choose(board, int(d1), int(d2), prune=True))
        loss = float(equity.max() - equity[chosen])
        misses += loss > 0
        losses.append(loss)
    return {"rolls": rolls, "pruned": pruned, "misses": misses,
            "loss_mp": 1000 * float(np.mean(losses)) if losses else 0.0,
            "worst_mp": 1000 * float(np.max(losses)) if losses else 0.0}


def distil_prune(weights: Weights, *, hidden: int = 32, positions: int = 200_000, epochs: int = 12, seed: int = 101,
                 check_positions: int = 5_000, log: Callable[[str], None] | None = None) -> Weights:
    """``weights`` with pruning nets distilled from its nets: :func:`prune_examples` of
    ``positions`` self-play positions of run ``seed``, :func:`fit_prune`, then
    :func:`prune_misses` on ``check_positions`` of run ``seed + 1`` (recorded in the meta
    facts as ``prune``, with the settings).

    :raises InvalidSpecError: bad settings (see :func:`fit_prune`), ``positions`` below 1,
        ``check_positions`` below 0.
    :raises TypeError: ``weights`` that are not :class:`Weights`.
    """
    if not isinstance(weights, Weights):
        raise TypeError(f"distil_prune takes Weights (bgfast.bots.neural_weights.read_weights), got {weights!r}")
    hidden, epochs, seed, _, _ = _check_settings(hidden, epochs, seed)
    positions = whole_number(positions, "positions", low=1, error=InvalidSpecError)
    check_positions = whole_number(check_positions, "check_positions", low=0, error=InvalidSpecError)
    say = log or (lambda line: None)
    nets = weights.nets_only()
    model = nets.model()
    boards, dice = self_play_rolls(model, positions, seed)
    examples = prune_examples(model, boards, dice)
    say(f"{len(examples.targets):,} plays of {positions:,} rolls valued by the net")
    arrays = fit_prune(examples, hidden=hidden, epochs=epochs, seed=seed, log=log)
    out = Weights({**nets.arrays, **arrays}, dict(nets.meta))
    facts: dict[str, Any] = {"hidden": hidden, "positions": positions, "epochs": epochs, "seed": seed}
    if check_positions:
        check = prune_misses(out.model(), *self_play_rolls(model, check_positions, seed + 1))
        facts["check"] = {"positions": check_positions, "seed": seed + 1, **check}
        say(f"held out: {check['misses']:,} of {check['pruned']:,} pruned rolls ({check['rolls']:,} in all) "
            f"miss the net's favourite; {check['loss_mp']:.3f} millipoints a roll lost, "
            f"the worst {check['worst_mp']:.1f}")
    out.meta["prune"] = facts
    return out
