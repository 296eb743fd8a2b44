"""Dice pairs as the unit: pentanomial Elo, per-pairing ppg errors, the robust rating fit,
the pair-by-pair SPRT -- against fastchess's published numbers and by simulation."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.tournament.pairs import PairingStats, Pentanomial, UnitGroup, pairing_stats, ppg_against, unit_wins
from bgfast.tournament.ratings import (
    Z95,
    elo_from_results,
    elo_from_score,
    elo_interval,
    expected_score,
    fit_elo,
    fit_ratings,
    points_score,
)
from bgfast.tournament.sprt import Sprt, SprtStatus
from bgfast.tournament.stats import Stats, UnitSums, ratio_se

C = math.log(10) / 400


def fastchess(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Pentanomial:
    """fastchess's ``Stats(ll, ld, wl, dd, wd, ww)`` as a Pentanomial (WL and DD share a bin)."""
    return Pentanomial((ll, ld, wl + dd, wd, ww))


# ---------------------------------------------------------------- the pentanomial Elo


@pytest.mark.parametrize(("stats", "diff", "error", "los"), [
    # fastchess app/tests/elo_test.cpp, "EloPentanomial 1..3": diff, error (half the interval), LOS
    ((34, 54, 31, 32, 64, 75), 55.58, 27.65, 1.0),
    ((332, 433, 457, 41, 333, 334), -8.64, 10.33, 0.0505),
    ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, None),
])
def test_pentanomial_elo_matches_fastchess_published_numbers(stats: tuple[int, ...], diff: float, error: float,
                                                             los: float | None) -> None:
    e = fastchess(*stats).elo()
    assert e.elo == pytest.approx(diff, rel=1e-2)
    assert (e.hi - e.lo) / 2 == pytest.approx(error, rel=1e-2)
    if los is not None:
        assert e.los == pytest.approx(los, abs=5e-5)


def test_pentanomial_score_and_variance_are_those_of_the_pair_means() -> None:
    wins = [2, 1, 1, 0, 2, 1, 1, 1, 0, 2]
    p = Pentanomial.from_wins(wins)
    means = np.array(wins) / 2
    assert p.score == pytest.approx(means.mean())
    assert p.variance == pytest.approx(means.var())
    assert p.score_se == pytest.approx(math.sqrt(means.var() / len(wins)))
    assert p.elo().lo == pytest.approx(elo_from_score(means.mean() - Z95 * p.score_se))


def test_single_match_units_give_the_trinomial_estimate() -> None:
    # fastchess EloWDL 2: W 136, L 96, D 111 gives 40.70 +/- 30.43, LOS 99.60 %
    p = Pentanomial((96, 0, 111, 0, 136), matches_per_unit=1)
    e = p.elo()
    assert e.elo == pytest.approx(40.70, rel=1e-2)
    assert (e.hi - e.lo) / 2 == pytest.approx(30.43, rel=1e-2)
    assert e.los == pytest.approx(0.9960, abs=5e-5)
    assert elo_from_results(136, 96, 111).elo == pytest.approx(e.elo)


def test_pentanomial_adds_and_inverts() -> None:
    a, b = Pentanomial((1, 0, 2, 0, 3)), Pentanomial((4, 0, 5, 0, 6))
    assert (a + b).counts == (5, 0, 7, 0, 9)
    assert (~a).counts == (3, 0, 2, 0, 1)
    assert (~a).score == pytest.approx(1 - a.score)
    assert a.matches == 12 and a.wins == 8


def test_adding_pair_counts_to_single_match_counts_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Pentanomial((1, 0, 0, 0, 1)) + Pentanomial((1, 0, 0, 0, 1), matches_per_unit=1)


def test_a_win_count_above_the_unit_size_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Pentanomial.from_wins([3])
    with pytest.raises(ValueError):
        Pentanomial.from_wins([2], matches_per_unit=1)


def test_a_pentanomial_of_four_counts_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Pentanomial((1, 2, 3, 4))  # type: ignore[arg-type]


def test_no_units_give_an_unbounded_interval() -> None:
    e = Pentanomial().elo()
    assert e.elo == 0.0 and e.lo == -math.inf and e.hi == math.inf


