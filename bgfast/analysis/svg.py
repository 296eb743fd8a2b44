"""A picture of the board as SVG, for a web page (``bgfast show --svg FILE``).

The picture is plain, self-contained SVG 1.1 text (no script, no outside font or
image), made without any drawing library.  It is drawn from the side on roll's view,
as :meth:`Position.diagram <bgfast.position.Position.diagram>` prints it: its points
numbered 1 to 24 from its home board at the bottom right (the light checkers, moving
anticlockwise down to its 1-point), its opponent's dark checkers, the bar in the middle
(the opponent's checkers on the bar at the top, the side on roll's at the bottom), the
borne-off checkers in the trays on the right (the side on roll's at the bottom), the cube
on the left (in the middle when centred, showing 64 as a real board does; at the bottom
when the side on roll owns it, at the top when its opponent does), the score or "money
game" and the pip counts above, and the dice, when given, on the right half.  A point
with more than five checkers shows five and the count on the outermost.

Given a play (``bgfast hint --svg``: the best one), the board is the one after it, still
from the mover's view, the play is named in the header, and each checker's step of one
die is an arrow from a dashed ring where the checker stood to where it went (bar and
borne off included).

>>> import xml.etree.ElementTree as ET
>>> root = ET.fromstring(board_svg("4HPwATDgc/ABMA", dice="31"))
>>> root.tag, root.get("viewBox")
('{http://www.w3.org/2000/svg}svg', '0 0 600 460')
"""
from __future__ import annotations

import os
from pathlib import Path
from xml.sax.saxutils import escape

from bgfast.dice import Dice
from bgfast.errors import IllegalMoveError
from bgfast.formats.text import read_position
from bgfast.match import MatchState
from bgfast.position import BAR, NUM_CHECKERS, OFF, Move, Position
from bgfast.validation import write_output_file

__all__ = ["board_svg", "write_svg"]

WIDTH, HEIGHT = 600, 460
"""The picture's size in SVG user units (it scales: the ``viewBox`` is this)."""

_POINT = 36                  # a point's width and a checker's diameter
_LEFT = 50                   # the board's left edge (the cube's column is left of it)
_TOP = 60                    # the board's top edge (the header is above it)
_FRAME = 12                  # the frame around the playing area
_HALF = 6 * _POINT           # one half of the board
_BAR = _POINT                # the bar's width
_INNER_H = 360               # the playing area's height
_TRAY = 44                   # the borne-off trays' width
_STACK = 5                   # checkers drawn on a point before the count is shown
_CUBE_FONT = {1: 16, 2: 16, 3: 12, 4: 10, 5: 8}   # the cube's face by its digits, to fit its 36 units
_BAR_STACK = 4               # ... on the bar, from a cube's height off the middle to the edge

_COLOURS = {"board": "#2e5e3e", "felt": "#d9c9a3", "point_a": "#8b3a2b", "point_b": "#e8dcc0",
            "bar": "#3f2a1a", "me": "#fbf8ef", "me_edge": "#444444", "opp": "#262626", "opp_edge": "#000000",
            "text": "#1a1a1a", "cube": "#ffffff", "play": "#1f5fbf"}


def _x_of(point: int) -> float:
    """The left edge of the column of ``point`` (1..24, the side on roll's numbering)."""
    left = _LEFT + _FRAME
    if point >= 13:                   # top row, 13 at the left to 24 at the right
        col = point - 13
    else:                             # bottom row, 12 at the left to 1 at the right
        col = 12 - point
    return left + col * _POINT + (_BAR if col >= 6 else 0)


def _column(point: int) -> tuple[float, float, float]:
    """Where the checkers of ``point`` (1..24) stand: the centre ``x`` of its column, the
    centre ``y`` of the checker at its edge, and the step to the next one inwards."""
    top, bottom = _TOP + _FRAME, _TOP + _FRAME + _INNER_H
    x = _x_of(point) + _POINT / 2
    return (x, top + _POINT / 2, _POINT) if point >= 13 else (x, bottom - _POINT / 2, -_POINT)


