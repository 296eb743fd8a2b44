"""The results store: one transaction per chunk, resume, crashes (kill -9), failing workers, other specs."""
from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tournament_helpers import (
    alive,
    check_db_consistent,
    children_of,
    csv_of,
    small_spec,
    small_spec_text,
    start_cli,
    wait_for_chunks,
)

from bgfast import bots
from bgfast.bots import Bot, get_bot
from bgfast.errors import InvalidSpecError, WorkerFailedError
from bgfast.tournament import TournamentSpec, load_standings, run_tournament
from bgfast.tournament.store import Store
from bgfast.tournament.results import ChunkResult, MatchRow, MatchSummary
from bgfast.tournament.worker import play_chunk as _play_chunk

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses fork, /proc and SIGKILL")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Uninterrupted one-worker runs of the specs the crash tests use, as CSV."""
    out = {}
    for key, kwargs in {"small": {}, "long": {"name": "long", "length": 5, "per_pairing": 600}}.items():
        db = tmp_path_factory.mktemp("ref") / f"{key}.sqlite"
        run_tournament(small_spec(**kwargs), db, workers=1)  # type: ignore[arg-type]
        out[key] = csv_of(db)
    return out


def test_a_rerun_of_a_finished_tournament_plays_nothing_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    spec = small_spec()
    first = run_tournament(spec, db, workers=1)
    csv = csv_of(db)
    again = run_tournament(spec, db, workers=2)
    assert again == first and csv_of(db) == csv
    assert check_db_consistent(db) == (spec.total_matches(), spec.chunk_count())


def test_a_chunk_is_saved_whole_or_not_at_all(tmp_path: Path) -> None:
    # Given a store, when writing a chunk fails half way (a duplicate match row), nothing of it stays
    spec = small_spec()
    with Store(tmp_path / "s.sqlite") as store:
        run = store.begin_run(spec)
        row = MatchRow(idx=0, pairing=0, length=3, dice_index=0, seat0=0, seat1=1,
                       result=MatchSummary(score0=3, score1=0, winner=0, games=1, gammons0=0, gammons1=0,
                                           backgammons0=0, backgammons1=0, doubles=0, plies=40))
        with pytest.raises(sqlite3.IntegrityError):
            store.write_chunk(run, ChunkResult(0, [row, row], 0.1, "test"))
        assert run.finished == set()
        store.write_chunk(run, ChunkResult(0, [row], 0.1, "test"))
        with pytest.raises(sqlite3.IntegrityError):  # the same chunk twice: refused, never counted twice
            store.write_chunk(run, ChunkResult(0, [row], 0.1, "test"))
    assert check_db_consistent(tmp_path / "s.sqlite") == (1, 1)


def test_a_chunk_of_many_rows_is_saved_row_for_row_and_whole_or_not_at_all(tmp_path: Path) -> None:
    # A chunk's rows go in many rows to an INSERT statement: a chunk of 257 rows takes several
    # statements and a shorter last one, and a failure in the last one keeps nothing of the chunk
    spec = small_spec(per_pairing=600, chunk=300)
    played = _play_chunk(spec, 0)
    rows = list(played.rows)[:257]
    with Store(tmp_path / "s.sqlite") as store:
        run = store.begin_run(spec)
        with pytest.raises(sqlite3.IntegrityError):
            store.write_chunk(run, ChunkResult(0, [*rows[:-1], rows[0]], 0.1, "test"))
        assert run.finished == set() and list(store.iter_matches()) == []
        store.write_chunk(run, ChunkResult(0, rows, 0.1, "test"))
        saved = list(store.iter_matches())
    assert [(m.idx, m.dice_index, m.length, m.seed, m.result) for m in saved] == [
        (r.idx, r.dice_index, r.length, spec.seed, r.result) for r in rows]
    assert [(m.player0, m.player1) for m in saved] == [(spec.players[r.seat0].name, spec.players[r.seat1].name)
                                                       for r in rows]
    assert check_db_consistent(tmp_path / "s.sqlite") == (257, 1)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Connection.setlimit is Python 3.11+")
