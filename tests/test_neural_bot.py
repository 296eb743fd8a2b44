"""The neural net in the core's evaluator dispatch, and the neural bot on the C fast path.

Oracles: the net's own Python face (:class:`bgfast._core.neural.Model`, which never goes
through the dispatch), a Python reference of gnubg's 1-ply (21 rolls, the 0-ply reply,
the 8-play move filter within 0.16), and :func:`bgfast.cube.decide` for the cube.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from bgfast._core import neural as nn
from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast.bots import Bot, get_bot
from bgfast.bots.neural import NeuralBot, shipped_weights
from bgfast.bots.neural_weights import Weights
from bgfast.cube import decide, decide_ahead
from bgfast.dice import Dice
from bgfast.evaluator import default_evaluator
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import Position
from bgfast.probabilities import Probabilities
from bgfast.train import TrainConfig, initial_weights

ROLLS_21 = [(a, b) for a in range(1, 7) for b in range(a, 7)]
FILTER_MOVES, FILTER_EQUITY = 8, 0.16


@pytest.fixture(scope="module")
def net() -> Weights:
    return shipped_weights()


@pytest.fixture(scope="module")
def model(net: Weights) -> nn.Model:
    return net.model()


def _equity(p: object) -> float:
    return Probabilities.of(p).equity()


def _flip(p: object) -> Probabilities:
    return Probabilities.of(p).flipped()


def _swap(board: bytes) -> bytes:
    return board[25:] + board[:25]


def _positions(count: int, seed: int = 4) -> list[Position]:
    """Positions before a roll from heuristic-vs-pubeval games (contact, races, bear-offs)."""
    player = MatchPlayer(get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never"),
                         rules=Rules(jacoby=False))
    out: list[Position] = []
    index = 0
    while len(out) < count:
        for turn in player.history(seed, index).games[0]:
            if turn.action == "move" and not turn.position.is_over() and len(out) < count:
                out.append(turn.position)
        index += 1
    return out[::-1]          # the late positions (races, bear-offs) first


# ---------------------------------------------------------------- a Python reference of 1 ply

def _roll(model: nn.Model, board: bytes, d1: int, d2: int) -> tuple[float, ...]:
    """The mover's probabilities after the net's 0-ply play of (d1, d2) from ``board`` (as
    the net valued the play to choose it), found as the search finds a reply: with the
    model's pruning nets when it has them (tests/test_prune.py checks that choice)."""
    kids, probs = model.children(board, d1, d2)
    if model.prune_hidden:
        return tuple(float(x) for x in probs[kids.index(model.choose(board, d1, d2, prune=True))])
    best = max(range(len(kids)), key=lambda i: (_equity(probs[i]), -i))
    return tuple(float(x) for x in probs[best])


def _one_ply(model: nn.Model, board: bytes) -> np.ndarray:
    total = np.zeros(5)
    for d1, d2 in ROLLS_21:
        total += (1 if d1 == d2 else 2) * np.array(_roll(model, board, d1, d2))
    return total / 36


def _choose_one_ply(model: nn.Model, board: bytes, d1: int, d2: int) -> tuple[bytes, float]:
    """gnubg's 1-ply choice, and the margin of the best over the runner-up (1-ply equity);
    of plays tied at 1 ply (say two that both win for sure), the better one at 0 ply."""
    kids, probs = model.children(board, d1, d2)
    order = sorted(range(len(kids)), key=lambda i: (-_equity(probs[i]), i))[:FILTER_MOVES]
    top = [i for i in order if _equity(probs[i]) >= _equity(probs[order[0]]) - FILTER_EQUITY]
    if len(top) == 1:
        return kids[top[0]], float("inf")
    scored = sorted(((_equity(_flip(_one_ply(model, _swap(kids[i])))), -rank) for rank, i in enumerate(top)),
                    reverse=True)
    return kids[top[-scored[0][1]]], scored[0][0] - scored[1][0]


# ---------------------------------------------------------------- the dispatch's conventions

