"""Speed measurements behind ``bgfast bench``: the code that times, apart from the CLI.

:func:`movegen` times move generation on the wildbg benchmark positions (1000 contact
and 1000 race positions, shipped in ``bgfast/data/wildbg``) over all 21 distinct rolls,
three ways, in one run:

* **batch** -- :func:`bgfast._core.movegen.count_batch`: every (position, roll) generated
  in C, no Python object per generation;
* **api** -- ``len(pos.legal_moves(d1, d2))`` called from Python, positions pre-parsed;
* **gnubg_nn** -- ``gnubg_nn.moves(board, d1, d2)`` from the ``gnubg-nn`` package (GNU
  Backgammon's generator), on the same positions and rolls, when it is installed.

A *generation* is one (position, roll) pair; its *results* are the distinct legal
plays (resulting positions).  bgfast counts a roll with no legal play as one result
(the unchanged position); gnubg counts it as none.  Before timing, the counts of every
generation are checked against each other, allowing for that difference.  Each figure
is the best of ``repeat`` timed passes, with the garbage collector off (as ``timeit``);
the passes of the engines alternate, round by round, so a slow spell of the machine
falls on all of them and the ratios between them hold.

:func:`games` times self-play: cubeless money games per second on one core through
the C game loop, beside a plain Python loop over ``gnubg_nn.pub_best_move`` that plays
the same games on the same dice (:func:`pub_best_move_game`).
"""
from __future__ import annotations

import gc
import platform
import time
from importlib import resources
from typing import Any, Callable

import numpy as np

from bgfast import __version__
from bgfast._core.movegen import count_batch
from bgfast.batch import ROLLS_21, boards_array
from bgfast.position import Position

__all__ = ["WILDBG_SETS", "load_wildbg_set", "movegen", "movegen_report", "games", "games_report", "pub_best_move_game"]

WILDBG_SETS = ("contact", "race")
"""The two position sets of the wildbg benchmark, in the order they are measured."""

_ROLLS = ROLLS_21
_OPENING_ROLL = np.array([(3, 1)], dtype=np.int64)
_OPENING_REPEATS = 20_000


def load_wildbg_set(name: str, limit: int | None = None) -> list[str]:
    """The Position IDs of one wildbg set (``"contact"`` or ``"race"``), the first ``limit`` if given.

    :raises ValueError: an unknown set name.
    """
    if name not in WILDBG_SETS:
        raise ValueError(f"unknown position set {name!r}; choose from {', '.join(WILDBG_SETS)}")
    text = resources.files("bgfast").joinpath(f"data/wildbg/{name}.csv").read_text(encoding="ascii")
    ids = text.split()
    return ids[:limit] if limit is not None else ids


def _best_of(repeat: int, runs: dict[str, Callable[[], Any]]) -> dict[str, float]:
    """The shortest wall time of each of ``runs`` over ``repeat`` rounds, in seconds.

    Every round times each run once, in turn, so a slow spell of the machine (a
    virtual machine's neighbours, clock changes) falls on all of them alike and
    their ratios hold.  One untimed warm-up call of each first; the garbage
    collector is off while timing (as ``timeit``).
    """
    for run in runs.values():
        run()
    best = dict.fromkeys(runs, float("inf"))
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                best[name] = min(best[name], time.perf_counter() - start)
    finally:
        if enabled:
            gc.enable()
    return best


def _api_pass(positions: list[Position], rolls: list[tuple[int, int]]) -> int:
    total = 0
    for pos in positions:
        for d1, d2 in rolls:
            total += len(pos.legal_moves(d1, d2))
    return total


def _gnubg_pass(moves: Callable[..., Any], boards: list[list[list[int]]], rolls: list[tuple[int, int]]) -> int:
    total = 0
    for board in boards:
        for d1, d2 in rolls:
            total += len(moves(board, d1, d2))
    return total


def _rates(seconds: float, generations: int, results: int) -> tuple[float, float, float]:
    """(µs per generation, generations per second, plays per second)."""
    return seconds / generations * 1e6, generations / seconds, results / seconds


