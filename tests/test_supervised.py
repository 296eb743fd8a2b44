"""Supervised refinement (bgfast.train.supervised): the fit's gradient, its schedule, resuming."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from bgfast._core import neural as _neural
from bgfast.bots.neural_weights import Weights, read_weights
from bgfast.errors import InvalidSpecError
from bgfast.train import TrainConfig, initial_weights
from bgfast.train.config import self_play
from bgfast.train.supervised import (
    Lookahead, NetFit, RefineConfig, _conditional, _equity, _forward, _joint, _relative_error, _step, fit_net,
    label_positions, lookahead_equity, lookahead_error, lookahead_positions, refine_positions, run_refine,
)
from bgfast.dice import ALL_21


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
    boards = self_play(model).positions(4, 0, 3, 1)
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
    boards = self_play(model).positions(5, 0, 20, 2)
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
    boards, decisions = refine_positions(model, config, 1)
    candidates, ids = self_play(model).candidates(config.seed, 5, 5, 2, 4, 0.16, 0.0)
    before = self_play(model).positions(config.seed, 5, 5, 2)
    assert np.array_equal(boards, np.concatenate([candidates, before]))
    assert np.array_equal(decisions, np.concatenate([ids, np.full(len(before), -1)]))
    assert np.all(np.diff(ids) >= 0) and np.bincount(ids).max() <= 4
    off, off_ids = refine_positions(model, RefineConfig(games=10, block_games=5, stride=2, most=4, on_policy=False), 1)
    assert np.array_equal(off, candidates) and np.array_equal(off_ids, ids)


def test_candidates_are_the_best_plays_of_a_roll_from_the_opponent_s_side() -> None:
    model = read_weights().model()
    boards, ids = self_play(model).candidates(9, 0, 1, 1, 3, 1.0, 0.0)
    # the first decision of game 0 is its opening roll: its candidates, valued by the net
    first = boards[ids == 0]
    assert 1 <= len(first) <= 3
    values = model.evaluate_batch(first)          # the opponent's (side 1 of each board on roll)
    equities = [2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4] for p in values]
    assert equities == sorted(equities)           # best for the mover = worst for the opponent first


@pytest.mark.parametrize("bad", [{"most": 0}, {"most": 65}, {"plies": 4}, {"held_out": 0.9}, {"held_out": 0.0}, {"games": 0},
                                 {"on_policy": 1}, {"lookahead_weight": -1.0}, {"lookahead_rolls": 0},
                                 {"lookahead_plies": 1}, {"lookahead_plies": 4},
                                 {"lookahead_weight": 40.0, "nets": "race,backgame"}, {"deep_rank_weight": 40.0},
                                 {"lookahead_weight": 40.0, "deep_rank_weight": -1.0}])
def test_a_bad_refine_setting_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidSpecError):
        RefineConfig(**bad)  # type: ignore[arg-type]


def test_candidate_positions_refuses_bad_arguments() -> None:
    model = read_weights().model()
    for args in ((1, 0, 1, 0), (1, 0, 1, 1, 0), (1, 0, 1, 1, 65), (1, 0, 1, 1, 4, 0.16, 2.0)):
        with pytest.raises(ValueError):
            self_play(model).candidates(*args)


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


def _rank_loss(fit: NetFit, x: np.ndarray, t: np.ndarray, mask: np.ndarray, groups: np.ndarray, weight: float) -> float:
    """The cross-entropy plus ``weight`` times the mean squared relative equity error, in float64."""
    h = 1 / (1 + np.exp(-(x.astype(np.float64) @ fit.w1 + fit.b1)))
    o = 1 / (1 + np.exp(-(h @ fit.w2.T.astype(np.float64) + fit.b2)))
    diff = _equity(_joint(o, mask)) - _equity(t.astype(np.float64))
    member = groups >= 0
    _, g = np.unique(groups[member], return_inverse=True)
    r = diff[member] - (np.bincount(g, diff[member]) / np.bincount(g))[g]
    return _loss(fit, x, t, mask) + weight * float((r ** 2).sum() / len(x))


def test_the_relative_equity_error_compares_a_candidate_with_the_others_of_its_roll() -> None:
    equity = np.array([0.5, 0.3, 0.1, 0.9, -0.2], dtype=np.float32)
    target = np.array([0.4, 0.3, 0.2, 0.0, -0.2], dtype=np.float32)
    groups = np.array([7, 7, 7, -1, 3], dtype=np.int64)
    r = _relative_error(equity, target, groups)
    # roll 7: net minus labels 0.1, 0.0, -0.1 around their mean 0; the others belong to no roll or stand alone
    assert r == pytest.approx([0.1, 0.0, -0.1, 0.0, 0.0], abs=1e-6)
    shifted = _relative_error(equity + np.float32(0.25), target, groups)   # a common shift changes no ranking
    assert shifted == pytest.approx(r, abs=1e-6)


def test_the_step_with_a_rank_weight_follows_the_gradient_of_the_whole_loss() -> None:
    model = read_weights().model()
    boards, ids = self_play(model).candidates(4, 0, 4, 1, 5, 1.0, 0.0)
    x, cls, mask = _neural.inputs_batch(boards)
    keep = np.nonzero(cls == 0)[0][:80]
    x, mask, groups = x[keep], mask[keep], ids[keep]
    t = label_positions(model, np.ascontiguousarray(boards[keep]), 1)
    fit = NetFit.of(_tiny(), "contact")
    weight = 40.0
    h, o = _forward(fit, x)
    target, cond = _conditional(t)
    from bgfast.train.supervised import _equity_gradient
    r = _relative_error(_equity(_joint(o, mask)), _equity(t), groups)
    dl = cond * mask * (o - target) / len(x) + ((2 * weight / len(x)) * r)[:, None] * _equity_gradient(o, mask) * o * (1 - o)
    analytic = {"w2": (dl.T @ h)[1, 4], "w1": (x.T @ ((dl @ fit.w2) * h * (1 - h)))[20, 2]}
    for name, (i, j) in (("w2", (1, 4)), ("w1", (20, 2))):
        param = getattr(fit, name)
        keep_value = param[i, j]
        param[i, j] = keep_value + np.float32(2e-4)
        up = _rank_loss(fit, x, t, mask, groups, weight)
        param[i, j] = keep_value - np.float32(2e-4)
        down = _rank_loss(fit, x, t, mask, groups, weight)
        step = float(np.float32(keep_value + np.float32(2e-4))) - float(np.float32(keep_value - np.float32(2e-4)))
        param[i, j] = keep_value
        assert analytic[name] == pytest.approx((up - down) / step, rel=1e-2, abs=1e-7)
    before = _rank_loss(fit, x, t, mask, groups, weight)
    for _ in range(20):
        _step(fit, x, t, mask, 0.01, groups, weight)
    assert _rank_loss(fit, x, t, mask, groups, weight) < before


def test_a_refinement_with_a_rank_weight_lowers_the_relative_error_and_reads_old_blocks(tmp_path) -> None:
    start = read_weights()
    config = RefineConfig(games=6, block_games=3, epochs=2, rank_weight=40.0, lr=0.0003, eval_pairs=0, held_out=0.3,
                          threads=1, explore=0.2)
    refined = run_refine(config, start, tmp_path / "run")
    contact = refined.meta["refined"]["contact"]
    assert contact["after"]["rank_error"] > 0 and contact["before"]["rank_error"] > 0     # held-out rolls: reported
    # on the positions it was fit to, the term lowers the relative error more than the cross-entropy alone does
    plain = run_refine(dataclasses.replace(config, rank_weight=0.0), start, tmp_path / "plain")
    parts = [np.load(f) for f in sorted((tmp_path / "run").glob("block-*.npz"))]
    boards = np.concatenate([z["boards"] for z in parts])
    targets = np.concatenate([z["targets"] for z in parts])
    rolls = np.concatenate([np.where(z["decisions"] >= 0, z["decisions"] + 1000 * k, -1) for k, z in enumerate(parts)])
    from bgfast.train.supervised import _classes, _validate
    contact_rows = _classes(boards) == 0

    def relative(weights: Weights) -> float:
        return _validate(NetFit.of(weights, "contact"), boards[contact_rows], targets[contact_rows],
                         rolls[contact_rows])["rank_error"]

    assert relative(refined) < relative(plain) and relative(refined) < relative(start)
    # a block written before blocks kept their rolls: the rolls are drawn again from the teacher
    old = tmp_path / "old"
    old.mkdir()
    for name in ("start.bgw", "block-0000.npz", "block-0001.npz"):
        data = (tmp_path / "run" / name).read_bytes()
        (old / name).write_bytes(data)
    for name in ("block-0000.npz", "block-0001.npz"):
        with np.load(old / name) as z:
            np.savez(old / name, boards=z["boards"], targets=z["targets"])
    again = run_refine(config, None, old)
    for key in refined.arrays:
        assert np.array_equal(again.arrays[key], refined.arrays[key])


def test_a_run_folder_of_an_older_bgfast_resumes_with_the_rank_weights_it_was_fit_with() -> None:
    older = ("rank_weight", "race_rank_weight")
    old = {k: v for k, v in RefineConfig(seed=4).to_dict().items() if k not in older}
    assert RefineConfig.saved(old) == RefineConfig(seed=4, rank_weight=0.0, race_rank_weight=0.0).to_dict()
    assert RefineConfig.saved(old) != RefineConfig(seed=4, rank_weight=10.0).to_dict()
    # a folder from before the race net had its own weight: both nets were fit with rank_weight
    one = {k: v for k, v in RefineConfig(seed=4, rank_weight=40.0).to_dict().items() if k != "race_rank_weight"}
    assert RefineConfig.saved(one) == RefineConfig(seed=4, rank_weight=40.0, race_rank_weight=40.0).to_dict()
    for name in older:
        with pytest.raises(InvalidSpecError, match=name):
            RefineConfig(**{name: -1.0})


def test_the_race_net_is_fit_with_its_own_rank_weight(tmp_path) -> None:
    """The race net's weight changes the race net alone (the contact, backgame and crashed nets have the other)."""
    start = read_weights()
    config = RefineConfig(games=8, block_games=4, epochs=1, rank_weight=40.0, race_rank_weight=0.0, lr=0.0003,
                          eval_pairs=0, held_out=0.2, threads=1, explore=0.2)
    base = run_refine(config, start, tmp_path / "base")
    run = tmp_path / "race"
    run.mkdir()
    for block in (tmp_path / "base").glob("block-*.npz"):
        (run / block.name).write_bytes(block.read_bytes())
    other = run_refine(dataclasses.replace(config, race_rank_weight=40.0), start, run)
    assert base.meta["refined"]["race"]["positions"] > 0
    for key in base.arrays:
        same = np.array_equal(base.arrays[key], other.arrays[key])
        assert same == (not key.startswith("race.")), key


