"""Reading a results file while a run writes to it: one snapshot per read-only open (the
integrity check and the report's queries), and a second writer told of the first before it
checks anything.  The races are played deterministically: a commit of another connection is
slipped in between two queries of the reader."""
from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tournament_helpers import small_spec

from bgfast.errors import InvalidSpecError
from bgfast.tournament.results import ChunkResult
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.standings import standings_from_store
from bgfast.tournament.store import RunInfo, Store
from bgfast.tournament.worker import play_chunk


@pytest.fixture(scope="module")
def chunks() -> tuple[TournamentSpec, list[ChunkResult]]:
    spec = small_spec(per_pairing=20, chunk=10)  # 6 chunks of 10 matches
    return spec, [play_chunk(spec, c) for c in range(spec.chunk_count())]


class _Interleaved(sqlite3.Connection):
    """A connection that runs ``before`` (once) just before the first query starting with ``prefix``."""

    prefix = ""
    before: Callable[[], None] | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        hook = type(self).before
        if hook is not None and sql.startswith(type(self).prefix):
            type(self).before = None
            hook()
        return super().execute(sql, *args)


@pytest.fixture()
def interleave(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str, Callable[[], None]], None]]:
    """``interleave(prefix, commit)``: connections opened from now on run ``commit`` before their
    first query that starts with ``prefix``."""
    monkeypatch.setattr(sqlite3, "connect", functools.partial(sqlite3.connect, factory=_Interleaved))

    def arm(prefix: str, commit: Callable[[], None]) -> None:
        _Interleaved.prefix, _Interleaved.before = prefix, commit

    yield arm
    _Interleaved.before = None


def _writer(path: Path, spec: TournamentSpec, chunks: list[ChunkResult], done: int) -> tuple[Store, RunInfo]:
    store = Store(path)
    run = store.begin_run(spec)
    for result in chunks[:done]:
        store.write_chunk(run, result)
    return store, run


@pytest.mark.parametrize("prefix", [
    "SELECT run, SUM(matches) FROM chunks",       # between counting the match rows and the chunks' matches
    "SELECT run, chunk, SUM(units",               # between reading the chunks and their sums by unit
])
def test_a_report_opened_while_a_chunk_is_committed_sees_one_state_of_the_file(
        tmp_path: Path, chunks: tuple[TournamentSpec, list[ChunkResult]],
        interleave: Callable[[str, Callable[[], None]], None], prefix: str) -> None:
    spec, results = chunks
    writer, run = _writer(tmp_path / "r.sqlite", spec, results, 2)
    try:
        interleave(prefix, lambda: writer.write_chunk(run, results[2]))
        with Store(tmp_path / "r.sqlite", readonly=True) as reader:  # was: "a damaged results file"
            assert _Interleaved.before is None  # the commit did come in the middle of the check
            assert sum(r["matches_played"] for r in reader.runs()) == 20  # the state when it opened
        with Store(tmp_path / "r.sqlite", readonly=True) as reader:
            assert sum(r["matches_played"] for r in reader.runs()) == 30
    finally:
        writer.close()


def test_the_queries_of_a_report_all_read_the_state_the_file_had_when_it_was_opened(
        tmp_path: Path, chunks: tuple[TournamentSpec, list[ChunkResult]]) -> None:
    spec, results = chunks
    writer, run = _writer(tmp_path / "r.sqlite", spec, results, 2)
    try:
        with Store(tmp_path / "r.sqlite", readonly=True) as reader:
            seats = sum(t.matches for t in reader.seat_totals())
            before = standings_from_store(reader)
            writer.write_chunk(run, results[2])   # another connection commits meanwhile
            units = sum(g.units * g.matches_per_unit for g in reader.unit_totals())
            played = sum(r["matches_played"] for r in reader.runs())
            assert seats == units == played == before.matches_played == 20
            assert standings_from_store(reader) == before
            assert len(list(reader.iter_matches())) == 20
        with Store(tmp_path / "r.sqlite", readonly=True) as reader:
            assert standings_from_store(reader).matches_played == 30
    finally:
        writer.close()


def test_a_second_writer_is_told_another_is_writing_before_it_checks_the_file(
        tmp_path: Path, chunks: tuple[TournamentSpec, list[ChunkResult]],
        interleave: Callable[[str, Callable[[], None]], None]) -> None:
    spec, results = chunks
    writer, run = _writer(tmp_path / "r.sqlite", spec, results, 2)
    try:
        interleave("SELECT run, SUM(matches) FROM chunks", lambda: writer.write_chunk(run, results[2]))
        with pytest.raises(InvalidSpecError, match=r"^another bgfast tournament is writing to '.*r\.sqlite'$"):
            Store(tmp_path / "r.sqlite")  # was: "a damaged results file", its check read mid-commit
        assert _Interleaved.before is not None  # it checked nothing
        _Interleaved.before = None
    finally:
        writer.close()
    with Store(tmp_path / "r.sqlite") as again:  # once the first has closed, the second may write
        assert again.begin_run(spec).finished == {0, 1}
