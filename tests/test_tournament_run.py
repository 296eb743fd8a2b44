"""Running tournaments end to end: determinism across workers and backends, reports, SPRT, the README demo."""
from __future__ import annotations

import io
import itertools
import json
import re
from pathlib import Path

import pytest
from tournament_helpers import ROOT, csv_of, needs_heuristic, small_spec

from bgfast.errors import InvalidSpecError
from bgfast.tournament import (
    ProgressReporter,
    TournamentSpec,
    get_reporter,
    load_standings,
    plot_ratings,
    run_tournament,
    write_matches_csv,
)
from bgfast.tournament.csv_export import CSV_COLUMNS

JSON_PLAYER_KEYS = {"name", "matches", "match_wins", "ppg", "ppg_se", "ppg_se_paired", "elo", "elo_ci95",
                    # what an outside engine did (zeros for built-in bots): bgfast.engines.counters.REPORT_FIELDS
                    "decisions", "decision_ms_mean", "decision_ms_max", "restarts", "crashes", "timeouts",
                    "illegal_answers", "forfeits", "cube_by_policy"}
JSON_PAIRING_KEYS = {"a", "b", "matches", "a_wins", "b_wins", "a_ppg", "paired", "units", "pentanomial", "elo_diff",
                     "elo_diff_ci", "los", "ppg_se_paired", "ppg_se_independent"}


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("one") / "small.sqlite"
    run_tournament(small_spec(), db, workers=1)
    return db


def test_one_and_two_workers_give_identical_per_match_results(tmp_path: Path, one_worker: Path) -> None:
    db = tmp_path / "two.sqlite"
    run_tournament(small_spec(), db, workers=2)
    assert csv_of(db) == csv_of(one_worker)


def test_a_dask_local_cluster_gives_the_same_per_match_results(tmp_path: Path, one_worker: Path) -> None:
    pytest.importorskip("distributed")
    db = tmp_path / "dask.sqlite"
    run_tournament(small_spec(), db, workers=2, backend="dask")
    assert csv_of(db) == csv_of(one_worker)


def test_a_scheduler_address_without_the_dask_backend_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="only for the dask backend"):
        run_tournament(small_spec(), tmp_path / "x.sqlite", scheduler="tcp://127.0.0.1:8786")


@pytest.mark.parametrize("workers", [0, -1, True])
def test_a_worker_count_below_one_is_an_error(tmp_path: Path, workers: int) -> None:
    with pytest.raises(ValueError, match="workers must be"):
        run_tournament(small_spec(), tmp_path / "x.sqlite", workers=workers)


def test_the_json_report_has_exactly_the_documented_keys(one_worker: Path) -> None:
    data = load_standings(one_worker).to_json()
    assert set(data) == {"tournament", "matches_played", "matches_scheduled", "running", "players", "pairings",
                         "rating", "anchor", "paired"}
    assert data["tournament"] == "small" and data["matches_played"] == 120
    assert all(set(p) == JSON_PLAYER_KEYS for p in data["players"])
    assert all(p["decisions"] == p["forfeits"] == p["restarts"] == 0 for p in data["players"])
    assert all(set(q) == JSON_PAIRING_KEYS for q in data["pairings"])
    json.dumps(data)


def test_the_report_adds_up(one_worker: Path) -> None:
    standings = load_standings(one_worker)
    assert sum(p.stats.matches for p in standings.players) == 2 * standings.matches_played
    assert sum(p.stats.wins for p in standings.players) == standings.matches_played
    assert sum(p.stats.points for p in standings.players) == 0
    assert sum(p.elo for p in standings.players) == pytest.approx(0.0, abs=1e-6)
    for q in standings.pairings:
        assert q.stats.matches == 40 and q.stats.wins + q.stats.losses == 40
    for p in standings.players:
        assert p.elo_ci95[0] < p.elo < p.elo_ci95[1]


