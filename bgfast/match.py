"""Match state, cube rules, the gnubg Match ID, XGID match fields, match equity tables.

* :class:`MatchState` -- a frozen value: score, match length, cube, who is on
  roll, dice.  It reads and writes GNU Backgammon's Match ID
  (:meth:`MatchState.from_match_id` / :meth:`MatchState.match_id`) and the
  match fields of eXtreme Gammon's XGID (:meth:`MatchState.from_xgid` /
  :meth:`MatchState.xgid`), and knows the cube rules: :meth:`~MatchState.can_double`,
  :meth:`~MatchState.double`, :meth:`~MatchState.take`, :meth:`~MatchState.drop`,
  :meth:`~MatchState.beaver`, :meth:`~MatchState.is_cube_dead`.
* :class:`Rules` -- the options: Crawford, Jacoby, beavers, maximum cube, variant.
* :class:`MatchEquityTable` -- a match equity table (MET) read from the gnubg
  XML files shipped in ``bgfast/data/met`` (Kazaross-XG2 is the default), with
  take points and equity/MWC conversions.

Players are numbered 0 and 1 as in gnubg's Match ID; the board of the player
on roll (``player_on_roll``) is side 1 of a bgfast board.  In an XGID the
bottom player is player 1 and the top player player 0 (gnubg's reading of
XGIDs); see :mod:`bgfast.xgid`.

Every match winning chance (MWC) here is a probability from 0 to 1, from the
point of view of the player named first in the call.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import enum
import functools
import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bgfast.errors import (
    IllegalCubeActionError,
    InvalidMatchIdError,
    InvalidPositionError,
    InvalidMetError,
    InvalidSpecError,
)
from bgfast.position import VARIANTS as _POSITION_VARIANTS
from bgfast.position import Position
from bgfast.xgid import XgidRecord, board_to_xgid_field, format_xgid, parse_xgid

__all__ = [
    "DEFAULT_MET",
    "MONEY_TAKE_POINT",
    "VARIANTS",
    "GameState",
    "MatchEquityTable",
    "MatchState",
    "Rules",
    "risk_gain_take_point",
]

VARIANTS = tuple(_POSITION_VARIANTS)
"""The starting positions bgfast knows (``bgfast/data/variants.toml``)."""

DEFAULT_MET = "Kazaross-XG2"
"""The match equity table used when none is named."""

_MAX_FIELD = (1 << 15) - 1  # match length and scores have 15 bits in a Match ID
_MAX_CUBE_LOG2 = 15  # the cube's log2 has 4 bits
_MET_DIR = Path(__file__).resolve().parent / "data" / "met"


def risk_gain_take_point(pass_mwc: float, win_mwc: float, lose_mwc: float) -> float:
    """The winning chance a taker needs, from what passing, winning and losing are worth.

    ``take point = (pass - lose) / (win - lose)``: the taker risks
    ``pass - lose`` to gain ``win - pass``.  The three values may be match
    winning chances or money equities, all from the taker's side.  In money
    play without gammons (pass = -1, win = +2, lose = -2 cube units) this is
    the classic 25%.

    >>> risk_gain_take_point(-1.0, 2.0, -2.0)
    0.25

    :raises ValueError: ``win_mwc`` is not greater than ``lose_mwc``.
    """
    if not win_mwc > lose_mwc:
        raise ValueError(f"winning must be worth more than losing, got win {win_mwc!r}, lose {lose_mwc!r}")
    return (pass_mwc - lose_mwc) / (win_mwc - lose_mwc)


MONEY_TAKE_POINT = risk_gain_take_point(-1.0, 2.0, -2.0)
"""The cubeless, gammonless take point in money play: 0.25."""


class GameState(enum.IntEnum):
    """The state of the current game, numbered as in gnubg's Match ID."""

    NONE = 0
    """No game started (between games)."""
    PLAYING = 1
    """A game is being played."""
    OVER = 2
    """The game (or the match) is over."""
    RESIGNED = 3
    """The game ended by a resignation."""
    DROPPED = 4
    """The game ended by a dropped (passed) cube."""


def _check_bool(name: str, value: object, error: type[Exception]) -> bool:
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise error(f"{name} must be True or False, got {value!r}")


def _check_player(player: int) -> int:
    if isinstance(player, bool) or player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return int(player)