def test_los_is_half_at_an_even_score_and_follows_the_normal_tail() -> None:
    assert elo_interval(0.5, 0.01).los == pytest.approx(0.5)
    assert elo_interval(0.5 + 1.96 * 0.01, 0.01).los == pytest.approx(0.975, abs=1e-4)
    assert elo_interval(0.6, 0.0).los == 1.0


# ---------------------------------------------------------------- ratio standard errors


def test_ratio_se_is_the_delta_method_error_of_a_ratio_of_sums() -> None:
    rng = np.random.default_rng(3)
    x, g = rng.integers(-5, 6, 40).astype(float), rng.integers(1, 8, 40).astype(float)
    r = x.sum() / g.sum()
    expected = math.sqrt(40 / 39 * ((x - r * g) ** 2).sum()) / g.sum()
    sums = UnitSums()
    for xi, gi in zip(x, g):
        sums += UnitSums.of_unit(xi, gi)
    assert sums.ratio == pytest.approx(r)
    assert sums.ratio_se() == pytest.approx(expected)
    assert ratio_se(sums.n, sums.x, sums.g, sums.xx, sums.gg, sums.xg, ddof=0) == pytest.approx(
        expected * math.sqrt(39 / 40))


def test_paired_ppg_se_takes_the_pair_as_the_sample() -> None:
    # five pairs (MIN_SAMPLES_FOR_ERROR), each a +2 and a -1 game: every pair scores +1 over 2 games, no spread
    s = Stats()
    net = UnitSums()
    for _ in range(5):
        a = Stats.of_match(score=2, opponent_score=0, games=1, won=True)
        b = Stats.of_match(score=0, opponent_score=1, games=1, won=False)
        s += a + b
        net += UnitSums.of_unit(1, 2)
    stats = PairingStats(s, Pentanomial.from_wins([1] * 5), net)
    assert stats.ppg == pytest.approx(0.5)
    assert stats.ppg_se_paired == 0.0 and stats.ppg_se_independent > 0.0
    assert stats.se_ratio == 0.0


def test_pairing_stats_seen_from_the_other_side_mirror() -> None:
    groups = [UnitGroup(0, 1, 2, 2, 3, 6, 6, 12, 12, 12, 5.0, 8.5, 10.0),
              UnitGroup(0, 1, 2, 1, 5, 0, 10, 0, 20, 0, 5.0, 5.5, 10.0)]
    s = Stats(matches=16, wins=11, games=16, points=6, points_sq=16, games_sq=16, points_games=6)
    ab = pairing_stats(groups, {(0, 1): s})[(0, 1)]
    ba = pairing_stats(groups, {(1, 0): ~s})[(1, 0)]
    assert ba.wins.counts == (~ab.wins).counts
    assert ba.ppg == pytest.approx(-ab.ppg)
    assert ba.ppg_se_paired == pytest.approx(ab.ppg_se_paired)
    assert ba.elo().elo == pytest.approx(-ab.elo().elo)
    assert ba.elo("points").elo == pytest.approx(-ab.elo("points").elo)
    assert (~ab).points == ba.points and (~ab).net == ba.net


def test_an_unknown_rating_kind_is_a_value_error() -> None:
    stats = PairingStats(Stats(), Pentanomial(), UnitSums())
    with pytest.raises(ValueError):
        stats.elo("ppg")


def test_points_score_clips_at_three_points_and_maps_to_zero_one() -> None:
    assert [points_score(p) for p in (-64, -3, 0, 1, 3, 16)] == pytest.approx([0, 0, 0.5, 4 / 6, 1, 1])


# ---------------------------------------------------------------- units from match rows


def test_unit_wins_pairs_consecutive_matches_on_the_same_dice() -> None:
    rows = [(5, 1, 2, 1), (5, 2, 1, 1), (6, 1, 2, 0), (6, 2, 1, 1)]
    assert list(unit_wins(rows, 1, paired=True)) == [1, 2]
    assert list(unit_wins(rows, 2, paired=True)) == [1, 0]


def test_unit_wins_of_a_broken_pair_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        list(unit_wins([(5, 1, 2, 1), (6, 2, 1, 1)], 1, paired=True))


