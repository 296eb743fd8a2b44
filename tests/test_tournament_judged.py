"""A judged tournament ([judge] in the spec): the spec's errors, the results file's
judged table (written, resumed, added to files of the previous version) and the report's
judged figures in text, --json and --html."""
from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from tournament_helpers import csv_of

from bgfast.bots import get_bot
from bgfast.cli import main
from bgfast.errors import InvalidSpecError
from bgfast.game import JUDGED_COLUMNS
from bgfast.tournament.csv_export import CSV_COLUMNS
from bgfast.tournament.html_report import judged_section
from bgfast.tournament import TournamentSpec, load_standings, run_tournament
from bgfast.tournament.html_report import running_judged
from bgfast.tournament.spec import JUDGE_LUCK_FILTER
from bgfast.tournament.store import Store, open_results
from bgfast.tournament.store.schema import ERRORS_NORMALIZED
from bgfast.tournament.worker import play_chunk

PLAYERS = """
[[players]]
name = "pubeval"
bot = "pubeval"
cube = "never"

[[players]]
name = "random"
bot = "random"
cube = "never"
"""
HEAD = """name = "{name}"
seed = {seed}
match_length = {length}
matches_per_pairing = 40
paired_dice = true
chunk_size = 10
"""
JUDGE = """
[judge]
bot = "neural"
ply = 0
"""


def spec_text(name: str = "judged", *, seed: int = 3, length: int = 0, judge: str = JUDGE) -> str:
    return HEAD.format(name=name, seed=seed, length=length) + judge + PLAYERS


def judged_of(db: Path) -> list[tuple[object, ...]]:
    """The rows of the file's judged table: run, idx, the JUDGED_COLUMNS and errors_normalized."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM match_judged ORDER BY run, idx").fetchall()


FIGURES = slice(2, 2 + len(JUDGED_COLUMNS))
"""A judged row's figures (judged_of)."""


# ---------------------------------------------------------------- the spec


@pytest.mark.parametrize(("judge", "message"), [
    ("judge = 3", "judge: must be a table"),
    ("[judge]\nply = 0", "judge.bot: missing"),
    ("[judge]\nbot = 5", "judge.bot: must be a non-empty string"),
    ('[judge]\nbot = "nosuch"', "judge.bot: unknown bot 'nosuch'"),
    ('[judge]\nbot = "pubeval"', "judge.bot: a judge plays by a core evaluator"),
    ('[judge]\nbot = "random"', "judge.bot: a judge plays by a core evaluator"),
    ('[judge]\nbot = "neural"\nply = 9', "judge: bot 'neural': ply must be a whole number from 0 to 3, got 9"),
    ('[judge]\nbot = "neural"\nfoo = 1', "judge: bad options {'foo': 1} for bot 'neural'"),
    ('[judge]\nbot = "neural"\nluck_filter = -1', "judge.luck_filter: must be a whole number of plays"),
    ('[judge]\nbot = "neural"\nluck_filter = 65', "judge.luck_filter: must be a whole number of plays"),
    ('[judge]\nbot = "neural"\nluck_filter = "all"', "judge.luck_filter: must be a whole number of plays"),
    ('[judge]\nbot = "neural"\ncube = "never"', "judge.cube: a judge makes no cube decisions"),
    ('[judge]\nbot = "heuristic"\nluck_filter = 2', "judge.luck_filter: is for a neural judge"),
    ('[rules]\nvariant = "hypergammon"\n[judge]\nbot = "neural"', "judge: the judges' evaluators know standard "
                                                                 "backgammon only, not hypergammon"),
])
def test_a_bad_judge_is_a_spec_error_naming_the_key(judge: str, message: str) -> None:
    with pytest.raises(InvalidSpecError, match=message.replace("(", r"\(").replace("{", r"\{")):
        TournamentSpec.from_toml_string(spec_text(judge="\n" + judge + "\n"))


