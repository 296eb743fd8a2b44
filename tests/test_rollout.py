"""Rollouts (bgfast.rollout): exact references, error bars, variance reduction, workers, input errors.

The exact references come from a small solver below: in a bear-off with a few checkers
a side and no contact, the chance that the side on roll wins *with the bot's own checker
play* is a finite recursion over the 21 rolls (no gammons are possible with fewer than 15
checkers).  Every statistical test uses fixed seeds, so it gives the same numbers on
every run and cannot flake; the tolerances were chosen with that run's numbers in view.
"""
from __future__ import annotations

import json
import math
import os
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bgfast import Position
from bgfast.bots import Bot, get_bot
from bgfast.cli import main
from bgfast.dice import ALL_21, Dice
from bgfast.errors import (
    IllegalMoveError,
    InvalidDiceError,
    InvalidPositionError,
    InvalidRolloutError,
    UnknownBotError,
)
from bgfast.game import decisions
from bgfast.match import GameState, MatchState
from bgfast.met import MatchEquityTable
from bgfast.rollout import Estimate
from bgfast.rollout import rollout as _rollout
from bgfast.rollout.stats import estimate, estimate_paired, variance_strata


def rollout(*args, **kwargs):  # type: ignore[no-untyped-def]
    """The engine without luck adjustment unless a test asks for it: the sampling under test, and fast;
    pubeval plays unless a test names another bot (the exact values below are of pubeval's play)."""
    kwargs.setdefault("luck", False)
    kwargs.setdefault("bot", "pubeval")
    return _rollout(*args, **kwargs)


def home(*counts: int) -> list[int]:
    """A side with ``counts[i]`` checkers on its point i + 1, nothing else."""
    return list(counts) + [0] * (25 - len(counts))


# Bear-offs without contact.  In board order: (opponent, side on roll).
ONE_EACH = Position.from_board([home(0, 0, 0, 1), home(0, 0, 0, 0, 0, 1)])       # 6 vs 4: play cannot matter
THREE_EACH = Position.from_board([home(1, 0, 1, 0, 0, 1), home(0, 1, 1, 0, 1)])  # the bot's play matters
TWO_EACH = Position.from_board([home(0, 1, 0, 1), home(0, 0, 1, 0, 1)])
# Contact: the side on roll is on the bar against two blots, its own board closed; the first roll decides.
SHOT = Position.from_board([home(0, 1, 0, 1), [3, 3, 2, 2, 2, 2] + [0] * 18 + [1]])
# A race the side on roll wins by doubling: it bears off its last checker with any roll, and the
# opponent (15 checkers on its 6-point, none off) passes the Keith-count double.
CASH = Position.from_board([home(0, 0, 0, 0, 0, 15), home(1)])


@cache
def _chooser(bot: str):
    return decisions(get_bot(bot, cube="never").core_config())


def exact_win(position: Position, bot: str = "pubeval") -> float:
    """P(the side on roll wins) when ``bot`` plays both sides, by recursion over the 21 rolls."""
    runner = _chooser(bot)

    @cache
    def value(key: bytes) -> float:
        total = 0.0
        for dice in ALL_21:
            if bot == "random":
                children = Position.from_bytes(key).children(dice.high, dice.low)
                share = sum(1.0 if not any(c.to_bytes()[25:]) else 1.0 - value(c.to_bytes()[25:] + c.to_bytes()[:25])
                            for c in children) / len(children)
            else:
                child = runner.choose(key, dice.high, dice.low, 0)
                share = 1.0 if not any(child[25:]) else 1.0 - value(child[25:] + child[:25])
            total += dice.weight * share
        return total / 36.0

    return value(position.to_bytes())


class ExactBearoff:
    """An evaluator for the truncation tests: the exact probabilities of pubeval's play."""

    name = "exact-bearoff"

    def evaluate(self, position: Position) -> tuple[float, float, float, float, float]:
        return (exact_win(position), 0.0, 0.0, 0.0, 0.0)


class PythonPubeval(Bot):
    """pubeval's checker play through the Python callback path (and picklable: built lazily)."""

    name = "python-pubeval"

    def __init__(self) -> None:
        self._bot: Bot | None = None

    def __getstate__(self) -> dict:
        return {"_bot": None}

    def choose_move(self, position, dice, match):
        if self._bot is None:
            self._bot = get_bot("pubeval", cube="never")
        return self._bot.choose_move(position, dice, match)


def inside(value: float, est: Estimate, tol: float = 1e-6) -> bool:
    """``value`` is in the 95% interval (``tol`` for float32 rounding: a stratified or luck-adjusted rollout can be exact)."""
    low, high = est.interval
    return low - tol <= value <= high + tol


# ---------------------------------------------------------------- exact references


def test_the_exact_solver_agrees_with_counting_rolls_by_hand() -> None:
    # One checker on the 6-point against one on the ace point: the side on roll wins only by
    # bearing off at once, with any roll of 6 pips or more (26 of 36) or with 2-2.
    assert exact_win(Position.from_board([home(1), home(0, 0, 0, 0, 0, 1)])) == pytest.approx(27 / 36)


