"""The neural bot: bgfast's own net, trained by its own self-play (see :mod:`bgfast.train`).

The evaluator is :mod:`bgfast._core.neural` (contact, race, backgame and crashed nets over
TD-Gammon-style point codes and the heuristic's hand-made features, the one-sided
bear-off database of :mod:`bgfast._core.bearoff` in pure bear-offs), played through the
core's evaluator dispatch (:mod:`bgfast._core.evaluator`, kind ``EVAL_NEURAL``) in the
C game loop like the other built-in bots; its look-ahead is the core's n-ply search
(:mod:`bgfast._core.search`: gnubg's plies and move filters, a cache of evaluations).  The
shipped weights and how they were made are described in ``bgfast/data/weights/neural.md``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from typing import ClassVar, TypeAlias

from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast._core.game import PlayKind
from bgfast._core.search import DEFAULT_FILTERS, DEFAULT_REPLIES, MAX_KEEP, REPLIES, check_filters
from bgfast.bots.base import CoreBot
from bgfast.bots.neural_weights import Weights, default_weights_path, read_weights
from bgfast.cube import CubeDecision, decide_ahead
from bgfast.errors import InvalidBotOptionsError, InvalidPositionError, UnknownBotError
from bgfast.met import MatchEquityTable
from bgfast.formats.text import parse_position
from bgfast.position import Position
from bgfast.probabilities import Probabilities
from bgfast.validation import flag, real_number, whole_number

__all__ = ["DEFAULT_FILTERS", "DEFAULT_REPLIES", "DEFAULT_ZERO_PLY_WEIGHTS", "PLIES", "REPLIES", "MoveFilters",
           "NeuralBot", "filters_text", "move_filters", "shipped_weights"]

PLIES = (0, 1, 2, 3)
"""Look-ahead depths, in gnubg's numbering: 0 = the bare net, ``n`` = the average over the
21 rolls of the value at ``n - 1`` plies of the opponent's reply (its 0-ply favourite by
default, gnubg's tree; or its own ``n - 1``-ply choice: ``replies``)."""

DEFAULT_ZERO_PLY_WEIGHTS = (0.0, 0.2, 0.0, 0.0)
"""The bot's ``zero_ply_weight`` at plies 0 to 3 unless given: at 1 ply a play is chosen by
0.8 times its 1-ply value plus 0.2 times its 0-ply value (measured on the shipped net, cubeless
money, paired dice: +0.007 ppg against the plain 1-ply choice; see
``bgfast/data/weights/neural.md``, Strength); at 2 plies any weight measured worse."""

MoveFilters: TypeAlias = tuple[tuple[tuple[int, float] | None, ...], ...]
"""Move filters in normal form: for plies 1, 2, 3, one ``(keep, window)`` or None (skipped)
a level (0 to ``ply - 1`` plies), as :data:`DEFAULT_FILTERS` (gnubg's "Normal")."""


def move_filters(value: object) -> MoveFilters:
    """Move filters in normal form from any of their written forms.

    :param value: None (gnubg's defaults, :data:`DEFAULT_FILTERS`); text, the form of bot
        specs: plies 1, 2, ... separated by ``;``, a ply's levels (0 plies first) by ``/``,
        a level ``KEEP:WINDOW`` (at most ``KEEP`` plays within ``WINDOW`` money points of the
        best) or ``-`` (skipped; not level 0); a sequence of plies' levels as
        :data:`DEFAULT_FILTERS`; or a mapping ``{ply: levels}``.  Plies left out keep their
        defaults.
    :raises InvalidBotOptionsError: a malformed value, a ply or level out of range, ``KEEP``
        outside 1 to 64, a negative window.

    >>> move_filters("8:0.16;4:0.08/-")[:2]
    (((8, 0.16),), ((4, 0.08), None))
    >>> filters_text(move_filters(None))
    '8:0.16;8:0.16/-;8:0.16/-/2:0.04'
    """
    if isinstance(value, str):
        value = [[_level_of(text, value) for text in ply.split("/")] for ply in value.split(";")]
    try:
        return check_filters(value)  # type: ignore[arg-type]
    except ValueError as error:
        raise InvalidBotOptionsError(f"filters: {error}") from None


