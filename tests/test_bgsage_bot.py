"""The Open Sage adapter (``bot = "bgsage"``) against Open Sage's own API as the oracle."""
from __future__ import annotations

import random

import pytest

from bgfast.bots import get_bot
from bgfast.bots.base import CubeResponse
from bgfast.bots.bgsage import LEVELS, from_sage_board, to_sage_board
from bgfast.dice import ALL_21
from bgfast.errors import InvalidPositionError, UnknownBotError
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position
from test_ubgi_format import _positions

bgsage = pytest.importorskip("bgsage", reason="Open Sage is not installed (pip install 'bgfast[bgsage]')")
bgbot_cpp = pytest.importorskip("bgbot_cpp")


@pytest.fixture(scope="module")
def sage() -> object:
    return get_bot("bgsage")


def test_the_board_is_open_sages_26_list_with_bars_at_0_and_25() -> None:
    assert to_sage_board(Position()) == list(bgsage.STARTING_BOARD)
    board = list(map(list, Position().board))
    board[1][23] -= 1
    board[1][24] += 1  # the side on roll has a checker on the bar
    board[0][23] -= 1
    board[0][24] += 1  # and so has the opponent
    pos = Position.from_board(board)
    sage_board = to_sage_board(pos)
    assert sage_board[25] == 1 and sage_board[0] == 1 and sage_board[24] == 1 and sage_board[1] == -1
    assert bgbot_cpp.pip_counts(sage_board) == pos.pip_count()[::-1]
    for p in _positions(200, seed=4):
        assert from_sage_board(to_sage_board(p)) == p
        assert bgbot_cpp.pip_counts(to_sage_board(p)) == p.pip_count()[::-1]


def test_open_sages_own_move_generator_agrees_with_the_core() -> None:
    rng = random.Random(2)
    for pos in _positions(150, seed=8):
        dice = rng.choice(ALL_21)
        theirs = {from_sage_board(list(b)) for b in bgbot_cpp.possible_moves(to_sage_board(pos), dice.high, dice.low)}
        ours = set(pos.children(dice.high, dice.low))
        if theirs:  # Open Sage lists nothing for a roll that cannot be played
            assert theirs == ours, (pos.id(), str(dice))
        else:
            assert ours == {pos}


def test_the_checker_play_is_open_sages_best_move(sage: object) -> None:
    analyzer = bgsage.BgBotAnalyzer(eval_level="1ply", cubeful=False, parallel_threads=1)
    rng = random.Random(5)
    for pos in _positions(80, seed=6):
        dice = rng.choice(ALL_21)
        if len(pos.legal_moves(dice.high, dice.low)) < 2:
            continue
        best = analyzer.checker_play(to_sage_board(pos), dice.high, dice.low).moves[0]
        move = sage.choose_move(pos, dice, MatchState())  # type: ignore[attr-defined]
        assert move.position == from_sage_board(list(best.board))


@pytest.mark.parametrize(("length", "score"), [(0, (0, 0)), (7, (2, 4)), (5, (3, 3))])
def test_the_cached_cube_verdicts_are_those_of_cube_action(sage: object, length: int, score: tuple[int, int]) -> None:
    analyzer = bgsage.BgBotAnalyzer(eval_level="1ply", cubeful=True, parallel_threads=1)
    for pos in _positions(25, seed=length + 1):
        match = MatchState(length=length, score=score, player_on_roll=0, turn=0)
        away = (0, 0) if not length else (match.away(0), match.away(1))
        verdict = analyzer.cube_action(to_sage_board(pos), away1=away[0], away2=away[1], jacoby=False)
        assert sage.should_double(pos, match) == verdict.should_double  # type: ignore[attr-defined]
        offered = MatchState(length=length, score=score, player_on_roll=0, turn=1, double_offered=True)
        expected = CubeResponse.PASS if not verdict.should_take else (
            CubeResponse.BEAVER if verdict.is_beaver and not length else CubeResponse.TAKE)
        assert sage.accept_double(pos, offered) == expected  # type: ignore[attr-defined]


def test_open_sage_plays_matches_with_the_cube_and_cubeless_money_games() -> None:
    sage = get_bot("bgsage")
    heuristic = get_bot("heuristic")
    for index in range(2):
        result = MatchPlayer(sage, heuristic, length=5).play(4, index)
        assert max(result.score0, result.score1) >= 5
    cubeless = get_bot("bgsage", cube="never")
    pubeval = get_bot("pubeval", cube="never")
    money = MatchPlayer(cubeless, pubeval, length=0, rules=Rules(jacoby=False))
    total = sum(r.score0 - r.score1 for r in (money.play(1, i) for i in range(40)))
    assert total > 0  # a strong net against pubeval
    assert all(money.play(1, i).doubles == 0 for i in range(3))


def test_bad_options_raise_unknown_bot_error() -> None:
    assert "1ply" in LEVELS
    with pytest.raises(UnknownBotError, match="level"):
        get_bot("bgsage", level="9ply")
    with pytest.raises(UnknownBotError, match="cube policy"):
        get_bot("bgsage", cube="sometimes")
    with pytest.raises(InvalidPositionError):
        from_sage_board([0] * 25)
