"""bgfast: backgammon by the full rules, very fast.

The core value types are re-exported here; the bots, rollouts and tournaments
are imported explicitly (``import bgfast.tournament``).
"""
__version__ = "0.1.0"
