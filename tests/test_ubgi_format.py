"""bgfast.engines.ubgi: every UBGI v0.2 line parses and formats, moves round-trip."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast.dice import ALL_21, Dice
from bgfast.engines import ubgi
from bgfast.errors import IllegalMoveError, InvalidMoveError, UbgiError
from bgfast.match import MatchState
from bgfast.position import Position


def _positions(count: int, seed: int = 7) -> list[Position]:
    """Positions met in random self-play (from a seeded stream), on roll to move."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = Position()
        for _ in range(rng.randrange(1, 60)):
            dice = rng.choice(ALL_21)
            children = pos.children(dice.high, dice.low)
            nxt = rng.choice(children)
            if nxt.is_over():
                break
            pos = nxt.swap_sides()
        found.append(pos)
    return found


# ---------------------------------------------------------------- commands


@pytest.mark.parametrize(("line", "expected"), [
    ("ubgi", ubgi.Ubgi()),
    ("isready", ubgi.IsReady()),
    ("newgame", ubgi.NewGame()),
    ("quit", ubgi.Quit()),
    ("keys", ubgi.ListKeys()),
    ("position gnubgid 4HPwATDgc/ABMA", ubgi.SetPosition("gnubgid", "4HPwATDgc/ABMA")),
    ("position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
     ubgi.SetPosition("xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")),
    ("dice 1 6", ubgi.SetDice(Dice(6, 1))),
    ("go", ubgi.Go("chequer")),
    ("go chequer", ubgi.Go("chequer")),
    ("go cube", ubgi.Go("cube")),
    ("go turn", ubgi.Go("turn")),
    ("go role chequer", ubgi.Go("chequer")),
    ("set engine.ply 2", ubgi.SetOption("engine.ply", "2")),
    ("setoption name Threads value 4", ubgi.SetOption("Threads", "4")),
    ("get engine.ply", ubgi.GetOption("engine.ply")),
    ("  isready  ", ubgi.IsReady()),
])
def test_each_command_parses_to_its_record(line: str, expected: ubgi.Command) -> None:
    assert ubgi.parse_command(line) == expected


@pytest.mark.parametrize("command", [
    ubgi.Ubgi(), ubgi.IsReady(), ubgi.NewGame(), ubgi.Quit(), ubgi.ListKeys(),
    ubgi.SetPosition("gnubgid", "4HPwATDgc/ABMA"), ubgi.SetDice(Dice(5, 2)), ubgi.Go("cube"),
    ubgi.SetOption("engine.seed", "3"), ubgi.GetOption("game.cube"),
])
def test_a_formatted_command_parses_back_to_itself(command: ubgi.Command) -> None:
    assert ubgi.parse_command(str(command)) == command


@pytest.mark.parametrize(("line", "code"), [
    ("", "bad_command"),
    ("fly away", "bad_command"),
    ("isready now", "bad_command"),
    ("position fen rnbqkbnr", "bad_command"),
    ("position gnubgid", "bad_command"),
    ("dice 3", "bad_command"),
    ("dice a b", "bad_command"),
    ("dice 7 1", "bad_value"),
    ("dice 0 0", "bad_value"),
    ("go fast", "bad_command"),
    ("set engine.ply", "bad_command"),
    ("get", "bad_command"),
    ("setoption name Threads", "bad_command"),
])
def test_a_bad_command_raises_ubgi_error_with_its_code(line: str, code: str) -> None:
    with pytest.raises(UbgiError) as info:
        ubgi.parse_command(line)
    assert info.value.code == code
    assert isinstance(info.value, ValueError)


# ---------------------------------------------------------------- answers


@pytest.mark.parametrize(("line", "expected"), [
    ("id name wildbg 0.3", ubgi.Id("name", "wildbg 0.3")),
    ("id author Carsten", ubgi.Id("author", "Carsten")),
    ("proto 0.2", ubgi.Proto("0.2")),
    ("ubgiok", ubgi.UbgiOk()),
    ("readyok", ubgi.ReadyOk()),
    ("value engine.ply 2", ubgi.Value("engine.ply", "2")),
    ("info nodes 1000 time_ms 3", ubgi.Info("nodes 1000 time_ms 3")),
    ("bestmove pass", ubgi.BestMove("pass")),
    ("bestmove bar/20 6/off", ubgi.BestMove("bar/20 6/off")),
    ("bestcube nodouble", ubgi.BestCube("nodouble")),
    ("bestcube beaver", ubgi.BestCube("beaver")),
    ("bestturn cube=double move=24/18 18/13", ubgi.BestTurn("double", "24/18 18/13")),
    ("error bad_state missing position", ubgi.ErrorLine("bad_state", "missing position")),
    ("error unsupported", ubgi.ErrorLine("unsupported", "")),
])
def test_each_answer_parses_and_formats_back(line: str, expected: ubgi.Answer) -> None:
    assert ubgi.parse_answer(line) == expected
    assert str(expected) == line


