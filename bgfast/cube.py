"""The cube math, from Python: cubeless and cubeful equities, match equity lookups, decisions.

There is one implementation of each formula, in the compiled core
(:mod:`bgfast._core.cube`), where the game loop's cube policies use it; this module
is its Python face, for bots that decide in Python (the gnubg adapter), rollouts
(the value of a truncated trial) and analysis.

Conventions, the same everywhere in bgfast:

* probabilities are the five cubeless chances of one side, ``(win, win_gammon,
  win_backgammon, lose_gammon, lose_backgammon)``, cumulative as in GNU Backgammon
  (a gammon includes the backgammons), as a 5-sequence or any object with those
  attributes (:class:`bgfast.probabilities.Probabilities`, the one type of them);
* cube ownership is :class:`~bgfast.match.MatchState`'s: ``owner`` -1 for a centred
  cube, else the player (0 or 1) who owns it; each function takes the player whose
  view it computes (``player``, or the ``doubler`` of a decision);
* money equities are points per unit of the current cube; match values are match
  winning chances (MWC), 0 to 1.

The cubeful money equity is Janowski's (R. Janowski, "Take-Points in Money Games",
1993): ``(1 - x) * dead + x * live`` with the cube efficiency ``x``; see
:mod:`bgfast._core.cube` for the live-cube lines and for match play by the table.

>>> round(cubeless_equity((0.6, 0.2, 0.01, 0.1, 0.005)), 6)
0.305
>>> flip((0.6, 0.2, 0.01, 0.1, 0.0))
(0.4, 0.1, 0.0, 0.2, 0.01)
>>> round(money_equity((0.7, 0.0, 0.0, 0.0, 0.0), owner=-1, player=0, x=0.68), 4)
0.5813
>>> money_equity((0.9, 0.0, 0.0, 0.0, 0.0), owner=0, player=0, x=1.0)   # own cube, past the cash point
1.0
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import numpy as np

from bgfast._core import cube as _cube
from bgfast._core import cubeful as _cubeful
from bgfast.errors import InvalidMetError
from bgfast.validation import real_number, whole_number

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

    from bgfast._core.evaluator import CoreEvaluator

    from bgfast.met import MatchEquityTable

__all__ = [
    "CubeDecision", "DEFAULT_CUBE_EFFICIENCY", "Probs", "as_probs", "cubeful_mwc", "cubeless_equities",
    "cubeless_equity", "dead_cube_mwc", "decide", "decide_ahead", "flip", "money_equity", "mwc", "play_mwc",
]

Probs: TypeAlias = tuple[float, float, float, float, float]
"""Five cubeless probabilities: win, win gammon, win backgammon, lose gammon, lose backgammon."""

DEFAULT_CUBE_EFFICIENCY = 0.68
"""Janowski's cube efficiency ``x`` when none is given (he suggests about 2/3)."""

_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def as_probs(p: object) -> Probs:
    """``p`` as five floats: a 5-sequence, or an object with the five named attributes
    (``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``, ``lose_backgammon``).

    >>> as_probs([1, 0.5, 0, 0, 0])
    (1.0, 0.5, 0.0, 0.0, 0.0)

    :raises ValueError: anything else (the values' ranges are not checked).
    """
    try:
        if hasattr(p, "win"):
            values = tuple(float(getattr(p, name)) for name in _NAMES)
        else:
            values = tuple(float(x) for x in p)  # type: ignore[attr-defined]
    except (TypeError, ValueError, AttributeError):
        values = ()
    if len(values) != 5:
        raise ValueError(f"probabilities are 5 numbers (win, wg, wbg, lg, lbg), got {p!r}")
    return values


def _aways(met: MatchEquityTable, away: object, opp_away: object) -> tuple[_cube.Met, int, int]:
    """``met``'s table and the two aways, checked against it.

    :raises InvalidMetError: an away below 1 or beyond the table.
    """
    table = met.core_table
    a = whole_number(away, "away", low=1, error=InvalidMetError)
    b = whole_number(opp_away, "opp_away", low=1, error=InvalidMetError)
    if max(a, b) >= table.size:
        raise InvalidMetError(f"{max(a, b)}-away is beyond the {met.max_length}-point table {met.name!r}")
    return table, a, b


def _owner(owner: object, player: object, name: str) -> tuple[int, int]:
    return (whole_number(owner, "owner", low=-1, high=1, what="-1 (centred), 0 or 1"),
            whole_number(player, name, low=0, high=1))


