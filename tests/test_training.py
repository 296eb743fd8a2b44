"""The net's self-play training (bgfast._core.training): its games are the game loop's."""
from __future__ import annotations

import numpy as np
import pytest

from bgfast._core import neural as nn
from bgfast._core.game import CubeKind, MatchRunner, PlayKind, TurnAction
from bgfast._core.training import SelfPlay
from bgfast.bots import get_bot
from bgfast.bots.neural import NeuralBot
from bgfast.bots.neural_weights import Weights
from bgfast.game import MatchPlayer, make_runner
from bgfast.match import Rules
from bgfast.position import VARIANTS
from bgfast.train import TrainConfig, initial_weights


@pytest.fixture(scope="module")
def weights() -> Weights:
    return initial_weights(TrainConfig(contact_hidden=16, race_hidden=8, init_seed=6, init_scale=0.5))


@pytest.mark.parametrize("variant", ["standard", "nackgammon"])
def test_versus_plays_the_games_of_the_game_loop_from_the_variant_s_start(weights: Weights, variant: str) -> None:
    games = SelfPlay(weights.model(), VARIANTS[variant][1])
    bot, pub = NeuralBot(weights=weights, cube="never"), get_bot("pubeval", cube="never")
    rules = Rules(jacoby=False, variant=variant)
    points, plies = games.versus("neural", "pubeval", 3, 0, 8)
    for i in range(8):
        theirs = MatchPlayer(bot, pub, rules=rules).play(3, i)
        assert (theirs.score0 - theirs.score1, theirs.plies) == (points[i], plies[i])


def test_positions_are_those_before_each_roll_of_the_game_loop_s_record(weights: Weights) -> None:
    bot = NeuralBot(weights=weights, cube="never")
    runner = make_runner(bot, bot, rules=Rules(jacoby=False))
    runner.record_turns(True)
    runner.play(8, 5)
    turns = runner.turns()
    before = turns["before"][turns["action"] == TurnAction.ACTION_MOVE][1:]   # all but the opening roll's
    kept = [row for row in before if nn.board_class(row) < len(nn.NETS)]   # the positions a net values
    positions = SelfPlay(weights.model(), VARIANTS["standard"][1]).positions(8, 5, 1)
    assert len(kept) > 10
    assert np.array_equal(positions, np.array(kept, dtype=np.uint8))


def test_td_targets_are_the_positions_after_each_play_of_the_game_loop(weights: Weights) -> None:
    bot = NeuralBot(weights=weights, cube="never")
    runner = make_runner(bot, bot, rules=Rules(jacoby=False))
    runner.record_turns(True)
    runner.play(4, 2)
    turns = runner.turns()
    after = turns["after"][turns["action"] == TurnAction.ACTION_MOVE]         # the mover's view
    swapped = [np.concatenate([row[25:], row[:25]]) for row in after]         # the opponent on roll
    kept = [row for row in swapped[:-1] if nn.board_class(row) < len(nn.NETS)]
    boards, targets, plies = SelfPlay(weights.model(), VARIANTS["standard"][1]).td_targets(4, 2, 1, 0.7)
    assert plies == len(after)
    assert np.array_equal(boards, np.array(kept[::-1], dtype=np.uint8))      # last first
    assert targets.shape == (len(kept), 5)


def test_a_start_of_other_than_25_counts_is_refused(weights: Weights) -> None:
    with pytest.raises(ValueError, match="25 counts"):
        SelfPlay(weights.model(), VARIANTS["standard"][1][:24])


def test_a_player_plugged_in_from_c_cannot_be_made_from_python() -> None:
    hook = (PlayKind.PLAY_HOOK, CubeKind.CUBE_NEVER, 0.0, None, None)
    with pytest.raises(ValueError, match="checker-play kind"):
        MatchRunner((0, 0, 0, 0, 64, 0), VARIANTS["standard"][1], [hook, hook])
