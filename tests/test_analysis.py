"""bgfast.analysis through the API: evaluations equal the bot's, plays ranked by the
evaluations, cube decisions equal the cube math's and named in gnubg's words."""
from __future__ import annotations

import dataclasses
import random

import pytest

from bgfast import cube as cube_math
from bgfast.analysis import (
    CubeAction,
    Judge,
    Situation,
    analyse_cube,
    evaluate_position,
    judge_cube,
    proper_action,
    rank_plays,
)
from bgfast.bots import get_bot
from bgfast.dice import Dice
from bgfast.errors import InvalidAnalysisError, InvalidDiceError
from bgfast.match import MatchState
from bgfast.met import MatchEquityTable
from bgfast.position import Position

START = "4HPwATDgc/ABMA"
MONEY_NO_JACOBY = MatchState(jacoby=False).match_id()
MATCH7 = MatchState(length=7).match_id()
CRAWFORD = MatchState(length=7, score=(6, 3), crawford=True).match_id()            # player 0 leads, on roll
POST_CRAWFORD_LEADER = MatchState(length=7, score=(6, 3)).match_id()               # the leader on roll
POST_CRAWFORD_TRAILER = MatchState(length=7, score=(3, 6)).match_id()              # the trailer on roll
DEAD_CUBE = MatchState(length=7, score=(5, 3), cube_value=2, cube_owner=0).match_id()   # 2-away owning 2
OPPONENTS_CUBE = MatchState(jacoby=True, cube_value=2, cube_owner=1).match_id()
RACE_DOUBLE_TAKE = "9rcNAADb3Q0AAA"        # a short race, the side on roll 54 pips to 55: double, take
RACE_NO_DOUBLE = "d7cNAADb3Q0AAA"          # 54 pips to 48: no double
BLITZ = "4Af8AHDbth0AAA"                   # closed board, three on the bar: gammonish


@pytest.fixture(scope="module")
def bot():
    return get_bot("neural")


# ---------------------------------------------------------------- eval


@pytest.mark.parametrize("ply", [0, 1])
@pytest.mark.parametrize("text", [START, RACE_DOUBLE_TAKE, f"{BLITZ}:{MATCH7}"])
def test_eval_probabilities_are_the_bots_evaluation(bot, text, ply):
    result = evaluate_position(text, ply=ply)
    assert result.ply == ply
    assert result.probabilities == bot.evaluate(Position(text.split(":")[0]), plies=ply)
    assert result.cubeless_equity == pytest.approx(result.probabilities.equity())


def test_eval_cubeful_equity_is_the_proper_cube_actions(bot):
    # Given a race the side on roll should double and the opponent take
    result = evaluate_position(RACE_DOUBLE_TAKE)
    # Then the cubeful equity is double/take's, and no double's where it should not double
    assert result.cube.action is CubeAction.DOUBLE_TAKE
    assert result.cubeful_equity == result.cube.double_take
    quiet = evaluate_position(START)
    p = bot.evaluate(Position(), plies=0)
    assert quiet.cubeful_equity == pytest.approx(cube_math.money_equity(p, jacoby=True), abs=1e-6)


def test_eval_in_match_play_gives_the_mwc_and_its_emg(bot):
    result = evaluate_position(f"{START}:{MATCH7}")
    met = MatchEquityTable.load()
    p = bot.evaluate(Position(), plies=0)
    mwc = cube_math.cubeful_mwc(p, met, 7, 7)
    assert result.mwc == pytest.approx(mwc, abs=1e-6)
    assert result.cubeful_equity == pytest.approx(met.mwc_to_emg(mwc, 7, 7), abs=1e-6)
    assert result.to_dict()["emg"] == result.cubeful_equity


def test_eval_of_a_position_with_the_dice_rolled_has_no_cube_decision():
    rolled = MatchState(length=7, dice=(3, 1)).match_id()
    result = evaluate_position(f"{START}:{rolled}")
    assert result.cube is None and result.to_dict()["cube_action"] is None


def test_eval_refuses_a_finished_game_and_a_bot_without_probabilities():
    over = Position.from_board([[0] * 25, [1] + [0] * 24])
    with pytest.raises(InvalidAnalysisError, match="over"):
        evaluate_position(over)
    with pytest.raises(InvalidAnalysisError, match="no probabilities"):
        evaluate_position(START, "pubeval")


def test_eval_takes_the_ply_through_to_the_bot():
    with pytest.raises(ValueError, match="plies"):
        evaluate_position(START, ply=99)


# ---------------------------------------------------------------- hint


