"""The tournament judge in the game loop (bgfast/_core/game.pyx, ``MatchRunner.set_judge``):
the luck of each roll and the error of each decision, against exact enumeration and by
simulation.

Oracles: in a last-roll position (the side on roll bears off with some rolls, else its
opponent surely wins) the luck of a roll is exactly its value (a win or a loss) minus the
mean over the 36 rolls; over many games each side's luck averages zero (each roll's luck
has mean zero given the position), within its standard error.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from bgfast.bots import Bot, get_bot
from bgfast.dice import Dice
from bgfast.game import JUDGED_COLUMNS, MatchPlayer, play_matches
from bgfast.met import MatchEquityTable
from bgfast.match import MatchState
from bgfast.position import Move, Position
from bgfast.tournament.spec import JudgeSpec

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
# Side 1 (on roll) has one checker on its 6-point and one on its 5-point; side 0 one on its ace.
LAST_ROLL = Position.from_board([[1] + [0] * 24, [0, 0, 0, 0, 1, 1] + [0] * 19])
WINNING = {(6, 5), (6, 6), (5, 5), (4, 4), (3, 3)}     # the rolls that bear both checkers off


def _judge(bot: str = "neural", **options: object) -> tuple[object, float]:
    return JudgeSpec(bot, options).evaluator()


def _player(bot0: str = "neural", bot1: str = "pubeval", *, length: int = 0, cube: str | None = "never",
            judge: str = "neural", luck_filter: int = 0) -> MatchPlayer:
    """Two bots (each with ``cube``, None: its default policy) judged by ``judge`` at 0-ply,
    its luck measure valuing pubeval's best ``luck_filter`` plays of each roll (0: all)."""
    options = {} if cube is None else {"cube": cube}
    player = MatchPlayer(get_bot(bot0, **options), get_bot(bot1, **options), length=length)
    player.set_judge(*_judge(judge), luck_filter=luck_filter)
    return player


def _judged(player: MatchPlayer) -> dict[str, float]:
    return dict(zip(JUDGED_COLUMNS, player.judged()))


def _last_roll_luck(player: MatchPlayer, roll: tuple[int, int], **where: int) -> dict[str, float]:
    """The judged figures of one game from LAST_ROLL, side 1 (player 1) rolling ``roll``
    and player 0 then 1-1, at the cube and score ``where`` says."""
    player._runner.script([*roll, 1, 1])
    player._runner.play_from(LAST_ROLL.to_bytes(), 1, **where)
    return _judged(player)


WIN = sum(1 if a == b else 2 for a, b in ROLLS if (a, b) in WINNING) / 36


@pytest.mark.parametrize("luck_filter", [0, 1])
@pytest.mark.parametrize(("cube", "owner", "points"), [(1, -1, 1), (2, 0, 2), (2, 1, 2)])
def test_the_last_roll_luck_is_the_rolls_value_minus_the_mean_over_36_rolls_in_money_play(
        cube: int, owner: int, points: int, luck_filter: int) -> None:
    assert WIN == pytest.approx(6 / 36)
    player = _player("pubeval", "pubeval", luck_filter=luck_filter)
    for roll in ROLLS:
        # Given side 1 on roll in the last-roll position, when it rolls ``roll``
        got = _last_roll_luck(player, roll, cube=cube, owner=owner)
        # Then its luck is 2 x cube x (won - P(win)) points, and side 0's sure win has none
        assert got["luck1"] == pytest.approx(2 * points * ((roll in WINNING) - WIN), abs=1e-4), roll
        assert got["luck0"] == pytest.approx(0.0, abs=1e-4), roll


@pytest.mark.parametrize(("cube", "owner", "score0", "score1"), [(1, -1, 2, 1), (2, 0, 0, 0), (1, -1, 3, 4)])
def test_the_last_roll_luck_is_in_match_winning_chance_at_the_score_in_match_play(
        cube: int, owner: int, score0: int, score1: int) -> None:
    met = MatchEquityTable.load()
    player = _player("pubeval", "pubeval", length=5)
    away0, away1 = 5 - score0, 5 - score1
    post = away0 == 1 or away1 == 1
    # Player 1's match winning chance after winning this game minus after losing it
    swing = ((1.0 if away1 <= cube else met.mwc(away1 - cube, away0, post))
             - (0.0 if away0 <= cube else met.mwc(away1, away0 - cube, post)))
    for roll in ROLLS:
        got = _last_roll_luck(player, roll, cube=cube, owner=owner, score0=score0, score1=score1)
        assert got["luck1"] == pytest.approx(swing * ((roll in WINNING) - WIN), abs=1e-4), roll
        assert got["luck0"] == pytest.approx(0.0, abs=1e-4), roll


