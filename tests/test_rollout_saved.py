"""A rollout saved and extended on the same dice streams (bgfast/rollout/saved.py)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from bgfast.cli import main
from bgfast.errors import InvalidRolloutError
from bgfast.rollout import RolloutResult, rollout
from bgfast.rollout.saved import extend_rollout, read_saved, save_rollout

OPENING = "4HPwATDgc/ABMA"


def _same(a: RolloutResult, b: RolloutResult) -> bool:
    def bare(r: RolloutResult) -> RolloutResult:
        return dataclasses.replace(r, seconds=0.0, plays=tuple(dataclasses.replace(
            p, result=dataclasses.replace(p.result, seconds=0.0)) for p in r.plays))
    return bare(a) == bare(b)


@pytest.mark.parametrize("options", [
    {"cubeful": True},
    {"dice": "31", "plays": ["8/5 6/5", "24/21 6/5", "8/7 8/5"], "prune_se": 2.0},
    {"cube": True},
])
def test_an_extended_rollout_equals_one_run_of_all_its_trials_bit_for_bit(tmp_path: Path,
                                                                          options: dict[str, object]) -> None:
    path = tmp_path / "r.npz"
    first = save_rollout(path, OPENING, trials=324, seed=7, bot="heuristic", **options)
    assert first.trials in (324, 324 if "plays" not in options else first.trials)
    extended = extend_rollout(path, 648)
    once = rollout(OPENING, trials=648, seed=7, bot="heuristic", **options)
    assert _same(extended, once)
    _, data, strata = read_saved(path)            # the file now holds all 648
    assert data.shape[1] == 648 and strata == 36


def test_the_save_file_is_an_npz_of_the_trials_and_the_arguments(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(str(npz["request"][()]))
        assert npz["trials"].shape == (1, 72, 6)
    assert meta["format"] == "bgfast-rollout-2" and meta["bot"].startswith("heuristic") and meta["strata"] == 36


def test_extending_to_another_stratification_or_fewer_trials_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    with pytest.raises(InvalidRolloutError, match=r"^the saved rollout stratifies only its first roll, over the 36 "
                       r"rolls: extend it to a number of trials that is not a multiple of 1,296, e.g. 1,332 "
                       r"\(not 1,296\)$"):
        extend_rollout(path, 1296)
    with pytest.raises(InvalidRolloutError, match="has 72 trials already: extend it to more than that"):
        extend_rollout(path, 72)


def test_a_malformed_save_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InvalidRolloutError, match="is not a bgfast rollout save file"):
        extend_rollout(bad, 100)
    other = tmp_path / "other.npz"
    np.savez(other, trials=np.zeros((1, 3, 6)), request=np.array(json.dumps({"format": "x"})))
    with pytest.raises(InvalidRolloutError, match="of format 'bgfast-rollout-2'"):
        extend_rollout(other, 100)
    with pytest.raises(InvalidRolloutError, match="cannot read the rollout save file"):
        extend_rollout(tmp_path / "missing.npz", 100)


def test_cli_save_and_extend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "r.npz")
    assert main(["rollout", OPENING, "--bot", "heuristic", "--trials", "72", "--save", path, "--json"]) == 0
    capsys.readouterr()
    assert main(["rollout", "--extend", path, "--trials", "144", "--json"]) == 0
    extended = json.loads(capsys.readouterr().out)
    assert main(["rollout", OPENING, "--bot", "heuristic", "--trials", "144", "--json"]) == 0
    once = json.loads(capsys.readouterr().out)
    extended.pop("seconds"), once.pop("seconds")
    assert extended == once


@pytest.mark.parametrize(("argv", "message"), [
    (["rollout", "--extend", "{bad}", "--trials", "100"], "is not a bgfast rollout save file"),
    (["rollout", "--trials", "100"], "give a POSITION_ID to roll out, or --extend FILE"),
    (["rollout", OPENING, "--save", "/nonexistent-folder/r.npz"], "--save '/nonexistent-folder/r.npz': no folder"),
])
def test_cli_bad_save_files_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    argv: list[str], message: str) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    assert main([a.replace("{bad}", str(bad)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgfast: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(("options", "named"), [
    (["--cubeful"], "--cubeful"), (["--bot", "neural"], "--bot"), (["--bot", "pubeval"], "--bot"),
    (["--seed", "0"], "--seed"), (["--seed", "3"], "--seed"), (["--no-luck"], "--no-luck"),
    (["--truncate", "5"], "--truncate"), (["--dice", "31"], "--dice"), (["--cube"], "--cube"),
    (["--plays"], "--plays"), (["--play", "8/5 6/5"], "--play"), (["--variant", "standard"], "--variant"),
    (["--no-variance-reduction"], "--no-variance-reduction"),
    (["--cubeful", "--seed", "2"], "--seed and --cubeful"),
])
def test_cli_extend_refuses_each_option_the_save_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        options: list[str], named: str) -> None:
    # they were ignored: exit 0, the saved bot's rollout, no cubeful equity
    path = str(tmp_path / "r.npz")
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    before = Path(path).read_bytes()
    assert main(["rollout", "--extend", path, "--trials", "144", *options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"bgfast: error: --extend continues the saved rollout as it was: {named} cannot be "
                          "given with it (only --trials, --target-se, --workers, --save and --json can")
    assert Path(path).read_bytes() == before


def test_cli_extend_takes_target_se_workers_save_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, other = str(tmp_path / "r.npz"), str(tmp_path / "more.npz")
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    assert main(["rollout", "--extend", path, "--trials", "144", "--workers", "2", "--target-se", "0.5",
                 "--save", other, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["trials"] == 144 and result["target_se"] == 0.5
    assert read_saved(path)[1].shape[1] == 72 and read_saved(other)[1].shape[1] == 144


def test_extending_a_rollout_of_1296_pairs_asks_for_a_multiple_of_1296_in_words(tmp_path: Path) -> None:
    # was "stratified over 1296 (first rolls), 3,000 trials would be over 36: extend it to a multiple of 1296 ..."
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=1296, seed=1, bot="random", luck=False)
    with pytest.raises(InvalidRolloutError, match=r"^the saved rollout stratifies its first two rolls over 1,296 "
                       r"pairs: extend it to a multiple of 1,296 trials, e.g. 3,888 \(not 3,000\)$"):
        extend_rollout(path, 3000)


def test_extending_a_plainly_sampled_rollout_past_71_trials_says_so(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=40, seed=1, bot="random", luck=False)
    with pytest.raises(InvalidRolloutError, match=r"^the saved rollout's 40 trials sample the first rolls plainly "
                       r"\(fewer than 72\): extend it to at most 71 trials \(not 100\), or roll the position out "
                       "again$"):
        extend_rollout(path, 100)
