"""Match history (bgfast.history) and the Jellyfish .mat export (bgfast.matfile).

The re-import tests use the ``gnubg`` package (the full GNU Backgammon engine,
extra ``bgfast[gnubg-full]``) and skip when it is not installed.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bgfast.bots import Bot, CubeResponse, get_bot
from bgfast.cli import main
from bgfast.game import MatchRecord, play_match
from bgfast.history import MatchHistory, play_match_with_history
from bgfast.match import MatchState, Rules
from bgfast.matfile import mat_text, write_mat
from bgfast.position import Position


class PipCubeBot(Bot):
    """Plays like cubeless pubeval; doubles when 12+ pips ahead, passes when 30+ behind."""

    name = "pipcube"

    def __init__(self, beaver: bool = False) -> None:
        self.pubeval = get_bot("pubeval", cube="never")
        self.beaver = beaver

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        return self.pubeval.choose_move(position, dice, match)

    def should_double(self, position: Position, match: MatchState) -> bool:
        theirs, mine = position.pip_count()
        return mine + 12 <= theirs

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        theirs, doubler = position.pip_count()  # the doubler is on roll
        if doubler + 30 <= theirs:
            return CubeResponse.PASS
        return CubeResponse.BEAVER if self.beaver else CubeResponse.TAKE


def _history(length: int = 5, seed: int = 1, **kw: object) -> MatchHistory:
    return play_match_with_history(PipCubeBot(), PipCubeBot(), length=length, seed=seed, **kw)


# ------------------------------------------------------------------ history


@pytest.mark.parametrize("length", [0, 1, 3, 7])
@pytest.mark.parametrize("cube", ["never", "keith"])
def test_the_history_replay_is_the_same_match_as_the_fast_c_loop(length: int, cube: str) -> None:
    for seed in range(3):
        history = play_match_with_history(get_bot("pubeval", cube=cube), get_bot("pubeval"), length=length,
                                          seed=seed, index=7)
        assert history.record == play_match(get_bot("pubeval", cube=cube), get_bot("pubeval"),
                                            length=length, seed=seed, index=7)


def test_every_recorded_play_is_legal_and_leads_to_the_next_turn() -> None:
    history = _history(length=7, seed=2)
    assert len(history.games) == len(history.record.games)
    for game, turns in zip(history.record.games, history.games):
        moves = [t for t in turns if t.action == "move"]
        assert len(moves) == game.plies
        for before, after in zip(moves, moves[1:]):
            assert before.move in before.position.legal_moves(before.dice.high, before.dice.low)
            assert after.position == before.move.position.swap_sides()
        if game.kind == "pass":
            assert turns[-1].action == "pass" and turns[-2].action == "double"
        else:
            assert moves[-1].move.position.checkers()[1] == 0


def test_the_cube_actions_of_the_history_are_those_of_the_record() -> None:
    history = _history(length=7, seed=2)
    assert history.record.cube_actions > 0
    for game, turns in zip(history.record.games, history.games):
        doubles = [t for t in turns if t.action == "double"]
        answers = [t for t in turns if t.action in ("take", "pass", "beaver")]
        assert [t.player for t in doubles] == [d.by for d in game.doubles]
        assert [t.action != "pass" for t in answers] == [d.taken for d in game.doubles]


def test_scripted_dice_open_the_history() -> None:
    # Given player 0 rolls a 3 and player 1 a 1 for the opening, then 6-4
    history = play_match_with_history(get_bot("pubeval", cube="never"), get_bot("pubeval", cube="never"),
                                      length=1, dice=[3, 1, 6, 4])
    first, second = history.games[0][:2]
    assert (first.player, str(first.dice), str(first.move)) == (0, "31", "8/5 6/5")
    assert (second.player, str(second.dice)) == (1, "64")


def test_a_beaver_is_recorded_when_the_rules_allow_it() -> None:
    history = play_match_with_history(PipCubeBot(), PipCubeBot(beaver=True), length=0, seed=1,
                                      rules=Rules(beaver=True))
    actions = [t.action for turns in history.games for t in turns]
    assert "beaver" in actions
    beaver = next(t for turns in history.games for t in turns if t.action == "beaver")
    assert beaver.cube == 4


# ------------------------------------------------------------------ .mat text


def test_a_mat_file_has_the_header_the_games_and_the_running_score() -> None:
    history = _history(length=7, seed=2)
    text = mat_text(history, players=("alice", "bob"))
    lines = text.splitlines()
    assert lines[0] == " 7 point match"
    assert [l for l in lines if l.startswith(" Game ")] == [f" Game {i + 1}" for i in range(len(history.games))]
    scores = [tuple(map(int, re.findall(r": (\d+)", l))) for l in lines if l.startswith(" alice : ")]
    expected = [(0, 0)] + [g.score_after for g in history.record.games[:-1]]
    assert scores == expected
    assert lines[-1].strip() == "" and "and the match" in text.rstrip().splitlines()[-1]


def test_turns_are_numbered_rows_with_player_0_on_the_left() -> None:
    history = _history(length=7, seed=2)
    game = mat_text(history).split(" Game 2\n")[0].split(" Game 1\n")[1].splitlines()[1:]
    rows = [l for l in game if re.match(r"^\s*\d+\) ", l)]
    assert [int(l.split(")")[0]) for l in rows] == list(range(1, len(rows) + 1))
    first = history.games[0][0]
    cell = f"{first.dice.high}{first.dice.low}: "
    if first.player == 0:
        assert rows[0].startswith(f"  1) {cell}")
    else:
        assert rows[0].startswith("  1)" + " " * 29 + cell)


def test_cube_actions_are_written_as_doubles_takes_and_drops() -> None:
    text = mat_text(_history(length=7, seed=2))
    assert re.search(r"\)  Doubles => 2", text) or re.search(r" {2,}Doubles => 2", text)
    assert "Takes" in text and "Drops" in text


def test_a_game_ended_by_a_drop_has_no_wins_line() -> None:
    history = _history(length=7, seed=2)
    games = mat_text(history).split(" Game ")[1:]
    for game, record in zip(games, history.record.games):
        assert ("Wins" in game) == (record.kind != "pass")


def test_a_roll_that_cannot_be_played_is_written_as_the_dice_alone() -> None:
    history = _history(length=7, seed=2)
    dance = next(t for turns in history.games for t in turns if t.action == "move" and not t.move.checker_moves)
    assert re.search(rf"(^|\s){dance.dice.high}{dance.dice.low}:(\s\s|$)", mat_text(history), re.MULTILINE)


def test_plays_are_written_one_checker_step_per_die_with_bar_25_and_off_0() -> None:
    history = play_match_with_history(get_bot("pubeval", cube="never"), get_bot("random"), length=1, seed=4)
    text = mat_text(history)
    assert re.search(r"\b25/\d+", text) and re.search(r"\b\d/0\b", text)
    assert "bar" not in text and "off" not in text and "(" not in text.split("\n", 1)[1]


def test_the_winner_of_a_game_is_written_under_its_column() -> None:
    history = _history(length=7, seed=2)
    for game, block in zip(history.record.games, mat_text(history).split(" Game ")[1:]):
        wins = [l for l in block.splitlines() if "Wins" in l]
        if wins:
            assert wins[0].index("Wins") == (6 if game.winner == 0 else 34)


def test_write_mat_writes_the_same_text_to_a_path_and_to_a_file(tmp_path: Path) -> None:
    history = _history(length=3, seed=2)
    out = io.StringIO()
    write_mat(history.record, out, players=("a b", "c:d"), moves=history.games)
    write_mat(history, tmp_path / "m.mat", players=("a b", "c:d"))
    assert (tmp_path / "m.mat").read_text() == out.getvalue()
    assert " a_b : 0" in out.getvalue() and "c_d : 0" in out.getvalue()


def test_write_mat_needs_the_moves_of_a_plain_record() -> None:
    history = _history(length=3, seed=2)
    with pytest.raises(ValueError, match="needs the moves"):
        write_mat(history.record, io.StringIO())


def test_write_mat_needs_as_many_games_of_moves_as_the_record() -> None:
    history = _history(length=3, seed=2)
    with pytest.raises(ValueError, match="moves has 0 games"):
        write_mat(history.record, io.StringIO(), moves=[])


def test_write_mat_refuses_an_empty_player_name() -> None:
    with pytest.raises(ValueError, match="player 1 needs a non-empty name"):
        write_mat(_history(length=1), io.StringIO(), players=("a", "  "))


def test_write_mat_refuses_something_that_is_not_a_file() -> None:
    with pytest.raises(TypeError, match="a path or a text file"):
        write_mat(_history(length=1), 42)  # type: ignore[arg-type]


# ------------------------------------------------------------------ re-import with GNU Backgammon


def _gnubg_final_score(gnubg, path: Path) -> tuple[tuple[int, int], list[int]]:
    """Import ``path`` with gnubg; return its final score and each game's number of plays."""
    gnubg.command(f"import mat {path}")
    match = gnubg.match()
    last = match["games"][-1]["info"]
    score = [last["score-X"], last["score-O"]]
    if last.get("winner"):
        score["XO".index(last["winner"])] += last["points-won"]
    plays = [sum(1 for r in g["game"] if r["action"] == "move") for g in match["games"]]
    return (score[0], score[1]), plays


