"""Reading matches from files (bgfast.formats.sgf, bgfast.formats.mat) and SGF in GNU
Backgammon: round trips, files gnubg itself writes for matches it played, gnubg loading
bgfast's SGF with the same actions, and bad input.

The gnubg tests run the real program (tests/gnubg_oracle.py) and skip, saying so, where
it is not installed.
"""
from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest

from gnubg_oracle import bgfast_actions, compare_actions, compare_matches, gnubg_actions, requires_gnubg, run_gnubg
from match_cases import features, other_cases, standard_cases

from bgfast.bots import get_bot
from bgfast.errors import InvalidMatchFileError
from bgfast.formats.mat import mat_text, parse_mat, read_mat, write_mat
from bgfast.formats.match_file import MatchFile
from bgfast.formats.sgf import parse_sgf, read_sgf, sgf_text, write_sgf
from bgfast.game import MatchHistory, play_match_with_history
from bgfast.match import Rules
from bgfast.position import Position

STANDARD = list(standard_cases())
OTHERS = list(other_cases())


def _same_match(read: MatchFile, history: MatchHistory, rules: Rules) -> None:
    """``read`` is ``history`` (the record but its seed and index, every turn) under ``rules``."""
    record = dataclasses.replace(read.history.record, seed=history.record.seed, index=history.record.index)
    assert record == history.record
    assert read.history.games == history.games
    assert read.rules == rules


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("label, history, rules", STANDARD + OTHERS, ids=[c[0] for c in STANDARD + OTHERS])
def test_an_sgf_file_reads_back_to_the_same_match_turn_by_turn(label: str, history: MatchHistory, rules: Rules,
                                                               tmp_path: Path) -> None:
    path = tmp_path / "m.sgf"
    write_sgf(history, path, players=("alice", "bob smith"), rules=rules, info={"event": "test [1]", "date": "2024-05-06"})
    read = read_sgf(path)
    _same_match(read, history, rules)
    assert read.players == ("alice", "bob smith")
    assert read.info == {"event": "test [1]", "date": "2024-05-06"}
    assert sgf_text(read) == path.read_text()


@pytest.mark.parametrize("label, history, rules", STANDARD, ids=[c[0] for c in STANDARD])
def test_a_mat_file_reads_back_to_the_same_match_turn_by_turn(label: str, history: MatchHistory, rules: Rules,
                                                              tmp_path: Path) -> None:
    path = tmp_path / "m.mat"
    write_mat(history, path, players=("alice", "bob"))
    read = read_mat(path, rules=rules)
    _same_match(read, history, rules)
    assert read.players == ("alice", "bob")
    assert mat_text(read.history, players=read.players) == path.read_text()


RULED = [c for c in STANDARD + OTHERS if c[0].startswith(("beaver-money", "random-money", "no-crawford"))]


@pytest.mark.parametrize("label, history, rules", RULED, ids=[c[0] for c in RULED])
def test_a_mat_file_written_with_its_rules_reads_back_under_them_untold(label: str, history: MatchHistory,
                                                                      rules: Rules, tmp_path: Path) -> None:
    # without the tags a match without the Crawford rule or with beavers did not read back, and
    # a money game without the Jacoby rule read back under it, its gammons worth a point
    path = tmp_path / "m.mat"
    write_mat(history, path, players=("alice", "bob"), rules=rules)
    _same_match(read_mat(path), history, rules)
    assert path.read_text().startswith(" ; [") == (rules != Rules())


def test_a_mat_file_of_a_variant_is_refused() -> None:
    label, history, rules = next(c for c in OTHERS if c[0].startswith("nackgammon"))
    with pytest.raises(ValueError, match="a .mat file holds standard backgammon, not nackgammon"):
        mat_text(history, rules=rules)


def test_the_cases_cover_what_the_formats_hold() -> None:
    seen = sum((features(h) for _label, h, _rules in STANDARD + OTHERS), start=features(STANDARD[0][1]))
    for feature in ("double0", "double1", "take0", "take1", "pass0", "pass1", "beaver0", "beaver1", "crawford",
                    "gammon", "backgammon", "dance", "bear-off", "enter", "hit"):
        assert seen[feature] > 0, feature


