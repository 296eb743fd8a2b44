"""The search's pruning nets: the pruned favourite against a plain reference, the search
built on it, the weights that carry them, and their distillation (bgfast.train.prune)."""
from __future__ import annotations

import pickle
from functools import lru_cache

import numpy as np
import pytest

from bgfast._core import neural as nn
from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast._core.search import DEFAULT_FILTERS
from bgfast.bots import get_bot
from bgfast.bots.neural import NeuralBot, shipped_weights
from bgfast.bots.neural_weights import Weights, decode_weights, default_weights_path, encode_weights, read_weights
from bgfast.errors import InvalidBotOptionsError, InvalidSpecError, InvalidWeightsError
from bgfast.position import Position
from bgfast.train.cli import main as train_main
from bgfast.train.prune import distil_prune, fit_prune, prune_examples, prune_misses, self_play_rolls
from test_search import ROLLS_21, SPECIAL, Reference, _f32_equity, _positions

NEURAL = EvaluatorKind.EVAL_NEURAL


@pytest.fixture(scope="module")
def pruned() -> Weights:
    return distil_prune(shipped_weights(), hidden=16, positions=400, epochs=3, seed=7, check_positions=60)


@pytest.fixture(scope="module")
def model(pruned: Weights) -> nn.Model:
    return pruned.model()


def _keep(plays: int) -> int:
    return nn.PRUNE_BASE + int(np.floor(np.log2(plays)))


def _after(kids: list[bytes]) -> np.ndarray:
    mover = np.frombuffer(b"".join(kids), dtype=np.uint8).reshape(-1, 50)
    return np.ascontiguousarray(np.concatenate([mover[:, 25:], mover[:, :25]], axis=1))


def _prune_keys(weights: Weights, kids: list[bytes], values: np.ndarray) -> np.ndarray:
    """The pruning nets' equity of each play for the mover, in float64 (exact values for a
    pure bear-off or a game decided)."""
    x, classes, _ = nn.inputs_batch(_after(kids))
    keys = np.array([float(_f32_equity(v)) for v in values])
    for k, net in enumerate(nn.NETS):
        rows = classes == k
        a = {part: weights.arrays[f"{net}.prune.{part}"].astype(np.float64) for part in ("w1", "b1", "w2", "b2")}
        hidden = 1 / (1 + np.exp(-(x[rows, :nn.RAW_INPUTS].astype(np.float64) @ a["w1"] + a["b1"])))
        keys[rows] = -(hidden @ a["w2"][0] + a["b2"][0])
    return keys


def _reference_favourite(model: nn.Model, weights: Weights, board: bytes, d1: int, d2: int
                         ) -> tuple[set[int], list[bytes], np.ndarray] | None:
    """The plays the pruned search may pick (the net's best among the pruning nets' best
    ``_keep`` plays, of every play in a race; more than one on a float tie), or None where
    the pruning nets' ranking ties at the cut."""
    kids, values = model.children(board, d1, d2)
    full = np.array([float(_f32_equity(v)) for v in values])
    if len(kids) <= _keep(len(kids)) or Position.from_bytes(board).is_race():
        top = list(range(len(kids)))
    else:
        keys = _prune_keys(weights, kids, values)
        order = sorted(range(len(kids)), key=lambda i: -keys[i])
        cut = _keep(len(kids))
        if keys[order[cut - 1]] - keys[order[cut]] < 1e-4:
            return None
        top = order[:cut]
    best = max(full[i] for i in top)
    return {i for i in top if full[i] >= best - 1e-5}, kids, values


def test_the_pruned_favourite_is_the_best_of_the_pruning_nets_best(model: nn.Model, pruned: Weights) -> None:
    boards, dice = self_play_rolls(model, 300, seed=31)
    checked = pruned_rolls = 0
    for board, (d1, d2) in list(zip(boards, dice)) + [(b, r) for b in SPECIAL.values() for r in ROLLS_21]:
        board = bytes(board)
        reference = _reference_favourite(model, pruned, board, int(d1), int(d2))
        if reference is None:
            continue
        allowed, kids, _ = reference
        got = kids.index(model.choose(board, int(d1), int(d2), prune=True))
        assert got in allowed, (board.hex(), d1, d2)
        checked += 1
        pruned_rolls += len(kids) > _keep(len(kids))
    assert checked > 350 and pruned_rolls > 100


