"""The built-in bots random and pubeval, the registry, and bot specs (``NAME:KEY=VALUE``)."""
from __future__ import annotations

import pickle
import random as stdlib_random

import pytest
from bgfast._core.evaluators import pubeval_score
from conftest import read_ids
from scripted_bots import scripted_pair

from bgfast.bots import Bot, CubeResponse, get_bot
from bgfast.bots.spec import BotRecipe, parse_bot_spec, portable_bot, rebuild_bot
from bgfast.dice import ALL_21, Dice
from bgfast.errors import InvalidBotOptionsError, InvalidDiceError, InvalidPositionError, UnknownBotError
from bgfast.game import MatchPlayer
from bgfast.match import MatchState, Rules
from bgfast.position import STARTING, Position

MONEY = MatchState()
OWNED = MatchState(cube_value=2, cube_owner=0)
DOUBLED = MatchState(double_offered=True, turn=1)


def keith(side: tuple[int, ...]) -> int:
    """Tom Keith's count of one side (its own 25 counts): pips, plus 2 per checker beyond
    one on the 1-point, 1 per checker beyond one on the 2-point and beyond three on the
    3-point, and 1 per empty 4-, 5- and 6-point."""
    count = sum(n * (i + 1) for i, n in enumerate(side))
    count += 2 * max(side[0] - 1, 0) + max(side[1] - 1, 0) + max(side[2] - 3, 0)
    return count + sum(1 for i in (3, 4, 5) if side[i] == 0)


def keith_excess(pos: Position) -> float:
    """The on-roll side's count raised by a seventh, minus the other side's count."""
    opp, me = pos.board
    return keith(me) * 8 / 7 - keith(opp)


def random_race(rng: stdlib_random.Random) -> Position:
    """A race: both sides' 15 checkers on their own points 1-9 (so nobody has contact)."""
    sides = []
    for _ in range(2):
        side = [0] * 25
        for _ in range(rng.randint(6, 15)):
            side[min(rng.randint(0, 8), rng.randint(0, 8))] += 1
        sides.append(side)
    return Position.from_board(sides)


# ---------------------------------------------------------------- registry and specs


def test_get_bot_builds_the_built_in_bots_by_name() -> None:
    assert (get_bot("random").name, get_bot("pubeval").name) == ("random", "pubeval")
    assert get_bot("pubeval").cube == "keith"
    assert get_bot("pubeval", cube="never").cube == "never"


def test_an_unknown_bot_name_raises_unknown_bot_error() -> None:
    with pytest.raises(UnknownBotError, match="unknown bot 'pubevil'"):
        get_bot("pubevil")


def test_a_cube_policy_the_bot_lacks_raises_unknown_bot_error() -> None:
    with pytest.raises(UnknownBotError, match="no cube policy 'keith'"):
        get_bot("random", cube="keith")


@pytest.mark.parametrize("seed", ["abc", -1, 2.5, True])
def test_a_seed_that_is_not_a_non_negative_integer_raises_unknown_bot_error(seed: object) -> None:
    with pytest.raises(UnknownBotError, match="seed must be an integer of at least 0"):
        get_bot("random", seed=seed)


def test_an_option_the_bot_does_not_take_raises_unknown_bot_error() -> None:
    with pytest.raises(UnknownBotError, match="bad options"):
        get_bot("pubeval", colour="red")


@pytest.mark.parametrize(("name", "options", "message"), [
    ("neural", {"ply": "1"}, "ply must be a whole number from 0 to 3"),
    ("neural", {"ply": 4}, "ply must be a whole number from 0 to 3"),
    ("neural", {"cube_ply": 4}, "cube_ply must be a whole number from 0 to 3"),
    ("neural", {"filters": "8:0.16/-"}, "filters: the 1-ply move filter"),
    ("heuristic", {"blend": 2.0}, "blend"),
    ("random", {"cube": "keith"}, "no cube policy 'keith'"),
    ("random", {"seed": -1}, "seed must be an integer of at least 0"),
    ("pubeval", {"colour": "red"}, "bad options"),
])
def test_a_bad_option_of_a_known_bot_raises_invalid_bot_options_error(name: str, options: dict[str, object],
                                                                       message: str) -> None:
    with pytest.raises(InvalidBotOptionsError, match=message) as info:
        get_bot(name, **options)
    assert isinstance(info.value, UnknownBotError) and isinstance(info.value, ValueError)  # old excepts still catch it


