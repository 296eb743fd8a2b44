"""The results store: one SQLite file per tournament, written by the parent process only.

Layout (``PRAGMA user_version = 1``):

- ``runs``: one row per spec played into the file (its TOML, its hash, sizes, SPRT outcome);
- ``players``: every player name with its bot and options (a name means one bot in a file);
- ``matches``: one row per match, keyed by (run, idx): the seats (``player0`` sits in
  seat 0), length, seed and dice index, final score, winner seat, games, gammons,
  backgammons, doubles (cube actions) and plies;
- ``chunks``: one row per finished chunk;
- ``engine_counters``: per (run, player) what an outside engine did (decisions, their
  total and longest time, restarts, crashes, timeouts, illegal answers, forfeits, cube
  decisions left to bgfast's policy), summed chunk by chunk
  (:class:`~bgfast.engines.counters.EngineCounters`);
- ``match_records``: per (run, idx) of a match with a Python bot or an outside engine in
  a seat, each recorded seat's decisions (:mod:`bgfast.engines.record`) and the seat
  that forfeited, if one did;
- ``chunk_seats`` and ``chunk_units``: per (run, chunk) the chunk's sums by seating and by
  kind of unit (:mod:`~bgfast.tournament.totals`), which standings add up.

A file written before the engine tables existed is read as it is (no engine counts,
no records) and gets them when a run writes to it again.  One written before the chunk
sums existed gets them, made from its match rows, when it is opened (read-only: in
temporary tables of the connection, nothing written).

A chunk's match rows, records and counts and its ``chunks`` row are written in one
transaction, so a chunk is either wholly in the file or not at all: a crash (even ``kill -9``)
loses only unfinished chunks, and a resumed run skips the chunks listed in
``chunks``, so no match is ever counted twice.  The file is in WAL mode with
``synchronous = NORMAL``: a committed chunk survives the death of the process;
only a power cut may lose the last few commits, never corrupt the file.

>>> import tempfile, os
>>> from bgfast.tournament.spec import TournamentSpec
>>> spec = TournamentSpec.from_dict({"name": "x", "match_length": 1, "matches_per_pairing": 2,
...     "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]})
>>> path = os.path.join(tempfile.mkdtemp(), "x.sqlite")
>>> with Store(path) as store:
...     run = store.begin_run(spec)
...     run.finished
set()
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import json
import os
import re
import sqlite3
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

from bgfast.engines.counters import EngineCounters
from bgfast.errors import InvalidSpecError, ResultsFileError, ResultsWriteError
from bgfast.tournament.pairs import UnitGroup
from bgfast.tournament.results import ChunkResult, MatchDecisions, MatchSummary, SavedMatch, SeatTotals, row_array
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.totals import TOTALS_COLUMNS, chunk_totals

__all__ = ["SCHEMA_VERSION", "RunInfo", "Store", "open_results"]

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

_TABLES = frozenset({"runs", "players", "chunks", "matches"})
"""The tables every results file has (the engine tables came later: see :data:`_ENGINE_SCHEMA`)."""

_DAMAGE = re.compile(r"no such (table|column)|malformed|not a database|corrupt", re.IGNORECASE)
"""SQLite's words for a file that is damaged, not refused by the system."""
_DISK = re.compile(r"disk I/O|cannot rollback", re.IGNORECASE)
"""SQLite's words for a write the disk failed (its "database or disk is full" says so itself)."""

_COUNTER_COLUMNS = tuple(f.name for f in dataclasses.fields(EngineCounters))
"""The counts of ``engine_counters``, named as in EngineCounters."""