def _by_evaluation(bot, position: Position, dice: Dice, ply: int) -> list[str]:
    """The plays sorted by the mover's cubeless equity: each position after a play
    evaluated at ``ply`` from the opponent's view, flipped."""
    values = {str(m): bot.evaluate(m.position.swap_sides(), plies=ply).flipped().equity()
              for m in position.legal_moves(dice.high, dice.low)}
    return sorted(values, key=lambda m: (-values[m], m))


@pytest.mark.parametrize("ply", [0, 1])
@pytest.mark.parametrize("dice", ["31", "64", "66", "21"])
def test_hint_order_is_the_order_of_the_evaluations(bot, dice, ply):
    ranking = rank_plays(START, dice, ply=ply)
    assert [str(p.move) for p in ranking.plays] == _by_evaluation(bot, Position(), Dice.of(dice), ply)
    assert ranking.plays[0].difference == 0.0
    assert all(p.difference <= 0.0 for p in ranking.plays)
    assert [p.equity for p in ranking.plays] == sorted((p.equity for p in ranking.plays), reverse=True)


def _positions(seed: int, count: int):
    """Positions and rolls from seeded neural self-play, with more than one play."""
    rng = random.Random(seed)
    bot = get_bot("neural")
    found = []
    while len(found) < count:
        pos = Position()
        for _ in range(60):
            if pos.is_over():
                break
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            if len(pos.legal_moves(dice.high, dice.low)) > 1:
                found.append((pos, dice))
            pos = bot.choose_move(pos, dice, MatchState()).position.swap_sides()
    return found[:count]


@pytest.mark.parametrize("match_id", [None, MATCH7, MatchState(length=5, score=(3, 1), cube_value=2,
                                                               cube_owner=1).match_id()])
def test_hint_best_play_is_the_neural_bots_play_at_0_ply(match_id):
    bot = get_bot("neural", ply=0)
    match = MatchState() if match_id is None else MatchState.from_match_id(match_id)
    for pos, dice in _positions(3, 25):
        text = pos.id() if match_id is None else f"{pos.id()}:{match_id}"
        best = rank_plays(text, dice).plays[0].move
        assert best.position == bot.choose_move(pos, dice, match).position, (text, str(dice))


def test_hint_plays_carry_the_position_after_them_in_the_movers_view():
    ranking = rank_plays(START, "31")
    first = ranking.plays[0]
    assert str(first.move) == "8/5 6/5"
    assert first.to_dict()["position_id"] == Position().parse_move("8/5 6/5", (3, 1)).position.id()


@pytest.mark.parametrize("ply", [0, 1])
def test_a_plays_mwc_lets_the_opponent_double_first_as_eval_of_the_position_after_it_does(ply):
    # 6-5 to 7 after the Crawford game, the leader to play 31: the trailer doubles next, and
    # the leader's play is worth what the trailer's eval leaves it, not the trailer's no double
    best = rank_plays("4HPwATDgc/ABMA:MAHgAGAAKAAE", "31", ply=ply).plays[0]
    after = "sGfwATDgc/ABMA:MAHgAFAAMAAE"                       # after 8/5 6/5, the trailer on roll
    assert str(best.move) == "8/5 6/5" and Position(after.split(":")[0]) == best.move.position.swap_sides()
    trailer = evaluate_position(after, ply=ply)
    assert trailer.cube.action.doubles
    assert best.mwc == pytest.approx(1.0 - trailer.mwc, abs=1e-6)


def test_hint_in_match_play_ranks_by_the_play_mwc(bot):
    ranking = rank_plays(f"{START}:{MATCH7}", "64")
    met = MatchEquityTable.load()
    for play in ranking.plays[:3]:
        p = bot.evaluate(play.move.position.swap_sides(), plies=0).flipped()
        assert play.mwc == pytest.approx(cube_math.play_mwc(p, met, 7, 7), abs=1e-6)
        assert play.equity == pytest.approx(met.mwc_to_emg(play.mwc, 7, 7), abs=1e-9)


def test_hint_takes_the_dice_the_match_state_rolled_and_refuses_others():
    rolled = f"{START}:{MatchState(length=7, dice=(6, 4)).match_id()}"
    assert rank_plays(rolled).dice == Dice(6, 4)
    with pytest.raises(InvalidDiceError, match="6-4 were rolled"):
        rank_plays(rolled, "31")
    with pytest.raises(InvalidAnalysisError, match="give the dice"):
        rank_plays(START)


def test_a_play_that_bears_off_the_last_checker_wins_for_sure():
    last = Position.from_board([[0] * 12 + [15] + [0] * 12, [1] + [0] * 24])
    (play,) = rank_plays(last, "21").plays
    assert play.probabilities.win == 1.0 and play.probabilities.win_gammon == 1.0


# ---------------------------------------------------------------- cube


