"""The chunks' sums that standings add up (bgfast.tournament.totals), against SQL over the
match rows themselves: the oracle is the straightforward GROUP BY a reader would write."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast.errors import InvalidSpecError
from bgfast.tournament import run_tournament
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.standings import load_standings
from bgfast.tournament.store import Store
from bgfast.tournament.totals import TOTALS_COLUMNS, TOTALS_DTYPE, chunk_totals

SEATS_SQL = (
    "SELECT player0, player1, COUNT(*), SUM(winner = 0), SUM(games), SUM(score0 - score1), "
    "SUM((score0 - score1) * (score0 - score1)), SUM(games * games), SUM((score0 - score1) * games), "
    "SUM(gammons0), SUM(gammons1), SUM(backgammons0), SUM(backgammons1), SUM(doubles) "
    "FROM matches GROUP BY player0, player1 ORDER BY player0, player1")
NET = "CASE WHEN player0 < player1 THEN score0 - score1 ELSE score1 - score0 END"
UNITS_SQL = (
    "SELECT pa, pb, m, y, COUNT(*), SUM(x), SUM(g), SUM(x * x), SUM(g * g), SUM(x * g), "
    "SUM(q), SUM(q * q), SUM(q * g) FROM ("
    "SELECT MIN(player0, player1) AS pa, MAX(player0, player1) AS pb, COUNT(*) AS m, "
    "SUM((winner = 0) = (player0 < player1)) AS y, "
    f"SUM({NET}) AS x, SUM(games) AS g, "
    f"SUM(CASE WHEN length = 0 THEN (MAX(-3, MIN(3, {NET})) + 3) / 6.0 ELSE 0.0 END) AS q "
    "FROM matches GROUP BY run, dice_index) GROUP BY pa, pb, m, y ORDER BY pa, pb, m, y")


def oracle(conn: sqlite3.Connection) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    return [tuple(r) for r in conn.execute(SEATS_SQL)], [tuple(r) for r in conn.execute(UNITS_SQL)]


def close(a: list[tuple[object, ...]], b: list[tuple[object, ...]]) -> bool:
    return len(a) == len(b) and all(x[:10] == y[:10] and np.allclose(x[10:], y[10:], rtol=1e-12, atol=1e-9)
                                    for x, y in zip(a, b))


@st.composite
def chunks(draw: st.DrawFn) -> np.ndarray:
    """Rows of one chunk: dice pairs (or single matches) of a few players, random results."""
    paired = draw(st.booleans())
    units = draw(st.integers(1, 40))
    ids = draw(st.lists(st.integers(1, 6), min_size=2, max_size=4, unique=True))
    rows = []
    for unit in range(units):
        a, b = draw(st.sampled_from([(x, y) for x in ids for y in ids if x != y]))
        length = draw(st.sampled_from([0, 1, 3]))
        for seat0, seat1 in ([(a, b), (b, a)] if paired else [(a, b)]):
            winner = draw(st.integers(0, 1))
            points = draw(st.integers(1, 8))
            score = (points, 0) if winner == 0 else (0, points)
            games = draw(st.integers(1, 5))
            rows.append([seat0, seat1, unit, length, *score, winner, games,
                         *draw(st.lists(st.integers(0, 3), min_size=5, max_size=5))])
    return np.array([tuple(row) for row in rows], dtype=TOTALS_DTYPE)


@settings(max_examples=150, deadline=None)
@given(chunks())
def test_a_chunks_sums_are_those_of_sql_over_its_rows(rows: np.ndarray) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE matches (run, {', '.join(TOTALS_COLUMNS)})")
    conn.executemany(f"INSERT INTO matches VALUES (1{', ?' * len(TOTALS_COLUMNS)})", rows.tolist())
    assert rows.dtype.names == TOTALS_COLUMNS
    seats, units = chunk_totals(rows)
    want_seats, want_units = oracle(conn)
    assert [tuple(s) for s in seats] == want_seats
    assert close([tuple(u) for u in units], want_units)


def spec(name: str, seed: int, length: int, paired: bool = True) -> TournamentSpec:
    return TournamentSpec.from_dict({
        "name": name, "match_length": length, "matches_per_pairing": 24, "chunk_size": 6, "seed": seed,
        "paired_dice": paired, "format": "round-robin",
        "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"},
                    {"name": "heuristic", "bot": "heuristic"}]})


def test_a_files_sums_are_those_of_sql_over_its_matches_across_appended_runs(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(spec("money", 1, 0), db, workers=2)
    run_tournament(spec("matches", 2, 3), db, workers=1, append=True)
    with pytest.raises(InvalidSpecError, match="paired_dice: run 'money'.* has paired_dice = true"):
        run_tournament(spec("unpaired", 3, 3, paired=False), db, workers=1, append=True)
    with Store(db, readonly=True) as store:
        seats, units = [tuple(s) for s in store.seat_totals()], [tuple(u) for u in store.unit_totals()]
    with sqlite3.connect(db) as conn:
        want_seats, want_units = oracle(conn)
    assert seats == want_seats and close(units, want_units) and len(units) >= 6


@pytest.mark.parametrize("readonly", [True, False])
def test_a_file_written_before_the_sums_were_kept_gets_them_from_its_matches(tmp_path: Path, readonly: bool) -> None:
    db = tmp_path / "r.sqlite"
    run_tournament(spec("money", 1, 0), db, workers=1)
    before = load_standings(db).to_json()
    with sqlite3.connect(db) as conn:  # as an earlier version wrote it
        conn.execute("DROP TABLE chunk_seats")
        conn.execute("DROP TABLE chunk_units")
    with Store(db, readonly=readonly) as store:
        assert len(store.seat_totals()) == 6
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert ({"chunk_seats", "chunk_units"} <= tables) is not readonly  # read-only: nothing written
    assert load_standings(db).to_json() == before
    run_tournament(spec("money", 1, 0), db, workers=1)  # complete: resumes nothing, reads the same
    assert load_standings(db).to_json() == before
