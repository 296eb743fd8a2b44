"""bgfast analyse (bgfast/analysis/match_analysis.py, luck.py): every decision of a match
judged as gnubg's analyse match; the figures against their decisions, the oracle of each
decision (bgfast hint and cube), the luck's mean, bad files, and gnubg's own analysis."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from cli_helpers import assert_snapshot, fixed_terminal, run  # noqa: F401  (fixed_terminal: an autouse fixture)
from gnubg_oracle import GNUBG, requires_gnubg

from bgfast.analysis import Judge, Situation, analyse_cube, analyse_match, rank_plays, roll_luck
from bgfast.analysis.match_analysis import analyse_file, read_match_file
from bgfast.errors import InvalidMatchFileError
from bgfast.dice import ALL_21
from bgfast.formats.match_file import MatchReplay
from bgfast.match import MatchState, Rules
from bgfast.position import Position

PLAYER_KEYS = {"name", "checker_error_rate", "cube_error_rate", "luck_rate", "luck_adjusted_result", "rating",
               "total_moves", "unforced_moves", "checker_marks", "cube_decisions", "close_cube_decisions",
               "checker_error", "cube_error", "luck_total", "luck_marks", "actual_result", "error_rate"}
DECISION_KEYS = {"game", "move", "player", "kind", "dice", "chosen", "best", "error", "luck", "forced", "mark"}


@pytest.fixture(scope="module")
def match_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 5-point match of the neural bot against pubeval (who blunders and misses doubles), as .mat."""
    path = tmp_path_factory.mktemp("analyse") / "match.mat"
    from bgfast.cli import main
    assert main(["play", "--player", "neural", "--player", "pubeval", "--length", "5", "--seed", "3",
                 "--mat", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def analysed(match_file: Path) -> dict:
    return analyse_match(read_match_file(match_file)).to_dict()


def _blunder_match() -> MatchReplay:
    replay = MatchReplay(length=3, rules=Rules(), source="hand-made")
    replay.start_game("1")
    replay.roll("1", 0, "31", "24/21 24/23")       # the opening 31 played badly: 8/5 6/5 is right
    replay.roll("2", 1, "65", "24/13")
    replay.resign("3", winner=1, points=1)
    return replay


def test_the_json_has_players_and_decisions(capsys, match_file):
    code, out, err = run(capsys, "analyse", str(match_file), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert len(data["players"]) == 2 and data["ply"] == 0 and data["unit"] == "EMG"
    assert [p["name"] for p in data["players"]] == ["neural", "pubeval"]
    for player in data["players"]:
        assert PLAYER_KEYS <= set(player)
    assert data["decisions"] and all(DECISION_KEYS <= set(d) for d in data["decisions"])
    assert {d["kind"] for d in data["decisions"]} <= {"checker", "cube", "response"}


def test_the_text_is_laid_out_as_gnubgs_statistics(capsys, match_file):
    code, out, _ = run(capsys, "analyse", str(match_file))
    assert code == 0
    for label in ("Chequerplay statistics", "Unforced moves", "Error rate mEMG (MWC)", "Luck rate mEMG (MWC)",
                  "Close or actual cube decisions", "Overall rating", "Luck adjusted result"):
        assert label in out


def test_each_rate_is_its_total_per_decision(analysed):
    for index, player in enumerate(analysed["players"]):
        mine = [d for d in analysed["decisions"] if d["player"] == index]
        unforced = [d for d in mine if d["kind"] == "checker" and not d["forced"]]
        cube = [d for d in mine if d["kind"] != "checker" and d["close"]]
        moves = [d for d in mine if d["kind"] == "checker"]
        assert player["unforced_moves"] == len(unforced) and player["total_moves"] == len(moves)
        assert player["checker_error"] == pytest.approx(sum(d["error"] for d in unforced))
        assert player["checker_error_rate"] == pytest.approx(1000 * player["checker_error"] / len(unforced))
        assert player["close_cube_decisions"] == len(cube)
        if cube:
            assert player["cube_error_rate"] == pytest.approx(1000 * sum(d["error"] for d in cube) / len(cube))
        assert player["error_rate"] == pytest.approx(
            1000 * (player["checker_error"] + player["cube_error"]) / (len(unforced) + len(cube)))
        assert player["luck_rate"] == pytest.approx(1000 * sum(d["luck"] for d in moves) / len(moves))
        assert sum(player["checker_marks"].values()) == len(moves)
        assert sum(player["luck_marks"].values()) == len(moves)
        assert all(d["error"] >= 0 for d in mine)


def test_the_results_of_the_two_players_are_opposite(analysed):
    a, b = analysed["players"]
    assert a["actual_result"] == pytest.approx(-b["actual_result"])
    assert a["luck_adjusted_result"] == pytest.approx(-b["luck_adjusted_result"])
    assert abs(a["actual_result"]) == pytest.approx(0.5)       # a finished match: 100% less the 50% at the start


def test_pubeval_plays_worse_than_the_judge_itself(analysed):
    neural, pubeval = analysed["players"]
    assert neural["checker_error_rate"] < pubeval["checker_error_rate"]
    assert neural["checker_error_rate"] < 1.0       # the judge's own plays are its best (rounding aside)


def test_a_known_blunder_is_judged_as_hint_judges_it():
    analysis = analyse_match(_blunder_match().finish("3", players=("alice", "bob")))
    first = analysis.decisions[0]
    ranking = rank_plays("4HPwATDgc/ABMA:" + MatchState(length=3).match_id(), "31")
    chosen = next(p for p in ranking.plays if str(p.move) == "24/23 24/21")
    assert (first.player, first.kind, first.best) == (0, "checker", "8/5 6/5")
    assert first.error == pytest.approx(-chosen.difference) and first.error > 0.04
    alice = analysis.players[0]
    assert alice.unforced_moves == 1 and alice.checker_error == pytest.approx(first.error)
    assert alice.checker_error_rate == pytest.approx(1000 * first.error)
    assert alice.checker_marks[first.mark or "unmarked"] == 1


def test_a_checker_decisions_position_says_its_dice_so_hint_reads_it_back_alone(capsys):
    analysis = analyse_match(_blunder_match().finish("3", players=("alice", "bob")))
    first = analysis.decisions[0]
    assert first.position.startswith("4HPwATDgc/ABMA:")
    assert MatchState.from_match_id(first.position.split(":")[1]).dice == (3, 1)
    code, out, err = run(capsys, "hint", first.position, "--json")
    assert code == 0, err
    hint = json.loads(out)
    assert hint["dice"] == "31" and hint["plays"][0]["move"] == first.best
    equities = {str(p.move): p.equity for p in rank_plays(first.position).plays}
    assert equities[first.best] - equities[first.chosen] == pytest.approx(first.error)


def test_a_wrong_take_is_judged_from_the_doublers_cube_equities():
    replay = MatchReplay(length=0, rules=Rules(jacoby=False), source="hand-made")
    replay.start_game("1")
    replay.roll("1", 0, "65", "24/13")
    replay.roll("2", 1, "21", "13/11 6/5")
    replay.double("3", 0)
    replay.take("4", 1)
    replay.resign("5", winner=0, points=2)
    analysis = analyse_match(replay.finish("5"))
    no_double, double, take = (d for d in analysis.decisions if d.kind != "checker")
    assert (no_double.player, no_double.chosen, no_double.best, no_double.error) == (1, "No double", "No double", 0.0)
    assert (double.chosen, take.chosen, take.player) == ("Double", "Take", 1)
    assert double.best == "No double" and double.error > 0 and double.close
    assert take.best == "Take" and take.error == 0.0


def _last_roll_double() -> MatchReplay:
    """Money, no Jacoby: a last roll (each side one roll from off), doubled and taken; the
    double is right (``bgfast cube``: no double +0.278, double/take +0.556, exact)."""
    replay = MatchReplay(length=0, rules=Rules(jacoby=False), source="hand-made")
    replay.start_game("1")
    replay.set_position("2", Position("BQAACAEAAAAAAA"), 0)
    replay.double("3", 0)
    replay.take("3", 1)
    replay.roll("4", 0, "64", "5/off 1/off")
    replay.end_game("5", winner=0, points=2)
    return replay


@pytest.mark.parametrize("ply, cube_ply, judged_at", [(None, None, 1), (1, None, 1), (2, None, 2), (0, 1, 1),
                                                      (0, None, 0), (2, 0, 0)])
def test_cube_decisions_are_judged_as_bgfast_cube_judges_them_at_the_cube_ply(ply, cube_ply, judged_at):
    # were judged by the cube formulas on the checker play's probabilities at every --ply,
    # which call this last-roll double wrong
    analysis = analyse_match(_last_roll_double().finish("5"), ply=ply, cube_ply=cube_ply)
    double = next(d for d in analysis.decisions if d.chosen == "Double")
    expected = analyse_cube("BQAACAEAAAAAAA", ply=judged_at, rules=Rules(jacoby=False))
    assert analysis.cube_ply == judged_at and analysis.to_dict()["cube_ply"] == judged_at
    assert f"(cube decisions at {judged_at} ply," in analysis.text()
    assert double.best == expected.action.value.split(",")[0]
    assert (double.error == 0.0) == (judged_at >= 1)


def test_analyse_match_given_a_path_says_to_use_analyse_file(tmp_path):
    with pytest.raises(TypeError, match="analyse_file takes a file's path"):
        analyse_match(str(tmp_path / "m.mat"))  # type: ignore[arg-type]


def test_the_luck_of_the_36_rolls_averages_zero():
    judge = Judge.of("neural")
    for text in ("4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "4HPwATDgc/ABMA:" + MatchState(length=7, score=(5, 3),
                                                                                    cube_value=2, cube_owner=1).match_id()):
        s = Situation.read(text)
        total = sum(roll_luck(s, r, judge) * (1 if r.is_double else 2) for r in ALL_21)
        assert total == pytest.approx(0.0, abs=1e-9)


def test_the_opening_rolls_luck_averages_zero_over_both_players():
    judge = Judge.of("neural")
    s = Situation.read("4HPwATDgc/ABMA:" + MatchState(length=7, score=(2, 4)).match_id())
    other = Situation.read("4HPwATDgc/ABMA:" + MatchState(length=7, score=(2, 4), player_on_roll=1, turn=1).match_id())
    non_doubles = [r for r in ALL_21 if not r.is_double]
    mine = sum(roll_luck(s, r, judge, opening=True) for r in non_doubles)
    theirs = sum(roll_luck(other, r, judge, opening=True) for r in non_doubles)
    assert mine - theirs == pytest.approx(0.0, abs=1e-9)   # my luck when I play is my opponent's bad luck


@pytest.mark.parametrize("content, words", [
    (None, "cannot read match file"),
    (" 7 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/3 6/5\n", "line 5 (game 1, move 1): player 0's 31"),
    ("(;FF[4]GM[6]CA[UTF-8]MI[length:7][game:0][ws:0][bs:0];B[31hk];W[42xx])", "game 1, node"),
    ("", "not a .mat file"),
])
def test_a_bad_match_file_is_one_line_and_exit_2(capsys, tmp_path, content, words):
    path = tmp_path / ("m.sgf" if content and content.startswith("(;") else "m.mat")
    if content is not None:
        path.write_text(content)
    code, out, err = run(capsys, "analyse", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bgfast: error:") and words in err, err


def test_help_text_matches_its_snapshot(capsys):
    code, out, _ = run(capsys, "analyse", "--help")
    assert code == 0
    assert_snapshot("help_analyse.txt", out)


# ---------------------------------------------------------------- gnubg's own analysis


def _gnubg_statistics(path: Path, tmp: Path) -> dict[str, list[str]]:
    """gnubg 1.07's ``show statistics match`` of the match in ``path`` analysed at 0 ply: label -> the
    numbers of its row (the first row of a label: the checker play's error rate)."""
    commands = ("set analysis chequerplay evaluation plies 0\nset analysis cubedecision evaluation plies 0\n"
                f"import mat {path}\nanalyse match\nshow statistics match\n")
    done = subprocess.run([str(GNUBG), "-t", "-q"], input=commands, env={**os.environ, "HOME": str(tmp)},
                          cwd=tmp, capture_output=True, text=True, errors="replace", timeout=600)
    rows: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        if len(cells) == 2:
            rows.setdefault(cells[0], re.findall(r"[-+]?\d+(?:\.\d+)?", cells[1]))
    return rows


@requires_gnubg
def test_gnubg_counts_the_same_moves_and_cube_decisions_and_the_same_player_errs_more(analysed, match_file,
                                                                                         tmp_path):
    gnubg = _gnubg_statistics(match_file, tmp_path)
    ours = analysed["players"]
    for label, key in (("Total moves", "total_moves"), ("Unforced moves", "unforced_moves"),
                       ("Total cube decisions", "cube_decisions")):
        assert [int(c) for c in gnubg[label]] == [ours[0][key], ours[1][key]], label
    rate = [float(c) for c in gnubg["Error rate mEMG (MWC)"]]      # normalised, (MWC), for each player
    theirs = [rate[0], rate[2]]
    assert (theirs[0] > theirs[1]) == (ours[0]["checker_error_rate"] < ours[1]["checker_error_rate"])


def test_ctrl_c_keeps_the_games_judged_before_it(match_file):
    match = read_match_file(match_file)
    first_game = len(match.history.games[0])
    calls = 0

    def progress(n: int) -> None:
        nonlocal calls
        calls += n
        if calls == first_game + 3:        # in the second game
            raise KeyboardInterrupt

    analysis = analyse_match(match, progress=progress)
    assert analysis.interrupted and analysis.games == 1
    assert {d.game for d in analysis.decisions} == {1}
    assert "interrupted" in analysis.text()


def test_the_statistics_print_no_negative_zero(match_file):
    # was "-0.000 ( -0.000%)" for figures a hair below zero
    import dataclasses

    result = analyse_match(read_match_file(match_file))
    tiny = {"checker_error": 1e-6, "checker_cost": 1e-8, "luck_total": -1e-6, "luck_cost": -1e-8,
            "actual_result": -1e-7, "luck_adjusted_result": -1e-7}
    result = dataclasses.replace(result, players=tuple(dataclasses.replace(p, **tiny) for p in result.players))
    text = result.text()
    assert not re.search(r"-0\.0+(?![0-9])", text) and "+0.000 ( +0.000%)" in text


def test_moves_are_numbered_as_the_mat_files_rows_with_the_player(capsys, match_file):
    # finding 14: decisions were numbered by half-moves ("game 1, move 19" for the file's row "10)")
    from bgfast.formats.mat import _columns

    rows, game = [], 0
    for line in match_file.read_text().splitlines():
        if line.strip().startswith("Game "):
            game += 1
        number = re.match(r"^\s*(\d+)\)", line)
        if number and game == 1:
            for player, cell in enumerate(_columns(line)):
                if re.match(r"^\d\d:", cell.strip()):
                    rows.append((int(number.group(1)), player))
    decisions = [(d["move"], d["player"]) for d in analyse_match(read_match_file(match_file)).to_dict()["decisions"]
                 if d["game"] == 1 and d["kind"] == "checker"]
    assert decisions == rows and len({m for m, _ in rows}) < len(rows)  # both players' plays of a row share it
    code, out, err = run(capsys, "analyse", str(match_file))
    assert code == 0, err
    marked = re.findall(r"game (\d+), move (\d+), (\w+):", out)
    assert marked and all(name in ("neural", "pubeval") for _, _, name in marked)


def _cut_in_the_last_game(match_file: Path, tmp_path: Path, rows: int) -> Path:
    """The .mat file stopped after ``rows`` numbered rows of its last game (a match in progress)."""
    lines = match_file.read_text().splitlines()
    last = max(i for i, line in enumerate(lines) if line.strip().startswith("Game "))
    cut = tmp_path / "in-progress.mat"
    cut.write_text("\n".join(lines[:last + 2 + rows]) + "\n")
    return cut


@pytest.mark.parametrize("rows", [1, 6])
def test_a_match_in_progress_is_judged_as_far_as_it_goes(match_file, tmp_path, rows):
    """A file that stops in its last game (gnubg analyses a match in progress): every decision
    made is judged as in the whole match, and the results are of the finished games."""
    cut = _cut_in_the_last_game(match_file, tmp_path, rows)
    with pytest.raises(InvalidMatchFileError, match="has no end"):
        read_match_file(cut)                                   # only when asked for
    whole = analyse_match(read_match_file(match_file))
    part = analyse_file(cut)
    assert part.unfinished and not whole.unfinished and part.games == whole.games
    assert part.decisions and part.decisions == whole.decisions[:len(part.decisions)]
    last = [d for d in part.decisions if d.game == part.games]
    assert last and max(d.move for d in last) == rows
    finished = [d for d in part.decisions if d.game < part.games]
    for me in (0, 1):
        p = part.players[me]
        luck = [sum(d.luck_cost or 0.0 for d in finished if d.player == who and d.luck_cost is not None)
                for who in (me, 1 - me)]
        assert p.luck_adjusted_result == pytest.approx(p.actual_result - luck[0] + luck[1])
        assert p.luck_total == pytest.approx(sum(d.luck or 0.0 for d in part.decisions if d.player == me))
    if part.games == 1:
        assert [p.actual_result for p in part.players] == [0.0, 0.0]
    text = part.text()
    assert "unfinished" in text.splitlines()[0] and "not in them)" in text
    assert analyse_file(match_file).decisions == whole.decisions   # a whole match reads as before


def test_a_match_in_progress_stopped_at_a_roll_not_yet_played_leaves_it_out(match_file, tmp_path):
    cut = _cut_in_the_last_game(match_file, tmp_path, 2)
    played = read_match_file(cut, unfinished=True).unfinished
    cut.write_text(cut.read_text() + "  3) 52:\n")     # 52 rolled, its play still to come
    match = read_match_file(cut, unfinished=True)
    assert played is not None and match.unfinished == played
    assert analyse_match(match).unfinished


def test_an_sgf_match_in_progress_is_read_unfinished_only_without_a_result(tmp_path):
    from bgfast.cli import main

    path = tmp_path / "m.sgf"
    assert main(["play", "--player", "pubeval", "--player", "random", "--length", "1", "--seed", "5",
                 "--sgf", str(path)]) == 0
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.sgf"
    cut.write_text("\n".join(lines[:9]) + ")\n")
    with pytest.raises(InvalidMatchFileError, match="ends without a finish"):
        read_match_file(cut, unfinished=True)                  # RE[...] says it ended: it did not
    cut.write_text(re.sub(r"RE\[[^]]*\]", "", cut.read_text()))
    match = read_match_file(cut, unfinished=True)
    assert match.history.record.games == () and match.unfinished is not None
    assert len(match.unfinished.turns) == 8 and match.unfinished.number == 1
    whole = read_match_file(path)
    assert match.unfinished.turns == whole.history.games[0][:8]


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon"])
def test_a_variants_match_is_refused_not_judged_as_standard(capsys, tmp_path, variant):
    path = tmp_path / "v.sgf"
    assert run(capsys, "play", "--player", "pubeval", "--player", "random", "--length", "1", "--variant", variant,
               "--sgf", str(path))[0] == 0
    code, out, err = run(capsys, "analyse", str(path))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"the match is {variant}: the judges know standard backgammon only" in err


def test_a_mat_file_keeps_the_highest_cube_and_dead_cube_doubles(capsys, tmp_path):
    """Written as header tags and read back, so that analyse judges the doubles by the match's
    rules (a cube that may go no higher than 2 is dead once turned)."""
    mat, sgf = tmp_path / "m.mat", tmp_path / "m.sgf"
    assert run(capsys, "play", "--player", "heuristic", "--player", "pubeval", "--length", "3", "--max-cube", "2",
               "--dead-cube", "allow", "--mat", str(mat), "--sgf", str(sgf))[0] == 0
    assert ' ; [MaxCube "2"]' in mat.read_text() and ' ; [DeadCube "Allow"]' in mat.read_text()
    read = read_match_file(mat)
    assert (read.rules.max_cube, read.rules.dead_cube) == (2, "allow")
    assert read.rules == read_match_file(sgf).rules
    judged = [analyse_match(read_match_file(p), ply=0, cube_ply=0) for p in (mat, sgf)]
    assert [d.to_dict() for d in judged[0].decisions] == [d.to_dict() for d in judged[1].decisions]
