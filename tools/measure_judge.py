"""Measure what a tournament judge buys: the raw and luck-adjusted standard errors of
a two-player paired cubeless money run (``jacoby = false``: gammons count), and the CPU time with and without the judge.

    PYTHONPATH=$PWD nice -n 10 python tools/measure_judge.py --games 1000 \
        --player 'bot = "neural"' --player 'bot = "gnubg_nn"' --judge 'bot = "neural"' --filters 0,8

Each run is played into a fresh results file by one worker; CPU seconds are this
process's and its children's (``getrusage``), so other users of the machine do not
count.  Precision per CPU-second is ``1 / (SE^2 * s)``; the ratio compares the judged
run's adjusted SE and time with the unjudged run's raw paired SE and time.
"""
from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from bgfast.tournament import TournamentSpec, run_tournament


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _spec(games: int, seed: int, players: list[str], judge: str | None) -> str:
    text = (f'name = "measure"\nseed = {seed}\nmatch_length = 0\nmatches_per_pairing = {games}\n'
            f"paired_dice = true\nchunk_size = 50\n\n[rules]\njacoby = false\n")
    if judge is not None:
        text += f"\n[judge]\n{judge}\n"
    for i, player in enumerate(players):
        text += f'\n[[players]]\nname = "p{i}"\ncube = "never"\n{player}\n'
    return text


def _run(text: str) -> tuple[float, float, object]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.toml"
        path.write_text(text)
        spec = TournamentSpec.from_toml(path)
        cpu, wall = _cpu(), time.perf_counter()
        standings = run_tournament(spec, Path(tmp) / "r.db", workers=1)
        return _cpu() - cpu, time.perf_counter() - wall, standings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--player", action="append", required=True, help="a player's TOML lines (twice)")
    parser.add_argument("--judge", required=True, help="the judge's TOML lines, without luck_filter")
    parser.add_argument("--filters", default="0,8", help="luck filters to measure, comma-separated")
    parser.add_argument("--no-raw", action="store_true", help="skip the unjudged run")
    args = parser.parse_args()
    raw_se = raw_cpu = None
    if not args.no_raw:
        raw_cpu, wall, standings = _run(_spec(args.games, args.seed, args.player, None))
        pair = standings.pairings[0]  # type: ignore[attr-defined]
        print(f"unjudged: cpu {raw_cpu:.1f} s wall {wall:.1f} s  {pair}")
    for flt in (int(x) for x in args.filters.split(",")):
        judge = f"{args.judge}\nluck_filter = {flt}"
        cpu, wall, standings = _run(_spec(args.games, args.seed, args.player, judge))
        figs = standings.judged_players  # type: ignore[attr-defined]
        f0 = figs["p0"]
        line = (f"luck_filter {flt}: cpu {cpu:.1f} s wall {wall:.1f} s  raw {f0.raw:+.4f} ± {f0.raw_se:.4f}  "
                f"adjusted {f0.adjusted:+.4f} ± {f0.adjusted_se:.4f}  SE ratio {f0.adjusted_se / f0.raw_se:.3f}")
        raw_se = f0.raw_se
        if raw_cpu is not None:
            gain = (1 / (f0.adjusted_se ** 2 * cpu)) / (1 / (raw_se ** 2 * raw_cpu))
            line += f"  precision/CPU-s vs unjudged {gain:.2f}x"
        print(line, flush=True)
        for name, f in figs.items():
            print(f"    {name}: checker error rate {f.checker_error_rate:.2f}/1000 over {f.checker_decisions}"
                  f" decisions, luck/game {f.luck_per_game:+.4f}")


if __name__ == "__main__":
    main()
