"""``bgfast play`` and ``bgfast bench games``, run in-process through ``bgfast.cli.main``.

Snapshots live in tests/snapshots/cli/ beside test_cli.py's; refresh them with
``UPDATE_SNAPSHOTS=1 pytest tests/test_cli_play.py`` and review the diff.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bgfast
from bgfast.cli import main
from cli_helpers import SNAPSHOTS, UPDATE, assert_snapshot, fixed_terminal, run  # noqa: F401

PLAY = ["play", "--player", "pubeval", "--player", "random", "--length", "7", "--seed", "42"]
GAME_KEYS = ["number", "crawford", "cube", "doubles", "points", "winner", "kind", "score_after"]


# ---------------------------------------------------------------- play


def test_play_prints_the_match_game_by_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *PLAY)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "7-point match, seed 42, index 0: pubeval (player 0) vs random (player 1)"
    assert all(line.startswith(f"Game {i}") for i, line in enumerate(lines[1:-1], start=1))
    assert lines[-1].startswith("pubeval wins the match 7-")
    assert_snapshot("play_pubeval_random_7_seed42.txt", out)


def test_play_json_has_exactly_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *PLAY, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == ["length", "seed", "players", "score", "winner", "games"]
    assert (data["length"], data["seed"], data["players"]) == (7, 42, ["pubeval", "random"])
    for game in data["games"]:
        assert list(game) == GAME_KEYS
        assert all(list(d) == ["by", "taken"] for d in game["doubles"])
        assert game["kind"] in ("single", "gammon", "backgammon", "pass")
    assert data["score"] == data["games"][-1]["score_after"]
    assert data["score"][data["winner"]] >= 7
    assert_snapshot("play_pubeval_random_7_seed42.json", out)


@pytest.mark.parametrize("option", ["--mat", "--sgf"])
def test_play_checks_its_match_file_before_playing(option: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing" / "m.file"
    assert main([*PLAY, option, str(target)]) == 2  # bad input, as export's and report's output files
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"bgfast: error: {option} {str(target)!r}: there is no folder {str(target.parent)!r}"


def test_play_prints_the_same_match_for_the_same_seed_byte_for_byte(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--json"]):
        assert run(capsys, *PLAY, *extra) == run(capsys, *PLAY, *extra)


def test_play_prints_another_match_for_another_seed_or_index(capsys: pytest.CaptureFixture[str]) -> None:
    base = run(capsys, *PLAY, "--json")[1]
    assert run(capsys, *PLAY[:-1], "43", "--json")[1] != base
    assert run(capsys, *PLAY, "--index", "1", "--json")[1] != base


def test_play_length_zero_plays_one_money_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--player", "pubeval", "--player", "pubeval", "--length", "0",
                       "--seed", "3", "--json")
    data = json.loads(out)
    assert (code, data["length"], len(data["games"])) == (0, 0, 1)
    text = run(capsys, "play", "--player", "pubeval", "--player", "pubeval", "--length", "0", "--seed", "3")[1]
    assert text.startswith("money game, seed 3, index 0: pubeval (player 0) vs pubeval (player 1)\nGame 1:")


def test_play_passes_bot_options_and_rules_to_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    # pubeval doubles in races by the Keith count; with cube=never it never doubles
    argv = ["play", "--player", "pubeval:cube=never", "--player", "pubeval:cube=never", "--length", "11", "--json"]
    for seed in range(3):
        games = json.loads(run(capsys, *argv, "--seed", str(seed))[1])["games"]
        assert not any(g["doubles"] for g in games)
    games = json.loads(run(capsys, *argv, "--no-crawford")[1])["games"]
    assert not any(g["crawford"] for g in games)


def test_play_plays_the_variants(capsys: pytest.CaptureFixture[str]) -> None:
    for variant in ("nackgammon", "hypergammon"):
        code, out, err = run(capsys, *PLAY, "--variant", variant, "--json")
        assert (code, err) == (0, "")
        assert json.loads(out)["score"] == json.loads(out)["games"][-1]["score_after"]


def test_bench_games_with_a_cube_says_so_and_has_no_cubeless_peer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "games", "--bot", "pubeval:cube=keith", "--games", "20", "--json")
    data = json.loads(out)
    assert code == 0 and data["cube"] == "keith"
    assert data["gnubg_nn_games_per_s"] is None and data["vs_gnubg_nn"] is None
    text = run(capsys, "bench", "games", "--bot", "pubeval:cube=keith", "--games", "20")[1]
    assert text.startswith("self-play, money games, cube keith:") and "cubeless" not in text.splitlines()[0]
    assert "gnubg_nn: not measured (its loop plays cubeless pubeval only)" in text
    assert "--no-peers" in run(capsys, "bench", "games", "--bot", "pubeval", "--games", "5", "--no-peers")[1]


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("error_play_bad_bot_option", ["play", "--player", "pubeval:cube=sometimes", "--player", "random"]),
        ("error_play_bad_bot_spec", ["play", "--player", "pubeval:cube", "--player", "random"]),
        ("error_play_one_player", ["play", "--player", "pubeval"]),
        ("error_play_no_player", ["play"]),
        ("error_play_length_too_long", ["play", "--player", "pubeval", "--player", "random", "--length", "65"]),
        ("error_play_negative_length", ["play", "--player", "pubeval", "--player", "random", "--length", "-1"]),
        ("error_play_bad_length", ["play", "--player", "pubeval", "--player", "random", "--length", "seven"]),
        ("error_play_bad_max_cube", ["play", "--player", "pubeval", "--player", "random", "--max-cube", "48"]),
        ("error_play_unknown_variant", ["play", "--player", "pubeval", "--player", "random", "--variant", "acey"]),
    ],
)
def test_play_bad_input_prints_one_error_line_and_exits_with_status_2(
    capsys: pytest.CaptureFixture[str], name: str, argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("bgfast: error: ")
    assert_snapshot(f"{name}.txt", err)


@pytest.mark.parametrize("command", [["play", "--player", "pubeval", "--player"], ["bench", "games", "--bot"]])
def test_an_unknown_bot_is_one_error_line_quoting_the_name(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, err = run(capsys, *command, "gnubgx")
    assert (code, out) == (2, "")
    assert err.startswith("bgfast: error: unknown bot 'gnubgx'; known bots: ") and err.count("\n") == 1


def test_play_help_matches_its_snapshot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--help")
    assert code == 0
    assert_snapshot("help_play.txt", out)


def test_play_runs_as_a_command(tmp_path: Path) -> None:
    # outside the source tree (whose bgfast/ has no compiled core after `pip install .`),
    # with the bgfast that the tests import, installed or built in place
    env = {**os.environ, "PYTHONPATH": str(Path(bgfast.__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "bgfast", *PLAY], capture_output=True, text=True, check=True,
                          cwd=tmp_path, env=env)
    assert done.stdout == (SNAPSHOTS / "play_pubeval_random_7_seed42.txt").read_text(encoding="utf-8")


# ---------------------------------------------------------------- bench games


def test_bench_games_json_reports_games_per_second_and_plies_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "games", "--bot", "random", "--games", "20", "--no-peers", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert {"bot", "games", "games_per_s", "plies_per_game"} <= set(data)
    assert (data["bot"], data["games"]) == ("random", 20)
    assert data["games_per_s"] > 0 and data["plies_per_game"] > 20
    assert data["gnubg_nn_games_per_s"] is None and data["vs_gnubg_nn"] is None


def test_bench_games_compares_pubeval_with_the_gnubg_nn_loop_on_the_same_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("gnubg_nn")
    code, out, _ = run(capsys, "bench", "games", "--bot", "pubeval", "--games", "20", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["gnubg_nn_identical_games"] == 20
    assert data["gnubg_nn_plies_per_game"] == data["plies_per_game"]
    assert data["vs_gnubg_nn"] > 0
    text = run(capsys, "bench", "games", "--bot", "pubeval", "--games", "20")[1]
    assert "bgfast pubeval" in text and "pub_best_move loop" in text and "20 of 20" in text


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("error_bench_games_zero_games", ["bench", "games", "--games", "0"]),
    ],
)
def test_bench_games_bad_input_prints_one_error_line_and_exits_with_status_2(
    capsys: pytest.CaptureFixture[str], name: str, argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert_snapshot(f"{name}.txt", err)


def test_bench_games_help_matches_its_snapshot(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "games", "--help")
    assert code == 0
    assert_snapshot("help_bench_games.txt", out)
