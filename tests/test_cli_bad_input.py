"""What a new user meets on the command line (issue 29): bad input refused in one line with
exit status 2 before any work, options that do what they say, errors in the user's terms."""
from __future__ import annotations

import argparse
import os
import sys
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
    (["rollout", "4HPwATDgc/ABMA", "--cubef", "--trials", "36"], "--cubef"),   # ran as --cubeful
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


# ---------------------------------------------------------------- options and messages


def test_a_random_bots_seed_moves_its_choices_in_a_rollout_and_shows_in_the_header(
        capsys: pytest.CaptureFixture[str]) -> None:
    # seeds 5 and 6 gave identical results, and the header left the seed out
    def rollout(bot: str, *more: str) -> str:
        code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", bot, "--trials", "72",
                             "--no-variance-reduction", *more)
        assert (code, err) == (0, "")
        lines = out.splitlines()
        return lines[1].split(", 0.")[0] + "\n" + "\n".join(lines[3:])

    five, six, plain = rollout("random:seed=5"), rollout("random:seed=6"), rollout("random")
    assert five.startswith("random:cube=never,cube_efficiency=0.68,seed=5 on both sides, 72 trials")
    assert plain.startswith("random:cube=never,cube_efficiency=0.68 on both sides")
    assert len({five.split("\n", 1)[1], six.split("\n", 1)[1], plain.split("\n", 1)[1]}) == 3
    assert rollout("random:seed=5", "--workers", "2") == five


def test_a_train_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # printed the whole usage text
    for argv in (["train"], ["train", "td"], ["train", "curve", "x", "--jsn"]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "") and err.startswith("bgfast: error: ") and err.count("\n") == 1
        assert err.endswith("(see 'bgfast train --help')\n") or err.endswith("--help')\n")


@pytest.mark.parametrize("argv, message", [
    (["refine", "{tmp}/r", "--lookahead-weight", "inf"], "--lookahead-weight must be a number of at least 0.0, got inf"),
    (["labels", "{tmp}/l", "--blocks", "0"], "--blocks must be a whole number of at least 1, got 0"),
    (["td", "{tmp}/t", "--lr-half-games", "-3"], "--lr-half-games must be a whole number of at least 0, got -3"),
])
def test_train_errors_name_the_flags_typed_not_the_settings(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                             argv: list[str], message: str) -> None:
    # were "lookahead_weight must be...", "blocks must be...", "lr_half_games must be..."
    code, out, err = run(capsys, "train", *(word.format(tmp=tmp_path) for word in argv))
    assert (code, out, err) == (2, "", f"bgfast: error: {message}\n")
    assert not any(tmp_path.iterdir())