@pytest.mark.parametrize(("line", "spec"), [
    ("key engine.ply int 1..4 1 root-inclusive decision depth",
     ubgi.KeySpec("engine.ply", "int", "1", 1, 4, description="root-inclusive decision depth")),
    ("key engine.threads int 1..64 8 ! worker threads",
     ubgi.KeySpec("engine.threads", "int", "8", 1, 64, minor=True, description="worker threads")),
    ("key engine.seed int * 42 ! rng seed", ubgi.KeySpec("engine.seed", "int", "42", minor=True, description="rng seed")),
    ("key engine.level int 42", ubgi.KeySpec("engine.level", "int", "42")),
    ("key engine.book bool true", ubgi.KeySpec("engine.book", "bool", "true")),
    ("key game.variant enum backgammon|nackgammon|hypergammon backgammon",
     ubgi.KeySpec("game.variant", "enum", "backgammon", choices=("backgammon", "nackgammon", "hypergammon"))),
    ("key engine.net string * default-value", ubgi.KeySpec("engine.net", "string", "default-value")),
])
def test_the_key_lines_of_the_spec_parse(line: str, spec: ubgi.KeySpec) -> None:
    assert ubgi.parse_answer(line) == spec
    assert ubgi.parse_answer(str(spec)) == spec


@pytest.mark.parametrize("line", [
    "bestmove", "bestcube maybe", "bestcube", "bestturn move=8/5", "bestturn cube=take move=8/5",
    "key engine.ply float 1.0", "key engine.ply int 1..4", "key engine.ply int 1..4 9",
    "key engine.book bool perhaps", "Hello, I am an engine", "id", "error",
])
def test_a_line_that_is_not_a_ubgi_answer_raises_bad_command(line: str) -> None:
    with pytest.raises(UbgiError) as info:
        ubgi.parse_answer(line)
    assert info.value.code == "bad_command"


@pytest.mark.parametrize(("spec", "text", "value"), [
    (ubgi.KeySpec("k", "int", "1", 1, 4), "4", 4),
    (ubgi.KeySpec("k", "int", "1"), "-7", -7),
    (ubgi.KeySpec("k", "bool", "true"), "false", False),
    (ubgi.KeySpec("k", "bool", "true"), "on", True),
    (ubgi.KeySpec("k", "enum", "a", choices=("a", "b")), "b", "b"),
    (ubgi.KeySpec("k", "string", "x"), "any text", "any text"),
])
def test_a_key_reads_its_values(spec: ubgi.KeySpec, text: str, value: object) -> None:
    assert spec.read(text) == value


@pytest.mark.parametrize(("spec", "text", "message"), [
    (ubgi.KeySpec("engine.ply", "int", "1", 1, 4), "5", "engine.ply must_be 1..4"),
    (ubgi.KeySpec("engine.ply", "int", "1", 1, 4), "two", "engine.ply must_be an integer"),
    (ubgi.KeySpec("b", "bool", "true"), "2", "b must_be true|false"),
    (ubgi.KeySpec("e", "enum", "a", choices=("a", "b")), "c", "e must_be a|b"),
])
def test_a_key_refuses_a_bad_value_with_bad_value(spec: ubgi.KeySpec, text: str, message: str) -> None:
    with pytest.raises(UbgiError, match=message) as info:
        spec.read(text)
    assert info.value.code == "bad_value"


def test_ply_numbering_translates_between_ubgi_and_gnubg() -> None:
    assert [ubgi.ubgi_ply(p) for p in (0, 1, 2)] == [1, 2, 3]
    assert [ubgi.native_ply(p) for p in (1, 2, 3)] == [0, 1, 2]


# ---------------------------------------------------------------- moves


def test_every_legal_play_round_trips_through_its_ubgi_payload() -> None:
    checked = 0
    for pos in _positions(150):
        for dice in ALL_21:
            for move in pos.legal_moves(dice.high, dice.low):
                payload = ubgi.format_move(move)
                assert "*" not in payload and "(" not in payload
                assert ubgi.parse_move(pos, dice, payload) == move, (pos.id(), str(dice), payload)
                checked += 1
    assert checked > 10_000


def test_a_payload_has_one_token_per_die_in_an_order_that_plays_left_to_right() -> None:
    start = Position()
    assert ubgi.format_move(start.parse_move("24/13", "65")) == "24/18 18/13"
    assert ubgi.format_move(start.parse_move("6/2(2) 8/4(2)", "44")) == "8/4 8/4 6/2 6/2"
    on_bar = Position.from_board([[0] * 24 + [0], [0] * 5 + [14] + [0] * 18 + [1]])
    assert ubgi.format_move(on_bar.parse_move("bar/5", "55")) == "bar/20 20/15 15/10 10/5"
    home = Position.from_board([[15] + [0] * 24, [2] + [0] * 24])
    assert ubgi.format_move(home.parse_move("1/off(2)", "21")) == "1/off 1/off"


