"""Tests of bgfast.formats.text.parse_position: the one reader of a position written as text."""
from __future__ import annotations

import pytest

from bgfast.errors import InvalidMatchIdError, InvalidPositionError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
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
    text = prefix + "-b----E-C---eE---c-e----B-:1:-1:1:D:4:2:0:7:10"
    pos, match = parse_position(text)
    assert pos == Position.from_xgid(text) == Position()
    assert match == MatchState.from_xgid(text) and match is not None and match.double_offered


def test_an_xgid_with_the_top_player_on_roll_is_from_that_players_view() -> None:
    pos, match = parse_position("XGID=aC----B-------------b---dB:0:0:-1:31:0:0:1:0:10")
    assert match is not None and match.player_on_roll == 0
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
