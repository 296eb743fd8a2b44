"""Rolling out some plays of a roll: the K best, the plays given, and dropping those clearly behind."""
from __future__ import annotations

import dataclasses
import json

import pytest

from bgfast.analysis.plays import rank_plays
from bgfast.cli import main
from bgfast.errors import IllegalMoveError, InvalidRolloutError
from bgfast.rollout import rollout

OPENING = "4HPwATDgc/ABMA"


def test_top_k_rolls_out_the_k_best_plays_of_the_bots_evaluation() -> None:
    r = rollout(OPENING, dice="31", plays=3, trials=36, bot="heuristic", luck=False)
    best = {str(p.move) for p in rank_plays(OPENING, "31", "heuristic").plays[:3]}
    assert {p.move for p in r.plays} == best and len(r.plays) == 3


def test_given_plays_have_the_figures_they_have_among_every_play() -> None:
    # a line's trials do not depend on the other lines: the same streams, play by play
    given = ["24/21 6/5", "8/5 6/5", "13/10 6/5", "6/5 8/5"]        # the last is the second, written otherwise
    some = rollout(OPENING, dice="31", plays=given, trials=72, seed=3, bot="heuristic")
    every = rollout(OPENING, dice="31", plays=True, trials=72, seed=3, bot="heuristic")
    assert sorted(p.move for p in some.plays) == ["13/10 6/5", "24/21 6/5", "8/5 6/5"]
    by_move = {p.move: p.result for p in every.plays}
    for p in some.plays:
        assert dataclasses.replace(p.result, seconds=0.0) == dataclasses.replace(by_move[p.move], seconds=0.0)


def test_a_given_play_that_is_not_legal_is_named() -> None:
    with pytest.raises(IllegalMoveError, match="no legal move '24/20 6/5' for dice 31"):
        rollout(OPENING, dice="31", plays=["8/5 6/5", "24/20 6/5"], trials=36, bot="heuristic")


@pytest.mark.parametrize(("options", "message"), [
    ({"plays": 0}, "plays .* must be a positive integer"),
    ({"plays": []}, "plays is an empty list"),
    ({"plays": "8/5 6/5"}, "plays must be True, a number of plays or a list of plays"),
    ({"plays": True, "prune_se": 0}, "prune_se must be a positive number"),
    ({"prune_se": 3.0}, "prune_se drops plays behind the best: give plays too"),
    ({"plays": 2, "bot": "pubeval"}, "the best 2 plays are found by the bot's evaluation"),
])
def test_bad_candidates_are_refused(options: dict[str, object], message: str) -> None:
    options = {"bot": "heuristic", **options}
    with pytest.raises(InvalidRolloutError, match=message):
        rollout(OPENING, dice="31", trials=36, **options)  # type: ignore[arg-type]


def test_pruning_drops_the_plays_clearly_behind_and_keeps_the_rest_as_they_were() -> None:
    plays = ["8/5 6/5", "8/7 8/5", "8/7 6/3", "24/21 6/5"]
    pruned = rollout(OPENING, dice="31", plays=plays, prune_se=2.0, trials=648, seed=1, bot="heuristic")
    full = rollout(OPENING, dice="31", plays=plays, trials=648, seed=1, bot="heuristic")
    assert pruned.plays[0].move == "8/5 6/5" and pruned.plays[0].dropped_after is None
    dropped = [p for p in pruned.plays if p.dropped_after is not None]
    assert {p.move for p in dropped} >= {"8/7 8/5", "8/7 6/3"}
    assert all(p.dropped_after == 324 and p.result.trials == 324 for p in dropped)
    assert all(p.difference.value + 2.0 * p.difference.se < 0 for p in dropped)
    by_move = {p.move: p for p in full.plays}
    for p in pruned.plays:
        if p.dropped_after is None:     # rolled out to the end: as without pruning
            assert p.result.equity == by_move[p.move].result.equity and p.difference == by_move[p.move].difference
    report = pruned.report()
    assert "dropped after 324 trials" in report
    assert json.loads(json.dumps(pruned.to_dict()))["plays"][-1]["dropped_after"] == 324


def test_pruning_does_not_depend_on_the_workers() -> None:
    plays = ["8/5 6/5", "8/7 8/5", "24/21 6/5"]
    one = rollout(OPENING, dice="31", plays=plays, prune_se=2.0, trials=648, seed=2, bot="heuristic", luck=False)
    two = rollout(OPENING, dice="31", plays=plays, prune_se=2.0, trials=648, seed=2, bot="heuristic", luck=False,
                  workers=2)
    assert [(p.move, p.result.equity, p.dropped_after) for p in one.plays] == \
        [(p.move, p.result.equity, p.dropped_after) for p in two.plays]


def test_cli_plays_top_k_and_repeated_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", OPENING, "--dice", "31", "--plays", "top:2", "--bot", "heuristic", "--trials", "36",
                 "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["plays"]) == 2
    assert main(["rollout", OPENING, "--dice", "31", "--play", "8/5 6/5", "--play", "24/21 6/5", "--bot",
                 "heuristic", "--trials", "36"]) == 0
    assert "2 plays of 31, ranked" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--plays", "top:0"], "argument --plays: takes top:K"),
    (["--plays", "5"], "argument --plays: takes top:K"),
    (["--play", "8/5 6/5", "--play", "24/20 6/5"], "no legal move '24/20 6/5' for dice 31"),
])
def test_cli_bad_candidates_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                    message: str) -> None:
    assert main(["rollout", OPENING, "--dice", "31", "--bot", "heuristic", "--trials", "36", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: ") and message in err and err.count("\n") == 1
