"""The tournament runner on a real Dask cluster: a ``dask scheduler`` and two ``dask worker``
processes on loopback, started here as the README starts them; its results equal the
process pool's bit for bit; a bot the workers cannot build is refused before any match,
in one line that names it and the fix; the batches that a Dask task plays."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tournament_helpers import csv_of, small_spec

import bgfast

from bgfast.errors import BotNotOnWorkersError, WorkerFailedError
from bgfast.tournament import TournamentSpec, run_tournament
from bgfast.tournament import worker
from bgfast.tournament.results import ChunkResult
from bgfast.tournament.worker import ChunkBatchError, ChunkError, _Batches, play_chunks

PLUGIN = '''
from bgfast.bots import get_bot

def make_bot(**options):
    return get_bot("pubeval", **options)
'''


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in reversed(procs):
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a ``dask scheduler`` with two ``dask worker --nworkers 1 --nthreads 1``
    processes, on loopback; the workers import the bgfast this process imported (the
    installed one in CI, the checkout in development) and nothing more."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    tmp = tmp_path_factory.mktemp("cluster")
    file = tmp / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": str(Path(bgfast.__file__).resolve().parents[1])}
    log = open(tmp / "cluster.log", "wb")  # noqa: SIM115 - open as long as the cluster runs
    options = {"env": env, "cwd": tmp, "stdout": log, "stderr": subprocess.STDOUT}
    procs = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)], **options)]  # type: ignore[call-overload]
    try:
        deadline = time.monotonic() + 60
        while not (file.exists() and file.stat().st_size) and time.monotonic() < deadline:
            assert procs[0].poll() is None, (tmp / "cluster.log").read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole by now
        address = json.loads(file.read_text())["address"]
        procs += [subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nworkers", "1",
                                    "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                   **options)  # type: ignore[call-overload]
                  for _ in range(2)]
        with distributed.Client(address) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        _stop(procs)
        log.close()


def test_a_loopback_cluster_gives_the_process_pools_results_bit_for_bit(cluster: str, tmp_path: Path) -> None:
    # Given a spec of 200 small chunks (so that tasks play batches of several) and the pool's results
    spec = small_spec(length=1, per_pairing=400, chunk=6)
    assert spec.chunk_count() == 200
    run_tournament(spec, tmp_path / "pool.sqlite", workers=2)
    # When the cluster plays it
    standings = run_tournament(spec, tmp_path / "dask.sqlite", backend="dask", scheduler=cluster)
    # Then every match is the same
    assert standings.matches_played == spec.total_matches()
    assert csv_of(tmp_path / "dask.sqlite") == csv_of(tmp_path / "pool.sqlite")


def test_a_bot_registered_only_here_is_refused_before_play_naming_it_and_the_fix(
        cluster: str, tmp_path: Path) -> None:
    from bgfast.bots import _REGISTRY, get_bot, register_bot

    register_bot("parent_only", lambda **options: get_bot("pubeval", **options))
    try:
        spec = TournamentSpec.from_dict({"name": "reg", "match_length": 1, "matches_per_pairing": 4, "players": [
            {"name": "mine", "bot": "parent_only"}, {"name": "pubeval", "bot": "pubeval"}]})
        with pytest.raises(BotNotOnWorkersError) as refused:
            run_tournament(spec, tmp_path / "r.sqlite", backend="dask", scheduler=cluster)
    finally:
        del _REGISTRY["parent_only"]
    message = str(refused.value)
    assert "\n" not in message and (refused.value.player, refused.value.bot) == ("mine", "parent_only")
    assert message.startswith("player 'mine' (bot 'parent_only') cannot be built on the Dask worker tcp://127.0.0.1:")
    assert "register_bot exists only in the process that registered it" in message
    assert "entry-point group 'bgfast.bots'" in message and "'module:factory'" in message


def test_the_cli_refuses_a_plugin_module_the_workers_lack_in_one_line(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    # Given a plugin module on this process's path only
    (tmp_path / "bgfast_head_only.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "t.toml").write_text('name = "head"\nmatch_length = 1\nmatches_per_pairing = 4\n'
                                     '[[players]]\nname = "mine"\nbot = "bgfast_head_only:make_bot"\n'
                                     '[[players]]\nname = "pubeval"\nbot = "pubeval"\n')
    code = main(["tournament", str(tmp_path / "t.toml"), "--db", str(tmp_path / "h.sqlite"),
                 "--backend", "dask", "--scheduler", cluster, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("bgfast: error: player 'mine' (bot 'bgfast_head_only:make_bot') cannot be built on "
                          "the Dask worker tcp://127.0.0.1:")
    assert "no module named 'bgfast_head_only'" in err and "PYTHONPATH" in err


# ---------------------------------------------------------------- batches of chunks, one a task


def _result(chunk: int, seconds: float) -> ChunkResult:
    return ChunkResult(chunk, [], seconds, "test")


def test_batches_start_with_one_chunk_then_fill_a_task_and_shrink_at_the_end() -> None:
    batches = _Batches(range(100), workers=2)
    it = iter(batches)
    assert next(it) == (0,)               # nothing measured yet
    batches.add(_result(0, 0.1))           # 0.1 s a chunk: 10 fit in a task
    assert next(it) == tuple(range(1, 11))
    batches.add(_result(1, 0.5))           # 0.3 s a chunk on average: 3 fit
    assert next(it) == (11, 12, 13)
    rest = list(it)
    assert [c for batch in rest for c in batch] == list(range(14, 100))  # every chunk once, in order
    assert max(map(len, rest)) <= 3 and len(rest[-1]) == 1    # no more than left // 8 at the end


def test_a_batch_gives_up_the_chunks_played_before_the_one_that_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def play(spec: TournamentSpec, chunk: int) -> ChunkResult:
        if chunk == 7:
            raise ChunkError(7, "RuntimeError: no")
        return _result(chunk, 0.0)

    monkeypatch.setattr(worker, "play_chunk", play)
    with pytest.raises(ChunkBatchError) as failed:
        play_chunks(small_spec(), (5, 6, 7, 8))
    assert [r.chunk for r in failed.value.results] == [5, 6] and failed.value.error.chunk == 7


def test_a_chunk_that_raises_on_the_cluster_stops_the_run_naming_it(cluster: str, tmp_path: Path) -> None:
    # Given a player whose options the spec's checks would refuse, slipped past them: the
    # bot's name is known everywhere, so the run starts and the build fails in the worker
    spec = TournamentSpec.from_dict({"name": "fails", "match_length": 1, "matches_per_pairing": 4, "players": [
        {"name": "bad", "bot": "pubeval"}, {"name": "pubeval", "bot": "pubeval"}]})
    object.__setattr__(spec.players[0], "options", {"no_such_option": 1})
    with pytest.raises(WorkerFailedError, match=r"a worker failed on chunk \d+: .*no_such_option"):
        run_tournament(spec, tmp_path / "bad.sqlite", backend="dask", scheduler=cluster)


def test_the_dask_backend_without_dask_is_refused_before_any_file_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the results file, its log and its lock were left behind, reading "0 of 20 matches played"
    from bgfast.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "distributed", None)     # import distributed fails
    with pytest.raises(MissingExtraError, match=r"pip install 'bgfast\[dask\]'"):
        run_tournament(small_spec(), db=tmp_path / "dask.sqlite", backend="dask")
    assert list(tmp_path.iterdir()) == []
