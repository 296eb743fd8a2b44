"""RolloutRequest: the arguments of a rollout, checked once and frozen (bgfast/rollout/request.py).

The messages of each bad argument are pinned in test_rollout.py (through ``rollout``);
these tests pin what the request resolves and that running it is the rollout.
"""
from __future__ import annotations

import dataclasses
import math

import pytest

from bgfast import Position
from bgfast.bots import get_bot
from bgfast.dice import Dice
from bgfast.errors import InvalidRolloutError
from bgfast.match import MatchState, Rules
from bgfast.position import starting_position
from bgfast.rollout import RolloutRequest, rollout, run_rollout


def test_a_request_resolves_names_to_objects_and_is_frozen() -> None:
    request = RolloutRequest.create("4HPwATDgc/ABMA", bot="pubeval", dice=(1, 3), play="8/5 6/5", trials=72)
    assert request.position == Position() and request.dice == Dice(3, 1)
    assert str(request.play) == "8/5 6/5" and request.bot_name == "pubeval:cube=keith,cube_efficiency=0.68"
    assert request.evaluator is request.bot and request.met is None and request.checkers == 15
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.trials = 10  # type: ignore[misc]


def test_the_dice_of_the_match_state_are_the_roll_and_are_cleared_from_the_match() -> None:
    match = MatchState(length=5, dice=(4, 2))
    request = RolloutRequest.create(Position(), match=match, trials=36)
    assert request.dice == Dice(4, 2) and request.match == dataclasses.replace(match, dice=(0, 0))
    assert request.met is not None and request.met.name


def test_luck_follows_variance_reduction_and_is_off_in_hypergammon() -> None:
    assert RolloutRequest.create(Position(), variance_reduction=False).luck is False
    assert RolloutRequest.create(Position(), variance_reduction=True).luck is True
    hyper = starting_position("hypergammon")
    assert RolloutRequest.create(hyper, rules=Rules(variant="hypergammon")).luck is False


@pytest.mark.parametrize("bad", [0, -1e-3, math.inf, math.nan, True, "0.1"])
def test_target_se_must_be_a_finite_positive_number(bad: object) -> None:
    with pytest.raises(InvalidRolloutError, match="target_se must be a positive number"):
        RolloutRequest.create(Position(), target_se=bad)  # type: ignore[arg-type]


def test_an_unknown_option_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="trails"):
        rollout(Position(), trails=10)


def _without_seconds(data: object) -> object:
    if isinstance(data, dict):
        return {k: _without_seconds(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [_without_seconds(v) for v in data]
    return data


def test_running_a_request_is_the_rollout_of_its_arguments() -> None:
    options = {"dice": "31", "plays": True, "trials": 72, "seed": 5, "bot": get_bot("pubeval"), "luck": False}
    direct = rollout(Position(), **options)
    again = run_rollout(RolloutRequest.create(Position(), **options))
    assert len(direct.plays) == 16
    assert _without_seconds(again.to_dict()) == _without_seconds(direct.to_dict())
