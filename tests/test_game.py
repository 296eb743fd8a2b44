"""Playing matches: MatchPlayer / play_match, replay from the seed, the Python-bot path,
variants, the match records and their text/JSON log (bgfast.formats.matchlog)."""
from __future__ import annotations

import dataclasses
import json

import pytest
from bgfast._core.rng import Stream
from scripted_bots import PubevalDelegate, scripted_pair

from bgfast.bench import pub_best_move_game
from bgfast.bots import Bot, CubeResponse, get_bot
from bgfast.dice import Dice
from bgfast.errors import IllegalMoveError, InvalidDiceError, InvalidSpecError
from bgfast.game import (
    MAX_MATCH_LENGTH,
    CubeAction,
    GameRecord,
    MatchHistory,
    MatchPlayer,
    MatchRecord,
    MatchSummary,
    play_match,
    play_match_with_history,
    play_matches,
)
from bgfast.match import MatchState, Rules
from bgfast.formats.matchlog import game_line, match_dict, match_json, match_text
from bgfast.position import STARTING, VARIANTS, Position, starting_position

# ---------------------------------------------------------------- replay from the seed


def test_the_same_seed_and_index_replay_the_same_match() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=7)
    assert player.record(seed=42, index=3) == player.record(seed=42, index=3)
    other = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=7)
    assert other.record(seed=42, index=3) == player.record(seed=42, index=3)
    assert play_match(get_bot("pubeval"), get_bot("random"), length=7, seed=42, index=3) == \
        player.record(seed=42, index=3)


def test_different_seeds_or_indexes_give_different_matches() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=7)
    records = [player.record(seed=s, index=i).games for s in (1, 2) for i in range(5)]
    assert len({r for r in records}) == len(records)


def test_random_bots_replay_their_choices_too() -> None:
    player = MatchPlayer(get_bot("random"), get_bot("random"), length=3)
    assert [player.record(seed=9, index=i) for i in range(5)] == [player.record(seed=9, index=i) for i in range(5)]


def test_the_summary_of_play_agrees_with_the_record() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=5)
    for index in range(10):
        summary = player.play(seed=4, index=index)
        record = player.record(seed=4, index=index)
        assert (summary.score0, summary.score1) == record.score
        assert summary.winner == record.winner
        assert summary.games == len(record.games)
        assert (summary.gammons0, summary.gammons1) == record.gammons
        assert (summary.backgammons0, summary.backgammons1) == record.backgammons
        assert summary.doubles == record.cube_actions
        assert summary.plies == sum(g.plies for g in record.games)


def test_a_python_bot_that_delegates_to_pubeval_replays_the_c_pubeval_match() -> None:
    # the slow path (callbacks into Python) and the fast path (all in C) make the same
    # decisions with the same dice, so the records are equal, cube actions included
    doubles = 0
    for index in range(3):
        fast = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=7).record(seed=11, index=index)
        slow = MatchPlayer(PubevalDelegate(), get_bot("pubeval"), length=7).record(seed=11, index=index)
        assert slow == fast
        doubles += fast.cube_actions
    assert doubles > 0


def test_the_c_loop_and_a_gnubg_nn_pub_best_move_loop_play_the_same_games() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    player = MatchPlayer(get_bot("pubeval", cube="never"), get_bot("pubeval", cube="never"),
                         rules=Rules(jacoby=False))
    start = VARIANTS["standard"][1]
    for index in range(100):
        game = player.record(seed=3, index=index).games[0]
        theirs = pub_best_move_game(gnubg_nn.pub_best_move, Stream(3, index, 0).die, start)
        assert (game.winner, game.plies) == theirs, index


# ---------------------------------------------------------------- the Python-bot path


def test_a_python_bot_sees_positions_from_its_own_side_and_the_dice_it_rolled() -> None:
    p0, p1, journal = scripted_pair()
    MatchPlayer(p0, p1, length=3).record(seed=1, dice=[6, 1, 5, 5])
    first, second = [c for c in journal if c.what == "play"][:2]
    assert first.position == STARTING
    assert second.position == first.result.swap_sides()
    assert (first.match.player_on_roll, first.match.dice) == (0, (6, 1))
    assert (second.match.player_on_roll, second.match.dice) == (1, (5, 5))
    assert (second.match.length, second.match.score, second.match.cube_value) == (3, (0, 0), 1)


