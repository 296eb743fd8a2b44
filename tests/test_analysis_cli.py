"""bgfast eval, hint, cube and show --svg on the command line: the JSON shapes, the same
numbers as the API, and one line with exit status 2 for bad input."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_helpers import assert_snapshot, fixed_terminal, run  # noqa: F401  (fixed_terminal: an autouse fixture)

from bgfast.analysis import analyse_cube, evaluate_position, rank_plays
from bgfast.bots import get_bot
from bgfast.match import GameState, MatchState
from bgfast.position import Position

START = "4HPwATDgc/ABMA"
MATCH7 = MatchState(length=7, score=(2, 4)).match_id()
PROBABILITY_KEYS = {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}


def _json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


# ---------------------------------------------------------------- eval


def test_eval_json_has_the_probabilities_and_equities(capsys):
    data = _json(capsys, "eval", START, "--json")
    assert set(data["probabilities"]) == PROBABILITY_KEYS
    assert {"cubeless_equity", "cubeful_equity", "ply", "cube_action", "score", "cube"} <= set(data)
    assert "mwc" not in data and data["ply"] == 0
    p = get_bot("neural").evaluate(Position(), plies=0)
    assert data["probabilities"]["win"] == p.win and data["cubeless_equity"] == pytest.approx(p.equity())


@pytest.mark.parametrize("ply", ["0", "1"])
def test_eval_equals_the_api_in_match_play(capsys, ply):
    data = _json(capsys, "eval", f"{START}:{MATCH7}", "--ply", ply, "--json")
    api = evaluate_position(f"{START}:{MATCH7}", ply=int(ply))
    assert data["probabilities"] == api.to_dict()["probabilities"]
    assert data["mwc"] == api.mwc and data["emg"] == api.cubeful_equity == data["cubeful_equity"]
    assert data["score"] == [2, 4] and data["length"] == 7 and data["ply"] == int(ply)


def test_a_cube_at_the_highest_value_is_dead_in_eval(capsys):
    # cube 64 (the default max_cube) owned by the side on roll: it cannot be turned again, so
    # the cubeful equity is the cubeless one, as a rollout played on finds
    code, out, _ = run(capsys, "eval", "4HPwATDgc/ABMA:BgEAAAAAAAAE", "--json")
    data = json.loads(out)
    assert (code, data["cube"], data["cube_owner"]) == (0, 64, "on roll")
    assert data["cubeful_equity"] == pytest.approx(data["cubeless_equity"], abs=1e-9)


def test_eval_text_names_the_equities(capsys):
    code, out, _ = run(capsys, "eval", START)
    assert code == 0
    assert "cubeless equity" in out and "cubeful equity" in out and "No double, take" in out


# ---------------------------------------------------------------- hint


def test_hint_json_lists_the_plays_best_first(capsys):
    data = _json(capsys, "hint", START, "31", "--json")
    plays = data["plays"]
    assert len(plays) == data["count"] == 16
    assert {"move", "position_id", "equity", "difference", "probabilities"} <= set(plays[0])
    assert set(plays[0]["probabilities"]) == PROBABILITY_KEYS
    assert plays[0]["move"] == "8/5 6/5" and plays[0]["difference"] == 0.0
    assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)
    api = rank_plays(START, "31")
    assert [p["move"] for p in plays] == [str(p.move) for p in api.plays]
    assert plays[0]["position_id"] == api.plays[0].move.position.id()


def test_hint_top_shows_the_k_best(capsys):
    data = _json(capsys, "hint", f"{START}:{MATCH7}", "64", "--top", "3", "--ply", "1", "--json")
    assert len(data["plays"]) == 3 and data["count"] == 14 and "mwc" in data["plays"][0]
    code, out, _ = run(capsys, "hint", START, "64", "--top", "2")
    assert code == 0 and " 2. " in out and " 3. " not in out


# ---------------------------------------------------------------- cube


def test_cube_json_has_the_three_equities_and_the_action(capsys):
    data = _json(capsys, "cube", START, "--json")
    assert {"no_double", "double_take", "double_pass", "action"} <= set(data)
    assert data["action"] == "No double, take" and data["double_pass"] == 1.0
    api = analyse_cube(START)
    assert (data["no_double"], data["double_take"]) == (api.no_double, api.double_take)


def test_cube_in_the_crawford_game(capsys):
    crawford = MatchState(length=7, score=(6, 3), crawford=True).match_id()
    data = _json(capsys, "cube", f"{START}:{crawford}", "--json")
    assert data["action"] == "Never double, take" and data["double_take"] is None and data["crawford"]
    code, out, _ = run(capsys, "cube", f"{START}:{crawford}")
    assert code == 0 and "Never double, take" in out and "Crawford" in out


# ---------------------------------------------------------------- bad input


CUBE_128 = f"{START}:{MatchState(cube_value=128, cube_owner=0).match_id()}"
NO_GAME = f"{START}:{MatchState(length=7, game_state=GameState.NONE).match_id()}"
RESIGNED = f"{START}:{MatchState(length=7, resigned=1).match_id()}"


@pytest.mark.parametrize("argv", [["eval"], ["hint", "31"], ["moves", "31"], ["cube"], ["rollout", "--trials", "36"],
                                  ["rollout", "--cube", "--trials", "36"]], ids=" ".join)
@pytest.mark.parametrize("position, words", [
    (CUBE_128, "the cube is at 128, above the highest cube the rules allow (64)"),
    (NO_GAME, "no game has started"),
], ids=["cube 128", "no game"])
def test_every_judging_command_refuses_a_match_state_alike(capsys, argv, position, words):
    """A cube above the highest and a Match ID of no game in play are refused by each
    command that plays or judges from the position, not answered by some."""
    code, out, err = run(capsys, argv[0], position, *argv[1:])
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err


@pytest.mark.parametrize("argv", [["eval"], ["cube"], ["show"], ["rollout", "--cube", "--trials", "36"]], ids=" ".join)
@pytest.mark.parametrize("match, words", [
    (MatchState(cube_value=64, cube_owner=1, player_on_roll=1, turn=0, double_offered=True),
     "the double offered is not one the rules allow: player 1 cannot double: the cube is at 64 and the maximum is 64"),
    (MatchState(length=3, score=(0, 1), cube_value=2, cube_owner=1, player_on_roll=1, turn=0, double_offered=True),
     "the double offered is not one the rules allow: player 1 cannot double: the cube is dead"),
], ids=["past the highest cube", "a dead cube"])
def test_a_pending_double_the_rules_forbid_is_refused_by_every_command(capsys, argv, match, words):
    code, out, err = run(capsys, argv[0], f"{START}:{match.match_id()}", *argv[1:])
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err


def test_a_cube_of_128_is_judged_where_an_xgid_allows_it(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:7:1:1:00:0:0:0:0:8"      # cube 2**7 of player 1, highest 2**8
    assert _json(capsys, "eval", xgid, "--json")["cube"] == 128


@pytest.mark.parametrize("argv, words", [
    (["hint", "31"], "a resignation is offered"), (["moves", "31"], "a resignation is offered"),
    (["cube"], "a resignation is offered"), (["rollout", "--cube", "--trials", "36"], "a resignation is offered"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_pending_resignation_leaves_no_roll_and_no_cube_decision(capsys, argv, words):
    code, out, err = run(capsys, argv[0], RESIGNED, *argv[1:])
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err


def test_eval_of_a_pending_resignation_gives_the_chances_without_a_cube_action(capsys):
    """The answer to a resignation turns on the chances: eval gives them, as before the
    roll, with no cube action (the decision pending is the answer)."""
    data = _json(capsys, "eval", RESIGNED, "--json")
    plain = _json(capsys, "eval", f"{START}:{MatchState(length=7).match_id()}", "--json")
    assert data["cube_action"] is None and plain["cube_action"] is not None
    assert data["cubeful_equity"] == pytest.approx(plain["cubeful_equity"])
    code, out, _ = run(capsys, "eval", RESIGNED)
    assert code == 0 and "no cube action: a resignation is offered" in out


@pytest.mark.parametrize("argv, words", [
    (["eval", "4HPwATDgc/ABMx"], "invalid Position ID"),
    (["eval", START, "--ply", "9"], "argument --ply: expected a whole number from 0 to 3, got '9'"),
    (["eval", START, "--ply", "-1"], "argument --ply: expected a whole number from 0 to 3, got '-1'"),
    (["eval", START, "--bot", "pubeval"], "no probabilities"),
    (["eval", START, "--bot", "nosuchbot"], "nosuchbot"),
    (["eval", START, "--pl", "1"], "unrecognized arguments"),
    (["hint", START, "71"], "dice"),
    (["hint", START], "give the dice"),
    (["hint", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"],
     "give the dice: 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10' does not say which were rolled"),
    (["hint", f"{START}:{MatchState(length=7, dice=(6, 4)).match_id()}", "31"], "6-4 were rolled"),
    (["hint", START, "31", "--top", "0"], "positive"),
    (["cube", f"{START}:{MatchState(length=7, dice=(3, 1)).match_id()}"], "before the roll"),
    (["cube", f"{START}:XXXXXXXXXXXX"], "Match ID"),
    (["show", START, "--svg", "/no/such/folder/board.svg"], "no folder"),
    (["show", START, "--dice", "31"], "--svg"),
    (["show", START, "--svg", "{tmp}/board.svg", "--dice", "77"], "dice"),
    (["show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--svg", "{tmp}/board.svg", "--dice", "31"],
     "the match state says 5-2 were rolled, not 3-1"),    # drew 31 over the XGID's 52
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, words):
    code, out, err = run(capsys, *(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert (code, out) == (2, "")                          # nothing printed before the error (show drew the board)
    assert err.count("\n") == 1 and err.startswith("bgfast: error:") and words in err
    assert not (tmp_path / "board.svg").exists()


def test_show_svg_into_a_folder_name_is_refused(capsys, tmp_path):
    code, _, err = run(capsys, "show", START, "--svg", str(tmp_path))
    assert code == 2 and "is a folder" in err


# ---------------------------------------------------------------- show --svg


def test_show_svg_writes_a_picture_that_parses(capsys, tmp_path):
    target = tmp_path / "board.svg"
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:2:4:0:7:3"
    code, out, err = run(capsys, "show", xgid, "--svg", str(target), "--dice", "64")
    assert code == 0 and "wrote the board" in err and "X on roll" in out
    root = ET.parse(target).getroot()
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {str(n) for n in range(1, 25)} <= set(texts)              # the points' numbers
    assert any("7-point match" in (t or "") for t in texts)
    assert sorted(os.listdir(tmp_path)) == ["board.svg"]            # no temporary file left behind


def test_hint_svg_of_a_roll_with_no_legal_play_names_it(capsys, tmp_path):
    # wrote "the best play, , to ..." and a title ending "43 played "
    target = tmp_path / "dance.svg"
    code, out, err = run(capsys, "hint", "27YBADjg/wMAYA", "43", "--svg", str(target))  # two on the bar, shut out
    assert code == 0 and "1. (no play)" in out and "wrote the best play, (no play), to" in err
    title = ET.parse(target).getroot().find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text is not None and title.text.endswith("43 played (no play)")


def test_show_svg_writes_through_a_link_and_into_a_device_without_replacing_them(capsys, tmp_path):
    # a new user's --svg /dev/full replaced the device with a plain file and said it wrote it
    real, link = tmp_path / "real.svg", tmp_path / "link.svg"
    real.write_text("old")
    link.symlink_to(real)
    code, _, _ = run(capsys, "show", START, "--svg", str(link))
    assert code == 0 and link.is_symlink() and real.read_text().startswith("<svg")
    if os.geteuid() != 0:
        return                                                       # making device nodes needs root
    full = tmp_path / "full"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))          # as /dev/full: every write fails
    code, _, err = run(capsys, "show", START, "--svg", str(full))
    assert code != 0 and "No space left on device" in err and stat.S_ISCHR(os.stat(full).st_mode)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_show_svg_renders_in_headless_chromium(capsys, tmp_path):
    svg, png = tmp_path / "board.svg", tmp_path / "board.png"
    assert run(capsys, "show", START, "--svg", str(svg), "--dice", "31")[0] == 0
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                           "--window-size=600,460", svg.as_uri()], capture_output=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000     # a picture, not a blank page


@pytest.mark.parametrize("command", ["eval", "hint", "cube"])
def test_help_text_matches_its_snapshot(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert_snapshot(f"help_{command}.txt", out)


def test_eval_with_the_dice_rolled_says_why_it_gives_no_cube_action(capsys):
    # the proper-cube-action line silently went away when the XGID said the dice were rolled
    code, out, _ = run(capsys, "eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert code == 0 and "proper cube action" not in out
    assert "no cube action: the dice are rolled (31)" in out


@pytest.mark.parametrize("command", ["eval", "hint", "show"])
def test_an_xgid_without_its_prefix_whose_board_starts_with_a_dash_is_a_position(capsys, command):
    # it read as an option: "the following arguments are required: POSITION"
    bare = "-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    code, out, err = run(capsys, command, bare)
    assert (code, err) == (0, "")
    assert (code, out) == run(capsys, command, "XGID=" + bare)[:2]


def test_the_crawford_reason_gives_the_score_in_the_headers_order(capsys):
    # the header said 4-2 (the side on roll first) and the reason 2-4 (player 0 first)
    code, out, _ = run(capsys, "cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10")
    assert code == 0 and "score 4-2 (the side on roll first, Crawford game)" in out
    assert "in the Crawford game (score 4-2, player 1's first, in a 5-point match)" in out


def test_board_svg_refuses_dice_other_than_those_the_match_state_says_were_rolled():
    from bgfast.analysis import board_svg
    from bgfast.errors import InvalidDiceError

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    with pytest.raises(InvalidDiceError, match="says 5-2 were rolled, not 3-1"):
        board_svg(xgid, dice="31")
    assert board_svg(xgid, dice="25") == board_svg(xgid)


@pytest.mark.parametrize("command", [["eval", START], ["hint", START, "31"], ["cube", START]])
@pytest.mark.parametrize("engine", ["engine:gnubg", "command:bgfast engine --bot pubeval"])
def test_an_outside_engine_as_judge_is_refused_saying_it_gives_no_probabilities(capsys, command, engine):
    # was "bot 'engine:gnubg': no module named 'engine'"
    code, out, err = run(capsys, *command, "--bot", engine)
    assert (code, out) == (2, "") and "is an outside engine: it plays" in err and err.count("\n") == 1