def test_an_unknown_bot_name_is_not_a_bad_option() -> None:
    with pytest.raises(UnknownBotError) as info:
        get_bot("pubevil")
    assert not isinstance(info.value, InvalidBotOptionsError)


@pytest.mark.parametrize(("name", "options"), [
    ("heuristic", "cube, cube_efficiency, seed, weights, filter, blend"),
    ("neural", "ply, cube, weights, cube_efficiency, seed, cube_ply, filters, replies, prune, zero_ply_weight"),
    ("random", "cube, cube_efficiency, seed"),
])
def test_an_option_the_bot_does_not_take_lists_the_options_it_takes(name: str, options: str) -> None:
    # heuristic and neural are built by a lazy factory: the message still lists the class's options
    with pytest.raises(UnknownBotError) as info:
        get_bot(f"{name}:foo=1")
    assert str(info.value) == f"bad options {{'foo': 1}} for bot {name!r}; it takes: {options}"


def test_a_bot_spec_is_a_name_with_optional_key_value_options() -> None:
    assert parse_bot_spec("random") == ("random", {})
    assert parse_bot_spec("pubeval:cube=never") == ("pubeval", {"cube": "never"})
    assert parse_bot_spec("x:a=1,b=0.5,c=true,d=False,e=text") == (
        "x", {"a": 1, "b": 0.5, "c": True, "d": False, "e": "text"})
    assert get_bot("pubeval:cube=never").cube == "never"
    assert get_bot("heuristic:cube=janowski", cube_efficiency=0.5).cube_efficiency == 0.5


@pytest.mark.parametrize("spec", ["", ":cube=never", "pubeval:", "pubeval:cube", "pubeval:=never",
                                  "pubeval:cube=", "pubeval:cube=never,,", "pubeval:cube=a,cube=b", "pub eval"])
def test_a_malformed_bot_spec_raises_unknown_bot_error_quoting_it(spec: str) -> None:
    with pytest.raises(UnknownBotError, match=f"bad bot spec {spec!r}"):
        parse_bot_spec(spec)


# ---------------------------------------------------------------- bots sent to worker processes


@pytest.mark.parametrize("spec", ["random", "pubeval:cube=never", "heuristic:cube=janowski,cube_efficiency=0.5",
                                  "neural:ply=1"])
def test_a_bot_of_bgfasts_own_travels_as_its_recipe_and_is_rebuilt_the_same(spec: str) -> None:
    bot = get_bot(spec)
    sent = portable_bot(bot)
    assert isinstance(sent, BotRecipe) and sent == BotRecipe.of(bot)
    again = rebuild_bot(pickle.loads(pickle.dumps(sent)))
    assert type(again) is type(bot) and again.options() == bot.options()   # type: ignore[attr-defined]
    assert get_bot(sent.text()).options() == bot.options()                  # type: ignore[attr-defined]


def test_a_bot_of_your_own_travels_as_itself() -> None:
    class Mine(Bot):
        name = "pubeval"        # even under a registered name: it is not the registered bot

        def options(self) -> dict[str, object]:
            return {}

    mine = Mine()
    assert portable_bot(mine) is mine and rebuild_bot(mine) is mine
    assert BotRecipe.of(mine) == BotRecipe("pubeval", {})


def test_a_recipe_names_a_bot_without_options_by_its_name_alone() -> None:
    class Bare:
        def options(self) -> list[int]:      # not a mapping: no options to read
            return [1, 2]

    assert BotRecipe.of(Bare()).text() == "Bare"
    assert BotRecipe.of(get_bot("pubeval", cube="never")).text() == "pubeval:cube=never,cube_efficiency=0.68"


def test_a_recipe_that_no_longer_builds_raises_unknown_bot_error() -> None:
    with pytest.raises(UnknownBotError):
        rebuild_bot(BotRecipe("no-such-bot"))
    with pytest.raises(InvalidBotOptionsError):
        BotRecipe("pubeval", {"depth": 3}).build()