@pytest.mark.parametrize("reduce", [True, False], ids=["stratified", "plain"])
@pytest.mark.parametrize("position", [ONE_EACH, TWO_EACH, THREE_EACH], ids=["one-each", "two-each", "three-each"])
def test_the_95_percent_interval_contains_the_exact_win_chance_of_the_bots_play(position: Position,
                                                                                 reduce: bool) -> None:
    exact = exact_win(position)
    result = rollout(position, trials=2592, seed=11, variance_reduction=reduce)
    assert inside(exact, result.win)
    assert inside(2 * exact - 1, result.equity)
    assert result.win_gammon == result.lose_gammon == Estimate(0.0, 0.0)


def test_the_interval_contains_the_exact_value_of_the_random_bots_play() -> None:
    exact = exact_win(THREE_EACH, "random")
    result = rollout(THREE_EACH, bot="random", trials=2592, seed=5)
    assert inside(exact, result.win)
    assert abs(exact - exact_win(THREE_EACH)) > 0.01  # the two policies differ, so this checks something


def test_the_standard_error_halves_when_the_trials_quadruple() -> None:
    small = rollout(THREE_EACH, trials=720, seed=3)
    large = rollout(THREE_EACH, trials=4 * 720, seed=3)
    assert small.strata == large.strata == 36
    ratio = large.equity.se / small.equity.se
    assert 0.42 < ratio < 0.58, ratio


def test_reported_errors_match_the_spread_of_independent_rollouts() -> None:
    # 60 rollouts of 72 trials with different seeds: the standard deviation of their
    # estimates is what an honest standard error predicts, with and without stratification.
    for reduce in (True, False):
        results = [rollout(SHOT, trials=72, seed=s, variance_reduction=reduce) for s in range(60)]
        spread = np.std([r.equity.value for r in results], ddof=1)
        reported = math.sqrt(np.mean([r.equity.se ** 2 for r in results]))
        assert 0.75 < spread / reported < 1.3, (reduce, spread, reported)


# ---------------------------------------------------------------- variance reduction


def vr_ratio(position: Position, trials: int, seed: int) -> float:
    stratified = rollout(position, trials=trials, seed=seed)
    plain = rollout(position, trials=trials, seed=seed, variance_reduction=False)
    assert (stratified.strata, plain.strata) == (1296 if trials % 1296 == 0 else 36, 1)
    return stratified.equity.se / plain.equity.se


def test_stratifying_the_first_rolls_clearly_cuts_the_error_on_a_contact_position() -> None:
    assert vr_ratio(SHOT, 2592, 7) < 0.7      # measured 0.59 (first two rolls stratified)
    assert vr_ratio(SHOT, 720, 7) < 0.7       # first roll only


def test_stratifying_the_first_rolls_clearly_cuts_the_error_in_a_bear_off() -> None:
    assert vr_ratio(THREE_EACH, 2592, 7) < 0.8


def test_on_the_opening_position_stratification_is_no_worse_than_plain_sampling() -> None:
    # With pubeval the first two rolls explain about 1% of the variance of an opening game,
    # so the two errors are equal within the noise of estimating them (measured 0.996).
    assert 0.9 < vr_ratio(Position(), 1296, 7) < 1.05


def luck_ratio(position: Position, trials: int, seed: int) -> float:
    adjusted = _rollout(position, trials=trials, seed=seed, workers=2)
    plain = _rollout(position, trials=trials, seed=seed, variance_reduction=False, workers=2)
    assert adjusted.luck_adjusted and not plain.luck_adjusted
    return adjusted.equity.se / plain.equity.se


def test_luck_adjustment_clearly_cuts_the_error_on_the_opening_position() -> None:
    assert luck_ratio(Position(), 360, 3) < 0.7       # measured 0.48 on 1296 trials


def test_luck_adjustment_clearly_cuts_the_error_on_a_contact_position() -> None:
    assert luck_ratio(SHOT, 360, 3) < 0.7


def test_a_luck_adjusted_rollout_is_unbiased_in_a_bear_off() -> None:
    # Given a bear-off whose exact value for the bot's own play is known
    exact = exact_win(THREE_EACH, "pubeval")
    # When it is rolled out with luck adjustment, its interval holds the exact value
    result = _rollout(THREE_EACH, bot="pubeval", trials=720, seed=5)
    assert result.luck_adjusted and inside(exact, result.win)


def test_fewer_than_72_trials_are_sampled_plainly() -> None:
    assert rollout(THREE_EACH, trials=71, seed=1).strata == 1
    assert rollout(THREE_EACH, trials=72, seed=1).strata == 36


# ---------------------------------------------------------------- determinism


def test_one_and_two_workers_give_identical_results() -> None:
    one = rollout(Position(), trials=300, seed=9, workers=1, cubeful=True)
    two = rollout(Position(), trials=300, seed=9, workers=2, cubeful=True)
    assert one.to_dict() | {"seconds": 0} == two.to_dict() | {"seconds": 0}


def test_one_and_two_workers_rank_the_plays_identically() -> None:
    one = rollout(Position(), dice="42", plays=True, trials=100, seed=2, workers=1)
    two = rollout(Position(), dice="42", plays=True, trials=100, seed=2, workers=2)
    assert one.to_dict() | {"seconds": 0} == two.to_dict() | {"seconds": 0}


