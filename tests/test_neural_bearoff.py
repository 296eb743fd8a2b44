"""The one-sided bear-off database (bgfast/_core/bearoff.pyx) against exact solvers.

The oracle for small cases is a plain Python solver written from the rules (bearing
off needs the exact die or a larger one from the highest point; as many dice as
possible must be played, the higher die when only one can be): for every position of
at most 4 checkers, the distribution of rolls to bear off under the play that
minimises the expected rolls.  GNU Backgammon's one-sided database (through
gnubg_nn, stored to 16 bits) is the oracle for the full 15-checker range.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

from bgfast._core import bearoff as bo

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def _step(pos: tuple[int, ...], src: int, die: int) -> tuple[int, ...] | None:
    """Move one checker from point ``src`` (1..6) by ``die``; None if illegal."""
    if pos[src - 1] == 0:
        return None
    dst = src - die
    if dst < 0 and any(pos[p - 1] for p in range(src + 1, 7)):
        return None                      # a larger die bears off from the highest point only
    out = list(pos)
    out[src - 1] -= 1
    if dst > 0:
        out[dst - 1] += 1
    return tuple(out)


def plays(pos: tuple[int, ...], d1: int, d2: int) -> set[tuple[int, ...]]:
    """The positions a legal play of (d1, d2) reaches."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    reached: dict[tuple[int, ...], set[tuple[int, ...]]] = {}

    def walk(p: tuple[int, ...], rest: list[int], used: tuple[int, ...]) -> None:
        moved = False
        if rest and sum(p):
            for src in range(1, 7):
                q = _step(p, src, rest[0])
                if q is not None:
                    moved = True
                    walk(q, rest[1:], used + (rest[0],))
        if not moved:
            reached.setdefault(used, set()).add(p)

    for order in orders:
        walk(pos, order, ())
    most = max(len(u) for u in reached)
    kept = {u: ps for u, ps in reached.items() if len(u) == most}
    if most == 1 and d1 != d2:
        high = {u: ps for u, ps in kept.items() if u[0] == max(d1, d2)}
        kept = high or kept
    return set().union(*kept.values())


@lru_cache(maxsize=None)
def exact(pos: tuple[int, ...]) -> tuple[float, tuple[float, ...]]:
    """(expected rolls, distribution of rolls over 0..31) minimising the expected rolls."""
    if sum(pos) == 0:
        return 0.0, (1.0,) + (0.0,) * 31
    dist = np.zeros(32)
    for d1, d2 in ROLLS:
        w = (1 if d1 == d2 else 2) / 36
        best = min(plays(pos, d1, d2), key=lambda q: exact(q)[0])
        dist[1:] += w * np.array(exact(best)[1][:31])
    return float((np.arange(32) * dist).sum()), tuple(dist)


def small_positions(most: int) -> list[tuple[int, ...]]:
    return [c for c in itertools.product(range(most + 1), repeat=6) if 0 < sum(c) <= most]


def test_the_python_rules_oracle_knows_the_bear_off_rules() -> None:
    # 6-1 with checkers on the 6 and the 2: the 6 bears off, the 1 moves the 2 (or 6/5, 5/off)
    assert plays((0, 1, 0, 0, 0, 1), 6, 1) == {(1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0)}
    # a larger die than the highest point bears off from it
    assert plays((0, 0, 1, 0, 0, 0), 6, 5) == {(0, 0, 0, 0, 0, 0)}
    assert exact((1, 0, 0, 0, 0, 0))[0] == pytest.approx(1.0)


@pytest.mark.parametrize("pos", small_positions(4))
def test_every_position_of_up_to_4_checkers_matches_the_exact_solver(pos: tuple[int, ...]) -> None:
    mean, dist = exact(pos)
    assert bo.rolls(pos) == pytest.approx(np.array(dist, dtype=np.float32), abs=2e-6)
    assert bo.mean_rolls(pos) == pytest.approx(mean, abs=1e-5)


def test_the_index_is_a_bijection_onto_the_positions() -> None:
    seen = {bo.index(c) for c in itertools.product(range(16), repeat=6) if sum(c) <= 15}
    assert seen == set(range(bo.POSITIONS))
    assert bo.index([0] * 6) == 0