def test_pass_is_the_payload_of_a_roll_that_cannot_be_played() -> None:
    closed = Position.from_board([[2] * 6 + [0] * 11 + [3] + [0] * 7, [0] * 5 + [14] + [0] * 18 + [1]])
    (no_play,) = list(closed.legal_moves(6, 6))
    assert ubgi.format_move(no_play) == "pass"
    assert ubgi.parse_move(closed, "66", "pass") == no_play


def test_reading_accepts_a_multi_die_token_a_hit_mark_and_a_repeat_count() -> None:
    start = Position()
    assert str(ubgi.parse_move(start, "65", "24/13")) == "24/13"
    assert str(ubgi.parse_move(start, "33", "8/5(2) 6/3(2)")) == "8/5(2) 6/3(2)"
    blot = Position.from_board([[0] * 17 + [1] + [0] * 5 + [14] + [0], [0] * 5 + [15] + [0] * 19])
    assert str(ubgi.parse_move(blot, "11", "6/5 6/5 6/5 6/5")) == "6/5(4)"


def test_reading_accepts_gnubgs_chained_steps_of_one_checker() -> None:
    # an engine answering in gnubg's own notation was counted as illegal about one play in 100
    start = Position()
    assert ubgi.parse_move(start, "65", "24/18/13") == ubgi.parse_move(start, "65", "24/18 18/13")
    for pos in _positions(200):
        for dice in (Dice(6, 5), Dice(4, 4), Dice(3, 1)):
            for move in pos.legal_moves(dice.high, dice.low):
                assert ubgi.parse_move(pos, dice, str(move) or "pass") == move, (pos.id(), str(dice), str(move))


@pytest.mark.parametrize("payload", ["", "24-18", "24/18/off/3", "24/18/20", "25/21", "6/0", "off/3", "18/24", "bar/bar", "24/x"])
def test_an_unreadable_payload_raises_invalid_move_error(payload: str) -> None:
    with pytest.raises(InvalidMoveError):
        ubgi.parse_move(Position(), "65", payload)


@pytest.mark.parametrize(("payload", "dice"), [
    ("24/1", "65"),           # not the dice
    ("24/18 18/13", "31"),    # not the dice
    ("8/5 6/5", "65"),
    ("pass", "31"),           # a play exists
    ("3/1 3/1", "22"),        # no checker there
    ("13/7 13/7", "65"),      # a 6 twice
    ("6/1 6/1", "55"),        # the opponent holds the 1 point
])
def test_a_payload_that_is_not_a_legal_play_raises_illegal_move_error(payload: str, dice: str) -> None:
    with pytest.raises(IllegalMoveError):
        ubgi.parse_move(Position(), dice, payload)


# ---------------------------------------------------------------- game.* keys


@given(length=st.integers(0, 15), a=st.integers(0, 14), b=st.integers(0, 14), cube_log=st.integers(0, 4),
       owner=st.sampled_from([-1, 0, 1]), on_roll=st.integers(0, 1), jacoby=st.booleans())
@settings(max_examples=200, deadline=None)
def test_game_keys_carry_the_match_from_the_side_on_roll(length: int, a: int, b: int, cube_log: int,
                                                       owner: int, on_roll: int, jacoby: bool) -> None:
    cube = 1 << cube_log if owner != -1 else 1
    if length:
        a, b = min(a, length - 1), min(b, length - 1)
    match = MatchState(length=length, score=(a, b), cube_value=cube, cube_owner=owner,
                       player_on_roll=on_roll, turn=on_roll, jacoby=jacoby and not length)
    back = ubgi.match_from_game_settings(ubgi.game_settings(match))
    # the side on roll becomes player 1: the same match with the seats renamed
    assert back.player_on_roll == 1
    assert back.score[1] == match.score[on_roll] and back.score[0] == match.score[1 - on_roll]
    assert back.cube_value == match.cube_value and back.length == match.length
    assert back.cube_owner == (-1 if owner == -1 else 1 if owner == on_roll else 0)
    assert back.jacoby == match.jacoby


def test_game_doubled_is_a_take_decision_of_the_other_side() -> None:
    offered = MatchState(length=5, score=(1, 2), player_on_roll=0, turn=1, double_offered=True)
    values = ubgi.game_settings(offered)
    assert values["game.doubled"] == "true" and values["game.score.on_roll"] == "1"
    back = ubgi.match_from_game_settings(values)
    assert back.double_offered and back.turn == 0 and back.player_on_roll == 1


def test_impossible_game_keys_raise_bad_value() -> None:
    with pytest.raises(UbgiError) as info:
        ubgi.match_from_game_settings({"game.cube": 4, "game.owner": "centre"})
    assert info.value.code == "bad_value"
    with pytest.raises(UbgiError):
        ubgi.match_from_game_settings({"game.crawford": "true"})  # money play has no Crawford game