def test_a_python_bot_is_asked_to_take_with_the_doubler_on_roll() -> None:
    p0, p1, journal = scripted_pair(p1={"double": True})
    MatchPlayer(p0, p1).record(seed=1, dice=[6, 1])
    ask, answer = journal[1], journal[2]
    assert (ask.what, answer.what, answer.seat) == ("double", "take", 0)
    assert answer.position == ask.position
    assert (answer.match.player_on_roll, answer.match.turn, answer.match.double_offered) == (1, 0, True)


def test_the_match_state_a_python_bot_is_given_is_the_one_the_checked_constructor_builds() -> None:
    # the loop's states skip MatchState's checks (MatchState._from_valid_fields): each must be
    # the state the constructor makes of the same fields, with the same normalised types
    seen: list[MatchState] = []

    class Watcher(PubevalDelegate):
        def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
            seen.append(match)
            return super().choose_move(position, dice, match)

        def should_double(self, position, match):  # type: ignore[no-untyped-def]
            seen.append(match)
            return super().should_double(position, match)

        def accept_double(self, position, match):  # type: ignore[no-untyped-def]
            seen.append(match)
            return super().accept_double(position, match)

    for length, index in ((5, 0), (5, 1), (0, 2)):
        MatchPlayer(Watcher(cube="keith"), get_bot("heuristic"), length=length).record(seed=4, index=index)
    assert {m.double_offered for m in seen} == {True, False} and any(m.crawford for m in seen)
    assert any(m.jacoby for m in seen) and any(m.cube_owner != -1 for m in seen)
    for state in seen:
        fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(MatchState)}
        checked = MatchState(**fields)
        assert state == checked and MatchState.from_match_id(state.match_id()) == state
        assert [type(getattr(state, name)) for name in fields] == [type(getattr(checked, name)) for name in fields]


def test_a_python_bot_may_answer_with_a_move_or_its_notation() -> None:
    class Notation:
        def choose_move(self, position, dice, match):
            return str(position.legal_moves(dice.high, dice.low)[0]) or "-"

    class Moves:
        def choose_move(self, position, dice, match):
            return position.legal_moves(dice.high, dice.low)[0]

    a = MatchPlayer(Notation(), Moves()).record(seed=2)
    b = MatchPlayer(Moves(), Moves()).record(seed=2)
    assert a == b


def test_an_illegal_play_from_a_python_bot_raises_illegal_move_error() -> None:
    class Cheat:
        def choose_move(self, position, dice, match):
            return position

    with pytest.raises(IllegalMoveError, match="not a legal play"):
        MatchPlayer(Cheat(), get_bot("random")).record(seed=1, dice=[6, 1])


@pytest.mark.parametrize("answer, error", [(7, ValueError), ("maybe", TypeError), (None, TypeError)])
def test_a_cube_answer_outside_pass_take_beaver_is_an_error_naming_the_bot(answer: object,
                                                                          error: type[Exception]) -> None:
    # "maybe" was "invalid literal for int() with base 10: 'maybe'"
    p0, p1, _ = scripted_pair(p0={"answers": [answer]}, p1={"double": True})
    with pytest.raises(error, match=f"accept_double returned {answer!r}, not a CubeResponse"):
        MatchPlayer(p0, p1).record(seed=1, dice=[6, 1])


def test_a_bot_without_cube_methods_never_doubles_and_always_takes() -> None:
    class PlayOnly:
        def choose_move(self, position, dice, match):
            return position.children(dice.high, dice.low)[0]

    p0, _, journal = scripted_pair(p0={"double": True})
    record = MatchPlayer(p0, PlayOnly(), rules=Rules(jacoby=False)).record(seed=1, dice=[6, 1, 3, 1, 4, 2])
    assert record.games[0].doubles[:1] == (CubeAction(0, True),)
    assert all(c.seat == 0 for c in journal)


