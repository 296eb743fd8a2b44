"""Engines from outside bgfast as players, and bgfast's bots as engines for other programs.

* :mod:`bgfast.engines.ubgi` -- the UBGI v0.2 protocol: its lines and move tokens, parsed
  and formatted (what the client and the server below speak).
* :mod:`bgfast.engines.ubgi_client` -- any UBGI v0.2 engine (``command = [...]``).
* :mod:`bgfast.engines.gnubg_external` -- the GNU Backgammon program through its
  external-player interface (``engine = "gnubg"``).
* :mod:`bgfast.engines.ubgi_server` -- ``bgfast engine``: a bgfast bot as a UBGI engine.
* :mod:`bgfast.engines.resilient` -- playing a match with outside engines: restarts,
  replays, forfeits.
* :mod:`bgfast.engines.players` -- the outside players of a tournament spec.

Nothing is imported here, so that ``import bgfast.engines.x`` loads only what it needs.
"""
