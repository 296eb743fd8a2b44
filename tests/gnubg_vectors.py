"""Make the GNU Backgammon test vectors of tests/data/ by asking gnubg itself.

Needs the GNU Backgammon program (Debian package ``gnubg``, 1.07, run as ``gnubg -t -q -p``
through tests/gnubg_oracle.py) and, for ``notation``, the PyPI packages ``gnubg``
(``pip install 'bgfast[gnubg-full]'``) and ``gnubg-nn`` (``bgfast[gnubg]``)::

    python tests/gnubg_vectors.py notation    # tests/data/notation.jsonl, notation_digests.jsonl
    python tests/gnubg_vectors.py xgid        # tests/data/xgid.jsonl
    python tests/gnubg_vectors.py dead-cube   # tests/data/dead_cube.jsonl
    python tests/gnubg_vectors.py cube        # tests/data/cube_gnubg.jsonl

``notation``: every legal play of each position (the wildbg sets, the positions of
tests/data/movegen.jsonl, 1000 boards of tests/strategies.py) for all 21 rolls.  The
program lists the plays in its notation (``hint`` at 0 ply); gnubg_nn's generator gives
each play's resulting position and the PyPI gnubg module its notation
(``move_tuple_to_string``), and the two must give the same strings for every roll.  The
digests (tests/gnubg_oracle.py ``notation_digest``) cover every position; the readable
cases are the rolls that show each rule of the notation, and some others.

``xgid``: 400 XGIDs drawn with every field (``random_xgid``) and 200 that bgfast writes
for drawn match states (``random_match_state``), each with the Position ID and Match ID
gnubg has after ``set xgid`` (or that it did not read it).

``dead-cube``: whether gnubg accepts ``double`` in every match state of matches to 1, 2,
3, 5 and 7 points (each score, cube 1 to 8 and its owner, either player on roll,
Crawford or not) and some money states.

``cube``: gnubg's 0-ply cube decision (its cubeless probabilities and the cubeful match
winning chances of no double, double/take and double/pass) for positions of the shipped
net's self-play in drawn match states: matches to 3, 5, 7 and 11 points, every score,
the cube centred or owned up to 8, Crawford and post-Crawford games; gnubg's default
table, Kazaross-XG2, is bgfast's too.
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from gnubg_oracle import (
    ROLLS,
    notation_digest,
    random_match_state,
    random_xgid,
    run_gnubg,
)
from vectors import read_ids, read_jsonl

from bgfast.match import MatchState
from bgfast.position import Position

# run as `python tests/gnubg_vectors.py`: this folder is on sys.path, so the helpers above import as modules
TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
STRATEGY_BOARDS = 1000
READABLE_PER_TAG = 40
READABLE_OTHERS = 150


# ---------------------------------------------------------------- positions


def strategy_positions(count: int) -> list[str]:
    """``count`` boards of tests/strategies.py ``legal_boards()`` (hypothesis, derandomised)."""
    from hypothesis import HealthCheck, Phase, given, settings

    from strategies import legal_boards

    ids: dict[str, None] = {}

    @settings(max_examples=count * 3, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(legal_boards())
    def collect(board: list[list[int]]) -> None:
        pos = Position.from_board(board)
        if len(ids) < count and not pos.is_over():
            ids[pos.id()] = None

    collect()
    return list(ids)


def all_positions() -> list[tuple[str, str]]:
    """``(source, Position ID)`` of every position the notation vectors cover, each once."""
    seen: dict[str, str] = {}
    for source, ids in (
        ("wildbg-contact", read_ids("contact.csv")),
        ("wildbg-race", read_ids("race.csv")),
        ("movegen", sorted({c["position_id"] for c in read_jsonl("movegen.jsonl")})),
        ("strategies", strategy_positions(STRATEGY_BOARDS)),
    ):
        for pid in ids:
            seen.setdefault(pid, source)
    return [(source, pid) for pid, source in seen.items()]


# ---------------------------------------------------------------- notation


def pypi_plays(pid: str, high: int, low: int) -> tuple[dict[str, str], dict[str, int]]:
    """``{resulting Position ID: notation}`` from gnubg_nn's generator and the gnubg module's
    notation, and ``{resulting Position ID: dice played}``."""
    import gnubg
    import gnubg_nn

    pos = Position(pid)
    board = [list(pos.board[0]), list(pos.board[1])]
    texts, steps_of = {}, {}
    for key, steps in gnubg_nn.moves(board, high, low, 1):
        result = Position.from_board(gnubg_nn.board_from_position_key(key)).id()
        texts[result] = gnubg.move_tuple_to_string(tuple(x for step in steps for x in step), board)
        steps_of[result] = len(steps)
    return texts, steps_of


_TAGS = {
    "intermediate hit": re.compile(r"\*/"),
    "count": re.compile(r"\(\d\)"),
    "bar": re.compile(r"bar/"),
    "off": re.compile(r"/off"),
    "hit": re.compile(r"\*"),
}


def tags(text: str, steps: int) -> set[str]:
    """The rules of the notation a play's text shows (for choosing readable cases); ``steps``
    is the number of dice played (``chain``: fewer written moves than that)."""
    found = {name for name, pattern in _TAGS.items() if pattern.search(text)}
    tokens = text.split()
    written = sum(int(t[t.index("(") + 1]) if "(" in t else 1 for t in tokens)
    if written < steps:
        found.add("chain")
    landings: Counter[str] = Counter()
    marked: set[str] = set()
    for token in tokens:
        for point in token.split("(")[0].split("/")[1:]:
            landings[point.rstrip("*")] += 1
            if point.endswith("*"):
                marked.add(point.rstrip("*"))
    if any(landings[p] > 1 for p in marked) and "(" not in text:
        found.add("second landing on a hit point")
    sources = [(-int(t.split("/")[0].replace("bar", "25")), -int(t.split("(")[0].split("/")[-1].rstrip("*")
                                                                  .replace("off", "0"))) for t in tokens]
    if sources != sorted(sources):
        found.add("chains not sorted")
    return found


def make_notation() -> None:
    positions = all_positions()
    print(f"{len(positions)} positions x 21 rolls", flush=True)
    t0 = time.time()
    pypi = {pid: [pypi_plays(pid, h, l) for h, l in ROLLS] for _, pid in positions}
    print(f"gnubg_nn + gnubg module: {time.time() - t0:.0f} s", flush=True)
    items = [[pid, h, l] for _, pid in positions for h, l in ROLLS]
    program: list[list[str]] = []
    for start in range(0, len(items), 10000):
        program += run_gnubg("hints", items[start:start + 10000])
        print(f"gnubg program: {len(program)}/{len(items)} rolls, {time.time() - t0:.0f} s", flush=True)
    answers = iter(program)
    digests, readable, plays_total = [], [], 0
    by_tag: Counter[str] = Counter()
    rng = random.Random(14)
    for source, pid in positions:
        rolls = []
        for (h, l), (by_id, steps_of) in zip(ROLLS, pypi[pid]):
            strings = next(answers)
            if sorted(strings) != sorted(by_id.values()):
                raise SystemExit(f"the program and the gnubg module disagree on {pid} {h}{l}:\n"
                                 f"{sorted(strings)}\n{sorted(by_id.values())}")
            plays_total += len(strings)
            rolls.append(by_id)
            id_of = {text: rid for rid, text in by_id.items()}
            case_tags: set[str] = set()
            for text in strings:
                case_tags |= tags(text, steps_of[id_of[text]])
            wanted = [t for t in sorted(case_tags) if by_tag[t] < READABLE_PER_TAG]
            if wanted or rng.random() < READABLE_OTHERS / (len(positions) * 21):
                by_tag.update(case_tags)
                readable.append({"position_id": pid, "source": source, "dice": [h, l], "tags": sorted(case_tags),
                                 "plays": [[text, id_of[text]] for text in strings]})
        digests.append({"position_id": pid, "source": source, "digest": notation_digest(rolls)})
    write_jsonl("notation_digests.jsonl", digests)
    write_jsonl("notation.jsonl", readable)
    print(f"{plays_total} plays of {len(positions)} positions: the program and the gnubg module agree on all; "
          f"{len(readable)} readable cases ({dict(by_tag)})")


# ---------------------------------------------------------------- XGID


def make_xgid() -> None:
    rng = random.Random(14)
    ids = read_ids("contact.csv") + read_ids("race.csv")
    drawn = [random_xgid(rng, ids) for _ in range(400)]
    written = []
    for _ in range(200):
        state, pos = random_match_state(rng), Position(rng.choice(ids))
        written.append((state, pos, state.xgid(pos.board)))
    answers = run_gnubg("xgid", drawn + [x for _, _, x in written])
    rows: list[dict[str, Any]] = []
    for xgid, answer in zip(drawn, answers):
        rows.append({"kind": "drawn", "xgid": xgid, **_answer(answer)})
    for (state, pos, xgid), answer in zip(written, answers[len(drawn):]):
        rows.append({"kind": "written", "from_position_id": pos.id(), "from_match_id": state.match_id(),
                     "xgid": xgid, **_answer(answer)})
    write_jsonl("xgid.jsonl", rows)
    print(f"{len(rows)} XGIDs, gnubg read {sum('match_id' in r for r in rows)}")


def _answer(answer: Any) -> dict[str, Any]:
    if isinstance(answer, list):
        return {"position_id": answer[0], "match_id": answer[1]}
    return {"gnubg": answer["error"]}


# ---------------------------------------------------------------- dead cube


def dead_cube_states() -> list[MatchState]:
    """Every match state of the grid the dead-cube vectors cover (the player on roll to double)."""
    states = []
    cubes = [(1, -1), (2, 0), (2, 1), (4, 0), (4, 1), (8, 0), (8, 1)]
    for length in (1, 2, 3, 5, 7):
        for score, (cube, owner), player in itertools.product(
                itertools.product(range(length), repeat=2), cubes, (0, 1)):
            one_away = score.count(length - 1) == 1
            for crawford in ((False, True) if one_away and cube == 1 else (False,)):
                states.append(MatchState(length=length, score=score, cube_value=cube, cube_owner=owner,
                                         player_on_roll=player, turn=player, crawford=crawford))
    for (cube, owner), player in itertools.product(cubes, (0, 1)):
        states.append(MatchState(score=(3, 1), cube_value=cube, cube_owner=owner, player_on_roll=player,
                                 turn=player, jacoby=True))
    return states


def make_dead_cube() -> None:
    states = dead_cube_states()
    start = Position().id()
    answers = run_gnubg("double", [[start, s.match_id()] for s in states])
    rows = []
    for state, answer in zip(states, answers):
        if isinstance(answer, dict):
            raise SystemExit(f"gnubg did not take {state.match_id()}: {answer['error']}")
        rows.append({"match_id": state.match_id(), "doubles": MatchState.from_match_id(answer).double_offered})
    write_jsonl("dead_cube.jsonl", rows)
    print(f"{len(rows)} states, gnubg doubles in {sum(r['doubles'] for r in rows)}")


# ---------------------------------------------------------------- cube decisions

CUBE_CASES = 1500


def cube_states(rng: random.Random) -> MatchState:
    """A match state with the cube available to the side on roll (player 0): not the
    Crawford game, the cube centred or its own and alive for it."""
    while True:
        length = rng.choice((3, 5, 7, 7, 11))
        score = (rng.randrange(length), rng.randrange(length))
        cube, owner = rng.choice(((1, -1), (1, -1), (1, -1), (2, 0), (4, 0), (8, 0)))
        if length - score[0] > cube:
            return MatchState(length=length, score=score, cube_value=cube, cube_owner=owner)


def make_cube() -> None:
    from bgfast.bots.neural import shipped_weights
    from bgfast.train.config import self_play

    rng = random.Random(12)
    boards = self_play(shipped_weights().model()).positions(12, 1000, 400, 7)
    positions = [p for p in (Position._from_valid_bytes(b.tobytes()) for b in boards) if not p.is_over()]
    cases = [(rng.choice(positions), cube_states(rng)) for _ in range(CUBE_CASES)]
    items = [[pos.id(), s.score[0], s.score[1], s.length, s.cube_value, s.cube_owner, 0] for pos, s in cases]
    answers = run_gnubg("cube", items)
    rows = [{"position_id": pos.id(), "length": s.length, "score": list(s.score), "cube": s.cube_value,
             "owner": s.cube_owner, **answer} for (pos, s), answer in zip(cases, answers)]
    write_jsonl("cube_gnubg.jsonl", rows)
    print(f"{len(rows)} decisions, gnubg doubles in {sum(min(r['dt'], r['dp']) > r['nd'] for r in rows)}")


def write_jsonl(name: str, rows: list[dict[str, Any]]) -> None:
    with open(DATA / name, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, separators=(",", ":")) + "\n")
    print(f"wrote {DATA / name} ({len(rows)} lines)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("notation", "xgid", "dead-cube", "cube"))
    args = ap.parse_args()
    {"notation": make_notation, "xgid": make_xgid, "dead-cube": make_dead_cube, "cube": make_cube}[args.what]()


if __name__ == "__main__":
    main()
