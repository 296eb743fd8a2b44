"""``bgfast tournament`` and ``bgfast report``: thin commands over bgfast.tournament.

Help texts and error lines are compared with tests/snapshots/cli/; refresh them with
``UPDATE_SNAPSHOTS=1 pytest tests/test_cli_tournament.py`` and review the diff.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tournament_helpers import small_spec_text

from bgfast.cli import main
from cli_helpers import SNAPSHOTS, UPDATE, assert_snapshot, fixed_terminal, run  # noqa: F401


@pytest.fixture
def spec_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "small.toml"
    path.write_text(small_spec_text(per_pairing=10, chunk=4))
    return path


@pytest.mark.parametrize(("name", "argv"), [
    ("help_tournament", ["tournament", "--help"]),
    ("help_report", ["report", "--help"]),
])
def test_help_text_matches_its_snapshot(capsys: pytest.CaptureFixture[str], name: str, argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert_snapshot(f"{name}.txt", out)


def test_tournament_plays_the_spec_and_prints_the_standings(capsys: pytest.CaptureFixture[str],
                                                           spec_file: Path) -> None:
    code, out, err = run(capsys, "tournament", str(spec_file), "--workers", "2", "--quiet")
    assert (code, err) == (0, "")
    assert out.startswith("small: 30 matches, 3 players\n")
    assert out.rstrip().endswith("results: results/small.sqlite")
    assert (spec_file.parent / "results" / "small.sqlite").is_file()


def test_tournament_shows_a_progress_bar_on_a_terminal_unless_quiet(capsys: pytest.CaptureFixture[str], spec_file: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(capsys, "tournament", str(spec_file), "--db", "log.sqlite", "--workers", "1")
    assert code == 0 and "matches/s" not in err and "\r" not in err     # stderr to a file or pipe: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run(capsys, "tournament", str(spec_file), "--db", "a.sqlite", "--workers", "1")
    assert code == 0 and "30/30" in err and "matches/s" in err


def test_report_prints_the_standings_json_csv_and_plot(capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    run(capsys, "tournament", str(spec_file), "--db", "r.sqlite", "--workers", "1", "--quiet")
    code, out, err = run(capsys, "report", "r.sqlite")
    assert code == 0 and out.startswith("small: 30 matches")
    code, out, err = run(capsys, "report", "r.sqlite", "--json", "--matches", "m.csv")
    assert code == 0 and err == "wrote 30 matches to m.csv\n"
    data = json.loads(out)
    assert set(data) == {"tournament", "matches_played", "matches_scheduled", "running", "players", "pairings",
                         "rating", "anchor", "paired"}
    assert len(Path("m.csv").read_text().splitlines()) == 31
    code, out, err = run(capsys, "report", "r.sqlite", "--json", "--anchor", "random", "--pairings", "p.csv")
    assert code == 0 and err == "wrote 3 pairings to p.csv\n"
    assert json.loads(out)["anchor"] == "random" and len(Path("p.csv").read_text().splitlines()) == 4
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "report", "r.sqlite", "--plot", "r.png")
    assert code == 0 and Path("r.png").stat().st_size > 0


def test_report_checks_its_output_files_before_printing(capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    run(capsys, "tournament", str(spec_file), "--db", "r.sqlite", "--workers", "1", "--quiet")
    Path("folder").mkdir()
    for option, name, message in (("--matches", "nowhere/m.csv", "no folder 'nowhere'"),
                                  ("--plot", "folder", "is a folder"),
                                  ("--plot", "nowhere/p.png", "no folder 'nowhere'"),
                                  ("--plot", "ratings.txt", "file type comes from its suffix")):
        code, out, err = run(capsys, "report", "r.sqlite", option, name)
        assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_report_plot_without_matplotlib_fails_before_printing_the_standings(
        capsys: pytest.CaptureFixture[str], spec_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run(capsys, "tournament", str(spec_file), "--db", "r.sqlite", "--workers", "1", "--quiet")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if matplotlib were not installed
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    code, out, err = run(capsys, "report", "r.sqlite", "--plot", "r.png")
    assert (code, out) == (2, "")
    assert err == "bgfast: error: --plot needs matplotlib: pip install 'bgfast[plot]'\n"
    assert not Path("r.png").exists()


def test_report_names_the_plot_file_it_wrote(capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    pytest.importorskip("matplotlib")
    run(capsys, "tournament", str(spec_file), "--db", "r.sqlite", "--workers", "1", "--quiet")
    code, _, err = run(capsys, "report", "r.sqlite", "--plot", "ratings")
    assert code == 0 and err == "wrote the ratings plot to ratings.png\n" and Path("ratings.png").is_file()


def test_a_second_spec_on_the_same_file_needs_append(capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    run(capsys, "tournament", str(spec_file), "--db", "r.sqlite", "--workers", "1", "--quiet")
    other = spec_file.parent / "other.toml"
    other.write_text(small_spec_text("other", seed=9, per_pairing=10, chunk=4))
    code, _, err = run(capsys, "tournament", str(other), "--db", "r.sqlite", "--workers", "1", "--quiet")
    assert code == 2 and "--append" in err
    code, out, _ = run(capsys, "tournament", str(other), "--db", "r.sqlite", "--workers", "1", "--quiet",
                       "--append")
    assert code == 0 and out.startswith("small + other: 60 matches")


@pytest.mark.parametrize(("name", "argv", "spec_text"), [
    ("error_tournament_unknown_key", ["tournament", "bad.toml"], "colour = 3\n" + small_spec_text()),
    ("error_tournament_missing_spec", ["tournament", "missing.toml"], None),
    ("error_tournament_zero_workers", ["tournament", "bad.toml", "--workers", "0"], small_spec_text()),
    ("error_tournament_bad_backend", ["tournament", "bad.toml", "--backend", "mpi"], small_spec_text()),
    ("error_tournament_scheduler_without_dask", ["tournament", "bad.toml", "--scheduler", "tcp://127.0.0.1:1"],
     small_spec_text()),
    ("error_report_missing_db", ["report", "missing.sqlite"], None),
])
def test_bad_input_prints_one_error_line_and_exits_with_status_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        name: str, argv: list[str], spec_text: str | None) -> None:
    monkeypatch.chdir(tmp_path)
    if spec_text is not None:
        (tmp_path / "bad.toml").write_text(spec_text)
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("bgfast: error: ") and err.count("\n") == 1
    assert_snapshot(f"{name}.txt", err)


def test_an_unknown_bot_in_the_spec_is_one_error_line_naming_its_key_path(
        capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    spec_file.write_text(small_spec_text().replace('bot = "random"', 'bot = "pubevl"'))
    code, out, err = run(capsys, "tournament", str(spec_file))
    assert (code, out) == (2, "")
    assert err.startswith("bgfast: error: players[1].bot: unknown bot 'pubevl' (known bots: ")
    assert err.count("\n") == 1


def test_a_spec_that_is_not_utf8_is_one_error_line_naming_the_file(
        capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    spec_file.write_bytes(b"\xff\xfe" + small_spec_text().encode("utf-16-le"))
    code, out, err = run(capsys, "tournament", str(spec_file))
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: cannot read tournament spec {str(spec_file)!r}: not UTF-8 text "
                   "(byte 0xff at position 0); TOML is UTF-8\n")


def test_a_spec_saved_with_a_utf8_byte_order_mark_is_read(spec_file: Path) -> None:
    from bgfast.tournament import TournamentSpec

    plain = TournamentSpec.from_toml(spec_file)
    spec_file.write_bytes(b"\xef\xbb\xbf" + spec_file.read_bytes())
    assert TournamentSpec.from_toml(spec_file) == plain


def test_a_report_before_any_chunk_finished_says_no_match_has_finished(
        capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    from bgfast.tournament import TournamentSpec
    from bgfast.tournament.store import Store

    spec = TournamentSpec.from_toml(spec_file)
    with Store("r.sqlite") as store:
        store.begin_run(spec)  # the run has started: no chunk is saved yet
        code, out, err = run(capsys, "report", "r.sqlite")
        assert (code, err) == (0, "")
        assert out == "small: no match has finished yet: 0 of 30 matches played (a run is still writing to this file)\n"
    code, out, err = run(capsys, "report", "r.sqlite")
    assert (code, err) == (0, "")
    assert out == ("small: no match has finished yet: 0 of 30 matches played "
                   "(interrupted: re-run the same command to finish)\n")
    code, out, _ = run(capsys, "report", "r.sqlite", "--json")
    assert (json.loads(out)["matches_played"], json.loads(out)["matches_scheduled"]) == (0, 30)


def test_an_explicit_db_in_a_missing_folder_is_bad_input_but_the_default_folder_is_made(
        capsys: pytest.CaptureFixture[str], spec_file: Path) -> None:
    missing = spec_file.parent / "nowhere" / "x.sqlite"
    code, out, err = run(capsys, "tournament", str(spec_file), "--db", str(missing), "--workers", "1", "--quiet")
    assert (code, out) == (2, "")
    assert err == f"bgfast: error: --db {str(missing)!r}: there is no folder {str(missing.parent)!r}\n"
    assert not missing.parent.exists()
    code, out, err = run(capsys, "tournament", str(spec_file), "--workers", "1", "--quiet")  # results/small.sqlite
    assert (code, err) == (0, "") and out.endswith(f"results: {os.path.join('results', 'small.sqlite')}\n")
