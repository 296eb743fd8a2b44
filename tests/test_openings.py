"""Openings: the file parser and its errors, the shipped suite, the spec keys, the schedule,
and playing a game from an opening."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from bgfast.bots import get_bot
from bgfast.errors import InvalidPositionError, InvalidSpecError
from bgfast.game import MatchPlayer
from bgfast.match import MatchState
from bgfast.position import Position
from bgfast.tournament.openings import load_openings, opening_order, parse_openings
from bgfast.tournament.schedule import scheduler
from bgfast.tournament.spec import TournamentSpec

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "tournaments" / "openings" / "standard.txt"

SLOT_21 = "0HPkATDgc/ABMA"  # 21: 13/11 6/5, the opponent to roll
SPLIT_21_XGID = "XGID=-aa---E-C---dEa--c-e----B-:0:0:1:00:0:0:0:0:10"  # 21: 24/23 13/11


def error_line(text: str, **kwargs: object) -> str:
    with pytest.raises(InvalidSpecError) as info:
        parse_openings(text, source="book.txt", **kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- the parser


def test_ids_and_xgids_are_read_one_a_line_with_comments_and_blank_lines_skipped() -> None:
    text = f"# a book\n\n{SLOT_21}   # slot\n  {SPLIT_21_XGID}\n"
    openings = parse_openings(text, match_length=0)
    assert [str(o) for o in openings] == [SLOT_21, "4HPkASjgc/ABMA"]
    assert [o.line for o in openings] == [3, 4]


def test_an_unknown_id_is_an_error_naming_its_line() -> None:
    message = error_line(f"{SLOT_21}\n\nAAAAbogus\n", match_length=0)
    assert message.startswith("book.txt:3: not a Position ID or an XGID: 'AAAAbogus'")


def test_an_empty_file_is_an_error() -> None:
    assert error_line("# only comments\n\n", match_length=0).startswith("book.txt:1: no opening in the file")


def test_a_finished_position_is_an_error_naming_its_line() -> None:
    finished = Position.from_board([[0] * 25, [1] + [0] * 24]).swap_sides().id()  # the side on roll has none
    message = error_line(f"{SLOT_21}\n{finished}\n", match_length=0)
    assert message.startswith("book.txt:2: ") and "finished position" in message


def test_two_ids_on_a_line_are_an_error() -> None:
    assert error_line(f"{SLOT_21} {SLOT_21}\n", match_length=0).startswith("book.txt:1: one position a line")


def test_an_xgid_for_another_match_length_is_refused() -> None:
    xgid = SPLIT_21_XGID.replace(":0:0:0:0:10", ":0:0:0:7:10")
    message = error_line(xgid, match_length=0)
    assert message.startswith("book.txt:1: the XGID is not the start of a game of this spec")
    assert "match length 7" in message
    assert str(parse_openings(xgid, match_length=7)[0]) == "4HPkASjgc/ABMA"


@pytest.mark.parametrize(("fields", "problem"), [
    (":0:0:1:00:2:1:0:7:10", "score 2-1"),
    (":1:1:1:00:0:0:0:7:10", "cube is not centred"),
    (":1:0:1:00:0:0:0:7:10", "a centred cube is at 1"),  # MatchState refuses it: not a valid XGID
    (":0:0:1:31:0:0:0:7:10", "dice '31'"),
    (":0:0:1:00:0:0:1:7:10", "Crawford"),
])
def test_an_xgid_that_is_not_the_start_of_a_game_is_refused(fields: str, problem: str) -> None:
    xgid = SPLIT_21_XGID.split(":")[0] + fields
    assert problem in error_line(xgid, match_length=7)


def test_a_position_id_with_a_match_id_is_read_and_its_match_fields_checked() -> None:
    start = f"{SLOT_21}:{MatchState(length=7).match_id()}"
    assert str(parse_openings(start, match_length=7)[0]) == SLOT_21
    message = error_line(f"{SLOT_21}:{MatchState(length=7, score=(2, 1)).match_id()}", match_length=7)
    assert message.startswith("book.txt:1: the Match ID is not the start of a game of this spec")
    assert "score" in message and "match length" not in message
    assert "match length 7" in error_line(start, match_length=0)
    assert error_line(f"{SLOT_21}:nonsense", match_length=7).startswith("book.txt:1: not a Position ID or an XGID")


def test_an_xgid_is_refused_when_the_spec_plays_several_lengths() -> None:
    assert "several match lengths" in error_line(SPLIT_21_XGID, match_length=None)


def test_a_malformed_xgid_is_an_error_naming_its_line() -> None:
    assert error_line(f"{SLOT_21}\nXGID=-aa---:0:0\n", match_length=0).startswith("book.txt:2: not a valid XGID")


def test_a_start_no_game_reaches_is_refused_where_it_would_never_end() -> None:
    # both sides on the bar against closed boards: neither could ever move
    assert error_line(f"{SLOT_21}\n27YFAGDbtgUAYA\n", match_length=3).startswith(
        "book.txt:2: 27YFAGDbtgUAYA has both sides on the bar against closed boards: no game reaches it")
    with pytest.raises(InvalidPositionError, match="start 27YFAGDbtgUAYA has both sides on the bar"):
        MatchPlayer(get_bot("pubeval"), get_bot("pubeval")).play(1, 0, start=Position.from_id("27YFAGDbtgUAYA"))


def test_more_checkers_than_the_variant_has_are_refused() -> None:
    assert "the variant plays 3" in error_line(SLOT_21, match_length=0, checkers=3)


def test_an_unreadable_openings_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidSpecError, match="cannot read openings file"):
        load_openings(tmp_path / "missing.txt", match_length=0)


# ---------------------------------------------------------------- the shipped suite

_LINE = re.compile(r"^(\S+)\s+#\s+([1-6])([1-6]): (.+)$")


def suite_lines() -> list[tuple[str, tuple[int, int], str]]:
    out = []
    for line in SUITE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = _LINE.match(line)
        assert m, f"suite line without its roll and play: {line!r}"
        out.append((m.group(1), (int(m.group(2)), int(m.group(3))), m.group(4)))
    return out


def test_every_suite_position_is_its_play_of_its_roll_from_the_start() -> None:
    start = Position()
    for pid, dice, play in suite_lines():
        results = [child.swap_sides() for child in start.children(*dice)]
        assert Position(pid) in results, f"{pid} is not a result of {dice} from the start"
        assert start.parse_move(play, dice).position.swap_sides() == Position(pid), f"{pid} is not {play}"


def test_the_suite_covers_the_15_non_double_rolls_with_one_to_three_plays_each() -> None:
    lines = suite_lines()
    rolls = Counter(dice for _, dice, _ in lines)
    assert sorted(rolls) == [(h, lo) for h in range(2, 7) for lo in range(1, h)]
    assert all(1 <= k <= 3 for k in rolls.values())
    assert len({pid for pid, _, _ in lines}) == len(lines)
    assert len(load_openings(SUITE, match_length=0)) == len(lines) == 27


# ---------------------------------------------------------------- the spec keys and the schedule

MONEY = f"""
name = "openings"
seed = 5
match_length = 0
matches_per_pairing = 12
openings = "{SUITE.relative_to(ROOT / 'tournaments').as_posix()}"