def test_a_target_error_stops_at_the_same_trial_whatever_the_workers() -> None:
    one = rollout(THREE_EACH, trials=1296 * 8, seed=4, target_se=0.012, workers=1)
    two = rollout(THREE_EACH, trials=1296 * 8, seed=4, target_se=0.012, workers=2)
    assert one.trials == two.trials < 1296 * 8
    assert one.trials % 1296 == 0
    assert one.equity == two.equity and one.equity.se <= 0.012


def test_in_match_play_the_target_error_is_in_emg_not_in_match_winning_chance() -> None:
    # At 4-away 3-away one point is worth ~12 times less in MWC than in EMG, so a target of
    # 0.03 is met in MWC at once but in EMG only after 2592 trials.
    match = MatchState(length=5, score=(1, 2))
    result = rollout(Position(), cubeful=True, match=match, trials=1296 * 3, seed=3, target_se=0.03)
    assert result.trials == 2592 and result.cubeful_equity.se <= 0.03
    assert rollout(Position(), cubeful=True, match=match, trials=1296, seed=3).cubeful_equity.se > 0.03


def test_an_unreachable_target_error_plays_every_trial() -> None:
    assert rollout(THREE_EACH, trials=1296, seed=4, target_se=1e-9).trials == 1296


def test_the_same_seed_repeats_the_rollout_and_another_seed_does_not() -> None:
    a, b, c = (rollout(TWO_EACH, trials=144, seed=s) for s in (1, 1, 2))
    assert a.equity == b.equity
    assert a.equity != c.equity


def test_a_python_bot_plays_the_same_games_as_the_core_bot_it_copies() -> None:
    core = rollout(THREE_EACH, trials=144, seed=8)
    python = rollout(THREE_EACH, bot=PythonPubeval(), trials=144, seed=8, workers=2)
    assert python.equity == core.equity and python.bot == "python-pubeval"


# ---------------------------------------------------------------- dice, plays, perspective


def test_results_are_from_the_side_on_roll_before_the_dice() -> None:
    # The side on roll bears off its last checker with any roll, a gammon; turned round, the
    # side on roll is the one that loses the gammon.
    result = rollout(CASH, trials=72, seed=1)
    assert result.probabilities == (1.0, 1.0, 0.0, 0.0, 0.0) and result.equity.value == 2.0
    flipped = rollout(CASH.swap_sides(), trials=72, seed=1)
    # the side on roll now loses, a gammon unless its first roll bears a checker off (the
    # opponent bears off next roll): the first roll is stratified, so that chance is exact
    runner = _chooser("pubeval")
    keeps_all = sum(d.weight for d in ALL_21
                    if sum(runner.choose(flipped.position.to_bytes(), d.high, d.low, 0)[25:]) == 15) / 36
    assert flipped.win.value == 0.0 and flipped.lose_gammon.value == pytest.approx(keeps_all)


def test_with_dice_the_given_play_is_rolled_out_and_the_result_stays_with_the_player() -> None:
    result = rollout(ONE_EACH, dice="65", trials=72, seed=1)          # 6/off: the game is over
    assert result.play == "6/off" and result.win == Estimate(1.0, 0.0)
    played = rollout(ONE_EACH, dice="21", play="6/3", trials=360, seed=1)
    exact = 1.0 - exact_win(Position.from_board([home(0, 0, 1), home(0, 0, 0, 1)]))
    assert inside(exact, played.win)


def test_the_bots_own_choice_equals_rolling_out_the_play_it_chooses() -> None:
    chosen = rollout(Position(), dice="31", trials=144, seed=3)
    assert chosen.play == "8/5 6/5"
    fixed = rollout(Position(), dice="31", play="8/5 6/5", trials=144, seed=3)
    assert chosen.equity == fixed.equity


def test_rolling_out_every_play_ranks_them_with_differences_to_the_best() -> None:
    result = rollout(Position(), dice="31", plays=True, trials=144, seed=3)
    plays = result.plays
    assert len(plays) == 16
    assert [p.result.equity.value for p in plays] == sorted((p.result.equity.value for p in plays), reverse=True)
    assert plays[0].difference == Estimate(0.0, 0.0)
    assert all(p.difference.value <= 0 and p.difference.se > 0 for p in plays[1:])
    assert result.equity == plays[0].result.equity and result.play == plays[0].move
    single = rollout(Position(), dice="31", play=plays[3].move, trials=144, seed=3)
    assert single.equity == plays[3].result.equity   # the same dice for every play


def test_common_dice_make_the_error_of_a_difference_smaller_than_independent_errors() -> None:
    result = rollout(TWO_EACH, dice="21", plays=True, trials=720, seed=6)
    assert len(result.plays) >= 2
    for p in result.plays[1:]:
        independent = math.hypot(p.result.equity.se, result.plays[0].result.equity.se)
        assert p.difference.se < 0.8 * independent


# ---------------------------------------------------------------- cube and match


def test_a_bot_that_never_doubles_has_equal_cubeful_and_cubeless_equity_without_jacoby() -> None:
    result = rollout(Position(), bot="random", cubeful=True, match=MatchState(jacoby=False), trials=144, seed=1)
    assert result.cubeful_equity == result.equity