def _decide(p, situation: Situation):
    m = situation.match
    aways = situation.aways() if situation.is_match else (0, 0)
    return cube_math.decide(p, owner=m.cube_owner, doubler=m.player_on_roll, cube=m.cube_value, jacoby=m.jacoby,
                            met=situation.met, away=aways[0], opp_away=aways[1], post_crawford=m.is_post_crawford)


@pytest.mark.parametrize("text, action", [
    (START, CubeAction.NO_DOUBLE_TAKE),
    (RACE_NO_DOUBLE, CubeAction.NO_DOUBLE_TAKE),
    (RACE_DOUBLE_TAKE, CubeAction.DOUBLE_TAKE),
    (f"{BLITZ}:{MONEY_NO_JACOBY}", CubeAction.TOO_GOOD_TO_DOUBLE_PASS),
    (f"{BLITZ}:{MATCH7}", CubeAction.TOO_GOOD_TO_DOUBLE_PASS),
])
def test_cube_equities_are_the_cube_maths(bot, text, action):
    analysis = analyse_cube(text, ply=0)
    situation = Situation.read(text)
    decision = _decide(bot.evaluate(situation.position, plies=0), situation)
    assert analysis.action is action
    to_equity = situation.equity
    assert (analysis.no_double, analysis.double_take, analysis.double_pass) == pytest.approx(
        (to_equity(decision.no_double), to_equity(decision.double_take), to_equity(decision.double_pass)))
    assert analysis.action.doubles == decision.double


def test_cube_with_the_jacoby_rule_is_never_too_good_to_double():
    # Given the gammonish blitz in money play: with the Jacoby rule the gammons count only
    # once the cube is turned, so the side cashes instead of playing on
    assert analyse_cube(BLITZ).action is CubeAction.DOUBLE_PASS


def test_cube_money_and_match_differ(bot):
    money, match = analyse_cube(RACE_DOUBLE_TAKE), analyse_cube(f"{RACE_DOUBLE_TAKE}:{MATCH7}")
    assert money.mwc is None and match.mwc is not None
    assert money.double_pass == 1.0 and match.double_pass == pytest.approx(1.0)   # EMG of a pass is +1
    met = MatchEquityTable.load()
    assert match.mwc[2] == met.mwc(6, 7)          # a pass wins the 1-cube
    assert match.no_double != pytest.approx(money.no_double, abs=1e-4)


def test_cube_in_the_crawford_game_no_double_is_allowed(bot):
    analysis = analyse_cube(f"{BLITZ}:{CRAWFORD}", ply=0)
    assert analysis.action is CubeAction.NEVER_DOUBLE_TAKE and not analysis.action.doubles
    assert analysis.double_take is None and analysis.double_pass is None
    assert "Crawford" in analysis.reason
    p = bot.evaluate(Position(BLITZ), plies=0)
    met = MatchEquityTable.load()
    assert analysis.mwc[0] == pytest.approx(cube_math.cubeful_mwc(p, met, 1, 4, crawford=True), abs=1e-6)
    assert analysis.mwc[0] == pytest.approx(cube_math.dead_cube_mwc(p, met, 1, 4), abs=1e-6)


def test_cube_post_crawford_the_trailer_doubles_and_the_leaders_cube_is_dead():
    trailer = analyse_cube(f"{RACE_DOUBLE_TAKE}:{POST_CRAWFORD_TRAILER}")
    assert trailer.action.doubles and trailer.double_take is not None
    leader = analyse_cube(f"{RACE_DOUBLE_TAKE}:{POST_CRAWFORD_LEADER}")
    assert leader.action is CubeAction.NEVER_DOUBLE_TAKE and "dead" in leader.reason


def test_cube_dead_for_its_owner_is_never_redoubled():
    analysis = analyse_cube(f"{BLITZ}:{DEAD_CUBE}")
    assert analysis.action is CubeAction.NEVER_REDOUBLE_TAKE and "dead" in analysis.reason


def test_cube_the_opponent_owns_is_not_available(bot):
    analysis = analyse_cube(f"{START}:{OPPONENTS_CUBE}", ply=0)
    assert analysis.action is CubeAction.NOT_AVAILABLE and "owns the cube" in analysis.reason
    p = bot.evaluate(Position(), plies=0)
    assert analysis.no_double == pytest.approx(cube_math.money_equity(p, owner=1, player=0, jacoby=True), abs=1e-6)


def test_cube_owned_says_redouble():
    owned = MatchState(jacoby=True, cube_value=2, cube_owner=0).match_id()
    assert analyse_cube(f"{RACE_DOUBLE_TAKE}:{owned}").action.value.startswith("Redouble")


