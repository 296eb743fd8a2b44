"""The results store: one SQLite file per tournament, written by the parent process only.

A :class:`Store` is one open results file, its jobs in one module each:

- :mod:`~bgfast.tournament.store.schema`: the tables (the file's layout is described
  there), the checks that a file is a results file and is whole, and the migrations of
  files of earlier versions;
- :mod:`~bgfast.tournament.store.file`: opening the file, the writer's lock,
  transactions and snapshots, SQLite's errors as bgfast's (:class:`ResultsFile`);
- :mod:`~bgfast.tournament.store.writer`: registering a run and saving finished chunks,
  each in one transaction, so a crash loses only unfinished chunks and a resumed run
  counts no match twice (:class:`ResultsWriter`);
- :mod:`~bgfast.tournament.store.reader`: the queries that standings, CSV files and
  exports are built from (:class:`ResultsReader`).

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

import os
from pathlib import Path

from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.store.file import ResultsFile
from bgfast.tournament.store.reader import ResultsReader
from bgfast.tournament.store.schema import SCHEMA_VERSION
from bgfast.tournament.store.writer import ResultsWriter, RunInfo

__all__ = ["SCHEMA_VERSION", "ResultsFile", "RunInfo", "Store", "default_db_path", "open_results",
           "remove_results"]


class Store(ResultsWriter, ResultsReader):
    """A results file, to write (:class:`ResultsWriter`) and to read (:class:`ResultsReader`).
    Open it with ``Store(path)`` (created if missing), or ``Store(path, readonly=True)``
    (see :class:`ResultsFile`), and close it, or use it as a context manager."""


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
