"""A whole match judged, as GNU Backgammon's ``analyse match`` and ``show statistics
match`` (``bgfast analyse FILE``).

Every action of a match read from a ``.mat`` or SGF file (:func:`read_match_file`) is
judged at the score it was made at, by a :class:`~bgfast.analysis.judge.Judge`, from the
acting player's view (checker plays at the judge's ply, cube decisions at its cube ply):

* a checker play: the plays of the roll ranked as ``bgfast hint`` ranks them
  (:func:`~bgfast.analysis.plays.rank_situation`); its error is the best play's equity
  less the chosen one's.  A roll with one legal play (or none) is *forced*: listed, not counted;
* a cube decision: before each roll of a player who may double (not on the opening roll),
  "No double" when the player rolled; a double; the taker's take (a beaver counts as a take)
  or pass.  The equities are ``bgfast cube``'s
  (:func:`~bgfast.analysis.cube_action.judge_situation_cube`: the judge's cubeful
  look-ahead at the cube ply, the cube formulas at 0 ply), the doubler's view: no
  double's error is the proper action's equity less no double's; a
  double's, the proper action's less double/take's or double/pass's (the lower); a take's,
  double/take's less double/pass's when that is positive, a pass's the reverse.  No-double
  decisions count in the cube error rate only when close (:func:`~bgfast.analysis.error_rates.is_close`);
* the luck of each roll (:func:`~bgfast.analysis.luck.roll_luck`).

Units, as gnubg's: an error or a luck is *normalised* (money play, points per unit of the
cube in play; match play, EMG at the score and cube) with its *unnormalised* cost beside it
(money: times the cube; match: the match winning chance).  Per player
(:class:`PlayerStatistics`): error rates per unforced move and per close or actual cube
decision, times 1000 (mEMG in match play, millipoints per cube in money play), the overall
rate per decision, the marks and ratings of :mod:`bgfast.analysis.error_rates`, the luck
total and rate, and the luck-adjusted result: the actual result (money: points won; match:
the match winning chance at the end less at the start) less the player's luck cost plus the
opponent's (gnubg's "Luck adjusted result").

>>> from bgfast.formats.match_file import MatchReplay
>>> from bgfast.match import Rules
>>> replay = MatchReplay(length=1, rules=Rules(), source="example")
>>> replay.start_game("1")
>>> replay.roll("1", 0, "31", "24/21 24/23")        # 8/5 6/5 is the play
>>> replay.roll("2", 1, "65", "24/13")
>>> replay.resign("3", winner=1, points=1)
>>> analysis = analyse_match(replay.finish("3", players=("alice", "bob")))
>>> first = analysis.decisions[0]
>>> first.chosen, first.best, first.error > 0.08
('24/23 24/21', '8/5 6/5', True)
>>> analysis.players[0].unforced_moves, analysis.players[0].checker_error == first.error
(1, True)
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bgfast.analysis.cube_action import CubeAnalysis, judge_situation_cube
from bgfast.analysis.error_rates import (
    error_rate,
    is_close,
    luck_mark,
    luck_rating,
    rating,
    skill_mark,
)
from bgfast.analysis.judge import DEFAULT_JUDGE, Judge
from bgfast.analysis.luck import LUCK_PLY, roll_luck
from bgfast.analysis.plays import rank_situation
from bgfast.analysis.report import signed
from bgfast.analysis.situation import Situation
from bgfast.errors import InvalidAnalysisError
from bgfast.formats.mat import mat_move_numbers
from bgfast.formats.match_file import MatchFile
from bgfast.game import Turn
from bgfast.match import MatchState, Rules
from bgfast.met import DEFAULT_MET, MatchEquityTable
from bgfast.position import NO_PLAY, starting_position

__all__ = ["Decision", "MatchAnalysis", "PlayerStatistics", "analyse_file", "analyse_match",
           "count_actions", "player_statistics", "read_match_file"]

CHECKER, CUBE, RESPONSE = "checker", "cube", "response"
"""The kinds of a decision: a checker play, a double or no double, a take or pass."""


@dataclass(frozen=True)
class Decision:
    """One decision of a match judged, from the acting player's view."""

    game: int
    """The game, 1-based."""
    move: int
    """The move number as a ``.mat`` file numbers the game's rows (``10)``: the row holding
    the action, player 0's on its left and player 1's on its right; gnubg's "move 10"),
    for a file of any format; with :attr:`player` it names the action."""
    player: int
    """Who decided, 0 or 1."""
    kind: str
    """``"checker"`` (a roll and its play), ``"cube"`` (double or no double), ``"response"``
    (take, pass or beaver)."""
    dice: str | None
    """The roll of a checker play (``"31"``), else None."""
    chosen: str
    """What the player did: the play in gnubg's notation (``""`` when none could be made),
    ``"Double"``/``"No double"``, ``"Take"``/``"Pass"``/``"Beaver"``."""
    best: str
    """What the judge would have done, in the same words (for a cube decision, the proper
    action's double or no double, or take or pass)."""
    error: float
    """Normalised equity given up against the best, >= 0 (see the module's docstring)."""
    cost: float
    """``error`` unnormalised: money, times the cube; match, the match winning chance."""
    luck: float | None = None
    """A checker play's roll: its luck, normalised (None for cube decisions)."""
    luck_cost: float | None = None
    """``luck`` unnormalised."""
    forced: bool = False
    """A checker play with one legal play or none: not counted in the checker error rate."""
    close: bool = True
    """A cube decision that counts in the cube error rate (every double, take and pass;
    a no double when close)."""
    position: str = ""
    """Where it was decided, ``PositionID:MatchID`` before the roll (the side to act on roll;
    a take or pass, the doubler's): ``bgfast hint ID DICE`` or ``bgfast cube ID`` judges it again."""

    @property
    def mark(self) -> str | None:
        """gnubg's mark of the decision: ``"doubtful"``, ``"bad"``, ``"very bad"`` or None."""
        return skill_mark(self.error)

    @property
    def luck_mark(self) -> str | None:
        """gnubg's mark of the roll: ``"very lucky"`` ... ``"very unlucky"``, or None."""
        return None if self.luck is None else luck_mark(self.luck)

    def to_dict(self) -> dict[str, Any]:
        """The decision for JSON: the fields, and ``mark`` and ``luck_mark``."""
        return {**dataclasses.asdict(self), "mark": self.mark, "luck_mark": self.luck_mark}