# ---------------------------------------------------------------- the robust Bradley-Terry fit


def test_two_player_robust_interval_is_the_delta_method_interval_of_the_pentanomial() -> None:
    wins = [2, 1, 1, 0, 1, 2, 1, 1, 2, 1, 0, 1]
    p = Pentanomial.from_wins(wins)
    r = fit_ratings(2, {(0, 1): p.sums()}, anchor=1)
    s = p.score
    assert r.elo[0] == pytest.approx(elo_from_score(s))
    delta_se = p.score_se / (C * s * (1 - s))  # dElo/ds = 1 / (c s (1 - s))
    assert (r.ci95[0][1] - r.elo[0]) / Z95 == pytest.approx(delta_se, rel=1e-9)
    assert r.diff(0, 1).elo == pytest.approx(r.elo[0])


def test_robust_fit_of_single_matches_equals_the_fisher_fit_for_two_players() -> None:
    units = UnitSums()
    for won in [1] * 7 + [0] * 5:
        units += UnitSums.of_unit(won, 1)
    robust = fit_ratings(2, {(0, 1): units})
    fisher = fit_elo([[0, 7], [5, 0]])
    assert robust.elo == pytest.approx(fisher.elo)
    assert np.asarray(robust.ci95) == pytest.approx(np.asarray(fisher.ci95))


def test_anchor_puts_that_player_at_zero_and_keeps_every_difference() -> None:
    wins = [[0, 7, 9], [3, 0, 6], [1, 4, 0]]
    mean = fit_elo(wins)
    anchored = fit_elo(wins, anchor=2)
    assert anchored.elo[2] == 0.0 and anchored.ci95[2] == (0.0, 0.0)
    for i in range(3):
        for j in range(3):
            assert anchored.diff(i, j).elo == pytest.approx(mean.diff(i, j).elo)
            assert anchored.diff(i, j).hi == pytest.approx(mean.diff(i, j).hi)
    # against the anchor, a player's interval is that of its difference
    assert anchored.ci95[0][1] - anchored.elo[0] == pytest.approx(mean.diff(0, 2).hi - mean.diff(0, 2).elo)


def test_a_winless_player_widens_every_interval_around_the_mean_but_not_around_an_anchor() -> None:
    # a and b play 1000 pairs each way; c never wins a match
    ab = Pentanomial((200, 0, 500, 0, 300)).sums()
    ac = Pentanomial((0, 0, 0, 0, 50)).sums()
    bc = Pentanomial((0, 0, 0, 0, 50)).sums()
    pairings = {(0, 1): ab, (0, 2): ac, (1, 2): bc}
    mean = fit_ratings(3, pairings)
    anchored = fit_ratings(3, pairings, anchor=1)
    assert mean.prior_draws == 1.0
    width_mean = mean.ci95[0][1] - mean.ci95[0][0]
    width_anchor = anchored.ci95[0][1] - anchored.ci95[0][0]
    direct = Pentanomial((200, 0, 500, 0, 300)).elo()
    assert width_anchor < 0.5 * width_mean
    assert width_anchor == pytest.approx(direct.hi - direct.lo, rel=0.05)


def test_an_anchor_who_never_played_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        fit_elo([[0, 3, 0], [1, 0, 0], [0, 0, 0]], anchor=2)
    with pytest.raises(ValueError):
        fit_elo([[0, 3], [1, 0]], anchor=5)


def test_a_pairing_of_a_player_with_itself_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        fit_ratings(2, {(1, 1): UnitSums.of_unit(1, 2)})


def test_fit_ratings_reads_a_reversed_key_from_the_other_side() -> None:
    p = Pentanomial((2, 0, 5, 0, 3))
    assert fit_ratings(2, {(1, 0): (~p).sums()}).elo == pytest.approx(fit_ratings(2, {(0, 1): p.sums()}).elo)


# ---------------------------------------------------------------- SPRT


@pytest.mark.parametrize(("stats", "elo0", "elo1", "llr"), [
    # fastchess app/tests/sprt_test.cpp, "logistic pentanomial 1, 2"
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, -4.98),
])
def test_pentanomial_llr_matches_fastchess_published_numbers(stats: tuple[int, ...], elo0: float, elo1: float,
                                                             llr: float) -> None:
    assert Sprt(elo0, elo1).llr(fastchess(*stats)) == pytest.approx(llr, rel=1e-2)


