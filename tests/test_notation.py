"""Move notation exactly as GNU Backgammon writes it, and every spelling read back.

The vectors are gnubg 1.07's own notation (tests/gnubg_vectors.py, tests/data/README.md):
``notation.jsonl`` holds readable cases (every play of a roll: gnubg's text and the
resulting Position ID), chosen to show each rule of the notation; ``notation_digests.jsonl``
a digest of every play of every roll of 6,084 positions (the wildbg sets, the positions of
movegen.jsonl, 1,000 boards of tests/strategies.py).  The live tests ask the gnubg program
(skipped where it is not installed) and the PyPI gnubg module with gnubg_nn (skipped
without them) about positions the vectors do not hold.
"""
from __future__ import annotations

import importlib.util
import random

import pytest
from gnubg_oracle import ROLLS, bgfast_plays, notation_digest, requires_gnubg, run_gnubg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import legal_boards
from vectors import read_jsonl

from bgfast.errors import IllegalMoveError
from bgfast.position import BAR, OFF, CheckerMove, Move, Position

READABLE = read_jsonl("notation.jsonl")
DIGESTS = read_jsonl("notation_digests.jsonl")
HAVE_GNUBG_MODULE = all(importlib.util.find_spec(name) for name in ("gnubg", "gnubg_nn"))


def _case_id(case: dict) -> str:
    return f"{case['position_id']}-{case['dice'][0]}{case['dice'][1]}"


def _mismatches(cases: list[dict]) -> list[str]:
    """The Position IDs of ``cases`` (digest rows) whose plays bgfast writes otherwise than gnubg."""
    bad = []
    for case in cases:
        pos = Position(case["position_id"])
        if notation_digest([bgfast_plays(pos, h, l) for h, l in ROLLS]) != case["digest"]:
            bad.append(case["position_id"])
    return bad


# ---------------------------------------------------------------- the vectors


def test_the_vectors_cover_thousands_of_positions_and_every_rule_of_the_notation() -> None:
    assert len(DIGESTS) >= 6000 and {c["source"] for c in DIGESTS} >= {"wildbg-contact", "wildbg-race",
                                                                       "movegen", "strategies"}
    tags = {tag for case in READABLE for tag in case["tags"]}
    assert tags >= {"chain", "intermediate hit", "count", "bar", "off", "hit", "second landing on a hit point",
                    "chains not sorted"}


@pytest.mark.parametrize("case", READABLE, ids=_case_id)
def test_every_play_of_a_readable_case_is_written_as_gnubg_writes_it(case: dict) -> None:
    pos, (high, low) = Position(case["position_id"]), case["dice"]
    assert bgfast_plays(pos, high, low) == {pid: text for text, pid in case["plays"]}


@pytest.mark.parametrize("case", READABLE, ids=_case_id)
def test_each_gnubg_text_of_a_readable_case_parses_to_its_play(case: dict) -> None:
    pos, dice = Position(case["position_id"]), tuple(case["dice"])
    for text, pid in case["plays"]:
        move = pos.parse_move(text, dice)
        assert move.position.id() == pid and str(move) == text


def test_the_plays_of_thousands_of_positions_are_written_as_gnubg_writes_them() -> None:
    # every other position (3,042, ~860,000 plays); all of them with -m slow
    assert _mismatches(DIGESTS[::2]) == []


@pytest.mark.slow
def test_the_plays_of_all_the_digested_positions_are_written_as_gnubg_writes_them() -> None:
    assert _mismatches(DIGESTS) == []


def _plays_parse_back(cases: list[dict]) -> None:
    for case in cases:
        pos = Position(case["position_id"])
        for high, low in ROLLS:
            for move in pos.legal_moves(high, low):
                assert pos.parse_move(str(move), (high, low)) == move, (case["position_id"], high, low, str(move))


def test_every_play_of_hundreds_of_positions_parses_back_from_its_notation() -> None:
    # with the digests equal, these texts are gnubg's: each parses to the play it names
    _plays_parse_back(DIGESTS[::20])


@pytest.mark.slow
def test_every_play_of_all_the_digested_positions_parses_back_from_its_notation() -> None:
    _plays_parse_back(DIGESTS)


# ---------------------------------------------------------------- the rules, by example


@pytest.mark.parametrize("position_id, dice, text", [
    ("4HPwATDgc/ABMA", "11", "8/6 8/7(2)"),          # a chain takes the later steps; chains not sorted again
    ("4HPwATDgc/ABMA", "11", "24/22 24/23 6/5"),
    ("4HPwATDgc/ABMA", "62", "24/16"),               # one checker's steps merged
    ("4HPkQSDgc/ABMA", "64", "13/7*/3"),             # a hit on the way is written
    ("4HPkQSDgc/ABMA", "64", "24/14*"),
    ("4HPkQSDgc/ABMA", "64", "13/9 13/7*"),          # the same source: the higher destination first
])
def test_gnubg_notation_by_example(position_id: str, dice: str, text: str) -> None:
    pos = Position(position_id)
    assert text in [str(m) for m in pos.legal_moves(dice)]
    assert str(pos.parse_move(text, dice)) == text


