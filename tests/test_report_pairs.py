"""The report's paired statistics, checked against the per-match CSV: pentanomial counts,
the Elo difference of each pairing, paired and independent ppg errors, anchors, points
ratings, unpaired runs and the progress line."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from bgfast.tournament import TournamentSpec, run_tournament, write_matches_csv
from bgfast.tournament.csv_export import PAIRING_CSV_COLUMNS, write_pairings_csv
from bgfast.tournament.pairs import Pentanomial
from bgfast.tournament.ratings import points_score
from bgfast.tournament.standings import load_standings
from bgfast.tournament.stats import Stats, UnitSums

from tournament_helpers import small_spec_text

def spec(length: int = 3, per_pairing: int = 60, paired: bool = True) -> TournamentSpec:
    """pubeval, random and cubeless (pubeval that never doubles): tests/tournament_helpers.py's small spec."""
    text = small_spec_text("pairs", seed=4, length=length, per_pairing=per_pairing, chunk=20)
    if not paired:
        text = text.replace("chunk_size = 20", "chunk_size = 20\npaired_dice = false")
    return TournamentSpec.from_toml_string(text)


@pytest.fixture(scope="module")
def paired_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("paired") / "p.sqlite"
    run_tournament(spec(), db, workers=1)
    return db


def matches_of(db: Path) -> list[dict[str, str]]:
    out = io.StringIO()
    write_matches_csv(db, out)
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def by_hand(db: Path, a: str, b: str) -> tuple[Pentanomial, Stats, UnitSums]:
    """a's units against b, straight from the per-match CSV."""
    units: dict[str, list[dict[str, str]]] = {}
    for m in matches_of(db):
        if {m["player_a"], m["player_b"]} == {a, b}:
            units.setdefault(m["dice_index"], []).append(m)
    wins, stats, net = [], Stats(), UnitSums()
    for rows in units.values():
        w = x = g = 0
        for m in rows:
            mine = int(m["score_a"]) - int(m["score_b"])
            if m["player_b"] == a:
                mine = -mine
            w += m["winner"] == a
            x += mine
            g += int(m["games"])
            stats += Stats.of_match(score=max(mine, 0), opponent_score=max(-mine, 0), games=int(m["games"]),
                                    won=m["winner"] == a)
        wins.append(w)
        net += UnitSums.of_unit(x, g)
    return Pentanomial.from_wins(wins, matches_per_unit=len(next(iter(units.values())))), stats, net


def test_each_pairing_s_figures_are_those_of_its_dice_pairs(paired_db: Path) -> None:
    standings = load_standings(paired_db)
    assert standings.paired
    for q in standings.pairings:
        assert q.result is not None and q.elo is not None
        penta, stats, net = by_hand(paired_db, q.a, q.b)
        assert q.result.wins.counts == penta.counts and q.result.wins.units == 30
        assert q.result.ppg_se_paired == pytest.approx(net.ratio_se())
        assert q.result.ppg_se_independent == pytest.approx(stats.ppg_se)
        assert q.elo.elo == pytest.approx(penta.elo().elo)
        assert (q.elo.lo, q.elo.hi) == pytest.approx((penta.elo().lo, penta.elo().hi))


def test_the_json_pairings_carry_the_elo_difference_its_interval_los_and_both_errors(paired_db: Path) -> None:
    data = json.loads(json.dumps(load_standings(paired_db).to_json()))
    for entry in data["pairings"]:
        assert {"elo_diff", "elo_diff_ci", "los", "ppg_se_paired", "ppg_se_independent"} <= set(entry)
        lo, hi = entry["elo_diff_ci"]
        if entry["elo_diff"] is not None:
            assert lo is None or lo <= entry["elo_diff"]
            assert hi is None or entry["elo_diff"] <= hi
        assert 0.0 <= entry["los"] <= 1.0
        assert sum(entry["pentanomial"]) == entry["units"] == entry["matches"] // 2
    pub = next(e for e in data["pairings"] if {e["a"], e["b"]} == {"pubeval", "random"})
    assert (pub["a"] == "pubeval") == (pub["los"] > 0.99)  # pubeval is far stronger


def test_an_anchor_rates_that_player_zero_and_keeps_the_differences(paired_db: Path) -> None:
    mean = load_standings(paired_db)
    anchored = load_standings(paired_db, anchor="cubeless")
    elo = {p.name: p.elo for p in anchored.players}
    assert elo["cubeless"] == 0.0 and anchored.anchor == "cubeless"
    before = {p.name: p.elo for p in mean.players}
    assert elo["pubeval"] == pytest.approx(before["pubeval"] - before["cubeless"])
    assert "cubeless = 0" in anchored.text()