def test_a_double_that_is_passed_ends_every_cubeful_trial_at_one_cube() -> None:
    result = rollout(CASH, cubeful=True, trials=72, seed=1)   # pubeval doubles and passes by the Keith count
    assert result.cubeful_equity == Estimate(1.0, 0.0)
    assert result.equity.value == 2.0                        # cubeless: a gammon every time


def test_cubeful_match_equity_is_the_mwc_converted_through_the_met() -> None:
    met = MatchEquityTable.load()
    match = MatchState(length=5, score=(0, 0))
    result = rollout(CASH, cubeful=True, match=match, trials=72, seed=1)
    assert result.cubeful_mwc.value == pytest.approx(met.equity(4, 5))
    assert result.cubeful_equity.value == pytest.approx(1.0)
    crawford = rollout(CASH, cubeful=True, match=MatchState(length=5, score=(0, 4), crawford=True), trials=72)
    assert crawford.cubeful_mwc.value == pytest.approx(met.mwc(3, 1, post_crawford=True))


def test_the_cubeful_interval_contains_the_exact_value_when_nobody_can_double() -> None:
    # The Crawford game: nobody may double, so the cubeful MWC is the outcomes through the MET.
    met = MatchEquityTable.load()
    match = MatchState(length=3, score=(2, 0), crawford=True)
    p = exact_win(THREE_EACH)
    exact = p * met.mwc(0, 3, True) + (1 - p) * met.mwc(1, 2, True)
    result = rollout(THREE_EACH, cubeful=True, match=match, trials=1296, seed=2)
    assert inside(exact, result.cubeful_mwc)


# ---------------------------------------------------------------- truncation


def test_truncation_with_an_exact_evaluator_keeps_the_value_and_cuts_the_error() -> None:
    exact = exact_win(THREE_EACH)
    full = rollout(THREE_EACH, trials=1296, seed=12)
    cut = rollout(THREE_EACH, trials=1296, seed=12, truncate=1, evaluator=ExactBearoff())
    assert inside(exact, cut.win) and cut.truncate == 1
    assert cut.win.se < 0.5 * full.win.se


def test_truncation_without_an_evaluator_is_refused() -> None:
    with pytest.raises(InvalidRolloutError, match="needs an evaluator.*'pubeval'"):
        rollout(Position(), truncate=10)


def test_an_evaluator_that_returns_no_probabilities_is_refused() -> None:
    class Broken:
        def evaluate(self, position: Position) -> str:
            return "good"

    with pytest.raises(InvalidRolloutError, match="not five probabilities"):
        rollout(THREE_EACH, truncate=1, evaluator=Broken(), trials=10)


def test_exact_bearoff_finishes_truncated_trials_from_gnubgs_database() -> None:
    pytest.importorskip("gnubg_nn")

    class Refuses:
        def evaluate(self, position: Position) -> None:
            raise AssertionError("the database should have answered")

    exact = exact_win(ONE_EACH)
    result = rollout(ONE_EACH, trials=720, seed=3, truncate=1, evaluator=Refuses(), exact_bearoff=True)
    assert inside(exact, result.win, tol=1e-5)   # the database holds single precision


def test_truncated_trials_accept_the_heuristic_bots_probabilities() -> None:
    # Only the protocol is checked here (an object with win, win_gammon, ... attributes); how
    # good the heuristic's estimates are is the heuristic's own tests' business.
    try:
        bot = get_bot("heuristic", cube="never")
        bot.evaluate(Position())
    except Exception as exc:  # noqa: BLE001 - the heuristic bot is optional here, built separately
        pytest.skip(f"no heuristic evaluator: {exc}")
    cut = rollout(Position(), bot=bot, trials=72, seed=4, truncate=6)
    assert cut.truncate == 6 and cut.trials == 72 and 0.0 <= cut.win.value <= 1.0


def test_an_evaluator_with_more_gammons_than_wins_is_refused() -> None:
    class Inconsistent:
        def evaluate(self, position: Position) -> tuple[float, ...]:
            return (0.3, 0.5, 0.0, 0.0, 0.0)

    with pytest.raises(InvalidRolloutError, match="gammons must not exceed wins"):
        rollout(THREE_EACH, truncate=1, evaluator=Inconsistent(), trials=10)


def test_exact_bearoff_is_refused_for_hypergammon() -> None:
    from bgfast.match import Rules

    with pytest.raises(InvalidRolloutError, match="not for hypergammon"):
        rollout(ONE_EACH, truncate=1, evaluator=ExactBearoff(), exact_bearoff=True, rules=Rules(variant="hypergammon"))


# ---------------------------------------------------------------- statistics


def test_the_stratified_error_uses_the_variance_within_strata_only() -> None:
    values = np.array([1.0, 3.0, 2.0, 6.0])          # strata {1, 2} and {3, 6}
    mean, se = estimate(values, 2)
    assert mean == pytest.approx(0.5 * 1.5 + 0.5 * 4.5)
    assert se == pytest.approx(math.sqrt(0.25 * 0.5 / 2 + 0.25 * 4.5 / 2))
    assert estimate(values, 1)[1] == pytest.approx(np.std(values, ddof=1) / 2)


def test_errors_with_1296_strata_fall_back_to_36_until_each_has_two_trials() -> None:
    assert variance_strata(1296, 1296) == 36
    assert variance_strata(2592, 1296) == 1296
    assert variance_strata(71, 36) == 1


