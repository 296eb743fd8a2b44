"""Measure what an SPRT on luck-adjusted results buys: matches and CPU seconds to a
verdict, raw (no judge) against ``on = "luck_adjusted"`` (judged by the net), over seeds.

    PYTHONPATH=$PWD nice -n 10 python tools/measure_sprt.py --spec tournaments/sprt.toml --seeds 10

Each run plays the spec (its ``seed`` replaced) into a fresh results file with one worker;
CPU seconds are this process's and its children's (``getrusage``).  Prints one line a seed
and the means with their standard errors.
"""
from __future__ import annotations

import argparse
import math
import resource
import statistics
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from bgfast.tournament import TournamentSpec, run_tournament


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _run(data: dict[str, Any]) -> tuple[str, int, float]:
    spec = TournamentSpec.from_dict(data)
    with tempfile.TemporaryDirectory() as tmp:
        start = _cpu()
        standings = run_tournament(spec, Path(tmp) / "r.sqlite", workers=1)
        seconds = _cpu() - start
    assert standings.sprt is not None
    return standings.sprt.status, standings.sprt.matches, seconds


def _mean(values: list[float]) -> str:
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return f"{statistics.fmean(values):.1f} ± {se:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default="tournaments/sprt.toml")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--judge", default="neural", help="the judge's bot (at its defaults)")
    args = parser.parse_args()
    base = tomllib.loads(Path(args.spec).read_text())
    base.pop("judge", None)
    out: dict[str, list[tuple[str, int, float]]] = {"raw": [], "luck_adjusted": []}
    for seed in range(1, args.seeds + 1):
        for on in out:
            data = {**base, "seed": seed, "sprt": {**base["sprt"], "on": on}}
            if on == "luck_adjusted":
                data["judge"] = {"bot": args.judge}
            status, matches, seconds = _run(data)
            out[on].append((status, matches, seconds))
            print(f"seed {seed} {on:13s} {status:8s} {matches:6d} matches {seconds:6.1f} CPU s", flush=True)
    for on, runs in out.items():
        verdicts = {s: sum(r[0] == s for r in runs) for s in ("H0", "H1", "continue")}
        print(f"{on:13s} matches to a verdict {_mean([float(r[1]) for r in runs])}, CPU s "
              f"{_mean([r[2] for r in runs])}, verdicts {verdicts}")


if __name__ == "__main__":
    main()
