"""The luck adjustment of rollouts (variance reduction): exactly mean-zero luck, unchanged games, no bias.

The luck of a roll is the value of the roll (the evaluator's probabilities after its best
play of it; with a move filter, the best of pubeval's best few plays) minus the mean of
that value over the 36 rolls.  Whatever the value function, that mean is exactly zero, so
subtracting a trial's summed luck leaves the rollout unbiased; these tests check the
zero mean roll by roll, that measuring luck does not change a single play, and that
adjusted and unadjusted rollouts agree with each other and with exact values.  Fixed
seeds: the statistical tests give the same numbers on every run.
"""
from __future__ import annotations

import numpy as np
import pytest

import bgfast.rollout.engine as engine
from bgfast import Position
from bgfast.bots import get_bot
from bgfast.dice import ALL_36
from bgfast.evaluator import default_evaluator
from bgfast.match import MatchState
from bgfast.met import MatchEquityTable
from bgfast.rollout import rollout
from test_rollout import SHOT, THREE_EACH, exact_win, inside

CONTACT = ["4HPwATDgc/ABMA", "zN2QBSDgOXiAMQ", "bBviEiDgc3AAVg", "PvcNAACsnQGAOQ"]
RACE = "v+8ACAD3BgAAAg"          # wildbg contact set, no contact left: the race net values it


def _lucks(evaluator, position: str, flt: int) -> np.ndarray:
    board = Position(position).to_bytes()
    return np.array([evaluator.luck(board, d1, d2, flt) for d1, d2 in ALL_36])


@pytest.mark.parametrize("flt", [0, 1, 4])
@pytest.mark.parametrize("position", [*CONTACT, RACE, THREE_EACH.id()])
def test_the_luck_of_the_net_has_mean_zero_over_the_36_rolls(position: str, flt: int) -> None:
    lucks = _lucks(get_bot("neural").evaluator, position, flt)
    assert np.abs(lucks.mean(axis=0)).max() < 1e-6
    assert np.abs(lucks[:, 0]).max() > 0.01          # the rolls do differ: this checks something


def test_the_luck_of_the_heuristic_has_mean_zero_over_the_36_rolls() -> None:
    lucks = _lucks(default_evaluator(), CONTACT[1], 0)
    assert np.abs(lucks.mean(axis=0)).max() < 1e-6 and np.abs(lucks[:, 0]).max() > 0.01


@pytest.mark.parametrize("position", CONTACT[:2])
def test_without_a_filter_the_luck_is_the_value_after_the_play_minus_the_1_ply_value(position: str) -> None:
    """Exactly so for the 1-ply search that values every reply: with the pruning nets (the
    default) a reply is the net's best of the pruning nets' best few, which may miss the
    net's 0-ply favourite that the luck measure takes."""
    evaluator = get_bot("neural", prune=False).evaluator
    board = Position(position).to_bytes()
    average = np.array(evaluator.on_roll(board, 1))
    for d1, d2 in [(3, 1), (1, 3), (6, 6), (5, 2)]:
        got = np.array(evaluator.after(evaluator.choose(board, d1, d2)))
        assert np.abs(np.array(evaluator.luck(board, d1, d2)) - (got - average)).max() < 1e-6


@pytest.mark.parametrize("position", CONTACT)
def test_a_filter_that_keeps_every_play_gives_the_luck_of_no_filter(position: str) -> None:
    # The filtered measure values plays from the position's shared first-layer sums, the
    # plain one from the first play of each roll: the same net, summed in another order.
    evaluator = get_bot("neural").evaluator
    assert np.abs(_lucks(evaluator, position, 64) - _lucks(evaluator, position, 0)).max() < 2e-6


def test_a_tight_filter_changes_the_luck() -> None:
    evaluator = get_bot("neural").evaluator
    assert np.abs(_lucks(evaluator, CONTACT[1], 1) - _lucks(evaluator, CONTACT[1], 0)).max() > 0.01


def test_a_negative_filter_is_refused() -> None:
    with pytest.raises(ValueError, match="luck filter"):
        get_bot("neural").evaluator.luck(Position().to_bytes(), 3, 1, -1)


# ---------------------------------------------------------------- the games


@pytest.mark.parametrize("flt", [0, 4])
@pytest.mark.parametrize("bot", ["neural", "heuristic", "pubeval"])
def test_measuring_luck_does_not_change_a_play(monkeypatch: pytest.MonkeyPatch, bot: str, flt: int) -> None:
    # A bot that never doubles: its cubeful value, with the cubeful luck adjustment switched
    # off here, is the unadjusted result of the very games the luck was measured in.  Without
    # a filter the loop takes the play the luck measure found (the neural and heuristic bots'
    # own); it must be the play the bot makes.
    monkeypatch.setattr(engine, "LUCK_FILTER", flt)
    monkeypatch.setattr(engine, "_luck_scale", lambda task, match: np.zeros(5))   # the cubeful luck weighs nothing
    player = get_bot(bot, cube="never")
    adjusted = rollout(CONTACT[1], bot=player, trials=72, seed=3, cubeful=True, luck=True)
    plain = rollout(CONTACT[1], bot=player, trials=72, seed=3, cubeful=True, luck=False)
    assert adjusted.luck_adjusted and not plain.luck_adjusted
    assert adjusted.cubeful_equity == plain.cubeful_equity
    assert adjusted.equity != plain.equity


def test_one_and_two_workers_give_identical_luck_adjusted_results() -> None:
    one = rollout(CONTACT[0], trials=144, seed=9, workers=1)
    two = rollout(CONTACT[0], trials=144, seed=9, workers=2)
    assert one.luck_adjusted
    assert one.to_dict() | {"seconds": 0} == two.to_dict() | {"seconds": 0}