def test_a_tournament_player_builds_the_bot_its_recipe_rebuilds() -> None:
    from bgfast.tournament.spec import PlayerSpec

    built = PlayerSpec("h", "heuristic", cube="janowski", options={"cube_efficiency": 0.5}).build()
    recipe = portable_bot(built)
    assert isinstance(recipe, BotRecipe) and recipe.name == "heuristic"
    assert (recipe.options["cube"], recipe.options["cube_efficiency"]) == ("janowski", 0.5)
    assert rebuild_bot(recipe).options() == built.options()   # type: ignore[attr-defined]


# ---------------------------------------------------------------- random


def test_random_never_doubles_and_always_takes() -> None:
    bot = get_bot("random")
    race = random_race(stdlib_random.Random(1))
    for pos in (STARTING, race, race.swap_sides()):
        assert bot.should_double(pos, MONEY) is False
        assert bot.accept_double(pos, DOUBLED) == CubeResponse.TAKE


def test_random_never_doubles_in_the_game_loop() -> None:
    player = MatchPlayer(get_bot("random"), get_bot("random"), length=5)
    assert sum(player.play(seed=1, index=i).doubles for i in range(50)) == 0


def test_random_chooses_uniformly_among_the_distinct_plays() -> None:
    # Given the 16 distinct plays of 3-1 from the start, 3200 choices (seeded)
    bot = get_bot("random", seed=12)
    counts: dict[Position, int] = {p: 0 for p in STARTING.children(3, 1)}
    for _ in range(3200):
        counts[bot.choose_move(STARTING, Dice(3, 1), MONEY).position] += 1
    # Then Pearson's chi-square with 15 degrees of freedom is below its 0.1% point (37.70)
    expected = 3200 / len(counts)
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert len(counts) == 16 and chi2 < 37.70


def test_random_plays_a_legal_move_for_every_roll() -> None:
    bot = get_bot("random")
    for dice in ALL_21:
        move = bot.choose_move(STARTING, dice, MONEY)
        assert move in STARTING.legal_moves(dice.high, dice.low)


# ---------------------------------------------------------------- pubeval: checker play


def _positions_from_games(n: int) -> list[Position]:
    p0, p1, journal = scripted_pair(p1={"play": "worst"})
    player = MatchPlayer(p0, p1)
    for index in range(4):
        player.record(seed=21, index=index)
    return [c.position for c in journal if c.what == "play"][:n]


def test_pubeval_plays_the_play_with_the_highest_pubeval_score() -> None:
    bot = get_bot("pubeval")
    rng = stdlib_random.Random(5)
    for pos in _positions_from_games(150):
        dice = rng.choice(ALL_21)
        race = pos.is_race()
        scores = {c: pubeval_score(c.to_bytes(), race) for c in pos.children(dice.high, dice.low)}
        chosen = bot.choose_move(pos, dice, MONEY).position
        assert scores[chosen] == max(scores.values())


@pytest.mark.parametrize(("dice", "play"), [("31", "8/5 6/5"), ("42", "8/4 6/4"), ("61", "13/7 8/7")])
def test_pubeval_makes_the_classic_opening_points(dice: str, play: str) -> None:
    assert str(get_bot("pubeval").choose_move(STARTING, Dice.parse(dice), MONEY)) == play


def test_pubeval_chooses_the_play_of_gnubg_nn_pub_best_move() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    bot = get_bot("pubeval")
    for name in ("contact", "race"):
        for pid in read_ids(f"{name}.csv")[:60]:
            pos = Position.from_id(pid)
            for dice in ALL_21[::4]:
                opp, me = (list(side) for side in pos.board)
                steps = gnubg_nn.pub_best_move([opp, me], dice.high, dice.low)
                for src, dst in zip(steps[::2], steps[1::2]):
                    me[src] -= 1
                    if dst >= 0:
                        me[dst] += 1
                        if opp[23 - dst] == 1:
                            opp[23 - dst], opp[24] = 0, opp[24] + 1
                theirs = Position.from_board([opp, me])
                assert bot.choose_move(pos, dice, MONEY).position == theirs, (pid, str(dice))


# ---------------------------------------------------------------- pubeval: cube


def test_pubeval_never_doubles_in_contact_and_always_takes() -> None:
    bot = get_bot("pubeval")
    for pos in [p for p in _positions_from_games(120) if not p.is_race()]:
        assert bot.should_double(pos, MONEY) is False
        assert bot.accept_double(pos, DOUBLED) == CubeResponse.TAKE


