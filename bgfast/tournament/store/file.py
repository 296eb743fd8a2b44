"""The results file as an open SQLite connection: opening and checking it, the writer's lock,
transactions and snapshots, and SQLite's errors turned into bgfast's.

:class:`ResultsFile` is the base of :class:`~bgfast.tournament.store.Store`; the queries
(:mod:`~bgfast.tournament.store.reader`) and the writes
(:mod:`~bgfast.tournament.store.writer`) run on its connection, inside its transactions.
Opening a file checks it (:mod:`~bgfast.tournament.store.schema`) and migrates a file of an
earlier version.

The file is in WAL mode with ``synchronous = NORMAL``: a committed transaction survives the
death of the process; only a power cut may lose the last few commits, never corrupt the file.
"""
from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from bgfast.errors import InvalidSpecError, ResultsFileError, ResultsWriteError
from bgfast.tournament.store import schema

__all__ = ["ResultsFile"]

_Opened = TypeVar("_Opened", bound="ResultsFile")

_DAMAGE = re.compile(r"no such (table|column)|malformed|not a database|corrupt", re.IGNORECASE)
"""SQLite's words for a file that is damaged, not refused by the system."""
_DISK = re.compile(r"disk I/O|cannot rollback", re.IGNORECASE)
"""SQLite's words for a write the disk failed (its "database or disk is full" says so itself)."""


class ResultsFile:
    """An open results file: opening it (created if missing) and checking it, the writer's
    lock, transactions and snapshots, and SQLite's errors as bgfast's.  What it holds is
    read and written through a :class:`~bgfast.tournament.store.Store` (this class with the
    queries of :mod:`~bgfast.tournament.store.reader` and the writes of
    :mod:`~bgfast.tournament.store.writer`): open one with ``Store(path)`` and close it,
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
        try:
            if not readonly:  # before any check: a run writing meanwhile is named as what it is
                self._take_writer_lock()
            with self._sqlite_errors():
                # the engine tables: a file of an earlier version lacks them until a run writes to it
                self._engine_tables = schema.ENGINE_TABLES <= schema.table_names(self._conn)
            self._check_rows()
            if not schema.TOTALS_TABLES <= schema.table_names(self._conn):
                self._add_chunk_sums(temporary=readonly)
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
            if not schema.check_version(conn, self._name):
                conn.close()
                raise ResultsFileError(f"{self._name} is not a bgfast results file: an empty database")
        except sqlite3.OperationalError as exc:
            raise ResultsWriteError(f"cannot read the results file {self._name}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None
        return conn

    def _damaged(self, problem: str) -> ResultsFileError:
        """The error for a results file whose tables or rows are damaged: ``problem`` says how."""
        return ResultsFileError(f"{self._name} is a damaged results file: {problem}")

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
            new = not schema.check_version(conn, self._name)
            conn.execute("PRAGMA journal_mode = WAL")  # first: the tables are then made without a sync each
            conn.execute("PRAGMA synchronous = NORMAL")
            if new:
                schema.create_tables(conn)
        except sqlite3.OperationalError as exc:
            raise ResultsWriteError(f"cannot write the results file {self._name}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise self._unreadable(exc) from None
        return conn

    def _check_rows(self) -> None:
        """Refuse a file whose rows do not agree (:func:`~bgfast.tournament.store.schema.find_damage`),
        everything read in one read transaction.

        :raises ResultsFileError: what disagrees, named.
        """
        with self._sqlite_errors(), self._snapshot():
            problem = schema.find_damage(self._conn)
        if problem is not None:
            raise self._damaged(problem)

    def _add_chunk_sums(self, *, temporary: bool) -> None:
        """Make the chunks' sums of a file written before they were kept
        (:func:`~bgfast.tournament.store.schema.add_chunk_sums`): in the file, in one write
        transaction, or (``temporary``, a file opened read-only) in tables of this connection."""
        with self._sqlite_errors(writing=not temporary), contextlib.ExitStack() as stack:
            if not temporary:
                stack.enter_context(self._transaction())
            schema.add_chunk_sums(self._conn, temporary=temporary)

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
                raise self._damaged(text) from None
            hint = " (is the disk full?)" if _DISK.search(text) else ""
            raise ResultsWriteError(f"cannot {'write' if writing else 'read'} the results file {self._name}: "
                                    f"{text}{hint}") from None

    def __enter__(self: _Opened) -> _Opened:
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

    # ------------------------------------------------------------ the writer's lock

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
