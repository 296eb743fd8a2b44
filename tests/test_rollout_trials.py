"""The rollout's trials in the core (bgfast._core.rollout.TrialRunner): blocks, views, callbacks, Ctrl-C.

The engine's own tests (tests/test_rollout.py) check the estimates; these check the block
call itself: a trial is a pure function of its index whatever block it is played in, its
numbers are in the root's view, truncated trials are valued the same by a core evaluator
in C as through Python, and a signal stops a block between two trials.
"""
from __future__ import annotations

import signal
import time

import numpy as np
import pytest

from bgfast import Position
from bgfast._core.rollout import VALUES, TrialRunner
from bgfast.bots import Bot, get_bot
from bgfast.dice import ALL_36
from bgfast.game import make_runner
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.rollout import rollout

MIDGAME = Position("zN2QBSDgOXiAMQ")
# The side on roll bears off its last checker with any roll; the opponent has none off: a gammon.
GAMMON = Position.from_board([[0] * 5 + [15] + [0] * 19, [1] + [0] * 24])


def runner(bot: str = "pubeval", **rules: object):  # type: ignore[no-untyped-def]
    """A match runner of ``bot`` on both sides, never doubling (as a rollout's cubeless games)."""
    player = get_bot(bot, cube="never")
    return make_runner(player, player, rules=Rules(**rules))  # type: ignore[arg-type]


def play(trials: TrialRunner, position: Position, first: int, n: int, turn: int = 0) -> np.ndarray:
    out = np.full((n, VALUES), np.nan)
    trials.play(3, position.to_bytes(), turn, 0, 0, first, out)
    return out


def test_a_trial_is_the_same_in_any_block() -> None:
    trials = TrialRunner(runner(), stratified=2, rolls=ALL_36, cubeful_value=True)
    whole = play(trials, MIDGAME, 0, 100)
    parts = np.concatenate([play(trials, MIDGAME, 0, 37), play(trials, MIDGAME, 37, 63)])
    assert np.array_equal(whole, parts)
    assert np.array_equal(play(trials, MIDGAME, 50, 1)[0], whole[50])
    assert len({tuple(row) for row in whole}) > 3   # the trials differ from one another


def test_the_numbers_are_the_root_s_view() -> None:
    money = runner(jacoby=False)
    won = play(TrialRunner(money, root=0, cubeful_value=True), GAMMON, 0, 5)
    lost = play(TrialRunner(money, root=1, cubeful_value=True), GAMMON, 0, 5)
    assert won.tolist() == [[1.0, 1.0, 0.0, 0.0, 0.0, 2.0]] * 5          # a gammon: 2 points a cube
    assert lost.tolist() == [[0.0, 0.0, 0.0, 1.0, 0.0, -2.0]] * 5
    doubled = play(TrialRunner(money, root=0, cube=2, cubeful_value=True), GAMMON, 0, 1)
    assert doubled[0, 5] == 2.0                                            # per initial cube
    assert play(TrialRunner(money, root=0), GAMMON, 0, 1)[0, 5] == 0.0     # no cubeful value asked
    jacoby = play(TrialRunner(runner(jacoby=True), jacoby=True, cubeful_value=True), GAMMON, 0, 1)
    assert jacoby[0, 5] == 1.0                                             # centred cube: a single game


def test_a_match_trial_is_worth_the_match_winning_chance_after_it() -> None:
    met = MatchEquityTable.load()
    player = get_bot("pubeval", cube="never")
    match_runner = make_runner(player, player, length=5)
    trials = TrialRunner(match_runner, root=0, score=(1, 2), length=5, met=met.core_table, cubeful_value=True)
    assert play(trials, GAMMON, 0, 1)[0, 5] == met.mwc(4 - 2, 3)


class PythonEvaluator:
    """The neural bot's evaluation, called back from the trials."""

    def __init__(self) -> None:
        self.bot = get_bot("neural")

    def evaluate(self, position: Position):  # type: ignore[no-untyped-def]
        return self.bot.evaluate(position)


@pytest.mark.parametrize("options", [{}, {"cubeful": True}, {"cubeful": True, "match": MatchState(length=5, score=(1, 2))}])
def test_truncated_trials_are_valued_the_same_in_the_core_and_through_python(options: dict) -> None:
    common = dict(bot="pubeval", trials=72, seed=4, truncate=3, **options)
    core = rollout(MIDGAME, evaluator="neural", **common)
    python = rollout(MIDGAME, evaluator=PythonEvaluator(), **common)
    assert core.to_dict() | {"seconds": 0} == python.to_dict() | {"seconds": 0}


class PythonPubeval(Bot):
    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        return get_bot("pubeval").choose_move(position, dice, match)


def test_only_trials_that_call_python_hold_the_gil() -> None:
    assert not TrialRunner(runner()).calls_python
    assert not TrialRunner(runner(), max_plies=3, evaluator=get_bot("neural").evaluator).calls_python
    assert TrialRunner(runner(), max_plies=3, evaluate=lambda board: (0.5, 0, 0, 0, 0)).calls_python
    python = make_runner(PythonPubeval(), PythonPubeval())
    assert TrialRunner(python).calls_python and TrialRunner(runner(), python).calls_python


def test_a_python_evaluator_gets_the_final_board_with_the_side_on_roll_as_side_1() -> None:
    boards: list[bytes] = []

    def evaluate(board: bytes) -> tuple[float, ...]:
        boards.append(board)
        return (0.25, 0.0, 0.0, 0.5, 0.125)

    out = play(TrialRunner(runner(), root=0, max_plies=1, evaluate=evaluate), MIDGAME, 0, 2)
    # after one ply the opponent (player 1) is on roll: its chances, seen from player 0
    assert out.tolist() == [[0.75, 0.5, 0.125, 0.0, 0.0, 0.0]] * 2
    replies = {child.swap_sides() for d1, d2 in ALL_36 for child in MIDGAME.children(d1, d2)}
    assert len(boards) == 2 and all(Position.from_bytes(board) in replies for board in boards)


@pytest.mark.parametrize(("options", "message"), [
    ({"root": 2}, "root is player 0 or 1"),
    ({"stratified": 3}, "0, 1 or 2 rolls"),
    ({"stratified": 1, "rolls": ALL_36[:35]}, "36 rolls"),
    ({"stratified": 1, "rolls": [(7, 1)] * 36}, "two dice of 1..6"),
    ({"luck_scale": (1.0,)}, "5 weights"),
    ({"evaluator_plies": 2}, "0 or 1 ply"),
    ({"max_plies": -1}, "max_plies"),
    ({"max_plies": 3}, "need an evaluator"),
    ({"length": 5}, "needs a table"),
])
def test_the_trial_runner_refuses_bad_arguments(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TrialRunner(runner(), **options)


def test_a_block_refuses_a_bad_output_or_board() -> None:
    trials = TrialRunner(runner())
    with pytest.raises(ValueError, match="6 wide"):
        trials.play(1, MIDGAME.to_bytes(), 0, 0, 0, 0, np.zeros((3, 5)))
    with pytest.raises(ValueError, match="50 bytes"):
        trials.play(1, MIDGAME.to_bytes()[:49], 0, 0, 0, 0, np.zeros((3, 6)))


def test_a_signal_stops_a_block_between_two_trials() -> None:
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    out = np.full((200_000, VALUES), np.nan)   # some seconds of trials without the GIL
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        started = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            TrialRunner(runner()).play(1, MIDGAME.to_bytes(), 0, 0, 0, 0, out)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert np.isnan(out[-1]).all(), "the block was played to its end"
    assert time.perf_counter() - started < 30
