"""A rollout saved and extended on the same dice streams (bgfast/rollout/saved.py)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bgfast.cli import main
from bgfast.errors import InvalidRolloutError, OutputFileError, RolloutSaveError
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
    assert meta["format"] == "bgfast-rollout-3" and meta["bot"].startswith("heuristic") and meta["strata"] == 36


def test_extending_to_another_stratification_or_fewer_trials_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    with pytest.raises(InvalidRolloutError, match=r"^the saved rollout stratifies only its first roll, over the 36 "
                       r"rolls: extend it to a number of trials that is not a multiple of 1,296, e.g. 1,332 "
                       r"\(not 1,296\)$"):
        extend_rollout(path, 1296)
    with pytest.raises(InvalidRolloutError, match="has 72 trials already: extend it to more than that"):
        extend_rollout(path, 36)


@pytest.mark.parametrize("options", [
    {},
    {"dice": "31", "plays": True, "prune_se": 0.5, "luck": False, "bot": "random", "trials": 972},  # drops again
    {"cube": True},
])
def test_extending_to_the_trials_saved_plays_none_and_gives_the_saved_result(tmp_path: Path,
                                                                             options: dict[str, object]) -> None:
    path = tmp_path / "r.npz"
    first = save_rollout(path, OPENING, seed=3, **{"bot": "heuristic", "trials": 324, **options})
    again = extend_rollout(path, first.trials)
    assert _same(again, first) and again.trials in (324, 972)
    if "plays" in options:
        assert any(p.dropped_after for p in first.plays)    # the case it is there for: some plays dropped


def test_a_malformed_save_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InvalidRolloutError, match=r"is not a bgfast rollout save file \(it is not a NumPy archive\)$"):
        extend_rollout(bad, 100)
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(InvalidRolloutError, match=r"is not a bgfast rollout save file \(it is empty\)$"):
        extend_rollout(empty, 100)
    other = tmp_path / "other.npz"
    np.savez(other, trials=np.zeros((1, 3, 6)), request=np.array(json.dumps({"format": "x"})))
    with pytest.raises(InvalidRolloutError, match="of format 'bgfast-rollout-3'"):
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
    assert main(["rollout", "--extend", path, "--json"]) == 0     # no --trials: the saved result again
    shown = json.loads(capsys.readouterr().out)
    shown.pop("seconds")
    assert shown == once


@pytest.mark.parametrize(("argv", "message"), [
    (["rollout", "--extend", "{bad}", "--trials", "100"], "is not a bgfast rollout save file"),
    (["rollout", "--trials", "100"], "give a POSITION_ID to roll out, or --extend FILE to go on with a saved "
                                     "rollout\n"),
    (["rollout", OPENING, "--extend", "{bad}"], "not both (the save holds its position)"),
    (["rollout", OPENING, "--bot", "pubeval", "--truncate", "4", "--truncate-ply", "2"],
     "--bot pubeval gives no evaluations, so its truncated trials are valued by the heuristic (0 ply)"),
    (["rollout", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:0"],
     "the XGID's maximum-cube field is 0 (a highest cube of 2**0 = 1)"),
    (["rollout", OPENING, "--save", "/nonexistent-folder/r.npz"], "--save '/nonexistent-folder/r.npz': there is no folder"),
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
                          "given with it (only --trials, --target-se, --workers, --backend, --scheduler, --save and --json can")
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


def _edited(path: Path, edit: Any, *, keep_checksum: bool = True) -> None:
    """Change a save file by hand: ``edit(meta, trials)``; the checksum kept as saved, or made
    again for the edited file (as a careful hand would) with ``keep_checksum=False``."""
    from bgfast.rollout.saved import checksum

    with np.load(path, allow_pickle=False) as npz:
        meta, trials, recorded = json.loads(str(npz["request"][()])), np.array(npz["trials"]), npz["checksum"]
    trials = edit(meta, trials)
    text = json.dumps(meta)
    np.savez(path, trials=trials, request=np.array(text),
             checksum=recorded if keep_checksum else np.array(checksum(text, trials)))


def _set(trials: np.ndarray, value: float) -> np.ndarray:
    trials[0, 5, 0] = value
    return trials


@pytest.mark.parametrize(("edit", "message"), [
    (lambda meta, t: meta.update(position="4HPwATDgc/ABMA:cAkAAAAAAAAA") or t, "was changed or damaged after it was "
     "saved (its checksum does not match its arguments and trials): roll the position out again"),
    (lambda meta, t: _set(t, float("nan")), "checksum does not match"),
    (lambda meta, t: _set(t, 7.0), "checksum does not match"),
    (lambda meta, t: t[:, :70], "checksum does not match"),
])
def test_a_save_changed_by_hand_is_refused_by_its_checksum(tmp_path: Path, edit: Any, message: str) -> None:
    # were mixed trials, +nan, an equity of +9.79 (exit 0)
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic", luck=False)
    _edited(path, edit)
    with pytest.raises(InvalidRolloutError, match=message.replace("(", r"\(").replace(")", r"\)")):
        extend_rollout(path, 144)


@pytest.mark.parametrize(("trials", "luck", "edit", "message"), [
    (72, True, lambda meta, t: _set(t, float("nan")), "holds a number that is not finite (nan, trial 5 of line 0)"),
    (72, True, lambda meta, t: _set(t, float("inf")), "not finite"),
    (72, False, lambda meta, t: _set(t, 7.0), "holds a chance of 7.0 (trial 5 of line 0), outside 0 to 1"),
    (72, False, lambda meta, t: _set(t, -0.5), "outside 0 to 1"),
    (72, False, lambda meta, t: t[:, :36], "records 72 trials but holds 36"),
    (1296, False, lambda meta, t: meta.update(trials=1000) or t[:, :1000],
     "stratifies its first two rolls over 1,296 pairs but holds 1,000 trials, not a multiple of 1,296"),
    (72, False, lambda meta, t: meta.update(trials=36) or t[:, :36], "stratifies its first roll but holds 36"),
    (40, False, lambda meta, t: meta.update(trials=80) or np.concatenate([t, t], axis=1),
     "samples its first rolls plainly but holds 80 trials"),
])
def test_a_save_whose_numbers_no_rollout_gives_is_refused(tmp_path: Path, trials: int, luck: bool, edit: Any,
                                                          message: str) -> None:
    # even with a checksum made again for them
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=trials, seed=1, bot="random", luck=luck)
    _edited(path, edit, keep_checksum=False)
    with pytest.raises(InvalidRolloutError, match=message.replace("(", r"\(").replace(")", r"\)")):
        extend_rollout(path, 2592)


def test_a_pruned_play_may_end_in_unplayed_trials_but_not_hold_a_nan_among_played_ones(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    options = {"dice": "31", "plays": True, "prune_se": 0.5, "bot": "random", "luck": False, "seed": 3}
    save_rollout(path, OPENING, trials=972, **options)
    _, data, _ = read_saved(path)
    assert np.isnan(data[:, -1]).all(axis=1).any()        # some play dropped: its last trials are NaN
    _edited(path, lambda meta, t: _set(t, float("nan")), keep_checksum=False)
    with pytest.raises(InvalidRolloutError, match="not finite"):
        read_saved(path)


def test_a_save_of_the_format_before_the_checksum_is_read(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    with np.load(path, allow_pickle=False) as npz:
        meta, trials = json.loads(str(npz["request"][()])), npz["trials"]
    meta["format"] = "bgfast-rollout-2"
    del meta["trials"]
    np.savez(path, trials=trials, request=np.array(json.dumps(meta)))
    assert _same(extend_rollout(path, 144), rollout(OPENING, trials=144, seed=1, bot="heuristic"))


def test_cli_a_damaged_save_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    _edited(path, lambda meta, t: _set(t, float("nan")))
    assert main(["rollout", "--extend", str(path), "--trials", "144"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("bgfast: error: ") and "checksum does not match" in err
    assert err.count("\n") == 1


def test_a_save_that_fails_after_the_trials_keeps_the_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # the folder passed the up-front check, then the write failed (a full disk, a lost mount)
    import bgfast.rollout.saved as saved

    def full_disk(*_: Any) -> None:
        raise OutputFileError("cannot write the rollout save file 'r.npz': No space left on device; "
                              "nothing was written")

    monkeypatch.setattr(saved, "write_saved", full_disk)
    with pytest.raises(RolloutSaveError) as caught:
        save_rollout(tmp_path / "r.npz", OPENING, trials=36, seed=1, bot="heuristic")
    kept = caught.value.result
    assert kept.trials == 36 and kept.equity == rollout(OPENING, trials=36, seed=1, bot="heuristic").equity
    assert main(["rollout", OPENING, "--trials", "36", "--bot", "heuristic", "--save", str(tmp_path / "r.npz")]) == 1
    out, err = capsys.readouterr()
    assert "cubeless equity" in out and err.endswith("No space left on device; nothing was written; the result "
                                                     "above was not saved\n")


def test_a_save_of_another_rollout_or_of_more_trials_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "r.npz"
    save_rollout(path, OPENING, trials=144, seed=1, bot="heuristic")
    kept = path.read_bytes()
    with pytest.raises(InvalidRolloutError, match=r"holds a saved rollout of 144 trials with other arguments \(bot\): "
                                                  r"writing there would lose it"):
        save_rollout(path, OPENING, trials=72, seed=1, bot="pubeval")
    with pytest.raises(InvalidRolloutError, match="holds 144 trials of this rollout, more than 72: go on with it"):
        save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic")
    other = tmp_path / "other.npz"
    save_rollout(other, OPENING, trials=72, seed=2, bot="heuristic")
    with pytest.raises(InvalidRolloutError, match=r"other arguments \(seed\)"):
        extend_rollout(path, 216, save=other)
    assert path.read_bytes() == kept
    save_rollout(path, OPENING, trials=216, seed=1, bot="heuristic")      # the same rollout, more trials: written
    assert read_saved(path)[1].shape[1] == 216
    (tmp_path / "junk.npz").write_bytes(b"not a save")
    save_rollout(tmp_path / "junk.npz", OPENING, trials=36, seed=1, bot="heuristic")   # any other file: an output