def test_a_forced_or_best_play_is_no_checker_error() -> None:
    got = _last_roll_luck(_player("pubeval", "pubeval"), (6, 5))
    assert got["checker_error1"] == 0.0 and got["checker_error0"] == 0.0
    assert got["checker_decisions0"] == 0          # 1-1 with one checker on the ace: one play


def test_checker_errors_in_money_play_are_per_unit_of_the_cube_as_gnubgs() -> None:
    # Given the same game (the same scripted dice, players that never double) played from
    # the starting position with the cube owned by side 0 at 1 and at 4 (owned: the Jacoby
    # rule does not apply)
    rng = np.random.default_rng(3)
    dice = rng.integers(1, 7, size=400).tolist()
    player = _player("pubeval", "heuristic")
    figures = {}
    for cube in (1, 4):
        player._runner.script(dice)
        player._runner.play_from(Position().to_bytes(), 1, cube=cube, owner=0, max_plies=60)
        figures[cube] = _judged(player)
    # Then the errors are the same, normalized per unit of the cube (gnubg's error rates),
    # while the luck, in the result's points, is four times as much
    for seat in (0, 1):
        assert figures[1][f"checker_decisions{seat}"] > 10
        assert figures[4][f"checker_error{seat}"] == pytest.approx(figures[1][f"checker_error{seat}"], rel=1e-6)
        assert figures[4][f"luck{seat}"] == pytest.approx(4 * figures[1][f"luck{seat}"], rel=1e-6)
    assert figures[1]["checker_error0"] + figures[1]["checker_error1"] > 0


def test_each_sides_luck_averages_zero_over_many_games() -> None:
    # Given many money games between unequal bots, judged by the heuristic (cheap)
    n = 1500
    player = _player("neural", "pubeval", judge="heuristic")
    judged = np.zeros((n, len(JUDGED_COLUMNS)))
    play_matches([player], 11, np.zeros(n, np.int32), np.arange(n), judged=judged)
    for seat in (0, 1):
        luck = judged[:, seat]
        se = luck.std(ddof=1) / math.sqrt(n)
        # Then each side's mean luck is zero within 4 standard errors
        assert abs(luck.mean()) < 4 * se, (seat, luck.mean(), se)
        assert luck.std() > 0.2                # and it is measured (a game's luck is large)


def test_a_neural_judges_luck_with_a_filter_averages_zero_and_keeps_most_of_its_variance_cut() -> None:
    # Given many money games judged by the net valuing only pubeval's best 2 plays of each roll
    n = 1200
    judged = {}
    for luck_filter in (0, 2):
        player = _player("neural", "pubeval", luck_filter=luck_filter)
        judged[luck_filter] = np.zeros((n, len(JUDGED_COLUMNS)))
        out = play_matches([player], 13, np.zeros(n, np.int32), np.arange(n), judged=judged[luck_filter])
    luck = judged[2][:, :2]
    assert not np.allclose(luck, judged[0][:, :2])         # the filter changes the luck measured
    for seat in (0, 1):                                     # each side's luck still averages zero
        se = luck[:, seat].std(ddof=1) / math.sqrt(n)
        assert abs(luck[:, seat].mean()) < 4 * se, (seat, luck[:, seat].mean(), se)
    result = (out[:, 0] - out[:, 1]).astype(float)
    spread = {k: (result - (j[:, 0] - j[:, 1])).std() for k, j in judged.items()}
    assert spread[2] < 0.5 * result.std() and spread[2] < 1.1 * spread[0], (spread, result.std())


def test_a_neural_judges_checker_errors_do_not_depend_on_its_luck_filter() -> None:
    # The 0-ply judge reads each play's value from the luck measure of the roll rolled,
    # which values every play of that roll whatever the filter (two different sums of the
    # net's first layer: equal to float rounding).
    n = 60
    judged = {}
    for luck_filter in (0, 3):
        player = _player("heuristic", "pubeval", luck_filter=luck_filter)
        judged[luck_filter] = np.zeros((n, len(JUDGED_COLUMNS)))
        play_matches([player], 17, np.zeros(n, np.int32), np.arange(n), judged=judged[luck_filter])
    errors = [JUDGED_COLUMNS.index(c) for c in ("checker_error0", "checker_error1", "checker_decisions0",
                                                "checker_decisions1")]
    assert judged[0][:, errors].sum(axis=0)[:2].min() > 0
    np.testing.assert_allclose(judged[3][:, errors], judged[0][:, errors], rtol=1e-3, atol=1e-4)


