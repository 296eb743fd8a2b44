"""Tests of bgfast.formats.match_id: the Match ID bit codec on plain fields.

The oracle is the 100 gnubg Match ID vectors of ``tests/data/ids.jsonl`` (written by
GNU Backgammon) and an independent bit packer written here from the documented
layout, field by field, with no shared table.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bgfast.errors import InvalidMatchIdError
from bgfast.formats.match_id import LAYOUT, MatchFields, decode_match_id, encode_match_id

DATA = Path(__file__).parent / "data"


def _cases() -> list[dict]:
    with open(DATA / "ids.jsonl", encoding="utf-8") as f:
        return [row for row in map(json.loads, f) if row["kind"] == "match"]


CASES = _cases()


def _packed(fields: MatchFields) -> str:
    """The Match ID of ``fields``, packed one documented field at a time."""
    owner = 3 if fields.cube_owner == -1 else fields.cube_owner
    bits = (
        (fields.cube_value.bit_length() - 1)
        | owner << 4
        | fields.player_on_roll << 6
        | int(fields.crawford) << 7
        | fields.game_state << 8
        | fields.turn << 11
        | int(fields.double_offered) << 12
        | fields.resigned << 13
        | fields.dice[0] << 15
        | fields.dice[1] << 18
        | fields.length << 21
        | fields.score[0] << 36
        | fields.score[1] << 51
        | int(not fields.jacoby) << 66
    )
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def _fields_of(case: dict) -> MatchFields:
    return MatchFields(
        length=case["match_length"], score=tuple(case["score"]), cube_value=case["cube_value"],
        cube_owner=case["cube_owner"], crawford=bool(case["crawford"]), player_on_roll=case["player_on_roll"],
        turn=case["turn"], game_state=case["game_state"], double_offered=bool(case["double_offered"]),
        resigned=case["resigned"], dice=tuple(case["dice"]), jacoby=bool(case["jacoby"]),
    )


def test_the_layout_covers_bits_0_to_66_once() -> None:
    covered = sorted(bit for offset, width in LAYOUT.values() for bit in range(offset, offset + width))
    assert covered == list(range(67))


@pytest.mark.parametrize("case", CASES, ids=[c["match_id"] for c in CASES])
def test_each_gnubg_vector_decodes_to_its_fields_and_encodes_back(case: dict) -> None:
    fields = decode_match_id(case["match_id"])
    expected = _fields_of(case)
    assert fields == expected
    assert encode_match_id(fields) == case["match_id"] == _packed(expected)


fields_strategy = st.builds(
    MatchFields,
    length=st.integers(0, (1 << 15) - 1),
    score=st.tuples(st.integers(0, (1 << 15) - 1), st.integers(0, (1 << 15) - 1)),
    cube_value=st.integers(0, 15).map(lambda k: 1 << k),
    cube_owner=st.sampled_from([-1, 0, 1]),
    crawford=st.booleans(),
    player_on_roll=st.integers(0, 1),
    turn=st.integers(0, 1),
    game_state=st.integers(0, 7),
    double_offered=st.booleans(),
    resigned=st.integers(0, 3),
    dice=st.tuples(st.integers(0, 7), st.integers(0, 7)),
    jacoby=st.booleans(),
)


@given(fields_strategy)
def test_any_fields_that_fit_their_bits_round_trip(fields: MatchFields) -> None:
    text = encode_match_id(fields)
    assert len(text) == 12 and text == _packed(fields)
    assert decode_match_id(text) == fields


@pytest.mark.parametrize("change", [
    {"cube_value": 3}, {"cube_value": 1 << 16}, {"cube_value": 0}, {"cube_owner": 2}, {"turn": 2},
    {"game_state": 8}, {"resigned": 4}, {"dice": (8, 1)}, {"length": 1 << 15}, {"score": (0, -1)},
    {"player_on_roll": True},
])
def test_a_field_that_does_not_fit_its_bits_is_refused(change: dict) -> None:
    with pytest.raises(InvalidMatchIdError):
        encode_match_id(MatchFields()._replace(**change))


@pytest.mark.parametrize("text", ["", "cAkXAAAAAAA", "cAkXAAAAAAA=", "cAkXAAAAAA!A", "cAkXAAAAAAAAA", None])
def test_text_that_is_not_12_base64_characters_is_refused(text: object) -> None:
    with pytest.raises(InvalidMatchIdError, match="Match ID"):
        decode_match_id(text)  # type: ignore[arg-type]


def test_a_cube_owner_of_2_and_the_high_bits_are_refused() -> None:
    owner_2 = base64.b64encode((2 << 4).to_bytes(9, "little")).decode("ascii")
    with pytest.raises(InvalidMatchIdError, match="cube owner 2"):
        decode_match_id(owner_2)
    high = base64.b64encode((3 << 4 | 1 << 70).to_bytes(9, "little")).decode("ascii")
    with pytest.raises(InvalidMatchIdError, match="67-71"):
        decode_match_id(high)
