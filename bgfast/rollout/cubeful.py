"""Cubeful values of a truncated trial, from cubeless probabilities.

A trial cut short after N plies ends in a position, not a result.  Its
cubeless value comes from the evaluator's probabilities; its cubeful value
needs the cube as well:

* money play: Janowski's interpolation between the dead-cube equity and the
  fully live-cube equity, ``E = E_dead * (1 - x) + E_live * x`` with the cube
  efficiency ``x`` (R. Janowski, "Take-points in money games", 1993; the
  formulas gnubg uses to turn cubeless into cubeful equity at 0 ply);
* match play: the cube is taken as dead at its current value, the match
  winning chance is the outcome probabilities weighted with the match equity
  table after each outcome.

Probabilities are ``(win, win_gammon, win_backgammon, lose_gammon,
lose_backgammon)``, cumulative as in gnubg (``win_gammon`` includes
backgammons), from the view of the side whose value is computed.
"""
from __future__ import annotations

from collections.abc import Sequence

from bgfast.met import MatchEquityTable

__all__ = ["cubeless_equity", "dead_cube_mwc", "flip", "janowski_money"]

_EPS = 1e-7


def cubeless_equity(p: Sequence[float]) -> float:
    """Cubeless money equity at cube 1: ``2w - 1 + wg - lg + wbg - lbg``.

    >>> cubeless_equity((0.5, 0.1, 0.0, 0.1, 0.0))
    0.0
    """
    w, wg, wbg, lg, lbg = p
    return 2.0 * w - 1.0 + wg - lg + wbg - lbg


def flip(p: Sequence[float]) -> tuple[float, float, float, float, float]:
    """The same probabilities from the other side's view.

    >>> flip((0.6, 0.2, 0.01, 0.1, 0.0))
    (0.4, 0.1, 0.0, 0.2, 0.01)
    """
    w, wg, wbg, lg, lbg = p
    return (1.0 - w, lg, lbg, wg, wbg)


def janowski_money(p: Sequence[float], owner: int, x: float, *, jacoby: bool = False) -> float:
    """Cubeful money equity per cube unit of the side on roll, Janowski's formula.

    :param p: the side on roll's probabilities.
    :param owner: -1 centred cube, 0 owned by the side on roll, 1 by its opponent.
    :param x: cube efficiency, 0 (dead cube) to 1 (fully live).
    :param jacoby: the Jacoby rule: with the cube centred, gammons count single.

    >>> round(janowski_money((0.7, 0.0, 0.0, 0.0, 0.0), -1, 0.68), 4)   # centred, gammonless
    0.5813
    >>> janowski_money((0.9, 0.0, 0.0, 0.0, 0.0), 0, 1.0)   # owned, past the cash point: cash
    1.0
    """
    w, wg, wbg, lg, lbg = p
    rw = 1.0 + (wg + wbg) / w if w > _EPS else 1.0
    rl = 1.0 + (lg + lbg) / (1.0 - w) if w < 1.0 - _EPS else 1.0
    if jacoby and owner == -1:
        dead = 2.0 * w - 1.0
    else:
        dead = cubeless_equity(p)
    if owner == -1:
        tp = (rl - 0.5) / (rw + rl + 0.5)
        cp = (rl + 1.0) / (rw + rl + 0.5)
        if w < tp:
            live = -1.0 if jacoby else -rl + (rl - 1.0) * w / tp
        elif w < cp:
            live = -1.0 + 2.0 * (w - tp) / (cp - tp)
        else:
            live = 1.0 if jacoby else 1.0 + (rw - 1.0) * (w - cp) / (1.0 - cp)
    elif owner == 0:
        cp = (rl + 1.0) / (rw + rl + 0.5)
        if w < cp:
            live = -rl + (1.0 + rl) * w / cp
        else:
            live = 1.0 + (rw - 1.0) * (w - cp) / (1.0 - cp)
    else:
        tp = (rl - 0.5) / (rw + rl + 0.5)
        if w < tp:
            live = -rl + (rl - 1.0) * w / tp
        else:
            live = -1.0 + (rw + 1.0) * (w - tp) / (1.0 - tp)
    return dead * (1.0 - x) + live * x


def dead_cube_mwc(p: Sequence[float], met: MatchEquityTable, away: int, opp_away: int, cube: int) -> float:
    """Match winning chance with the cube dead at ``cube``: outcomes weighted through the MET.

    :param p: the probabilities of the player ``away`` points from victory.

    A game with either player 1-away is the Crawford game or comes after it,
    so the scores it leads to are read post-Crawford.

    >>> met = MatchEquityTable.load()
    >>> dead_cube_mwc((1.0, 0.0, 0.0, 0.0, 0.0), met, 3, 3, 1) == met.equity(2, 3)
    True
    """
    w, wg, wbg, lg, lbg = p
    post = away == 1 or opp_away == 1
    outcomes = (
        (w - wg, away - cube, opp_away), (wg - wbg, away - 2 * cube, opp_away), (wbg, away - 3 * cube, opp_away),
        (1.0 - w - lg, away, opp_away - cube), (lg - lbg, away, opp_away - 2 * cube), (lbg, away, opp_away - 3 * cube),
    )
    return sum(prob * met.mwc(a, b, post) for prob, a, b in outcomes)