# ---------------------------------------------------------------- scripted dice and arguments


def test_unused_scripted_dice_are_counted() -> None:
    p0, p1, _ = scripted_pair(p1={"double": True}, p0={"answers": [CubeResponse.PASS]})
    player = MatchPlayer(p0, p1)
    player.record(seed=1, dice=[6, 1, 2, 2, 3])
    assert player.dice_left == 3


def test_a_scripted_die_outside_one_to_six_raises_invalid_dice_error() -> None:
    with pytest.raises(InvalidDiceError):
        MatchPlayer(get_bot("random"), get_bot("random")).record(seed=1, dice=[6, 7])


@pytest.mark.parametrize("length", [-1, MAX_MATCH_LENGTH + 1, True, 7.0, "7"])
def test_a_bad_match_length_raises_invalid_spec_error(length: object) -> None:
    with pytest.raises(InvalidSpecError, match=repr(length).replace("(", r"\(").replace(".", r"\.")):
        MatchPlayer(get_bot("random"), get_bot("random"), length=length)  # type: ignore[arg-type]


# ---------------------------------------------------------------- variants


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon"])
def test_variant_games_start_from_the_variant_and_keep_its_checker_count(variant: str) -> None:
    checkers = sum(VARIANTS[variant][1])
    p0, p1, journal = scripted_pair(p1={"play": "worst"})
    player = MatchPlayer(p0, p1, length=5, rules=Rules(variant=variant))
    record = player.record(seed=6)
    assert max(record.score) >= 5
    plays = [c for c in journal if c.what == "play"]
    assert plays[0].position == starting_position(variant)
    for call in plays:
        for side in call.position.board:
            assert sum(side) <= checkers
        assert sum(call.position.board[1]) + sum(call.result.board[1]) > 0


def test_hypergammon_has_three_checkers_a_side_and_scores_gammons() -> None:
    player = MatchPlayer(get_bot("pubeval", cube="never"), get_bot("random"), rules=Rules(variant="hypergammon"))
    assert player._runner.checkers == 3
    kinds = {player.record(seed=7, index=i).games[0].kind for i in range(40)}
    assert {"single", "gammon"} <= kinds


# ---------------------------------------------------------------- records and the log

GAMMON = GameRecord(number=1, crawford=False, cube=2, doubles=(CubeAction(1, True),), points=4, winner=0,
                    kind="gammon", score_after=(4, 0), plies=50)
PASSED = GameRecord(number=2, crawford=False, cube=2, doubles=(CubeAction(0, True), CubeAction(1, False)),
                    points=2, winner=0, kind="pass", score_after=(6, 0), plies=12)
CRAWFORD = GameRecord(number=3, crawford=True, cube=1, doubles=(), points=3, winner=1, kind="backgammon",
                      score_after=(6, 3), plies=70)
RECORD = MatchRecord(length=7, seed=42, index=5, score=(8, 3), winner=0, games=(
    GAMMON, PASSED, CRAWFORD,
    GameRecord(4, False, 1, (), 2, 0, "gammon", (8, 3), 40),
))


def test_a_match_record_counts_gammons_backgammons_and_cube_actions() -> None:
    assert (RECORD.gammons, RECORD.backgammons, RECORD.cube_actions) == ((2, 0), (0, 1), 3)


def test_the_match_log_has_one_line_per_game_in_words() -> None:
    assert match_text(RECORD, ["pubeval", "random"]).splitlines() == [
        "7-point match, seed 42, index 5: pubeval (player 0) vs random (player 1)",
        "Game 1: random doubles to 2, pubeval takes. pubeval wins a gammon, 4 points. Score 4-0.",
        ("Game 2: pubeval doubles to 2, random takes; random redoubles to 4, pubeval passes. "
         "pubeval wins 2 points. Score 6-0."),
        "Game 3 (Crawford): random wins a backgammon, 3 points. Score 6-3.",
        "Game 4: pubeval wins a gammon, 2 points. Score 8-3.",
        "pubeval wins the match 8-3.",
    ]


