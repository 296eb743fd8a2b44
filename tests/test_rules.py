"""The rules of play, one test per rule, through the real C game loop.

Each test drives ``MatchPlayer.record`` with scripted dice (a game opens with one die
for player 0 then one for player 1; every later roll takes two) and with the Python
bots of ``scripted_bots``, which double and answer as told and note every call the loop
makes into them.  What the loop *asked* is read from that journal; what it *scored*
from the match record.
"""
from __future__ import annotations

import pytest
from scripted_bots import scripted_pair

from bgfast.bots import CubeResponse, get_bot
from bgfast.dice import Dice
from bgfast.game import CubeAction, MatchPlayer
from bgfast.match import Rules
from bgfast.position import STARTING

TAKE, PASS, BEAVER = CubeResponse.TAKE, CubeResponse.PASS, CubeResponse.BEAVER
MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}
P0_OPENS = [6, 1]
"""Opening dice that give player 0 the first play, so player 1 has the first cube action."""


def asks(journal, what="double"):
    return [c for c in journal if c.what == what]


def first_match_where(player, condition, *, dice=None, tries=60):
    """The record of the first ``index`` (seed 1) whose record satisfies ``condition``."""
    for index in range(tries):
        record = player.record(seed=1, index=index, dice=dice)
        if condition(record):
            return record
    raise AssertionError(f"no match in {tries} tries satisfied the condition")


# ---------------------------------------------------------------- opening roll


def test_opening_roll_ties_are_rerolled_and_the_higher_die_plays_both_dice() -> None:
    p0, p1, journal = scripted_pair()
    player = MatchPlayer(p0, p1)
    player.record(seed=1, dice=[3, 3, 6, 6, 2, 5])
    first = journal[0]
    assert (first.what, first.seat, first.dice, first.position) == ("play", 1, Dice(5, 2), STARTING)
    assert player.dice_left == 0


def test_player_zero_opens_when_its_opening_die_is_higher() -> None:
    p0, p1, journal = scripted_pair()
    MatchPlayer(p0, p1).record(seed=1, dice=[4, 1])
    assert (journal[0].seat, journal[0].dice) == (0, Dice(4, 1))


def test_after_the_opening_each_roll_takes_two_dice_and_the_turn_alternates() -> None:
    p0, p1, journal = scripted_pair()
    MatchPlayer(p0, p1).record(seed=1, dice=[*P0_OPENS, 5, 5, 4, 2])
    plays = asks(journal, "play")[:3]
    assert [(c.seat, c.dice) for c in plays] == [(0, Dice(6, 1)), (1, Dice(5, 5)), (0, Dice(4, 2))]


def test_the_opening_play_has_no_cube_action_before_it() -> None:
    p0, p1, journal = scripted_pair(p0={"double": True}, p1={"double": True})
    MatchPlayer(p0, p1).record(seed=1, dice=P0_OPENS)
    assert [(c.seat, c.what) for c in journal[:2]] == [(0, "play"), (1, "double")]


# ---------------------------------------------------------------- scoring


@pytest.mark.parametrize("cube", [1, 2])
def test_single_gammon_and_backgammon_score_one_two_and_three_times_the_cube(cube: int) -> None:
    # Given the pubeval-best player 0, doubling at its first turn when cube=2, against
    # player 1 playing the pubeval-worst play (it is gammoned and backgammoned often)
    p0, p1, _ = scripted_pair(p0={"double": cube == 2}, p1={"play": "worst"})
    player = MatchPlayer(p0, p1, rules=Rules(jacoby=False))
    seen = set()
    for index in range(30):
        game = player.record(seed=1, index=index).games[0]
        # Then the points are the cube times the multiplier of the kind of win
        # (test_scoring checks the kind against the final position)
        assert game.cube == cube
        assert game.points == cube * MULTIPLIER[game.kind]
        seen.add(game.kind)
    assert seen == {"single", "gammon", "backgammon"}


def test_a_pass_scores_the_cube_value_before_the_double() -> None:
    p0, p1, _ = scripted_pair(p0={"answers": [PASS]}, p1={"double": True})
    game = MatchPlayer(p0, p1).record(seed=1, dice=P0_OPENS).games[0]
    assert (game.kind, game.winner, game.cube, game.points) == ("pass", 1, 1, 1)
    assert game.doubles == (CubeAction(by=1, taken=False),)


def test_a_passed_redouble_scores_the_cube_value_before_the_redouble() -> None:
    # player 1 doubles to 2 and player 0 takes; player 0 redoubles to 4 and player 1 passes
    p0, p1, _ = scripted_pair(p0={"double": True, "answers": [TAKE]}, p1={"double": True, "answers": [PASS]})
    game = MatchPlayer(p0, p1).record(seed=1, dice=P0_OPENS).games[0]
    assert (game.kind, game.winner, game.cube, game.points) == ("pass", 0, 2, 2)
    assert game.doubles == (CubeAction(by=1, taken=True), CubeAction(by=0, taken=False))


