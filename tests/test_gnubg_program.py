"""The GNU Backgammon program (Debian's ``gnubg`` 1.07) through its external-player interface.

These tests run the real program; they skip, naming the reason, where it is not
installed (``apt-get install gnubg``).  They check the facts the adapter relies on
(bgfast.engines.gnubg_external's docstring), its decisions against gnubg's own neural net
(the ``gnubg-nn`` package) as an oracle, and that it plays whole matches.
"""
from __future__ import annotations

import dataclasses
import random
import time

import pytest

from bgfast.bots import get_bot
from bgfast.bots.base import CubeResponse
from bgfast.dice import ALL_21
from bgfast.engines.gnubg_external import GnubgExternal, GnubgProgramBot, find_program, gnubg_board
from bgfast.engines.resilient import play_resilient
from bgfast.errors import EngineStartError, UnknownBotError
from bgfast.formats.fibs import format_fibs_board, parse_fibs_board
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position
from test_ubgi_engine import assert_engine_dies_with_its_parent
from test_ubgi_format import _positions

try:
    PROGRAM: str | None = find_program()
except EngineStartError as exc:
    PROGRAM, WHY = None, str(exc)
else:
    WHY = ""

pytestmark = pytest.mark.skipif(PROGRAM is None, reason=f"GNU Backgammon is not installed: {WHY}")


@pytest.fixture(scope="module")
def gnubg() -> GnubgExternal:
    external = GnubgExternal(0)
    external.start()
    yield external
    external.stop()


def _gnubg_nn() -> object:
    return pytest.importorskip("gnubg_nn", reason="the gnubg-nn package (the oracle) is not installed")


def _with(line: str, **fields: object) -> str:
    return format_fibs_board(dataclasses.replace(parse_fibs_board(line.split(" ")[0]), **fields))  # type: ignore[arg-type]


# ---------------------------------------------------------------- the facts


def test_gnubg_reads_the_two_score_fields_in_the_opposite_order_from_the_fibs_documentation(
        gnubg: GnubgExternal) -> None:
    # 5-point match after the Crawford game, the player trailing 0-4: the trailer doubles at once
    match = MatchState(length=5, score=(0, 4), player_on_roll=0, turn=0)
    line = gnubg_board(Position(), match, 0)
    assert parse_fibs_board(line).player_score == 4  # field 5 carries the opponent's score
    assert gnubg.ask(line) == "double"
    documented = _with(line, player_score=0, opponent_score=4)  # FIBS's order: the player's own first
    assert gnubg.ask(documented) == "roll"  # gnubg takes the player for the leader, whose cube is dead


def test_the_crawford_field_means_the_crawford_game_has_been_played(gnubg: GnubgExternal) -> None:
    line = gnubg_board(Position(), MatchState(length=5, score=(0, 4), player_on_roll=0, turn=0), 0)
    assert parse_fibs_board(line).did_crawford == 1 and gnubg.ask(line) == "double"
    assert gnubg.ask(_with(line, did_crawford=0)) == "roll"  # the Crawford game: no double
    crawford = MatchState(length=5, score=(0, 4), crawford=True, player_on_roll=0, turn=0)
    assert gnubg.ask(gnubg_board(Position(), crawford, 0)) == "roll"


def test_a_bar_entry_comes_back_as_a_move_from_25(gnubg: GnubgExternal) -> None:
    board = list(map(list, Position().board))
    board[1][23] -= 1
    board[1][24] += 1  # one of the player's back checkers on the bar
    pos = Position.from_board(board)
    answer = gnubg.ask(gnubg_board(pos, MatchState(), 0, dice=(4, 1)))
    assert answer.startswith("25/21") and pos.parse_move(answer, "41") in pos.legal_moves(4, 1)


def test_bearing_off_comes_back_as_a_move_to_0_and_no_play_as_an_empty_line(gnubg: GnubgExternal) -> None:
    home = Position.from_board([[0] * 19 + [2, 2, 0, 0, 0, 0], [2, 2, 0, 0, 0, 1] + [0] * 19])
    assert gnubg.ask(gnubg_board(home, MatchState(), 0, dice=(6, 2))) == "6/0 2/0"
    closed = Position.from_board([[2] * 6 + [0] * 11 + [3] + [0] * 7, [0] * 5 + [14] + [0] * 18 + [1]])
    assert gnubg.ask(gnubg_board(closed, MatchState(), 0, dice=(6, 6))) == ""


def test_both_may_double_fields_zero_with_the_cube_at_1_read_as_a_pending_double(gnubg: GnubgExternal) -> None:
    crawford = MatchState(length=7, score=(6, 3), crawford=True, player_on_roll=0, turn=0, dice=(5, 2))
    line = gnubg_board(Position(), crawford, 0, dice=(5, 2))
    assert gnubg.ask(line) == "13/8 24/22"  # the adapter's flags: the cube's owner
    assert gnubg.ask(_with(line, player_may_double=False, opponent_may_double=False)) == "take"


def test_unlimited_match_length_is_money_play(gnubg: GnubgExternal) -> None:
    offered = MatchState(player_on_roll=1, turn=0, double_offered=True)
    line = gnubg_board(Position(), offered, 0, doubled=True)
    assert parse_fibs_board(line.split(" ")[0]).match_length == 9999
    assert gnubg.ask(line) == "beaver"  # beavers exist only in money play
    assert gnubg.ask(gnubg_board(Position(), dataclasses.replace(offered, length=7), 0, doubled=True)) == "take"


