"""Rollout precision per CPU-second: bgfast's neural rollouts beside the GNU Backgammon program's.

The figure of merit is ``1 / (SE**2 x CPU seconds)`` of the cubeless equity: how much a
second of one core buys.  Variance reduction (the luck adjustment) makes each trial
cost more and count more; this is where the two meet.  The positions (:data:`POSITIONS`)
are the opening and five middle games of the wildbg contact set
(``bgfast/data/wildbg/contact.csv``), chosen to differ: an early middle game, a holding
game, a side on the bar against a blitz, a mutual blitz, a back game.

Each is rolled out cubeless, 1296 trials, seed 1, one process:

* bgfast with the ``neural`` bot (its net also measures the luck): with the luck
  adjustment (``luck``, the default: the first two rolls stratified over the 1296
  pairs and every later roll's luck subtracted), and without it (``no-luck``: the
  stratification only).  With ``--modes`` also ``luck-all`` (the luck valued over every
  play of each roll, the measure before the move filter) and ``luck-plain`` (the luck
  adjustment on plain random dice, whose SE is computed without strata, as gnubg does).
* the GNU Backgammon program (``/usr/games/gnubg``, Debian package ``gnubg``), 0-ply checker
  play, one thread, its quasi-random dice, with (``vr``) and without (``no-vr``) its
  lookahead variance reduction, its bear-off truncation as by default (a cubeless trial
  ends at a position of its bear-off databases; ``--gnubg-no-truncation`` turns it off),
  through ``benchmarks/gnubg_rollout_job.py``, one gnubg process a position, right after
  bgfast's rollouts of it.  Skipped, saying so, where it is not installed.

Seconds are CPU seconds of the process doing the rollout (``time.process_time``; gnubg's
measured inside it, all its threads), after a warm-up (bgfast builds its bear-off database
and loads the net at first use; gnubg loads its at start), so other load on the machine
slows the wall clock but hardly the figures.  Each program's SE is its own: bgfast's is
that of its stratified estimator, gnubg's the plain ``s / sqrt(n)`` of its trials (its
quasi-random dice are a stratification it does not count, so its SE is on the high side;
``luck-plain`` is bgfast's counterpart).

Run ``python benchmarks/bench_rollout_precision.py`` for the table (``--json FILE`` keeps it;
``--trials``, ``--seed``, ``--positions``, ``--modes``, ``--no-gnubg``); ``pytest
benchmarks/bench_rollout_precision.py`` times the opening only.
"""
from __future__ import annotations

import argparse
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from bgfast.rollout import rollout
from bgfast.rollout.engine import LUCK_FILTER

POSITIONS = {
    "opening": "4HPwATDgc/ABMA",
    "early middle game": "hufgwQCwZ+IBJA",
    "holding game": "zN2QBSDgOXiAMQ",
    "on the bar, blitzed": "bBviEiDgc3AAVg",
    "mutual blitz": "bBtiJBiz7QxAQA",
    "back game": "PvcNAACsnQGAOQ",
}
"""The benchmark positions, Position IDs with the side on roll to roll (money, cube centred)."""

MONEY_MATCH_ID = "MAEAAAAAAAAA"
"""gnubg's Match ID of a money game, cube 1 centred, the first player on roll, no dice rolled."""

TRIALS = 1296
SEED = 1
BGFAST_MODES = ("luck", "no-luck")
ALL_BGFAST_MODES = ("luck", "no-luck", "luck-all", "luck-plain")
GNUBG_MODES = ("vr", "no-vr")

GNUBG = shutil.which("gnubg") or next(
    (p for p in ("/usr/games/gnubg", "/usr/bin/gnubg") if os.access(p, os.X_OK)), None)
"""The GNU Backgammon program, or None where it is not installed."""

JOB = Path(__file__).with_name("gnubg_rollout_job.py")


def _row(engine: str, mode: str, name: str, pid: str, trials: int, equity: float, se: float,
         cpu: float, wall: float) -> dict[str, Any]:
    return {"engine": engine, "mode": mode, "position": name, "position_id": pid, "trials": trials,
            "equity": equity, "equity_se": se, "cpu_seconds": cpu, "wall_seconds": wall,
            "trials_per_cpu_s": trials / cpu, "precision_per_cpu_s": 1.0 / (se * se * cpu)}


def bgfast_rollout(name: str, pid: str, mode: str, trials: int = TRIALS, seed: int = SEED) -> dict[str, Any]:
    """One bgfast rollout (``mode`` one of :data:`ALL_BGFAST_MODES`), timed in CPU seconds."""
    import bgfast.rollout.engine as engine

    options: dict[str, Any] = {"luck": mode != "no-luck"}
    if mode == "luck-plain":
        options["variance_reduction"] = False
    saved = engine.LUCK_FILTER
    engine.LUCK_FILTER = 0 if mode == "luck-all" else saved
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        result = rollout(pid, bot="neural", trials=trials, seed=seed, workers=1, progress=False, **options)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        engine.LUCK_FILTER = saved
    return _row("bgfast", mode, name, pid, trials, result.equity.value, result.equity.se, cpu, wall)


