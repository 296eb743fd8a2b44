"""The report of a results file that holds only part of its spec's matches says so."""
from __future__ import annotations

from pathlib import Path

from tournament_helpers import small_spec

from bgfast.tournament import load_standings, run_tournament
from bgfast.tournament.store import Store
from bgfast.tournament.worker import play_chunk


def test_an_interrupted_run_is_reported_with_the_matches_scheduled_and_a_finished_one_is_not(
        tmp_path: Path) -> None:
    # Given a file with 2 of the spec's 12 chunks saved (as after Ctrl-C),
    spec = small_spec()
    db = tmp_path / "small.sqlite"
    with Store(db) as store:
        run = store.begin_run(spec)
        for chunk in (0, 1):
            store.write_chunk(run, play_chunk(spec, chunk))
    # when it is reported, then the text and the JSON say how far it got
    standings = load_standings(db)
    assert (standings.matches_played, standings.matches_scheduled) == (20, 120) and standings.interrupted
    assert standings.text().splitlines()[1] == (
        "small: 20 of 120 matches played (interrupted: re-run the same command to finish)")
    data = standings.to_json()
    assert (data["matches_played"], data["matches_scheduled"]) == (20, 120)
    # and once the same spec is re-run to the end, the note is gone
    finished = run_tournament(spec, db, workers=1)
    assert (finished.matches_played, finished.matches_scheduled) == (120, 120) and not finished.interrupted
    assert "interrupted" not in finished.text()
    assert finished.to_json()["matches_scheduled"] == 120


def test_a_run_still_writing_is_reported_as_running_not_interrupted(tmp_path: Path) -> None:
    spec = small_spec()
    db = tmp_path / "small.sqlite"
    with Store(db) as store:  # a run in progress: it holds the writer lock
        run = store.begin_run(spec)
        store.write_chunk(run, play_chunk(spec, 0))
        standings = load_standings(db)
        assert standings.running and not standings.interrupted and standings.to_json()["running"] is True
        assert standings.text().splitlines()[1] == (
            "small: 10 of 120 matches played (a run is still writing to this file)")
    # once that run is gone, the same file reads as interrupted
    after = load_standings(db)
    assert not after.running and after.interrupted


def test_an_sprt_that_stopped_early_is_not_an_interrupted_run(tmp_path: Path) -> None:
    from bgfast.tournament import TournamentSpec

    spec = TournamentSpec.from_dict({
        "name": "sprt", "match_length": 1, "matches_per_pairing": 2000, "chunk_size": 20,
        "format": "gauntlet", "challenger": "p", "sprt": {"elo0": 0, "elo1": 200},
        "players": [{"name": "p", "bot": "pubeval"}, {"name": "r", "bot": "random"}]})
    standings = run_tournament(spec, tmp_path / "s.sqlite", workers=1)
    assert standings.sprt is not None and standings.sprt.status == "H1"
    assert standings.matches_played < 2000
    assert standings.matches_scheduled == standings.matches_played and "interrupted" not in standings.text()
