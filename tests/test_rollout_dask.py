"""Rollouts on Dask: the blocks of trials as Dask tasks on a local cluster or a scheduler give
the process pool's result bit for bit; a bot the workers cannot build is refused before any
trial; without dask.distributed, ``--backend dask`` is one line and exit status 2."""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from bgfast.cli import main
from bgfast.errors import BotNotOnWorkersError, InvalidRolloutError, MissingExtraError
from bgfast.rollout import rollout

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a ``distributed.LocalCluster`` of two worker processes, one thread each."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _figures(result: Any) -> dict[str, Any]:
    return {k: v for k, v in result.to_dict().items() if k != "seconds"}


@pytest.mark.parametrize("options", [
    {"bot": "pubeval", "trials": 324, "seed": 5, "cubeful": True},
    {"bot": "heuristic", "trials": 144, "seed": 2, "dice": "31", "plays": True, "prune_se": 1.0},
], ids=["cubeful", "plays"])
def test_a_scheduler_gives_the_process_pools_result_bit_for_bit(scheduler: str, options: dict[str, Any]) -> None:
    pool = rollout(START, workers=2, **options)
    dask = rollout(START, backend="dask", scheduler=scheduler, **options)
    assert _figures(dask) == _figures(pool) and dask.trials == options["trials"]


def test_the_cli_on_a_local_cluster_prints_the_process_pools_figures(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    args = ["rollout", START, "--bot", "pubeval", "--trials", "216", "--seed", "3", "--json"]
    assert main([*args, "--workers", "2"]) == 0
    pool = json.loads(capsys.readouterr().out)
    assert main([*args, "--backend", "dask", "--workers", "2"]) == 0
    dask = json.loads(capsys.readouterr().out)
    pool.pop("seconds"), dask.pop("seconds")
    assert dask == pool


def test_a_bot_name_the_workers_lack_is_refused_naming_it_and_the_fix(scheduler: str) -> None:
    import distributed

    from bgfast.procs import check_bots_on_workers

    with distributed.Client(scheduler) as client, pytest.raises(BotNotOnWorkersError) as refused:
        check_bots_on_workers(client, [("", "pubeval"), ("", "parent_only")])
    message = str(refused.value)
    assert "\n" not in message and message.startswith("bot 'parent_only' cannot be built on the Dask worker ")
    assert "register_bot exists only in the process that registered it" in message


def test_without_dask_the_backend_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'bgfast\[dask\]'"):
        rollout(START, bot="pubeval", trials=72, backend="dask")
    assert main(["rollout", START, "--bot", "pubeval", "--trials", "72", "--backend", "dask"]) == 2
    err = capsys.readouterr().err
    assert err == "bgfast: error: the dask backend needs dask.distributed: pip install 'bgfast[dask]'\n"


def test_a_scheduler_is_only_for_the_dask_backend() -> None:
    with pytest.raises(InvalidRolloutError, match="only for the dask backend"):
        rollout(START, bot="pubeval", trials=72, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InvalidRolloutError, match="unknown backend 'ray'"):
        rollout(START, bot="pubeval", trials=72, backend="ray")
