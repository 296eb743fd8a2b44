"""The cubeful n-ply evaluation (``_core/cubeful.pyx``, :func:`bgfast.cube.decide_ahead`).

Checked three ways: against an exact enumeration of the game tree with the cube (written
plainly below) in positions the look-ahead sees to the end (last-roll and two-roll
positions, money and match play, cube owners, Crawford, Jacoby); against a plain-Python
recursion of the same definition on the core's 0-ply values in contact positions; and at
0 plies against the cube math of :func:`bgfast.cube.decide` (unchanged numbers).  The
GNU Backgammon program, where installed, agrees on clear actions at 2 plies.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import pytest
from gnubg_oracle import requires_gnubg

from bgfast import cube as cube_math
from bgfast.analysis import analyse_cube, evaluate_position
from bgfast.bots.neural import NeuralBot
from bgfast.met import MatchEquityTable
from bgfast.position import Position

ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)]
LAST_ROLL = "BQAACAEAAAAAAA"
"""The side on roll bears off with 23 of 36 rolls (63.9%), else its opponent surely does."""
TWO_ROLL = Position.from_board([[0, 0, 0, 0, 1, 1] + [0] * 19, [3] + [0] * 24])
"""The side on roll, three checkers on its ace point, bears off now with doubles, else two
of them; its opponent (on its 6 and 5 points) then bears off with some rolls, or the side
on roll surely does next."""
SURE_GAMMON = Position.from_board([[15] + [0] * 24, [1] + [0] * 24])
"""The side on roll bears off its last checker with any roll; its opponent has borne off none."""
MET = MatchEquityTable.load()
BOT = NeuralBot()


@dataclass(frozen=True)
class Cube:
    """The cube from the view of the side on roll."""

    value: int = 1
    owner: str = "centred"         # "centred", "mine" or "theirs"
    away: int = 0                  # match play: points to go, the side on roll's and its opponent's
    opp_away: int = 0

    def flipped(self) -> Cube:
        owner = {"centred": "centred", "mine": "theirs", "theirs": "mine"}[self.owner]
        return Cube(self.value, owner, self.opp_away, self.away)

    def doubled(self) -> Cube:
        return Cube(2 * self.value, "theirs", self.away, self.opp_away)

    def player_owner(self) -> int:
        """The owner as the API takes it, the side on roll being player 0."""
        return {"centred": -1, "mine": 0, "theirs": 1}[self.owner]


@dataclass(frozen=True)
class Game:
    """The rules of one game: money (no table) or match play."""

    met: MatchEquityTable | None = None
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False
    max_cube: int = 64
    x: float = 0.68

    def mwc(self, away: int, opp_away: int) -> float:
        return cube_math.mwc(self.met, away, opp_away, self.post_crawford) if self.met else 0.0

    def won(self, c: Cube, points: int) -> float:
        if self.met is None:
            return (1 if self.jacoby and c.owner == "centred" else points) * c.value
        return self.mwc(c.away - points * c.value, c.opp_away)

    def cash(self, c: Cube) -> float:
        return self.won(replace(c, owner="mine"), 1)

    def other(self, v: float) -> float:
        return -v if self.met is None else 1.0 - v

    def may_double(self, c: Cube) -> bool:
        return (not self.crawford and c.owner != "theirs" and 2 * c.value <= self.max_cube
                and (self.met is None or c.away > c.value))

    def best(self, c: Cube, nd: float, dt: float) -> float:
        """The side on roll's value with its best cube action."""
        return max(nd, min(dt, self.cash(c))) if self.may_double(c) else nd

    def per_cube(self, c: Cube, v: float) -> float:
        return v / c.value if self.met is None else v


