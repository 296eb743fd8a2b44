"""Outside engines and plugins in tournaments: the spec keys, the same matches through
``bgfast engine`` as in process, every fault through a real run (counted, named, no match
lost or counted twice, kill -9 and resume included), the results file's engine tables,
``bgfast export``, and the GNU Backgammon program as a player."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from tournament_helpers import check_db_consistent, csv_of, needs_heuristic, start_cli, wait_for_chunks
from gnubg_oracle import bgfast_actions, compare_actions, gnubg_actions, requires_gnubg, run_gnubg

from bgfast.cli import main
from bgfast.engines.record import NO_CUBE_MARK, decode_decisions
from bgfast.errors import InvalidSpecError, WorkerFailedError
from bgfast.game import JUDGED_COLUMNS
from bgfast.tournament import TournamentSpec, load_standings, run_tournament
from bgfast.tournament.csv_export import CSV_COLUMNS
from bgfast.tournament.export import ExportError, export_all, export_match, match_history
from bgfast.tournament.store import Store

FAKE = str(Path(__file__).parent / "engines" / "fake_ubgi.py")
ENGINE = [sys.executable, "-m", "bgfast", "engine", "--bot", "pubeval"]
"""``bgfast engine --bot pubeval``, started as a tournament starts a command."""

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses fork, /proc and SIGKILL"),
              needs_heuristic]


def fake(mode: str, at: int = 0, once: Path | None = None) -> list[str]:
    """The fault-test engine (tests/engines/fake_ubgi.py: pubeval with one fault)."""
    return [sys.executable, FAKE, mode, str(at), *([str(once)] if once else [])]


def player(name: str, **keys: object) -> str:
    """A ``[[players]]`` table in TOML."""
    lines = ["[[players]]", f"name = {json.dumps(name)}"]
    for key, value in keys.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def spec_text(name: str, *players: str, length: int = 0, per_pairing: int = 4, chunk: int = 2, seed: int = 3,
              rules: str = "") -> str:
    head = (f'name = "{name}"\nseed = {seed}\nmatch_length = {length}\nmatches_per_pairing = {per_pairing}\n'
            f"chunk_size = {chunk}\n")
    return head + (f"[rules]\n{rules}\n" if rules else "") + "\n".join(players)


def run(tmp_path: Path, text: str, *, workers: int = 1) -> Path:
    """Play the spec ``text`` into ``tmp_path/<name>.sqlite``; the file."""
    spec = TournamentSpec.from_toml_string(text)
    db = tmp_path / f"{spec.name}.sqlite"
    run_tournament(spec, db, workers=workers)
    return db


def rows_of(db: Path) -> list[str]:
    """The per-match CSV without its run column (the run's name)."""
    from bgfast.tournament.csv_export import CSV_COLUMNS

    run = CSV_COLUMNS.index("run")
    return [",".join(f for i, f in enumerate(line.split(",")) if i != run) for line in csv_of(db).splitlines()]


def forfeit_of(row: str) -> str:
    """The forfeit column of a row of :func:`rows_of` (who forfeited the match, or empty)."""
    from bgfast.tournament.csv_export import CSV_COLUMNS

    return row.split(",")[CSV_COLUMNS.index("forfeit") - 1]      # after the run column, dropped


def engine_json(db: Path, name: str) -> dict[str, object]:
    return next(p for p in load_standings(db).to_json()["players"] if p["name"] == name)


def recorded_decisions(db: Path) -> tuple[int, int]:
    """(matches with a record, decisions in the records)."""
    with sqlite3.connect(db) as conn:
        blobs = conn.execute("SELECT seat0, seat1 FROM match_records").fetchall()
    return len(blobs), sum(len(decode_decisions(b)) for pair in blobs for b in pair if b is not None)


# ---------------------------------------------------------------- the spec


def test_outside_players_round_trip_through_toml_and_their_keys_enter_the_hash(tmp_path: Path) -> None:
    text = spec_text("keys", player("wild", command=ENGINE, options={"engine.ply": 1}, timeout_s=5, cube="never"),
                     player("pub", bot="pubeval"))
    spec = TournamentSpec.from_toml_string(text)
    wild = spec.players[0]
    assert wild.bot is None and wild.command == tuple(ENGINE) and wild.timeout_s == 5.0 and wild.is_outside
    assert wild.describe() == "command " + " ".join(ENGINE) and wild.bot_options() == {
        "engine.ply": 1, "cube": "never", "timeout_s": 5.0}
    assert TournamentSpec.from_toml_string(spec.to_toml()) == spec
    other = TournamentSpec.from_toml_string(text.replace("timeout_s = 5", "timeout_s = 6"))
    assert other.hash != spec.hash


def test_checking_a_spec_starts_no_engine(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    script = tmp_path / "engine.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexec {' '.join(ENGINE)}\n")
    script.chmod(0o755)
    TournamentSpec.from_toml_string(spec_text("lazy", player("e", command=[str(script)]), player("p", bot="pubeval")))
    assert not marker.exists()


@pytest.mark.parametrize(("table", "message"), [
    ({"bot": "pubeval", "timeout_s": 3}, "players[0].timeout_s: is only for outside players"),
    ({"bot": "pubeval", "command": ENGINE}, "players[0].command: a player has one of bot, command or engine"),
    ({}, "players[0].bot: missing (a player needs one of bot, command or engine)"),
    ({"command": ["/no/such/engine"]}, "players[0].command: engine command '/no/such/engine' is not an executable"),
    ({"engine": "wildbg"}, "players[0].engine: unknown engine 'wildbg'"),
    ({"bot": "nosuch_bgfast_module:make"}, "players[0].bot: bot 'nosuch_bgfast_module:make': no module named"),
    ({"bot": "pubevl"}, "players[0].bot: unknown bot 'pubevl'"),
])
def test_a_bad_player_is_one_error_naming_its_key(table: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidSpecError) as info:
        TournamentSpec.from_toml_string(spec_text("bad", player("x", **table), player("p", bot="pubeval")))
    assert str(info.value).startswith(message), str(info.value)


@pytest.fixture
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A plugin module on sys.path: ``make`` builds a Python bot (pubeval's plays), ``never`` one
    that never doubles and always takes with the cube policy ``"never"``, ``asked`` the same
    without a cube policy (the loop asks it back), ``broken`` raises."""
    (tmp_path / "bgfast_tournament_plugin.py").write_text(textwrap.dedent('''
        from bgfast.bots import get_bot
        from bgfast.bots.base import Bot

        class Mirror(Bot):
            name = "mirror"

            def __init__(self):
                self.inner = get_bot("pubeval")

            def choose_move(self, position, dice, match):
                return self.inner.choose_move(position, dice, match)

            def should_double(self, position, match):
                return self.inner.should_double(position, match)

            def accept_double(self, position, match):
                return self.inner.accept_double(position, match)

        class Never(Mirror):
            name = "never"
            cube = "never"

            def should_double(self, position, match):
                return False

            def accept_double(self, position, match):
                return 1

        class Asked(Never):
            cube = None

        def make():
            return Mirror()

        def never():
            return Never()

        def asked():
            return Asked()

        def broken():
            raise RuntimeError("no weights here")
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "bgfast_tournament_plugin"


# ---------------------------------------------------------------- failing fast: one line, exit 2, no match


@pytest.mark.parametrize("kind", ["not executable", "missing plugin module", "raising factory", "failed handshake"])
def test_what_can_be_known_before_play_is_one_line_and_exit_2_before_any_match(
        kind: str, tmp_path: Path, plugin_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    not_executable = tmp_path / "engine.txt"
    not_executable.write_text("not a program\n")
    first, expected = {
        "not executable": (player("e", command=[str(not_executable)]),
                           f"players[0].command: engine command '{not_executable}' is not an executable file"),
        "missing plugin module": (player("e", bot="bgfast_no_such_plugin:make"),
                                  "players[0].bot: bot 'bgfast_no_such_plugin:make': no module named"),
        "raising factory": (player("e", bot=f"{plugin_module}:broken"),
                            f"players[0].bot: bot '{plugin_module}:broken': its factory raised RuntimeError: "
                            "no weights here"),
        "failed handshake": (player("e", command=fake("nohandshake")), "engine 'e'"),
    }[kind]
    spec = tmp_path / "fail.toml"
    spec.write_text(spec_text("fail", first, player("p", bot="pubeval")))
    db = tmp_path / "fail.sqlite"
    assert main(["tournament", str(spec), "--db", str(db), "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bgfast: error: ") and expected in err, err
    if kind == "failed handshake":
        assert "handshake" in err
        with Store(db, readonly=True) as store:     # was a run of 0 matches, which refused the mended spec
            assert store.runs() == []
        spec.write_text(spec_text("fail", player("e", command=fake("ok")), player("p", bot="pubeval")))
        assert main(["tournament", str(spec), "--db", str(db), "--workers", "1", "--quiet"]) == 0, \
            capsys.readouterr().err


def test_bgfast_engine_with_an_unknown_bot_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engine", "--bot", "pubevl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: unknown bot 'pubevl'") and err.count("\n") == 1


# ---------------------------------------------------------------- the same matches through bgfast engine


@pytest.mark.parametrize(("length", "matches"), [(0, 12), (7, 4)])
def test_pubeval_through_bgfast_engine_plays_the_same_matches_as_in_process(
        tmp_path: Path, length: int, matches: int) -> None:
    outside = run(tmp_path, spec_text("outside", player("pubeval", command=ENGINE), player("heuristic", bot="heuristic"),
                                      length=length, per_pairing=matches, chunk=matches // 2))
    inside = run(tmp_path, spec_text("inside", player("pubeval", bot="pubeval"), player("heuristic", bot="heuristic"),
                                     length=length, per_pairing=matches, chunk=matches // 2))
    assert rows_of(outside) == rows_of(inside)
    if length:  # the cube crossed the protocol: doubles offered, and taken or passed
        assert sum(int(line.split(",")[14]) for line in rows_of(outside)[1:]) > 0
    counts = engine_json(outside, "pubeval")
    assert counts["decisions"] == recorded_decisions(outside)[1] > 10 * matches
    assert counts["restarts"] == counts["timeouts"] == counts["illegal_answers"] == counts["forfeits"] == 0
    assert engine_json(inside, "pubeval")["decisions"] == 0 and engine_json(outside, "heuristic")["decisions"] == 0
    text = load_standings(outside).text()
    assert "engine " in text and "\npubeval " in text.split("engine ", 1)[1]
    assert "engine " not in load_standings(inside).text().split("pairing", 1)[1]
    # every match exports to the same .mat file from the records as from the seed
    for index in range(matches):
        a, b = tmp_path / "a.mat", tmp_path / "b.mat"
        export_match(outside, index, a)
        export_match(inside, index, b)
        assert a.read_text() == b.read_text()


def test_a_new_runs_log_says_its_engines_were_checked(tmp_path: Path) -> None:
    # the check runs before the run is in the file, so before its log opens: the line waits for it
    db = run(tmp_path, spec_text("checked", player("pubeval", command=ENGINE), player("heuristic", bot="heuristic"),
                                 per_pairing=2, chunk=2))
    log_lines = db.with_suffix(".log").read_text().splitlines()
    assert any(line.endswith("1 outside engine(s) started and answered their handshake: pubeval")
               for line in log_lines)


# ---------------------------------------------------------------- faults through a real run


@pytest.mark.parametrize(("mode", "counter"), [
    ("crash", "crashes"), ("hang", "timeouts"), ("illegal", "illegal_answers"), ("garbage", "illegal_answers")])
def test_a_fault_during_play_is_counted_and_the_match_replayed_to_the_same_result(
        tmp_path: Path, mode: str, counter: str) -> None:
    once = tmp_path / "armed"
    once.write_text("")
    limit = {"timeout_s": 2.0} if mode == "hang" else {}  # the default, 60 s, for the others
    faulty = run(tmp_path, spec_text("faulty", player("pubeval", command=fake(mode, 7, once), **limit),
                                     player("heuristic", bot="heuristic")))
    inside = run(tmp_path, spec_text("inside", player("pubeval", bot="pubeval"), player("heuristic", bot="heuristic")))
    assert not once.exists(), "the fault never happened"
    assert rows_of(faulty) == rows_of(inside)  # no match lost, none counted twice, each the same match
    counts = engine_json(faulty, "pubeval")
    assert counts[counter] == 1 and counts["restarts"] == 1 and counts["forfeits"] == 0
    assert sum(counts[k] for k in ("crashes", "timeouts", "illegal_answers")) == 1  # type: ignore[misc]
    assert check_db_consistent(faulty) == (4, 2)
    table = load_standings(faulty).text().split("\nengine ", 1)[1].splitlines()
    assert table[0].split() == ["decisions", "ms", "mean", "ms", "max", "restarts", "crashes", "timeouts", "illegal",
                                "forfeits"]
    assert table[1].split()[4:9] == {"crashes": ["1", "1", "0", "0", "0"], "timeouts": ["1", "0", "1", "0", "0"],
                                 "illegal_answers": ["1", "0", "0", "1", "0"]}[counter]
    log = (tmp_path / "faulty.log").read_text()
    assert "attempt 1 of 3 failed" in log and "playing the match again" in log
    if mode == "crash":
        assert "crashing on purpose" in log  # the engine's stderr is in the run's log


def test_three_faults_in_one_match_forfeit_it_and_the_report_and_export_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = run(tmp_path, spec_text("forfeit", player("broken", command=fake("illegal", 3)),
                                 player("pubeval", bot="pubeval"), per_pairing=2, chunk=2))
    rows = [line.split(",") for line in rows_of(db)[1:]]
    assert len(rows) == 2 and all(r[7] == "pubeval" and {r[5], r[6]} == {"0", "1"} for r in rows)  # a single game lost
    assert all(forfeit_of(",".join(r)) == "broken" for r in rows)  # the CSV's forfeit column names who forfeited
    counts = engine_json(db, "broken")
    assert counts["forfeits"] == 2 and counts["illegal_answers"] == 6 and counts["restarts"] == 5
    text = load_standings(db).text()
    assert "forfeited matches (index): 0 (broken forfeited to pubeval), 1 (broken forfeited to pubeval)" in text
    assert main(["export", str(db), "--match", "0", "--mat", str(tmp_path / "m.mat")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: match 0 of run 'forfeit' was forfeited by 'broken'") and err.count("\n") == 1
    assert not (tmp_path / "m.mat").exists()
    summary = export_all(db, tmp_path)
    assert summary.written == () and summary.forfeits == (("forfeit", 0), ("forfeit", 1))


def test_an_engine_that_can_no_longer_start_stops_the_run_instead_of_forfeiting_match_after_match(
        tmp_path: Path) -> None:
    text = spec_text("breaks", player("breaking", command=fake("breaks", 40, tmp_path / "broken")),
                     player("pubeval", bot="pubeval"), per_pairing=8, chunk=2)
    with pytest.raises(WorkerFailedError, match="engine 'breaking' could not be restarted 4 times in a row") as info:
        run(tmp_path, text)
    assert "EngineStartError" not in str(info.value)      # bgfast's own errors by their message alone
    rows = rows_of(tmp_path / "breaks.sqlite")[1:]
    assert 0 < len(rows) < 8 and sum(forfeit_of(row) == "breaking" for row in rows) <= 1   # at most one forfeit kept


def test_an_engine_that_forfeits_match_after_match_stops_the_run_naming_it_and_a_mended_one_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Given an engine that answers illegally from its second decision on, in every process
    # (its first is the start's check): it forfeits each of its matches
    script = tmp_path / "engine.sh"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} illegal 2\n")
    script.chmod(0o755)
    spec = tmp_path / "forfeits.toml"
    spec.write_text(spec_text("forfeits", player("broken", command=[str(script)]), player("pubeval", bot="pubeval"),
                              length=3, per_pairing=8, chunk=2))
    # When it plays: the run stops after MAX_FORFEITS_IN_A_ROW (5) forfeits in a row, at the
    # same match whatever the worker count, with one line naming the player, its command
    # and its last fault, and a failure status
    for workers in ("2", "1"):
        db = tmp_path / f"forfeits-{workers}.sqlite"
        command = ["tournament", str(spec), "--db", str(db), "--workers", workers, "--quiet"]
        assert main(command) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err
        assert err.startswith(f"bgfast: error: player 'broken' (command {script}) forfeited 5 matches in a row "
                              "(matches 0, 1, 2, 3, 4) and finished none; its last fault: engine 'broken' answered "), err
        assert f"finished chunks are saved in {db}: mend the engine and re-run the same command to resume" in err
        saved = rows_of(db)[1:]
        assert 6 <= len(saved) <= 8 and all(forfeit_of(row) == "broken" for row in saved)  # chunks 0-2 at least
    assert len(saved) == 6  # one worker: chunks in order, none after the one that stopped the run
    # Then, the engine mended, the same command plays the rest and keeps what was saved
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} healthy\n")
    assert main(command) == 0
    rows = rows_of(db)[1:]
    assert len(rows) == 8 and rows[:len(saved)] == saved and not any(forfeit_of(r) == "broken" for r in rows[len(saved):])


def test_an_engine_without_cube_decisions_gets_bgfasts_policy_and_the_report_says_so(tmp_path: Path) -> None:
    db = run(tmp_path, spec_text("nocube", player("plain", command=fake("nocube")), player("heuristic", bot="heuristic"),
                                 length=5, per_pairing=2, chunk=2))
    counts = engine_json(db, "plain")
    assert counts["cube_by_policy"] > 0 and counts["illegal_answers"] == 0
    assert "plain answered 'unsupported' to cube decisions" in load_standings(db).text()


def test_kill_9_mid_run_with_an_engine_and_resume_count_every_match_and_decision_once(tmp_path: Path) -> None:
    text = spec_text("killed", player("pubeval", command=ENGINE), player("heuristic", bot="heuristic"),
                     per_pairing=240, chunk=10)
    spec_path = tmp_path / "killed.toml"
    spec_path.write_text(text)
    db = tmp_path / "killed.sqlite"
    proc = start_cli("tournament", str(spec_path), "--db", str(db), "--workers", "2", "--quiet", cwd=tmp_path)
    try:
        done = wait_for_chunks(db, 3, proc)
        assert proc.poll() is None, f"the run ended before it could be killed ({done} chunks)"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    matches, _ = check_db_consistent(db)
    assert 0 < matches < 240
    run_tournament(TournamentSpec.from_toml(spec_path), db, workers=2)
    inside = run(tmp_path, text.replace('name = "killed"', 'name = "inside"')
                 .replace(f"command = {json.dumps(ENGINE)}", 'bot = "pubeval"'), workers=2)
    assert rows_of(db) == rows_of(inside)
    recorded, decisions = recorded_decisions(db)
    assert recorded == 240 and engine_json(db, "pubeval")["decisions"] == decisions


# ---------------------------------------------------------------- results files of the previous version


def test_a_results_file_without_the_engine_tables_is_reported_and_resumed(tmp_path: Path) -> None:
    text = spec_text("old", player("pubeval", bot="pubeval"), player("random", bot="random"), per_pairing=8)
    db = run(tmp_path, text)
    before = rows_of(db)
    with sqlite3.connect(db) as conn:  # as the previous version wrote it, one chunk short
        conn.execute("DROP TABLE engine_counters")
        conn.execute("DROP TABLE match_records")
        conn.execute("DROP TABLE chunk_seats")
        conn.execute("DROP TABLE chunk_units")
        conn.execute("DELETE FROM matches WHERE chunk = 3")
        conn.execute("DELETE FROM chunks WHERE chunk = 3")
    standings = load_standings(db)
    assert standings.matches_played == 6 and all(p["decisions"] == 0 for p in standings.to_json()["players"])
    run_tournament(TournamentSpec.from_toml_string(text), db, workers=1)
    assert rows_of(db) == before
    with Store(db) as store:
        assert store.engine_counters() == {} and store.forfeits() == []


# ---------------------------------------------------------------- export


def test_export_writes_matches_of_built_in_and_plugin_bots_and_refuses_what_a_mat_file_cannot_hold(
        tmp_path: Path, plugin_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = run(tmp_path, spec_text("mixed", player("mirror", bot=f"{plugin_module}:make"), player("random", bot="random"),
                                 player("pubeval", bot="pubeval"), length=3, per_pairing=2), workers=2)
    with sqlite3.connect(db) as conn:  # the plugin's matches are recorded, the built-in bots' not
        assert conn.execute("SELECT COUNT(*) FROM match_records").fetchone()[0] == 4
    folder = tmp_path / "new" / "mats"  # made if missing, as the README's example needs
    assert main(["export", str(db), "--all", "--mat-dir", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [f"mixed-{i}.mat" for i in (0, 1, 2, 3, 4, 5)]
    mirror = (folder / "mixed-0.mat").read_text()
    assert mirror.startswith(" 3 point match\n") and "mirror : 0" in mirror
    # a second spec in the file: --run picks one
    run_tournament(TournamentSpec.from_toml_string(
        spec_text("second", player("pubeval", bot="pubeval"), player("random", bot="random"), seed=9,
                  length=3, per_pairing=2)), db, workers=1, append=True)
    capsys.readouterr()
    assert main(["export", str(db), "--match", "0", "--mat", str(tmp_path / "x.mat")]) == 2
    assert "holds several runs (mixed, second): name one with --run" in capsys.readouterr().err
    assert main(["export", str(db), "--match", "0", "--run", "second", "--mat", str(tmp_path / "x.mat")]) == 0
    assert main(["export", str(db), "--match", "9", "--run", "second", "--mat", str(tmp_path / "y.mat")]) == 2
    assert "run 'second' has no match 9" in capsys.readouterr().err
    variant = run(tmp_path, spec_text("nack", player("pubeval", bot="pubeval"), player("random", bot="random"),
                                      rules='variant = "nackgammon"', per_pairing=2))
    with pytest.raises(ExportError, match="plays 'nackgammon': a .mat file holds standard backgammon only"):
        export_match(variant, 0, tmp_path / "n.mat")


def test_a_python_bot_that_never_doubles_is_asked_no_cube_question_judged_or_recorded_and_replays(
        tmp_path: Path, plugin_module: str) -> None:
    judge = '\n[judge]\nbot = "neural"\nply = 0\n'
    files, judged = {}, {}
    for factory in ("never", "asked"):
        text = spec_text(factory, player("python", bot=f"{plugin_module}:{factory}"),
                         player("neural", bot="neural", cube="never"), per_pairing=6) + judge
        files[factory] = run(tmp_path, text)
        with sqlite3.connect(files[factory]) as conn:
            judged[factory] = conn.execute(f"SELECT {', '.join(JUDGED_COLUMNS)} FROM match_judged").fetchall()
    cube_decisions = [JUDGED_COLUMNS.index(f"cube_decisions{seat}") for seat in (0, 1)]
    played = [rows.split(",")[:CSV_COLUMNS.index("run")] for rows in (*rows_of(files["never"]), *rows_of(files["asked"]))]
    assert played[:7] == played[7:]          # never doubles, always takes either way: the same matches
    assert sum(row[i] for row in judged["never"] for i in cube_decisions) == 0
    assert sum(row[i] for row in judged["asked"] for i in cube_decisions) > 0
    with sqlite3.connect(files["never"]) as conn:
        records = [bytes(blob) for row in conn.execute("SELECT seat0, seat1 FROM match_records") for blob in row
                   if blob is not None]
    assert len(records) == 6 and all(decode_decisions(record)[0] == NO_CUBE_MARK for record in records)
    for index in range(6):                 # each replays to the match the tournament played
        export_match(files["never"], index, tmp_path / f"never-{index}.mat")
        export_match(files["asked"], index, tmp_path / f"asked-{index}.mat")
        assert (tmp_path / f"never-{index}.mat").read_text() == (tmp_path / f"asked-{index}.mat").read_text()


def test_recorded_decisions_changed_by_hand_are_named_by_file_match_and_player(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = run(tmp_path, spec_text("rec", player("engine", command=ENGINE), player("random", bot="random"),
                                 length=3, per_pairing=2, chunk=2))
    with sqlite3.connect(db) as conn:
        record = conn.execute("SELECT seat0 FROM match_records WHERE idx = 0").fetchone()[0]
        conn.execute("UPDATE match_records SET seat0 = ? WHERE idx = 0", (record[:len(record) // 2],))
    assert main(["export", str(db), "--match", "0", "--mat", str(tmp_path / "m.mat")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bgfast: error: match 0 of run 'rec' in {str(db)!r} does not replay: the recorded "
                          "decisions of 'engine' (seat 0, its row in the match_records table) do not fit the match: "
                          "the record has no decision left for ") and err.count("\n") == 1, err
    assert err.endswith("; the file was changed by hand, or the bots have changed since the match was played\n")


@pytest.mark.parametrize("value, shown", [("'hello'", "str 'hello'"), ("42", "int 42")])
def test_a_decision_record_that_is_not_a_blob_is_a_damaged_file(
        tmp_path: Path, plugin_module: str, value: str, shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = run(tmp_path, spec_text("rec", player("mirror", bot=f"{plugin_module}:make"), player("random", bot="random"),
                                 length=3, per_pairing=2))
    with sqlite3.connect(db) as conn:     # SQLite keeps the type written, whatever the column's
        conn.execute(f"UPDATE match_records SET seat0 = {value} WHERE idx = 0")
    assert main(["export", str(db), "--match", "0", "--mat", str(tmp_path / "m.mat")]) == 2
    assert capsys.readouterr().err == (f"bgfast: error: {str(db)!r} is a damaged results file: match 0 of run 'rec' "
                                       f"has {shown} in the match_records table's seat0, where a decision record "
                                       "(a BLOB) belongs\n")


def test_a_deleted_decision_record_is_named_as_a_cause_when_its_match_cannot_be_rebuilt(
        tmp_path: Path, plugin_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = run(tmp_path, spec_text("rec", player("mirror", bot=f"{plugin_module}:make"), player("random", bot="random"),
                                 length=3, per_pairing=2))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM match_records WHERE idx = 1")
    assert main(["export", str(db), "--match", "1", "--mat", str(tmp_path / "m.mat")]) == 2
    err = capsys.readouterr().err
    assert "plays in Python and its decisions are not in the results file (its match_records row deleted, or a " \
           "file written by an earlier version?)" in err and err.count("\n") == 1, err


def test_the_export_of_a_random_bot_match_is_the_match_the_tournament_played(tmp_path: Path) -> None:
    # the random bot draws its plays from the match's own stream in the C loop, and the
    # history is the loop's own record of the match: the export replays it exactly
    db = run(tmp_path, spec_text("chance", player("random", bot="random"), player("heuristic", bot="heuristic"),
                                 length=5, per_pairing=6))
    with Store(db) as store:
        saved = list(store.iter_matches())
    assert len(saved) == 6
    doubles = 0
    for match in saved:
        history, seats = match_history(db, match.idx)
        record, result = history.record, match.result
        assert seats == (match.player0, match.player1)
        assert (record.score, record.winner, len(record.games), sum(g.plies for g in record.games),
                record.cube_actions, record.gammons, record.backgammons) == (
            (result.score0, result.score1), result.winner, result.games, result.plies, result.doubles,
            (result.gammons0, result.gammons1), (result.backgammons0, result.backgammons1))
        moves = [turn for game in history.games for turn in game if turn.action == "move"]
        assert len(moves) == result.plies
        assert all(turn.move in turn.position.legal_moves(turn.dice) for turn in moves)
        doubles += result.doubles
    assert doubles > 0  # the heuristic doubles the random bot: the cube is in the replay too


def test_export_refuses_a_match_from_an_opening(tmp_path: Path) -> None:
    text = spec_text("opened", player("pubeval", bot="pubeval"), player("random", bot="random"), per_pairing=2)
    text = text.replace("chunk_size = 2\n", 'chunk_size = 2\nopenings = ["0HPkATDgc/ABMA"]\n')
    db = run(tmp_path, text)
    with pytest.raises(ExportError, match="starts its games from opening positions"):
        export_match(db, 0, tmp_path / "o.mat")


@requires_gnubg
def test_an_exported_match_with_an_engine_imports_into_gnubg_with_every_action(tmp_path: Path) -> None:
    db = run(tmp_path, spec_text("mat", player("pubeval", command=ENGINE), player("heuristic", bot="heuristic"),
                                 length=5, per_pairing=2))
    path = tmp_path / "m.mat"
    export_match(db, 1, path)
    (answer,) = run_gnubg("import", [{"path": str(path), "format": "mat"}])
    history, _names = match_history(db, 1)
    compared, agree, differences = compare_actions(bgfast_actions(history), gnubg_actions(answer))
    assert compared > 50 and agree == compared, differences
    row = rows_of(db)[2].split(",")
    assert history.record.score == (int(row[5]), int(row[6]))


# ---------------------------------------------------------------- the GNU Backgammon program


def _gnubg_program() -> str | None:
    from bgfast.engines.gnubg_external import find_program
    from bgfast.errors import EngineStartError

    try:
        return find_program()
    except EngineStartError:
        return None


needs_gnubg = pytest.mark.skipif(_gnubg_program() is None,
                                 reason="GNU Backgammon (/usr/games/gnubg, apt-get install gnubg) is not installed")

CUBELESS = 'jacoby = false'


@needs_gnubg
def test_a_tournament_seats_the_gnubg_program_cubeless_and_in_matches_with_the_cube(tmp_path: Path) -> None:
    money = run(tmp_path, spec_text("gnubg-money", player("gnubg", engine="gnubg", options={"ply": 0}, cube="never"),
                                    player("pubeval", bot="pubeval", cube="never"), rules=CUBELESS, per_pairing=6,
                                    chunk=6))
    counts = engine_json(money, "gnubg")
    assert counts["decisions"] > 50 and counts["forfeits"] == counts["illegal_answers"] == counts["restarts"] == 0
    assert all(line.split(",")[14] == "0" for line in rows_of(money)[1:])  # cubeless: no double
    matches = run(tmp_path, spec_text("gnubg-7", player("gnubg", engine="gnubg"), player("heuristic", bot="heuristic"),
                                      length=7, per_pairing=2))
    counts = engine_json(matches, "gnubg")
    assert counts["forfeits"] == counts["illegal_answers"] == counts["timeouts"] == counts["restarts"] == 0
    assert all(max(int(r.split(",")[5]), int(r.split(",")[6])) >= 7 for r in rows_of(matches)[1:])
    export_match(matches, 0, tmp_path / "g.mat")


@needs_gnubg
@pytest.mark.slow
def test_the_gnubg_program_at_0_ply_beats_pubeval_by_more_than_half_a_point_a_game_in_a_tournament(
        tmp_path: Path) -> None:
    db = run(tmp_path, spec_text("gnubg-ppg", player("gnubg", engine="gnubg", options={"ply": 0}, cube="never"),
                                 player("pubeval", bot="pubeval", cube="never"), rules=CUBELESS, per_pairing=2000,
                                 chunk=100), workers=2)
    gnubg = next(p for p in load_standings(db).players if p.name == "gnubg")
    print(f"gnubg 0-ply vs pubeval: {gnubg.stats.ppg:+.3f} ppg ± {gnubg.ppg_se_paired:.3f} over {gnubg.stats.matches}")
    assert gnubg.stats.matches == 2000 and gnubg.stats.ppg > 0.5
    assert gnubg.engine.forfeits == gnubg.engine.illegal_answers == 0