def test_a_read_match_can_be_replayed_and_its_positions_rolled_out() -> None:
    _label, history, rules = STANDARD[0]
    read = parse_sgf(sgf_text(history, rules=rules))
    turn = next(t for turns in read.history.games for t in turns if t.action == "double")
    assert isinstance(turn.position, Position) and not turn.position.is_over()
    from bgfast.rollout import rollout
    assert rollout(turn.position, trials=36, seed=1).trials == 36


# ---------------------------------------------------------------- GNU Backgammon


@pytest.fixture(scope="module")
def gnubg_loads_bgfast_sgf(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, MatchHistory, dict]]:
    folder = tmp_path_factory.mktemp("sgf")
    items = []
    for label, history, rules in STANDARD + OTHERS:
        path = folder / f"{label}.sgf"
        write_sgf(history, path, players=("alice", "bob"), rules=rules)
        items.append({"path": str(path), "format": "sgf", "jacoby": rules.jacoby})
    answers = run_gnubg("import", items)
    return [(label, history, answer) for (label, history, _rules), answer in zip(STANDARD + OTHERS, answers)]


@requires_gnubg
def test_gnubg_loads_bgfast_sgf_with_every_action_of_every_game(gnubg_loads_bgfast_sgf: list) -> None:
    compared, agree, failures = compare_matches(gnubg_loads_bgfast_sgf)
    print(f"{len(gnubg_loads_bgfast_sgf)} matches, {compared} actions compared with gnubg, {agree} agree")
    assert not failures, failures
    assert compared > 2900   # the seeded cases play about 3,000 actions (2,986 since the live cube runs to -L and W)


@pytest.fixture(scope="module")
def gnubg_played(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict, dict, Path, Path]]:
    """Matches gnubg played against itself at 0 ply, and the .mat and SGF files it wrote of them."""
    folder = tmp_path_factory.mktemp("selfplay")
    items = []
    for seed, length in enumerate((5, 7, 3, 1, 0, 0, 9)):
        items.append({"length": length, "seed": seed + 1, "mat": str(folder / f"{seed}.mat"),
                      "sgf": str(folder / f"{seed}.sgf"), "jacoby": seed % 2 == 0})
    answers = run_gnubg("selfplay", items, timeout=1800)
    return [(item, answer, Path(item["mat"]), Path(item["sgf"])) for item, answer in zip(items, answers)]


@requires_gnubg
@pytest.mark.parametrize("kind", ["sgf", "mat"])
def test_bgfast_reads_the_files_gnubg_writes_of_matches_it_played(gnubg_played: list, kind: str) -> None:
    compared = agree = 0
    resigned = 0
    for item, answer, mat, sgf in gnubg_played:
        rules = Rules(jacoby=item["jacoby"], beaver=True)
        read = read_sgf(sgf, rules=rules) if kind == "sgf" else read_mat(mat, rules=rules)
        n, same, differences = compare_actions(bgfast_actions(read.history), gnubg_actions(answer))
        assert not differences, (item, differences)
        compared, agree = compared + n, agree + same
        resigned += sum(g.kind == "resign" for g in read.history.record.games)
        assert read.players == ("gnubg", "root") or kind == "mat"
    print(f"{len(gnubg_played)} gnubg matches read from {kind}: {compared} actions compared, {agree} agree")
    assert compared > 500 and resigned > 0


# ---------------------------------------------------------------- bad input


def _sgf(history_rules: tuple = STANDARD[0]) -> str:
    _label, history, rules = history_rules
    return sgf_text(history, rules=rules)


