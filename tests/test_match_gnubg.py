"""The cube rules of bgfast.match checked against GNU Backgammon's ``double`` command.

gnubg 1.07 refuses a double when the cube is dead for the doubler ("The cube is dead; you
can't double any more"), and in the Crawford game, and when the opponent owns the cube.
tests/data/dead_cube.jsonl (tests/gnubg_vectors.py dead-cube) holds, for every score of
matches to 1, 2, 3, 5 and 7 points, cubes 1 to 8 and their owner, either player on roll,
Crawford or not, and some money states, whether gnubg offered the double.
"""
from __future__ import annotations

import pytest
from gnubg_oracle import requires_gnubg, run_gnubg
from vectors import read_jsonl

from bgfast.match import MatchState, Rules
from bgfast.position import Position

ROWS = read_jsonl("dead_cube.jsonl")
GNUBG_RULES = Rules(max_cube=32768)
"""No maximum in the way: the cubes of the vectors (up to 8) are far below gnubg's."""


def test_the_vectors_hold_dead_and_live_cubes_of_both_players() -> None:
    states = [MatchState.from_match_id(r["match_id"]) for r in ROWS]
    assert len(ROWS) == 1298 and {s.player_on_roll for s in states} == {0, 1}
    assert sum(r["doubles"] for r in ROWS) == 306
    assert any(s.is_cube_dead(s.player_on_roll) and not s.crawford for s in states)


def test_can_double_is_true_exactly_when_gnubg_doubles() -> None:
    wrong = [r["match_id"] for r in ROWS
             if MatchState.from_match_id(r["match_id"]).can_double(
                 MatchState.from_match_id(r["match_id"]).player_on_roll, GNUBG_RULES) != r["doubles"]]
    assert wrong == []


def test_with_dead_cube_allow_a_dead_cube_is_doubled_where_gnubg_refuses() -> None:
    allow = Rules(max_cube=GNUBG_RULES.max_cube, dead_cube="allow")
    extra = 0
    for row in ROWS:
        state = MatchState.from_match_id(row["match_id"])
        player = state.player_on_roll
        if row["doubles"]:
            assert state.can_double(player, allow)
        elif state.can_double(player, allow):
            assert state.is_cube_dead(player) and not state.crawford
            extra += 1
    assert extra > 100


@requires_gnubg
def test_the_gnubg_program_refuses_the_double_of_a_dead_cube_as_can_double_does() -> None:
    states = [MatchState.from_match_id(r["match_id"]) for r in ROWS[::7]]
    start = Position().id()
    answers = run_gnubg("double", [[start, s.match_id()] for s in states])
    for state, answer in zip(states, answers):
        assert isinstance(answer, str), answer
        assert MatchState.from_match_id(answer).double_offered == state.can_double(state.player_on_roll,
                                                                                   GNUBG_RULES), state


@pytest.mark.parametrize("score, cube, owner", [((5, 3), 2, 0), ((6, 2), 1, -1)])
@requires_gnubg
def test_the_gnubg_program_refuses_the_issue_examples(score: tuple[int, int], cube: int, owner: int) -> None:
    # the 2-away leader owning a 2-cube; the 1-away leader after the Crawford game
    state = MatchState(length=7, score=score, cube_value=cube, cube_owner=owner)
    (answer,) = run_gnubg("double", [[Position().id(), state.match_id()]])
    assert not MatchState.from_match_id(answer).double_offered and not state.can_double(0, Rules())


@pytest.mark.parametrize("owner", [0, 1])
@requires_gnubg
def test_a_cube_at_1_owned_by_a_player_is_read_as_gnubg_reads_it(owner: int) -> None:
    # gnubg keeps such a Match ID ("The cube is at 1, and is owned by ..."), and its owner
    # alone may double it, as bgfast's MatchState and can_double have it
    state = MatchState(length=7, score=(2, 3), cube_value=1, cube_owner=owner)
    (answer,) = run_gnubg("double", [[Position().id(), state.match_id()]])
    assert isinstance(answer, str), answer
    assert MatchState.from_match_id(answer).double_offered == state.can_double(0, GNUBG_RULES) == (owner == 0)
