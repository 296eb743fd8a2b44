"""Python plugins: ``module:factory`` references and the ``bgfast.bots`` entry points, in this
process, in a freshly started interpreter and on a Dask worker."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bgfast.bots import get_bot
from bgfast.bots.plugins import ENTRY_POINT_GROUP, entry_point_names, find_plugin, is_plugin_name, parse_plugin_ref
from bgfast.errors import BotLoadError, UnknownBotError
from bgfast.game import MatchPlayer

PLUGIN = textwrap.dedent('''
    """A plugin package for the tests: a bot factory, a broken one, and a match to play remotely."""
    from bgfast.bots import get_bot
    from bgfast.bots.base import Bot


    class Careful(Bot):
        """pubeval's plays, with the depth it was built with kept for the test to see."""

        name = "careful"

        def __init__(self, depth=1):
            self.depth = depth
            self.inner = get_bot("pubeval", cube="never")

        def choose_move(self, position, dice, match):
            return self.inner.choose_move(position, dice, match)


    def make_bot(depth=1):
        return Careful(depth)


    class Factories:
        strong = staticmethod(lambda: Careful(3))


    def broken_factory():
        raise RuntimeError("the weights file is missing")


    def not_a_bot():
        return 42


    NOT_CALLABLE = 7


    class Raises(Bot):
        """A bot whose own code fails on its first play."""

        name = "raises"

        def choose_move(self, position, dice, match):
            raise RuntimeError("the net\\n  exploded")


    class ReturnsNone(Bot):
        """A bot that forgets to return its play."""

        name = "returns-none"

        def choose_move(self, position, dice, match):
            return None


    def make_raising():
        return Raises()


    def make_none():
        return ReturnsNone()


    def play_one(spec, index):
        """Play one money game of the plugin ``spec`` against pubeval (for remote workers)."""
        from bgfast.game import MatchPlayer
        bot = get_bot(spec)
        return tuple(MatchPlayer(bot, get_bot("pubeval", cube="never"), length=0).play(1, index))
