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