def test_a_sqlite_that_binds_fewer_values_gets_fewer_rows_a_statement(tmp_path: Path) -> None:
    from bgfast.tournament.store.writer import _rows_per_insert

    conn = sqlite3.connect(tmp_path / "x.sqlite")
    assert _rows_per_insert(conn) == min(100, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // 17)
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 60)
    assert _rows_per_insert(conn) == 3  # 17 values a row
    conn.close()


def test_a_different_spec_on_an_existing_file_is_an_error_naming_the_way_out(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(small_spec(), db, workers=1)
    with pytest.raises(InvalidSpecError, match="holds another tournament.*--append") as info:
        run_tournament(small_spec(per_pairing=60), db, workers=1)
    assert "; this spec changes matches_per_pairing)" in str(info.value)   # what the edit changed


def test_append_adds_a_spec_with_another_seed_and_reports_over_both(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(small_spec(), db, workers=1)
    standings = run_tournament(small_spec(name="small-2", seed=2), db, workers=1, append=True)
    assert standings.matches_played == 2 * small_spec().total_matches()
    assert standings.tournament == "small + small-2"  # the file's runs, in the order they were added


def test_an_added_spec_may_not_reuse_a_seed(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(small_spec(), db, workers=1)
    with pytest.raises(InvalidSpecError, match=r"^seed: 1 is already used"):
        run_tournament(small_spec(per_pairing=60), db, workers=1, append=True)


def test_an_added_spec_may_not_give_a_player_name_to_another_bot(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(small_spec(), db, workers=1)
    text = small_spec_text(seed=2).replace('bot = "random"', 'bot = "pubeval"\ncube = "never"', 1)
    text = text.replace('name = "cubeless"\nbot = "pubeval"\ncube = "never"', 'name = "other"\nbot = "random"')
    with pytest.raises(InvalidSpecError, match=r"^players\[1\]\.name: 'random' is bot 'random'"):
        run_tournament(TournamentSpec.from_toml_string(text), db, workers=1, append=True)


def test_only_one_process_writes_a_results_file(tmp_path: Path) -> None:
    # the writer's lock is taken when a store opens to write, before it reads the file
    spec = small_spec()
    with Store(tmp_path / "s.sqlite") as first:
        first.begin_run(spec)
        with pytest.raises(InvalidSpecError, match="another bgfast"):
            Store(tmp_path / "s.sqlite")
    with Store(tmp_path / "s.sqlite") as second:  # released on close
        second.begin_run(spec)


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(InvalidSpecError, match="not a bgfast results file"):
        load_standings(path)


def test_a_results_path_that_is_a_device_or_a_folder_is_refused(tmp_path: Path) -> None:
    for path in (Path(os.devnull), tmp_path):
        with pytest.raises(InvalidSpecError, match="not a regular file"):
            Store(path)


def test_a_results_path_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    with pytest.raises(InvalidSpecError, match="a file is in the way"):
        Store(tmp_path / "afile" / "x.sqlite")


LONG_MATCHES = 1800
"""Matches in the long spec that the crash tests interrupt: 3 pairings x 600."""


@contextmanager
def long_run_in_a_child(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path, Path]]:
    """``bgfast tournament`` of the long spec on two workers in a child process:
    ``(process, spec path, results file)``; the process is killed at the end if it still runs."""
    spec_path = tmp_path / "long.toml"
    spec_path.write_text(small_spec_text("long", length=5, per_pairing=600))
    db = tmp_path / "long.sqlite"
    proc = start_cli("tournament", str(spec_path), "--db", str(db), "--workers", "2", "--quiet", cwd=tmp_path)
    try:
        yield proc, spec_path, db
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def assert_a_rerun_completes_it(spec_path: Path, db: Path, reference: dict[str, str]) -> None:
    """Re-running the interrupted spec plays the rest: the file then equals an uninterrupted run's."""
    standings = run_tournament(TournamentSpec.from_toml(spec_path), db, workers=2)
    assert standings.matches_played == LONG_MATCHES
    assert csv_of(db) == reference["long"]


def test_kill_9_of_the_parent_mid_run_loses_only_unfinished_chunks_and_a_rerun_completes_it(
        tmp_path: Path, reference: dict[str, str]) -> None:
    # Given a run in a child process, when it is killed with SIGKILL after a few chunks,
    with long_run_in_a_child(tmp_path) as (proc, spec_path, db):
        done = wait_for_chunks(db, 4, proc)
        assert proc.poll() is None, f"the run ended before it could be killed ({done} chunks)"
        workers = children_of(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    # then the file is whole, every saved chunk complete, and the workers end with their parent
    matches, chunks = check_db_consistent(db)
    assert 0 < matches < LONG_MATCHES and chunks >= 4
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)
    assert_a_rerun_completes_it(spec_path, db, reference)


def test_kill_9_of_a_worker_mid_run_costs_its_chunk_and_the_run_finishes_by_itself(
        tmp_path: Path, reference: dict[str, str]) -> None:
    # Given a run in a child process, when one of its workers is killed with SIGKILL,
    with long_run_in_a_child(tmp_path) as (proc, _spec_path, db):
        wait_for_chunks(db, 3, proc)
        workers = children_of(proc.pid)
        assert workers, "no worker processes found"
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    # then the lost chunk is played again, and the results are those of an uninterrupted run
    assert proc.returncode == 0, err
    assert csv_of(db) == reference["long"]
    check_db_consistent(db)
    log = (tmp_path / "long.log").read_text()
    assert "SIGKILL): playing it again, retry 1 of 2" in log, log


_DIE: dict[str, object] = {}
"""The chunk :func:`_dying_play_chunk` kills its worker on, and the marker file of "only once"."""


def _dying_play_chunk(spec: TournamentSpec, chunk: int) -> ChunkResult:
    """``play_chunk``, except that chunk ``_DIE["chunk"]`` kills its worker process (kill -9):
    every time, or with a ``marker`` only the first time."""
    if chunk == _DIE["chunk"]:
        marker = _DIE.get("marker")
        if marker is None or not os.path.exists(str(marker)):
            if marker is not None:
                Path(str(marker)).touch()
            os.kill(os.getpid(), signal.SIGKILL)
    return _play_chunk(spec, chunk)


@pytest.fixture
def dying_chunk(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Make the process backend's workers play :func:`_dying_play_chunk` (set ``chunk``, ``marker``)."""
    from bgfast.tournament import worker

    monkeypatch.setattr(worker, "play_chunk", _dying_play_chunk)
    _DIE.clear()
    return _DIE


def test_a_worker_killed_once_costs_its_chunk_not_the_run(tmp_path: Path, reference: dict[str, str],
                                                          dying_chunk: dict[str, object]) -> None:
    dying_chunk.update(chunk=5, marker=tmp_path / "killed-once")
    db = tmp_path / "small.sqlite"
    standings = run_tournament(small_spec(), db, workers=2)
    assert standings.matches_played == small_spec().total_matches()
    assert csv_of(db) == reference["small"]
    lines = [line for line in (tmp_path / "small.log").read_text().splitlines() if "playing it again" in line]
    assert len(lines) == 1 and "chunk 5 lost (worker pid " in lines[0] and "killed by SIGKILL" in lines[0]


def test_a_chunk_that_kills_its_worker_every_time_stops_the_run_after_two_retries(
        tmp_path: Path, reference: dict[str, str], dying_chunk: dict[str, object],
        capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    dying_chunk.update(chunk=5)
    spec_path = tmp_path / "small.toml"
    spec_path.write_text(small_spec_text())
    db = tmp_path / "small.sqlite"
    assert main(["tournament", str(spec_path), "--db", str(db), "--workers", "2", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err == ("bgfast: error: a worker process died while chunk 5 was being played, 3 times (2 retries): "
                   "the run is stopped; finished chunks are saved, fix the cause and re-run to resume\n")
    log = (tmp_path / "small.log").read_text()
    assert "retry 1 of 2" in log and "retry 2 of 2" in log and "retry 3" not in log
    matches, chunks = check_db_consistent(db)
    assert chunks >= 4 and matches == 10 * chunks   # chunks 0-4 at least were played and kept
    with Store(db) as store:
        assert 5 not in store.begin_run(small_spec()).finished
    dying_chunk.update(chunk=-1)
    run_tournament(small_spec(), db, workers=2)
    assert csv_of(db) == reference["small"]


class _Flaky(Bot):
    """Plays like pubeval, but raises while ``fail`` is set (read in the worker after fork)."""

    name = "flaky"
    fail = False

    def __init__(self) -> None:
        self._inner = get_bot("pubeval", cube="never")

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        if _Flaky.fail:
            raise RuntimeError("flaky bot fails on purpose")
        return self._inner.choose_move(position, dice, match)


@pytest.fixture
def flaky_bot(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setitem(bots._REGISTRY, "flaky-test", _Flaky)
    monkeypatch.setattr(_Flaky, "fail", False)
    return _Flaky


def test_a_worker_that_raises_is_reported_with_its_chunk_and_the_run_resumes(tmp_path: Path, flaky_bot) -> None:  # type: ignore[no-untyped-def]
    text = small_spec_text("flaky", length=1, per_pairing=8, chunk=4).replace(
        'name = "cubeless"\nbot = "pubeval"\ncube = "never"', 'name = "flaky"\nbot = "flaky-test"')
    spec = TournamentSpec.from_toml_string(text)
    db = tmp_path / "flaky.sqlite"
    clean_db = tmp_path / "clean.sqlite"
    run_tournament(spec, clean_db, workers=1)
    flaky_bot.fail = True
    with pytest.raises(WorkerFailedError) as info:
        run_tournament(spec, db, workers=1)
    error = info.value
    assert error.chunk == 0 and str(error).startswith("a worker failed on chunk 0: player 'flaky' (bot "
                                                      "'flaky-test') failed: RuntimeError: flaky bot")
    assert "re-run to resume" in str(error) and "Traceback" in error.trace
    assert "flaky bot fails on purpose" in (tmp_path / "flaky.log").read_text()
    matches, _ = check_db_consistent(db)
    assert matches == 0
    flaky_bot.fail = False
    assert run_tournament(spec, db, workers=1).matches_played == spec.total_matches()
    assert csv_of(db) == csv_of(clean_db)


def test_resume_picks_up_exactly_the_missing_chunks(tmp_path: Path, reference: dict[str, str]) -> None:
    # Given a file where only some chunks were saved (as after a crash), a rerun fills in the rest
    spec = small_spec()
    db = tmp_path / "small.sqlite"
    from bgfast.tournament.worker import play_chunk

    with Store(db) as store:
        run = store.begin_run(spec)
        for chunk in (0, 3, 4, 9):
            store.write_chunk(run, play_chunk(spec, chunk))
    assert check_db_consistent(db) == (40, 4)
    run_tournament(spec, db, workers=2)
    assert csv_of(db) == reference["small"]


@pytest.mark.parametrize(("sig", "status", "said", "logged"), [
    (signal.SIGINT, 130, "bgfast: interrupted; ", "Ctrl-C"),
    (signal.SIGTERM, 143, "bgfast: terminated (SIGTERM); ", "SIGTERM"),
])
def test_ctrl_c_or_sigterm_stops_the_run_keeping_finished_chunks_and_a_rerun_completes_it(
        tmp_path: Path, reference: dict[str, str], sig: int, status: int, said: str, logged: str) -> None:
    with long_run_in_a_child(tmp_path) as (proc, spec_path, db):
        wait_for_chunks(db, 3, proc)
        assert proc.poll() is None
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.startswith(said + "finished chunks are saved in ") and "resume" in err
    matches, _ = check_db_consistent(db)
    assert 0 < matches < LONG_MATCHES
    log = db.with_suffix(".log").read_text(encoding="utf-8")
    assert "stopped: \n" not in log and not log.rstrip().endswith("stopped:") and "the log is closing" not in log
    assert re.search(rf"WARNING interrupted \({logged}\): \d+ matches saved, re-run the same command to resume", log)
    assert_a_rerun_completes_it(spec_path, db, reference)


_LOCKED_LOG = """
import multiprocessing, os, signal, sys
from pathlib import Path
from bgfast.tournament.runner import _start_log, _stop_log

def hold(lock, held):
    lock.acquire()
    held.set()
    signal.pause()

handler = _start_log(Path(sys.argv[1]), multiprocess=True)
held = multiprocessing.get_context("fork").Event()
worker = multiprocessing.get_context("fork").Process(target=hold, args=(handler.queue._wlock, held))
worker.start()
held.wait(10)
os.kill(worker.pid, signal.SIGKILL)  # dies holding the lock of the workers' log queue
worker.join()
_stop_log(handler)
print("closed")
"""


def test_the_run_exits_though_a_worker_died_holding_the_log_queues_lock(tmp_path: Path) -> None:
    # A worker killed (kill -9, or ended by the pool) while it sends a log record keeps the
    # queue's lock for good: closing the log must not leave the parent waiting on it at exit
    done = subprocess.run([sys.executable, "-c", _LOCKED_LOG, str(tmp_path / "run.log")],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "closed\n"), done.stderr


def test_a_chunk_sent_from_a_worker_keeps_its_rows_and_saves_the_same_as_in_process(tmp_path: Path) -> None:
    import pickle

    from bgfast.tournament.results import FlatRows

    spec = small_spec()
    played = [_play_chunk(spec, c) for c in range(spec.chunk_count())]
    sent = [pickle.loads(pickle.dumps(result)) for result in played]
    assert all(isinstance(s.rows, FlatRows) and s.rows == p.rows and list(s.rows) == p.rows for s, p in zip(sent, played))
    assert sent[0].rows[-1] == played[0].rows[-1] and sent[0].rows[1:3] == played[0].rows[1:3]
    for name, results in (("flat", sent), ("rows", played)):
        with Store(tmp_path / f"{name}.sqlite") as store:
            run = store.begin_run(spec)
            for result in results:
                store.write_chunk(run, result)
    assert csv_of(tmp_path / "flat.sqlite") == csv_of(tmp_path / "rows.sqlite")


WEIGHTS_SPEC = """
name = "net"
seed = 3
match_length = 1
matches_per_pairing = 4
chunk_size = 2

[[players]]
name = "net"
bot = "neural"
options = {{ weights = "{weights}" }}

[[players]]
name = "pubeval"
bot = "pubeval"
"""


def _tiny_net(path: Path, seed: int) -> None:
    from bgfast.bots.neural_weights import write_weights
    from bgfast.train import TrainConfig, initial_weights

    write_weights(path, initial_weights(TrainConfig(contact_hidden=8, race_hidden=8, init_seed=seed)))


def test_a_run_whose_weights_file_changed_is_not_resumed_nor_appended_as_the_same_player(tmp_path: Path) -> None:
    (tmp_path / "nets").mkdir()
    _tiny_net(tmp_path / "nets" / "w.bgw", 1)
    spec_path = tmp_path / "net.toml"
    spec_path.write_text(WEIGHTS_SPEC.format(weights="nets/w.bgw"))  # relative to the spec file
    spec = TournamentSpec.from_toml(spec_path)
    assert spec.players[0].options["weights"] == str(tmp_path / "nets" / "w.bgw")
    db = tmp_path / "r.sqlite"
    run_tournament(spec, db, workers=1)
    before = spec.hash
    _tiny_net(tmp_path / "nets" / "w.bgw", 2)  # another net in the same file
    changed = TournamentSpec.from_toml(spec_path)
    assert changed.to_toml() == spec.to_toml() and changed.hash != before
    with pytest.raises(InvalidSpecError, match="played with other weights files: net changed"):
        run_tournament(changed, db, workers=1)
    again = TournamentSpec.from_toml_string(spec_path.read_text().replace("seed = 3", "seed = 4"),
                                            base_dir=tmp_path)
    with pytest.raises(InvalidSpecError, match=r"^players\[0\]\.name: 'net' is bot 'neural' with options"):
        run_tournament(again, db, workers=1, append=True)


def test_a_missing_weights_file_is_a_spec_error_naming_the_option(tmp_path: Path) -> None:
    spec_path = tmp_path / "net.toml"
    spec_path.write_text(WEIGHTS_SPEC.format(weights="missing.bgw"))
    with pytest.raises(InvalidSpecError, match=r"^players\[0\]\.options\.weights: cannot read neural weights '.*missing.bgw'"):
        TournamentSpec.from_toml(spec_path)
