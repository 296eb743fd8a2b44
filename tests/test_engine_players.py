"""bgfast.engines.players: outside players of a spec, checked without starting them, played
with replays and forfeits, their counters taken per chunk."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bgfast.bots import get_bot
from bgfast.engines.counters import EngineCounters
from bgfast.engines.players import (
    check_outside_player,
    is_outside_player,
    outside_bot,
    play_match,
    preflight,
    take_counters,
)
from bgfast.engines.ubgi_client import UbgiBot
from bgfast.errors import EngineStartError, InvalidSpecError
from bgfast.game import MatchPlayer
from test_ubgi_engine import SERVER, fake


def test_a_ubgi_player_table_is_checked_and_built_without_starting_the_engine() -> None:
    table = {"name": "wild", "command": [*SERVER, "--bot", "pubeval"], "options": {"engine.ply": 1},
             "timeout_s": 10, "cube": "never"}
    assert is_outside_player(table) and not is_outside_player({"name": "x", "bot": "pubeval"})
    bot = check_outside_player(table, "players[1]")
    assert isinstance(bot, UbgiBot) and bot._process is None
    assert bot.timeout_s == 10 and bot.cube == "never" and bot.options == {"engine.ply": "1"} and bot.label == "wild"


@pytest.mark.parametrize(("table", "message"), [
    ({"command": ["/no/such/engine"]}, "players[1].command: engine command '/no/such/engine' is not an executable file"),
    ({"command": "ubgi-engine"}, "players[1].command: engine command must be a non-empty list of strings"),
    ({"command": []}, "players[1].command: engine command must be a non-empty list"),
    ({"engine": "wildbg"}, "players[1].engine: unknown engine 'wildbg' (known engines: gnubg)"),
    ({"engine": "gnubg", "command": ["x"]}, "players[1].engine: a player has either a command or an engine"),
    ({"bot": "pubeval", "command": ["sh"]}, "players[1]: a player has one of bot, command or engine"),
    ({"command": ["sh"], "options": {"a": [1, 2]}}, "players[1].options: must be a table of single values"),
    ({"command": ["sh"], "timeout_s": 0}, "players[1].timeout_s: must be a number of at least 0.001, got 0"),
    ({"command": ["sh"], "timeout_s": True}, "players[1].timeout_s: must be a number"),
    ({"command": ["sh"], "cube": "sometimes"}, "players[1].cube: unknown cube policy 'sometimes'"),
])
def test_a_bad_outside_player_is_an_invalid_spec_error_naming_the_key(table: dict, message: str) -> None:
    with pytest.raises(InvalidSpecError) as info:
        check_outside_player({"name": "p", **table}, "players[1]")
    assert str(info.value).startswith(message), str(info.value)


def test_a_bad_gnubg_player_names_its_options() -> None:
    from bgfast.engines.gnubg_external import find_program

    try:
        find_program()
    except EngineStartError as exc:
        with pytest.raises(InvalidSpecError, match=r"players\[0\].engine: the GNU Backgammon program is not installed"):
            check_outside_player({"engine": "gnubg"}, "players[0]")
        pytest.skip(f"the rest needs the program: {exc}")
    assert check_outside_player({"engine": "gnubg", "options": {"ply": 1}}, "players[0]").ply == 1  # type: ignore[attr-defined]
    with pytest.raises(InvalidSpecError, match=r"players\[0\].options: .*ply"):
        check_outside_player({"engine": "gnubg", "options": {"ply": 9}}, "players[0]")
    with pytest.raises(InvalidSpecError, match=r"players\[0\].options: engine 'gnubg' takes the options"):
        check_outside_player({"engine": "gnubg", "options": {"width": 3}}, "players[0]")


def test_preflight_starts_and_stops_each_engine_and_reports_the_first_that_fails() -> None:
    good = outside_bot(command=[*SERVER, "--bot", "pubeval"])
    preflight([good, get_bot("pubeval")])
    assert good._process is None and good.counters.restarts == 0  # type: ignore[attr-defined]
    with pytest.raises(EngineStartError, match="UBGI handshake"):
        preflight([good, outside_bot(command=fake("nohandshake"))])


def test_a_gnubg_program_that_exits_before_it_reads_its_setup_is_an_engine_start_error(tmp_path: Path) -> None:
    from bgfast.engines.gnubg_external import GnubgProgramBot

    program = tmp_path / "gnubg"
    program.write_text("#!/bin/sh\necho 'no display' >&2\nexit 4\n")
    program.chmod(0o755)
    with pytest.raises(EngineStartError, match="exited with status 4.*no display"):
        preflight([GnubgProgramBot(0, program=str(program))])


def test_built_in_bots_take_the_fast_path_and_count_nothing() -> None:
    bots = (get_bot("pubeval"), get_bot("heuristic"))
    player = MatchPlayer(*bots, length=3)
    result = play_match(lambda: player.play(1, 0), bots, length=3)
    assert result.summary == player.play(1, 0) and not result.faults
    assert take_counters(bots) == {}


def test_a_chunk_with_a_faulty_engine_keeps_one_row_a_match_and_counts_each_fault_once(tmp_path: Path) -> None:
    # the engine answers an illegal move in every process it runs in: each match is a forfeit
    faulty = outside_bot(command=fake("illegal", at=4), timeout_s=2.0, label="faulty")
    healthy = outside_bot(command=[*SERVER, "--bot", "pubeval"], label="healthy")
    heuristic = get_bot("heuristic")
    bots = [faulty, healthy, heuristic]
    rows = []
    for index, (a, b) in enumerate([(0, 2), (1, 2), (2, 0)]):
        player = MatchPlayer(bots[a], bots[b], length=3)
        result = play_match(lambda: player.play(4, index), (bots[a], bots[b]), length=3)
        rows.append((a, b, result))
    counters = take_counters(bots)
    assert len(rows) == 3
    forfeits = [r for a, b, r in rows if r.forfeit is not None]
    assert len(forfeits) == 2 and all(bots[(a, b)[r.forfeit]] is faulty for a, b, r in rows if r.forfeit is not None)
    assert counters[0].forfeits == 2 and counters[0].illegal_answers == 6 and counters[0].restarts >= 5
    assert counters[1].forfeits == 0 and counters[1].decisions > 0 and 2 not in counters
    healthy_row = rows[1][2]
    assert healthy_row.summary == MatchPlayer(get_bot("pubeval"), heuristic, length=3).play(4, 1)
    assert take_counters(bots) == {}  # taken: the next chunk starts from zero
    total = counters[0] + counters[1]
    assert total.report()["forfeits"] == 2 and EngineCounters.from_dict(total.to_dict()) == total
    faulty.close()
    healthy.close()


def test_a_spawned_engine_is_reused_across_matches() -> None:
    bot = outside_bot(command=[*SERVER, "--bot", "pubeval"])
    heuristic = get_bot("heuristic")
    player = MatchPlayer(bot, heuristic, length=0)
    play_match(lambda: player.play(1, 0), (bot, heuristic), length=0)
    pid = bot._process.pid  # type: ignore[attr-defined]
    for index in range(1, 4):
        play_match(lambda: player.play(1, index), (bot, heuristic), length=0)
    assert bot._process.pid == pid and bot.counters.restarts == 0  # type: ignore[attr-defined]
    bot.close()


def test_the_fake_engine_script_is_where_the_tests_say() -> None:
    assert Path(fake("healthy")[1]).is_file() and fake("healthy")[0] == sys.executable


def test_an_engine_that_floods_its_stderr_is_logged_up_to_a_mib(caplog: pytest.LogCaptureFixture) -> None:
    # a chatty engine wrote 55 MB into a tournament's log in six matches, and slowed every decision
    import logging

    from bgfast.engines.process import EngineProcess

    flood = "import sys\nfor i in range(3000): sys.stderr.write('x' * 999 + '\\n')\nsys.stderr.write('last\\n')\n"
    engine = EngineProcess([sys.executable, "-c", flood], name="chatty")
    with caplog.at_level(logging.INFO, logger="bgfast.engines"):
        engine.start()
        assert engine.proc is not None and engine.proc.wait(timeout=60) == 0
        assert engine._log_thread is not None
        engine._log_thread.join(timeout=60)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("bgfast.engines") and "chatty" in r.getMessage()]
    assert 1000 <= sum("xxx" in line for line in lines) <= 1100              # about a MiB of 1,000-byte lines
    assert any("more than 1048576 bytes of stderr" in line for line in lines)
    assert engine.stderr_tail().endswith("last")                             # the tail still reads to the end
    engine.close()