def _check_gnubg(moves: Callable[..., Any], boards: list[list[list[int]]], counts: np.ndarray,
                 ids: list[str], rolls: list[tuple[int, int]]) -> int:
    """gnubg_nn's count of every generation, checked against ours; returns gnubg's total."""
    total = 0
    for i, board in enumerate(boards):
        for j, (d1, d2) in enumerate(rolls):
            theirs, ours = len(moves(board, d1, d2)), int(counts[i, j])
            if theirs != ours and not (theirs == 0 and ours == 1):
                raise RuntimeError(f"gnubg_nn gives {theirs} plays and bgfast {ours} for {ids[i]} {d1}{d2}")
            total += theirs
    return total


def movegen(*, repeat: int = 3, positions: int | None = None, peers: bool = True) -> dict[str, Any]:
    """Time move generation on the wildbg sets; the figures as a JSON-ready dict.

    :param repeat: timed passes per figure (the best counts).
    :param positions: use only the first ``positions`` of each set (default: all 1000).
    :param peers: also time ``gnubg_nn.moves`` when the package is importable.
    :raises ValueError: ``repeat`` or ``positions`` below 1.
    :raises RuntimeError: the engines disagree on some generation's number of plays.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat!r}")
    if positions is not None and positions < 1:
        raise ValueError(f"positions must be at least 1, got {positions!r}")
    ids = {name: load_wildbg_set(name, positions) for name in WILDBG_SETS}
    all_ids = [pid for name in WILDBG_SETS for pid in ids[name]]
    parsed = [Position(pid) for pid in all_ids]
    boards = boards_array(parsed)
    rolls = [(int(a), int(b)) for a, b in _ROLLS]
    generations = len(parsed) * len(rolls)

    counts = count_batch(boards, _ROLLS)
    results = int(counts.sum())
    api_results = _api_pass(parsed, rolls)
    if api_results != results:
        raise RuntimeError(f"legal_moves gives {api_results} plays in all, count_batch {results}")
    doubles = _ROLLS[:, 0] == _ROLLS[:, 1]
    sets, start = {}, 0
    for name in WILDBG_SETS:
        block = counts[start:start + len(ids[name])]
        start += len(ids[name])
        sets[name] = {
            "positions": len(ids[name]),
            "results_doubles": int(block[:, doubles].sum()),
            "results_non_doubles": int(block[:, ~doubles].sum()),
        }

    gnubg = _import_gnubg_nn() if peers else None
    skipped = None if gnubg is not None else _peer_skipped(peers)
    start_position = Position()
    opening_boards = np.repeat(boards_array([start_position]), _OPENING_REPEATS, axis=0)
    runs: dict[str, Callable[[], Any]] = {
        "batch": lambda: count_batch(boards, _ROLLS),
        "api": lambda: _api_pass(parsed, rolls),
        "opening_batch": lambda: count_batch(opening_boards, _OPENING_ROLL),
        "opening_api": lambda: _api_pass([start_position] * _OPENING_REPEATS, [(3, 1)]),
    }
    gnubg_results = None
    if gnubg is not None:
        moves = gnubg[0]
        lists = [[list(side) for side in pos.board] for pos in parsed]
        gnubg_results = _check_gnubg(moves, lists, counts, all_ids, rolls)
        start_lists = [[list(side) for side in start_position.board]] * _OPENING_REPEATS
        runs["gnubg"] = lambda: _gnubg_pass(moves, lists, rolls)
        runs["opening_gnubg"] = lambda: _gnubg_pass(moves, start_lists, [(3, 1)])
    seconds = _best_of(repeat, runs)
    out: dict[str, Any] = {
        "bgfast_version": __version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "corpus": "wildbg contact+race",
        "sets": sets,
        "positions": len(parsed),
        "rolls": len(rolls),
        "generations": generations,
        "results": results,
        "repeat": repeat,
    }
    for tier in ("batch", "api"):
        us, gps, pps = _rates(seconds[tier], generations, results)
        out[f"{tier}_us_per_generation"] = us
        out[f"{tier}_generations_per_s"] = gps
        out[f"{tier}_plays_per_s"] = pps
    opening = {
        "results": len(start_position.legal_moves(3, 1)),
        "batch_us": seconds["opening_batch"] / _OPENING_REPEATS * 1e6,
        "api_us": seconds["opening_api"] / _OPENING_REPEATS * 1e6,
        "gnubg_nn_us": None,
    }
    out.update(gnubg_nn_version=None, gnubg_nn_skipped=skipped, gnubg_nn_results=None, gnubg_nn_us_per_generation=None,
               gnubg_nn_generations_per_s=None, gnubg_nn_plays_per_s=None,
               batch_vs_gnubg_nn=None, api_vs_gnubg_nn=None)
    if gnubg is not None:
        assert gnubg_results is not None  # counted above whenever gnubg_nn is there
        gnubg_s = seconds["gnubg"]
        us, gps, pps = _rates(gnubg_s, generations, gnubg_results)
        out.update(gnubg_nn_version=gnubg[1], gnubg_nn_results=gnubg_results, gnubg_nn_us_per_generation=us,
                   gnubg_nn_generations_per_s=gps, gnubg_nn_plays_per_s=pps,
                   batch_vs_gnubg_nn=gnubg_s / seconds["batch"], api_vs_gnubg_nn=gnubg_s / seconds["api"])
        opening["gnubg_nn_us"] = seconds["opening_gnubg"] / _OPENING_REPEATS * 1e6
    out["opening_31"] = opening
    return out


def _peer_skipped(peers: bool) -> str:
    """Why gnubg_nn was not timed, when it was not."""
    return "--no-peers" if not peers else "gnubg-nn is not installed: pip install 'bgfast[gnubg]'"


def _import_gnubg_nn() -> tuple[Callable[..., Any], str] | None:
    """``(gnubg_nn.moves, version)``, or None when gnubg-nn is not installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("gnubg-nn")
    except PackageNotFoundError:
        ver = "unknown"
    return gnubg_nn.moves, ver


