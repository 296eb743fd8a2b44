"""How often bgfast's cube action agrees with GNU Backgammon's at 2 plies (issue 30).

Two steps:

    python tools/cube_agreement.py build experiments/cube_agreement/decisions.csv
    python tools/cube_agreement.py judge experiments/cube_agreement/decisions.csv \
        --results experiments/cube_agreement/results.csv

``build`` plays games between bgfast's non-neural bots and GNU Backgammon's net (the
``gnubg-nn`` package at 0 ply, through bgfast's ``gnubg`` bot), each bot with its own
cube policy, in four pairings (heuristic-pubeval, pubeval-gnubg, heuristic-gnubg,
heuristic-heuristic), as money games (Jacoby rule, no beavers) and 7-point matches
(bgfast's dice streams, seed ``--seed``).  It keeps the positions before a roll where
the side on roll may double (:meth:`MatchState.can_double`: not the Crawford game, the
cube centred or its own, not dead) and the decision is not trivial: the side on roll's
cubeless win chance by gnubg-nn at 0 ply between 55% and 95%.  ``--per-game`` such
positions of each game (of each game of a match) are drawn at random (seeded), until each
pairing has ``--count`` / 8 money and as many match decisions.  One row
``position_id,match_id,kind,score,pairing,game`` each: ``PositionID:MatchID`` is the
decision (the side on roll on roll, not yet rolled), ``kind`` its class
(:func:`bgfast.position_class.classify`), ``score`` ``money`` or ``7pt A-B away`` (the
side on roll's away first, a cube ``xN`` and ``own`` when the side owns it).

``judge`` asks the oracle, the GNU Backgammon program (``/usr/games/gnubg -t``, through
``tests/gnubg_jobs.py``'s ``cube`` job at 2 plies: ``cfevaluate``, cubeful,
deterministic; money equities per cube, match equities as match winning chances), and
bgfast (``bgfast.analysis.analyse_cube``, the neural judge, at 0, 1 and 2 plies) for no
double (ND), double/take (DT) and double/pass (DP) of the side on roll, and splits each
decision in two:

* the doubler's decision: double when min(DT, DP) >= ND (gnubg's rule; an optional
  double counts as a double), clear when |ND - min(DT, DP)| > the margin;
* the taker's decision: take when DT <= DP (a beaver is a take), clear when
  |DT - DP| > the margin.

The *proper action* agrees when both parts agree (the same double / no double and the
same take / pass in gnubg's words: "Too good to double, pass" is no double and pass), and
is clear when both parts are clear.  The margin is 0.01 match winning chance in match
play (issue 30's); in money play ``--money-margin`` equity per cube (default 0.02, the
common stand-in; 0.01 MWC is worth about 0.16 cubeful equity at 7-away 7-away, where a
one-point game swings the match winning chance by 0.125, so ``--money-margin 0.16`` is
the literal conversion).  The table gives the agreement at each ply with its binomial
standard error, by money / match, by the decision's part and by the position's kind.
"""
from __future__ import annotations

import argparse
import csv
import math
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position
from bgfast.position_class import classify

PAIRINGS = (("heuristic", "pubeval"), ("pubeval", "gnubg"), ("heuristic", "gnubg"), ("heuristic", "heuristic"))
"""The games the decisions come from: no neural bot of bgfast's plays (``gnubg`` = gnubg-nn at 0 ply)."""

LENGTHS = (0, 7)
"""Money games and 7-point matches."""

WIN_LOW, WIN_HIGH = 0.55, 0.95
"""A decision is kept when the side on roll's cubeless win chance (gnubg-nn, 0 ply) is in this range."""

ORACLE_PLIES = 2
PLIES = (0, 1, 2)
MATCH_MARGIN = 0.01
FIELDS = ("position_id", "match_id", "kind", "score", "pairing", "game")
"""``game``: the match (or money game) index and the game number in it."""


# ---------------------------------------------------------------- the decisions

def _score_label(match: MatchState) -> str:
    if match.is_money:
        return "money"
    me = match.player_on_roll
    cube = f" x{match.cube_value}" + (" own" if match.cube_owner == me else "") if match.cube_value > 1 else ""
    return f"{match.length}pt {match.away(me)}-{match.away(1 - me)} away{cube}"


def _decisions_of_game(history: Any, length: int, rules: Rules) -> list[list[tuple[Position, MatchState]]]:
    """Per game of the match, every position before a roll where the side on roll may double,
    with its match state."""
    out = []
    for g, (game, turns) in enumerate(zip(history.record.games, history.games)):
        score = history.record.games[g - 1].score_after if g else (0, 0)
        value, owner = 1, -1
        found = []
        for turn in turns:
            if turn.action == "take":
                value, owner = turn.cube, turn.player
            if turn.action not in ("move", "double"):      # a doubler's move after a take: it owns no cube
                continue
            match = MatchState(length=length, score=score if length else (0, 0), cube_value=value, cube_owner=owner,
                               crawford=game.crawford, player_on_roll=turn.player, turn=turn.player,
                               jacoby=rules.jacoby if not length else False)
            if match.can_double(turn.player, rules):
                found.append((turn.position, match))
        out.append(found)
    return out


