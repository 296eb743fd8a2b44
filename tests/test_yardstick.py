"""The equity yardstick (``bgfast.yardstick``, ``bgfast bench yardstick``): its error
arithmetic, its file checks, the command's JSON, and the shipped file's classes.

``tests/data/yardstick_small.csv`` is the first 12 rows of the shipped rollouts file (two
positions of each class)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bgfast.errors import InvalidYardstickError, UnknownBotError
from bgfast.position import Position
from bgfast.position_class import PositionClass, classify
from bgfast.yardstick import Row, class_errors, equities, load, measure, paired_difference, report, shipped_file
from cli_helpers import run

SMALL = Path(__file__).parent / "data" / "yardstick_small.csv"


def test_class_errors_are_mean_absolute_errors_in_millipoints_with_their_standard_errors() -> None:
    rows = [Row("4HPwATDgc/ABMA", "contact", 0.10, 0.01), Row("4HPwATDgc/ABMA", "contact", -0.20, 0.02),
            Row("4HPwATDgc/ABMA", "contact", 0.30, 0.02), Row("4HPwATDgc/ABMA", "race", 0.5, 0.0)]
    stats = class_errors(rows, [0.13, -0.25, 0.30, 0.4])
    contact = stats["contact"]
    errors = np.array([0.03, -0.05, 0.0])
    assert contact.positions == 3
    assert contact.mae == pytest.approx(1000 * np.abs(errors).mean())
    assert contact.mae_se == pytest.approx(1000 * np.abs(errors).std(ddof=1) / math.sqrt(3))
    assert contact.rollout_se == pytest.approx(1000 * math.sqrt((0.01 ** 2 + 0.02 ** 2 * 2) / 3))
    assert contact.rms_excess == pytest.approx(1000 * math.sqrt(np.mean(errors ** 2) - (0.0001 + 0.0008) / 3))
    assert stats["race"].mae == pytest.approx(100.0) and math.isnan(stats["race"].mae_se)
    assert stats["all"].positions == 4 and list(stats) == ["race", "contact", "all"]


def test_noise_larger_than_the_errors_leaves_no_excess() -> None:
    stats = class_errors([Row("4HPwATDgc/ABMA", "contact", 0.0, 0.05)] * 2, [0.01, -0.01])
    assert stats["contact"].rms_excess == 0.0


def test_one_estimate_per_position() -> None:
    with pytest.raises(ValueError, match="1 estimates for 2 positions"):
        class_errors([Row("4HPwATDgc/ABMA", "contact", 0.0, 0.0)] * 2, [0.0])


def test_load_reads_a_partial_file_and_refuses_bad_rows(tmp_path: Path) -> None:
    rows = load(SMALL)
    assert len(rows) == 12 and {r.cls for r in rows} == {c.value for c in PositionClass}
    text = SMALL.read_text()
    for bad, message in [(text.replace(",race,", ",races,", 1), "unknown class 'races'"),
                         (text.replace("-0.782751", "x", 1), "line 2"),
                         (text.replace("equity_se", "se"), "no column 'equity_se'"),
                         (text.replace("71sDAIBtvRMAAA", "71sDAIBtvRMAA!"), "line 2")]:
        path = tmp_path / "bad.csv"
        path.write_text(bad)
        with pytest.raises(InvalidYardstickError, match=message):
            load(path)
    with pytest.raises(InvalidYardstickError, match="cannot read yardstick file"):
        load(tmp_path / "missing.csv")


def test_equities_are_the_side_on_roll_cubeless_equity() -> None:
    rows = load(SMALL)
    neural = equities(rows, "neural", 0)
    assert all(-3 <= e <= 3 for e in neural)
    race = next(i for i, r in enumerate(rows) if r.cls == "race")
    assert abs(neural[race] - rows[race].equity) < 0.1          # a race the net knows well


def test_gnubg_nn_is_measured_through_its_package() -> None:
    pytest.importorskip("gnubg_nn")
    rows = load(SMALL)
    gnubg = equities(rows, "gnubg-nn", 0)
    race = next(i for i, r in enumerate(rows) if r.cls == "race")
    assert abs(gnubg[race] - rows[race].equity) < 0.1
    with pytest.raises(InvalidYardstickError, match="0, 1 or 2 plies"):
        equities(rows, "gnubg-nn", 3)


def test_evaluators_that_cannot_be_measured_are_refused() -> None:
    rows = load(SMALL)
    with pytest.raises(InvalidYardstickError, match="no probabilities"):
        equities(rows, "pubeval", 0)
    with pytest.raises(InvalidYardstickError, match="0 or 1 ply"):
        equities(rows, "heuristic", 2)
    with pytest.raises(UnknownBotError):
        equities(rows, "no-such-bot", 0)


def test_measure_gives_each_evaluator_and_ply_per_class(tmp_path: Path) -> None:
    result = measure(["heuristic"], [0, 1], path=SMALL, positions=6)
    assert result["positions"] == 6 and sum(result["positions_per_class"].values()) == 6
    assert [(r["evaluator"], r["ply"]) for r in result["results"]] == [("heuristic", 0), ("heuristic", 1)]
    assert set(result["results"][0]["classes"]) == set(result["positions_per_class"]) | {"all"}
    assert "heuristic 1-ply" in report(result)
    empty = tmp_path / "empty.csv"
    empty.write_text(SMALL.read_text().splitlines()[0] + "\n")
    with pytest.raises(InvalidYardstickError, match="no positions yet"):
        measure(["heuristic"], [0], path=empty)


def test_bench_yardstick_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "yardstick", "--file", str(SMALL), "--evaluator", "heuristic",
                         "--evaluator", "neural", "--ply", "0", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["positions"] == 12
    first = result["results"][0]
    assert (first["evaluator"], first["ply"]) == ("heuristic", 0)
    assert set(first["classes"]["all"]) == {"positions", "mae", "mae_se", "rollout_se", "rms_excess"}
    [comparison] = result["comparisons"]
    assert (comparison["evaluator"], comparison["other"], comparison["ply"]) == ("heuristic", "neural", 0)
    by_name = {r["evaluator"]: r["classes"]["all"]["mae"] for r in result["results"]}
    assert comparison["classes"]["all"]["difference"] == pytest.approx(by_name["heuristic"] - by_name["neural"])


def test_paired_difference_is_the_mean_gap_of_absolute_errors() -> None:
    rows = [Row("4HPwATDgc/ABMA", "contact", 0.0, 0.01)] * 3
    gaps = paired_difference(rows, [0.03, -0.02, 0.01], [0.01, 0.0, -0.04])
    assert gaps["contact"]["difference"] == pytest.approx(1000 * (0.02 + 0.02 - 0.03) / 3)
    assert gaps["contact"]["se"] == pytest.approx(1000 * np.std([0.02, 0.02, -0.03], ddof=1) / math.sqrt(3))
    assert gaps["all"]["positions"] == 3


def test_bench_yardstick_refuses_a_bad_evaluator_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "yardstick", "--file", str(SMALL), "--evaluator", "pubeval")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no probabilities" in err


def test_the_shipped_rows_are_in_the_classes_their_positions_are_in() -> None:
    rows = load()
    assert str(shipped_file()).endswith("rollouts.csv") and len(rows) >= 12
    assert all(classify(Position.from_id(r.position_id)).value == r.cls for r in rows)
    assert len({r.position_id for r in rows}) == len(rows)
