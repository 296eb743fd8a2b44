"""Text formats: how positions, match states and whole matches are written and read.

One module a format; each has a parse/format pair where the format is read as well as
written.

* :mod:`bgfast.formats.position_id` -- GNU Backgammon's 14-character Position ID (the
  codec itself is in the compiled core; this is its Python face).
* :mod:`bgfast.formats.match_id` -- GNU Backgammon's 12-character Match ID.
* :mod:`bgfast.formats.xgid` -- eXtreme Gammon's XGID.
* :mod:`bgfast.formats.text` -- :func:`~bgfast.formats.text.parse_position`, the one reader
  of a position typed as any of those (Position ID, ``PositionID:MatchID``, XGID).
* :mod:`bgfast.formats.mat` -- Jellyfish ``.mat`` match files, as GNU Backgammon imports them.
* :mod:`bgfast.formats.matchlog` -- the text and JSON log of a played match (``bgfast play``).

This package's ``__init__`` imports nothing, so that the low-level codecs
(Position ID, Match ID, XGID) can be used by :mod:`bgfast.position` and
:mod:`bgfast.match` without an import cycle.
"""
