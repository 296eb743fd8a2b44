"""The runner's cost next to the game in instructions, which other work on the machine
does not change: what :mod:`bench_runner_overhead` measures in seconds, for a shared machine.

Run as a script (it needs valgrind; it takes a few minutes)::

    python benchmarks/bench_runner_instructions.py [--small 4000] [--large 24000]

It counts the instructions (valgrind's callgrind, ``Ir``) of the bare MatchPlayer loop in
one process and of the tournament runner on 2 workers (the parent and both workers
summed), each over ``--small`` and over ``--large`` one-point matches of pubeval against
heuristic in chunks of 1,000 (what million.toml's million matches are cut into; two chunks
at least, so that both workers play).  The
difference between the two sizes, per match, is what one more match costs: start-up
(imports, forking, building the bots) drops out.  It prints JSON: each count, the
marginal instructions a match of the bare loop and of the runner (``parent``,
``workers``), and ``runner_over_bare``, their ratio (at most 1/0.95 = 1.053 for the
runner to reach 95% of twice the bare loop on 2 idle cores).  Work in the kernel (pipes,
file writes) is not counted, nor are waits and cache effects: the seconds of
:mod:`bench_runner_overhead` on an idle machine remain the figure the issue asks for.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tournament import bench_spec, run_bare  # noqa: E402

CHUNK = 1000


def _play(mode: str, matches: int) -> None:
    """In the process valgrind watches: the bare loop or the runner over ``matches``."""
    spec = dataclasses.replace(bench_spec(matches), chunk_size=CHUNK)
    if mode == "bare":
        run_bare(spec)
        return
    from bgfast.tournament import run_tournament

    with tempfile.TemporaryDirectory() as tmp:
        run_tournament(spec, Path(tmp) / "bench.sqlite", workers=2)


def count(mode: str, matches: int) -> list[int]:
    """Instructions of each process (the first the one started, then its workers by pid)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["valgrind", "--tool=callgrind", "--cache-sim=no", f"--callgrind-out-file={tmp}/out.%p",
                        sys.executable, __file__, "--play", mode, str(matches)],
                       check=True, capture_output=True)
        files = sorted(Path(tmp).glob("out.*"), key=lambda p: int(p.suffix[1:]))
        return [next(int(line.split()[1]) for line in f.read_text().splitlines() if line.startswith("summary:"))
                for f in files]


def figures(small: int, large: int) -> dict[str, Any]:
    counts = {(mode, n): count(mode, n) for mode in ("bare", "runner") for n in (small, large)}
    per_match = large - small
    bare = (sum(counts["bare", large]) - sum(counts["bare", small])) / per_match
    parent = (counts["runner", large][0] - counts["runner", small][0]) / per_match
    workers = (sum(counts["runner", large][1:]) - sum(counts["runner", small][1:])) / per_match
    return {
        "counts": {f"{mode}_{n}": c for (mode, n), c in counts.items()},
        "bare_per_match": bare, "runner_per_match": {"parent": parent, "workers": workers},
        "runner_over_bare": (parent + workers) / bare,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=4000, help="matches of the smaller runs (default 4,000)")
    parser.add_argument("--large", type=int, default=24000, help="matches of the larger runs (default 24,000)")
    parser.add_argument("--play", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        _play(args.play[0], int(args.play[1]))
    elif not 2 * CHUNK <= args.small < args.large:
        parser.error(f"--small must be at least {2 * CHUNK} (two chunks: both workers play) and below --large")
    else:
        print(json.dumps(figures(args.small, args.large), indent=2))