def test_a_damaged_block_or_a_diverged_fit_is_one_clear_error(tmp_path) -> None:
    start = read_weights()
    config = RefineConfig(games=4, block_games=2, epochs=1, eval_pairs=0, threads=1)
    run_refine(config, start, tmp_path / "run")
    block = tmp_path / "run" / "block-0001.npz"
    data = block.read_bytes()
    block.write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidSpecError, match="block-0001.npz is damaged.*delete it"):
        run_refine(config, None, tmp_path / "run")
    with np.load(tmp_path / "run" / "block-0000.npz") as z:
        boards, targets = z["boards"], z["targets"].copy()
    targets[3, 1] = np.nan
    np.savez(block, boards=boards, targets=targets)
    with pytest.raises(InvalidSpecError, match="not probabilities"):
        run_refine(config, None, tmp_path / "run")
    targets[3, 1] = -1e-9                           # an average's rounding is no damage
    np.savez(block, boards=boards, targets=targets, decisions=np.full(len(boards), -1, np.int64))
    run_refine(config, None, tmp_path / "run")
    block.unlink()                                   # deleted: labelled anew, the same as before
    run_refine(config, None, tmp_path / "run")
    with np.load(block) as z:
        assert "decisions" in z.files and len(z["decisions"]) == len(z["boards"])
    with pytest.raises(InvalidSpecError, match="other settings .--rank-weight: 40.0 -> 1e"):
        run_refine(dataclasses.replace(config, rank_weight=1e300), None, tmp_path / "run")
    wild = dataclasses.replace(config, rank_weight=1e300)
    with pytest.raises(InvalidSpecError, match="diverged in epoch 1"), np.errstate(all="ignore"):
        run_refine(wild, start, tmp_path / "wild")
    with pytest.raises(InvalidSpecError, match="--start FILE"):
        run_refine(config, None, tmp_path / "none")
    assert not (tmp_path / "none").exists()