# ---------------------------------------------------------------- the cube


def test_the_taker_owns_the_cube_and_only_the_owner_is_asked_to_redouble() -> None:
    p0, p1, journal = scripted_pair(p0={"double": True}, p1={"double": True})
    game = MatchPlayer(p0, p1).record(seed=1, dice=P0_OPENS).games[0]
    offers = asks(journal)
    # every player asked either faces a centred cube or owns it
    assert all(c.match.cube_owner in (-1, c.seat) for c in offers)
    # each double is taken, so the next offer is the taker's, at twice the value
    assert [(c.seat, c.match.cube_value, c.match.cube_owner) for c in offers] == [
        (1, 1, -1), (0, 2, 0), (1, 4, 1), (0, 8, 0), (1, 16, 1), (0, 32, 0),
    ]
    assert [d.by for d in game.doubles] == [1, 0, 1, 0, 1, 0]
    assert all(d.taken for d in game.doubles)


def test_the_loop_never_offers_a_double_past_the_max_cube() -> None:
    p0, p1, journal = scripted_pair(p0={"double": True}, p1={"double": True})
    game = MatchPlayer(p0, p1, rules=Rules(max_cube=8)).record(seed=1, dice=P0_OPENS).games[0]
    assert game.cube == 8
    assert len(game.doubles) == 3
    assert max(c.match.cube_value for c in asks(journal)) == 4
    assert game.points == 8 * MULTIPLIER[game.kind]


def test_a_cube_that_covers_what_its_owner_needs_is_dead() -> None:
    # 3-point match at 0-0: 1 -> 2 (player 0 owns, needs 3 > 2: may redouble) -> 4
    # (player 1 owns, needs 3 <= 4: the cube is dead and player 1 is never asked again)
    p0, p1, journal = scripted_pair(p0={"double": True}, p1={"double": True})
    record = MatchPlayer(p0, p1, length=3).record(seed=1, dice=P0_OPENS)
    game = record.games[0]
    assert game.cube == 4
    assert [(c.seat, c.match.cube_value) for c in asks(journal) if c.match.score == (0, 0)] == [(1, 1), (0, 2)]
    assert record.score[game.winner] >= 3


# ---------------------------------------------------------------- money play: Jacoby, beavers


def _gammons(rules: Rules, *, double: bool, length: int = 0) -> list:
    p0, p1, _ = scripted_pair(p0={"double": double}, p1={"play": "worst"})
    player = MatchPlayer(p0, p1, length=length, rules=rules)
    games = [player.record(seed=1, index=i).games[0] for i in range(12)]
    kinds = {g.kind for g in games}
    assert {"gammon", "backgammon"} <= kinds
    return [g for g in games if g.kind in ("gammon", "backgammon")]


def test_jacoby_rule_counts_gammons_single_while_the_cube_is_centred() -> None:
    for game in _gammons(Rules(jacoby=True), double=False):
        assert (game.cube, game.points) == (1, 1)


def test_jacoby_rule_lets_gammons_count_once_the_cube_was_turned() -> None:
    for game in _gammons(Rules(jacoby=True), double=True):
        assert game.cube == 2
        assert game.points == 2 * MULTIPLIER[game.kind]


def test_without_the_jacoby_rule_a_gammon_at_a_centred_cube_counts() -> None:
    for game in _gammons(Rules(jacoby=False), double=False):
        assert game.points == MULTIPLIER[game.kind]


def test_the_jacoby_rule_does_not_apply_to_match_play() -> None:
    for game in _gammons(Rules(jacoby=True), double=False, length=15):
        assert game.points == MULTIPLIER[game.kind]


def test_a_beaver_quadruples_the_cube_and_the_beaverer_keeps_it() -> None:
    p0, p1, journal = scripted_pair(p0={"answers": [BEAVER]}, p1={"double": True})
    game = MatchPlayer(p0, p1, rules=Rules(beaver=True)).record(seed=1, dice=P0_OPENS).games[0]
    assert game.doubles == (CubeAction(by=1, taken=True, beavered=True),)
    assert game.cube == 4
    assert game.points == 4 * MULTIPLIER[game.kind]
    after = asks(journal)[1:]
    assert after and all((c.seat, c.match.cube_value, c.match.cube_owner) == (0, 4, 0) for c in after)


def test_with_beavers_off_a_beaver_answer_counts_as_a_take() -> None:
    p0, p1, journal = scripted_pair(p0={"answers": [BEAVER]}, p1={"double": True})
    game = MatchPlayer(p0, p1, rules=Rules(beaver=False)).record(seed=1, dice=P0_OPENS).games[0]
    assert game.doubles == (CubeAction(by=1, taken=True, beavered=False),)
    assert game.cube == 2
    after = asks(journal)[1:]
    assert after and all((c.seat, c.match.cube_value, c.match.cube_owner) == (0, 2, 0) for c in after)