@pytest.mark.parametrize("change, message", [
    (lambda t: re.sub(r"(;[WB]\[\d\d)[a-z]+\]", r"\1lblb]", t, count=1), r"game 1, node 2: player \d's \d\d 'l?\d+/\d+ \d+/\d+' is not a legal play"),
    (lambda t: t.replace("]\n;", "]\n;B[double]\n;", 1), r"game 1, node 2: player 1 doubles before the opening roll"),
    (lambda t: "(;FF[4]GM[1]SZ[19])", "no backgammon game"),
    (lambda t: t[:-5], "not an SGF file"),
    (lambda t: t[:t.index("(;", 1)] + "(;FF[4]GM[6]", "not an SGF file: error parsing game 2: "),  # sgfmill: "game 1"
    (lambda t: t.replace("[ws:0]", "[ws:x]", 1), r"game 1, node 1: MI\[ws:x\]"),
    (lambda t: t.replace("RE[", "RE[Q", 1), r"game 1, node 1: RE\["),
])
def test_bad_sgf_raises_naming_the_game_and_node(change: object, message: str) -> None:
    with pytest.raises(InvalidMatchFileError, match=message):
        parse_sgf(change(_sgf()), source="bad.sgf")  # type: ignore[operator]


@pytest.mark.parametrize("junk", ["JUNK", "JUNK JUNK)"])
def test_text_between_sgf_game_trees_is_refused_not_skipped_with_a_game(junk: str) -> None:
    text = sgf_text(play_match_with_history(get_bot("pubeval"), get_bot("random"), length=5, seed=3),
                    players=("pubeval", "random"))
    assert text.count("(;") >= 2
    cut = text.rindex("(;")
    with pytest.raises(InvalidMatchFileError, match=r"bad.sgf: line \d+: 'JUNK.*after game tree \d+"):
        parse_sgf(text[:cut] + junk + text[cut + 1:], source="bad.sgf")
    assert parse_sgf(text + "\n\n", source="ok.sgf").history is not None  # whitespace is fine


def test_an_sgf_game_whose_result_disagrees_with_its_play_is_refused() -> None:
    text = _sgf()
    first = text.split(")\n")[0]
    result = first[first.index("RE[") + 3:first.index("]", first.index("RE["))]
    other = ("B" if result[0] == "W" else "W") + result[1:]
    with pytest.raises(InvalidMatchFileError, match=r"game 1, node 1: the file says player \d won game 1"):
        parse_sgf(text.replace(f"RE[{result}]", f"RE[{other}]", 1))


def test_a_result_worth_other_points_than_the_play_wins_is_refused_in_words() -> None:
    history = play_match_with_history(get_bot("pubeval", cube="never"), get_bot("heuristic", cube="never"),
                                      length=1, seed=0)
    text = mat_text(history, players=("a", "b"))
    assert "Wins 2 points and the match" in text                # a gammon, cube never turned
    with pytest.raises(InvalidMatchFileError, match="the file says game 1 was won for 1 point; its play wins 2 points"):
        parse_mat(text.replace("Wins 2 points", "Wins 1 point"))


def test_a_bear_off_in_an_illegal_sgf_play_is_written_off() -> None:
    text = _sgf()
    plays = re.findall(r";([WB])\[(\d\d)([a-y])z([a-y]?z?)\]", text)
    assert plays                                                  # a play that bears a checker off
    side, roll, _src, rest = plays[0]
    bad = f";{side}[{roll}{_src}z{rest}]"
    with pytest.raises(InvalidMatchFileError, match=r"'\S+/off"):
        parse_sgf(text.replace(bad, f";{side}[{roll}azaz]", 1))


def test_an_sgf_score_that_does_not_follow_from_the_games_before_is_refused() -> None:
    text = _sgf()
    assert "[game:1][ws:" in text
    games = text.split("(;")
    games[2] = games[2].replace("[ws:", "[ws:9", 1)
    with pytest.raises(InvalidMatchFileError, match="game 2, node 1: the game starts at"):
        parse_sgf("(;".join(games))


def _mat() -> str:
    _label, history, _rules = STANDARD[0]
    return mat_text(history, players=("alice", "bob"))


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace(" 7 point match", " seven point match"), "bad.mat: line 1: 'seven point match' before the 'N point match' line"),
    (lambda t: t.replace("  1) ", "  1) 66: 24/12 ", 1), r"line 5 \(game 1, move 1\): the opening roll cannot be a double, got 66"),
    (lambda t: t.replace(" alice : 0", " alice 0", 1), "line 4: 'alice 0 .* is not the score line"),
    (lambda t: t.replace("Doubles => 2", "Doubles => 8", 1), "the cube is at 1, so a double makes it 2"),
    (lambda t: t.replace("Takes", "Frobs", 1), "'Frobs' is not a roll, a cube action or a Wins line"),
    (lambda t: t.replace(" Game 2", " Game 2\n alice : 0                      bob : 0\n Game 3", 1), "the game starts at"),
])
def test_bad_mat_raises_naming_the_line(change: object, message: str) -> None:
    with pytest.raises(InvalidMatchFileError, match=message):
        parse_mat(change(_mat()), source="bad.mat")  # type: ignore[operator]