def test_without_the_ranking_term_positions_are_held_out_one_by_one_as_before_it(tmp_path) -> None:
    from bgfast.train.supervised import _classes

    config = RefineConfig(games=4, block_games=2, epochs=1, eval_pairs=0, threads=1, rank_weight=0.0, held_out=0.2)
    refined = run_refine(config, read_weights(), tmp_path / "run")
    boards = np.concatenate([np.load(f)["boards"] for f in sorted((tmp_path / "run").glob("block-*.npz"))])
    held = np.random.default_rng((config.seed, 1)).random(len(boards)) < config.held_out
    classes = _classes(boards)
    for k, net in enumerate(("contact", "race")):
        assert refined.meta["refined"][net]["held_out"] == int((held & (classes == k)).sum())


@pytest.mark.parametrize("bad", [{"nets": "race,race"}, {"nets": "bogus"}, {"nets": ""}, {"race_hidden": 12},
                                 {"contact_hidden": -8}, {"race_hidden": _neural.MAX_HIDDEN + 8}])
def test_a_bad_choice_of_nets_or_widths_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidSpecError):
        RefineConfig(**bad)  # type: ignore[arg-type]


def test_a_refinement_of_the_race_net_alone_keeps_the_others_and_widens_it(tmp_path) -> None:
    """``nets="race"`` moves the race net alone; ``race_hidden`` widens it first, computing the
    same values, so that a fit of no steps would give the start's race values."""
    start = read_weights().nets_only()           # a refinement drops the pruning nets
    contact, race, backgame, crashed = start.hidden
    config = RefineConfig(games=4, block_games=2, plies=0, epochs=1, lr=0.001, eval_pairs=0, threads=1,
                          nets="race", race_hidden=race + 8, seed=3)
    refined = run_refine(config, start, tmp_path / "run")
    assert refined.hidden == (contact, race + 8, backgame, crashed)
    for key in start.arrays:
        if not key.startswith("race."):
            assert np.array_equal(start.arrays[key], refined.arrays[key]), key
    assert not np.array_equal(start.arrays["race.w1"], refined.arrays["race.w1"][:, :race])
    assert refined.meta["refined"]["contact"] == {"kept": True}
    with np.load(tmp_path / "run" / "block-0000.npz") as block:    # only the race net's positions labelled
        assert len(block["boards"]) and set(_neural.inputs_batch(block["boards"])[1]) == {_neural.NETS.index("race")}

    from bgfast.train.supervised import _widened
    wide = _widened(start, config)
    boards, _ = refine_positions(start.model(), config, 0)
    races = boards[np.nonzero(_neural.inputs_batch(boards)[1] == _neural.NETS.index("race"))[0]]
    assert len(races)
    np.testing.assert_allclose(wide.model().evaluate_batch(races), start.model().evaluate_batch(races), atol=2e-6)