@pytest.mark.parametrize("length", [26, 31, 64])
def test_a_judged_match_longer_than_the_judges_table_is_refused_at_spec_reading(length: int) -> None:
    # finding 2: at 31 points the judge read the table's empty rows (MWC 0), adjusted scores fell outside 0..1
    with pytest.raises(InvalidSpecError) as info:
        TournamentSpec.from_toml_string(spec_text(length=length))
    message = str(info.value)
    assert message.startswith(f"judge: match length {length} is beyond the 25-point match equity table "
                              "'Kazaross-XG2'")
    assert "match_length at 25 or less" in message and "leave [judge] out" in message
    assert TournamentSpec.from_toml_string(spec_text(length=length, judge="")).judge is None  # unjudged: played
    assert TournamentSpec.from_toml_string(spec_text(length=25)).judge is not None


def test_the_core_judge_refuses_a_table_shorter_than_the_match() -> None:
    from bgfast._core.game import MatchRunner
    from bgfast.game import MatchPlayer
    from bgfast.errors import InvalidMetError
    from bgfast.met import MatchEquityTable

    judge = TournamentSpec.from_toml_string(spec_text(length=25)).judge
    assert judge is not None
    evaluator, x = judge.evaluator()
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=31)
    with pytest.raises(InvalidMetError, match="match length 31 is beyond the 25-point"):
        player.set_judge(evaluator, x)
    runner = player._runner
    assert isinstance(runner, MatchRunner)
    with pytest.raises(ValueError, match="a judge of a 31-point match needs a table of 31 points or more, got 25"):
        runner.set_judge(evaluator, MatchEquityTable.load().core_table, x)


def test_the_judge_is_part_of_the_specs_hash_and_absent_without_one() -> None:
    judged = TournamentSpec.from_toml_string(spec_text())
    plain = TournamentSpec.from_toml_string(spec_text(judge=""))
    assert judged.hash != plain.hash and "judge" not in plain.to_dict()
    assert TournamentSpec.from_toml_string(judged.to_toml()).judge == judged.judge
    assert TournamentSpec.from_toml_string(judged.to_toml()).hash == judged.hash
    other = TournamentSpec.from_toml_string(spec_text(judge=JUDGE.replace("ply = 0", "ply = 1")))
    assert other.hash != judged.hash
    filtered = TournamentSpec.from_toml_string(spec_text(judge=JUDGE + "luck_filter = 0\n"))
    assert judged.judge is not None and judged.judge.luck_filter == JUDGE_LUCK_FILTER
    assert filtered.judge is not None and filtered.judge.luck_filter == 0 and filtered.hash != judged.hash
    assert TournamentSpec.from_toml_string(filtered.to_toml()).judge == filtered.judge


# ---------------------------------------------------------------- the results file


def test_a_judged_run_keeps_each_matchs_figures_and_plays_the_same_matches_as_an_unjudged_one(tmp_path: Path) -> None:
    judged, plain = tmp_path / "judged.sqlite", tmp_path / "plain.sqlite"
    run_tournament(TournamentSpec.from_toml_string(spec_text()), judged, workers=1)
    run_tournament(TournamentSpec.from_toml_string(spec_text(judge="")), plain, workers=1)
    judged_csv = list(csv.DictReader(io.StringIO(csv_of(judged))))
    plain_csv = list(csv.DictReader(io.StringIO(csv_of(plain))))
    shared = [c for c in CSV_COLUMNS[:CSV_COLUMNS.index("forfeit") + 1] if c != "run"]   # all but the judge's
    assert [[r[c] for c in shared] for r in judged_csv] == [[r[c] for c in shared] for r in plain_csv]
    assert all(r["luck_a"] == "" for r in plain_csv)
    rows = judged_of(judged)
    # the matches CSV carries each judged match's figures, seat a first (report --matches)
    from_csv = [[float(r[f"{name}_{seat}"]) for name in ("luck", "checker_error", "checker_decisions", "cube_error",
                                                         "cube_decisions") for seat in "ab"] for r in judged_csv]
    assert np.allclose(from_csv, [r[FIGURES] for r in rows], rtol=0, atol=1e-6)
    assert {r[-1] for r in rows} == {ERRORS_NORMALIZED}
    assert len(rows) == 40 and [r[1] for r in rows] == list(range(40))
    figures = np.array([r[FIGURES] for r in rows], dtype=float)
    named = dict(zip(JUDGED_COLUMNS, figures.T))
    assert (named["checker_decisions0"] + named["checker_decisions1"] > 0).all()
    assert (named["cube_decisions0"] == 0).all()          # neither player doubles: no cube judged
    assert judged_of(plain) == []


