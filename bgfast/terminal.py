"""How bgfast draws on a terminal: text padded by the columns it takes, and progress bars.

A table's columns line up only if each cell is padded by its *display width*, the
terminal columns its characters take: a CJK character or an emoji takes two, a combining
accent none (:func:`display_width`, from :func:`unicodedata.east_asian_width`), while
``str.ljust`` counts characters.  :func:`pad` pads by that width.

A progress bar fits the terminal it is drawn on and follows its resizes
(:func:`progress_bar`, a tqdm bar); a terminal that reports no size, or a width of 0
columns (some serial consoles and containers), gets :data:`FALLBACK_COLUMNS` instead of
a bar of no width, which tqdm draws as nothing.

>>> display_width("pubeval"), display_width("囲碁"), display_width("e\\u0301")
(7, 4, 1)
>>> pad("囲碁", 6) + "|", pad("ok", 6, right=True) + "|"
('囲碁  |', '    ok|')
"""
from __future__ import annotations

import os
import sys
import unicodedata
from typing import IO, Any

__all__ = ["FALLBACK_COLUMNS", "display_width", "pad", "progress_bar", "terminal_size"]

FALLBACK_COLUMNS = 80
"""The width a progress bar takes on a terminal that reports none (or 0 columns), unless
the ``COLUMNS`` environment variable gives one."""
_FALLBACK_LINES = 24


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes: 2 for each wide or full-width character (CJK,
    most emoji), 0 for combining marks and zero-width characters, 1 for the others."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (:func:`display_width`),
    on the right (left-aligned text) or, with ``right``, on the left; text as wide or wider
    is returned as it is."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def terminal_size(stream: IO[str] | None = None) -> tuple[int, int]:
    """(columns, lines) of the terminal ``stream`` (default stderr) is drawn on; where it
    reports none, or 0, the ``COLUMNS`` and ``LINES`` environment variables, else
    :data:`FALLBACK_COLUMNS` and 24 lines."""
    stream = stream if stream is not None else sys.stderr
    try:
        columns, lines = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        columns = lines = 0
    if columns <= 0:
        columns = _environment_number("COLUMNS") or FALLBACK_COLUMNS
    if lines <= 0:
        lines = _environment_number("LINES") or _FALLBACK_LINES
    return columns, lines


def _environment_number(name: str) -> int:
    try:
        return max(0, int(os.environ.get(name, "")))
    except ValueError:
        return 0


def _bar_shape(stream: Any) -> tuple[int, int]:
    """The width and height a tqdm bar on ``stream`` may take (one column less than the
    terminal's, so that the cursor does not wrap, as tqdm's own measure)."""
    columns, lines = terminal_size(stream)
    return columns - 1, lines - 1


def progress_bar(*, file: IO[str] | None = None, **options: Any) -> Any:
    """A tqdm progress bar on ``file`` (default stderr) that fits the terminal and follows its
    resizes, and takes :data:`FALLBACK_COLUMNS` where the terminal reports no width.

    :param options: tqdm's (``total``, ``unit``, ``desc``, ``leave``...).
    """
    from tqdm import tqdm

    class _Bar(tqdm):  # type: ignore[misc]
        monitor_interval = 0  # no monitor thread: worker processes may be forked after this

    stream = file if file is not None else sys.stderr
    columns, lines = _bar_shape(stream)
    bar = _Bar(file=stream, ncols=columns, nrows=lines, **options)
    bar.dynamic_ncols = _bar_shape  # tqdm measures again before each redraw
    return bar
