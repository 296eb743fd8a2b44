"""Bots written as one-word specs, for the command line: ``NAME[:KEY=VALUE[,KEY=VALUE...]]``.

``pubeval`` is the built-in pubeval bot with its defaults; ``pubeval:cube=never`` is
the same bot playing cubeless; ``heuristic:cube=janowski,cube_efficiency=0.7`` passes two
options.  The options are the keyword arguments of :func:`bgfast.bots.get_bot`.  A value
is read as an integer (``7``), then a float (``0.7``), then a bool (``true`` / ``false``),
and is otherwise kept as text (``never``).

>>> parse_bot_spec("heuristic:cube=janowski,cube_efficiency=0.7")
('heuristic', {'cube': 'janowski', 'cube_efficiency': 0.7})

:func:`bgfast.bots.get_bot` takes a spec in place of a name (``get_bot("pubeval:cube=never")``);
this module only reads the text, so that it imports nothing of the bots.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from bgfast.errors import UnknownBotError

__all__ = ["format_bot_spec", "parse_bot_spec"]

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
