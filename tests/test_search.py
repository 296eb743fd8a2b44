"""The net's n-ply search (bgfast._core.search) against a plain Python reference.

The reference is gnubg's numbering written out over :meth:`Position.children` and the
0-ply net (:meth:`bgfast._core.neural.Model.children`, the values the core ranks a roll's
plays by): ``n`` plies before a roll is the average over the 21 rolls of the value at
``n - 1`` plies of the reply: with ``replies="filtered"`` the play chosen at ``n - 1``
plies by the move filters, with ``replies="0-ply"`` (gnubg's evaluation tree) the net's
0-ply play.
"""
from __future__ import annotations

import pickle
import time
from functools import lru_cache

import numpy as np
import pytest

from bgfast._core import neural as nn
from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast._core.search import DEFAULT_FILTERS, DEFAULT_REPLIES, GREEDY_FILTERS, REPLIES, check_filters, check_replies
from bgfast.bots import get_bot
from bgfast.bots.neural import DEFAULT_ZERO_PLY_WEIGHTS, NeuralBot, filters_text, move_filters, shipped_weights
from bgfast.errors import InvalidBotOptionsError
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.position import Position

ROLLS_21 = [(a, b) for a in range(1, 7) for b in range(a, 7)]
NEURAL = EvaluatorKind.EVAL_NEURAL
Filters = tuple[tuple[tuple[int, float] | None, ...], ...]


@pytest.fixture(scope="module")
def model() -> nn.Model:
    """The shipped nets without their pruning nets: the reference values every play
    (tests/test_prune.py checks the pruned search)."""
    return shipped_weights().nets_only().model()


def _f32_equity(p: np.ndarray) -> np.float32:
    """Cubeless equity in float32, in the core's order of operations (probs_equity)."""
    p = p.astype(np.float32)
    two, one = np.float32(2), np.float32(1)
    return two * p[0] - one + p[1] - p[3] + p[2] - p[4]


def _equity(p: np.ndarray) -> float:
    return float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])


def _flip(p: np.ndarray) -> np.ndarray:
    return np.array([1 - p[0], p[3], p[4], p[1], p[2]])


def _swap(board: bytes) -> bytes:
    return board[25:] + board[:25]


class Reference:
    """The search in plain Python: plays from :meth:`Position.children`, 0-ply values from the net."""

    def __init__(self, model: nn.Model, filters: Filters, replies: str = "filtered",
                 zero_ply_weight: float = 0.0) -> None:
        self.model, self.filters, self.replies = model, filters, replies
        self.zero_ply_weight = zero_ply_weight
        self.preroll = lru_cache(maxsize=None)(self._preroll)

    def roll(self, board: bytes, d1: int, d2: int) -> tuple[list[bytes], np.ndarray]:
        kids, values = self.model.children(board, d1, d2)
        legal = {c.to_bytes() for c in Position.from_bytes(board).children(d1, d2)}
        assert set(kids) == legal and len(kids) == len(legal)
        return kids, values

    def _preroll(self, board: bytes, plies: int) -> np.ndarray:
        """The side on roll's probabilities at ``plies``."""
        if plies == 0:
            return np.array(self.model.evaluate(board), dtype=np.float64)
        total = np.zeros(5)
        for d1, d2 in ROLLS_21:
            if self.replies == "0-ply":
                reply = self.choose(board, d1, d2, 0)[0]
                value = self.play_value(reply, plies - 1) if plies > 1 else self.choose(board, d1, d2, 0)[1]
            else:
                value = self.choose(board, d1, d2, plies - 1)[1]
            total += (1 if d1 == d2 else 2) * value
        return total / 36

    def play_value(self, kid: bytes, plies: int) -> np.ndarray:
        """The mover's probabilities at ``plies`` after the play to ``kid``."""
        if not any(kid[25:]):                  # the mover bore off its last checker
            return np.array(self.model.evaluate_after(kid), dtype=np.float64)
        return _flip(self.preroll(_swap(kid), plies))

    def choose(self, board: bytes, d1: int, d2: int, plies: int) -> tuple[bytes, np.ndarray]:
        """The play of (d1, d2) at ``plies`` and its probabilities at ``plies``."""
        kids, values = self.roll(board, d1, d2)
        keys = [_f32_equity(v) for v in values]
        order = sorted(range(len(kids)), key=lambda i: -keys[i])        # stable: ties in generation order
        if plies == 0:
            return kids[order[0]], values[order[0]].astype(np.float64)
        levels = self.filters[plies - 1]
        keep, window = levels[0]
        top = [i for i in order[:keep] if keys[i] >= keys[order[0]] - np.float32(window)]
        for k in range(1, plies):
            if levels[k] is None or len(top) <= 1:
                continue
            keep, window = levels[k]
            scored = sorted(((_equity(self.play_value(kids[i], k)), -rank, i) for rank, i in enumerate(top)),
                            reverse=True)
            top = [i for e, _, i in scored[:keep] if e >= scored[0][0] - window]
        valued = [(self.play_value(kids[i], plies), i) for i in top]
        w = self.zero_ply_weight
        best = max(range(len(valued)),
                   key=lambda j: ((1 - w) * _equity(valued[j][0]) + w * float(keys[valued[j][1]]), -j))
        return kids[valued[best][1]], valued[best][0]


