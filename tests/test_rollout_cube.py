"""Cube decisions rolled out: no double and double/take on the same dice (bgfast/rollout/cube_decision.py)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bgfast import Position
from bgfast.cli import main
from bgfast.errors import InvalidRolloutError
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.analysis.cube_action import CubeAction
from bgfast.rollout import rollout
from bgfast.rollout.cube_decision import CubeRollout, close_calls
from bgfast.rollout.result import Estimate

RACE_DOUBLE_TAKE = "9rcNAADb3Q0AAA"          # a short race, 54 pips to 55: double, take
# the side on roll bears off its last two checkers from the ace point next roll; the opponent has
# borne off: no gammons, a sure win: double, pass
SURE_WIN = Position.from_board([[0, 0, 0, 0, 0, 0, 3] + [0] * 18, [2] + [0] * 24]).id()


def test_double_take_is_the_rollout_of_the_taken_cube_on_the_same_seed() -> None:
    # Given a money race, rolled out as a cube decision and, apart, with the cube taken
    r = rollout(RACE_DOUBLE_TAKE, cube=True, trials=144, seed=5, bot="heuristic")
    taken = MatchState(cube_value=2, cube_owner=1)
    apart = rollout(RACE_DOUBLE_TAKE, match=taken, cubeful=True, trials=144, seed=5, bot="heuristic")
    # Then double/take, per unit of the cube before the double, is twice that, to the bit
    assert r.cube_decision is not None
    assert r.cube_decision.double_take.value == 2 * apart.cubeful_equity.value  # type: ignore[union-attr]
    assert r.cube_decision.double_take.se == 2 * apart.cubeful_equity.se  # type: ignore[union-attr]
    # and both lines played the same cubeless games
    assert r.probabilities == apart.probabilities


def test_no_double_is_the_plain_rollout_when_the_bot_would_not_double_anyway() -> None:
    r = rollout("4HPwATDgc/ABMA", cube=True, trials=72, seed=2, bot="heuristic")
    plain = rollout("4HPwATDgc/ABMA", cubeful=True, trials=72, seed=2, bot="heuristic")
    assert r.cube_decision is not None and r.cube_decision.no_double == plain.cubeful_equity
    assert r.cubeful_equity == plain.cubeful_equity and r.equity == plain.equity


def test_the_difference_is_paired_and_its_error_is_smaller_than_two_independent_rollouts() -> None:
    r = rollout(RACE_DOUBLE_TAKE, cube=True, trials=288, seed=1, bot="heuristic")
    c = r.cube_decision
    assert c is not None
    assert c.difference.value == pytest.approx(c.double_take.value - c.no_double.value, abs=1e-12)
    independent = math.hypot(c.no_double.se, c.double_take.se)
    assert 0 < c.difference.se < 0.7 * independent


def test_a_sure_win_without_gammons_is_double_pass() -> None:
    r = rollout(SURE_WIN, cube=True, trials=72, seed=0, bot="heuristic")
    c = r.cube_decision
    assert c is not None and c.action.value == "Double, pass"
    assert c.no_double.value == pytest.approx(1.0) and c.double_take.value == pytest.approx(2.0)
    assert c.double_pass == 1.0 and c.optimal == 1.0


def test_match_play_gives_emg_and_mwc_and_double_pass_wins_the_cube() -> None:
    match = MatchState(length=7, score=(3, 4))
    r = rollout(RACE_DOUBLE_TAKE, match=match, cube=True, trials=72, seed=3, bot="heuristic")
    c, table = r.cube_decision, MatchEquityTable.load("Kazaross-XG2")
    assert c is not None and c.mwc is not None
    nd, dt, dp = c.mwc
    assert dp == pytest.approx(table.mwc(4 - 1, 3, False)) and c.double_pass == pytest.approx(1.0)
    assert c.no_double.value == pytest.approx(table.mwc_to_emg(nd.value, 4, 3, 1))
    assert c.double_take.value == pytest.approx(table.mwc_to_emg(dt.value, 4, 3, 1))
    assert r.cubeful_mwc == nd


def test_a_pending_double_is_the_decision_rolled_out() -> None:
    pending = MatchState(length=7, score=(3, 4), double_offered=True, turn=1)
    before = MatchState(length=7, score=(3, 4))
    a = rollout(RACE_DOUBLE_TAKE, match=pending, cube=True, trials=72, bot="heuristic")
    b = rollout(RACE_DOUBLE_TAKE, match=before, cube=True, trials=72, bot="heuristic")
    assert a.cube_decision == b.cube_decision


@pytest.mark.parametrize(("options", "message"), [
    ({"dice": "31"}, "the cube decision comes before the roll, but the dice 31 are given"),
    ({"match": MatchState(cube_value=2, cube_owner=1)}, "no cube decision to roll out: player 0 cannot double: "
                                                        "player 1 owns the cube"),
    ({"match": MatchState(length=7, score=(6, 3), crawford=True)}, "no cube decision to roll out: .*Crawford"),
    ({"match": MatchState(cube_value=64, cube_owner=0), "rules": Rules(max_cube=64)}, "the cube is at 64 and the maximum is 64"),
])
def test_a_cube_rollout_where_no_double_is_possible_is_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRolloutError, match=message):
        rollout(RACE_DOUBLE_TAKE, cube=True, trials=36, bot="heuristic", **options)  # type: ignore[arg-type]


def test_cli_cube_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", RACE_DOUBLE_TAKE, "--cube", "--bot", "heuristic", "--trials", "72", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("no_double", "double_take", "double_pass", "difference"):
        assert isinstance(data[key], float) and isinstance(data[f"{key}_se"], float)
    assert data["action"] in {"Double, take", "No double, take", "Double, pass", "Too good to double, pass"}
    assert data["cubeful_equity"] == data["no_double"] and data["double_pass"] == 1.0
    assert main(["rollout", RACE_DOUBLE_TAKE, "--cube", "--bot", "heuristic", "--trials", "72"]) == 0
    text = capsys.readouterr().out
    assert "  1. No double " in text and "  2. Double, take " in text and "Proper cube action: " in text


def test_cli_cube_with_dice_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", RACE_DOUBLE_TAKE, "--cube", "--dice", "31", "--bot", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: the cube decision comes before the roll") and err.count("\n") == 1


def test_the_per_trial_values_are_those_of_the_same_trials() -> None:
    # the stratified first rolls are the same in both lines: with luck off and no cube turned in a
    # sure win, each trial's double/take is exactly twice its no double
    r = rollout(SURE_WIN, cube=True, trials=72, seed=4, bot="heuristic", luck=False)
    c = r.cube_decision
    assert c is not None and c.difference.se == 0.0 and np.isclose(c.difference.value, c.no_double.value)


def test_rollout_figures_print_no_negative_zero() -> None:
    from bgfast.rollout.result import Estimate

    # a figure a hair below zero printed "-0.0000" (the analysis commands' signed() never does)
    assert str(Estimate(-1e-7, 0.01)) == "+0.0000 ± 0.0100"
    assert str(Estimate(-0.25, 0.01)) == "-0.2500 ± 0.0100"


@pytest.mark.parametrize("nd, dt, diff, words", [
    ((0.50, 0.01), (0.80, 0.01), (0.30, 0.005), ()),                  # a clear double and take
    ((0.50, 0.01), (0.51, 0.01), (0.01, 0.02), ("double",)),          # double/take barely above no double
    ((0.50, 0.01), (0.99, 0.01), (0.49, 0.01), ("take",)),            # double/take a hair below the pass
    ((0.995, 0.01), (1.40, 0.01), (0.405, 0.01), ("double",)),        # passes, and no double is about the pass
    ((1.0000001, 0.01), (1.8, 0.05), (0.8, 0.05), ()),                # ... but not under Jacoby, centred
    ((0.50, math.nan), (0.51, math.nan), (0.01, math.nan), ()),       # one trial: no error known
])
def test_a_close_call_is_a_margin_within_two_standard_errors(nd, dt, diff, words):
    jacoby = nd[0] > 1.0
    got = close_calls(Estimate(*nd), Estimate(*dt), 1.0, Estimate(*diff), jacoby_centred=jacoby)
    assert got == words


def test_the_report_says_when_the_rollout_leaves_the_action_open():
    clear = rollout("BQAACAEAAAAAAA", cube=True, trials=72, seed=1, bot="heuristic").cube_decision  # last roll: exact
    assert clear.close == () and clear.to_dict()["close"] == [] and "close call" not in "\n".join(clear.text(False))
    nd, dt = Estimate(0.50, 0.01), Estimate(0.99, 0.01)
    near = CubeRollout(nd, dt, 1.0, Estimate(0.49, 0.01), CubeAction.DOUBLE_TAKE, close=("take",))
    assert near.text(match_play=False)[-1] == "  a close call: take or pass is within 2 standard errors; more trials would tell"
