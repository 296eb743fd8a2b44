"""The neural net's commands: ``bgfast bench neural`` and ``bgfast train``."""
from __future__ import annotations

import json

import pytest

from cli_helpers import assert_snapshot, fixed_terminal, run  # noqa: F401


def test_bench_neural_json_has_the_figures_of_the_issue(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "neural", "--json", "--positions", "300", "--games", "8", "--repeat", "1")
    assert (code, err) == (0, "")
    data = json.loads(out)
    for key in ("evals_per_s", "decisions_per_s", "games_per_s", "train_games_per_s", "plies_per_game"):
        assert data[key] > 0, key
    pytest.importorskip("gnubg_nn")
    for key in ("gnubg_nn_evals_per_s", "gnubg_nn_decisions_per_s", "gnubg_nn_games_per_s", "evals_ratio"):
        assert data[key] > 0, key


def test_bench_neural_text_without_peers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "neural", "--positions", "200", "--games", "4", "--repeat", "1", "--no-peers")
    assert code == 0
    assert "evaluations/s" in out and "decisions/s" in out and "gnubg_nn" not in out.split("\n")[0]


def test_bench_neural_refuses_bad_counts_and_files(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    code, _, err = run(capsys, "bench", "neural", "--positions", "0")
    assert code == 2 and err.startswith("bgfast: error:") and err.count("\n") == 1
    bad = tmp_path / "bad.bgw"
    bad.write_bytes(b"not a net")
    code, _, err = run(capsys, "bench", "neural", "--weights", str(bad))
    assert code == 2 and "bad.bgw" in err and err.count("\n") == 1


def test_bench_neural_help_matches_its_snapshot(capsys: pytest.CaptureFixture[str], fixed_terminal: None) -> None:
    code, out, _ = run(capsys, "bench", "neural", "--help")
    assert code == 0
    assert_snapshot("help_bench_neural.txt", out)


def test_bgfast_train_runs_the_training_command_line(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    run_dir = tmp_path / "run"
    code, out, err = run(capsys, "train", "td", str(run_dir), "--games", "20", "--contact-hidden", "8",
                         "--race-hidden", "8", "--chunk", "10", "--eval-every", "20", "--eval-pairs", "4")
    assert (code, err) == (0, "") and (run_dir / "checkpoint.bgw").exists()
    code, out, _ = run(capsys, "train", "curve", str(run_dir), "--json")
    assert code == 0 and json.loads(out)[-1]["games"] == 20
    code, _, err = run(capsys, "train", "snapshot", str(tmp_path / "none"), str(tmp_path / "x.bgw"))
    assert code == 2 and "none is not a run folder of 'bgfast train td'" in err and err.count("\n") == 1
    code, _, err = run(capsys, "train", "snapshot", str(run_dir), str(tmp_path / "x.bgw"), "--which", "average")
    assert code == 2 and "has no average.bgw yet (a run keeps a moving average only with --average-games N)" in err
    code, _, err = run(capsys, "train", "curve", str(tmp_path / "none"))
    assert code == 2 and "is not a run folder of 'bgfast train td'" in err
    code, _, err = run(capsys, "train", "snapshot", str(run_dir), str(tmp_path / "no" / "x.bgw"), "--which",
                       "checkpoint")
    assert code == 2 and err.startswith("bgfast: error: cannot write ") and err.count("\n") == 1
    code, _, err = run(capsys, "train", "td", str(run_dir), "--lr", "0.5")
    assert code == 2 and "(--lr: 0.03 -> 0.5): they cannot change on resume (only --games, --average-games may)" in err
    code, _, err = run(capsys, "train", "bench", "--positions", "0")
    assert code == 2 and "must be at least 1" in err
    code, _, err = run(capsys, "train", "td", str(tmp_path / "zero"), "--eval-pairs", "0")
    assert code == 2 and err.startswith("bgfast: error: --eval-pairs must be")
    code, out, _ = run(capsys, "train", "--help")
    assert code == 0 and out.startswith("usage: bgfast train")
    code, out, _ = run(capsys, "train", "td", "--help")
    assert code == 0 and "TD's lambda (0 = one-step TD" in out and "(default 0.7)" in out
    code, out, _ = run(capsys, "train", "refine", "--help")
    assert code == 0 and "the teacher's look-ahead" in out and ":data:" not in out
    code, _, err = run(capsys, "train", "frobnicate")
    assert code == 2 and "invalid choice" in err


def test_bgfast_train_refine_labels_candidates_through_the_dispatch_and_resumes(
        capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    import numpy as np

    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
    from bgfast.bots.neural_weights import Weights, read_weights, write_weights
    from bgfast.train import TrainConfig, initial_weights
    from bgfast.train.supervised import label_positions

    start = tmp_path / "start.bgw"
    write_weights(start, initial_weights(TrainConfig(contact_hidden=8, race_hidden=8)))
    args = ["train", "refine", str(tmp_path / "refine"), "--start", str(start), "--games", "8", "--block-games", "4",
            "--epochs", "2", "--eval-pairs", "4", "--threads", "2"]
    code, out, err = run(capsys, *args)
    assert (code, err) == (0, "") and "block 2/2" in out and "contact epoch 2/2" in out and "refined:" in out
    model = read_weights(start).model()
    with np.load(tmp_path / "refine" / "block-0000.npz") as data:
        boards, targets = data["boards"], data["targets"]
    assert len(boards) > 10
    evaluator = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL)
    assert np.array_equal(targets, label_positions(model, boards, threads=1))
    assert tuple(targets[0]) == pytest.approx(evaluator.on_roll(boards[0].tobytes(), 1), abs=1e-7)
    first = (tmp_path / "refine" / "refined.bgw").read_bytes()
    (tmp_path / "first.bgw").write_bytes(first)
    refined = read_weights(tmp_path / "refine" / "refined.bgw").meta
    assert refined["pairs"] == 4 and -3 <= refined["ppg_vs_pubeval"] <= 3 and refined["refine"]["games"] == 8
    # a finished run resumes to the same net; another config on the same folder is refused
    code, out, _ = run(capsys, *args)
    assert code == 0 and "block 1/2" not in out and (tmp_path / "refine" / "refined.bgw").read_bytes() == first
    code, _, err = run(capsys, *args[:-2], "--threads", "1", "--plies", "2")
    assert code == 2 and "other settings (--plies: 1 -> 2)" in err
    code, out, _ = run(capsys, *args[:-2], "--threads", "1")       # threads do not change the net
    again = read_weights(tmp_path / "refine" / "refined.bgw")
    assert code == 0 and "resuming: 2 of 2 blocks labelled" in out and "wrote " in out
    before = read_weights(tmp_path / "first.bgw")
    assert all(np.array_equal(again.arrays[k], before.arrays[k]) for k in before.arrays)
    # the folder alone resumes it: the flags left out take the folder's settings
    code, out, err = run(capsys, "train", "refine", str(tmp_path / "refine"))
    assert (code, err) == (0, "") and "resuming: 2 of 2 blocks labelled" in out
    # a folder of a bgfast before the race net had its own ranking weight (both nets at
    # --rank-weight) resumes with its own command, which does not name the new flag
    old = tmp_path / "old"
    old.mkdir()
    for name in ("block-0000.npz", "block-0001.npz"):
        (old / name).write_bytes((tmp_path / "refine" / name).read_bytes())
    saved = read_weights(tmp_path / "refine" / "start.bgw")
    settings = {k: v for k, v in saved.meta["refine"].items() if k != "race_rank_weight"}
    write_weights(old / "start.bgw", Weights(saved.arrays, {**saved.meta, "refine": settings}))
    code, out, err = run(capsys, *args[:2], str(old), *args[3:])
    assert (code, err) == (0, "") and "resuming: 2 of 2 blocks labelled" in out
    assert read_weights(old / "refined.bgw").meta["refine"]["race_rank_weight"] == 40.0
    code, _, err = run(capsys, *args[:2], str(old), *args[3:], "--race-rank-weight", "0")
    assert code == 2 and "other settings (--race-rank-weight: 40.0 -> 0.0)" in err


