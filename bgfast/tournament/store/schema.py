"""The results file's tables, the checks that a file is one, and the migrations of older files.

Layout (``PRAGMA user_version = 1``):

- ``runs``: one row per spec played into the file (its TOML, its hash, sizes, SPRT outcome);
- ``players``: every player name with its bot and options (a name means one bot in a file);
- ``matches``: one row per match, keyed by (run, idx): the seats (``player0`` sits in
  seat 0), length, seed and dice index, final score, winner seat, games, gammons,
  backgammons, doubles (cube actions) and plies (:data:`MATCH_COLUMNS`);
- ``chunks``: one row per finished chunk;
- ``engine_counters``: per (run, player) what an outside engine did (decisions, their
  total and longest time, restarts, crashes, timeouts, illegal answers, forfeits, cube
  decisions left to bgfast's policy), summed chunk by chunk
  (:class:`~bgfast.engines.counters.EngineCounters`);
- ``match_records``: per (run, idx) of a match with a Python bot or an outside engine in
  a seat, each recorded seat's decisions (:mod:`bgfast.engines.record`) and the seat
  that forfeited, if one did;
- ``match_judged``: per (run, idx) of a match of a judged run (``[judge]``), the judge's
  figures (:data:`bgfast.game.JUDGED_COLUMNS`: each seat's luck, checker and cube errors
  and decisions; luck in points or match winning chance, errors normalized as gnubg's)
  and ``errors_normalized``, 1 (:data:`ERRORS_NORMALIZED`);
- ``chunk_seats`` and ``chunk_units``: per (run, chunk) the chunk's sums by seating and by
  kind of unit (:mod:`~bgfast.tournament.totals`), which standings add up.

A file written before the judged table existed is read as it is (no judged figures)
and gets it when a run writes to it again (:func:`add_judged_table`).  One whose judged
table predates ``errors_normalized`` holds errors in the result's unit (points, match
winning chance), which no rate of gnubg's compares with: its errors read as unknown
(NULL, :func:`judged_columns`), its luck as it is, and the column is added, 0 for those
rows, when a run writes to it again (:func:`add_judged_units`).  A file written
before the engine tables existed is read as it is (no engine counts,
no records) and gets them when a run writes to it again (:func:`add_engine_tables`).  One
written before the chunk sums existed gets them, made from its match rows, when it is
opened (:func:`add_chunk_sums`; read-only: in temporary tables of the connection, nothing
written).

Everything here works on an open :class:`sqlite3.Connection`; the
:class:`~bgfast.tournament.store.Store` opens it and calls these inside its transactions.
"""
from __future__ import annotations

import dataclasses
import sqlite3
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import numpy as np
from numpy.typing import NDArray

from bgfast.engines.counters import EngineCounters
from bgfast.errors import ResultsFileError
from bgfast.game import JUDGED_COLUMNS as _JUDGED_COLUMNS
from bgfast.tournament.pairs import UnitGroup
from bgfast.tournament.results import MatchSummary, SeatTotals
from bgfast.tournament.totals import TOTALS_COLUMNS, TOTALS_DTYPE, chunk_totals