def test_a_roll_of_few_plays_or_in_a_race_is_not_pruned(model: nn.Model) -> None:
    boards, dice = self_play_rolls(model, 400, seed=32)
    few = races = 0
    for board, (d1, d2) in zip(boards, dice):
        kids, _ = model.children(board, int(d1), int(d2))
        race = Position.from_bytes(bytes(board)).is_race()
        if len(kids) <= _keep(len(kids)) or race:
            few += not race
            races += race and len(kids) > _keep(len(kids))
            assert model.choose(board, int(d1), int(d2), prune=True) == model.choose(board, int(d1), int(d2))
    assert few > 20 and races > 5


class PrunedReference(Reference):
    """The search in plain Python with pruned replies."""

    def __init__(self, model: nn.Model, weights: Weights) -> None:
        super().__init__(model, DEFAULT_FILTERS, "0-ply")
        self.weights = weights
        self.favourite = lru_cache(maxsize=None)(self._favourite)

    def _favourite(self, board: bytes, d1: int, d2: int) -> tuple[bytes, np.ndarray]:
        kids, values = self.model.children(board, d1, d2)
        index = kids.index(self.model.choose(board, d1, d2, prune=True))
        return kids[index], values[index].astype(np.float64)

    def choose(self, board: bytes, d1: int, d2: int, plies: int) -> tuple[bytes, np.ndarray]:
        if plies == 0:
            return self.favourite(board, d1, d2)
        return super().choose(board, d1, d2, plies)


@pytest.mark.parametrize("plies", [1, 2])
def test_the_pruned_search_averages_the_pruned_replies(model: nn.Model, pruned: Weights, plies: int) -> None:
    ev = CoreEvaluator(model, NEURAL)
    assert ev.prune is True
    ref = PrunedReference(model, pruned)
    boards = _positions(10 if plies == 1 else 4, seed=9) + [SPECIAL["bearoff_contact"], SPECIAL["bar"]]
    for board in boards:
        assert ev.on_roll(board, plies) == pytest.approx(ref.preroll(board, plies), abs=2e-5)


def test_prune_false_is_the_search_without_pruning_nets_to_the_bit(model: nn.Model) -> None:
    plain = shipped_weights().nets_only().model()
    off = CoreEvaluator(model, NEURAL, ply=2, prune=False)
    unpruned = CoreEvaluator(plain, NEURAL, ply=2)
    assert unpruned.prune is False
    on = CoreEvaluator(model, NEURAL, ply=2)
    differ = 0
    for board in _positions(6, seed=11):
        assert off.on_roll(board, 2) == unpruned.on_roll(board, 2)
        assert off.choose(board, 3, 1) == unpruned.choose(board, 3, 1)
        differ += on.on_roll(board, 2) != unpruned.on_roll(board, 2)
    assert differ > 0                   # and pruning does change values


def test_a_zero_ply_play_is_never_pruned(model: nn.Model) -> None:
    plain = CoreEvaluator(shipped_weights().nets_only().model(), NEURAL)
    ev = CoreEvaluator(model, NEURAL)
    for board in _positions(20, seed=12):
        assert ev.choose(board, 6, 5) == plain.choose(board, 6, 5)
        assert ev.on_roll(board, 0) == plain.on_roll(board, 0)


def test_pruning_settings_are_checked(model: nn.Model) -> None:
    plain = shipped_weights().nets_only().model()
    with pytest.raises(ValueError, match="pruning nets"):
        CoreEvaluator(plain, NEURAL, prune=True)
    with pytest.raises(ValueError, match="prune is True, False or None"):
        CoreEvaluator(model, NEURAL, prune="yes")
    with pytest.raises(ValueError, match="no search"):
        CoreEvaluator(get_bot("heuristic").evaluator.weights, EvaluatorKind.EVAL_HEURISTIC, prune=False)
    with pytest.raises(ValueError, match="multiple of 8"):
        nn.Model(128, 64, prune_hidden=12)
    with pytest.raises(ValueError, match="multiple of 8"):
        nn.Model(128, 64, prune_hidden=nn.PRUNE_MAX_HIDDEN + 8)
    with pytest.raises(InvalidBotOptionsError, match="pruning nets"):
        NeuralBot(prune=True, weights=shipped_weights().nets_only())
    with pytest.raises(InvalidBotOptionsError, match="prune must be"):
        NeuralBot(prune=1)  # type: ignore[arg-type]


