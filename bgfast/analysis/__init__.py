"""Judging positions and plays: what a player asks of a position (``bgfast eval``, ``hint``,
``cube``, ``show --svg``).

One concept a module, pure functions at the heart:

* :mod:`~bgfast.analysis.situation`: :class:`Situation`, the position with its score, cube,
  rules and match equity table, and the one way of valuing probabilities at that score;
* :mod:`~bgfast.analysis.judge`: :class:`Judge`, the bot that gives probabilities and its ply;
* :mod:`~bgfast.analysis.evaluation`: :func:`evaluate_position`, the five probabilities and
  the cubeless and cubeful equities;
* :mod:`~bgfast.analysis.plays`: :func:`rank_plays`, the plays of a roll by equity at the score;
* :mod:`~bgfast.analysis.cube_action`: :func:`analyse_cube`, no double, double/take,
  double/pass and the proper action in gnubg's words (:func:`proper_action`);
* :mod:`~bgfast.analysis.luck`: :func:`roll_luck`, the luck of a roll at the score;
* :mod:`~bgfast.analysis.error_rates`: gnubg's error and luck rates, marks and rating words;
* :mod:`~bgfast.analysis.match_analysis`: :func:`analyse_match`, a whole match judged
  (``bgfast analyse``), gnubg's "analyse match" and match statistics;
* :mod:`~bgfast.analysis.svg`: :func:`board_svg`, a picture of the board for a web page;
* :mod:`~bgfast.analysis.report`: how the text of these commands prints numbers.

Every value is from the view of the side on roll (of the mover, for a play).

>>> from bgfast.analysis import analyse_cube, evaluate_position, rank_plays
>>> evaluate_position("4HPwATDgc/ABMA").cube.action.value
'No double, take'
>>> str(rank_plays("4HPwATDgc/ABMA", "31").plays[0].move)
'8/5 6/5'
"""
from __future__ import annotations

from bgfast.analysis.cube_action import CubeAction, CubeAnalysis, analyse_cube, judge_cube, proper_action
from bgfast.analysis.evaluation import PositionEvaluation, evaluate_position
from bgfast.analysis.judge import Judge
from bgfast.analysis.luck import roll_luck
from bgfast.analysis.match_analysis import MatchAnalysis, analyse_file, analyse_match
from bgfast.analysis.plays import PlayRanking, RankedPlay, rank_plays
from bgfast.analysis.situation import Situation
from bgfast.analysis.svg import board_svg, write_svg

__all__ = [
    "CubeAction", "CubeAnalysis", "Judge", "MatchAnalysis", "PlayRanking", "PositionEvaluation", "RankedPlay", "Situation",
    "analyse_cube", "analyse_file", "analyse_match", "board_svg", "evaluate_position", "judge_cube", "proper_action", "rank_plays", "roll_luck", "write_svg",
]
