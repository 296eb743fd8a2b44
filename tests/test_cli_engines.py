"""Outside engines named on the command line: ``bgfast play --player`` and ``bgfast rollout
--bot`` with ``command:PROGRAM ARGS...`` or ``engine:NAME[:KEY=VALUE,...]``.

The engine is bgfast's own UBGI server serving pubeval, so that a rollout or a match it
plays must equal the built-in pubeval's on the same seed; the faulty engines are
``tests/engines/fake_ubgi.py``.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from bgfast.engines.players import outside_bot_text, player_bot
from bgfast.engines.ubgi_client import UbgiBot
from bgfast.errors import EngineStartError, InvalidSpecError, UnknownBotError
from cli_helpers import fixed_terminal, run  # noqa: F401
from test_ubgi_engine import SERVER, fake

PUBEVAL_ENGINE = "command:" + shlex.join([*SERVER, "--bot", "pubeval"])
"""The UBGI server serving pubeval, as a command line names it."""


def command(words: list[str]) -> str:
    return "command:" + shlex.join(words)


# ---------------------------------------------------------------- the text of a player


def test_a_command_is_split_as_a_shell_splits_it() -> None:
    bot = outside_bot_text("command:prog --net 'big net' -v".replace("prog", SERVER[0]), timeout_s=7.5)
    assert isinstance(bot, UbgiBot)
    assert bot.command == [SERVER[0], "--net", "big net", "-v"] and bot.timeout_s == 7.5
    assert bot.label == f"{SERVER[0]} --net 'big net' -v"


def test_a_bot_spec_is_still_a_bot() -> None:
    assert type(player_bot("pubeval:cube=never")).__name__ == "PubevalBot"


@pytest.mark.parametrize(("text", "error", "message"), [
    ("command:", EngineStartError, "engine command is empty: give command:PROGRAM ARGS..."),
    ("command:'open", EngineStartError, "engine command \"'open\" does not split into words: No closing quotation"),
    ("command:/no/such/engine -x", EngineStartError, "engine command '/no/such/engine' is not an executable file"),
    ("engine:wildbg", InvalidSpecError, "unknown engine 'wildbg' (known engines: gnubg)"),
    ("engine:gnubg:depth=2", UnknownBotError, "engine 'gnubg' takes the options ply, program, not depth"),
    ("engine:gnubg:ply", UnknownBotError, "bad bot spec 'gnubg:ply': option 'ply' is not KEY=VALUE"),
    ("engine:gnubg:timeout_s=0", InvalidSpecError, "timeout_s must be a number of at least 0.001, got 0"),
    ("pubeval", InvalidSpecError, "'pubeval' names no outside engine"),
])
def test_a_bad_engine_text_is_a_specific_error(text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        outside_bot_text(text)
    assert str(caught.value).startswith(message)


# ---------------------------------------------------------------- rollout


def rollout_json(capsys: pytest.CaptureFixture[str], bot: str, *more: str) -> dict[str, object]:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", bot, "--trials", "144", "--seed", "5",
                         "--cubeful", "--json", *more)
    assert (code, err) == (0, "")
    data = json.loads(out)
    del data["seconds"]
    return dict(data)


@pytest.mark.parametrize("more", [(), ("--dice", "31", "--workers", "2")])
def test_a_rollout_by_the_ubgi_server_equals_pubevals(more: tuple[str, ...],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    engine = rollout_json(capsys, PUBEVAL_ENGINE, *more)
    builtin = rollout_json(capsys, "pubeval", *more)
    assert engine.pop("bot") == "ubgi engine " + PUBEVAL_ENGINE.removeprefix("command:")
    assert builtin.pop("bot") == "pubeval:cube=keith,cube_efficiency=0.68"
    if more:   # the play of the roll is the bot's, shown only for a bot of the core (not asked of a Python bot)
        assert (engine.pop("play"), builtin.pop("play")) == (None, "8/5 6/5")
    assert engine == builtin


def test_a_rollout_engine_that_hangs_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    hang = command(fake("hang", at=5))
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", hang, "--trials", "72",
                         "--engine-timeout", "0.5")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "gave no answer to 'go chequer' within 0.5 s" in err


def test_a_rollout_engine_that_crashes_is_named_by_its_program_without_python_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    # it was "bot 'ubgi' failed: EngineCrashedError: ..."
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", command(fake("crash", at=3)), "--trials", "36")
    assert (code, out) == (1, "")
    assert err.startswith("bgfast: error: bot ") and err.count("\n") == 1
    assert "Error:" not in err and "'ubgi'" not in err


def test_a_rollout_by_an_engine_cannot_be_saved_and_says_why(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--bot", PUBEVAL_ENGINE, "--trials", "36",
                         "--save", str(tmp_path / "r.json"))
    assert code == 2 and err.count("\n") == 1
    assert "a rollout played by the outside engine " in err and "so that --extend can rebuild them" in err
    assert "<UbgiBot" not in err and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(("bot", "message"), [
    ("command:/no/such/engine --fast", "engine command '/no/such/engine' is not an executable file"),
    (command(fake("nohandshake")), "exited with status 1 while answering 'ubgi' (UBGI handshake)"),
    ("engine:nosuch", "unknown engine 'nosuch' (known engines: gnubg)"),
])
def test_a_bad_engine_command_is_one_line_and_exit_2(bot: str, message: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["rollout", "4HPwATDgc/ABMA", "--bot", bot], ["play", "--player", "pubeval", "--player", bot]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert err.startswith("bgfast: error: ") and err.count("\n") == 1 and message in err


def test_engine_timeout_must_be_above_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--engine-timeout", "0")
    assert (code, out) == (2, "")
    assert err == ("bgfast: error: argument --engine-timeout: expected a number above 0, got '0' (see 'bgfast "
                   "rollout --help')\n")


# ---------------------------------------------------------------- play


def match_json(capsys: pytest.CaptureFixture[str], player0: str, *more: str) -> tuple[dict[str, object], str]:
    code, out, err = run(capsys, "play", "--player", player0, "--player", "pubeval", "--length", "5",
                         "--seed", "11", "--json", *more)
    assert code == 0
    data = json.loads(out)
    assert data.pop("players") == [player0, "pubeval"]
    return data, err


def test_a_match_by_the_ubgi_server_equals_pubevals(capsys: pytest.CaptureFixture[str]) -> None:
    engine, err = match_json(capsys, PUBEVAL_ENGINE)
    assert err == ""
    assert engine == match_json(capsys, "pubeval")[0]


def test_a_match_file_of_an_engine_equals_pubevals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match_json(capsys, PUBEVAL_ENGINE, "--mat", str(tmp_path / "engine.mat"))
    match_json(capsys, "pubeval", "--mat", str(tmp_path / "pubeval.mat"))
    def plays(name: str) -> list[str]:   # every line but those of the players' names and scores
        return [line for line in (tmp_path / name).read_text().splitlines() if " : " not in line]

    assert plays("engine.mat") == plays("pubeval.mat") and len(plays("engine.mat")) > 20


def test_an_engine_that_crashes_once_is_replayed_on_the_same_dice(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    once = tmp_path / "once"
    once.touch()
    crashing = command(fake("crash", at=20, once=once))
    engine, err = match_json(capsys, crashing)
    assert not once.exists()     # it crashed
    assert err.startswith("bgfast: engine fault (crash, player 0): engine ") and err.count("\n") == 1
    assert err.rstrip().endswith("; the match was played again on the same dice")
    assert engine == match_json(capsys, "pubeval")[0]


def test_an_engine_that_always_fails_is_a_line_a_fault_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    illegal = command(fake("illegal", at=3))
    code, out, err = run(capsys, "play", "--player", illegal, "--player", "pubeval", "--length", "3")
    assert (code, out) == (1, "")
    *replays, last = err.splitlines()
    assert len(replays) == 2 and all(line.startswith("bgfast: engine fault (illegal, player 0): ")
                                     and line.endswith("; the match was played again on the same dice")
                                     for line in replays)
    assert last.startswith(f"bgfast: error: engine {illegal.removeprefix('command:')!r} (player 0) failed 3 times")
    assert "the last fault (illegal)" in last