def test_the_match_log_names_a_beaver() -> None:
    game = GameRecord(1, False, 4, (CubeAction(0, True, True),), 4, 1, "single", (0, 4))
    assert game_line(game, ["a", "b"]) == "Game 1: a doubles to 2, b beavers. b wins a single game, 4 points. Score 0-4."


def test_the_match_log_tells_apart_two_players_with_the_same_name() -> None:
    text = match_text(RECORD, ["pubeval", "pubeval"])
    assert "pubeval (1) doubles to 2, pubeval (0) takes" in text
    assert text.endswith("pubeval (0) wins the match 8-3.")


def test_the_json_log_has_the_documented_keys_and_values() -> None:
    data = json.loads(match_json(RECORD, ["pubeval", "random"]))
    assert data == match_dict(RECORD, ["pubeval", "random"])
    assert data["games"][1] == {
        "number": 2, "crawford": False, "cube": 2, "doubles": [{"by": 0, "taken": True}, {"by": 1, "taken": False}],
        "points": 2, "winner": 0, "kind": "pass", "score_after": [6, 0],
    }
    assert (data["score"], data["winner"], data["players"]) == ([8, 3], 0, ["pubeval", "random"])


def test_the_log_of_a_money_game_says_points_not_match() -> None:
    record = play_match(get_bot("pubeval"), get_bot("random"), seed=1)
    assert match_text(record, ["pubeval", "random"]).splitlines()[-1].startswith("pubeval wins ")
    assert "money game" in match_text(record, ["pubeval", "random"])


def test_a_log_needs_two_player_names() -> None:
    with pytest.raises(ValueError, match="two players"):
        match_json(RECORD, ["pubeval"])


def test_the_position_seen_by_a_bot_is_a_legal_position() -> None:
    p0, p1, journal = scripted_pair()
    MatchPlayer(p0, p1).record(seed=8)
    plays = [c for c in journal if c.what == "play"]
    assert len(plays) > 20
    for call in plays:
        Position.from_id(call.position.id())
        assert call.result in call.position.children(call.dice.high, call.dice.low)
        assert isinstance(call.dice, Dice)


@pytest.mark.parametrize("seed, index", [(-1, 0), ("a", 0), (True, 0), (0, -1), (0, 2**64), (0, 1.5)])
def test_a_bad_seed_or_match_index_raises_invalid_spec_error(seed: object, index: object) -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=1)
    with pytest.raises(InvalidSpecError, match="seed|index"):
        player.play(seed, index)  # type: ignore[arg-type]


def test_the_largest_match_index_plays() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=1)
    assert player.play(2**70, 2**64 - 1).winner in (0, 1)


@pytest.mark.parametrize("kwargs", [{"rules": "x"}, {"rules": {"jacoby": False}}, {"met": "x", "length": 7}])
def test_rules_or_a_table_of_the_wrong_type_raise_invalid_spec_error(kwargs: dict) -> None:
    with pytest.raises(InvalidSpecError, match="rules must be|met must be"):
        play_match(get_bot("pubeval"), get_bot("random"), **kwargs)


def test_numpy_integers_are_a_seed_and_an_index() -> None:
    import numpy as np

    player = MatchPlayer(get_bot("pubeval"), get_bot("random"), length=1)
    assert player.play(np.int64(5), np.uint64(3)) == player.play(5, 3)


# ---------------------------------------------------------------- many matches in one call

def _seatings() -> list[MatchPlayer]:
    pubeval, heuristic, rand = get_bot("pubeval"), get_bot("heuristic"), get_bot("random")
    return [MatchPlayer(pubeval, heuristic, length=3), MatchPlayer(heuristic, pubeval, length=3),
            MatchPlayer(rand, pubeval, length=0), MatchPlayer(pubeval, rand, length=1)]


def test_many_matches_in_one_call_are_the_matches_played_one_by_one() -> None:
    import numpy as np

    players = _seatings()
    rng = np.random.default_rng(4)
    which = rng.integers(0, len(players), 300)
    indices = rng.integers(0, 2**63, 300, dtype=np.uint64)
    indices[:3] = [0, 2**64 - 1, 7]
    rows = play_matches(players, 11, which, indices)
    assert rows.shape == (300, len(MatchSummary._fields)) and rows.dtype == np.int64
    assert [MatchSummary(*row) for row in rows.tolist()] == [
        players[w].play(11, i) for w, i in zip(which.tolist(), indices.tolist())]


