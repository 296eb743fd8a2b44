"""A results file that is not what it should be, or a system that refuses it: a report never
writes, and every fault is one line naming the file and what is wrong (issue 14's new-user
defects).  The tests run as root, whom permissions do not stop: a report's "never writes"
is checked by the file's bytes, its mtime and its folder's listing, which stay as they were,
and a folder one cannot write by the check the store makes (``os.access``), or for real as
the user nobody where that user can run this Python."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_helpers import small_spec, small_spec_text

from bgfast.errors import InvalidSpecError, ResultsFileError, ResultsWriteError
from bgfast.tournament import load_standings, run_tournament
from bgfast.tournament.store import Store
from cli_helpers import fixed_terminal, run  # noqa: F401


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished results file of the small spec (4 chunks of 10 matches)."""
    db = tmp_path_factory.mktemp("played") / "r.sqlite"
    run_tournament(small_spec(), db, workers=1)
    return db


def _copy(db: Path, folder: Path, name: str = "r.sqlite") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / name
    out.write_bytes(db.read_bytes())
    return out


def _state(path: Path) -> tuple[bytes, int, list[str]]:
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(os.listdir(path.parent))


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# ---------------------------------------------------------------- a report never writes


def test_a_report_writes_nothing_in_the_file_or_its_folder(played: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = _copy(played, tmp_path / "copy")
    before = _state(db)
    code, out, _ = run(capsys, "report", str(db), "--json")
    assert code == 0 and '"matches_played": 120' in out
    assert _state(db) == before  # no -wal or -shm made beside it, not a byte changed


@pytest.mark.parametrize("kind", ["foreign", "empty"])
def test_a_report_refuses_a_file_that_is_not_a_results_file_and_leaves_it_as_it_was(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "x.sqlite"
    if kind == "foreign":
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
    else:
        db.touch()
    before = _state(db)
    code, out, err = run(capsys, "report", str(db))
    assert code == 2 and out == ""
    assert _one_line(err).startswith(f"bgfast: error: {str(db)!r} is not a bgfast results file")
    assert _state(db) == before
    if kind == "foreign":
        with sqlite3.connect(db) as conn:  # not switched to WAL
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    else:
        assert db.stat().st_size == 0


def test_a_tournament_refuses_a_foreign_sqlite_file_without_changing_it(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    before = _state(db)
    with pytest.raises(ResultsFileError, match="is not a bgfast results file"):
        run_tournament(small_spec(), db, workers=1)
    assert _state(db) == before


def _nobody_can_run_python() -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        return subprocess.run([sys.executable, "-c", "import bgfast.tournament"], user="nobody",
                              capture_output=True, timeout=60).returncode == 0
    except (OSError, KeyError, subprocess.SubprocessError):
        return False


def test_a_report_reads_a_file_in_a_folder_it_cannot_write(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    db = _copy(played, folder)
    folder.chmod(0o555)
    command = [sys.executable, "-m", "bgfast", "report", str(db)]
    try:
        if os.geteuid() != 0:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        elif _nobody_can_run_python():
            tmp_path.chmod(0o755)
            done = subprocess.run(command, capture_output=True, text=True, timeout=120, user="nobody")
        else:
            pytest.skip("root ignores permissions, and the user nobody cannot run this Python")
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert "small: 120 matches" in done.stdout


# ---------------------------------------------------------------- damaged files


def test_a_corrupt_file_is_one_error_line(played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _copy(played, tmp_path)
    data = bytearray(db.read_bytes())
    data[4096:12288] = b"\xff" * 8192  # pages after the first: the schema reads, the tables do not
    db.write_bytes(bytes(data))
    code, _, err = run(capsys, "report", str(db))
    assert code == 2
    assert _one_line(err) == f"bgfast: error: {str(db)!r} is a damaged results file: database disk image is malformed"


@pytest.mark.parametrize("keep", [3000, None])
def test_a_truncated_file_is_called_damaged_and_a_text_file_not_a_results_file(
        keep: int | None, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _copy(played, tmp_path)
    data = db.read_bytes()
    db.write_bytes(data[:keep if keep is not None else len(data) // 2])
    code, _, err = run(capsys, "report", str(db))
    assert code == 2
    assert _one_line(err).startswith(f"bgfast: error: {str(db)!r} is a damaged SQLite database (truncated or "
                                     "overwritten?): ")
    db.write_text("hello\n", encoding="utf-8")
    code, _, err = run(capsys, "report", str(db))
    assert code == 2 and _one_line(err) == f"bgfast: error: {str(db)!r} is not a bgfast results file: file is not a database"


@pytest.mark.parametrize(("damage", "problem"), [
    ("DROP TABLE players", "its table(s) players are missing"),
    ("DROP TABLE matches", "its table(s) matches are missing"),
    ("DROP TABLE chunk_units", "it has the chunk_seats table but not chunk_units (dropped?)"),
    ("DROP TABLE chunk_seats", "it has the chunk_units table but not chunk_seats (dropped?)"),
    ("DROP TABLE match_records", "it has the engine_counters table but not match_records (dropped?)"),
    ("DELETE FROM matches WHERE idx < 5", "run 'small' has 115 match rows where its finished chunks hold 120"),
    ("DELETE FROM chunks WHERE chunk = 0", "run 'small' has 120 match rows where its finished chunks hold 110"),
    ("DELETE FROM players WHERE name = 'random'", "80 matches are of players missing from its players table"),
    ("DELETE FROM runs", "it holds matches of runs missing from its runs table"),
])
def test_a_file_with_a_table_dropped_or_rows_deleted_is_one_line_naming_what_is_wrong(
        damage: str, problem: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(damage)
    (tmp_path / "spec.toml").write_text(small_spec_text(), encoding="utf-8")
    for argv in (["report", str(db)], ["tournament", str(tmp_path / "spec.toml"), "--db", str(db), "--quiet"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert _one_line(err).startswith(f"bgfast: error: {str(db)!r} is a damaged results file: {problem}")


@pytest.mark.parametrize(("spec", "problem"), [
    ('name = "small"\nplayers = [', "is not TOML: "),
    ('name = "small"\n', "has no match_length"),
    ('name = "small"\nmatch_length = 3\n', "has no players"),
    ('name = "small"\nmatch_length = 3\n[[players]]\nbot = "random"\n', "has players[0] without a name"),
    ('name = "small"\nmatch_length = 3\nrules = { crawfurd = true }\n[[players]]\nname = "a"\nbot = "random"\n',
     "has rules that do not read: "),
])
def test_a_runs_spec_damaged_by_hand_is_the_results_files_damage_naming_it_and_the_run(
        spec: str, problem: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a TOML error was reported as if the user's spec were bad, without naming the results file
    db = _copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET spec = ?", (spec,))
    (tmp_path / "spec.toml").write_text(small_spec_text(), encoding="utf-8")
    for argv in (["report", str(db)], ["report", str(db), "--matches", "-"],
                 ["export", str(db), "--match", "0", "--mat", str(tmp_path / "m.mat")],
                 ["tournament", str(tmp_path / "spec.toml"), "--db", str(db), "--quiet"]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert _one_line(err).startswith(f"bgfast: error: {str(db)!r} is a damaged results file: the spec saved for "
                                         f"run 'small' (the spec column of its runs table) {problem}"), err
        assert err.endswith(" (edited by hand?)\n")
    assert not (tmp_path / "m.mat").exists()


@pytest.mark.parametrize(("change", "differ"), [
    ("plies = plies + 1", "plies saved {plies1}, replayed {plies}"),
    ("score1 = score1 + 1, games = games + 1", "score1 saved {score11}, replayed {score1}; games saved {games1}, "
     "replayed {games}"),
])
def test_a_match_row_changed_by_hand_says_which_file_row_and_fields_differ(
        change: str, differ: str, played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the message gave the same numbers twice: "(3-0 in 1 games; the replay gives 3-0 in 1)"
    db = _copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        plies, score1, games = conn.execute("SELECT plies, score1, games FROM matches WHERE idx = 7").fetchone()
        conn.execute(f"UPDATE matches SET {change} WHERE idx = 7")
    code, out, err = run(capsys, "export", str(db), "--match", "7", "--sgf", str(tmp_path / "m.sgf"))
    assert (code, out) == (2, "")
    fields = differ.format(plies=plies, plies1=plies + 1, score1=score1, score11=score1 + 1, games=games,
                           games1=games + 1)
    assert _one_line(err) == (f"bgfast: error: match 7 of run 'small' in {str(db)!r} does not replay to its saved "
                              f"result (its row in the matches table): {fields}; the file was changed by hand, or "
                              "the bots have changed since the match was played")
    assert not (tmp_path / "m.sgf").exists()


# ---------------------------------------------------------------- the system refuses


class _FullDisk:
    """A connection whose chunk writes fail as on a full disk: SQLite's "disk I/O error", after
    which it has rolled back by itself ("cannot rollback - no transaction is active")."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("INSERT INTO chunks"):
            raise sqlite3.OperationalError("disk I/O error")
        if sql == "ROLLBACK":
            self._conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("cannot rollback - no transaction is active")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_a_full_disk_during_a_tournament_is_one_line_and_keeps_the_finished_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_chunk = Store.write_chunk
    written = []

    def fill_the_disk_after_two(store: Store, run_info: Any, result: Any) -> Any:
        if len(written) == 2:
            store._conn = _FullDisk(store._conn)  # type: ignore[assignment]
        seatings = write_chunk(store, run_info, result)
        written.append(result.chunk)
        return seatings

    monkeypatch.setattr(Store, "write_chunk", fill_the_disk_after_two)
    spec, db = tmp_path / "spec.toml", tmp_path / "r.sqlite"
    spec.write_text(small_spec_text(), encoding="utf-8")
    code, _, err = run(capsys, "tournament", str(spec), "--db", str(db), "--workers", "1", "--quiet")
    assert code == 1
    line = _one_line(err)
    assert line.startswith(f"bgfast: error: cannot write the results file {str(db)!r}: disk I/O error "
                           "(is the disk full?); the 2 chunks saved before are kept")
    monkeypatch.undo()
    assert load_standings(db).matches_played == 20


def test_a_second_tournament_through_a_link_is_told_the_file_is_in_use(tmp_path: Path) -> None:
    real = tmp_path / "r.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(real.name)
    with Store(real) as first:
        first.begin_run(small_spec())
        with Store(link, readonly=True) as reader:
            assert reader.writer_active()
        with pytest.raises(InvalidSpecError, match="another bgfast tournament is writing to '.*link.sqlite'"):
            Store(link)


def test_a_folder_that_cannot_be_written_is_named_as_the_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # as root, chmod does not stop the write: the store's own check is told the folder is read-only
    folder = tmp_path / "locked"
    folder.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == folder else real_access(p, mode))
    with pytest.raises(ResultsWriteError, match=r"cannot write the results file '.*r\.sqlite': no permission to "
                                                "write in its folder"):
        Store(folder / "r.sqlite")
    assert os.listdir(folder) == []
    monkeypatch.chdir(folder)  # a working directory one cannot write, with the default results/ inside it
    (tmp_path / "spec.toml").write_text(small_spec_text(), encoding="utf-8")
    (folder / "results").mkdir()
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p).resolve() == folder / "results"
                        else real_access(p, mode))
    code, _, err = run(capsys, "tournament", str(tmp_path / "spec.toml"), "--quiet")
    assert code == 1
    assert _one_line(err) == ("bgfast: error: cannot write the results file 'results/small.sqlite': no permission "
                              "to write in its folder 'results'")


def test_a_name_too_long_is_named_as_the_fault(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = str(tmp_path / ("x" * 300 + ".sqlite"))
    with pytest.raises(ResultsWriteError, match=r"^cannot create the results file '.*x\.sqlite': File name too long$"):
        run_tournament(small_spec(), name, workers=1)
    with pytest.raises(ResultsWriteError, match=r"^cannot read the results file '.*x\.sqlite': File name too long$"):
        load_standings(name)
    # on the command line it is bad input, refused before the run (tests/test_cli_bad_input.py)
    (tmp_path / "spec.toml").write_text(small_spec_text(), encoding="utf-8")
    for argv in (["tournament", str(tmp_path / "spec.toml"), "--db", name, "--quiet"], ["report", name]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "a path of 3" in err and "too long for the system" in err


def test_a_missing_file_is_still_named_as_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "report", str(tmp_path / "none.sqlite"))
    assert code == 2 and _one_line(err) == f"bgfast: error: no results file {str(tmp_path / 'none.sqlite')!r}"