def test_a_paired_ppg_takes_each_pairs_mean_as_one_sample() -> None:
    # pairs (+2, 0), (+1, -1), (+3, -3): pair means 1, 0, 0
    ppg, se = estimate_paired([2, 1, 3], [0, -1, -3])
    assert ppg == pytest.approx(1 / 3)
    assert se == pytest.approx(np.std([1.0, 0.0, 0.0], ddof=1) / math.sqrt(3))
    assert estimate_paired([2, 1, 3], [-2, -1, -3]) == (0.0, 0.0)      # the dice's luck cancels in each pair
    one, none = estimate_paired([3], [1]), estimate_paired([], [])
    assert one[0] == 2.0 and math.isnan(one[1]) and none[0] == 0.0 and math.isnan(none[1])


@pytest.mark.parametrize(("first", "second"), [([1, 2], [1]), ([[1]], [[1]])])
def test_a_paired_ppg_needs_one_game_in_each_seat_a_pair(first: list[object], second: list[object]) -> None:
    with pytest.raises(ValueError, match="one game in each seat"):
        estimate_paired(first, second)


# ---------------------------------------------------------------- results


def test_json_has_the_documented_keys() -> None:
    data = rollout(Position(), dice="31", plays=True, trials=72, seed=1, cubeful=True).to_dict()
    for key in ("position_id", "trials", "probabilities", "probabilities_se", "equity", "equity_se",
                "cubeful_equity", "cubeful_equity_se", "plays"):
        assert key in data
    assert len(data["probabilities"]) == 5 and data["position_id"] == "4HPwATDgc/ABMA"
    assert set(data["plays"][0]) >= {"move", "equity", "equity_se", "difference", "difference_se"}
    json.dumps(data)


def test_an_xgid_gives_the_position_and_the_match_score() -> None:
    text = f"XGID={Position().xgid()}:0:0:1:00:1:3:0:7:10"
    result = rollout(text, trials=72, seed=1, cubeful=True)
    assert result.match == MatchState.from_xgid(text) and result.match.length == 7
    assert result.cubeful_mwc is not None


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"trials": 0}, InvalidRolloutError, "trials must be a positive integer, got 0"),
        ({"trials": 2.5}, InvalidRolloutError, "trials must be a positive integer, got 2.5"),
        ({"workers": 0}, InvalidRolloutError, "workers must be a positive integer, got 0"),
        ({"seed": -1}, InvalidRolloutError, "seed must be an integer from 0, got -1"),
        ({"truncate": 0}, InvalidRolloutError, "truncate must be a positive integer up to 2,147,483,647, got 0"),
        ({"target_se": 0}, InvalidRolloutError, "target_se must be a positive number, got 0"),
        ({"plays": True}, InvalidRolloutError, "plays needs the dice"),
        ({"play": "8/5 6/5"}, InvalidRolloutError, "a play needs the dice"),
        ({"dice": "31", "plays": True, "play": "8/5 6/5"}, InvalidRolloutError, "not both"),
        ({"dice": "71"}, InvalidDiceError, "'71'"),
        ({"dice": (0, 3)}, InvalidDiceError, r"\(0, 3\)"),
        ({"dice": "31", "play": "24/18"}, IllegalMoveError, "'24/18'"),
        ({"bot": "deepblue"}, UnknownBotError, "unknown bot 'deepblue'"),
        ({"bot": object()}, InvalidRolloutError, "cannot play"),
        ({"match": MatchState(double_offered=True, turn=1)}, InvalidRolloutError, "a double is pending"),
        ({"match": MatchState(length=5, score=(5, 2), game_state=GameState.OVER)}, InvalidRolloutError, "already over"),
        ({"exact_bearoff": True}, InvalidRolloutError, "give truncate=N"),
    ],
)
def test_bad_arguments_are_refused_with_a_message_quoting_them(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        rollout(Position(), **kwargs)


def test_a_finished_position_is_refused() -> None:
    over = Position.from_board([home(3), [0] * 25])
    with pytest.raises(InvalidRolloutError, match=f"position {over.id()!r} is already over"):
        rollout(over)


def test_a_malformed_position_id_is_refused() -> None:
    with pytest.raises(InvalidPositionError, match="'nonsense'"):
        rollout("nonsense")


def test_a_bot_that_cannot_be_sent_to_workers_is_refused_with_workers() -> None:
    class Local(PythonPubeval):
        pass

    with pytest.raises(InvalidRolloutError, match="cannot be sent to worker processes"):
        rollout(THREE_EACH, bot=Local(), trials=10, workers=2)


# ---------------------------------------------------------------- command line


SNAPSHOTS = Path(__file__).parent / "snapshots" / "cli"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_rollout_command_prints_json_with_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "72", "--seed", "1", "--json", "--no-luck")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["trials"] == 72 and data["cubeful_equity"] is None
    assert data["equity"] == rollout(Position(), bot="neural", trials=72, seed=1).equity.value   # the default bot


def test_the_rollout_command_ranks_the_plays_of_a_roll(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rollout", "4HPwATDgc/ABMA", "--dice", "31", "--plays", "--no-luck", "--trials", "36",
                       "--cubeful", "--workers", "2")
    assert code == 0
    assert "8/5 6/5" in out and "difference" in out


