"""How far the yardstick's neural-played rollouts are from gnubg-nn-played ones on the
same positions (the first 240 rows, 40 a class): per class, the mean and the mean absolute
difference of the two cubeless equities (×1000) with standard errors, beside the two
rollouts' combined noise.  Run from the repository root:

    PYTHONPATH=$PWD python experiments/yardstick/rollout_shift.py
"""
import numpy as np
from bgfast.yardstick import load
from bgfast.rollout.stats import estimate
n = load("bgfast/data/yardstick/rollouts.csv")[:240]
g = load("experiments/yardstick/rollouts_gnubg_subset.csv")
assert [r.position_id for r in n] == [r.position_id for r in g]
for c in sorted({r.cls for r in n}) + ["all"]:
    idx = [i for i, r in enumerate(n) if c in ("all", r.cls)]
    d = np.array([n[i].equity - g[i].equity for i in idx])
    m, se = estimate(d, 1); ma, mase = estimate(np.abs(d), 1)
    noise = np.sqrt(np.mean([n[i].equity_se**2 + g[i].equity_se**2 for i in idx]))
    print(f"{c:16} n={len(idx):3} mean(neural-gnubg rollout) {1000*m:+6.1f} ± {1000*se:4.1f}  mean|diff| {1000*ma:5.1f} ± {1000*mase:4.1f}  noise rms {1000*noise:5.1f}")
