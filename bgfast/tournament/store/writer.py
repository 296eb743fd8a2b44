"""Writing a results file: registering a run (or finding it to resume), saving finished chunks,
recording an SPRT's decision.  Only the parent process of a run writes, holding the file's
writer lock.

A chunk's match rows, records and counts, its sums and its ``chunks`` row are written in one
transaction (:meth:`ResultsWriter.write_chunk`), so a chunk is either wholly in the file or
not at all: a crash (even ``kill -9``) loses only unfinished chunks, and a resumed run skips
the chunks listed in ``chunks``, so no match is ever counted twice.

A chunk's rows come as named columns (:data:`~bgfast.tournament.results.ROW_DTYPE`); the
seats become the file's player ids, and the rows go in many to an INSERT statement.
"""
from __future__ import annotations

import functools
import json
import sqlite3
import sys
import time
from typing import Any
from dataclasses import dataclass, field

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import numpy as np
from numpy.typing import NDArray

from bgfast.errors import InvalidSpecError, ResultsWriteError
from bgfast.tournament.results import ChunkResult, SeatTotals, row_array
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.store import schema
from bgfast.tournament.store.file import ResultsFile

__all__ = ["ResultsWriter", "RunInfo"]

_ADD_COUNTERS = (
    f"INSERT INTO engine_counters (run, player, {', '.join(schema.COUNTER_COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(schema.COUNTER_COLUMNS) + 2))}) ON CONFLICT (run, player) DO UPDATE SET "
    + ", ".join(f"{c} = MAX({c}, excluded.{c})" if c == "decision_ms_max" else f"{c} = {c} + excluded.{c}"
                for c in schema.COUNTER_COLUMNS))
"""Adds a chunk's counts to a player's: sums, and the longer of the longest decisions."""

_BOUND_COLUMNS = tuple(c for c in schema.MATCH_COLUMNS if c not in ("run", "seed"))
"""The columns of ``matches`` bound row by row when a chunk is written (the run's own are written in)."""
_BOUND_DTYPE = np.dtype([(name, np.int64) for name in _BOUND_COLUMNS])
"""A match row as it is bound: a field of :data:`_BOUND_COLUMNS` each, int64, packed."""
_PLAYER_OF_SEAT = {"player0": "seat0", "player1": "seat1"}
"""The columns of ``matches`` that hold the file's id of the player in a seat of the row."""
_ROWS_PER_INSERT = 100
"""Match rows per INSERT statement (fewer where SQLite takes fewer values a statement).  One
statement of many rows costs about half what as many one-row statements do; beyond about
100 rows (1,700 values) binding them gets slower again."""


_INSERT_JUDGED = (f"INSERT INTO match_judged (run, idx, {', '.join(schema.JUDGED_COLUMNS)}, errors_normalized) "
                  f"VALUES ({', '.join('?' * (len(schema.JUDGED_COLUMNS) + 2))}, {schema.ERRORS_NORMALIZED})")


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
    row = f"({', '.join('?' if c in _BOUND_COLUMNS else written[c] for c in schema.MATCH_COLUMNS)})"
    return f"INSERT INTO matches ({', '.join(schema.MATCH_COLUMNS)}) VALUES {', '.join([row] * rows)}"


def _bound_rows(rows: NDArray[np.void], chunk: int, player_ids: list[int]) -> NDArray[np.void]:
    """A chunk's rows (:data:`~bgfast.tournament.results.ROW_DTYPE`) as the columns of
    ``matches`` it binds (:data:`_BOUND_DTYPE`): the chunk added, each seat's player (an
    index into the spec's players) as the file's id of that player."""
    ids = np.asarray(player_ids, dtype=np.int64)
    bound = np.empty(len(rows), dtype=_BOUND_DTYPE)
    for name in _BOUND_COLUMNS:
        if name == "chunk":
            bound[name] = chunk
        elif name in _PLAYER_OF_SEAT:
            bound[name] = ids[rows[_PLAYER_OF_SEAT[name]]]
        else:
            bound[name] = rows[name]
    return bound


