"""The cube decision of the side on roll, before its roll: no double, double/take and
double/pass, and the proper action in GNU Backgammon's words.

The three equities are the doubler's (the side on roll's).  At 0 ply they come from the
cube math of :func:`bgfast.cube.decide` (Janowski in money play, the match equity table in
match play) on the judge's probabilities; at 1 ply or more, from a judge that looks ahead
with the cube (the neural bot: gnubg's cubeful n-ply evaluation, :mod:`bgfast._core.cubeful`,
where each side on roll in the look-ahead doubles when that is right and the 21 rolls are
averaged, so a last-roll position is valued exactly), else from the cube math on its
probabilities at that ply.  :func:`proper_action` names the action from them as gnubg's
``hint`` does:

* doubling beats playing on (double/take and double/pass both at least no double):
  "Double, take" when the taker's best answer is to take, "Double, pass" when it is to
  pass ("Optional ..." when doubling and playing on are worth the same, "Double, beaver"
  when a take leaves the doubler behind and beavers are allowed);
* playing on beats a double: "No double, take" (or "beaver"), or "Too good to double,
  pass/take" when no double beats what the taker's best answer would give (the side plays
  on for its gammons; without gammons to win it is "Double, pass" or "No double, take");
* the side may not double: "Never double, take" in match play when the cube is dead for it
  (the Crawford game, a cube that winning at its value already wins the match), "Cube not
  available" when its opponent owns the cube or it is at the maximum;
* "Redouble" for "double" when the doubler owns the cube.

Equities are given at the score: money play, points per game per unit of the current cube
(double/pass is +1); match play, EMG (:meth:`Situation.equity <bgfast.analysis.situation.Situation.equity>`),
with the match winning chances beside them.

>>> proper_action(0.5, 0.9, 1.0).value, proper_action(0.2, 0.1, 1.0).value
('Double, take', 'No double, take')
>>> proper_action(1.2, 1.5, 1.0, can_win_gammon=True).value
'Too good to double, pass'
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from bgfast import cube as cube_math
from bgfast.analysis.judge import DEFAULT_JUDGE, Judge
from bgfast.analysis.report import percent, probabilities_dict, probabilities_line, signed
from bgfast.analysis.situation import Situation
from bgfast.errors import IllegalCubeActionError, InvalidAnalysisError
from bgfast.match import Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Position
from bgfast.probabilities import Probabilities

__all__ = ["OPTIONAL_EPSILON", "CubeAction", "CubeAnalysis", "analyse_cube", "judge_cube", "proper_action"]

OPTIONAL_EPSILON = 1e-5
"""Equities closer than this are equal: the double is optional (gnubg's tolerance)."""


class CubeAction(str, enum.Enum):
    """A proper cube action, its value the words gnubg prints."""

    NO_DOUBLE_TAKE = "No double, take"
    NO_REDOUBLE_TAKE = "No redouble, take"
    NO_DOUBLE_BEAVER = "No double, beaver"
    NO_REDOUBLE_BEAVER = "No redouble, beaver"
    DOUBLE_TAKE = "Double, take"
    REDOUBLE_TAKE = "Redouble, take"
    DOUBLE_PASS = "Double, pass"
    REDOUBLE_PASS = "Redouble, pass"
    DOUBLE_BEAVER = "Double, beaver"
    REDOUBLE_BEAVER = "Redouble, beaver"
    TOO_GOOD_TO_DOUBLE_PASS = "Too good to double, pass"
    TOO_GOOD_TO_REDOUBLE_PASS = "Too good to redouble, pass"
    TOO_GOOD_TO_DOUBLE_TAKE = "Too good to double, take"
    TOO_GOOD_TO_REDOUBLE_TAKE = "Too good to redouble, take"
    OPTIONAL_DOUBLE_TAKE = "Optional double, take"
    OPTIONAL_REDOUBLE_TAKE = "Optional redouble, take"
    OPTIONAL_DOUBLE_PASS = "Optional double, pass"
    OPTIONAL_REDOUBLE_PASS = "Optional redouble, pass"
    OPTIONAL_DOUBLE_BEAVER = "Optional double, beaver"
    OPTIONAL_REDOUBLE_BEAVER = "Optional redouble, beaver"
    NEVER_DOUBLE_TAKE = "Never double, take"
    NEVER_REDOUBLE_TAKE = "Never redouble, take"
    NOT_AVAILABLE = "Cube not available"

    @property
    def doubles(self) -> bool:
        """Whether the side on roll should double (an optional double counts)."""
        return self.value.startswith(("Double", "Redouble", "Optional"))

    @property
    def response(self) -> str | None:
        """The taker's proper answer, ``"take"``, ``"pass"`` or ``"beaver"`` (None: no cube)."""
        return self.value.rsplit(", ", 1)[1] if ", " in self.value else None


def proper_action(no_double: float, double_take: float, double_pass: float, *, redouble: bool = False,
                  can_win_gammon: bool = False, can_win: bool = True, beaver: bool = False,
                  jacoby_centred: bool = False) -> CubeAction:
    """The proper cube action from the three equities of the doubler (one scale: money
    equity per cube, or EMG, or match winning chances), as gnubg's ``FindBestCubeDecision``
    decides it.

    :param redouble: the doubler owns the cube ("Redouble" for "Double").
    :param can_win_gammon: the doubler can win a gammon (a positive gammon chance): only
        then is a position too good to double, or a double/pass optional.
    :param can_win: the doubler can win at all (no double/take for a side sure to lose).
    :param beaver: money play with beavers allowed: a take that leaves the doubler behind
        (double/take between -2 and 0) is a beaver.
    :param jacoby_centred: money play with the Jacoby rule and a centred cube (a double/pass
        is never optional and never too good: the gammons only count once the cube is
        turned, so a no-double estimate above the pass is read as the pass).
    """
    nd, dt, dp = no_double, double_take, double_pass
    if jacoby_centred and nd > dp:
        # playing on wins at most a single game (the pass's value) until the cube is turned:
        # an estimate above it is noise, such as a rollout's luck adjustment, not "too good"
        nd = dp
    double = "redouble" if redouble else "double"
    beavers = beaver and -2.0 <= dt <= 0.0

    def act(words: str) -> CubeAction:
        return CubeAction(words[0].upper() + words[1:])

    if dt >= nd and dp >= nd:                        # doubling beats playing on
        if dp > dt:                                  # ... and the taker takes
            optional = abs(dt - nd) <= OPTIONAL_EPSILON
            if beavers:
                if 2.0 * dt < nd:
                    return act(f"no {double}, beaver")
                return act(f"optional {double}, beaver" if optional else f"{double}, beaver")
            if not can_win:
                return act(f"no {double}, take")
            return act(f"optional {double}, take" if optional else f"{double}, take")
        optional = abs(nd - dp) <= OPTIONAL_EPSILON and can_win_gammon and not jacoby_centred
        return act(f"optional {double}, pass" if optional else f"{double}, pass")
    if nd > dt:                                      # playing on beats a double/take
        if dt > dp:                                  # ND > DT > DP: the taker passes
            return act(f"too good to {double}, pass" if can_win_gammon else f"{double}, pass")
        if nd > dp:                                  # ND > DP >= DT: the taker takes, the side plays on
            return act(f"too good to {double}, take" if can_win_gammon else f"no {double}, take")
        return act(f"no {double}, beaver" if beavers else f"no {double}, take")   # DP >= ND > DT
    return act(f"too good to {double}, pass" if can_win_gammon else f"{double}, pass")   # DT >= ND > DP


@dataclass(frozen=True)
class CubeAnalysis:
    """The cube decision of the side on roll before its roll, judged at :attr:`ply`.

    Equities are the doubler's (the side on roll's), at the score: money play, points per
    game per unit of the current cube; match play, EMG, with the match winning chances in
    :attr:`mwc`.  When the side may not double, :attr:`double_take` and :attr:`double_pass`
    are None and :attr:`reason` says why.
    """

    situation: Situation
    """The position, score, cube and rules."""
    ply: int
    """The look-ahead of the probabilities (gnubg's numbering)."""
    probabilities: Probabilities
    """Cubeless probabilities of the side on roll before its roll."""
    no_double: float
    """The equity with the cube as it stands (no double now)."""
    double_take: float | None
    """The equity when the side doubles and the opponent takes (owning the cube at twice its value)."""
    double_pass: float | None
    """The equity when the side doubles and the opponent passes (money: +1)."""
    action: CubeAction
    """The proper action."""
    reason: str | None = None
    """Why the side may not double (the Crawford game, a dead cube, the opponent's cube...), or None."""
    mwc: tuple[float, float | None, float | None] | None = None
    """Match play: the match winning chances of no double, double/take, double/pass."""

    @property
    def optimal(self) -> float:
        """The equity of the proper action: no double's, unless doubling is right, then the
        taker's best answer's (double/take or double/pass, the lower)."""
        if not self.action.doubles or self.double_take is None or self.double_pass is None:
            return self.no_double
        return min(self.double_take, self.double_pass)

    def to_dict(self) -> dict[str, Any]:
        """The analysis for JSON: ``no_double``, ``double_take``, ``double_pass`` (null when
        the side may not double), ``action`` (gnubg's words), ``optimal``, ``reason``,
        ``ply``, ``probabilities``, ``cubeless_equity``, the score and cube
        (:meth:`Situation.to_dict`) and in match play ``mwc`` (the same three as chances)."""
        out: dict[str, Any] = {
            "no_double": self.no_double, "double_take": self.double_take, "double_pass": self.double_pass,
            "action": self.action.value, "optimal": self.optimal, "reason": self.reason, "ply": self.ply,
            "probabilities": probabilities_dict(self.probabilities),
            "cubeless_equity": self.probabilities.equity(), **self.situation.to_dict()}
        if self.mwc is not None:
            out["mwc"] = dict(zip(("no_double", "double_take", "double_pass"), self.mwc))
        return out

    def text(self) -> str:
        """The analysis as gnubg prints it: the probabilities, the cubeful equities with
        their differences from the proper action's, and the proper action."""
        unit = "EMG" if self.situation.is_match else "points per cube"
        lines = [f"Cube analysis at {self.ply} ply: {self.situation.describe()}",
                 f"  {probabilities_line(self.probabilities)}",
                 f"  cubeless equity {signed(self.probabilities.equity())}",
                 f"Cubeful equities ({unit}):"]
        best = self.optimal
        rows = [("No double", self.no_double, 0), ("Double, take", self.double_take, 1),
                ("Double, pass", self.double_pass, 2)]
        for i, (name, value, k) in enumerate(rows, 1):
            if value is None:
                continue
            mwc = None if self.mwc is None else self.mwc[k]
            chance = "" if mwc is None else f"  MWC {percent(mwc)}"
            diff = "" if abs(value - best) < 5e-7 else f"  ({signed(value - best)})"
            lines.append(f"  {i}. {name:<14}{signed(value)}{chance}{diff}")
        lines.append(f"Proper cube action: {self.action.value}")
        if self.reason:
            lines.append(f"  ({self.reason})")
        return "\n".join(lines)


def no_cube_decision(situation: Situation) -> str | None:
    """Why the side on roll has no cube decision now, in words, or None: the position's text
    says the dice are rolled, or that a resignation waits for an answer (the decision then is
    the answer, not the cube).  ``bgfast cube`` refuses such a position; ``bgfast eval``
    values it with no cube action."""
    m = situation.match
    if m.resigned:
        return (f"a resignation is offered (Match ID {m.match_id()}): player {m.turn} is to answer it, not to "
                "double; bgfast eval gives the chances that answer turns on")
    if m.dice != (0, 0):
        return (f"the dice are rolled ({m.dice[0]}{m.dice[1]}): the cube decision comes before the roll; give the "
                "position before it")
    return None


def _check_before_roll(situation: Situation) -> None:
    """:raises InvalidAnalysisError: no cube decision now (:func:`no_cube_decision`)."""
    reason = no_cube_decision(situation)
    if reason is not None:
        raise InvalidAnalysisError(reason)


def _double_problem(situation: Situation) -> str | None:
    """Why the side on roll may not double now (before its roll), or None."""
    m = situation.match
    before = dataclasses.replace(m, double_offered=False, turn=m.player_on_roll, dice=(0, 0))
    try:
        before.double(situation.me, situation.rules)
    except IllegalCubeActionError as exc:
        return str(exc)
    return None


def judge_cube(situation: Situation, probabilities: object, ply: int = 0,
               decision: cube_math.CubeDecision | None = None) -> CubeAnalysis:
    """The cube decision of the side on roll in ``situation`` from its cubeless
    probabilities before the roll (``ply`` only labels them): the equities of
    :func:`bgfast.cube.decide`, or of ``decision`` when given (a look-ahead's, such as
    :meth:`Judge.cube_decision <bgfast.analysis.judge.Judge.cube_decision>`: money per
    current cube, match play MWC), and :func:`proper_action`.

    With a double pending (a Match ID that says so) the decision is the one just made:
    the same equities, whose proper answer is :attr:`CubeAction.response`.

    >>> s = Situation.read("4HPwATDgc/ABMA")
    >>> judge_cube(s, (0.72, 0.0, 0.0, 0.0, 0.0)).action.value
    'Double, take'

    :raises InvalidAnalysisError: the dice are rolled (the cube decision comes before them).
    :raises ValueError: not five probabilities.
    """
    p = Probabilities.of(probabilities)
    m, rules = situation.match, situation.rules
    _check_before_roll(situation)
    problem = _double_problem(situation)
    redouble = m.cube_owner == situation.me
    if problem is not None:
        value = situation.cubeful_value(p) if decision is None else decision.no_double
        dead = situation.is_match and m.cube_owner in (-1, situation.me)
        action = (CubeAction.NEVER_REDOUBLE_TAKE if redouble else CubeAction.NEVER_DOUBLE_TAKE) if dead \
            else CubeAction.NOT_AVAILABLE
        return CubeAnalysis(situation, ply, p, situation.equity(value), None, None, action, problem,
                            (value, None, None) if situation.is_match else None)
    aways = situation.aways() if situation.is_match else (0, 0)
    if decision is None:
        decision = cube_math.decide(p, owner=m.cube_owner, doubler=situation.me, cube=m.cube_value,
                                    x=situation.cube_efficiency, jacoby=m.jacoby, beaver=rules.beaver,
                                    max_cube=rules.max_cube, met=situation.met, away=aways[0], opp_away=aways[1],
                                    post_crawford=m.is_post_crawford)
    nd, dt, dp = (situation.equity(v) for v in (decision.no_double, decision.double_take, decision.double_pass))
    action = proper_action(nd, dt, dp, redouble=redouble, can_win_gammon=p.win_gammon > 0.0, can_win=p.win > 0.0,
                           beaver=m.is_money and rules.beaver,
                           jacoby_centred=m.is_money and m.jacoby and m.cube_owner == -1)
    chances = (decision.no_double, decision.double_take, decision.double_pass) if situation.is_match else None
    return CubeAnalysis(situation, ply, p, nd, dt, dp, action, None, chances)


def analyse_cube(position: Position | str, judge: Judge | str = DEFAULT_JUDGE, *, ply: int | None = None,
                 rules: Rules | None = None, met: MatchEquityTable | str | None = None) -> CubeAnalysis:
    """The cube decision of the side on roll in ``position`` (a Position ID, ``PositionID:MatchID``
    or XGID), before its roll, judged by ``judge`` (a :class:`Judge`, or a bot spec) at ``ply``
    (None: a bot spec's own ``cube_ply``, 1 for the neural bot; see :meth:`Judge.of`).

    >>> analyse_cube("4HPwATDgc/ABMA").action.value      # the opening: nobody doubles
    'No double, take'

    :raises InvalidPositionError, InvalidMatchIdError: a malformed position.
    :raises InvalidAnalysisError: a finished game, the dice already rolled, a resignation offered, a bot
        without probabilities.
    :raises ValueError: a ply the bot does not have (its own error).
    """
    judge = Judge.resolve(judge, ply, cube=True)
    situation = Situation.read(position, rules=rules, met=met, cube_efficiency=judge.cube_efficiency)
    _check_before_roll(situation)          # before the evaluation, which may take a while
    return judge_situation_cube(situation, judge)


def judge_situation_cube(situation: Situation, judge: Judge) -> CubeAnalysis:
    """The cube decision of the side on roll in ``situation``, before its roll, as ``judge``
    makes it at its ply: by its cubeful look-ahead (:meth:`Judge.cube_decision`) where it has
    one at that ply, else by the cube math of :func:`judge_cube` on its probabilities.  One
    home for ``bgfast cube`` and the cube decisions of ``bgfast analyse``.

    :raises InvalidAnalysisError: the dice are rolled.
    :raises ValueError: a ply the bot does not have (its own error).
    """
    ahead = judge.cube_decision(situation)
    if ahead is not None:
        decision, p = ahead
        return judge_cube(situation, p, judge.ply, decision)
    return judge_cube(situation, judge.probabilities(situation.position), judge.ply)
