"""Seconds for 7-point matches, neural 0 ply (cube auto) against itself: match-play checker play by play_mwc."""
import sys, time
import numpy as np
import bgfast
from bgfast.bots import get_bot
from bgfast.game import MatchPlayer, play_matches

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
player = MatchPlayer(get_bot("neural"), get_bot("neural"), length=7)
play_matches([player], 5, np.zeros(20, np.int32), np.arange(20))      # warm up
t = time.perf_counter()
out = play_matches([player], 5, np.zeros(n, np.int32), np.arange(n))
dt = time.perf_counter() - t
print(f"{bgfast.__file__}: {n} matches in {dt:.2f} s, {n / dt:.1f} a second; wins of seat 0: {(out[:, 0] > out[:, 1]).sum()}")