def _si(x: float) -> str:
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if x >= scale:
            return f"{x / scale:.2f}{unit}"
    return f"{x:.0f} "


def movegen_report(r: dict[str, Any]) -> str:
    """The figures of :func:`movegen` as a short text table."""
    lines = [
        f"move generation: {r['corpus']}, {r['positions']} positions x {r['rolls']} rolls = "
        f"{r['generations']:,} generations, {r['results']:,} plays (best of {r['repeat']})",
        f"{'':22}{'us/generation':>14}{'generations/s':>15}{'plays/s':>12}{'vs gnubg_nn':>13}",
    ]
    rows = [("batch (count_batch, C)", "batch"), ("api (legal_moves)", "api")]
    if r["gnubg_nn_version"] is not None:
        rows.append((f"gnubg_nn {r['gnubg_nn_version']}", "gnubg_nn"))
    for label, key in rows:
        ratio = r.get(f"{key}_vs_gnubg_nn") if key != "gnubg_nn" else 1.0
        lines.append(
            f"{label:<22}{r[f'{key}_us_per_generation']:>14.3f}{_si(r[f'{key}_generations_per_s']):>15}"
            f"{_si(r[f'{key}_plays_per_s']):>12}{'' if ratio is None else f'{ratio:.2f}x':>13}"
        )
    if r["gnubg_nn_version"] is None:
        lines.append(f"gnubg_nn: not measured ({r['gnubg_nn_skipped']})")
    o = r["opening_31"]
    opening = f"opening position, 3-1 ({o['results']} plays): batch {o['batch_us']:.3f} us, api {o['api_us']:.3f} us"
    if o["gnubg_nn_us"] is not None:
        opening += f", gnubg_nn {o['gnubg_nn_us']:.3f} us"
    lines.append(opening)
    return "\n".join(lines)


# ---------------------------------------------------------------- games

_GAMES_SEED = 1
_PEER = "gnubg_nn.pub_best_move"


