"""Rollout labels (bgfast.train.rollout_labels) and the positions they come from
(bgfast.sampling): drawn from varied games, rolled out by the net, resumable, and fit by
a refinement beside the net's own labels."""
from __future__ import annotations

import csv
import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_helpers import alive, child_env, children_of

from bgfast.bots import get_bot
from bgfast.bots.neural_weights import read_weights
from bgfast.errors import InvalidSpecError, InvalidWeightsError
from bgfast.position import Position
from bgfast.position_class import PositionClass, classify
from bgfast.rollout import rollout
from bgfast.sampling import TRAINING_PAIRINGS, YARDSTICK_PAIRINGS, odd_variants, sample_positions
from bgfast.train import cli
from bgfast.train.rollout_labels import (
    RolloutLabelConfig, _excluded, block_path, format_sources, label_block, parse_sources, read_labels, read_sources,
    run_labels,
)
from bgfast.train.supervised import NetFit, RefineConfig, _validate, run_refine

SMALL = "race=2,contact=2,crashed=1"


def test_the_sampler_draws_the_shipped_yardstick_s_positions() -> None:
    pytest.importorskip("gnubg_nn")
    shipped = Path(__file__).resolve().parents[1] / "bgfast" / "data" / "yardstick" / "positions.csv"
    with shipped.open(encoding="ascii") as f:
        rows = list(csv.DictReader(f))
    assert sample_positions(450, 1, 200_000, pairings=YARDSTICK_PAIRINGS, say=None) == rows


def test_the_sampler_keeps_quotas_pairings_and_exclusions() -> None:
    quota = {PositionClass.RACE: 2, PositionClass.CONTACT: 3}
    rows = sample_positions(quota, 5, 500, pairings=TRAINING_PAIRINGS, say=None)
    assert sorted(r["class"] for r in rows) == ["contact"] * 3 + ["race"] * 2
    assert all(classify(Position.from_id(r["position_id"])).value == r["class"] for r in rows)
    assert {r["source"].split("/")[0] for r in rows} <= {f"{a}-{b}" for a, b in TRAINING_PAIRINGS}
    again = sample_positions(quota, 5, 500, pairings=TRAINING_PAIRINGS, say=None,
                             exclude={r["position_id"] for r in rows})
    assert not {r["position_id"] for r in again} & {r["position_id"] for r in rows}


@pytest.mark.parametrize("per_class", ["race=x", "nope=3", "race=-1", "", "race=0", "race=2,race=3"])
def test_a_bad_quota_is_refused(per_class: str) -> None:
    with pytest.raises(InvalidSpecError, match="per_class"):
        RolloutLabelConfig(per_class=per_class)


def test_a_block_holds_each_position_s_rollout_and_class(tmp_path: Path) -> None:
    config = RolloutLabelConfig(seed=3, blocks=1, per_class=SMALL, trials=36)
    assert run_labels(config, tmp_path) == 1
    labels, blocks = read_labels(tmp_path)
    assert blocks == 1 and len(labels["boards"]) == 5
    bot = get_bot("neural", ply=0, cube="never")
    classes = list(PositionClass)
    for i, board in enumerate(labels["boards"]):
        pos = Position.from_bytes(board.tobytes())
        result = rollout(pos.id(), trials=36, seed=(1_000_003 * 3 + 0) * 10_000 + i, bot=bot)
        assert np.array_equal(labels["targets"][i], np.float32(result.probabilities))
        assert labels["equity_se"][i] == np.float32(result.equity.se)
        assert classes[labels["classes"][i]] == classify(pos)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["4HPwATDgc/ABMA", "2M7CYEDc9jBAIA", "27YBADjg/wcAQA", "sNvgATDgc/ABMA"]))
