"""TournamentSpec: reading, checking and writing tournament specs (TOML)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tournament_helpers import ROOT, needs_heuristic

from bgfast.errors import InvalidSpecError
from bgfast.match import Rules
from bgfast.tournament.spec import MAX_CHUNKS, MAX_MATCHES, PlayerSpec, SprtOptions, TournamentSpec

BASE = """
name = "t"
seed = 3
match_length = 5
matches_per_pairing = 10

[[players]]
name = "pubeval"
bot = "pubeval"

[[players]]
name = "random"
bot = "random"
"""


def load(text: str) -> TournamentSpec:
    return TournamentSpec.from_toml_string(text)


def with_extra(extra: str, base: str = BASE) -> str:
    head, sep, tail = base.partition("\n[[players]]")
    return head + extra + "\n" + sep + tail


def error_of(text: str) -> str:
    with pytest.raises(InvalidSpecError) as info:
        load(text)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_minimal_spec_gets_the_documented_defaults() -> None:
    spec = load(BASE)
    assert spec.name == "t" and spec.seed == 3
    assert spec.format == "round-robin" and spec.challenger is None
    assert spec.match_length == (5,) and spec.matches_per_pairing == 10
    assert spec.paired_dice is True and spec.sprt is None
    assert spec.rules == Rules()
    assert spec.players == (PlayerSpec("pubeval", "pubeval"), PlayerSpec("random", "random"))
    assert spec.chunk_size >= 2 and spec.chunk_size % 2 == 0


def test_to_toml_reads_back_to_an_equal_spec_with_the_same_hash() -> None:
    spec = load(with_extra('format = "gauntlet"\nchallenger = "random"\nmatch_length = [1, 3]\n'
                           '[rules]\nmax_cube = 16\n[sprt]\nelo0 = 0\nelo1 = 10\n',
                           BASE.replace("match_length = 5\n", "")))
    again = TournamentSpec.from_toml_string(spec.to_toml())
    assert again == spec and again.hash == spec.hash
    assert spec.sprt == SprtOptions(0.0, 10.0, 0.05, 0.05)


def test_the_hash_ignores_layout_and_comments_but_not_values() -> None:
    spec = load(BASE)
    assert load("# a comment\n" + BASE.replace('seed = 3', 'seed   =   3')).hash == spec.hash
    assert load(BASE.replace("seed = 3", "seed = 4")).hash != spec.hash


def test_a_list_of_match_lengths_is_kept_in_order() -> None:
    assert load(BASE.replace("match_length = 5", "match_length = [1, 0, 7]")).match_length == (1, 0, 7)


def test_an_unknown_top_level_key_is_named() -> None:
    assert error_of(with_extra("colour = 3\n")).startswith("colour: unknown key")


def test_an_unknown_rules_key_is_named_with_its_section() -> None:
    assert error_of(with_extra("[rules]\ncrawfurd = true\n")).startswith("rules.crawfurd: unknown key")


def test_an_unknown_player_key_is_named_with_its_index() -> None:
    text = BASE + '\n[[players]]\nname = "x"\nbot = "random"\nply = 2\n'
    assert error_of(text).startswith("players[2].ply: unknown key")


@pytest.mark.parametrize("key", ["name", "match_length", "matches_per_pairing"])
def test_a_missing_required_key_is_named(key: str) -> None:
    text = "\n".join(line for line in BASE.splitlines() if not line.startswith(f"{key} ="))
    assert error_of(text).startswith(f"{key}: missing")


def test_a_player_without_a_bot_is_named() -> None:
    text = BASE + '\n[[players]]\nname = "x"\n'
    assert error_of(text).startswith("players[2].bot: missing")


def test_an_unknown_bot_is_named_with_the_player_index() -> None:
    text = BASE + '\n[[players]]\nname = "x"\nbot = "pubevl"\n'
    message = error_of(text)
    assert message.startswith("players[2].bot: unknown bot 'pubevl'")
    assert "pubeval" in message


def test_a_bot_spec_with_options_as_the_bot_says_how_a_spec_writes_it() -> None:
    # it was "unknown bot 'neural:ply=1'", though --player takes that text
    text = BASE + '\n[[players]]\nname = "x"\nbot = "neural:ply=1,cube=never,prune=false"\n'
    message = error_of(text)
    assert message.startswith("players[2].bot: 'neural:ply=1,cube=never,prune=false' holds options")
    assert message.endswith('bot = "neural", cube = "never", options = { ply = 1, prune = false }')
    fixed = BASE + '\n[[players]]\nname = "x"\nbot = "neural"\ncube = "never"\noptions = { ply = 1, prune = false }\n'
    assert load(fixed).players[2].options == {"ply": 1, "prune": False}


def test_a_cube_policy_the_bot_lacks_is_named() -> None:
    text = BASE.replace('name = "random"\nbot = "random"', 'name = "random"\nbot = "random"\ncube = "keith"')
    assert error_of(text).startswith("players[1].cube:")


def test_a_bot_option_the_bot_refuses_is_named() -> None:
    text = BASE + '\n[[players]]\nname = "x"\nbot = "random"\noptions = { ply = 2 }\n'
    assert error_of(text).startswith("players[2].options:")


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (("matches_per_pairing = 10", "matches_per_pairing = 0"), "matches_per_pairing"),
        (("matches_per_pairing = 10", "matches_per_pairing = 7"), "matches_per_pairing"),
        (("matches_per_pairing = 10", 'matches_per_pairing = "10"'), "matches_per_pairing"),
        (("match_length = 5", "match_length = 65"), "match_length"),
        (("match_length = 5", "match_length = -1"), "match_length"),
        (("match_length = 5", "match_length = [1, 3, 1]"), "match_length"),
        (("match_length = 5", "match_length = [1, 3.5]"), "match_length[1]"),
        (("match_length = 5", "match_length = []"), "match_length"),
        (("seed = 3", "seed = -1"), "seed"),
        (("seed = 3", "seed = true"), "seed"),
        (('name = "t"', 'name = "a/b"'), "name"),
        (('name = "t"', 'name = ""'), "name"),
        (('name = "random"', 'name = "pubeval"'), "players[1].name"),
    ],
)
def test_a_bad_value_is_named_by_its_key_path(change: tuple[str, str], path: str) -> None:
    assert error_of(BASE.replace(*change)).startswith(f"{path}:")


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ('format = "swiss"\n', "format"),
        ('format = "gauntlet"\n', "challenger"),
        ('format = "gauntlet"\nchallenger = "nobody"\n', "challenger"),
        ('challenger = "random"\n', "challenger"),
        ("paired_dice = 1\n", "paired_dice"),
        ("chunk_size = 0\n", "chunk_size"),
        ("chunk_size = 3\n", "chunk_size"),
        ("[rules]\nmax_cube = 48\n", "rules.max_cube"),
        ('[rules]\nvariant = "plakoto"\n', "rules.variant"),
        ('[rules]\ncrawford = "yes"\n', "rules.crawford"),
        ("[sprt]\nelo0 = 0\n", "sprt.elo1"),
        ("[sprt]\nelo0 = 10\nelo1 = 0\n", "sprt.elo1"),
        ("[sprt]\nelo0 = 0\nelo1 = 10\nalpha = 0.7\n", "sprt.alpha"),
        ('[sprt]\nelo0 = 0\nelo1 = "ten"\n', "sprt.elo1"),
        ("[sprt]\nelo0 = 0\nelo1 = 100000\n", "sprt.elo1"),      # was played with an LLR of NaN
        ("[sprt]\nelo0 = -7000\nelo1 = 0\n", "sprt.elo0"),
    ],
)
def test_a_bad_section_value_is_named_by_its_key_path(extra: str, path: str) -> None:
    message = error_of(with_extra(extra))
    assert message.startswith((f"{path}:", f"{path} ")), message


def test_sprt_needs_exactly_two_players() -> None:
    text = with_extra("[sprt]\nelo0 = 0\nelo1 = 10\n") + '\n[[players]]\nname = "x"\nbot = "random"\n'
    assert error_of(text).startswith("sprt: needs exactly two players")


def test_fewer_than_two_players_is_an_error() -> None:
    text = BASE.split("[[players]]\nname = \"random\"")[0]
    assert error_of(text) == "players: must list at least two players ([[players]] tables), got 1"


def test_players_that_are_not_a_list_are_named_so_not_too_few() -> None:
    text = BASE.split("[[players]]")[0] + "players = 5\n"
    assert error_of(text) == "players: must be a list of players ([[players]] tables), got 5"


def test_text_that_is_not_toml_is_an_error_naming_the_source() -> None:
    with pytest.raises(InvalidSpecError, match=r"^<spec>: not valid TOML"):
        load("name = \n")


def test_a_missing_spec_file_is_an_invalid_spec_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidSpecError, match="cannot read tournament spec"):
        TournamentSpec.from_toml(tmp_path / "nope.toml")


def test_from_dict_rejects_a_non_table() -> None:
    with pytest.raises(InvalidSpecError):
        TournamentSpec.from_dict([1, 2])  # type: ignore[arg-type]


def test_sizes_follow_from_format_lengths_and_matches_per_pairing() -> None:
    rr = load(BASE + '\n[[players]]\nname = "x"\nbot = "random"\n')
    assert rr.pairs() == [(0, 1), (0, 2), (1, 2)] and rr.total_matches() == 30
    gauntlet = load(with_extra('format = "gauntlet"\nchallenger = "random"\n',
                               BASE.replace("match_length = 5", "match_length = [1, 3]"))
                    + '\n[[players]]\nname = "x"\nbot = "random"\n')
    assert gauntlet.pairs() == [(1, 0), (1, 2)] and gauntlet.total_matches() == 2 * 2 * 10


@needs_heuristic
@pytest.mark.parametrize("name", ["quick", "million", "money", "sprt"])
def test_the_shipped_specs_load(name: str) -> None:
    spec = TournamentSpec.from_toml(ROOT / "tournaments" / f"{name}.toml")
    assert spec.total_matches() > 0


@needs_heuristic
def test_the_million_spec_plays_a_million_one_point_matches_pubeval_against_heuristic() -> None:
    spec = TournamentSpec.from_toml(ROOT / "tournaments" / "million.toml")
    assert spec.total_matches() == 1_000_000 and spec.match_length == (1,)
    assert {p.bot for p in spec.players} == {"pubeval", "heuristic"}


@needs_heuristic
def test_the_quick_spec_is_a_7_point_round_robin_of_random_pubeval_and_heuristic() -> None:
    spec = TournamentSpec.from_toml(ROOT / "tournaments" / "quick.toml")
    assert spec.format == "round-robin" and spec.match_length == (7,)
    assert sorted(p.bot for p in spec.players) == ["heuristic", "pubeval", "random"]


@pytest.mark.parametrize(("key", "value"), [
    ("matches_per_pairing", "9223372036854775806"),
    ("chunk_size", "100000000000000000000000000"),
])
def test_a_count_too_large_to_play_names_its_key_and_the_maximum(key: str, value: str) -> None:
    text = BASE.replace("matches_per_pairing = 10", f"matches_per_pairing = {value}") if key != "chunk_size" \
        else with_extra(f"chunk_size = {value}\n")
    assert error_of(text) == f"{key}: must be a whole number from 1 to {MAX_MATCHES}, got {value}"


def test_too_many_matches_in_all_is_refused_naming_the_total_and_the_maximum() -> None:
    players = "".join(f'\n[[players]]\nname = "r{i}"\nbot = "random"\n' for i in range(3))
    text = BASE.replace("matches_per_pairing = 10", f"matches_per_pairing = {MAX_MATCHES}") + players
    assert error_of(text) == (f"matches_per_pairing: {MAX_MATCHES} makes 10,000,000,000,000 matches in all "
                              f"(10 pairings x 1 lengths); at most {MAX_MATCHES:,}")


def test_a_spec_at_the_most_matches_is_cut_into_at_most_max_chunks() -> None:
    # 10^12 matches cut into 3 x 10^9 default chunks: the runner's list of them took all memory
    spec = TournamentSpec.from_toml_string(BASE.replace("matches_per_pairing = 10", f"matches_per_pairing = {MAX_MATCHES}"))
    assert spec.chunk_count() <= MAX_CHUNKS and spec.chunk_size * MAX_CHUNKS >= spec.total_matches()
    small = TournamentSpec.from_toml_string(BASE)
    assert small.chunk_count() > 1                      # small runs keep their small chunks
    text = BASE.replace("matches_per_pairing = 10", "matches_per_pairing = 100000000")
    assert error_of(with_extra("chunk_size = 2\n", text)) == (
        "chunk_size: 2 cuts the 100,000,000 matches into more than 1,000,000 chunks; give at least 100")


@pytest.mark.parametrize("name", ["pub\\neval", "pub\\teval", "pub\\u0000"])
def test_a_player_name_with_a_control_character_is_refused(name: str) -> None:
    message = error_of(BASE.replace('name = "pubeval"', f'name = "{name}"'))
    assert message.startswith("players[0].name: must not hold control characters such as a newline or a tab")


def test_a_bot_whose_package_is_missing_is_blamed_on_the_bot_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # as if gnubg-nn were not installed
    message = error_of(BASE.replace('bot = "pubeval"', 'bot = "gnubg"'))
    assert message == "players[0].bot: bot 'gnubg' needs the gnubg-nn package: pip install 'bgfast[gnubg]'"