def gnubg_rollouts(jobs: list[tuple[str, str, str]], trials: int = TRIALS, seed: int = SEED,
                   truncation: bool = True, timeout: float = 7200.0) -> list[dict[str, Any]]:
    """The GNU Backgammon program's rollouts of ``jobs`` (``(name, position_id, mode)``, mode
    ``vr`` or ``no-vr``), one gnubg process for all.

    :raises RuntimeError: gnubg is not installed, or wrote no answer (its last output is in the message).
    """
    if GNUBG is None:
        raise RuntimeError("the GNU Backgammon program is not installed")
    items = [{"position_id": pid, "match_id": MONEY_MATCH_ID, "trials": trials, "seed": seed,
              "variance_reduction": mode == "vr", "bearoff_truncation": truncation} for _, pid, mode in jobs]
    with tempfile.TemporaryDirectory(prefix="bgfast-gnubg-") as tmp:
        request, answer = Path(tmp, "request.json"), Path(tmp, "answer.json")
        request.write_text(json.dumps({"items": items, "answer": str(answer)}), encoding="utf-8")
        # HOME: gnubg reads and writes its settings in ~/.gnubg; keep the user's out of it
        env = {**os.environ, "BGFAST_GNUBG_REQUEST": str(request), "HOME": tmp}
        master, slave = pty.openpty()    # gnubg prints a rollout's result only to a terminal
        proc = subprocess.Popen([GNUBG, "-t", "-q", "-p", str(JOB)], stdin=subprocess.DEVNULL, stdout=slave,
                                stderr=slave, cwd=tmp, env=env)
        os.close(slave)
        tail = b""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                try:
                    chunk = os.read(master, 65536)
                except OSError:          # EIO: the program closed the terminal (it ended)
                    break
                if not chunk:
                    break
                tail = (tail + chunk)[-4000:]
        finally:
            os.close(master)
            if proc.poll() is None and time.monotonic() >= deadline:
                proc.kill()
            proc.wait()
        if not answer.exists():
            text = tail.decode("utf-8", "replace").replace("\r", "")
            raise RuntimeError(f"gnubg (exit {proc.returncode}) wrote no answer:\n{text[-1500:]}")
        answers = json.loads(answer.read_text(encoding="utf-8"))
    return [_row("gnubg", mode, name, pid, trials, a["equity"], a["equity_se"], a["cpu_seconds"], a["wall_seconds"])
            for (name, pid, mode), a in zip(jobs, answers)]


def _warm_up() -> None:
    """Load the net and build the bear-off database, as gnubg loads its own at start."""
    rollout(POSITIONS["opening"], bot="neural", trials=36, seed=0, workers=1, progress=False)


# ---------------------------------------------------------------- pytest-benchmark


@pytest.mark.parametrize("mode", BGFAST_MODES)
def test_rollout_precision_bgfast_opening(benchmark: Any, mode: str) -> None:
    _warm_up()
    row = benchmark.pedantic(bgfast_rollout, args=("opening", POSITIONS["opening"], mode), rounds=1, iterations=1)
    assert row["equity_se"] > 0
    benchmark.extra_info.update(row)


@pytest.mark.skipif(GNUBG is None, reason="the GNU Backgammon program is not installed (Debian package gnubg)")
@pytest.mark.parametrize("mode", GNUBG_MODES)
def test_rollout_precision_gnubg_opening(benchmark: Any, mode: str) -> None:
    rows = benchmark.pedantic(gnubg_rollouts, args=([("opening", POSITIONS["opening"], mode)],),
                              rounds=1, iterations=1)
    assert rows[0]["equity_se"] > 0
    benchmark.extra_info.update(rows[0])


# ---------------------------------------------------------------- the table


def _table(rows: list[dict[str, Any]]) -> str:
    head = f"{'position':<22} {'engine':<7} {'mode':<11} {'equity':>8} {'SE':>8} {'CPU s':>7} {'trials/s':>9} {'1/(SE²·s)':>10}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['position']:<22} {r['engine']:<7} {r['mode']:<11} {r['equity']:>+8.4f} {r['equity_se']:>8.5f} "
                     f"{r['cpu_seconds']:>7.2f} {r['trials_per_cpu_s']:>9,.0f} {r['precision_per_cpu_s']:>10,.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=TRIALS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--positions", nargs="*", metavar="NAME", choices=list(POSITIONS),
                        default=list(POSITIONS), help="names from POSITIONS (default: all)")
    parser.add_argument("--modes", nargs="*", choices=ALL_BGFAST_MODES, default=list(BGFAST_MODES),
                        help="bgfast's modes (default: luck no-luck)")
    parser.add_argument("--no-gnubg", action="store_true", help="bgfast only")
    parser.add_argument("--gnubg-no-truncation", action="store_true",
                        help="gnubg plays every trial to the end (no bear-off database truncation)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; luck filter {LUCK_FILTER}",
          file=sys.stderr)
    _warm_up()
    use_gnubg = not args.no_gnubg and GNUBG is not None
    if not args.no_gnubg and GNUBG is None:
        print("gnubg: not installed (Debian package gnubg); its rows are skipped", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    for name in args.positions:          # position by position, so both programs see the same load
        done = len(rows)
        for mode in args.modes:
            rows.append(bgfast_rollout(name, POSITIONS[name], mode, args.trials, args.seed))
        if use_gnubg:
            rows += gnubg_rollouts([(name, POSITIONS[name], mode) for mode in GNUBG_MODES], args.trials, args.seed,
                                   truncation=not args.gnubg_no_truncation)
        print("\n".join(_table(rows[done:]).splitlines()[2:]), file=sys.stderr)
    print(_table(rows))
    print(f"load average {os.getloadavg()[0]:.2f} after the runs", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"trials": args.trials, "seed": args.seed, "luck_filter": LUCK_FILTER,
                                               "gnubg_truncation": not args.gnubg_no_truncation, "rows": rows},
                                              indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
