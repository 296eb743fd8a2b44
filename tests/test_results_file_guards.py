"""What keeps a results file whole and its reports honest: an output option naming the
results file is refused, an interrupted SPRT reports its verdict so far, chunk sums that
disagree with the chunks are damage, and an appended run needs a name of its own."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bgfast.errors import InvalidSpecError, ResultsFileError
from bgfast.tournament import run_tournament
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.standings import load_standings
from bgfast.tournament.store import Store
from cli_helpers import run

PLAYERS = [{"name": "heuristic", "bot": "heuristic"}, {"name": "pubeval", "bot": "pubeval"}]


def small(name: str = "small", seed: int = 1) -> TournamentSpec:
    return TournamentSpec.from_dict({"name": name, "seed": seed, "match_length": 1, "matches_per_pairing": 40,
                                     "chunk_size": 10, "players": PLAYERS})


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "r.sqlite"
    run_tournament(small(), path, workers=1)
    return path


@pytest.mark.parametrize("argv", [
    ["report", "{db}", "--matches", "{db}"],
    ["report", "{db}", "--pairings", "{db}"],
    ["report", "{db}", "--matches", "{link}"],
    ["report", "{db}", "--pairings", "{db}-wal"],
    ["export", "{db}", "--match", "0", "--mat", "{db}"],
    ["export", "{db}", "--match", "0", "--sgf", "{link}"],
])
def test_an_output_that_is_the_results_file_is_refused_and_the_file_kept(
        db: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    link = db.parent / "link.sqlite"
    link.symlink_to(db)
    before = db.read_bytes()
    code, _, err = run(capsys, *(a.format(db=db, link=link) for a in argv))
    assert code == 2 and "is the results file" in err and err.count("\n") == 1
    assert db.read_bytes() == before and load_standings(db).matches_played == 40


def test_an_interrupted_sprt_reports_its_verdict_so_far_as_the_run_would_have(tmp_path: Path) -> None:
    spec = TournamentSpec.from_dict({"name": "s", "seed": 1, "format": "gauntlet", "challenger": "heuristic",
                                     "match_length": 1, "matches_per_pairing": 4000, "chunk_size": 20,
                                     "sprt": {"elo0": 0, "elo1": 20}, "players": PLAYERS})
    path = tmp_path / "s.sqlite"
    run_tournament(spec, path, workers=1)
    decided = load_standings(path).sprt
    assert decided is not None and decided.status in ("H0", "H1")
    with sqlite3.connect(path) as conn:  # as a run killed before it saved its verdict leaves it
        conn.execute("UPDATE runs SET sprt_status = NULL, sprt_matches = NULL, sprt_llr = NULL")
    again = load_standings(path).sprt
    assert again is not None and (again.status, again.matches, round(again.llr, 9)) == (
        decided.status, decided.matches, round(decided.llr, 9))


@pytest.mark.parametrize("damage", [
    "DELETE FROM chunks WHERE chunk = 2; DELETE FROM matches WHERE chunk = 2",
    "DELETE FROM chunk_units WHERE chunk = 1",
    "DELETE FROM chunk_seats WHERE chunk = 3",
    "DELETE FROM chunk_seats",
])
def test_chunk_sums_that_disagree_with_the_chunks_are_damage_named_in_one_line(
        db: Path, damage: str, capsys: pytest.CaptureFixture[str]) -> None:
    with sqlite3.connect(db) as conn:
        conn.executescript(damage)
    with pytest.raises(ResultsFileError, match="damaged results file: the sums in chunk_(seats|units) of chunk"):
        Store(db, readonly=True)
    code, _, err = run(capsys, "report", str(db))
    assert code == 2 and "rows deleted?" in err and err.count("\n") == 1


def test_an_appended_run_needs_a_name_of_its_own(db: Path) -> None:
    with pytest.raises(InvalidSpecError, match="name: a run named 'small' is already in"):
        run_tournament(small(seed=9), db, workers=1, append=True)
    run_tournament(small("other", seed=9), db, workers=1, append=True)
    assert load_standings(db).matches_played == 80


def test_an_openings_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    from bgfast.tournament.openings import load_openings

    path = tmp_path / "o.txt"
    path.write_text("\ufeff4HPwATDgc/ABMA\n", encoding="utf-8")
    assert len(load_openings(path, match_length=None)) == 1