@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "llr"), [
    # fastchess app/tests/sprt_test.cpp, "logistic trinomial 1, 2"
    (21404, 21184, 40708, 0.5, 2.5, -1.57),
    (57433, 57030, 106593, 0.0, 2.0, -2.59),
])
def test_trinomial_llr_matches_fastchess_published_numbers(wins: int, losses: int, draws: int, elo0: float,
                                                           elo1: float, llr: float) -> None:
    counts = Pentanomial((losses, 0, draws, 0, wins), matches_per_unit=1)
    assert Sprt(elo0, elo1).llr(counts) == pytest.approx(llr, rel=1e-2)


def test_llr_is_close_to_the_normal_approximation_for_a_small_elo_window() -> None:
    counts = Pentanomial((4063, 0, 8620, 0, 4307))
    s0, s1 = expected_score(0), expected_score(3)
    m, v = counts.score, counts.variance
    normal = counts.units * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)
    assert Sprt(0, 3).llr(counts) == pytest.approx(normal, rel=1e-2)


def test_sequential_test_stops_at_the_first_unit_whose_llr_crosses_a_bound() -> None:
    rng = random.Random(5)
    wins = [rng.choice([0, 1, 1, 2, 2]) for _ in range(3000)]
    test = Sprt(0, 30)
    verdict = test.sequential(wins)
    assert verdict.status is not SprtStatus.CONTINUE
    for n in range(1, verdict.units):  # brute force: no earlier prefix crossed
        assert test.lower < test.llr(Pentanomial.from_wins(wins[:n])) < test.upper
    assert verdict.llr == pytest.approx(test.llr(Pentanomial.from_wins(wins[:verdict.units])))
    assert verdict.matches == 2 * verdict.units
    assert 0.0 <= verdict.overshoot < 0.2


def test_sequential_verdict_is_the_same_whatever_the_chunks() -> None:
    rng = random.Random(9)
    wins = [rng.choice([0, 1, 1, 1, 2]) for _ in range(4000)]
    test = Sprt(-10, 10)
    whole = test.sequential(wins)
    verdict = test.sequential([])
    for start in range(0, len(wins), 37):
        verdict = test.sequential(wins[start:start + 37], start=verdict.counts)
        if verdict.status is not SprtStatus.CONTINUE:
            break
    assert (verdict.status, verdict.units, verdict.llr) == (whole.status, whole.units, pytest.approx(whole.llr))


def test_sequential_test_of_an_equal_match_accepts_h0() -> None:
    v = Sprt(0, 20).sequential([1, 2, 0, 1] * 2000)
    assert v.status is SprtStatus.ACCEPT_H0 and v.llr <= v.lower


def test_sprt_bounds_out_of_order_are_a_value_error() -> None:
    with pytest.raises(ValueError):
        Sprt(5, 5)
    with pytest.raises(ValueError):
        Sprt(0, 5, alpha=0.7)


def test_a_unit_score_off_the_grid_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Sprt(0, 5).llr({0.3: 4})


# ---------------------------------------------------------------- coverage, by simulation

TRUE_ELO = -75.31458004623734
"""pubeval's long-run Elo difference to heuristic in one-point matches: 500,000 dice pairs
(seed 12345, dice indices 0..499,999, each played pubeval in seat 0 then heuristic in
seat 0) scored [177796, 251128, 71076] pairs with 0, 1, 2 pubeval wins: score 0.39328,
95% interval [-75.99, -74.64]; :func:`test_long_run_difference_constant_is_what_the_bots_play`
(slow) replays it.  Its error is 1/80 of a small tournament's."""

TRUE_PAIR_COUNTS = (177796, 251128, 71076)