def test_a_refinement_of_the_crashed_net_alone_moves_it_from_the_contact_nets_weights(tmp_path) -> None:
    """``nets="crashed"`` on a file written before the crashed net: the fit starts from the
    copy of the contact net the file reads with, moves it alone, and labels only crashed
    positions; the others stay bit for bit."""
    three_nets = Path(__file__).resolve().parents[1] / "experiments" / "train_round15" / "start-round14.bgw"
    start = read_weights(three_nets).nets_only()
    assert np.array_equal(start.arrays["crashed.w1"], start.arrays["contact.w1"])
    config = RefineConfig(games=6, block_games=3, plies=0, epochs=1, lr=0.001, eval_pairs=0, threads=1,
                          nets="crashed", seed=3)
    refined = run_refine(config, start, tmp_path / "run")
    for key in start.arrays:
        assert np.array_equal(start.arrays[key], refined.arrays[key]) != key.startswith("crashed."), key
    crashed = _neural.NETS.index("crashed")
    with np.load(tmp_path / "run" / "block-0000.npz") as block:
        assert len(block["boards"]) and set(_neural.inputs_batch(block["boards"])[1]) == {crashed}
    assert refined.meta["refined"]["crashed"]["positions"] > 0


def test_the_contact_net_alone_is_not_refit_from_a_start_without_a_crashed_net(tmp_path) -> None:
    """A file of three nets valued crashed positions with its contact net: refitting that
    net without the crashed net (as a run begun before the crashed net did) is refused
    before any folder is made, a new run and a resumed one alike; the same for a file of
    two nets and its backgame net."""
    three_nets = Path(__file__).resolve().parents[1] / "experiments" / "train_round15" / "start-round14.bgw"
    start = read_weights(three_nets)
    config = RefineConfig(games=2, block_games=1, plies=0, epochs=1, eval_pairs=0, threads=1, nets="contact,backgame")
    with pytest.raises(InvalidSpecError, match="--nets contact,backgame,crashed"):
        run_refine(config, start, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    from bgfast.train.checkpoint import save_checkpoint
    from bgfast.train.supervised import START

    (tmp_path / "old").mkdir()
    save_checkpoint(tmp_path / "old", Weights(start.nets_only().arrays, {"refine": config.to_dict()}), START)
    with pytest.raises(InvalidSpecError, match="crashed"):
        run_refine(config, None, tmp_path / "old")
    assert not list((tmp_path / "old").glob("block-*.npz"))
    # widened, the copy stays a copy (and the refusal stands)
    from bgfast.train.td import widen

    wide = widen(start, start.hidden[0] + 8, start.hidden[1], seed=1, scale=0.1)
    assert wide.same_net("crashed", "contact") and not wide.same_net("backgame", "contact")
    with pytest.raises(InvalidSpecError, match="crashed"):
        run_refine(config, wide, tmp_path / "wide")
    # a file of two nets has no backgame net of its own either
    two_nets = Path(__file__).resolve().parents[1] / "experiments" / "train_round11" / "start-round10.bgw"
    with pytest.raises(InvalidSpecError, match="--nets contact,crashed,backgame"):
        run_refine(dataclasses.replace(config, nets="contact,crashed"), read_weights(two_nets), tmp_path / "two")


def test_a_net_asked_to_shrink_is_refused_before_any_labelling(tmp_path) -> None:
    start = read_weights()
    config = RefineConfig(games=4, block_games=2, plies=0, epochs=1, eval_pairs=0, threads=1,
                          race_hidden=start.hidden[1] - 8)
    with pytest.raises(InvalidSpecError, match="more than"):
        run_refine(config, start, tmp_path / "run")
    assert not list((tmp_path / "run").glob("block-*.npz"))


def test_nets_name_a_run_in_one_order_and_a_width_only_a_net_they_move() -> None:
    assert RefineConfig(nets="race,contact").nets == RefineConfig(nets="contact,race").nets == "contact,race"
    with pytest.raises(InvalidSpecError, match="race_hidden"):
        RefineConfig(nets="contact", race_hidden=264)
    with pytest.raises(InvalidSpecError, match="contact_hidden"):
        RefineConfig(nets="race", contact_hidden=264)
    assert RefineConfig(nets="backgame", contact_hidden=264).contact_hidden == 264


def test_a_refused_width_leaves_no_folder_and_a_net_without_positions_is_kept(tmp_path) -> None:
    start = read_weights().nets_only()           # a refinement drops the pruning nets
    with pytest.raises(InvalidSpecError, match="more than"):
        run_refine(RefineConfig(games=2, block_games=1, race_hidden=start.hidden[1] - 8, eval_pairs=0, threads=1),
                   start, tmp_path / "shrink")
    assert not (tmp_path / "shrink").exists()
    # one short game with a stride longer than it: no positions at all, every net kept
    config = RefineConfig(games=1, block_games=1, stride=1000, plies=0, epochs=1, eval_pairs=0, threads=1,
                          nets="backgame", seed=1)
    refined = run_refine(config, start, tmp_path / "empty")
    assert refined.meta["refined"]["backgame"] == {"kept": True, "positions": 0}
    assert all(np.array_equal(start.arrays[k], refined.arrays[k]) for k in start.arrays)


def _lookahead_sample(model: _neural.Model, rolls: int = 12) -> tuple[np.ndarray, Lookahead]:
    """Candidates of a few self-play rolls, their replies and 2-ply labels."""
    boards, decisions = self_play(model).candidates(4, 0, 3, 1, 5, 1.0, 0.0)
    rows, replies = lookahead_positions(model, boards, decisions, rolls, seed=2)
    targets = label_positions(model, np.ascontiguousarray(boards[rows]), 2)
    return boards[rows], Lookahead(replies, decisions[rows], _equity(targets).astype(np.float32), 40.0)


def test_the_lookahead_candidates_are_contact_rolls_and_their_equity_is_the_core_s_one_ply() -> None:
    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
    from bgfast._core.search import GREEDY_FILTERS
    from bgfast.train.supervised import _classes

    weights = read_weights()
    model = weights.model()
    boards, term = _lookahead_sample(model)
    rolls, count = np.unique(term.groups, return_counts=True)
    assert len(rolls) == 12 and (count >= 2).all()
    assert (_classes(boards) == 0).all() and (_classes(term.replies.reshape(-1, 50)) == 0).all()
    again_boards, again = _lookahead_sample(model)             # the same seed draws the same rolls
    assert np.array_equal(again_boards, boards) and np.array_equal(again.replies, term.replies)
    # every reply valued by the net, as the look-ahead term does: the shipped file's pruning
    # nets may pass over the net's favourite reply
    core = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, filters=GREEDY_FILTERS, prune=False)
    one_ply = _equity(core.on_roll_batch(np.ascontiguousarray(boards), 1).astype(np.float64))
    equity, _ = lookahead_equity(NetFit.of(weights, "contact"), term.replies)
    assert equity == pytest.approx(one_ply, abs=2e-5)


