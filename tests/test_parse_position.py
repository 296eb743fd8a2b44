"""Tests of bgfast.formats.text (read_position, parse_position): the one reader of a position written as text."""
from __future__ import annotations

import pytest

from bgfast.dice import Dice
from bgfast.errors import InvalidDiceError, InvalidMatchIdError, InvalidPositionError, InvalidSpecError
from bgfast.formats.text import parse_position, read_position
from bgfast.match import MatchState, Rules
from bgfast.position import Position

AFTER_62 = "4HPkQSDgc/ABMA"   # the opponent opened 24/18 13/11


def test_a_position_is_returned_as_it_is_without_a_match_state() -> None:
    pos = Position(AFTER_62)
    parsed, match = parse_position(pos)
    assert parsed is pos and match is None


@pytest.mark.parametrize("text", [AFTER_62, f"  {AFTER_62}\n"])
def test_a_position_id_gives_the_position_and_no_match_state(text: str) -> None:
    assert parse_position(text) == (Position(AFTER_62), None)


def test_a_position_id_and_match_id_pair_gives_both() -> None:
    pos, match = parse_position(f"{AFTER_62}:cAkXAAAAAAAA")
    assert pos == Position(AFTER_62) and match == MatchState.from_match_id("cAkXAAAAAAAA")


@pytest.mark.parametrize("prefix", ["XGID=", ""])
def test_an_xgid_with_or_without_its_prefix_gives_both(prefix: str) -> None:
    text = prefix + "-b----E-C---eE---c-e----B-:1:1:1:D:4:2:0:7:10"
    pos, match = parse_position(text)
    assert pos == Position.from_xgid(text) == Position()
    assert match == MatchState.from_xgid(text) and match is not None and match.double_offered


def test_an_xgid_with_the_top_player_on_roll_is_from_that_players_view() -> None:
    pos, match = parse_position("XGID=aC----B-------------b---dB:0:0:-1:31:0:0:1:0:10")
    assert match is not None and match.player_on_roll == 1  # the player on roll is player 1, as in gnubg
    assert pos.board[1][24] == 1 and pos.board[1][0] == 4  # the top player: 1 on the bar, 4 on its ace point


@pytest.mark.parametrize("text, error", [
    ("4HPwATDgc/AB!A", InvalidPositionError),
    ("4HPwATDgc/ABMA:cAkXAAAAAA!A", InvalidMatchIdError),
    ("4HPwATDgc/AB!A:cAkXAAAAAAAA", InvalidPositionError),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:1:0:10", InvalidMatchIdError),
    ("XGID=-b----E-C---eE---c-e----Q-:0:0:1:31:0:0:1:0:10", InvalidPositionError),
    (None, InvalidPositionError),
    (42, InvalidPositionError),
])
def test_malformed_text_raises_the_error_of_its_part(text: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_position(text)  # type: ignore[arg-type]


# ------------------------------------------------------------------ read_position: the rules and the roll


def test_read_position_gives_what_parse_position_gives() -> None:
    for text in (AFTER_62, f"{AFTER_62}:cAkXAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:1:1:1:D:4:2:0:7:10"):
        read = read_position(text)
        assert (read.position, read.match) == parse_position(text)


@pytest.mark.parametrize("field, max_cube", [(3, 8), (8, 256), (10, 1024), (1, 2)])
def test_an_xgid_carries_its_maximum_cube_into_the_rules(field: int, max_cube: int) -> None:
    text = read_position(f"XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:{field}")
    assert text.max_cube == max_cube
    assert text.rules().max_cube == max_cube
    assert text.rules(Rules(max_cube=64, crawford=False)) == Rules(max_cube=max_cube, crawford=False)


def test_a_money_xgid_states_the_jacoby_and_beaver_rules() -> None:
    none = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert (none.jacoby, none.beaver) == (False, False)
    assert none.rules(Rules(jacoby=True, beaver=True)) == Rules(jacoby=False, beaver=False, max_cube=1024)
    both = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10")
    assert both.rules(Rules()) == Rules(jacoby=True, beaver=True, max_cube=1024)


def test_a_match_xgid_states_no_jacoby_or_beaver_rule() -> None:
    text = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:2:1:7:10")  # the rules field: Crawford
    assert text.jacoby is None and text.beaver is None and text.match is not None and text.match.crawford


def test_a_money_match_id_states_the_jacoby_rule_and_nothing_else() -> None:
    text = read_position(f"{AFTER_62}:cAkXAAAAAAAA")  # money, Jacoby on (bit 66 clear), 6-5 rolled
    assert (text.jacoby, text.beaver, text.max_cube) == (True, None, None)
    assert text.rules(Rules(max_cube=16, jacoby=False)) == Rules(max_cube=16, jacoby=True)


def test_a_position_id_states_no_rule() -> None:
    text = read_position(AFTER_62)
    assert text.match is None and text.rules(Rules(beaver=True)) == Rules(beaver=True)


def test_an_xgid_maximum_cube_of_one_is_refused_by_the_rules() -> None:
    text = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:0")
    assert text.max_cube == 1
    with pytest.raises(InvalidSpecError, match=r"the XGID's maximum-cube field is 0 \(a highest cube of 2\*\*0 = 1\)"):
        text.rules()


def test_the_text_allows_only_the_dice_its_match_id_says_were_rolled() -> None:
    text = read_position(f"{AFTER_62}:cAkXAAAAAAAA")  # 6-5 rolled
    assert text.check_roll("65") == Dice(6, 5)
    with pytest.raises(InvalidDiceError, match="6-5 were rolled"):
        text.check_roll("31")


def test_the_text_allows_no_roll_while_a_double_is_pending() -> None:
    text = read_position("XGID=-b----E-C---eE---c-e----B-:1:1:1:D:4:2:0:7:10")
    with pytest.raises(InvalidDiceError, match="a double is pending"):
        text.check_roll("31")


def test_a_position_id_allows_any_dice() -> None:
    assert read_position(AFTER_62).check_roll("3-1") == Dice(3, 1)