def test_the_dispatch_gives_the_nets_values_from_the_movers_view(model: nn.Model) -> None:
    ev = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL)
    assert ev.kind == EvaluatorKind.EVAL_NEURAL and ev.ply == 0 and ev.weights is model
    for pos in _positions(40):
        board = pos.to_bytes()
        assert ev.on_roll(board) == pytest.approx(model.evaluate(board), abs=1e-7)   # flipped twice
        for child in pos.children(6, 2):
            after = ev.after(child.to_bytes())
            assert after == model.evaluate_after(child.to_bytes())
            # after the play the opponent is on roll: its 0-ply value, flipped
            assert after == pytest.approx(tuple(_flip(model.evaluate(_swap(child.to_bytes())))), abs=1e-7)


def test_a_side_that_bears_off_its_last_checker_next_roll_has_won_either_way() -> None:
    ev = CoreEvaluator(shipped_weights().model(), EvaluatorKind.EVAL_NEURAL)
    # side 0 (to roll next) has its last checker on its ace point, side 1 (the mover) 15 at home
    board = bytes([1] + [0] * 24 + [0] * 3 + [15] + [0] * 21)
    assert ev.after(board) == (0.0, 0.0, 0.0, 1.0, 0.0)          # the mover loses a gammon
    assert ev.on_roll(_swap(board)) == (1.0, 1.0, 0.0, 0.0, 0.0)  # the side on roll wins one
    assert ev.on_roll(_swap(board), 1) == pytest.approx((1.0, 1.0, 0.0, 0.0, 0.0))


def test_the_net_and_the_heuristic_agree_on_who_is_ahead(model: nn.Model) -> None:
    # a flipped view in either evaluator would make their estimates anti-correlated
    ev, heuristic = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL), default_evaluator()
    wins = np.array([(ev.after(c.to_bytes())[0], heuristic.after(c.to_bytes())[0])
                     for pos in _positions(60) for c in pos.children(4, 1)[:3]])
    assert np.corrcoef(wins[:, 0], wins[:, 1])[0, 1] > 0.9
    assert np.mean(np.abs(wins[:, 0] - wins[:, 1])) < 0.1


def test_one_ply_is_the_average_over_21_rolls_of_the_0_ply_play(model: nn.Model) -> None:
    ev = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, ply=1)      # the estimate ignores the play's ply
    boards = np.array([np.frombuffer(p.to_bytes(), dtype=np.uint8) for p in _positions(12)])
    batch = ev.on_roll_batch(boards, 1)
    for row, board in zip(batch, boards):
        expected = _one_ply(model, board.tobytes())
        assert ev.on_roll(board.tobytes(), 1) == pytest.approx(expected, abs=1e-5)
        assert row == pytest.approx(expected, abs=1e-5)
    assert ev.on_roll_batch(boards, 0) == pytest.approx(model.evaluate_batch(boards), abs=1e-7)


def test_the_1_ply_play_is_gnubgs_move_filter_and_look_ahead(model: nn.Model) -> None:
    ev = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, ply=1)
    zero = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL)
    checked = differ = 0
    for k, pos in enumerate(_positions(100, seed=6)):
        board = pos.to_bytes()
        d1, d2 = ROLLS_21[(5 * k) % 21]
        assert zero.choose(board, d1, d2) == model.choose(board, d1, d2)
        expected, margin = _choose_one_ply(model, board, d1, d2)
        if margin < 1e-4:          # a near tie: float32 sums may order it either way
            continue
        checked += 1
        assert ev.choose(board, d1, d2) == expected, pos.id()
        differ += expected != model.choose(board, d1, d2)
    assert checked >= 30 and differ >= 1       # the look-ahead changed some plays


def test_evaluators_refuse_settings_of_the_other_kind(model: nn.Model) -> None:
    for bad in ({"ply": 4}, {"cube_ply": 4}, {"filter": 5}, {"blend": 0.1}, {"cache_size": 3}):
        with pytest.raises(ValueError):
            CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, **bad)
    with pytest.raises(ValueError):
        CoreEvaluator(default_evaluator().weights, EvaluatorKind.EVAL_HEURISTIC, ply=1)
    with pytest.raises(TypeError):
        CoreEvaluator(default_evaluator().weights, EvaluatorKind.EVAL_NEURAL)
    with pytest.raises(TypeError):
        CoreEvaluator(model, EvaluatorKind.EVAL_HEURISTIC)


