"""The ID codecs: GNU Backgammon's and eXtreme Gammon's one-line IDs, on plain fields.

The layer just above the compiled core and the argument checks, and below the value
types: :mod:`bgfast.position`, :mod:`bgfast.match` and :mod:`bgfast.game` build on these
modules, which know nothing of them (a board is 50 bytes or two lists of 25 counts, a
match state a dict of fields).

* :mod:`bgfast.codecs.position_id` -- GNU Backgammon's 14-character Position ID (the
  codec itself is in the compiled core; this is its Python face).
* :mod:`bgfast.codecs.match_id` -- GNU Backgammon's 12-character Match ID.
* :mod:`bgfast.codecs.xgid` -- eXtreme Gammon's XGID.

The value types' methods are the everyday way in: ``Position.from_id`` / ``pos.id()``,
``Position.from_xgid`` / ``pos.xgid()``, ``MatchState.from_match_id`` /
``state.match_id()``, ``MatchState.from_xgid`` / ``state.xgid(board)``.  Nothing is
imported here, so that ``import bgfast.codecs.x`` loads only what it needs.
"""
