"""Bots: the :class:`Bot` interface and the registry of built-in bots.

Evaluating bots (``heuristic``, ``neural``) give :class:`Probabilities`, re-exported here
from :mod:`bgfast.probabilities`.

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
from bgfast.errors import InvalidBotOptionsError, UnknownBotError
from bgfast.probabilities import Probabilities

__all__ = ["Bot", "CoreBot", "CubeResponse", "Probabilities", "get_bot", "register_bot", "available_bots"]

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

    :raises UnknownBotError: an unknown name or a malformed spec.
    :raises InvalidBotOptionsError: options the bot does not take, or a value out of range
        (a subclass of UnknownBotError).
    :raises BotLoadError: a plugin that cannot be loaded or whose factory raises.
    """
    if isinstance(name, str) and name not in _REGISTRY and name.partition(":")[0] not in _REGISTRY:
        from bgfast.bots.plugins import load_plugin

        plugin = load_plugin(name, options)
        if plugin is not None:
            return plugin
    spec = name
    if isinstance(name, str) and ":" in name:   # a spec such as "pubeval:cube=never"
        name, spec_options = parse_bot_spec(name)
        options = {**spec_options, **options}
    try:
        factory = _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownBotError(f"unknown bot {name!r}; known bots: {', '.join(sorted(_REGISTRY))}") from None
    try:
        return factory(**options)
    except InvalidBotOptionsError as exc:       # "ply must be...": say whose
        if str(exc).startswith("bot "):        # it names the bot already
            raise
        raise InvalidBotOptionsError(f"bot {spec!r}: {exc}") from None
    except TypeError:
        import inspect

        bot_class = getattr(factory, "bot_class", None)  # a lazy factory names the class it builds
        target = bot_class() if bot_class is not None else factory  # a class's signature is its __init__'s
        known = [p for p in inspect.signature(target).parameters if p != "options"]
        raise InvalidBotOptionsError(
            f"bad options {options!r} for bot {name!r}; it takes: {', '.join(known) or 'no options'}"
        ) from None


def _lazy(module: str, cls: str) -> Callable[..., Bot]:
    """A factory of the bot class ``module.cls``, imported at the first bot built (so that
    ``import bgfast.bots`` imports no optional package); its ``bot_class()`` gives the class,
    whose signature lists the bot's options."""
    import importlib

    def bot_class() -> type[Bot]:
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]

    def factory(**options: object) -> Bot:
        return bot_class()(**options)

    factory.bot_class = bot_class  # type: ignore[attr-defined]
    return factory


register_bot("random", RandomBot)
register_bot("pubeval", PubevalBot)
register_bot("heuristic", _lazy("bgfast.bots.heuristic", "HeuristicBot"))
register_bot("gnubg", _lazy("bgfast.bots.gnubg", "GnubgBot"))
register_bot("bgsage", _lazy("bgfast.bots.bgsage", "BgsageBot"))
register_bot("neural", _lazy("bgfast.bots.neural", "NeuralBot"))
