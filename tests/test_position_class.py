"""The position classes of ``bgfast.position_class``: one hand-built position per class,
the order the classes are tried in, side symmetry, and gnubg's crashed rule checked
against gnubg-nn's own classifier on positions from bot games."""
from __future__ import annotations

import pytest

from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.position import Position
from bgfast.position_class import PositionClass, classify, has_crashed, holds_back_game, longest_prime


def side(**points: int) -> list[int]:
    """25 counts of one side (own view) from ``p<point>=checkers`` (``p25`` = the bar)."""
    counts = [0] * 25
    for name, n in points.items():
        counts[int(name[1:]) - 1] = n
    return counts


def position(opponent: list[int], on_roll: list[int]) -> Position:
    return Position.from_board([opponent, on_roll])


BACK_GAME = position(side(p1=2, p2=2, p4=3, p6=3, p7=2, p8=3), side(p20=2, p22=2, p6=5, p8=3, p13=3))
CRASHED = position(side(p6=5, p8=3, p13=5, p18=2), side(p1=9, p2=2, p13=2, p24=2))
BEAROFF_CONTACT = position(side(p24=2, p6=5, p8=3, p13=5), side(p2=4, p3=3, p4=3, p5=3))
PRIME_VS_PRIME = position(side(p4=2, p5=2, p6=2, p7=2, p22=2, p13=5),
                          side(p4=2, p5=2, p6=2, p7=2, p8=2, p23=2, p13=3))
RACE = position(side(p1=3, p2=3, p3=3, p4=3, p5=3), side(p6=5, p8=5, p10=5))


@pytest.mark.parametrize(("pos", "expected"), [
    (Position(), PositionClass.CONTACT),
    (RACE, PositionClass.RACE),
    (BACK_GAME, PositionClass.BACK_GAME),
    (CRASHED, PositionClass.CRASHED),
    (BEAROFF_CONTACT, PositionClass.BEAROFF_CONTACT),
    (PRIME_VS_PRIME, PositionClass.PRIME_VS_PRIME),
])
def test_each_class_has_a_position_of_its_own(pos: Position, expected: PositionClass) -> None:
    assert classify(pos) is expected
    assert classify(pos.swap_sides()) is expected          # whoever is on roll


def test_a_back_game_needs_two_anchors_and_the_pip_deficit() -> None:
    opp, mover = BACK_GAME.board
    assert holds_back_game(mover, opp) and not holds_back_game(opp, mover)
    one_anchor = list(mover)
    one_anchor[21], one_anchor[12] = 0, one_anchor[12] + 2          # the 22 point's checkers to the 13
    assert not holds_back_game(one_anchor, opp)
    level = side(p20=2, p22=2, p1=11)          # anchored twice, but ahead: 40 + 44 + 11 = 95 pips
    assert not holds_back_game(level, side(p6=5, p8=5, p10=5))                 # against 120
    assert holds_back_game(level, side(p1=5, p5=10))                           # 40 behind 55


def test_crashed_follows_gnubg_rule_on_the_ace_and_deuce_points() -> None:
    assert has_crashed(side(p1=9, p2=2, p13=2, p24=2))          # 15 - 9 on the ace point = 6
    assert not has_crashed(side(p1=8, p2=1, p13=4, p24=2))      # 15 - 8 = 7, the deuce point holds one
    assert has_crashed(side(p1=5, p2=5, p13=3, p24=2))          # 15 - 5 - 5 + 1 = 6
    assert not has_crashed(side(p1=5, p2=3, p13=5, p24=2))      # 15 - 5 - 3 + 1 = 8
    assert has_crashed(side(p6=3, p13=3))                        # six checkers left in play
    assert not has_crashed(side(p6=5, p8=3, p13=5, p24=2))


def test_longest_prime_is_the_longest_run_of_made_points() -> None:
    assert longest_prime(side(p4=2, p5=2, p6=2, p7=2, p8=2, p13=5)) == (5, 7)
    assert longest_prime(side(p6=5, p8=3, p13=5, p24=2)) == (1, 5)
    assert longest_prime(side(p1=1)) == (0, -1)


def test_crashed_agrees_with_gnubg_nn_classifier_on_bot_games() -> None:
    nn = pytest.importorskip("gnubg_nn")
    player = MatchPlayer(get_bot("random"), get_bot("pubeval"), rules=Rules(jacoby=False))
    checked = crashed = 0
    for game in range(60):
        for turn in player.history(5, game).games[0]:
            pos = turn.position
            cls = classify(pos)
            if turn.action != "move" or cls in (PositionClass.RACE, PositionClass.BACK_GAME):
                continue
            gnubg_crashed = nn.classify([list(b) for b in pos.board]) == nn.c_crashed
            assert (cls is PositionClass.CRASHED) == gnubg_crashed, pos.id()
            checked += 1
            crashed += gnubg_crashed
    assert checked > 1000 and crashed > 50
