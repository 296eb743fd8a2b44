"""Helpers shared by the tournament tests: small specs, CSV dumps, running the CLI in a child process."""
from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bgfast
from bgfast.tournament import TournamentSpec, write_matches_csv

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
name = "{name}"
seed = {seed}
match_length = {length}
matches_per_pairing = {per_pairing}
chunk_size = {chunk}

[[players]]
name = "pubeval"
bot = "pubeval"

[[players]]
name = "random"
bot = "random"

[[players]]
name = "cubeless"
bot = "pubeval"
cube = "never"
"""


def small_spec_text(name: str = "small", *, seed: int = 1, length: int = 3, per_pairing: int = 40,
                    chunk: int = 10) -> str:
    return SMALL.format(name=name, seed=seed, length=length, per_pairing=per_pairing, chunk=chunk)


def small_spec(**kwargs: object) -> TournamentSpec:
    return TournamentSpec.from_toml_string(small_spec_text(**kwargs))  # type: ignore[arg-type]


def csv_of(db: Path) -> str:
    out = io.StringIO()
    write_matches_csv(db, out)
    return out.getvalue()


def heuristic_available() -> bool:
    from bgfast.bots import get_bot

    try:
        get_bot("heuristic")
    except Exception:  # noqa: BLE001
        return False
    return True


needs_heuristic = pytest.mark.skipif(not heuristic_available(), reason="the heuristic bot is not built")
"""Marks a test that plays the heuristic bot (the shipped specs and the README's quick tournament)."""


def child_env() -> dict[str, str]:
    """The environment of a child ``python -m bgfast``: it imports the same bgfast as this process."""
    env = dict(os.environ)
    package_root = str(Path(bgfast.__file__).resolve().parents[1])
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def start_cli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bgfast", *args], cwd=cwd, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def chunks_done(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def wait_for_chunks(db: Path, n: int, proc: subprocess.Popen[str], timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = chunks_done(db)
        if done >= n or proc.poll() is not None:
            return done
        time.sleep(0.02)
    raise AssertionError(f"no {n} chunks in {db} after {timeout} s")


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():  # a zombie is dead for our purposes
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return True


def check_db_consistent(db: Path) -> tuple[int, int]:
    """Integrity check; every match belongs to a finished chunk and every finished chunk is whole."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        matches = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        chunked = conn.execute("SELECT COALESCE(SUM(matches), 0) FROM chunks").fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM matches m LEFT JOIN chunks c ON c.run = m.run AND c.chunk = m.chunk "
            "WHERE c.chunk IS NULL").fetchone()[0]
        assert matches == chunked and orphans == 0
        n_chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    return matches, n_chunks