@dataclass(frozen=True)
class PlayerStatistics:
    """One player's figures, gnubg's "show statistics match" (see the module's docstring)."""

    name: str
    total_moves: int
    """Rolls the player played (forced ones too)."""
    unforced_moves: int
    """Rolls with more than one legal play."""
    checker_marks: dict[str, int]
    """Checker plays by mark: ``"unmarked"``, ``"doubtful"``, ``"bad"``, ``"very bad"``."""
    checker_error: float
    """Total normalised error of the checker plays."""
    checker_cost: float
    """Its unnormalised counterpart."""
    cube_decisions: int
    """Every cube decision: no doubles where a double was possible, doubles, takes, passes."""
    close_cube_decisions: int
    """Close or actual cube decisions: those counted in the cube error rate."""
    doubles: int
    takes: int
    passes: int
    missed_doubles: int
    wrong_doubles: int
    wrong_takes: int
    wrong_passes: int
    cube_marks: dict[str, int]
    """Cube decisions with an error, by mark (``"doubtful"``, ``"bad"``, ``"very bad"``)."""
    cube_error: float
    cube_cost: float
    luck_total: float
    """Total normalised luck of the player's rolls."""
    luck_cost: float
    luck_marks: dict[str, int]
    """Rolls by mark: ``"very lucky"``, ``"lucky"``, ``"unmarked"``, ``"unlucky"``, ``"very unlucky"``."""
    actual_result: float
    """Money: points won; match: the match winning chance at the end less at the start."""
    luck_adjusted_result: float
    """``actual_result`` less the player's luck cost plus the opponent's."""

    @property
    def checker_error_rate(self) -> float | None:
        """Checker error per unforced move times 1000; None without one."""
        return error_rate(self.checker_error, self.unforced_moves)

    @property
    def cube_error_rate(self) -> float | None:
        """Cube error per close or actual cube decision times 1000; None without one."""
        return error_rate(self.cube_error, self.close_cube_decisions)

    @property
    def decisions(self) -> int:
        """Unforced moves and close or actual cube decisions."""
        return self.unforced_moves + self.close_cube_decisions

    @property
    def error_rate(self) -> float | None:
        """All errors per decision (:attr:`decisions`) times 1000; None without one."""
        return error_rate(self.checker_error + self.cube_error, self.decisions)

    @property
    def rating(self) -> str | None:
        """gnubg's overall rating words of :attr:`error_rate`; None without decisions."""
        rate = self.error_rate
        return None if rate is None else rating(rate / 1000.0)

    @property
    def checker_rating(self) -> str | None:
        rate = self.checker_error_rate
        return None if rate is None else rating(rate / 1000.0)

    @property
    def cube_rating(self) -> str | None:
        rate = self.cube_error_rate
        return None if rate is None else rating(rate / 1000.0)

    @property
    def luck_rate(self) -> float | None:
        """Luck per move (every roll) times 1000; None without a roll."""
        return error_rate(self.luck_total, self.total_moves)

    @property
    def luck_rating(self) -> str | None:
        """gnubg's luck rating words of :attr:`luck_rate`."""
        rate = self.luck_rate
        return None if rate is None else luck_rating(rate / 1000.0)

    def to_dict(self) -> dict[str, Any]:
        """The figures for JSON: the fields and the rates and ratings."""
        out = dataclasses.asdict(self)
        for name in ("checker_error_rate", "cube_error_rate", "error_rate", "rating", "checker_rating",
                     "cube_rating", "luck_rate", "luck_rating", "decisions"):
            out[name] = getattr(self, name)
        return out


