"""A cube decision rolled out: no double and double/take on the same dice, and the proper action.

``rollout(..., cube=True)`` (``bgfast rollout --cube``) rolls out two lines from the
position of the side on roll, before its roll, trial by trial on the same streams (the
same dice and the same stratified first rolls; the cubeless games are the same game):

* no double: the side rolls at once, without a cube action, the cube as it stands;
* double/take: the opponent has taken, so it owns the cube at twice its value, and the
  side rolls.

Both are cubeful: the bot's own cube decisions afterwards, luck-adjusted with the rollout.
Double/pass needs no trials: money, +1 (the cube's value); match, the match winning chance
after winning the cube's value.  :class:`CubeRollout` gives the three equities at the score
as ``bgfast cube`` does (:meth:`bgfast.analysis.situation.Situation.equity`: money play,
points per game per unit of the current cube; match play, EMG, with the match winning
chances beside them), the difference double/take minus no double with the standard error of
the per-trial differences (paired: the dice's noise that both lines share cancels, so it
is well below either line's own error), and the proper action in gnubg's words
(:func:`bgfast.analysis.cube_action.proper_action` on the three equities).

>>> from bgfast.rollout import rollout
>>> r = rollout("4HPwATDgc/ABMA", cube=True, trials=72, seed=1, bot="heuristic")
>>> sorted(r.cube_decision.to_dict())[:4]
['action', 'close', 'difference', 'difference_se']
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bgfast.analysis.cube_action import CubeAction, proper_action
from bgfast.analysis.report import signed
from bgfast.analysis.situation import Situation
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Position
from bgfast.rollout.result import Estimate, _num
from bgfast.rollout.stats import estimate_columns

__all__ = ["CLOSE_SES", "CubeRollout", "close_calls", "cube_rollout", "double_take_state"]


def double_take_state(match: MatchState, rules: Rules) -> MatchState:
    """The match state after the side on roll doubles and its opponent takes: the cube at
    twice its value, the taker's; the doubler still on roll, before its roll.

    >>> state = double_take_state(MatchState(), Rules())
    >>> state.cube_value, state.cube_owner, state.player_on_roll
    (2, 1, 0)

    :raises IllegalCubeActionError: the side on roll may not double.
    """
    return match.double(match.player_on_roll, rules).take()


@dataclass(frozen=True)
class CubeRollout:
    """The rolled-out cube decision of the side on roll before its roll, from its view.

    Equities at the score: money play, points per game per unit of the current cube
    (double/pass is +1); match play, EMG at the current cube, with the match winning chances
    in :attr:`mwc`.  Each ``±`` is one standard error, stratified as the rollout's.
    """

    no_double: Estimate
    """The side rolls without doubling."""
    double_take: Estimate
    """The side doubles and the opponent takes (the same dice as :attr:`no_double`)."""
    double_pass: float
    """The side doubles and the opponent passes (exact)."""
    difference: Estimate
    """:attr:`double_take` minus :attr:`no_double`, its error that of the per-trial differences."""
    action: CubeAction
    """The proper action in gnubg's words, from the three equities."""
    mwc: tuple[Estimate, Estimate, float] | None = None
    """Match play: the match winning chances of no double, double/take, double/pass."""
    close: tuple[str, ...] = ()
    """The parts of :attr:`action` that the rollout's noise leaves open (:func:`close_calls`):
    ``"double"`` (whether to double), ``"take"`` (take or pass)."""

    @property
    def optimal(self) -> float:
        """The equity of the proper action (no double's unless doubling is right, then the
        taker's best answer's: the lower of double/take and double/pass)."""
        if not self.action.doubles:
            return self.no_double.value
        return min(self.double_take.value, self.double_pass)

    def to_dict(self) -> dict[str, Any]:
        """``no_double``, ``double_take``, ``double_pass``, each with its ``_se`` (0 for
        double/pass), ``difference`` (double/take minus no double) and ``difference_se``,
        ``action`` (gnubg's words), ``optimal``, ``close`` (:attr:`close`, a list); in match
        play ``mwc``: the three chances and
        their errors (``no_double_se``, ``double_take_se``)."""
        out: dict[str, Any] = {
            "no_double": self.no_double.value, "no_double_se": _num(self.no_double.se),
            "double_take": self.double_take.value, "double_take_se": _num(self.double_take.se),
            "double_pass": self.double_pass, "double_pass_se": 0.0,
            "difference": self.difference.value, "difference_se": _num(self.difference.se),
            "action": self.action.value, "optimal": self.optimal, "close": list(self.close),
        }
        if self.mwc is not None:
            nd, dt, dp = self.mwc
            out["mwc"] = {"no_double": nd.value, "no_double_se": _num(nd.se), "double_take": dt.value,
                          "double_take_se": _num(dt.se), "double_pass": dp}
        return out

    def text(self, match_play: bool) -> list[str]:
        """The lines of the report: the three equities, the difference, the proper action."""
        unit = "EMG" if match_play else "points per cube"
        lines = [f"cube decision, no double and double/take on the same dice (cubeful, {unit}):"]
        best = self.optimal
        rows: list[tuple[str, Estimate, Estimate | float | None]] = [
            ("No double", self.no_double, None if self.mwc is None else self.mwc[0]),
            ("Double, take", self.double_take, None if self.mwc is None else self.mwc[1]),
            ("Double, pass", Estimate(self.double_pass, 0.0), None if self.mwc is None else self.mwc[2])]
        for i, (name, e, chance) in enumerate(rows, 1):
            err = "" if i == 3 else (" ± n/a" if math.isnan(e.se) else f" ± {e.se:.4f}")
            mwc = ""
            if isinstance(chance, Estimate):
                mwc = f"  MWC {100 * chance.value:.2f}%" + ("" if math.isnan(chance.se) else
                                                              f" ± {100 * chance.se:.2f}%")
            elif chance is not None:
                mwc = f"  MWC {100 * chance:.2f}%"
            diff = "" if abs(e.value - best) < 5e-7 else f"  ({signed(e.value - best, decimals=4)})"
            lines.append(f"  {i}. {name:<14}{signed(e.value, decimals=4)}{err}{mwc}{diff}")
        lines.append(f"  double/take - no double: {self.difference} (per trial, the same dice)")
        lines.append(f"Proper cube action: {self.action.value}")
        if self.close:
            what = " and ".join({"double": "whether to double", "take": "take or pass"}[c] for c in self.close)
            lines.append(f"  a close call: {what} is within {CLOSE_SES:g} standard errors; more trials would tell")
        return lines


