"""Stats, Elo and SPRT: pure functions checked against hand-computed and published numbers."""
from __future__ import annotations

import math

import pytest

from bgfast.tournament.ratings import (
    Z95,
    elo_from_pairs,
    elo_from_results,
    elo_from_score,
    expected_score,
    fit_elo,
)
from bgfast.tournament.sprt import Sprt, SprtStatus
from bgfast.tournament.stats import Stats

C = math.log(10) / 400


# ---------------------------------------------------------------- Elo of a score


def test_a_75_percent_score_is_190_85_elo() -> None:
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)


def test_100_elo_expects_a_64_percent_score() -> None:
    assert expected_score(100) == pytest.approx(0.6401, abs=1e-4)


def test_score_and_elo_are_inverse() -> None:
    for elo in (-500.0, -37.5, 0.0, 12.0, 800.0):
        assert elo_from_score(expected_score(elo)) == pytest.approx(elo)


def test_scores_of_0_and_1_are_infinite_elo() -> None:
    assert elo_from_score(0.0) == -math.inf and elo_from_score(1.0) == math.inf


def test_elo_interval_from_wins_and_losses_uses_the_normal_approximation_of_the_score() -> None:
    # 60 wins, 40 losses: mean 0.6, sd 0.4899, se 0.04899, bounds 0.6 -/+ 1.96 x 0.04899
    e = elo_from_results(60, 40)
    se = math.sqrt(0.24 / 100)
    assert e.elo == pytest.approx(70.44, abs=0.01)
    assert (e.lo, e.hi) == pytest.approx((elo_from_score(0.6 - Z95 * se), elo_from_score(0.6 + Z95 * se)))


def test_pair_results_give_a_narrower_interval_than_the_same_matches_counted_singly() -> None:
    # 100 pairs: 30 won both, 40 split, 30 lost both = 100 wins and 100 losses in matches
    pairs = elo_from_pairs({1.0: 30, 0.5: 40, 0.0: 30})
    singles = elo_from_results(100, 100)
    assert pairs.elo == pytest.approx(0.0, abs=1e-9) and singles.elo == pytest.approx(0.0, abs=1e-9)
    assert pairs.hi - pairs.lo > singles.hi - singles.lo  # pairs: n=100, var .15; singles: n=200, var .25
    assert pairs.hi == pytest.approx(elo_from_score(0.5 + Z95 * math.sqrt(0.15 / 100)))


# ---------------------------------------------------------------- the Bradley-Terry fit


def test_two_players_are_rated_half_the_elo_of_their_score_apart_each_side_of_zero() -> None:
    r = fit_elo([[0, 3], [1, 0]])
    assert r.elo == pytest.approx((95.424, -95.424), abs=1e-3)
    assert r.prior_draws == 0.0


def test_two_player_interval_is_the_fisher_information_of_four_matches() -> None:
    # I(diff) = c^2 n p q with n = 4, p = 0.75: se(diff) = 1 / (c sqrt(0.75)), each rating se/2
    r = fit_elo([[0, 3], [1, 0]])
    half_width = Z95 / (C * math.sqrt(4 * 0.75 * 0.25)) / 2
    assert r.ci95[0] == pytest.approx((95.424 - half_width, 95.424 + half_width), abs=1e-3)
    assert half_width == pytest.approx(196.6, abs=0.1)


def test_a_chain_of_three_players_adds_the_differences() -> None:
    # a beats b 3-1, b beats c 3-1, a and c never meet: a - b = b - c = 190.85
    r = fit_elo([[0, 3, 0], [1, 0, 3], [0, 1, 0]])
    assert r.elo == pytest.approx((190.849, 0.0, -190.849), abs=1e-3)


def test_a_cycle_of_equal_results_rates_everyone_zero() -> None:
    r = fit_elo([[0, 2, 1], [1, 0, 2], [2, 1, 0]])
    assert r.elo == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)


def test_three_players_fit_the_likelihood_equations() -> None:
    wins = [[0, 7, 9], [3, 0, 6], [1, 4, 0]]
    r = fit_elo(wins)
    assert sum(r.elo) == pytest.approx(0.0, abs=1e-9)
    for i in range(3):  # at the maximum, each player's expected wins equal its actual wins
        expected = sum((wins[i][j] + wins[j][i]) * expected_score(r.elo[i] - r.elo[j]) for j in range(3) if j != i)
        assert expected == pytest.approx(sum(wins[i]), rel=1e-9)


