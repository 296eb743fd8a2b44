"""Bad input on the command line, as a new user types it: each is refused in one line with
exit status 2, before any work (issue 29)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Iterator

import pytest

from bgfast.cli import build_parser
from cli_helpers import fixed_terminal, run  # noqa: F401

SPEC = """
name = "{name}"
match_length = 1
matches_per_pairing = 2
[[players]]
name = "a"
bot = "random"
[[players]]
name = "b"
bot = "pubeval"
"""


@pytest.fixture
def results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A results file of two one-point matches, in the working directory ``tmp_path``."""
    from bgfast.tournament import TournamentSpec, run_tournament

    monkeypatch.chdir(tmp_path)
    db = tmp_path / "t.sqlite"
    run_tournament(TournamentSpec.from_toml_string(SPEC.format(name="t")), db, workers=1)
    return db


def test_export_of_a_match_index_beyond_any_integer_the_file_holds_says_there_is_no_such_match(
        capsys: pytest.CaptureFixture[str], results: Path) -> None:
    # was an OverflowError traceback from SQLite
    code, out, err = run(capsys, "export", str(results), "--match", "9" * 23, "--mat", "x.mat")
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: run 't' has no match {'9' * 23} in {str(results)!r} (the index is the one "
                   "'bgfast report --matches' prints)\n")
    assert not Path("x.mat").exists()


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


@pytest.mark.parametrize(("argv", "abbreviated"), [
    (["rollout", "4HPwATDgc/ABMA", "--cube", "--trials", "36"], "--cube"),   # ran as --cubeful
    (["rollout", "4HPwATDgc/ABMA", "--trial", "36"], "--trial 36"),          # ran as --trials 36
    (["bench", "games", "--gam", "3"], "--gam 3"),
    (["train", "bench", "--posi", "5"], "--posi 5"),
    (["train", "td", "run", "--gam", "5"], "--gam 5"),
])
def test_an_abbreviated_option_is_an_error_in_every_command(capsys: pytest.CaptureFixture[str],
                                                            argv: list[str], abbreviated: str) -> None:
    from bgfast.train.cli import _parser as train_parser

    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"bgfast: error: unrecognized arguments: {abbreviated} (see '") and err.count("\n") == 1
    parsers = [*_parsers(build_parser()), *_parsers(train_parser())]
    assert len(parsers) > 15 and not [p.prog for p in parsers if p.allow_abbrev]


def test_a_spec_name_too_long_for_a_file_name_is_refused_at_validation(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # was exit 1 "File name too long" when the default results file was made
    monkeypatch.chdir(tmp_path)
    Path("long.toml").write_text(SPEC.format(name="n" * 300))
    code, out, err = run(capsys, "tournament", "long.toml")
    assert (code, out) == (2, "")
    assert err.startswith("bgfast: error: name: must be at most 200 characters (it names the results file), "
                          "got 300: 'nnnn") and err.count("\n") == 1 and len(err) < 250
    assert not Path("results").exists()


@pytest.mark.parametrize("argv", [
    ["play", "--player", "random", "--player", "random", "--mat", ""],
    ["play", "--player", "random", "--player", "random", "--sgf", ""],
    ["tournament", "t.toml", "--db", ""],
    ["export", "t.sqlite", "--all", "--mat-dir", ""],
])
def test_an_empty_output_file_name_is_refused(capsys: pytest.CaptureFixture[str], results: Path,
                                              argv: list[str]) -> None:
    # play --mat '' was silently ignored (exit 0, no file)
    Path("t.toml").write_text(SPEC.format(name="t"))
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    option = argv[-2]
    assert err == f"bgfast: error: {option} '': give a {'folder' if option.endswith('dir') else 'file'}'s name\n"


@pytest.mark.parametrize(("argv", "first", "second"), [
    (["play", "--player", "random", "--player", "random", "--sgf", "x", "--mat", "./x"], "--mat", "--sgf"),
    (["report", "t.sqlite", "--matches", "F", "--pairings", "F"], "--matches", "--pairings"),
    (["report", "t.sqlite", "--pairings", "F.png", "--plot", "F"], "--pairings", "--plot"),
])
def test_two_output_options_naming_one_file_are_refused(capsys: pytest.CaptureFixture[str], results: Path,
                                                         argv: list[str], first: str, second: str) -> None:
    # one file was silently written over the other
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"bgfast: error: {first} and {second} name the same file ")
    assert err.endswith(": one would overwrite the other; name two files\n")
    assert not [p.name for p in Path().iterdir() if p.name in ("x", "F", "F.png")]


@pytest.mark.parametrize("argv", [
    ["tournament", "t.toml", "--db", "x" * 3000 + ".sqlite"],
    ["report", "x" * 3000 + ".sqlite"],
    ["export", "t.sqlite", "--match", "0", "--mat", "x" * 3000],
])
def test_a_path_too_long_for_the_system_is_named_shortened(capsys: pytest.CaptureFixture[str], results: Path,
                                                           argv: list[str]) -> None:
    # was SQLite's "unable to open database file"
    Path("t.toml").write_text(SPEC.format(name="t"))
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    long = next(a for a in argv if len(a) >= 3000)
    assert err.count("\n") == 1 and len(err) < 300
    assert "x" * 40 + "..." + "x" * 40 in err
    assert f"a path of {len(long):,} characters, too long for the system (at most " in err