def player_statistics(decisions: Sequence[Decision], player: int, name: str, actual_result: float, *,
                      result_decisions: Sequence[Decision] | None = None) -> PlayerStatistics:
    """``player``'s figures from the match's ``decisions`` (both players': the opponent's
    luck enters the luck-adjusted result) and the player's ``actual_result``; the luck of
    ``result_decisions`` (default ``decisions``) alone enters the luck-adjusted result: those
    of the games the actual result is of (not an unfinished game's)."""
    mine = [d for d in decisions if d.player == player]
    moves = [d for d in mine if d.kind == CHECKER]
    unforced = [d for d in moves if not d.forced]
    cube = [d for d in mine if d.kind != CHECKER]
    counted = [d for d in cube if d.close]
    checker_marks = {"unmarked": 0, "doubtful": 0, "bad": 0, "very bad": 0}
    for d in moves:
        checker_marks[d.mark or "unmarked"] += 1
    cube_marks = {"doubtful": 0, "bad": 0, "very bad": 0}
    for d in cube:
        if d.mark:
            cube_marks[d.mark] += 1
    luck_marks = {"very lucky": 0, "lucky": 0, "unmarked": 0, "unlucky": 0, "very unlucky": 0}
    for d in moves:
        luck_marks[d.luck_mark or "unmarked"] += 1
    luck_cost = sum(d.luck_cost or 0.0 for d in moves)
    settled = decisions if result_decisions is None else result_decisions
    my_settled_luck = sum(d.luck_cost or 0.0 for d in settled if d.player == player and d.kind == CHECKER)
    their_luck = sum(d.luck_cost or 0.0 for d in settled if d.player != player and d.kind == CHECKER)
    return PlayerStatistics(
        name=name, total_moves=len(moves), unforced_moves=len(unforced), checker_marks=checker_marks,
        checker_error=sum(d.error for d in unforced), checker_cost=sum(d.cost for d in unforced),
        cube_decisions=len(cube), close_cube_decisions=len(counted),
        doubles=sum(d.chosen == "Double" for d in cube), takes=sum(d.chosen in ("Take", "Beaver") for d in cube),
        passes=sum(d.chosen == "Pass" for d in cube),
        missed_doubles=sum(d.chosen == "No double" and d.error > 0 for d in cube),
        wrong_doubles=sum(d.chosen == "Double" and d.error > 0 for d in cube),
        wrong_takes=sum(d.chosen in ("Take", "Beaver") and d.error > 0 for d in cube),
        wrong_passes=sum(d.chosen == "Pass" and d.error > 0 for d in cube),
        cube_marks=cube_marks, cube_error=sum(d.error for d in counted), cube_cost=sum(d.cost for d in counted),
        luck_total=sum(d.luck or 0.0 for d in moves), luck_cost=luck_cost, luck_marks=luck_marks,
        actual_result=actual_result, luck_adjusted_result=actual_result - my_settled_luck + their_luck)


