"""bgfast's match-play cube math checked against GNU Backgammon 1.07's 0-ply cube decisions.

tests/data/cube_gnubg.jsonl (``python tests/gnubg_vectors.py cube``) holds 1,500 decisions
of the side on roll, in matches to 3, 5, 7 and 11 points at drawn scores and cube states:
gnubg's cubeless probabilities of the position and its cubeful match winning chances of
no double, double/take and double/pass (``cfevaluate`` at 0 ply; the table is
Kazaross-XG2, gnubg's default and bgfast's).  On gnubg's own probabilities, bgfast's
Janowski model for match play gives the same three values to float precision, with the
cube efficiency gnubg's manual documents ("The cube efficiency": 0.68 in contact and
crashed positions; in races linear in the pip count of the side on roll, 0.6 at 40 pips
to 0.7 at 120), except in one state: 2-away against 2-away with the cube centred, where
gnubg values not doubling as a dead cube (its cubeless MWC).
"""
from __future__ import annotations

import pytest
from gnubg_oracle import requires_gnubg
from vectors import read_jsonl

from bgfast import cube
from bgfast.met import MatchEquityTable
from bgfast.position import Position

ROWS = read_jsonl("cube_gnubg.jsonl")
RACE, CRASHED, CONTACT = 8, 9, 10
"""gnubg's position classes (``classifypos``) that the vectors hold."""


def _manual_efficiency(row: dict) -> float:
    if row["class"] == RACE:
        pips = Position(row["position_id"]).pip_count()[1]
        return min(0.7, max(0.6, 0.6 + 0.1 * (pips - 40) / 80))
    return 0.68


def _decide(row: dict, x: float) -> cube.CubeDecision:
    away, opp_away = row["length"] - row["score"][0], row["length"] - row["score"][1]
    return cube.decide(row["probs"], owner=row["owner"], doubler=0, cube=row["cube"], x=x,
                       met=MatchEquityTable.load(), away=away, opp_away=opp_away,
                       post_crawford=away == 1 or opp_away == 1)


def _two_away_each_centred(row: dict) -> bool:
    return row["score"] == [row["length"] - 2] * 2 and row["owner"] == -1


def test_the_vectors_hold_every_kind_of_decision() -> None:
    assert len(ROWS) == 1500
    assert {r["class"] for r in ROWS} == {RACE, CRASHED, CONTACT}
    actions = {r["action"] for r in ROWS}
    assert {"No double, take", "Double, take", "Double, pass", "Too good to double, pass"} <= actions
    assert any(r["cube"] > 1 for r in ROWS) and any(1 in (r["length"] - s for s in r["score"]) for r in ROWS)


def test_no_double_double_take_and_double_pass_are_gnubgs() -> None:
    checked = 0
    for row in ROWS:
        if _two_away_each_centred(row):
            continue
        d = _decide(row, _manual_efficiency(row))
        assert (d.no_double, d.double_take, d.double_pass) == pytest.approx(
            (row["nd"], row["dt"], row["dp"]), abs=1e-6), row
        checked += 1
    assert checked > 1400


def test_at_two_away_each_gnubg_values_no_double_as_a_dead_cube() -> None:
    rows = [r for r in ROWS if _two_away_each_centred(r)]
    assert len(rows) > 20
    for row in rows:
        dead, ours = _decide(row, 0.0), _decide(row, _manual_efficiency(row))
        assert row["nd"] == pytest.approx(dead.no_double, abs=1e-6)
        assert (row["dt"], row["dp"]) == pytest.approx((ours.double_take, ours.double_pass), abs=1e-6)


@requires_gnubg
def test_live_gnubg_agrees_on_other_positions_and_scores() -> None:
    import random

    from gnubg_oracle import run_gnubg

    from bgfast.bots.neural import shipped_weights
    from bgfast.train.config import self_play

    rng = random.Random(77)
    boards = self_play(shipped_weights().model()).positions(77, 1000, 20, 5)
    positions = [p for p in (Position._from_valid_bytes(b.tobytes()) for b in boards) if not p.is_over()]
    items = []
    for _ in range(60):
        length = rng.choice((5, 9))
        score = [rng.randrange(length), rng.randrange(length)]
        value, owner = rng.choice(((1, -1), (2, 0), (4, 0)))
        if length - score[0] > value:
            items.append([rng.choice(positions).id(), *score, length, value, owner, 0])
    for item, answer in zip(items, run_gnubg("cube", items)):
        row = {"position_id": item[0], "score": item[1:3], "length": item[3], "cube": item[4], "owner": item[5],
               **answer}
        if _two_away_each_centred(row) or row["class"] not in (RACE, CRASHED, CONTACT):
            continue
        d = _decide(row, _manual_efficiency(row))
        assert (d.no_double, d.double_take, d.double_pass) == pytest.approx(
            (row["nd"], row["dt"], row["dp"]), abs=1e-6), row
