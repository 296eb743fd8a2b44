"""Bots: the :class:`Bot` interface and the registry of built-in bots.

>>> from bgfast.bots import get_bot
>>> get_bot("pubeval", cube="never")
<PubevalBot 'pubeval'>
>>> get_bot("pubeval:cube=never").cube
'never'
>>> sorted(available_bots())[:3]
['bgsage', 'gnubg', 'heuristic']
"""
from __future__ import annotations

from typing import Callable

from bgfast.bots.base import Bot, CoreBot, CubeResponse
from bgfast.bots.builtin import PubevalBot, RandomBot
from bgfast.bots.spec import parse_bot_spec
from bgfast.errors import UnknownBotError

__all__ = ["Bot", "CoreBot", "CubeResponse", "get_bot", "register_bot", "available_bots"]

_REGISTRY: dict[str, Callable[..., Bot]] = {}


def register_bot(name: str, factory: Callable[..., Bot]) -> None:
    """Make ``factory(**options)`` available as ``get_bot(name, **options)``."""
    _REGISTRY[name] = factory


def available_bots() -> list[str]:
    """The names :func:`get_bot` knows."""
    return list(_REGISTRY)


def get_bot(name: str, **options: object) -> Bot:
    """Build the bot registered as ``name`` with its options.

    ``name`` may carry options as a spec, ``"pubeval:cube=never"`` (see :mod:`bgfast.bots.spec`);
    keyword options win over the spec's.  It may also be a plugin: ``"module:factory"`` or
    an entry point of the group ``bgfast.bots`` (see :mod:`bgfast.bots.plugins`).

    :raises UnknownBotError: an unknown name, a malformed spec, or options the bot does not take.
    :raises BotLoadError: a plugin that cannot be loaded or whose factory raises.
    """
    if isinstance(name, str) and name not in _REGISTRY and name.partition(":")[0] not in _REGISTRY:
        from bgfast.bots.plugins import load_plugin

        plugin = load_plugin(name, options)
        if plugin is not None:
            return plugin
    if isinstance(name, str) and ":" in name:   # a spec such as "pubeval:cube=never"
        name, spec_options = parse_bot_spec(name)
        options = {**spec_options, **options}
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownBotError(f"unknown bot {name!r}; known bots: {', '.join(sorted(_REGISTRY))}") from None
    try:
        return factory(**options)
    except TypeError:
        import inspect

        target = getattr(factory, "__init__", factory) if isinstance(factory, type) else factory
        known = [p for p in inspect.signature(target).parameters if p not in ("self", "options")]
        raise UnknownBotError(
            f"bad options {options!r} for bot {name!r}; it takes: {', '.join(known) or 'no options'}"
        ) from None


def _heuristic(**options: object) -> Bot:
    from bgfast.bots.heuristic import HeuristicBot

    return HeuristicBot(**options)  # type: ignore[arg-type]


def _gnubg(**options: object) -> Bot:
    from bgfast.bots.gnubg import GnubgBot

    return GnubgBot(**options)  # type: ignore[arg-type]


def _bgsage(**options: object) -> Bot:
    from bgfast.bots.bgsage import BgsageBot

    return BgsageBot(**options)  # type: ignore[arg-type]


def _neural(**options: object) -> Bot:
    from bgfast.bots.neural import NeuralBot

    return NeuralBot(**options)  # type: ignore[arg-type]


register_bot("random", RandomBot)
register_bot("pubeval", PubevalBot)
register_bot("heuristic", _heuristic)
register_bot("gnubg", _gnubg)
register_bot("bgsage", _bgsage)
register_bot("neural", _neural)