def _positions(count: int, seed: int) -> list[bytes]:
    """Positions before a roll from heuristic-vs-pubeval games, every third one (contact,
    races, bear-offs with contact)."""
    player = MatchPlayer(get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never"),
                         rules=Rules(jacoby=False))
    out: list[bytes] = []
    index = 0
    while len(out) < count:
        turns = [t for t in player.history(seed, index).games[0] if t.action == "move"]
        out += [t.position.to_bytes() for t in turns[::3] if not t.position.is_over()]
        index += 1
    return out[:count]


def _board(rows: dict[int, int], theirs: dict[int, int]) -> bytes:
    """A board from the side on roll's points {point: checkers} and the opponent's (own view;
    25 = the bar)."""
    me, opp = [0] * 25, [0] * 25
    for point, n in rows.items():
        me[point - 1] = n
    for point, n in theirs.items():
        opp[point - 1] = n
    return bytes(opp + me)


SPECIAL = {
    # the side on roll on the bar against a closed board: every roll is no move
    "closed": _board({25: 1, 6: 4, 8: 3, 13: 5, 12: 2}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 8: 2}),
    # a bear-off against an anchor on the side's ace point
    "bearoff_contact": _board({2: 3, 3: 3, 4: 3, 5: 2, 6: 2}, {24: 2, 13: 4, 6: 5, 8: 4}),
    # a short race
    "race": _board({1: 3, 3: 2, 5: 4, 6: 3}, {2: 4, 4: 3, 6: 4}),
    # on the bar against a five-point board: only a 6 enters (one play for 6-6)
    "bar": _board({25: 1, 13: 6, 8: 4, 6: 4}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}),
}


def test_the_special_positions_are_legal() -> None:
    for board in SPECIAL.values():
        Position.from_bytes(board)
    closed = Position.from_bytes(SPECIAL["closed"])
    assert all(len(closed.children(d1, d2)) == 1 and closed.children(d1, d2)[0] == closed for d1, d2 in ROLLS_21)


@pytest.mark.parametrize("replies", REPLIES)
def test_two_plies_is_the_average_of_the_replies_at_one_ply(model: nn.Model, replies: str) -> None:
    # "filtered": the best 1-ply reply (the 1-ply move filter's); "0-ply": the net's 0-ply reply
    ev = CoreEvaluator(model, NEURAL, replies=replies)
    ref = Reference(model, DEFAULT_FILTERS, replies)
    boards = _positions(24, seed=3) + list(SPECIAL.values())
    worst = 0.0
    for board in boards:
        expected = ref.preroll(board, 2)
        got = np.array(ev.on_roll(board, 2))
        worst = max(worst, float(np.abs(got - expected).max()))
    assert worst < 2e-5


def test_one_ply_and_zero_plies_are_the_reference_too(model: nn.Model) -> None:
    ev = CoreEvaluator(model, NEURAL)
    ref = Reference(model, DEFAULT_FILTERS)
    for board in _positions(12, seed=5) + list(SPECIAL.values()):
        for plies in (0, 1):
            assert ev.on_roll(board, plies) == pytest.approx(ref.preroll(board, plies), abs=2e-6)


def test_the_replies_change_nothing_below_two_plies(model: nn.Model) -> None:
    evs = [CoreEvaluator(model, NEURAL, ply=1, replies=replies) for replies in REPLIES]
    rng = np.random.default_rng(4)
    for board in _positions(10, seed=6) + list(SPECIAL.values()):
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        for plies in (0, 1):
            assert len({ev.on_roll(board, plies) for ev in evs}) == 1
        assert len({ev.choose(board, d1, d2) for ev in evs}) == 1


NARROW: Filters = (((2, 0.08),), ((2, 0.08), (1, 0.0)), ((2, 0.08), None, (1, 0.0)))
"""Filters narrow enough for the Python reference at 3 plies, with a pruning level at 1 and 2."""