# ---------------------------------------------------------------- no bias


def test_the_default_luck_measure_filters_plays() -> None:
    assert engine.LUCK_FILTER > 0


def test_a_luck_adjusted_neural_rollout_holds_the_exact_value_of_a_bear_off() -> None:
    # Three checkers a side: some doubles have more plays than the filter keeps.
    exact = exact_win(THREE_EACH, "neural")
    result = rollout(THREE_EACH, bot="neural", trials=1296, seed=5)
    assert result.luck_adjusted and inside(exact, result.win) and inside(2 * exact - 1, result.equity)
    assert result.win.se < 0.003


@pytest.mark.parametrize("position", [SHOT.id(), CONTACT[1]])
def test_adjusted_and_unadjusted_rollouts_of_the_same_trials_agree(position: str) -> None:
    # Same seed, same games: the two estimates differ by the trials' mean luck, which is
    # noise about zero of about the unadjusted error.  (With the shipped round-10 net, 648
    # trials of SHOT at seed 21 differed by 3.1 errors; seeds 22 to 28 by -0.5 to +2.0, and
    # 12,960 trials by 0.5: a 1-in-600 draw, not a bias.)
    adjusted = rollout(position, trials=1296, seed=21)
    plain = rollout(position, trials=1296, seed=21, luck=False)
    assert abs(adjusted.equity.value - plain.equity.value) < 3 * plain.equity.se
    assert adjusted.equity.se < 0.5 * plain.equity.se


@pytest.mark.slow
@pytest.mark.parametrize("position", CONTACT)
def test_long_adjusted_and_unadjusted_rollouts_agree(position: str) -> None:
    # 12,960 trials each, different seeds (independent): the difference within 3 SE.
    adjusted = rollout(position, trials=12960, seed=31, workers=2)
    plain = rollout(position, trials=12960, seed=32, luck=False, workers=2)
    diff = adjusted.equity.value - plain.equity.value
    assert abs(diff) < 3 * float(np.hypot(adjusted.equity.se, plain.equity.se)), diff


# ---------------------------------------------------------------- the cubeful value


def test_the_cubeful_luck_is_each_rolls_luck_times_the_cube_per_initial_cube() -> None:
    # A bot that never doubles, no Jacoby rule, the cube at 2 from the start: every roll is
    # rolled at cube 2, the cubeful value is the cubeless result (per initial cube), so the
    # adjusted cubeful equity is the adjusted cubeless equity, trial by trial.
    match = MatchState(cube_value=2, cube_owner=0, jacoby=False)
    result = rollout(CONTACT[1], bot="pubeval:cube=never", match=match, trials=72, seed=4, cubeful=True)
    plain = rollout(CONTACT[1], bot="pubeval:cube=never", match=match, trials=72, seed=4, cubeful=True, luck=False)
    assert plain.cubeful_equity == plain.equity
    assert result.cubeful_equity.value == pytest.approx(result.equity.value, abs=1e-6)
    assert result.cubeful_equity.se == pytest.approx(result.equity.se, abs=1e-6)
    assert result.cubeful_equity.value != plain.cubeful_equity.value


def test_adjusted_and_unadjusted_cubeful_rollouts_of_the_same_trials_agree() -> None:
    # The neural bot doubles, takes and passes: the adjusted cubeful equity differs from the
    # unadjusted one of the same games by the trials' mean (cube-weighted) luck, noise about
    # zero, and its error is less than half the unadjusted one (the variance reduction that
    # ranking plays by it needs).
    adjusted = rollout(CONTACT[0], trials=324, seed=4, cubeful=True)
    plain = rollout(CONTACT[0], trials=324, seed=4, cubeful=True, luck=False)
    assert "cubeful_equity" in adjusted.luck_adjusted_figures
    assert abs(adjusted.cubeful_equity.value - plain.cubeful_equity.value) < 3 * plain.cubeful_equity.se
    assert adjusted.cubeful_equity.se < 0.5 * plain.cubeful_equity.se


def test_a_luck_adjusted_cubeful_rollout_holds_the_exact_mwc_when_nobody_can_double() -> None:
    # The Crawford game: the cube is dead, the cubeful MWC is the outcomes through the MET,
    # known exactly by recursion over the rolls; the adjusted estimate holds it.
    met = MatchEquityTable.load()
    match = MatchState(length=3, score=(2, 0), crawford=True)
    p = exact_win(THREE_EACH)
    exact = p * met.mwc(0, 3, True) + (1 - p) * met.mwc(1, 2, True)
    result = rollout(THREE_EACH, bot="pubeval", cubeful=True, match=match, trials=1296, seed=2)
    plain = rollout(THREE_EACH, bot="pubeval", cubeful=True, match=match, trials=1296, seed=2, luck=False)
    assert result.luck_adjusted and inside(exact, result.cubeful_mwc)
    assert result.cubeful_mwc.se < 0.7 * plain.cubeful_mwc.se     # the heuristic measures the luck of a 3-checker race


@pytest.mark.slow
@pytest.mark.parametrize("position", CONTACT[:2])
def test_long_adjusted_and_unadjusted_cubeful_rollouts_agree(position: str) -> None:
    # 2592 trials each with the cube (money play, the neural bot's doubles), different seeds:
    # the cubeful equities within 3 SE of each other.
    adjusted = rollout(position, trials=2592, seed=41, workers=2, cubeful=True)
    plain = rollout(position, trials=2592, seed=42, luck=False, workers=2, cubeful=True)
    diff = adjusted.cubeful_equity.value - plain.cubeful_equity.value
    assert abs(diff) < 3 * float(np.hypot(adjusted.cubeful_equity.se, plain.cubeful_equity.se)), diff