@dataclass(frozen=True)
class MatchAnalysis:
    """A match judged: each decision and each player's figures."""

    match: MatchFile
    """The match as read."""
    judge: str
    """The judge's bot."""
    ply: int
    """The look-ahead of the checker plays (luck: :data:`~bgfast.analysis.luck.LUCK_PLY`)."""
    cube_ply: int
    """The look-ahead of the cube decisions."""
    decisions: tuple[Decision, ...]
    """Every decision, in the order made."""
    players: tuple[PlayerStatistics, PlayerStatistics]
    """Player 0's and player 1's figures."""
    games: int
    """Games judged (all of the match's, or those before an interruption)."""
    interrupted: bool = False
    """Stopped early (Ctrl-C): the figures are of the games judged."""
    unfinished: bool = False
    """The last game judged is one the file stops in the middle of (a match in progress):
    its decisions and luck are counted, but not in the actual and luck-adjusted results,
    which are of the finished games."""

    @property
    def length(self) -> int:
        """The match length, 0 = money play."""
        return self.match.history.record.length

    def to_dict(self) -> dict[str, Any]:
        """The analysis for JSON: ``length``, ``judge``, ``ply``, ``cube_ply``, ``luck_ply``, ``unit``
        (``"EMG"`` or ``"points per cube"``), ``games``, ``interrupted``, ``players``
        (:meth:`PlayerStatistics.to_dict`) and ``decisions`` (:meth:`Decision.to_dict`)."""
        return {"length": self.length, "judge": self.judge, "ply": self.ply, "cube_ply": self.cube_ply,
                "luck_ply": LUCK_PLY,
                "unit": "EMG" if self.length else "points per cube", "games": self.games,
                "interrupted": self.interrupted, "unfinished": self.unfinished,
                "players": [p.to_dict() for p in self.players],
                "decisions": [d.to_dict() for d in self.decisions]}

    def text(self) -> str:
        """The figures laid out as gnubg's ``show statistics match``, then the marked decisions."""
        match_play = bool(self.length)
        total = "EMG (MWC)" if match_play else "EMG (Points)"
        rate = "mEMG (MWC)" if match_play else "mEMG (Points)"
        a, b = self.players

        def cost(value: float) -> str:
            return f"({signed(100.0 * value, width=7)}%)" if match_play else f"({signed(value, width=7)})"

        def row(label: str, left: object, right: object) -> str:
            return f"{label:<40} {str(left):<24} {str(right)}"

        def counts(label: str, get: Callable[[PlayerStatistics], int]) -> str:
            return row(label, f"{get(a):3d}", f"{get(b):3d}")

        def total_row(label: str, get: Callable[[PlayerStatistics], tuple[float, float]]) -> str:
            return row(label, *(f"{signed(-n, width=8)} {cost(-u)}" for n, u in (get(a), get(b))))

        def rate_row(label: str, get: Callable[[PlayerStatistics], tuple[float | None, float, int]]) -> str:
            cells = []
            for value, unnormalised, n in (get(a), get(b)):
                cells.append("n/a" if value is None else f"{signed(-value, decimals=1, width=8)} {cost(-unnormalised / n)}")
            return row(label, *cells)

        def words(label: str, get: Callable[[PlayerStatistics], str | None]) -> str:
            return row(label, get(a) or "n/a", get(b) or "n/a")

        where = (f"{self.length}-point match" if match_play else "money play")
        games = f"{self.games} game{'s' if self.games != 1 else ''}"
        if self.unfinished:
            games += ", the last unfinished" if self.games > 1 else ", unfinished"
        lines = [f"Analysis of {where} ({games}), judged by "
                 f"{self.judge} at {self.ply} ply (cube decisions at {self.cube_ply} ply, luck at {LUCK_PLY} ply)"
                 + (": interrupted, the games judged so far" if self.interrupted else ""), "",
                 row("Player", a.name, b.name), "", "Chequerplay statistics", "",
                 counts("Total moves", lambda p: p.total_moves),
                 counts("Unforced moves", lambda p: p.unforced_moves),
                 counts("Unmarked moves", lambda p: p.checker_marks["unmarked"]),
                 counts("Moves marked doubtful", lambda p: p.checker_marks["doubtful"]),
                 counts("Moves marked bad", lambda p: p.checker_marks["bad"]),
                 counts("Moves marked very bad", lambda p: p.checker_marks["very bad"]),
                 total_row(f"Error total {total}", lambda p: (p.checker_error, p.checker_cost)),
                 rate_row(f"Error rate {rate}", lambda p: (p.checker_error_rate, p.checker_cost, p.unforced_moves)),
                 words("Chequerplay rating", lambda p: p.checker_rating), "", "Luck statistics", "",
                 counts("Rolls marked very lucky", lambda p: p.luck_marks["very lucky"]),
                 counts("Rolls marked lucky", lambda p: p.luck_marks["lucky"]),
                 counts("Rolls unmarked", lambda p: p.luck_marks["unmarked"]),
                 counts("Rolls marked unlucky", lambda p: p.luck_marks["unlucky"]),
                 counts("Rolls marked very unlucky", lambda p: p.luck_marks["very unlucky"]),
                 row(f"Luck total {total}", *(f"{signed(p.luck_total, width=8)} {cost(p.luck_cost)}" for p in (a, b))),
                 row(f"Luck rate {rate}", *("n/a" if p.luck_rate is None else
                                            f"{signed(p.luck_rate, decimals=1, width=8)} {cost(p.luck_cost / p.total_moves)}"
                                            for p in (a, b))),
                 words("Luck rating", lambda p: p.luck_rating), "", "Cube statistics", "",
                 counts("Total cube decisions", lambda p: p.cube_decisions),
                 counts("Close or actual cube decisions", lambda p: p.close_cube_decisions),
                 counts("Doubles", lambda p: p.doubles), counts("Takes", lambda p: p.takes),
                 counts("Passes", lambda p: p.passes),
                 counts("Missed doubles", lambda p: p.missed_doubles),
                 counts("Wrong doubles", lambda p: p.wrong_doubles),
                 counts("Wrong takes", lambda p: p.wrong_takes),
                 counts("Wrong passes", lambda p: p.wrong_passes),
                 total_row(f"Error total {total}", lambda p: (p.cube_error, p.cube_cost)),
                 rate_row(f"Error rate {rate}",
                          lambda p: (p.cube_error_rate, p.cube_cost, p.close_cube_decisions)),
                 words("Cube decision rating", lambda p: p.cube_rating), "", "Overall statistics", "",
                 total_row(f"Error total {total}",
                           lambda p: (p.checker_error + p.cube_error, p.checker_cost + p.cube_cost)),
                 rate_row(f"Error rate {rate}",
                          lambda p: (p.error_rate, p.checker_cost + p.cube_cost, p.decisions)),
                 words("Overall rating", lambda p: p.rating)]
        def result(value: float) -> str:
            return f"{signed(100.0 * value, decimals=2, width=7)}%" if match_play else signed(value, width=7)

        lines += [row("Actual result", result(a.actual_result), result(b.actual_result)),
                  row("Luck adjusted result", result(a.luck_adjusted_result), result(b.luck_adjusted_result))]
        if self.unfinished:
            done = self.games - 1
            lines.append("(no game has finished, so the results are nil" if not done else
                         f"(the results are of the {done} finished game{'s' if done != 1 else ''}")
            lines[-1] += "; the unfinished game's luck is in the luck figures above, not in them)"
        marked = [d for d in self.decisions if d.mark]
        if marked:
            lines += ["", f"Decisions marked doubtful or worse ({total.split()[0]} given up):"]
            for d in marked:
                what = f"{d.dice} {d.chosen or NO_PLAY}" if d.kind == CHECKER else d.chosen
                lines.append(f"  game {d.game}, move {d.move}, {self.players[d.player].name}: {what}; "
                             f"best {d.best or NO_PLAY}  {signed(-d.error)}  {d.mark}")
        return "\n".join(lines)


