"""UBGI both ways: ``bgfast engine`` (the server) and UbgiBot (the client), and the faults.

The strongest check is a cross-check of client and server at once: a bot served by
``bgfast engine`` and seated through :class:`UbgiBot` plays exactly the matches (winner,
score, games, gammons, cube actions, plies) that the same bot plays in process, with the
cube in 7-point matches, since every decision crosses the protocol and back.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast.bots import get_bot
from bgfast.bots.base import CubeResponse
from bgfast.engines import ubgi
from bgfast.engines.resilient import play_resilient
from bgfast.engines.ubgi_client import UbgiBot
from bgfast.engines.ubgi_server import UbgiServer, main, serve
from bgfast.errors import (
    EngineCrashedError,
    EngineIllegalAnswerError,
    EngineProtocolError,
    EngineStartError,
    EngineTimeoutError,
    UnknownBotError,
)
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position

FAKE = str(Path(__file__).parent / "engines" / "fake_ubgi.py")
RACE = Position.from_board([[0, 1, 2, 3, 4, 5] + [0] * 19, [2, 2, 2, 3, 3, 3] + [0] * 19])
"""A bear-off race, 57 pips to 70: at 5-away 5-away the heuristic bot doubles and passes."""
SERVER = [sys.executable, "-m", "bgfast.engines.ubgi_server"]


def fake(mode: str, at: int = 0, once: Path | None = None) -> list[str]:
    return [sys.executable, FAKE, mode, str(at), *([str(once)] if once else [])]


# ---------------------------------------------------------------- the server, line by line


def test_the_handshake_names_the_bot_the_protocol_and_the_keys() -> None:
    lines = UbgiServer("gnubg:ply=1" if _has_gnubg_nn() else "pubeval").handle("ubgi")
    assert lines[0].startswith("id name bgfast ") and lines[1].startswith("id author ")
    assert lines[2] == "proto 0.2" and lines[-1] == "ubgiok"
    keys = {k.name: k for k in map(ubgi.parse_answer, lines[3:-1])}
    assert set(ubgi.GAME_KEY_NAMES) <= set(keys)
    assert "engine.ply" in keys and "engine.cube" in keys


def _has_gnubg_nn() -> bool:
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        return False
    return True


def test_engine_ply_is_root_inclusive_gnubg_plies_plus_one() -> None:
    if not _has_gnubg_nn():
        pytest.skip("gnubg-nn is not installed (pip install 'bgfast[gnubg]')")
    server = UbgiServer("gnubg:ply=0")
    ply = next(k for k in map(ubgi.parse_answer, server.handle("keys")) if isinstance(k, ubgi.KeySpec)
               and k.name == "engine.ply")
    assert (ply.low, ply.high, ply.default) == (1, 3, "1")
    assert server.handle("set engine.ply 2") == [] and server.bot.ply == 1  # type: ignore[attr-defined]
    assert server.handle("get engine.ply") == ["value engine.ply 2"]
    assert server.handle("set engine.ply 4") == ["error bad_value engine.ply must_be 1..3"]


def test_a_bot_without_lookahead_has_only_one_ply() -> None:
    server = UbgiServer("pubeval")
    assert server.handle("set engine.ply 1") == []
    assert server.handle("set engine.ply 2") == ["error bad_value engine.ply must_be 1..1"]


def test_engine_cube_sets_the_cube_policy_and_engine_seed_the_seed() -> None:
    server = UbgiServer("heuristic")
    assert server.handle("set engine.cube never") == [] and server.bot.cube == "never"  # type: ignore[attr-defined]
    assert server.handle("set engine.cube sometimes")[0].startswith("error bad_value engine.cube must_be ")
    random_server = UbgiServer("random")
    assert random_server.handle("set engine.seed 5") == [] and random_server.bot._seed == 5  # type: ignore[attr-defined]


@pytest.mark.parametrize(("lines", "answer"), [
    (["go"], "error bad_state missing position"),
    (["position gnubgid 4HPwATDgc/ABMA", "go chequer"], "error bad_state missing dice"),
    (["position gnubgid 4HPwATDgc/ABMA", "go turn"], "error bad_state missing dice"),
    (["position gnubgid nonsense"], "error bad_value gnubgid invalid Position ID"),
    (["position xgid XGID=nonsense"], "error bad_value xgid"),
    # a rejected position leaves none held: no answer for the one before it
    (["position gnubgid 4HPwATDgc/ABMA", "dice 3 1", "position xgid garbage", "go chequer"],
     "error bad_state missing position"),
    (["dice 9 9"], "error bad_value dice must_be 1..6, got 9 9"),
    (["frobnicate"], "error bad_command unknown command 'frobnicate'"),
    (["set no.such.key 3"], "error unsupported key no.such.key"),
    (["get no.such.key"], "error unsupported key no.such.key"),
    (["set game.cube 3"], "error bad_value game.cube must_be a power of two 1..32768, got 3"),
    (["set game.owner left"], "error bad_value game.owner must_be centre|on_roll|opponent"),
    (["isready"], "readyok"),
])
def test_each_bad_input_gets_its_error_line(lines: list[str], answer: str) -> None:
    server = UbgiServer("pubeval")
    out: list[str] = []
    for line in lines:
        out = server.handle(line)
    assert (out[0] if out else "").startswith(answer)


@given(st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_the_server_never_dies_on_a_line(line: str) -> None:
    server = UbgiServer("pubeval")
    server.handle("position gnubgid 4HPwATDgc/ABMA")
    for out in server.handle(line):
        assert out.split()[0] in ("error", "bestmove", "bestcube", "bestturn", "readyok", "value", "key",
                                  "id", "proto", "ubgiok"), out
    assert server.handle("isready") == ["readyok"]


def test_go_cube_answers_double_or_nodouble_and_take_drop_or_beaver_with_a_double_offered() -> None:
    server = UbgiServer("heuristic")
    race = RACE  # a double and a pass
    match = MatchState(length=7, score=(2, 2), player_on_roll=1, turn=1)
    server.handle(f"position xgid {match.xgid(race.board)}")
    assert server.handle("go cube") == ["bestcube double"]
    offered = MatchState(length=7, score=(2, 2), player_on_roll=1, turn=0, double_offered=True)
    server.handle(f"position xgid {offered.xgid(race.board)}")
    assert server.handle("go cube") == ["bestcube drop"]
    server.handle(f"position xgid {offered.xgid(Position().board)}")
    assert server.handle("go cube") == ["bestcube take"]
    # the same through the game.* keys
    server.handle("newgame")
    server.handle(f"position gnubgid {race.id()}")
    for key, value in ubgi.game_settings(offered).items():
        assert server.handle(f"set {key} {value}") == []
    assert server.handle("go cube") == ["bestcube drop"]


def test_go_cube_says_nodouble_where_the_rules_forbid_a_double() -> None:
    server = UbgiServer("heuristic")
    race = RACE
    crawford = MatchState(length=7, score=(6, 2), crawford=True, player_on_roll=1, turn=1)
    server.handle(f"position xgid {crawford.xgid(race.board)}")
    assert server.handle("go cube") == ["bestcube nodouble"]
    theirs = MatchState(length=7, score=(2, 2), cube_value=2, cube_owner=0, player_on_roll=1, turn=1)
    server.handle(f"position xgid {theirs.xgid(race.board)}")
    assert server.handle("go cube") == ["bestcube nodouble"]


def test_a_game_value_no_match_can_have_is_refused_at_the_set_and_the_old_value_stays() -> None:
    server = UbgiServer("pubeval")
    server.handle("position gnubgid 4HPwATDgc/ABMA")
    assert server.handle("set game.cube 3") == ["error bad_value game.cube must_be a power of two 1..32768, got 3"]
    assert server.handle("get game.cube") == ["value game.cube 1"]
    assert server.handle("go cube") == ["bestcube nodouble"]
    assert server.handle("set game.cube 4") == [] and server.handle("get game.cube") == ["value game.cube 4"]


def test_a_double_offered_on_a_cube_the_taker_owns_is_a_bad_state() -> None:
    server = UbgiServer("heuristic")
    server.handle(f"position gnubgid {RACE.id()}")
    for line in ("set game.length 7", "set game.cube 2", "set game.doubled true", "set game.owner opponent"):
        assert server.handle(line) == []
    answer = server.handle("go cube")
    assert answer[0].startswith("error bad_state a double is offered on a cube the side to take owns"), answer
    # the doubler's own cube may be redoubled
    assert server.handle("set game.owner on_roll") == []
    assert server.handle("go cube") == ["bestcube drop"]


@pytest.mark.parametrize("lines", [
    ["set game.length 7", "set game.score.on_roll 7", "go cube"],
    ["position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:2:0:7:10"],
])
def test_a_won_match_says_the_game_is_over_in_plain_words(lines: list[str]) -> None:
    server = UbgiServer("pubeval")
    server.handle("position gnubgid 4HPwATDgc/ABMA")
    out: list[str] = []
    for line in lines:
        out = server.handle(line)
    assert out[0].startswith("error bad_value") and (out[0].endswith("so the game is over")
                                                     or "the match is over: a side has 7 of 7 points" in out[0]), out
    assert "game_state" not in out[0] and "PLAYING" not in out[0]


def test_go_turn_gives_the_cube_and_the_play() -> None:
    server = UbgiServer("pubeval:cube=never")
    server.handle("position gnubgid 4HPwATDgc/ABMA")
    server.handle("dice 3 1")
    assert server.handle("go turn") == ["bestturn cube=nodouble move=8/5 6/5"]


def test_a_combined_position_and_match_id_carries_the_match() -> None:
    server = UbgiServer("pubeval")
    match = MatchState(length=7, score=(2, 3), cube_value=2, cube_owner=0, player_on_roll=1, turn=1, dice=(6, 5))
    assert server.handle(f"position gnubgid 4HPwATDgc/ABMA:{match.match_id()}") == []
    assert server._match() == match and server.dice is not None and tuple(server.dice) == (6, 5)
    assert server.handle("go") == ["bestmove 24/18 18/13"]
    assert server.handle("position gnubgid 4HPwATDgc/ABMA:nonsense")[0].startswith("error bad_value gnubgid")


def test_serve_reads_lines_until_quit(tmp_path: Path) -> None:
    import io

    source = io.BytesIO(b"ubgi\n\nposition gnubgid 4HPwATDgc/ABMA\ndice 6 5\ngo\nquit\nisready\n")
    sink = io.BytesIO()
    assert serve("pubeval", source, sink) == 0
    lines = sink.getvalue().decode().splitlines()
    assert lines[-1] == "bestmove 24/18 18/13" and "readyok" not in lines


def test_bgfast_engine_with_an_unknown_bot_is_one_error_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bot", "pubevl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: unknown bot 'pubevl'") and err.count("\n") == 1
    with pytest.raises(UnknownBotError):
        UbgiServer("pubevl")


# ---------------------------------------------------------------- client and server together


@pytest.fixture(scope="module")
def pubeval_engine() -> UbgiBot:
    bot = UbgiBot([*SERVER, "--bot", "pubeval"], label="pubeval-engine")
    yield bot
    bot.close()


@pytest.mark.parametrize("length", [0, 7])
def test_pubeval_through_bgfast_engine_plays_the_same_matches_as_in_process(pubeval_engine: UbgiBot,
                                                                             length: int) -> None:
    outside = MatchPlayer(pubeval_engine, get_bot("heuristic"), length=length)
    inside = MatchPlayer(get_bot("pubeval"), get_bot("heuristic"), length=length)
    doubles = 0
    for index in range(12):
        pubeval_engine.new_match()
        ours, theirs = outside.play(5, index), inside.play(5, index)
        assert ours == theirs, index
        doubles += ours.doubles
    if length:
        assert doubles > 0  # the cube crossed the protocol: double, take and pass
    assert pubeval_engine.counters.decisions > 0 and pubeval_engine.counters.illegal_answers == 0


@pytest.mark.parametrize("context", ["xgid", "keys"])
def test_the_score_aware_heuristic_cube_crosses_both_match_contexts(context: str) -> None:
    bot = UbgiBot([*SERVER, "--bot", "heuristic"], context=context)
    try:
        outside = MatchPlayer(bot, get_bot("pubeval"), length=5)
        inside = MatchPlayer(get_bot("heuristic"), get_bot("pubeval"), length=5)
        for index in range(6):
            bot.new_match()
            assert outside.play(9, index) == inside.play(9, index), index
        assert bot.uses_xgid == (context == "xgid")
    finally:
        bot.close()


def test_a_cube_policy_in_the_player_spec_decides_instead_of_the_engine() -> None:
    bot = UbgiBot([*SERVER, "--bot", "pubeval"], cube="never")
    try:
        outside = MatchPlayer(bot, get_bot("heuristic", cube="never"), length=7)
        inside = MatchPlayer(get_bot("pubeval", cube="never"), get_bot("heuristic", cube="never"), length=7)
        for index in range(3):
            bot.new_match()
            result = outside.play(2, index)
            assert result == inside.play(2, index) and result.doubles == 0
    finally:
        bot.close()


def test_building_a_client_starts_no_process() -> None:
    bot = UbgiBot([*SERVER, "--bot", "pubeval"])
    assert bot._process is None
    bot.close()


def test_a_new_game_is_announced_to_the_engine(pubeval_engine: UbgiBot) -> None:
    pubeval_engine.new_match()
    MatchPlayer(pubeval_engine, get_bot("heuristic"), length=5).play(3, 1)
    assert pubeval_engine.games_started >= 2


# ---------------------------------------------------------------- engines without xgid or cube


def test_an_engine_without_xgid_or_game_keys_plays_without_the_match_context() -> None:
    bot = UbgiBot(fake("noxgid"))
    try:
        result = MatchPlayer(bot, get_bot("heuristic"), length=0).play(4, 0)
        assert not bot.uses_xgid and bot._game_keys == ()
        assert result == MatchPlayer(get_bot("pubeval"), get_bot("heuristic"), length=0).play(4, 0)
    finally:
        bot.close()


def test_an_engine_that_refuses_go_cube_gets_the_default_cube_policy() -> None:
    bot = UbgiBot(fake("nocube"))
    try:
        from bgfast.bots.cube_policy import DEFAULT_CUBE_POLICY

        race = RACE
        match = MatchState(length=7, score=(2, 2), player_on_roll=1, turn=1)
        expected = get_bot("heuristic", cube=DEFAULT_CUBE_POLICY).should_double(race, match)
        assert bot.should_double(race, match) is expected is True
        assert not bot._cube_supported
        offered = MatchState(length=7, score=(2, 2), player_on_roll=1, turn=0, double_offered=True)
        assert bot.accept_double(race, offered) == CubeResponse.PASS
    finally:
        bot.close()


# ---------------------------------------------------------------- faults


def test_a_command_that_is_not_executable_fails_before_play(tmp_path: Path) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    with pytest.raises(EngineStartError, match="not an executable file"):
        UbgiBot([str(script)])
    with pytest.raises(EngineStartError, match="not found on PATH"):
        UbgiBot(["no-such-engine-anywhere"])
    with pytest.raises(EngineStartError, match="non-empty list"):
        UbgiBot([])  # type: ignore[arg-type]


@pytest.mark.parametrize(("mode", "problem"), [
    ("nohandshake", "exited with status 1"),
    ("refuse", "refuses option engine.cube"),
])
def test_an_engine_that_fails_its_handshake_fails_before_play(mode: str, problem: str) -> None:
    bot = UbgiBot(fake(mode), options={"engine.cube": "never"})
    with pytest.raises(EngineStartError, match=problem):
        bot.choose_move(Position(), (3, 1))
    assert bot.counters.restarts == 0


def test_an_engine_that_never_finishes_its_handshake_times_out_before_play() -> None:
    bot = UbgiBot(fake("silent"), timeout_s=0.5, start_timeout_s=0.5)
    start = time.monotonic()
    with pytest.raises(EngineStartError, match="no answer to 'ubgi' within 0.5 s"):
        bot.start()
    assert time.monotonic() - start < 5


def test_the_start_has_its_own_time_limit_at_least_30_s_unless_given() -> None:
    assert UbgiBot(fake("silent"), timeout_s=0.5).start_timeout_s == 30.0
    assert UbgiBot(fake("silent"), timeout_s=90).start_timeout_s == 90.0
    assert UbgiBot(fake("silent"), timeout_s=0.5, start_timeout_s=2).start_timeout_s == 2.0
    with pytest.raises(ValueError, match="start_timeout_s"):
        UbgiBot(fake("silent"), start_timeout_s=0)


def test_an_option_out_of_the_engines_range_fails_before_play() -> None:
    bot = UbgiBot([*SERVER, "--bot", "pubeval"], options={"engine.ply": 3})
    with pytest.raises(EngineStartError, match="engine.ply must_be 1..1"):
        bot.start()


def hang_or_load(mode: str) -> float:
    """The decision time to give a fake engine: short where the test waits for a hang
    (its start has 30 s whatever this is)."""
    return 1.0 if mode == "hang" else 15.0


@pytest.mark.parametrize(("mode", "error", "counter"), [
    ("crash", EngineCrashedError, "crashes"),
    ("hang", EngineTimeoutError, "timeouts"),
    ("illegal", EngineIllegalAnswerError, "illegal_answers"),
    ("garbage", EngineProtocolError, "illegal_answers"),
])
def test_each_fault_during_play_is_raised_named_and_counted(mode: str, error: type, counter: str) -> None:
    bot = UbgiBot(fake(mode, at=5), timeout_s=hang_or_load(mode), label=f"fake-{mode}")
    player = MatchPlayer(get_bot("heuristic"), bot, length=3)
    with pytest.raises(error) as info:
        player.play(1, 0)
    exc = info.value
    assert exc.engine == f"fake-{mode}" and exc.seat == 1 and isinstance(exc.match, MatchState)
    assert getattr(bot.counters, counter) == 1 and bot.counters.decisions == 3  # the 1st go is the cube probe
    # the next decision starts a new process: a restart
    bot.new_match()
    with pytest.raises(error):
        player.play(1, 0)
    assert bot.counters.restarts == 1
    bot.close()


def test_a_crash_leaves_the_engines_stderr_in_the_log_and_the_message(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bgfast.engines")
    bot = UbgiBot(fake("crash", at=2))
    with pytest.raises(EngineCrashedError, match="exited with status 3.*crashing on purpose"):
        MatchPlayer(bot, get_bot("pubeval"), length=0).play(1, 0)
    assert any("crashing on purpose" in r.getMessage() for r in caplog.records)
    bot.close()


def test_a_cube_answer_that_does_not_fit_is_an_illegal_answer() -> None:
    bot = UbgiBot(fake("badcube", at=2))
    race = RACE
    match = MatchState(length=7, score=(2, 2), player_on_roll=0, turn=0)
    with pytest.raises(EngineIllegalAnswerError, match="bestcube take"):
        bot.should_double(race, match)
    assert bot.counters.illegal_answers == 1
    bot.close()


@pytest.mark.parametrize("mode", ["crash", "hang", "illegal", "garbage"])
def test_a_match_broken_off_once_is_replayed_from_its_start_and_is_the_same_match(tmp_path: Path, mode: str) -> None:
    once = tmp_path / "armed"
    once.write_text("")
    bot = UbgiBot(fake(mode, at=30, once=once), timeout_s=hang_or_load(mode))
    try:
        player = MatchPlayer(get_bot("heuristic"), bot, length=5)
        result = play_resilient(lambda: player.play(6, 2), (get_bot("heuristic"), bot), length=5)
        expected = MatchPlayer(get_bot("heuristic"), get_bot("pubeval"), length=5).play(6, 2)
        assert result.summary == expected and result.forfeit is None
        assert [f.seat for f in result.faults] == [1] and bot.counters.restarts == 1
    finally:
        bot.close()


@pytest.mark.parametrize(("length", "winner_points"), [(5, 5), (0, 1)])
def test_three_faults_of_one_match_are_a_forfeit(length: int, winner_points: int) -> None:
    bot = UbgiBot(fake("illegal", at=3), timeout_s=hang_or_load("illegal"))
    try:
        heuristic = get_bot("heuristic", cube="never")
        player = MatchPlayer(bot, heuristic, length=length)
        result = play_resilient(lambda: player.play(6, 2), (bot, heuristic), length=length)
        assert result.forfeit == 0 and len(result.faults) == 3
        assert result.summary.winner == 1 and result.summary.score1 == winner_points
        assert bot.counters.forfeits == 1 and bot.counters.illegal_answers == 3 and bot.counters.restarts == 2
    finally:
        bot.close()


def assert_engine_dies_with_its_parent(start_engine: str) -> None:
    """Run ``start_engine`` (Python that starts an engine and binds its pid to ``pid``) in a
    child process, kill the child with SIGKILL, and check that the engine goes too."""
    code = f"import time\n{textwrap.dedent(start_engine)}\nprint(pid, flush=True)\ntime.sleep(60)\n"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    engine_pid = int(child.stdout.readline())
    os.kill(engine_pid, 0)  # running
    child.kill()
    child.wait()
    for _ in range(100):
        try:
            os.kill(engine_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(engine_pid, 9)
    pytest.fail("the engine outlived the process that started it")


def test_an_engine_dies_with_the_process_that_started_it() -> None:
    assert_engine_dies_with_its_parent(f"""
        from bgfast.engines.ubgi_client import UbgiBot
        bot = UbgiBot({[*SERVER, '--bot', 'pubeval']!r})
        bot.start()
        pid = bot._process.pid
    """)


def test_rules_with_beavers_let_a_beaver_answer_cross_the_protocol() -> None:
    bot = UbgiBot([*SERVER, "--bot", "heuristic"])
    try:
        outside = MatchPlayer(bot, get_bot("heuristic"), length=0, rules=Rules(beaver=True))
        inside = MatchPlayer(get_bot("heuristic"), get_bot("heuristic"), length=0, rules=Rules(beaver=True))
        for index in range(8):
            bot.new_match()
            assert outside.play(8, index) == inside.play(8, index)
    finally:
        bot.close()
