"""Bots written as one-word specs, for the command line: ``NAME[:KEY=VALUE[,KEY=VALUE...]]``.

``pubeval`` is the built-in pubeval bot with its defaults; ``pubeval:cube=never`` is
the same bot playing cubeless; ``heuristic:cube=janowski,cube_efficiency=0.7`` passes two
options.  The options are the keyword arguments of :func:`bgfast.bots.get_bot`.  A value
is read as an integer (``7``), then a float (``0.7``), then a bool (``true`` / ``false``),
and is otherwise kept as text (``never``).

>>> parse_bot_spec("heuristic:cube=janowski,cube_efficiency=0.7")
('heuristic', {'cube': 'janowski', 'cube_efficiency': 0.7})

:func:`bgfast.bots.get_bot` takes a spec in place of a name (``get_bot("pubeval:cube=never")``).

A spec is also how a bot travels to a worker process, the one way rollouts and tournaments
send their bots: :class:`BotRecipe` is a bot as its name and options (:meth:`BotRecipe.of` a
bot object, :meth:`~BotRecipe.build` it again, :meth:`~BotRecipe.text` for reports);
:func:`portable_bot` is what a worker rebuilds a bot from (its recipe for a bot of bgfast's
own registered under its name, else the bot object itself, pickled: plugins' bots and
outside engines' players carry their own state) and :func:`rebuild_bot` turns that back
into a bot in the worker.  A tournament's players travel as their
:class:`~bgfast.tournament.spec.PlayerSpec`, whose bots are built by the same
:meth:`BotRecipe.build`.  The parsing imports nothing of the bots (:mod:`bgfast.bots`
imports this module); the recipes import them when they are used.

>>> recipe = BotRecipe.of(BotRecipe("pubeval", {"cube": "never"}).build())
>>> recipe.text(), portable_bot(recipe.build()) == recipe
('pubeval:cube=never,cube_efficiency=0.68', True)
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bgfast.errors import UnknownBotError

if TYPE_CHECKING:
    from bgfast.bots.base import Bot

__all__ = ["BotRecipe", "format_bot_spec", "parse_bot_spec", "portable_bot", "rebuild_bot"]

_NAME = re.compile(r"[A-Za-z_][\w.-]*\Z")
_KEY = re.compile(r"[A-Za-z_]\w*\Z")


def _value(text: str) -> object:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def parse_bot_spec(spec: str) -> tuple[str, dict[str, object]]:
    """Split a bot spec into its name and its options.

    >>> parse_bot_spec("random")
    ('random', {})
    >>> parse_bot_spec("pubeval:cube=never,seed=3")
    ('pubeval', {'cube': 'never', 'seed': 3})
    >>> parse_bot_spec("pubeval:cube")
    Traceback (most recent call last):
    ...
    bgfast.errors.UnknownBotError: bad bot spec 'pubeval:cube': option 'cube' is not KEY=VALUE

    :raises UnknownBotError: an empty or malformed name, an option that is not
        ``KEY=VALUE``, or the same key twice.
    """
    name, colon, rest = spec.partition(":")
    if not _NAME.match(name):
        raise UnknownBotError(f"bad bot spec {spec!r}: expected NAME or NAME:KEY=VALUE,...")
    options: dict[str, object] = {}
    if colon:
        for item in rest.split(","):
            key, equals, value = item.partition("=")
            key = key.strip()
            if not equals or not _KEY.match(key) or not value.strip():
                raise UnknownBotError(f"bad bot spec {spec!r}: option {item!r} is not KEY=VALUE")
            if key in options:
                raise UnknownBotError(f"bad bot spec {spec!r}: option {key!r} given twice")
            options[key] = _value(value.strip())
    return name, options



def format_bot_spec(name: str, options: Mapping[str, object] | None = None) -> str:
    """A bot's name and options as one spec, the text :func:`parse_bot_spec` reads back:
    what a report prints to say exactly which bot played (``neural:...,ply=1`` is not
    ``neural:...,ply=0``).  Options whose value is None (the bot's default) are left out;
    a value that is not a number, bool or text (a weights object) is written as ``str()``.

    >>> format_bot_spec("neural", {"cube": "auto", "cube_efficiency": 0.68, "ply": 1})
    'neural:cube=auto,cube_efficiency=0.68,ply=1'
    >>> format_bot_spec("bgsage", {"level": "1ply", "cube": None}), format_bot_spec("mine")
    ('bgsage:level=1ply', 'mine')
    >>> parse_bot_spec(format_bot_spec("pubeval", {"cube": "never", "seed": 3}))
    ('pubeval', {'cube': 'never', 'seed': 3})
    """
    items = [f"{key}={str(value).lower() if isinstance(value, bool) else value}"
             for key, value in (options or {}).items() if value is not None]
    return name + (":" + ",".join(items) if items else "")


@dataclass(frozen=True)
class BotRecipe:
    """A bot as what builds it: a name :func:`bgfast.bots.get_bot` knows (a built-in, a bot
    registered by that name, a plugin reference or entry point) and the options it takes.

    Compared by value, picklable, and the same in every process that knows the name.
    """

    name: str
    options: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def of(cls, bot: object) -> BotRecipe:
        """The recipe ``bot`` says it was built from: its ``name`` (its class's name when it
        has none) and, when it has an ``options()`` method giving a mapping, those options
        (else none).  Whether the name builds it again is :func:`portable_bot`'s question."""
        name = str(getattr(bot, "name", type(bot).__name__))
        options = getattr(bot, "options", None)
        if not callable(options):
            return cls(name)
        try:
            values = dict(options())
        except (TypeError, ValueError):      # a Python bot's own options() of another shape
            return cls(name)
        return cls(name, values)

    def build(self) -> Bot:
        """A new bot, ``get_bot(name, **options)``.

        :raises UnknownBotError: an unknown name, or options the bot refuses
            (:class:`~bgfast.errors.InvalidBotOptionsError`).
        :raises BotLoadError: a plugin that cannot be loaded or whose factory raises.
        """
        from bgfast.bots import get_bot

        return get_bot(self.name, **self.options)

    def text(self) -> str:
        """The recipe as one spec (:func:`format_bot_spec`), e.g. ``neural:cube=auto,ply=1``."""
        return format_bot_spec(self.name, self.options)


def portable_bot(bot: object) -> object:
    """What a worker process rebuilds ``bot`` from (:func:`rebuild_bot`): its
    :class:`BotRecipe` for a bot of bgfast's own (a :class:`~bgfast.bots.base.CoreBot`, or
    a :class:`~bgfast.bots.base.Bot` of a ``bgfast.bots`` module, such as the ``gnubg``
    adapter, whose loaded module cannot be pickled) registered under its name and with
    ``options()``; anything else (a plugin's bot, an outside engine's player, a bot of
    your own) as it is, to be pickled with its state.

    >>> from bgfast.bots import get_bot
    >>> portable_bot(get_bot("heuristic", cube="never")).text()
    'heuristic:cube=never,cube_efficiency=0.68'
    """
    from bgfast.bots import available_bots
    from bgfast.bots.base import Bot, CoreBot

    own = isinstance(bot, CoreBot) or (isinstance(bot, Bot) and type(bot).__module__.startswith("bgfast.bots."))
    if own and callable(getattr(bot, "options", None)) and getattr(bot, "name", None) in available_bots():
        return BotRecipe.of(bot)
    return bot


def rebuild_bot(sent: object) -> Any:
    """The bot of :func:`portable_bot`'s answer, in the process that received it: a recipe
    built (:meth:`BotRecipe.build`), anything else as it came (a bot, or an evaluator: any
    object the sender shipped, hence typed ``Any``).

    :raises UnknownBotError: a recipe whose name or options no longer build a bot.
    """
    return sent.build() if isinstance(sent, BotRecipe) else sent