def test_a_rollout_refusal_names_the_match_in_user_terms(capsys: pytest.CaptureFixture[str]) -> None:
    # quoted MatchState.from_match_id('...')
    code, out, err = run(capsys, "rollout", "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "--bot", "random")
    assert (code, out) == (2, "")
    assert err == ("bgfast: error: a double is pending (money game, cube 1 centred (player 1 on roll), a double "
                   "offered to its opponent, Match ID cBEAAAAAAAAE): roll out the position before or after it, "
                   "or the double with cube=True (bgfast rollout --cube)\n")
    from bgfast.match import MatchState
    from bgfast.rollout import rollout

    with pytest.raises(ValueError, match=r"^the match is already over \(3-point match, .*Match ID") as info:
        rollout("4HPwATDgc/ABMA", match=MatchState(length=3, score=(3, 0), game_state=2), bot="random", trials=36)
    assert "MatchState" not in str(info.value)


PLUGIN = """
from bgfast.bots import get_bot


class Failing:
    name = "failing"

    def __init__(self):
        self.inner = get_bot("pubeval")

    def choose_move(self, position, dice, match):
        raise RuntimeError("the plugin fails on purpose")

    def should_double(self, position, match):
        return False

    def accept_double(self, position, match):
        return self.inner.accept_double(position, match)


def make():
    return Failing()
"""


def test_a_plugin_bot_that_raises_in_a_tournament_is_named_in_the_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the error gave the exception but not the player
    (tmp_path / "failing_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.chdir(tmp_path)
    Path("p.toml").write_text(SPEC.format(name="p").replace('name = "a"\nbot = "random"',
                                                            'name = "mine"\nbot = "failing_plugin:make"'))
    code, out, err = run(capsys, "tournament", "p.toml", "--workers", "1", "--quiet")
    assert (code, out) == (1, "")
    assert err == ("bgfast: error: a worker failed on chunk 0: player 'mine' (bot 'failing_plugin:make') failed: "
                   "RuntimeError: the plugin fails on purpose; finished chunks are saved, fix the cause and re-run "
                   "to resume\n")


def test_plot_without_matplotlib_is_one_line_naming_the_extra_as_the_readme_does(
        capsys: pytest.CaptureFixture[str], results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the README's --plot example failed after its own `pip install .`
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "report", str(results), "--plot", "r.png")
    assert (code, out) == (2, "")
    assert err == "bgfast: error: --plot needs matplotlib: pip install 'bgfast[plot]'\n"
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    example = readme.index("--plot quick.png")
    assert "pip install '.[plot]'" in readme[example:example + 600]
    assert "pip install 'bgfast[plot]'" in readme[example:example + 600]


# ---------------------------------------------------------------- output files


@pytest.mark.parametrize(("argv", "what"), [
    (["report", "t.sqlite", "--matches", "out.csv"], "the matches CSV"),
    (["report", "t.sqlite", "--pairings", "out.csv"], "the pairings CSV"),
    (["export", "t.sqlite", "--match", "0", "--sgf", "out.csv"], "the SGF file"),
    (["play", "--player", "pubeval", "--player", "random", "--length", "3", "--mat", "out.csv"], "the .mat file"),
])
def test_an_output_file_on_a_full_disk_is_named_and_leaves_no_truncated_file(
        results: Path, argv: list[str], what: str) -> None:
    # report --matches m.csv on a full disk left a truncated m.csv and said "[Errno 27] File too large"
    import resource
    import subprocess

    from tournament_helpers import child_env

    Path("out.csv").write_text("the file before\n")

    def small_files() -> None:  # the disk is full after 64 bytes of any file
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    done = subprocess.run([sys.executable, "-m", "bgfast", *argv], env=child_env(), capture_output=True, text=True,
                          preexec_fn=small_files, timeout=120)
    assert (done.returncode, done.stdout if argv[0] != "report" else "") == (1, "")
    assert done.stderr == f"bgfast: error: cannot write {what} 'out.csv': File too large; nothing was written\n"
    assert Path("out.csv").read_text() == "the file before\n"
    assert sorted(p.name for p in Path().iterdir() if "out" in p.name) == ["out.csv"]  # no temporary file left


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs Linux's /proc")
@pytest.mark.parametrize(("argv", "message"), [
    (["report", "t.sqlite", "--pairings", "/proc/p.csv"], "cannot write the pairings CSV '/proc/p.csv': its folder "
     "'/proc' takes no new file (No such file or directory); nothing was written"),
    (["export", "t.sqlite", "--match", "0", "--sgf", "/proc/version"], "cannot write the SGF file '/proc/version': "
     "its folder '/proc' takes no new file (No such file or directory); nothing was written"),
    (["export", "t.sqlite", "--all", "--mat-dir", "/proc/t"], "cannot make the --mat-dir folder '/proc/t': No such "
     "file or directory"),
    (["report", "t.sqlite", "--plot", "/proc/t.png"], "cannot write the ratings plot '/proc/t.png': its folder "
     "'/proc' takes no new file (No such file or directory); nothing was written"),
])
def test_an_output_file_in_a_place_that_takes_none_is_named(capsys: pytest.CaptureFixture[str], results: Path,
                                                            argv: list[str], message: str) -> None:
    # they said a bare "[Errno 5] Input/output error" or "[Errno 2] No such file or directory: '/proc/x'"
    if "--plot" in argv:
        pytest.importorskip("matplotlib")
    code, _out, err = run(capsys, *argv)
    reason = "No such file or directory" if os.geteuid() == 0 else "Permission denied"  # /proc: root gets ENOENT
    assert (code, err) == (1, f"bgfast: error: {message.replace('No such file or directory', reason)}\n")


def test_an_output_file_replaces_the_old_one_whole_keeps_its_mode_and_writes_through_a_link(
        capsys: pytest.CaptureFixture[str], results: Path) -> None:
    Path("real.csv").write_text("old\n")
    os.chmod("real.csv", 0o600)
    os.symlink("real.csv", "link.csv")
    code, _out, _err = run(capsys, "report", "t.sqlite", "--matches", "link.csv")
    assert code == 0 and Path("link.csv").is_symlink()
    assert Path("real.csv").read_text().startswith("index,player_a,") and os.stat("real.csv").st_mode & 0o777 == 0o600
    assert sorted(p.name for p in Path().iterdir() if p.suffix == ".csv" or ".tmp" in p.name) == ["link.csv",
                                                                                                   "real.csv"]


# ---------------------------------------------------------------- progress bars


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses a pseudo-terminal")
def test_the_progress_bar_on_a_terminal_of_0_columns_takes_80(tmp_path: Path) -> None:
    # it drew nothing: tqdm took the 0 columns the terminal reported
    from cli_helpers import on_terminal

    (tmp_path / "t.toml").write_text(SPEC.format(name="t"))
    code, out, shown = on_terminal(["tournament", "t.toml", "--workers", "1"], columns=0, cwd=tmp_path)
    assert code == 0 and out.startswith("t: 2 matches")
    last = shown.replace("\r\n", "\r").split("\r")[-2]
    assert last.startswith("t: 100%|") and "2/2 [" in last and len(last) == 79, repr(shown)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses a pseudo-terminal")
def test_export_all_shows_a_progress_bar_on_a_terminal(tmp_path: Path, results: Path) -> None:
    # a long run's export showed nothing until its end
    from cli_helpers import on_terminal

    code, out, shown = on_terminal(["export", "t.sqlite", "--all", "--mat-dir", "all"], columns=100, cwd=tmp_path)
    assert (code, out) == (0, "")
    lines = shown.replace("\r\n", "\r").split("\r")
    assert lines[-3].startswith("export: 100%|") and "2/2 [" in lines[-3] and " matches/s]" in lines[-3], repr(shown)
    assert lines[-2] == "wrote 2 matches to all"


# ---------------------------------------------------------------- messages and looks


def test_player_names_of_wide_characters_keep_the_reports_columns_in_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a CJK or emoji name took two columns a character and pushed its row out of line
    from bgfast.terminal import display_width

    monkeypatch.chdir(tmp_path)
    Path("w.toml").write_text(SPEC.format(name="w").replace('"a"', '"囲碁"').replace('"b"', '"🎲 dés"')
                              + '[[players]]\nname = "pubeval"\nbot = "pubeval"\n')
    code, out, _err = run(capsys, "tournament", "w.toml", "--db", "w.sqlite", "--workers", "1", "--quiet")
    assert code == 0
    code, report, _err = run(capsys, "report", "w.sqlite")
    assert code == 0 and report == out.split("\n\nresults:")[0] + "\n"
    lines = report.splitlines()
    players = lines[lines.index(next(x for x in lines if x.startswith("player "))) + 1:][:3]
    pairings = lines[lines.index(next(x for x in lines if x.startswith("pairing "))) + 1:][:3]
    assert sorted(row.split("  ")[0] for row in players) == ["pubeval", "囲碁", "🎲 dés"]
    assert all(row.count(" - ") == 1 for row in pairings)
    for rows in (players, pairings):  # fixed-width numbers after the names: rows as wide are in line
        assert len({display_width(row) for row in rows}) == 1, rows
    assert display_width("囲碁") == 4 and display_width("🎲 dés") == 6


EMPTY_XGID = "XGID=--------------------------:0:0:1:31:0:0:0:0:10"


@pytest.mark.parametrize("argv", [["moves", EMPTY_XGID], ["moves", EMPTY_XGID, "31"], ["show", EMPTY_XGID],
                                  ["show", "AAAAAAAAAAAAAA"]])
def test_a_board_where_both_sides_have_borne_off_everything_is_refused_in_the_users_terms(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # moves named a Position ID the user never typed ('AAAAAAAAAAAAAA'); show drew the board
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: {argv[1]!r} has no checker left on either side: no game reaches it (a game "
                   "ends when the first side has borne off all its checkers)\n")


def test_moves_and_rollout_in_a_finished_game_name_the_position_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    xgid = "XGID=-------------------------A:0:0:1:31:0:0:0:0:10"
    code, out, err = run(capsys, "moves", xgid)
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: the game in {xgid!r} is over: the side not on roll has borne off all its "
                   "checkers, so there is nothing to play\n")
    code, out, err = run(capsys, "rollout", xgid.replace(":31:", ":00:"), "--trials", "36")
    assert (code, out, err) == (2, "", f"bgfast: error: position {xgid.replace(':31:', ':00:')!r} is already over: "
                                       "nothing to roll out\n")


# ---------------------------------------------------------------- statistics from too little


MIRROR = """
name = "mirror"
match_length = 3
matches_per_pairing = {matches}
[[players]]
name = "a"
bot = "pubeval"
[[players]]
name = "b"
bot = "pubeval"
"""


def test_too_few_dice_pairs_give_no_standard_error_or_interval_and_say_so(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # four matches in two dice pairs, each split 1-1, reported "± pair 0.000" and an Elo interval of [+0.0, +0.0]
    import json

    monkeypatch.chdir(tmp_path)
    Path("m.toml").write_text(MIRROR.format(matches=4))
    assert run(capsys, "tournament", "m.toml", "--db", "m.sqlite", "--workers", "1", "--quiet")[0] == 0
    code, out, _err = run(capsys, "report", "m.sqlite")
    assert code == 0
    lines = out.splitlines()
    assert lines[2].split() == ["a", "4", "2", "50.0%", "+0.000", "n/a", "+0.0", "[", "n/a,", "n/a]"]
    assert lines[-2].split() == ["a", "-", "b", "4", "2", "2", "+0.000", "n/a", "n/a", "+0.0", "[", "n/a,", "n/a]",
                                 "n/a"]
    assert lines[-1] == ("(n/a: from fewer than 5 dice pairs (matches for ± ind), too few for a standard error, "
                         "an interval or a LOS to rest on)")
    code, out, _err = run(capsys, "report", "m.sqlite", "--json")
    data = json.loads(out)
    note = "2 dice pairs: too few for a standard error, an interval or a LOS (at least 5 dice pairs); they are null"
    for entry in (data["players"][0], data["pairings"][0]):
        assert entry["note"] == note and entry["ppg_se_paired"] is None
    assert data["players"][0]["elo_ci95"] is None and data["players"][0]["ppg_se"] is None
    assert data["pairings"][0]["elo_diff_ci"] is None and data["pairings"][0]["los"] is None
    # five pairs (MIN_SAMPLES_FOR_ERROR) are enough: numbers, no note
    Path("m.toml").write_text(MIRROR.format(matches=10))
    assert run(capsys, "tournament", "m.toml", "--db", "m10.sqlite", "--workers", "1", "--quiet")[0] == 0
    code, out, _err = run(capsys, "report", "m10.sqlite", "--json")
    data = json.loads(out)
    assert "note" not in data["pairings"][0] and "note" not in data["players"][0]
    assert None not in (data["pairings"][0]["ppg_se_paired"], data["pairings"][0]["elo_diff_ci"],
                        data["players"][0]["elo_ci95"], data["players"][0]["ppg_se"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses a pseudo-terminal")
def test_the_rollout_progress_bar_on_a_terminal_of_0_columns_takes_80(tmp_path: Path) -> None:
    # the rollout's own bar drew nothing there either
    from cli_helpers import on_terminal

    code, out, shown = on_terminal(["rollout", "4HPwATDgc/ABMA", "--trials", "2592", "--bot", "pubeval",
                                    "--no-luck", "--workers", "1"], columns=0, cwd=tmp_path)
    assert code == 0 and "trials" in out
    drawn = [line for line in shown.replace("\r\n", "\r").split("\r") if line.startswith("rollout: ")]
    assert drawn and all(len(line) == 79 for line in drawn), repr(shown)


@pytest.mark.parametrize("text", ["A" * 100_000, "4HPwATDgc/ABMA:" + "B" * 100_000, "XGID=" + "A" * 100_000])
def test_an_overlong_id_is_quoted_shortened_in_its_one_line_error(capsys: pytest.CaptureFixture[str],
                                                                   text: str) -> None:
    # a 100,000-character ID came back whole in the error line
    from bgfast.cli import main

    assert main(["eval", text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 300 and "..." in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--plays", "top:4", "--play", "8/5 6/5", "--dice", "31"],
     "give either --plays (every play, or top:K) or --play MOVE (one or several), not both"),
    (["--plays", "--play", "8/5 6/5", "--play", "24/21 6/5", "--dice", "31"], "give either --plays"),
    (["--prune-se", "2"], "--prune-se drops plays behind the best: give --plays or several --play too"),
    (["--prune-se", "0", "--plays", "--dice", "31"], "--prune-se must be a positive number, got 0.0"),
    (["--truncate-ply", "1"], "--truncate-ply is the plies a truncated trial is evaluated at: give --truncate N too"),
    (["--late-ply", "1"], "late evaluation needs both --late-ply and --late-after: --late-ply is given without "
                          "--late-after"),
    (["--late-after", "3"], "--late-after is given without --late-ply"),
    (["--target-se", "0"], "--target-se must be a positive number, got 0.0"),
    (["--target-se", "nan"], "--target-se must be a positive number, got nan"),
    (["--play", "8/5 6/5"], "--play needs the dice it is a play of: give --dice too, e.g. --dice 31"),
    (["--plays"], "--plays needs the dice it is a play of: give --dice too"),
    (["--late-ply", "9", "--late-after", "2"], "--late-ply must be an integer from 0 to 3, got 9"),
    (["--truncate", "5", "--truncate-ply", "-1"], "--truncate-ply must be an integer from 0 to 3, got -1"),
    (["--trials", "0"], "--trials must be an integer of at least 1, got 0"),
    (["--workers", "0"], "--workers must be an integer of at least 1, got 0"),
])
def test_rollout_errors_name_the_flags_typed_not_the_apis_parameters(capsys: pytest.CaptureFixture[str],
                                                                     argv: list[str], message: str) -> None:
    # were "give either plays=True or play=...", "give plays too", "give truncate=N too", "late_ply is given
    # without late_after", "target_se must be...", "a play needs the dice it is a play of"
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "36", *argv)
    assert (code, out) == (2, "")
    assert err.startswith("bgfast: error: ") and message in err and err.count("\n") == 1


def test_rollout_of_a_play_takes_the_dice_an_xgid_says_were_rolled(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--play",
                         "8/5 6/5", "--trials", "4", "--bot", "random", "--no-luck")
    assert code == 0, err


def test_rollout_extend_names_the_flags_typed_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from bgfast.rollout.saved import save_rollout

    save_rollout(tmp_path / "r.npz", "4HPwATDgc/ABMA", trials=72, seed=1, bot="random", luck=False)
    for argv, message in ((["--trials", "0"], "--trials must be an integer of at least 1, got 0"),
                          (["--target-se", "-1"], "--target-se must be a positive number, got -1.0")):
        code, out, err = run(capsys, "rollout", "--extend", str(tmp_path / "r.npz"), *argv)
        assert (code, out, err) == (2, "", f"bgfast: error: {message}\n")


# ---------------------------------------------------------------- a new user's findings (judging)

_L31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{dice}:3:2:0:31:10"
_BEYOND = ("match length 31 is beyond the 25-point match equity table 'Kazaross-XG2'; the tables bgfast ships "
           "hold at most 25 points, so longer matches can be played but not judged (luck, errors, match "
           "winning chances)")


@pytest.mark.parametrize("argv", [
    ["eval", _L31.format(dice="00")],
    ["cube", _L31.format(dice="00")],
    ["hint", _L31.format(dice="31")],
    ["rollout", _L31.format(dice="00"), "--trials", "36"],
    ["rollout", _L31.format(dice="00"), "--trials", "36", "--cubeful"],
    ["analyse", "l31.mat"],
])
def test_a_match_longer_than_the_table_is_refused_in_one_message_saying_what_to_do(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    # finding 5: analyse and eval named the table without advice, rollout spoke of "a table holding the score"
    monkeypatch.chdir(tmp_path)
    Path("l31.mat").write_text(" 31 point match\n\n Game 1\n alice : 0                  bob : 0\n"
                               "  1) 31: 8/5 6/5\n  2)  Wins 1 point\n")
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == f"bgfast: error: {_BEYOND}\n"


@pytest.mark.parametrize("command", ["cube", "eval"])
def test_a_double_offered_by_the_side_whose_opponent_owns_the_cube_is_refused(
        capsys: pytest.CaptureFixture[str], command: str) -> None:
    # finding 4: cube 2 owned by the top player, the bottom player on roll and a double offered: exit 0 before
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:D:3:2:0:7:10"
    code, out, err = run(capsys, command, xgid)
    assert (code, out) == (2, "")
    assert err == ("bgfast: error: the player on roll cannot have doubled: its opponent owns the cube (dice 'D' "
                   f"with cube position -1 and turn 1) in {xgid!r}; only the cube's owner, or either side with "
                   "the cube centred, may double\n")
    assert run(capsys, command, xgid.replace(":1:-1:1:D:", ":1:1:1:D:"))[0] == 0  # the owner's double


def test_a_match_id_with_a_double_by_the_side_whose_opponent_owns_the_cube_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    # finding 4, the Match ID path: 7-point match, 2-3, cube 2 owned by player 0, player 1 doubled
    code, out, err = run(capsys, "cube", "4HPwATDgc/ABMA:QRHgACAAGAAE")
    assert (code, out) == (2, "")
    assert err == ("bgfast: error: player 1 cannot have doubled: player 0 owns the cube (only the cube's owner, "
                   "or either player with the cube centred, may double) in Match ID 'QRHgACAAGAAE'\n")


def test_an_xgid_of_a_match_already_won_says_so_in_the_xgids_order(capsys: pytest.CaptureFixture[str]) -> None:
    # finding 11: was "score 0-5 has won ... (game_state OVER, RESIGNED or DROPPED), not PLAYING"
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:5:10"
    code, out, err = run(capsys, "eval", xgid)
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: the match is over: a side has 5 of 5 points (score 5:0) in {xgid!r}; give a "
                   "score below the match length\n")


def test_a_binary_file_given_as_a_mat_file_is_not_echoed(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # finding 12: random bytes were quoted back as Windows-1252 characters
    path = tmp_path / "bin.mat"
    path.write_bytes(bytes(range(256)) * 4)
    code, out, err = run(capsys, "analyse", str(path))
    assert (code, out) == (2, "")
    assert err == f"bgfast: error: {path}: line 1: control character '\\x00': not a text file, so not a .mat file\n"


def test_a_misplaced_score_line_is_quoted_whole(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # finding 12: the quote was cut at 40 characters: 'heuristic : 9 pubeval : '
    path = tmp_path / "m.mat"
    path.write_text(" 11 point match\n\n Game 1\n heuristic : 0                  pubeval : 0\n"
                    "  1) 31: 8/5 6/5                 \n heuristic : 9                  pubeval : 0\n")
    code, out, err = run(capsys, "analyse", str(path))
    assert (code, out) == (2, "")
    assert err == (f"bgfast: error: {path}: line 6: 'heuristic : 9 pubeval : 0' is not a numbered line or a "
                   "Wins line\n")


def test_train_whose_reader_goes_away_stops_quietly_as_unix_tools_do(tmp_path: Path) -> None:
    import subprocess

    from tournament_helpers import child_env

    child = subprocess.Popen([sys.executable, "-m", "bgfast", "train", "td", str(tmp_path / "run"), "--games", "4000",
                              "--contact-hidden", "8", "--race-hidden", "8", "--eval-every", "500", "--eval-pairs", "5"],
                             env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().startswith("20")        # `| head -1`: the first line, then the pipe closes
    child.stdout.close()
    err = child.stderr.read()
    assert child.wait(timeout=120) == 141
    assert err == ""
    assert (tmp_path / "run" / "log.txt").exists()


@pytest.mark.parametrize("argv, message", [
    (["rollout", "4HPwATDgc/ABMA", "--trials", "36", "--save", os.devnull],
     f"--save '{os.devnull}': it is not a regular file (a device or a pipe); name a file"),
    (["train", "prune", "bgfast/data/weights/neural.bgw", os.devnull],
     f"cannot write neural weights '{os.devnull}': it is not a regular file (a device or a pipe); name a file"),
])
def test_a_binary_output_to_a_device_is_refused_before_any_work(capsys: pytest.CaptureFixture[str],
                                                                argv: list[str], message: str) -> None:
    # /dev/stdout took the weights or the .npz mixed with the command's own lines
    argv = [str(Path(__file__).parents[1] / w) if w.endswith(".bgw") else w for w in argv]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "") and err.startswith("bgfast: error: ") and message in err


@pytest.mark.parametrize("argv", [["play", "--player", "neural:ply=9", "--player", "pubeval"],
                                  ["rollout", "4HPwATDgc/ABMA", "--bot", "neural:ply=9"],
                                  ["hint", "4HPwATDgc/ABMA", "31", "--bot", "neural:ply=9"]])
def test_a_bad_bot_option_names_the_spec_it_is_in(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # was "ply must be a whole number from 0 to 3, got 9": which of two players?
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", "bgfast: error: bot 'neural:ply=9': ply must be a whole number from 0 to 3, "
                                       "got 9\n")


def test_report_writes_its_files_before_its_table_so_a_reader_that_goes_away_costs_none(results: Path) -> None:
    # `bgfast report DB --matches m.csv | head -3` died on the closed pipe before it wrote m.csv
    import subprocess

    from tournament_helpers import child_env

    child = subprocess.Popen([sys.executable, "-m", "bgfast", "report", str(results), "--matches", "m.csv",
                              "--pairings", "p.csv"], env=child_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=results.parent)
    assert child.stdout is not None
    child.stdout.close()                                 # gone before the first line
    child.wait(timeout=60)
    assert (results.parent / "m.csv").read_text().count("\n") == 3       # the header and the two matches
    assert (results.parent / "p.csv").exists()


@pytest.mark.parametrize("argv", [["eval"], ["cube"], ["hint", "31"], ["moves", "31"], ["show"], ["rollout"]],
                         ids=" ".join)
def test_all_checkers_on_the_bar_is_refused_by_every_command(capsys: pytest.CaptureFixture[str],
                                                              argv: list[str]) -> None:
    both_on_the_bar = "AAAA/38AAAD/fw"      # 15 of each side on its bar: evaluated before
    code, out, err = run(capsys, argv[0], both_on_the_bar, *argv[1:])
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "has checkers on the bar and none on the points: no game reaches it" in err


@pytest.mark.parametrize("argv", [["eval"], ["cube"], ["hint", "31"], ["show"], ["rollout", "--trials", "36"]],
                         ids=" ".join)
def test_both_sides_on_the_bar_against_closed_boards_is_refused_by_every_command(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    deadlocked = "27YFAGDbtgUAYA"           # neither side could ever move: a rollout of it never ended
    code, out, err = run(capsys, argv[0], deadlocked, *argv[1:])
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "has both sides on the bar against closed boards: no game reaches it" in err