def test_many_matches_from_openings_are_the_matches_played_one_by_one() -> None:
    players = _seatings()
    starts = [Position.from_id("0HPkATDgc/ABMA"), Position.from_id("sGfwATDgc/ABMA")]
    which, indices, start_of = [0, 1, 2, 3, 0, 1], [5, 5, 6, 6, 7, 8], [0, 1, -1, 1, 1, 0]
    rows = play_matches(players, 3, which, indices, starts=starts, start_of=start_of)
    assert [MatchSummary(*row) for row in rows.tolist()] == [
        players[w].play(3, i, start=starts[s] if s >= 0 else None) for w, i, s in zip(which, indices, start_of)]


def test_many_matches_with_a_python_bot_are_the_matches_played_one_by_one() -> None:
    players = [MatchPlayer(PubevalDelegate(), get_bot("heuristic"), length=3), _seatings()[0]]
    rows = play_matches(players, 2, [0, 1, 0], [1, 1, 2])
    assert [MatchSummary(*row) for row in rows.tolist()] == [players[0].play(2, 1), players[1].play(2, 1),
                                                             players[0].play(2, 2)]


def test_no_matches_in_one_call_is_an_empty_table() -> None:
    assert play_matches(_seatings(), 1, [], []).shape == (0, len(MatchSummary._fields))


@pytest.mark.parametrize("kwargs, message", [
    ({"seed": -1}, "seed"),
    ({"which": [0, 4]}, r"which must be in 0 \.\. 3"),
    ({"which": [0, -1]}, r"which must be in 0 \.\. 3"),
    ({"which": [0]}, "which has 1 entries for 2 matches"),
    ({"which": [0.0, 1.0]}, "which must be a flat sequence of integers"),
    ({"indices": [[1, 2]]}, "indices must be a flat sequence of integers"),
    ({"indices": [1, -1]}, r"indices must be in 0 \.\. 18446744073709551615"),
    ({"indices": [1, 2**64]}, "indices must be a flat sequence of integers"),
    ({"start_of": [0, 1]}, r"start_of must be in -1 \.\. 0"),
    ({"start_of": [0, 0, 0]}, "start_of has 3 entries for 2 matches"),
])
def test_bad_arguments_for_many_matches_raise_invalid_spec_error(kwargs: dict, message: str) -> None:
    args = {"seed": 1, "which": [0, 1], "indices": [3, 4], "starts": [Position.from_id("0HPkATDgc/ABMA")]}
    args.update(kwargs)
    with pytest.raises(InvalidSpecError, match=message):
        play_matches(_seatings(), **args)


@pytest.mark.parametrize("change, error, message", [
    ({"out": (2, 9)}, ValueError, "out"),
    ({"out": (3, 10)}, ValueError, "out"),
    ({"which": [0, 9]}, ValueError, "no such runner"),
    ({"start_of": [0, 5]}, ValueError, "no such start"),
    ({"start_of": [0]}, ValueError, "start_of"),
    ({"runners": ["x", "y"]}, TypeError, "MatchRunner"),
    ({"starts": [b"x"]}, ValueError, "50 bytes"),
])
def test_the_cores_many_matches_refuse_arrays_that_do_not_fit(change: dict, error: type, message: str) -> None:
    import numpy as np

    from bgfast._core.game import play_many

    args: dict = {"runners": [p._runner for p in _seatings()], "which": [0, 1], "indices": [3, 4],
                  "out": (2, 10), "starts": [Position.from_id("0HPkATDgc/ABMA").to_bytes()], "start_of": [0, -1]}
    args.update(change)
    with pytest.raises(error, match=message):
        play_many(1, args["runners"], np.array(args["which"], dtype=np.int32),
                  np.array(args["indices"], dtype=np.uint64), np.zeros(args["out"], dtype=np.int64),
                  args["starts"], np.array(args["start_of"], dtype=np.int32))