def read_match_file(path: str | os.PathLike[str], *, rules: Rules | None = None,
                    unfinished: bool = False) -> MatchFile:
    """A match file read and checked: SGF when its name ends in ``.sgf`` or its text starts
    with ``(;``, else Jellyfish ``.mat`` (:func:`~bgfast.formats.sgf.read_sgf`,
    :func:`~bgfast.formats.mat.read_mat`); ``unfinished``, a last game the file stops in
    the middle of is kept (:attr:`~bgfast.formats.match_file.MatchFile.unfinished`), as a
    match in progress.

    :raises InvalidMatchFileError: an unreadable file, one that does not parse, an illegal
        play or cube action (the message names the file and the line, or the game and node).
    """
    from bgfast.formats.match_file import read_text
    from bgfast.formats.mat import parse_mat
    from bgfast.formats.sgf import parse_sgf

    text, source = read_text(path, "<match>")
    if os.fspath(path).lower().endswith(".sgf") or text.lstrip().startswith("(;"):
        return parse_sgf(text, rules=rules, source=source, unfinished=unfinished)
    return parse_mat(text, rules=rules, source=source, unfinished=unfinished)


def _cost(situation: Situation, equity: float) -> float:
    """A normalised equity difference unnormalised: money, times the cube; match, in match winning chance."""
    m = situation.match
    if situation.met is None:
        return equity * m.cube_value
    a, b = situation.aways()
    return (situation.met.emg_to_mwc(equity, a, b, m.cube_value)
            - situation.met.emg_to_mwc(0.0, a, b, m.cube_value))