def test_the_judges_0_ply_checker_errors_are_the_1_ply_judges_best_minus_chosen_in_order() -> None:
    # The 0-ply judge's errors (read from its luck measure) rank the players as the 1-ply
    # judge's (valued afresh by its search) do: pubeval errs more than the heuristic.
    n = 40
    rates = {}
    for ply in (0, 1):
        player = MatchPlayer(get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never"), length=0)
        player.set_judge(*_judge("neural", ply=ply), luck_filter=4)
        judged = np.zeros((n, len(JUDGED_COLUMNS)))
        play_matches([player], 19, np.zeros(n, np.int32), np.arange(n), judged=judged)
        named = dict(zip(JUDGED_COLUMNS, judged.sum(axis=0)))
        rates[ply] = [named[f"checker_error{s}"] / named[f"checker_decisions{s}"] for s in "01"]
    for ply in (0, 1):
        assert 0 < rates[ply][0] < rates[ply][1], rates


def test_a_negative_luck_filter_is_refused() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=0)
    with pytest.raises(ValueError, match="luck filter"):
        player.set_judge(*_judge("neural"), luck_filter=-1)


def test_the_result_minus_the_luck_difference_has_a_much_smaller_spread_with_a_good_judge() -> None:
    n = 300
    player = _player("neural", "pubeval", judge="neural")
    judged = np.zeros((n, len(JUDGED_COLUMNS)))
    out = play_matches([player], 5, np.zeros(n, np.int32), np.arange(n), judged=judged)
    result = (out[:, 0] - out[:, 1]).astype(float)
    adjusted = result - (judged[:, 0] - judged[:, 1])
    # The neural net judging itself and pubeval removes more than half the spread.
    assert adjusted.std() < 0.5 * result.std(), (adjusted.std(), result.std())


def test_players_that_never_double_have_no_cube_decisions_judged() -> None:
    n = 50
    player = _player("neural", "pubeval", cube="never")
    judged = np.zeros((n, len(JUDGED_COLUMNS)))
    play_matches([player], 3, np.zeros(n, np.int32), np.arange(n), judged=judged)
    named = dict(zip(JUDGED_COLUMNS, judged.T))
    for seat in "01":
        assert (named[f"cube_decisions{seat}"] == 0).all() and (named[f"cube_error{seat}"] == 0).all()
        assert named[f"checker_decisions{seat}"].sum() > 0


class _PythonPubeval(Bot):
    """pubeval's plays through the loop's Python path (no core config); ``cube`` set when given."""

    name = "python-pubeval"

    def __init__(self, cube: str | None = None) -> None:
        self._pubeval = get_bot("pubeval")
        if cube is not None:
            self.cube = cube

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Move | Position:
        return self._pubeval.choose_move(position, dice, match)


def test_a_python_bot_whose_cube_policy_is_never_has_no_cube_decisions_judged() -> None:
    n = 30
    figures = {}
    for cube in ("never", None):          # without ``cube`` it is asked back, and judged
        player = MatchPlayer(get_bot("neural", cube="never"), _PythonPubeval(cube), length=0)
        player.set_judge(*_judge("neural"))
        judged = np.zeros((n, len(JUDGED_COLUMNS)))
        out = play_matches([player], 3, np.zeros(n, np.int32), np.arange(n), judged=judged)
        figures[cube] = out, dict(zip(JUDGED_COLUMNS, judged.T))
    (never_out, never), (asked_out, asked) = figures["never"], figures[None]
    assert (never_out == asked_out).all()   # never doubles and always takes either way
    assert never["cube_decisions1"].sum() == 0 and never["cube_error1"].sum() == 0
    assert asked["cube_decisions1"].sum() > 0
    assert never["cube_decisions0"].sum() == asked["cube_decisions0"].sum() == 0


def test_players_that_double_have_their_cube_decisions_judged() -> None:
    n = 50
    player = _player("neural", "neural", cube="janowski")
    judged = np.zeros((n, len(JUDGED_COLUMNS)))
    play_matches([player], 3, np.zeros(n, np.int32), np.arange(n), judged=judged)
    named = dict(zip(JUDGED_COLUMNS, judged.T))
    assert named["cube_decisions0"].sum() + named["cube_decisions1"].sum() > 0
    assert (named["cube_error0"] >= -1e-9).all() and (named["cube_error1"] >= -1e-9).all()


