"""gnubg's marks, rates and rating words (bgfast/analysis/error_rates.py) against the
tables of GNU Backgammon 1.07's manual and source."""
from __future__ import annotations

import pytest

from bgfast.analysis.error_rates import error_rate, is_close, luck_mark, luck_rating, rating, skill_mark


@pytest.mark.parametrize("error, mark", [
    (0.0, None), (0.04, None), (0.0401, "doubtful"), (0.08, "doubtful"), (0.0801, "bad"), (0.16, "bad"),
    (0.1601, "very bad"), (2.0, "very bad"),
])
def test_a_decision_is_marked_above_each_threshold(error, mark):
    assert skill_mark(error) == mark


@pytest.mark.parametrize("luck, mark", [
    (0.0, None), (0.3, None), (0.31, "lucky"), (0.6, "lucky"), (0.61, "very lucky"),
    (-0.3, None), (-0.31, "unlucky"), (-0.6, "unlucky"), (-0.61, "very unlucky"),
])
def test_a_roll_is_marked_beyond_each_threshold(luck, mark):
    assert luck_mark(luck) == mark


@pytest.mark.parametrize("per_decision, words", [
    (0.0, "Supernatural"), (0.0019, "Supernatural"), (0.002, "World class"), (0.0049, "World class"),
    (0.005, "Expert"), (0.008, "Advanced"), (0.012, "Intermediate"), (0.018, "Casual player"),
    (0.026, "Beginner"), (0.0349, "Beginner"), (0.035, "Awful!"), (0.5, "Awful!"),
])
def test_the_rating_words_follow_gnubgs_thresholds(per_decision, words):
    assert rating(per_decision) == words


@pytest.mark.parametrize("per_move, words", [
    (0.0, "None"), (0.029, "None"), (0.031, "Good dice, man!"), (0.061, "Go to Las Vegas"),
    (-0.031, "Bad dice, man!"), (-0.061, "Go to bed"),
])
def test_the_luck_rating_is_ten_times_the_rate_against_the_roll_marks(per_move, words):
    assert luck_rating(per_move) == words


def test_a_rate_is_the_total_per_decision_times_1000_and_none_without_decisions():
    assert error_rate(0.5, 100) == pytest.approx(5.0)
    assert error_rate(0.0, 0) is None


def test_a_no_double_is_close_below_the_very_bad_mark():
    assert is_close(0.0) and is_close(0.159) and not is_close(0.16)
