"""The neural-net evaluator, its training, its weights file and the neural bot."""
from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bgfast._core import bearoff as bo
from bgfast._core import neural as nn
from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast._core.training import train_positions
from bgfast.bots import get_bot
from bgfast.bots.neural import NeuralBot
from bgfast.bots.neural_weights import (
    MAGIC,
    Weights,
    decode_weights,
    default_weights_path,
    encode_weights,
    read_weights,
    write_weights,
)
from bgfast.errors import InvalidPositionError, InvalidSpecError, InvalidWeightsError, UnknownBotError
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.position import Position
from bgfast.train import TrainConfig, initial_weights, paired_ppg, run_td
from bgfast.train.checkpoint import read_curve
from bgfast.train.config import self_play
from bgfast.train.td import widen
from strategies import dice, legal_boards, race_boards


def _key(board: list[list[int]]) -> bytes:
    return bytes(board[0] + board[1])


def _consistent(p: tuple[float, ...]) -> bool:
    win, wg, wbg, lg, lbg = p
    eps = 1e-6
    return (-eps <= wbg <= wg + eps and wg <= win + eps and win <= 1 + eps
            and -eps <= lbg <= lg + eps and lg <= 1 - win + eps)


@pytest.fixture(scope="module")
def random_model() -> nn.Model:
    weights = initial_weights(TrainConfig(contact_hidden=32, race_hidden=16, init_seed=3, init_scale=0.5))
    return weights.model()


@pytest.fixture(scope="module")
def tiny() -> Weights:
    """A small net trained for 400 self-play games (a few seconds)."""
    config = TrainConfig(contact_hidden=16, race_hidden=8, games=400, lr=0.05, init_seed=2)
    model = initial_weights(config).model()
    self_play(model).td_train(config.seed, 0, config.games, config.lam, config.lr, config.lr)
    return Weights.of(model, {"games": config.games})


def _playable(board: list[list[int]]) -> bool:
    return sum(board[0]) > 0 and sum(board[1]) > 0


# ---------------------------------------------------------------- the evaluator

@settings(max_examples=300, deadline=None)
@given(legal_boards())
def test_outputs_are_consistent_probabilities(random_model: nn.Model, board: list[list[int]]) -> None:
    if not _playable(board):
        return
    key = _key(board)
    assert _consistent(random_model.evaluate(key))
    assert _consistent(CoreEvaluator(random_model, EvaluatorKind.EVAL_NEURAL).on_roll(key, 1))
    assert _consistent(random_model.evaluate_after(key))
    assert _consistent(random_model.evaluate_net(key))


@settings(max_examples=200, deadline=None)
@given(legal_boards(), dice())
def test_children_valued_together_equal_each_valued_alone(random_model: nn.Model, board: list[list[int]],
                                                          roll: tuple[int, int]) -> None:
    if not _playable(board):
        return
    kids, probs = random_model.children(_key(board), *roll)
    assert len(kids) == len(probs) >= 1
    for kid, p in zip(kids, probs):
        # the incremental first layer sums the same columns in another order
        assert np.asarray(random_model.evaluate_after(kid)) == pytest.approx(p, abs=2e-5)


@pytest.fixture(scope="module")
def race_input_model() -> nn.Model:
    """:func:`random_model`'s sizes with random weights on the race net's own inputs too
    (a fresh net has them at 0)."""
    weights = initial_weights(TrainConfig(contact_hidden=32, race_hidden=16, init_seed=3, init_scale=0.5))
    arrays = dict(weights.arrays)
    race = arrays["race.w1"].copy()
    race[nn.INPUTS:] = np.random.default_rng(4).normal(0, 0.5, race[nn.INPUTS:].shape).astype(np.float32)
    arrays["race.w1"] = race
    return Weights(arrays, weights.meta).model()


@settings(max_examples=200, deadline=None)
@given(race_boards(), dice())
def test_race_children_valued_together_equal_each_valued_alone(race_input_model: nn.Model,
                                                               board: list[list[int]], roll: tuple[int, int]) -> None:
    # a roll's race plays share the side on roll's race inputs in their sums
    assume(_playable(board))
    kids, probs = race_input_model.children(_key(board), *roll)
    for kid, p in zip(kids, probs):
        assert np.asarray(race_input_model.evaluate_after(kid)) == pytest.approx(p, abs=2e-5)


def test_a_child_is_valued_by_flipping_the_opponents_evaluation(random_model: nn.Model) -> None:
    start = Position()
    for child in start.children(3, 1):
        key = child.to_bytes()
        swapped = key[25:] + key[:25]            # the opponent on roll
        win, wg, wbg, lg, lbg = random_model.evaluate(swapped)
        assert random_model.evaluate_after(key) == pytest.approx((1 - win, lg, lbg, wg, wbg), abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 23), min_size=0, max_size=11), st.integers(0, 4))
def test_last_checker_on_the_ace_point_wins_whatever_it_rolls(random_model: nn.Model, others: list[int],
                                                              bar: int) -> None:
    # the side on roll has one checker on its ace point; the opponent has 15 anywhere,
    # on the bar, in the side's home board or not
    opponent = [0] * 25
    opponent[24] = bar
    for i in others:
        if i != 23:                              # the side's ace point is the opponent's 24-point
            opponent[i] += 1
    opponent[0] += 15 - sum(opponent)
    mover = [1] + [0] * 24
    key = bytes(opponent + mover)
    back = opponent[24] > 0 or any(opponent[18:24])
    expected = (1.0, 1.0, 1.0 if back else 0.0, 0.0, 0.0)
    assert random_model.evaluate(key) == expected
    assert CoreEvaluator(random_model, EvaluatorKind.EVAL_NEURAL).on_roll(key, 1) == pytest.approx(expected)
    assert nn.board_class(key) in (nn.BEAROFF_CLASS, nn.DECIDED_CLASS)


def test_two_checkers_that_a_blocked_point_can_stop_are_not_decided() -> None:
    # one checker on the 2 point with the opponent holding the ace point: 1-1 cannot move
    opponent = [0] * 25
    opponent[23] = 2
    opponent[5] = 13
    assert nn.board_class(bytes(opponent + [0, 1] + [0] * 23)) != nn.DECIDED_CLASS
    opponent[23] = 1
    opponent[5] = 14
    assert nn.board_class(bytes(opponent + [0, 1] + [0] * 23)) == nn.DECIDED_CLASS