def test_odd_variants_pile_one_sides_checkers_onto_its_bar_or_a_tower(seed: int, start: str) -> None:
    rows = odd_variants([start], 4, seed)
    assert rows == odd_variants([start], 4, seed)                      # seeded
    before = Position.from_id(start)
    for row in rows:
        pos = Position.from_id(row["position_id"])
        assert not pos.is_over() and row["class"] == classify(pos).value
        kind = row["source"].split("/")[1]
        changed = [side for side in (0, 1) if pos.board[side] != before.board[side]]
        assert len(changed) == 1                                       # one side moved, the other stands
        side = changed[0]
        assert sum(pos.board[side]) == sum(before.board[side])         # none borne off, none made
        if kind == "bar":
            assert pos.board[side][24] - before.board[side][24] >= 2
        else:
            grown = [p for p in range(24) if pos.board[side][p] > before.board[side][p]]
            assert len(grown) == 1 and 6 <= pos.board[side][grown[0]] <= 15


def test_a_label_run_with_odd_positions_rolls_them_out_after_the_drawn_ones(tmp_path: Path) -> None:
    config = RolloutLabelConfig(seed=3, blocks=1, per_class=SMALL, trials=36, odd=3)
    assert run_labels(config, tmp_path) == 1
    labels, _ = read_labels(tmp_path)
    plain = label_block(dataclasses.replace(config, odd=0), 0)
    assert len(labels["boards"]) == 8 and np.array_equal(labels["boards"][:5], plain["boards"])
    drawn = [Position.from_bytes(b.tobytes()).id() for b in plain["boards"]]
    odd = odd_variants(drawn, 3, 10_000 * 3, exclude=_excluded(config) | set(drawn))
    assert [Position.from_bytes(b.tobytes()).id() for b in labels["boards"][5:]] == [r["position_id"] for r in odd]
    assert np.array_equal(labels["targets"][:5], plain["targets"])     # the drawn ones' trials as before


def test_a_label_run_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    config = RolloutLabelConfig(seed=4, blocks=2, per_class=SMALL, trials=36)
    run_labels(config, tmp_path)
    first = block_path(tmp_path, 1).read_bytes()
    block_path(tmp_path, 1).unlink()
    assert read_labels(tmp_path)[1] == 1                       # the blocks there, in a row from 0
    assert run_labels(config, tmp_path) == 2
    assert block_path(tmp_path, 1).read_bytes() == first
    with pytest.raises(InvalidSpecError, match="trials"):
        run_labels(dataclasses.replace(config, trials=72), tmp_path)
    with pytest.raises(InvalidSpecError, match="not 3"):
        read_labels(tmp_path, 3)
    assert read_labels(tmp_path, 1)[1] == 1
    with pytest.raises(InvalidSpecError, match="no rollout labels"):
        read_labels(tmp_path / "none")


