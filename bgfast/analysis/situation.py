"""Where a position is judged: the position, its match state, the rules and the match
equity table, and the one way of valuing probabilities at that score.

Every judgment of :mod:`bgfast.analysis` is from the view of the side on roll (player
``match.player_on_roll``, side 1 of the board).  Probabilities go in cubeless, before the
roll, as an evaluator gives them; :meth:`Situation.cubeful_value` turns them into the
side's cubeful value with the cube as it stands, by the cube math of :mod:`bgfast.cube`
(one implementation of each formula):

* money play: Janowski's cubeful equity (:func:`bgfast.cube.money_equity`), in points per
  game per unit of the current cube;
* match play: the cubeful match winning chance (:func:`bgfast.cube.cubeful_mwc`), 0 to 1,
  which :meth:`Situation.equity` turns into EMG (normalised money-game equity: +1 is
  winning the current cube for sure, -1 losing it; gnubg's ``mwc2eq``).

A play's value in match play is :meth:`Situation.play_value`: after the play its opponent is
on roll, and may double first.

>>> s = Situation.read("4HPwATDgc/ABMA:MAHgAAAAAAAE")     # 0-0 in a 7-point match
>>> s.is_match, s.aways(), s.describe()
(True, (7, 7), '7-point match, score 0-0 (the side on roll first), cube 1 centred (player 0 on roll)')
>>> abs(round(s.equity(0.5), 6))
0.0
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bgfast import cube as cube_math
from bgfast.dice import Dice
from bgfast.errors import InvalidAnalysisError
from bgfast.formats.text import format_position, read_position
from bgfast.match import GameState, MatchState, Rules
from bgfast.met import DEFAULT_MET, MatchEquityTable
from bgfast.position import Position

__all__ = ["Situation"]


@dataclass(frozen=True)
class Situation:
    """A position to judge with everything that values it: the match state, the rules, the
    match equity table (match play) and Janowski's cube efficiency."""

    position: Position
    """The position, from the view of the side on roll."""
    match: MatchState
    """The match state (money play: length 0); the side on roll is ``match.player_on_roll``."""
    rules: Rules
    """The rules: the maximum cube, and in money play the Jacoby and beaver rules."""
    met: MatchEquityTable | None
    """The match equity table of match play; None in money play."""
    cube_efficiency: float = cube_math.DEFAULT_CUBE_EFFICIENCY
    """Janowski's ``x``, 0 (dead cube) to 1 (fully live)."""

    @classmethod
    def read(cls, position: Position | str, *, rules: Rules | None = None,
             met: MatchEquityTable | str | None = None,
             cube_efficiency: float = cube_math.DEFAULT_CUBE_EFFICIENCY) -> Situation:
        """The situation a position's text states: a Position ID (money play, the cube
        centred, the Jacoby rule as ``rules`` say), ``PositionID:MatchID`` or an XGID
        (:func:`bgfast.formats.text.read_position`); the rules the text states go over ``rules``.

        :param met: the table of match play, or its name (default Kazaross-XG2).
        :raises InvalidPositionError: a malformed position.
        :raises InvalidMatchIdError: a malformed Match ID or XGID match field.
        :raises InvalidAnalysisError: a finished game or match, a board no game reaches
            (:meth:`Position.unreachable`), or a match longer than the table.
        :raises InvalidMetError: an unknown table.
        """
        text = read_position(position)
        rules = text.rules(rules)
        match = text.match or MatchState(jacoby=rules.jacoby)
        pos = text.position
        unreachable = pos.unreachable()
        if unreachable is not None:
            raise InvalidAnalysisError(f"{pos.id()!r} {unreachable}")
        if pos.is_over():
            raise InvalidAnalysisError(f"the game in {pos.id()!r} is over: there is nothing to judge")
        if match.game_state != GameState.PLAYING:
            raise InvalidAnalysisError(f"no game is being played ({match.game_state.describe()}, Match ID "
                                       f"{match.match_id()}): there is nothing to judge")
        table = None
        if match.length:
            table = met if isinstance(met, MatchEquityTable) else MatchEquityTable.load(met or DEFAULT_MET)
            table.check_length(match.length, InvalidAnalysisError)
        return cls(pos, match, rules, table, cube_efficiency)

    @property
    def me(self) -> int:
        """The player on roll (0 or 1), whose view every value takes."""
        return self.match.player_on_roll

    @property
    def is_match(self) -> bool:
        """Match play (values are match winning chances, shown as EMG)."""
        return self.met is not None

    def aways(self) -> tuple[int, int]:
        """Points to go of the side on roll, then of its opponent (match play).

        :raises ValueError: money play.
        """
        return self.match.away(self.me), self.match.away(1 - self.me)

    def cubeful_value(self, probabilities: object) -> float:
        """The side on roll's cubeful value with the cube as it stands, from its cubeless
        probabilities ``probabilities`` (its view, before a roll; a play is valued by
        :meth:`play_value`): money play, Janowski's equity in points per game per unit of
        the current cube; match play, the cubeful match winning chance (0 to 1; in the
        Crawford game the cube is dead for both sides).

        :raises ValueError: not five numbers.
        """
        m = self.match
        if self.met is None:
            return cube_math.money_equity(probabilities, owner=m.cube_owner, player=self.me,
                                          x=self.cube_efficiency, jacoby=m.jacoby, cube=m.cube_value,
                                          max_cube=self.rules.max_cube)
        a, b = self.aways()
        return cube_math.cubeful_mwc(probabilities, self.met, a, b, cube=m.cube_value, owner=m.cube_owner,
                                     player=self.me, x=self.cube_efficiency, crawford=m.is_crawford_game,
                                     max_cube=self.rules.max_cube)

    def play_value(self, probabilities: object) -> float:
        """Match play: the value of a play of the side on roll, from its probabilities after the
        play (its view): its match winning chance with its opponent, on roll next, taking its
        proper cube action where it may double (:func:`bgfast.cube.play_mwc`: what the neural
        bot's match checker play maximizes).

        :raises ValueError: not five numbers.
        :raises InvalidAnalysisError: money play (a play is ranked by its cubeless equity there).
        """
        if self.met is None:
            raise InvalidAnalysisError("money play ranks plays by cubeless equity: there is no play value to take")
        m = self.match
        a, b = self.aways()
        return cube_math.play_mwc(probabilities, self.met, a, b, cube=m.cube_value, owner=m.cube_owner,
                                  player=self.me, x=self.cube_efficiency, crawford=m.is_crawford_game,
                                  max_cube=self.rules.max_cube)

    def equity(self, value: float) -> float:
        """A value of :meth:`cubeful_value` as an equity: money play, the value itself
        (points per game per unit of the current cube); match play, the match winning
        chance ``value`` as EMG at this score and cube (:meth:`MatchEquityTable.mwc_to_emg`)."""
        if self.met is None:
            return value
        a, b = self.aways()
        return self.met.mwc_to_emg(value, a, b, self.match.cube_value)

    def id(self, dice: Dice | None = None) -> str:
        """``PositionID:MatchID``: what ``bgfast eval``, ``hint`` and ``cube`` read back; with
        ``dice``, a Match ID that says they were rolled (``hint`` then needs no dice of its own)."""
        match = self.match if dice is None else dataclasses.replace(self.match, dice=(dice.high, dice.low))
        return format_position(self.position, match)

    def describe(self) -> str:
        """The score and the cube in one line, the side on roll first (:meth:`MatchState.describe`)."""
        return self.match.describe(dice=False)

    def to_dict(self) -> dict[str, Any]:
        """The score and the cube for JSON, from the side on roll's view: ``length`` (0:
        money), ``score`` (the side on roll's, its opponent's), ``cube``, ``cube_owner``
        (``"centred"``, ``"on roll"`` or ``"opponent"``), ``crawford``, ``jacoby``."""
        m = self.match
        owner = "centred" if m.cube_owner < 0 else "on roll" if m.cube_owner == self.me else "opponent"
        return {"length": m.length, "score": [m.score[self.me], m.score[1 - self.me]], "cube": m.cube_value,
                "cube_owner": owner, "crawford": m.is_crawford_game, "jacoby": bool(m.is_money and m.jacoby)}