def test_a_bot_with_pruning_nets_prunes_unless_told_and_rebuilds(pruned: Weights, tmp_path) -> None:
    path = tmp_path / "pruned.bgw"
    path.write_bytes(encode_weights(pruned))
    bot = get_bot(f"neural:ply=1,weights={path}")
    assert bot.evaluator.prune is True and "prune" not in bot.options()
    off = get_bot(f"neural:ply=1,prune=false,weights={path}")
    assert off.evaluator.prune is False and off.options()["prune"] is False
    assert get_bot("neural", **off.options()).evaluator.prune is False


def test_the_weights_file_carries_the_pruning_nets(pruned: Weights, model: nn.Model) -> None:
    back = decode_weights(encode_weights(pruned))
    assert back.prune_hidden == 16 and shipped_weights().nets_only().prune_hidden == 0
    for name, array in pruned.arrays.items():
        assert np.array_equal(back.arrays[name], array)
    assert back.arrays["contact.prune.w1"].shape == (nn.RAW_INPUTS, 16)
    assert back.arrays["race.prune.w2"].shape == (1, 16)
    copy = pickle.loads(pickle.dumps(model))
    assert copy.prune_hidden == 16
    board = _positions(1, seed=13)[0]
    assert copy.choose(board, 5, 2, prune=True) == model.choose(board, 5, 2, prune=True)
    assert back.meta["prune"]["hidden"] == 16 and back.meta["prune"]["check"]["rolls"] > 0


def test_a_file_with_some_pruning_nets_or_bad_shapes_is_refused(pruned: Weights) -> None:
    arrays = dict(pruned.arrays)
    del arrays["race.prune.b2"]
    with pytest.raises(InvalidWeightsError, match="missing race.prune.b2"):
        decode_weights(encode_weights(Weights(arrays)))
    arrays = dict(pruned.arrays)
    arrays["backgame.prune.w1"] = np.zeros((nn.RAW_INPUTS, 24), dtype=np.float32)
    with pytest.raises(InvalidWeightsError, match="backgame.prune"):
        decode_weights(encode_weights(Weights(arrays)))
    arrays = dict(pruned.arrays)
    arrays["contact.prune.w2"] = np.zeros((5, 16), dtype=np.float32)
    with pytest.raises(InvalidWeightsError, match="contact.prune.w2"):
        decode_weights(encode_weights(Weights(arrays)))


def test_the_fit_lowers_the_equity_error_and_the_misses_are_counted(model: nn.Model) -> None:
    examples = prune_examples(model, *self_play_rolls(model, 200, seed=21))
    equity = (2 * examples.targets[:, 0] - 1 + examples.targets[:, 1] - examples.targets[:, 3]
              + examples.targets[:, 2] - examples.targets[:, 4])
    errors = []
    for epochs in (1, 4):
        arrays = fit_prune(examples, hidden=8, epochs=epochs, seed=3)
        rows = examples.classes == 0
        a = {part: arrays[f"contact.prune.{part}"] for part in ("w1", "b1", "w2", "b2")}
        h = 1 / (1 + np.exp(-(examples.codes[rows].astype(np.float32) @ a["w1"] + a["b1"])))
        errors.append(float(np.sqrt(np.mean((h @ a["w2"][0] + a["b2"][0] - equity[rows]) ** 2))))
    assert errors[1] < errors[0]
    counts = prune_misses(model, *self_play_rolls(model, 100, seed=22))
    assert 0 <= counts["misses"] <= counts["pruned"] <= counts["rolls"] <= 100
    assert counts["loss_mp"] >= 0 and counts["worst_mp"] >= counts["loss_mp"]
    with pytest.raises(ValueError, match="no pruning nets"):
        prune_misses(shipped_weights().nets_only().model(), *self_play_rolls(model, 5, seed=22))
    with pytest.raises(InvalidSpecError, match="multiple of 8"):
        fit_prune(examples, hidden=10)


def test_the_command_writes_pruned_weights_or_says_why_not(tmp_path, capsys) -> None:
    target = tmp_path / "out.bgw"
    source = tmp_path / "missing.bgw"
    assert train_main(["prune", str(source), str(target)]) == 2
    assert "missing.bgw" in capsys.readouterr().err
    shipped = str(default_weights_path())
    assert train_main(["prune", shipped, str(target), "--hidden", "12"]) == 2
    assert "multiple of 8" in capsys.readouterr().err and not target.exists()
    assert train_main(["prune", shipped, str(target), "--hidden", "8", "--positions", "400", "--epochs", "1",
                       "--check-positions", "20"]) == 0
    out = capsys.readouterr().out
    assert "held out" in out and f"wrote {target}" in out
    written = read_weights(target)
    assert written.prune_hidden == 8 and written.meta["prune"]["positions"] == 400