def test_the_first_landing_on_a_blot_is_marked_and_equal_chains_are_counted() -> None:
    # an opponent blot on our 2 point: two checkers land there
    blots = [[0] * 25, [0] * 25]
    blots[0][22] = 1            # the opponent's blot on its 23 point = our 2 point
    blots[0][5] = 5
    blots[1][2], blots[1][4], blots[1][5] = 2, 1, 4
    pos = Position.from_board(blots)
    texts = {str(m) for m in pos.legal_moves(1, 1)}
    assert "3/2*(2) 6/5(2)" in texts or "6/5(2) 3/2*(2)" in texts
    assert "5/2* 3/2" in str(pos.parse_move("5/2* 3/2", "31"))


# ---------------------------------------------------------------- every spelling read back


def _spelling_before(move: Move) -> str:
    """The notation bgfast wrote before it followed gnubg (issue 14): the core's steps joined
    into chains in their order, hits marked where they happened, the chains sorted."""
    steps = move._steps  # the core's step order, which that spelling depended on
    if not steps:
        return ""
    chains: list[list[CheckerMove]] = []
    for step in steps:
        for chain in chains:
            if chain[-1].dst == step.src and chain[-1].dst != OFF:
                chain.append(step)
                break
        else:
            chains.append([step])
    texts = []
    for chain in chains:
        parts = ["bar" if chain[0].src == BAR else str(chain[0].src)]
        for i, step in enumerate(chain):
            if step.hit or i == len(chain) - 1:
                parts.append(("off" if step.dst == OFF else str(step.dst)) + ("*" if step.hit else ""))
        texts.append(((chain[0].src, chain[-1].dst), "/".join(parts)))
    texts.sort(key=lambda t: (-t[0][0], -t[0][1]))
    out: list[str] = []
    counts: list[int] = []
    for _, text in texts:
        if out and out[-1] == text:
            counts[-1] += 1
        else:
            out.append(text)
            counts.append(1)
    return " ".join(t if c == 1 else f"{t}({c})" for t, c in zip(out, counts))


def _one_step_a_die(move: Move) -> str:
    """Every single-die step written on its own, a hit where it happens (``24/21 21/15*``)."""
    return " ".join(str(step) for step in move.checker_moves)


@pytest.mark.parametrize("spell", [_spelling_before, _one_step_a_die], ids=["bgfast-before", "one-step-a-die"])
def test_the_other_spellings_of_a_play_still_parse_to_it(spell) -> None:
    other = 0
    for case in READABLE:
        pos, dice = Position(case["position_id"]), tuple(case["dice"])
        for move in pos.legal_moves(*dice):
            text = spell(move)
            other += text != str(move)
            assert pos.parse_move(text, dice) == move, (case["position_id"], dice, text, str(move))
    assert other > 100  # the spellings do differ from gnubg's on these cases


@pytest.mark.parametrize("text, dice", [
    ("13/11* 13/11", "22"), ("13/11 13/11*", "22"), ("13/11*(2)", "22"),  # a doubled hit, spelt three ways
])
def test_a_doubled_hit_reads_however_it_is_marked(text: str, dice: str) -> None:
    # our two checkers on 13, an opponent blot on our 11 and its point on our 9: 13/11 twice is the play
    opponent = [0] * 25
    opponent[24 - 11], opponent[24 - 9] = 1, 2
    pos = Position.from_board([opponent, [0] * 12 + [2] + [0] * 12])
    move = pos.parse_move(text, dice)
    assert str(move) == "13/11*(2)" and move.position.board[0][24] == 1


def test_a_hit_marked_where_there_is_no_blot_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match="no blot"):
        Position().parse_move("24/18*", "61")


# ---------------------------------------------------------------- live: the gnubg program


def _sample(per_source: int) -> list[str]:
    rng = random.Random(1407)
    ids = []
    for source in ("wildbg-contact", "wildbg-race", "movegen", "strategies"):
        ids += rng.sample([c["position_id"] for c in DIGESTS if c["source"] == source], per_source)
    return ids


@requires_gnubg
def test_the_gnubg_program_writes_every_play_as_bgfast_does() -> None:
    ids = _sample(8)
    items = [[pid, h, l] for pid in ids for h, l in ROLLS]
    for (pid, high, low), texts in zip(items, run_gnubg("hints", items)):
        pos = Position(pid)
        assert sorted(bgfast_plays(pos, high, low).values()) == sorted(texts), (pid, high, low)
        for text in texts:
            assert str(pos.parse_move(text, (high, low))) == text


# ---------------------------------------------------------------- live: the PyPI gnubg module


@pytest.mark.skipif(not HAVE_GNUBG_MODULE, reason="the PyPI packages gnubg and gnubg-nn are not installed "
                                                  "(pip install 'bgfast[gnubg,gnubg-full]')")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_boards(), st.sampled_from(ROLLS))
def test_the_gnubg_module_writes_every_play_of_random_boards_as_bgfast_does(board, roll) -> None:
    import gnubg
    import gnubg_nn

    pos = Position.from_board(board)
    high, low = roll
    expected = {}
    for key, steps in gnubg_nn.moves(board, high, low, 1):
        result = Position.from_board(gnubg_nn.board_from_position_key(key)).id()
        expected[result] = gnubg.move_tuple_to_string(tuple(x for step in steps for x in step), board)
    assert bgfast_plays(pos, high, low) == expected