def test_cube_decision_with_the_dice_rolled_is_refused():
    rolled = MatchState(length=7, dice=(3, 1)).match_id()
    with pytest.raises(InvalidAnalysisError, match="before the roll"):
        analyse_cube(f"{START}:{rolled}")


def test_cube_with_a_double_pending_judges_that_double():
    pending = MatchState(length=7, double_offered=True, turn=1).match_id()
    assert analyse_cube(f"{RACE_DOUBLE_TAKE}:{pending}").action.response == "take"


def test_judge_cube_from_given_probabilities_is_the_cube_maths():
    situation = Situation.read(START)
    analysis = judge_cube(situation, (0.72, 0.0, 0.0, 0.0, 0.0))
    decision = cube_math.decide((0.72, 0.0, 0.0, 0.0, 0.0), jacoby=True)
    assert (analysis.no_double, analysis.double_take, analysis.double_pass) == (
        decision.no_double, decision.double_take, decision.double_pass)


@pytest.mark.parametrize("nd, dt, dp, options, words", [
    (0.2, 0.1, 1.0, {}, "No double, take"),
    (0.5, 0.9, 1.0, {}, "Double, take"),
    (0.5, 1.2, 1.0, {}, "Double, pass"),
    (1.2, 1.5, 1.0, {"can_win_gammon": True}, "Too good to double, pass"),
    (1.2, 1.5, 1.0, {}, "Double, pass"),
    (1.2, 0.9, 1.0, {"can_win_gammon": True}, "Too good to double, take"),
    (1.2, 0.9, 1.0, {}, "No double, take"),
    (0.2, 0.1, 1.0, {"redouble": True}, "No redouble, take"),
    (0.5, 0.9, 1.0, {"redouble": True}, "Redouble, take"),
    (-0.2, -0.5, 1.0, {"beaver": True}, "No double, beaver"),
    (-0.5, -0.2, 1.0, {"beaver": True}, "Double, beaver"),
    (-0.3, -0.2, 1.0, {"beaver": True}, "No double, beaver"),   # the beaver doubles the take: -0.4 < -0.3
    (0.5, 0.5, 1.0, {}, "Optional double, take"),
    (1.0, 1.2, 1.0, {"can_win_gammon": True}, "Optional double, pass"),
    (1.0, 1.2, 1.0, {"can_win_gammon": True, "jacoby_centred": True}, "Double, pass"),
    # a rollout's no-double a hair above the pass (its luck adjustment): never too good under Jacoby
    (1.000000127, 1.8, 1.0, {"can_win_gammon": True, "jacoby_centred": True}, "Double, pass"),
    (-0.9, 0.5, 1.0, {"can_win": False}, "No double, take"),
])
def test_proper_action_names_each_case_in_gnubgs_words(nd, dt, dp, options, words):
    assert proper_action(nd, dt, dp, **options).value == words


def test_judge_of_a_bot_at_its_own_ply_or_the_one_given():
    assert Judge.of("neural:ply=1").ply == 1
    assert Judge.of("neural:ply=1", 0).ply == 0
    assert Judge.resolve(Judge.of("neural"), 1).ply == 1
    assert Judge.of("heuristic").probabilities(Position()).win > 0.3


def test_cube_judges_at_the_bots_cube_ply_unless_told():
    # Given the side on roll's 23-of-36 last roll: Janowski's 0-ply formula says no double,
    # the cubeful 1-ply look-ahead (the neural bot's cube_ply) values it exactly
    assert analyse_cube("BQAACAEAAAAAAA").ply == 1
    assert analyse_cube("BQAACAEAAAAAAA").action is CubeAction.DOUBLE_TAKE
    assert analyse_cube("BQAACAEAAAAAAA", "neural:cube_ply=0").action is CubeAction.NO_DOUBLE_TAKE
    assert analyse_cube("BQAACAEAAAAAAA", ply=0).ply == 0


def test_signed_figures_never_print_a_negative_zero():
    from bgfast.analysis.report import signed

    assert [signed(-0.0), signed(-0.0004), signed(-0.0005 - 1e-9)] == ["+0.000", "+0.000", "-0.001"]
    assert signed(-0.04, decimals=1, width=8) == "    +0.0" and signed(-0.004, decimals=2) == "+0.00"


def test_cube_prints_a_difference_that_rounds_to_zero_without_a_minus_sign():
    # no double a hair below double/pass (+1.000 each): was "(-0.000)"
    analysis = analyse_cube("APD/BwDf9wEAAA", "neural", ply=1)
    assert analysis.double_pass is not None
    hair = dataclasses.replace(analysis, no_double=analysis.double_pass - 4e-5)
    text = hair.text()
    assert "No double     +1.000  (+0.000)" in text and "-0.000" not in text