def _lookahead_loss(fit: NetFit, term: Lookahead) -> float:
    """``weight`` times the mean squared relative error of the 1-ply equity, plus
    ``deep_rank_weight`` times that of the candidates' 0-ply equity, in float64."""
    _, g = np.unique(term.groups, return_inverse=True)

    def equity_of(boards: np.ndarray) -> np.ndarray:
        x, mask = _neural.inputs_batch(np.ascontiguousarray(boards))[0::2]
        h = 1 / (1 + np.exp(-(x.astype(np.float64) @ fit.w1 + fit.b1)))
        o = 1 / (1 + np.exp(-(h @ fit.w2.T.astype(np.float64) + fit.b2)))
        return _equity(_joint(o, mask))

    def squared(equity: np.ndarray) -> float:
        diff = equity - term.equity
        r = diff if term.absolute else diff - (np.bincount(g, diff) / np.bincount(g))[g]
        return float((r ** 2).mean())

    chances = np.array([d.weight for d in ALL_21]) / 36
    loss = term.weight * squared(-(equity_of(term.replies.reshape(-1, 50)).reshape(-1, 21) * chances).sum(axis=1))
    if term.candidates is not None:
        loss += term.deep_rank_weight * squared(equity_of(term.candidates))
    return loss


@pytest.mark.parametrize("absolute", [False, True])
def test_the_lookahead_term_s_gradient_is_that_of_its_loss(absolute: bool) -> None:
    """The ranking term (relative to the roll's other candidates) and the value term
    (``absolute``: each row's own error)."""
    from bgfast.train.supervised import _lookahead_gradients

    model = read_weights().model()
    boards, term = _lookahead_sample(model, rolls=4)
    term = dataclasses.replace(term, candidates=boards, deep_rank_weight=25.0, absolute=absolute)
    fit = NetFit.of(_tiny(), "contact")
    analytic = _lookahead_gradients(fit, term)
    alone = _lookahead_gradients(fit, dataclasses.replace(term, candidates=None))
    assert not np.allclose(alone["w1"], analytic["w1"])         # the 0-ply part counts
    for name, (i, j) in (("w2", (0, 3)), ("w1", (30, 5)), ("w1", (150, 1))):
        param = getattr(fit, name)
        keep = param[i, j]
        param[i, j] = keep + np.float32(1e-3)
        up = _lookahead_loss(fit, term)
        param[i, j] = keep - np.float32(1e-3)
        down = _lookahead_loss(fit, term)
        step = float(np.float32(keep + np.float32(1e-3))) - float(np.float32(keep - np.float32(1e-3)))
        param[i, j] = keep
        assert analytic[name][i, j] == pytest.approx((up - down) / step, rel=2e-2, abs=1e-8)
    before = _lookahead_loss(fit, term)
    x, _, mask = _neural.inputs_batch(np.ascontiguousarray(term.replies[:, 0]))
    t = np.tile(np.array([[0.5, 0.1, 0.0, 0.1, 0.0]], np.float32), (len(x), 1))
    for _ in range(20):                               # the whole step: cross-entropy weighed to nothing
        _step(fit, x, t, mask, 0.01, row_weight=np.zeros(len(x), np.float32), lookahead=term)
    assert _lookahead_loss(fit, term) < before