def _double_word(analysis: CubeAnalysis) -> str:
    return "Double" if analysis.action.doubles else "No double"


def _response_word(analysis: CubeAnalysis) -> str:
    assert analysis.double_take is not None and analysis.double_pass is not None
    return "Take" if analysis.double_take <= analysis.double_pass else "Pass"


def _cube_decision(game: int, move: int, player: int, analysis: CubeAnalysis, doubled: bool) -> Decision:
    """The doubler's decision (a double, or no double) judged from ``analysis``."""
    assert analysis.double_take is not None and analysis.double_pass is not None
    doubling = min(analysis.double_take, analysis.double_pass)
    best = analysis.optimal
    error = max(0.0, best - (doubling if doubled else analysis.no_double))
    close = doubled or is_close(max(0.0, best - doubling))
    return Decision(game, move, player, CUBE, None, "Double" if doubled else "No double", _double_word(analysis),
                    error, _cost(analysis.situation, error), close=close, position=analysis.situation.id())


def _response(game: int, move: int, player: int, analysis: CubeAnalysis, action: str) -> Decision:
    """The taker's take, beaver or pass judged from the doubler's ``analysis``."""
    assert analysis.double_take is not None and analysis.double_pass is not None
    dt, dp = analysis.double_take, analysis.double_pass
    error = max(0.0, dt - dp) if action in ("take", "beaver") else max(0.0, dp - dt)
    return Decision(game, move, player, RESPONSE, None, action.capitalize(), _response_word(analysis),
                    error, _cost(analysis.situation, error), position=analysis.situation.id())


def _situation(turn: Turn, state: MatchState, rules: Rules, met: MatchEquityTable | None,
               judge: Judge) -> Situation:
    return Situation(turn.position, state, rules, met if state.length else None, judge.cube_efficiency)