def test_training_from_pruned_weights_drops_the_pruning_nets(pruned: Weights, tmp_path) -> None:
    from bgfast.train.config import TrainConfig
    from bgfast.train.supervised import RefineConfig, run_refine
    from bgfast.train.td import start_weights

    config = RefineConfig(games=1, block_games=1, stride=1000, plies=0, epochs=1, eval_pairs=0, threads=1,
                          nets="backgame", seed=1)
    said: list[str] = []
    refined = run_refine(config, pruned, tmp_path / "run", log=said.append)
    assert refined.prune_hidden == 0 and "prune" not in refined.meta
    assert any("pruning nets are left out" in line and "bgfast train prune" in line for line in said)  # and why
    assert run_refine(config, pruned, tmp_path / "run").prune_hidden == 0      # resumes with the same start

    nets = pruned.nets_only()
    assert nets.prune_hidden == 0 and "prune" not in nets.meta and "prune" in pruned.meta
    assert set(nets.arrays) == set(shipped_weights().nets_only().arrays)
    started = start_weights(TrainConfig(contact_hidden=256, race_hidden=256, start="0" * 64), pruned)
    assert started.prune_hidden == 0


def test_settings_and_targets_are_checked_before_the_work(tmp_path, capsys, monkeypatch) -> None:
    shipped = str(default_weights_path())
    assert train_main(["prune", shipped, str(tmp_path / "t.bgw"), "--seed", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--seed must be a whole number of at least 0" in err
    # bad input, exit 2, as every bgfast output option whose folder is missing (was 1)
    assert train_main(["prune", shipped, str(tmp_path / "no" / "t.bgw"), "--positions", "150"]) == 2
    out, err = capsys.readouterr()
    assert "there is no folder" in err and "nothing was written" in err and "plays of" not in out
    assert train_main(["prune", shipped, str(tmp_path)]) == 2
    assert "it is a folder" in capsys.readouterr().err
    for bad in ({"hidden": 16.0}, {"positions": 1.5}, {"seed": None}, {"epochs": True}, {"check_positions": -1}):
        with pytest.raises(InvalidSpecError):
            distil_prune(shipped_weights(), **{"positions": 50, "epochs": 1, **bad})
    with pytest.raises(TypeError, match="takes Weights"):
        distil_prune(shipped)  # type: ignore[arg-type]
    pruned = distil_prune(shipped_weights(), hidden=np.int64(8), positions=np.int64(400), epochs=1,
                          check_positions=0)
    assert type(pruned.meta["prune"]["hidden"]) is int and pruned.prune_hidden == 8
    # a run too small to hold every class of position is refused, not fit at random
    examples = prune_examples(shipped_weights().model(), *self_play_rolls(shipped_weights().model(), 3, seed=1))
    with pytest.raises(InvalidSpecError, match="no plays of the"):
        fit_prune(examples, hidden=8, epochs=1)
    with pytest.raises(InvalidSpecError, match="lr must be"):
        fit_prune(examples, hidden=8, epochs=1, lr=float("nan"))
    # Ctrl-C: nothing was written, and no run folder to resume
    from bgfast import cli
    import bgfast.train.prune as prune_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(prune_module, "distil_prune", interrupted)
    assert cli.main(["train", "prune", shipped, str(tmp_path / "t.bgw")]) == 130
    assert capsys.readouterr().err == "bgfast: interrupted; nothing was written\n"
    assert not (tmp_path / "t.bgw").exists()


def test_some_pruning_arrays_in_memory_are_refused_and_numpy_flags_are_taken(pruned: Weights) -> None:
    arrays = {k: v for k, v in pruned.arrays.items() if not k.startswith("contact.prune")}
    with pytest.raises(InvalidWeightsError, match="some of the pruning nets' arrays"):
        Weights(arrays).model()
    with pytest.raises(InvalidWeightsError, match="some of the pruning nets' arrays"):
        NeuralBot(ply=1, weights=Weights(arrays))
    assert NeuralBot(ply=1, weights=pruned, prune=np.False_).evaluator.prune is False
