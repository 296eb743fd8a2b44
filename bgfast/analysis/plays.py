"""The plays of a roll ranked by equity at the score, each with its difference from the
best (``bgfast hint``, as gnubg's ``hint``).

A play ranked at ``N`` ply follows gnubg's numbering: the position after it, with the
opponent on roll, is evaluated at ``N`` plies from the opponent's view
(``evaluate(after.swap_sides(), plies=N)``: 0 ply the net's value of that position, 1 ply
the average over the opponent's 21 rolls of its best 0-ply reply) and flipped to the
mover's view (:meth:`Judge.after_play <bgfast.analysis.judge.Judge.after_play>`).

The play's equity is the value the neural bot's own checker play maximizes, so that the
best play of a hint is the play the bot makes (at 0 ply, and deeper among the plays its
move filters keep; at 1 ply the bot also weighs each play's 0-ply value, its
``zero_ply_weight``, where the hint ranks by the 1-ply value alone):

* match play: the mover's cubeful match winning chance after the play, its opponent on roll
  taking its proper cube action first where it may double, as gnubg values a play
  (:meth:`Situation.play_value <bgfast.analysis.situation.Situation.play_value>`), printed
  as EMG;
* money play: the cubeless equity, in points per game per unit of the current cube.  Not
  Janowski's cubeful equity (gnubg's choice): the cube stands the same after every play,
  and Janowski's formula on a bare evaluation would reorder the plays by their gammon rates
  alone (with the Jacoby rule and a centred cube it even drops the gammons from its dead
  part), which is no better judgment of a play than the net's own equity, and would make
  the hint disagree with the bot's play in about one decision in twelve.

>>> r = rank_plays("4HPwATDgc/ABMA", "31")
>>> str(r.plays[0].move), r.plays[0].difference
('8/5 6/5', 0.0)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bgfast.analysis.judge import DEFAULT_JUDGE, Judge
from bgfast.analysis.report import percent, probabilities_dict, probabilities_line, signed
from bgfast.analysis.situation import Situation
from bgfast.dice import Dice
from bgfast.errors import InvalidAnalysisError, shortened
from bgfast.match import Rules
from bgfast.met import MatchEquityTable
from bgfast.position import Move, Position
from bgfast.probabilities import Probabilities

__all__ = ["PlayRanking", "RankedPlay", "rank_plays", "rank_situation"]


@dataclass(frozen=True)
class RankedPlay:
    """One play judged: the mover's view after it, before the opponent's roll."""

    move: Move
    """The play (``str(move)`` is gnubg's notation; ``move.position`` the position after it,
    still from the mover's view)."""
    probabilities: Probabilities
    """Cubeless probabilities of the mover after the play."""
    equity: float
    """The mover's equity after the play at the score: money play, the cubeless equity in
    points per game per unit of the current cube; match play, the cubeful EMG."""
    mwc: float | None
    """Match play: the mover's cubeful match winning chance after the play; None in money play."""
    difference: float
    """``equity`` minus the best play's (0 for the best, negative for the others)."""

    def to_dict(self) -> dict[str, Any]:
        """The play for JSON: ``move``, ``position_id`` (after the play, the mover's view),
        ``equity``, ``difference``, ``cubeless_equity``, ``probabilities``, and ``mwc`` in match play."""
        out: dict[str, Any] = {
            "move": str(self.move), "position_id": self.move.position.id(), "equity": self.equity,
            "difference": self.difference, "cubeless_equity": self.probabilities.equity(),
            "probabilities": probabilities_dict(self.probabilities)}
        if self.mwc is not None:
            out["mwc"] = self.mwc
        return out


@dataclass(frozen=True)
class PlayRanking:
    """The legal plays of :attr:`dice`, best first, judged at :attr:`ply`."""

    situation: Situation
    """The position (the mover on roll), score, cube and rules."""
    dice: Dice
    """The roll played."""
    ply: int
    """The look-ahead (gnubg's numbering; see the module's docstring)."""
    plays: tuple[RankedPlay, ...]
    """Every distinct play, best first (equal equities by cubeless equity, then in notation order)."""

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        """The ranking for JSON: ``plays`` (the ``top`` best, or all: :meth:`RankedPlay.to_dict`),
        ``dice``, ``ply``, ``position_id``, ``count`` (all the plays) and the score and cube."""
        return {"position_id": self.situation.position.id(), "dice": str(self.dice), "ply": self.ply,
                "count": len(self.plays), **self.situation.to_dict(),
                "plays": [p.to_dict() for p in self.plays[:top]]}

    def text(self, top: int | None = None) -> str:
        """The ``top`` best plays (all: None) as gnubg's ``hint`` lists them: rank, play,
        equity and difference from the best, then the probabilities."""
        s = self.situation
        unit = "cubeful EMG" if s.is_match else "cubeless equity, points per cube"
        lines = [f"Position {s.position.id()}, {s.describe()}",
                 f"{len(self.plays)} play{'' if len(self.plays) == 1 else 's'} of {self.dice} at {self.ply} ply "
                 f"({unit}):"]
        shown = self.plays[:top]
        width = max((len(p.move.describe()) for p in shown), default=0)
        for i, p in enumerate(shown, 1):
            diff = "" if i == 1 else f" ({signed(p.difference)})"
            chance = f"  MWC {percent(p.mwc)}" if p.mwc is not None else ""
            lines.append(f"{i:>4}. {p.move.describe():<{width}}  {signed(p.equity)}{diff}{chance}")
            lines.append(f"      {probabilities_line(p.probabilities)}")
        return "\n".join(lines)


def rank_plays(position: Position | str, dice: Dice | str | tuple[int, int] | None = None,
               judge: Judge | str = DEFAULT_JUDGE, *, ply: int | None = None, rules: Rules | None = None,
               met: MatchEquityTable | str | None = None) -> PlayRanking:
    """Rank every legal play of ``dice`` in ``position`` (a Position ID, ``PositionID:MatchID``
    or XGID; the side on roll moves) by the mover's equity at the score after it, judged by
    ``judge`` (a :class:`Judge` or a bot spec; default the neural bot) at ``ply`` (None: the
    bot's own); see the module's docstring for what a play at ``N`` ply is.  ``dice`` may be
    left out when the text says which were rolled.

    :raises InvalidPositionError, InvalidMatchIdError: a malformed position.
    :raises InvalidDiceError: dice that do not parse, or that the match state does not allow
        (other dice than it says were rolled, a double pending).
    :raises InvalidAnalysisError: a finished game or match, no dice, a bot without probabilities.
    :raises ValueError: a ply the bot does not have (its own error).
    """
    judge = Judge.resolve(judge, ply)
    situation = Situation.read(position, rules=rules, met=met, cube_efficiency=judge.cube_efficiency)
    if dice is None:
        if situation.match.dice == (0, 0):
            shown = shortened(position) if isinstance(position, str) else situation.position.id()
            raise InvalidAnalysisError(f"give the dice: {shown!r} does not say which were rolled")
        dice = situation.match.dice
    return rank_situation(situation, situation.match.check_roll(dice), judge)


def rank_situation(situation: Situation, roll: Dice, judge: Judge) -> PlayRanking:
    """Rank every legal play of ``roll`` in ``situation`` (the side on roll moves) as
    :func:`rank_plays` does, for a caller that holds the situation already (``bgfast
    analyse``, a roll's luck): no text is read and the roll is not checked against the match state.

    :raises ValueError: a ply the bot does not have (its own error).
    """
    judged: list[tuple[Move, Probabilities, float, float | None]] = []
    for move in situation.position.legal_moves(roll.high, roll.low):
        p = judge.after_play(move.position)
        if situation.is_match:
            value = situation.play_value(p)
            judged.append((move, p, situation.equity(value), value))
        else:
            judged.append((move, p, p.equity(), None))
    judged.sort(key=lambda j: (-j[2], -j[1].equity(), str(j[0])))   # equal values by cubeless equity, as the bot
    best = judged[0][2]
    plays = tuple(RankedPlay(m, p, eq, mwc, eq - best) for m, p, eq, mwc in judged)
    return PlayRanking(situation, roll, judge.ply, plays)