@dataclass(frozen=True)
class Rules:
    """The rule options of a match or money session.

    ``jacoby`` and ``beaver`` apply to money play only; ``crawford`` to match
    play only.  ``max_cube`` is the highest cube value (64: the faces of the
    physical cube).

    >>> Rules()
    Rules(crawford=True, jacoby=True, beaver=False, max_cube=64, variant='standard')
    >>> Rules(max_cube=48)
    Traceback (most recent call last):
    ...
    bgfast.errors.InvalidSpecError: rules.max_cube must be a power of two from 2 to 32768, got 48

    :raises InvalidSpecError: a flag that is not a bool, ``max_cube`` not a
        power of two from 2 to 32768, or an unknown variant.
    """

    crawford: bool = True
    """No doubling in the first game after a player reaches match point (match play)."""
    jacoby: bool = True
    """Gammons count single unless the cube was turned (money play)."""
    beaver: bool = False
    """A player who is doubled may redouble at once and keep the cube (money play)."""
    max_cube: int = 64
    """The highest cube value allowed."""
    variant: str = "standard"
    """The starting position: one of :data:`VARIANTS`."""

    def __post_init__(self) -> None:
        for name in ("crawford", "jacoby", "beaver"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidSpecError(f"rules.{name} must be true or false, got {getattr(self, name)!r}")
        cube = self.max_cube
        if (
            isinstance(cube, bool)
            or not isinstance(cube, int)
            or not 2 <= cube <= 1 << _MAX_CUBE_LOG2
            or cube & (cube - 1)
        ):
            raise InvalidSpecError(f"rules.max_cube must be a power of two from 2 to 32768, got {cube!r}")
        if self.variant not in VARIANTS:
            raise InvalidSpecError(
                f"rules.variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}"
            )


@dataclass(frozen=True)
class MatchState:
    """Everything about a match or money game except the checkers.

    The fields are those of gnubg's Match ID.  Values are checked and
    normalised on construction: ``score`` and ``dice`` become tuples, the
    dice are stored larger first, the flags become bools and ``game_state`` a
    :class:`GameState`.

    >>> state = MatchState(length=7, score=(3, 5), cube_value=2, cube_owner=1, dice=(1, 6))
    >>> state.dice, state.away(0), state.away(1)
    ((6, 1), 4, 2)
    >>> MatchState.from_match_id(state.match_id()) == state
    True

    :raises InvalidMatchIdError: a field out of its range (e.g. a cube value
        that is not a power of two, a die of 7, one die zero and not the other).
    """

    length: int = 0
    """The match length; 0 = money play."""
    score: tuple[int, int] = (0, 0)
    """Points won so far by player 0 and player 1."""
    cube_value: int = 1
    """The cube value: 1, 2, 4, ...  While a double is offered, the value before the double."""
    cube_owner: int = -1
    """-1 = centred, 0 or 1 = the player who owns the cube."""
    crawford: bool = False
    """True if this game is the Crawford game (no doubling)."""
    player_on_roll: int = 0
    """The player who is on roll or who rolled (gnubg's dice owner); side 1 of the board."""
    turn: int = 0
    """The player who must act now (after a double, the player who must take or pass)."""
    game_state: GameState = GameState.PLAYING
    """See :class:`GameState`."""
    double_offered: bool = False
    """True while a double waits for take or pass."""
    resigned: int = 0
    """A resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon."""
    dice: tuple[int, int] = (0, 0)
    """The dice rolled, larger first; (0, 0) = not rolled yet."""
    jacoby: bool = False
    """True if the Jacoby rule is in use (money play)."""

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        E = InvalidMatchIdError

        def count(name: str, value: object, high: int) -> int:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
                raise E(f"{name} must be an integer from 0 to {high}, got {value!r}")
            return int(value)

        set_("length", count("length", self.length, _MAX_FIELD))
        try:
            score = tuple(self.score)
        except TypeError:
            raise E(f"score must be two integers, got {self.score!r}") from None
        if len(score) != 2:
            raise E(f"score must be two integers, got {self.score!r}")
        set_("score", (count("score", score[0], _MAX_FIELD), count("score", score[1], _MAX_FIELD)))
        cube = self.cube_value
        if (
            isinstance(cube, bool)
            or not isinstance(cube, int)
            or not 1 <= cube <= 1 << _MAX_CUBE_LOG2
            or cube & (cube - 1)
        ):
            raise E(f"cube_value must be a power of two from 1 to 32768, got {cube!r}")
        if self.cube_owner not in (-1, 0, 1) or isinstance(self.cube_owner, bool):
            raise E(f"cube_owner must be -1 (centred), 0 or 1, got {self.cube_owner!r}")
        if self.cube_owner == -1 and cube != 1:
            raise E(f"a centred cube is at 1 (a taken double gives the taker the cube), got {cube}")
        for name in ("player_on_roll", "turn"):
            if getattr(self, name) not in (0, 1) or isinstance(getattr(self, name), bool):
                raise E(f"{name} must be 0 or 1, got {getattr(self, name)!r}")
        for name in ("crawford", "double_offered", "jacoby"):
            set_(name, _check_bool(name, getattr(self, name), E))
        if self.crawford and not self.length:
            raise E("the Crawford game is for match play, not money")
        if self.crawford and [s == self.length - 1 for s in self.score].count(True) != 1:
            raise E(f"the Crawford game needs exactly one player 1-away (score {self.length - 1}); "
                    f"got {self.score[0]}-{self.score[1]} in a {self.length}-point match")
        if self.crawford and (cube != 1 or self.double_offered):
            raise E("no double in the Crawford game: the cube stays at 1 and none is offered")
        try:
            set_("game_state", GameState(self.game_state))
        except ValueError:
            raise E(f"game_state must be 0..4, got {self.game_state!r}") from None
        set_("resigned", count("resigned", self.resigned, 3))
        try:
            d1, d2 = self.dice
        except (TypeError, ValueError):
            raise E(f"dice must be two integers, got {self.dice!r}") from None
        d1, d2 = count("a die", d1, 6), count("a die", d2, 6)
        if (d1 == 0) != (d2 == 0):
            raise E(f"dice must be both 0 (not rolled) or both 1..6, got {self.dice!r}")
        set_("dice", (max(d1, d2), min(d1, d2)))
        if self.double_offered and self.dice != (0, 0):
            raise E(f"a double is offered before the dice are rolled, got dice {self.dice!r}")
        if self.double_offered and self.turn == self.player_on_roll:
            raise E("a double is offered to the opponent of the player on roll: turn must differ from "
                    f"player_on_roll ({self.player_on_roll})")

    # ------------------------------------------------------------------ text

    def __repr__(self) -> str:
        return f"MatchState.from_match_id({self.match_id()!r})"

    def __str__(self) -> str:
        if self.length:
            head = f"{self.length}-point match, score {self.score[0]}-{self.score[1]}"
            if self.crawford:
                head += " (Crawford game)"
        else:
            head = f"money game, score {self.score[0]}-{self.score[1]}"
            if self.jacoby:
                head += " (Jacoby)"
        owner = "centred" if self.cube_owner == -1 else f"owned by player {self.cube_owner}"
        text = f"{head}, cube {self.cube_value} {owner}, player {self.player_on_roll} on roll"
        if self.double_offered:
            text += f", double offered to player {self.turn}"
        elif self.dice != (0, 0):
            text += f", dice {self.dice[0]}-{self.dice[1]}"
        return text

    @classmethod
    def from_match_id(cls, match_id: str) -> MatchState:
        """Decode a 12-character gnubg Match ID.

        The 12 characters are standard Base64 of a 9-byte key; bit ``k`` of
        the key is bit ``k % 8`` (least significant first) of byte ``k // 8``,
        and each field is stored least significant bit first from its offset:
        0-3 cube log2, 4-5 cube owner (3 = centred), 6 player on roll, 7
        Crawford, 8-10 game state, 11 turn, 12 double offered, 13-14
        resignation, 15-17 die 1, 18-20 die 2, 21-35 match length, 36-50
        player 0's score, 51-65 player 1's score, 66 *no* Jacoby rule (gnubg
        writes it; its manual does not list it), 67-71 zero.  Dice stored
        smaller first are accepted and normalised, larger first.

        >>> MatchState.from_match_id('cAkXAAAAAAAA').dice
        (6, 5)

        :raises InvalidMatchIdError: not 12 Base64 characters, a cube owner
            of 2, a game state above 4, a die of 7, one die zero and not the
            other, or bits 67-71 set.
        """
        if not isinstance(match_id, str) or len(match_id) != 12:
            raise InvalidMatchIdError(f"a Match ID is 12 characters, got {match_id!r}")
        try:
            key = base64.b64decode(match_id, validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != 9:
            raise InvalidMatchIdError(f"a Match ID uses only A-Z a-z 0-9 + /, got {match_id!r}")
        bits = int.from_bytes(key, "little")

        def field(offset: int, width: int) -> int:
            return (bits >> offset) & ((1 << width) - 1)

        if field(67, 5):
            raise InvalidMatchIdError(f"Match ID bits 67-71 must be zero in {match_id!r}")
        owner = field(4, 2)
        if owner == 2:
            raise InvalidMatchIdError(f"Match ID cube owner 2 is not 0, 1 or 3 (centred) in {match_id!r}")
        try:
            return cls(
                length=field(21, 15),
                score=(field(36, 15), field(51, 15)),
                cube_value=1 << field(0, 4),
                cube_owner=-1 if owner == 3 else owner,
                crawford=bool(field(7, 1)),
                player_on_roll=field(6, 1),
                turn=field(11, 1),
                game_state=field(8, 3),  # type: ignore[arg-type]
                double_offered=bool(field(12, 1)),
                resigned=field(13, 2),
                dice=(field(15, 3), field(18, 3)),
                jacoby=not field(66, 1),
            )
        except InvalidMatchIdError as exc:
            raise InvalidMatchIdError(f"{exc} in Match ID {match_id!r}") from None

    def match_id(self) -> str:
        """Encode as a 12-character gnubg Match ID.

        >>> MatchState(player_on_roll=1, turn=1, dice=(6, 5), jacoby=True).match_id()
        'cAkXAAAAAAAA'
        """
        fields = (
            (0, self.cube_value.bit_length() - 1),
            (4, 3 if self.cube_owner == -1 else self.cube_owner),
            (6, self.player_on_roll),
            (7, int(self.crawford)),
            (8, int(self.game_state)),
            (11, self.turn),
            (12, int(self.double_offered)),
            (13, self.resigned),
            (15, self.dice[0]),
            (18, self.dice[1]),
            (21, self.length),
            (36, self.score[0]),
            (51, self.score[1]),
            (66, int(not self.jacoby)),
        )
        bits = 0
        for offset, value in fields:
            bits |= value << offset
        return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def from_xgid(cls, xgid: str) -> MatchState:
        """Read the match fields of an XGID (the position field is checked, not kept).

        The XGID bottom player is player 1 and the top player player 0, as
        gnubg reads XGIDs.  The player on roll is the XGID turn; with dice
        ``'D'`` that player has doubled and the other must act.  The game is
        taken to be in progress.  What a MatchState does not hold is dropped:
        the beaver bit and the maximum cube (they belong to :class:`Rules`).

        >>> state = MatchState.from_xgid('XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:4:2:0:7:10')
        >>> state.score, state.cube_value, state.cube_owner, state.player_on_roll, state.turn
        ((2, 4), 2, 0, 1, 0)

        :raises InvalidPositionError: the position field is malformed.
        :raises InvalidMatchIdError: another field is malformed, or the dice
            field is a pending beaver (``'B'``) or raccoon (``'R'``), which a
            MatchState cannot hold.
        """
        rec = parse_xgid(xgid)
        on_roll = 1 if rec.turn == 1 else 0
        if rec.dice in ("B", "R"):
            raise InvalidMatchIdError(
                f"a pending beaver or raccoon ({rec.dice!r}) has no MatchState in {xgid!r}"
            )
        doubled = rec.dice == "D"
        dice = (0, 0) if rec.dice in ("00", "D") else (int(rec.dice[0]), int(rec.dice[1]))
        return cls(
            length=rec.match_length,
            score=(rec.score_top, rec.score_bottom),
            cube_value=rec.cube_value,
            cube_owner={0: -1, 1: 1, -1: 0}[rec.cube_position],
            crawford=rec.crawford,
            player_on_roll=on_roll,
            turn=1 - on_roll if doubled else on_roll,
            game_state=GameState.PLAYING,
            double_offered=doubled,
            dice=dice,
            jacoby=rec.jacoby,
        )

    def xgid(self, position_board: Sequence[Sequence[int]], rules: Rules | None = None) -> str:
        """Write an XGID for this state and a board ``[side0, side1]`` (side 1 on roll).

        Player 1 is drawn at the bottom, player 0 at the top.  The beaver bit
        and the maximum cube come from ``rules`` when given (otherwise no
        beavers and XG's default maximum, 2**10).  The game state and a
        resignation offer are not part of an XGID and are left out.

        >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
        >>> MatchState(length=7, score=(2, 4), player_on_roll=1, turn=1, dice=(3, 1)).xgid([start, start])
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:4:2:0:7:10'

        :raises InvalidPositionError: the board is not a valid position.
        """
        turn = 1 if self.player_on_roll == 1 else -1
        if self.length:
            flags = int(self.crawford)
        else:
            flags = int(self.jacoby) + (2 if rules is not None and rules.beaver else 0)
        if self.double_offered:
            dice = "D"
        else:
            dice = f"{self.dice[0]}{self.dice[1]}"
        record = XgidRecord(
            position=board_to_xgid_field(position_board, turn),
            cube_log2=self.cube_value.bit_length() - 1,
            cube_position={-1: 0, 1: 1, 0: -1}[self.cube_owner],
            turn=turn,
            dice=dice,
            score_bottom=self.score[1],
            score_top=self.score[0],
            rules=flags,
            match_length=self.length,
            max_cube_log2=10 if rules is None else rules.max_cube.bit_length() - 1,
        )
        return format_xgid(record)

    # ------------------------------------------------------------- the score

    @property
    def is_money(self) -> bool:
        """True for money play (``length == 0``)."""
        return self.length == 0

    def away(self, player: int) -> int:
        """Points ``player`` still needs to win the match (0 once it is won).

        >>> MatchState(length=7, score=(6, 2)).away(0)
        1

        :raises ValueError: money play, or a player other than 0 or 1.
        """
        player = _check_player(player)
        if self.is_money:
            raise ValueError("money play has no match score: away() needs a match length")
        return max(self.length - self.score[player], 0)

    @property
    def is_crawford_game(self) -> bool:
        """True if this game is the Crawford game (match play, leader at match point, first game there).

        >>> MatchState(length=5, score=(4, 1), crawford=True).is_crawford_game
        True
        """
        return self.crawford and not self.is_money

    @property
    def is_post_crawford(self) -> bool:
        """True in match play when a player is 1-away and this is not the Crawford game.

        >>> MatchState(length=5, score=(4, 1)).is_post_crawford
        True
        """
        return not self.is_money and not self.crawford and self.length - 1 in self.score

    def game_value(self, multiplier: int) -> int:
        """Points for a game won as single (1), gammon (2) or backgammon (3) at this cube.

        The cube value times the multiplier, except that with the Jacoby
        rule in money play gammons and backgammons count single while the
        cube is centred.

        >>> MatchState(cube_value=2, cube_owner=0).game_value(2)
        4
        >>> MatchState(jacoby=True).game_value(3)
        1

        :raises ValueError: a multiplier other than 1, 2 or 3.
        """
        if multiplier not in (1, 2, 3):
            raise ValueError(f"multiplier must be 1, 2 or 3, got {multiplier!r}")
        if self.is_money and self.jacoby and self.cube_owner == -1:
            multiplier = 1
        return self.cube_value * multiplier

    def after_game(self, winner: int, points: int, rules: Rules) -> MatchState:
        """The state once ``winner`` has won ``points``: the next game, or the end of the match.

        The cube goes back to 1 in the centre, the dice and offers are
        cleared, and ``game_state`` becomes :attr:`GameState.NONE` (the
        opening roll decides who is on roll; set ``player_on_roll``, ``turn``
        and :attr:`GameState.PLAYING` then) or :attr:`GameState.OVER` when the
        match is won.  The next game is the Crawford game when ``rules.crawford``
        is on and the winner has just reached match point (1-away) while
        neither player was there before.

        >>> nxt = MatchState(length=5, score=(2, 1)).after_game(0, 2, Rules())
        >>> nxt.score, nxt.crawford, nxt.game_state.name
        ((4, 1), True, 'NONE')

        :raises ValueError: ``winner`` not 0 or 1, or ``points`` < 1.
        """
        winner = _check_player(winner)
        if isinstance(points, bool) or not isinstance(points, int) or points < 1:
            raise ValueError(f"points must be a positive integer, got {points!r}")
        score = list(self.score)
        score[winner] = min(score[winner] + points, _MAX_FIELD)
        match_over = self.length > 0 and score[winner] >= self.length
        crawford = (
            rules.crawford
            and self.length > 1
            and not match_over
            and self.length - 1 not in self.score
            and score[winner] == self.length - 1
        )
        return dataclasses.replace(
            self,
            score=(score[0], score[1]),
            cube_value=1,
            cube_owner=-1,
            crawford=crawford,
            game_state=GameState.OVER if match_over else GameState.NONE,
            double_offered=False,
            resigned=0,
            dice=(0, 0),
        )

    # -------------------------------------------------------------- the cube

    def _double_problem(self, player: int, rules: Rules) -> str | None:
        if self.game_state != GameState.PLAYING:
            return f"player {player} cannot double: no game is being played ({self.game_state.name})"
        if self.double_offered:
            return f"player {player} cannot double: a double is already offered"
        if player != self.player_on_roll or self.dice != (0, 0):
            return f"player {player} cannot double: only the player on roll doubles, before rolling"
        if self.is_crawford_game:
            score = f"{self.score[0]}-{self.score[1]}"
            return f"player {player} cannot double in the Crawford game ({score} in a {self.length}-point match)"
        if self.cube_owner == 1 - player:
            return f"player {player} cannot double: player {1 - player} owns the cube"
        if self.cube_value * 2 > rules.max_cube:
            cube, top = self.cube_value, rules.max_cube
            return f"player {player} cannot double: the cube is at {cube} and the maximum is {top}"
        return None

    def can_double(self, player: int, rules: Rules) -> bool:
        """True if ``player`` may offer a double now.

        That needs a game in play, ``player`` on roll and not yet rolled, no
        double pending, not the Crawford game, a centred cube or one
        ``player`` owns, and a doubled cube within ``rules.max_cube``.  A dead
        cube (:meth:`is_cube_dead`) may still legally be turned.

        >>> MatchState(length=7, score=(6, 3), crawford=True).can_double(0, Rules())
        False
        >>> MatchState(length=7, score=(6, 3)).can_double(0, Rules())
        True

        :raises ValueError: a player other than 0 or 1.
        """
        return self._double_problem(_check_player(player), rules) is None

    def double(self, player: int, rules: Rules) -> MatchState:
        """``player`` offers a double: the state waiting for the opponent's take or pass.

        The cube value does not change until the take (:meth:`take`).

        >>> offered = MatchState().double(0, Rules())
        >>> offered.double_offered, offered.turn, offered.cube_value
        (True, 1, 1)

        :raises IllegalCubeActionError: see :meth:`can_double` for when.
        :raises ValueError: a player other than 0 or 1.
        """
        problem = self._double_problem(_check_player(player), rules)
        if problem:
            raise IllegalCubeActionError(problem)
        return dataclasses.replace(self, double_offered=True, turn=1 - player)

    def take(self) -> MatchState:
        """The offered double is taken: the cube doubles and the taker owns it.

        >>> MatchState().double(0, Rules()).take().cube_value
        2

        :raises IllegalCubeActionError: no double is offered.
        """
        if not self.double_offered:
            raise IllegalCubeActionError("cannot take: no double is offered")
        return dataclasses.replace(
            self,
            cube_value=self.cube_value * 2,
            cube_owner=self.turn,
            double_offered=False,
            turn=self.player_on_roll,
        )

    def drop(self, rules: Rules) -> MatchState:
        """The offered double is passed: the doubler wins the current cube value.

        Returns :meth:`after_game` for the doubler.

        >>> offered = MatchState(length=3, player_on_roll=1, turn=1).double(1, Rules())
        >>> offered.drop(Rules()).score
        (0, 1)

        :raises IllegalCubeActionError: no double is offered.
        """
        if not self.double_offered:
            raise IllegalCubeActionError("cannot pass: no double is offered")
        return self.after_game(self.player_on_roll, self.cube_value, rules)

    def beaver(self, rules: Rules) -> MatchState:
        """The doubled player beavers (money play): takes and redoubles at once, keeping the cube.

        The cube becomes four times its value before the double, owned by
        the beavering player; the doubler then rolls.

        >>> money = Rules(beaver=True)
        >>> MatchState().double(0, money).beaver(money).cube_value
        4

        :raises IllegalCubeActionError: no double is offered, beavers are off,
            match play, or the beavered cube would pass ``rules.max_cube``.
        """
        if not self.double_offered:
            raise IllegalCubeActionError("cannot beaver: no double is offered")
        if not self.is_money or not rules.beaver:
            raise IllegalCubeActionError(
                "cannot beaver: beavers are allowed only in money play with rules.beaver"
            )
        if self.cube_value * 4 > rules.max_cube:
            raise IllegalCubeActionError(
                f"cannot beaver: a cube of {self.cube_value * 4} passes the maximum {rules.max_cube}"
            )
        return dataclasses.replace(
            self,
            cube_value=self.cube_value * 4,
            cube_owner=self.turn,
            double_offered=False,
            turn=self.player_on_roll,
        )

    def is_cube_dead(self, player: int) -> bool:
        """True if turning the cube can gain ``player`` nothing: the cube is dead for them.

        In money play the cube is never dead.  In match play it is dead in
        the Crawford game (no one may double) and whenever winning a single
        game at the current cube value already wins ``player`` the match,
        i.e. ``away(player) <= cube_value``: a redouble would only raise
        what the opponent wins.  That covers every game of a 1-point match
        and the leader's cube after the Crawford game.

        >>> MatchState(length=7, score=(5, 3), cube_value=2, cube_owner=0).is_cube_dead(0)
        True
        >>> MatchState(length=7, score=(5, 3), cube_value=2, cube_owner=0).is_cube_dead(1)
        False

        :raises ValueError: a player other than 0 or 1.
        """
        player = _check_player(player)
        if self.is_money:
            return False
        return self.is_crawford_game or self.away(player) <= self.cube_value

    def take_point(self, taker: int, met: MatchEquityTable | None = None) -> float:
        """The cubeless, gammonless take point of ``taker`` facing a double now.

        Money play: 0.25.  Match play: :meth:`MatchEquityTable.take_point` at
        this score and cube, with ``met`` (default: Kazaross-XG2).

        >>> MatchState().take_point(1)
        0.25
        >>> round(MatchState(length=5, score=(3, 1)).take_point(1), 4)
        0.3713

        :raises ValueError: a player other than 0 or 1.
        """
        taker = _check_player(taker)
        if self.is_money:
            return MONEY_TAKE_POINT
        table = met if met is not None else MatchEquityTable.load()
        return table.take_point(self.away(taker), self.away(1 - taker), self.cube_value)


# ---------------------------------------------------------------------------
# Match equity tables


class MatchEquityTable:
    """A match equity table read from a gnubg MET XML file.

    ``equity(away, opp_away)`` is the chance that a player ``away`` points
    from victory wins the match against one ``opp_away`` away, before the
    Crawford game.  Row ``away = 1`` is the Crawford game itself (gnubg's
    convention).  ``post_crawford(away)`` is the trailer's chance after the
    Crawford game, with the leader 1-away.

    >>> met = MatchEquityTable.load()
    >>> met.name, met.max_length, met.equity(2, 4)
    ('Kazaross-XG2', 25, 0.6687)
    """

    def __init__(
        self,
        name: str,
        pre_crawford: Sequence[Sequence[float]],
        post_crawford: Sequence[float],
        *,
        title: str = "",
        source: str = "",
        notice: str = "",
    ) -> None:
        """Build a table from its values; usually :meth:`load` is what you want.

        >>> MatchEquityTable("toy", [[0.5, 0.7], [0.3, 0.5]], [0.5, 0.49]).equity(2, 1)
        0.3

        :raises InvalidMetError: the pre-Crawford table is not square, the
            post-Crawford row has another length, or a value is outside 0..1.
        """
        pre = tuple(tuple(float(x) for x in row) for row in pre_crawford)
        post = tuple(float(x) for x in post_crawford)
        n = len(pre)
        if n == 0 or any(len(row) != n for row in pre) or len(post) != n:
            raise InvalidMetError(
                f"MET {name!r}: the pre-Crawford table must be n x n and the post-Crawford row n long"
            )
        if not all(0.0 <= x <= 1.0 for row in pre for x in row) or not all(0.0 <= x <= 1.0 for x in post):
            raise InvalidMetError(f"MET {name!r}: every value must be a probability from 0 to 1")
        self.name = name
        """The name the table was loaded by, e.g. ``'Kazaross-XG2'``."""
        self.title = title
        """The title in the file (``<info><name>``)."""
        self.source = source
        """Where the numbers come from (``<info><description>``)."""
        self.notice = notice
        """The file's copyright and licence notice (its leading XML comment)."""
        self.max_length = n
        """The longest match the table covers."""
        self._pre = pre
        self._post = post

    def __repr__(self) -> str:
        return f"MatchEquityTable.load({self.name!r})"

    @staticmethod
    def available() -> list[str]:
        """The names of the tables shipped with bgfast.

        >>> MatchEquityTable.available()
        ['Kazaross-XG2', 'Rockwell-Kazaross', 'woolsey']
        """
        return sorted((p.stem for p in _MET_DIR.glob("*.xml")), key=str.lower)

    @classmethod
    def load(cls, name: str | os.PathLike[str] = DEFAULT_MET) -> MatchEquityTable:
        """Load a shipped table by name (case-insensitive), or a gnubg MET XML file by path.

        Tables are cached: loading the same name twice returns the same object.

        >>> MatchEquityTable.load("woolsey").max_length
        15

        :raises InvalidMetError: an unknown name, a file that cannot be read,
            or XML that is not an explicit gnubg MET.
        """
        if isinstance(name, str) and not name.lower().endswith(".xml"):
            for known in cls.available():
                if known.lower() == name.lower():
                    return _load_cached(str(_MET_DIR / f"{known}.xml"), known)
            raise InvalidMetError(f"unknown match equity table {name!r}; known: {', '.join(cls.available())}")
        path = os.fspath(name)
        return _load_cached(path, Path(path).stem)

    # ------------------------------------------------------------- lookups

    def _check_away(self, name: str, away: int) -> int:
        if isinstance(away, bool) or not isinstance(away, int) or away < 0:
            raise InvalidMetError(f"{name} must be a non-negative integer, got {away!r}")
        if away > self.max_length:
            raise InvalidMetError(f"{name} {away} is beyond the {self.max_length}-point table {self.name!r}")
        return away

    def equity(self, away: int, opp_away: int) -> float:
        """The chance that the player ``away`` from victory wins the match (pre-Crawford).

        ``away`` 0 means the match is won (1.0), ``opp_away`` 0 that it is
        lost (0.0); ``away`` is looked at first, so ``equity(0, 0)`` is 1.0,
        which lets a caller fill a whole ``(n+1) x (n+1)`` array.  With one
        player 1-away this is the Crawford game.

        >>> met = MatchEquityTable.load()
        >>> met.equity(1, 2), met.equity(4, 4), met.equity(0, 3)
        (0.67736, 0.5, 1.0)

        :raises InvalidMetError: a negative or non-integer away, or beyond
            :attr:`max_length`.
        """
        self._check_away("away", away)
        self._check_away("opp_away", opp_away)
        if away == 0:
            return 1.0
        if opp_away == 0:
            return 0.0
        return self._pre[away - 1][opp_away - 1]

    def post_crawford(self, away: int) -> float:
        """The trailer's chance of winning, ``away`` points away, after the Crawford game.

        The leader is 1-away.  ``away`` 1 is double match point (0.5),
        ``away`` 0 means the trailer has won (1.0).

        >>> met = MatchEquityTable.load()
        >>> met.post_crawford(2), met.post_crawford(3)
        (0.48803, 0.32264)

        :raises InvalidMetError: a negative or non-integer away, or beyond
            :attr:`max_length`.
        """
        self._check_away("away", away)
        if away == 0:
            return 1.0
        return self._post[away - 1]

    def mwc(self, away: int, opp_away: int, post_crawford: bool = False) -> float:
        """Match winning chance at any score, before or after the Crawford game.

        ``away`` or ``opp_away`` at or below 0 means that player has won.
        With ``post_crawford`` true (the Crawford game has been played), a
        1-away player is the leader and :meth:`post_crawford` gives the
        chance; otherwise it is :meth:`equity`.

        >>> met = MatchEquityTable.load()
        >>> met.mwc(1, 3, post_crawford=True), met.mwc(-2, 5)
        (0.67736, 1.0)

        :raises InvalidMetError: a non-integer away, or beyond :attr:`max_length`.
        """
        for name, value in (("away", away), ("opp_away", opp_away)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidMetError(f"{name} must be an integer, got {value!r}")
        if away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if post_crawford and opp_away == 1:
            return self.post_crawford(away)
        if post_crawford and away == 1:
            return 1.0 - self.post_crawford(opp_away)
        return self.equity(away, opp_away)

    def _outcomes(self, away: int, opp_away: int, points: int) -> tuple[float, float]:
        """MWC after the player wins / loses ``points`` in a game now at (away, opp_away)."""
        self._check_away("away", away)
        self._check_away("opp_away", opp_away)
        if away == 0 or opp_away == 0:
            raise InvalidMetError(f"the match is already over at {away}-away, {opp_away}-away")
        # A game played with either player at 1-away is the Crawford game or
        # comes after it, so the next game is post-Crawford.
        post = away == 1 or opp_away == 1
        return (
            self.mwc(away - points, opp_away, post),
            self.mwc(away, opp_away - points, post),
        )

    def take_point(self, away: int, opp_away: int, cube_value: int = 1) -> float:
        """The match winning chance the taker needs to take a double from ``cube_value`` to twice that.

        Cubeless and gammonless, from the taker's side: the taker is
        ``away`` points from victory, the doubler ``opp_away``.  Passing
        gives the doubler ``cube_value`` points; taking plays for
        ``2 * cube_value``.  The take point is
        ``(pass - lose) / (win - lose)`` (:func:`risk_gain_take_point`).  When
        either player is 1-away the game is taken to be post-Crawford (there
        is no doubling in the Crawford game), so the results use
        :meth:`post_crawford`; a player who reaches 1-away from a longer
        score goes into the Crawford game, whose chances are row/column 1 of
        the pre-Crawford table.

        >>> met = MatchEquityTable.load()
        >>> round(met.take_point(4, 2), 4), round(met.take_point(2, 4), 4)
        (0.3713, 0.1989)

        :raises InvalidMetError: an away of 0, beyond :attr:`max_length`, or
            a cube value that is not a positive integer.
        """
        if isinstance(cube_value, bool) or not isinstance(cube_value, int) or cube_value < 1:
            raise InvalidMetError(f"cube_value must be a positive integer, got {cube_value!r}")
        win, lose = self._outcomes(away, opp_away, 2 * cube_value)
        _, passed = self._outcomes(away, opp_away, cube_value)
        return risk_gain_take_point(passed, win, lose)

    def emg_to_mwc(self, emg: float, away: int, opp_away: int, cube_value: int = 1) -> float:
        """Convert an equity in normalised money-game units (EMG) to a match winning chance.

        EMG +1 means winning ``cube_value`` points for sure and -1 losing
        them; the MWC is interpolated linearly between those two outcomes
        (gnubg's ``eq2mwc``).

        >>> met = MatchEquityTable.load()
        >>> met.emg_to_mwc(1.0, 3, 3), met.emg_to_mwc(-1.0, 3, 3), met.emg_to_mwc(0.0, 3, 3)
        (0.59947, 0.40053, 0.5)

        :raises InvalidMetError: as for :meth:`take_point`.
        """
        win, lose = self._outcomes(away, opp_away, cube_value)
        return lose + (emg + 1.0) / 2.0 * (win - lose)

    def mwc_to_emg(self, mwc: float, away: int, opp_away: int, cube_value: int = 1) -> float:
        """Convert a match winning chance to normalised money-game units (the inverse of :meth:`emg_to_mwc`).

        >>> met = MatchEquityTable.load()
        >>> round(met.mwc_to_emg(met.emg_to_mwc(0.3, 5, 2), 5, 2), 12)
        0.3

        :raises InvalidMetError: as for :meth:`take_point`.
        """
        win, lose = self._outcomes(away, opp_away, cube_value)
        return 2.0 * (mwc - lose) / (win - lose) - 1.0


@functools.cache
def _load_cached(path: str, name: str) -> MatchEquityTable:
    return _parse_met_file(path, name)


def _parse_met_file(path: str, name: str) -> MatchEquityTable:
    """Read a gnubg MET XML file with explicit pre- and post-Crawford tables."""
    try:
        root = ET.parse(path).getroot()
    except OSError as exc:
        raise InvalidMetError(f"cannot read match equity table {path!r}: {exc.strerror or exc}") from None
    except ET.ParseError as exc:
        raise InvalidMetError(f"match equity table {path!r} is not valid XML: {exc}") from None
    if root.tag != "met":
        raise InvalidMetError(f"match equity table {path!r} has root <{root.tag}>, not <met>")

    def values(row: ET.Element) -> list[float]:
        try:
            return [float((me.text or "").strip()) for me in row.findall("me")]
        except ValueError:
            raise InvalidMetError(f"match equity table {path!r} has a <me> that is not a number") from None

    pre = root.find("pre-crawford-table")
    posts = root.findall("post-crawford-table")
    if pre is None or len(posts) != 1:
        raise InvalidMetError(f"match equity table {path!r} needs one pre- and one post-Crawford table")
    post = posts[0]
    if pre.get("type", "explicit") != "explicit" or post.get("type", "explicit") != "explicit":
        raise InvalidMetError(f"match equity table {path!r}: only explicit tables are supported")
    if post.get("player", "both") != "both":
        raise InvalidMetError(
            f"match equity table {path!r}: only a post-Crawford table for both players is supported"
        )
    post_rows = post.findall("row")
    if len(post_rows) != 1:
        raise InvalidMetError(f"match equity table {path!r}: the post-Crawford table must have one row")
    # The copyright notice is the XML comment before <met>, which ElementTree drops.
    raw = Path(path).read_text(encoding="utf-8", errors="replace")
    start, end = raw.find("<!--"), raw.find("-->")
    notice = raw[start + 4 : end] if 0 <= start < end < raw.find("<met") else ""
    table = MatchEquityTable(
        name,
        [values(row) for row in pre.findall("row")],
        values(post_rows[0]),
        title=(root.findtext("info/name") or "").strip(),
        source=" ".join((root.findtext("info/description") or "").split()),
        notice="\n".join(line.strip() for line in notice.splitlines()).strip(),
    )
    length = (root.findtext("info/length") or "").strip()
    if length and length != str(table.max_length):
        raise InvalidMetError(
            f"match equity table {path!r} says length {length} but has {table.max_length} rows"
        )
    return table


def parse_position(position: Position | str) -> tuple[Position, MatchState | None]:
    """A position and, when the text carries one, its match state.

    Accepts a :class:`~bgfast.position.Position`, a gnubg Position ID,
    ``PositionID:MatchID`` (gnubg's combined form), or an XGID.

    >>> pos, match = parse_position("4HPwATDgc/ABMA:MAEgASAAIAAE")
    >>> pos.id(), match.length
    ('4HPwATDgc/ABMA', 9)

    :raises InvalidPositionError: a malformed ID, or neither a Position nor text.
    :raises InvalidMatchIdError: a malformed Match ID or XGID match field.
    """
    if isinstance(position, Position):
        return position, None
    if not isinstance(position, str):
        raise InvalidPositionError(f"a position is a Position, a Position ID or an XGID, got {position!r}")
    text = position.strip()
    if text.startswith("XGID=") or text.count(":") >= 4:
        return Position.from_xgid(text), MatchState.from_xgid(text)
    if ":" in text:
        pid, mid = text.split(":", 1)
        return Position.from_id(pid), MatchState.from_match_id(mid)
    return Position.from_id(text), None
