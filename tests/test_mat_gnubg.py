"""bgfast's .mat files in the real GNU Backgammon program (Debian's gnubg 1.07): imported
with the same actions, every one (dice, steps, the position before each, cube actions,
the result and the score of every game), and written in gnubg's own layout.

The tests run ``gnubg -t`` (tests/gnubg_oracle.py) and skip, saying so, where it is not
installed.
"""
from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path

import pytest

from gnubg_oracle import compare_matches, requires_gnubg, run_gnubg
from match_cases import features, standard_cases

from bgfast.formats.mat import read_mat, write_mat

pytestmark = requires_gnubg


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, object, dict, str, str]]:
    """Each case written by bgfast, imported by gnubg and written again by gnubg."""
    folder = tmp_path_factory.mktemp("mat")
    cases = list(standard_cases())
    items = []
    for label, history, rules in cases:
        path = folder / f"{label}.mat"
        write_mat(history, path, players=("alice", "bob"))
        items.append({"path": str(path), "format": "mat", "jacoby": rules.jacoby,
                      "export_mat": str(folder / f"{label}.gnubg.mat")})
    answers = run_gnubg("import", items)
    return [(label, history, answer, (folder / f"{label}.mat").read_text(),
             (folder / f"{label}.gnubg.mat").read_text())
            for (label, history, _rules), answer in zip(cases, answers)]


def test_the_cases_show_every_kind_of_action(imported: list) -> None:
    seen: Counter[str] = Counter()
    for _label, history, *_ in imported:
        seen += features(history)
    for feature in ("double0", "double1", "take0", "take1", "pass0", "pass1", "beaver0", "beaver1", "crawford",
                    "gammon", "backgammon", "single", "dance", "bear-off", "enter", "hit"):
        assert seen[feature] > 0, feature


def test_gnubg_imports_every_action_of_every_game_as_bgfast_played_it(imported: list) -> None:
    for label, _history, answer, _ours, _theirs in imported:
        assert "nvalid" not in answer["output"] and "nrecognised" not in answer["output"], (label, answer["output"])
    compared, agree, failures = compare_matches([(label, history, answer) for label, history, answer, *_ in imported])
    print(f"{len(imported)} matches, {compared} actions compared with gnubg, {agree} agree")
    assert not failures, failures
    assert compared > 2900   # the seeded cases play about 3,000 actions (2,986 since the live cube runs to -L and W)


def _without_gnubg_extras(text: str) -> str:
    """gnubg's re-export less what bgfast does not write: the date comment (and the blank
    line it leaves at the top), a match's last 'and the match'."""
    text = re.sub(r"\A; \[EventDate [^\n]*\n", "", text)
    return text[1:] if text.startswith("\n") else text


def test_bgfast_writes_the_file_gnubg_writes_for_the_same_match(imported: list) -> None:
    for label, history, _answer, ours, theirs in imported:
        ours = ours.replace(" and the match", "")
        if label.startswith(("beaver", "random-money")):
            # gnubg writes a beaver as the double it records it as, and a money game's
            # points without the Jacoby rule
            continue
        assert ours == _without_gnubg_extras(theirs), label


@pytest.mark.parametrize("drops", [0, 1])
def test_a_drop_is_followed_by_its_wins_line_as_gnubg_writes_it(imported: list, drops: int) -> None:
    found = 0
    for _label, history, _answer, ours, _theirs in imported:
        for game in ours.split(" Game ")[1:]:
            lines = game.splitlines()
            for k, line in enumerate(lines):
                if "Drops" not in line:
                    continue
                if drops == 0 and re.match(r"^ *\d+\)  Drops {23}Wins \d+ points? $", line):
                    found += 1
                    assert lines[k + 1:] == [] or lines[k + 1] == ""
                elif drops == 1 and line.endswith(" Drops"):
                    found += 1
                    assert re.match(r"^ {6}Wins \d+ points?( and the match)?$", lines[k + 1])
    assert found > 0


def test_bgfast_reads_the_file_gnubg_writes_of_a_match_it_imported_as_that_match(imported: list) -> None:
    rules = {label: rules for label, _history, rules in standard_cases()}
    for label, history, _answer, _ours, theirs in imported:
        read = read_mat(io.StringIO(theirs), rules=rules[label])
        assert read.history.games == history.games, label
        assert read.history.record.score == history.record.score
