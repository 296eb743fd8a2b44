"""tools/build_yardstick.py: the positions are drawn from other bots' games, class by class
in turn, no position twice; the rollout step appends and resumes."""
from __future__ import annotations

import csv
import importlib.util
from pathlib import Path
from types import ModuleType

from bgfast.position import Position
from bgfast.position_class import PositionClass, classify
from bgfast.yardstick import load


def _tool() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "tools" / "build_yardstick.py"
    spec = importlib.util.spec_from_file_location("build_yardstick", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_positions_fill_every_class_in_turn_from_other_bots_games() -> None:
    rows = _tool().sample_positions(3, seed=2, max_games=2000, say=None)
    classes = [c.value for c in PositionClass]
    assert [r["class"] for r in rows] == classes * 3
    assert len({r["position_id"] for r in rows}) == len(rows)
    assert all(classify(Position.from_id(r["position_id"])).value == r["class"] for r in rows)
    assert not any("neural" in r["source"] for r in rows)


def test_the_rollout_step_appends_and_resumes(tmp_path: Path) -> None:
    tool = _tool()
    positions, out = tmp_path / "positions.csv", tmp_path / "rollouts.csv"
    tool.main(["positions", str(positions), "--per-class", "1", "--seed", "3"])
    tool.main(["rollout", str(positions), str(out), "--trials", "72", "--limit", "2", "--checkpoint", "1"])
    first = out.read_text()
    assert len(load(out)) == 2
    tool.main(["rollout", str(positions), str(out), "--trials", "72", "--limit", "1"])
    assert out.read_text().startswith(first)
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["seed"]) for r in rows] == [1, 2, 3] and {r["trials"] for r in rows} == {"72"}
    assert [r["position_id"] for r in rows] == [r["position_id"] for r in csv.DictReader(positions.open())][:3]
