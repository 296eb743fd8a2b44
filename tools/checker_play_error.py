"""Checker-play error of bgfast's bots, judged by GNU Backgammon's net at 2 plies.

Two steps:

    python tools/checker_play_error.py build experiments/checker_play/decisions.csv
    python tools/checker_play_error.py judge experiments/checker_play/decisions.csv \
        --errors experiments/checker_play/errors.csv

``build`` plays cubeless money games (no Jacoby rule) between bgfast's own bots, five
pairings (neural-neural, neural-pubeval, heuristic-heuristic, heuristic-pubeval,
pubeval-pubeval; bgfast's dice streams, seed ``--seed``), and keeps every
``--stride``-th roll whose dice allow two or more distinct plays, until ``--count``
decisions: one row ``position_id,dice,kind,pairing,game,turn`` each (``kind``:
``contact`` when the sides' checkers can still meet, else ``race``; the position has
the side to play on roll).

``judge`` asks each bot for its play and measures its equity loss against the best
play, the judge being gnubg_nn (the ``gnubg-nn`` package: GNU Backgammon's neural
nets) at 2 plies: every play is valued by gnubg at 0 ply, the best 8 within 0.16 of the
best (gnubg's move filter) and every play a judged bot chose are valued at 2 plies
(the opponent on roll; cubeless money equity, ``2 win - 1 + win gammon - lose gammon
+ win backgammon - lose backgammon``, the mover's view), and a bot's error is the best
2-ply equity minus that of its play, in thousandths of a point (millipoints).  The
table gives the mean error per decision, contact and race apart, and the share of
decisions where the bot's play was the judge's best.  gnubg is only the judge here:
no bgfast net is trained on its answers.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bgfast.bots import get_bot
from bgfast.dice import Dice
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position
from bgfast.probabilities import Probabilities
from bgfast.rollout.stats import estimate

PAIRINGS = (("neural", "neural"), ("neural", "pubeval"), ("heuristic", "heuristic"),
            ("heuristic", "pubeval"), ("pubeval", "pubeval"))
"""The games the decisions come from: bgfast's own bots, cubeless."""

JUDGED = ("neural", "neural:ply=1", "gnubg", "heuristic", "pubeval")
"""The bots whose plays are judged (``gnubg`` = gnubg_nn at 0 ply through its adapter)."""

FILTER_MOVES, FILTER_EQUITY, JUDGE_PLIES = 8, 0.16, 2
FIELDS = ("position_id", "dice", "kind", "pairing", "game", "turn")


# ---------------------------------------------------------------- the decisions

def build(count: int, seed: int, stride: int) -> list[dict[str, Any]]:
    """``count`` decisions from the pairings' games, in turn (see the module docstring)."""
    rules = Rules(jacoby=False)
    players = [MatchPlayer(get_bot(a, cube="never"), get_bot(b, cube="never"), rules=rules) for a, b in PAIRINGS]
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    game = 0
    while len(rows) < count:
        for (a, b), player in zip(PAIRINGS, players):
            for turn_no, turn in enumerate(player.history(seed, game).games[0]):
                if turn.action != "move" or turn.dice is None or (turn_no + game) % stride:
                    continue
                pos, dice = turn.position, turn.dice
                key = (pos.id(), f"{dice.high}{dice.low}")
                if key in seen or len(pos.legal_moves(dice.high, dice.low)) < 2:
                    continue
                seen.add(key)
                rows.append({"position_id": key[0], "dice": key[1], "kind": "race" if pos.is_race() else "contact",
                             "pairing": f"{a}-{b}", "game": game, "turn": turn_no})
                if len(rows) == count:
                    return rows
        game += 1
    return rows


def write_decisions(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="ascii") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def read_decisions(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="ascii") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------- the judge

@dataclass
class Judged:
    """One decision: the judge's 2-ply equity of the best play and of each bot's play."""

    row: dict[str, str]
    best: float
    chosen: dict[str, float]
    plays: int


def _after_equity(nn: Any, after: Position, plies: int) -> float:
    """The mover's cubeless equity after its play ``after`` (mover's frame), by gnubg at ``plies``."""
    board = after.swap_sides().to_bytes()                 # the opponent on roll, gnubg's order
    return -Probabilities.of(nn.probabilities([list(board[:25]), list(board[25:])], plies)).equity()


