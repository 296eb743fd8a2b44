"""The runner's cost next to the game: the bare MatchPlayer loop on one core against the
tournament runner on 2 workers, measured in the same run, and the parent's peak memory.

Run as a script (it is too long for the pytest-benchmark suite)::

    python benchmarks/bench_runner_overhead.py [--matches 1000000] [--small 10000] [--bare 100000]

It plays, in this order: ``--bare`` matches of the bare loop (one
:class:`~bgfast.game.MatchPlayer` per seating in this process: no pool, no SQLite), the
runner on 2 workers over ``--small`` and over ``--matches`` one-point matches of pubeval
against heuristic (million.toml's setting), each in a fresh child process so that its peak
RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``, the parent of the workers alone) is its
own, and the bare loop again.  It prints JSON: each rate, the runner's rate over twice
the mean bare rate (the issue asks at least 0.95) and the same ratio in CPU seconds a
match (``cpu_ratio``: what a match costs bare over what it costs the workers and the
parent together, which other processes on the machine hardly change), the runner's seconds for ``--matches``,
and the parent's peak RSS at each size and its growth (the issue asks under 20 MiB from
10,000 to 1,000,000 matches).  Between the runner and the second bare run it also plays
the bare loop in ``--workers`` processes at once (``bare_side_by_side_matches_per_s``):
what the machine gives processes that share nothing, the ceiling of any runner, and
``ratio_to_bare_side_by_side``, the runner's rate over it.  The two bare runs bracket the runner so that a change in
the machine's load shows as a difference between them (``bare_spread``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tournament import bench_spec, run_bare  # noqa: E402


def _runner_child(matches: int, workers: int) -> dict[str, Any]:
    """In a child process: play the bench spec with the runner; time and peak RSS (KiB)."""
    from bgfast.tournament import run_tournament

    spec = bench_spec(matches)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        standings = run_tournament(spec, Path(tmp) / "bench.sqlite", workers=workers)
        seconds = time.perf_counter() - start
    assert standings.matches_played == spec.total_matches()
    me, workers_ = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return {"matches": spec.total_matches(), "seconds": seconds, "matches_per_s": spec.total_matches() / seconds,
            "parent_cpu_s": me.ru_utime + me.ru_stime, "workers_cpu_s": workers_.ru_utime + workers_.ru_stime,
            "peak_rss_mib": me.ru_maxrss / 1024}


def run_runner(matches: int, workers: int = 2) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", str(matches), "--workers", str(workers)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def _bare_child(matches: int) -> dict[str, float]:
    """In a child process: the bare loop over ``matches``, its rate."""
    return run_bare(bench_spec(matches))


def run_bare_side_by_side(matches: int, workers: int) -> dict[str, Any]:
    """``workers`` bare loops at once, each in its own process over the same ``matches``:
    the most the machine gives ``workers`` processes that share nothing (the ceiling of
    any runner, which two cores sharing caches and memory keep below ``workers`` times one)."""
    children = [subprocess.Popen([sys.executable, __file__, "--bare-child", str(matches)],
                                 stdout=subprocess.PIPE, text=True) for _ in range(workers)]
    rates = [json.loads(child.communicate()[0])["matches_per_s"] for child in children]
    return {"matches_per_s": sum(rates), "each": rates}


def _bare(matches: int) -> dict[str, float]:
    start = time.process_time()
    out = run_bare(bench_spec(matches))
    out["cpu_s_per_match"] = (time.process_time() - start) / matches
    return out


def figures(matches: int, small: int, bare_matches: int, workers: int = 2) -> dict[str, Any]:
    before = _bare(bare_matches)
    runner_small = run_runner(small, workers)
    runner = run_runner(matches, workers)
    side_by_side = run_bare_side_by_side(bare_matches, workers)
    after = _bare(bare_matches)
    bare_rate = (before["matches_per_s"] + after["matches_per_s"]) / 2
    bare_cpu = (before["cpu_s_per_match"] + after["cpu_s_per_match"]) / 2
    return {
        "workers": workers, "load_average": os.getloadavg(),
        "bare_matches_per_s": [before["matches_per_s"], after["matches_per_s"]],
        "bare_spread": abs(before["matches_per_s"] - after["matches_per_s"]) / bare_rate,
        "runner": runner, "runner_small": runner_small,
        "ratio_to_bare_x_workers": runner["matches_per_s"] / (workers * bare_rate),
        # the machine's own ceiling: the bare loop in `workers` processes at once
        "bare_side_by_side_matches_per_s": side_by_side["matches_per_s"],
        "side_by_side_over_bare_x_workers": side_by_side["matches_per_s"] / (workers * bare_rate),
        "ratio_to_bare_side_by_side": runner["matches_per_s"] / side_by_side["matches_per_s"],
        # CPU seconds a match costs bare over what it costs in the runner (workers and parent):
        # the same ratio where the machine is not shared, and much less load-dependent where it is
        "cpu_ratio": bare_cpu * runner["matches"] / (runner["parent_cpu_s"] + runner["workers_cpu_s"]),
        "peak_rss_growth_mib": runner["peak_rss_mib"] - runner_small["peak_rss_mib"],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1_000_000, help="the runner's large run (default 1,000,000)")
    parser.add_argument("--small", type=int, default=10_000, help="the runner's small run (default 10,000)")
    parser.add_argument("--bare", type=int, default=100_000, help="matches of each bare run (default 100,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bare-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_child is not None:
        print(json.dumps(_bare_child(args.bare_child)))
    elif args.child is not None:
        print(json.dumps(_runner_child(args.child, args.workers)))
    else:
        print(json.dumps(figures(args.matches, args.small, args.bare, args.workers), indent=2))