def test_a_judged_run_resumes_to_the_same_figures(tmp_path: Path) -> None:
    spec = TournamentSpec.from_toml_string(spec_text())
    whole, part = tmp_path / "whole.sqlite", tmp_path / "part.sqlite"
    run_tournament(spec, whole, workers=1)
    with Store(part) as store:                             # as after a crash: chunks 0 and 2 saved
        run = store.begin_run(spec)
        for chunk in (0, 2):
            store.write_chunk(run, play_chunk(spec, chunk))
    assert len(judged_of(part)) == 20
    run_tournament(spec, part, workers=2)
    assert judged_of(part) == judged_of(whole)


def test_a_results_file_of_the_previous_version_is_reported_resumed_and_takes_a_judged_run(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite"
    plain = TournamentSpec.from_toml_string(spec_text("old", judge=""))
    run_tournament(plain, db, workers=1)
    before = csv_of(db)
    with sqlite3.connect(db) as conn:                      # as the previous version wrote it, one chunk short
        conn.execute("DROP TABLE match_judged")
        for table in ("matches", "chunks", "chunk_seats", "chunk_units"):
            conn.execute(f"DELETE FROM {table} WHERE chunk = 3")
    standings = load_standings(db)
    assert standings.matches_played == 30 and not standings.judged_players
    assert "ppg_luck_adjusted" not in json.dumps(standings.to_json())
    run_tournament(plain, db, workers=1)                   # resumes, adding the judged table
    assert csv_of(db) == before and judged_of(db) == []
    judged = TournamentSpec.from_toml_string(spec_text("new", seed=4))
    run_tournament(judged, db, workers=1, append=True)     # a judged run added to the file
    assert len(judged_of(db)) == 40
    standings = load_standings(db)
    assert set(standings.judged_players) == {"pubeval", "random"}
    # finding 3: the judged figures cover only the judged run's matches, and the report says so
    assert (standings.matches_played, standings.judged_matches) == (80, 40)
    assert standings.judges == ("neural luck_filter=4 ply=0",)
    assert "  40 of 80 matches judged, by neural luck_filter=4 ply=0" in standings.text().splitlines()
    data = standings.to_json()
    assert (data["matches_played"], data["judged_matches"], data["judges"]) == (80, 40, ["neural luck_filter=4 ply=0"])
    html = judged_section(standings)
    assert "<p>40 of 80 matches judged, by neural luck_filter=4 ply=0.</p>" in html


def test_a_file_judged_before_errors_were_normalized_reports_no_error_rates_and_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = TournamentSpec.from_toml_string(spec_text())
    db = tmp_path / "old.sqlite"
    with Store(db) as store:                               # two chunks judged by the previous version
        run = store.begin_run(spec)
        for chunk in (0, 1):
            store.write_chunk(run, play_chunk(spec, chunk))
    columns = ", ".join(("run", "idx", *JUDGED_COLUMNS))
    with sqlite3.connect(db) as conn:                      # its judged table, without errors_normalized
        conn.executescript(f"CREATE TABLE old AS SELECT {columns} FROM match_judged; DROP TABLE match_judged; "
                           f"ALTER TABLE old RENAME TO match_judged;")
    old = load_standings(db)
    assert set(old.judged_players) == {"pubeval", "random"}
    pub = old.judged_players["pubeval"]
    assert np.isnan(pub.checker_error_rate) and pub.checker_decisions > 0 and np.isfinite(pub.adjusted)
    assert main(["report", str(db), "--matches", str(tmp_path / "m.csv")]) == 0
    judged_text = capsys.readouterr().out.split("judged (")[1]
    pubeval_row = next(line for line in judged_text.splitlines() if line.strip().startswith("pubeval "))
    assert pubeval_row.split()[-3:-1] == ["n/a", "n/a"]    # checker and cube rates (cube: never doubles)
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert len(rows) == 20 and {r["checker_error_a"] for r in rows} == {""} and all(r["luck_a"] for r in rows)
    run_tournament(spec, db, workers=1)                    # resumed: the column added, the old rows 0
    assert [r[-1] for r in judged_of(db)] == [0] * 20 + [ERRORS_NORMALIZED] * 20
    assert np.isnan(load_standings(db).judged_players["pubeval"].checker_error_rate)   # no rate over two units


@pytest.mark.parametrize(("length", "seed"), [(0, 5), (5, 5)])
def test_a_judged_matchs_errors_are_bgfast_analyses_decision_for_decision_sum(
        tmp_path: Path, length: int, seed: int) -> None:
    # The same judge (neural, 0-ply plays, 1-ply cube) over the same match, as the game loop
    # judges it and as `bgfast analyse` judges its exported SGF: the same normalized errors
    # (money: points per unit of the cube; match play: EMG) and the same decisions counted.
    from bgfast.analysis.match_analysis import analyse_file
    from bgfast.tournament.export import export_match

    text = (HEAD.format(name="units", seed=seed, length=length).replace("matches_per_pairing = 40",
                                                                        "matches_per_pairing = 2")
            + JUDGE + '[[players]]\nname = "pubeval"\nbot = "pubeval"\n[[players]]\nname = "heuristic"\n'
            'bot = "heuristic"\n')
    db = tmp_path / "units.sqlite"
    run_tournament(TournamentSpec.from_toml_string(text), db, workers=1)
    with open_results(db) as store:
        matches = list(store.iter_matches())
    cube_decisions = 0
    for match in matches:
        export_match(db, match.idx, tmp_path / "m.sgf", format="sgf")
        players = analyse_file(tmp_path / "m.sgf", "neural", ply=0, cube_ply=1).players
        judged = dict(zip(JUDGED_COLUMNS, match.judged or ()))
        for seat in (0, 1):
            assert judged[f"checker_error{seat}"] == pytest.approx(players[seat].checker_error, abs=1e-4)
            assert judged[f"checker_decisions{seat}"] == players[seat].unforced_moves
            assert judged[f"cube_error{seat}"] == pytest.approx(players[seat].cube_error, abs=1e-4)
            assert judged[f"cube_decisions{seat}"] == players[seat].close_cube_decisions
            cube_decisions += players[seat].close_cube_decisions
    assert cube_decisions > 0


# ---------------------------------------------------------------- the report

PLAYER_KEYS = {"ppg_raw", "ppg_raw_se", "ppg_luck_adjusted", "ppg_luck_adjusted_se", "elo_luck_adjusted",
               "elo_luck_adjusted_ci95", "los_luck_adjusted", "checker_error_rate", "cube_error_rate",
               "luck_per_game", "checker_decisions", "cube_decisions"}


@pytest.fixture(scope="module")
def judged_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("judged") / "judged.sqlite"
    run_tournament(TournamentSpec.from_toml_string(spec_text()), db, workers=1)
    return db


def test_the_report_gives_the_judged_figures_in_json_per_player_and_pairing(
        judged_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(judged_db), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for p in out["players"]:
        assert PLAYER_KEYS <= set(p), p
    (pairing,) = out["pairings"]
    assert PLAYER_KEYS <= set(pairing)
    pub = next(p for p in out["players"] if p["name"] == "pubeval")
    rnd = next(p for p in out["players"] if p["name"] == "random")
    assert pub["ppg_luck_adjusted"] == pytest.approx(-rnd["ppg_luck_adjusted"], abs=1e-3)
    assert pub["checker_error_rate"] < rnd["checker_error_rate"]   # pubeval errs less than random
    assert pub["cube_error_rate"] is None and pub["cube_decisions"] == 0


def test_the_report_gives_the_judged_figures_in_text_and_html(judged_db: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    assert main(["report", str(judged_db), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert "judged (points;" in text and "pubeval - random" in text
    # the adjusted figure to 4 decimals beside the raw one's 3: its error is often under 0.001
    assert re.search(r"pubeval - random +[+-]\d\.\d{3} ± +\d\.\d{3} +[+-]\d\.\d{4} ± \d\.\d{4} ", text), text
    html = page.read_text()
    section = html[html.index('<section id="judged">'):]
    section = section[:section.index("</section>")]
    assert "<table>" in section and "pubeval vs random" in section and "not judged" not in section
    # no cube decision: gnubg's n/a, not nan, in the text and on the page
    assert not re.search(r"\bnan\b", text) and "n/a" in text
    assert not re.search(r"\bnan\b", html) and "n/a</td>" in section
    assert section.count("<svg") == 2                      # the running raw and adjusted results; the error rates
    assert "luck-adjusted" in section and "checker error rate (mEMG)" in section


def test_the_running_judged_results_end_at_the_pairings_judged_figures(judged_db: Path) -> None:
    standings = load_standings(judged_db)
    with open_results(judged_db) as store:
        series = running_judged(store.judged_matches(), store.player_names(), list(standings.judged_pairings),
                                points=7)
    for pair, f in standings.judged_pairings.items():
        points = series[pair]
        assert points[-1] == (f.matches, pytest.approx(f.raw), pytest.approx(f.adjusted))
        assert 7 <= len(points) <= 8 and [n for n, *_ in points] == sorted(n for n, *_ in points)


def test_judged_figures_from_fewer_than_five_dice_pairs_have_no_error_interval_or_los(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the main table's rule (MIN_SAMPLES_FOR_ERROR): 2 dice pairs give a mean, not its error
    db = tmp_path / "few.sqlite"
    text = spec_text("few").replace("matches_per_pairing = 40", "matches_per_pairing = 4").replace(
        "chunk_size = 10", "chunk_size = 2")
    run_tournament(TournamentSpec.from_toml_string(text), db, workers=1)
    assert main(["report", str(db), "--json"]) == 0
    pub = next(p for p in json.loads(capsys.readouterr().out)["players"] if p["name"] == "pubeval")
    assert pub["ppg_raw"] is not None and pub["elo_luck_adjusted"] is not None
    assert pub["ppg_raw_se"] is None and pub["ppg_luck_adjusted_se"] is None
    assert pub["elo_luck_adjusted_ci95"] == [None, None] and pub["los_luck_adjusted"] is None
    assert main(["report", str(db)]) == 0
    judged = capsys.readouterr().out.split("judged (", 1)[1]
    assert "n/a" in judged and not re.search(r"\bnan\b", judged)


@pytest.mark.parametrize("damage, message", [
    ("DROP TABLE match_judged", "run 'judged' is judged but the file has no match_judged table (dropped?)"),
    ("DELETE FROM match_judged WHERE idx < 20", "judged run 'judged' has 20 rows of judged figures for its 40 "
                                                "matches (rows of match_judged deleted?)"),
    ("UPDATE match_judged SET luck0 = 'abc' WHERE idx = 3", "the match_judged table holds a value that is not a "
                                                            "number (could not convert string to float: 'abc')"),
])
def test_a_judged_file_that_lost_its_judged_rows_is_a_damaged_file(
        judged_db: Path, tmp_path: Path, damage: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "damaged.sqlite"
    db.write_bytes(judged_db.read_bytes())
    with sqlite3.connect(db) as conn:
        conn.execute(damage)
    assert main(["report", str(db)]) == 2
    assert capsys.readouterr().err == f"bgfast: error: {str(db)!r} is a damaged results file: {message}\n"
