"""How a finished game is scored: ``Position.outcome()`` on the gnubg vectors, and the
C game loop's result against the final position of the same game replayed in Python."""
from __future__ import annotations

import pytest
from bgfast._core.evaluators import pubeval_score
from bgfast._core.rng import Stream
from conftest import read_jsonl

from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.position import VARIANTS, Outcome, Position, starting_position

CASES = read_jsonl("scoring.jsonl")


@pytest.mark.parametrize("case", CASES, ids=[c["position_id"] for c in CASES])
def test_outcome_of_a_finished_game_matches_gnubg(case: dict) -> None:
    pos = Position.from_id(case["position_id"])
    assert [list(side) for side in pos.board] == case["board"]
    assert pos.outcome() == Outcome(case["winner"], case["result"], case["points"])
    assert pos.is_over()


def test_the_vectors_cover_every_kind_of_win_for_both_sides() -> None:
    assert {(c["winner"], c["result"]) for c in CASES} == {
        (w, kind) for w in (0, 1) for kind in ("single", "gammon", "backgammon")
    }


def test_outcome_is_none_while_both_sides_have_checkers() -> None:
    assert Position().outcome() is None
    assert not Position().is_over()


def test_outcome_seen_from_the_other_side_names_the_other_index() -> None:
    case = CASES[0]
    pos = Position.from_id(case["position_id"])
    assert pos.swap_sides().outcome() == Outcome(1 - case["winner"], case["result"], case["points"])


# ---------------------------------------------------------------- the loop's scoring


def _kind(final: Position, checkers: int) -> str:
    """The kind of win in ``final`` (the winner is side 1), for ``checkers`` a side."""
    loser = final.board[0]
    if sum(loser) < checkers:
        return "single"
    return "backgammon" if loser[24] or any(loser[18:24]) else "gammon"


def _replay(seed: int, index: int, variant: str = "standard") -> tuple[int, str, int, Position]:
    """Play pubeval (seat 0) against random (seat 1) in Python, with the streams the C
    loop uses for match ``index`` of run ``seed``: dice on lane 0, player ``p``'s random
    choices on lane ``p + 1``.  Returns (winner, kind, plies, final position)."""
    counts = VARIANTS[variant][1]
    dice, choices = Stream(seed, index, 0), (Stream(seed, index, 1), Stream(seed, index, 2))
    pos = Position.from_board([counts, counts])
    while True:
        a, b = dice.die(), dice.die()
        if a != b:
            break
    turn, plies = (0 if a > b else 1), 0
    while True:
        children = pos.children(a, b)
        if len(children) == 1:
            child = children[0]
        elif turn == 0:
            race = pos.is_race()
            child = max(children, key=lambda c: pubeval_score(c.to_bytes(), race))
        else:
            child = children[choices[1].below(len(children))]
        plies += 1
        if child.is_over():
            return turn, _kind(child, sum(counts)), plies, child
        pos, turn = child.swap_sides(), 1 - turn
        a, b = dice.die(), dice.die()


@pytest.mark.parametrize("variant", ["standard", "nackgammon", "hypergammon"])
def test_the_loop_scores_each_game_by_its_final_position(variant: str) -> None:
    player = MatchPlayer(get_bot("pubeval", cube="never"), get_bot("random"),
                         rules=Rules(jacoby=False, variant=variant))
    kinds = set()
    for index in range(60):
        game = player.record(seed=5, index=index).games[0]
        winner, kind, plies, final = _replay(5, index, variant)
        assert (game.winner, game.kind, game.plies) == (winner, kind, plies), index
        assert game.points == {"single": 1, "gammon": 2, "backgammon": 3}[kind]
        assert final.outcome(checkers=sum(VARIANTS[variant][1])).kind == kind
        kinds.add(kind)
    assert kinds == {"single", "gammon", "backgammon"}


def test_a_hypergammon_gammon_means_the_loser_bore_off_none_of_three() -> None:
    counts = VARIANTS["hypergammon"][1]
    assert sum(counts) == 3
    # the winner (side 1) has borne off all 3; the loser still has its 3 (gammon) or 2 (single)
    gammon = Position.from_board([[0] * 6 + [3] + [0] * 18, [0] * 25])
    single = Position.from_board([[0] * 6 + [2] + [0] * 18, [0] * 25])
    assert _kind(gammon, 3) == "gammon" and _kind(single, 3) == "single"
    assert gammon.outcome(checkers=3).kind == "gammon" and single.outcome(checkers=3).kind == "single"
    assert gammon.outcome().kind == "single"  # counted as 15 a side, 12 would be borne off


@pytest.mark.parametrize("checkers", [0, 16, 2, True, "3"])
def test_outcome_refuses_an_impossible_checker_count(checkers: object) -> None:
    final = Position.from_board([[0] * 6 + [3] + [0] * 18, [0] * 25])
    with pytest.raises(ValueError, match="checker"):
        final.outcome(checkers=checkers)  # type: ignore[arg-type]
    assert starting_position("hypergammon").checkers() == (3, 3)