@pytest.mark.parametrize("length, seed, beaver", [(7, 2, False), (7, 0, False), (0, 1, True), (1, 4, False)])
def test_gnubg_imports_a_written_mat_file_and_reads_back_the_final_score(
        tmp_path: Path, length: int, seed: int, beaver: bool) -> None:
    gnubg = pytest.importorskip("gnubg")
    history = play_match_with_history(PipCubeBot(), PipCubeBot(beaver=beaver), length=length, seed=seed,
                                      rules=Rules(beaver=beaver))
    path = tmp_path / "match.mat"
    write_mat(history, path, players=("alice", "bob"))
    score, plays = _gnubg_final_score(gnubg, path)
    assert score == history.record.score
    assert plays == [sum(1 for t in turns if t.action == "move") for turns in history.games]


# ------------------------------------------------------------------ bgfast play --mat


def test_play_with_mat_writes_the_match_it_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out.mat"
    args = ["play", "--player", "pubeval", "--player", "pubeval:cube=never", "--length", "5", "--seed", "9"]
    assert main([*args, "--json"]) == 0
    plain = capsys.readouterr().out
    assert main([*args, "--json", "--mat", str(path)]) == 0
    assert capsys.readouterr().out == plain
    text = path.read_text()
    assert text.startswith(" 5 point match\n") and " pubeval : 0" in text and "pubeval_cube=never : 0" in text
    record = play_match(get_bot("pubeval"), get_bot("pubeval", cube="never"), length=5, seed=9)
    assert isinstance(record, MatchRecord)
    assert text.count(" Game ") == len(record.games)
