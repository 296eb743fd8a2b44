"""The runner on Dask against the process pool, at equal workers, with the bare loop as the ceiling.

Run as a script (too long for the pytest-benchmark suite)::

    python benchmarks/bench_dask.py [--matches 200000] [--bare 50000] [--workers 2] [--rounds 3]

Each round plays, in this order (so that a change in the machine's load touches every
backend alike): the bare loop (one :class:`~bgfast.game.MatchPlayer` per seating, one
core, no pool, no store), the runner on the process pool, on Dask's local cluster
(``--backend dask``, the cluster's start counted) and on a real cluster on loopback (a
``dask scheduler`` and ``--workers`` ``dask worker --nworkers 1 --nthreads 1`` processes,
started once before the first round and counted in no run), ``--matches`` one-point matches
of pubeval against heuristic (``tournaments/million.toml``'s setting).  Every run is in a
fresh child process, which reports its own CPU seconds (the parent's: the SQLite writes, the
scheduler client) and its workers' (the pool's children, or the cluster's processes read
with psutil; the local cluster's workers are the forkserver's children, not counted).  It prints JSON: each run, and per backend the median rate and its spread
(half the range), the ratio to the process pool and to twice the bare loop, and the
parent's CPU seconds per 100,000 matches.  Runs of one round against the same results are
checked equal (the CSV of every match).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tournament import bench_spec, run_bare  # noqa: E402

BACKENDS = ("process", "dask-local", "dask-cluster")


def _cluster_cpu(pids: list[int]) -> float:
    """The CPU seconds of the processes ``pids`` and their children (a nanny's worker)."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            for p in [proc, *proc.children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _runner_child(matches: int, workers: int, backend: str, address: str | None, pids: list[int]) -> dict[str, Any]:
    """In a child process: play the bench spec on ``backend``; seconds, CPU seconds, the CSV's hash."""
    import hashlib
    import io

    from bgfast.tournament import run_tournament, write_matches_csv

    spec = bench_spec(matches)
    before = _cluster_cpu(pids)
    me = resource.getrusage(resource.RUSAGE_SELF)
    parent_before = me.ru_utime + me.ru_stime
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        start = time.perf_counter()
        standings = run_tournament(spec, db, workers=workers, backend="process" if backend == "process" else "dask",
                                   scheduler=address if backend == "dask-cluster" else None)
        seconds = time.perf_counter() - start
        me = resource.getrusage(resource.RUSAGE_SELF)
        parent_cpu = me.ru_utime + me.ru_stime - parent_before
        out = io.StringIO()
        write_matches_csv(db, out)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = kids.ru_utime + kids.ru_stime + _cluster_cpu(pids) - before
    assert standings.matches_played == spec.total_matches()
    return {"backend": backend, "matches": spec.total_matches(), "seconds": seconds,
            "matches_per_s": spec.total_matches() / seconds, "parent_cpu_s": parent_cpu,
            "workers_cpu_s": workers_cpu, "csv_sha256": hashlib.sha256(out.getvalue().encode()).hexdigest()}


def _start_cluster(workers: int, tmp: str, quiet_workers: bool = False) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes on loopback
    (with ``quiet_workers``, given the README's settings: :data:`~bgfast.procs.QUIET_WORKER_CONFIG`)."""
    dask = str(Path(sys.executable).with_name("dask"))
    file = os.path.join(tmp, "scheduler.json")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                                      os.environ.get("PYTHONPATH")]))}
    if quiet_workers:
        from bgfast.procs import QUIET_WORKER_CONFIG

        env.update({"DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
                    for key, value in QUIET_WORKER_CONFIG.items()})
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", file], **quiet)]  # type: ignore[call-overload]
    while not os.path.exists(file):
        time.sleep(0.1)
    time.sleep(0.5)
    address = json.loads(Path(file).read_text())["address"]
    procs += [subprocess.Popen([dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                                "--host", "127.0.0.1"], **quiet)  # type: ignore[call-overload]
              for _ in range(workers)]
    from distributed import Client

    with Client(address) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def run_child(args: list[str]) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def figures(matches: int, bare: int, workers: int, rounds: int, backends: tuple[str, ...],
            quiet_workers: bool = False) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        address, procs = _start_cluster(workers, tmp, quiet_workers) if "dask-cluster" in backends else (None, [])
        pids = [p.pid for p in procs[1:]]
        try:
            for _ in range(rounds):
                runs.append({"backend": "bare", **run_child(["--bare-child", str(bare)])})
                for backend in backends:
                    runs.append(run_child(["--child", str(matches), "--workers", str(workers), "--backend", backend,
                                           "--address", address or "", "--pids", ",".join(map(str, pids))]))
        finally:
            for p in reversed(procs):
                p.terminate()
            for p in procs:
                p.wait(30)
    hashes = {r["csv_sha256"] for r in runs if "csv_sha256" in r}
    summary: dict[str, Any] = {}
    for backend in ("bare", *backends):
        mine = [r for r in runs if r["backend"] == backend]
        rates = [r["matches_per_s"] for r in mine]
        summary[backend] = {"matches_per_s": statistics.median(rates), "pm": (max(rates) - min(rates)) / 2,
                            "rates": rates}
        if backend != "bare":
            summary[backend]["parent_cpu_s_per_100k"] = statistics.median(
                r["parent_cpu_s"] / r["matches"] * 1e5 for r in mine)
            summary[backend]["workers_cpu_s_per_100k"] = statistics.median(
                r["workers_cpu_s"] / r["matches"] * 1e5 for r in mine)
    pool = summary.get("process", {}).get("matches_per_s")
    for backend in backends:
        s = summary[backend]
        s["over_bare_x_workers"] = s["matches_per_s"] / (workers * summary["bare"]["matches_per_s"])
        if pool:
            s["over_pool"] = s["matches_per_s"] / pool
    return {"workers": workers, "matches": matches, "load_average": os.getloadavg(), "quiet_workers": quiet_workers,
            "identical_results": len(hashes) == 1, "summary": summary, "runs": runs}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--bare", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--quiet-workers", action="store_true",
                        help="start the loopback cluster's workers with the README's quiet settings")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--backend", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--pids", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_child is not None:
        print(json.dumps(run_bare(bench_spec(args.bare_child))))
    elif args.child is not None:
        print(json.dumps(_runner_child(args.child, args.workers, args.backend, args.address or None,
                                       [int(p) for p in args.pids.split(",") if p])))
    else:
        print(json.dumps(figures(args.matches, args.bare, args.workers, args.rounds,
                                 tuple(args.backends.split(",")), args.quiet_workers), indent=2))