# ---------------------------------------------------------------- the core's players and records

def test_built_in_bots_describe_their_fast_path_with_the_cores_enums() -> None:
    from bgfast._core.game import CubeKind, PlayKind
    from bgfast.bots.base import CUBE_KINDS
    from bgfast.game import CoreConfig

    config = get_bot("pubeval").core_config()
    assert isinstance(config, CoreConfig)
    assert (config.play, config.cube) == (PlayKind.PLAY_PUBEVAL, CubeKind.CUBE_KEITH)
    assert get_bot("heuristic").core_config().play is PlayKind.PLAY_EVALUATOR
    assert get_bot("random").core_config().play is PlayKind.PLAY_RANDOM
    assert all(isinstance(kind, CubeKind) for kind in CUBE_KINDS.values())


def test_the_turn_record_is_kept_only_when_asked_and_holds_every_play_and_cube_action() -> None:
    from bgfast._core.game import TURN_DTYPE, TurnAction

    player = MatchPlayer(get_bot("heuristic"), get_bot("heuristic"), length=5)
    record, turns = player.turns(seed=4, index=1)
    assert turns.dtype == TURN_DTYPE and record == player.record(seed=4, index=1)
    assert player._runner.turns().size == 0           # record() keeps none
    moves = turns[turns["action"] == TurnAction.ACTION_MOVE]
    assert len(moves) == sum(g.plies for g in record.games)
    assert (turns["action"] == TurnAction.ACTION_DOUBLE).sum() == record.cube_actions
    assert sorted(set(turns["game"].tolist())) == list(range(len(record.games)))
    assert (moves["d1"] >= moves["d2"]).all() and (moves["nsteps"] <= 4).all()


def test_a_game_from_a_position_gives_a_named_result() -> None:
    from bgfast._core.game import GameResult
    from bgfast.game import make_runner

    runner = make_runner(get_bot("pubeval"), get_bot("pubeval"))
    runner.reseed(1, 0)
    result = runner.play_from(STARTING.to_bytes(), 0, max_plies=3)
    assert isinstance(result, GameResult) and result.truncated and result.plies == 3
    assert result.final is not None and len(result.final) == 50 and result.final_turn == 1


def test_a_built_in_bot_asked_from_python_follows_the_rules_it_is_given() -> None:
    from bgfast.match import MatchState

    bot = get_bot("heuristic", cube="janowski", cube_efficiency=0.2)
    # the doubler (on roll, four checkers on its 6-point) against two on the opponent's
    # ace point: a double the taker is a big favourite in, beavered when beavers are allowed
    race = Position.from_board([[2] + [0] * 24, [0, 0, 0, 0, 0, 4] + [0] * 19])
    offered = MatchState().double(0, Rules())
    assert bot.accept_double(race, offered, rules=Rules(beaver=True)) == CubeResponse.BEAVER
    assert bot.accept_double(race, offered, rules=Rules()) == CubeResponse.TAKE
    assert bot.accept_double(race, offered, rules=Rules(beaver=True, max_cube=2)) == CubeResponse.TAKE
    strong = Position.from_board([[2, 2, 2, 2, 2, 2] + [0] * 19, [0, 0, 0, 1, 1, 1] + [0] * 19])
    owned = MatchState(cube_value=2, cube_owner=0)
    assert get_bot("heuristic").should_double(strong, owned) is True
    assert get_bot("heuristic").should_double(strong, owned, rules=Rules(max_cube=2)) is False


