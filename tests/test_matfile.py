"""Match history (bgfast.game) and the Jellyfish .mat export (bgfast.formats.mat).

GNU Backgammon's import of these files, action by action: tests/test_mat_gnubg.py.
"""
from __future__ import annotations

import codecs
import io
import re
from pathlib import Path

import pytest

from bgfast.bots import Bot, CubeResponse, get_bot
from bgfast.cli import main
from bgfast._core.rng import Stream
from bgfast.dice import Dice
from bgfast.formats.mat import mat_text, write_mat
from bgfast.game import MatchHistory, MatchPlayer, MatchRecord, play_match, play_match_with_history
from bgfast.match import MatchState, Rules
from bgfast.position import VARIANTS, Position, starting_position


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


# Every rule option, each in money and match play.
RULES = [Rules(), Rules(crawford=False), Rules(jacoby=False), Rules(beaver=True, jacoby=False), Rules(max_cube=2),
         Rules(max_cube=4, beaver=True), Rules(variant="nackgammon"), Rules(variant="hypergammon")]


class Spy(Bot):
    """A built-in bot asked from Python under the match's rules, writing down each decision it makes."""

    def __init__(self, bot: Bot, rules: Rules, log: list[tuple]) -> None:
        self.bot, self.rules, self.log = bot, rules, log
        self.name = bot.name

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        move = self.bot.choose_move(position, dice, match, rules=self.rules)  # type: ignore[call-arg]
        self.log.append(("move", match.player_on_roll, position, dice, move.position))
        return move

    def should_double(self, position: Position, match: MatchState) -> bool:
        answer = self.bot.should_double(position, match, rules=self.rules)  # type: ignore[call-arg]
        self.log.append(("offer", match.player_on_roll, position, answer))
        return answer

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        answer = self.bot.accept_double(position, match, rules=self.rules)  # type: ignore[call-arg]
        self.log.append(("answer", match.turn, position, int(answer)))
        return answer


def _cube_bots() -> tuple[Bot, Bot]:
    # the second one's weak recube vig makes it beaver when beavers are allowed
    return get_bot("heuristic"), get_bot("heuristic", cube="janowski", cube_efficiency=0.2)


def _decisions_asked(history: MatchHistory) -> list[tuple]:
    """The decisions the loop asks for in ``history``: plays with a choice, doubles, answers."""
    asked: list[tuple] = []
    for turns in history.games:
        for turn in turns:
            if turn.action == "move":
                assert turn.dice is not None and turn.move is not None
                if len(turn.position.legal_moves(turn.dice.high, turn.dice.low)) > 1:
                    asked.append(("move", turn.player, turn.position, turn.dice, turn.move.position))
            elif turn.action == "double":
                asked.append(("offer", turn.player, turn.position, True))
            else:
                asked.append(("answer", turn.player, turn.position.swap_sides(), ("pass", "take", "beaver").index(turn.action)))
    return asked


def _check_against_the_rules(history: MatchHistory, rules: Rules, length: int, seed: int, index: int) -> None:
    """Replay ``history`` with the Python model: the dice of the match's stream, legal plays
    from the variant's start, cube actions the rules allow, and the record's results."""
    dice = Stream(seed, index, 0)
    checkers = sum(VARIANTS[rules.variant][1])
    score = [0, 0]
    for game, turns in zip(history.record.games, history.games, strict=True):
        while True:
            a, c = dice.die(), dice.die()
            if a != c:
                break
        player, pos, cube, owner, roll = (0 if a > c else 1), starting_position(rules.variant), 1, -1, Dice(a, c)
        i = 0
        while True:
            turn = turns[i]
            assert (turn.player, turn.position) == (player, pos), (game.number, i)
            if turn.action == "double":
                answer = turns[i + 1]
                assert roll is None and not game.crawford and owner in (-1, player) and turn.cube == 2 * cube
                assert length == 0 or length - score[player] > cube            # not a dead cube
                assert answer.player == 1 - player and answer.position == pos.swap_sides()
                if answer.action == "pass":
                    assert i + 2 == len(turns) and answer.cube == 2 * cube
                    assert (game.kind, game.winner, game.points) == ("pass", player, cube)
                    break
                beaver = answer.action == "beaver"
                assert answer.action == "take" or (length == 0 and rules.beaver and 4 * cube <= rules.max_cube)
                cube, owner = cube * (4 if beaver else 2), 1 - player
                assert answer.cube == cube and cube <= rules.max_cube
                i += 2
                continue
            if roll is None:
                roll = Dice(dice.die(), dice.die())
            assert turn.action == "move" and turn.dice == roll and turn.cube == cube
            assert turn.move in pos.legal_moves(roll.high, roll.low)
            i += 1
            after = turn.move.position
            if after.checkers()[1] == 0:
                outcome = after.outcome(checkers)
                assert outcome is not None and i == len(turns)
                single = length == 0 and rules.jacoby and owner == -1
                assert (game.kind, game.winner, game.cube) == (outcome.kind, player, cube)
                assert game.points == cube * (1 if single else outcome.points)
                break
            pos, player, roll = after.swap_sides(), 1 - player, None
        score[game.winner] += game.points
        assert game.score_after == tuple(score)


