"""How bgfast starts: the ``bgfast`` command's launcher (a Ctrl-C while bgfast loads) and
``import bgfast`` from a copy whose compiled core is not built (a clone's root)."""
from __future__ import annotations

import importlib.abc
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import _bgfast_launcher
import bgfast

PACKAGE = Path(bgfast.__file__).parent


class _InterruptedImport(importlib.abc.MetaPathFinder):
    """Ctrl-C pressed while ``bgfast.cli`` is being imported."""

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == "bgfast.cli":
            raise KeyboardInterrupt
        return None


def test_a_ctrl_c_while_bgfast_loads_ends_the_command_quietly_with_status_130(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delitem(sys.modules, "bgfast.cli", raising=False)
    monkeypatch.delattr(bgfast, "cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport(), *sys.meta_path])
    assert _bgfast_launcher.main() == 130
    assert capsys.readouterr().err == "bgfast: interrupted\n"


def test_the_launcher_runs_the_command_line(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["bgfast", "--version"])
    assert _bgfast_launcher.main() == 0
    assert capsys.readouterr().out == f"bgfast {bgfast.__version__}\n"


def test_an_uncompiled_copy_of_bgfast_says_what_to_do(tmp_path: Path) -> None:
    # a clone's root: its bgfast/ source folder, without the built core, comes first on sys.path
    shutil.copytree(PACKAGE, tmp_path / "bgfast",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.c", "*.html"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}  # conftest keeps cwd off sys.path
    done = subprocess.run([sys.executable, "-m", "bgfast", "--version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: bgfast's compiled core is not built in ")
    assert last.endswith("run from another folder, or build the core in place here with: pip install -e .")
