"""The tournament spec: a tree of frozen dataclasses read from TOML and written back.

A spec names the players (a bot and its options each), the format (round robin
or gauntlet), the match length(s), the number of matches per pairing, the seed
and the rules.  Everything is checked when the spec is loaded, before any match
is played; a problem raises :class:`~bgfast.errors.InvalidSpecError` whose
message starts with the key path, e.g. ``players[2].bot: unknown bot 'pubevl'``.

>>> spec = TournamentSpec.from_dict({
...     "name": "demo", "match_length": 3, "matches_per_pairing": 10,
...     "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
>>> spec.match_length, spec.format, spec.rules.crawford
((3,), 'round-robin', True)
>>> TournamentSpec.from_toml_string(spec.to_toml()) == spec
True
>>> TournamentSpec.from_dict({**spec.to_dict(), "matches_per_pairing": 0})
Traceback (most recent call last):
...
bgfast.errors.InvalidSpecError: matches_per_pairing: must be a whole number from 1 to 1000000000000, got 0
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any


from bgfast.errors import InvalidSpecError, shortened
from bgfast.match import Rules
from bgfast.validation import flag, one_of, read_input_file, real_number, whole_number

if TYPE_CHECKING:
    from bgfast._core.evaluator import CoreEvaluator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["FORMATS", "MAX_CHUNKS", "MAX_SPRT_ELO", "MAX_MATCH_LENGTH", "MAX_MATCHES", "MAX_NAME_LENGTH",
           "MAX_SPEC_BYTES", "JudgeSpec", "PlayerSpec", "SprtOptions",
           "TournamentSpec"]

FORMATS = ("round-robin", "gauntlet")
"""The tournament formats: every pair of players, or one challenger against each of the others."""

MAX_MATCH_LENGTH = 64
"""The longest match length a spec may ask for (the match equity tables end there)."""

MAX_MATCHES = 10**12
"""The most matches a spec may ask for, per pairing (``matches_per_pairing``), per chunk
(``chunk_size``) and in all: more than a machine plays in years, and well within the
results file's 64-bit integers."""

MAX_CHUNKS = 10**6
"""The most chunks a spec is cut into: the runner keeps a list of the chunks to play, so a
spec of up to :data:`MAX_MATCHES` matches gets chunks large enough to stay under this
(the default ``chunk_size`` grows; a ``chunk_size`` that makes more is refused)."""

MAX_SPRT_ELO = 2000.0
"""The largest Elo bound ``[sprt]`` takes (either sign): 2,000 Elo is an expected score of
0.99999; far beyond it the test's expected scores round to 1 and its LLR is undefined."""

MAX_SPEC_BYTES = 1 << 24
"""The largest spec file :meth:`TournamentSpec.from_toml` reads (16 MiB): a spec is a page
of text; the bound refuses ``/dev/zero`` and other endless or huge files in one line."""

_NAME = re.compile(r"[A-Za-z0-9_.+-]+")

MAX_NAME_LENGTH = 200
"""The longest spec ``name``: it names files (``results/NAME.sqlite`` and its ``-journal``,
``NAME-INDEX.mat`` from ``bgfast export --all``), and a file name has at most 255 bytes."""


WEIGHTS_OPTION = "weights"
"""The bot option that names a weights file (``neural``, ``heuristic``): relative to the
spec file, and its contents part of the spec's :attr:`~TournamentSpec.hash`."""


def _fail(path: str, problem: str) -> InvalidSpecError:
    return InvalidSpecError(f"{path}: {problem}")