def test_a_finished_game_and_a_borne_off_checker_give_exact_zeros(random_model: nn.Model) -> None:
    # the side on roll has borne a checker off: it can no longer lose a gammon
    mover = [2, 2, 2, 2, 2, 2] + [0] * 19                   # 12 checkers, 3 off
    opponent = [0] * 12 + [15] + [0] * 12
    p = random_model.evaluate(bytes(opponent + mover))
    assert p[3] == 0.0 and p[4] == 0.0
    # neither side can be backgammoned in a race where both have left the other's home
    race = bytes([0] * 6 + [15] + [0] * 18 + [0] * 7 + [15] + [0] * 17)
    assert nn.board_class(race) == 1
    p = random_model.evaluate(race)
    assert p[2] == 0.0 and p[4] == 0.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=15), st.lists(st.integers(0, 5), min_size=1, max_size=15))
def test_pure_bear_offs_take_the_database_values(random_model: nn.Model, a: list[int], b: list[int]) -> None:
    mover = [a.count(i) for i in range(6)] + [0] * 19
    opponent = [b.count(i) for i in range(6)] + [0] * 19
    key = bytes(opponent + mover)
    assert random_model.evaluate(key) == pytest.approx(bo.probabilities(key), abs=1e-6)


def test_inputs_code_the_counts_in_truncated_unary() -> None:
    start = Position().to_bytes()
    x = nn.inputs(start)
    assert x.shape == (nn.INPUTS,)
    # the side on roll's six point (5 checkers): 1, 1, 1, (5 - 3) / 2
    assert list(x[4 * 5:4 * 5 + 4]) == [1.0, 1.0, 1.0, 1.0]
    # its 24 point (2 checkers): 1, 1, 0, 0
    assert list(x[4 * 23:4 * 23 + 4]) == [1.0, 1.0, 0.0, 0.0]
    assert x[nn.RAW_INPUTS:].any()                            # the hand-made features


def test_bad_boards_and_dice_raise(random_model: nn.Model) -> None:
    with pytest.raises(ValueError):
        random_model.evaluate(b"\x00" * 49)
    with pytest.raises(ValueError):
        random_model.evaluate(bytes([16] + [0] * 24 + [15] + [0] * 24))
    with pytest.raises(ValueError):
        random_model.choose(Position().to_bytes(), 7, 1)
    with pytest.raises(ValueError):
        nn.Model(12, 8)


# ---------------------------------------------------------------- weights files

def test_a_saved_and_reloaded_net_plays_identical_games(tiny: Weights, tmp_path) -> None:
    path = tmp_path / "tiny.bgw"
    write_weights(path, tiny)
    again = read_weights(path)
    assert again.meta == tiny.meta
    for name in tiny.arrays:
        assert np.array_equal(again.arrays[name], tiny.arrays[name])
    a = self_play(tiny.model()).versus("neural", "pubeval", 5, 0, 50)
    b = self_play(again.model()).versus("neural", "pubeval", 5, 0, 50)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    one, two = NeuralBot(weights=tiny, cube="never"), NeuralBot(weights=path, cube="never")
    pub = get_bot("pubeval", cube="never")
    rules = Rules(jacoby=False)
    for i in range(3):
        assert MatchPlayer(one, pub, rules=rules).record(5, i) == MatchPlayer(two, pub, rules=rules).record(5, i)


def test_bad_or_truncated_weights_files_raise(tiny: Weights, tmp_path) -> None:
    data = encode_weights(tiny)
    assert data.startswith(MAGIC)
    assert decode_weights(data).hidden == (16, 8, 16, 16)
    cases = {
        "truncated": data[: len(data) // 2],
        "tiny": data[:20],
        "empty": b"",
        "magic": b"NOTBGFNN" + data[8:],
        "version": data[:8] + (2).to_bytes(4, "little") + data[12:],
        "flipped bit": data[:100] + bytes([data[100] ^ 1]) + data[101:],
    }
    for name, bad in cases.items():
        with pytest.raises(InvalidWeightsError):
            decode_weights(bad, name)
    path = tmp_path / "bad.bgw"
    path.write_bytes(cases["truncated"])
    with pytest.raises(InvalidWeightsError, match="bad.bgw"):
        read_weights(path)
    with pytest.raises(ValueError):                       # InvalidWeightsError is a ValueError
        NeuralBot(weights=path)


def test_weights_of_the_wrong_shape_are_refused(tiny: Weights) -> None:
    arrays = dict(tiny.arrays)
    arrays["race.w2"] = arrays["race.w2"][:, :4]
    with pytest.raises(InvalidWeightsError):
        decode_weights(encode_weights(Weights(arrays)))
    with pytest.raises(ValueError):
        nn.Model(16, 8).set_weights({})


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_weights_that_are_not_finite_are_refused_though_the_checksum_holds(tiny: Weights, value: float) -> None:
    arrays = {k: a.copy() for k, a in tiny.arrays.items()}
    arrays["contact.w1"][3, 7] = value
    with pytest.raises(InvalidWeightsError, match="'contact.w1' holds 1 value that is not finite"):
        decode_weights(encode_weights(Weights(arrays)), "nan.bgw")


def test_weights_that_are_not_finite_are_not_written(tiny: Weights, tmp_path: Path) -> None:
    arrays = {k: a.copy() for k, a in tiny.arrays.items()}
    arrays["race.b1"][0] = np.nan
    with pytest.raises(InvalidWeightsError, match="'race.b1' holds values that are not finite.*not written"):
        write_weights(tmp_path / "nan.bgw", Weights(arrays))
    assert not (tmp_path / "nan.bgw").exists()


def test_a_missing_file_or_a_folder_is_an_invalid_weights_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeightsError, match="^cannot read neural weights '.*missing.bgw': No such file"):
        read_weights(tmp_path / "missing.bgw")
    with pytest.raises(InvalidWeightsError, match="cannot read neural weights .*: it is a folder, not a regular file"):
        NeuralBot(weights=tmp_path)