def test_a_pickled_neural_evaluator_evaluates_the_same(model: nn.Model) -> None:
    ev = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL, ply=1)
    again = pickle.loads(pickle.dumps(ev))
    board = Position().to_bytes()
    assert again.ply == 1 and again.on_roll(board, 1) == ev.on_roll(board, 1)
    assert again.choose(board, 4, 2) == ev.choose(board, 4, 2)
    bot = pickle.loads(pickle.dumps(NeuralBot(ply=1, cube="never")))
    assert bot.evaluate(Position()) == NeuralBot(ply=1).evaluate(Position())


# ---------------------------------------------------------------- the bot: fast path = Python path

class _PythonNeural(Bot):
    """The net's play through the loop's Python-bot path: Model.choose, or the 1-ply reference."""

    name = "python-neural"

    def __init__(self, model: nn.Model, ply: int) -> None:
        self.model, self.ply = model, ply

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Position:
        board = position.to_bytes()
        if self.ply == 0:
            return Position.from_bytes(self.model.choose(board, dice.high, dice.low))
        best, margin = _choose_one_ply(self.model, board, dice.high, dice.low)
        if margin < 1e-6:   # plays tied to float rounding (say all sure wins): the core's, if one of them
            core = CoreEvaluator(self.model, EvaluatorKind.EVAL_NEURAL, ply=1).choose(board, dice.high, dice.low)
            value = lambda b: _equity(_flip(_one_ply(self.model, _swap(b))))  # noqa: E731
            if abs(value(core) - value(best)) < 1e-6:
                best = core
        return Position.from_bytes(best)


@pytest.mark.parametrize("ply, games", [(0, 8), (1, 4)])
def test_the_fast_path_plays_the_games_of_the_python_path(model: nn.Model, net: Weights, ply: int,
                                                         games: int) -> None:
    # the plain 1-ply choice, as the reference makes it (tests/test_search.py checks the weighted one)
    fast, slow = NeuralBot(ply=ply, cube="never", weights=net, zero_ply_weight=0), _PythonNeural(model, ply)
    assert fast.core_config().play == fast.play_kind
    pub = get_bot("pubeval", cube="never")
    rules = Rules(jacoby=False)
    for i in range(games):
        for a, b in ((fast, pub), (pub, fast)):
            mine = MatchPlayer(a, b, rules=rules).history(11, i)
            theirs = MatchPlayer(*((slow, pub) if a is fast else (pub, slow)), rules=rules).history(11, i)
            assert [(t.position, t.dice, t.move) for t in mine.games[0]] == \
                   [(t.position, t.dice, t.move) for t in theirs.games[0]]
            assert mine.record.score == theirs.record.score


def test_the_bot_answers_from_python_what_the_loop_plays(net: Weights) -> None:
    bot = NeuralBot(ply=1, weights=net)
    for pos in _positions(10):
        move = bot.choose_move(pos, (5, 3))
        assert move.position == Position.from_bytes(bot.evaluator.choose(pos.to_bytes(), 5, 3))


# ---------------------------------------------------------------- the cube by the net's probabilities

