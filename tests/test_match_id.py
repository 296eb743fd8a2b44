"""Tests of bgfast.codecs.match_id: the Match ID bit codec on plain fields.

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

from bgfast.codecs.match_id import LAYOUT, decode_match_id, encode_match_id
from bgfast.errors import InvalidMatchIdError

DATA = Path(__file__).parent / "data"


def _cases() -> list[dict]:
    with open(DATA / "ids.jsonl", encoding="utf-8") as f:
        return [row for row in map(json.loads, f) if row["kind"] == "match"]


CASES = _cases()


def _packed(f: dict[str, int]) -> str:
    """The Match ID of ``f``, packed one documented field at a time."""
    bits = (
        f["cube_log2"] | f["owner"] << 4 | f["player_on_roll"] << 6 | f["crawford"] << 7 | f["game_state"] << 8
        | f["turn"] << 11 | f["double_offered"] << 12 | f["resigned"] << 13 | f["die1"] << 15 | f["die2"] << 18
        | f["length"] << 21 | f["score0"] << 36 | f["score1"] << 51 | f["no_jacoby"] << 66
    )
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def _fields_of(case: dict) -> dict[str, int]:
    """A vector's fields (written by gnubg in MatchState's terms) as the Match ID stores them."""
    return {
        "cube_log2": case["cube_value"].bit_length() - 1, "owner": 3 if case["cube_owner"] == -1 else case["cube_owner"],
        "player_on_roll": case["player_on_roll"], "crawford": int(case["crawford"]), "game_state": case["game_state"],
        "turn": case["turn"], "double_offered": int(case["double_offered"]), "resigned": case["resigned"],
        "die1": case["dice"][0], "die2": case["dice"][1], "length": case["match_length"],
        "score0": case["score"][0], "score1": case["score"][1], "no_jacoby": int(not case["jacoby"]),
    }


def test_the_layout_covers_bits_0_to_66_once() -> None:
    covered = sorted(bit for offset, width in LAYOUT.values() for bit in range(offset, offset + width))
    assert covered == list(range(67))


@pytest.mark.parametrize("case", CASES, ids=[c["match_id"] for c in CASES])
def test_each_gnubg_vector_decodes_to_its_fields_and_encodes_back(case: dict) -> None:
    fields = decode_match_id(case["match_id"])
    assert fields == _fields_of(case)
    assert encode_match_id(fields) == case["match_id"] == _packed(fields)


fields_strategy = st.fixed_dictionaries(
    {name: st.integers(0, (1 << width) - 1) for name, (_, width) in LAYOUT.items()}
).filter(lambda f: f["owner"] != 2)


@given(fields_strategy)
def test_any_fields_that_fit_their_bits_round_trip(fields: dict[str, int]) -> None:
    text = encode_match_id(fields)
    assert len(text) == 12 and text == _packed(fields)
    assert decode_match_id(text) == fields


@pytest.mark.parametrize("change", [
    {"cube_log2": 16}, {"owner": 4}, {"turn": 2}, {"game_state": 8}, {"resigned": 4}, {"die1": 8},
    {"length": 1 << 15}, {"score1": -1}, {"player_on_roll": True}, {"no_jacoby": 0.0},
])
def test_a_field_that_does_not_fit_its_bits_is_refused(change: dict) -> None:
    fields = decode_match_id("cAkXAAAAAAAA") | change
    with pytest.raises(InvalidMatchIdError, match="Match ID field"):
        encode_match_id(fields)


def test_a_missing_or_unknown_field_is_refused() -> None:
    fields = decode_match_id("cAkXAAAAAAAA")
    with pytest.raises(InvalidMatchIdError, match="missing \\['turn'\\]"):
        encode_match_id({k: v for k, v in fields.items() if k != "turn"})
    with pytest.raises(InvalidMatchIdError, match="unknown \\['cube_value'\\]"):
        encode_match_id(fields | {"cube_value": 1})


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