def test_a_players_cube_and_luck_are_measured_by_its_own_evaluator() -> None:
    from bgfast._core.game import CubeKind, MatchRunner, PlayKind
    from bgfast.evaluator import default_evaluator, heuristic_evaluator

    start = VARIANTS["standard"][1]
    rules = (0, 1, 0, 0, 64, 0)

    def luck(evaluator: object) -> tuple:
        player = (PlayKind.PLAY_PUBEVAL, CubeKind.CUBE_NEVER, 0.68, evaluator, None)
        runner = MatchRunner(rules, start, [player, player])
        runner.measure_luck(True)
        runner.reseed(5, 0)
        runner.play_from(STARTING.to_bytes(), 0, max_plies=12)
        return runner.luck()

    assert luck(default_evaluator()) == luck(heuristic_evaluator(filter=5))
    assert luck(default_evaluator()) != luck(heuristic_evaluator(filter=0))
    no_evaluator = (PlayKind.PLAY_PUBEVAL, CubeKind.CUBE_NEVER, 0.68, None, None)
    with pytest.raises(ValueError, match="evaluators"):
        MatchRunner(rules, start, [no_evaluator, no_evaluator]).measure_luck(True)
    with pytest.raises(ValueError, match="needs one"):
        MatchRunner(rules, start, [(PlayKind.PLAY_EVALUATOR, CubeKind.CUBE_NEVER, 0.68, None, None)] * 2)


# ---------------------------------------------------------------- a dead cube in the loop


class _AlwaysDoubles(Bot):
    """Plays like pubeval, doubles whenever the loop asks, always takes; notes each state it is asked in."""

    name = "always-doubles"

    def __init__(self) -> None:
        self.pubeval = get_bot("pubeval", cube="never")
        self.asked: list[MatchState] = []

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        return self.pubeval.choose_move(position, dice, match)

    def should_double(self, position: Position, match: MatchState) -> bool:
        self.asked.append(match)
        return True

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        return CubeResponse.TAKE


def _dead_doubles(history: MatchHistory) -> int:
    """Doubles of a dead cube in ``history``, checking each game's scoring on the way."""
    length, dead = history.record.length, 0
    score = [0, 0]
    for record, turns in zip(history.record.games, history.games):
        cube = 1
        for turn in turns:
            if turn.action == "double":
                dead += length - score[turn.player] <= cube
            elif turn.action in ("take", "beaver"):
                cube = turn.cube
        assert record.cube == cube
        if record.kind == "pass":
            assert turns[-1].action == "pass" and record.points == cube
        else:
            outcome = [t for t in turns if t.action == "move"][-1].move.position.outcome()
            assert outcome is not None and record.points == cube * outcome.points
        score[record.winner] += record.points
        assert record.score_after == tuple(score)
    assert max(score) >= length and history.record.score == tuple(score)
    return dead


def test_with_dead_cube_allow_a_python_bot_doubles_a_dead_cube_in_the_loop_and_the_match_is_scored() -> None:
    rules = Rules(dead_cube="allow", max_cube=2**15)
    dead = 0
    for seed in range(4):
        history = play_match_with_history(_AlwaysDoubles(), _AlwaysDoubles(), length=5, rules=rules, seed=seed)
        dead += _dead_doubles(history)
    assert dead > 0


def test_with_dead_cube_refuse_a_python_bot_is_never_asked_to_double_a_dead_cube() -> None:
    rules = Rules(max_cube=2**15)
    for seed in range(4):
        bots = _AlwaysDoubles(), _AlwaysDoubles()
        history = play_match_with_history(*bots, length=5, rules=rules, seed=seed)
        assert _dead_doubles(history) == 0
        asked = bots[0].asked + bots[1].asked
        assert asked and not any(state.is_cube_dead(state.player_on_roll) for state in asked)
        assert all(state.can_double(state.player_on_roll, rules) for state in asked)


@pytest.mark.parametrize("cube", ["keith", "janowski", "met"])
def test_a_built_in_policy_never_doubles_a_dead_cube_even_when_the_rules_allow_it(cube: str) -> None:
    bots = get_bot("heuristic", cube=cube), get_bot("heuristic", cube=cube, cube_efficiency=0.3)
    allowed, refused = (MatchPlayer(*bots, length=3, rules=Rules(dead_cube=rule)) for rule in ("allow", "refuse"))
    doubles = 0
    for index in range(30):
        history = allowed.history(seed=2, index=index)
        assert history == refused.history(seed=2, index=index)
        assert _dead_doubles(history) == 0
        doubles += history.record.cube_actions
    assert doubles > 0