class Exact:
    """The exact cubeful value of a position before its roll: every roll, the best play for
    the value (not the net's), the best cube action at every turn, to the end of the game."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @functools.lru_cache(maxsize=None)
    def optimal(self, position_id: str, c: Cube) -> float:
        nd = self.raw(position_id, c)
        return self.game.best(c, nd, self.raw(position_id, c.doubled()) if self.game.may_double(c) else nd)

    @functools.lru_cache(maxsize=None)
    def raw(self, position_id: str, c: Cube) -> float:
        pos, total = Position.from_id(position_id), 0.0
        for d1, d2, w in ROLLS:
            total += w * max(self.after(child, c) for child in pos.children(d1, d2))
        return total / 36

    def after(self, child: Position, c: Cube) -> float:
        outcome = child.outcome()
        if outcome is not None:
            assert outcome.winner == 1                 # the mover
            return self.game.won(c, outcome.points)
        return self.game.other(self.optimal(child.swap_sides().id(), c.flipped()))

    def decision(self, position: Position, c: Cube) -> tuple[float, float, float]:
        g = self.game
        nd, dt = self.raw(position.id(), c), self.raw(position.id(), c.doubled())
        return g.per_cube(c, nd), g.per_cube(c, dt), g.per_cube(c, g.cash(c))


def walk(position: Position, plies: int, game: Game, c: Cube) -> tuple[float, float, float]:
    d, _ = BOT.cube_decision(position, plies, owner=c.player_owner(), player=0, cube=c.value,
                             jacoby=game.jacoby, max_cube=game.max_cube, met=game.met, away=c.away,
                             opp_away=c.opp_away, crawford=game.crawford)
    return d.no_double, d.double_take, d.double_pass


MONEY_CASES = [(Game(jacoby=j), Cube(v, owner)) for j in (False, True) for v in (1, 2)
               for owner in ("centred", "mine", "theirs")]
MATCH_CASES = [
    (Game(MET), Cube(1, "centred", 2, 2)),
    (Game(MET), Cube(1, "centred", 5, 3)),
    (Game(MET), Cube(2, "mine", 4, 3)),
    (Game(MET), Cube(2, "theirs", 3, 5)),
    (Game(MET), Cube(1, "centred", 2, 4)),
    (Game(MET, crawford=True, post_crawford=True), Cube(1, "centred", 3, 1)),
    (Game(MET, crawford=True, post_crawford=True), Cube(1, "centred", 1, 4)),
    (Game(MET, post_crawford=True), Cube(1, "centred", 3, 1)),
    (Game(MET, post_crawford=True), Cube(2, "theirs", 1, 4)),
]


@pytest.mark.parametrize("game, c", MONEY_CASES + MATCH_CASES)
@pytest.mark.parametrize("plies", [1, 2])
def test_a_last_roll_position_is_valued_exactly_at_one_ply_or_more(game: Game, c: Cube, plies: int) -> None:
    position = Position.from_id(LAST_ROLL)
    assert walk(position, plies, game, c) == pytest.approx(Exact(game).decision(position, c), abs=1e-9)


@pytest.mark.parametrize("game, c", MONEY_CASES[:6] + MATCH_CASES)
def test_a_two_roll_position_is_valued_exactly_at_two_plies(game: Game, c: Cube) -> None:
    exact = Exact(game).decision(TWO_ROLL, c)
    assert walk(TWO_ROLL, 2, game, c) == pytest.approx(exact, abs=1e-6)
    assert walk(TWO_ROLL, 3, game, c) == pytest.approx(exact, abs=1e-6)


@pytest.mark.parametrize("jacoby, no_double", [(False, 2.0), (True, 1.0)])
def test_a_gammon_won_now_counts_single_under_the_jacoby_rule_while_the_cube_is_centred(
        jacoby: bool, no_double: float) -> None:
    game = Game(jacoby=jacoby)
    nd, dt, dp = walk(SURE_GAMMON, 1, game, Cube())
    assert (nd, dt, dp) == pytest.approx(Exact(game).decision(SURE_GAMMON, Cube()), abs=1e-9)
    assert (nd, dt, dp) == pytest.approx((no_double, 4.0, 1.0))


@pytest.mark.parametrize("ply", [1, 2, 3])
def test_the_last_roll_position_is_double_take_from_one_ply(ply: int) -> None:
    result = analyse_cube(LAST_ROLL, ply=ply)
    assert result.action.value == "Double, take"
    assert (result.no_double, result.double_take) == pytest.approx((23 / 36 * 2 - 1, 2 * (23 / 36 * 2 - 1)))
    assert evaluate_position(LAST_ROLL, ply=ply).cubeful_equity == pytest.approx(result.double_take)


def test_at_zero_ply_the_last_roll_position_keeps_janowskis_no_double() -> None:
    result = analyse_cube(LAST_ROLL, ply=0)
    assert result.action.value == "No double, take"
    assert (result.no_double, result.double_take) == pytest.approx((0.404, 0.310), abs=1e-3)


# ---------------------------------------------------------------- a plain recursion on 0-ply values

CONTACT = ["4HPwATDgc/ABMA", "4HPwATDgc/ABMB", "jGfkASjg8wcBMA", "sNvBAQTYrwEAAA", "2+4OAADs3gAAAA"]
CHOOSERS = {k: NeuralBot(ply=k) for k in (0, 1)}


def reference(position: Position, plies: int, game: Game, c: Cube) -> float:
    """raw(position, c, plies) as the module docstring defines it, in plain Python: the net's
    (0-ply) probabilities and Janowski / cubeful MWC at the leaves, the search's plays (its
    replies: the 0-ply play, or with filtered replies the ``plies - 1``-ply one)."""
    if plies == 0:
        p = BOT.evaluate(position, plies=0)
        if game.met is None:
            return c.value * cube_math.money_equity(p, owner=c.player_owner(), player=0, x=game.x,
                                                    jacoby=game.jacoby)
        return cube_math.cubeful_mwc(p, game.met, c.away, c.opp_away, cube=c.value, owner=c.player_owner(),
                                     player=0, x=game.x, crawford=game.crawford, max_cube=game.max_cube)
    total = 0.0
    for d1, d2, w in ROLLS:
        if BOT.replies == "filtered" and plies > 1:   # the search's reply
            child = Position.from_bytes(CHOOSERS[plies - 1].evaluator.choose(position.to_bytes(), d1, d2))
        else:                                         # the 0-ply favourite, as the search prunes
            model = BOT.evaluator.weights
            child = Position.from_bytes(model.choose(position.to_bytes(), d1, d2, prune=BOT.evaluator.prune))
        outcome = child.outcome()
        if outcome is not None:
            total += w * game.won(c, outcome.points)
            continue
        opp, f = child.swap_sides(), c.flipped()
        nd = reference(opp, plies - 1, game, f)
        dt = reference(opp, plies - 1, game, f.doubled()) if game.may_double(f) else nd
        total += w * game.other(game.best(f, nd, dt))
    return total / 36


@pytest.mark.parametrize("position_id", CONTACT)
@pytest.mark.parametrize("game, c", [(Game(), Cube()), (Game(jacoby=True), Cube(2, "mine")),
                                     (Game(MET), Cube(1, "centred", 5, 3)), (Game(MET), Cube(2, "theirs", 3, 6))])
def test_one_ply_equals_a_plain_recursion_on_the_nets_values(position_id: str, game: Game, c: Cube) -> None:
    position = Position.from_id(position_id)
    nd, dt, _ = walk(position, 1, game, c)
    assert nd == pytest.approx(game.per_cube(c, reference(position, 1, game, c)), abs=2e-5)
    assert dt == pytest.approx(game.per_cube(c, reference(position, 1, game, c.doubled())), abs=2e-5)


@pytest.mark.parametrize("game, c", [(Game(), Cube()), (Game(MET), Cube(1, "centred", 3, 4))])
def test_two_plies_equal_a_plain_recursion_on_the_nets_values(game: Game, c: Cube) -> None:
    position = Position.from_id("sNvBAQTYrwEAAA")
    nd, dt, _ = walk(position, 2, game, c)
    assert nd == pytest.approx(game.per_cube(c, reference(position, 2, game, c)), abs=5e-5)
    assert dt == pytest.approx(game.per_cube(c, reference(position, 2, game, c.doubled())), abs=5e-5)


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_the_walks_cubeless_probabilities_are_the_searchs(plies: int) -> None:
    for position_id in CONTACT[:3]:
        _, p = BOT.cube_decision(position_id, plies)
        assert p == BOT.evaluate(position_id, plies=plies)


# ---------------------------------------------------------------- 0 plies: today's numbers

@pytest.mark.parametrize("position_id", CONTACT + [LAST_ROLL])
@pytest.mark.parametrize("owner, cube, aways, jacoby", [(-1, 1, None, False), (-1, 1, None, True), (0, 4, None, True),
                                                         (-1, 1, (5, 3), False), (0, 2, (7, 2), False),
                                                         (-1, 1, (3, 1), False)])
def test_zero_plies_give_the_cube_maths_numbers_exactly(position_id: str, owner: int, cube: int,
                                                        aways: tuple[int, int] | None, jacoby: bool) -> None:
    p = BOT.evaluate(position_id, plies=0)
    away, opp_away = aways or (0, 0)
    met = MET if aways else None
    post = aways is not None and 1 in aways
    old = cube_math.decide(p, owner=owner, doubler=0, cube=cube, jacoby=jacoby, met=met, away=away,
                           opp_away=opp_away, post_crawford=post)
    new, q = BOT.cube_decision(position_id, 0, owner=owner, player=0, cube=cube, jacoby=jacoby, met=met,
                               away=away, opp_away=opp_away)
    assert q == p
    assert new == old


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        BOT.cube_decision(LAST_ROLL, 4)
    with pytest.raises(ValueError):
        BOT.cube_decision(LAST_ROLL, 1, owner=2)
    with pytest.raises(ValueError):
        cube_math.decide_ahead(NeuralBot(cube="never").evaluator, Position().to_bytes(), 1, cube=0)
    with pytest.raises(ValueError):
        BOT.cube_decision(LAST_ROLL, 1, met=MET, away=0, opp_away=3)


# ---------------------------------------------------------------- the gnubg program at 2 plies

@requires_gnubg
def test_gnubg_two_ply_agrees_on_clear_cube_actions() -> None:
    """gnubg's cubeful 2-ply (``cfevaluate``, its own nets) and bgfast's on positions near a
    cube decision: where both see the action clearly (each comparison by more than 0.02
    normalized equity in both programs) they agree on double or not and take or pass in
    at least 80% of the cases."""
    from gnubg_oracle import run_gnubg

    from bgfast.train.config import self_play

    boards = self_play(BOT.evaluator.weights).positions(11, 800, 30, 5)
    near = []
    for b in boards:
        pos = Position._from_valid_bytes(b.tobytes())
        if pos.is_over():
            continue
        d = cube_math.decide(BOT.evaluate(pos, plies=0))
        if min(d.double_take, d.double_pass) - d.no_double > -0.15:
            near.append(pos.id())
    near = near[:30]
    assert len(near) >= 10
    answers = run_gnubg("cube", [[pid, 0, 0, 0, 1, -1, 0, 2] for pid in near])
    clear = agree = 0
    for pid, g in zip(near, answers):
        ours, _ = BOT.cube_decision(pid, 2, jacoby=True)   # gnubg's money default
        theirs = (g["nd"], g["dt"], g["dp"])
        sides = []
        for nd, dt, dp in ((ours.no_double, ours.double_take, ours.double_pass), theirs):
            sides.append((min(dt, dp) - nd, dp - dt))
        if all(abs(v) > 0.02 for s in sides for v in s):
            clear += 1
            agree += all((sides[0][k] > 0) == (sides[1][k] > 0) for k in (0, 1))
    assert clear >= 5
    assert agree >= 0.8 * clear, (agree, clear)
