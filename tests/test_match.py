"""Tests of bgfast.match: MatchState, the Match ID, XGID match fields, the cube rules."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import pytest
from gnubg_oracle import renumbered
from reference import decode_position_id, encode_position_id

from bgfast import met
from bgfast.codecs.xgid import parse_xgid, xgid_field_to_board
from bgfast.dice import Dice
from bgfast.errors import (
    IllegalCubeActionError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidPositionError,
    InvalidSpecError,
)
from bgfast.match import GameState, MatchState, Rules

DATA = Path(__file__).parent / "data"
START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
OPENING = "-b----E-C---eE---c-e----B-"


def _match_cases() -> list[dict]:
    with open(DATA / "ids.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [row for row in rows if row["kind"] == "match"]


MATCH_CASES = _match_cases()


def _state_of(case: dict) -> MatchState:
    return MatchState(
        length=case["match_length"],
        score=tuple(case["score"]),
        cube_value=case["cube_value"],
        cube_owner=case["cube_owner"],
        crawford=bool(case["crawford"]),
        player_on_roll=case["player_on_roll"],
        turn=case["turn"],
        game_state=GameState(case["game_state"]),
        double_offered=bool(case["double_offered"]),
        resigned=case["resigned"],
        dice=tuple(case["dice"]),
        jacoby=bool(case["jacoby"]),
    )


def _playing(**fields) -> MatchState:
    return MatchState(game_state=GameState.PLAYING, **fields)


# ------------------------------------------------------------------ Match ID


def test_there_are_one_hundred_match_id_vectors():
    assert len(MATCH_CASES) == 100


@pytest.mark.parametrize("case", MATCH_CASES, ids=[c["match_id"] for c in MATCH_CASES])
def test_match_id_vector_parses_to_its_fields(case):
    assert MatchState.from_match_id(case["match_id"]) == _state_of(case)


@pytest.mark.parametrize("case", MATCH_CASES, ids=[c["match_id"] for c in MATCH_CASES])
def test_match_id_vector_fields_format_to_its_id(case):
    assert _state_of(case).match_id() == case["match_id"]


def test_readme_example_match_id():
    state = MatchState.from_match_id("cAkXAAAAAAAA")
    assert state.is_money and state.cube_value == 1 and state.cube_owner == -1
    assert state.player_on_roll == 1 and state.turn == 1 and state.dice == (6, 5)
    assert state.game_state is GameState.PLAYING and state.jacoby


def test_repr_rebuilds_the_state():
    state = MatchState(length=9, score=(4, 7), cube_value=4, cube_owner=0, dice=(3, 3))
    assert repr(state) == f"MatchState.from_match_id({state.match_id()!r})"
    assert eval(repr(state)) == state


def test_dice_are_stored_larger_first():
    assert MatchState(dice=(2, 5)).dice == (5, 2)


def _id_of_bits(bits: int) -> str:
    """A Match ID with exactly these key bits (bit k = byte k // 8, bit k % 8)."""
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


@pytest.mark.parametrize(
    "match_id",
    [
        "",
        "cAkXAAAAAAA",  # 11 characters
        "cAkXAAAAAAAAA",  # 13 characters
        "cAkXAAAAAAA=",  # padding
        "cAkXAAAAAA!A",  # not Base64
        _id_of_bits(2 << 4 | 1 << 8),  # cube owner 2
        _id_of_bits(3 << 4 | 6 << 8),  # game state 6
        _id_of_bits(3 << 4 | 1 << 8 | 7 << 15 | 1 << 18),  # a die of 7
        _id_of_bits(3 << 4 | 1 << 8 | 3 << 15),  # one die rolled, the other 0
        _id_of_bits(3 << 4 | 1 << 8 | 1 << 67),  # bit 67 set
    ],
)
def test_malformed_match_id_raises_invalid_match_id_error(match_id):
    with pytest.raises(InvalidMatchIdError) as info:
        MatchState.from_match_id(match_id)
    assert repr(match_id) in str(info.value)


@pytest.mark.parametrize(
    "fields",
    [
        {"cube_value": 3},
        {"cube_value": 1 << 16},
        {"cube_owner": 2},
        {"player_on_roll": 2},
        {"turn": -1},
        {"game_state": 5},
        {"resigned": 4},
        {"dice": (7, 1)},
        {"dice": (3, 0)},
        {"dice": (1, 2, 3)},
        {"score": (1 << 15, 0)},
        {"score": (-1, 0)},
        {"score": 3},
        {"length": -1},
        {"crawford": 2},
    ],
)
def test_match_state_with_a_field_out_of_range_raises_invalid_match_id_error(fields):
    with pytest.raises(InvalidMatchIdError):
        MatchState(**fields)


# ------------------------------------------------------------------ XGID


def test_xgid_of_a_gnubg_id_pair_matches_a_published_conversion():
    # An independent converter (R package backgammoncalculator) gives
    # 4HPwATDgc/ABMA:8IhuACAACAAE <-> XGID=...:0:0:1:53:1:2:1:3:10, and back
    # 8IluACAACAAE (the XGID is read as a game in progress).
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10"
    assert MatchState.from_match_id("8IhuACAACAAE").xgid([START, START]) == xgid
    assert MatchState.from_xgid(xgid).match_id() == "8IluACAACAAE"


# XGID <-> gnubg "PositionID:MatchID" pairs published by two independent converters
# (the R package backgammoncalculator and the Python backgammon-engine-kit), as GNU
# Backgammon 1.07's `set xgid` reads them.  MatchState.from_xgid takes the game as in
# play.  For turn -1 (the top player on roll) the converters published AQGqAAAAAAAE
# and EQGqAAAAAAAE, with the bottom player as player 1; gnubg makes the player on roll
# player 1 (UQmqAAAAAAAE, QQmqAAAAAAAE), and so does bgfast.
PUBLISHED_PAIRS = [
    ("XGID=-BDB-------------a------e-:1:-1:-1:42:0:0:0:5:10", "ewMAAD4gAAAAAA:UQmqAAAAAAAE"),
    ("XGID=-BDB-------------a------e-:1:1:-1:42:0:0:0:5:10", "ewMAAD4gAAAAAA:QQmqAAAAAAAE"),
    ("XGID=-E------A-------------bdb-:1:1:1:42:0:0:0:5:10", "ewMAAD4gAAAAAA:UQmqAAAAAAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:7:10", "4HPwATDgc/ABMA:cAngAEAAEAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10", "4HPwATDgc/ABMA:UQkAAAAAAAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10", "4HPwATDgc/ABMA:QQkAAAAAAAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10", "4HPwATDgc/ABMA:8IluACAACAAE"),
]


@pytest.mark.parametrize("xgid, gnubg_id", PUBLISHED_PAIRS)
def test_xgid_converts_to_the_published_gnubg_ids(xgid, gnubg_id):
    position_id, match_id = gnubg_id.split(":")
    assert encode_position_id(parse_xgid(xgid).board) == position_id
    assert MatchState.from_xgid(xgid).match_id() == match_id


@pytest.mark.parametrize("xgid, gnubg_id", PUBLISHED_PAIRS)
def test_published_gnubg_ids_convert_to_an_xgid_that_reads_back_to_them(xgid, gnubg_id):
    position_id, match_id = gnubg_id.split(":")
    written = MatchState.from_match_id(match_id).xgid(decode_position_id(position_id))
    assert MatchState.from_xgid(written).match_id() == match_id
    assert encode_position_id(parse_xgid(written).board) == position_id
    if parse_xgid(xgid).turn == 1:  # player 1 (on roll) is drawn at the bottom, as these XGIDs have it
        assert written == xgid


def test_xgid_bottom_player_is_player_one_and_top_player_is_player_zero():
    state = MatchState.from_xgid("XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10")
    assert state.length == 7 and state.score == (4, 6) and state.crawford
    assert state.player_on_roll == 1 and state.turn == 1 and state.dice == (3, 1)
    assert not state.jacoby and not state.double_offered


def test_xgid_double_offered_names_the_doubler_in_the_turn_field():
    # The top player owns the cube at 2 and redoubles: it is on roll, so player 1 (as gnubg reads it).
    text = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:0:0:1:0:10"
    state = MatchState.from_xgid(text)
    assert state.double_offered and state.player_on_roll == 1 and state.turn == 0
    assert state.cube_value == 2 and state.cube_owner == 1 and state.jacoby
    # written back with player 1 at the bottom
    assert state.xgid([START, START]) == "XGID=-b----E-C---eE---c-e----B-:1:1:1:D:0:0:1:0:10"


def test_xgid_with_the_top_player_on_roll_makes_it_player_one_with_its_score_and_cube():
    # gnubg 1.07 `set xgid` gives Match ID UQmgABAAIAAE: player 1 (on roll, at the top) has 4 points and the cube
    state = MatchState.from_xgid("XGID=--a-CbC-CA--b-Ab-bbcBA-Aa-:1:-1:-1:00:1:4:0:5:10")
    assert state.player_on_roll == 1 and state.turn == 1
    assert state.score == (1, 4) and state.cube_value == 2 and state.cube_owner == 1
    assert state.match_id() == "UQmgABAAIAAE"


def test_xgid_money_rules_field_reads_jacoby_and_writes_beaver_from_rules():
    text = "XGID=-b----E-C---eE---b-d-b--B-:0:0:1:64:0:0:3:0:10"
    state = MatchState.from_xgid(text)
    assert state.is_money and state.jacoby and state.dice == (6, 4)
    board = xgid_field_to_board("-b----E-C---eE---b-d-b--B-", 1)
    assert state.xgid(board, Rules(beaver=True, max_cube=1024)) == text
    assert state.xgid(board).split(":")[7] == "1"


@pytest.mark.parametrize(
    "state",
    [
        MatchState(),
        MatchState(length=5, score=(3, 1), cube_value=2, cube_owner=1, player_on_roll=1, turn=1, dice=(6, 6)),
        MatchState(length=11, score=(10, 4), crawford=True, player_on_roll=0, turn=0, dice=(2, 1)),
        MatchState(
            length=7, score=(2, 5), cube_value=4, cube_owner=1, player_on_roll=1, turn=0, double_offered=True
        ),
        MatchState(jacoby=True, cube_value=8, cube_owner=1, player_on_roll=0, turn=0),
    ],
)
def test_match_state_round_trips_through_the_xgid(state):
    # the player on roll reads back as player 1 (gnubg's reading): the players renumbered when it was 0
    board = [START, START]
    text = state.xgid(board)
    assert MatchState.from_xgid(text) == (state if state.player_on_roll == 1 else renumbered(state))
    assert parse_xgid(text).board == board




def test_xgid_position_side1_is_the_player_on_roll():
    # Player 0 (top) on roll with one checker on the bar.
    board = [[0] * 24 + [0], [0] * 24 + [1]]
    board[0][5] = 2
    text = MatchState(player_on_roll=0, turn=0, dice=(4, 2)).xgid(board)
    assert text.split(":")[3] == "-1"
    assert text[len("XGID=") :].startswith("a")  # character 0: the top player's bar
    assert parse_xgid(text).board == board


def test_xgid_with_a_pending_beaver_raises_invalid_match_id_error():
    text = f"XGID={OPENING}:2:1:-1:B:0:0:3:0:10"
    with pytest.raises(InvalidMatchIdError) as info:
        MatchState.from_xgid(text)
    assert repr(text) in str(info.value)


def test_xgid_with_a_bad_position_raises_invalid_position_error():
    with pytest.raises(InvalidPositionError):
        MatchState.from_xgid("XGID=-b----E-C---eE---c-e----Q-:0:0:1:31:0:0:1:0:10")


def test_xgid_of_an_impossible_board_raises_invalid_position_error():
    with pytest.raises(InvalidPositionError):
        MatchState().xgid([START, [0] * 24 + [16]])


# ------------------------------------------------------------------ Rules


def test_default_rules():
    rules = Rules()
    assert (rules.crawford, rules.jacoby, rules.beaver, rules.max_cube, rules.variant, rules.dead_cube) == (
        True,
        True,
        False,
        64,
        "standard",
        "refuse",
    )


@pytest.mark.parametrize(
    "fields, key",
    [
        ({"max_cube": 48}, "rules.max_cube"),
        ({"max_cube": 1}, "rules.max_cube"),
        ({"max_cube": 1 << 16}, "rules.max_cube"),
        ({"max_cube": True}, "rules.max_cube"),
        ({"crawford": 1}, "rules.crawford"),
        ({"jacoby": "yes"}, "rules.jacoby"),
        ({"beaver": None}, "rules.beaver"),
        ({"variant": "acey-deucey"}, "rules.variant"),
        ({"dead_cube": "sometimes"}, "rules.dead_cube"),
        ({"dead_cube": True}, "rules.dead_cube"),
    ],
)
def test_invalid_rules_raise_invalid_spec_error_naming_the_key(fields, key):
    with pytest.raises(InvalidSpecError) as info:
        Rules(**fields)
    assert key in str(info.value)


# ------------------------------------------------------------------ score and Crawford


def test_away_counts_points_still_needed():
    state = MatchState(length=7, score=(6, 2))
    assert state.away(0) == 1 and state.away(1) == 5


def test_away_in_money_play_is_an_error():
    with pytest.raises(ValueError):
        MatchState().away(0)


def test_away_of_a_third_player_is_an_error():
    with pytest.raises(ValueError):
        MatchState(length=5).away(2)


def test_crawford_game_follows_the_first_game_that_reaches_match_point():
    rules = Rules()
    state = _playing(length=5, score=(2, 3))
    crawford = state.after_game(1, 1, rules)
    assert crawford.score == (2, 4) and crawford.crawford and crawford.is_crawford_game
    post = dataclasses.replace(crawford, game_state=GameState.PLAYING).after_game(0, 1, rules)
    assert post.score == (3, 4) and not post.crawford and post.is_post_crawford


def test_no_crawford_game_when_the_rule_is_off():
    state = _playing(length=5, score=(2, 3))
    assert not state.after_game(1, 1, Rules(crawford=False)).crawford


def test_winning_the_match_ends_it():
    end = _playing(length=5, score=(4, 3), cube_value=2, cube_owner=1).after_game(1, 4, Rules())
    assert end.game_state is GameState.OVER and end.score == (4, 7) and end.cube_value == 1


def test_after_game_refuses_zero_points():
    with pytest.raises(ValueError):
        _playing(length=5).after_game(0, 0, Rules())


def test_jacoby_rule_counts_gammons_single_with_a_centred_cube_in_money_play():
    assert MatchState(jacoby=True).game_value(2) == 1
    assert MatchState(jacoby=True, cube_value=2, cube_owner=0).game_value(2) == 4
    assert MatchState(length=7, jacoby=False).game_value(3) == 3


def test_game_value_refuses_a_multiplier_of_four():
    with pytest.raises(ValueError):
        MatchState().game_value(4)


# ------------------------------------------------------------------ cube actions


def test_player_on_roll_can_double_a_centred_cube():
    state = _playing(length=7, score=(1, 1))
    assert state.can_double(0, Rules())
    offered = state.double(0, Rules())
    assert offered.double_offered and offered.turn == 1 and offered.cube_value == 1


def test_take_doubles_the_cube_and_gives_it_to_the_taker():
    taken = _playing(length=7).double(0, Rules()).take()
    assert (taken.cube_value, taken.cube_owner, taken.turn, taken.double_offered) == (2, 1, 0, False)
    redoubled = dataclasses.replace(taken, player_on_roll=1, turn=1).double(1, Rules()).take()
    assert (redoubled.cube_value, redoubled.cube_owner) == (4, 0)


def test_pass_gives_the_doubler_the_cube_value():
    state = _playing(length=7, score=(3, 3), cube_value=2, cube_owner=1, player_on_roll=1, turn=1)
    after = state.double(1, Rules()).drop(Rules())
    assert after.score == (3, 5) and after.cube_value == 1 and after.game_state is GameState.NONE


def test_doubling_in_crawford_game_is_illegal():
    state = _playing(length=7, score=(6, 3), crawford=True, player_on_roll=1, turn=1)
    assert not state.can_double(1, Rules())
    with pytest.raises(IllegalCubeActionError, match="Crawford"):
        state.double(1, Rules())


def test_doubling_a_cube_the_opponent_owns_is_illegal():
    state = _playing(length=7, cube_value=2, cube_owner=1)
    assert not state.can_double(0, Rules())
    with pytest.raises(IllegalCubeActionError, match="owns the cube"):
        state.double(0, Rules())


def test_doubling_past_the_maximum_cube_is_illegal():
    state = _playing(cube_value=64, cube_owner=0)
    assert not state.can_double(0, Rules())
    with pytest.raises(IllegalCubeActionError, match="maximum"):
        state.double(0, Rules())
    assert state.can_double(0, Rules(max_cube=128))


def test_doubling_after_rolling_is_illegal():
    state = _playing(dice=(3, 1))
    with pytest.raises(IllegalCubeActionError, match="before rolling"):
        state.double(0, Rules())


def test_doubling_out_of_turn_is_illegal():
    with pytest.raises(IllegalCubeActionError, match="before rolling"):
        _playing(player_on_roll=0).double(1, Rules())


def test_doubling_twice_is_illegal():
    offered = _playing().double(0, Rules())
    with pytest.raises(IllegalCubeActionError, match="already offered"):
        offered.double(0, Rules())


def test_doubling_between_games_is_illegal():
    with pytest.raises(IllegalCubeActionError, match="no game"):
        MatchState(game_state=GameState.NONE).double(0, Rules())


def test_take_without_a_double_is_illegal():
    with pytest.raises(IllegalCubeActionError, match="no double"):
        _playing().take()


def test_pass_without_a_double_is_illegal():
    with pytest.raises(IllegalCubeActionError, match="no double"):
        _playing().drop(Rules())


def test_beaver_quadruples_the_cube_for_the_taker():
    rules = Rules(beaver=True)
    beavered = _playing(cube_value=2, cube_owner=0).double(0, rules).beaver(rules)
    assert (beavered.cube_value, beavered.cube_owner, beavered.turn) == (8, 1, 0)


def test_beaver_without_the_beaver_rule_is_illegal():
    offered = _playing().double(0, Rules())
    with pytest.raises(IllegalCubeActionError, match="beaver"):
        offered.beaver(Rules())


def test_beaver_in_match_play_is_illegal():
    rules = Rules(beaver=True)
    with pytest.raises(IllegalCubeActionError, match="money"):
        _playing(length=7).double(0, rules).beaver(rules)


def test_beaver_past_the_maximum_cube_is_illegal():
    rules = Rules(beaver=True, max_cube=64)
    with pytest.raises(IllegalCubeActionError, match="maximum"):
        _playing(cube_value=32, cube_owner=0).double(0, rules).beaver(rules)


def test_beaver_without_a_double_is_illegal():
    with pytest.raises(IllegalCubeActionError, match="no double"):
        _playing().beaver(Rules(beaver=True))


def test_cube_actions_refuse_a_third_player():
    with pytest.raises(ValueError):
        _playing().can_double(2, Rules())
    with pytest.raises(ValueError):
        _playing().double(-1, Rules())


def test_cube_is_never_dead_in_money_play():
    assert not MatchState(cube_value=64, cube_owner=0).is_cube_dead(0)


def test_cube_is_dead_in_a_one_point_match():
    state = _playing(length=1)
    assert state.is_cube_dead(0) and state.is_cube_dead(1)


def test_cube_is_dead_in_the_crawford_game():
    assert _playing(length=7, score=(6, 2), crawford=True).is_cube_dead(1)


def test_cube_is_dead_for_the_leader_after_the_crawford_game():
    state = _playing(length=7, score=(6, 2))
    assert state.is_cube_dead(0) and not state.is_cube_dead(1)


@pytest.mark.parametrize("state", [
    _playing(length=7, score=(5, 1), cube_value=2, cube_owner=0),   # the 2-away leader owning a 2-cube
    _playing(length=7, score=(6, 2)),                               # the 1-away leader after the Crawford game
    _playing(length=1),                                             # a 1-point match
    _playing(length=5, score=(1, 3), cube_value=4, cube_owner=0),   # 4-away owning a 4-cube
])
def test_doubling_a_dead_cube_is_refused_as_gnubg_does_unless_the_rules_allow_it(state):
    assert state.is_cube_dead(0) and not state.can_double(0, Rules())
    with pytest.raises(IllegalCubeActionError, match="the cube is dead"):
        state.double(0, Rules())
    allow = Rules(dead_cube="allow")
    assert state.can_double(0, allow) and state.double(0, allow).double_offered


def test_a_live_cube_may_be_doubled_under_either_dead_cube_rule():
    state = _playing(length=7, score=(3, 5), cube_value=2, cube_owner=0)  # 4-away with a 2-cube
    assert not state.is_cube_dead(0)
    assert state.can_double(0, Rules()) and state.can_double(0, Rules(dead_cube="allow"))


def test_the_dead_cube_rule_does_not_lift_the_crawford_rule():
    state = _playing(length=7, score=(6, 2), crawford=True)
    assert not state.can_double(0, Rules(dead_cube="allow")) and not state.can_double(1, Rules(dead_cube="allow"))


def test_cube_is_dead_for_an_owner_who_wins_the_match_with_the_current_cube():
    # 2-away owning a 2-cube: a redouble only raises what the opponent wins.
    state = _playing(length=7, score=(5, 1), cube_value=2, cube_owner=0)
    assert state.is_cube_dead(0) and not state.is_cube_dead(1)
    both = _playing(length=5, score=(3, 3), cube_value=2, cube_owner=1)
    assert both.is_cube_dead(0) and both.is_cube_dead(1)


@pytest.mark.parametrize("fields, message", [
    ({"length": 7, "score": (6, 6), "crawford": True}, "exactly one player 1-away"),
    ({"length": 7, "score": (3, 3), "crawford": True}, "exactly one player 1-away"),
    ({"length": 0, "crawford": True}, "match play, not money"),
    ({"length": 7, "cube_value": 2, "cube_owner": -1}, "centred cube is at 1"),
    ({"length": 7, "score": (6, 3), "crawford": True, "cube_value": 2, "cube_owner": 0}, "no double in the Crawford"),
    ({"length": 7, "score": (6, 3), "crawford": True, "double_offered": True, "turn": 1}, "no double in the Crawford"),
    ({"double_offered": True, "turn": 1, "dice": (3, 1)}, "before the dice are rolled"),
    ({"double_offered": True, "turn": 0, "player_on_roll": 0}, "turn must differ"),
    ({"length": 7, "score": (8, 0)}, "has won the 7-point match"),
    ({"length": 7, "score": (3, 7)}, "has won the 7-point match"),
    ({"length": 7, "score": (7, 0), "game_state": GameState.NONE}, "not NONE"),
    ({"length": 7, "score": (7, 9), "game_state": GameState.OVER}, "only one player can win"),
])
def test_an_impossible_match_state_raises_invalid_match_id_error(fields: dict, message: str) -> None:
    with pytest.raises(InvalidMatchIdError, match=message):
        MatchState(**fields)


@pytest.mark.parametrize("state", [GameState.OVER, GameState.RESIGNED, GameState.DROPPED])
def test_a_score_past_the_length_is_accepted_once_the_game_is_over(state: GameState) -> None:
    assert MatchState(length=7, score=(8, 3), game_state=state).away(0) == 0


def test_a_won_match_from_after_game_is_a_possible_state() -> None:
    won = MatchState(length=7, score=(6, 3)).after_game(0, 2, Rules())
    assert won.score == (8, 3) and won.game_state == GameState.OVER
    assert MatchState.from_match_id(won.match_id()) == won


def test_the_crawford_game_and_an_owned_cube_are_accepted() -> None:
    assert MatchState(length=7, score=(6, 4), crawford=True).crawford
    assert MatchState(length=7, cube_value=4, cube_owner=1).cube_value == 4


def test_the_match_equity_names_stay_importable_from_bgfast_match() -> None:
    import bgfast.match

    assert bgfast.match.MatchEquityTable is met.MatchEquityTable
    assert bgfast.match.risk_gain_take_point is met.risk_gain_take_point
    assert (bgfast.match.DEFAULT_MET, bgfast.match.MONEY_TAKE_POINT) == (met.DEFAULT_MET, met.MONEY_TAKE_POINT)


def test_the_package_exports_the_match_state_and_the_rules() -> None:
    import bgfast

    assert bgfast.MatchState is MatchState and bgfast.Rules is Rules
    assert bgfast.MatchEquityTable is met.MatchEquityTable


# ------------------------------------------------------------------ the roll


def test_check_roll_takes_any_dice_before_the_roll_and_only_the_rolled_dice_after() -> None:
    assert MatchState().check_roll("31") == Dice(3, 1)
    rolled = MatchState(player_on_roll=1, turn=1, dice=(6, 5))
    assert rolled.check_roll((5, 6)) == Dice(6, 5)
    with pytest.raises(InvalidDiceError, match="6-5 were rolled, not 3-1"):
        rolled.check_roll("31")


@pytest.mark.parametrize("state, message", [
    (MatchState(double_offered=True, turn=1), "a double is pending"),
    (MatchState(resigned=2, turn=1), "a resignation is offered"),
    (MatchState(length=5, score=(5, 2), game_state=GameState.OVER), "the game is over"),
    (MatchState(game_state=GameState.DROPPED), "no roll to play: the game ended by a pass"),
    (MatchState(game_state=GameState.NONE), "no roll to play: no game has started"),
])
def test_check_roll_refuses_a_state_with_no_roll_to_play(state: MatchState, message: str) -> None:
    with pytest.raises(InvalidDiceError, match=message):
        state.check_roll("31")


def test_check_roll_refuses_dice_that_do_not_parse() -> None:
    with pytest.raises(InvalidDiceError):
        MatchState().check_roll("71")


# ------------------------------------------------------------------ the dead-cube rule in a spec and the CLI

def test_a_tournament_spec_reads_the_dead_cube_rule_and_keeps_its_hash_by_default() -> None:
    from tournament_helpers import small_spec_text

    from bgfast.tournament.spec import TournamentSpec

    spec = small_spec_text()
    plain = TournamentSpec.from_toml_string(spec)
    refuse = TournamentSpec.from_toml_string(spec + '\n[rules]\ndead_cube = "refuse"\n')
    allow = TournamentSpec.from_toml_string(spec + '\n[rules]\ndead_cube = "allow"\n')
    assert plain.rules.dead_cube == "refuse" and allow.rules.dead_cube == "allow"
    assert refuse.hash == plain.hash and "dead_cube" not in plain.to_toml()  # older specs keep their hash
    assert allow.hash != plain.hash and TournamentSpec.from_toml_string(allow.to_toml()) == allow
    with pytest.raises(InvalidSpecError, match="rules.dead_cube"):
        TournamentSpec.from_toml_string(spec + '\n[rules]\ndead_cube = "maybe"\n')


def test_bgfast_play_takes_the_dead_cube_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    args = ["play", "--player", "pubeval", "--player", "random", "--length", "3", "--seed", "1"]
    assert main([*args, "--dead-cube", "allow"]) == 0
    capsys.readouterr()
    assert main([*args, "--dead-cube", "maybe"]) != 0
    assert "--dead-cube" in capsys.readouterr().err


@pytest.mark.parametrize("score", [(8, 0), (7, 3), (0, 9)])
def test_a_score_that_has_won_the_match_is_not_a_match_still_being_played(score: tuple[int, int]) -> None:
    # issue 14: MatchState(length=7, score=(8, 0)) must not be accepted as still playing
    with pytest.raises(InvalidMatchIdError, match="has won the 7-point match"):
        MatchState(length=7, score=score)
    assert MatchState(length=7, score=score, game_state=GameState.OVER).game_state == GameState.OVER


def test_a_player_not_on_roll_acts_only_to_answer_a_double_or_a_resignation() -> None:
    def match_id(**fields: object) -> str:
        return MatchState(**fields).match_id()   # type: ignore[arg-type]

    with pytest.raises(InvalidMatchIdError, match="player 0 is to act but player 1 is on roll"):
        MatchState.from_match_id(match_id(player_on_roll=1, turn=0))
    for fields in ({"double_offered": True}, {"resigned": 1}, {"game_state": GameState.OVER, "length": 3,
                                                                "score": (3, 0)}):
        MatchState.from_match_id(match_id(player_on_roll=1, turn=0, **fields))