def test_a_beaver_answer_in_match_play_counts_as_a_take() -> None:
    p0, p1, _ = scripted_pair(p0={"answers": [BEAVER]}, p1={"double": True})
    game = MatchPlayer(p0, p1, length=15, rules=Rules(beaver=True)).record(seed=1, dice=P0_OPENS).games[0]
    assert game.doubles == (CubeAction(by=1, taken=True, beavered=False),)
    assert game.cube == 2


def test_a_beaver_that_would_pass_the_max_cube_counts_as_a_take() -> None:
    p0, p1, _ = scripted_pair(p0={"answers": [BEAVER]}, p1={"double": True})
    game = MatchPlayer(p0, p1, rules=Rules(beaver=True, max_cube=2)).record(seed=1, dice=P0_OPENS).games[0]
    assert game.doubles == (CubeAction(by=1, taken=True, beavered=False),)
    assert game.cube == 2


# ---------------------------------------------------------------- match play: Crawford


def _crawford_match(crawford: bool):
    """A 3-point match: player 1 wins games 1 and 2 by a passed double (0-2); in game 3
    player 0 (always doubling) plays; with the Crawford rule, the first seed where player 0
    wins game 3 by a single (1-2), so that a post-Crawford game 4 follows."""
    p0, p1, journal = scripted_pair(p0={"double": True, "answers": [PASS, PASS, TAKE]},
                                    p1={"double": True, "answers": [TAKE]})
    player = MatchPlayer(p0, p1, length=3, rules=Rules(crawford=crawford))
    for index in range(60):
        journal.clear()
        p0._answered = p1._answered = 0
        record = player.record(seed=1, index=index, dice=P0_OPENS * 2)
        if not crawford or record.games[2].score_after == (1, 2):
            return record, journal
    raise AssertionError("no seed gave player 0 a single win in game 3")


@pytest.fixture(scope="module")
def crawford_match():
    return _crawford_match(crawford=True)


def test_the_crawford_game_follows_the_first_score_of_match_point_and_has_no_double(crawford_match) -> None:
    record, journal = crawford_match
    assert [g.score_after for g in record.games[:2]] == [(0, 1), (0, 2)]
    assert [g.crawford for g in record.games[:4]] == [False, False, True, False]
    assert record.games[2].doubles == ()
    # the Crawford game was played through the bots, and neither was asked to double
    assert any(c.match.crawford for c in asks(journal, "play"))
    assert not [c for c in asks(journal) if c.match.crawford]


def test_the_trailer_may_double_after_the_crawford_game(crawford_match) -> None:
    record, journal = crawford_match
    post = [c for c in asks(journal) if c.match.score == (1, 2)]
    assert post and {c.seat for c in post} == {0}
    assert not any(c.match.crawford for c in post)
    assert record.games[3].doubles[0] == CubeAction(by=0, taken=True)


def test_the_leaders_cube_is_dead_after_the_crawford_game(crawford_match) -> None:
    # the leader (1-away) always wants to double, owns the cube after taking, and is never asked
    _, journal = crawford_match
    assert not [c for c in asks(journal) if c.seat == 1 and c.match.score[1] == 2]


def test_without_the_crawford_rule_the_trailer_may_double_at_once() -> None:
    record, journal = _crawford_match(crawford=False)
    assert not any(g.crawford for g in record.games)
    assert record.games[2].doubles[0] == CubeAction(by=0, taken=True)
    assert [c for c in asks(journal) if c.match.score == (0, 2) and c.seat == 0]


# ---------------------------------------------------------------- the end of a match


def test_a_match_ends_as_soon_as_a_side_reaches_the_length() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=5)
    for index in range(20):
        record = player.record(seed=2, index=index)
        *earlier, last = record.games
        assert all(max(g.score_after) < 5 for g in earlier)
        assert last.score_after[last.winner] >= 5
        assert (record.winner, record.score) == (last.winner, last.score_after)
        for seat in (0, 1):
            assert record.score[seat] == sum(g.points for g in record.games if g.winner == seat)


def test_a_score_past_the_match_length_is_recorded_as_is() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=1)
    record = first_match_where(player, lambda r: r.games[0].kind != "single")
    game = record.games[0]
    assert record.score == (MULTIPLIER[game.kind], 0)
    assert len(record.games) == 1


def test_a_one_point_match_never_asks_for_a_double() -> None:
    p0, p1, journal = scripted_pair(p0={"double": True}, p1={"double": True})
    record = MatchPlayer(p0, p1, length=1).record(seed=1)
    assert not asks(journal)
    assert record.games[0].doubles == ()
    player = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=1)
    assert sum(player.play(seed=3, index=i).doubles for i in range(100)) == 0
