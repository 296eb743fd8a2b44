"""Paired difference of a player's match wins between two results files played on the same dice (same idx)."""
import math, sqlite3, sys

def wins(path, name):
    c = sqlite3.connect(path)
    pid = c.execute("select player from players where name = ?", (name,)).fetchone()[0]
    rows = c.execute("select idx, dice_index, player0, player1, winner from matches").fetchall()
    return {(idx, d): int((p0 if w == 0 else p1) == pid) for idx, d, p0, p1, w in rows}

a, b = wins(sys.argv[1], sys.argv[3]), wins(sys.argv[2], sys.argv[3])
keys = sorted(set(a) & set(b))
# dice pairs: matches sharing a dice_index are one sample
pairs = {}
for k in keys:
    pairs.setdefault(k[1], []).append(a[k] - b[k])
d = [sum(v) / len(v) for v in pairs.values()]
n = len(d)
mean = sum(d) / n
sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
print(f"{len(keys)} matches, {n} dice pairs: wins {sum(a[k] for k in keys)} vs {sum(b[k] for k in keys)}; "
      f"paired difference {100 * mean:+.2f}% +- {100 * sd / math.sqrt(n):.2f}% of the matches; "
      f"{sum(1 for k in keys if a[k] == b[k]) / len(keys):.1%} end alike")