def test_the_rollout_command_reports_bad_input_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "0")
    assert (code, out) == (2, "")
    assert err == "bgfast: error: --trials must be an integer of at least 1, got 0\n"
    code, _, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--truncate", "0")
    assert code == 2 and "truncate" in err


def test_the_rollout_command_truncates_pubeval_trials_with_the_heuristic_evaluator(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", "pubeval", "--truncate", "4", "--trials", "72",
                         "--no-luck")
    assert (code, err) == (0, "") and "truncated after 4 plies" in out


def test_the_rollout_help_matches_its_snapshot(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "rollout", "--help")
    path = SNAPSHOTS / "help_rollout.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(out, encoding="utf-8")
    assert code == 0 and out == path.read_text(encoding="utf-8")


def test_the_rollout_command_prints_the_chances_and_equities_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rollout", "4HPwATDgc/ABMA", "--dice", "31", "--trials", "72", "--seed", "1",
                       "--bot", "pubeval:cube=never", "--cubeful")
    assert code == 0
    assert "72 trials (the roll after the 31 stratified, luck-adjusted)" in out
    assert "dice 31 played first: 8/5 6/5" in out
    assert "cubeless equity:" in out and "cubeful equity:" in out
    assert "not luck-adjusted" not in out


def test_a_single_trial_reports_no_error_rather_than_nan() -> None:
    result = rollout("4HPwATDgc/ABMA", trials=1, seed=1, cubeful=True)
    assert math.isnan(result.equity.se)
    text = result.report()
    assert "nan" not in text
    assert "cubeless equity:" in text and "± n/a" in text
    assert json.loads(json.dumps(result.to_dict()))["equity_se"] is None


# ---------------------------------------------------------------- what the labels say

DMP = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:6:0:7:10"   # 6-6 in a 7-point match


def test_the_report_and_json_say_that_the_chances_and_both_equities_are_luck_adjusted() -> None:
    # At double match point the match winning chance is the win chance: without luck adjustment the
    # two estimates are the same number; with it both are adjusted alike (the cube is dead at 1, the
    # MWC's luck is the win chance's), so they stay the same number, with the same smaller error.
    plain = rollout(DMP, trials=72, seed=1, cubeful=True)
    assert plain.cubeful_mwc.value == pytest.approx(plain.win.value)
    assert plain.to_dict()["luck_adjusted_figures"] == [] and "luck-adjusted" not in plain.report()
    adjusted = _rollout(DMP, bot="pubeval", trials=72, seed=1, cubeful=True)
    assert adjusted.cubeful_mwc.value == pytest.approx(adjusted.win.value, abs=1e-6)
    assert adjusted.cubeful_mwc.se == pytest.approx(adjusted.win.se, abs=1e-6)
    assert adjusted.cubeful_mwc.se < plain.cubeful_mwc.se
    assert adjusted.cubeful_mwc.value != plain.cubeful_mwc.value
    assert adjusted.to_dict()["luck_adjusted_figures"] == ["probabilities", "equity", "cubeful_equity", "cubeful_mwc"]
    text = adjusted.report()
    assert "72 trials (first roll stratified, luck-adjusted)" in text and "not luck-adjusted" not in text
    # plays ranked by the cubeless equity: their differences are adjusted too, and the report says so
    ranked = _rollout(TWO_EACH, dice="21", plays=True, trials=72, seed=1)
    assert ranked.to_dict()["luck_adjusted_figures"] == ["probabilities", "equity", "difference"]
    assert "ranked by luck-adjusted cubeless equity" in ranked.report()


def test_plays_with_the_cube_are_ranked_by_the_luck_adjusted_cubeful_equity() -> None:
    # The opening 31 with the cube, as a backgammon expert checks it: without the cubeful luck
    # adjustment the cubeful equities of 324 trials were noise (13/9 first, +0.32 +- 0.17).
    ranked = _rollout(Position(), dice="31", plays=True, cubeful=True, bot="heuristic", trials=144, seed=1)
    plain = _rollout(Position(), dice="31", plays=True, cubeful=True, bot="heuristic", trials=144, seed=1,
                     luck=False)
    assert ranked.to_dict()["luck_adjusted_figures"] == ["probabilities", "equity", "cubeful_equity", "difference"]
    assert "ranked by luck-adjusted cubeful equity" in ranked.report()
    assert [p.result.cubeful_equity for p in ranked.plays] == [p.result.ranking_equity for p in ranked.plays]
    values = [p.result.cubeful_equity.value for p in ranked.plays]
    assert values == sorted(values, reverse=True)
    se = {p.move: p.result.cubeful_equity.se for p in ranked.plays}
    plain_se = {p.move: p.result.cubeful_equity.se for p in plain.plays}
    assert all(se[m] < plain_se[m] for m in se), (se, plain_se)
    assert sum(se.values()) < 0.7 * sum(plain_se.values()), (se, plain_se)


