"""The ``bgfast`` command line, run in-process through ``bgfast.cli.main``.

Help texts, error lines and the main outputs are compared exactly with the files in
tests/snapshots/cli/.  After an intended change, refresh them with
``UPDATE_SNAPSHOTS=1 pytest tests/test_cli.py`` and review the diff.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bgfast
from bgfast import STARTING, Position
from bgfast.cli import main
from cli_helpers import SNAPSHOTS, UPDATE, assert_snapshot, fixed_terminal, run  # noqa: F401

DANCE_ID = "5nZGYABfDwAAAg"  # 4-3 cannot be played


# ---------------------------------------------------------------- moves


def test_moves_lists_every_play_with_its_resulting_position_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", "4HPwATDgc/ABMA", "31")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 16
    plays = {line.rsplit(None, 1)[0].strip(): line.rsplit(None, 1)[1] for line in lines}
    assert plays["8/5 6/5"] == STARTING.parse_move("8/5 6/5", "31").position.id()
    assert set(plays.values()) == {m.position.id() for m in STARTING.legal_moves(3, 1)}
    assert_snapshot("moves_opening_31.txt", out)


def test_moves_accepts_dice_written_3_dash_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "moves", "4HPwATDgc/ABMA", "3-1") == run(capsys, "moves", "4HPwATDgc/ABMA", "13")


def test_moves_json_is_a_list_of_moves_and_resulting_position_ids(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "moves", "4HPwATDgc/ABMA", "3-1", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 16
    assert all(set(item) == {"move", "position_id"} for item in data)
    for item in data:  # the resulting position is in the mover's view: parse_move gives it back
        assert STARTING.parse_move(item["move"], "31").position.id() == item["position_id"]
    assert {"move": "24/23 24/21", "position_id": "4HPwATDgc/ABEg"} in data
    assert_snapshot("moves_opening_31.json", out)


def test_moves_prints_one_empty_play_when_nothing_can_be_played(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", DANCE_ID, "43")
    assert (code, out) == (0, f"(no play)  {DANCE_ID}\n")
    code, out, _ = run(capsys, "moves", DANCE_ID, "43", "--json")
    assert json.loads(out) == [{"move": "", "position_id": DANCE_ID}]


def test_moves_of_a_double_use_repeat_counts(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "moves", "4HPwATDgc/ABMA", "33")
    plays = [line.rsplit(None, 1)[0].strip() for line in out.splitlines()]
    assert "8/5(2) 6/3(2)" in plays and "24/21(2) 13/10(2)" in plays


# ---------------------------------------------------------------- show


def test_show_draws_the_board_with_its_position_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", "4HPkQSDgc/ABMA")
    assert (code, err) == (0, "")
    assert out == Position("4HPkQSDgc/ABMA").diagram() + "\n"
    assert "Position ID: 4HPkQSDgc/ABMA" in out
    assert_snapshot("show_4HPkQSDgc_ABMA.txt", out)


# ---------------------------------------------------------------- errors: one line on stderr, status 2


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("error_bad_position_id", ["moves", "4HPwATDgc/AB!A", "31"]),
        ("error_short_position_id", ["show", "xx"]),
        ("error_impossible_position_id", ["show", "//////////////"]),
        ("error_bad_dice", ["moves", "4HPwATDgc/ABMA", "71"]),
        ("error_one_die", ["moves", "4HPwATDgc/ABMA", "3"]),
        ("error_unknown_command", ["frobnicate"]),
        ("error_no_command", []),
        ("error_unknown_option", ["moves", "4HPwATDgc/ABMA", "31", "--bogus"]),
        ("error_bench_without_what", ["bench"]),
        ("error_bench_bad_repeat", ["bench", "movegen", "--repeat", "x"]),
        ("error_bench_zero_repeat", ["bench", "movegen", "--repeat", "0"]),
    ],
)
def test_bad_input_prints_one_error_line_and_exits_with_status_2(
    capsys: pytest.CaptureFixture[str], name: str, argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("bgfast: error: ") and err.endswith("\n") and err.count("\n") == 1
    assert_snapshot(f"{name}.txt", err)


def test_the_error_line_quotes_the_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert "'4HPwATDgc/AB!A'" in run(capsys, "moves", "4HPwATDgc/AB!A", "31")[2]
    assert "'71'" in run(capsys, "moves", "4HPwATDgc/ABMA", "71")[2]
    assert "'frobnicate'" in run(capsys, "frobnicate")[2]


# ---------------------------------------------------------------- help


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("help", ["--help"]),
        ("help_moves", ["moves", "--help"]),
        ("help_show", ["show", "--help"]),
        ("help_bench", ["bench", "--help"]),
        ("help_bench_movegen", ["bench", "movegen", "--help"]),
    ],
)
def test_help_text_matches_its_snapshot(capsys: pytest.CaptureFixture[str], name: str, argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert_snapshot(f"{name}.txt", out)


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"bgfast {bgfast.__version__}\n")


# ---------------------------------------------------------------- bench


def test_bench_movegen_json_reports_the_figures_on_a_small_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "movegen", "--json", "--repeat", "1", "--positions", "20")
    assert (code, err) == (0, "")
    data = json.loads(out)
    for key in ("batch_us_per_generation", "api_us_per_generation", "generations", "results",
                "batch_plays_per_s", "gnubg_nn_us_per_generation", "batch_vs_gnubg_nn", "opening_31"):
        assert key in data
    assert data["generations"] == 40 * 21
    assert data["batch_us_per_generation"] > 0 and data["api_us_per_generation"] > 0
    assert data["opening_31"]["results"] == 16


def test_bench_movegen_text_names_each_tier(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "movegen", "--repeat", "1", "--positions", "10", "--no-peers")
    assert code == 0
    assert "batch" in out and "api" in out and "opening position, 3-1 (16 plays)" in out
    assert "us/generation" in out


# ---------------------------------------------------------------- as a program


def test_python_dash_m_bgfast_runs_the_command(tmp_path: Path) -> None:
    # run outside the source tree, with the bgfast that the tests import (installed or built in place)
    env = {**os.environ, "PYTHONPATH": str(Path(bgfast.__file__).resolve().parents[1])}

    def bgfast_cmd(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bgfast", *argv], capture_output=True, text=True,
                              timeout=120, check=False, cwd=tmp_path, env=env)

    proc = bgfast_cmd("moves", "4HPwATDgc/ABMA", "65")
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()].count("24/13") == 1
    bad = bgfast_cmd("show", "nope")
    assert bad.returncode == 2 and bad.stderr.startswith("bgfast: error: ") and bad.stdout == ""


# ------------------------------------------------------------------ moves: the match state's roll (issue 14)

@pytest.mark.parametrize("match_id, dice, message", [
    ("cAn3AAAAAAAE", "31", "the match state says 6-5 were rolled, not 3-1"),     # 6-5 rolled
    ("cBHgAAAAAAAE", "31", "no roll to play: a double is pending, player 0 is to take or pass"),
])
def test_moves_refuses_a_roll_the_match_id_does_not_allow(capsys: pytest.CaptureFixture[str], match_id: str,
                                                          dice: str, message: str) -> None:
    code = main(["moves", f"4HPwATDgc/ABMA:{match_id}", dice])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"bgfast: error: {message}\n")


def test_moves_lists_the_plays_of_the_roll_the_match_id_says_was_rolled(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "4HPwATDgc/ABMA:cAn3AAAAAAAE", "56"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[0] == "24/13"


def test_moves_without_dice_takes_the_dice_the_match_id_or_xgid_says_were_rolled(
        capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("4HPwATDgc/ABMA:cAn3AAAAAAAE", "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10"):
        assert main(["moves", text]) == 0
        without = capsys.readouterr().out
        dice = "56" if text.startswith("4HP") else "52"
        assert main(["moves", text, dice]) == 0 and capsys.readouterr().out == without != ""
    code, _, err = run(capsys, "moves", "4HPwATDgc/ABMA")
    assert code == 2 and err == "bgfast: error: give the dice: '4HPwATDgc/ABMA' does not say which were rolled\n"


def test_show_prints_the_match_state_an_xgid_or_match_id_states(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10")
    assert code == 0
    assert out.splitlines()[-2] == ("7-point match, score 3-2 (the side on roll first), cube 2 owned by the side "
                                    "on roll (player 1 on roll), dice 52")
    assert out.splitlines()[-1].startswith("Position ID 4HPwATDgc/ABMA  Match ID ")
    code, out, _ = run(capsys, "show", "4HPwATDgc/ABMA")
    assert code == 0 and "Match ID" not in out


def test_show_and_rollout_describe_the_match_state_in_the_same_words(capsys: pytest.CaptureFixture[str]) -> None:
    # Player 1 on roll with 2 points to player 0's 4: both commands put the side on roll's score first.
    text = "4HPwATDgc/ABMA:UQngAEAAEAAE"
    code, out, _ = run(capsys, "show", text)
    assert code == 0
    state = out.splitlines()[-2]
    assert state == ("7-point match, score 2-4 (the side on roll first), cube 2 owned by the side on roll "
                     "(player 1 on roll), dice not rolled")
    code, out, _ = run(capsys, "rollout", text, "--trials", "1", "--bot", "pubeval", "--no-luck")
    assert code == 0
    assert out.splitlines()[0] == "rollout of 4HPwATDgc/ABMA: " + state.removesuffix(", dice not rolled")