def build(count: int, seed: int, per_game: int, say: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """``count`` decisions, ``count / 8`` from each pairing and length (see the module docstring)."""
    import gnubg_nn

    rules = Rules()
    quota = count // (len(PAIRINGS) * len(LENGTHS))
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for a, b in PAIRINGS:
        for length in LENGTHS:
            player = MatchPlayer(get_bot(a), get_bot(b), length=length, rules=rules)
            got, index = 0, 0
            while got < quota:
                for number, found in enumerate(_decisions_of_game(player.history(seed, index), length, rules)):
                    keep = [(p, m) for p, m in found
                            if WIN_LOW <= gnubg_nn.probabilities(p.board, 0)[0] <= WIN_HIGH
                            and f"{p.id()}:{m.match_id()}" not in seen]
                    rng = random.Random(f"{seed} {a}-{b} {length} {index} {number}")
                    for pos, match in rng.sample(keep, min(per_game, len(keep), quota - got)):
                        seen.add(f"{pos.id()}:{match.match_id()}")
                        rows.append({"position_id": pos.id(), "match_id": match.match_id(),
                                     "kind": classify(pos).value, "score": _score_label(match),
                                     "pairing": f"{a}-{b}", "game": f"{index}.{number + 1}"})
                        got += 1
                index += 1
            if say:
                say(f"{a}-{b} {'money' if not length else f'{length}pt'}: {got} decisions from {index} "
                    f"{'games' if not length else 'matches'}")
    return rows


def write_csv(path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="ascii") as f:
        writer = csv.DictWriter(f, fieldnames=list(fields), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="ascii") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- the judges

def _gnubg_item(row: dict[str, str]) -> list[Any]:
    """The ``cube`` job's item: the side on roll's score first, the owner from its view."""
    match = MatchState.from_match_id(row["match_id"])
    me = match.player_on_roll
    owner = -1 if match.cube_owner < 0 else (0 if match.cube_owner == me else 1)
    return [row["position_id"], match.score[me], match.score[1 - me], match.length, match.cube_value, owner,
            int(match.crawford), ORACLE_PLIES]


def gnubg_judge(rows: Sequence[dict[str, str]], chunk: int = 250, say: Callable[[str], None] | None = None
                ) -> list[dict[str, Any]]:
    """GNU Backgammon's ``(probs, nd, dt, dp, action)`` at 2 plies for each decision."""
    tests = Path(__file__).resolve().parent.parent / "tests"
    sys.path.insert(0, str(tests))
    from gnubg_oracle import run_gnubg  # type: ignore[import-not-found]

    out: list[dict[str, Any]] = []
    for start in range(0, len(rows), chunk):
        out += run_gnubg("cube", [_gnubg_item(r) for r in rows[start:start + chunk]])
        if say:
            say(f"gnubg: {len(out):,} / {len(rows):,}")
    return out


def bgfast_judge(row: dict[str, str], ply: int, bot: str = "neural") -> tuple[float, float, float, str]:
    """bgfast's ``(nd, dt, dp, action)`` at ``ply`` by the judge ``bot`` (a bot spec): money
    equity per cube, or match winning chances."""
    from bgfast.analysis import analyse_cube

    a = analyse_cube(f"{row['position_id']}:{row['match_id']}", bot, ply=ply, rules=Rules())
    if a.mwc is not None:
        nd, dt, dp = a.mwc
    else:
        nd, dt, dp = a.no_double, a.double_take, a.double_pass
    assert dt is not None and dp is not None, row
    return nd, dt, dp, a.action.value


def judge(rows: Sequence[dict[str, str]], say: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """One results row per decision: gnubg's three values and action, and bgfast's at each ply."""
    oracle = gnubg_judge(rows, say=say)
    from bgfast.bots.gnubg import GnubgBot

    nn = GnubgBot(ply=ORACLE_PLIES)
    out = []
    start = time.process_time()
    for k, (row, g) in enumerate(zip(rows, oracle)):
        res: dict[str, Any] = {f: row[f] for f in FIELDS if f != "game"}
        res.update(gnubg_win=round(g["probs"][0], 5), gnubg_nd=round(g["nd"], 5), gnubg_dt=round(g["dt"], 5),
                   gnubg_dp=round(g["dp"], 5), gnubg_action=g["action"])
        match = MatchState.from_match_id(row["match_id"])
        if not match.is_money:                           # gnubg-nn has no money cube decisions
            values = nn._decision(Position.from_id(row["position_id"]), match, match.player_on_roll)
            res.update(zip(("nn_nd", "nn_dt", "nn_dp"), (round(v, 5) for v in values)))
        for ply in PLIES:
            nd, dt, dp, action = bgfast_judge(row, ply)
            res.update({f"b{ply}_nd": round(nd, 5), f"b{ply}_dt": round(dt, 5), f"b{ply}_dp": round(dp, 5),
                        f"b{ply}_action": action})
        out.append(res)
        if say and (k + 1) % 250 == 0:
            say(f"bgfast: {k + 1:,} / {len(rows):,}, {time.process_time() - start:,.0f} CPU s")
    return out


def rejudge(results: Sequence[dict[str, str]], bot: str) -> list[dict[str, Any]]:
    """The results rows with bgfast's columns judged again by ``bot`` (a bot spec, such as
    ``neural:weights=FILE``), the oracle's columns as they were (no gnubg run)."""
    out = []
    for r in results:
        res: dict[str, Any] = dict(r)
        for ply in PLIES:
            nd, dt, dp, action = bgfast_judge(r, ply, bot)
            res.update({f"b{ply}_nd": round(nd, 5), f"b{ply}_dt": round(dt, 5), f"b{ply}_dp": round(dp, 5),
                        f"b{ply}_action": action})
        out.append(res)
    return out


RESULT_FIELDS = (*FIELDS[:-1], "gnubg_win", "gnubg_nd", "gnubg_dt", "gnubg_dp", "gnubg_action", "nn_nd", "nn_dt", "nn_dp",
                 *(f"b{p}_{x}" for p in PLIES for x in ("nd", "dt", "dp", "action")))


# ---------------------------------------------------------------- agreement

def parts(nd: float, dt: float, dp: float) -> tuple[bool, bool, float, float]:
    """``(doubles, takes, double margin, take margin)`` from the doubler's three values."""
    return min(dt, dp) >= nd, dt <= dp, abs(nd - min(dt, dp)), abs(dt - dp)


def words(action: str) -> tuple[bool, bool]:
    """``(doubles, takes)`` in gnubg's words: an optional double doubles, a beaver takes."""
    doubles = action.startswith(("Double", "Redouble", "Optional"))
    return doubles, not action.endswith("pass")


def decisions(results: Sequence[dict[str, str]], money_margin: float, oracle: str = "gnubg") -> list[dict[str, Any]]:
    """Per result row: which parts are clear and, per ply, which agree with the oracle: ``gnubg``
    (the program; its words) or ``nn`` (gnubg-nn, match play only; double and take from its values)."""
    out = []
    for r in results:
        if not r.get(f"{oracle}_nd"):
            continue
        margin = money_margin if r["score"] == "money" else MATCH_MARGIN
        g_double, g_take, dmargin, tmargin = parts(*(float(r[f"{oracle}_{x}"]) for x in ("nd", "dt", "dp")))
        if oracle == "gnubg":
            g_double, g_take = words(r["gnubg_action"])
        d = {"row": r, "double_clear": dmargin > margin, "take_clear": tmargin > margin}
        for ply in PLIES:
            b_double, b_take = words(r[f"b{ply}_action"])
            d[f"double{ply}"], d[f"take{ply}"] = b_double == g_double, b_take == g_take
        out.append(d)
    return out


def _rate(hits: Sequence[bool]) -> tuple[float, float]:
    n = len(hits)
    if not n:
        return math.nan, math.nan
    p = sum(hits) / n
    return p, math.sqrt(p * (1 - p) / n)


def _select(ds: Sequence[dict[str, Any]], part: str, ply: int, where: Callable[[dict[str, str]], bool]
            ) -> list[bool]:
    if part == "action":
        return [d[f"double{ply}"] and d[f"take{ply}"] for d in ds
                if d["double_clear"] and d["take_clear"] and where(d["row"])]
    return [d[f"{part}{ply}"] for d in ds if d[f"{part}_clear"] and where(d["row"])]


def summary(ds: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Agreement per part (action, double, take), group (all, money, match, each kind) and ply."""
    groups: list[tuple[str, Callable[[dict[str, str]], bool]]] = [
        ("all", lambda r: True), ("money", lambda r: r["score"] == "money"),
        ("match", lambda r: r["score"] != "money")]
    def of_kind(kind: str) -> Callable[[dict[str, str]], bool]:
        return lambda r: r["kind"] == kind

    groups += [(kind, of_kind(kind)) for kind in sorted({d["row"]["kind"] for d in ds})]
    out = []
    for part in ("action", "double", "take"):
        for name, where in groups:
            row: dict[str, Any] = {"part": part, "group": name}
            for ply in PLIES:
                hits = _select(ds, part, ply, where)
                row["n"] = len(hits)
                row[f"p{ply}"], row[f"se{ply}"] = _rate(hits)
            out.append(row)
    return out


def format_summary(table: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'part':<8}{'group':<18}{'n':>6}" + "".join(f"{f'{p} ply':>16}" for p in PLIES)]
    for r in table:
        if not r["n"]:
            continue
        cells = "".join(f"{100 * r[f'p{p}']:>9.1f} ± {100 * r[f'se{p}']:<4.1f}" for p in PLIES)
        lines.append(f"{r['part']:<8}{r['group']:<18}{r['n']:>6,}{cells}")
    return "\n".join(lines)


def disagreements(ds: Sequence[dict[str, Any]], ply: int, top: int) -> list[str]:
    """The clearest decisions (largest gnubg margin) on which bgfast at ``ply`` disagrees."""
    bad = []
    for d in ds:
        r = d["row"]
        _d, _t, dm, tm = parts(float(r["gnubg_nd"]), float(r["gnubg_dt"]), float(r["gnubg_dp"]))
        wrong = [m for part, m, clear in (("double", dm, d["double_clear"]), ("take", tm, d["take_clear"]))
                 if clear and not d[f"{part}{ply}"]]
        if wrong:
            bad.append((max(wrong), r))
    bad.sort(key=lambda x: -x[0])
    return [f"{r['position_id']}:{r['match_id']} {r['score']:<22} {r['kind']:<16} gnubg {r['gnubg_action']!r} "
            f"(ND {float(r['gnubg_nd']):+.3f} DT {float(r['gnubg_dt']):+.3f}) bgfast {r[f'b{ply}_action']!r} "
            f"(ND {float(r[f'b{ply}_nd']):+.3f} DT {float(r[f'b{ply}_dt']):+.3f})" for _m, r in bad[:top]]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="play the games and write the decision set")
    b.add_argument("out", type=Path)
    b.add_argument("--count", type=int, default=2400)
    b.add_argument("--seed", type=int, default=30)
    b.add_argument("--per-game", type=int, default=2)
    j = sub.add_parser("judge", help="judge each decision by gnubg at 2 plies and by bgfast at 0, 1 and 2")
    j.add_argument("decisions", type=Path)
    j.add_argument("--results", type=Path, required=True, help="the results CSV (written, or read with --reuse)")
    j.add_argument("--reuse", action="store_true", help="read --results instead of judging again")
    j.add_argument("--limit", type=int, default=None, help="the first N decisions only")
    j.add_argument("--money-margin", type=float, default=0.02,
                   help="a money decision is clear beyond this equity per cube (default 0.02)")
    j.add_argument("--show", type=int, default=8, help="the clearest disagreements at 2 ply to list")
    j.add_argument("--bot", default=None,
                   help="with --reuse: judge bgfast's side again by this bot spec (e.g. neural:weights=FILE), "
                        "the oracle's values as they are in --results; --rejudged FILE keeps the new rows")
    j.add_argument("--rejudged", type=Path, default=None, help="where --bot's results go (CSV)")
    args = ap.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.command == "build":
        rows = build(args.count, args.seed, args.per_game, say=say)
        write_csv(args.out, rows, FIELDS)
        print(f"{len(rows):,} decisions to {args.out}")
        return 0
    if args.reuse:
        results = read_csv(args.results)[: args.limit]
        if args.bot:
            results = rejudge(results, args.bot)
            if args.rejudged:
                write_csv(args.rejudged, results, RESULT_FIELDS)
    else:
        start = time.time()
        results = judge(read_csv(args.decisions)[: args.limit], say=say)
        write_csv(args.results, results, RESULT_FIELDS)
        say(f"judged {len(results):,} decisions in {time.time() - start:,.0f} s")
    ds = decisions(results, args.money_margin)
    print(f"agreement with gnubg {ORACLE_PLIES}-ply on clear decisions (margin {MATCH_MARGIN} MWC in match "
          f"play, {args.money_margin} per cube in money play), % ± binomial SE")
    print(format_summary(summary(ds)))
    nn = decisions(results, args.money_margin, "nn")
    if nn:
        print(f"\nmatch play, oracle gnubg-nn {ORACLE_PLIES}-ply (its own match equity table)")
        print(format_summary([r for r in summary(nn) if r["group"] == "match"]))
    if args.show:
        print("\nclearest disagreements at 2 ply:")
        print("\n".join(disagreements(ds, 2, args.show)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.TimeoutExpired as exc:
        sys.exit(f"gnubg timed out: {exc}")
