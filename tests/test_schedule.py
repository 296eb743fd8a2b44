"""The schedule: which players meet in each match, at what length, with which dice; chunks."""
from __future__ import annotations

from collections import Counter

import pytest

from bgfast.tournament.schedule import Gauntlet, RoundRobin, chunk_range, scheduler
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.worker import play_chunk


OPENINGS = ["0HPkATDgc/ABMA", "4HPkASjgc/ABMA", "sGfwATDgc/ABMA"]


def make(**changes: object) -> TournamentSpec:
    data: dict[str, object] = {
        "name": "s", "seed": 5, "match_length": [1, 3], "matches_per_pairing": 6, "players": [
            {"name": "a", "bot": "random"}, {"name": "b", "bot": "pubeval"}, {"name": "c", "bot": "random"}]}
    data.update(changes)
    return TournamentSpec.from_dict(data)


def test_round_robin_plays_every_pairing_at_every_length_the_same_number_of_times() -> None:
    sched = scheduler(make())
    assert isinstance(sched, RoundRobin)
    counts = Counter((frozenset((p.player_a, p.player_b)), p.length) for p in sched.pairings())
    assert len(counts) == 3 * 2 and set(counts.values()) == {6}
    assert sched.total() == 36


def test_gauntlet_plays_the_challenger_against_each_other_player_only() -> None:
    sched = scheduler(make(format="gauntlet", challenger="b"))
    assert isinstance(sched, Gauntlet)
    pairs = {frozenset((p.player_a, p.player_b)) for p in sched.pairings()}
    assert pairs == {frozenset("ab"), frozenset("bc")}


def test_paired_matches_replay_the_same_dice_with_the_seats_swapped() -> None:
    matches = list(scheduler(make()).pairings())
    for first, second in zip(matches[::2], matches[1::2]):
        assert first.dice_index == second.dice_index
        assert (first.player_a, first.player_b) == (second.player_b, second.player_a)
        assert (first.length, first.pairing) == (second.length, second.pairing)
    assert len({m.dice_index for m in matches}) == len(matches) // 2


def test_without_paired_dice_every_match_has_its_own_dice_and_seats_alternate_by_round() -> None:
    matches = list(scheduler(make(paired_dice=False, matches_per_pairing=4)).pairings())
    assert [m.dice_index for m in matches] == list(range(len(matches)))
    seat0 = Counter((m.pairing, m.player_a) for m in matches)
    assert set(seat0.values()) == {4}  # 2 lengths x 4 rounds, seat 0 taken by each player in half


def test_each_round_holds_every_pairing_and_length_once_per_seating() -> None:
    sched = scheduler(make())
    first_round = [p for p in sched.pairings() if p.round == 0]
    assert len(first_round) == 3 * 2 * 2
    assert {(p.pairing, p.length) for p in first_round} == {(q, n) for q in range(3) for n in (1, 3)}


def test_the_schedule_depends_on_the_spec_only() -> None:
    assert list(scheduler(make()).pairings()) == list(scheduler(make()).pairings())
    assert scheduler(make()).match(17) == list(scheduler(make()).pairings())[17]


def test_a_match_outside_the_tournament_is_an_index_error() -> None:
    with pytest.raises(IndexError):
        scheduler(make()).match(36)


def test_chunks_cover_every_match_exactly_once() -> None:
    spec = make(chunk_size=4)
    covered = [i for c in range(spec.chunk_count()) for i in chunk_range(spec, c)]
    assert covered == list(range(spec.total_matches()))
    assert spec.chunk_count() == 9
    with pytest.raises(IndexError):
        chunk_range(spec, 9)


def test_a_chunk_plays_the_same_rows_in_any_order_and_alone() -> None:
    spec = make(chunk_size=4)
    forward = [play_chunk(spec, c).rows for c in range(spec.chunk_count())]
    backward = [play_chunk(spec, c).rows for c in reversed(range(spec.chunk_count()))][::-1]
    assert forward == backward
    rows = [row for chunk in forward for row in chunk]
    assert [row[0] for row in rows] == list(range(spec.total_matches()))


def test_a_match_row_is_the_match_player_s_own_result() -> None:
    from bgfast.game import MatchPlayer

    spec = make(chunk_size=4)
    row = play_chunk(spec, 2).rows[1]
    p = scheduler(spec).match(row.idx)
    bots = [q.build() for q in spec.players]
    summary = MatchPlayer(bots[p.seat_a], bots[p.seat_b], length=p.length).play(spec.seed, p.dice_index)
    assert (row.seat0, row.seat1, row.result) == (p.seat_a, p.seat_b, summary)


def test_the_fast_seat_rows_agree_with_the_pairings() -> None:
    for spec in (make(), make(paired_dice=False, matches_per_pairing=4), make(format="gauntlet", challenger="c"),
                 make(openings=OPENINGS, openings_order="random")):
        sched = scheduler(spec)
        slow = [[p.match_index, p.pairing, p.length, p.dice_index, p.seat_a, p.seat_b] for p in sched.pairings()]
        assert sched.seat_array(0, sched.total()).tolist() == slow
        assert sched.seat_array(5, 9).tolist() == slow[5:9]
        assert sched.seat_array(sched.total() - 2, sched.total() + 5).tolist() == slow[-2:]
        assert sched.seat_array(7, 7).shape == (0, 6)
        openings = [p.opening for p in sched.pairings()]
        assert sched.opening_array(0, sched.total()).tolist() == (openings if spec.openings else [])
        assert sched.opening_array(3, 11).tolist() == (openings[3:11] if spec.openings else [])