def test_pubeval_doubles_redoubles_and_takes_in_races_by_the_keith_count() -> None:
    # Keith: double if the roller's count + 1/7 exceeds the other's by at most 4,
    # redouble by at most 3; take if the doubler's adjusted count exceeds the taker's by at least 2
    bot = get_bot("pubeval")
    rng = stdlib_random.Random(8)
    seen = set()
    for _ in range(400):
        pos = random_race(rng)
        excess = keith_excess(pos)
        decisions = (bot.should_double(pos, MONEY), bot.should_double(pos, OWNED),
                     bot.accept_double(pos, DOUBLED) == CubeResponse.TAKE)
        assert decisions == (excess <= 4, excess <= 3, excess >= 2), (pos.id(), excess)
        seen.add(decisions)
    assert {(True, True, True), (True, True, False), (False, False, True)} <= seen


def test_pubeval_cubeless_never_doubles() -> None:
    bot = get_bot("pubeval", cube="never")
    rng = stdlib_random.Random(3)
    assert not any(bot.should_double(random_race(rng), MONEY) for _ in range(100))
    player = MatchPlayer(bot, bot, length=7)
    assert sum(player.play(seed=1, index=i).doubles for i in range(30)) == 0


def test_pubeval_answers_a_double_in_the_game_loop_by_the_doublers_keith_count() -> None:
    # Given player 0 (Python) doubling whenever it is on roll in a race, against pubeval in C
    expected: list[bool] = []

    def double_in_races(pos: Position, match: MatchState) -> bool:
        if pos.is_race():
            expected.append(keith_excess(pos) >= 2)   # pubeval's answer by the Keith count
            return True
        return False

    p0, _, _ = scripted_pair(p0={"double": double_in_races})
    player = MatchPlayer(p0, get_bot("pubeval"), rules=Rules(jacoby=False))
    answers = []
    for index in range(30):
        expected.clear()
        game = player.record(seed=31, index=index).games[0]
        # Then each of its doubles was taken exactly when the Keith count says take
        answers += [d.taken for d in game.doubles if d.by == 0]
        assert [d.taken for d in game.doubles if d.by == 0] == expected, index
    assert True in answers and False in answers


# ---------------------------------------------------------------- strength


def test_pubeval_beats_random_by_a_wide_margin() -> None:
    # 1000 paired cubeless money games (each dice stream played with the seats both ways)
    rules = Rules(jacoby=False)
    pub, rnd = get_bot("pubeval", cube="never"), get_bot("random")
    seated = MatchPlayer(pub, rnd, rules=rules), MatchPlayer(rnd, pub, rules=rules)
    points = 0
    for index in range(1000):
        for seat, player in enumerate(seated):
            game = player.record(seed=2024, index=index).games[0]
            points += game.points if game.winner == seat else -game.points
    assert points / 2000 > 1.5


@pytest.mark.parametrize("name", ["random", "pubeval", "heuristic"])
def test_choose_move_takes_an_id_and_dice_as_text_or_a_pair(name: str) -> None:
    bot = get_bot(name)
    for dice in ("31", (3, 1), Dice(3, 1)):
        move = bot.choose_move("4HPwATDgc/ABMA", dice)
        assert move in Position().legal_moves(3, 1)


@pytest.mark.parametrize("position, dice, error", [
    ("zzz", (3, 1), InvalidPositionError), (42, (3, 1), InvalidPositionError),
    ("4HPwATDgc/ABMA", 31, InvalidDiceError), ("4HPwATDgc/ABMA", (3, 9), InvalidDiceError),
])
def test_choose_move_with_bad_input_raises_a_value_error_subclass(position: object, dice: object,
                                                                   error: type[Exception]) -> None:
    with pytest.raises(error):
        get_bot("pubeval").choose_move(position, dice)  # type: ignore[arg-type]
    assert issubclass(error, ValueError)


def test_choose_move_in_a_finished_game_raises_invalid_position_error() -> None:
    with pytest.raises(InvalidPositionError, match="is over"):
        get_bot("pubeval").choose_move("AAAAAAAAAAAAAA", "31")