def _game_to_judge(match: MatchFile, number: int) -> tuple[bool, tuple[int, int], tuple[Turn, ...]]:
    """Game ``number`` (1-based) of the match, the finished games then the unfinished one:
    whether it is the Crawford game, the score before it, its turns."""
    record = match.history.record
    if number > len(record.games):
        game = match.unfinished
        assert game is not None and game.number == number
        return game.crawford, game.score, game.turns
    score = record.games[number - 2].score_after if number > 1 else (0, 0)
    return record.games[number - 1].crawford, score, match.history.games[number - 1]


def _judge_game(match: MatchFile, number: int, judge: Judge, cube_judge: Judge, met: MatchEquityTable | None,
                progress: Callable[[int], None] | None) -> list[Decision]:
    """The decisions of game ``number`` (1-based; the last may be the unfinished game):
    checker plays by ``judge``, cube decisions by ``cube_judge`` (the same bot)."""
    rules = match.rules
    crawford, score, turns = _game_to_judge(match, number)
    length = match.history.record.length
    start = starting_position(rules.variant)
    cube, owner = 1, -1
    pending: CubeAnalysis | None = None       # the double waiting for its answer
    last: Turn | None = None
    out: list[Decision] = []
    for index, (move, turn) in enumerate(zip(mat_move_numbers(turns), turns)):
        where = f"game {number}, move {move}, {match.players[turn.player]}"
        if turn.action == "move":
            cube = turn.cube
        state = MatchState(length=length, score=score, cube_value=cube, cube_owner=owner, crawford=crawford,
                           player_on_roll=turn.player, turn=turn.player, jacoby=rules.jacoby and length == 0)
        if turn.action in ("move", "double"):
            situation = _situation(turn, state, rules, met, judge)
            opening = index == 0 and turn.position == start
            after_double = last is not None and last.action in ("take", "beaver") and last.player != turn.player
            analysis = None
            if not opening and not after_double and state.can_double(turn.player, rules):
                analysis = judge_situation_cube(situation, cube_judge)
                if analysis.double_take is None:
                    analysis = None
            if turn.action == "double":
                if analysis is None:      # the file's double was legal, so the judge may double too
                    raise InvalidAnalysisError(f"{where}: the double could not be judged")
                out.append(_cube_decision(number, move, turn.player, analysis, True))
                pending = analysis
            else:
                assert turn.dice is not None and turn.move is not None
                if analysis is not None:
                    out.append(_cube_decision(number, move, turn.player, analysis, False))
                ranking = rank_situation(situation, turn.dice, judge)
                after = turn.move.position
                chosen = next((p for p in ranking.plays if p.move.position == after), None)
                if chosen is None:
                    raise InvalidAnalysisError(f"{where}: the play {turn.move} is not among the judge's "
                                               f"plays of {turn.dice}")
                best = ranking.plays[0]
                error = best.equity - chosen.equity
                luck = roll_luck(situation, turn.dice, judge, opening=opening and not turn.dice.is_double)
                out.append(Decision(number, move, turn.player, CHECKER, str(turn.dice), str(turn.move),
                                    str(best.move), error, _cost(situation, error), luck,
                                    _cost(situation, luck), forced=len(ranking.plays) == 1,
                                    position=situation.id(turn.dice)))
        else:                                     # take, beaver, pass: the doubler's analysis
            if pending is not None:
                out.append(_response(number, move, turn.player, pending, turn.action))
            pending = None
            if turn.action in ("take", "beaver"):
                cube, owner = turn.cube, turn.player
        last = turn
        if progress is not None:
            progress(1)
    return out


def _actual_result(match: MatchFile, games: int, met: MatchEquityTable | None) -> tuple[float, float]:
    """Player 0's and player 1's actual result after ``games`` games: money, points won; match,
    the match winning chance then less at the start."""
    record = match.history.record
    score = record.games[games - 1].score_after if games else (0, 0)
    if met is None:
        return float(score[0] - score[1]), float(score[1] - score[0])
    crawford_done = any(g.crawford for g in record.games[:games]) or not match.rules.crawford
    a, b = record.length - score[0], record.length - score[1]
    post = crawford_done and 1 in (a, b)
    start = met.mwc(record.length, record.length)
    mine = met.mwc(a, b, post) if a > 0 and b > 0 else (1.0 if a <= 0 else 0.0)
    return mine - start, (1.0 - mine) - (1.0 - start)