def judge_one(nn: Any, bots: dict[str, Any], row: dict[str, str]) -> Judged:
    pos = Position.from_id(row["position_id"])
    dice = Dice.parse(row["dice"])
    plays = [m.position for m in pos.legal_moves(dice.high, dice.low)]
    chosen = {name: bot.choose_move(pos, dice, MatchState()).position for name, bot in bots.items()}
    zero = sorted(((_after_equity(nn, p, 0), i) for i, p in enumerate(plays)), reverse=True)
    keep = {plays[i] for e, i in zero[:FILTER_MOVES] if e >= zero[0][0] - FILTER_EQUITY} | set(chosen.values())
    deep = {p: _after_equity(nn, p, JUDGE_PLIES) for p in keep}
    return Judged(row, max(deep.values()), {name: deep[p] for name, p in chosen.items()}, len(plays))


def judge(rows: Sequence[dict[str, str]], names: Sequence[str], say: Any = None) -> list[Judged]:
    import gnubg_nn

    gnubg_nn.set.score(0, 0)
    gnubg_nn.set.cube(1)
    bots = {name: get_bot(name, cube="never") for name in names}
    out = []
    start = time.process_time()
    for k, row in enumerate(rows):
        out.append(judge_one(gnubg_nn, bots, row))
        if say and (k + 1) % 250 == 0:
            say(f"{k + 1:,} / {len(rows):,} decisions judged, {time.process_time() - start:,.0f} CPU s")
    return out


def _errors(judged: Sequence[Judged], name: str, kind: str) -> list[float]:
    """``name``'s error (millipoints) on each decision of ``kind`` (contact, race or all)."""
    return [1000 * (j.best - j.chosen[name]) for j in judged if kind in ("all", j.row["kind"])]