def test_pubeval_beats_random_clearly(one_worker: Path) -> None:
    standings = load_standings(one_worker)
    by_name = {p.name: p for p in standings.players}
    assert by_name["pubeval"].elo_ci95[0] > by_name["random"].elo_ci95[1]
    assert by_name["pubeval"].stats.ppg > 0 > by_name["random"].stats.ppg


def test_the_matches_csv_has_one_row_per_match_in_index_order(tmp_path: Path, one_worker: Path) -> None:
    out = tmp_path / "m.csv"
    assert write_matches_csv(one_worker, out) == 120
    lines = out.read_text().splitlines()
    assert lines[0].split(",") == list(CSV_COLUMNS)
    assert lines[0].startswith("index,player_a,player_b,length,seed,score_a,score_b,winner,games")
    assert [int(line.split(",")[0]) for line in lines[1:]] == list(range(120))
    first = dict(zip(CSV_COLUMNS, lines[1].split(",")))
    assert first["winner"] in (first["player_a"], first["player_b"]) and first["length"] == "3"


def test_the_plot_is_written(tmp_path: Path, one_worker: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "ratings.png"
    plot_ratings(load_standings(one_worker), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_standings_text_lists_every_player_and_pairing(one_worker: Path) -> None:
    text = load_standings(one_worker).text()
    assert text.startswith("small: 120 matches, 3 players")
    for name in ("pubeval", "random", "cubeless", "pubeval - random"):
        assert name in text


def test_the_progress_reporter_shows_matches_per_second(tmp_path: Path) -> None:
    out = io.StringIO()
    run_tournament(small_spec(), tmp_path / "p.sqlite", workers=1, reporter=ProgressReporter(file=out))
    assert "120/120" in out.getvalue() and "matches/s" in out.getvalue()


def test_reporters_are_picked_by_name() -> None:
    assert type(get_reporter("quiet")).__name__ == "QuietReporter"
    with pytest.raises(ValueError, match="unknown reporter"):
        get_reporter("fancy")


def test_money_games_and_several_lengths_run_in_one_spec(tmp_path: Path) -> None:
    spec = TournamentSpec.from_dict({
        "name": "mixed", "match_length": [0, 1, 3], "matches_per_pairing": 6, "chunk_size": 4,
        "rules": {"beaver": True}, "players": [{"name": "p", "bot": "pubeval"}, {"name": "r", "bot": "random"}]})
    run_tournament(spec, tmp_path / "m.sqlite", workers=2)
    rows = csv_of(tmp_path / "m.sqlite").splitlines()[1:]
    assert sorted({row.split(",")[3] for row in rows}) == ["0", "1", "3"]


def test_the_default_results_file_is_results_slash_name_dot_sqlite(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run_tournament(small_spec(per_pairing=4, chunk=2), workers=1)
    assert (tmp_path / "results" / "small.sqlite").is_file() and (tmp_path / "results" / "small.log").is_file()


def test_sprt_stops_a_gauntlet_once_it_decides_and_says_which(tmp_path: Path) -> None:
    spec = TournamentSpec.from_dict({
        "name": "sprt", "format": "gauntlet", "challenger": "pubeval", "match_length": 1,
        "matches_per_pairing": 4000, "chunk_size": 20, "sprt": {"elo0": 0, "elo1": 50},
        "players": [{"name": "random", "bot": "random"}, {"name": "pubeval", "bot": "pubeval"}]})
    db = tmp_path / "sprt.sqlite"
    standings = run_tournament(spec, db, workers=2)
    assert standings.sprt is not None and standings.sprt.status == "H1"
    # decided at a dice pair, not at a chunk's end; matches played past it are saved, not counted
    assert standings.sprt.matches < 4000 and standings.sprt.matches % 2 == 0
    assert standings.sprt.matches <= standings.matches_played
    assert "SPRT [0, 50]: H1 accepted" in standings.text() and "overshoot" in standings.text()
    assert standings.to_json()["sprt"]["status"] == "H1"
    # a rerun does not play on past the decision
    again = run_tournament(spec, db, workers=2)
    assert again.matches_played == standings.matches_played and again.sprt == standings.sprt


def test_the_sprt_decision_does_not_depend_on_the_worker_count(tmp_path: Path) -> None:
    spec = TournamentSpec.from_dict({
        "name": "sprt", "match_length": 1, "matches_per_pairing": 4000, "chunk_size": 20,
        "sprt": {"elo0": 0, "elo1": 50},
        "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
    one = run_tournament(spec, tmp_path / "1.sqlite", workers=1).sprt
    two = run_tournament(spec, tmp_path / "2.sqlite", workers=2).sprt
    assert one == two


def test_the_sprt_verdict_is_the_first_dice_pair_whose_llr_crosses_a_bound(tmp_path: Path) -> None:
    from bgfast.tournament.pairs import unit_wins
    from bgfast.tournament.sprt import Sprt
    from bgfast.tournament.store import open_results

    spec = TournamentSpec.from_dict({
        "name": "sprt", "match_length": 1, "matches_per_pairing": 4000, "chunk_size": 40,
        "sprt": {"elo0": 0, "elo1": 50},
        "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
    db = tmp_path / "s.sqlite"
    outcome = run_tournament(spec, db, workers=2).sprt
    assert outcome is not None
    with open_results(db) as store:
        rows = [r[1:] for r in store.iter_outcomes(1)]
        tested = next(pid for pid, name in store.player_names().items() if name == "pubeval")
    verdict = Sprt(0, 50).sequential(unit_wins(rows, tested, paired=True))
    assert (outcome.status, outcome.matches) == (verdict.status.value, verdict.matches)
    assert outcome.llr == pytest.approx(verdict.llr)
    assert 0.0 <= outcome.overshoot < 0.5


def _quick_text(per_pairing: int) -> str:
    text = (ROOT / "tournaments" / "quick.toml").read_text()
    return re.sub(r"(?m)^matches_per_pairing = \d+", f"matches_per_pairing = {per_pairing}", text)


@needs_heuristic
def test_the_readme_quick_tournament_runs_end_to_end_at_a_reduced_size(tmp_path: Path) -> None:
    spec = TournamentSpec.from_toml_string(_quick_text(40))
    standings = run_tournament(spec, tmp_path / "quick.sqlite", workers=2)
    assert standings.matches_played == 120
    assert {p.name for p in standings.players} == {"random", "pubeval", "heuristic"}
    assert standings.players[-1].name == "random"


@pytest.mark.slow
@needs_heuristic
def test_the_real_quick_tournament_separates_the_three_bots(tmp_path: Path) -> None:
    spec = TournamentSpec.from_toml(ROOT / "tournaments" / "quick.toml")
    standings = run_tournament(spec, tmp_path / "quick.sqlite")
    players = standings.players
    assert players[-1].name == "random"
    for better, worse in itertools.pairwise(players):
        assert better.elo_ci95[0] > worse.elo_ci95[1]


def test_a_spec_path_is_read_for_the_caller(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(small_spec().to_toml())
    assert run_tournament(path, tmp_path / "s.sqlite", workers=1).matches_played == 120
    with pytest.raises(InvalidSpecError):
        run_tournament(tmp_path / "missing.toml", tmp_path / "s.sqlite")


def test_a_report_needs_no_bot_of_the_spec_to_be_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bgfast.bots as bots

    spec = TournamentSpec.from_dict({
        "name": "gone", "match_length": 1, "matches_per_pairing": 4, "chunk_size": 4,
        "sprt": {"elo0": 0, "elo1": 100},
        "players": [{"name": "p", "bot": "pubeval"}, {"name": "r", "bot": "random"}]})
    run_tournament(spec, tmp_path / "g.sqlite", workers=1)
    monkeypatch.setattr(bots, "_REGISTRY", {})
    standings = load_standings(tmp_path / "g.sqlite")
    assert standings.matches_played == 4 and standings.sprt is not None
