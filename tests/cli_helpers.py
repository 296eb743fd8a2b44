"""Helpers shared by the CLI tests: run ``bgfast`` in-process and compare snapshots.

Snapshots live in tests/snapshots/cli/; ``UPDATE_SNAPSHOTS=1`` rewrites them.
Imported as ``from cli_helpers import ...`` (tests/ is on sys.path).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from bgfast.cli import main

SNAPSHOTS = Path(__file__).parent / "snapshots" / "cli"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``bgfast ARGV...`` in-process: (exit status, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_snapshot(name: str, text: str) -> None:
    """``text`` equals the stored snapshot ``name`` (or becomes it with UPDATE_SNAPSHOTS=1)."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no snapshot {path}; run with UPDATE_SNAPSHOTS=1 to write it"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse wraps help to the terminal width: snapshots are taken at 80 columns, no colour."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


def on_terminal(argv: list[str], *, columns: int, cwd: Path, timeout: float = 120.0) -> tuple[int, str, str]:
    """``bgfast ARGV...`` in a child process whose stderr is a terminal (a pseudo-terminal)
    reporting ``columns`` columns: (exit status, stdout, what the terminal shows)."""
    import fcntl
    import pty
    import select
    import struct
    import subprocess
    import sys
    import termios

    from tournament_helpers import child_env

    env = {k: v for k, v in child_env().items() if k not in ("COLUMNS", "LINES")}
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 0, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "bgfast", *argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    shown = b""
    try:
        while select.select([master], [], [], timeout)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            shown += data
        out = proc.communicate(timeout=timeout)[0]
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out.decode(), shown.decode()
