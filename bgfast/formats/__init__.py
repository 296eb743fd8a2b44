"""Text formats: how positions, match states and whole matches are written and read.

One module a format; each has a parse/format pair where the format is read as well as
written.  They are built on the value types (:mod:`bgfast.position`,
:mod:`bgfast.match`, :mod:`bgfast.game`); the ID codecs those types use (Position ID,
Match ID, XGID) are a layer below, in :mod:`bgfast.codecs`.

* :mod:`bgfast.formats.text` -- :func:`~bgfast.formats.text.parse_position`, the one reader
  of a position typed as any of the IDs (Position ID, ``PositionID:MatchID``, XGID).
* :mod:`bgfast.formats.mat` -- Jellyfish ``.mat`` match files, as GNU Backgammon imports them.
* :mod:`bgfast.formats.sgf` -- SGF, GNU Backgammon's own match files.
* :mod:`bgfast.formats.match_file` -- a match read from a ``.mat`` or SGF file, checked
  against the rules.
* :mod:`bgfast.formats.matchlog` -- the text and JSON log of a played match (``bgfast play``).
* :mod:`bgfast.formats.fibs` -- FIBS ``board:`` lines (GNU Backgammon's external players).

UBGI, the engine protocol, lives with its client and server in :mod:`bgfast.engines`.
Nothing is imported here, so that ``import bgfast.formats.x`` loads only what it needs.
"""