def _level_of(text: str, whole: str) -> tuple[int, float] | None:
    text = text.strip()
    if text == "-":
        return None
    keep, _, window = text.partition(":")
    try:
        return int(keep), float(window)
    except ValueError:
        raise InvalidBotOptionsError(
            f"filters: {whole!r} is not plies separated by ';' of levels separated by '/', each "
            f"KEEP:WINDOW (KEEP 1 to {MAX_KEEP}) or '-'") from None


def filters_text(filters: MoveFilters) -> str:
    """The text form of normal-form filters (what :func:`move_filters` reads back)."""
    return ";".join("/".join("-" if level is None else f"{level[0]}:{level[1]:g}" for level in ply)
                    for ply in filters)


@lru_cache(maxsize=1)
def shipped_weights() -> Weights:
    """The weights shipped in ``bgfast/data/weights/neural.bgw`` (read once).

    :raises InvalidWeightsError: a damaged file.
    """
    return read_weights(default_weights_path())


def _plies(value: object) -> int:
    """A depth asked of the bot's search, 0 to 3.

    :raises InvalidBotOptionsError: another value.
    """
    return whole_number(value, "plies", low=PLIES[0], high=PLIES[-1], error=InvalidBotOptionsError)


class NeuralBot(CoreBot):
    """Plays by bgfast's neural net; doubles and takes from its probabilities.

    :param ply: 0 to 3, gnubg's plies: 0, the net picks the play whose resulting position
        it values best for the mover; ``n``, the plays the move filters keep are valued by
        the average over the opponent's 21 rolls of the value at ``n - 1`` plies of its
        reply (see ``replies``), and the best is played.  gnubg's default filters: 1 ply
        values the best 8 plays at 0 ply within 0.16 of the best; 2 plies the same 8; 3
        plies those 8 at 2 plies, then the best 2 within 0.04 at 3.  A 2-ply play costs
        about a hundredth of a second, a 3-ply one a few tenths (:mod:`bgfast._core.search`).
    :param cube_ply: the plies of the cube decisions, 0 to 3 (default 1): 0, the cube math
        of :mod:`bgfast._core.cube` on the net's probabilities; ``n`` >= 1, after a 0-ply
        screen of clear no-doubles, gnubg's cubeful ``n``-ply evaluation
        (:meth:`cube_decision`, :mod:`bgfast._core.cubeful`).
    :param filters: the move filters (:func:`move_filters`: None for gnubg's defaults, or
        text such as ``"8:0.16;8:0.16/-;8:0.16/-/2:0.04"``, the defaults).
    :param replies: the replies below the root of the search, one of :data:`REPLIES`:
        ``"0-ply"`` (the default), each the net's 0-ply play, valued deeper (gnubg's
        evaluation tree; the filters choose the root's play alone); ``"filtered"``, each the
        play the search would make at that depth (the best ``n - 1``-ply reply through the
        filters; several times slower at 2 plies and more).  The same below 2 plies.
    :param prune: whether the search, at 1 ply and more, ranks each reply's plays by the
        weights' pruning nets and values only their best ``5 + floor(log2(plays))`` by the
        net, as gnubg does inside its look-ahead (:mod:`bgfast.train.prune`); None (the
        default): whenever the weights hold pruning nets.  0-ply play is the same either way.
    :param zero_ply_weight: ``w``, 0 to 1: a choice at 1 ply or more ranks the plays its
        filters keep by ``(1 - w)`` times their ``ply``-ply value plus ``w`` times their 0-ply
        value; None (the default): :data:`DEFAULT_ZERO_PLY_WEIGHTS` for the bot's ``ply``,
        0.2 at 1 ply and 0 at the others (0: gnubg's plain ``n``-ply choice).  Evaluations,
        cube decisions, hints and the values of replies stay ``n``-ply ones.
    :param cube: ``"auto"`` (the default: Janowski in money play, the match equity table
        in match play), ``"janowski"`` (Janowski at every score), ``"met"`` (the same as
        ``"auto"``) or ``"never"`` (never doubles, always takes): the values at the leaves
        of the cubeful look-ahead at ``cube_ply`` plies (a 0-ply look screens out clear
        no-doubles first); see :mod:`bgfast._core.cube` and :mod:`bgfast._core.cubeful`.  With ``"auto"``/``"met"`` the
        checker play of match play is by the score too: the play whose cubeful match
        winning chance after it (:func:`bgfast.cube.play_mwc`: the opponent, on roll, takes
        its proper cube action first where it may double) is the highest, at ``ply`` plies
        among the candidates of the best such value (the replies below by cubeless equity);
        money play, and the other policies, play by cubeless money equity.
    :param weights: None (the shipped net), a path to a weights file, or
        :class:`~bgfast.bots.neural_weights.Weights`.
    :param cube_efficiency: Janowski's ``x`` (0.68).
    :raises InvalidBotOptionsError: a bad option. :raises InvalidWeightsError: a bad weights file.

    Strength of the shipped net (8 million self-play games, then 10 rounds of refinement
    on its own look-ahead, the last three with a ranking term, the last two on its 2-ply;
    cubeless money, no Jacoby rule, paired dice, through the tournament runner as
    ``tournaments/neural.toml``): +0.653 +- 0.004 points per game against pubeval over
    100,000 games (+0.658 +- 0.004 on other dice), +0.021 +- 0.004 against gnubg 0-ply
    over 100,000 and +0.004 +- 0.009 against Open Sage 1-ply over 20,000.  Checker play,
    judged by gnubg at 2 plies (``tools/checker_play_error.py``, 3,000 decisions): 2.7
    millipoints lost a decision in contact, 0.15 in races (ply 1: 2.7 and 0.5; gnubg 0-ply:
    2.8 and 0.24).  In 7-point matches with the cube against gnubg 0-ply and its own cube
    decisions (``tournaments/neural_match7.toml``, seeds 2 to 10): 9,246 of 18,000 matches
    (51.4%, +9 Elo [+4, +15]).  See ``bgfast/data/weights/neural.md`` for the learning curve, the speed,
    rollouts and match play.

    >>> bot = NeuralBot(cube="never")
    >>> p = bot.evaluate(Position())
    >>> 0.45 < p.win < 0.6 and p.win_backgammon <= p.win_gammon <= p.win
    True
    """

    name: ClassVar[str] = "neural"
    play_kind: ClassVar[PlayKind] = PlayKind.PLAY_EVALUATOR
    cube_policies: ClassVar[tuple[str, ...]] = ("auto", "janowski", "met", "never")
    default_cube: ClassVar[str] = "auto"

    def __init__(self, ply: int = 0, cube: str | None = None,
                 weights: Weights | str | os.PathLike[str] | None = None,
                 cube_efficiency: float = 0.68, seed: int = 0, cube_ply: int = 1,
                 filters: object = None, replies: str = DEFAULT_REPLIES, prune: bool | None = None,
                 zero_ply_weight: float | None = None) -> None:
        super().__init__(cube, cube_efficiency, seed)
        self.ply = whole_number(ply, "ply", low=PLIES[0], high=PLIES[-1], error=InvalidBotOptionsError)
        self.cube_ply = whole_number(cube_ply, "cube_ply", low=PLIES[0], high=PLIES[-1],
                                     error=InvalidBotOptionsError)
        self.filters = move_filters(filters)
        if replies not in REPLIES:
            raise InvalidBotOptionsError(f"replies must be {' or '.join(map(repr, REPLIES))}, got {replies!r}")
        self.replies = replies
        if prune is not None:
            prune = flag(prune, "prune", error=InvalidBotOptionsError)
        if weights is not None and not isinstance(weights, (str, os.PathLike, Weights)):
            raise InvalidBotOptionsError(f"weights must be a file path or Weights, got {weights!r}")
        self.weights = weights
        if weights is None:
            self._weights = shipped_weights()
        elif isinstance(weights, Weights):
            self._weights = weights
        else:
            self._weights = read_weights(weights)
        if prune and not self._weights.prune_hidden:
            raise InvalidBotOptionsError("prune=true needs weights with pruning nets (bgfast train prune)")
        self.prune = prune
        self.zero_ply_weight = (DEFAULT_ZERO_PLY_WEIGHTS[self.ply] if zero_ply_weight is None else
                                real_number(zero_ply_weight, "zero_ply_weight", low=0.0, high=1.0,
                                            error=InvalidBotOptionsError))
        self._evaluator = CoreEvaluator(self._weights.model(), EvaluatorKind.EVAL_NEURAL, ply=self.ply,
                                        cube_ply=self.cube_ply, filters=self.filters, replies=self.replies,
                                        prune=prune, zero_ply_weight=self.zero_ply_weight)

    def options(self) -> Mapping[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot`."""
        extra: dict[str, object] = {"ply": self.ply}
        if self.cube_ply != 1:
            extra["cube_ply"] = self.cube_ply
        if self.filters != DEFAULT_FILTERS:
            extra["filters"] = filters_text(self.filters)
        if self.replies != DEFAULT_REPLIES:
            extra["replies"] = self.replies
        if self.prune is not None:
            extra["prune"] = self.prune
        if self.zero_ply_weight != DEFAULT_ZERO_PLY_WEIGHTS[self.ply]:
            extra["zero_ply_weight"] = self.zero_ply_weight
        if self.weights is not None:
            extra["weights"] = self.weights
        return {**super().options(), **extra}

    @property
    def evaluator(self) -> CoreEvaluator:
        """This bot's evaluator: its checker play, cube estimates and luck measure."""
        return self._evaluator

    def evaluate(self, position: Position | str, plies: int | None = None) -> Probabilities:
        """Cubeless probabilities of the side on roll in ``position``, before its roll.

        :param plies: 0 to 3: 0, the net's value; ``n``, the average over the 21 rolls of
            the value at ``n - 1`` plies of the side's reply (the bot's ``replies``: its 0-ply
            play, or its ``n - 1``-ply play with the bot's move filters); None = the bot's
            ``ply``.  2 plies take some thousandths of a second, 3 plies a few tenths.
        :raises InvalidPositionError: a malformed position or a finished game.
        :raises InvalidBotOptionsError: ``plies`` outside 0 to 3.
        """
        position = parse_position(position)[0]
        plies = self.ply if plies is None else _plies(plies)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over; nothing to evaluate")
        return Probabilities(*self._evaluator.on_roll(position.to_bytes(), plies))

    def cube_decision(self, position: Position | str, plies: int | None = None, *, owner: int = -1,
                      player: int = 0, cube: int = 1, jacoby: bool = False, beaver: bool = False,
                      max_cube: int = 64, met: MatchEquityTable | None = None, away: int = 0, opp_away: int = 0,
                      crawford: bool = False) -> tuple[CubeDecision, Probabilities]:
        """The cube decision of the side on roll in ``position`` (``player``), before its roll,
        by gnubg's cubeful n-ply evaluation on this bot's search (:func:`bgfast.cube.decide_ahead`),
        with this bot's ``cube_efficiency`` at the leaves.

        :param plies: 0 to 3; None = the bot's ``cube_ply``.
        :param owner: -1 centred, else the player who owns the cube.
        :param met: match play by this table (``away``, ``opp_away``: the side on roll's and its
            opponent's points to go); None: money play (``jacoby``, ``beaver``).
        :param crawford: the Crawford game.
        :returns: the decision (from the side on roll's view: money per current cube, match
            play MWC) and the side's cubeless probabilities at ``plies``.
        :raises InvalidPositionError: a malformed position or a finished game.
        :raises InvalidBotOptionsError: ``plies`` outside 0 to 3.
        :raises ValueError: another argument out of range.
        :raises InvalidMetError: a score beyond the table.

        >>> decision, p = NeuralBot().cube_decision("BQAACAEAAAAAAA", plies=1)   # a 23-of-36 last roll
        >>> decision.double, round(decision.no_double, 3), round(decision.double_take, 3)
        (True, 0.278, 0.556)
        """
        position = parse_position(position)[0]
        plies = self.cube_ply if plies is None else _plies(plies)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over; nothing to decide")
        decision, p = decide_ahead(self._evaluator, position.to_bytes(), plies, owner=owner, doubler=player,
                                   cube=cube, x=self.cube_efficiency, jacoby=jacoby, beaver=beaver,
                                   max_cube=max_cube, met=met, away=away, opp_away=opp_away, crawford=crawford)
        return decision, Probabilities(*p)

    def evaluate_after(self, position: Position | str) -> Probabilities:
        """Cubeless probabilities of the side that has just *moved* to ``position`` (the
        mover is the side "on roll" of ``position``, as :meth:`Position.children` gives it).

        >>> start = Position()
        >>> best = max(start.children(3, 1), key=lambda c: NeuralBot().evaluate_after(c).equity())
        >>> best == start.parse_move("8/5 6/5", (3, 1)).position
        True
        """
        return Probabilities(*self._evaluator.after(parse_position(position)[0].to_bytes()))