def _check_keys(table: Mapping[str, Any], path: str, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    prefix = f"{path}." if path else ""
    for key in table:
        if key not in required and key not in optional:
            known = ", ".join(required + optional)
            raise _fail(f"{prefix}{key}", f"unknown key (known keys: {known})")
    for key in required:
        if key not in table:
            raise _fail(f"{prefix}{key}", "missing (this key is required)")


# The checks of bgfast.validation, with messages in the spec's form "key.path: problem".

def _int(value: Any, path: str, low: int, high: int | None = None, what: str = "a whole number") -> int:
    return whole_number(value, f"{path}:", low=low, high=high, what=what, error=InvalidSpecError)


def _bool(value: Any, path: str) -> bool:
    return flag(value, f"{path}:", error=InvalidSpecError)


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, f"must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class PlayerSpec:
    """One player: a display name and what plays for it, one of a bgfast bot (``bot``, a
    built-in name or a plugin), a UBGI engine (``command``) or an engine bgfast drives by
    name (``engine``, see :data:`bgfast.engines.players.ENGINES`).

    >>> PlayerSpec("pub", "pubeval", cube="never").build()
    <PubevalBot 'pubeval'>
    >>> PlayerSpec("sage", command=("bgfast", "engine"), timeout_s=5.0).is_outside, PlayerSpec("sage", command=("bgfast", "engine")).describe()
    (True, 'command bgfast engine')
    """

    name: str
    """The name in reports; unique within the tournament."""
    bot: str | None = None
    """A name known to :func:`bgfast.bots.get_bot` (or a plugin); None for an outside player."""
    cube: str | None = None
    """The cube policy: for bots that take one (``None``: the bot's default); for an outside
    player, a bgfast policy that decides instead of the engine (``None``: the engine decides)."""
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Other keyword options passed to the bot (e.g. ``ply`` for gnubg), or the engine's
    options (UBGI keys sent as ``set KEY VALUE``; gnubg's ``ply``)."""
    command: tuple[str, ...] | None = None
    """The program and arguments of a UBGI engine, or None."""
    engine: str | None = None
    """The name of an outside engine bgfast knows how to drive (``"gnubg"``), or None."""
    timeout_s: float | None = None
    """Seconds an outside engine may take over one decision (None: the default, 60)."""

    @property
    def is_outside(self) -> bool:
        """True for an engine that plays from outside bgfast (``command`` or ``engine``)."""
        return self.command is not None or self.engine is not None

    def describe(self) -> str:
        """What plays for this player, one line: the bot's name, ``engine NAME`` or
        ``command PROGRAM ARGS...`` (the results file keeps it beside the name)."""
        import shlex

        if self.command is not None:
            return "command " + shlex.join(self.command)
        if self.engine is not None:
            return f"engine {self.engine}"
        assert self.bot is not None
        return self.bot

    def bot_options(self) -> dict[str, Any]:
        """The keyword arguments given to :func:`~bgfast.bots.get_bot` (for an outside
        player: its options, cube policy and time limit)."""
        options = dict(self.options)
        if self.cube is not None:
            options["cube"] = self.cube
        if self.timeout_s is not None:
            options["timeout_s"] = self.timeout_s
        return options

    def build(self) -> object:
        """A new bot for this player (an outside player's engine starts at its first decision).

        :raises UnknownBotError: the bot is unknown or refuses the options.
        :raises BotLoadError: a plugin that cannot be loaded or whose factory raises.
        :raises EngineStartError: an outside engine's program is missing or not executable.
        """
        if self.is_outside:
            from bgfast.engines.base import DEFAULT_TIMEOUT_S
            from bgfast.engines.players import outside_bot

            return outside_bot(command=self.command, engine=self.engine, options=self.options,
                               timeout_s=DEFAULT_TIMEOUT_S if self.timeout_s is None else self.timeout_s,
                               cube=self.cube, label=self.name)
        from bgfast.bots.spec import BotRecipe

        assert self.bot is not None
        return BotRecipe(self.bot, self.bot_options()).build()

    def to_dict(self) -> dict[str, Any]:
        """The TOML table of this player."""
        out: dict[str, Any] = {"name": self.name}
        if self.command is not None:
            out["command"] = list(self.command)
        elif self.engine is not None:
            out["engine"] = self.engine
        else:
            out["bot"] = self.bot
        if self.cube is not None:
            out["cube"] = self.cube
        if self.options:
            out["options"] = dict(self.options)
        if self.timeout_s is not None:
            out["timeout_s"] = self.timeout_s
        return out


@dataclass(frozen=True)
class SprtOptions:
    """The ``[sprt]`` section: stop a two-player run once the test decides.

    H0: the first player's (the challenger's) Elo advantage is ``elo0``; H1: it is ``elo1``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds."""
    on: str = "raw"
    """What the test counts: ``"raw"``, each unit's match wins (the pentanomial GSPRT), or
    ``"luck_adjusted"``, each unit's luck-adjusted score by the run's ``[judge]`` (match
    play: the match score; money: ``0.5 + ppg / 6``), by the normal GSPRT (see
    :mod:`~bgfast.tournament.sprt`): the same truth, decided in fewer games as far as the
    judge removes the dice's luck."""


JUDGE_LUCK_FILTER = 4
"""The judge's default luck filter: pubeval's best 4 plays of each roll valued, as rollouts' (measured:
README, "judged tournaments")."""
JUDGE_LUCK_FILTER_MAX = 64
"""The most plays of a roll the luck filter keeps (the core's ``LUCK_FILTER_MAX``)."""


@dataclass(frozen=True)
class JudgeSpec:
    """The ``[judge]`` section: the bot whose evaluator measures each side's dice luck and
    each decision's error in every match (``bot`` and its options, e.g. ``ply``): a bot that
    plays by its core evaluator (``"neural"`` at any ply, ``"heuristic"``).  A neural judge
    with ``cube_ply`` >= 1 (its default 1) values cube actions by the cubeful n-ply walk
    (:mod:`bgfast._core.cubeful`, as its own cube decisions: a last roll exactly); other
    judges by Janowski's formula (the match equity table in match play) on their
    probabilities (see :meth:`bgfast._core.game.MatchRunner.set_judge`).

    >>> JudgeSpec("neural", {"ply": 1}).describe()
    'neural ply=1 luck_filter=4'
    """

    bot: str
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Keyword options of the bot (``ply``, ``cube_ply``, ``weights``...)."""
    luck_filter: int = JUDGE_LUCK_FILTER
    """Plays of each roll the luck measure values: a neural judge values pubeval's best
    ``luck_filter`` plays of each of the 21 rolls (0: every play), as rollouts' luck
    filter does; the luck's mean stays zero whatever the filter (see
    :meth:`bgfast._core.game.MatchRunner.set_judge`)."""

    def describe(self) -> str:
        """The judge in one line: its bot, options and luck filter."""
        return " ".join([self.bot, *(f"{k}={v}" for k, v in sorted(self.options.items())),
                         f"luck_filter={self.luck_filter}"])

    def evaluator(self) -> tuple[CoreEvaluator, float]:
        """A new judge: its core evaluator (with a search of its own) and cube efficiency.

        :raises InvalidSpecError: a bot that does not play by a core evaluator, or that
            refuses the options; the message names the key.
        """
        from bgfast.bots import get_bot
        from bgfast.errors import InvalidBotOptionsError, UnknownBotError
        from bgfast._core.game import PlayKind
        from bgfast.game import CoreConfig

        try:
            bot = get_bot(self.bot, **self.options)
        except InvalidBotOptionsError as exc:
            raise _fail("judge", str(exc)) from None
        except UnknownBotError as exc:
            raise _fail("judge.bot", str(exc)) from None
        config = bot.core_config() if hasattr(bot, "core_config") else None
        if config is None or CoreConfig(*config).play != PlayKind.PLAY_EVALUATOR or config[3] is None:
            raise _fail("judge.bot", f"a judge plays by a core evaluator (\"neural\", \"heuristic\"), "
                        f"got {self.bot!r}")
        return CoreConfig(*config).evaluator, float(config[2])  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """The TOML table of the judge."""
        return {"bot": self.bot, **self.options, "luck_filter": self.luck_filter}


def _options_in_name(bot: str) -> str | None:
    """For a bot spec with options (``neural:ply=1``, as ``--player`` takes it) given as a
    player's ``bot``, the same player in a spec's keys (``bot = "neural", options = { ply = 1 }``,
    the cube policy in ``cube``); else None."""
    from bgfast.bots import available_bots
    from bgfast.bots.spec import parse_bot_spec
    from bgfast.errors import UnknownBotError

    name, colon, rest = bot.partition(":")
    if not colon or "=" not in rest or name not in available_bots():
        return None
    try:
        options = parse_bot_spec(bot)[1]
    except UnknownBotError:
        return None

    def toml(value: object) -> str:
        return str(value).lower() if isinstance(value, bool) else json.dumps(value)

    keys = [f"bot = {toml(name)}"]
    if "cube" in options:
        keys.append(f"cube = {toml(options.pop('cube'))}")
    if options:
        keys.append("options = { " + ", ".join(f"{k} = {toml(v)}" for k, v in options.items()) + " }")
    return ", ".join(keys)


@dataclass(frozen=True)
class TournamentSpec:
    """A whole tournament.  Build it with :meth:`from_toml` (or :meth:`from_dict`),
    which checks every value; the constructor itself checks nothing.

    The pair (:attr:`seed`, match index) fixes each match's dice, so a spec plays
    the same matches whatever the number of workers.
    """

    name: str
    """The tournament's name; the default results file is ``results/<name>.sqlite``."""
    players: tuple[PlayerSpec, ...]
    match_length: tuple[int, ...]
    """Match lengths in points, 0 = a money game; each pairing plays every length."""
    matches_per_pairing: int
    """Matches per pairing and per match length."""
    seed: int = 1
    format: str = "round-robin"
    challenger: str | None = None
    """The player who meets every other one, in a gauntlet."""
    paired_dice: bool = True
    """Each two consecutive matches of a pairing replay the same dice with the seats swapped."""
    rules: Rules = field(default_factory=Rules)
    sprt: SprtOptions | None = None
    judge: JudgeSpec | None = None
    """The judge of luck and errors (``[judge]``), or None: none measured."""
    chunk_size: int = 0
    """Matches per unit of work (0 = chosen from the spec; :meth:`from_dict` fills it in)."""
    openings: tuple[str, ...] = ()
    """Position IDs the games start from (see :mod:`~bgfast.tournament.openings`); empty: the opening roll."""
    openings_order: str = "sequential"
    """The order rounds take the openings in: ``"sequential"`` or ``"random"`` (shuffled once by the seed)."""

    # ------------------------------------------------------------ reading

    @classmethod
    def from_toml(cls, path: str | Path) -> TournamentSpec:
        """Read and check a spec file (an ``openings`` file is read relative to it).

        :raises InvalidSpecError: the file cannot be read, is not a regular file or is larger
            than :data:`MAX_SPEC_BYTES`, is not UTF-8 text or not TOML (the message names the
            file), or any value is wrong.
        """
        data = read_input_file(path, "tournament spec", limit=MAX_SPEC_BYTES, error=InvalidSpecError)
        try:
            text = data.decode("utf-8-sig")   # a byte-order mark (Notepad) is not a character
        except UnicodeDecodeError as exc:
            raise InvalidSpecError(f"cannot read tournament spec {str(path)!r}: not UTF-8 text (byte "
                                   f"0x{exc.object[exc.start]:02x} at position {exc.start}); TOML is UTF-8") from None
        return cls.from_toml_string(text, source=str(path), base_dir=Path(path).parent)

    @classmethod
    def from_toml_string(cls, text: str, *, source: str = "<spec>",
                         base_dir: str | Path | None = None) -> TournamentSpec:
        """Parse and check a spec given as TOML text.

        :param base_dir: the folder an ``openings`` file name is relative to (default: the working directory).
        :raises InvalidSpecError: the text is not TOML or any value is wrong.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidSpecError(f"{source}: not valid TOML: {exc}") from None
        return cls.from_dict(data, base_dir=base_dir)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base_dir: str | Path | None = None) -> TournamentSpec:
        """Check a spec given as the dict TOML parses to.

        :param base_dir: the folder an ``openings`` file name is relative to (default: the working directory).
        :raises InvalidSpecError: an unknown key, a missing key, an unknown bot
            or a bad value; the message starts with the key path.
        """
        if not isinstance(data, Mapping):
            raise InvalidSpecError(f"a tournament spec must be a table, got {type(data).__name__}")
        _check_keys(data, "", ("name", "match_length", "matches_per_pairing", "players"),
                    ("seed", "format", "challenger", "paired_dice", "rules", "sprt", "chunk_size", "openings",
                     "openings_order", "judge"))
        name = _str(data["name"], "name")
        if not _NAME.fullmatch(name):
            raise _fail("name", f"must use only letters, digits and . _ + - (it names the results file), got {name!r}")
        if len(name) > MAX_NAME_LENGTH:
            raise _fail("name", f"must be at most {MAX_NAME_LENGTH} characters (it names the results file), "
                        f"got {len(name)}: {shortened(name)!r}")
        seed = _int(data.get("seed", 1), "seed", 0, 2**63 - 1)
        fmt = str(one_of(data.get("format", "round-robin"), "format:", FORMATS, error=InvalidSpecError))
        lengths_raw = data["match_length"]
        lengths_list = lengths_raw if isinstance(lengths_raw, list) else [lengths_raw]
        if not lengths_list:
            raise _fail("match_length", "must be a length or a non-empty list of lengths")
        lengths = tuple(
            _int(v, "match_length" if not isinstance(lengths_raw, list) else f"match_length[{i}]",
                 0, MAX_MATCH_LENGTH, "a match length (0 = money)")
            for i, v in enumerate(lengths_list)
        )
        if len(set(lengths)) != len(lengths):
            raise _fail("match_length", f"lists a length twice: {list(lengths)}")
        paired = _bool(data.get("paired_dice", True), "paired_dice")
        per_pairing = _int(data["matches_per_pairing"], "matches_per_pairing", 1, MAX_MATCHES)
        if paired and per_pairing % 2:
            raise _fail("matches_per_pairing", f"must be even with paired_dice = true, got {per_pairing}")
        players = cls._players(data["players"], base_dir)
        names = [p.name for p in players]
        challenger = data.get("challenger")
        if fmt == "gauntlet":
            if challenger is None:
                raise _fail("challenger", "missing (a gauntlet needs the name of its challenger)")
            if challenger not in names:
                raise _fail("challenger", f"is not a player's name: {challenger!r} (players: {', '.join(names)})")
        elif challenger is not None:
            raise _fail("challenger", 'is only for format = "gauntlet"')
        rules = cls._rules(data.get("rules", {}))
        openings, order = cls._openings(data, base_dir, lengths, paired, rules)
        judge = cls._judge(data["judge"], base_dir) if "judge" in data else None
        if judge is not None:
            cls._check_judged_lengths(lengths)
            if rules.variant != "standard":
                raise _fail("judge", f"the judges' evaluators know standard backgammon only, not {rules.variant}: "
                                     "leave [judge] out of this spec")
        sprt = cls._sprt(data["sprt"], len(players), judge is not None) if "sprt" in data else None
        spec = cls(name=name, players=players, match_length=lengths, matches_per_pairing=per_pairing,
                   seed=seed, format=fmt, challenger=challenger, paired_dice=paired, rules=rules, sprt=sprt,
                   judge=judge, openings=openings, openings_order=order)
        if spec.total_matches() > MAX_MATCHES:
            raise _fail("matches_per_pairing", f"{per_pairing} makes {spec.total_matches():,} matches in all "
                        f"({len(spec.pairs())} pairings x {len(lengths)} lengths); at most {MAX_MATCHES:,}")
        if "chunk_size" in data:
            chunk = _int(data["chunk_size"], "chunk_size", 1, MAX_MATCHES)
            if paired and chunk % 2:
                raise _fail("chunk_size", f"must be even with paired_dice = true, got {chunk}")
            if -(-spec.total_matches() // chunk) > MAX_CHUNKS:
                raise _fail("chunk_size", f"{chunk} cuts the {spec.total_matches():,} matches into more than "
                            f"{MAX_CHUNKS:,} chunks; give at least {-(-spec.total_matches() // MAX_CHUNKS):,}")
        else:
            chunk = spec._default_chunk_size()
        return dataclasses.replace(spec, chunk_size=chunk)

    @staticmethod
    def _players(raw: Any, base_dir: str | Path | None = None) -> tuple[PlayerSpec, ...]:
        if not isinstance(raw, list):
            raise _fail("players", f"must be a list of players ([[players]] tables), got {shortened(repr(raw))}")
        if len(raw) < 2:
            raise _fail("players", f"must list at least two players ([[players]] tables), got {len(raw)}")
        players = []
        seen: set[str] = set()
        for i, table in enumerate(raw):
            path = f"players[{i}]"
            if not isinstance(table, Mapping):
                raise _fail(path, "must be a table with name and bot (or command, or engine)")
            _check_keys(table, path, ("name",), ("bot", "command", "engine", "cube", "options", "timeout_s"))
            name = _str(table["name"], f"{path}.name")
            if not name.isprintable():
                raise _fail(f"{path}.name", f"must not hold control characters such as a newline or a tab "
                            f"(it is a column of the report's tables), got {name!r}")
            if name in seen:
                raise _fail(f"{path}.name", f"{name!r} is used by another player")
            seen.add(name)
            kinds = [key for key in ("bot", "command", "engine") if key in table]
            if not kinds:
                raise _fail(f"{path}.bot", "missing (a player needs one of bot, command or engine)")
            if len(kinds) > 1:
                raise _fail(f"{path}.{kinds[1]}", f"a player has one of bot, command or engine, not {' and '.join(kinds)}")
            if kinds[0] == "bot":
                players.append(TournamentSpec._bot_player(table, path, name, base_dir))
            else:
                players.append(TournamentSpec._outside_player(table, path, name))
        return tuple(players)

    @staticmethod
    def _bot_player(table: Mapping[str, Any], path: str, name: str,
                    base_dir: str | Path | None = None) -> PlayerSpec:
        """A player played by a bgfast bot (built once here, to check its options: bots
        in the process are cheap to build).  A relative ``weights`` file name is made
        absolute from ``base_dir`` (the spec file's folder), as an openings file's is."""
        from bgfast.bots import available_bots
        from bgfast.bots.plugins import is_plugin_name
        from bgfast.errors import BotLoadError, BotPackageMissingError, InvalidWeightsError, UnknownBotError

        if "timeout_s" in table:
            raise _fail(f"{path}.timeout_s", "is only for outside players (command or engine)")
        bot = _str(table["bot"], f"{path}.bot")
        written = _options_in_name(bot)
        if written is not None:
            raise _fail(f"{path}.bot", f"{bot!r} holds options, as --player takes them; in a spec they "
                        f"have keys of their own: {written}")
        if bot not in available_bots() and not is_plugin_name(bot):
            raise _fail(f"{path}.bot", f"unknown bot {bot!r} (known bots: {', '.join(sorted(available_bots()))}; "
                        "or a plugin, module:factory)")
        cube = table.get("cube")
        if cube is not None:
            cube = _str(cube, f"{path}.cube")
        options = table.get("options", {})
        if not isinstance(options, Mapping):
            raise _fail(f"{path}.options", f"must be a table of bot options, got {options!r}")
        if "cube" in options:
            raise _fail(f"{path}.options.cube", f"set the cube policy with {path}.cube")
        options = dict(options)
        weights = options.get(WEIGHTS_OPTION)
        if isinstance(weights, str) and base_dir is not None and not Path(weights).is_absolute():
            options[WEIGHTS_OPTION] = str((Path(base_dir) / weights).resolve())
        player = PlayerSpec(name, bot, cube, options)
        try:
            player.build()
        except InvalidWeightsError as exc:
            raise _fail(f"{path}.options.{WEIGHTS_OPTION}", str(exc)) from None
        except (BotLoadError, BotPackageMissingError) as exc:
            raise _fail(f"{path}.bot", " ".join(str(exc).split())) from None
        except UnknownBotError as exc:
            key = "cube" if cube is not None and "cube" in str(exc) else "options"
            raise _fail(f"{path}.{key}", str(exc)) from None
        except ImportError as exc:
            raise _fail(f"{path}.bot", f"bot {bot!r} cannot be loaded: {exc}") from None
        return player

    @staticmethod
    def _outside_player(table: Mapping[str, Any], path: str, name: str) -> PlayerSpec:
        """A player played by an outside engine, checked without starting it."""
        from bgfast.engines.players import check_outside_player

        check_outside_player(table, path)
        command = table.get("command")
        timeout = table.get("timeout_s")
        return PlayerSpec(name, None, table.get("cube"), dict(table.get("options", {})),
                          command=tuple(command) if command is not None else None, engine=table.get("engine"),
                          timeout_s=float(timeout) if timeout is not None else None)

    @staticmethod
    def _rules(raw: Any) -> Rules:
        if not isinstance(raw, Mapping):
            raise _fail("rules", f"must be a table, got {raw!r}")
        names = tuple(f.name for f in dataclasses.fields(Rules))
        _check_keys(raw, "rules", (), names)
        return Rules(**raw)

    @staticmethod
    def _check_judged_lengths(lengths: tuple[int, ...]) -> None:
        """A ``[judge]`` measures match play through the default match equity table, which
        must hold every match length's scores (the core reads nothing beyond it)."""
        from bgfast.met import MatchEquityTable

        table = MatchEquityTable.load()
        for length in lengths:
            table.check_length(length, InvalidSpecError, key="judge",
                               then=f"a spec cannot name another table, so with [judge] keep match_length "
                                    f"at {table.max_length} or less (0: money), or leave [judge] out")

    @staticmethod
    def _judge(raw: Any, base_dir: str | Path | None) -> JudgeSpec:
        """The ``[judge]`` table: ``bot`` and the bot's options beside it (built once, to check them)."""
        if not isinstance(raw, Mapping):
            raise _fail("judge", f"must be a table (bot = \"neural\", ply = ...), got {raw!r}")
        if "bot" not in raw:
            raise _fail("judge.bot", "missing (the judge's bot: \"neural\" or \"heuristic\")")
        bot = _str(raw["bot"], "judge.bot")
        if "cube" in raw:
            raise _fail("judge.cube", "a judge makes no cube decisions: it values them by its cube_efficiency "
                                      "(Janowski, money) or the match equity table; leave cube out")
        if "luck_filter" in raw and bot.partition(":")[0] != "neural":
            raise _fail("judge.luck_filter", f"is for a neural judge (its move filter for the luck); the {bot!r} "
                                             "judge filters every roll's plays its own way: leave luck_filter out")
        luck_filter = _int(raw.get("luck_filter", JUDGE_LUCK_FILTER), "judge.luck_filter", 0, JUDGE_LUCK_FILTER_MAX,
                           what="a whole number of plays (0: all)")
        options = {k: v for k, v in raw.items() if k not in ("bot", "luck_filter")}
        weights = options.get(WEIGHTS_OPTION)
        if isinstance(weights, str) and base_dir is not None and not Path(weights).is_absolute():
            options[WEIGHTS_OPTION] = str((Path(base_dir) / weights).resolve())
        judge = JudgeSpec(bot, options, luck_filter)
        try:
            judge.evaluator()
        except InvalidSpecError:
            raise
        except (ValueError, TypeError, ImportError, OSError) as exc:
            raise _fail("judge", f"bot {bot!r} with {options!r}: {' '.join(str(exc).split())}") from None
        return judge

    @staticmethod
    def _sprt(raw: Any, n_players: int, judged: bool) -> SprtOptions:
        from bgfast.tournament.sprt import SPRT_ON

        if not isinstance(raw, Mapping):
            raise _fail("sprt", f"must be a table, got {raw!r}")
        _check_keys(raw, "sprt", ("elo0", "elo1"), ("alpha", "beta", "on"))
        on = str(one_of(raw.get("on", "raw"), "sprt.on:", SPRT_ON, error=InvalidSpecError))
        if on == "luck_adjusted" and not judged:
            raise _fail("sprt.on", '"luck_adjusted" needs a judge: add a [judge] table (bot = "neural")')
        values: dict[str, float] = {}
        for key in ("elo0", "elo1", "alpha", "beta"):
            if key not in raw:
                continue
            if key in ("alpha", "beta"):
                values[key] = real_number(raw[key], f"sprt.{key}:", low=0.0, high=0.5, strict=True,
                                          bounds="between 0 and 0.5", error=InvalidSpecError)
            else:    # beyond about 6,000 Elo the expected score is 1.0 in floating point
                values[key] = real_number(raw[key], f"sprt.{key}:", low=-MAX_SPRT_ELO, high=MAX_SPRT_ELO,
                                          error=InvalidSpecError)
        if values["elo1"] <= values["elo0"]:
            raise _fail("sprt.elo1", f"must be greater than elo0 ({values['elo0']:g}), got {values['elo1']:g}")
        if n_players != 2:
            raise _fail("sprt", f"needs exactly two players (a two-player gauntlet), got {n_players}")
        return SprtOptions(**values, on=on)

    @staticmethod
    def _openings(data: Mapping[str, Any], base_dir: str | Path | None, lengths: tuple[int, ...], paired: bool,
                  rules: Rules) -> tuple[tuple[str, ...], str]:
        """``openings`` (a file name, or the list of Position IDs :meth:`to_dict` writes) and
        ``openings_order``, checked (see :mod:`~bgfast.tournament.openings`)."""
        from bgfast.position import VARIANTS
        from bgfast.tournament.openings import (
            OPENINGS_ORDERS,
            load_openings,
            parse_opening,
        )

        order = str(one_of(data.get("openings_order", "sequential"), "openings_order:", OPENINGS_ORDERS,
                           error=InvalidSpecError))
        if "openings" not in data:
            if "openings_order" in data:
                raise _fail("openings_order", "is only for a spec with openings")
            return (), order
        raw = data["openings"]
        length = lengths[0] if len(lengths) == 1 else None
        checkers = sum(VARIANTS[rules.variant][1])
        if isinstance(raw, str) and raw.strip():
            path = Path(base_dir or ".") / raw
            ids = tuple(o.position.id() for o in load_openings(path, match_length=length, checkers=checkers))
        elif isinstance(raw, list) and raw and all(isinstance(v, str) for v in raw):
            ids = tuple(parse_opening(v.strip(), f"openings[{i}]", match_length=length, checkers=checkers).id()
                        for i, v in enumerate(raw))
        else:
            raise _fail("openings", f"must be the name of an openings file (or a list of Position IDs), got {raw!r}")
        if not paired:
            raise _fail("openings", "needs paired_dice = true: each opening is played as a pair, seats swapped")
        return ids, order

    def _default_chunk_size(self) -> int:
        # about 1000 points of play per chunk, and at least ~100 chunks for small runs
        points = max(1, round(sum(max(1, n) for n in self.match_length) / len(self.match_length)))
        size = max(2, min(1000 // points, math.ceil(self.total_matches() / 100)),
                   math.ceil(self.total_matches() / MAX_CHUNKS))
        return size + (size % 2 if self.paired_dice else 0)

    # ------------------------------------------------------------ writing

    def to_dict(self) -> dict[str, Any]:
        """The spec as the dict :meth:`from_dict` reads (every default written out)."""
        out: dict[str, Any] = {
            "name": self.name,
            "seed": self.seed,
            "format": self.format,
        }
        if self.challenger is not None:
            out["challenger"] = self.challenger
        out["match_length"] = self.match_length[0] if len(self.match_length) == 1 else list(self.match_length)
        out["matches_per_pairing"] = self.matches_per_pairing
        out["paired_dice"] = self.paired_dice
        out["chunk_size"] = self.chunk_size
        out["rules"] = dataclasses.asdict(self.rules)
        if self.rules.dead_cube == "refuse":  # the default, left out so that a spec keeps its hash
            del out["rules"]["dead_cube"]
        if self.openings:
            out["openings"] = list(self.openings)
            out["openings_order"] = self.openings_order
        if self.sprt is not None:
            out["sprt"] = dataclasses.asdict(self.sprt)
            if self.sprt.on == "raw":  # the default, left out so that a spec keeps its hash
                del out["sprt"]["on"]
        if self.judge is not None:  # left out without one, so that a spec keeps its hash
            out["judge"] = self.judge.to_dict()
        out["players"] = [p.to_dict() for p in self.players]
        return out

    def to_toml(self) -> str:
        """The spec as TOML text that :meth:`from_toml_string` reads back to an equal spec."""
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    @property
    def hash(self) -> str:
        """A fingerprint of everything that decides the matches played (hex, 16 digits):
        the spec, and the contents of the bots' ``weights`` files, so that a run whose
        net was replaced is another run, not a resumed one."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        digests = self.weights_digests()
        if digests:
            text += json.dumps(digests, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def weights_digests(self) -> dict[str, str]:
        """Player name -> SHA-256 (hex) of the file its bot's ``weights`` option names
        (``"unreadable"`` for a file that cannot be read); players without one are left out."""
        out = {}
        for player in self.players:
            weights = player.options.get(WEIGHTS_OPTION) if not player.is_outside else None
            if isinstance(weights, str):
                try:
                    out[player.name] = hashlib.sha256(Path(weights).read_bytes()).hexdigest()
                except OSError:
                    out[player.name] = "unreadable"
        return out

    # ------------------------------------------------------------ sizes

    def pairs(self) -> list[tuple[int, int]]:
        """The pairings as indices into :attr:`players`, in schedule order."""
        n = len(self.players)
        if self.format == "gauntlet":
            c = [p.name for p in self.players].index(self.challenger)  # type: ignore[arg-type]
            return [(c, j) for j in range(n) if j != c]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def total_matches(self) -> int:
        """Matches in the whole tournament."""
        return len(self.pairs()) * len(self.match_length) * self.matches_per_pairing

    def chunk_count(self) -> int:
        """Units of work the tournament is split into."""
        return -(-self.total_matches() // self.chunk_size)
