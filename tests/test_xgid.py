"""Tests of bgfast.codecs.xgid: the XGID position field and the whole XGID."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bgfast.codecs.match_id import encode_match_id
from bgfast.codecs.xgid import (
    STARTING_XGID,
    XgidRecord,
    board_to_xgid_field,
    format_xgid,
    match_fields_to_xgid,
    parse_xgid,
    xgid_field_to_board,
    xgid_to_match_fields,
)
from bgfast.errors import InvalidMatchIdError, InvalidPositionError
from bgfast.formats.text import read_position
from bgfast.match import MatchState
from bgfast.position import Position

DATA = Path(__file__).parent / "data"
START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
OPENING_FIELD = "-b----E-C---eE---c-e----B-"


def _position_boards() -> list[list[list[int]]]:
    with open(DATA / "ids.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [row["board"] for row in rows if row["kind"] == "position"]


def _mirror(field: str) -> str:
    """The same position seen from the other side: reverse and swap the letter case."""
    return field[::-1].swapcase()


# ----------------------------------------------------------------- position field


def test_opening_xgid_field_is_the_starting_position_for_both_sides():
    assert xgid_field_to_board(OPENING_FIELD) == [START, START]
    assert xgid_field_to_board(OPENING_FIELD, turn=-1) == [START, START]
    assert board_to_xgid_field([START, START]) == OPENING_FIELD


def test_turn_one_puts_the_bottom_player_on_roll_as_side1():
    # Bottom player: 2 on the bar, 3 on its 1-point; top player: 1 on its bar and 4 on its 1-point.
    field = "aC----------------------dB"
    side0, side1 = xgid_field_to_board(field, turn=1)
    assert side1[24] == 2 and side1[0] == 3 and sum(side1) == 5
    assert side0[24] == 1 and side0[0] == 4 and sum(side0) == 5


def test_turn_minus_one_puts_the_top_player_on_roll_as_side1():
    field = "aC----------------------dB"
    assert xgid_field_to_board(field, turn=-1) == xgid_field_to_board(field, turn=1)[::-1]


def test_top_player_points_are_numbered_from_the_other_side():
    # A single top checker on the bottom player's 3-point is on the top player's 22-point.
    field = "---a----------------------"
    side0, _ = xgid_field_to_board(field)
    assert side0[21] == 1 and sum(side0) == 1


def test_real_xgid_from_a_forum_post_decodes_to_fifteen_checkers_a_side():
    # "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10", a 7-point match at 6-4, Crawford.
    side0, side1 = xgid_field_to_board("--A-bBBBB--BbB-----dbbc-B-")
    assert sum(side0) == 15 and sum(side1) == 15
    assert side1[1] == 1 and side1[4:8] == [2, 2, 2, 2]
    assert side1[10] == 2 and side1[12] == 2 and side1[23] == 2
    # Top's checkers on bottom points 4, 12 and 19..22 are top's own points 21, 13 and 6..3.
    assert side0[20] == 2 and side0[12] == 2
    assert side0[5] == 4 and side0[4] == 2 and side0[3] == 2 and side0[2] == 3


@pytest.mark.parametrize("turn", [1, -1])
def test_every_position_vector_board_round_trips_through_the_xgid_field(turn):
    for board in _position_boards():
        field = board_to_xgid_field(board, turn)
        assert len(field) == 26
        assert xgid_field_to_board(field, turn) == board, field


def test_the_two_turns_write_mirrored_fields():
    for board in _position_boards()[:50]:
        assert board_to_xgid_field(board, -1) == _mirror(board_to_xgid_field(board, 1))


@pytest.mark.parametrize(
    "field",
    [
        "-b----E-C---eE---c-e----B",  # 25 characters
        "-b----E-C---eE---c-e----B--",  # 27 characters
        "-b----E-C---eE---c-e----Q-",  # Q is outside A-O
        "-b----E-C---eE---c-e----P-",  # P = 16 checkers on a point
        "-b----E-C---eE---c-e----1-",
        "Ab----E-C---eE---c-e----A-",  # a bottom checker on the top player's bar
        "-b----E-C---eE---c-e----Aa",  # a top checker on the bottom player's bar
        "-b----E-C---eE---c-e----C-",  # 16 bottom checkers
        "-c----E-C---eE---c-e----B-",  # 16 top checkers
    ],
)
def test_malformed_position_field_raises_invalid_position_error(field):
    with pytest.raises(InvalidPositionError) as info:
        xgid_field_to_board(field)
    assert repr(field) in str(info.value)


@pytest.mark.parametrize(
    "board",
    [
        [START, START[:24]],  # 24 entries
        [START],  # one side
        [START, [0] * 24 + [16]],  # 16 checkers
        [START, [-1] + [0] * 24],  # negative count
        [[1] + [0] * 24, [0] * 23 + [1, 0]],  # both on the same point
        "not a board",
    ],
)
def test_impossible_board_raises_invalid_position_error(board):
    with pytest.raises(InvalidPositionError):
        board_to_xgid_field(board)


def test_turn_other_than_plus_or_minus_one_is_refused():
    with pytest.raises(ValueError):
        board_to_xgid_field([START, START], turn=0)
    with pytest.raises(ValueError):
        xgid_field_to_board(OPENING_FIELD, turn=2)


# ----------------------------------------------------------------- whole XGID


@pytest.mark.parametrize(
    "text",
    [
        STARTING_XGID,
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10",
        "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10",
        "XGID=-b----E-C---eE---b-d-b--B-:0:0:1:46:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:0:0:1:0:10",
        "XGID=aC----B-------------b---dB:0:0:1:31:0:0:1:0:10",
        "XGID=---BBBBAAA---Ac-bbccbAA-A-:1:1:-1:63:4:3:0:5:8",
        "XGID=-b----E-C---eE---c-e----B-:2:1:-1:B:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:3:-1:1:R:0:0:2:0:6",
    ],
)
def test_xgid_round_trips_through_parse_and_format(text):
    assert format_xgid(parse_xgid(text)) == text


def test_opening_xgid_fields():
    rec = parse_xgid(STARTING_XGID)
    assert str(rec) == STARTING_XGID
    assert rec == XgidRecord(OPENING_FIELD)
    assert (rec.cube_value, rec.cube_position, rec.turn, rec.dice) == (1, 0, 1, "00")
    assert (rec.score_bottom, rec.score_top, rec.match_length, rec.max_cube) == (0, 0, 0, 1024)
    assert rec.board == [START, START]


def test_xgid_without_prefix_and_with_whitespace_parses():
    assert parse_xgid("  " + STARTING_XGID[len("XGID=") :] + "\n") == parse_xgid(STARTING_XGID)


def test_the_xgid_prefix_is_read_in_any_case():
    body = STARTING_XGID[len("XGID="):]
    assert parse_xgid("xgid=" + body) == parse_xgid("Xgid=" + body) == parse_xgid(STARTING_XGID)
    assert read_position("xgid=" + body).position == read_position(STARTING_XGID).position
    assert Position("xgid=" + body) == Position.from_xgid("xgid=" + body) == Position()


def test_match_xgid_rules_field_is_the_crawford_flag():
    rec = parse_xgid("XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10")
    assert rec.is_match and rec.crawford and not rec.jacoby and not rec.beaver
    assert (rec.score_bottom, rec.score_top) == (6, 4)


def test_money_xgid_rules_field_holds_jacoby_and_beaver_bits():
    flags = {
        r: (
            parse_xgid(f"XGID={OPENING_FIELD}:0:0:1:00:0:0:{r}:0:10").jacoby,
            parse_xgid(f"XGID={OPENING_FIELD}:0:0:1:00:0:0:{r}:0:10").beaver,
        )
        for r in range(4)
    }
    assert flags == {0: (False, False), 1: (True, False), 2: (False, True), 3: (True, True)}


def test_board_of_a_top_player_turn_is_from_the_top_players_view():
    rec = parse_xgid("XGID=aC----B-------------b---dB:0:0:-1:31:0:0:1:0:10")
    side0, side1 = rec.board
    assert side1[24] == 1 and side1[0] == 4  # top player: 1 on the bar, 4 on its ace point
    assert side0[24] == 2


def test_format_writes_every_field_in_order():
    rec = XgidRecord(
        OPENING_FIELD,
        cube_log2=2,
        cube_position=-1,
        turn=-1,
        dice="62",
        score_bottom=3,
        score_top=1,
        rules=0,
        match_length=9,
        max_cube_log2=6,
    )
    assert format_xgid(rec) == "XGID=-b----E-C---eE---c-e----B-:2:-1:-1:62:3:1:0:9:6"


@pytest.mark.parametrize(
    "text",
    [
        "XGID=-b----E-C---eE---c-e----B:0:0:1:31:0:0:1:0:10",
        "XGID=-b----E-C---eE---c-e----Q-:0:0:1:31:0:0:1:0:10",
        "XGID=Ab----E-C---eE---c-e----A-:0:0:1:31:0:0:1:0:10",
    ],
)
def test_bad_position_field_in_an_xgid_raises_invalid_position_error(text):
    with pytest.raises(InvalidPositionError) as info:
        parse_xgid(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4HPwATDgc/ABMA:cAkAAAAAAAAA",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0",  # nine fields
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10:1",  # eleven fields
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:31:0:0:1:0:10",  # not a number
        "XGID=-b----E-C---eE---c-e----B-:16:0:1:31:0:0:1:0:10",  # cube 2**16
        "XGID=-b----E-C---eE---c-e----B-:-1:0:1:31:0:0:1:0:10",  # negative cube
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:31:0:0:1:0:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:31:0:0:1:0:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:1:0:10",  # a die of 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:30:0:0:1:0:10",  # one die 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:1:0:10",  # unknown dice code
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:-1:0:1:0:10",  # negative score
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:2:7:10",  # rules 2 in a match
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:4:0:10",  # rules 4 in money
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1: 7:10",  # space in a number
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:7\n:10",  # newline in a number
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:D\n:0:0:1:7:10",  # newline after the dice
    ],
)
def test_bad_match_field_in_an_xgid_raises_invalid_match_id_error(text):
    with pytest.raises(InvalidMatchIdError) as info:
        parse_xgid(text)
    assert repr(text) in str(info.value)


def test_a_negative_count_in_an_xgid_is_named_as_such():
    with pytest.raises(InvalidMatchIdError, match="match length field '-3' is not a whole number of 0 or more"):
        parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:-3:10")


def test_xgid_that_is_not_a_string_raises_invalid_match_id_error():
    with pytest.raises(InvalidMatchIdError):
        parse_xgid(None)  # type: ignore[arg-type]


def test_record_built_with_a_bad_field_raises_invalid_match_id_error():
    with pytest.raises(InvalidMatchIdError):
        XgidRecord(OPENING_FIELD, dice="7")
    with pytest.raises(InvalidPositionError):
        XgidRecord("-" * 25)


# ----------------------------------------------------------------- match fields


@pytest.mark.parametrize(
    "text",
    [
        STARTING_XGID,
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10",
        "XGID=--A-bBBBB--BbB-----dbbc-B-:0:0:1:31:6:4:1:7:10",
        "XGID=-b----E-C---eE---b-d-b--B-:0:0:1:46:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:0:0:1:0:10",
        "XGID=aC----B-------------b---dB:0:0:-1:31:0:0:1:0:10",
        "XGID=---BBBBAAA---Ac-bbccbAA-A-:1:1:-1:63:4:3:0:5:8",
    ],
)
def test_match_fields_round_trip_through_the_xgid(text: str) -> None:
    rec = parse_xgid(text)
    fields = xgid_to_match_fields(rec)
    assert fields["game_state"] == 1 and fields["resigned"] == 0  # an XGID is read as a game in play
    assert fields["player_on_roll"] == 1  # the player on roll is player 1, as gnubg reads XGIDs
    scores = (rec.score_bottom, rec.score_top) if rec.turn == 1 else (rec.score_top, rec.score_bottom)
    assert (fields["score1"], fields["score0"]) == scores
    assert MatchState.from_match_id(encode_match_id(fields)) == MatchState.from_xgid(text)
    again = match_fields_to_xgid(fields, rec.board, beaver=rec.beaver, max_cube_log2=rec.max_cube_log2)
    assert xgid_to_match_fields(again) == fields and again.board == rec.board
    assert again.turn == 1 and (again == rec) == (rec.turn == 1)  # player 1 is drawn at the bottom


def test_a_double_offered_names_the_doubler_on_roll_and_the_other_player_to_act() -> None:
    # the top player owns the cube at 2 and redoubles: it is player 1, on roll; player 0 is to act
    fields = xgid_to_match_fields(parse_xgid(f"XGID={OPENING_FIELD}:1:-1:-1:D:0:0:0:7:10"))
    assert fields["double_offered"] == 1 and fields["player_on_roll"] == 1 and fields["turn"] == 0
    assert fields["cube_log2"] == 1 and fields["owner"] == 1 and (fields["die1"], fields["die2"]) == (0, 0)


@pytest.mark.parametrize("turn, position, owner", [(1, 1, 1), (1, -1, 0), (-1, -1, 1), (-1, 1, 0), (1, 0, 3), (-1, 0, 3)])
def test_the_cube_owner_is_numbered_by_who_is_on_roll(turn: int, position: int, owner: int) -> None:
    fields = xgid_to_match_fields(parse_xgid(f"XGID={OPENING_FIELD}:1:{position}:{turn}:00:0:0:0:0:10"))
    assert fields["owner"] == owner


@pytest.mark.parametrize("dice", ["B", "R"])
def test_a_pending_beaver_or_raccoon_has_no_match_fields(dice: str) -> None:
    with pytest.raises(InvalidMatchIdError, match="beaver or raccoon"):
        xgid_to_match_fields(parse_xgid(f"XGID={OPENING_FIELD}:2:1:-1:{dice}:0:0:3:0:10"))


def test_the_old_module_path_is_an_alias_of_the_codec() -> None:
    import bgfast.codecs.xgid
    import bgfast.xgid

    for name in bgfast.xgid.__all__:
        assert getattr(bgfast.xgid, name) is getattr(bgfast.codecs.xgid, name)


def test_an_xgid_whose_cube_is_above_its_own_maximum_cube_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    # a cube of 2^8 = 256 with a maximum of 2^3 = 8 was rolled out as cube 256
    from bgfast.cli import main

    text = f"XGID={OPENING_FIELD}:8:0:1:00:0:0:0:0:3"
    assert main(["rollout", text, "--bot", "random", "--trials", "36"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"bgfast: error: XGID cube 2^8 = 256 is above its maximum cube 2^3 = 8 in {text!r}\n")
    with pytest.raises(InvalidMatchIdError, match="above its maximum cube"):
        XgidRecord(OPENING_FIELD, cube_log2=4, max_cube_log2=3)
    assert parse_xgid(f"XGID={OPENING_FIELD}:3:0:1:00:0:0:0:0:3").cube_value == 8
    # a state whose cube is above the maximum it is written with gets the cube as its maximum
    state = MatchState(length=0, cube_value=2048, cube_owner=1)
    text = state.xgid([START, START])
    assert text.endswith(":11") and MatchState.from_xgid(text).cube_value == 2048
