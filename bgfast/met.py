"""Match equity tables (METs) and take points.

A match equity table gives the chance that each player wins a match from a score,
before the next game, with the cube in the centre.  bgfast reads the tables GNU
Backgammon ships as XML (``bgfast/data/met``: Kazaross-XG2, the default, Rockwell-
Kazaross and Woolsey; each file keeps its copyright notice, see
:attr:`MatchEquityTable.notice`).

Every match winning chance (MWC) here is a probability from 0 to 1, from the point
of view of the player named first in the call (``away`` before ``opp_away``).
Scores are counted as points *away* from winning the match.  Every lookup at a score
(:meth:`MatchEquityTable.mwc`, and through it the take points and the EMG conversions)
is the core's one (:func:`bgfast._core.cube.mwc`), on the table's C form
(:attr:`MatchEquityTable.core_table`), which the game loop's cube decisions read too.

>>> met = MatchEquityTable.load()
>>> met.equity(2, 4), round(met.take_point(4, 2), 4)
(0.6687, 0.3713)
"""

from __future__ import annotations

import functools
import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from bgfast._core import cube as _cube
from bgfast.errors import InvalidMetError
from bgfast.validation import read_input_file, whole_number

__all__ = ["DEFAULT_MET", "MAX_MET_BYTES", "MAX_MET_LENGTH", "MONEY_TAKE_POINT", "MatchEquityTable", "risk_gain_take_point"]

DEFAULT_MET = "Kazaross-XG2"
"""The match equity table used when none is named."""

MAX_MET_BYTES = 1 << 24
"""The largest match equity table file :meth:`MatchEquityTable.load` reads (16 MiB; a
64-point table is some 200 kB)."""

_MET_DIR = Path(__file__).resolve().parent / "data" / "met"

MAX_MET_LENGTH = _cube.MET_ROWS - 1
"""The longest match a table may cover (63 points: the core's table holds 0- to 63-away)."""


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
            post-Crawford row has another length, a value is outside 0..1, or the
            table is longer than :data:`MAX_MET_LENGTH`.
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
        if n > MAX_MET_LENGTH:
            raise InvalidMetError(f"MET {name!r} covers {n} points; bgfast reads at most {MAX_MET_LENGTH}")
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
        # index = points away, 0 = the match is won (row 0 all 1.0, column 0 below it 0.0)
        self.core_table = _cube.Met(
            [[1.0] * (n + 1)] + [[0.0, *row] for row in pre], [1.0, *post])
        """The table in the core's form (a :class:`bgfast._core.cube.Met`), as the game
        loop's cube decisions and :meth:`mwc` read it."""

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

    def check_length(self, length: int, error: type[ValueError] = InvalidMetError, *, key: str = "",
                     then: str = "") -> None:
        """Refuse to judge a match of ``length`` points by this table when the table does not
        hold its scores: the one message for every command that judges match play (what
        to do: a longer table where one is shipped, else that such matches can be played
        but not judged).  ``key`` prefixes the message (a spec's key path), ``then`` ends it
        (what else the caller may do).

        >>> MatchEquityTable.load().check_length(31)
        Traceback (most recent call last):
        ...
        bgfast.errors.InvalidMetError: match length 31 is beyond the 25-point match equity table 'Kazaross-XG2'; the tables bgfast ships hold at most 25 points, so longer matches can be played but not judged (luck, errors, match winning chances)

        :raises error: ``length`` above :attr:`max_length`.
        """
        if length <= self.max_length:
            return
        longer = [name for name in self.available() if MatchEquityTable.load(name).max_length >= length]
        if longer:
            advice = f"judge it with a longer table: {', '.join(repr(n) for n in longer)}"
        else:
            longest = max(MatchEquityTable.load(name).max_length for name in self.available())
            advice = (f"the tables bgfast ships hold at most {longest} points, so longer matches can be "
                      "played but not judged (luck, errors, match winning chances)")
        raise error(f"{key}{': ' if key else ''}match length {length} is beyond the {self.max_length}-point "
                    f"match equity table {self.name!r}; {advice}{'; ' if then else ''}{then}")

    # ------------------------------------------------------------- lookups

    def _check_away(self, name: str, away: int) -> int:
        away = whole_number(away, name, low=0, error=InvalidMetError, what="an integer")
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
        away = self._check_away("away", away)
        opp_away = self._check_away("opp_away", opp_away)
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
        away = self._check_away("away", away)
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
        away = max(0, whole_number(away, "away", error=InvalidMetError, what="an integer"))
        opp_away = max(0, whole_number(opp_away, "opp_away", error=InvalidMetError, what="an integer"))
        if away and opp_away:
            self._check_away("away", away)
            self._check_away("opp_away", opp_away)
        else:   # a finished match reads no table: keep the other side's away inside it
            away, opp_away = min(away, 1), min(opp_away, 1)
        return float(_cube.mwc(self.core_table, away, opp_away, bool(post_crawford)))

    def _outcomes(self, away: int, opp_away: int, points: int) -> tuple[float, float]:
        """MWC after the player wins / loses ``points`` in a game now at (away, opp_away)."""
        away = self._check_away("away", away)
        opp_away = self._check_away("opp_away", opp_away)
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
        cube_value = whole_number(cube_value, "cube_value", low=1, error=InvalidMetError, what="an integer")
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
    data = read_input_file(path, "match equity table", limit=MAX_MET_BYTES, error=InvalidMetError)
    try:
        root = ET.fromstring(data)
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
    raw = data.decode("utf-8", errors="replace")
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