def test_gnubg_listens_again_after_a_disconnect(gnubg: GnubgExternal) -> None:
    line = gnubg_board(Position(), MatchState(), 0, dice=(3, 1))
    assert gnubg.ask(line) == "8/5 6/5"
    gnubg.disconnect()
    time.sleep(0.2)
    assert gnubg.process is not None and gnubg.process.returncode() is None  # still running
    gnubg.connect()
    assert gnubg.ask(line) == "8/5 6/5"


def test_a_line_gnubg_cannot_read_gets_an_error_line(gnubg: GnubgExternal) -> None:
    assert gnubg.ask("garbage here").startswith("Error:")


def test_the_gnubg_process_dies_with_the_process_that_started_it() -> None:
    assert_engine_dies_with_its_parent("""
        from bgfast.engines.gnubg_external import GnubgProgramBot
        bot = GnubgProgramBot(0)
        bot.start()
        pid = bot.pid
    """)


# ---------------------------------------------------------------- gnubg's neural net as the oracle


def test_checker_plays_agree_with_gnubgs_net(gnubg: GnubgExternal) -> None:
    _gnubg_nn()
    net = get_bot("gnubg", ply=0, cube="never")
    rng = random.Random(1)
    agree = asked = 0
    match = MatchState(jacoby=False)
    for pos in _positions(250, seed=5):
        dice = rng.choice(ALL_21)
        if len(pos.legal_moves(dice.high, dice.low)) < 2:
            continue
        ours = pos.parse_move(gnubg.ask(gnubg_board(pos, match, 0, dice=(dice.high, dice.low))), dice)
        asked += 1
        agree += ours == net.choose_move(pos, dice, match)
    assert asked > 150 and agree / asked > 0.9, (agree, asked)


def test_take_decisions_agree_with_gnubgs_net(gnubg: GnubgExternal) -> None:
    _gnubg_nn()
    net = get_bot("gnubg", ply=0)
    rng = random.Random(3)
    agree = asked = 0
    for pos in _positions(250, seed=9):
        cube = rng.choice([1, 1, 2, 4])
        match = MatchState(length=7, score=(rng.randrange(6), rng.randrange(6)), cube_value=cube,
                           cube_owner=-1 if cube == 1 else 1, player_on_roll=1, turn=0, double_offered=True)
        if match.is_cube_dead(1):
            continue
        answer = gnubg.ask(gnubg_board(pos.swap_sides(), match, 0, doubled=True))
        assert answer in ("take", "drop")  # never a beaver in match play
        asked += 1
        agree += (answer == "take") == (net.accept_double(pos, match) != CubeResponse.PASS)
    assert asked > 150 and agree / asked > 0.95, (agree, asked)


def test_double_decisions_agree_with_gnubgs_net(gnubg: GnubgExternal) -> None:
    _gnubg_nn()
    net = get_bot("gnubg", ply=0)
    rng = random.Random(3)
    agree = asked = 0
    for pos in _positions(300, seed=9):
        owner = rng.choice([-1, -1, 0])
        match = MatchState(length=7, score=(rng.randrange(6), rng.randrange(6)), player_on_roll=0, turn=0,
                           cube_value=1 if owner == -1 else rng.choice([2, 4]), cube_owner=owner)
        if match.is_cube_dead(0):
            continue
        asked += 1
        agree += (gnubg.ask(gnubg_board(pos, match, 0)) == "double") == net.should_double(pos, match)
    assert asked > 150 and agree / asked > 0.88, (agree, asked)


# ---------------------------------------------------------------- the player


def test_building_the_player_starts_no_process_and_checks_its_options() -> None:
    bot = GnubgProgramBot(ply=1)
    assert bot.pid is None and bot.label == "gnubg-1ply"
    with pytest.raises(UnknownBotError, match="ply"):
        GnubgProgramBot(ply=9)
    with pytest.raises(EngineStartError, match="not an executable file"):
        GnubgProgramBot(program="/no/such/gnubg")


def test_the_program_plays_cubeless_money_games_and_matches_with_the_cube() -> None:
    bot = GnubgProgramBot(0)
    try:
        rules = Rules(jacoby=False)
        pubeval = get_bot("pubeval", cube="never")
        cubeless = GnubgProgramBot(0, cube="never")
        money = MatchPlayer(cubeless, pubeval, length=0, rules=rules)
        for index in range(10):
            cubeless.new_match()
            result = money.play(1, index)
            assert result.games == 1 and result.doubles == 0
        heuristic = get_bot("heuristic")
        match = MatchPlayer(bot, heuristic, length=7)
        doubles = 0
        for index in range(3):
            outcome = play_resilient(lambda: match.play(2, index), (bot, heuristic), length=7)
            assert outcome.forfeit is None and not outcome.faults and max(outcome.summary[:2]) >= 7
            doubles += outcome.summary.doubles
        assert doubles > 0
        assert bot.counters.illegal_answers == bot.counters.restarts == bot.counters.forfeits == 0
        assert bot.counters.decisions > 100
        cubeless.close()
    finally:
        bot.close()


@pytest.mark.slow
def test_the_program_at_0_ply_beats_pubeval_by_more_than_half_a_point_a_game() -> None:
    gnubg = GnubgProgramBot(0, cube="never")
    pubeval = get_bot("pubeval", cube="never")
    rules = Rules(jacoby=False)
    first, second = MatchPlayer(gnubg, pubeval, length=0, rules=rules), MatchPlayer(pubeval, gnubg, length=0, rules=rules)
    total = 0
    pairs = 1000  # 2,000 games: one standard error is about 0.03
    for index in range(pairs):
        gnubg.new_match()
        a = first.play(1, index)
        gnubg.new_match()
        b = second.play(1, index)
        total += (a.score0 - a.score1) + (b.score1 - b.score0)
    gnubg.close()
    assert total / (2 * pairs) > 0.5