def test_cube_decisions_are_the_cube_math_on_the_nets_probabilities(net: Weights) -> None:
    bot, heuristic = NeuralBot(weights=net), get_bot("heuristic")
    money = MatchState(jacoby=False)
    seven = MatchState(length=7, score=(2, 4))
    from bgfast.met import MatchEquityTable

    met = MatchEquityTable.load()
    decided = changed = 0
    for pos in _positions(120, seed=9):
        p1 = bot.evaluate(pos, 1)
        h1 = heuristic.evaluate(pos, 1)                         # type: ignore[attr-defined]
        # the answer to a double: the 1-ply estimate of the doubler's position
        answer = decide(p1, x=bot.cube_efficiency).response
        assert int(bot.accept_double(pos, money)) == min(answer, 1)
        changed += answer != decide(h1, x=0.68).response
        # a double: a 0-ply screen, then the cubeful 1-ply look-ahead (the bot's cube_ply)
        screen = decide(bot.evaluate(pos, 0), x=bot.cube_efficiency)
        ahead, _ = decide_ahead(bot.evaluator, pos.to_bytes(), 1, x=bot.cube_efficiency)
        expected = min(screen.double_take, screen.double_pass) - screen.no_double >= -0.25 and ahead.double
        assert bot.should_double(pos, money) == expected, pos.id()
        decided += expected
        # match play: the table's equities at the score
        away, opp = seven.away(seven.player_on_roll), seven.away(1 - seven.player_on_roll)
        answer = decide(p1, met=met, away=away, opp_away=opp).response
        assert int(bot.accept_double(pos, seven)) == min(answer, 1)
    assert decided >= 3 and changed >= 3        # doubles happen, and the net's view matters


# ---------------------------------------------------------------- rollouts

def test_rollouts_play_the_neural_bot_by_default() -> None:
    from bgfast.rollout import rollout

    default = rollout(Position(), trials=36, seed=2, luck=False)
    assert default.bot.split(":")[0] == "neural" and "ply=0" in default.bot
    assert default.equity == rollout(Position(), bot="neural", trials=36, seed=2, luck=False).equity
    assert default.equity != rollout(Position(), bot="pubeval", trials=36, seed=2, luck=False).equity


def test_the_net_finishes_truncated_trials() -> None:
    from bgfast.dice import ALL_36
    from bgfast.rollout import rollout

    # one ply: each of the 36 first rolls (stratified, twice) is played by pubeval, then the net
    # values the position for the opponent on roll; the trial's win chance is the flip of that
    pub, judge = get_bot("pubeval", cube="never"), NeuralBot(cube="never")
    start = Position.from_id("4HPwATDgc/ABMA")
    expected = np.mean([1 - judge.evaluate(pub.choose_move(start, roll).position.swap_sides(), 0).win
                        for roll in (Dice.of(r) for r in ALL_36)])
    cut = rollout(start, bot="pubeval", evaluator="neural", trials=72, seed=1, truncate=1, luck=False)
    assert cut.truncate == 1 and cut.win.value == pytest.approx(expected, abs=1e-6)


# ---------------------------------------------------------------- tournaments

def test_the_shipped_neural_tournament_spec_plays_through_the_runner(tmp_path) -> None:
    from pathlib import Path

    from bgfast.tournament import TournamentSpec, run_tournament

    spec_path = Path(__file__).resolve().parents[1] / "tournaments" / "neural.toml"
    spec = TournamentSpec.from_toml(spec_path)
    assert spec.players[0].bot == "neural" and not spec.rules.jacoby and spec.paired_dice
    small = TournamentSpec.from_dict({**spec.to_dict(), "matches_per_pairing": 40, "chunk_size": 10,
                                      "players": [p for p in spec.to_dict()["players"] if p["name"] != "gnubg"]})
    standings = run_tournament(small, tmp_path / "neural.sqlite", workers=2)
    assert standings.matches_played == 40
    assert standings.players[0].name == "neural"          # 40 games are enough to lead pubeval


@pytest.mark.parametrize("spec, call, plies", [
    ("neural", "evaluate", 4), ("neural", "evaluate", -1), ("neural", "evaluate", "1"),
    ("neural", "cube_decision", 4), ("heuristic", "evaluate", 2),
])
def test_a_depth_the_bot_does_not_have_is_a_bot_options_error(spec: str, call: str, plies: object) -> None:
    # was a plain ValueError, unlike every other bad input to a bot
    from bgfast.errors import InvalidBotOptionsError

    with pytest.raises(InvalidBotOptionsError, match="plies must be"):
        getattr(get_bot(spec), call)(Position(), plies=plies)