def test_a_judged_match_plays_the_same_dice_and_plays_as_an_unjudged_one() -> None:
    n = 40
    plain = MatchPlayer(get_bot("neural"), get_bot("pubeval"), length=3)
    judged_player = _player("neural", "pubeval", length=3, cube=None)
    a = play_matches([plain], 9, np.zeros(n, np.int32), np.arange(n))
    b = play_matches([judged_player], 9, np.zeros(n, np.int32), np.arange(n), judged=np.zeros((n, 10)))
    assert (a == b).all()


def test_a_judge_of_match_play_needs_a_table() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=3)
    with pytest.raises(ValueError, match="match equity table"):
        player._runner.set_judge(_judge()[0], None)
    with pytest.raises(TypeError, match="CoreEvaluator"):
        player._runner.set_judge("neural")


def test_the_judges_close_cube_rule_is_analyse_matchs() -> None:
    from bgfast._core.game import JUDGE_CLOSE_CUBE
    from bgfast.analysis.error_rates import CLOSE_CUBE
    assert JUDGE_CLOSE_CUBE == CLOSE_CUBE


# Side 1 (on roll) has a checker on its 2-point and one on its 4-point: 23 of the 36 rolls
# bear both off (63.9%); side 0, one checker on its ace, surely wins on its next roll.
# Money, cube centred: no double is worth 2p - 1 = 10/36, double/take 2 (2p - 1) = 20/36,
# double/pass 1, exactly (no gammon, and nobody uses the cube after this roll).
LAST_ROLL_64 = Position.from_board([[1] + [0] * 24, [0, 1, 0, 1] + [0] * 21])
WIN_64 = 23 / 36


def _judged_last_roll_64(cube_ply: int, double: bool, answer: object, cube: int = 1, owner: int = -1) -> dict[str, float]:
    from scripted_bots import ScriptedBot

    player = MatchPlayer(ScriptedBot(0, answers=(answer,)), ScriptedBot(1, double=double))
    player.set_judge(*_judge("neural", cube_ply=cube_ply))
    player._runner.script([6, 5, 1, 1])
    player._runner.play_from(LAST_ROLL_64.to_bytes(), 1, cube=cube, owner=owner)
    return _judged(player)


@pytest.mark.parametrize(("cube_ply", "cube", "owner"), [(1, 1, -1), (2, 1, -1), (1, 4, 1)])
def test_a_neural_judges_cube_errors_in_a_last_roll_are_exact_by_the_cubeful_walk(
        cube_ply: int, cube: int, owner: int) -> None:
    from bgfast.bots import CubeResponse

    # Normalized as gnubg's, per unit of the cube: the same at any cube side 1 may turn
    nd, dt, dp = 2 * WIN_64 - 1, 2 * (2 * WIN_64 - 1), 1.0
    # Given the 64% last roll, when side 1 does not double
    held = _judged_last_roll_64(cube_ply, False, CubeResponse.TAKE, cube, owner)
    # Then it loses exactly double/take minus no double, a close decision counted
    assert held["cube_error1"] == pytest.approx(dt - nd, abs=1e-6)
    assert held["cube_decisions1"] == 1 and held["cube_decisions0"] == 0
    # When it doubles and side 0 takes: no error on either side
    taken = _judged_last_roll_64(cube_ply, True, CubeResponse.TAKE, cube, owner)
    assert taken["cube_error1"] == pytest.approx(0.0, abs=1e-6)
    assert taken["cube_error0"] == pytest.approx(0.0, abs=1e-6)
    # When side 0 passes: it gives up double/pass minus double/take
    passed = _judged_last_roll_64(cube_ply, True, CubeResponse.PASS, cube, owner)
    assert passed["cube_error0"] == pytest.approx(dp - dt, abs=1e-6)
    assert passed["cube_decisions0"] == 1


def test_a_judge_at_cube_ply_0_values_the_last_roll_by_janowskis_formula_not_exactly() -> None:
    from bgfast.bots import CubeResponse

    # Janowski's formula prices the cube as if the game went on (efficiency 0.68), not as a
    # last roll: at 0 plies the judge finds no double right, which the walk (above) shows costs 10/36.
    held = _judged_last_roll_64(0, False, CubeResponse.TAKE)
    assert held["cube_error1"] == pytest.approx(0.0, abs=1e-9)
    assert _judged_last_roll_64(0, True, CubeResponse.TAKE)["cube_error1"] > 0.05
