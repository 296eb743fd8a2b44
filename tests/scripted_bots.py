"""Python bots for the rules tests: they play by pubeval (or its reverse), double and
answer as told, and write every call they get into a journal.

The game loop calls them back through ``bgfast.game._PythonAdapter`` at each decision
point, so a test can force any cube action and then read, from the journal, exactly
what the loop asked and in which state (score, cube value and owner, Crawford flag).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bgfast._core.evaluators import pubeval_score

from bgfast.bots import CubeResponse, get_bot
from bgfast.dice import Dice
from bgfast.match import MatchState
from bgfast.position import Position


@dataclass
class Call:
    """One call of the loop into a bot."""

    seat: int
    """The seat (0 or 1) of the bot called."""
    what: str
    """``"play"``, ``"double"`` (asked whether to double) or ``"take"`` (asked to answer a double)."""
    match: MatchState
    position: Position
    """As given to the bot: on roll for a play or a double, the doubler on roll for a take."""
    dice: Dice | None = None
    result: Position | None = None
    """For a play: the position chosen, in the mover's frame (side 1 just moved)."""


@dataclass
class ScriptedBot:
    """A bot whose cube behaviour is scripted.

    :param seat: the seat it sits in (journal entries carry it).
    :param journal: a list shared by both bots, so the order of calls is kept.
    :param play: ``"best"`` plays the pubeval-best play, ``"worst"`` the pubeval-worst one
        (it is gammoned and backgammoned most of the time).
    :param double: whether to double when asked: a bool, or a function of (position, match).
    :param answers: the answer to each double in turn; the last one repeats.
    """

    seat: int
    journal: list[Call] = field(default_factory=list)
    play: str = "best"
    double: bool | Callable[[Position, MatchState], bool] = False
    answers: Sequence[CubeResponse] = (CubeResponse.TAKE,)
    _answered: int = 0

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Position:
        race = position.is_race()
        children = position.children(dice.high, dice.low)
        sign = 1.0 if self.play == "best" else -1.0
        chosen = max(children, key=lambda child: sign * pubeval_score(child.to_bytes(), race))
        self.journal.append(Call(self.seat, "play", match, position, dice, chosen))
        return chosen

    def should_double(self, position: Position, match: MatchState) -> bool:
        self.journal.append(Call(self.seat, "double", match, position))
        return self.double(position, match) if callable(self.double) else self.double

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        self.journal.append(Call(self.seat, "take", match, position))
        answer = self.answers[min(self._answered, len(self.answers) - 1)]
        self._answered += 1
        return answer


def scripted_pair(**options: dict) -> tuple[ScriptedBot, ScriptedBot, list[Call]]:
    """Two scripted bots sharing one journal: ``scripted_pair(p0={...}, p1={...})``."""
    journal: list[Call] = []
    bots = (ScriptedBot(0, journal, **options.get("p0", {})), ScriptedBot(1, journal, **options.get("p1", {})))
    return bots[0], bots[1], journal


class PubevalDelegate:
    """A Python bot that asks the built-in pubeval bot for every decision (slow path)."""

    def __init__(self, **options: object) -> None:
        self.inner = get_bot("pubeval", **options)

    def choose_move(self, position: Position, dice: Dice, match: MatchState):  # type: ignore[no-untyped-def]
        return self.inner.choose_move(position, dice, match)

    def should_double(self, position: Position, match: MatchState) -> bool:
        return self.inner.should_double(position, match)

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        return self.inner.accept_double(position, match)