''')

BAD_IMPORT = "raise ImportError('a dependency of the plugin is missing')\n"


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the plugin module, a module that fails to import, and a distribution
    that publishes ``careful`` in the entry-point group ``bgfast.bots``."""
    root = tmp_path_factory.mktemp("plugins")
    (root / "bgfast_test_plugin.py").write_text(PLUGIN)
    (root / "bgfast_test_badimport.py").write_text(BAD_IMPORT)
    info = root / "bgfast_test_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bgfast-test-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\ncareful = bgfast_test_plugin:make_bot\nbroken = bgfast_test_plugin:broken_factory\n"
        "noattr = bgfast_test_plugin\n")
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in ("bgfast_test_plugin", "bgfast_test_badimport"):
        sys.modules.pop(name, None)


def _env(plugin_dir: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), os.environ.get("PYTHONPATH", "")])}


# ---------------------------------------------------------------- references and entry points


def test_a_reference_is_module_colon_factory_with_optional_options() -> None:
    assert parse_plugin_ref("mypkg.bots:make_bot") == ("mypkg.bots", "make_bot", {})
    assert parse_plugin_ref("mypkg:Bots.strong:depth=2,cube=never") == ("mypkg", "Bots.strong",
                                                                       {"depth": 2, "cube": "never"})
    for spec in ("pubeval", "pubeval:cube=never", "heuristic:cube=janowski,cube_efficiency=0.7", "a:b=c"):
        assert parse_plugin_ref(spec) is None
    with pytest.raises(UnknownBotError, match="not KEY=VALUE"):
        parse_plugin_ref("mypkg:make:depth")


def test_a_factory_named_by_reference_builds_the_bot_with_its_options(plugin_dir: Path) -> None:
    assert get_bot("bgfast_test_plugin:make_bot").depth == 1  # type: ignore[attr-defined]
    assert get_bot("bgfast_test_plugin:make_bot", depth=2).depth == 2  # type: ignore[attr-defined]
    assert get_bot("bgfast_test_plugin:make_bot:depth=4").depth == 4  # type: ignore[attr-defined]
    assert get_bot("bgfast_test_plugin:Factories.strong").depth == 3  # type: ignore[attr-defined]


def test_an_entry_point_name_builds_the_bot(plugin_dir: Path) -> None:
    assert "careful" in entry_point_names() and is_plugin_name("careful")
    assert get_bot("careful", depth=5).depth == 5  # type: ignore[attr-defined]
    assert not is_plugin_name("pubevl")


def test_a_plugin_bot_plays_a_match(plugin_dir: Path) -> None:
    bot = get_bot("careful")
    ours = MatchPlayer(bot, get_bot("pubeval", cube="never"), length=0).play(1, 3)
    expected = MatchPlayer(get_bot("pubeval", cube="never"), get_bot("pubeval", cube="never"), length=0).play(1, 3)
    assert ours == expected


@pytest.mark.parametrize(("name", "problem"), [
    ("no_such_module_for_bgfast:make_bot", "no module named 'no_such_module_for_bgfast'"),
    ("bgfast_test_badimport:make_bot", "importing 'bgfast_test_badimport' raised ImportError: a dependency"),
    ("bgfast_test_plugin:no_such_factory", "has no 'no_such_factory'"),
    ("bgfast_test_plugin:NOT_CALLABLE", "is not callable"),
    ("bgfast_test_plugin:broken_factory", "its factory raised RuntimeError: the weights file is missing"),
    ("bgfast_test_plugin:not_a_bot", "returned 42, which has no choose_move method"),
    ("broken", "its factory raised RuntimeError"),
    ("noattr", "names no factory"),
])
def test_a_plugin_that_cannot_be_loaded_raises_bot_load_error(plugin_dir: Path, name: str, problem: str) -> None:
    with pytest.raises(BotLoadError, match=problem) as info:
        get_bot(name)
    assert isinstance(info.value, UnknownBotError) and isinstance(info.value, ValueError)


def test_an_option_the_factory_does_not_take_is_an_unknown_bot_error(plugin_dir: Path) -> None:
    with pytest.raises(UnknownBotError, match="bad options") as info:
        get_bot("bgfast_test_plugin:make_bot", width=3)
    assert not isinstance(info.value, BotLoadError)


def test_names_that_are_neither_bots_nor_plugins_stay_unknown() -> None:
    with pytest.raises(UnknownBotError, match="unknown bot 'pubevl'"):
        get_bot("pubevl")
    assert find_plugin("pubevl") is None
    with pytest.raises(UnknownBotError, match="bad bot spec"):
        get_bot("pubeval:cube")  # a malformed spec of a known bot, not a module named pubeval


# ---------------------------------------------------------------- other processes


def test_plugins_load_in_a_freshly_started_interpreter(plugin_dir: Path, tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import multiprocessing
        import bgfast_test_plugin

        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                by_ref = pool.apply(bgfast_test_plugin.play_one, ("bgfast_test_plugin:make_bot:depth=2", 3))
                by_entry_point = pool.apply(bgfast_test_plugin.play_one, ("careful", 3))
            print(by_ref == by_entry_point, by_ref[2])
    """)
    script = tmp_path / "spawned.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], env=_env(plugin_dir), cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "True"


def test_plugins_load_on_a_dask_worker(plugin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    monkeypatch.setenv("PYTHONPATH", _env(plugin_dir)["PYTHONPATH"])
    import bgfast_test_plugin

    expected = bgfast_test_plugin.play_one("careful", 5)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        worker_pid = client.submit(os.getpid, pure=False).result()
        assert worker_pid != os.getpid()
        by_entry_point = client.submit(bgfast_test_plugin.play_one, "careful", 5, pure=False).result()
        by_ref = client.submit(bgfast_test_plugin.play_one, "bgfast_test_plugin:make_bot", 5, pure=False).result()
    assert by_entry_point == by_ref == expected


# ---------------------------------------------------------------- a bot that fails while it plays

NONE_MESSAGE = ("TypeError: ReturnsNone.choose_move returned None, not a Move: a bot's choose_move must return "
                "a Move, a Position or move notation")


@pytest.mark.parametrize("factory, message", [
    ("make_raising", "RuntimeError: the net exploded"),
    ("make_none", NONE_MESSAGE),
])
def test_play_names_the_plugin_bot_that_failed_in_one_line(plugin_dir: Path, capsys: pytest.CaptureFixture[str],
                                                           factory: str, message: str) -> None:
    from bgfast.cli import main

    name = f"bgfast_test_plugin:{factory}"
    for seats in ([name, "pubeval"], ["pubeval", name]):
        code = main(["play", "--player", seats[0], "--player", seats[1], "--length", "3"])
        out, err = capsys.readouterr()
        assert (code, out) == (1, "")  # the input was fine, the bot failed: not a traceback
        assert err == f"bgfast: error: bot {name!r} failed: {message}\n"


def test_a_plugin_bot_that_returns_none_says_so_in_a_tournament_as_in_play(
        plugin_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bgfast.errors import WorkerFailedError
    from bgfast.tournament import TournamentSpec, run_tournament

    monkeypatch.setenv("PYTHONPATH", _env(plugin_dir)["PYTHONPATH"])  # for a worker that is spawned
    spec = TournamentSpec.from_dict({"name": "none", "match_length": 1, "matches_per_pairing": 2, "players": [
        {"name": "forgetful", "bot": "bgfast_test_plugin:make_none"}, {"name": "pubeval", "bot": "pubeval"}]})
    with pytest.raises(WorkerFailedError) as failed:
        run_tournament(spec, tmp_path / "r.sqlite", workers=1)
    assert (f"a worker failed on chunk 0: player 'forgetful' (bot 'bgfast_test_plugin:make_none') failed: "
            f"{NONE_MESSAGE}") in str(failed.value)


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("factory, message", [
    ("make_raising", "RuntimeError: the net exploded"),
    ("make_none", NONE_MESSAGE),
])
def test_rollout_names_the_plugin_bot_that_failed_in_one_line(plugin_dir: Path, tmp_path: Path, factory: str,
                                                              message: str, workers: str) -> None:
    name = f"bgfast_test_plugin:{factory}"
    out = subprocess.run([sys.executable, "-m", "bgfast", "rollout", "4HPwATDgc/ABMA", "--trials", "144",
                          "--workers", workers, "--bot", name, "--seed", "1"],
                         env=_env(plugin_dir), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (1, "")  # the input was fine, the bot failed: not a traceback
    # named as the rollout's report names the bot that played: its own name and options
    assert re.fullmatch(rf"bgfast: error: bot '[^']+' failed: {re.escape(message)}\n", out.stderr), out.stderr
