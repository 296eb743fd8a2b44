"""Python bots from outside bgfast: ``module:factory`` references and the ``bgfast.bots`` entry points.

A player can be any Python bot that an installed package or an importable module makes:

* ``"mypkg.bots:make_bot"`` -- import ``mypkg.bots`` and call its ``make_bot(**options)``
  (the name after the colon may be dotted: ``"mypkg:Bots.strong"``); options may follow
  after a second colon, as in a bot spec: ``"mypkg.bots:make_bot:depth=2,cube=never"``;
* ``"mybot"`` -- a name that a distribution publishes in the entry-point group
  ``bgfast.bots`` (``[project.entry-points."bgfast.bots"] mybot = "mypkg.bots:make_bot"``
  in its ``pyproject.toml``), loaded with :mod:`importlib.metadata`.

Both are found again by name in every process that plays (a freshly spawned interpreter,
a Dask worker), because the name says where the code is: a bot registered at run time
with :func:`bgfast.bots.register_bot` exists only in the process that registered it.

A factory is called with the options as keywords and must return a bot (an object with
``choose_move``, see :class:`~bgfast.bots.base.Bot`).

>>> parse_plugin_ref("mypkg.bots:make_bot:depth=2")
('mypkg.bots', 'make_bot', {'depth': 2})
>>> parse_plugin_ref("pubeval:cube=never") is None  # a bot spec, not a reference
True
"""
from __future__ import annotations

import importlib
import importlib.metadata
import re
from collections.abc import Callable, Mapping
from typing import Any

from bgfast.bots.base import Bot
from bgfast.errors import BotLoadError, InvalidBotOptionsError, UnknownBotError

__all__ = ["ENTRY_POINT_GROUP", "entry_point_names", "find_plugin", "is_plugin_name", "load_plugin",
           "parse_plugin_ref"]

ENTRY_POINT_GROUP = "bgfast.bots"
"""The entry-point group where installed packages publish bot factories."""

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_REF = re.compile(rf"({_DOTTED}):({_DOTTED})(?::(.*))?\Z")


def parse_plugin_ref(text: str) -> tuple[str, str, dict[str, object]] | None:
    """``(module, attribute, options)`` of a ``module:factory[:KEY=VALUE,...]`` reference,
    or None if ``text`` is not one (a bot name, or a spec such as ``pubeval:cube=never``).

    :raises UnknownBotError: a reference whose options are not ``KEY=VALUE`` pairs.
    """
    match = _REF.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        return None
    options: dict[str, object] = {}
    if match.group(3) is not None:
        from bgfast.bots.spec import parse_bot_spec

        _name, options = parse_bot_spec(f"plugin:{match.group(3)}")
    return match.group(1), match.group(2), options


def entry_point_names() -> list[str]:
    """The bot names installed packages publish in :data:`ENTRY_POINT_GROUP`."""
    return sorted({ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)})


def _entry_point(name: str) -> importlib.metadata.EntryPoint | None:
    found = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=name))
    return found[0] if found else None


def is_plugin_name(name: str) -> bool:
    """True if ``name`` is a ``module:factory`` reference or a published entry-point name
    (without importing anything)."""
    return parse_plugin_ref(name) is not None or _entry_point(name) is not None


def find_plugin(name: str) -> tuple[Callable[..., Any], dict[str, object]] | None:
    """The factory ``name`` refers to and the options written in it, or None if ``name``
    is neither a reference nor an entry-point name.

    :raises BotLoadError: the module cannot be imported (missing, or it raises), the
        attribute is not in it, or it is not callable.
    :raises UnknownBotError: malformed options in the reference.
    """
    ref = parse_plugin_ref(name)
    if ref is not None:
        module_name, attribute, options = ref
        where = f"bot {name!r}"
    else:
        entry = _entry_point(name)
        if entry is None:
            return None
        module_name, _, attribute = entry.value.partition(":")
        options = {}
        where = f"bot {name!r} (entry point {entry.value!r} of {ENTRY_POINT_GROUP!r})"
        if not attribute:
            raise BotLoadError(f"{where}: the entry point names no factory (expected module:factory)")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise BotLoadError(f"{where}: no module named {exc.name or module_name!r}") from None
    except Exception as exc:  # noqa: BLE001 - any error while importing the plugin is the plugin's
        raise BotLoadError(f"{where}: importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise BotLoadError(f"{where}: module {module_name!r} has no {attribute!r}") from None
    if not callable(target):
        raise BotLoadError(f"{where}: {module_name}:{attribute} is not callable")
    return target, options


def load_plugin(name: str, options: Mapping[str, object] | None = None) -> Bot | None:
    """The bot the plugin ``name`` makes with ``options`` (added to those written in the
    reference), or None if ``name`` is not a plugin.

    :raises BotLoadError: the plugin cannot be loaded (see :func:`find_plugin`), its
        factory raises, or it returns something that is not a bot.
    :raises UnknownBotError: the factory does not take these options.
    """
    found = find_plugin(name)
    if found is None:
        return None
    factory, written = found
    kwargs = {**written, **(options or {})}
    try:
        bot = factory(**kwargs)
    except TypeError as exc:
        import inspect

        try:
            inspect.signature(factory).bind(**kwargs)
        except TypeError:
            raise InvalidBotOptionsError(f"bad options {kwargs!r} for bot {name!r}: {exc}") from None
        raise BotLoadError(f"bot {name!r}: its factory raised TypeError: {exc}") from None
    except UnknownBotError:
        raise
    except Exception as exc:  # noqa: BLE001 - the plugin's own failure, reported with its name
        raise BotLoadError(f"bot {name!r}: its factory raised {type(exc).__name__}: "
                           f"{' '.join(str(exc).split())}") from None
    if not callable(getattr(bot, "choose_move", None)):
        raise BotLoadError(f"bot {name!r}: its factory returned {bot!r}, which has no choose_move method")
    return bot  # type: ignore[no-any-return]