def _spec_changes(saved: str, given: str, most: int = 4) -> list[str]:
    """The key paths (``players[1].timeout_s``) whose values differ between two specs' TOML,
    at most ``most`` of them then ``...``: what an edited spec changed."""
    def flat(value: Any, path: str) -> dict[str, Any]:
        if isinstance(value, dict):
            return {k: v for key, item in value.items()
                    for k, v in flat(item, f"{path}.{key}" if path else key).items()}
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            return {k: v for i, item in enumerate(value) for k, v in flat(item, f"{path}[{i}]").items()}
        return {path: value}

    old, new = flat(tomllib.loads(saved), ""), flat(tomllib.loads(given), "")
    changed = sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    return changed[:most] + (["..."] if len(changed) > most else [])


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass
class RunInfo:
    """A run being played: its id in the file, the file's id of each spec player, finished chunks."""

    run: int
    spec: TournamentSpec
    player_ids: list[int]
    finished: set[int] = field(default_factory=set)
    resumed: bool = False


class ResultsWriter(ResultsFile):
    """The writes of a results file (the writing half of :class:`~bgfast.tournament.store.Store`)."""

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
                schema.add_engine_tables(conn)
                self._engine_tables = True
            if not schema.JUDGED_TABLES <= schema.table_names(conn):  # a file of an earlier version
                schema.add_judged_table(conn)
            elif not schema.has_judged_units(conn):
                schema.add_judged_units(conn)
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
            changed = _spec_changes(text, spec.to_toml()) if name == spec.name else []
            raise InvalidSpecError(
                f"{str(self.path)!r} holds another tournament ({name!r}, spec {digest}"
                + (f"; this spec changes {', '.join(changed)}" if changed else "")
                + "); use another --db, or --append to add this spec's matches to it")
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
        bound = _bound_rows(row_array(result.rows), result.chunk, run.player_ids)
        chunk, n = result.chunk, len(bound)
        conn = self._conn
        try:
            with self._transaction():
                self._insert_matches(run, bound)
                totals = schema.insert_chunk_sums(conn, run.run, chunk, bound)
                if result.records:
                    conn.executemany(
                        "INSERT INTO match_records (run, idx, seat0, seat1, forfeit) VALUES (?, ?, ?, ?, ?)",
                        ((run.run, *record) for record in result.records))
                if result.judged is not None:
                    conn.executemany(_INSERT_JUDGED, ((run.run, idx, *figures) for idx, figures in
                                                      zip(bound["idx"].tolist(), result.judged.tolist())))
                for player, counts in result.counters.items():
                    conn.execute(_ADD_COUNTERS, (run.run, run.player_ids[player],
                                                 *(getattr(counts, c) for c in schema.COUNTER_COLUMNS)))
                conn.execute("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                             (run.run, chunk, n, result.seconds, result.worker, _now()))
        except ResultsWriteError as exc:
            raise ResultsWriteError(f"{exc}; the {len(run.finished)} chunks saved before are kept: re-run the "
                                    "same command to resume") from None
        run.finished.add(chunk)
        return totals

    def _insert_matches(self, run: RunInfo, bound: NDArray[np.void]) -> None:
        """Insert match rows (``bound``: records of :data:`_BOUND_DTYPE`), many rows a statement."""
        values = bound.view(np.int64).tolist()  # row after row, the columns of _BOUND_COLUMNS in order
        width = len(_BOUND_COLUMNS) * self._rows_a_statement
        for start in range(0, len(values), width):
            part = values[start:start + width]
            self._conn.execute(_insert_statement(len(part) // len(_BOUND_COLUMNS), run.run, run.spec.seed), part)

    @functools.cached_property
    def _rows_a_statement(self) -> int:
        """Match rows an INSERT statement of this connection takes (:func:`_rows_per_insert`)."""
        return _rows_per_insert(self._conn)

    def set_sprt(self, run: RunInfo, status: str, matches: int, llr: float) -> None:
        """Record the SPRT decision of ``run``."""
        with self._transaction():
            self._conn.execute("UPDATE runs SET sprt_status = ?, sprt_matches = ?, sprt_llr = ? WHERE run = ?",
                               (status, matches, llr, run.run))

    def _player_id(self, name: str) -> int:
        return int(self._conn.execute("SELECT player FROM players WHERE name = ?", (name,)).fetchone()[0])