CLOSE_SES = 2.0
"""A choice whose margin is within this many standard errors is a close call."""


def close_calls(no_double: Estimate, double_take: Estimate, double_pass: float, difference: Estimate, *,
                jacoby_centred: bool = False) -> tuple[str, ...]:
    """Which choices of a rolled-out cube decision its noise leaves open, each margin
    within :data:`CLOSE_SES` standard errors of 0: ``"double"`` when whether to double
    does (double/take minus no double, the paired difference's error, when the taker
    would take; double/pass minus no double, no double's error, when it would pass),
    ``"take"`` when take or pass does (double/take minus double/pass, double/take's
    error).  With the Jacoby rule and a centred cube playing on is worth at most the
    pass, so a pass settles the double.  An error that is not known (one trial) leaves
    nothing open."""
    out = []
    if double_take.value < double_pass:
        margin, se = difference.value, difference.se
    else:
        margin, se = (0.0, math.nan) if jacoby_centred else (double_pass - no_double.value, no_double.se)
    if not math.isnan(se) and abs(margin) < CLOSE_SES * se:
        out.append("double")
    if not math.isnan(double_take.se) and abs(double_take.value - double_pass) < CLOSE_SES * double_take.se:
        out.append("take")
    return tuple(out)


def cube_rollout(position: Position, match: MatchState, rules: Rules, met: MatchEquityTable | None,
                 no_double: np.ndarray, double_take: np.ndarray, double_pass: float, strata: int,
                 probabilities: tuple[float, ...]) -> CubeRollout:
    """The cube decision from the per-trial cubeful values of its two lines.

    :param no_double, double_take: shape ``(n,)``, trial ``i`` of each on the same dice, the
        side on roll's view: money, points per unit of the current cube (double/take's
        already doubled); match, match winning chances.
    :param double_pass: the same of double/pass.
    :param strata: the strata the errors are computed over (:func:`~bgfast.rollout.stats.variance_strata`).
    :param probabilities: the cubeless chances of no double (whether the side can win, win a gammon).
    """
    situation = Situation(position, match, rules, met)
    columns = np.column_stack([no_double, double_take, double_take - no_double])
    mean, se = estimate_columns(columns, strata)
    zero = situation.equity(0.0)
    scale = situation.equity(1.0) - zero      # EMG is linear in the MWC (1 in money play)

    def at_score(k: int) -> Estimate:
        return Estimate(float(zero + scale * mean[k]) if k < 2 else float(scale * mean[k]), float(abs(scale) * se[k]))

    nd, dt, diff = at_score(0), at_score(1), at_score(2)
    dp = situation.equity(double_pass)
    money = match.is_money
    jacoby_centred = money and match.jacoby and match.cube_owner == -1
    action = proper_action(nd.value, dt.value, dp, redouble=match.cube_owner == match.player_on_roll,
                           can_win_gammon=probabilities[1] > 0.0, can_win=probabilities[0] > 0.0,
                           beaver=money and rules.beaver, jacoby_centred=jacoby_centred)
    chances = None
    if not money:
        chances = (Estimate(float(mean[0]), float(se[0])), Estimate(float(mean[1]), float(se[1])), double_pass)
    return CubeRollout(nd, dt, dp, diff, action, chances,
                       close_calls(nd, dt, dp, diff, jacoby_centred=jacoby_centred))
