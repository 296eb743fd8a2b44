"""Outside players of a tournament spec: checking them, building them, playing their matches.

A spec's player is a bgfast bot (``bot = NAME``, plugins included), or an outside engine:

.. code-block:: toml

    [[players]]                  # any engine speaking UBGI on stdin/stdout
    name = "wild"
    command = ["/opt/wildbg/ubgi-engine", "--net", "big"]
    options = { "engine.ply" = 1 }   # sent as `set KEY VALUE`
    timeout_s = 10                   # per decision (default 60; the start gets at least 30)
    cube = "never"                   # optional: a bgfast cube policy decides instead

    [[players]]                  # the GNU Backgammon program
    name = "gnubg2"
    engine = "gnubg"
    options = { ply = 2 }            # gnubg's own plies: 0 = its raw net

:func:`check_outside_player` checks such a table without starting anything (the program
must exist and be executable); :func:`outside_bot` builds the player, whose engine starts
at its first decision; :func:`preflight` starts each engine once and stops it, so that an
engine that fails its handshake is one error before any match; :func:`play_match` plays a
match with restarts, replays and forfeits (:mod:`bgfast.engines.resilient`); and
:func:`take_counters` collects what each engine did since the last call, for the results.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from bgfast.engines.base import DEFAULT_TIMEOUT_S, OutsideBot
from bgfast.engines.counters import EngineCounters
from bgfast.engines.resilient import Fault, ResilientResult, play_resilient
from bgfast.errors import BgfastError, EngineError, InvalidSpecError
from bgfast.game import MatchSummary
from bgfast.validation import real_number

__all__ = ["ENGINES", "OUTSIDE_KEYS", "PLAYER_PREFIXES", "check_outside_player", "is_outside_player",
           "is_outside_text", "outside_bot", "outside_bot_text", "play_match", "play_replayed", "player_bot", "preflight",
           "take_counters"]

ENGINES = ("gnubg",)
"""Outside engines known by name (``engine = NAME``)."""

OUTSIDE_KEYS = ("command", "engine", "timeout_s")
"""The player keys of outside engines (besides ``name``, ``cube`` and ``options``)."""


PLAYER_PREFIXES = ("command:", "engine:")
"""How a player named on the command line is an outside engine: ``command:PROGRAM ARGS...``
(the spec's ``command = [...]``) or ``engine:NAME[:KEY=VALUE,...]`` (the spec's ``engine =
NAME`` with its ``options``); see :func:`outside_bot_text`."""


def is_outside_player(table: Mapping[str, Any]) -> bool:
    """True if a player table names an outside engine (``command`` or ``engine``)."""
    return "command" in table or "engine" in table


def outside_bot(*, command: Sequence[str] | None = None, engine: str | None = None,
                options: Mapping[str, object] | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                cube: str | None = None, label: str | None = None) -> OutsideBot:
    """The player for a ``command`` (a UBGI engine) or an ``engine`` name; nothing is started.

    :raises EngineStartError: a command that is not an executable program, or an engine
        program that is not installed.
    :raises UnknownBotError: bad options for the engine, or an unknown cube policy.
    :raises InvalidSpecError: neither or both of ``command`` and ``engine``, an unknown engine.
    """
    if (command is None) == (engine is None):
        raise InvalidSpecError("an outside player has either a command or an engine")
    if command is not None:
        from bgfast.engines.ubgi_client import UbgiBot

        return UbgiBot(command, options=options, timeout_s=timeout_s, cube=cube, label=label)
    if engine == "gnubg":
        from bgfast.engines.gnubg_external import GnubgProgramBot

        known = {"ply", "program"}
        extra = set(options or {}) - known
        if extra:
            from bgfast.errors import InvalidBotOptionsError

            raise InvalidBotOptionsError(f"engine 'gnubg' takes the options {', '.join(sorted(known))}, "
                                         f"not {', '.join(sorted(extra))}")
        return GnubgProgramBot(cube=cube, timeout_s=timeout_s, label=label, **dict(options or {}))  # type: ignore[arg-type]
    raise InvalidSpecError(f"unknown engine {engine!r}; known engines: {', '.join(ENGINES)}")


def is_outside_text(text: str) -> bool:
    """True if a player's text names an outside engine (one of :data:`PLAYER_PREFIXES`).

    >>> is_outside_text("command:gnubg-ubgi --net big"), is_outside_text("pubeval:cube=never")
    (True, False)
    """
    return text.startswith(PLAYER_PREFIXES)


def outside_bot_text(text: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> OutsideBot:
    """The outside player a command line names, built by :func:`outside_bot` as a spec's is;
    nothing is started (:func:`preflight` does that).

    * ``command:PROGRAM ARGS...`` -- a UBGI engine, the words split as a shell splits them
      (quotes keep spaces): ``command:python -m bgfast.engines.ubgi_server --bot pubeval``.
    * ``engine:NAME[:KEY=VALUE,...]`` -- an engine bgfast knows by name (:data:`ENGINES`)
      with its options, e.g. ``engine:gnubg:ply=2`` for the GNU Backgammon program; the
      keys ``timeout_s`` and ``cube`` (a bgfast cube policy deciding instead of the engine)
      are the player's, as in a spec.

    The player's label (in messages and logs) is the text after the prefix.

    >>> bot = outside_bot_text("command:sh -c 'exit 0'")
    >>> bot.command, bot.label
    (['sh', '-c', 'exit 0'], "sh -c 'exit 0'")

    :param timeout_s: seconds a decision may take (a ``timeout_s`` option wins).
    :raises EngineStartError: a command that is empty, does not split, or is not an
        executable program; an engine program that is not installed.
    :raises InvalidSpecError: an unknown engine name, or text without a prefix.
    :raises UnknownBotError: malformed options, options the engine does not take, an
        unknown cube policy.
    """
    import shlex

    from bgfast.errors import EngineStartError

    kind, _, rest = text.partition(":")
    if kind == "command":
        try:
            words = shlex.split(rest)
        except ValueError as exc:
            raise EngineStartError(f"engine command {rest!r} does not split into words: {exc}") from None
        if not words:
            raise EngineStartError("engine command is empty: give command:PROGRAM ARGS...")
        return outside_bot(command=words, timeout_s=timeout_s, label=rest.strip())
    if kind == "engine":
        from bgfast.bots.spec import parse_bot_spec

        name, options = parse_bot_spec(rest)
        if name not in ENGINES:
            raise InvalidSpecError(f"unknown engine {name!r} (known engines: {', '.join(ENGINES)})")
        timeout = options.pop("timeout_s", timeout_s)
        cube = options.pop("cube", None)
        return outside_bot(engine=name, options=options,
                           timeout_s=real_number(timeout, "timeout_s", low=0.001, error=InvalidSpecError),
                           cube=None if cube is None else str(cube), label=rest)
    raise InvalidSpecError(f"{text!r} names no outside engine: give command:PROGRAM ARGS... or "
                           f"engine:NAME[:KEY=VALUE,...]")


def player_bot(text: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> object:
    """The player a command line names: an outside engine (:func:`outside_bot_text`) when
    the text starts with one of :data:`PLAYER_PREFIXES`, else a bgfast bot
    (:func:`bgfast.bots.get_bot`: ``NAME[:KEY=VALUE,...]`` or a plugin).

    >>> type(player_bot("pubeval")).__name__, type(player_bot("command:sh")).__name__
    ('PubevalBot', 'UbgiBot')

    :raises EngineStartError, InvalidSpecError, UnknownBotError: as the builders raise them.
    """
    if is_outside_text(text):
        return outside_bot_text(text, timeout_s=timeout_s)
    from bgfast.bots import get_bot

    return get_bot(text)


def check_outside_player(table: Mapping[str, Any], path: str) -> OutsideBot:
    """Check an outside player's table (keys ``command``/``engine``, ``options``,
    ``timeout_s``, ``cube``, ``name``) and return its player, without starting it.

    :raises InvalidSpecError: the message starts with the key path, e.g.
        ``players[2].command: engine command '/opt/x' is not an executable file``.
    """
    if "bot" in table:
        raise InvalidSpecError(f"{path}: a player has one of bot, command or engine")
    if "command" in table and "engine" in table:
        raise InvalidSpecError(f"{path}.engine: a player has either a command or an engine, not both")
    key = "command" if "command" in table else "engine"
    value = table[key]
    if key == "engine" and value not in ENGINES:
        raise InvalidSpecError(f"{path}.engine: unknown engine {value!r} (known engines: {', '.join(ENGINES)})")
    options = table.get("options", {})
    if not isinstance(options, Mapping) or not all(isinstance(v, (str, int, float, bool)) for v in options.values()):
        raise InvalidSpecError(f"{path}.options: must be a table of single values, got {options!r}")
    try:
        timeout = real_number(table.get("timeout_s", DEFAULT_TIMEOUT_S), f"{path}.timeout_s", low=0.001,
                              error=InvalidSpecError)
    except InvalidSpecError as exc:
        raise InvalidSpecError(str(exc).replace(f"{path}.timeout_s must", f"{path}.timeout_s: must", 1)) from None
    cube = table.get("cube")
    try:
        return outside_bot(command=value if key == "command" else None, engine=value if key == "engine" else None,
                           options=options, timeout_s=timeout, cube=cube, label=table.get("name"))
    except BgfastError as exc:
        where = "cube" if cube is not None and "cube policy" in str(exc) else (
            "options" if "option" in str(exc) or "ply" in str(exc) else key)
        raise InvalidSpecError(f"{path}.{where}: {' '.join(str(exc).split())}") from None


def preflight(bots: Sequence[object]) -> None:
    """Start every outside player's engine once and stop it: an engine that cannot start or
    fails its handshake is found before any match (run this in the parent process).

    :raises EngineStartError: the first engine that fails, named.
    """
    for bot in bots:
        if isinstance(bot, OutsideBot):
            try:
                bot.start()
            finally:
                bot.close()


def play_match(play: Callable[[], MatchSummary], bots: Sequence[object], *, length: int) -> ResilientResult:
    """Play one match with ``play()`` (it plays the whole match from its start, e.g.
    ``lambda: match_player.play(seed, index)``) between ``bots`` (seat 0, seat 1).

    When a seat holds an outside player or a recorder of one (anything with a
    ``new_match`` method), through :func:`~bgfast.engines.resilient.play_resilient`:
    each seat is told of the new match, and an engine fault replays the match, three
    faults forfeit it; otherwise ``play()`` is called once (the fast path).

    :param length: the match length (0 = a money game), for a forfeit's score.
    """
    if any(callable(getattr(bot, "new_match", None)) for bot in bots):
        return play_resilient(play, bots, length=length)
    return ResilientResult(play())


Played = TypeVar("Played")


def play_replayed(play: Callable[[], Played], bots: Sequence[object], *, length: int,
                  on_fault: Callable[[Fault], None] | None = None) -> Played:
    """Play one match with ``play()`` (from its start, on its own dice, so that a replay is
    the same match) as :func:`play_match` plays a tournament's: an engine fault replays
    it; but a match that would be forfeited raises instead, for a caller that shows the
    match (``bgfast play``) rather than counting it.  Returns what ``play()`` returned.

    :param on_fault: called, once the match's attempts are over, with each fault after
        which the match was played again, in order, before this returns or raises the
        forfeit's error (which names the last fault itself); an error of ``play_match``
        itself (an engine that cannot be restarted) ends without them.

    :raises EngineError: after :data:`~bgfast.engines.resilient.MAX_ATTEMPTS` faults, naming
        the seat and the engine that failed last and its fault.
    :raises EngineStartError: an engine that cannot be started at all.
    """
    kept: list[Played] = []

    def attempt() -> MatchSummary:
        kept.clear()
        kept.append(play())
        return MatchSummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)   # not used: the caller keeps what play() gave

    result = play_match(attempt, bots, length=length)
    for fault in result.faults if result.forfeit is None else result.faults[:-1]:
        if on_fault is not None:
            on_fault(fault)
    if result.forfeit is not None:
        last = result.faults[-1]
        label = getattr(bots[last.seat], "label", None) or type(bots[last.seat]).__name__
        raise EngineError(f"engine {label!r} (player {last.seat}) failed {len(result.faults)} times, the match "
                          f"played again on the same dice each time; the last fault ({last.kind}): {last.message}",
                          engine=str(label), seat=last.seat)
    return kept[0]


def take_counters(bots: Sequence[object]) -> dict[int, EngineCounters]:
    """What each outside player (by its index in ``bots``) did since the last call; the
    counters start again from zero.  Players with nothing counted are left out."""
    taken: dict[int, EngineCounters] = {}
    for i, bot in enumerate(bots):
        if isinstance(bot, OutsideBot):
            counts = bot.counters.take()
            if not counts.is_zero():
                taken[i] = counts
    return taken
