"""bgfast's cube policies as a stand-in for the cube decisions of another player.

An outside engine (a UBGI program, the GNU Backgammon program, Open Sage) plays its own
checkers; its cube decisions are made by a bgfast cube policy when its player spec names
one (``cube = "never"`` for cubeless tests) or when the engine cannot make them (it
answers ``error unsupported`` to ``go cube``).  The policies are those of the built-in
heuristic bot (:class:`~bgfast.bots.heuristic.HeuristicBot`), whose evaluator then
estimates the chances:

* ``never``: never doubles, always takes;
* ``keith``: doubles and takes by the Keith count in races, in contact never doubles and
  always takes;
* ``janowski``: Janowski's cubeful model at every score;
* ``met``: cubeful match winning chances from the match equity table in match play
  (:func:`bgfast.cube.cubeful_mwc`), Janowski in money play;
* ``auto``: the same as ``met`` (the default).

>>> policy = cube_policy("never")
>>> from bgfast.match import MatchState
>>> from bgfast.position import Position
>>> policy.should_double(Position(), MatchState()), int(policy.accept_double(Position(), MatchState()))
(False, 1)
"""
from __future__ import annotations

from bgfast.bots.base import Bot
from bgfast.errors import UnknownBotError

__all__ = ["CUBE_POLICIES", "DEFAULT_CUBE_POLICY", "cube_policy"]

CUBE_POLICIES = ("never", "keith", "janowski", "met", "auto")
"""The names :func:`cube_policy` knows."""

DEFAULT_CUBE_POLICY = "auto"
"""The policy that decides for an engine that cannot make cube decisions itself."""


def cube_policy(name: str) -> Bot:
    """A bot whose :meth:`~bgfast.bots.base.Bot.should_double` and
    :meth:`~bgfast.bots.base.Bot.accept_double` follow the cube policy ``name``.

    :raises UnknownBotError: a name not in :data:`CUBE_POLICIES`.
    """
    if name not in CUBE_POLICIES:
        raise UnknownBotError(f"unknown cube policy {name!r}; choose from {', '.join(CUBE_POLICIES)}")
    from bgfast.bots.heuristic import HeuristicBot

    return HeuristicBot(cube=name)
