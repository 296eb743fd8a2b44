"""Supervised refinement (bgfast.train.supervised): the fit's gradient, its schedule, resuming."""
from __future__ import annotations

import numpy as np
import pytest

from bgfast._core import neural as _neural
from bgfast.bots.neural_weights import Weights, read_weights
from bgfast.errors import InvalidSpecError
from bgfast.train import TrainConfig, initial_weights
from bgfast.train.supervised import (
    NetFit, RefineConfig, _conditional, _forward, _step, fit_net, label_positions, refine_positions,
)


def _tiny() -> Weights:
    return initial_weights(TrainConfig(contact_hidden=8, race_hidden=8, init_seed=3))


def _loss(fit: NetFit, x: np.ndarray, t: np.ndarray, mask: np.ndarray) -> float:
    """The conditional cross-entropy the fit minimizes, in float64."""
    h = 1 / (1 + np.exp(-(x.astype(np.float64) @ fit.w1 + fit.b1)))
    o = 1 / (1 + np.exp(-(h @ fit.w2.T.astype(np.float64) + fit.b2)))
    target, weight = _conditional(t)
    ce = -(target * np.log(o) + (1 - target) * np.log(1 - o))
    return float((weight * mask * ce).sum(axis=1).mean())


def test_the_adam_step_follows_the_gradient_of_the_conditional_cross_entropy() -> None:
    model = read_weights().model()
    boards = model.self_play_positions(4, 0, 3, 1)
    x, cls, mask = _neural.inputs_batch(boards)
    x, mask = x[cls == 0][:64], mask[cls == 0][:64]
    t = model.evaluate_batch(np.ascontiguousarray(boards[cls == 0][:64]))
    t = np.clip(t + np.float32(0.05), 0, 1).astype(np.float32)    # targets the net does not already meet
    t[:, 1] = np.minimum(t[:, 1], t[:, 0])
    t[:, 2] = np.minimum(t[:, 2], t[:, 1])
    t[:, 3] = np.minimum(t[:, 3], 1 - t[:, 0])
    t[:, 4] = np.minimum(t[:, 4], t[:, 3])
    fit = NetFit.of(_tiny(), "contact")
    # the analytic gradient of one weight against a central difference of the loss
    h, o = _forward(fit, x)
    target, weight = _conditional(t)
    dl = weight * mask * (o - target) / len(x)
    grad_w2 = (dl.T @ h)[2, 5]
    dh = (dl @ fit.w2) * h * (1 - h)
    grad_w1 = (x.T @ dh)[210, 3]
    for name, (i, j), grad in (("w2", (2, 5), grad_w2), ("w1", (210, 3), grad_w1)):
        param = getattr(fit, name)
        keep = param[i, j]
        param[i, j] = keep + 1e-3
        up = _loss(fit, x, t, mask)
        param[i, j] = keep - 1e-3
        down = _loss(fit, x, t, mask)
        param[i, j] = keep
        assert grad == pytest.approx((up - down) / 2e-3, rel=2e-2, abs=1e-6)
    before = _loss(fit, x, t, mask)
    for _ in range(20):
        _step(fit, x, t, mask, 0.01)
    assert _loss(fit, x, t, mask) < before


def test_a_fit_resumed_after_an_epoch_is_the_fit_never_stopped() -> None:
    import copy

    model = read_weights().model()
    boards = model.self_play_positions(5, 0, 20, 2)
    _, cls, _ = _neural.inputs_batch(boards)
    boards = np.ascontiguousarray(boards[cls == 0])
    targets = label_positions(model, boards, 1)
    whole = NetFit.of(_tiny(), "contact")
    saved: list[NetFit] = []
    fit_net(whole, boards, targets, epochs=3, lr=0.01, batch=64, seed=2,
            after_epoch=lambda e: saved.append(copy.deepcopy(whole)) if e == 0 else None)
    resumed = saved[0]
    fit_net(resumed, boards, targets, epochs=3, lr=0.01, batch=64, seed=2, first_epoch=1)
    for name in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(getattr(whole, name), getattr(resumed, name))
    assert resumed.step == whole.step
    assert not np.array_equal(whole.w1, NetFit.of(_tiny(), "contact").w1)


def test_refine_positions_are_candidates_then_positions_before_the_rolls() -> None:
    model = read_weights().model()
    config = RefineConfig(games=10, block_games=5, stride=2, most=4)
    boards = refine_positions(model, config, 1)
    candidates, ids = model.candidate_positions(config.seed, 5, 5, 2, 4, 0.16, 0.0)
    before = model.self_play_positions(config.seed, 5, 5, 2)
    assert np.array_equal(boards, np.concatenate([candidates, before]))
    assert np.all(np.diff(ids) >= 0) and np.bincount(ids).max() <= 4
    off = refine_positions(model, RefineConfig(games=10, block_games=5, stride=2, most=4, on_policy=False), 1)
    assert np.array_equal(off, candidates)


def test_candidates_are_the_best_plays_of_a_roll_from_the_opponent_s_side() -> None:
    model = read_weights().model()
    boards, ids = model.candidate_positions(9, 0, 1, 1, 3, 1.0, 0.0)
    # the first decision of game 0 is its opening roll: its candidates, valued by the net
    first = boards[ids == 0]
    assert 1 <= len(first) <= 3
    values = model.evaluate_batch(first)          # the opponent's (side 1 of each board on roll)
    equities = [2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4] for p in values]
    assert equities == sorted(equities)           # best for the mover = worst for the opponent first


@pytest.mark.parametrize("bad", [{"most": 0}, {"most": 65}, {"plies": 4}, {"held_out": 0.9}, {"held_out": 0.0}, {"games": 0},
                                 {"on_policy": 1}])
def test_a_bad_refine_setting_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidSpecError):
        RefineConfig(**bad)  # type: ignore[arg-type]


def test_candidate_positions_refuses_bad_arguments() -> None:
    model = read_weights().model()
    for args in ((1, 0, 1, 0), (1, 0, 1, 1, 0), (1, 0, 1, 1, 65), (1, 0, 1, 1, 4, 0.16, 2.0)):
        with pytest.raises(ValueError):
            model.candidate_positions(*args)


def test_each_refinement_round_keeps_the_rounds_before_it_in_the_meta() -> None:
    from bgfast.bots.neural_weights import Weights
    from bgfast.train.supervised import refine_lineage

    base = _tiny()
    td = Weights(base.arrays, {"games": 100, "config": {"seed": 1}})
    assert refine_lineage(td) == td.meta  # a TD net has no rounds yet
    first = Weights(base.arrays, {**td.meta, "refine": {"seed": 11}, "refined": {"contact": 1},
                                  "ppg_vs_pubeval": 0.6, "se": 0.01, "pairs": 10})
    second_start = refine_lineage(first)
    assert second_start == {**td.meta, "refine_rounds": [
        {"refine": {"seed": 11}, "refined": {"contact": 1}, "ppg_vs_pubeval": 0.6, "se": 0.01, "pairs": 10}]}
    second = Weights(base.arrays, {**second_start, "refine": {"seed": 12}})
    rounds = refine_lineage(second)["refine_rounds"]
    assert [r["refine"]["seed"] for r in rounds] == [11, 12] and "refine" not in refine_lineage(second)