def test_distributions_sum_to_one_and_the_longest_fits() -> None:
    assert bo.longest() < bo.ROLLS - 1
    rng = np.random.default_rng(5)
    for _ in range(300):
        c = rng.multinomial(int(rng.integers(1, 16)), [1 / 6] * 6)
        assert bo.rolls(c).sum() == pytest.approx(1.0, abs=1e-5)
    assert bo.first_off([0, 0, 0, 0, 0, 15]).sum() == pytest.approx(1.0, abs=1e-5)


def test_first_off_distribution_of_15_checkers() -> None:
    # all on the ace point: a checker comes off with every roll
    assert bo.first_off([15, 0, 0, 0, 0, 0])[1] == pytest.approx(1.0)
    # 15 on the six point: a checker comes off at once with a 6 (11 rolls of 36), 5-1 and
    # 4-2 (2 each), 3-3 and 2-2 (6/3/off, 6/4/2/off): 17 rolls
    assert bo.first_off([0, 0, 0, 0, 0, 15])[1] == pytest.approx(17 / 36, abs=1e-6)
    with pytest.raises(ValueError):
        bo.first_off([0, 0, 0, 0, 0, 14])


def test_fifteen_on_the_six_point_needs_four_double_sixes_at_best() -> None:
    assert bo.rolls([0, 0, 0, 0, 0, 15])[4] == pytest.approx((1 / 36) ** 4, rel=1e-4)
    assert bo.rolls([0, 0, 0, 0, 0, 15])[:4].sum() == 0


def test_bad_counts_raise() -> None:
    for bad in ([1] * 5, [0, 0, 0, 0, 0, 16], [-1, 0, 0, 0, 0, 1]):
        with pytest.raises(ValueError):
            bo.rolls(bad)


def _board(mover: list[int], opponent: list[int]) -> bytes:
    return bytes(opponent + [0] * 19 + mover + [0] * 19)


def test_two_sided_probabilities() -> None:
    # the side on roll with its last checker on the ace point wins whatever it rolls
    assert bo.probabilities(_board([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15])) == (1.0, 1.0, 0.0, 0.0, 0.0)
    # one checker each on the six point: a side misses with the rolls of fewer than 6 pips
    # (4-1, 3-2, 3-1, 2-1: 8 of 36, and 1-1) and then bears off with any roll: the side on
    # roll wins unless it misses and the opponent does not
    p = bo.probabilities(_board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]))
    assert p[0] == pytest.approx(27 / 36 + 9 / 36 * 9 / 36, abs=1e-6)
    assert p[1:] == (0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        bo.probabilities(_board([0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]))


def test_symmetric_races_favour_the_side_on_roll() -> None:
    rng = np.random.default_rng(8)
    for _ in range(50):
        c = [int(x) for x in rng.multinomial(int(rng.integers(1, 16)), [1 / 6] * 6)]
        p = bo.probabilities(_board(c, c))
        assert 0.5 <= p[0] <= 1.0
        assert p[1] <= p[0] and p[3] <= 1 - p[0]


gnubg_nn = pytest.importorskip("gnubg_nn")


def test_agrees_with_gnubgs_one_sided_database() -> None:
    # gnubg stores each probability in 16 bits (steps of 1/65535)
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(400):
        c = tuple(int(x) for x in rng.multinomial(int(rng.integers(1, 16)), [1 / 6] * 6))
        theirs = np.zeros(bo.ROLLS)
        got = gnubg_nn.bearoff_probabilities(c)
        theirs[1:1 + len(got)] = got
        worst = max(worst, float(np.abs(bo.rolls(c) - theirs).max()))
    assert worst < 1e-4


def test_two_sided_win_chances_are_close_to_gnubgs() -> None:
    # gnubg evaluates small bear-offs with its exact two-sided database: the one-sided
    # approximation is within a few hundredths of it
    rng = np.random.default_rng(12)
    errors = []
    for _ in range(200):
        a = [int(x) for x in rng.multinomial(int(rng.integers(1, 6)), [1 / 6] * 6)]
        b = [int(x) for x in rng.multinomial(int(rng.integers(1, 6)), [1 / 6] * 6)]
        board = [b + [0] * 19, a + [0] * 19]
        errors.append(abs(bo.probabilities(_board(a, b))[0] - gnubg_nn.probabilities(board, 0)[0]))
    assert max(errors) < 0.03
    assert float(np.mean(errors)) < 0.005