def test_an_unknown_anchor_is_a_value_error(paired_db: Path) -> None:
    with pytest.raises(ValueError, match=r"anchor: no player 'nobody'"):
        load_standings(paired_db, anchor="nobody")


def test_points_ratings_are_refused_for_match_play(paired_db: Path) -> None:
    with pytest.raises(ValueError, match="points ratings are for money games"):
        load_standings(paired_db, rating="points")


def test_points_ratings_of_money_games_use_bgci_s_clipped_score(tmp_path: Path) -> None:
    db = tmp_path / "money.sqlite"
    run_tournament(spec(length=0, per_pairing=80), db, workers=1)
    standings = load_standings(db, rating="points")
    assert standings.rating == "points" and "points (money" in standings.text()
    q = next(q for q in standings.pairings if {q.a, q.b} == {"pubeval", "cubeless"})
    score = g = 0.0
    for m in matches_of(db):
        if {m["player_a"], m["player_b"]} == {q.a, q.b}:
            mine = int(m["score_a"]) - int(m["score_b"])
            score += points_score(mine if m["player_a"] == q.a else -mine)
            g += 1
    assert q.result is not None and q.result.points.ratio == pytest.approx(score / g)
    assert q.elo is not None and q.elo.score == pytest.approx(score / g)


def test_an_unpaired_run_reports_the_independent_figures_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "single.sqlite"
    run_tournament(spec(paired=False, per_pairing=41), db, workers=1)
    standings = load_standings(db)
    assert not standings.paired
    for q in standings.pairings:
        assert q.result is not None and not q.result.paired and q.result.wins.units == 41
        assert q.result.ppg_se_paired == pytest.approx(q.result.ppg_se_independent)
    assert "dice not paired" in standings.text()
    data = standings.to_json()
    assert data["paired"] is False and all(e["paired"] is False for e in data["pairings"])


def test_the_pairings_csv_has_one_row_per_pairing(tmp_path: Path, paired_db: Path) -> None:
    out = tmp_path / "p.csv"
    standings = load_standings(paired_db)
    assert write_pairings_csv(standings, out) == 3
    rows = list(csv.reader(out.open()))
    assert rows[0] == list(PAIRING_CSV_COLUMNS) and len(rows) == 4
    first = dict(zip(PAIRING_CSV_COLUMNS, rows[1]))
    q = standings.pairings[0]
    assert (first["player_a"], first["player_b"], int(first["units"])) == (q.a, q.b, 30)
    assert int(first["pairs_0"]) + int(first["pairs_1"]) + int(first["pairs_2"]) == 30


def test_the_plot_has_the_pairwise_matrix(tmp_path: Path, paired_db: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.svg"
    from bgfast.tournament import plot_ratings

    plot_ratings(load_standings(paired_db), out)
    assert "Elo row - column" in out.read_text()


class _Recorder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_start(self, spec: object, total: int, done: int) -> None:
        pass

    def on_chunk_end(self, matches: int, done: int) -> None:
        pass

    def on_status(self, text: str) -> None:
        self.lines.append(text)

    def on_finish(self, standings: object) -> None:
        pass


def test_the_progress_line_shows_the_leaders_and_the_runner_ups_shares_of_match_wins(tmp_path: Path) -> None:
    # it read "leader a 99.6% (+99.3 over b)", the margin without its unit
    reporter = _Recorder()
    run_tournament(spec(per_pairing=40), tmp_path / "l.sqlite", workers=1, reporter=reporter)
    pattern = re.compile(r"\S+ leads: \d+\.\d% wins \(\S+ \d+\.\d%\)\Z")
    assert reporter.lines and all(pattern.match(line) for line in reporter.lines), reporter.lines


def test_the_progress_line_of_an_sprt_run_shows_the_llr_and_its_bounds(tmp_path: Path) -> None:
    reporter = _Recorder()
    sprt = TournamentSpec.from_dict({
        "name": "s", "match_length": 1, "matches_per_pairing": 400, "chunk_size": 20,
        "sprt": {"elo0": 0, "elo1": 50},
        "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
    run_tournament(sprt, tmp_path / "s.sqlite", workers=1, reporter=reporter)
    assert reporter.lines and all(line.startswith("LLR ") and "(-2.94, +2.94)" in line for line in reporter.lines)