def _selfplay_player(bot: str) -> Any:
    """A :class:`~bgfast.game.MatchPlayer` of ``bot`` against itself, cubeless money games."""
    from bgfast.bots import get_bot
    from bgfast.bots.spec import parse_bot_spec
    from bgfast.game import MatchPlayer
    from bgfast.match import Rules

    name, options = parse_bot_spec(bot)
    options.setdefault("cube", "never")
    return MatchPlayer(get_bot(name, **options), get_bot(name, **options), length=0, rules=Rules(jacoby=False))


def _selfplay_pass(player: Any, seed: int, games: int) -> list[tuple[int, int]]:
    """(winner, plies) of games 0..games-1 of run ``seed``."""
    play = player.play
    out = []
    for index in range(games):
        summary = play(seed, index)
        out.append((summary.winner, summary.plies))
    return out


def pub_best_move_game(pub_best_move: Callable[..., Any], die: Callable[[], int],
                       start: tuple[int, ...]) -> tuple[int, int]:
    """One cubeless game of ``gnubg_nn.pub_best_move`` against itself, in plain Python.

    The rules are bgfast's: each side rolls one die (player 0 first), ties are rolled
    again, the higher die plays both; the game ends when the side that has just moved
    has no checker left.  ``die()`` gives the dice (bgfast's stream of the game).

    gnubg_nn's board is bgfast's: ``[opponent, on roll]``, 25 counts each from its own
    side (index 24 the bar).  ``pub_best_move(board, d1, d2)`` returns the play as a flat
    list of single-die steps ``[from, to, from, to, ...]`` in the mover's 0-based
    indexes, 24 = the bar and -1 = borne off; an empty list when nothing can be played.

    :returns: ``(winner, plies)``: the player (0 or 1) who bore off first, checker plays made.
    """
    while True:
        a, b = die(), die()
        if a != b:
            break
    turn, d1, d2 = (0 if a > b else 1), a, b
    opp, me = list(start), list(start)
    plies = 0
    while True:
        steps = pub_best_move([opp, me], d1, d2)
        for k in range(0, len(steps), 2):
            src, dst = steps[k], steps[k + 1]
            me[src] -= 1
            if dst >= 0:
                me[dst] += 1
                if opp[23 - dst] == 1:
                    opp[23 - dst] = 0
                    opp[24] += 1
        plies += 1
        if not any(me):
            return turn, plies
        opp, me = me, opp
        turn = 1 - turn
        d1, d2 = die(), die()


def _peer_pass(pub_best_move: Callable[..., Any], seed: int, games: int) -> list[tuple[int, int]]:
    from bgfast._core.rng import Stream
    from bgfast.position import VARIANTS

    start = VARIANTS["standard"][1]
    return [pub_best_move_game(pub_best_move, Stream(seed, index, 0).die, start) for index in range(games)]


