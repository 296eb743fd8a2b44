"""The full history of a match, every roll, play and cube action: now in :mod:`bgfast.game`.

The C game loop writes the turns down as it plays them (:meth:`bgfast.game.MatchPlayer.history`);
this module keeps the old import path of :class:`~bgfast.game.Turn`,
:class:`~bgfast.game.MatchHistory` and :func:`~bgfast.game.play_match_with_history`.
"""
from bgfast.game import ACTIONS, MatchHistory, Turn, play_match_with_history

__all__ = ["ACTIONS", "MatchHistory", "Turn", "play_match_with_history"]