def test_a_refinement_fits_the_rollout_labels_beside_its_own(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    run_labels(RolloutLabelConfig(seed=6, blocks=2, per_class="contact=6,crashed=4,race=4", trials=36), labels)
    start = read_weights()
    # enough steps for Adam to settle: 3 at 0.003 moved the weights by about the learning rate
    # whatever the gradients, which a net already close to such labels does not survive
    config = RefineConfig(games=4, block_games=2, plies=0, epochs=10, lr=0.001, eval_pairs=0, held_out=0.05, threads=1,
                          rollouts=str(labels), self_weight=0.0, rank_weight=0.0)
    refined = run_refine(config, start, tmp_path / "run")
    assert refined.meta["refine"]["rollout_blocks"] == 2          # "every block there" is recorded
    data, _ = read_labels(labels)
    contact = data["classes"] != list(PositionClass).index(PositionClass.RACE)
    boards, targets = data["boards"][contact], data["targets"][contact]
    before = _validate(NetFit.of(start, "contact"), boards, targets)["equity_mae"]
    after = _validate(NetFit.of(refined, "contact"), boards, targets)["equity_mae"]
    assert after < before
    assert refined.meta["refined"]["contact"]["positions"] > len(boards) // 2


def test_the_lookahead_value_term_fits_the_one_ply_equity_to_the_rollouts(tmp_path: Path) -> None:
    from bgfast._core import neural as _neural
    from bgfast.train.supervised import LOOKAHEAD_VALUE, Lookahead, _classes, _equity, lookahead_error

    labels = tmp_path / "labels"
    run_labels(RolloutLabelConfig(seed=8, blocks=1, per_class="contact=16,crashed=8,race=2", trials=36), labels)
    start = read_weights().nets_only()
    with pytest.raises(InvalidSpecError, match="give rollouts"):
        RefineConfig(lookahead_value_weight=10.0)
    config = RefineConfig(games=2, block_games=2, plies=0, epochs=6, lr=0.001, eval_pairs=0, held_out=0.05,
                          threads=1, rollouts=str(labels), self_weight=0.0, rank_weight=0.0, nets="contact,crashed")
    plain = run_refine(config, start, tmp_path / "plain")
    valued = dataclasses.replace(config, lookahead_value_weight=40.0)
    refined = run_refine(valued, start, tmp_path / "run")
    valued = dataclasses.replace(valued, rollout_blocks=1)     # as the run recorded it
    with np.load(tmp_path / "run" / LOOKAHEAD_VALUE) as z:
        rows, replies = z["rows"], z["replies"]
    own = sum(len(np.load(f)["boards"]) for f in (tmp_path / "run").glob("block-*.npz"))
    data, _ = read_labels(labels)
    roots = data["boards"][rows - own]                       # rollout rows follow the blocks' own
    targets = data["targets"][rows - own]
    classes = _classes(roots)
    # each position's replies are its net's, and the races (another net, not fit) are left out
    assert set(classes) == {_neural.NETS.index("contact"), _neural.NETS.index("crashed")}
    assert (_classes(replies.reshape(-1, 50)).reshape(-1, 21) == classes[:, None]).all()
    for net in ("contact", "crashed"):
        k = _neural.NETS.index(net)
        term = Lookahead(replies[classes == k], np.arange((classes == k).sum()),
                         _equity(targets[classes == k]).astype(np.float32), 1.0, absolute=True)
        if net == "contact":                    # the crashed net has too few such positions to measure
            fitted = lookahead_error(NetFit.of(refined, net), term)
            assert fitted < lookahead_error(NetFit.of(plain, net), term)
            assert fitted < lookahead_error(NetFit.of(start, net), term)
        facts = refined.meta["refined"][net]
        assert facts["lookahead_value_positions"] + facts["held_out_lookahead_value"] == (classes == k).sum()
    # killed after its replies were saved: resumed, the same net
    (tmp_path / "run" / "fit.npz").unlink()
    (tmp_path / "run" / "refined.bgw").unlink()
    again = run_refine(valued, None, tmp_path / "run")
    assert all(np.array_equal(again.arrays[k], refined.arrays[k]) for k in refined.arrays)
    # a file of other positions, or damaged, is refused with what to do
    path = tmp_path / "run" / LOOKAHEAD_VALUE
    kept = path.read_bytes()
    other = tmp_path / "other"
    other.mkdir()
    (other / LOOKAHEAD_VALUE).write_bytes(kept)
    with pytest.raises(InvalidSpecError, match="other positions"):
        run_refine(dataclasses.replace(valued, nets="contact"), start, other)
    with np.load(path) as z:
        short = {k: z[k] for k in z.files}
    short.update(rows=short["rows"][:3], replies=short["replies"][:3])
    np.savez(path, **short)
    (tmp_path / "run" / "refined.bgw").unlink()
    with pytest.raises(InvalidSpecError, match="do not match their SHA-256"):
        run_refine(valued, None, tmp_path / "run")


def test_the_command_line_labels_and_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "labels"
    assert cli.main(["labels", str(run), "--blocks", "1", "--per-class", "race=1", "--seed", "2"]) == 0
    assert "1 blocks labelled" in capsys.readouterr().out
    short = tmp_path / "short"
    assert cli.main(["labels", str(short), "--blocks", "1", "--per-class", "back_game=50", "--max-games", "1"]) == 0
    assert "short of its 50" in capsys.readouterr().out
    assert cli.main(["labels", str(run), "--blocks", "2"]) == 0               # the folder's settings, one more block
    assert read_labels(run)[1] == 2
    assert cli.main(["labels", str(run), "--trials", "72"]) == 2
    assert cli.main(["labels", str(tmp_path / "x"), "--per-class", "race=two"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("bgfast: error:") for line in err)


def test_the_self_weights_weigh_each_net_s_own_labels_apart(tmp_path: Path) -> None:
    """``race_self_weight`` changes the race net alone, ``self_weight`` the contact net and
    not the race net (the backgame and crashed nets too when the games reach their classes)."""
    labels = tmp_path / "labels"
    run_labels(RolloutLabelConfig(seed=7, blocks=1, per_class="contact=3,race=3,back_game=2", trials=36), labels)
    # 1-ply own labels: 0-ply ones equal the start's values, and the first step would not feel them
    config = RefineConfig(games=4, block_games=2, plies=1, epochs=1, lr=0.001, eval_pairs=0, threads=1,
                          rollouts=str(labels), self_weight=0.5, race_self_weight=0.5)
    base = run_refine(config, read_weights(), tmp_path / "base")
    for name, changed in (("race_self_weight", ("race.",)), ("self_weight", ("contact.",))):
        run = tmp_path / name
        run.mkdir()
        for block in (tmp_path / "base").glob("block-*.npz"):
            (run / block.name).write_bytes(block.read_bytes())
        other = run_refine(dataclasses.replace(config, **{name: 0.0}), read_weights(), run)
        for key in base.arrays:
            if not key.startswith(("backgame.", "crashed.")):
                assert np.array_equal(base.arrays[key], other.arrays[key]) != key.startswith(changed), (name, key)


def test_the_excluded_sets_must_be_there(tmp_path: Path) -> None:
    config = RolloutLabelConfig(blocks=1, per_class="race=1", exclude=str(tmp_path / "missing.csv"))
    with pytest.raises(InvalidSpecError, match="exclude: cannot read"):
        run_labels(config, tmp_path / "run")
    other = tmp_path / "ids.csv"
    other.write_text("id\nx\n", encoding="utf-8")
    with pytest.raises(InvalidSpecError, match="no position_id column"):
        run_labels(dataclasses.replace(config, exclude=str(other)), tmp_path / "run2")


def test_the_default_decision_set_is_found_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # was "cannot read 'experiments/checker_play/decisions.csv'" outside the checkout's root
    from bgfast.train.rollout_labels import CHECKOUT, DECISION_SET, _excluded

    if not (CHECKOUT / DECISION_SET).exists():      # installed into site-packages, as CI installs it
        pytest.skip("bgfast is installed outside a checkout: it finds the decision set from the checkout's root only")
    at_root = _excluded(RolloutLabelConfig())
    monkeypatch.chdir(tmp_path)
    assert _excluded(RolloutLabelConfig()) == at_root
    assert len(at_root) > len(_excluded(RolloutLabelConfig(exclude="")))


def test_damaged_files_are_one_clear_error_and_a_failed_start_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeightsError):
        run_labels(RolloutLabelConfig(blocks=1, per_class="race=1", weights=str(tmp_path / "none.bgw")),
                   tmp_path / "bad")
    assert not (tmp_path / "bad").exists()                  # the right weights may be given next
    run = tmp_path / "run"
    run_labels(RolloutLabelConfig(seed=8, blocks=1, per_class="race=2"), run)
    good = block_path(run, 0).read_bytes()
    for damage in (good[:300], b"hi", None):
        if damage is None:
            block_path(run, 0).write_bytes(good)
            with np.load(block_path(run, 0)) as z:
                np.savez(block_path(run, 0), boards=z["boards"], targets=z["targets"] * 2,
                         equity_se=z["equity_se"], classes=z["classes"])
        else:
            block_path(run, 0).write_bytes(damage)
        with pytest.raises(InvalidSpecError, match="damaged"):
            read_labels(run)
    (run / "labels.json").write_text("{bad", encoding="utf-8")
    with pytest.raises(InvalidSpecError, match="damaged"):
        read_labels(run)


def test_a_refinement_checks_its_rollout_blocks_before_labelling(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    run_labels(RolloutLabelConfig(seed=9, blocks=1, per_class="race=1"), labels)
    config = RefineConfig(games=2, block_games=1, plies=0, epochs=1, eval_pairs=0, threads=1, rollouts=str(labels),
                          rollout_blocks=3)
    with pytest.raises(InvalidSpecError, match="not 3"):
        run_refine(config, read_weights(), tmp_path / "run")
    assert not list((tmp_path / "run").glob("*"))


@pytest.mark.parametrize(("text", "sources"), [
    ("a", [("a", 0)]),
    ("a:3,b", [("a", 3), ("b", 0)]),
    ("/x/y:z,b:0", [("/x/y:z", 0), ("b", 0)]),
])
def test_rollouts_name_several_folders_with_or_without_counts(text: str, sources: list[tuple[str, int]]) -> None:
    assert parse_sources(text) == sources
    assert parse_sources(format_sources(sources)) == sources


@pytest.mark.parametrize("text", ["a,,b", "a,a:2", "a, ", "a,./a", "a,a/", "a:-1", "a:", "a:2,b:"])
def test_bad_rollouts_are_refused(text: str) -> None:
    with pytest.raises(InvalidSpecError, match="rollouts"):
        parse_sources(text)


def test_rollout_blocks_count_a_single_folder_named_without_a_count() -> None:
    assert parse_sources("a", 3) == [("a", 3)]
    for text in ("a,b", "a:2"):
        with pytest.raises(InvalidSpecError, match="FOLDER:N"):
            parse_sources(text, 1)


def test_a_refinement_records_its_label_folders_whole_and_resumes_from_anywhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_labels(RolloutLabelConfig(seed=10, blocks=1, per_class="contact=2"), tmp_path / "la")
    run_labels(RolloutLabelConfig(seed=11, blocks=1, per_class="crashed=2"), tmp_path / "lb")
    monkeypatch.chdir(tmp_path)
    start = str(Path(__file__).resolve().parents[1] / "bgfast" / "data" / "weights" / "neural.bgw")
    small = ["--games", "2", "--block-games", "1", "--plies", "0", "--epochs", "1", "--eval-pairs", "0",
             "--threads", "1"]
    assert cli.main(["refine", "missing", "--start", start, "--rollouts", "la,nowhere", *small]) == 2
    assert not (tmp_path / "missing").exists()                     # refused before the folder is made
    assert cli.main(["refine", "one", "--start", start, "--rollouts", " la ", *small]) == 0
    assert cli.main(["refine", "two", "--start", start, "--rollouts", "la, lb:1", *small]) == 0
    one = read_weights(tmp_path / "one" / "refined.bgw").meta["refine"]
    two = read_weights(tmp_path / "two" / "refined.bgw").meta["refine"]
    assert (one["rollouts"], one["rollout_blocks"]) == (str(tmp_path / "la"), 1)
    assert (two["rollouts"], two["rollout_blocks"]) == (f"{tmp_path / 'la'}:1,{tmp_path / 'lb'}:1", 0)
    monkeypatch.chdir(tmp_path / "la")                             # elsewhere, by other names
    assert cli.main(["refine", "../one", "--rollouts", "."]) == 0
    assert cli.main(["refine", "../one", "--rollouts", ".:1"]) == 0
    assert cli.main(["refine", "../two", "--rollouts", "../la,../lb"]) == 0
    assert cli.main(["refine", "../two"]) == 0
    assert cli.main(["refine", "../two", "--rollouts", "../lb,../la"]) == 2


def test_a_refinement_reads_several_label_folders_and_records_their_blocks(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    run_labels(RolloutLabelConfig(seed=10, blocks=2, per_class="contact=2"), first)
    run_labels(RolloutLabelConfig(seed=11, blocks=1, per_class="crashed=2"), second)
    both, counted = read_sources(parse_sources(f"{first}:1,{second}"))
    one = read_labels(first, 1)[0]
    assert counted == [(str(first), 1), (str(second), 1)]
    assert np.array_equal(both["boards"], np.concatenate([one["boards"], read_labels(second)[0]["boards"]]))
    with pytest.raises(InvalidSpecError, match="FOLDER:N"):
        RefineConfig(rollouts=f"{first},{second}", rollout_blocks=1)
    config = RefineConfig(games=2, block_games=1, plies=0, epochs=1, eval_pairs=0, threads=1,
                          rollouts=f"{first}:1,{second}")
    refined = run_refine(config, read_weights(), tmp_path / "run")
    assert refined.meta["refine"]["rollouts"] == f"{first}:1,{second}:1"
    log = (tmp_path / "run" / "log.txt").read_text(encoding="utf-8")
    assert "4 rollout-labelled positions" in log
    assert "nan" not in log                          # a net with no held-out positions: "no figures"
    # a resume may name the folders as the new run did: the counts are the recorded ones
    assert cli.main(["refine", str(tmp_path / "run"), "--rollouts", f"{first}:1,{second}"]) == 0
    assert cli.main(["refine", str(tmp_path / "run"), "--rollouts", f"{first},{second}"]) == 0
    assert cli.main(["refine", str(tmp_path / "run"), "--rollouts", f"{first}:2,{second}"]) == 2


def _label_run(run: Path, seed: int, blocks: int, until: Callable[[int], bool],
               stop: Callable[[int], None]) -> tuple[subprocess.Popen[str], str, list[int]]:
    """A two-worker ``bgfast train labels`` run in a process group of its own, stopped by
    ``stop(pid)`` once ``until(pid)``: the process, its stderr and its workers then."""
    args = [sys.executable, "-m", "bgfast", "train", "labels", str(run), "--workers", "2", "--blocks", str(blocks),
            "--per-class", "contact=20", "--seed", str(seed), "--exclude", ""]
    proc = subprocess.Popen(args, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=run.parent)
    try:
        deadline = time.monotonic() + 60
        while not until(proc.pid) and proc.poll() is None:
            assert time.monotonic() < deadline, "the run did not get there in 60 s"
            time.sleep(0.05)
        workers = children_of(proc.pid)
        stop(proc.pid)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc, err, workers


@pytest.mark.skipif(sys.platform != "linux", reason="reads worker processes from /proc")
def test_ctrl_c_stops_a_label_run_with_one_line_and_a_rerun_finishes_it(tmp_path: Path) -> None:
    run = tmp_path / "labels"
    proc, err, workers = _label_run(
        run, 12, 8, lambda pid: block_path(run, 0).exists() or block_path(run, 1).exists(),
        lambda pid: os.killpg(pid, signal.SIGINT))    # as Ctrl-C in a terminal: the whole process group
    if proc.returncode == 0:                          # it finished before the signal came: nothing to see
        pytest.skip("the run ended before Ctrl-C")
    assert proc.returncode == 130, err
    assert err.startswith("bgfast: interrupted; the run folder keeps its labelled blocks") and err.count("\n") == 1
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)
    kept = [b for b in range(8) if block_path(run, b).exists()]
    assert 0 < len(kept) < 8                          # a block is there whole or not at all (read below)
    assert cli.main(["labels", str(run)]) == 0        # the rerun labels the rest, with the folder's settings
    assert read_labels(run)[1] == 8


@pytest.mark.skipif(sys.platform != "linux", reason="reads worker processes from /proc")
def test_a_label_worker_killed_is_one_line_and_a_rerun_finishes(tmp_path: Path) -> None:
    run = tmp_path / "labels"
    proc, err, _ = _label_run(
        run, 14, 6, lambda pid: len(children_of(pid)) >= 2,
        lambda pid: (time.sleep(0.5), os.kill(children_of(pid)[0], signal.SIGKILL)))  # out of memory, or kill -9
    assert proc.returncode == 1, err
    assert err.startswith("bgfast: error: a label worker died while labelling block(s)") and err.count("\n") == 1
    assert cli.main(["labels", str(run)]) == 0
    assert read_labels(run)[1] == 6