def test_the_sampling_label_says_which_rolls_were_stratified() -> None:
    assert "36 trials (plain sampling)" in rollout(THREE_EACH, trials=36).report()        # fewer than 72
    assert "100 trials (first roll stratified)" in rollout(THREE_EACH, trials=100).report()
    assert "1,296 trials (first two rolls stratified)" in rollout(THREE_EACH, trials=1296).report()
    # with dice, the dice are fixed: the rolls stratified are the ones after them
    text = rollout(Position(), dice="31", trials=1296, seed=1).report()
    assert "1,296 trials (the two rolls after the 31 stratified)" in text
    assert "for the side on roll, with 31 to play" in text and "before the dice" not in text
    assert "(the roll after the 31 stratified)" in rollout(Position(), dice="31", play="8/5 6/5", trials=72).report()
    assert "for the side on roll, before the dice" in rollout(THREE_EACH, trials=72).report()


def test_the_report_and_json_name_the_bot_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    # 0-ply and 1-ply rollouts must be told apart: the whole spec, not only the bot's name.
    one_ply = rollout(THREE_EACH, bot="neural:ply=1", trials=1)
    assert one_ply.bot == "neural:cube=auto,cube_efficiency=0.68,ply=1"
    assert rollout(THREE_EACH, bot="neural", trials=1).bot == "neural:cube=auto,cube_efficiency=0.68,ply=0"
    assert one_ply.to_dict()["bot"] == one_ply.bot
    assert get_bot(one_ply.bot).options() == get_bot("neural:ply=1").options()     # the spec reads back
    code, out, _ = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "1", "--bot", "neural:ply=1", "--no-luck")
    assert code == 0 and "\nneural:cube=auto,cube_efficiency=0.68,ply=1 on both sides, 1 trial" in out
    code, out, _ = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "1", "--bot", "neural:ply=1", "--json")
    assert code == 0 and json.loads(out)["bot"] == "neural:cube=auto,cube_efficiency=0.68,ply=1"


def test_a_single_play_is_one_play_not_one_plays() -> None:
    text = rollout(ONE_EACH, dice="66", plays=True, trials=72, seed=1).report()
    assert "\n1 play of 66, ranked by" in text and "plays of" not in text