def games(bot: str = "pubeval", *, games: int = 1000, seed: int = _GAMES_SEED, repeat: int = 1,
          peers: bool = True) -> dict[str, Any]:
    """Time self-play: cubeless money games per second on one core; the figures as a JSON-ready dict.

    ``bot`` plays itself through :class:`~bgfast.game.MatchPlayer` (the C loop; a
    Python bot goes through its callbacks), with the cube left in the middle
    (``cube=never`` unless the spec says otherwise; ``"cube"`` in the result) and no
    Jacoby rule: games ``0 .. games-1`` of run ``seed``.  For cubeless pubeval, with
    ``peers``, when gnubg-nn is installed, the same number of games is played by a
    plain Python loop over :func:`pub_best_move_game` on the same dice streams; both
    sides play the same evaluator, so the games should be identical, and
    ``gnubg_nn_identical_games`` counts those that are (same winner and length).  Other
    bots and cube policies have no peer figures (None): the loop plays cubeless pubeval.

    :param bot: a bot spec (``NAME[:KEY=VALUE,...]``, see :mod:`bgfast.bots.spec`).
    :param games: games per timed pass; :param repeat: timed passes (the best counts).
    :raises ValueError: ``games`` or ``repeat`` below 1, a negative seed.
    :raises UnknownBotError: an unknown bot or bad options.
    """
    from bgfast.bots.spec import parse_bot_spec

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be at least 1, got {games!r}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    player = _selfplay_player(bot)
    name, options = parse_bot_spec(bot)
    cube = str(options.get("cube", "never"))
    comparable = name == "pubeval" and cube == "never"  # what the cubeless peer loop plays
    results = _selfplay_pass(player, seed, games)
    gnubg = _import_gnubg_nn() if peers and comparable else None
    skipped = (None if gnubg is not None else "its loop plays cubeless pubeval only" if not comparable
               else _peer_skipped(peers))
    runs: dict[str, Callable[[], Any]] = {"bgfast": lambda: _selfplay_pass(player, seed, games)}
    if gnubg is not None:
        import gnubg_nn

        runs["gnubg_nn"] = lambda: _peer_pass(gnubg_nn.pub_best_move, seed, games)
    timed = _best_of(repeat, runs)
    seconds = timed["bgfast"]
    plies = sum(p for _, p in results)
    out: dict[str, Any] = {
        "bot": bot,
        "cube": cube,
        "games": games,
        "games_per_s": games / seconds,
        "plies_per_game": plies / games,
        "us_per_ply": seconds / plies * 1e6,
        "seed": seed,
        "repeat": repeat,
        "bgfast_version": __version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "peer": _PEER,
        "gnubg_nn_version": None,
        "gnubg_nn_skipped": skipped,
        "gnubg_nn_games_per_s": None,
        "gnubg_nn_plies_per_game": None,
        "gnubg_nn_identical_games": None,
        "vs_gnubg_nn": None,
    }
    if gnubg is not None:
        version = gnubg[1]
        peer_results = _peer_pass(gnubg_nn.pub_best_move, seed, games)
        peer_s = timed["gnubg_nn"]
        out.update(
            gnubg_nn_version=version,
            gnubg_nn_games_per_s=games / peer_s,
            gnubg_nn_plies_per_game=sum(p for _, p in peer_results) / games,
            gnubg_nn_identical_games=sum(a == b for a, b in zip(results, peer_results)),
            vs_gnubg_nn=peer_s / seconds,
        )
    return out


def games_report(r: dict[str, Any]) -> str:
    """The figures of :func:`games` as a short text table."""
    lines = [
        (f"self-play, {'cubeless money games' if r['cube'] == 'never' else 'money games, cube ' + r['cube']}: "
         f"{r['games']:,} games of run seed {r['seed']} "
         f"(best of {r['repeat']}), one core"),
        f"{'':34}{'games/s':>10}{'plies/game':>12}{'us/ply':>9}{'vs gnubg_nn':>13}",
    ]
    ratio = r["vs_gnubg_nn"]
    lines.append(f"{'bgfast ' + r['bot']:<34}{r['games_per_s']:>10,.0f}{r['plies_per_game']:>12.1f}"
                 f"{r['us_per_ply']:>9.2f}{'' if ratio is None else f'{ratio:.2f}x':>13}")
    if r["gnubg_nn_version"] is None:
        lines.append(f"gnubg_nn: not measured ({r['gnubg_nn_skipped']})")
    else:
        peer_us = 1e6 / (r["gnubg_nn_games_per_s"] * r["gnubg_nn_plies_per_game"])
        lines.append(f"{'gnubg_nn ' + r['gnubg_nn_version'] + ' pub_best_move loop':<34}"
                     f"{r['gnubg_nn_games_per_s']:>10,.0f}{r['gnubg_nn_plies_per_game']:>12.1f}"
                     f"{peer_us:>9.2f}{'1.00x':>13}")
        if r["gnubg_nn_identical_games"] is not None:
            lines.append(f"same games (winner and plies) in both loops: "
                         f"{r['gnubg_nn_identical_games']:,} of {r['games']:,}")
    return "\n".join(lines)