[[players]]
name = "pubeval"
bot = "pubeval"

[[players]]
name = "heuristic"
bot = "heuristic"
"""


def money_spec(text: str = MONEY) -> TournamentSpec:
    return TournamentSpec.from_toml_string(text, base_dir=ROOT / "tournaments")


def test_the_openings_file_is_read_relative_to_the_spec_file(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text(f"{SLOT_21}\n", encoding="utf-8")
    (tmp_path / "t.toml").write_text(MONEY.replace(
        'openings = "openings/standard.txt"', 'openings = "book.txt"'), encoding="utf-8")
    spec = TournamentSpec.from_toml(tmp_path / "t.toml")
    assert spec.openings == (SLOT_21,) and spec.openings_order == "sequential"


def test_a_spec_with_openings_writes_them_out_and_reads_back_equal() -> None:
    spec = money_spec()
    assert len(spec.openings) == 27
    assert TournamentSpec.from_toml_string(spec.to_toml()) == spec


def test_the_spec_hash_covers_the_openings_file_contents(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text(f"{SLOT_21}\n", encoding="utf-8")
    text = MONEY.replace('openings = "openings/standard.txt"', 'openings = "book.txt"')
    before = TournamentSpec.from_toml_string(text, base_dir=tmp_path).hash
    book.write_text(f"{SLOT_21}\n4HPkASjgc/ABMA\n", encoding="utf-8")
    assert TournamentSpec.from_toml_string(text, base_dir=tmp_path).hash != before


def test_a_spec_without_openings_keeps_its_hash() -> None:
    text = MONEY.replace('openings = "openings/standard.txt"\n', "")
    spec = TournamentSpec.from_toml_string(text)
    assert "openings" not in spec.to_dict() and spec.openings == ()


def test_a_bad_openings_file_is_one_spec_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text(f"{SLOT_21}\nnope\n", encoding="utf-8")
    text = MONEY.replace('openings = "openings/standard.txt"', 'openings = "book.txt"')
    with pytest.raises(InvalidSpecError) as info:
        TournamentSpec.from_toml_string(text, base_dir=tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'book.txt'}:2: not a Position ID or an XGID: 'nope'")


def test_openings_order_must_be_sequential_or_random() -> None:
    with pytest.raises(InvalidSpecError, match=r"^openings_order: must be one of sequential, random"):
        money_spec(MONEY.replace('match_length = 0', 'match_length = 0\nopenings_order = "shuffled"'))


def test_openings_order_without_openings_is_an_error() -> None:
    text = MONEY.replace('openings = "openings/standard.txt"', 'openings_order = "random"')
    with pytest.raises(InvalidSpecError, match=r"^openings_order: is only for a spec with openings"):
        TournamentSpec.from_toml_string(text)


def test_openings_need_paired_dice() -> None:
    with pytest.raises(InvalidSpecError, match=r"^openings: needs paired_dice = true"):
        money_spec(MONEY.replace('match_length = 0', 'match_length = 0\npaired_dice = false'))


def test_openings_must_be_a_file_name_or_a_list_of_ids() -> None:
    with pytest.raises(InvalidSpecError, match=r"^openings: must be the name of an openings file"):
        money_spec(MONEY.replace('"openings/standard.txt"', "3"))


def test_an_inline_list_entry_that_is_not_an_id_names_its_index() -> None:
    with pytest.raises(InvalidSpecError, match=r"^openings\[1\]: not a Position ID"):
        money_spec(MONEY.replace('"openings/standard.txt"', f'["{SLOT_21}", "junk"]'))


def test_an_xgid_for_the_spec_match_length_starts_its_matches() -> None:
    xgid = SPLIT_21_XGID.replace(":0:0:0:0:10", ":0:0:0:5:10")
    spec = money_spec(MONEY.replace("match_length = 0", "match_length = 5").replace(
        '"openings/standard.txt"', f'["{xgid}", "{SLOT_21}"]'))
    assert spec.openings == ("4HPkASjgc/ABMA", SLOT_21) and spec.match_length == (5,)
    with pytest.raises(InvalidSpecError, match=r"^openings\[0\]: the XGID is not the start .*match length 5, "
                                               r"but the spec plays 7-point matches"):
        money_spec(MONEY.replace("match_length = 0", "match_length = 7").replace(
            '"openings/standard.txt"', f'["{xgid}"]'))


def test_each_round_plays_one_opening_as_a_dice_pair_and_every_opening_equally_often() -> None:
    spec = money_spec(MONEY.replace("matches_per_pairing = 12", "matches_per_pairing = 108"))
    matches = list(scheduler(spec).pairings())
    for first, second in zip(matches[::2], matches[1::2]):
        assert first.dice_index == second.dice_index and first.opening == second.opening
        assert (first.player_a, first.player_b) == (second.player_b, second.player_a)
    counts = Counter(m.opening for m in matches)
    assert sorted(counts) == list(range(27)) and set(counts.values()) == {4}


def test_random_order_is_a_seeded_shuffle_of_the_file() -> None:
    assert opening_order(27, "random", 5) == opening_order(27, "random", 5)
    assert opening_order(27, "random", 5) != opening_order(27, "random", 6)
    assert sorted(opening_order(27, "random", 5)) == list(range(27))
    spec = money_spec(MONEY.replace('match_length = 0', 'match_length = 0\nopenings_order = "random"'))
    assert scheduler(spec).opening(0) == opening_order(27, "random", 5)[0]


def test_an_unknown_order_or_no_openings_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="openings order must be one of sequential, random, got 'backwards'"):
        opening_order(3, "backwards", 1)
    with pytest.raises(ValueError, match="count must be"):
        opening_order(0, "sequential", 1)


# ---------------------------------------------------------------- playing from an opening


def test_a_money_game_from_an_opening_replays_and_the_pair_rolls_the_same_dice() -> None:
    pub, heu = get_bot("pubeval"), get_bot("heuristic")
    seat0, seat1 = MatchPlayer(pub, heu, length=0), MatchPlayer(heu, pub, length=0)
    opening = Position(SLOT_21)
    first = [seat0.play(9, i, start=opening) for i in range(40)]
    assert first == [seat0.play(9, i, start=opening) for i in range(40)]
    # the same bot in both seats on the same dice plays the same game: the pair mirrors
    mirror0, mirror1 = MatchPlayer(pub, pub, length=0), MatchPlayer(pub, pub, length=0)
    for i in range(20):
        assert mirror0.play(9, i, start=opening) == mirror1.play(9, i, start=opening)
    for score0, score1, winner, games, *_ in first:
        assert games == 1 and (score0 > 0) == (winner == 0) and min(score0, score1) == 0
    # the games do start from the opening: seat 1 is on roll, so the results differ from the opening roll's
    assert [r[:3] for r in first] != [tuple(seat0.play(9, i))[:3] for i in range(40)]
    assert [r[:3] for r in first] != [r[:3] for r in (seat1.play(9, i, start=opening) for i in range(40))]


def test_a_match_from_an_opening_starts_its_first_game_there_and_the_rest_from_the_opening_roll() -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("heuristic"), length=5)
    opening = Position(SLOT_21)
    summaries = [player.play(3, i, start=opening) for i in range(30)]
    assert summaries == [player.play(3, i, start=opening) for i in range(30)]
    assert all(max(s.score0, s.score1) >= 5 and (s.score0 >= 5) == (s.winner == 0) for s in summaries)
    assert any(s.games > 1 for s in summaries)
    assert summaries != [player.play(3, i) for i in range(30)]
    for i in range(5):
        history = player.history_from(opening, seed=3, index=i)
        assert history.record.length == 5 and tuple(history.record.score) == summaries[i][:2]
        first, *later = history.games
        assert first[0].position == opening and first[0].player == 1
        for game in later:  # the opening roll: the first mover plays from the starting position
            assert game[0].position == Position()


# ---------------------------------------------------------------- an openings tournament


def _csv(db: Path) -> str:
    import io

    from bgfast.tournament import write_matches_csv

    out = io.StringIO()
    write_matches_csv(db, out)
    return out.getvalue()


def test_an_openings_tournament_replays_byte_for_byte_on_any_worker_count(tmp_path: Path) -> None:
    from bgfast.tournament import run_tournament

    spec = money_spec(MONEY.replace("matches_per_pairing = 12", "matches_per_pairing = 108"))
    one = run_tournament(spec, tmp_path / "one.sqlite", workers=1)
    run_tournament(spec, tmp_path / "two.sqlite", workers=2)
    assert _csv(tmp_path / "one.sqlite") == _csv(tmp_path / "two.sqlite")
    assert one.matches_played == 108 and one.paired
    # the games started from the openings: the same spec without them plays other games
    plain = TournamentSpec.from_toml_string(
        MONEY.replace("matches_per_pairing = 12", "matches_per_pairing = 108").replace(
            'openings = "openings/standard.txt"\n', ""))
    run_tournament(plain, tmp_path / "plain.sqlite", workers=1)
    assert _csv(tmp_path / "plain.sqlite") != _csv(tmp_path / "one.sqlite")


def test_a_match_openings_tournament_replays_byte_for_byte_on_any_worker_count(tmp_path: Path) -> None:
    from bgfast.tournament import run_tournament

    text = MONEY.replace("matches_per_pairing = 12", "matches_per_pairing = 108").replace(
        "match_length = 0", "match_length = 3")
    spec = money_spec(text)
    one = run_tournament(spec, tmp_path / "one.sqlite", workers=1)
    run_tournament(spec, tmp_path / "two.sqlite", workers=2)
    assert _csv(tmp_path / "one.sqlite") == _csv(tmp_path / "two.sqlite")
    assert one.matches_played == 108 and one.paired
    rows = _csv(tmp_path / "one.sqlite").splitlines()[1:]
    assert {row.split(",")[3] for row in rows} == {"3"} and any(int(row.split(",")[8]) > 1 for row in rows)
    plain = TournamentSpec.from_toml_string(text.replace('openings = "openings/standard.txt"\n', ""))
    run_tournament(plain, tmp_path / "plain.sqlite", workers=1)
    assert _csv(tmp_path / "plain.sqlite") != _csv(tmp_path / "one.sqlite")


def test_the_shipped_openings_spec_reads_the_suite() -> None:
    spec = TournamentSpec.from_toml(ROOT / "tournaments" / "openings.toml")
    assert len(spec.openings) == 27 and spec.match_length == (0,)
    assert spec.matches_per_pairing % (2 * len(spec.openings)) == 0  # every opening equally often


def test_the_matches_csv_names_each_matchs_opening_and_both_seats_of_a_pair_share_it(tmp_path: Path) -> None:
    import csv
    import io

    from bgfast.tournament import run_tournament
    from bgfast.tournament.schedule import scheduler

    spec = money_spec(MONEY.replace("matches_per_pairing = 12", "matches_per_pairing = 108"))
    run_tournament(spec, tmp_path / "r.sqlite", workers=1)
    rows = list(csv.DictReader(io.StringIO(_csv(tmp_path / "r.sqlite"))))
    sched = scheduler(spec)
    assert [r["opening"] for r in rows] == [spec.openings[sched.opening(int(r["index"])) or 0] for r in rows]
    assert len({r["opening"] for r in rows}) == len(spec.openings)  # all 27, each a Position ID
    assert all(a["opening"] == b["opening"] and a["dice_index"] == b["dice_index"] for a, b in zip(rows[::2], rows[1::2]))
    plain = TournamentSpec.from_toml_string(MONEY.replace('openings = "openings/standard.txt"\n', ""))
    run_tournament(plain, tmp_path / "plain.sqlite", workers=1)
    assert {r["opening"] for r in csv.DictReader(io.StringIO(_csv(tmp_path / "plain.sqlite")))} == {""}