@pytest.mark.parametrize("replies", REPLIES)
def test_three_plies_is_the_average_of_the_replies_at_two_plies(model: nn.Model, replies: str) -> None:
    ev = CoreEvaluator(model, NEURAL, filters=NARROW, replies=replies)
    ref = Reference(model, NARROW, replies)
    for board in (SPECIAL["race"], SPECIAL["bearoff_contact"], SPECIAL["closed"]):
        assert ev.on_roll(board, 3) == pytest.approx(ref.preroll(board, 3), abs=2e-5)


@pytest.mark.parametrize("replies", REPLIES)
@pytest.mark.parametrize("ply", [1, 2, 3])
def test_the_play_at_each_ply_is_the_references(model: nn.Model, ply: int, replies: str) -> None:
    filters = DEFAULT_FILTERS if ply < 3 else NARROW
    ev = CoreEvaluator(model, NEURAL, ply=ply, filters=filters, replies=replies)
    ref = Reference(model, filters, replies)
    boards = _positions(8 if ply < 3 else 2, seed=7 + ply) + [SPECIAL["bearoff_contact"], SPECIAL["bar"]]
    rng = np.random.default_rng(ply)
    for board in boards:
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        play, value = ref.choose(board, d1, d2, ply)
        got = ev.choose(board, d1, d2)
        assert got == play or _equity(ref.play_value(got, ply)) == pytest.approx(_equity(value), abs=1e-6)


@pytest.mark.parametrize("ply", [1, 2])
def test_a_weighted_zero_ply_value_ranks_the_play_as_the_reference_does(model: nn.Model, ply: int) -> None:
    ev = CoreEvaluator(model, NEURAL, ply=ply, zero_ply_weight=0.3)
    ref = Reference(model, DEFAULT_FILTERS, "0-ply", zero_ply_weight=0.3)
    plain = CoreEvaluator(model, NEURAL, ply=ply)
    boards = _positions(12 if ply == 1 else 4, seed=31 + ply) + [SPECIAL["bearoff_contact"]]
    differ = 0
    for board in boards:
        for d1, d2 in ((3, 1), (6, 4), (2, 2), (5, 3)):
            play, value = ref.choose(board, d1, d2, ply)
            got = ev.choose(board, d1, d2)
            assert got == play or _equity(ref.play_value(got, ply)) == pytest.approx(_equity(value), abs=1e-6)
            differ += got != plain.choose(board, d1, d2)
            assert ev.on_roll(board, ply) == plain.on_roll(board, ply)     # values stay n-ply values
    if ply == 1:
        assert differ > 0          # the weight changes some plays


def test_a_zero_ply_weight_of_one_plays_the_zero_ply_play_at_any_ply(model: nn.Model) -> None:
    zero = CoreEvaluator(model, NEURAL)
    for ply in (1, 2):
        ev = CoreEvaluator(model, NEURAL, ply=ply, zero_ply_weight=1.0)
        for board in _positions(6, seed=41):
            for d1, d2 in ((3, 1), (6, 6), (5, 2)):
                assert ev.choose(board, d1, d2) == zero.choose(board, d1, d2)


def test_the_zero_ply_weight_is_checked_and_travels(model: nn.Model) -> None:
    assert CoreEvaluator(model, NEURAL).zero_ply_weight == 0.0
    ev = pickle.loads(pickle.dumps(CoreEvaluator(model, NEURAL, ply=1, zero_ply_weight=0.25)))
    assert ev.zero_ply_weight == 0.25
    for bad in (-0.1, 1.5, "0.2", True, float("nan")):
        with pytest.raises(ValueError, match="0-ply value's weight"):
            CoreEvaluator(model, NEURAL, zero_ply_weight=bad)
    with pytest.raises(ValueError, match="0-ply weight"):
        CoreEvaluator(get_bot("heuristic").evaluator.weights, EvaluatorKind.EVAL_HEURISTIC, zero_ply_weight=0.2)
    for spec in ("neural:zero_ply_weight=-0.1", "neural:zero_ply_weight=2", "neural:zero_ply_weight=x"):
        with pytest.raises(InvalidBotOptionsError, match="zero_ply_weight"):
            get_bot(spec)
    for ply, weight in enumerate(DEFAULT_ZERO_PLY_WEIGHTS):        # the bot's defaults: 0.2 at 1 ply
        assert NeuralBot(ply=ply).evaluator.zero_ply_weight == weight
        assert "zero_ply_weight" not in NeuralBot(ply=ply).options()
    assert DEFAULT_ZERO_PLY_WEIGHTS[1] == 0.2 and DEFAULT_ZERO_PLY_WEIGHTS[2] == 0
    for spec, weight in (("neural:ply=1,zero_ply_weight=0", 0.0), ("neural:ply=2,zero_ply_weight=0.3", 0.3)):
        bot = get_bot(spec)
        assert isinstance(bot, NeuralBot) and bot.evaluator.zero_ply_weight == weight
        assert bot.options()["zero_ply_weight"] == weight
        assert get_bot("neural", **bot.options()).evaluator.zero_ply_weight == weight