def test_a_beaver_the_rules_do_not_allow_is_refused_and_read_with_beavers_on() -> None:
    label, history, rules = next(c for c in STANDARD if c[0].startswith("beaver"))
    text = mat_text(history)
    with pytest.raises(InvalidMatchFileError, match="cannot beaver: beavers are allowed only"):
        parse_mat(text, rules=Rules(jacoby=rules.jacoby))
    assert parse_mat(text, rules=rules).history.games == history.games


def _dead_cube_doubles(history: MatchHistory) -> int:
    before = (0, 0)
    dead = 0
    for record, turns in zip(history.record.games, history.games):
        dead += sum(t.action == "double" and history.record.length - before[t.player] <= t.cube // 2 for t in turns)
        before = record.score_after
    return dead


def test_a_dead_cube_double_is_refused_by_default_and_read_with_dead_cube_allow() -> None:
    cases = [c for c in STANDARD if c[0].startswith("dead-cube")]
    assert sum(_dead_cube_doubles(history) for _label, history, _rules in cases) > 0
    for _label, history, rules in cases:
        text = mat_text(history)
        if _dead_cube_doubles(history):
            with pytest.raises(InvalidMatchFileError, match="the cube is dead"):
                parse_mat(text)
        assert parse_mat(text, rules=rules).history.games == history.games
        assert parse_sgf(sgf_text(history, rules=rules)).rules.dead_cube == "allow"


def test_readers_take_open_files_and_refuse_missing_ones(tmp_path: Path) -> None:
    _label, history, rules = STANDARD[0]
    assert read_sgf(io.StringIO(sgf_text(history, rules=rules))).history.games == history.games
    assert read_mat(io.StringIO(mat_text(history)), rules=rules).history.games == history.games
    with pytest.raises(InvalidMatchFileError, match="^cannot read match file '.*missing.sgf': No such file"):
        read_sgf(tmp_path / "missing.sgf")
    with pytest.raises(InvalidMatchFileError, match="^cannot read match file '.*missing.mat': No such file"):
        read_mat(tmp_path / "missing.mat")


@requires_gnubg
def test_the_mat_and_sgf_files_gnubg_writes_of_one_match_read_as_the_same_match(gnubg_played: list) -> None:
    for item, _answer, mat, sgf in gnubg_played:
        rules = Rules(jacoby=item["jacoby"], beaver=True)
        from_sgf, from_mat = read_sgf(sgf, rules=rules), read_mat(mat, rules=rules)
        assert from_mat.history == from_sgf.history, item
        assert from_mat.players == from_sgf.players == ("gnubg", "root")


# ---------------------------------------------------------------- bgfast play --sgf, bgfast export --sgf


def test_play_with_sgf_writes_the_match_it_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.bots import get_bot
    from bgfast.cli import main
    from bgfast.game import play_match_with_history

    path = tmp_path / "out.sgf"
    args = ["play", "--player", "heuristic", "--player", "pubeval", "--length", "5", "--seed", "4",
            "--variant", "nackgammon", "--json"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main([*args, "--sgf", str(path)]) == 0
    assert capsys.readouterr().out == plain
    read = read_sgf(path)
    rules = Rules(variant="nackgammon")
    history = play_match_with_history(get_bot("heuristic"), get_bot("pubeval"), length=5, seed=4, rules=rules)
    _same_match(read, history, rules)
    assert read.players == ("heuristic", "pubeval")


def _tournament(tmp_path: Path, extra: str, length: int = 0) -> Path:
    from bgfast.tournament import TournamentSpec, run_tournament

    text = f'''
name = "sgf"
seed = 5
match_length = {length}
matches_per_pairing = 4
chunk_size = 2
{extra}
[[players]]
name = "pubeval"
bot = "pubeval"

[[players]]
name = "heuristic"
bot = "heuristic"
'''
    db = tmp_path / "sgf.sqlite"
    run_tournament(TournamentSpec.from_toml_string(text), db, workers=1)
    return db


@pytest.mark.parametrize("extra, length", [('openings = ["0HPkATDgc/ABMA", "4PPgAyDgc/ABMA"]\n', 0),
                                           ('openings = ["0HPkATDgc/ABMA", "4PPgAyDgc/ABMA"]\n', 3),
                                           ('[rules]\nvariant = "hypergammon"\n', 3)],
                         ids=["openings", "match-openings", "variant"])
def test_export_writes_sgf_of_the_matches_a_mat_file_cannot_hold(tmp_path: Path, extra: str, length: int,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main
    from bgfast.tournament.export import ExportError, export_match, match_history

    db = _tournament(tmp_path, extra, length)
    with pytest.raises(ExportError, match="write SGF"):
        export_match(db, 0, tmp_path / "m.mat")
    folder = tmp_path / "sgfs"
    folder.mkdir()
    assert main(["export", str(db), "--all", "--sgf-dir", str(folder)]) == 0
    files = sorted(folder.glob("*.sgf"))
    assert len(files) == 4
    items = []
    for index in range(4):
        history, names = match_history(db, index)
        read = read_sgf(folder / f"sgf-{index}.sgf")
        assert read.history.games == history.games and read.players == names
        items.append((history, folder / f"sgf-{index}.sgf"))
    if extra.startswith("openings"):   # each match starts from its opening, seat 1 on roll
        assert {h.games[0][0].position.id() for h, _path in items} == {"0HPkATDgc/ABMA", "4PPgAyDgc/ABMA"}
    assert main(["export", str(db), "--match", "1", "--sgf", str(tmp_path / "one.sgf")]) == 0
    assert (tmp_path / "one.sgf").read_text() == (folder / "sgf-1.sgf").read_text()
    assert main(["export", str(db), "--match", "1", "--sgf", str(tmp_path / "x.sgf"), "--mat", "y.mat"]) == 2
    assert "give exactly one of --mat, --mat-dir, --sgf, --sgf-dir (got --mat, --sgf)" in capsys.readouterr().err
    if requires_gnubg.args[0]:   # no gnubg program: the rest is its check
        return
    answers = run_gnubg("import", [{"path": str(path), "format": "sgf"} for _h, path in items])
    for (history, _path), answer in zip(items, answers):
        compared, agree, differences = compare_actions(bgfast_actions(history), gnubg_actions(answer))
        assert agree == compared and not differences, differences



def test_a_resigned_game_reads_and_prints_as_a_resignation() -> None:
    from bgfast.formats.matchlog import game_line

    text = sgf_text(STANDARD[0][1], rules=STANDARD[0][2]).split(")\n")[0] + ")\n"
    first = parse_sgf(text).history.record.games[0]
    winner = "WB"[first.winner]
    cut = text.split("\n")
    resigned = "\n".join(cut[:4]).replace(f"RE[{winner}+{first.points}]", "RE[B+2R]") + ")\n"
    game = parse_sgf(resigned).history.record.games[0]
    assert (game.kind, game.winner, game.points, game.plies) == ("resign", 1, 2, 3)
    assert "player0 resigns, player1 wins 2 points." in game_line(game, ("player0", "player1"))
    with pytest.raises(InvalidMatchFileError, match="not a single, gammon or backgammon at cube 1"):
        parse_sgf(resigned.replace("RE[B+2R]", "RE[B+4R]"))


def test_an_sgf_match_length_out_of_range_is_a_match_file_error() -> None:
    text = sgf_text(play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=3),
                    players=("pubeval", "random"))
    assert "length:3" in text
    with pytest.raises(InvalidMatchFileError, match="^big.sgf: game 1, node 1: "):
        parse_sgf(text.replace("length:3", "length:99999999999999999999"), source="big.sgf")


def test_parse_mat_reads_bytes_as_utf8() -> None:
    text = mat_text(play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2),
                    players=("a", "b"))
    assert parse_mat(text.encode()).history.games == parse_mat(text).history.games
