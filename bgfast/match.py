"""Match state and the cube rules: :class:`Rules` and :class:`MatchState`.

* :class:`MatchState` -- a frozen value: score, match length, cube, who is on
  roll, dice.  It reads and writes GNU Backgammon's Match ID
  (:meth:`MatchState.from_match_id` / :meth:`MatchState.match_id`, the codec is
  :mod:`bgfast.codecs.match_id`) and the match fields of eXtreme Gammon's XGID
  (:meth:`MatchState.from_xgid` / :meth:`MatchState.xgid`, the codec is
  :mod:`bgfast.codecs.xgid`), and knows the cube rules:
  :meth:`~MatchState.can_double`, :meth:`~MatchState.double`,
  :meth:`~MatchState.take`, :meth:`~MatchState.drop`, :meth:`~MatchState.beaver`,
  :meth:`~MatchState.is_cube_dead`, and which roll may be played (:meth:`~MatchState.check_roll`).
* :class:`Rules` -- the options: Crawford, Jacoby, beavers, maximum cube, variant,
  and whether a dead cube may be doubled.

Match equity tables and take points live in :mod:`bgfast.met` (re-exported here
for old code: :class:`~bgfast.met.MatchEquityTable`, :data:`~bgfast.met.DEFAULT_MET`,
:data:`~bgfast.met.MONEY_TAKE_POINT`, :func:`~bgfast.met.risk_gain_take_point`).

Players are numbered 0 and 1 as in gnubg's Match ID; the board of the player
on roll (``player_on_roll``) is side 1 of a bgfast board.  Read from an XGID,
the player on roll is player 1 and the other player 0, whoever sits at the
bottom (GNU Backgammon's reading of XGIDs); written to one, player 1 sits at
the bottom.  See :mod:`bgfast.codecs.xgid`.

Every match winning chance (MWC) here is a probability from 0 to 1, from the
point of view of the player named first in the call.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bgfast.codecs.match_id import CENTRED, LAYOUT, decode_match_id, encode_match_id
from bgfast.codecs.xgid import (
    DEFAULT_MAX_CUBE_LOG2,
    format_xgid,
    match_fields_to_xgid,
    parse_xgid,
    xgid_to_match_fields,
)
from bgfast.dice import Dice
from bgfast.errors import IllegalCubeActionError, InvalidDiceError, InvalidMatchIdError, InvalidSpecError
from bgfast.met import DEFAULT_MET, MONEY_TAKE_POINT, MatchEquityTable, risk_gain_take_point
from bgfast.position import VARIANTS as _POSITION_VARIANTS, Position
from bgfast.validation import flag, one_of, power_of_two, whole_number

__all__ = [
    "DEAD_CUBE_RULES",
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

DEAD_CUBE_RULES = ("refuse", "allow")
"""The values of :attr:`Rules.dead_cube`: a double of a dead cube is refused (gnubg's rule) or allowed."""

_MAX_FIELD = (1 << LAYOUT["length"][1]) - 1  # the match length and the scores: 32767
_MAX_CUBE = 1 << ((1 << LAYOUT["cube_log2"][1]) - 1)  # the cube's log2 has 4 bits: 32768


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

    def describe(self) -> str:
        """The state in words, for messages: ``"the game ended by a resignation"``..."""
        return _GAME_STATE_WORDS[self]


_GAME_STATE_WORDS = {GameState.NONE: "no game has started", GameState.PLAYING: "a game is being played",
                     GameState.OVER: "the game is over", GameState.RESIGNED: "the game ended by a resignation",
                     GameState.DROPPED: "the game ended by a pass"}


_ENDED = (GameState.OVER, GameState.RESIGNED, GameState.DROPPED)
"""The game states of a game that has ended (a match may be won in them)."""


def _check_player(player: int) -> int:
    return whole_number(player, "player", low=0, high=1)


@dataclass(frozen=True)
class Rules:
    """The rule options of a match or money session.

    ``jacoby`` and ``beaver`` apply to money play only; ``crawford`` and
    ``dead_cube`` to match play only.  ``max_cube`` is the highest cube value
    (64: the faces of the physical cube).

    >>> Rules()
    Rules(crawford=True, jacoby=True, beaver=False, max_cube=64, variant='standard', dead_cube='refuse')
    >>> Rules(max_cube=48)
    Traceback (most recent call last):
    ...
    bgfast.errors.InvalidSpecError: rules.max_cube must be a power of two from 2 to 32768, got 48

    :raises InvalidSpecError: a flag that is not a bool, ``max_cube`` not a
        power of two from 2 to 32768, an unknown variant, or ``dead_cube``
        other than ``"refuse"`` and ``"allow"``.
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
    dead_cube: str = "refuse"
    """Doubling a dead cube (:meth:`MatchState.is_cube_dead`: in match play, when
    winning at the current cube already wins the doubler the match): ``"refuse"``
    as GNU Backgammon does ("The cube is dead; you can't double any more"), or
    ``"allow"``, the looser rule some clubs play.  See :data:`DEAD_CUBE_RULES`."""

    def __post_init__(self) -> None:
        set_ = functools.partial(object.__setattr__, self)
        for name in ("crawford", "jacoby", "beaver"):
            set_(name, flag(getattr(self, name), f"rules.{name}", error=InvalidSpecError))
        set_("max_cube", power_of_two(self.max_cube, "rules.max_cube", low=2, high=_MAX_CUBE, error=InvalidSpecError))
        one_of(self.variant, "rules.variant", VARIANTS, error=InvalidSpecError)
        one_of(self.dead_cube, "rules.dead_cube", DEAD_CUBE_RULES, error=InvalidSpecError)


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
        that is not a power of two, a die of 7, one die zero and not the other),
        or fields that make no possible state: a score at or past the match length
        while the game is not over (``game_state`` PLAYING or NONE; gnubg's ``set
        xgid`` refuses such a score too), both scores there, a Crawford game away
        from match point.
    """

    length: int = 0
    """The match length; 0 = money play."""
    score: tuple[int, int] = (0, 0)
    """Points won so far by player 0 and player 1."""
    cube_value: int = 1
    """The cube value: 1, 2, 4, ...  While a double is offered, the value before the double."""
    cube_owner: int = -1
    """-1 = centred, 0 or 1 = the player who owns the cube (at any value, 1 included: a set-up
    position may give a player the 1-cube, as gnubg's ``set cube owner`` and Match ID do)."""
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
            return whole_number(value, name, low=0, high=high, error=E, what="an integer")

        set_("length", count("length", self.length, _MAX_FIELD))
        try:
            score = tuple(self.score)
        except TypeError:
            raise E(f"score must be two integers, got {self.score!r}") from None
        if len(score) != 2:
            raise E(f"score must be two integers, got {self.score!r}")
        set_("score", (count("score", score[0], _MAX_FIELD), count("score", score[1], _MAX_FIELD)))
        cube = power_of_two(self.cube_value, "cube_value", low=1, high=_MAX_CUBE, error=E)
        set_("cube_value", cube)
        set_("cube_owner", whole_number(self.cube_owner, "cube_owner (-1 = centred)", low=-1, high=1, error=E,
                                        what="an integer"))
        if self.cube_owner == -1 and cube != 1:
            raise E(f"a centred cube is at 1 (a taken double gives the taker the cube), got {cube}")
        for name in ("player_on_roll", "turn"):
            set_(name, count(name, getattr(self, name), 1))
        for name in ("crawford", "double_offered", "jacoby"):
            set_(name, flag(getattr(self, name), name, error=E, zero_one=True))
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
        if self.length and max(self.score) >= self.length:
            won = f"{self.score[0]}-{self.score[1]}"
            if min(self.score) >= self.length:
                raise E(f"score {won}: only one player can win a {self.length}-point match")
            if self.game_state not in _ENDED:
                raise E(f"score {won} has won the {self.length}-point match, so the game is over "
                        f"(game_state OVER, RESIGNED or DROPPED), not {self.game_state.name}")
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
        if self.double_offered and self.cube_owner == 1 - self.player_on_roll:
            raise E(f"player {self.player_on_roll} cannot have doubled: player {self.cube_owner} owns the cube "
                    "(only the cube's owner, or either player with the cube centred, may double)")

    @classmethod
    def _from_valid_fields(cls, length: int, score: tuple[int, int], cube_value: int, cube_owner: int,
                           crawford: bool, player_on_roll: int, turn: int, double_offered: bool,
                           dice: tuple[int, int], jacoby: bool) -> MatchState:
        """A game in progress from fields that are already valid and normalised (the game
        loop's own, as it calls a Python bot back), without the constructor's checks."""
        state = object.__new__(cls)
        state.__dict__.update(length=length, score=score, cube_value=cube_value, cube_owner=cube_owner,
                              crawford=crawford, player_on_roll=player_on_roll, turn=turn,
                              game_state=GameState.PLAYING, double_offered=double_offered, resigned=0,
                              dice=dice, jacoby=jacoby)
        return state

    # ------------------------------------------------------------------ text

    def __repr__(self) -> str:
        return f"MatchState.from_match_id({self.match_id()!r})"

    def __str__(self) -> str:
        """:meth:`describe`: the side on roll's score first."""
        return self.describe()

    def describe(self, *, dice: bool = True) -> str:
        """The match state in one line, from the side on roll's view: the one wording of
        ``bgfast show``, ``bgfast rollout`` and ``str(match)``.

        The score (of a match; money games have none) is the side on roll's first, then
        its opponent's, and says so; the cube is centred or owned by the side on roll or by its opponent; the player
        numbers (as in the Match ID) follow in brackets.  With ``dice=False`` the dice
        are left out (a rollout names the roll it plays itself).

        >>> print(MatchState(length=7, score=(2, 4), cube_value=2, cube_owner=1, player_on_roll=1))
        7-point match, score 4-2 (the side on roll first), cube 2 owned by the side on roll (player 1 on roll), dice not rolled
        >>> MatchState(jacoby=True).describe(dice=False)
        'money game (Jacoby), cube 1 centred (player 0 on roll)'
        """
        me = self.player_on_roll
        rule = ", Crawford game" if self.length and self.crawford else ""
        rule += ", Jacoby" if not self.length and self.jacoby else ""
        head = f"{self.length}-point match" if self.length else "money game"
        owner = ("centred" if self.cube_owner < 0 else
                 "owned by the side on roll" if self.cube_owner == me else "owned by its opponent")
        if self.length:
            head += f", score {self.score[me]}-{self.score[1 - me]} (the side on roll first{rule})"
        elif rule:
            head += f" ({rule[2:]})"
        text = f"{head}, cube {self.cube_value} {owner} (player {me} on roll)"
        if self.resigned:
            kind = ("a single game", "a gammon", "a backgammon")[self.resigned - 1]
            text += f", a resignation of {kind} offered to player {self.turn}"
        if self.double_offered:
            text += ", a double offered to its opponent"
        elif dice:
            text += f", dice {self.dice[0]}{self.dice[1]}" if self.dice[0] else ", dice not rolled"
        return text

    @classmethod
    def from_match_id(cls, match_id: str) -> MatchState:
        """Decode a 12-character gnubg Match ID (the bit layout: :mod:`bgfast.codecs.match_id`).

        Dice stored smaller first are accepted and normalised, larger first.

        >>> MatchState.from_match_id('cAkXAAAAAAAA').dice
        (6, 5)

        :raises InvalidMatchIdError: not 12 Base64 characters, a cube owner
            of 2, a game state above 4, a die of 7, one die zero and not the
            other, bits 67-71 set, or fields that make no possible match state
            (among them a turn field naming the player not on roll with nothing for it to
            answer).
        """
        fields = decode_match_id(match_id)
        try:
            state = cls._from_match_fields(fields)
            if (state.game_state == GameState.PLAYING and not state.double_offered and not state.resigned
                    and state.turn != state.player_on_roll):
                raise InvalidMatchIdError(f"player {state.turn} is to act but player {state.player_on_roll} is on "
                                          "roll, with no double or resignation for it to answer: the turn field "
                                          "must name the player on roll")
            return state
        except InvalidMatchIdError as exc:
            raise InvalidMatchIdError(f"{exc} in Match ID {match_id!r}") from None

    def match_id(self) -> str:
        """Encode as a 12-character gnubg Match ID.

        >>> MatchState(player_on_roll=1, turn=1, dice=(6, 5), jacoby=True).match_id()
        'cAkXAAAAAAAA'
        """
        return encode_match_id(self._match_fields())

    @classmethod
    def from_xgid(cls, xgid: str) -> MatchState:
        """Read the match fields of an XGID (the position field is checked, not kept).

        As GNU Backgammon 1.07 reads XGIDs (``set xgid``): the player on roll
        (the XGID turn field's, whether it sits at the bottom or the top) is
        player 1 and the other player 0, and the scores and the cube owner are
        numbered so.  With dice ``'D'`` the player on roll has doubled and
        player 0 must act (gnubg drops such a double; bgfast keeps it).  The
        game is taken to be in progress.  What a MatchState does not hold is
        dropped: the beaver bit and the maximum cube (they belong to
        :class:`Rules`; :func:`bgfast.formats.text.read_position` returns
        them).  See :func:`bgfast.codecs.xgid.xgid_to_match_fields`.

        >>> state = MatchState.from_xgid('XGID=-b----E-C---eE---c-e----B-:1:1:1:D:4:2:0:7:10')
        >>> state.score, state.cube_value, state.cube_owner, state.player_on_roll, state.turn
        ((2, 4), 2, 1, 1, 0)
        >>> MatchState.from_xgid('XGID=-b----E-C---eE---c-e----B-:1:-1:-1:31:4:2:0:7:10').score
        (4, 2)

        :raises InvalidPositionError: the position field is malformed.
        :raises InvalidMatchIdError: another field is malformed, a score at or
            past the match length (gnubg refuses it too), or the dice field is
            a pending beaver (``'B'``) or raccoon (``'R'``), which a MatchState
            cannot hold.
        """
        return cls._from_match_fields(xgid_to_match_fields(parse_xgid(xgid)))

    def xgid(self, position_board: Position | Sequence[Sequence[int]], rules: Rules | None = None) -> str:
        """Write an XGID for this state and a board: a :class:`~bgfast.position.Position` or
        its :attr:`~bgfast.position.Position.board` ``[side0, side1]`` (side 1 on roll).

        Player 1 is drawn at the bottom, player 0 at the top.  The beaver bit
        and the maximum cube come from ``rules`` when given (otherwise no
        beavers and XG's default maximum, 2**10).  The game state and a
        resignation offer are not part of an XGID and are left out.  Read back
        (:meth:`from_xgid`, or gnubg's ``set xgid``) it gives this state when
        player 1 is on roll, and this state with the players renumbered when
        player 0 is (the player on roll is read as player 1).  See
        :func:`bgfast.codecs.xgid.match_fields_to_xgid`.

        >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
        >>> MatchState(length=7, score=(2, 4), player_on_roll=1, turn=1, dice=(3, 1)).xgid([start, start])
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:4:2:0:7:10'
        >>> MatchState(length=7, score=(2, 4), player_on_roll=1, turn=1, dice=(3, 1)).xgid(Position())[:31]
        'XGID=-b----E-C---eE---c-e----B-'

        :raises InvalidPositionError: the board is not a valid position.
        """
        record = match_fields_to_xgid(
            self._match_fields(),
            position_board.board if isinstance(position_board, Position) else position_board,
            beaver=rules is not None and rules.beaver,
            max_cube_log2=DEFAULT_MAX_CUBE_LOG2 if rules is None else rules.max_cube.bit_length() - 1,
        )
        return format_xgid(record)

    @classmethod
    def _from_match_fields(cls, fields: Mapping[str, int]) -> MatchState:
        """The state of a Match ID's fields (:mod:`bgfast.codecs.match_id`)."""
        return cls(
            length=fields["length"],
            score=(fields["score0"], fields["score1"]),
            cube_value=1 << fields["cube_log2"],
            cube_owner=-1 if fields["owner"] == CENTRED else fields["owner"],
            crawford=bool(fields["crawford"]),
            player_on_roll=fields["player_on_roll"],
            turn=fields["turn"],
            game_state=fields["game_state"],  # type: ignore[arg-type]
            double_offered=bool(fields["double_offered"]),
            resigned=fields["resigned"],
            dice=(fields["die1"], fields["die2"]),
            jacoby=not fields["no_jacoby"],
        )

    def _match_fields(self) -> dict[str, int]:
        """This state as a Match ID's fields (the inverse of :meth:`_from_match_fields`)."""
        return {
            "cube_log2": self.cube_value.bit_length() - 1,
            "owner": CENTRED if self.cube_owner == -1 else self.cube_owner,
            "player_on_roll": self.player_on_roll,
            "crawford": int(self.crawford),
            "game_state": int(self.game_state),
            "turn": self.turn,
            "double_offered": int(self.double_offered),
            "resigned": self.resigned,
            "die1": self.dice[0],
            "die2": self.dice[1],
            "length": self.length,
            "score0": self.score[0],
            "score1": self.score[1],
            "no_jacoby": int(not self.jacoby),
        }

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
        one_of(multiplier, "multiplier", (1, 2, 3))
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
        points = whole_number(points, "points", low=1)
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

    # -------------------------------------------------------------- the roll

    def check_roll(self, dice: Dice | str | tuple[int, int]) -> Dice:
        """``dice`` as :class:`~bgfast.dice.Dice` if the player on roll may play them now.

        That needs a game in play (started, not ended), no double and no resignation
        waiting for an answer, and, when this state says the dice were rolled,
        those dice (in either order).  This is what makes a Match ID or an XGID
        a position to play from (``bgfast moves``, a rollout's first roll).

        >>> MatchState(player_on_roll=1, turn=1, dice=(6, 5)).check_roll("56")
        Dice(high=6, low=5)
        >>> MatchState(player_on_roll=1, turn=1, dice=(6, 5)).check_roll("31")
        Traceback (most recent call last):
        ...
        bgfast.errors.InvalidDiceError: the match state says 6-5 were rolled, not 3-1

        :raises InvalidDiceError: dice that do not parse, other dice than the
            state's, a pending double or resignation, or no game in play (not
            started, or ended).
        """
        roll = Dice.of(dice)
        if self.game_state != GameState.PLAYING:
            raise InvalidDiceError(f"no roll to play: {self.game_state.describe()}")
        if self.double_offered:
            raise InvalidDiceError(f"no roll to play: a double is pending, player {self.turn} is to take or pass")
        if self.resigned:
            raise InvalidDiceError(f"no roll to play: a resignation is offered, player {self.turn} is to answer")
        if self.dice != (0, 0) and self.dice != (roll.high, roll.low):
            raise InvalidDiceError(f"the match state says {self.dice[0]}-{self.dice[1]} were rolled, "
                                   f"not {roll.high}-{roll.low}")
        return roll

    # -------------------------------------------------------------- the cube

    def _double_problem(self, player: int, rules: Rules) -> str | None:
        if self.game_state != GameState.PLAYING:
            return f"player {player} cannot double: {self.game_state.describe()}"
        if self.double_offered:
            return f"player {player} cannot double: a double is already offered"
        if player != self.player_on_roll or self.dice != (0, 0):
            return f"player {player} cannot double: only the player on roll doubles, before rolling"
        if self.is_crawford_game:
            score = f"{self.score[player]}-{self.score[1 - player]}"
            return (f"player {player} cannot double in the Crawford game (score {score}, player {player}'s first, "
                    f"in a {self.length}-point match)")
        if self.cube_owner == 1 - player:
            return f"player {player} cannot double: player {1 - player} owns the cube"
        if self.cube_value * 2 > rules.max_cube:
            cube, top = self.cube_value, rules.max_cube
            return f"player {player} cannot double: the cube is at {cube} and the maximum is {top}"
        if rules.dead_cube == "refuse" and self.is_cube_dead(player):
            return (f"player {player} cannot double: the cube is dead (at {self.cube_value}, winning this game "
                    f"already wins the match {self.away(player)}-away; rules.dead_cube is 'refuse')")
        return None

    def can_double(self, player: int, rules: Rules) -> bool:
        """True if ``player`` may offer a double now.

        That needs a game in play, ``player`` on roll and not yet rolled, no
        double pending, not the Crawford game, a centred cube or one
        ``player`` owns, a doubled cube within ``rules.max_cube``, and a cube
        that is not dead for ``player`` (:meth:`is_cube_dead`) unless
        ``rules.dead_cube`` is ``"allow"``.  With the default ``"refuse"`` this
        is exactly when GNU Backgammon 1.07 accepts ``double`` (checked on every
        score and cube of matches to 1, 2, 3, 5 and 7, ``tests/test_match_gnubg.py``).

        >>> MatchState(length=7, score=(6, 3), crawford=True).can_double(0, Rules())
        False
        >>> MatchState(length=7, score=(3, 6)).can_double(0, Rules())
        True
        >>> leader = MatchState(length=7, score=(5, 3), cube_value=2, cube_owner=0)
        >>> leader.can_double(0, Rules()), leader.can_double(0, Rules(dead_cube="allow"))
        (False, True)

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