def test_a_one_play_window_of_zero_is_the_greedy_play(model: nn.Model) -> None:
    greedy = CoreEvaluator(model, NEURAL)
    for ply in (1, 2, 3):
        ev = CoreEvaluator(model, NEURAL, ply=ply, filters=GREEDY_FILTERS)
        for board in _positions(10, seed=11):
            for d1, d2 in ((3, 1), (6, 6), (5, 2)):
                assert ev.choose(board, d1, d2) == greedy.choose(board, d1, d2)
    # below the root, greedy filters value the 0-ply reply deeper (gnubg's evaluation tree)
    ref = Reference(model, GREEDY_FILTERS)
    ev = CoreEvaluator(model, NEURAL, filters=GREEDY_FILTERS)
    for board in _positions(6, seed=12):
        assert ev.on_roll(board, 2) == pytest.approx(ref.preroll(board, 2), abs=2e-5)
        assert ev.on_roll_batch(np.frombuffer(board, np.uint8).reshape(1, 50).copy(), 2)[0] == \
            pytest.approx(ev.on_roll(board, 2), abs=0)


def test_the_replies_of_a_batch_are_the_plays_the_one_ply_value_averages(model: nn.Model) -> None:
    from bgfast._core.cube import flip
    from bgfast.dice import ALL_21

    boards = _positions(8, seed=21)
    batch = np.array([np.frombuffer(b, np.uint8) for b in boards])
    chances = np.array([dice.weight for dice in ALL_21]) / 36
    for ply in (0, 1):
        ev = CoreEvaluator(model, NEURAL, ply=ply, filters=GREEDY_FILTERS)
        replies = ev.replies_batch(batch)
        assert replies.shape == (len(boards), 21, 50) and replies.dtype == np.uint8
        for board, rows in zip(boards, replies):
            for dice, reply in zip(ALL_21, rows):     # the play, turned: the other side on roll
                after = ev.choose(board, dice.high, dice.low)
                assert reply.tobytes() == after[25:] + after[:25]
            if ply == 0:                              # 1 ply is the chance-weighted mean over them
                values = np.array([flip(v) for v in ev.on_roll_batch(np.ascontiguousarray(rows), 0)])
                assert (chances[:, None] * values).sum(axis=0) == pytest.approx(ev.on_roll(board, 1), abs=1e-6)
    with pytest.raises(ValueError, match="n, 50"):
        ev.replies_batch(np.zeros((2, 49), np.uint8))


def test_wider_filters_change_the_two_ply_value_of_filtered_replies_only(model: nn.Model) -> None:
    boards = _positions(6, seed=13)
    default = CoreEvaluator(model, NEURAL, replies="filtered")
    greedy = CoreEvaluator(model, NEURAL, filters=GREEDY_FILTERS, replies="filtered")
    assert any(default.on_roll(b, 2) != greedy.on_roll(b, 2) for b in boards)
    # with 0-ply replies the filters choose the root's play alone
    zero = CoreEvaluator(model, NEURAL, replies="0-ply")
    assert all(zero.on_roll(b, 2) == greedy.on_roll(b, 2) for b in boards)


@pytest.mark.parametrize("replies", REPLIES)
def test_the_cache_changes_no_result(model: nn.Model, replies: str) -> None:
    boards = _positions(5, seed=17)
    results = []
    for size in (0, 1, 2, 1 << 16):
        ev = CoreEvaluator(model, NEURAL, ply=2, cache_size=size, replies=replies)
        values = [ev.on_roll(b, 2) for b in boards] + [ev.on_roll(b, 2) for b in boards[:3]]
        plays = [ev.choose(b, d1, d2) for b in boards for d1, d2 in ((4, 1), (6, 2))]
        batch = ev.on_roll_batch(np.array([np.frombuffer(b, np.uint8) for b in boards]), 2)
        results.append((values, plays, batch.tobytes()))
        lookups, hits = ev.cache_stats()
        assert ev.cache_size == size
        if size == 0:
            assert (lookups, hits) == (0, 0)
        else:
            assert lookups > 0 and (size < 4 or hits >= 3)    # the repeated evaluations hit
    assert all(r == results[0] for r in results[1:])