def _slot(point: int, index: int, tray_x: float) -> tuple[float, float]:
    """The centre of the side on roll's ``index``-th checker (0 at the edge) on ``point``,
    the bar (:data:`BAR`) or, borne off (:data:`OFF`), its tray; a point shows at most
    :data:`_STACK` checkers, so a higher index is drawn on the outermost."""
    top = _TOP + _FRAME
    if point == OFF:
        return tray_x + _TRAY / 2, top + _INNER_H - 80
    if point == BAR:
        return _LEFT + _FRAME + _HALF + _BAR / 2, top + _INNER_H / 2 + _POINT * 1.5 + min(index, _BAR_STACK - 1) * _POINT
    x, base, step = _column(point)
    return x, base + min(index, _STACK - 1) * step


def _play_marks(play: Move, tray_x: float) -> list[str]:
    """The arrows of ``play``'s checker steps over the board after it: from a dashed ring
    where each checker stood to where it went, in the order they were played."""
    after = list(play.position.board[1])           # the side on roll's checkers, index point - 1, bar at 24
    count = {point: after[point - 1] for point in range(1, BAR + 1)}
    count[OFF] = 0
    steps = play.checker_moves
    # walk the play backwards from the board after it, so each step knows its checker's slots
    marks: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for step in reversed(steps):
        count[step.dst] = max(count[step.dst] - 1, 0) if step.dst != OFF else 0
        end = _slot(step.dst, count[step.dst], tray_x)
        start = _slot(step.src, count[step.src], tray_x)
        count[step.src] += 1
        marks.append((start, end))
    colour = _COLOURS["play"]
    out = [f'<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" '
           f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker></defs>']
    for (x0, y0), (x1, y1) in reversed(marks):
        out.append(f'<circle cx="{x0:.1f}" cy="{y0:.1f}" r="{_POINT / 2 - 3:.1f}" fill="none" stroke="{colour}" '
                   'stroke-width="2" stroke-dasharray="4 3"/>')
        out.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{colour}" '
                   'stroke-width="3" stroke-opacity="0.85" marker-end="url(#arrow)"/>')
    return out


def _checker(x: float, y: float, mine: bool, label: str = "") -> str:
    """A checker centred at ``(x, y)``, with ``label`` (a count) written on it."""
    fill, edge = (_COLOURS["me"], _COLOURS["me_edge"]) if mine else (_COLOURS["opp"], _COLOURS["opp_edge"])
    out = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_POINT / 2 - 1.5:.1f}" fill="{fill}" stroke="{edge}" '
           'stroke-width="1.5"/>')
    if label:
        colour = _COLOURS["text"] if mine else _COLOURS["me"]
        out += (f'<text x="{x:.1f}" y="{y + 5:.1f}" font-size="15" font-weight="bold" text-anchor="middle" '
                f'fill="{colour}">{escape(label)}</text>')
    return out


def _stack(x: float, base: float, step: float, count: int, mine: bool, most: int = _STACK) -> list[str]:
    """``count`` checkers from ``base`` (a checker's centre) going by ``step``; the
    outermost shows the count when there are more than ``most``."""
    shown = min(count, most)
    return [_checker(x, base + i * step, mine, str(count) if count > most and i == shown - 1 else "")
            for i in range(shown)]


def _die(x: float, y: float, value: int) -> str:
    """A die of ``value`` with its top-left corner at ``(x, y)``."""
    size, r = 34, 3.6
    spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
             5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}
    out = [f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="6" fill="{_COLOURS["me"]}" '
           f'stroke="{_COLOURS["me_edge"]}" stroke-width="1.5"/>']
    for cx, cy in spots[value]:
        out.append(f'<circle cx="{x + 8 + cx * 9}" cy="{y + 8 + cy * 9}" r="{r}" fill="{_COLOURS["text"]}"/>')
    return "".join(out)


def _header(position: Position, match: MatchState | None) -> tuple[str, str]:
    """The two lines above the board: the score (the side on roll's first) or "Money game"
    with the rule of the game; then the pip counts and the IDs."""
    pips_opp, pips_me = position.pip_count()
    if match is None:
        head = "Money game"
    elif match.length:
        me = match.player_on_roll
        head = (f"{match.length}-point match \u00b7 side on roll {match.score[me]}, opponent {match.score[1 - me]}"
                + (" \u00b7 Crawford game" if match.is_crawford_game else ""))
    else:
        head = "Money game" + (" \u00b7 Jacoby rule" if match.jacoby else "")
    ids = f"Position ID {position.id()}" + (f"  Match ID {match.match_id()}" if match is not None else "")
    return head, f"Pips: side on roll {pips_me}, opponent {pips_opp}  \u00b7  {ids}"


