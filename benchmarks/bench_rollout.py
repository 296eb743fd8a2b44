"""Rollout speed: trials/s with pubeval on the opening position, 1 and 2 workers, beside gnubg_nn.

Run with ``pytest benchmarks/bench_rollout.py`` (add ``--benchmark-json=out.json`` to keep
the figures), or ``python benchmarks/bench_rollout.py`` for a one-screen summary with the
1 -> 2 worker scaling and the peers.  Each round is one whole rollout of the opening
position, cubeless, seed 1: ``extra_info["trials"] / mean`` is trials/s.  Before timing,
the 1- and 2-worker rollouts must give identical results (they play the same trials).

The peers use other evaluators, so their figures are not like for like:

* ``gnubg_nn.rollout(id, ngames, 0)``: GNU Backgammon's own 0-ply rollout (its neural
  net plays both sides, far stronger and slower than pubeval).  It runs in a subprocess
  and its answer is checked for sanity first: in gnubg-nn 1.1.0a11 its argument parsing
  is broken (ngames arrives as garbage, ``level`` crashes, the opening comes back with
  P(win) 0.8-1.0 after ~0.1 s), in which case the figure is reported as unusable.
* bgfast's rollout with the ``gnubg`` bot: the same engine, gnubg_nn's 0-ply checker play
  called back from the C loop (the Python path), when the gnubg adapter is installed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from bgfast import STARTING
from bgfast.rollout import rollout

TRIALS = 1296 * 16
SEED = 1

_GNUBG_SCRIPT = """
import json, sys, time
import gnubg_nn
start = time.perf_counter()
result = gnubg_nn.rollout(sys.argv[1], int(sys.argv[2]), 0)
print(json.dumps({"seconds": time.perf_counter() - start, "result": result}))
"""


def _pubeval(workers: int, trials: int = TRIALS) -> Any:
    return rollout(STARTING, bot="pubeval", trials=trials, seed=SEED, workers=workers)


def gnubg_nn_rollout(games: int = 1296) -> dict[str, Any]:
    """Time ``gnubg_nn.rollout(opening, games, 0)`` in a subprocess; ``usable`` says if the answer is sane."""
    try:
        proc = subprocess.run([sys.executable, "-c", _GNUBG_SCRIPT, STARTING.id(), str(games)],
                              check=False, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return {"usable": False, "why": "timed out"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return {"usable": False, "why": last}
    out = json.loads(proc.stdout)
    probs = out["result"][0] if isinstance(out["result"][0], list) else out["result"]
    usable = 0.4 < probs[0] < 0.65 and probs[1] < probs[0]   # the opening: near 50%, gammons < wins
    return {"usable": usable, "seconds": out["seconds"], "probabilities": probs,
            "trials_per_s": games / out["seconds"],
            "why": "" if usable else f"P(win) {probs[0]:.3f}, P(win gammon) {probs[1]:.3f} for the opening: broken"}


def test_rollout_pubeval_opening_1_worker(benchmark: Any) -> None:
    assert _pubeval(1, 648).to_dict() | {"seconds": 0} == _pubeval(2, 648).to_dict() | {"seconds": 0}
    benchmark.extra_info.update(trials=TRIALS, workers=1)
    benchmark.pedantic(_pubeval, args=(1,), rounds=3, iterations=1)


def test_rollout_pubeval_opening_2_workers(benchmark: Any) -> None:
    assert _pubeval(1, 648).to_dict() | {"seconds": 0} == _pubeval(2, 648).to_dict() | {"seconds": 0}
    benchmark.extra_info.update(trials=TRIALS, workers=2)
    benchmark.pedantic(_pubeval, args=(2,), rounds=3, iterations=1)


def test_rollout_gnubg_nn_rollout_0_ply_opening(benchmark: Any) -> None:
    pytest.importorskip("gnubg_nn")
    probe = gnubg_nn_rollout(36)
    if not probe["usable"]:
        pytest.skip(f"gnubg_nn.rollout is unusable here: {probe['why']}")
    benchmark.extra_info.update(trials=1296)
    benchmark.pedantic(gnubg_nn_rollout, args=(1296,), rounds=1, iterations=1)


def test_rollout_gnubg_bot_0_ply_opening(benchmark: Any) -> None:
    pytest.importorskip("gnubg_nn")
    from bgfast.bots import get_bot

    try:
        bot = get_bot("gnubg", ply=0, cube="never")
    except Exception as exc:  # noqa: BLE001 - the optional adapter is missing or incomplete
        pytest.skip(f"no gnubg bot: {exc}")
    benchmark.extra_info.update(trials=72)
    benchmark.pedantic(lambda: rollout(STARTING, bot=bot, trials=72, seed=SEED), rounds=1, iterations=1)


def main() -> None:
    """Print trials/s for 1 and 2 workers (best of three), the scaling, and the peers' figures."""
    _pubeval(1, 72)                      # warm up: imports, caches
    rates = {1: 0.0, 2: 0.0}
    for _ in range(3):                   # best of three, alternating: other load only slows a run down
        for workers in (1, 2):
            start = time.perf_counter()
            _pubeval(workers)
            rates[workers] = max(rates[workers], TRIALS / (time.perf_counter() - start))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"bgfast rollout, pubeval, opening, {TRIALS} trials: 1 worker {rates[1]:,.0f} trials/s, "
          f"2 workers {rates[2]:,.0f} trials/s, scaling {rates[2] / rates[1]:.2f}x")
    peer = gnubg_nn_rollout(1296)
    if peer["usable"]:
        print(f"gnubg_nn.rollout, 0 ply (gnubg's net, another evaluator): {peer['trials_per_s']:,.0f} trials/s")
    else:
        print(f"gnubg_nn.rollout, 0 ply: unusable ({peer['why']}); "
              f"{peer.get('trials_per_s', float('nan')):,.0f} 'trials'/s as returned")
    try:
        from bgfast.bots import get_bot

        bot = get_bot("gnubg", ply=0, cube="never")
        start = time.perf_counter()
        rollout(STARTING, bot=bot, trials=72, seed=SEED)
        print(f"bgfast rollout, gnubg bot at 0 ply (gnubg_nn's net, another evaluator): "
              f"{72 / (time.perf_counter() - start):,.0f} trials/s")
    except Exception as exc:  # noqa: BLE001 - optional peer
        print(f"bgfast rollout with the gnubg bot: not available ({exc})")


if __name__ == "__main__":
    main()