def cubeless_equity(p: object) -> float:
    """Cubeless money equity per cube of the side whose probabilities ``p`` are:
    ``2 win - 1 + wg - lg + wbg - lbg``.

    :raises ValueError: not five numbers.
    """
    return float(_cube.cubeless_equity(as_probs(p)))


def cubeless_equities(p: ArrayLike) -> NDArray[np.float64]:
    """:func:`cubeless_equity` of many: ``p`` of shape ``(..., 5)``, the result of shape ``(...)``.

    >>> cubeless_equities([[0.5, 0.1, 0.0, 0.1, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0]]).tolist()
    [0.0, 2.0]

    :raises ValueError: a last axis of another length.
    """
    arr = np.asarray(p, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 5:
        raise ValueError(f"probabilities are rows of 5 numbers, got shape {arr.shape}")
    out: NDArray[np.float64] = _cube.cubeless_equities(arr.reshape(-1, 5)).reshape(arr.shape[:-1])
    return out


def flip(p: object) -> Probs:
    """The same probabilities from the other side's view: ``(1 - win, lg, lbg, wg, wbg)``.

    :raises ValueError: not five numbers.
    """
    return _cube.flip(as_probs(p))


def money_equity(p: object, *, owner: int = -1, player: int = 0, x: float = DEFAULT_CUBE_EFFICIENCY,
                 jacoby: bool = False, cube: int = 1, max_cube: int = 64) -> float:
    """Cubeful money equity per cube of ``player``, from its cubeless probabilities ``p``.

    Janowski's ``(1 - x) * dead + x * live``: the dead part is the cubeless equity
    (gammons single with the Jacoby rule while the cube is centred); the live part is
    linear in the winning chance between the take point (-1) and the cash point (+1),
    and beyond them linear on to the average loss ``-L`` at 0% and the average win
    ``W`` at 100% (a side too good to cash plays on; ``L``, ``W`` = 1 + the gammon and
    backgammon rates per loss and per win; both 1 with the Jacoby rule and a centred cube).

    :param owner: -1 centred, else the player who owns the cube.
    :param player: whose probabilities and equity these are (0 or 1).
    :param x: the cube efficiency, 0 (dead cube) to 1 (fully live).
    :param cube: the cube's value; ``max_cube`` the highest the rules allow.  A cube that
        cannot be doubled again (``2 * cube > max_cube``) is dead: the equity is the
        cubeless one, whatever ``x``.
    :raises ValueError: not five numbers, an owner or player out of range, ``x`` outside
        0..1, a cube below 1 or above ``max_cube``.
    """
    owner, player = _owner(owner, player, "player")
    x = real_number(x, "x", low=0.0, high=1.0)
    cube = whole_number(cube, "cube", low=1)
    max_cube = whole_number(max_cube, "max_cube", low=cube)
    return float(_cube.money_equity(as_probs(p), owner, player, x, bool(jacoby), cube, max_cube))


class CubeDecision(NamedTuple):
    """A cube decision: whether to double, the taker's answer, and the three equities
    from the doubler's view (money: per current cube; match play: MWC)."""

    double: bool
    response: int
    """0 pass, 1 take, 2 beaver (a :class:`~bgfast._core.cube.CubeAnswer`)."""
    no_double: float
    double_take: float
    double_pass: float


def decide(p: object, *, owner: int = -1, doubler: int = 0, cube: int = 1, x: float = DEFAULT_CUBE_EFFICIENCY,
           jacoby: bool = False, beaver: bool = False, max_cube: int = 64,
           met: MatchEquityTable | None = None, away: int = 0, opp_away: int = 0,
           post_crawford: bool = False) -> CubeDecision:
    """The cube decision of ``doubler`` from its cubeless probabilities ``p`` before the roll.

    Money play (no ``met``): Janowski's model (:func:`money_equity`): no double is the
    equity with the cube as it is, double/take twice the equity with the opponent owning
    it (a dead cube when ``2 * cube`` is ``max_cube``), double/pass +1.  Match play (``met`` with ``away``, ``opp_away``: the doubler's and
    the taker's points to go): the same model on the table's match winning chances.
    Double when both answers beat not doubling; pass when a take gives the doubler more
    than a pass.

    >>> decide((0.72, 0.0, 0.0, 0.0, 0.0)).double, decide((0.5, 0.0, 0.0, 0.0, 0.0)).double
    (True, False)

    :raises ValueError: not five numbers, an owner, doubler, cube or ``x`` out of range.
    :raises InvalidMetError: a score beyond the table.
    """
    owner, doubler = _owner(owner, doubler, "doubler")
    cube = whole_number(cube, "cube", low=1)
    x = real_number(x, "x", low=0.0, high=1.0)
    length = 0
    table = None
    if met is not None:
        table, away, opp_away = _aways(met, away, opp_away)
        length = max(away, opp_away)   # the core reads only "match play" from the length
    double, response, nd, dt, dp = _cube.decide(
        as_probs(p), x=x, length=length, doubler_away=away, taker_away=opp_away, cube=cube, owner=owner,
        doubler=doubler, jacoby=bool(jacoby) and met is None, beaver=bool(beaver), max_cube=max_cube,
        met=table, post_crawford=bool(post_crawford))
    return CubeDecision(double, int(response), nd, dt, dp)


def decide_ahead(evaluator: CoreEvaluator, board: bytes, plies: int, *, owner: int = -1, doubler: int = 0,
                 cube: int = 1, x: float = DEFAULT_CUBE_EFFICIENCY, jacoby: bool = False, beaver: bool = False,
                 max_cube: int = 64, met: MatchEquityTable | None = None, away: int = 0, opp_away: int = 0,
                 crawford: bool = False) -> tuple[CubeDecision, Probs]:
    """The cube decision of ``doubler``, on roll as side 1 of the 50-byte ``board``, by a
    neural evaluator's cubeful ``plies``-ply look-ahead (gnubg's cubeful n-ply evaluation,
    :mod:`bgfast._core.cubeful`): for each of the 21 rolls the search's play, then the
    opponent's cubeful value ``plies - 1`` plies deep, where each side on roll takes the
    better of no double and the taker's best answer to a double; Janowski (money) or the
    cubeful MWC (match play) at the leaves, exact results where the game ends.  At 0 plies
    the same numbers as :func:`decide` on the net's 0-ply probabilities.

    :param plies: 0 to 3.
    :param crawford: the Crawford game (neither side may double).
    :returns: the :class:`CubeDecision` (equities from the doubler's view: money per current
        cube, match play MWC; computed whether or not it may double now) and the doubler's
        cubeless probabilities at ``plies`` (the search's).
    :raises ValueError: not a neural evaluator; an owner, doubler, cube, ``x`` or ``plies`` out of range.
    :raises InvalidMetError: a score beyond the table.
    """
    owner, doubler = _owner(owner, doubler, "doubler")
    cube = whole_number(cube, "cube", low=1)
    x = real_number(x, "x", low=0.0, high=1.0)
    plies = whole_number(plies, "plies", low=0, high=_cubeful.MAX_PLIES)
    table = None
    if met is not None:
        table, away, opp_away = _aways(met, away, opp_away)
    double, response, nd, dt, dp, p = _cubeful.cube_values(
        evaluator, board, plies, cube=cube, owner=owner, player=doubler, x=x, jacoby=bool(jacoby) and met is None,
        beaver=bool(beaver), max_cube=whole_number(max_cube, "max_cube", low=cube), met=table, away=away,
        opp_away=opp_away, crawford=bool(crawford))
    return CubeDecision(double, int(response), nd, dt, dp), p


# ---------------------------------------------------------------- match equity tables

def mwc(met: MatchEquityTable, away: int, opp_away: int, post_crawford: bool = False) -> float:
    """The match winning chance of the side ``away`` points from winning against one
    ``opp_away`` away; 0 or less means that side has won.  ``post_crawford``: the
    Crawford game has been played, so a 1-away side is the leader.  The same lookup as
    :meth:`MatchEquityTable.mwc <bgfast.met.MatchEquityTable.mwc>` (the core's).

    >>> from bgfast.met import MatchEquityTable
    >>> met = MatchEquityTable.load()
    >>> mwc(met, 1, 3, post_crawford=True), mwc(met, -2, 5), mwc(met, 2, 4) == met.equity(2, 4)
    (0.67736, 1.0, True)

    :raises InvalidMetError: an away that is not an integer, or beyond the table.
    """
    return met.mwc(away, opp_away, post_crawford)


def cubeful_mwc(p: object, met: MatchEquityTable, away: int, opp_away: int, *, cube: int = 1, owner: int = -1,
                player: int = 0, x: float = DEFAULT_CUBE_EFFICIENCY, crawford: bool = False,
                max_cube: int = 64) -> float:
    """The cubeful match winning chance of ``player``, ``away`` points from winning against
    one ``opp_away`` away, from its cubeless probabilities ``p`` with the cube at ``cube``.

    Janowski's model generalized to match play as GNU Backgammon's manual describes it
    ("Cubeful equities", gnubg 1.07: ``MWC(cubeful) = MWC(dead) (1 - x) + MWC(live) x``;
    R. Janowski, "Take-Points in Money Games", 1993): the dead part weights each result's
    MWC at the score it leads to (:func:`dead_cube_mwc`); the live part is the broken line
    through the MWC of a game lost at 0%, losing the cube value at the opponent's cash
    point, winning it at the player's own cash point and the MWC of a game won at 100%,
    the cash points from the table recursively as the cube goes up (a side that may not
    double, or whose cube is dead, has none).  This is :func:`decide`'s "no double", and the
    value of a play (:func:`play_mwc`) where the opponent may not double next.

    >>> from bgfast.met import MatchEquityTable
    >>> met = MatchEquityTable.load("woolsey")     # the manual's example: 3-0 to 7, on roll
    >>> round(cubeful_mwc((0.454, 0.103, 0.001, 0.106, 0.003), met, 7, 4, x=0.68), 4)
    0.2917

    :param owner: -1 centred, else the player who owns the cube.
    :param crawford: this is the Crawford game: neither side may double (a dead cube).
    :raises ValueError: not five numbers, an owner, player, cube or ``x`` out of range.
    :raises InvalidMetError: an away below 1 or beyond the table.
    """
    return float(_cube.cubeful_mwc(*_mwc_args(p, met, away, opp_away, cube, owner, player, x, crawford, max_cube)))


def play_mwc(p: object, met: MatchEquityTable, away: int, opp_away: int, *, cube: int = 1, owner: int = -1,
             player: int = 0, x: float = DEFAULT_CUBE_EFFICIENCY, crawford: bool = False,
             max_cube: int = 64) -> float:
    """The value of a play of ``player`` in match play: its match winning chance after the
    play, from its cubeless probabilities ``p`` then, its opponent on roll.  Where the
    opponent may double (the cube centred or its own, not the Crawford game, still alive for
    it) it takes its proper cube action first (:func:`decide`, from its view: it doubles when
    both answers give it more than no double, and ``player`` answers its best), as GNU
    Backgammon values a play; elsewhere :func:`cubeful_mwc`, the cube as it stands.  This is
    what the ``auto``/``met`` policies' checker play, ``hint`` and ``analyse`` rank plays by.

    Post-Crawford, the leader's play is worth its chance to win alone whenever the trailer
    doubles at once (the trailer's gammons no longer count):

    >>> from bgfast.met import MatchEquityTable
    >>> met = MatchEquityTable.load()
    >>> after = (0.6, 0.2, 0.01, 0.1, 0.005)             # the leader's chances after its play
    >>> round(play_mwc(after, met, 1, 2), 4), round(cubeful_mwc(after, met, 1, 2), 4)
    (0.6, 0.648)

    Arguments and errors as :func:`cubeful_mwc`'s.
    """
    return float(_cube.play_mwc_of(*_mwc_args(p, met, away, opp_away, cube, owner, player, x, crawford, max_cube)))


def _mwc_args(p: object, met: MatchEquityTable, away: int, opp_away: int, cube: int, owner: int, player: int,
              x: float, crawford: bool, max_cube: int) -> tuple[Any, ...]:
    """The core's arguments of :func:`cubeful_mwc` and :func:`play_mwc`, checked."""
    table, a, b = _aways(met, away, opp_away)
    owner, player = _owner(owner, player, "player")
    return (as_probs(p), table, a, b, whole_number(cube, "cube", low=1), owner, player,
            real_number(x, "x", low=0.0, high=1.0), bool(crawford), whole_number(max_cube, "max_cube", low=1))


def dead_cube_mwc(p: object, met: MatchEquityTable, away: int, opp_away: int, cube: int = 1) -> float:
    """The match winning chance of the side ``away`` points from winning, from its
    probabilities ``p``, with the cube dead at ``cube``: each result's MWC, weighted.

    A game with either side 1-away is the Crawford game or comes after it, so the
    scores it leads to are read post-Crawford.

    >>> from bgfast.met import MatchEquityTable
    >>> met = MatchEquityTable.load()
    >>> dead_cube_mwc((1.0, 0.0, 0.0, 0.0, 0.0), met, 3, 3) == met.equity(2, 3)
    True

    :raises ValueError: not five numbers, or a cube below 1.
    :raises InvalidMetError: an away below 1 or beyond the table.
    """
    table, a, b = _aways(met, away, opp_away)
    cube = whole_number(cube, "cube", low=1)
    return float(_cube.dead_cube_mwc(as_probs(p), table, a, b, cube))