def _with_header(data: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """A weights file's bytes ``data`` with its header changed by ``change``, the checksum made good."""
    _, _, n = struct.unpack_from("<8sII", data)
    header = json.loads(data[16:16 + n])
    change(header)
    text = json.dumps(header).encode()
    body = struct.pack("<8sII", b"BGFNEURL", 1, len(text)) + text + data[16 + n:-32]
    return body + hashlib.sha256(body).digest()


@pytest.mark.parametrize("shape", [[-1, 4], [2**40, 2**40], [], [0, 5]])
def test_a_header_with_an_impossible_shape_is_refused_naming_the_file(tiny: Weights, shape: list[int]) -> None:
    data = _with_header(encode_weights(tiny), lambda header: header["arrays"][0].update(shape=shape))
    with pytest.raises(InvalidWeightsError, match="odd.bgw: "):
        decode_weights(data, "odd.bgw")


@pytest.mark.parametrize("nets", [{"contact": {"hidden": 16}, "race": {"hidden": 8}},
                                  {"contact": {"hidden": 17}, "race": {"hidden": 8}, "backgame": {"hidden": 16},
                                   "crashed": {"hidden": 16}},
                                  {"contact": {"hidden": 16}, "race": {"hidden": 8}, "backgame": {"hidden": 16},
                                   "crashed": {"hidden": 16}, "prune": {"hidden": 4}}])
def test_a_header_whose_nets_do_not_match_the_arrays_is_refused(tiny: Weights, nets: dict[str, Any]) -> None:
    data = encode_weights(tiny)
    assert decode_weights(_with_header(data, lambda header: None)).hidden == (16, 8, 16, 16)
    with pytest.raises(InvalidWeightsError, match="odd.bgw: the header's nets .* do not match its arrays'"):
        decode_weights(_with_header(data, lambda header: header.update(nets=nets)), "odd.bgw")


def test_the_shipped_weights_load() -> None:
    weights = read_weights()
    assert weights.meta["games"] > 0
    assert weights.model().evaluate(Position().to_bytes())[0] == pytest.approx(0.5, abs=0.06)


# ---------------------------------------------------------------- training

def test_training_a_tiny_net_for_a_few_hundred_games_beats_random(tiny: Weights) -> None:
    untrained = initial_weights(TrainConfig(contact_hidden=16, race_hidden=8, init_seed=2)).model()
    trained = tiny.model()
    ppg, se = paired_ppg(trained, "random", seed=7, pairs=300)
    assert ppg > 0.6 and ppg > 4 * se
    before, _ = paired_ppg(untrained, "random", seed=7, pairs=300)
    assert ppg > before + 0.3


def test_the_same_seeds_give_the_same_net() -> None:
    config = TrainConfig(contact_hidden=8, race_hidden=8, games=60)
    nets = []
    for _ in range(2):
        model = initial_weights(config).model()
        self_play(model).td_train(config.seed, 0, 60, config.lam, config.lr, config.lr)
        nets.append(model.get_weights())
    assert all(np.array_equal(nets[0][k], nets[1][k]) for k in nets[0])
    other = initial_weights(config).model()
    self_play(other).td_train(config.seed + 1, 0, 60, config.lam, config.lr, config.lr)
    assert not np.array_equal(other.get_weights()["contact.w1"], nets[0]["contact.w1"])


def test_training_data_and_supervised_steps_make_the_td_net() -> None:
    # td_train is td_targets (play, lambda-returns) followed by train_positions on them
    config = TrainConfig(contact_hidden=8, race_hidden=8)
    direct = initial_weights(config).model()
    self_play(direct).td_train(config.seed, 0, 12, config.lam, 0.03, 0.03)
    split = initial_weights(config).model()
    for i in range(12):
        boards, targets, plies = self_play(split).td_targets(config.seed, i, 1, config.lam)
        assert plies > len(boards) > 0 and np.all((targets >= 0) & (targets <= 1))
        train_positions(split, boards, targets, 0.03, 0.03, np.arange(len(boards), dtype=np.int64))
    a, b = direct.get_weights(), split.get_weights()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_several_workers_give_the_same_net_every_time() -> None:
    from bgfast.train.td import train_games

    config = TrainConfig(contact_hidden=8, race_hidden=8, games=48, workers=3, round_games=4, chunk=48,
                         eval_every=48)
    nets = []
    for _ in range(2):
        model = initial_weights(config).model()
        train_games(model, config, 0, 48, [initial_weights(config).model() for _ in range(3)])
        nets.append(model.get_weights())
    assert all(np.array_equal(nets[0][k], nets[1][k]) for k in nets[0])
    with pytest.raises(InvalidSpecError):
        TrainConfig(workers=3, round_games=4, chunk=1000)     # 1000 is not whole rounds of 12


def test_a_resumed_run_makes_the_net_of_an_uninterrupted_one(tmp_path) -> None:
    config = TrainConfig(contact_hidden=8, race_hidden=8, games=120, chunk=20, eval_every=40, eval_pairs=20)
    whole = run_td(config, tmp_path / "whole")
    part = run_td(TrainConfig(**{**config.to_dict(), "games": 60}), tmp_path / "part")
    assert part.meta["games"] == 60
    with pytest.raises(InvalidSpecError):              # the folder holds a run of another config
        run_td(TrainConfig(**{**config.to_dict(), "lam": 0.5}), tmp_path / "part")
    from bgfast.train.cli import main

    assert main(["td", str(tmp_path / "part"), "--games", "120"]) == 0
    resumed = read_weights(tmp_path / "part" / "checkpoint.bgw")
    assert resumed.meta["games"] == 120
    assert all(np.array_equal(whole.arrays[k], resumed.arrays[k]) for k in whole.arrays)
    # a point every 40 games, and one where the first, shorter run ended
    assert [p["games"] for p in read_curve(tmp_path / "part")] == [40, 60, 80, 120]
    assert main(["td", str(tmp_path / "part"), "--lam", "0.5"]) == 2   # settings are fixed: bad input


def test_the_moving_average_of_the_weights_resumes_too(tmp_path) -> None:
    config = TrainConfig(contact_hidden=8, race_hidden=8, games=80, chunk=20, eval_every=40, eval_pairs=20,
                         average_games=30)
    run_td(config, tmp_path / "whole")
    run_td(TrainConfig(**{**config.to_dict(), "games": 40}), tmp_path / "part")
    run_td(config, tmp_path / "part")
    a = read_weights(tmp_path / "whole" / "average.bgw")
    b = read_weights(tmp_path / "part" / "average.bgw")
    last = read_weights(tmp_path / "whole" / "checkpoint.bgw")
    assert a.meta["games"] == b.meta["games"] == 80
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    assert not np.array_equal(a.arrays["contact.w1"], last.arrays["contact.w1"])
    assert all(p["averaged"] for p in read_curve(tmp_path / "whole"))
    # the average may be switched on when a run resumes: it does not change the net trained
    assert TrainConfig(average_games=0).same_run(TrainConfig(average_games=100_000))
    assert not TrainConfig(lam=0.5).same_run(TrainConfig())


def test_bad_training_settings_raise() -> None:
    for bad in ({"lam": 1.5}, {"contact_hidden": 12}, {"games": True}, {"lr": -1.0}):
        with pytest.raises(InvalidSpecError):
            TrainConfig(**bad)                          # type: ignore[arg-type]
    with pytest.raises(InvalidSpecError):
        TrainConfig.from_dict({"lambda": 0.5})


def test_supervised_steps_move_the_value_towards_the_target() -> None:
    model = initial_weights(TrainConfig(contact_hidden=16, race_hidden=8)).model()
    board = np.frombuffer(Position().to_bytes(), dtype=np.uint8).reshape(1, 50).copy()
    target = np.array([[0.9, 0.3, 0.01, 0.05, 0.001]], dtype=np.float32)
    before = model.evaluate(board[0].tobytes())
    train_positions(model, board, target, 0.05, 0.05, np.zeros(200, dtype=np.int64))
    after = model.evaluate(board[0].tobytes())
    assert abs(after[0] - 0.9) < abs(before[0] - 0.9) and after[0] == pytest.approx(0.9, abs=0.02)
    assert after[1] == pytest.approx(0.3, abs=0.02)


# ---------------------------------------------------------------- the bot

def test_the_core_games_are_the_games_matchplayer_plays(tiny: Weights) -> None:
    bot, pub = NeuralBot(weights=tiny, cube="never"), get_bot("pubeval", cube="never")
    games = self_play(tiny.model())
    rules = Rules(jacoby=False)
    for i in range(6):
        theirs = MatchPlayer(bot, pub, rules=rules).play(9, i)
        mine, _ = games.versus("neural", "pubeval", 9, i, 1)
        assert theirs.score0 - theirs.score1 == mine[0]
        theirs = MatchPlayer(pub, bot, rules=rules).play(9, i)
        mine, _ = games.versus("pubeval", "neural", 9, i, 1)
        assert theirs.score0 - theirs.score1 == mine[0]


def test_the_bot_plays_legal_moves_at_both_plies(tiny: Weights) -> None:
    start = Position()
    for ply in (0, 1):
        bot = NeuralBot(ply=ply, weights=tiny)
        move = bot.choose_move(start, (6, 5))
        assert move in start.legal_moves(6, 5)
        p = bot.evaluate(start)
        assert _consistent(tuple(p.__dict__.values()))
        assert bot.evaluate_after(move.position).win == pytest.approx(
            1 - bot.evaluate(move.position.swap_sides(), 0).win,
            abs=1e-6)


def test_the_registry_builds_the_bot_and_refuses_bad_options() -> None:
    bot = get_bot("neural", ply=1, cube="never")
    assert isinstance(bot, NeuralBot) and bot.ply == 1
    assert get_bot("neural:ply=0").ply == 0                 # type: ignore[attr-defined]
    for bad in ({"ply": 4}, {"ply": True}, {"cube": "keith"}, {"cube_efficiency": 2.0}, {"colour": 1}):
        with pytest.raises(UnknownBotError):
            get_bot("neural", **bad)
    over = Position.from_board([[0] * 12 + [15] + [0] * 12, [0] * 25])
    with pytest.raises(InvalidPositionError):
        bot.evaluate(over)


def test_cube_decisions_follow_the_probabilities(tiny: Weights) -> None:
    from bgfast.match import MatchState

    bot = NeuralBot(weights=tiny)
    money = MatchState()
    # two checkers each on the 5 and 6 points (77% for the side on roll, by the database):
    # a double (Janowski, x = 0.68) and a take
    close = Position.from_board([[0, 0, 0, 0, 1, 1] + [0] * 19, [0, 0, 0, 0, 1, 1] + [0] * 19])
    assert bot.should_double(close, money)
    assert bot.accept_double(close, money) == 1
    # the side on roll bears off its last two checkers next roll, no gammon possible: a pass
    won = Position.from_board([[0] * 12 + [14] + [0] * 12, [1, 1] + [0] * 23])
    assert bot.accept_double(won, money) == 0
    assert not NeuralBot(weights=tiny, cube="never").should_double(close, money)
    assert not bot.should_double(Position(), money)
    # with 15 checkers left the opponent would lose a gammon: too good to double
    assert not bot.should_double(Position.from_board([[0] * 12 + [15] + [0] * 12, [1, 1] + [0] * 23]), money)


# ---------------------------------------------------------------- the backgame and crashed nets

NET_CLASSES = len(nn.NETS)                     # board_class below this: valued by the net of its index
BACKGAME = nn.NETS.index("backgame")           # board_class of a back game or prime-versus-prime
CRASHED = nn.NETS.index("crashed")


def _yardstick_boards() -> list[bytes]:
    """The 2,700 positions of the yardstick (450 of each class of position_class), side 1 on roll."""
    path = Path(__file__).resolve().parents[1] / "bgfast" / "data" / "yardstick" / "positions.csv"
    lines = path.read_text(encoding="ascii").splitlines()[1:]
    return [Position.from_id(line.split(",")[0]).to_bytes() for line in lines]


def _bot_game_boards() -> list[bytes]:
    """Positions before each turn of games between the random, heuristic and pubeval bots."""
    boards = []
    for first, second in (("random", "pubeval"), ("heuristic", "random"), ("pubeval", "heuristic")):
        player = MatchPlayer(get_bot(first), get_bot(second), rules=Rules(jacoby=False))
        for game in range(25):
            boards += [turn.position.to_bytes() for turn in player.history(5, game).games[0]]
    return boards


@pytest.fixture(scope="module")
def class_boards() -> list[bytes]:
    return _yardstick_boards() + _bot_game_boards()


def test_each_net_class_is_its_position_classes(class_boards: list[bytes]) -> None:
    from bgfast.position_class import PositionClass, classify

    seen: dict[tuple[int, str], int] = {}
    for board in class_boards:
        for pos in (Position.from_bytes(board), Position.from_bytes(board).swap_sides()):
            cls, named = nn.board_class(pos.to_bytes()), classify(pos)
            seen[cls, named.value] = seen.get((cls, named.value), 0) + 1
            if cls < NET_CLASSES:            # valued by a net: the net of its class
                assert (cls == BACKGAME) == (named in (PositionClass.BACK_GAME, PositionClass.PRIME_VS_PRIME)), pos.id()
                assert (cls == CRASHED) == (named is PositionClass.CRASHED), pos.id()
                assert (cls == 1) == (named is PositionClass.RACE), pos.id()
    # every class of position_class was met; bear-offs with contact by the contact net
    assert seen[BACKGAME, "back_game"] > 900 and seen[BACKGAME, "prime_vs_prime"] > 900
    assert seen[CRASHED, "crashed"] > 900
    assert seen[0, "bearoff_contact"] > 500 and seen[0, "contact"] > 1000
    assert {named for cls, named in seen if cls == 0} == {"bearoff_contact", "contact"}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_crashed_class_is_position_class_crashed_on_random_boards(data: st.DataObject) -> None:
    """Boards with few checkers left in play on each side, where the crashed rule's branches
    (ace and deuce points stacked or not) decide the class."""
    from bgfast.position_class import PositionClass, classify

    sides = []
    for _ in range(2):
        counts = [0] * 25
        for _ in range(data.draw(st.integers(1, 15))):
            counts[data.draw(st.sampled_from([0, 0, 1, 1, 2, 3, 5, 7, 12, 17, 20, 23, 24]))] += 1
        sides.append(counts)
    opp, mover = sides
    for i in range(24):                      # a point held by both: the opponent's checkers go
        if mover[i] and opp[23 - i]:
            opp[23 - i] = 0
    assume(any(opp))
    pos = Position.from_board([opp, mover])
    cls = nn.board_class(pos.to_bytes())
    if cls < NET_CLASSES:
        assert (cls == CRASHED) == (classify(pos) is PositionClass.CRASHED), pos.id()


ROUND_10 = Path(__file__).resolve().parents[1] / "experiments" / "train_round11" / "start-round10.bgw"
"""The net shipped before the backgame net (round 10 of the model card): a file of two nets."""


def _shipped_two_nets() -> dict[str, np.ndarray]:
    """The shipped file's contact and race nets, without its backgame and crashed nets."""
    return {name: a for name, a in read_weights().nets_only().arrays.items()
            if not name.startswith(("backgame.", "crashed."))}


def test_a_file_of_two_nets_values_back_games_with_its_contact_net(class_boards: list[bytes], tmp_path: Path) -> None:
    two = _shipped_two_nets()
    assert set(two) == {f"{net}.{part}" for net in ("contact", "race") for part in ("w1", "b1", "w2", "b2")}
    round10 = read_weights(ROUND_10)               # a file with no backgame arrays
    for net in ("backgame", "crashed"):
        for part in ("w1", "b1", "w2", "b2"):
            assert np.array_equal(round10.arrays[f"{net}.{part}"], round10.arrays[f"contact.{part}"])
    boards = np.array([list(b) for b in class_boards], dtype=np.uint8)
    explicit = {**two, **{f"{net}.{part}": two[f"contact.{part}"].copy()
                          for net in ("backgame", "crashed") for part in ("w1", "b1", "w2", "b2")}}
    contact, race, backgame, crashed = Weights(explicit).hidden
    model = nn.Model(contact, race, backgame, crashed_hidden=crashed)
    model.set_weights(explicit)
    before = model.evaluate_batch(boards)
    assert np.array_equal(Weights(two).model().evaluate_batch(boards), before)
    # a two-net file (as round 10's is) reads back to the same net
    data = ROUND_10.read_bytes()
    header = json.loads(data[16:16 + struct.unpack_from("<I", data, 12)[0]])
    assert {a["name"] for a in header["arrays"]} == {f"{net}.{part}" for net in ("contact", "race")
                                                     for part in ("w1", "b1", "w2", "b2")}
    written = Weights(two)
    for net in ("backgame", "crashed"):
        for part in ("w1", "b1", "w2", "b2"):
            del written.arrays[f"{net}.{part}"]
    old = tmp_path / "two.bgw"
    old.write_bytes(encode_weights(written))
    assert np.array_equal(read_weights(old).model().evaluate_batch(boards), before)
    # the backgame and crashed nets value exactly their classes' positions
    classes = np.array([nn.board_class(b) for b in class_boards])
    for net, cls in (("backgame", BACKGAME), ("crashed", CRASHED)):
        other = dict(explicit)
        other[f"{net}.b2"] = explicit[f"{net}.b2"] + np.float32(0.5)
        model.set_weights(other)
        after = model.evaluate_batch(boards)
        moved = np.any(after != before, axis=1)
        assert np.array_equal(moved, classes == cls)
        assert moved.sum() > 400
    # children and choices too: a backgame position's plays change, a contact position's do not
    contact = next(b for b, c in zip(class_boards, classes) if c == 0 and Position.from_bytes(b).pip_count()[0] > 120)
    kids, probs = model.children(contact, 3, 1)
    model.set_weights(explicit)
    assert np.array_equal(model.children(contact, 3, 1)[1], probs)


def test_a_file_of_four_nets_round_trips_and_plays_the_same_games(tiny: Weights, tmp_path: Path) -> None:
    arrays = dict(tiny.arrays)
    rng = np.random.default_rng(4)
    for part, shape in nn.Model(16, 8, 24, crashed_hidden=32).shapes().items():
        if part.startswith(("backgame.", "crashed.")):
            arrays[part] = (rng.standard_normal(shape) * 0.3).astype(np.float32)
    weights = Weights(arrays, {"note": "four nets"})
    assert weights.hidden == (16, 8, 24, 32)
    path = tmp_path / "four.bgw"
    write_weights(path, weights)
    again = read_weights(path)
    assert again.hidden == (16, 8, 24, 32) and list(again.arrays) == list(nn.Model(16, 8, 24, crashed_hidden=32).shapes())
    for name in weights.arrays:
        assert np.array_equal(again.arrays[name], weights.arrays[name])
    header = json.loads(path.read_bytes()[16:16 + struct.unpack_from("<I", path.read_bytes(), 12)[0]])
    assert header["nets"] == {"contact": {"hidden": 16}, "race": {"hidden": 8}, "backgame": {"hidden": 24},
                              "crashed": {"hidden": 32}}
    model = again.model()
    assert (model.contact_hidden, model.race_hidden, model.backgame_hidden, model.crashed_hidden) == (16, 8, 24, 32)
    assert all(np.array_equal(a, again.arrays[k]) for k, a in model.get_weights().items())
    import pickle

    copy = pickle.loads(pickle.dumps(model))
    assert (copy.backgame_hidden, copy.crashed_hidden) == (24, 32)
    start = Position().to_bytes()
    assert copy.evaluate(start) == model.evaluate(start)
    one, two = NeuralBot(weights=weights, cube="never"), NeuralBot(weights=path, cube="never")
    pub = get_bot("pubeval", cube="never")
    for i in range(3):
        assert MatchPlayer(one, pub, rules=Rules(jacoby=False)).record(5, i) == \
            MatchPlayer(two, pub, rules=Rules(jacoby=False)).record(5, i)
    a = self_play(weights.model()).versus("neural", "pubeval", 5, 0, 40)
    b = self_play(again.model()).versus("neural", "pubeval", 5, 0, 40)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


PILOT_R16 = Path(__file__).resolve().parents[1] / "experiments" / "train_round16" / "pilot-R16.bgw"
"""A file written before the crashed net: three nets, each with its pruning net."""


def test_a_file_of_three_nets_values_crashed_positions_with_its_contact_and_pruning_nets(
        class_boards: list[bytes], tmp_path: Path) -> None:
    data = PILOT_R16.read_bytes()
    header = json.loads(data[16:16 + struct.unpack_from("<I", data, 12)[0]])
    assert not any(a["name"].startswith("crashed.") for a in header["arrays"])
    three = read_weights(PILOT_R16)
    for part in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(three.arrays[f"crashed.{part}"], three.arrays[f"contact.{part}"])
        assert np.array_equal(three.arrays[f"crashed.prune.{part}"], three.arrays[f"contact.prune.{part}"])
    assert three.same_net("crashed", "contact") and three.same_net("crashed.prune", "contact.prune")
    # written again it is the same file
    path = tmp_path / "again.bgw"
    write_weights(path, three)
    assert path.read_bytes() == data
    # as soon as its crashed net is its own, a file of four nets (and pruning nets)
    changed = Weights(three.arrays, three.meta)
    changed.arrays["crashed.b2"] = changed.arrays["crashed.b2"] + np.float32(0.25)
    write_weights(path, changed)
    four = read_weights(path)
    assert not four.same_net("crashed", "contact") and four.same_net("crashed.prune", "contact.prune")
    assert list(four.arrays) == list(three.arrays) == list(three.model().shapes())
    written = path.read_bytes()
    names = {a["name"] for a in json.loads(written[16:16 + struct.unpack_from("<I", written, 12)[0]])["arrays"]}
    assert {"crashed.w1", "crashed.prune.w1"} <= names
    boards = np.array([list(b) for b in class_boards], dtype=np.uint8)
    moved = np.any(four.model().evaluate_batch(boards) != three.model().evaluate_batch(boards), axis=1)
    assert np.array_equal(moved, np.array([nn.board_class(b) == CRASHED for b in class_boards]))


ROUND_14 = Path(__file__).resolve().parents[1] / "experiments" / "train_round15" / "start-round14.bgw"
"""Round 14, shipped before the crashed net: three nets and their pruning nets."""

ROUND_14_VALUES = "70acadbb12ec38ff9400eacdb8a52f314b3de05cff56d2a5c1b853e837d036ae"
"""SHA-256 of round 14's values: the float32 bytes of ``evaluate_batch`` of the yardstick's
2,700 positions, then, for every seventh, its children's probabilities for 6-3 and its
pruned 0-ply choice for 5-2.  Pinned by the build before the crashed net (commit 3dcf998),
and again when a roll's race plays began to share the side on roll's race inputs in their
sums (their values moved by at most 7e-7; no play of 18,900 decisions changed)."""


def test_a_file_of_three_nets_values_and_plays_as_the_build_before_the_crashed_net() -> None:
    model = read_weights(ROUND_14).model()
    boards = np.array([list(b) for b in _yardstick_boards()], dtype=np.uint8)
    parts = []
    for board in boards[::7]:
        parts.append(model.children(bytes(board), 6, 3)[1].ravel())
        parts.append(np.frombuffer(model.choose(bytes(board), 5, 2, prune=True), np.uint8).astype(np.float32))
    values = model.evaluate_batch(boards).tobytes() + np.concatenate(parts).tobytes()
    assert hashlib.sha256(values).hexdigest() == ROUND_14_VALUES


@pytest.mark.parametrize("net", ["backgame", "crashed"])
def test_bad_backgame_and_crashed_arrays_are_refused(tiny: Weights, net: str) -> None:
    wrong = dict(tiny.arrays)
    wrong[f"{net}.w1"] = wrong[f"{net}.w1"][:, :8]                  # 8 units, its b1 has 16
    with pytest.raises(InvalidWeightsError, match=f"{net}.w1"):
        decode_weights(encode_weights(Weights(wrong)))
    with pytest.raises(InvalidWeightsError, match=f"{net}.w1"):
        Weights(wrong).model()
    partial = {k: a for k, a in tiny.arrays.items() if k != f"{net}.w2"}     # one array missing
    with pytest.raises(InvalidWeightsError, match=f"missing {net}.w2"):
        decode_weights(encode_weights(Weights(partial)))
    odd = dict(tiny.arrays)
    odd[f"{net}.b1"] = np.zeros(12, dtype=np.float32)                   # not a multiple of 8
    with pytest.raises(InvalidWeightsError, match="multiple of 8"):
        decode_weights(encode_weights(Weights(odd)))
    with pytest.raises(ValueError):
        nn.Model(16, 8, 520)
    with pytest.raises(ValueError):
        nn.Model(16, 8, 16, crashed_hidden=12)


def test_a_file_of_two_nets_with_pruning_nets_is_refused(tiny: Weights) -> None:
    """Pruning nets came after the backgame net: no file of two nets held them."""
    arrays = {name: a for name, a in tiny.arrays.items() if name.startswith(("contact.", "race."))}
    for net in ("contact", "race"):
        arrays.update({f"{net}.prune.w1": np.zeros((nn.RAW_INPUTS, 8), np.float32),
                       f"{net}.prune.b1": np.zeros(8, np.float32), f"{net}.prune.w2": np.zeros((1, 8), np.float32),
                       f"{net}.prune.b2": np.zeros(1, np.float32)})
    data = encode_weights(Weights({k: a for k, a in arrays.items()}))
    with pytest.raises(InvalidWeightsError, match="the arrays are not a net's"):
        decode_weights(data)


def test_training_moves_only_the_net_of_each_position_class(class_boards: list[bytes]) -> None:
    weights = initial_weights(TrainConfig(contact_hidden=16, race_hidden=8, init_seed=6))
    boards = np.array([list(b) for b in class_boards], dtype=np.uint8)
    classes = np.array([nn.board_class(b) for b in class_boards])
    for cls, net in enumerate(nn.NETS):
        model = weights.model()
        rows = np.nonzero(classes == cls)[0][:50].astype(np.int64)
        targets = np.full((len(boards), 5), 0.25, dtype=np.float32)
        counts = train_positions(model, boards, targets, 0.05, 0.05, rows)
        assert counts == tuple(len(rows) if k == cls else 0 for k in range(len(nn.NETS)))
        changed = {name.split(".")[0] for name, a in model.get_weights().items()
                   if not np.array_equal(a, weights.arrays[name])}
        assert changed == {net}
    # self-play TD training reaches the backgame and crashed nets too
    model = weights.model()
    positions, _, mse = self_play(model).td_train(3, 0, 150, 0.7, 0.03, 0.03)
    assert len(positions) == len(mse) == 4 and positions[BACKGAME] > 0 and positions[CRASHED] > 0
    for net in ("backgame", "crashed"):
        assert not np.array_equal(model.get_weights()[f"{net}.w2"], weights.arrays[f"{net}.w2"])
    # widening (Net2Net) widens the backgame and crashed nets with the contact net and keeps its function
    trained = Weights.of(model)
    wide = widen(trained, 32, 16, seed=1, scale=0.1)
    assert wide.hidden == (32, 16, 32, 32)
    assert np.allclose(wide.model().evaluate_batch(boards), model.evaluate_batch(boards), atol=1e-5)


# ---------------------------------------------------------------- the race net's own inputs

def _race_boards(boards: list[bytes]) -> list[bytes]:
    return [b for b in boards if nn.board_class(b) == nn.NETS.index("race")]


@pytest.fixture(scope="module")
def race_model() -> nn.Model:
    """A random net whose race net weighs its own inputs too."""
    weights = initial_weights(TrainConfig(contact_hidden=16, race_hidden=16, init_seed=4, init_scale=0.5))
    arrays = dict(weights.arrays)
    rows = np.random.default_rng(5).standard_normal((nn.RACE_INPUTS, 16)).astype(np.float32)
    arrays["race.w1"] = np.concatenate([arrays["race.w1"][:nn.INPUTS], rows])
    return Weights(arrays).model()


def test_the_race_inputs_are_the_bear_off_chances_of_a_side_at_home_and_the_way_home_of_one_outside() -> None:
    home = [3, 3, 3, 2, 2, 2]                                  # the side on roll: 15 checkers at home
    away = [0] * 25
    away[1], away[7], away[12] = 4, 6, 5                       # the opponent: 11 checkers to bring home
    x = nn.race_inputs_batch(np.array([away + home + [0] * 19], dtype=np.uint8))[0]
    assert x.shape == (nn.RACE_INPUTS,) == (71,) and nn.RACE_HOME_INPUTS == 36
    finish = np.cumsum(bo.rolls(home))
    first = np.cumsum(bo.first_off(home))
    assert x[:10] == pytest.approx(finish[1:11], abs=1e-6)     # P(all off within 1 .. 10 rolls)
    assert x[10:14] == pytest.approx(first[1:5], abs=1e-6)     # P(the first off within 1 .. 4 rolls)
    assert list(x[14:18]) == [1.0, 1.0, 0.0, 0.0]             # at home, 15 on the board
    expected = np.zeros(18, dtype=np.float32)
    expected[16] = (6 * 2 + 5 * 7) / 40                       # pips to bring every checker home
    expected[17] = 11 / 15                                    # checkers outside the home board
    assert x[18:36] == pytest.approx(expected, abs=1e-6)
    assert not x[36:52].any()                                 # no estimate for a side at home
    assert x[52:68] == pytest.approx(_race_estimate(away), abs=1e-5)
    assert x[68:] == pytest.approx(_race_chances(home + [0] * 19, away), abs=1e-5)
    some_off = away + [2, 1, 0, 0, 0, 0] + [0] * 19            # 3 left at home: no first-off chances
    y = nn.race_inputs_batch(np.array([some_off], dtype=np.uint8))[0]
    assert y[:10] == pytest.approx(np.cumsum(bo.rolls([2, 1, 0, 0, 0, 0]))[1:11], abs=1e-6)
    assert list(y[10:18]) == [0, 0, 0, 0, 1, 0, 0, 0]
    assert not y[36:52].any()
    crowded = np.array([away + [16] + [0] * 24], dtype=np.uint8)   # 16 checkers: not a board
    for batch in (nn.race_inputs_batch, nn.inputs_batch):
        with pytest.raises(ValueError, match="legal board"):
            batch(crowded)


_ROLL_PIPS = np.zeros(25)
for _d1 in range(1, 7):
    for _d2 in range(1, 7):
        _ROLL_PIPS[4 * _d1 if _d1 == _d2 else _d1 + _d2] += 1 / 36


def _race_rolls(side: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The rolls a side (25 counts) needs to bear off its last and its first checker (P of
    exactly n rolls, n = 0 .. 31; the first all 0 without 15 on the board), as the core's
    docstrings define them, computed plainly: the database's for a side at home; else the
    rolls that bring its checkers to its 6-point (doubles four times), then the database's
    from there, the roll that brings the last one home counted as the share of a roll of
    bearing off that it leaves over."""
    fifteen = sum(side) == 15
    if not any(side[6:]):
        return bo.rolls(side[:6]).astype(float), (bo.first_off(side[:6]) if fifteen else np.zeros(32)).astype(float)
    pips_home = sum(n * (i - 5) for i, n in enumerate(side) if i >= 6)
    gathered = side[:5] + [side[5] + sum(side[6:])]
    brought = [np.array([1.0])]                              # P(k rolls bring exactly p pips)
    while brought[-1][:pips_home].sum() > 1e-12 or len(brought) < 32:
        brought.append(np.convolve(brought[-1], _ROLL_PIPS))
    left = sum(b[p] * _ROLL_PIPS[step] * (p + step - pips_home) / step
               for b in brought for p in range(min(pips_home, len(b))) for step in range(3, 25)
               if p + step >= pips_home)
    home_by = [b[pips_home:].sum() for b in brought]
    after = np.append(bo.rolls(gathered), 0.0)
    first_after = np.append(bo.first_off(gathered) if fifteen else np.zeros(32), 0.0)
    finish, first = np.zeros(32), np.zeros(32)
    for k in range(1, 32):
        home_on = home_by[k] - home_by[k - 1]
        for n in range(k, 32):
            finish[n] += home_on * ((1 - left) * after[n - k] + left * after[n - k + 1])
            first[n] += home_on * ((1 - left) * first_after[n - k] + left * first_after[n - k + 1])
    return finish, first


def _race_estimate(side: list[int]) -> np.ndarray:
    """The 16 estimated race inputs of a side with checkers outside (25 counts)."""
    finish, first = _race_rolls(side)
    return np.concatenate([finish[1:11], first[1:7]])


def _race_chances(on_roll: list[int], other: list[int]) -> np.ndarray:
    """The race's chances (win, win gammon, lose gammon) of the side on roll by its and the
    other side's rolls, taken as independent."""
    f0, a0 = _race_rolls(on_roll)
    f1, a1 = _race_rolls(other)
    behind1 = 1 - np.concatenate([[0], np.cumsum(f1)[:-1]])              # P(the other needs n or more)
    first_behind1 = 1 - np.concatenate([[0], np.cumsum(a1)[:-1]])
    win = (f0 * behind1).sum()
    win_gammon = (f0 * first_behind1).sum() if sum(other) == 15 else 0.0
    lose_gammon = (f1 * (1 - np.cumsum(a0))).sum() if sum(on_roll) == 15 else 0.0
    return np.clip([win, win_gammon, lose_gammon], 0, 1)


@given(legal_boards())
@settings(max_examples=150, deadline=None)
def test_the_estimated_race_inputs_follow_their_definition(board: list[list[int]]) -> None:
    x = nn.race_inputs_batch(np.array([board[0] + board[1]], dtype=np.uint8))[0]
    for side, est in ((board[1], x[36:52]), (board[0], x[52:68])):
        if not any(side[6:]):
            assert not est.any()
            continue
        assert est == pytest.approx(_race_estimate(side), abs=2e-5)
        finish, first = est[:10], est[10:]
        assert est.min() >= 0 and finish.sum() <= 1 + 1e-5 and first.sum() <= 1 + 1e-5
        if sum(side) == 15:                                    # the first checker off no later than the last
            assert np.all(np.cumsum(first) >= np.cumsum(finish)[:6] - 1e-5)
        else:
            assert not first.any()
    assert x[68:] == pytest.approx(_race_chances(board[1], board[0]), abs=2e-5)


def test_the_race_inputs_build_the_database_they_read() -> None:
    """In a fresh process that has built no model (so no bear-off database yet), the race
    inputs are the database's all the same."""
    import subprocess
    import sys
    code = ("import numpy as np; from bgfast._core import neural as nn; "
            "b = [0] * 25 + [3, 3, 3, 2, 2, 2] + [0] * 19; b[7] = 1; "
            "x = nn.race_inputs_batch(np.array([b], dtype=np.uint8))[0]; print(float(x[:10].sum()), float(x[68]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert float(out[0]) > 0 and 0 < float(out[1]) <= 1


def test_the_race_chances_of_a_pure_bear_off_are_the_databases() -> None:
    """Both sides at home: the estimated chances are the one-sided database's exact values
    of the bear-off (what the core values such a position by)."""
    for on_roll, other in (([2, 2, 3, 3, 3, 2], [0, 3, 3, 3, 3, 3]), ([1, 0, 2, 0, 0, 1], [0, 0, 0, 2, 2, 0]),
                           ([0, 0, 0, 0, 0, 1], [3, 3, 3, 2, 2, 2])):
        board = other + [0] * 19 + on_roll + [0] * 19
        x = nn.race_inputs_batch(np.array([board], dtype=np.uint8))[0]
        exact = bo.probabilities(np.array(board, dtype=np.uint8))
        assert x[68:] == pytest.approx([exact[0], exact[1], exact[3]], abs=1e-5)


def test_the_race_net_reads_its_own_inputs_on_every_path(race_model: nn.Model, class_boards: list[bytes]) -> None:
    from bgfast.train.supervised import NetFit, _forward, _inputs, _joint

    races = _race_boards(class_boards)[:300]
    assert len(races) >= 100
    boards = np.array([list(b) for b in races], dtype=np.uint8)
    fit = NetFit.of(Weights.of(race_model), "race")
    x, mask = _inputs(fit, boards)
    assert x.shape == (len(races), nn.INPUTS + nn.RACE_INPUTS) and x[:, nn.INPUTS:].any()
    _, o = _forward(fit, x)
    expected = _joint(o, mask)
    got = np.array([race_model.evaluate_net(b) for b in races])
    assert np.allclose(got, expected, atol=2e-5)
    blind = {k: a.copy() for k, a in race_model.get_weights().items()}
    blind["race.w1"][nn.INPUTS:] = 0
    unseen = Weights(blind).model()
    assert np.abs(np.array([unseen.evaluate_net(b) for b in races]) - got).max() > 0.01
    for board in races[:40]:                                   # the children of a roll, valued together
        kids, probs = race_model.children(board, 6, 2)
        for kid, p in zip(kids, probs):
            assert np.asarray(race_model.evaluate_after(kid)) == pytest.approx(p, abs=2e-5)
    # the search's children of a parent (neural_children_of) agree with the plain evaluations
    evaluator = CoreEvaluator(race_model, EvaluatorKind.EVAL_NEURAL)
    for board in races[:10]:
        plain = np.mean([race_model.evaluate_after(kid) for d1 in range(1, 7) for d2 in range(1, 7)
                         for kid in [race_model.choose(board, d1, d2)]], axis=0)
        assert np.asarray(evaluator.on_roll(board, 1)) == pytest.approx(plain, abs=2e-5)


def test_training_moves_the_race_net_s_weights_of_its_own_inputs(class_boards: list[bytes]) -> None:
    weights = initial_weights(TrainConfig(contact_hidden=16, race_hidden=8, init_seed=6))
    assert weights.arrays["race.w1"].shape == (nn.INPUTS + nn.RACE_INPUTS, 8)
    assert not weights.arrays["race.w1"][nn.INPUTS:].any()
    model = weights.model()
    boards = np.array([list(b) for b in _race_boards(class_boards)[:50]], dtype=np.uint8)
    targets = np.full((len(boards), 5), 0.25, dtype=np.float32)
    train_positions(model, boards, targets, 0.05, 0.05, np.arange(len(boards), dtype=np.int64))
    assert model.get_weights()["race.w1"][nn.INPUTS:].any()


def test_a_race_net_of_an_older_file_gets_zero_rows_for_its_own_inputs(tiny: Weights) -> None:
    old = dict(tiny.arrays)
    old["race.w1"] = old["race.w1"][:nn.INPUTS]
    weights = decode_weights(encode_weights(Weights(old)))
    assert weights.arrays["race.w1"].shape == tiny.arrays["race.w1"].shape
    assert not weights.arrays["race.w1"][nn.INPUTS:].any()
    # a file of rounds 12 to 18: rows for the first RACE_HOME_INPUTS, none for the estimated ones
    home_rows = nn.INPUTS + nn.RACE_HOME_INPUTS
    rounds_12_to_18 = dict(tiny.arrays)
    rounds_12_to_18["race.w1"] = np.random.default_rng(3).standard_normal(
        (home_rows, tiny.arrays["race.w1"].shape[1])).astype(np.float32)
    data = encode_weights(Weights(rounds_12_to_18))
    read = decode_weights(data)
    assert read.arrays["race.w1"].shape == tiny.arrays["race.w1"].shape
    assert np.array_equal(read.arrays["race.w1"][:home_rows], rounds_12_to_18["race.w1"])
    assert not read.arrays["race.w1"][home_rows:].any()
    assert encode_weights(read) == data                       # written again, the same file
    read.arrays["race.w1"][-1] = 0.5                          # weighing the race's chances: all its rows
    again = decode_weights(encode_weights(read))
    assert np.array_equal(again.arrays["race.w1"], read.arrays["race.w1"])
    wrong = dict(tiny.arrays)
    wrong["race.w1"] = wrong["race.w1"][:nn.INPUTS + 4]
    with pytest.raises(InvalidWeightsError):
        Weights(wrong).model()


@pytest.mark.parametrize("fact", [np.int64(3), {1, 2}])
def test_meta_facts_that_are_not_plain_json_are_refused(tiny: Weights, tmp_path: Path, fact: object) -> None:
    with pytest.raises(InvalidWeightsError, match="not plain JSON"):
        write_weights(tmp_path / "w.bgw", Weights(tiny.arrays, {"fact": fact}))
    assert not (tmp_path / "w.bgw").exists()


def test_weights_that_reading_would_refuse_are_not_written(tiny: Weights, tmp_path: Path) -> None:
    wrong = dict(tiny.arrays)
    wrong["race.w1"] = wrong["race.w1"][:nn.INPUTS + 4]
    with pytest.raises(InvalidWeightsError, match=r"w\.bgw \(not written\): the arrays do not fit"):
        write_weights(tmp_path / "w.bgw", Weights(wrong))
    assert not (tmp_path / "w.bgw").exists()