__all__ = [
    "BASE_TABLES",
    "COUNTER_COLUMNS",
    "ENGINE_TABLES",
    "ERRORS_NORMALIZED",
    "JUDGED_COLUMNS",
    "JUDGED_TABLES",
    "MATCH_COLUMNS",
    "SCHEMA_VERSION",
    "SEAT_SUMS",
    "TOTALS_TABLES",
    "UNIT_SUMS",
    "add_chunk_sums",
    "add_engine_tables",
    "add_judged_table",
    "add_judged_units",
    "check_version",
    "create_tables",
    "find_damage",
    "has_judged_units",
    "insert_chunk_sums",
    "judged_columns",
    "spec_problem",
    "table_names",
]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    spec_hash TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    seed INTEGER NOT NULL,
    total_matches INTEGER NOT NULL,
    chunk_size INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    created TEXT NOT NULL,
    sprt_status TEXT,
    sprt_matches INTEGER,
    sprt_llr REAL
);
CREATE TABLE IF NOT EXISTS players (
    player INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    bot TEXT NOT NULL,
    options TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    run INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    matches INTEGER NOT NULL,
    seconds REAL NOT NULL,
    worker TEXT NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (run, chunk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS matches (
    run INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    pairing INTEGER NOT NULL,
    length INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    dice_index INTEGER NOT NULL,
    player0 INTEGER NOT NULL,
    player1 INTEGER NOT NULL,
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    winner INTEGER NOT NULL,
    games INTEGER NOT NULL,
    gammons0 INTEGER NOT NULL,
    gammons1 INTEGER NOT NULL,
    backgammons0 INTEGER NOT NULL,
    backgammons1 INTEGER NOT NULL,
    doubles INTEGER NOT NULL,
    plies INTEGER NOT NULL,
    PRIMARY KEY (run, idx)
) WITHOUT ROWID;
"""

BASE_TABLES = frozenset({"runs", "players", "chunks", "matches"})
"""The tables every results file has (the engine tables came later: see :data:`ENGINE_TABLES`)."""

MATCH_COLUMNS = ("run", "idx", "chunk", "pairing", "length", "seed", "dice_index", "player0", "player1",
                 *MatchSummary._fields)
"""The columns of ``matches``: the match's place, then how it went (named as in MatchSummary)."""

COUNTER_COLUMNS = tuple(f.name for f in dataclasses.fields(EngineCounters))
"""The counts of ``engine_counters``, named as in EngineCounters."""

_ENGINE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS engine_counters (
    run INTEGER NOT NULL,
    player INTEGER NOT NULL,
    {", ".join(f"{name} {'REAL' if name.startswith('decision_ms') else 'INTEGER'} NOT NULL"
               for name in COUNTER_COLUMNS)},
    PRIMARY KEY (run, player)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS match_records (
    run INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seat0 BLOB,
    seat1 BLOB,
    forfeit INTEGER,
    PRIMARY KEY (run, idx)
) WITHOUT ROWID;
"""
"""The tables of outside engines and recorded matches (files of earlier versions lack them)."""
ENGINE_TABLES = frozenset({"engine_counters", "match_records"})

JUDGED_COLUMNS = _JUDGED_COLUMNS
"""The figures of ``match_judged`` (after run and idx), named as in :data:`bgfast.game.JUDGED_COLUMNS`."""
_JUDGED_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS match_judged (
    run INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    {", ".join(f"{name} {'INTEGER' if 'decisions' in name else 'REAL'} NOT NULL" for name in JUDGED_COLUMNS)},
    errors_normalized INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run, idx)
) WITHOUT ROWID;
"""
JUDGED_TABLES = frozenset({"match_judged"})
"""The table of judged runs' figures (files of earlier versions lack it)."""
ERRORS_NORMALIZED = 1
"""``match_judged.errors_normalized`` of a row whose errors are normalized as gnubg's
error rates are (money: points per unit of the cube; match play: EMG), as the core has
recorded them since the column exists; 0, the rows of files written before, errors in
points or match winning chance."""

SEAT_SUMS = SeatTotals._fields[2:]
"""The sums of ``chunk_seats`` (after its seating), named as in SeatTotals."""
UNIT_SUMS = UnitGroup._fields[4:]
"""The sums of ``chunk_units`` (after its kind of unit), named as in UnitGroup."""
_TOTALS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS chunk_seats (
    run INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    player0 INTEGER NOT NULL,
    player1 INTEGER NOT NULL,
    {", ".join(f"{name} INTEGER NOT NULL" for name in SEAT_SUMS)},
    PRIMARY KEY (run, chunk, player0, player1)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunk_units (
    run INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    player_a INTEGER NOT NULL,
    player_b INTEGER NOT NULL,
    matches_per_unit INTEGER NOT NULL,
    a_wins INTEGER NOT NULL,
    {", ".join(f"{name} {'REAL' if name.startswith('score') else 'INTEGER'} NOT NULL" for name in UNIT_SUMS)},
    PRIMARY KEY (run, chunk, player_a, player_b, matches_per_unit, a_wins)
) WITHOUT ROWID;
"""
"""Each chunk's sums (:mod:`~bgfast.tournament.totals`), which standings add up (files of
earlier versions lack them: they are made from the match rows when the file is opened)."""
TOTALS_TABLES = frozenset({"chunk_seats", "chunk_units"})

_INSERT_SEATS = f"INSERT INTO chunk_seats VALUES ({', '.join('?' * (len(SeatTotals._fields) + 2))})"
_INSERT_UNITS = f"INSERT INTO chunk_units VALUES ({', '.join('?' * (len(UnitGroup._fields) + 2))})"


def table_names(conn: sqlite3.Connection) -> set[str]:
    """The names of the tables in the file ``conn`` has open."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_version(conn: sqlite3.Connection, name: str) -> bool:
    """True when ``conn`` holds a bgfast results file, False when it is an empty database
    (a new file); ``name`` is the file's name as errors quote it.

    :raises ResultsFileError: another database, another schema version, or a table missing
        (``conn`` is closed first).
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = table_names(conn)
    if version == 0 and not tables:
        return False
    if version != SCHEMA_VERSION or not tables & BASE_TABLES:
        conn.close()
        raise ResultsFileError(f"{name} is not a bgfast results file"
                               + (f" (schema {version})" if version else f" (tables {', '.join(sorted(tables))})"))
    missing = BASE_TABLES - tables
    if missing:
        conn.close()
        raise ResultsFileError(f"{name} is a damaged results file: its table(s) "
                               f"{', '.join(sorted(missing))} are missing")
    return True


def create_tables(conn: sqlite3.Connection) -> None:
    """Make every table of a new file, and set its version, in one transaction."""
    conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}{_ENGINE_SCHEMA}{_JUDGED_SCHEMA}{_TOTALS_SCHEMA}"
                       f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")


def spec_problem(text: object) -> str | None:
    r"""What is wrong with a run's saved spec (the TOML text a run writes into ``runs.spec``,
    :meth:`~bgfast.tournament.spec.TournamentSpec.to_toml`), as the readers of a results file
    need it, or None: TOML that does not parse, or a key they read that is missing or of
    another kind (``match_length``, ``players`` and their names, ``rules``, ``sprt``...).
    The players' bots are not checked: a file is read where they need not be installed.

    >>> spec_problem('name = "x"\nmatch_length = 3\n[[players]]\nname = "a"\nbot = "random"\n') is None
    True
    >>> spec_problem('name = "x"\nplayers = [')
    'is not TOML: ...'
    >>> spec_problem('name = "x"\nmatch_length = "3"\n')
    "has match_length = '3', not a whole number or a list of them"
    """
    from bgfast.match import Rules

    if not isinstance(text, str):
        return f"is {type(text).__name__}, not TOML text"
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return f"is not TOML: {exc}"
    length = raw.get("match_length")
    if length is None:
        return "has no match_length"
    if not (_whole(length) or (isinstance(length, list) and length and all(_whole(n) for n in length))):
        return f"has match_length = {length!r}, not a whole number or a list of them"
    players = raw.get("players")
    if not isinstance(players, list) or not players:
        return "has no players" if not players else f"has players = {players!r}, not a list of tables"
    for i, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("name"), str):
            return f"has players[{i}] without a name"
        if not any(key in player for key in ("bot", "command", "engine")):
            return f"has players[{i}] ({player['name']!r}) without a bot, command or engine"
        if not isinstance(player.get("options", {}), dict):
            return f"has players[{i}].options = {player['options']!r}, not a table"
    rules = raw.get("rules", {})
    try:
        Rules(**rules)
    except (TypeError, ValueError) as exc:
        return f"has rules that do not read: {' '.join(str(exc).split())}"
    for key, kind, what in (("paired_dice", bool, "true or false"), ("challenger", str, "a name"),
                            ("openings", list, "a list of Position IDs")):
        if key in raw and not isinstance(raw[key], kind):
            return f"has {key} = {raw[key]!r}, not {what}"
    sprt = raw.get("sprt")
    if sprt is not None:
        numbers = ("elo0", "elo1", "alpha", "beta")
        if not isinstance(sprt, dict) or not all(k in sprt for k in numbers[:2]) or not all(
                isinstance(sprt[k], (int, float)) and not isinstance(sprt[k], bool) for k in numbers if k in sprt):
            return f"has sprt = {sprt!r}, not a table of the numbers elo0, elo1 (alpha, beta)"
    return None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def find_damage(conn: sqlite3.Connection) -> str | None:
    """What in the file's rows disagrees, or None: a run's saved spec that does not read
    (:func:`spec_problem`), matches of players or runs that are not
    in it, a run whose match rows are not the matches its finished chunks hold, a judged
    run without a row of judged figures for each of its matches, or chunk sums that are
    not its chunks' (rows of one table deleted, a table dropped), or one table of
    :data:`TOTALS_TABLES` or :data:`ENGINE_TABLES` without the other (a file of an earlier
    version lacks both).  Call it inside one read
    transaction: counts read in two snapshots, around a chunk a run writing to the file
    commits, would disagree."""
    chunks: dict[tuple[int, int], int] = {}
    sums: list[tuple[str, dict[tuple[int, int], int]]] = []
    tables = table_names(conn)
    for pair in (TOTALS_TABLES, ENGINE_TABLES):     # files have or lack each pair whole
        if tables & pair and not pair <= tables:
            return (f"it has the {', '.join(sorted(tables & pair))} table but not "
                    f"{', '.join(sorted(pair - tables))} (dropped?)")
    orphans = conn.execute("SELECT COUNT(*) FROM matches WHERE player0 NOT IN (SELECT player FROM players) "
                           "OR player1 NOT IN (SELECT player FROM players)").fetchone()[0]
    played = dict(conn.execute("SELECT run, COUNT(*) FROM matches GROUP BY run"))
    saved = dict(conn.execute("SELECT run, SUM(matches) FROM chunks GROUP BY run"))
    names = dict(conn.execute("SELECT run, name FROM runs"))
    if TOTALS_TABLES <= tables:  # else made from the match rows (see add_chunk_sums)
        chunks = {(r, c): n for r, c, n in conn.execute("SELECT run, chunk, matches FROM chunks") if n}
        sums = [(table, {(r, c): n for r, c, n in conn.execute(query)}) for table, query in (
            ("chunk_seats", "SELECT run, chunk, SUM(matches) FROM chunk_seats GROUP BY run, chunk"),
            ("chunk_units", "SELECT run, chunk, SUM(units * matches_per_unit) FROM chunk_units "
                            "GROUP BY run, chunk"))]
    judged_runs = []
    for run, name, text in conn.execute("SELECT run, name, spec FROM runs ORDER BY run"):
        problem = spec_problem(text)
        if problem is not None:
            return f"the spec saved for run {name!r} (the spec column of its runs table) {problem} (edited by hand?)"
        if "judge" in tomllib.loads(text):
            judged_runs.append(run)
    if orphans:
        return f"{orphans} matches are of players missing from its players table (rows deleted?)"
    if (played.keys() | saved.keys()) - names.keys():
        return "it holds matches of runs missing from its runs table (rows deleted?)"
    for run, name in names.items():
        if played.get(run, 0) != saved.get(run, 0):
            return (f"run {name!r} has {played.get(run, 0)} match rows where its finished chunks hold "
                    f"{saved.get(run, 0)} (rows of matches or chunks deleted?)")
    if judged_runs:
        if not JUDGED_TABLES <= tables:
            return (f"run {names[judged_runs[0]]!r} is judged but the file has no {', '.join(sorted(JUDGED_TABLES))} "
                    "table (dropped?)")
        judged = dict(conn.execute("SELECT run, COUNT(*) FROM match_judged GROUP BY run"))
        for run in judged_runs:
            if judged.get(run, 0) != played.get(run, 0):
                return (f"judged run {names[run]!r} has {judged.get(run, 0)} rows of judged figures for its "
                        f"{played.get(run, 0)} matches (rows of match_judged deleted?)")
    for table, by_chunk in sums:
        wrong = sorted(k for k in chunks.keys() | by_chunk.keys() if chunks.get(k) != by_chunk.get(k))
        if wrong:
            run, chunk = wrong[0]
            more = f" (and {len(wrong) - 1} more chunks)" if len(wrong) > 1 else ""
            return (f"the sums in {table} of chunk {chunk} of run {names.get(run, run)!r}{more} "
                    "disagree with its chunks table (rows deleted?)")
    return None


def insert_chunk_sums(conn: sqlite3.Connection, run: int, chunk: int, rows: NDArray[np.void]) -> list[SeatTotals]:
    """Write the sums of one chunk's matches (``rows``: a structured array with the fields
    :data:`~bgfast.tournament.totals.TOTALS_COLUMNS`) into ``chunk_seats`` and
    ``chunk_units``; its seatings' sums.  The one place chunk sums are written: for a chunk
    saved, and for each chunk of a file migrated by :func:`add_chunk_sums`."""
    seats, units = chunk_totals(rows)
    conn.executemany(_INSERT_SEATS, [(run, chunk, *t) for t in seats])
    conn.executemany(_INSERT_UNITS, [(run, chunk, *u) for u in units])
    return seats


def add_engine_tables(conn: sqlite3.Connection) -> None:
    """Migration: add the engine tables (:data:`ENGINE_TABLES`) that files of earlier
    versions lack, before a run writes to such a file."""
    conn.executescript(_ENGINE_SCHEMA)


def add_judged_table(conn: sqlite3.Connection) -> None:
    """Migration: add the judged table (:data:`JUDGED_TABLES`) that files of earlier
    versions lack, before a run writes to such a file."""
    conn.executescript(_JUDGED_SCHEMA)


def has_judged_units(conn: sqlite3.Connection) -> bool:
    """Whether the file's ``match_judged`` has its ``errors_normalized`` column (False for a
    file without the table)."""
    return any(row[1] == "errors_normalized" for row in conn.execute("PRAGMA table_info(match_judged)"))


def add_judged_units(conn: sqlite3.Connection) -> None:
    """Migration: add ``errors_normalized`` to a judged table that lacks it, 0 for its rows
    (their errors are in the result's unit), before a run writes to such a file."""
    conn.execute("ALTER TABLE match_judged ADD COLUMN errors_normalized INTEGER NOT NULL DEFAULT 0")


def judged_columns(conn: sqlite3.Connection, alias: str = "j") -> list[str]:
    """The SQL expressions that read :data:`JUDGED_COLUMNS` from ``match_judged`` (named
    ``alias`` in the query): the errors of rows written before errors were normalized
    (:data:`ERRORS_NORMALIZED`) as NULL, so that no rate mixes two units."""
    known = f"{alias}.errors_normalized = {ERRORS_NORMALIZED}" if has_judged_units(conn) else "0"
    return [f"CASE WHEN {known} THEN {alias}.{c} END" if "error" in c else f"{alias}.{c}" for c in JUDGED_COLUMNS]


def add_chunk_sums(conn: sqlite3.Connection, *, temporary: bool) -> None:
    """Migration: make the chunks' sums of a file written before they were kept, from its
    match rows: in the file, or (``temporary``, a file opened read-only) in temporary tables
    of this connection.  Call it inside a write transaction when not ``temporary``."""
    script = _TOTALS_SCHEMA.replace("CREATE TABLE", "CREATE TEMP TABLE") if temporary else _TOTALS_SCHEMA
    columns = ", ".join(TOTALS_COLUMNS)
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)
    for run, size in conn.execute("SELECT run, chunk_size FROM runs ORDER BY run").fetchall():
        for (chunk,) in conn.execute("SELECT chunk FROM chunks WHERE run = ? ORDER BY chunk", (run,)).fetchall():
            rows = conn.execute(f"SELECT {columns} FROM matches WHERE run = ? AND idx >= ? AND idx < ?",
                                (run, chunk * size, (chunk + 1) * size)).fetchall()
            insert_chunk_sums(conn, run, chunk, np.array(rows, dtype=TOTALS_DTYPE))
