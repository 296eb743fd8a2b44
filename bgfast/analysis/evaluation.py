"""The evaluation of a position: the five probabilities of the side on roll, its cubeless
equity, and its cubeful equity at the score (``bgfast eval``).

The cubeful equity is the value of the position to the side on roll with the cube
handled right (gnubg's "optimal" equity of the cube decision, :mod:`bgfast.analysis.cube_action`):
with the cube as it stands when it should not double (Janowski's equity in money play, the
cubeful match winning chance in match play), or the taker's best answer to a double when it
should.  At 1 ply or more, a judge that looks ahead with the cube (the neural bot) gives
it by gnubg's cubeful n-ply evaluation (:meth:`Judge.cube_decision
<bgfast.analysis.judge.Judge.cube_decision>`); otherwise it is the cube math on the
probabilities at the judge's ply.  When the position's text says the dice are rolled, the
cube decision is past and the cubeful equity is the cube's as it stands.

>>> e = evaluate_position("4HPwATDgc/ABMA")
>>> e.ply, round(e.cubeless_equity, 2) == round(e.probabilities.equity(), 2)
(0, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bgfast.analysis.cube_action import CubeAnalysis, judge_cube, no_cube_decision
from bgfast.analysis.judge import DEFAULT_JUDGE, Judge
from bgfast.analysis.report import percent, probabilities_dict, probabilities_line, signed
from bgfast.analysis.situation import Situation
from bgfast.match import Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Position
from bgfast.probabilities import Probabilities

__all__ = ["PositionEvaluation", "evaluate_position"]


@dataclass(frozen=True)
class PositionEvaluation:
    """A position judged at :attr:`ply`, from the side on roll's view, before its roll."""

    situation: Situation
    """The position, score, cube and rules."""
    ply: int
    """The look-ahead of the probabilities (gnubg's numbering)."""
    probabilities: Probabilities
    """Cubeless probabilities of the side on roll before its roll."""
    cubeful_equity: float
    """The cubeful equity at the score: money play, points per game per unit of the current
    cube; match play, EMG."""
    mwc: float | None
    """Match play: the cubeful match winning chance (0 to 1); None in money play."""
    cube: CubeAnalysis | None
    """The cube decision before the roll, or None when the dice are rolled."""

    @property
    def cubeless_equity(self) -> float:
        """Cubeless money equity in points per game: ``2 win - 1 + wg - lg + wbg - lbg``."""
        return self.probabilities.equity()

    def to_dict(self) -> dict[str, Any]:
        """The evaluation for JSON: ``probabilities`` (``win``, ``win_gammon``,
        ``win_backgammon``, ``lose_gammon``, ``lose_backgammon``), ``cubeless_equity``,
        ``cubeful_equity``, ``ply``, ``position_id``, ``cube_action`` (gnubg's words, null
        with the dice rolled or a resignation offered), the score and cube (:meth:`Situation.to_dict`) and in match
        play ``mwc`` and ``emg`` (the cubeful equity again, by its name)."""
        out: dict[str, Any] = {
            "position_id": self.situation.position.id(), "ply": self.ply,
            "probabilities": probabilities_dict(self.probabilities), "cubeless_equity": self.cubeless_equity,
            "cubeful_equity": self.cubeful_equity,
            "cube_action": None if self.cube is None else self.cube.action.value, **self.situation.to_dict()}
        if self.mwc is not None:
            out["mwc"] = self.mwc
            out["emg"] = self.cubeful_equity
        return out

    def text(self) -> str:
        """The evaluation in a few lines, as ``bgfast eval`` prints it."""
        s = self.situation
        lines = [f"Position {s.position.id()}, {s.describe()}",
                 f"Evaluation at {self.ply} ply, the side on roll before its roll:",
                 f"  {probabilities_line(self.probabilities)}",
                 f"  cubeless equity {signed(self.cubeless_equity)}"]
        if self.mwc is not None:
            lines.append(f"  cubeful equity  {signed(self.cubeful_equity)} EMG, match winning chance "
                         f"{percent(self.mwc)}")
        else:
            lines.append(f"  cubeful equity  {signed(self.cubeful_equity)} points per cube")
        if self.cube is not None:
            lines.append(f"  proper cube action: {self.cube.action.value}")
        elif s.match.resigned:
            lines.append(f"  no cube action: a resignation is offered (player {s.match.turn} is to answer), so the "
                         "cubeful equity is the cube's as it stands")
        else:
            d1, d2 = s.match.dice
            lines.append(f"  no cube action: the dice are rolled ({d1}{d2}), so the cubeful equity is the cube's as "
                         "it stands")
        return "\n".join(lines)


def evaluate_position(position: Position | str, judge: Judge | str = DEFAULT_JUDGE, *, ply: int | None = None,
                      rules: Rules | None = None, met: MatchEquityTable | str | None = None) -> PositionEvaluation:
    """Evaluate ``position`` (a Position ID, ``PositionID:MatchID`` or XGID) for the side on
    roll, before its roll, with ``judge`` (a :class:`Judge` or a bot spec; default the neural
    bot) at ``ply`` (None: the bot's own).  The probabilities are the bot's
    ``evaluate(position, plies=ply)``.

    :raises InvalidPositionError, InvalidMatchIdError: a malformed position.
    :raises InvalidAnalysisError: a finished game or match, a bot without probabilities.
    :raises ValueError: a ply the bot does not have (its own error).
    """
    judge = Judge.resolve(judge, ply)
    situation = Situation.read(position, rules=rules, met=met, cube_efficiency=judge.cube_efficiency)
    ahead = judge.cube_decision(situation)
    decision, p = ahead if ahead is not None else (None, judge.probabilities(situation.position))
    if no_cube_decision(situation) is not None:
        cube = None
        value = situation.cubeful_value(p) if decision is None else decision.no_double
        equity = situation.equity(value)
    else:
        cube = judge_cube(situation, p, judge.ply, decision)
        equity = cube.optimal
    mwc = None
    if situation.met is not None:
        a, b = situation.aways()
        mwc = situation.met.emg_to_mwc(equity, a, b, situation.match.cube_value)
    return PositionEvaluation(situation, judge.ply, p, equity, mwc, cube)