def _pair_wins(seed: int, pairs: int, start: int = 0) -> tuple[list[int], Stats, UnitSums]:
    pub, heu = get_bot("pubeval"), get_bot("heuristic")
    seat0, seat1 = MatchPlayer(pub, heu, length=1), MatchPlayer(heu, pub, length=1)
    wins, stats, net = [], Stats(), UnitSums()
    for i in range(start, start + pairs):
        r0, r1 = seat0.play(seed, i), seat1.play(seed, i)
        a = Stats.of_match(score=r0.score0, opponent_score=r0.score1, games=r0.games, won=r0.winner == 0)
        b = Stats.of_match(score=r1.score1, opponent_score=r1.score0, games=r1.games, won=r1.winner == 1)
        wins.append(int(r0.winner == 0) + int(r1.winner == 1))
        stats += a + b
        net += UnitSums.of_unit(a.points + b.points, a.games + b.games)
    return wins, stats, net


def test_pairing_intervals_of_200_small_tournaments_cover_the_long_run_difference() -> None:
    # 200 tournaments of 100 dice pairs (200 one-point matches), seeds 1..200: 40,000 matches
    covered = 0
    total_stats, total_net = Stats(), UnitSums()
    for seed in range(1, 201):
        wins, stats, net = _pair_wins(seed, 100)
        e = Pentanomial.from_wins(wins).elo()
        covered += e.lo <= TRUE_ELO <= e.hi
        total_stats += stats
        total_net += net
    assert 182 <= covered <= 198  # 91% to 99% (measured: 193, 96.5%)
    paired = PairingStats(total_stats, Pentanomial(), total_net)
    assert paired.ppg_se_paired < paired.ppg_se_independent  # measured: 0.967 of it


def test_identical_bots_on_paired_dice_split_every_pair_so_the_paired_error_is_zero() -> None:
    pub = get_bot("pubeval")
    seat0, seat1 = MatchPlayer(pub, pub, length=1), MatchPlayer(pub, pub, length=1)
    wins, stats, net = [], Stats(), UnitSums()
    for i in range(200):
        r0, r1 = seat0.play(77, i), seat1.play(77, i)
        a = Stats.of_match(score=r0.score0, opponent_score=r0.score1, games=r0.games, won=r0.winner == 0)
        b = Stats.of_match(score=r1.score1, opponent_score=r1.score0, games=r1.games, won=r1.winner == 1)
        wins.append(int(r0.winner == 0) + int(r1.winner == 1))
        stats += a + b
        net += UnitSums.of_unit(a.points + b.points, a.games + b.games)
    result = PairingStats(stats, Pentanomial.from_wins(wins), net)
    assert result.wins.counts == (0, 0, 200, 0, 0)
    assert result.ppg_se_paired == 0.0 < result.ppg_se_independent


@pytest.mark.slow
def test_long_run_difference_constant_is_what_the_bots_play() -> None:
    wins, _, _ = _pair_wins(12345, 500_000)
    p = Pentanomial.from_wins(wins)
    assert (p.counts[0], p.counts[2], p.counts[4]) == TRUE_PAIR_COUNTS
    assert p.elo().elo == pytest.approx(TRUE_ELO, abs=1e-9)


def test_a_money_tournaments_paired_ppg_is_ppg_against_of_the_same_games(tmp_path: object) -> None:
    # tournaments/vs_pubeval.toml (fewer matches, another seed): the tournament's ratio estimate
    # over dice pairs, with one game a match, is the plain mean over pairs that the training
    # curve uses (bgfast.rollout.stats.estimate_paired), of the games ppg_against plays
    from pathlib import Path

    from bgfast.tournament import TournamentSpec, run_tournament

    pairs, seed = 150, 7
    shipped = TournamentSpec.from_toml(Path(__file__).resolve().parents[1] / "tournaments" / "vs_pubeval.toml")
    spec = TournamentSpec.from_dict({**shipped.to_dict(), "seed": seed, "matches_per_pairing": 2 * pairs})
    standings = run_tournament(spec, Path(str(tmp_path)) / "r.sqlite", workers=1)
    (pairing,) = standings.pairings
    assert (pairing.a, pairing.b) == ("heuristic", "pubeval") and pairing.result is not None

    ppg, se = ppg_against(get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never"), pairs=pairs,
                          seed=seed)
    assert pairing.result.ppg == pytest.approx(ppg, abs=1e-12)
    assert pairing.result.ppg_se_paired == pytest.approx(se, rel=1e-9)
