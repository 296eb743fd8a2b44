"""Late evaluation, truncation at the search's ply, and match play checker play by the score
in rollouts (bgfast/rollout/, the game loop's late evaluation and CUBE_NEVER_MET)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bgfast._core.game import CubeKind, Decisions, PlayKind
from bgfast.bots.neural import NeuralBot
from bgfast.errors import InvalidRolloutError
from bgfast.match import MatchState
from bgfast.met import MatchEquityTable
from bgfast.position import Position
from bgfast.rollout import RolloutResult, rollout
from bgfast.rollout.saved import extend_rollout, read_saved, save_rollout
from cli_helpers import run

OPENING = "4HPwATDgc/ABMA"
LATE = ("late_ply", "late_after", "truncate_ply", "bot", "seconds")


def _figures(r: RolloutResult) -> dict[str, Any]:
    """Every number of a result (not who played, the late settings or the time)."""
    data = r.to_dict()
    for key in LATE:
        data.pop(key)
    return data


# ---------------------------------------------------------------- late evaluation


@pytest.mark.parametrize("cubeful", [False, True])
def test_late_evaluation_after_0_plies_equals_the_bot_at_that_ply_from_the_start(cubeful: bool) -> None:
    # a 1-ply bot turned 0-ply (checker play and cube estimates) from the first ply on
    late = rollout(OPENING, trials=72, seed=3, bot="neural:ply=1", late_ply=0, late_after=0, cubeful=cubeful)
    zero = rollout(OPENING, trials=72, seed=3, bot="neural:ply=0,cube_ply=0", cubeful=cubeful)
    assert _figures(late) == _figures(zero)
    assert _figures(late) != _figures(rollout(OPENING, trials=72, seed=3, bot="neural:ply=1", cubeful=cubeful))


def test_late_evaluation_at_1_ply_after_0_plies_equals_the_1_ply_bot_with_dice_and_truncation() -> None:
    options: dict[str, Any] = {"dice": "52", "trials": 72, "seed": 4, "truncate": 5, "truncate_ply": 0}
    late = rollout(OPENING, bot="neural", late_ply=1, late_after=0, **options)
    one = rollout(OPENING, bot="neural:ply=1", **options)
    assert _figures(late) == _figures(one)


def test_late_evaluation_after_more_plies_than_a_trial_has_changes_nothing() -> None:
    plain = rollout(OPENING, trials=72, seed=5, bot="neural:ply=1", cubeful=True)
    never = rollout(OPENING, trials=72, seed=5, bot="neural:ply=1", cubeful=True, late_ply=0, late_after=10**6)
    assert _figures(plain) == _figures(never)
    sooner = rollout(OPENING, trials=72, seed=5, bot="neural:ply=1", cubeful=True, late_ply=0, late_after=4)
    assert _figures(sooner) != _figures(plain)


def test_late_evaluation_is_echoed_in_the_result_its_json_and_its_header() -> None:
    r = rollout(OPENING, trials=36, seed=1, bot="neural:ply=1", late_ply=0, late_after=4, truncate=8,
                truncate_ply=1)
    assert (r.late_ply, r.late_after, r.truncate_ply) == (0, 4, 1)
    data = r.to_dict()
    assert (data["late_ply"], data["late_after"], data["truncate"], data["truncate_ply"]) == (0, 4, 8, 1)
    header = r.report().splitlines()
    assert "truncated after 8 plies (evaluated at 1 ply)" in header[1]
    assert header[2] == "late evaluation: 0 ply from ply 4 of each trial on (checker play and cube)"
    plain = rollout(OPENING, trials=36, seed=1, bot="neural").to_dict()
    assert (plain["late_ply"], plain["late_after"], plain["truncate_ply"]) == (None, None, None)


# ---------------------------------------------------------------- truncation at the search's ply


def test_truncation_at_0_ply_equals_todays_truncation_and_1_ply_the_1_ply_evaluator() -> None:
    today = rollout(OPENING, trials=72, seed=6, truncate=4)
    assert _figures(rollout(OPENING, trials=72, seed=6, truncate=4, truncate_ply=0)) == _figures(today)
    one = rollout(OPENING, trials=72, seed=6, truncate=4, truncate_ply=1)
    assert _figures(one) != _figures(today)
    assert _figures(one) == _figures(rollout(OPENING, trials=72, seed=6, truncate=4, evaluator="neural:ply=1"))


def test_truncation_at_2_plies_goes_through_the_search() -> None:
    r = rollout(OPENING, trials=8, seed=6, truncate=2, truncate_ply=2, variance_reduction=False)
    one = rollout(OPENING, trials=8, seed=6, truncate=2, truncate_ply=1, variance_reduction=False)
    assert 0.3 < r.win.value < 0.7 and r.win.value != one.win.value


@pytest.mark.parametrize(("options", "message"), [
    ({"late_ply": 1}, "late evaluation needs both late_ply and late_after: late_ply is given without late_after"),
    ({"late_after": 3}, "late_after is given without late_ply"),
    ({"late_ply": 4, "late_after": 3}, "late_ply must be an integer from 0 up to 3, got 4"),
    ({"late_ply": 1, "late_after": -1}, "late_after must be an integer from 0"),
    ({"late_ply": 1, "late_after": 3, "bot": "pubeval"}, "late evaluation changes the neural bot's plies; bot "
                                                          "'pubeval:"),
    ({"truncate_ply": 1}, "truncate_ply is the plies a truncated trial is evaluated at: give truncate=N too"),
    ({"truncate_ply": 5, "truncate": 3}, "truncate_ply must be an integer from 0 up to 3, got 5"),
    ({"truncate_ply": 1, "truncate": 3, "bot": "heuristic"}, "truncate_ply evaluates through the neural bot's "
                                                             "n-ply search; the evaluator 'heuristic"),
])
def test_bad_late_or_truncation_plies_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRolloutError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rollout(OPENING, trials=36, **options)


def test_the_cli_refuses_bad_late_options_in_one_line_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rollout", OPENING, "--late-ply", "1", "--trials", "36")
    assert code == 2 and out == ""
    assert err == ("bgfast: error: late evaluation needs both --late-ply and --late-after: --late-ply is given "
                   "without --late-after\n")


def test_the_cli_rolls_out_with_late_evaluation_and_truncation_plies(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rollout", OPENING, "--trials", "36", "--late-ply", "1", "--late-after", "2",
                       "--truncate", "4", "--truncate-ply", "1", "--json")
    data = json.loads(out)
    assert code == 0 and (data["late_ply"], data["late_after"], data["truncate_ply"]) == (1, 2, 1)
    api = rollout(OPENING, trials=36, late_ply=1, late_after=2, truncate=4, truncate_ply=1)
    assert data["probabilities"] == list(api.probabilities)


def test_a_saved_rollout_keeps_late_evaluation_and_truncation_plies(tmp_path: Path) -> None:
    path = tmp_path / "late.npz"
    options: dict[str, Any] = {"seed": 2, "bot": "neural:ply=1", "late_ply": 0, "late_after": 2, "truncate": 6,
                               "truncate_ply": 1}
    save_rollout(path, OPENING, trials=72, **options)
    meta, _, _ = read_saved(path)
    assert (meta["late_ply"], meta["late_after"], meta["truncate_ply"]) == (0, 2, 1)
    extended = extend_rollout(path, 108)
    once = rollout(OPENING, trials=108, **options)
    assert _figures(extended) == _figures(once) and extended.late_after == 2 and extended.truncate_ply == 1


# ---------------------------------------------------------------- match play by the score

# 2-away, 1-away, post-Crawford: the trailer on roll wins the match with a gammon, and its
# gammon losses cost nothing more than single ones
POST_CRAWFORD = MatchState(length=7, score=(5, 6), crawford=False, player_on_roll=0, turn=0)


def _choice(kind: CubeKind, length: int, score: tuple[int, int], dice: tuple[int, int]) -> Position:
    met = MatchEquityTable.load("Kazaross-XG2").core_table
    player = (PlayKind.PLAY_EVALUATOR, kind, 0.68, NeuralBot().evaluator, None)
    decide = Decisions((length, 1, 0, 0, 64, 0), player, met if length else None)
    pos = Position()
    return Position._from_valid_bytes(decide.choose(pos.to_bytes(), *dice, 0, *score))


def test_the_cubeless_line_plays_by_the_score_at_2_away_1_away_not_by_money() -> None:
    by_money = _choice(CubeKind.CUBE_NEVER, 7, (5, 6), (5, 2))
    by_score = _choice(CubeKind.CUBE_NEVER_MET, 7, (5, 6), (5, 2))
    opening = Position()
    assert by_money == opening.parse_move("24/22 13/8", (5, 2)).position
    assert by_score == opening.parse_move("13/11 13/8", (5, 2)).position
    # in money play the policy is CUBE_NEVER's
    assert _choice(CubeKind.CUBE_NEVER_MET, 0, (0, 0), (5, 2)) == by_money


def test_a_match_rollouts_chances_come_from_checker_play_by_the_score() -> None:
    options: dict[str, Any] = {"dice": "52", "trials": 72, "seed": 1, "truncate": 8}
    at_score = rollout(OPENING, match=POST_CRAWFORD, **options)
    money = rollout(OPENING, **options)
    assert at_score.probabilities != money.probabilities
    assert at_score.win_gammon.value > money.win_gammon.value       # the trailer plays for the gammon
    # the cubeful line (and its cube) is unchanged by it: still the bot's own match play
    cubeful = rollout(OPENING, match=POST_CRAWFORD, cubeful=True, **options)
    assert cubeful.probabilities == at_score.probabilities and cubeful.cubeful_mwc is not None


def test_a_money_only_save_of_the_first_format_is_read_and_a_match_one_refused(tmp_path: Path) -> None:
    for name, match in (("money.npz", None), ("match.npz", POST_CRAWFORD)):
        path = tmp_path / name
        save_rollout(path, OPENING, trials=72, seed=1, bot="heuristic", match=match)
        with np.load(path, allow_pickle=False) as npz:
            meta = json.loads(str(npz["request"][()]))
            trials = npz["trials"]
        meta["format"] = "bgfast-rollout-1"
        for key in ("late_ply", "late_after", "truncate_ply"):
            del meta[key]
        np.savez(path, trials=trials, request=np.array(json.dumps(meta)))
    assert extend_rollout(tmp_path / "money.npz", 108).trials == 108
    with pytest.raises(InvalidRolloutError, match="played the cubeless game by money play: its trials cannot be "
                                                  "continued; roll it out again"):
        extend_rollout(tmp_path / "match.npz", 108)