def test_the_rollout_help_says_when_the_first_roll_is_stratified_and_what_luck_adjusts(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rollout", "--help")
    text = " ".join(out.split())
    assert code == 0
    assert "With N of 72 or more, the first roll is stratified" in text and "fewer trials are sampled plainly" in text
    assert "With --dice, which is fixed, the rolls after it are stratified" in text
    assert "Luck adjustment applies to the chances, the cubeless equity and, with --cubeful, the cubeful" in text
    assert "--plays ranks by the luck-adjusted cubeful equity with --cubeful" in text


# ---------------------------------------------------------------- variants


def test_a_hypergammon_position_is_rolled_out_by_hypergammon_rules(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.match import Rules
    from bgfast.position import starting_position

    start = starting_position("hypergammon")
    hyper = rollout(start, rules=Rules(variant="hypergammon"), trials=72, seed=1)
    assert hyper.win_gammon.value > 0 and hyper.lose_gammon.value > 0
    assert rollout(start, trials=72, seed=1).win_gammon.value == 0   # by standard rules 3 checkers are never a gammon
    code, out, err = run(capsys, "rollout", start.id(), "--variant", "hypergammon", "--trials", "72", "--seed", "1",
                         "--bot", "pubeval", "--no-luck", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["probabilities"] == list(hyper.probabilities)


def test_a_position_with_more_checkers_than_the_variant_has_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.match import Rules

    hyper = Rules(variant="hypergammon")
    with pytest.raises(InvalidRolloutError,
                       match="has 15 checkers of the side on roll and 15 of the opponent on the board, "
                             "more than the 3 a side of hypergammon"):
        rollout(Position(), rules=hyper)
    four = Position.from_board([home(1, 1), home(2, 2)])
    with pytest.raises(InvalidRolloutError, match="4 checkers of the side on roll and 2 of the opponent"):
        rollout(four, rules=hyper)
    assert rollout(TWO_EACH, rules=hyper, trials=72).trials == 72   # fewer is fine: the rest are off
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--variant", "hypergammon")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("bgfast: error: position '4HPwATDgc/ABMA' has 15 checkers")
    code, _, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--variant", "acey")
    assert code == 2
    assert err == "bgfast: error: rules.variant must be one of standard, nackgammon, hypergammon, got 'acey'\n"


def test_hypergammon_rollouts_are_not_luck_adjusted_and_refuse_luck() -> None:
    from bgfast.match import Rules

    rules = Rules(variant="hypergammon")
    result = _rollout("AACgAgAAKgAAAA", trials=72, seed=1, rules=rules)
    assert not result.luck_adjusted and result.luck_adjusted_figures == ()
    with pytest.raises(InvalidRolloutError, match="15-checker"):
        _rollout("AACgAgAAKgAAAA", trials=72, rules=rules, luck=True)


@pytest.mark.parametrize("kwargs, error", [({"truncate": 2**31}, "up to 2,147,483,647"),
                                           ({"truncate": 2**70}, "up to"), ({"dice": 31}, "two dice")])
def test_a_huge_truncation_or_dice_as_a_number_raise_a_value_error(kwargs: dict, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        _rollout("4HPwATDgc/ABMA", trials=72, **kwargs)


def test_the_result_says_whether_the_target_error_was_reached() -> None:
    loose = _rollout("4HPwATDgc/ABMA", trials=5000, target_se=0.1, luck=False, seed=1)
    assert loose.target_reached is True and loose.trials < 5000
    tight = _rollout("4HPwATDgc/ABMA", trials=1296, target_se=0.001, luck=False, seed=1)
    assert tight.target_reached is False and tight.trials == 1296
    assert "target SE 0.001: not reached within the 1,296 trials allowed" in tight.report()
    assert tight.to_dict()["target_reached"] is False
    assert _rollout("4HPwATDgc/ABMA", trials=36, seed=1).target_reached is None


def test_dice_that_contradict_the_match_state_are_refused() -> None:
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:4:2:0:7:10"
    with pytest.raises(InvalidRolloutError, match="says 31 was rolled"):
        _rollout(xgid, trials=36, dice="42")
    assert _rollout(xgid, trials=36, dice="13").dice == Dice(3, 1)


def test_the_json_carries_the_match_and_the_variant() -> None:
    from bgfast.match import Rules

    data = _rollout("4HPwATDgc/ABMA:cAkAAAAAAAAA", trials=36, seed=1).to_dict()
    assert (data["match_id"], data["variant"]) == ("cAkAAAAAAAAA", "standard")
    hyper = _rollout("AACgAgAAKgAAAA", trials=36, seed=1, rules=Rules(variant="hypergammon"))
    assert hyper.to_dict()["variant"] == "hypergammon"
    assert hyper.report().splitlines()[0].startswith("rollout of AACgAgAAKgAAAA (hypergammon): ")


# ------------------------------------------------------------------ issue 14: chances in range, progress, a cap

def test_luck_adjusted_chances_are_reported_in_range_and_consistent_with_the_raw_values_kept(
        capsys: pytest.CaptureFixture[str]) -> None:
    # seeded: the luck-adjusted win backgammon of this run is -0.20%
    result = _rollout("4HPwATDgc/ABMA", bot="heuristic", trials=144, seed=1)
    raw = result.probabilities_raw
    assert raw[2] < 0.0 and raw == tuple(e.value for e in (result.win, result.win_gammon, result.win_backgammon,
                                                           result.lose_gammon, result.lose_backgammon))
    w, wg, wbg, lg, lbg = result.probabilities
    assert all(0.0 <= v <= 1.0 for v in result.probabilities)
    assert w >= wg >= wbg and 1.0 - w >= lg >= lbg
    assert result.probabilities == (raw[0], raw[1], 0.0, raw[3], raw[4])
    assert "-0.20%" not in result.report() and "    0.00%" in result.report()
    code, out, _ = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", "heuristic", "--trials", "144", "--seed", "1",
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["probabilities"] == list(result.probabilities)
    assert data["probabilities_raw"] == list(raw)


def test_chances_are_clamped_to_each_other() -> None:
    from bgfast.rollout.result import _consistent

    assert _consistent((1.0000001, 0.3, 0.31, 0.0, -0.0014)) == (1.0, 0.3, 0.3, 0.0, 0.0)
    assert _consistent((0.6, 0.1, 0.0, 0.45, 0.5)) == (0.6, 0.1, 0.0, pytest.approx(0.4), pytest.approx(0.4))


def test_a_rollout_shows_trials_done_rate_and_eta_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    rollout("4HPwATDgc/ABMA", dice="31", plays=True, trials=72, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "0/72" in err and "trial/s" in err and "<" in err   # done/total, rate, [elapsed<remaining]
    # every play of a roll rolled out (16 of 31): blocks of a few trials, so the bar moves
    from bgfast.rollout.engine import _block_size

    assert _block_size(1, lines=16 * 2) <= 12


def test_more_trials_than_a_rollout_can_hold_are_refused_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.rollout.request import MAX_TRIALS

    with pytest.raises(InvalidRolloutError, match="at most 100,000,000"):
        rollout("4HPwATDgc/ABMA", trials=MAX_TRIALS + 1)
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "99999999999999999999")
    assert (code, out) == (2, "")
    assert err == ("bgfast: error: --trials must be at most 100,000,000 (a rollout keeps every trial's results in "
                   "memory), got 99,999,999,999,999,999,999\n")


def test_a_cubeful_rollout_keeps_to_the_maximum_cube_an_xgid_states() -> None:
    # issue 14: an XGID whose max-cube field is 3 (a cube of 8 at most) rolled out to a 256 cube
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from scripted_bots import ScriptedBot

    from bgfast.rollout import RolloutRequest

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:3"   # money, Jacoby and beavers, max cube 8
    assert RolloutRequest.create(xgid).rules.max_cube == 8
    doubler = ScriptedBot(seat=0, double=True)      # doubles whenever it may, always takes
    result = _rollout(xgid, bot=doubler, cubeful=True, trials=36, seed=1, luck=False)
    cubes = {call.match.cube_value for call in doubler.journal}
    assert max(cubes) == 8 and abs(result.cubeful_equity.value) <= 3 * 8
    # and with 256 allowed the same bot goes past 8
    free = ScriptedBot(seat=0, double=True)
    _rollout(xgid.replace(":3:0:3", ":3:0:8"), bot=free, cubeful=True, trials=36, seed=1, luck=False)
    assert max(call.match.cube_value for call in free.journal) > 8