def test_a_refinement_with_the_lookahead_term_lowers_the_one_ply_error_and_resumes(tmp_path) -> None:
    start = read_weights().nets_only()           # a refinement drops the pruning nets
    config = RefineConfig(games=6, block_games=3, epochs=2, plies=0, lr=0.0003, eval_pairs=0, held_out=0.3,
                          threads=1, explore=0.2, lookahead_weight=400.0, lookahead_rolls=40, nets="contact")
    refined = run_refine(config, start, tmp_path / "run")
    contact = refined.meta["refined"]["contact"]
    assert contact["lookahead_candidates"] > 0 and contact["held_out_lookahead"] > 0
    assert contact["before"]["lookahead_error"] > 0 and contact["after"]["lookahead_error"] > 0
    with np.load(tmp_path / "run" / "lookahead.npz") as z:
        rows, replies, targets = z["rows"], z["replies"], z["targets"]
    boards = np.concatenate([np.load(f)["boards"] for f in sorted((tmp_path / "run").glob("block-*.npz"))])
    rolls = np.concatenate([np.where(z["decisions"] >= 0, z["decisions"] + 1000 * k, -1) for k, z in
                            enumerate(np.load(f) for f in sorted((tmp_path / "run").glob("block-*.npz")))])
    term = Lookahead(replies, rolls[rows], _equity(targets).astype(np.float32), 1.0)
    assert targets == pytest.approx(label_positions(start.model(), np.ascontiguousarray(boards[rows]), 2), abs=1e-6)
    plain = run_refine(dataclasses.replace(config, lookahead_weight=0.0), start, tmp_path / "plain")
    fitted = lookahead_error(NetFit.of(refined, "contact"), term)
    assert fitted < lookahead_error(NetFit.of(plain, "contact"), term)
    assert fitted < lookahead_error(NetFit.of(start, "contact"), term)
    # the deep ranking term moves the candidates' 0-ply order towards the same labels
    deep = run_refine(dataclasses.replace(config, deep_rank_weight=400.0), start, tmp_path / "deep")
    from bgfast.train.supervised import _validate

    def zero_ply(weights: Weights) -> float:
        return _validate(NetFit.of(weights, "contact"), boards[rows], targets, rolls[rows])["rank_error"]

    assert zero_ply(deep) < zero_ply(refined)
    # killed after its look-ahead labels: resumed, the same net; the file damaged: one clear error
    (tmp_path / "run" / "fit.npz").unlink()
    (tmp_path / "run" / "refined.bgw").unlink()
    again = run_refine(config, None, tmp_path / "run")
    assert all(np.array_equal(again.arrays[k], refined.arrays[k]) for k in refined.arrays)
    path = tmp_path / "run" / "lookahead.npz"
    kept = path.read_bytes()
    # a look-ahead copied from a run of other settings, or cut short by hand, is not used
    other = tmp_path / "other"
    other.mkdir()
    for f in (tmp_path / "run").glob("block-*.npz"):
        (other / f.name).write_bytes(f.read_bytes())
    (other / "lookahead.npz").write_bytes(kept)
    with pytest.raises(InvalidSpecError, match="other settings or positions"):
        run_refine(dataclasses.replace(config, lookahead_plies=3), start, other)
    games = tmp_path / "games"                      # the same look-ahead settings, other games
    games.mkdir()
    (games / "lookahead.npz").write_bytes(kept)
    with pytest.raises(InvalidSpecError, match="other settings or positions"):
        run_refine(dataclasses.replace(config, explore=0.0), start, games)
    with np.load(path) as z:
        short = {k: z[k] for k in z.files}
    nan = dict(short, targets=np.full_like(short["targets"], np.nan))
    short.update(rows=short["rows"][:5], replies=short["replies"][:5], targets=short["targets"][:5])
    for bad, match in ((short, "do not match their SHA-256"), (nan, "do not match their SHA-256")):
        np.savez(path, **bad)
        with pytest.raises(InvalidSpecError, match=match):
            run_refine(config, None, tmp_path / "run")
    from bgfast.train.supervised import _digest

    del nan["digest"]
    np.savez(path, digest=_digest(nan), **nan)     # a consistent file of labels that are no probabilities
    with pytest.raises(InvalidSpecError, match="not probabilities"):
        run_refine(config, None, tmp_path / "run")
    path.write_bytes(kept[:100])
    with pytest.raises(InvalidSpecError, match="lookahead.npz is damaged"):
        run_refine(config, None, tmp_path / "run")
    path.write_bytes(bytes(range(256)) * 8)          # garbage: no numpy advice to load it unsafely
    with pytest.raises(InvalidSpecError, match="lookahead.npz is damaged") as refused:
        run_refine(config, None, tmp_path / "run")
    assert "allow_pickle" not in str(refused.value)
    path.write_bytes(kept)
    with pytest.raises(InvalidSpecError, match="--lookahead-weight: 400.0 -> 0.0"):
        run_refine(dataclasses.replace(config, lookahead_weight=0.0), None, tmp_path / "run")


def test_a_net_with_no_held_out_positions_has_no_figures_not_nan() -> None:
    from bgfast.train.supervised import _figures_text, _validate

    empty = _validate(NetFit.of(_tiny(), "contact"), np.zeros((0, 50), np.uint8), np.zeros((0, 5), np.float32))
    assert _figures_text(empty) == "no figures (no position held out)"
    alone = {"excess_loss": 0.001, "equity_mae": 0.01, "rank_error": float("nan")}     # no roll of 2+ held out
    assert _figures_text(alone) == "excess loss 0.00100, equity error 0.01000"