_ENGINE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS engine_counters (
    run INTEGER NOT NULL,
    player INTEGER NOT NULL,
    {", ".join(f"{name} {'REAL' if name.startswith('decision_ms') else 'INTEGER'} NOT NULL"
               for name in _COUNTER_COLUMNS)},
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

_SEAT_SUMS = SeatTotals._fields[2:]
_UNIT_SUMS = UnitGroup._fields[4:]
_TOTALS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS chunk_seats (
    run INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    player0 INTEGER NOT NULL,
    player1 INTEGER NOT NULL,
    {", ".join(f"{name} INTEGER NOT NULL" for name in _SEAT_SUMS)},
    PRIMARY KEY (run, chunk, player0, player1)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunk_units (
    run INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    player_a INTEGER NOT NULL,
    player_b INTEGER NOT NULL,
    matches_per_unit INTEGER NOT NULL,
    a_wins INTEGER NOT NULL,
    {", ".join(f"{name} {'REAL' if name.startswith('score') else 'INTEGER'} NOT NULL" for name in _UNIT_SUMS)},
    PRIMARY KEY (run, chunk, player_a, player_b, matches_per_unit, a_wins)
) WITHOUT ROWID;
"""
"""Each chunk's sums (:mod:`~bgfast.tournament.totals`), which standings add up (files of
earlier versions lack them: they are made from the match rows when the file is opened)."""
_TOTALS_TABLES = frozenset({"chunk_seats", "chunk_units"})

_ADD_COUNTERS = (
    f"INSERT INTO engine_counters (run, player, {', '.join(_COUNTER_COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(_COUNTER_COLUMNS) + 2))}) ON CONFLICT (run, player) DO UPDATE SET "
    + ", ".join(f"{c} = MAX({c}, excluded.{c})" if c == "decision_ms_max" else f"{c} = {c} + excluded.{c}"
                for c in _COUNTER_COLUMNS))
"""Adds a chunk's counts to a player's: sums, and the longer of the longest decisions."""

_MATCH_COLUMNS = ("run", "idx", "chunk", "pairing", "length", "seed", "dice_index", "player0", "player1",
                  *MatchSummary._fields)
"""The columns of ``matches``: the match's place, then how it went (named as in MatchSummary)."""
_BOUND_COLUMNS = tuple(c for c in _MATCH_COLUMNS if c not in ("run", "seed"))
"""The columns of ``matches`` bound row by row when a chunk is written (the run's own are written in)."""
_TOTALS_OF_BOUND = [_BOUND_COLUMNS.index(c) for c in TOTALS_COLUMNS]
"""Where the columns :func:`~bgfast.tournament.totals.chunk_totals` reads are among the bound ones."""
_ROWS_PER_INSERT = 100
"""Match rows per INSERT statement (fewer where SQLite takes fewer values a statement).  One
statement of many rows costs about half what as many one-row statements do; beyond about
100 rows (1,700 values) binding them gets slower again."""


def _rows_per_insert(conn: sqlite3.Connection) -> int:
    """:data:`_ROWS_PER_INSERT`, or fewer if this SQLite binds fewer values a statement."""
    getlimit = getattr(conn, "getlimit", None)  # Python 3.11+
    if getlimit is not None:
        values = getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    else:  # SQLite's default limit
        values = 999 if sqlite3.sqlite_version_info < (3, 32) else 32766
    return max(1, min(_ROWS_PER_INSERT, int(values) // len(_BOUND_COLUMNS)))


@functools.lru_cache(maxsize=16)
def _insert_statement(rows: int, run: int, seed: int) -> str:
    """The statement that inserts ``rows`` matches of run ``run`` (seed ``seed``, both written
    in): the values of :data:`_BOUND_COLUMNS`, row after row, are bound."""
    written = {"run": str(int(run)), "seed": str(int(seed))}
    row = f"({', '.join('?' if c in _BOUND_COLUMNS else written[c] for c in _MATCH_COLUMNS)})"
    return f"INSERT INTO matches ({', '.join(_MATCH_COLUMNS)}) VALUES {', '.join([row] * rows)}"

_INSERT_SEATS = f"INSERT INTO chunk_seats VALUES ({', '.join('?' * (len(SeatTotals._fields) + 2))})"
_INSERT_UNITS = f"INSERT INTO chunk_units VALUES ({', '.join('?' * (len(UnitGroup._fields) + 2))})"


@dataclass
class RunInfo:
    """A run being played: its id in the file, the file's id of each spec player, finished chunks."""

    run: int
    spec: TournamentSpec
    player_ids: list[int]
    finished: set[int] = field(default_factory=set)
    resumed: bool = False


_F = TypeVar("_F", bound=Callable[..., Any])


def _reads(method: _F) -> _F:
    """A reading method of :class:`Store`, with SQLite's errors as bgfast's (see
    :meth:`Store._sqlite_errors`), its queries in one read transaction (one snapshot of
    the file, see :meth:`Store._snapshot`); a generator stays a generator (one query,
    which is one snapshot by itself)."""
    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def stream(self: Store, *args: Any, **kwargs: Any) -> Iterator[Any]:
            with self._sqlite_errors():
                yield from method(self, *args, **kwargs)
        return stream  # type: ignore[return-value]

    @functools.wraps(method)
    def read(self: Store, *args: Any, **kwargs: Any) -> Any:
        with self._sqlite_errors(), self._snapshot():
            return method(self, *args, **kwargs)
    return read  # type: ignore[return-value]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Store:
    """A results file.  Open it with ``Store(path)`` (created if missing) and close it,
    or use it as a context manager.

    A store opened to write takes the writer's lock (a ``.lock`` file beside the results
    file) before it reads anything: one process writes a file at a time.  A store opened
    ``readonly`` reads the whole file in one read transaction, from open to close: its
    checks and every query see one snapshot of the file, whatever a run writing to it
    commits meanwhile (SQLite's WAL mode keeps the snapshot; the run is not held up).

    :param readonly: only read: SQLite opens the file read-only and nothing is written
        to it or beside it (an error if the file does not exist).
    :raises ResultsFileError: the file is not a bgfast results file (nothing is written to
        it), is damaged, or is missing when ``readonly``.
    :raises InvalidSpecError: (not ``readonly``) another process (another ``bgfast
        tournament``) is writing to the file.
    :raises ResultsWriteError: the file, or its folder, cannot be created, read or written.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._lock: Any = None
        try:
            exists = self.path.exists()
            if exists and not self.path.is_file():
                raise ResultsFileError(f"{self._name} is not a regular file: a results file must be one")
            if readonly and not exists:
                raise ResultsFileError(f"no results file {self._name}")
        except OSError as exc:  # a name too long, a folder that cannot be searched
            raise ResultsWriteError(f"cannot {'read' if readonly else 'create'} the results file {self._name}: "
                                    f"{exc.strerror or exc}") from None
        if readonly:
            self._conn = self._open_readonly()
        else:
            self._conn = self._open_for_writing(exists)
        self._rows_per_insert = _rows_per_insert(self._conn)
        try:
            if not readonly:  # before any check: a run writing meanwhile is named as what it is
                self._take_writer_lock()
            with self._sqlite_errors():
                self._engine_tables = {"engine_counters", "match_records"} <= self._tables()
            self._check_rows()
            if not _TOTALS_TABLES <= self._tables():
                self._make_totals(temporary=readonly)
        except BaseException:
            self.close()
            raise

    @property
    def _name(self) -> str:
        return repr(str(self.path))

    def _open_readonly(self) -> sqlite3.Connection:
        """The file opened by SQLite read-only: nothing is written, not even the WAL's files.
        Without a ``-wal`` file beside it and no run holding the writer's lock (no run is
        writing, none died while writing) the whole database is in the file and it is opened
        immutable, which reads it without creating ``-wal`` and ``-shm`` files (so it works
        in a folder one cannot write).  A read transaction is begun before the first read and
        lasts until :meth:`close`: everything read is one snapshot of the file."""
        if self.path.stat().st_size == 0:
            raise ResultsFileError(f"{self._name} is not a bgfast results file: it is empty")
        real = Path(os.path.realpath(self.path))
        writing = Path(f"{real}-wal").exists() or self.writer_active()
        mode = "mode=ro" if writing else "mode=ro&immutable=1"
        try:
            conn = sqlite3.connect(f"{real.as_uri()}?{mode}", uri=True, isolation_level=None, timeout=30.0)
            conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read, just below
            if not self._check_schema(conn):
                conn.close()
                raise ResultsFileError(f"{self._name} is not a bgfast results file: an empty database")
        except sqlite3.OperationalError as exc:
            raise ResultsWriteError(f"cannot read the results file {self._name}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None
        return conn

    def _unreadable(self, exc: sqlite3.DatabaseError) -> ResultsFileError:
        """The error for a file SQLite cannot read: damaged when it starts as an SQLite
        database does (a truncated or overwritten results file), else not a results file."""
        try:
            with open(self.path, "rb") as file:
                sqlite_header = file.read(16) == b"SQLite format 3\x00"
        except OSError:
            sqlite_header = False
        if sqlite_header:
            return ResultsFileError(f"{self._name} is a damaged SQLite database (truncated or overwritten?): {exc}")
        return ResultsFileError(f"{self._name} is not a bgfast results file: {exc}")

    def _open_for_writing(self, exists: bool) -> sqlite3.Connection:
        """The file opened to write (created with its tables when missing); a file that is not
        a bgfast results file is refused before anything is written to it."""
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise InvalidSpecError(
                f"cannot make the folder {str(folder)!r} for the results file: a file is in the way") from None
        except OSError as exc:
            raise ResultsWriteError(
                f"cannot make the folder {str(folder)!r} for the results file: {exc.strerror}") from None
        if not os.access(folder, os.W_OK):  # SQLite writes its journal (-wal, -shm) beside the file
            raise ResultsWriteError(f"cannot write the results file {self._name}: no permission to write in "
                                    f"its folder {str(folder)!r}")
        if not exists:
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                pass
            except OSError as exc:
                raise ResultsWriteError(f"cannot create the results file {self._name}: {exc.strerror}") from None
        elif not os.access(self.path, os.W_OK):
            raise ResultsWriteError(f"cannot write the results file {self._name}: no permission to write it")
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            new = not self._check_schema(conn)
            conn.execute("PRAGMA journal_mode = WAL")  # first: the tables are then made without a sync each
            conn.execute("PRAGMA synchronous = NORMAL")
            if new:
                conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}{_ENGINE_SCHEMA}{_TOTALS_SCHEMA}"
                                   f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        except sqlite3.OperationalError as exc:
            raise ResultsWriteError(f"cannot write the results file {self._name}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None
        return conn

    def _check_schema(self, conn: sqlite3.Connection) -> bool:
        """True when ``conn`` holds a bgfast results file, False when it is an empty database
        (a new file).

        :raises ResultsFileError: another database, another schema version, or a table missing.
        """
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0 and not tables:
            return False
        if version != SCHEMA_VERSION or not tables & _TABLES:
            conn.close()
            raise ResultsFileError(f"{self._name} is not a bgfast results file"
                                   + (f" (schema {version})" if version else f" (tables {', '.join(sorted(tables))})"))
        missing = _TABLES - tables
        if missing:
            conn.close()
            raise ResultsFileError(f"{self._name} is a damaged results file: its table(s) "
                                   f"{', '.join(sorted(missing))} are missing")
        return True

    def _tables(self) -> set[str]:
        return {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _check_rows(self) -> None:
        """Refuse a file whose rows do not agree: matches of players or runs that are not in
        it, or a run whose match rows are not the matches its finished chunks hold (rows of
        one table deleted).  Everything is read in one read transaction: counts read in two
        snapshots, around a chunk a run writing to the file commits, would disagree.

        :raises ResultsFileError: what disagrees, named.
        """
        def damaged(problem: str) -> ResultsFileError:
            return ResultsFileError(f"{self._name} is a damaged results file: {problem}")

        conn = self._conn
        chunks: dict[tuple[int, int], int] = {}
        sums: list[tuple[str, dict[tuple[int, int], int]]] = []
        with self._sqlite_errors(), self._snapshot():
            orphans = conn.execute("SELECT COUNT(*) FROM matches WHERE player0 NOT IN (SELECT player FROM players) "
                                   "OR player1 NOT IN (SELECT player FROM players)").fetchone()[0]
            played = dict(conn.execute("SELECT run, COUNT(*) FROM matches GROUP BY run"))
            saved = dict(conn.execute("SELECT run, SUM(matches) FROM chunks GROUP BY run"))
            names = dict(conn.execute("SELECT run, name FROM runs"))
            if _TOTALS_TABLES <= self._tables():  # else made from the match rows (see _make_totals)
                chunks = {(r, c): n for r, c, n in conn.execute("SELECT run, chunk, matches FROM chunks") if n}
                sums = [(table, {(r, c): n for r, c, n in conn.execute(query)}) for table, query in (
                    ("chunk_seats", "SELECT run, chunk, SUM(matches) FROM chunk_seats GROUP BY run, chunk"),
                    ("chunk_units", "SELECT run, chunk, SUM(units * matches_per_unit) FROM chunk_units "
                                    "GROUP BY run, chunk"))]
        if orphans:
            raise damaged(f"{orphans} matches are of players missing from its players table (rows deleted?)")
        if (played.keys() | saved.keys()) - names.keys():
            raise damaged("it holds matches of runs missing from its runs table (rows deleted?)")
        for run, name in names.items():
            if played.get(run, 0) != saved.get(run, 0):
                raise damaged(f"run {name!r} has {played.get(run, 0)} match rows where its finished chunks hold "
                              f"{saved.get(run, 0)} (rows of matches or chunks deleted?)")
        for table, by_chunk in sums:
            wrong = sorted(k for k in chunks.keys() | by_chunk.keys() if chunks.get(k) != by_chunk.get(k))
            if wrong:
                run, chunk = wrong[0]
                more = f" (and {len(wrong) - 1} more chunks)" if len(wrong) > 1 else ""
                raise damaged(f"the sums in {table} of chunk {chunk} of run {names.get(run, run)!r}{more} "
                              "disagree with its chunks table (rows deleted?)")

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: every query inside sees the same state of the file, however
        many chunks a run writing to it commits meanwhile (SQLite's WAL mode keeps the
        snapshot; one query alone is one snapshot, several are not).  Inside a transaction
        already (a read-only store's, which lasts from open to close, or a write) it adds
        nothing."""
        conn = self._conn
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")  # a read transaction: nothing to commit, the snapshot is let go

    @contextlib.contextmanager
    def _sqlite_errors(self, *, writing: bool = False) -> Iterator[None]:
        """Turn SQLite's errors into bgfast's, naming the file: a damaged file (a table
        missing, a page that does not read) is a :class:`ResultsFileError`; an error of the
        system (a full disk, an I/O error, a read-only file) a :class:`ResultsWriteError`.
        A constraint broken (a row written twice) is bgfast's own mistake and stays as it is."""
        try:
            yield
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
            raise  # bgfast's own mistake (a row written twice), not the file's
        except sqlite3.DatabaseError as exc:
            text = str(exc)
            if not isinstance(exc, sqlite3.OperationalError) or _DAMAGE.search(text):
                raise ResultsFileError(f"{self._name} is a damaged results file: {text}") from None
            hint = " (is the disk full?)" if _DISK.search(text) else ""
            raise ResultsWriteError(f"cannot {'write' if writing else 'read'} the results file {self._name}: "
                                    f"{text}{hint}") from None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (and release the writer's lock)."""
        if hasattr(self, "_conn"):
            self._conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    # ------------------------------------------------------------ writing

    def _lock_path(self) -> str:
        """The writer's lock file, beside the real file: one lock whatever link the file is
        reached through."""
        return f"{os.path.realpath(self.path)}.lock"

    def _take_writer_lock(self) -> None:
        """Hold the writer's lock (once: a store that holds it keeps it until :meth:`close`).

        :raises InvalidSpecError: another process holds it.
        """
        if self._lock is not None:
            return
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return
        try:
            lock = open(self._lock_path(), "w")  # noqa: SIM115 - held open while the run writes
        except OSError as exc:  # a name too long, a folder one cannot write
            raise ResultsWriteError(f"cannot create the results file {self._name}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            raise InvalidSpecError(f"another bgfast tournament is writing to {str(self.path)!r}") from None
        self._lock = lock

    def writer_active(self) -> bool:
        """True when another store (another ``bgfast tournament``) holds the writer lock."""
        if self._lock is not None:  # this store's own run: it is the one reporting
            return False
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return False
        try:
            lock = open(self._lock_path())  # noqa: SIM115 - closed below
        except OSError:  # no lock file: no run has written here since it was made
            return False
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            lock.close()
        return False

    def begin_run(self, spec: TournamentSpec, *, append: bool = False) -> RunInfo:
        """Register ``spec`` in the file, or find it there to resume it.

        :param append: allow a spec other than the one(s) already in the file.
        :raises InvalidSpecError: the file holds another spec and ``append`` is false; an
            added spec reuses a seed of the file (its matches would repeat) or gives a
            player's name to another bot; another process is writing the file.
        """
        self._take_writer_lock()
        conn = self._conn
        with self._sqlite_errors(writing=True):
            if not self._engine_tables:  # a file of an earlier version: add the tables it lacks
                conn.executescript(_ENGINE_SCHEMA)
                self._engine_tables = True
            row = conn.execute("SELECT run FROM runs WHERE spec_hash = ?", (spec.hash,)).fetchone()
            if row is not None:
                run = row[0]
                ids = [self._player_id(p.name) for p in spec.players]
                finished = {c for (c,) in conn.execute("SELECT chunk FROM chunks WHERE run = ?", (run,))}
                return RunInfo(run, spec, ids, finished, resumed=True)
            others = conn.execute("SELECT name, spec_hash, seed, spec FROM runs ORDER BY run").fetchall()
        if others and not append:
            name, digest, _, text = others[0]
            if text == spec.to_toml():
                raise InvalidSpecError(
                    f"{str(self.path)!r} holds this tournament ({name!r}) played with other weights files: "
                    f"{', '.join(spec.weights_digests())} changed since it began; restore them, or use another "
                    "--db (or --append, with other player names)")
            raise InvalidSpecError(
                f"{str(self.path)!r} holds another tournament ({name!r}, spec {digest}); use another --db, "
                "or --append to add this spec's matches to it")
        for name, _, seed, text in others:
            if seed == spec.seed:
                raise InvalidSpecError(
                    f"seed: {spec.seed} is already used by run {name!r} in {str(self.path)!r}; "
                    "an added spec needs another seed, or its matches would repeat")
            paired = tomllib.loads(text).get("paired_dice", True)
            if paired != spec.paired_dice:  # a report's units are dice pairs or single matches, not both
                raise InvalidSpecError(
                    f"paired_dice: run {name!r} in {str(self.path)!r} has paired_dice = {str(paired).lower()}; "
                    "an added spec must have the same, or its matches cannot be reported together")
        digests = spec.weights_digests()
        with self._transaction():
            ids = []
            for i, player in enumerate(spec.players):
                stored = player.bot_options()
                if player.name in digests:
                    stored["weights_sha256"] = digests[player.name]
                options = json.dumps(stored, sort_keys=True)
                found = conn.execute("SELECT player, bot, options FROM players WHERE name = ?",
                                     (player.name,)).fetchone()
                if found is None:
                    cur = conn.execute("INSERT INTO players (name, bot, options) VALUES (?, ?, ?)",
                                       (player.name, player.describe(), options))
                    ids.append(int(cur.lastrowid))  # type: ignore[arg-type]
                    continue
                saved_id, saved_bot, saved_options = found
                if (saved_bot, saved_options) != (player.describe(), options):
                    raise InvalidSpecError(
                        f"players[{i}].name: {player.name!r} is bot {saved_bot!r} with options {saved_options} in "
                        f"{str(self.path)!r}; give this player another name")
                ids.append(int(saved_id))
            if any(name == spec.name for name, *_ in others):
                raise InvalidSpecError(
                    f"name: a run named {spec.name!r} is already in {str(self.path)!r}; an added spec needs another "
                    "name (its matches would be mixed up with that run's in reports and exports)")
            cur = conn.execute(
                "INSERT INTO runs (name, spec_hash, spec, seed, total_matches, chunk_size, chunks, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (spec.name, spec.hash, spec.to_toml(), spec.seed, spec.total_matches(), spec.chunk_size,
                 spec.chunk_count(), _now()))
        return RunInfo(int(cur.lastrowid), spec, ids)  # type: ignore[arg-type]

    def write_chunk(self, run: RunInfo, result: ChunkResult) -> list[SeatTotals]:
        """Write a finished chunk's matches, their decision records and the chunk's engine
        counts, and mark it finished, in one transaction (call :meth:`begin_run` first).

        :raises ResultsWriteError: the system refused the write (a full disk, an I/O error):
            the chunk is not saved, the chunks saved before it are kept.
        """
        rows = row_array(result.rows)
        ids = np.asarray(run.player_ids, dtype=np.int64)
        chunk = result.chunk
        players = ids[rows[:, 4:6]]
        n = len(rows)
        conn = self._conn
        try:
            with self._transaction():
                bound = np.column_stack([rows[:, :1], np.full((n, 1), chunk), rows[:, 1:4], players,
                                         rows[:, 6:]])  # as _BOUND_COLUMNS
                self._insert_matches(run, bound)
                totals = self._write_totals(run.run, chunk, bound[:, _TOTALS_OF_BOUND])
                if result.records:
                    conn.executemany(
                        "INSERT INTO match_records (run, idx, seat0, seat1, forfeit) VALUES (?, ?, ?, ?, ?)",
                        ((run.run, *record) for record in result.records))
                for player, counts in result.counters.items():
                    conn.execute(_ADD_COUNTERS, (run.run, run.player_ids[player],
                                                 *(getattr(counts, c) for c in _COUNTER_COLUMNS)))
                conn.execute("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                             (run.run, chunk, n, result.seconds, result.worker, _now()))
        except ResultsWriteError as exc:
            raise ResultsWriteError(f"{exc}; the {len(run.finished)} chunks saved before are kept: re-run the "
                                    "same command to resume") from None
        run.finished.add(chunk)
        return totals

    def _insert_matches(self, run: RunInfo, bound: NDArray[np.int64]) -> None:
        """Insert match rows (``bound``: the columns of :data:`_BOUND_COLUMNS`), many rows a statement."""
        values = bound.ravel().tolist()
        width = bound.shape[1] * self._rows_per_insert
        for start in range(0, len(values), width):
            part = values[start:start + width]
            self._conn.execute(_insert_statement(len(part) // bound.shape[1], run.run, run.spec.seed), part)

    def _write_totals(self, run: int, chunk: int, rows: NDArray[np.int64]) -> list[SeatTotals]:
        """Write the sums of one chunk's matches (``rows``: the columns of
        :data:`~bgfast.tournament.totals.TOTALS_COLUMNS`); its seatings' sums."""
        seats, units = chunk_totals(rows)
        self._conn.executemany(_INSERT_SEATS, [(run, chunk, *t) for t in seats])
        self._conn.executemany(_INSERT_UNITS, [(run, chunk, *u) for u in units])
        return seats

    def _make_totals(self, *, temporary: bool) -> None:
        """Make the chunks' sums of a file written before they were kept, from its match rows:
        in the file, or (``temporary``, a file opened read-only) in tables of this connection."""
        conn = self._conn
        script = _TOTALS_SCHEMA.replace("CREATE TABLE", "CREATE TEMP TABLE") if temporary else _TOTALS_SCHEMA
        columns = ", ".join(TOTALS_COLUMNS)
        with self._sqlite_errors(writing=not temporary), contextlib.ExitStack() as stack:
            if not temporary:
                stack.enter_context(self._transaction())
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
            for run, size in conn.execute("SELECT run, chunk_size FROM runs ORDER BY run").fetchall():
                for (chunk,) in conn.execute("SELECT chunk FROM chunks WHERE run = ? ORDER BY chunk",
                                             (run,)).fetchall():
                    rows = conn.execute(f"SELECT {columns} FROM matches WHERE run = ? AND idx >= ? AND idx < ?",
                                        (run, chunk * size, (chunk + 1) * size)).fetchall()
                    self._write_totals(run, chunk, np.array(rows, dtype=np.int64))

    def set_sprt(self, run: RunInfo, status: str, matches: int, llr: float) -> None:
        """Record the SPRT decision of ``run``."""
        with self._transaction():
            self._conn.execute("UPDATE runs SET sprt_status = ?, sprt_matches = ?, sprt_llr = ? WHERE run = ?",
                               (status, matches, llr, run.run))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction, committed whole or not at all, with SQLite's errors as
        bgfast's (see :meth:`_sqlite_errors`).  SQLite rolls back by itself after some
        errors (a full disk): the rollback here then has nothing left to do."""
        conn = self._conn
        with self._sqlite_errors(writing=True):
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

    def _player_id(self, name: str) -> int:
        return int(self._conn.execute("SELECT player FROM players WHERE name = ?", (name,)).fetchone()[0])

    # ------------------------------------------------------------ reading

    @_reads
    def runs(self) -> list[dict[str, Any]]:
        """The runs in the file, oldest first, with how far each got."""
        out = []
        for row in self._conn.execute(
                "SELECT r.run, r.name, r.spec_hash, r.spec, r.total_matches, r.sprt_status, r.sprt_matches, "
                "r.sprt_llr, (SELECT COALESCE(SUM(matches), 0) FROM chunks c WHERE c.run = r.run) "
                "FROM runs r ORDER BY r.run"):
            out.append(dict(zip(("run", "name", "spec_hash", "spec", "total_matches", "sprt_status",
                                 "sprt_matches", "sprt_llr", "matches_played"), row)))
        return out

    @_reads
    def player_names(self) -> dict[int, str]:
        """Player id -> name, in the order players were first added."""
        return dict(self._conn.execute("SELECT player, name FROM players ORDER BY player"))

    @_reads
    def seat_totals(self) -> list[SeatTotals]:
        """Sums over all matches, grouped by (player0, player1): the numbers reports are built from."""
        return [SeatTotals._make(row) for row in self._conn.execute(
            f"SELECT player0, player1, {', '.join(f'SUM({c})' for c in _SEAT_SUMS)} FROM chunk_seats "
            "GROUP BY player0, player1 ORDER BY player0, player1")]

    @_reads
    def engine_counters(self) -> dict[int, EngineCounters]:
        """What each outside player (by player id) did, summed over the runs of the file;
        players with nothing counted are left out (as is everything in a file of an
        earlier version)."""
        if not self._engine_tables:
            return {}
        totals: dict[int, EngineCounters] = {}
        for player, *counts in self._conn.execute(
                f"SELECT player, {', '.join(_COUNTER_COLUMNS)} FROM engine_counters ORDER BY run, player"):
            found = EngineCounters(**dict(zip(_COUNTER_COLUMNS, counts)))
            totals[player] = totals[player] + found if player in totals else found
        return totals

    @_reads
    def player_bots(self) -> dict[int, str]:
        """Player id -> what plays for it (:meth:`~bgfast.tournament.spec.PlayerSpec.describe`)."""
        return dict(self._conn.execute("SELECT player, bot FROM players ORDER BY player"))

    @_reads
    def match_decisions(self, run: str, idx: int) -> MatchDecisions | None:
        """The decision records of match ``idx`` of the run named ``run``, or None if no seat
        of it was recorded (both played in the core, or a file of an earlier version)."""
        if not self._engine_tables:
            return None
        row = self._conn.execute(
            "SELECT d.idx, d.seat0, d.seat1, d.forfeit FROM match_records d JOIN runs r ON r.run = d.run "
            "WHERE r.name = ? AND d.idx = ?", (run, idx)).fetchone()
        return MatchDecisions(row[0], row[1], row[2], row[3]) if row is not None else None

    @_reads
    def forfeits(self) -> list[tuple[str, int, str, str]]:
        """Every forfeited match: ``(run name, idx, the forfeiting player, the opponent)``, in order."""
        if not self._engine_tables:
            return []
        return [tuple(row) for row in self._conn.execute(
            "SELECT r.name, d.idx, CASE d.forfeit WHEN 0 THEN p0.name ELSE p1.name END, "
            "CASE d.forfeit WHEN 0 THEN p1.name ELSE p0.name END FROM match_records d "
            "JOIN runs r ON r.run = d.run JOIN matches m ON m.run = d.run AND m.idx = d.idx "
            "JOIN players p0 ON p0.player = m.player0 JOIN players p1 ON p1.player = m.player1 "
            "WHERE d.forfeit IS NOT NULL ORDER BY d.run, d.idx")]

    @_reads
    def iter_matches(self, run: str | None = None, idx: int | None = None) -> Iterator[SavedMatch]:
        """Every match (of the run named ``run``; only match ``idx`` of it), run by run in
        index order.  Streams: memory does not grow with the file."""
        summary = ", ".join(f"m.{name}" for name in MatchSummary._fields)
        where = [clause for clause, value in (("r.name = ?", run), ("m.idx = ?", idx)) if value is not None]
        cur = self._conn.execute(
            f"SELECT r.name, m.idx, p0.name, p1.name, m.length, m.seed, m.dice_index, {summary} "
            "FROM matches m JOIN runs r ON r.run = m.run JOIN players p0 ON p0.player = m.player0 "
            "JOIN players p1 ON p1.player = m.player1 "
            + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY m.run, m.idx",
            tuple(value for value in (run, idx) if value is not None))
        while True:
            rows = cur.fetchmany(4096)
            if not rows:
                return
            for name, index, player0, player1, length, seed, dice_index, *result in rows:
                yield SavedMatch(name, index, player0, player1, length, seed, dice_index, MatchSummary(*result))

    # ------------------------------------------------------------ units (dice pairs)

    @_reads
    def unit_totals(self) -> list[UnitGroup]:
        """Sums over units, the samples of :mod:`~bgfast.tournament.pairs`: a unit is the
        matches of one run that share a dice index (a dice pair with paired dice, else one
        match).  Grouped by (player_a, player_b, matches in the unit, player_a's wins in it),
        ``player_a`` the lower player id; each group sums player_a's net points, the games,
        their squares and product, and the points scores of money games (net points clipped
        to [-3, 3], mapped to [0, 1]; 0 in match play), their square and product with games.
        """
        return [UnitGroup._make(row) for row in self._conn.execute(
            f"SELECT player_a, player_b, matches_per_unit, a_wins, {', '.join(f'SUM({c})' for c in _UNIT_SUMS)} "
            "FROM chunk_units GROUP BY player_a, player_b, matches_per_unit, a_wins "
            "ORDER BY player_a, player_b, matches_per_unit, a_wins")]

    @_reads
    def iter_outcomes(self, run: int) -> Iterator[tuple[int, int, int, int, int]]:
        """Who won each match of ``run``, in match-index order (what the pair-by-pair SPRT
        reads): ``(chunk, dice_index, player0, player1, winner seat)``, players by id."""
        cur = self._conn.execute(
            "SELECT chunk, dice_index, player0, player1, winner FROM matches WHERE run = ? ORDER BY idx", (run,))
        while True:
            rows = cur.fetchmany(4096)
            if not rows:
                return
            yield from rows


def open_results(path: str | Path) -> Store:
    """Open an existing results file for reading.

    :raises InvalidSpecError: no such file, or not a bgfast results file.
    """
    return Store(path, readonly=True)


def default_db_path(spec: TournamentSpec) -> Path:
    """``results/<spec name>.sqlite``, relative to the working directory."""
    return Path("results") / f"{spec.name}.sqlite"


def remove_results(path: str | Path) -> None:
    """Delete a results file and its WAL, shared-memory and lock files (tests and tools)."""
    for suffix in ("", "-wal", "-shm", ".lock"):
        try:
            os.remove(f"{path}{suffix}")
        except FileNotFoundError:
            pass