def summary(judged: Sequence[Judged], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per bot and kind (contact, race, all): decisions, mean error (millipoints) with its
    standard error, and the share of best plays."""
    out = []
    for name in names:
        for kind in ("contact", "race", "all"):
            errors = _errors(judged, name, kind)
            mean, se = estimate(np.array(errors), 1) if errors else (math.nan, math.nan)
            out.append({"bot": name, "kind": kind, "decisions": len(errors), "error": mean, "se": se,
                        "best_share": sum(e < 1e-9 for e in errors) / len(errors) if errors else math.nan})
    return out


def paired(judged: Sequence[Judged], names: Sequence[str], against: str) -> list[dict[str, Any]]:
    """Per bot but ``against`` and kind: the mean of the bot's error minus ``against``'s on
    the same decisions (millipoints; below 0: the bot loses less), with the standard error
    of that paired difference (smaller than the two errors' own, as the decisions are shared)."""
    out = []
    for name in names:
        if name == against:
            continue
        for kind in ("contact", "race", "all"):
            diffs = [a - b for a, b in zip(_errors(judged, name, kind), _errors(judged, against, kind))]
            mean, se = estimate(np.array(diffs), 1) if diffs else (math.nan, math.nan)
            out.append({"bot": name, "against": against, "kind": kind, "decisions": len(diffs),
                        "difference": mean, "se": se})
    return out


def format_paired(table: Sequence[dict[str, Any]]) -> str:
    width = max([13, *(len(str(r["bot"])) for r in table)]) + 1
    lines = [f"{'bot':<{width}}{'kind':<9}{'decisions':>10}   error minus {table[0]['against']}'s (mp)"]
    for r in table:
        lines.append(f"{r['bot']:<{width}}{r['kind']:<9}{r['decisions']:>10,}{r['difference']:>+9.2f} ± {r['se']:.2f}")
    return "\n".join(lines)


def format_summary(table: Sequence[dict[str, Any]]) -> str:
    width = max([13, *(len(str(r["bot"])) for r in table)]) + 1
    lines = [f"{'bot':<{width}}{'kind':<9}{'decisions':>10}{'error (mp)':>14}{'best play':>11}"]
    for r in table:
        lines.append(f"{r['bot']:<{width}}{r['kind']:<9}{r['decisions']:>10,}{r['error']:>8.2f} ± {r['se']:<4.2f}"
                     f"{100 * r['best_share']:>10.1f}%")
    return "\n".join(lines)


def write_errors(path: Path, judged: Sequence[Judged], names: Sequence[str]) -> None:
    with path.open("w", newline="", encoding="ascii") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["position_id", "dice", "kind", "plays", "best_equity", *names])
        for j in judged:
            writer.writerow([j.row["position_id"], j.row["dice"], j.row["kind"], j.plays, f"{j.best:.6f}",
                             *(f"{1000 * (j.best - j.chosen[n]):.3f}" for n in names)])


def rejudge(rows: Sequence[dict[str, str]], table: Sequence[dict[str, str]], names: Sequence[str]) -> dict[str, list[float]]:
    """Each bot's error (millipoints) on each decision of ``rows``, against the best play of
    a judged table (``--errors`` of ``judge``, the same rows): the bot's play is valued by
    gnubg_nn at 2 plies, and a play better than the table's best scores a negative error
    (the table's best was not the best)."""
    import gnubg_nn

    gnubg_nn.set.score(0, 0)
    bots = {name: get_bot(name, cube="never") for name in names}
    out: dict[str, list[float]] = {name: [] for name in names}
    for row, judged in zip(rows, table):
        if (row["position_id"], row["dice"]) != (judged["position_id"], judged["dice"]):
            raise ValueError(f"the table is not of these decisions: {judged['position_id']} {judged['dice']}")
        pos = Position.from_id(row["position_id"])
        dice = Dice.parse(row["dice"])
        for name, bot in bots.items():
            play = bot.choose_move(pos, dice, MatchState()).position
            out[name].append(1000 * (float(judged["best_equity"]) - _after_equity(gnubg_nn, play, JUDGE_PLIES)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="play the games and write the decision set")
    b.add_argument("out", type=Path)
    b.add_argument("--count", type=int, default=3000)
    b.add_argument("--seed", type=int, default=12)
    b.add_argument("--stride", type=int, default=4)
    j = sub.add_parser("judge", help="judge the bots' plays of a decision set by gnubg_nn at 2 plies")
    j.add_argument("decisions", type=Path)
    j.add_argument("--bots", nargs="+", default=list(JUDGED))
    j.add_argument("--limit", type=int, default=None, help="the first N decisions only")
    j.add_argument("--errors", type=Path, default=None, help="write each decision's errors as CSV")
    j.add_argument("--against", default="gnubg",
                   help="with this bot judged too, each other bot's error minus its own, decision by "
                        "decision, with the paired standard error (default gnubg)")
    r = sub.add_parser("rejudge", help="judge more bots against a judged table (errors.csv), paired with a "
                       "bot of the table (--baseline)")
    r.add_argument("decisions", type=Path)
    r.add_argument("errors", type=Path)
    r.add_argument("--bots", nargs="+", required=True)
    r.add_argument("--baseline", default="neural", help="a bot column of the table (default neural: the net "
                   "shipped when the table was judged)")
    r.add_argument("--pairings", default="heuristic-heuristic,heuristic-pubeval,pubeval-pubeval",
                   help="the games the decisions may come from (default: those without the net)")
    args = ap.parse_args(argv)
    if args.command == "rejudge":
        keep = set(args.pairings.split(","))
        with args.errors.open(encoding="ascii") as f:
            table = list(csv.DictReader(f))
        pairs = [(d, t) for d, t in zip(read_decisions(args.decisions), table) if d["pairing"] in keep]
        errors = rejudge([d for d, _ in pairs], [t for _, t in pairs], args.bots)
        base = np.array([float(t[args.baseline]) for _, t in pairs])
        print(f"{len(pairs):,} decisions ({args.pairings}); {args.baseline} (the table's): "
              f"{base.mean():.2f} +- {base.std(ddof=1) / math.sqrt(len(base)):.2f} mp")
        for name, errs in errors.items():
            e = np.array(errs)
            d = e - base
            print(f"{name}: {e.mean():.2f} +- {e.std(ddof=1) / math.sqrt(len(e)):.2f} mp a decision; minus "
                  f"{args.baseline}'s {d.mean():+.2f} +- {d.std(ddof=1) / math.sqrt(len(d)):.2f}")
        return 0
    if args.command == "build":
        rows = build(args.count, args.seed, args.stride)
        write_decisions(args.out, rows)
        kinds = {k: sum(r["kind"] == k for r in rows) for k in ("contact", "race")}
        print(f"{len(rows):,} decisions ({kinds['contact']:,} contact, {kinds['race']:,} race) to {args.out}")
        return 0
    rows = read_decisions(args.decisions)[: args.limit]
    start = time.process_time()
    judged = judge(rows, args.bots, say=lambda line: print(line, file=sys.stderr, flush=True))
    print(format_summary(summary(judged, args.bots)))
    print(f"({len(judged):,} decisions judged by gnubg_nn at {JUDGE_PLIES} plies in "
          f"{time.process_time() - start:,.0f} CPU s)")
    if args.against in args.bots and len(args.bots) > 1:
        print()
        print(format_paired(paired(judged, args.bots, args.against)))
    if args.errors:
        write_errors(args.errors, judged, args.bots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