def analyse_match(match: MatchFile, judge: Judge | str = DEFAULT_JUDGE, *, ply: int | None = None,
                  cube_ply: int | None = None, met: MatchEquityTable | str | None = None,
                  progress: Callable[[int], None] | None = None) -> MatchAnalysis:
    """Judge every decision of ``match`` (see the module's docstring) by ``judge`` (a
    :class:`Judge` or a bot spec; default the neural bot): its checker plays at ``ply``
    (None: the judge's own), its cube decisions at ``cube_ply`` (None: ``ply`` when given,
    else as ``bgfast cube`` judges them, the bot's own ``cube_ply``: 1 for the neural bot).

    :param met: the match equity table of match play, or its name (default Kazaross-XG2).
    :param progress: called with 1 after each action judged (a progress bar's ``update``).
    :returns: a :class:`MatchAnalysis`; after Ctrl-C (a :class:`KeyboardInterrupt` in the
        judging) the games finished so far, ``interrupted`` set.
    :raises UnknownBotError, InvalidAnalysisError: a bot spec that does not name a bot that
        gives probabilities; a match longer than the table; a variant (nackgammon,
        hypergammon: the judges know standard backgammon only).
    :raises ValueError: a ply the bot does not have (its own error).
    :raises TypeError: ``match`` is not a :class:`MatchFile` (a path: :func:`analyse_file`).
    """
    if not isinstance(match, MatchFile):
        raise TypeError(f"analyse_match takes a MatchFile (read_match_file's), got {type(match).__name__}: "
                        "analyse_file takes a file's path")
    bot = Judge.of(judge).bot if isinstance(judge, str) else judge      # one bot judges both
    checker_judge = Judge.resolve(bot, ply)
    cube_judge = Judge.resolve(bot, cube_ply if cube_ply is not None else ply, cube=True)
    if match.rules.variant != "standard":
        raise InvalidAnalysisError(f"the match is {match.rules.variant}: the judges know standard backgammon only, "
                                   "as a tournament's [judge] does")
    record = match.history.record
    table = None
    if record.length:
        table = met if isinstance(met, MatchEquityTable) else MatchEquityTable.load(met or DEFAULT_MET)
        table.check_length(record.length, InvalidAnalysisError)
    decisions: list[Decision] = []
    games, interrupted = 0, False
    finished = len(record.games)
    try:
        for number in range(1, finished + 1 + (match.unfinished is not None)):
            decisions += _judge_game(match, number, checker_judge, cube_judge, table, progress)
            games = number
    except KeyboardInterrupt:
        interrupted = True
    results = _actual_result(match, min(games, finished), table)
    settled = [d for d in decisions if d.game <= finished]   # the games whose result is known
    players = tuple(player_statistics(decisions, i, match.players[i], results[i], result_decisions=settled)
                    for i in (0, 1))
    return MatchAnalysis(match, checker_judge.name, checker_judge.ply, cube_judge.ply, tuple(decisions),
                         (players[0], players[1]), games,
                         interrupted, unfinished=games > finished)


def analyse_file(path: str | os.PathLike[str], judge: Judge | str = DEFAULT_JUDGE, *, ply: int | None = None,
                 cube_ply: int | None = None, met: MatchEquityTable | str | None = None,
                 progress: Callable[[int], None] | None = None) -> MatchAnalysis:
    """:func:`analyse_match` of the match in the file ``path`` (:func:`read_match_file`), a
    match in progress too (its unfinished last game judged as far as it goes).

    :raises InvalidMatchFileError: as :func:`read_match_file`.
    """
    return analyse_match(read_match_file(path, unfinished=True), judge, ply=ply, cube_ply=cube_ply, met=met,
                         progress=progress)


def count_actions(match: MatchFile) -> int:
    """The number of actions in ``match``, its unfinished game's too (a progress bar's total)."""
    return sum(len(turns) for turns in match.history.games) + (len(match.unfinished.turns) if match.unfinished else 0)

