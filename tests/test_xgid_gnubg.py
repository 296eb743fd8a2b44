"""XGIDs read as GNU Backgammon reads them, and written so that gnubg reads them back.

gnubg 1.07's ``set xgid`` makes the player on roll its player 1, whoever sits at the
bottom (bgfast.codecs.xgid).  The vectors (tests/data/xgid.jsonl, tests/gnubg_vectors.py)
are 400 XGIDs drawn with every field and 200 that bgfast wrote for drawn match states,
each with the Position ID and Match ID gnubg holds after reading it.  The live tests ask
the gnubg program about fresh ones (skipped where it is not installed).  gnubg drops a
pending double (dice ``D``) where bgfast keeps it: that is the one field compared without.
"""
from __future__ import annotations

import random

import pytest
from gnubg_oracle import random_match_state, random_xgid, renumbered, requires_gnubg, run_gnubg, without_double
from vectors import read_ids, read_jsonl

from bgfast.errors import InvalidMatchIdError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
from bgfast.position import Position

ROWS = read_jsonl("xgid.jsonl")
READ = [r for r in ROWS if "match_id" in r]


def _gnubg_view(xgid: str) -> tuple[str, str]:
    """bgfast's reading of ``xgid`` as gnubg holds it: ``(Position ID, Match ID)``, a pending double withdrawn."""
    pos, match = parse_position(xgid)
    assert match is not None
    if xgid.split(":")[4] == "D":
        assert match.double_offered and match.turn == 0  # bgfast keeps the double: player 0 is to answer
        return pos.id(), without_double(match.match_id())
    return pos.id(), match.match_id()


def _refusals(rows: list[dict]) -> dict[str, str]:
    """``{xgid: bgfast's error}`` for the rows gnubg read and bgfast refuses."""
    out = {}
    for row in rows:
        try:
            parse_position(row["xgid"])
        except InvalidMatchIdError as exc:
            out[row["xgid"]] = str(exc)
    return out


def test_the_vectors_hold_hundreds_of_xgids_of_both_seats_and_all_dice() -> None:
    drawn = [r["xgid"].split(":") for r in ROWS if r["kind"] == "drawn"]
    assert len(ROWS) == 600 and len(READ) >= 590
    assert {f[3] for f in drawn} == {"1", "-1"} and {f[2] for f in drawn} >= {"1", "0", "-1"}
    assert {"00", "D"} <= {f[4] for f in drawn} and any(f[4][0] < f[4][1] for f in drawn if f[4].isdigit())


def _doubles_against_the_owner(rows: list[dict]) -> set[str]:
    """The XGIDs of a double (dice ``D``) by the player on roll while its opponent owns the cube:
    gnubg drops the double and reads them; bgfast, which keeps it, refuses them (finding 4)."""
    out = set()
    for row in rows:
        fields = row["xgid"].split(":")
        if fields[4] == "D" and int(fields[2]) == -int(fields[3]):
            out.add(row["xgid"])
    return out


def test_bgfast_reads_every_xgid_as_gnubg_does() -> None:
    refused = _refusals(READ)
    agree = [r for r in READ if r["xgid"] not in refused and _gnubg_view(r["xgid"]) == (r["position_id"], r["match_id"])]
    assert len(agree) == len(READ) - len(refused)
    against = _doubles_against_the_owner(READ)
    assert against <= set(refused)
    assert sum("cannot have doubled" in refused[x] for x in against) >= 20
    assert len(set(refused) - against) < len(READ) // 20


def test_a_double_by_the_side_whose_opponent_owns_the_cube_is_refused() -> None:
    for xgid in _doubles_against_the_owner(READ):
        with pytest.raises(InvalidMatchIdError, match="cannot have doubled: its opponent owns|is above its maximum"):
            parse_position(xgid)


IMPOSSIBLE = ("the Crawford game needs exactly one player 1-away", "no double in the Crawford game",
              "a centred cube is at 1", "is above its maximum cube", "the player on roll cannot have doubled")
"""What bgfast refuses and gnubg reads (and mends: it drops a Crawford flag away from match point, turns
the cube of a Crawford game back to 1, keeps a centred cube above 1 as gnubg's money sessions with
automatic doubles may have it; it keeps a cube above the XGID's own maximum cube, which no game under
that maximum reaches)."""


def test_bgfast_refuses_only_what_no_match_state_can_be() -> None:
    for xgid, message in _refusals(READ).items():
        assert any(reason in message for reason in IMPOSSIBLE), xgid


def test_bgfast_refuses_what_gnubg_refuses() -> None:
    unread = [r["xgid"] for r in ROWS if "match_id" not in r]
    assert unread  # scores at the match length
    for xgid in unread:
        # one of them also has a cube above its maximum, which bgfast checks first
        with pytest.raises(InvalidMatchIdError, match="the match is over|is above its maximum cube"):
            parse_position(xgid)


@pytest.mark.parametrize("row", [r for r in ROWS if r["kind"] == "written"], ids=lambda r: r["xgid"])
def test_gnubg_reads_the_xgid_bgfast_writes_as_the_state_it_was_written_for(row: dict) -> None:
    state = MatchState.from_match_id(row["from_match_id"])
    assert state.xgid(Position(row["from_position_id"]).board) == row["xgid"]  # bgfast still writes that text
    expected = state if state.player_on_roll == 1 else renumbered(state)  # the player on roll reads as player 1
    assert MatchState.from_xgid(row["xgid"]) == expected
    want = without_double(expected.match_id()) if expected.double_offered else expected.match_id()
    assert (row["position_id"], row["match_id"]) == (row["from_position_id"], want)


# ---------------------------------------------------------------- live


@requires_gnubg
def test_the_gnubg_program_reads_fresh_xgids_as_bgfast_does() -> None:
    rng = random.Random(2014)
    ids = read_ids("contact.csv") + read_ids("race.csv")
    drawn = [random_xgid(rng, ids) for _ in range(200)]
    answers = run_gnubg("xgid", drawn)
    for xgid, answer in zip(drawn, answers):
        if isinstance(answer, dict):  # gnubg did not read it: neither does bgfast
            with pytest.raises(InvalidMatchIdError):
                parse_position(xgid)
            continue
        try:
            mine = _gnubg_view(xgid)
        except InvalidMatchIdError as exc:
            assert any(reason in str(exc) for reason in IMPOSSIBLE), xgid
            continue
        assert mine == tuple(answer), xgid


@requires_gnubg
def test_the_gnubg_program_reads_the_xgids_bgfast_writes_as_their_states() -> None:
    rng = random.Random(2015)
    ids = read_ids("contact.csv")
    cases = [(random_match_state(rng), Position(rng.choice(ids))) for _ in range(100)]
    answers = run_gnubg("xgid", [state.xgid(pos.board) for state, pos in cases])
    for (state, pos), answer in zip(cases, answers):
        expected = state if state.player_on_roll == 1 else renumbered(state)
        want = without_double(expected.match_id()) if expected.double_offered else expected.match_id()
        assert answer == [pos.id(), want], state
