"""GNU Backgammon's measures of skill and luck: error rates, the marks of a decision and
of a roll, and the rating words.

Facts from GNU Backgammon 1.07 (its manual, "Match and game statistics", and its
``analysis.c``/``formatgs.c``), used by ``bgfast analyse`` and meant for any judged report:

* an **error** is the equity a decision gave up against the best one, never negative,
  *normalised*: money play, points per game per unit of the cube then in play; match play,
  EMG (the match winning chance as money-game equity at the score and cube, +1 winning the
  cube for sure).  Its *unnormalised* counterpart is the error times the cube (money) or
  the match winning chance given up (match);
* the **error rate** is the total normalised error divided by the number of decisions that
  count, times 1000 (gnubg's "mEMG" and its default ``rErrorRateFactor`` of 1000): checker
  play, unforced moves (more than one legal play); cube, "close or actual" cube decisions;
  overall, the two together (:func:`error_rate`);
* a decision is **marked** doubtful, bad or very bad when its error is more than 0.04,
  0.08 or 0.16 (gnubg's default ``arSkillLevel``; :func:`skill_mark`);
* a cube decision is **close** when doubling gives up less than 0.16 (the very-bad mark)
  against the proper action; every double, take and pass counts as well (:func:`is_close`);
* the **luck** of a roll is the value after the best play of the roll rolled minus its
  average over the 36 rolls, marked very lucky above +0.6, lucky above +0.3, unlucky below
  -0.3, very unlucky below -0.6 (``arLuckLevel``; :func:`luck_mark`); the luck rate is the
  total luck per move (every roll), and its rating words come from ten times it against
  the same thresholds (``getLuckRating``; :func:`luck_rating`);
* the **rating** of an error rate per decision (normalised, not times 1000): below 0.002
  "Supernatural", 0.005 "World class", 0.008 "Expert", 0.012 "Advanced", 0.018
  "Intermediate", 0.026 "Casual player", 0.035 "Beginner", else "Awful!" (``arThrsRating``,
  ``aszRating``; :func:`rating`).

>>> skill_mark(0.05), skill_mark(0.2), skill_mark(0.01)
('doubtful', 'very bad', None)
>>> error_rate(0.12, 40), rating(0.12 / 40)
(3.0, 'World class')
>>> luck_mark(0.45), luck_rating(-0.04)
('lucky', 'Bad dice, man!')
"""
from __future__ import annotations

__all__ = [
    "LUCK_LEVELS", "LUCK_RATINGS", "RATINGS", "SKILL_LEVELS", "error_rate", "is_close", "luck_mark",
    "luck_rating", "rating", "skill_mark",
]

RATE_FACTOR = 1000.0
"""Error and luck rates are per decision times this (gnubg's "mEMG", its default)."""

SKILL_LEVELS = (("very bad", 0.16), ("bad", 0.08), ("doubtful", 0.04))
"""A decision whose error is more than the number gets the mark (gnubg's ``arSkillLevel``)."""

LUCK_LEVELS = (("very lucky", 0.6), ("lucky", 0.3))
"""A roll whose luck is more than the number (or less than its negative: "unlucky",
"very unlucky") gets the mark (gnubg's ``arLuckLevel``)."""

RATINGS = ((0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
           (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))
"""An error rate per decision (normalised, not times 1000) below the number earns the words;
at or above the last, "Awful!" (gnubg's ``arThrsRating`` and ``aszRating``)."""

AWFUL = "Awful!"
"""The rating of an error rate at or above the last of :data:`RATINGS`."""

LUCK_RATINGS = ("Go to bed", "Bad dice, man!", "None", "Good dice, man!", "Go to Las Vegas")
"""gnubg's luck rating words, from very unlucky to very lucky (``aszLuckRating``)."""

CLOSE_CUBE = 0.16
"""A cube decision where doubling gives up less than this against the proper action is
"close" (gnubg counts those below the very-bad mark)."""


def error_rate(total: float, decisions: int) -> float | None:
    """The error (or luck) rate: ``total`` (normalised equity) per decision times 1000; None
    without decisions (gnubg prints "n/a")."""
    return RATE_FACTOR * total / decisions if decisions else None


def skill_mark(error: float) -> str | None:
    """gnubg's mark of a decision that gave up ``error`` (normalised, >= 0): ``"very bad"``,
    ``"bad"``, ``"doubtful"`` or None."""
    for mark, level in SKILL_LEVELS:
        if error > level:
            return mark
    return None


def luck_mark(luck: float) -> str | None:
    """gnubg's mark of a roll of ``luck`` (normalised): ``"very lucky"``, ``"lucky"``,
    ``"unlucky"``, ``"very unlucky"`` or None."""
    (very, lucky) = (level for _mark, level in LUCK_LEVELS)
    if luck > very:
        return "very lucky"
    if luck > lucky:
        return "lucky"
    if luck < -very:
        return "very unlucky"
    if luck < -lucky:
        return "unlucky"
    return None


def luck_rating(luck_per_move: float) -> str:
    """gnubg's luck rating of a luck rate ``luck_per_move`` (normalised, not times 1000):
    ten times it against the marks of a roll."""
    mark = luck_mark(10.0 * luck_per_move)
    order = {"very unlucky": 0, "unlucky": 1, None: 2, "lucky": 3, "very lucky": 4}
    return LUCK_RATINGS[order[mark]]


def rating(error_per_decision: float) -> str:
    """gnubg's rating words of an error rate per decision (normalised, not times 1000)."""
    for level, words in RATINGS:
        if error_per_decision < level:
            return words
    return AWFUL


def is_close(doubling_error: float) -> bool:
    """Whether a no-double decision counts as a cube decision in the rate: doubling would
    give up ``doubling_error`` (normalised, >= 0) against the proper action, less than
    :data:`CLOSE_CUBE`."""
    return doubling_error < CLOSE_CUBE