def test_a_player_who_never_loses_gets_one_virtual_draw_per_pairing_and_finite_ratings() -> None:
    r = fit_elo([[0, 5], [0, 0]])
    assert r.prior_draws == 1.0
    # 5.5 wins to 0.5: diff = 400 log10(11)
    assert r.elo[0] - r.elo[1] == pytest.approx(400 * math.log10(11))
    assert all(math.isfinite(x) for bounds in r.ci95 for x in bounds)


def test_a_player_who_never_played_is_rated_zero() -> None:
    r = fit_elo([[0, 3, 0], [1, 0, 0], [0, 0, 0]])
    assert r.elo[2] == 0.0 and r.elo[0] == pytest.approx(95.424, abs=1e-3)


def test_a_matrix_that_is_not_square_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        fit_elo([[0, 1, 2], [1, 0, 2]])


# ---------------------------------------------------------------- SPRT


def test_sprt_llr_matches_the_published_gsprt_example() -> None:
    # W 4307, L 4063, D 8620, elo0 0, elo1 3: LLR 2.99 (jw1912/SPRT, fishtest's GSPRT)
    test = Sprt(0, 3, 0.05, 0.05)
    assert test.llr({1.0: 4307, 0.5: 8620, 0.0: 4063}) == pytest.approx(2.99, rel=1e-2)
    assert (test.lower, test.upper) == pytest.approx((-2.944, 2.944), abs=1e-3)


def test_sprt_accepts_h1_for_a_clearly_stronger_player_and_h0_for_an_equal_one() -> None:
    test = Sprt(0, 20, 0.05, 0.05)
    assert test.status(Stats(matches=4000, wins=2400)) is SprtStatus.ACCEPT_H1
    assert test.status(Stats(matches=20000, wins=10000)) is SprtStatus.ACCEPT_H0
    assert test.status(Stats(matches=10, wins=6)) is SprtStatus.CONTINUE


def test_sprt_with_no_results_continues() -> None:
    assert Sprt(0, 10).status({}) is SprtStatus.CONTINUE


# ---------------------------------------------------------------- Stats


def test_stats_add_field_by_field_and_invert_to_the_opponent_s_view() -> None:
    a = Stats.of_match(score=7, opponent_score=3, games=5, won=True, gammons=1, doubles=2)
    b = Stats.of_match(score=5, opponent_score=7, games=6, won=False, backgammons_lost=1)
    s = a + b
    assert (s.matches, s.wins, s.losses, s.games, s.points) == (2, 1, 1, 11, 2)
    assert (s.gammons, s.backgammons_lost, s.doubles) == (1, 1, 2)
    flipped = ~s
    assert (flipped.wins, flipped.points, flipped.gammons_lost, flipped.backgammons) == (1, -2, 1, 1)
    assert ~flipped == s


def test_ppg_is_net_points_over_games() -> None:
    s = Stats.of_match(score=7, opponent_score=3, games=5, won=True) + \
        Stats.of_match(score=5, opponent_score=7, games=6, won=False)
    assert s.ppg == pytest.approx(2 / 11)


def test_ppg_se_of_money_games_is_the_sample_sd_over_root_n() -> None:
    values = [1, -2, 4, -1, 2, 1, -1]
    s = Stats()
    for v in values:
        s += Stats.of_match(score=max(v, 0), opponent_score=max(-v, 0), games=1, won=v > 0)
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    assert s.ppg_se == pytest.approx(sd / math.sqrt(n))


def test_ppg_se_of_matches_is_the_delta_method_ratio_error() -> None:
    data = [(4, 5), (-3, 6), (7, 3), (2, 9)]  # (net points, games)
    s = Stats()
    for net, games in data:
        s += Stats.of_match(score=max(net, 0), opponent_score=max(-net, 0), games=games, won=net > 0)
    r = sum(x for x, _ in data) / sum(g for _, g in data)
    n, total = len(data), sum(g for _, g in data)
    expected = math.sqrt(n / (n - 1) * sum((x - r * g) ** 2 for x, g in data)) / total
    assert s.ppg_se == pytest.approx(expected)


def test_empty_stats_have_zero_rates() -> None:
    assert (Stats().ppg, Stats().ppg_se, Stats().win_rate) == (0.0, 0.0, 0.0)