def board_svg(position: Position | str, match: MatchState | None = None, dice: Dice | str | None = None, *,
              play: Move | None = None) -> str:
    """The board of ``position`` as SVG text (see the module's docstring for the picture).

    :param position: a :class:`~bgfast.position.Position` or its text (Position ID,
        ``PositionID:MatchID`` or XGID, whose match state is drawn when ``match`` is None).
    :param match: the score and cube to draw (None: those the text states, else a money game
        with the cube centred).
    :param dice: a roll to draw (None: the dice the match state says were rolled, if any;
        with ``play``, its roll); with a match state, one it allows
        (:meth:`~bgfast.match.MatchState.check_roll`: the dice it says were rolled, if it says so).
    :param play: a play of ``position`` to draw: the board after it with an arrow for each
        checker's step (see the module's docstring).
    :raises InvalidPositionError, InvalidMatchIdError: a malformed position.
    :raises InvalidDiceError: dice that do not parse, or that the match state does not allow
        (other dice than those it says were rolled).
    :raises IllegalMoveError: a ``play`` of another position or roll.

    >>> import xml.etree.ElementTree as ET
    >>> from bgfast.position import Position
    >>> best = Position().parse_move("8/5 6/5", "31")
    >>> svg = ET.fromstring(board_svg(Position(), play=best))
    >>> len(svg.findall("{http://www.w3.org/2000/svg}line"))
    2
    """
    text = read_position(position)
    pos, match = text.position, match if match is not None else text.match
    if play is not None:
        if play.origin != pos or (dice is not None and Dice.of(dice) != play.dice):
            raise IllegalMoveError(f"the play {str(play)!r} of {play.dice} is not one of "
                                   f"{'this roll in ' if dice is not None else ''}{pos.id()!r}")
        dice = dice if dice is not None else play.dice
    roll = (Dice.of(dice) if match is None else match.check_roll(dice)) if dice is not None else (
        Dice.of(match.dice) if match is not None and match.dice != (0, 0) else None)
    drawn = pos if play is None else play.position
    opp, me = drawn.board
    head, details = _header(drawn, match)
    if play is not None:
        head += f" \u00b7 played {play.describe()}"
    title_play = "" if play is None else f", {roll} played {play.describe()}"
    top, bottom = _TOP + _FRAME, _TOP + _FRAME + _INNER_H
    board_w = 12 * _POINT + _BAR + 2 * _FRAME
    tray_x = _LEFT + board_w + 8
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="{WIDTH}" height="{HEIGHT}" font-family="Helvetica, Arial, sans-serif">',
           f"<title>{escape(f'Backgammon position {pos.id()}' + title_play)}"
           "</title>",
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
           f'<text x="{_LEFT}" y="22" font-size="15" fill="{_COLOURS["text"]}">{escape(head)}</text>',
           f'<text x="{_LEFT}" y="40" font-size="11" fill="#555555">{escape(details)}</text>',
           f'<rect x="{_LEFT}" y="{_TOP}" width="{board_w}" height="{_INNER_H + 2 * _FRAME}" rx="4" '
           f'fill="{_COLOURS["board"]}"/>',
           f'<rect x="{_LEFT + _FRAME}" y="{top}" width="{12 * _POINT + _BAR}" height="{_INNER_H}" '
           f'fill="{_COLOURS["felt"]}"/>',
           f'<rect x="{_LEFT + _FRAME + _HALF}" y="{top}" width="{_BAR}" height="{_INNER_H}" fill="{_COLOURS["bar"]}"/>']
    # the points, their numbers and their checkers
    for point in range(1, 25):
        x = _x_of(point)
        colour = _COLOURS["point_a"] if point % 2 else _COLOURS["point_b"]
        tip = 0.42 * _INNER_H
        centre, base, step = _column(point)
        if point >= 13:
            tri, num_y = f"{x},{top} {x + _POINT},{top} {x + _POINT / 2},{top + tip}", _TOP - 2
        else:
            tri, num_y = f"{x},{bottom} {x + _POINT},{bottom} {x + _POINT / 2},{bottom - tip}", bottom + _FRAME + 14
        out.append(f'<polygon points="{tri}" fill="{colour}" stroke="#6b5a40" stroke-width="0.5"/>')
        out.append(f'<text x="{x + _POINT / 2}" y="{num_y}" font-size="11" text-anchor="middle" '
                   f'fill="{_COLOURS["text"]}">{point}</text>')
        mine, theirs = me[point - 1], opp[24 - point]
        if mine or theirs:
            out.extend(_stack(centre, base, step, mine or theirs, bool(mine)))
    # the bar: the opponent's checkers at the top, the side on roll's at the bottom
    bar_x = _LEFT + _FRAME + _HALF + _BAR / 2
    out.extend(_stack(bar_x, top + _INNER_H / 2 - _POINT * 1.5, -_POINT, opp[24], False, _BAR_STACK))
    out.extend(_stack(bar_x, top + _INNER_H / 2 + _POINT * 1.5, _POINT, me[24], True, _BAR_STACK))
    # the trays: borne-off checkers as slices, the opponent's at the top
    for off, mine, y0 in ((NUM_CHECKERS - sum(opp), False, top), (NUM_CHECKERS - sum(me), True, bottom - 160)):
        out.append(f'<rect x="{tray_x}" y="{y0}" width="{_TRAY}" height="160" rx="3" fill="{_COLOURS["board"]}"/>')
        fill = _COLOURS["me"] if mine else _COLOURS["opp"]
        for i in range(off):
            y = y0 + 160 - 4 - (i + 1) * 10 if mine else y0 + 4 + i * 10
            out.append(f'<rect x="{tray_x + 4}" y="{y}" width="{_TRAY - 8}" height="8" rx="2" fill="{fill}" '
                       f'stroke="{_COLOURS["me_edge"]}" stroke-width="0.8"/>')
        label_y = y0 + 160 + 14 if mine else y0 - 4
        out.append(f'<text x="{tray_x + _TRAY / 2}" y="{label_y}" font-size="11" text-anchor="middle" '
                   f'fill="{_COLOURS["text"]}">off {off}</text>')
    # the cube, left of the board
    value, owner = (1, -1) if match is None else (match.cube_value, match.cube_owner)
    me_player = 0 if match is None else match.player_on_roll
    cube_y = top + _INNER_H / 2 - 18 if owner < 0 else (bottom - 40 if owner == me_player else top + 4)
    face = "64" if owner < 0 and value == 1 else str(value)
    out.append(f'<rect x="{_LEFT - 44}" y="{cube_y}" width="36" height="36" rx="5" fill="{_COLOURS["cube"]}" '
               f'stroke="{_COLOURS["text"]}" stroke-width="2"/>')
    out.append(f'<text x="{_LEFT - 26}" y="{cube_y + 24}" font-size="{_CUBE_FONT[min(len(face), 5)]}" '
               f'font-weight="bold" text-anchor="middle" fill="{_COLOURS["text"]}">{face}</text>')
    # the dice, on the side on roll's half (the right)
    if roll is not None:
        dx = _LEFT + _FRAME + _HALF + _BAR + _HALF / 2 - 40
        dy = top + _INNER_H / 2 - 17
        out.append(_die(dx, dy, roll.high) + _die(dx + 46, dy, roll.low))
    if play is not None:
        out.extend(_play_marks(play, tray_x))
    out.append(f"<desc>{escape(f'The side on roll has the light checkers; points numbered from its view. {head}. {details}')}"
               "</desc>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(path: str | os.PathLike[str], svg: str) -> Path:
    """Write ``svg`` to ``path`` as every output file is written
    (:func:`bgfast.validation.output_file`): whole or not at all, a link written through, a
    device written as it is.  Returns the path.

    :raises OutputFileError: the file cannot be written; the message names it.
    """
    write_output_file(path, svg, "the picture")
    return Path(path)