def test_filters_are_checked_and_written() -> None:
    assert check_filters(None) == DEFAULT_FILTERS
    assert DEFAULT_FILTERS == (((8, 0.16),), ((8, 0.16), None), ((8, 0.16), None, (2, 0.04)))
    assert check_filters({2: [(4, 0.1), (2, 0.05)]})[1] == ((4, 0.1), (2, 0.05))
    assert move_filters(filters_text(NARROW)) == NARROW
    assert move_filters(list(NARROW)) == NARROW
    for bad in ({4: [(1, 0)] * 4}, {1: [None]}, {1: [(0, 0.1)]}, {1: [(65, 0.1)]}, {1: [(8, -0.1)]},
                {2: [(8, 0.1)]}, {1: [(8, "x")]}, {1: 5}, "8:0.16"):
        with pytest.raises(ValueError):
            check_filters(bad)      # type: ignore[arg-type]
    for text in ("x", "8", "8:0.16/-", "-", "8:a", "0:0.1", ";"):
        with pytest.raises(InvalidBotOptionsError, match="filters"):
            move_filters(text)


def test_replies_are_checked(model: nn.Model) -> None:
    assert check_replies(None) == DEFAULT_REPLIES and set(REPLIES) == {"0-ply", "filtered"}
    assert CoreEvaluator(model, NEURAL).replies == DEFAULT_REPLIES
    for replies in REPLIES:     # a worker process gets the same search
        assert pickle.loads(pickle.dumps(CoreEvaluator(model, NEURAL, replies=replies))).replies == replies
    for bad in ("1-ply", "", 0, "FILTERED"):
        with pytest.raises(ValueError, match="replies"):
            check_replies(bad)      # type: ignore[arg-type]
        with pytest.raises(ValueError, match="replies"):
            CoreEvaluator(model, NEURAL, replies=bad)


def test_bad_bot_options_raise() -> None:
    for spec in ("neural:ply=4", "neural:ply=-1", "neural:cube_ply=4", "neural:filters=8:0.16/-",
                 "neural:ply=true", "neural:replies=best", "neural:replies=0"):
        with pytest.raises(InvalidBotOptionsError):
            get_bot(spec)
    with pytest.raises(ValueError):
        NeuralBot().evaluate(Position(), plies=4)
    with pytest.raises(ValueError):
        CoreEvaluator(get_bot("heuristic").evaluator.weights, EvaluatorKind.EVAL_HEURISTIC, cube_ply=2)
    with pytest.raises(ValueError):
        CoreEvaluator(get_bot("heuristic").evaluator.weights, EvaluatorKind.EVAL_HEURISTIC, filters=DEFAULT_FILTERS)
    with pytest.raises(ValueError):
        CoreEvaluator(get_bot("heuristic").evaluator.weights, EvaluatorKind.EVAL_HEURISTIC, replies="0-ply")


def test_the_bot_rebuilds_from_its_options_and_evaluates_at_each_ply() -> None:
    other = next(r for r in REPLIES if r != DEFAULT_REPLIES)
    bot = get_bot(f"neural:ply=2,cube_ply=2,filters=4:0.1,replies={other}")
    assert isinstance(bot, NeuralBot) and bot.ply == 2 and bot.cube_ply == 2 and bot.replies == other
    assert bot.filters[0] == ((4, 0.1),) and bot.filters[1:] == DEFAULT_FILTERS[1:]
    assert bot.evaluator.replies == other
    again = get_bot("neural", **bot.options())
    assert isinstance(again, NeuralBot) and again.filters == bot.filters and again.cube_ply == 2
    assert again.replies == other
    plain = NeuralBot(ply=2).options()
    assert "filters" not in plain and "cube_ply" not in plain and "replies" not in plain
    start = Position()
    values = [bot.evaluate(start, plies=n) for n in range(4)]
    assert all(0.45 < v.win < 0.6 for v in values) and len({v.win for v in values}) == 4


@pytest.mark.parametrize("ply", [2, 3])
def test_a_deep_bot_plays_legal_games_to_the_end(ply: int) -> None:
    # 3 plies with narrow filters (the default 3-ply play takes seconds a move)
    options = {} if ply == 2 else {"filters": filters_text(NARROW)}
    deep = get_bot("neural", ply=ply, cube="never", **options)
    pub = get_bot("pubeval", cube="never")
    started = time.perf_counter()
    history = MatchPlayer(deep, pub, rules=Rules(jacoby=False)).history(3, 0)
    game = history.games[0]
    for turn in game:
        if turn.action == "move" and turn.dice is not None:
            assert turn.move.position in turn.position.children(turn.dice.high, turn.dice.low)
    assert history.record.score != (0, 0) and time.perf_counter() - started < 300