@pytest.mark.parametrize("rules", RULES, ids=[str(r) for r in RULES])
@pytest.mark.parametrize("length", [0, 5])
def test_the_recorded_match_is_the_played_match_turn_by_turn_for_every_rule_option(rules: Rules, length: int) -> None:
    bots = _cube_bots()
    fast = MatchPlayer(*bots, length=length, rules=rules)
    log: list[tuple] = []
    asked = MatchPlayer(Spy(bots[0], rules, log), Spy(bots[1], rules, log), length=length, rules=rules)
    actions: set[str] = set()
    for index in range(6 if length else 25):
        history = fast.history(seed=3, index=index)
        # the match with the record kept is the match played without it
        assert history.record == fast.record(seed=3, index=index)
        _check_against_the_rules(history, rules, length, 3, index)
        # the built-in bots asked from Python, under the rules, play the same match, and every
        # decision they were asked is a turn of the record, in order
        log.clear()
        assert asked.history(seed=3, index=index) == history
        assert [entry for entry in log if entry[:1] != ("offer",) or entry[3]] == _decisions_asked(history)
        actions |= {t.action for turns in history.games for t in turns}
    assert {"move", "double", "take"} <= actions
    if rules.beaver and length == 0 and rules.max_cube >= 4:
        assert "beaver" in actions


@pytest.mark.parametrize("extra", [["--max-cube", "2"], ["--beaver", "--length", "0"], ["--max-cube", "4", "--beaver",
                                                                                        "--length", "0"]])
def test_play_with_mat_records_the_match_it_plays_whatever_the_cube_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    path = tmp_path / "out.mat"
    args = ["play", "--player", "heuristic", "--player", "heuristic:cube=janowski,cube_efficiency=0.2",
            "--length", "7", "--json", *extra]
    for seed in range(4):
        assert main([*args, "--seed", str(seed)]) == 0
        plain = capsys.readouterr().out
        assert main([*args, "--seed", str(seed), "--mat", str(path)]) == 0
        assert capsys.readouterr().out == plain
        games = plain.count('"number"')
        assert path.read_text().count(" Game ") == games


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


def test_every_game_ends_with_a_wins_line_for_its_points_a_dropped_one_too() -> None:
    history = _history(length=7, seed=2)
    games = mat_text(history).split(" Game ")[1:]
    assert any(record.kind == "pass" for record in history.record.games)
    for game, record in zip(games, history.record.games):
        wins = re.findall(r"Wins (\d+) points?", game)
        assert wins == [str(record.points)]


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


def test_a_match_length_out_of_range_is_a_match_file_error_naming_the_line() -> None:
    from bgfast.errors import InvalidMatchFileError
    from bgfast.formats.mat import parse_mat

    text = mat_text(play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2),
                    players=("a", "b"))
    assert " 3 point match" in text
    for length in ("99999999999999999999", "32768"):
        with pytest.raises(InvalidMatchFileError, match=rf"^big.mat: line \d+: a {length} point match; the longest"):
            parse_mat(text.replace(" 3 point match", f" {length} point match"), source="big.mat")


def test_a_binary_file_object_reads_as_utf8_text() -> None:
    from bgfast.formats.mat import read_mat

    history = play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2)
    text = mat_text(history, players=("pubeval", "random"))
    assert read_mat(io.BytesIO(text.encode())).history.games == read_mat(io.StringIO(text)).history.games


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_a_mat_file_saved_as_utf16_or_with_a_bom_reads_as_the_same_match(tmp_path, encoding: str) -> None:
    from bgfast.formats.mat import read_mat

    history = play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2)
    text = mat_text(history, players=("pubeval", "random")).replace("\n", "\r\n")
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}.get(encoding, b"")
    path = tmp_path / "match.mat"
    path.write_bytes(bom + text.encode(encoding))
    assert read_mat(path).history.games == history.games
    assert read_mat(io.BytesIO(path.read_bytes())).history.games == history.games
    from bgfast.formats.sgf import parse_sgf, read_sgf, sgf_text

    sgf = sgf_text(history, players=("pubeval", "random"))
    path.write_bytes(bom + sgf.encode(encoding))
    assert read_sgf(path).history.games == history.games
    assert parse_sgf(path.read_bytes()).history.games == history.games
