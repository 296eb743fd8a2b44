"""The schedule: which players meet in match ``i``, at what length, with which dice.

The schedule is a pure function of the spec.  Matches are numbered 0, 1, 2, ...
in rounds; a round holds every (pairing, match length) once, and with
``paired_dice`` each entry is two consecutive matches that replay the same dice
with the seats swapped (backgammon's version of colour-swapped game pairs).
Match ``i`` rolls the dice of stream ``(spec.seed, dice_index)``, where
``dice_index`` is ``i // 2`` with paired dice and ``i`` without, so any worker
can play any match from ``(spec, i)`` alone.

Chunks, the units of work, are the match ranges ``[c * chunk_size, (c + 1) * chunk_size)``.

>>> from bgfast.tournament.spec import TournamentSpec
>>> spec = TournamentSpec.from_dict({
...     "name": "demo", "match_length": 5, "matches_per_pairing": 4, "players": [
...         {"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}, {"name": "c", "bot": "random"}]})
>>> sched = scheduler(spec)
>>> sched.total()
12
>>> [(p.player_a, p.player_b, p.dice_index) for p in sched.pairings()][:4]
[('a', 'b', 0), ('b', 'a', 0), ('a', 'c', 1), ('c', 'a', 1)]
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.tournament.openings import opening_order
from bgfast.tournament.spec import TournamentSpec

__all__ = ["Gauntlet", "Pairing", "RoundRobin", "Scheduler", "chunk_range", "scheduler"]


@dataclass(frozen=True)
class Pairing:
    """One scheduled match.  ``player_a`` sits in seat 0 (player 0 of the match)."""

    round: int
    """The round: every (pairing, length) is played once (twice with paired dice) per round."""
    pairing: int
    """The pairing's number in schedule order (the same for both seatings)."""
    match_index: int
    player_a: str
    player_b: str
    seat_a: int
    """Index of ``player_a`` in ``spec.players``; :ivar seat_b: that of ``player_b``."""
    seat_b: int
    length: int
    """Match length, 0 = a money game."""
    dice_index: int
    """The dice stream of the match is ``(spec.seed, dice_index)``."""
    opening: int | None = None
    """The index into ``spec.openings`` of the position the match starts from (None: the opening roll)."""


class Scheduler:
    """The deterministic order of a tournament's matches (see the module docstring)."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self._pairs = spec.pairs()
        self._lengths = spec.match_length
        self._per_entry = 2 if spec.paired_dice else 1
        self._per_round = len(self._pairs) * len(self._lengths) * self._per_entry
        self._total = spec.total_matches()
        self._openings = np.array(opening_order(len(spec.openings), spec.openings_order, spec.seed)
                                  if spec.openings else (), dtype=np.int64)

    def total(self) -> int:
        """Matches in the tournament."""
        return self._total

    def seat_array(self, start: int, stop: int) -> NDArray[np.int64]:
        """Matches ``start`` to ``stop - 1`` as rows (match index, pairing, length, dice index,
        seat 0 player, seat 1 player), the players as indices into ``spec.players``: the
        fast form of :meth:`match` that workers use.

        >>> from bgfast.tournament.spec import TournamentSpec
        >>> spec = TournamentSpec.from_dict({"name": "x", "match_length": 3, "matches_per_pairing": 2,
        ...     "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]})
        >>> scheduler(spec).seat_array(0, 5).tolist()
        [[0, 0, 3, 0, 0, 1], [1, 0, 3, 0, 1, 0]]
        """
        index = np.arange(max(0, start), max(0, min(stop, self._total)), dtype=np.int64)
        rnd, within = np.divmod(index, self._per_round)
        entry, swap = np.divmod(within, self._per_entry)
        pairing, length_no = np.divmod(entry, len(self._lengths))
        pairs = np.array(self._pairs, dtype=np.int64).reshape(-1, 2)[pairing]
        flip = (swap if self.spec.paired_dice else rnd % 2).astype(bool)
        return np.column_stack([index, pairing, np.array(self._lengths, dtype=np.int64)[length_no],
                                index // 2 if self.spec.paired_dice else index,
                                np.where(flip, pairs[:, 1], pairs[:, 0]), np.where(flip, pairs[:, 0], pairs[:, 1])])

    def opening_array(self, start: int, stop: int) -> NDArray[np.int64]:
        """The index into ``spec.openings`` that each of matches ``start`` to ``stop - 1``
        starts from (as :meth:`opening`); empty without openings."""
        if not len(self._openings):
            return np.zeros(0, dtype=np.int64)
        index = np.arange(max(0, start), max(0, min(stop, self._total)), dtype=np.int64)
        return np.asarray(self._opening_at(index), dtype=np.int64)

    def opening(self, index: int) -> int | None:
        """The index into ``spec.openings`` that match ``index`` starts from, or None without openings.

        Round ``r`` (both matches of each dice pair in it) plays opening ``order[r % n]``,
        ``order`` from :func:`~bgfast.tournament.openings.opening_order`: every pairing meets
        every opening equally often, from both seats.
        """
        if not len(self._openings):
            return None
        return int(self._opening_at(index))

    def _opening_at(self, index: Any) -> Any:
        """The opening of match ``index`` (an int, or an array of them)."""
        return self._openings[(index // self._per_round) % len(self._openings)]

    def match(self, index: int) -> Pairing:
        """The match numbered ``index`` (0-based).

        :raises IndexError: ``index`` is outside the tournament.
        """
        if not 0 <= index < self.total():
            raise IndexError(f"match index {index} outside 0..{self.total() - 1}")
        rnd, within = divmod(index, self._per_round)
        entry, swap = divmod(within, self._per_entry)
        pairing, length_no = divmod(entry, len(self._lengths))
        a, b = self._pairs[pairing]
        if swap if self.spec.paired_dice else rnd % 2:
            a, b = b, a
        names = self.spec.players
        return Pairing(round=rnd, pairing=pairing, match_index=index,
                       player_a=names[a].name, player_b=names[b].name, seat_a=a, seat_b=b,
                       length=self._lengths[length_no],
                       dice_index=index // 2 if self.spec.paired_dice else index, opening=self.opening(index))

    def pairings(self, start: int = 0, stop: int | None = None) -> Iterator[Pairing]:
        """The matches ``start`` to ``stop - 1`` in order (default: all)."""
        stop = self.total() if stop is None else min(stop, self.total())
        for index in range(start, stop):
            yield self.match(index)


class RoundRobin(Scheduler):
    """Every player meets every other one."""


class Gauntlet(Scheduler):
    """The challenger meets each of the other players."""


def scheduler(spec: TournamentSpec) -> Scheduler:
    """The scheduler for the spec's format."""
    return (Gauntlet if spec.format == "gauntlet" else RoundRobin)(spec)


def chunk_range(spec: TournamentSpec, chunk: int) -> range:
    """The match indices of chunk ``chunk``.

    >>> from bgfast.tournament.spec import TournamentSpec
    >>> spec = TournamentSpec.from_dict({"name": "x", "match_length": 1, "matches_per_pairing": 10,
    ...     "chunk_size": 4, "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]})
    >>> [chunk_range(spec, c) for c in range(spec.chunk_count())]
    [range(0, 4), range(4, 8), range(8, 10)]

    :raises IndexError: no such chunk.
    """
    if not 0 <= chunk < spec.chunk_count():
        raise IndexError(f"chunk {chunk} outside 0..{spec.chunk_count() - 1}")
    start = chunk * spec.chunk_size
    return range(start, min(start + spec.chunk_size, spec.total_matches()))
