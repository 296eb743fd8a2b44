"""The ``bgfast`` command: parses arguments and calls library code, nothing more.

Each subcommand is a pair of small functions: ``_add_<name>(subparsers)`` declares
its arguments and sets ``func``, and ``_cmd_<name>(args) -> int`` does the work by
calling the library.  To add a subcommand, write the pair and append the ``_add_``
function to :data:`COMMANDS`.  Errors from bad input (any :class:`BgfastError` or
``ValueError``) print one line, ``bgfast: error: ...``, to stderr and exit with
status 2, as argparse does for bad arguments.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
from functools import partial
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from bgfast import __version__
from bgfast.command_line import EXIT_USAGE, Parser, StopSignal, stopped_by_signals
from bgfast.dice import Dice
from bgfast.errors import (
    BgfastError,
    BotFailedError,
    EngineError,
    InvalidDiceError,
    InvalidPositionError,
    InvalidRolloutError,
    InvalidSpecError,
    OutputFileError,
    ResultsWriteError,
    RolloutSaveError,
    RolloutWorkerError,
    Terminated,
    failure_text,
    one_line,
    WorkerFailedError,
    shortened,
)
from bgfast.position import VARIANTS, Move, Position
from bgfast.validation import output_file_fault, output_folder, real_number, whole_number

if TYPE_CHECKING:
    from bgfast.formats.text import PositionText

__all__ = ["main", "build_parser", "COMMANDS"]

PROG = "bgfast"
EXIT_FAILURE = 1  # the input was fine but the run failed: a file the system refused, a worker that died
EXIT_INTERRUPTED = 130
"""The exit status after Ctrl-C (SIGINT): 128 + its number, as a shell reports a process it ended."""
EXIT_TERMINATED = 143
"""The exit status after a SIGTERM (``kill PID``) that stopped a run: 128 + its number, so that
a caller can tell it from a Ctrl-C (as the shell's status of a process SIGTERM ended)."""
SIGTERM_STOPS = frozenset({"rollout", "tournament"})
"""The commands a SIGTERM stops as Ctrl-C does, keeping their finished work (status
:data:`EXIT_TERMINATED`); the others end by SIGTERM's default action."""
OWN_SIGNALS = frozenset({"engine"})
"""The commands that keep the signal dispositions they were started with: an engine is
another program's child, and that program decides whether Ctrl-C reaches it."""
PLOT_FORMATS = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".webp", ".tif", ".tiff", ".eps", ".ps")
"""File types ``report --plot`` writes (matplotlib's Agg backend, chosen by the suffix)."""


"""Every parser of the command (sub-commands too): one-line errors, no abbreviated options."""


# ---------------------------------------------------------------- moves


def _add_moves(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "moves",
        help="list the legal plays of a roll",
        description="List every legal play of DICE in the position, one per distinct resulting "
        "position, in gnubg notation with the resulting Position ID (still from the mover's "
        "view, not swapped).  A roll that cannot be played gives one empty play.  With a "
        "PositionID:MatchID or an XGID the roll must be one its match state allows: the dice it "
        "says were rolled, if any, and no double or resignation pending; DICE may then be left "
        "out.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID (14 characters), PositionID:MatchID or XGID; side on roll to move")
    p.add_argument("dice", metavar="DICE", nargs="?",
                   help="the roll, like 31 or 3-1 (default: the dice a Match ID or XGID says were rolled)")
    p.add_argument("--json", action="store_true", help='print a JSON list of {"move", "position_id"} objects')
    p.set_defaults(func=_cmd_moves)


def _play_order(move: Move) -> tuple[tuple[int, int], ...]:
    return tuple((-cm.src, -cm.dst) for cm in move.checker_moves)


def _read_position(text: str, *, to_play: bool = False) -> PositionText:
    """A Position ID, ``PositionID:MatchID`` or XGID from the command line, refused in the
    terms the user typed when no game reaches it (:meth:`~bgfast.position.Position.unreachable`),
    or, ``to_play``, when its game is over.

    :raises InvalidPositionError: such a position, or text that does not read as one.
    :raises InvalidMatchIdError: a cube above the rules' highest cube, or a double pending that
        they forbid (:meth:`PositionText.rules`).
    """
    from bgfast.formats.text import read_position

    stated = read_position(text)
    on_roll, opponent = stated.position.checkers()[1], stated.position.checkers()[0]
    quoted = repr(shortened(text.strip()))
    unreachable = stated.position.unreachable()
    if unreachable is not None:
        raise InvalidPositionError(f"{quoted} {unreachable}")
    if to_play and (on_roll == 0 or opponent == 0):
        who = "the side on roll" if on_roll == 0 else "the side not on roll"
        raise InvalidPositionError(f"the game in {quoted} is over: {who} has borne off all its checkers, so there "
                                   "is nothing to play")
    stated.rules()   # the cube and a pending double within the rules, as every judging command checks
    return stated


def _cmd_moves(args: argparse.Namespace) -> int:
    stated = _read_position(args.position_id, to_play=True)
    pos = stated.position
    given = args.dice
    if given is None:
        if stated.match is None or stated.match.dice == (0, 0):
            raise InvalidDiceError(f"give the dice: {args.position_id!r} does not say which were rolled")
        given = stated.match.dice
    dice = stated.check_roll(given)   # the match state's own dice, no double pending (as a rollout checks)
    moves = sorted(pos.legal_moves(dice.high, dice.low), key=_play_order)
    if args.json:
        print(json.dumps([{"move": str(m), "position_id": m.position.id()} for m in moves], indent=2))
        return 0
    texts = [m.describe() for m in moves]
    width = max(len(t) for t in texts)
    for text, move in zip(texts, moves):
        print(f"{text:<{width}}  {move.position.id()}")
    return 0


# ---------------------------------------------------------------- show


def _add_show(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "show",
        help="draw a position",
        description="Draw the board of a gnubg Position ID; X is the side on roll, moving down to its 1-point.  "
        "With --svg, also write the board as an SVG picture for a web page (points numbered from the side on "
        "roll, the bar, the borne-off checkers, the cube, the score and the dice).",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID (14 characters), PositionID:MatchID or XGID")
    p.add_argument("--svg", metavar="FILE", help="also write the board to FILE as SVG (replaced atomically)")
    p.add_argument("--dice", metavar="DICE",
                   help="with --svg: dice to draw, like 31 (default: those the Match ID or XGID says were rolled)")
    p.set_defaults(func=_cmd_show)


def _cmd_show(args: argparse.Namespace) -> int:
    stated = _read_position(args.position_id)
    pos, match = stated.position, stated.match
    if args.dice is not None and args.svg is None:
        raise ValueError("--dice is drawn in the picture: give --svg FILE too")
    # every input is checked before any output: the dice parse, and agree with those the
    # Match ID or XGID says were rolled (as hint and moves check them)
    dice = None if args.dice is None else stated.check_roll(args.dice)
    svg_file = _output_file(args.svg, "--svg") if args.svg is not None else None
    print(pos.diagram())
    if match is not None:  # what a PositionID:MatchID or an XGID states beside the checkers
        print(match.describe())
        print(f"Position ID {pos.id()}  Match ID {match.match_id()}")
    if svg_file is not None:
        from bgfast.analysis import board_svg, write_svg

        write_svg(svg_file, board_svg(pos, match, dice=dice))
        print(f"wrote the board to {svg_file}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- eval, hint, cube


def _add_backend_options(p: argparse.ArgumentParser, what: str, same: str = "", cluster: str = "") -> None:
    """--backend and --scheduler: where the work is played (the pool layer's two backends)."""
    p.add_argument("--backend", choices=("process", "dask"), default="process",
                   help=f"where {what} are played: a local process pool (default) or a Dask cluster"
                   + (f" {same}" if same else ""))
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"Dask scheduler address, e.g. tcp://host:8786 (default: a local cluster{cluster})")


def _add_judge_options(p: argparse.ArgumentParser, default_ply: str = "the bot's own ply, 0 for neural") -> None:
    """The options every judging command takes: --ply, --bot, --json."""
    p.add_argument("--ply", type=_ply, metavar="N",
                   help="look-ahead in gnubg's numbering: 0 = the net's value, 1 = the average over the 21 "
                   f"rolls of the best 0-ply play (default: {default_ply}); the bot gives the range")
    p.add_argument("--bot", default="neural", metavar="SPEC",
                   help="the bot that judges, one that gives probabilities (default neural)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


_POSITION_HELP = "gnubg Position ID, PositionID:MatchID (the score and cube) or XGID; the side on roll's view"


def _add_eval(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "eval",
        help="the chances and equities of the side on roll",
        description="Evaluate the position for the side on roll before its roll: the five probabilities "
        "(win, win gammon, win backgammon, lose gammon, lose backgammon), the cubeless equity and the "
        "cubeful equity at the score with the cube handled right (money: points per cube; match: EMG and "
        "the match winning chance from the match equity table), and the proper cube action.  At 0 ply the "
        "cubeful equity is Janowski's formula (money) or the cubeful match winning chance on the net's "
        "probabilities; at --ply N >= 1 the neural judge looks ahead N plies with the cube (gnubg's "
        "cubeful N-ply evaluation: each side on roll doubles when that is right, the formulas at the "
        "leaves), other judges use the formulas on their N-ply probabilities.",
    )
    p.add_argument("position_id", metavar="POSITION", help=_POSITION_HELP)
    _add_judge_options(p)
    p.set_defaults(func=_cmd_eval)


def _cmd_eval(args: argparse.Namespace) -> int:
    from bgfast.analysis import evaluate_position

    result = evaluate_position(args.position_id, args.bot, ply=args.ply)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.text())
    return 0


def _add_hint(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "hint",
        help="the plays of a roll ranked by equity",
        description="Rank every legal play of DICE by the mover's equity at the score after it, each with "
        "its difference from the best, as gnubg's hint: a play at N ply is the position after it evaluated "
        "at N plies from the opponent's view.  The equity is the one the neural bot plays by (money: the "
        "cubeless equity, points per cube; match: the cubeful EMG, with the match winning chance), so the "
        "best play is the bot's.",
    )
    p.add_argument("position_id", metavar="POSITION", help=_POSITION_HELP)
    p.add_argument("dice", metavar="DICE", nargs="?",
                   help="the roll, like 31 (default: the dice a Match ID or XGID says were rolled)")
    p.add_argument("--top", type=_positive, metavar="K", help="show the K best plays (default: all)")
    p.add_argument("--svg", metavar="FILE",
                   help="also draw the best play to FILE as SVG: the board after it, an arrow for each checker "
                   "moved (replaced atomically)")
    _add_judge_options(p)
    p.set_defaults(func=_cmd_hint)


def _cmd_hint(args: argparse.Namespace) -> int:
    from bgfast.analysis import rank_plays

    svg_file = _output_file(args.svg, "--svg") if args.svg is not None else None
    result = rank_plays(args.position_id, args.dice, args.bot, ply=args.ply)
    print(json.dumps(result.to_dict(args.top), indent=2) if args.json else result.text(args.top))
    if svg_file is not None:
        from bgfast.analysis import board_svg, write_svg

        best = result.plays[0].move
        write_svg(svg_file, board_svg(best.origin, result.situation.match, play=best))
        print(f"wrote the best play, {best.describe()}, to {svg_file}", file=sys.stderr)
    return 0


def _add_cube(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "cube",
        help="the cube decision of the side on roll",
        description="Judge the cube decision of the side on roll before its roll: the equities of no "
        "double, double/take and double/pass (money: points per cube; match: EMG, with the match winning "
        "chances) and the proper action in gnubg's words (No double, take; Double, take; Double, pass; Too "
        "good to double, pass; Never double, take in the Crawford game or with a dead cube...).  At 0 ply "
        "the equities are Janowski's (money) or the match equity table's cubeful formulas on the net's "
        "probabilities; at --ply N >= 1 the neural judge finds them by gnubg's cubeful N-ply evaluation: "
        "for each of the 21 rolls its play, then the opponent's cubeful value N-1 plies deep with each side "
        "on roll doubling when that is right, the formulas at the leaves and exact results where the game "
        "ends (so a last-roll position is valued exactly at 1 ply).",
    )
    p.add_argument("position_id", metavar="POSITION", help=_POSITION_HELP)
    _add_judge_options(p, default_ply="the bot's own cube_ply, 1 for neural")
    p.set_defaults(func=_cmd_cube)


def _cmd_cube(args: argparse.Namespace) -> int:
    from bgfast.analysis import analyse_cube

    result = analyse_cube(args.position_id, args.bot, ply=args.ply)
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.text())
    return 0


def _add_analyse(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "analyse",
        help="judge every decision of a match file, as gnubg's analyse match",
        description="Judge every checker play and cube action of a match in FILE (Jellyfish .mat or SGF, as "
        "bgfast play and GNU Backgammon write them) and the luck of every roll, then print each player's "
        "statistics laid out as gnubg's show statistics match: checker and cube error rates (equity given up "
        "per unforced move and per close or actual cube decision, times 1000: mEMG in match play, "
        "millipoints per cube in money play), the doubtful, bad and very bad decisions (errors above 0.04, "
        "0.08, 0.16), luck rate and total, the luck-adjusted result and gnubg's rating words; then the "
        "decisions marked doubtful or worse.  Checker plays are ranked as bgfast hint ranks them at --ply, "
        "cube decisions judged as bgfast cube judges them at --cube-ply; luck is measured at 0 ply, as gnubg "
        "does.  A match in progress (a file that stops in its last game) is judged as far as it goes, its "
        "results of the finished games.  On a terminal a progress bar is drawn on stderr; Ctrl-C "
        "stops and prints the games judged so far.",
    )
    p.add_argument("file", metavar="FILE", help="the match file: .mat (Jellyfish) or .sgf (GNU Backgammon)")
    _add_judge_options(p)
    p.add_argument("--cube-ply", type=_ply, metavar="N",
                   help="look-ahead of the cube decisions, as bgfast cube judges them (default: --ply when "
                   "given, else the bot's own cube ply, 1 for neural)")
    p.set_defaults(func=_cmd_analyse)


def _cmd_analyse(args: argparse.Namespace) -> int:
    from bgfast.analysis.match_analysis import analyse_match, count_actions, read_match_file
    from bgfast.terminal import progress_bar

    match = read_match_file(args.file, unfinished=True)
    bar = progress_bar(total=count_actions(match), unit=" actions", desc="analyse") if sys.stderr.isatty() else None
    try:
        result = analyse_match(match, args.bot, ply=args.ply, cube_ply=args.cube_ply,
                               progress=None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.text())
    if result.interrupted:
        how, status = _stopped(args.stop.terminated)
        print(f"{PROG}: {how} after {result.games} of {len(match.history.games) + (match.unfinished is not None)} "
              "games: the figures above "
              "are of those", file=sys.stderr)
        return status
    return 0


# ---------------------------------------------------------------- play


def _int_at_least(low: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``low`` (``what`` names it in the error)."""
    def parse(text: str) -> int:
        try:
            return whole_number(int(text), what, low=low)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}") from None
    return parse


_non_negative = _int_at_least(0, "non-negative")
_positive = _int_at_least(1, "positive")


def _ply(text: str) -> int:
    """An argparse type: a look-ahead of 0 to the deepest any built-in bot has (the judging
    bot may have fewer: its own error says so)."""
    from bgfast.bots.neural import PLIES

    try:
        return whole_number(int(text), "ply", low=PLIES[0], high=PLIES[-1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from {PLIES[0]} to {PLIES[-1]}, "
                                         f"got {text!r}") from None


def _max_cube(text: str) -> int:
    """An argparse type: a power of two from 2 to the highest cube a Match ID holds."""
    from bgfast.match import Rules

    try:
        return Rules(max_cube=int(text)).max_cube
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a power of two from 2 to 32768, got {text!r}") from None


def _add_play(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "play",
        help="play one match between two bots and print its log",
        description="Play one match (or, with --length 0, one money game) between two bots, "
        "player 0 first, and print it game by game: Crawford game, doubles with take or pass, "
        "winner, kind of win, points, score after.  The dice are those of match INDEX of run SEED, "
        "so the same arguments print the same match, byte for byte.",
        epilog="A bot is NAME or NAME:KEY=VALUE,... with the options of the bot, e.g. random, "
        "pubeval (doubles in races by the Keith count) or pubeval:cube=never (cubeless).  " + _ENGINE_EPILOG,
    )
    p.add_argument("--player", action="append", required=True, metavar="BOT",
                   help="a bot or an outside engine, given twice: player 0, then player 1")
    p.add_argument("--length", type=_non_negative, default=7, metavar="N",
                   help="match length in points, 0 = one money game (default 7)")
    p.add_argument("--seed", type=_non_negative, default=0, help="run seed of the dice (default 0)")
    p.add_argument("--index", type=_non_negative, default=0, metavar="N",
                   help="the dice stream (SEED, N): a tournament match's dice_index in the matches "
                   "CSV (default 0)")
    p.add_argument("--json", action="store_true", help="print the match as one line of JSON")
    p.add_argument("--mat", metavar="FILE",
                   help="also write every roll, play and cube action to FILE in the Jellyfish .mat "
                   "format (GNU Backgammon: import mat); plays the match through Python, more slowly")
    p.add_argument("--sgf", metavar="FILE",
                   help="also write the match to FILE as SGF, GNU Backgammon's own format (load match), "
                   "with its rules; any variant")
    _add_engine_timeout(p)
    rules = p.add_argument_group("rules")
    rules.add_argument("--crawford", action=argparse.BooleanOptionalAction, default=True,
                       help="Crawford rule in match play (default on)")
    rules.add_argument("--jacoby", action=argparse.BooleanOptionalAction, default=True,
                       help="Jacoby rule in money play (default on)")
    rules.add_argument("--beaver", action=argparse.BooleanOptionalAction, default=False,
                       help="beavers in money play (default off)")
    rules.add_argument("--max-cube", type=_max_cube, default=64, metavar="N",
                       help="highest cube value, a power of two (default 64)")
    rules.add_argument("--variant", default="standard", choices=tuple(VARIANTS),
                       help="the variant: its starting position (default standard)")
    rules.add_argument("--dead-cube", choices=("refuse", "allow"), default="refuse",
                       help="doubling a dead cube in match play: refuse as gnubg does (default), or allow")
    p.set_defaults(func=_cmd_play)


_ENGINE_EPILOG = ("An outside engine is command:PROGRAM ARGS... (a UBGI engine, e.g. 'command:bgfast engine --bot "
                  "pubeval') or engine:gnubg[:ply=N] (the GNU Backgammon program), as a tournament spec's command "
                  "and engine players; it is started and checked once before play, and it plays through Python, "
                  "far more slowly than a bot of bgfast's own.")


def _positive_number(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        return real_number(float(text), "the value", low=0.0, strict=True)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}") from None


def _add_engine_timeout(p: argparse.ArgumentParser) -> None:
    """``--engine-timeout``: the seconds an outside engine's decision may take."""
    from bgfast.engines.base import DEFAULT_TIMEOUT_S

    p.add_argument("--engine-timeout", type=_positive_number, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help="seconds an outside engine may take over one decision before it counts as hung; "
                   f"the start has at least 30 (default {DEFAULT_TIMEOUT_S:g})")


def _players(texts: Sequence[str], timeout_s: float) -> list[object]:
    """The bots or outside engines the command line names (:func:`bgfast.engines.players.player_bot`);
    every outside engine is started once and stopped, so that one that cannot start or
    fails its handshake is one error (exit 2) before any play."""
    from bgfast.engines.players import player_bot, preflight

    bots = [player_bot(text, timeout_s=timeout_s) for text in texts]
    preflight(bots)
    return bots


def _cmd_play(args: argparse.Namespace) -> int:
    from bgfast.engines.players import play_replayed
    from bgfast.engines.resilient import Fault
    from bgfast.game import play_match
    from bgfast.match import Rules
    from bgfast.formats.matchlog import match_json, match_text

    if len(args.player) != 2:
        raise ValueError(f"give --player twice (player 0, then player 1), got {args.player!r}")
    rules = Rules(crawford=args.crawford, jacoby=args.jacoby, beaver=args.beaver,
                  max_cube=args.max_cube, variant=args.variant, dead_cube=args.dead_cube)
    bots = _players(args.player, args.engine_timeout)
    if args.mat is not None and rules.variant != "standard":
        raise InvalidSpecError(f"--mat writes standard backgammon only (Jellyfish .mat has no variants), "
                               f"not {rules.variant!r}")
    mat_file = _output_file(args.mat, "--mat") if args.mat is not None else None
    sgf_file = _output_file(args.sgf, "--sgf") if args.sgf is not None else None
    _one_file_each(("--mat", mat_file), ("--sgf", sgf_file))
    def replayed(fault: Fault) -> None:
        print(f"{PROG}: engine fault ({fault.kind}, player {fault.seat}): {fault.message}; the match was played "
              "again on the same dice", file=sys.stderr)

    with _bots_named(bots, args.player), _engine_log_quiet():   # each fault is one line (replayed)
        if mat_file is not None or sgf_file is not None:
            from bgfast.formats.mat import write_mat
            from bgfast.formats.sgf import write_sgf
            from bgfast.game import play_match_with_history

            history = play_replayed(
                lambda: play_match_with_history(bots[0], bots[1], length=args.length, rules=rules, seed=args.seed,
                                                index=args.index), bots, length=args.length, on_fault=replayed)
            if mat_file is not None:
                write_mat(history, mat_file, players=args.player, rules=rules)
            if sgf_file is not None:
                write_sgf(history, sgf_file, players=args.player, rules=rules)
            record = history.record
        else:
            record = play_replayed(
                lambda: play_match(bots[0], bots[1], length=args.length, rules=rules, seed=args.seed,
                                   index=args.index), bots, length=args.length, on_fault=replayed)
    print(match_json(record, args.player) if args.json else match_text(record, args.player))
    return 0


@contextlib.contextmanager
def _engine_log_quiet() -> Iterator[None]:
    """Inside, the ``bgfast.engines`` log (replays, forfeits, engines' stderr) has a handler
    that drops its records, so that Python does not print its warnings on stderr: the
    command prints each fault itself, one line."""
    import logging

    handler = logging.NullHandler()
    logger = logging.getLogger("bgfast.engines")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


@contextlib.contextmanager
def _bots_named(bots: Sequence[object], names: Sequence[str]) -> Iterator[None]:
    """An error a bot's own code raised inside (:func:`bgfast.game.failed_bot`) becomes a
    :class:`BotFailedError` naming the bot as the command line gave it (one line, not the
    plugin's traceback); other errors go on as they are."""
    from bgfast.game import failed_bot

    try:
        yield
    except Exception as exc:
        culprit = failed_bot(exc)
        name = next((n for n, bot in zip(names, bots) if bot is culprit), None)
        if name is None:
            raise
        raise BotFailedError(f"bot {name!r} failed: {failure_text(exc)}") from exc


# ---------------------------------------------------------------- rollout


def _add_rollout(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "rollout",
        help="roll out a position, or every play of a roll, with a bot",
        description="Play the position out N times with the bot on both sides and print the chances "
        "of winning, gammons and backgammons and the equity of the side on roll (before the dice, "
        "or with --dice to play), "
        "each with its standard error and 95% interval.  Trial i has its own dice stream (SEED, i), "
        "so the result does not depend on --workers.  With N of 72 or more, the first roll is "
        "stratified over the 36 dice combinations (the first two over 1296 when N is a multiple of "
        "1296); fewer trials are sampled plainly.  With --dice, which is fixed, the rolls after it "
        "are stratified.  Luck adjustment applies to the chances, the cubeless equity and, with "
        "--cubeful, the cubeful equity and match winning chance (the luck measured on the cubeless "
        "scale, times the cube value); --plays ranks by the luck-adjusted cubeful equity with "
        "--cubeful, else by the cubeless one.  In match play the checker play is by the score: the "
        "cubeless games (the chances) play each roll for the best match winning chance with the cube "
        "dead where it stands (nobody doubles in them), the cubeful ones by the bot's own match play.  "
        "The chances are printed clamped to "
        "0..100% (--json also gives the raw estimates, probabilities_raw).  On a terminal a progress "
        "bar on stderr shows the trials done, trials/s and the time left.  Ctrl-C stops the trials "
        "and prints the result of those finished (whole rounds of the stratified rolls: 36 first rolls, "
        "or 1296 pairs of first two rolls; exit status 130); so does SIGTERM (status 143), and a worker "
        "process that dies (with its error, status 1).",
        epilog="Positions are gnubg Position IDs, PositionID:MatchID, or XGIDs (which carry the score "
        "and cube).  A bot is NAME or NAME:KEY=VALUE,... (e.g. pubeval, pubeval:cube=never).  " + _ENGINE_EPILOG
        + "  In a rollout each worker process runs its own engine; without probabilities from it, --truncate "
        "finishes with the heuristic evaluator's probabilities, which also measure the luck (as for pubeval); an "
        "engine fault (a crash, a hang, an illegal play) stops the rollout with one line, status 1.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", nargs="?",
                   help="gnubg Position ID, PositionID:MatchID or XGID (not with --extend)")
    p.add_argument("--save", metavar="FILE",
                   help="save the rollout (its arguments and every trial's numbers, a NumPy .npz) to go on "
                   "with --extend")
    p.add_argument("--extend", metavar="FILE",
                   help="go on with the rollout saved in FILE to --trials N in all, on the same dice (the "
                   "result equals one run of N trials) and save it back (or to --save FILE); its other "
                   "arguments are the saved ones: only --trials, --target-se, --workers, --backend, --scheduler, "
                   "--save and --json may be given with it")
    p.add_argument("--dice", metavar="DICE", help="the side on roll plays this roll first, e.g. 31")
    p.add_argument("--plays", nargs="?", const=True, default=False, type=_plays_option, metavar="top:K",
                   help="with --dice: roll out every play, or with top:K the K best by the bot's evaluation "
                   "at its ply (as hint ranks them), and rank them")
    p.add_argument("--play", metavar="MOVE", action="append",
                   help="with --dice: the play to roll out (default: the bot's); repeat it to roll out and "
                   "rank several")
    p.add_argument("--prune-se", type=float, metavar="X",
                   help="with --plays or several --play: drop a play once it is more than X standard errors "
                   "behind the best (checked every 1296 trials with the first two rolls stratified, else "
                   "every 324); the table says after how many trials")
    p.add_argument("--trials", type=int, default=None, metavar="N",
                   help="trials (default 1296, at most 100,000,000); with --target-se the most; with --extend the "
                        "trials in all (default: those saved, to see the saved result again)")
    # --bot, --seed and --variant default to None, so that --extend sees them given (see _EXTEND_FIXED)
    p.add_argument("--bot", metavar="BOT", help="the bot or outside engine playing both sides (default neural)")
    _add_engine_timeout(p)
    p.add_argument("--seed", type=int, metavar="S", help="run seed (default 0)")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="worker processes (default 1)")
    _add_backend_options(p, "blocks of trials", "(the same result bit for bit)", " of --workers")
    p.add_argument("--cubeful", action="store_true",
                   help="also roll out with the bot's cube decisions (money: points per initial cube; "
                   "match: MWC and EMG), luck-adjusted too; --plays are then ranked by it")
    p.add_argument("--cube", action="store_true",
                   help="roll out the cube decision of the side on roll, before its roll: no double and "
                   "double/take on the same dice (cubeful), with the difference's own error, double/pass "
                   "and the proper action in gnubg's words (money: points per cube; match: EMG and MWC); "
                   "a pending double in the Match ID or XGID is that decision")
    p.add_argument("--truncate", type=int, metavar="N",
                   help="stop trials after N plies and finish with the bot's probabilities "
                   "(the heuristic evaluator's for bots without them, such as pubeval)")
    p.add_argument("--truncate-ply", type=int, metavar="P",
                   help="with --truncate and the neural bot: evaluate where a trial stops at P plies "
                   "(0 to 3, its n-ply search; default: the bot's ply)")
    p.add_argument("--late-ply", type=int, metavar="N",
                   help="late evaluation (gnubg's): from ply --late-after M of each trial on, the neural bot "
                   "plays and estimates the cube at N plies (0 to 3); give both")
    p.add_argument("--late-after", type=int, metavar="M",
                   help="the plies (half-moves; with --dice their play is the first) each trial plays at the "
                   "bot's own ply before --late-ply")
    p.add_argument("--target-se", type=float, metavar="X",
                   help="stop once the equity's standard error is at most X (checked every 1296 trials)")
    p.add_argument("--no-variance-reduction", dest="variance_reduction", action="store_false",
                   help="neither stratify the first rolls nor adjust for luck")
    p.add_argument("--no-luck", dest="luck", action="store_false", default=None,
                   help="stratify the first rolls only: no luck adjustment of the chances and "
                   "equities (some 6 to 7 times more trials/s)")
    p.add_argument("--variant",
                   help="rules: standard, nackgammon, hypergammon (3 checkers a side; default standard)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_cmd_rollout)


def _plays_option(text: str) -> int:
    """``--plays top:K``: the K best plays."""
    count = text.removeprefix("top:")
    if not text.startswith("top:") or not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"takes top:K, K a positive number of plays (or nothing: every "
                                         f"play), got {text!r}")
    return int(count)


_EXTEND_FIXED = (("--dice", "dice", None), ("--plays", "plays", False), ("--play", "play", None),
                 ("--prune-se", "prune_se", None), ("--bot", "bot", None), ("--seed", "seed", None),
                 ("--cubeful", "cubeful", False), ("--cube", "cube", False), ("--truncate", "truncate", None),
                 ("--truncate-ply", "truncate_ply", None), ("--late-ply", "late_ply", None),
                 ("--late-after", "late_after", None), ("--no-variance-reduction", "variance_reduction", True),
                 ("--no-luck", "luck", None), ("--variant", "variant", None))
"""The options of ``bgfast rollout`` that a save fixes: (flag, dest, the value when not given).
``--extend`` refuses each (the others: ``--trials``, ``--target-se``, ``--workers``, ``--backend``,
``--scheduler``, ``--save``, ``--json``)."""


def _check_extend_options(args: argparse.Namespace) -> None:
    """:raises InvalidRolloutError: ``--extend`` with an option the save fixes, named as typed."""
    given = [flag for flag, dest, unset in _EXTEND_FIXED if getattr(args, dest) != unset]
    if given:
        names = given[0] if len(given) == 1 else ", ".join(given[:-1]) + " and " + given[-1]
        raise InvalidRolloutError(f"--extend continues the saved rollout as it was: {names} cannot be given with "
                                  "it (only --trials, --target-se, --workers, --backend, --scheduler, --save and --json "
                                  "can; for other "
                                  "options roll the position out again)")


def _check_rollout_flags(args: argparse.Namespace) -> None:
    """The flags of ``bgfast rollout`` (their ranges, and those that must go together), checked
    before the request is built, so that an error names the flags the user typed (the API names
    its parameters).

    :raises InvalidRolloutError: such flags alone or together where they cannot be.
    """
    from bgfast.bots.neural import PLIES
    from bgfast.rollout.request import MAX_TRIALS, MAX_TRUNCATE

    several = args.play is not None and len(args.play) > 1
    if args.trials > MAX_TRIALS:
        raise InvalidRolloutError(f"--trials must be at most {MAX_TRIALS:,} (a rollout keeps every trial's results "
                                  f"in memory), got {args.trials:,}")
    for flag, number, low, high in (("--trials", args.trials, 1, None), ("--workers", args.workers, 1, None),
                                    ("--seed", args.seed, 0, None), ("--truncate", args.truncate, 1, MAX_TRUNCATE),
                                    ("--truncate-ply", args.truncate_ply, PLIES[0], PLIES[-1]),
                                    ("--late-ply", args.late_ply, PLIES[0], PLIES[-1]),
                                    ("--late-after", args.late_after, 0, MAX_TRUNCATE)):
        if number is not None and not (low <= number and (high is None or number <= high)):
            bounds = f"of at least {low:,}" if high is None else f"from {low:,} to {high:,}"
            raise InvalidRolloutError(f"{flag} must be an integer {bounds}, got {number:,}")
    if args.plays is not False and args.play is not None:
        raise InvalidRolloutError("give either --plays (every play, or top:K) or --play MOVE (one or several), "
                                  "not both")
    for flag, value in (("--target-se", args.target_se), ("--prune-se", args.prune_se)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InvalidRolloutError(f"{flag} must be a positive number, got {value!r}")
    if args.prune_se is not None and args.plays is False and not several:
        raise InvalidRolloutError("--prune-se drops plays behind the best: give --plays or several --play too")
    if args.truncate_ply is not None and args.truncate is None:
        raise InvalidRolloutError("--truncate-ply is the plies a truncated trial is evaluated at: give --truncate N "
                                  "too")
    if (args.late_ply is None) != (args.late_after is None):
        given, missing = ("--late-ply", "--late-after") if args.late_after is None else ("--late-after", "--late-ply")
        raise InvalidRolloutError(f"late evaluation needs both --late-ply and --late-after: {given} is given "
                                  f"without {missing}")
    if (args.play is not None or args.plays is not False) and args.dice is None:
        stated = _read_position(args.position_id)
        if stated.match is None or stated.match.dice == (0, 0):   # a Match ID or XGID may say the dice rolled
            flag = "--plays" if args.plays is not False else "--play"
            raise InvalidRolloutError(f"{flag} needs the dice it is a play of: give --dice too, e.g. --dice 31")


def _cmd_rollout(args: argparse.Namespace) -> int:
    """Roll out and print the result; a rollout stopped early (Ctrl-C, SIGTERM, a worker
    process that died) prints the result of its finished trials, then one line on stderr."""
    from bgfast.bots import get_bot
    from bgfast.match import Rules
    from bgfast.rollout import RolloutResult, rollout
    from bgfast.rollout.request import DEFAULT_TRIALS
    from bgfast.rollout.saved import extend_rollout, save_rollout, saved_trials

    if args.position_id is None and args.extend is None:
        raise InvalidPositionError("give a POSITION_ID to roll out, or --extend FILE to go on with a saved rollout")
    if args.position_id is not None and args.extend is not None:
        raise InvalidPositionError("give a POSITION_ID to roll out or --extend FILE to go on with a saved rollout, "
                                   "not both (the save holds its position)")
    if args.extend is not None:
        _check_extend_options(args)
    if args.trials is None:
        args.trials = DEFAULT_TRIALS if args.extend is None else saved_trials(args.extend)
    _check_rollout_flags(args)
    if args.save is not None:
        _output_file(args.save, "--save", binary=True)    # checked before any trial
    rules = Rules(variant=args.variant or "standard")
    bot = _players([args.bot or "neural"], args.engine_timeout)[0]
    evaluator = None
    if args.truncate is not None and not hasattr(bot, "evaluate"):
        evaluator = get_bot("heuristic")   # the bot gives no probabilities: finish with the heuristic's
        if args.truncate_ply is not None:
            raise InvalidRolloutError(f"--truncate-ply is the plies of the neural bot's search: --bot {args.bot} "
                                      "gives no evaluations, so its truncated trials are valued by the heuristic "
                                      "(0 ply); leave --truncate-ply out, or roll out with --bot neural")

    def show(result: RolloutResult) -> None:
        print(json.dumps(result.to_dict(), indent=2) if args.json else result.report())

    try:   # Ctrl-C and SIGTERM raise KeyboardInterrupt in the trials (see main): interruptible keeps them
        several = args.play is not None and len(args.play) > 1
        if args.extend is not None:
            result = extend_rollout(args.extend, args.trials, save=args.save, workers=args.workers,
                                    target_se=args.target_se, progress=None, interruptible=True,
                                    backend=args.backend, scheduler=args.scheduler)
        else:
            result = (rollout if args.save is None else partial(save_rollout, args.save))(
                         args.position_id, dice=args.dice, play=None if args.play is None or several else args.play[0],
                         plays=args.play if several else args.plays, prune_se=args.prune_se, cube=args.cube,
                         bot=bot, evaluator=evaluator, rules=rules, trials=args.trials,
                         seed=0 if args.seed is None else args.seed,
                         workers=args.workers, backend=args.backend, scheduler=args.scheduler,
                         cubeful=args.cubeful, truncate=args.truncate, truncate_ply=args.truncate_ply,
                         late_ply=args.late_ply, late_after=args.late_after, target_se=args.target_se,
                         variance_reduction=args.variance_reduction, luck=args.luck, progress=None,
                         interruptible=True)
    except RolloutWorkerError as exc:
        if exc.partial is None:
            raise
        show(exc.partial)    # the message says whose result it is
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILURE
    except RolloutSaveError as exc:   # the trials are done: show them, then say the file is not
        if exc.result is None:
            raise
        show(exc.result)
        print(f"{PROG}: error: {one_line(exc)}; the result above was not saved", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt as exc:  # before a whole round of the stratified rolls: nothing to show
        how, status = _stopped(isinstance(exc, Terminated))
        print(f"{PROG}: {how} before the first whole round of trials (36 first rolls, or 1,296 pairs of "
              f"first two rolls) had finished: no result{', nothing saved' if args.save else ''}", file=sys.stderr)
        return status
    show(result)
    if result.interrupted:
        how, status = _stopped(args.stop.terminated)
        print(f"{PROG}: {how} after {result.trials:,} of {args.trials:,} trials: the result above "
              f"is of those", file=sys.stderr)
        return status
    return 0


# ---------------------------------------------------------------- bench


def _add_bench(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser("bench", help="measure speed", description="Measure bgfast's speed (and its peers' where installed).")
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True, parser_class=Parser)
    mg = what.add_parser(
        "movegen",
        help="move generation on the wildbg contact+race positions, all 21 rolls",
        description="Time move generation on the wildbg benchmark positions (1000 contact, 1000 race) "
        "over all 21 rolls: in batch in C (count_batch), through Position.legal_moves from Python, and "
        "gnubg_nn.moves when gnubg-nn is installed; plus the opening position with 3-1 alone.",
    )
    mg.add_argument("--json", action="store_true", help="print the figures as JSON")
    mg.add_argument("--repeat", type=int, default=3, metavar="N", help="timed passes per figure, best kept (default 3)")
    mg.add_argument("--positions", type=int, default=None, metavar="N",
                    help="use only the first N positions of each set (default: all)")
    mg.add_argument("--no-peers", dest="peers", action="store_false", help="do not time gnubg_nn")
    mg.set_defaults(func=_cmd_bench_movegen)
    gm = what.add_parser(
        "games",
        help="self-play games per second on one core (cubeless money games)",
        description="Time self-play of a bot against itself: cubeless money games per second on one "
        "core through the C game loop, and, when gnubg-nn is installed, a plain Python loop over "
        "gnubg_nn.pub_best_move playing the same games by the same rules, with the ratio.",
    )
    gm.add_argument("--bot", default="pubeval", metavar="BOT", help="the bot, NAME[:KEY=VALUE,...] (default pubeval)")
    gm.add_argument("--games", type=int, default=1000, metavar="N", help="games per timed pass (default 1000)")
    gm.add_argument("--repeat", type=int, default=1, metavar="N", help="timed passes, best kept (default 1)")
    gm.add_argument("--seed", type=_non_negative, default=1, help="run seed of the dice (default 1)")
    gm.add_argument("--no-peers", dest="peers", action="store_false", help="do not time gnubg_nn")
    gm.add_argument("--json", action="store_true", help="print the figures as JSON")
    gm.set_defaults(func=_cmd_bench_games)
    nn = what.add_parser(
        "neural",
        help="the neural net's evaluations, decisions and games per second against gnubg-nn",
        description="Time the neural net on one core, in CPU time: 0-ply evaluations of fresh self-play "
        "positions in batch, checker-play decisions at 0 and 2 plies, and cubeless self-play games (the neural bot "
        "in the C game loop, and the training loop); with gnubg-nn installed, gnubg_nn's probabilities, "
        "best_move (n=0 and n=2) and a Python loop of best_move games on the same positions and dice, with the "
        "ratios.",
    )
    nn.add_argument("--json", action="store_true", help="print the figures as JSON")
    nn.add_argument("--weights", metavar="FILE", default=None, help="a weights file (default: the shipped net)")
    nn.add_argument("--positions", type=_positive, default=20000, metavar="N",
                    help="positions per timed pass (default 20000)")
    nn.add_argument("--games", type=_positive, default=200, metavar="N",
                    help="games per timed pass (default 200; gnubg_nn plays a quarter as many)")
    nn.add_argument("--deep-positions", type=_positive, default=100, metavar="N",
                    help="of those positions, the first N timed at 2 plies (default 100)")
    nn.add_argument("--repeat", type=_positive, default=3, metavar="N",
                    help="timed passes, best kept (default 3)")
    nn.add_argument("--no-peers", dest="peers", action="store_false", help="do not time gnubg_nn")
    nn.set_defaults(func=_cmd_bench_neural)
    ys = what.add_parser(
        "yardstick",
        help="evaluators' cubeless equity error per position class against bgfast's rollouts",
        description="Measure evaluators on bgfast's equity yardstick (bgfast/data/yardstick: positions from "
        "games between other bots, in classes -- race, back game, crashed, bear-off with contact, prime versus "
        "prime, contact -- each rolled out by bgfast): the mean absolute cubeless-equity error x1000 against the "
        "rollout per class and ply, with its standard error and the rollouts' own noise.  Works on a partial "
        "rollouts file too.  Evaluators: a bot that gives probabilities (neural, neural:weights=FILE, "
        "heuristic) or gnubg-nn (GNU Backgammon's nets, when the gnubg-nn package is installed).",
    )
    ys.add_argument("--evaluator", action="append", metavar="NAME",
                    help="neural, heuristic, gnubg-nn or another bot spec; repeat for several "
                    "(default: neural, gnubg-nn when installed, heuristic)")
    ys.add_argument("--ply", action="append", type=_non_negative, metavar="N",
                    help="a look-ahead depth, gnubg's numbering; repeat for several (default: 0 and 1)")
    ys.add_argument("--file", metavar="FILE", default=None,
                    help="a rollouts file of tools/build_yardstick.py (default: the shipped yardstick)")
    ys.add_argument("--positions", type=_positive, default=None, metavar="N",
                    help="use only the first N positions (the file is in class-by-class turn; default: all)")
    ys.add_argument("--json", action="store_true", help="print the figures as JSON")
    ys.set_defaults(func=_cmd_bench_yardstick)


def _cmd_bench_movegen(args: argparse.Namespace) -> int:
    from bgfast import bench

    result = bench.movegen(repeat=args.repeat, positions=args.positions, peers=args.peers)
    print(json.dumps(result, indent=2) if args.json else bench.movegen_report(result))
    return 0


def _cmd_bench_games(args: argparse.Namespace) -> int:
    from bgfast import bench

    result = bench.games(args.bot, games=args.games, seed=args.seed, repeat=args.repeat, peers=args.peers)
    print(json.dumps(result, indent=2) if args.json else bench.games_report(result))
    return 0


def _cmd_bench_neural(args: argparse.Namespace) -> int:
    from bgfast.bots.neural import shipped_weights
    from bgfast.bots.neural_weights import read_weights
    from bgfast.train.bench import bench_neural, format_bench

    weights = shipped_weights() if args.weights is None else read_weights(args.weights)
    result = bench_neural(weights.model(), positions=args.positions, games=args.games, repeats=args.repeat,
                          gnubg=args.peers, deep_positions=args.deep_positions)
    print(json.dumps(result, indent=2) if args.json else format_bench(result))
    return 0


def _cmd_bench_yardstick(args: argparse.Namespace) -> int:
    import importlib.util

    from bgfast import yardstick

    evaluators = args.evaluator or ["neural"] + (
        [yardstick.GNUBG_NN] if importlib.util.find_spec("gnubg_nn") else []) + ["heuristic"]
    plies = sorted(set(args.ply)) if args.ply else [0, 1]
    result = yardstick.measure(evaluators, plies, path=args.file, positions=args.positions)
    print(json.dumps(result, indent=2) if args.json else yardstick.report(result))
    return 0


# ---------------------------------------------------------------- train


def _add_train(sub: argparse._SubParsersAction[Parser]) -> None:
    sub.add_parser("train", help="train the neural net by self-play (see bgfast train --help)", add_help=False,
                   description="Train bgfast's neural net: bgfast train {td,curve,refine,labels,bench,snapshot} ...")


def _cmd_train(argv: Sequence[str]) -> int:
    """``bgfast train ...``: the training command line (:func:`bgfast.train.cli.main`), its own
    parser and messages."""
    from bgfast.train.cli import main as train_main

    with stopped_by_signals(sigterm=True):
        try:
            return train_main(list(argv))
        except SystemExit as exc:  # its --help, or a usage error already printed
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        except BrokenPipeError:
            return _reader_gone()
        except KeyboardInterrupt as exc:
            how, status = _stopped(isinstance(exc, Terminated))
            kept = {"td": "its last checkpoint", "refine": "its labelled blocks and fitted epochs",
                    "labels": "its labelled blocks"}
            if argv and argv[0] in kept:
                print(f"{PROG}: {how}; the run folder keeps {kept[argv[0]]}: run the same command again to resume",
                      file=sys.stderr)
            else:
                print(f"{PROG}: {how}; nothing was written", file=sys.stderr)
            return status


# ---------------------------------------------------------------- tournament, report


def _add_tournament(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "tournament",
        help="play a bot tournament from a TOML spec (resumable)",
        description="Play the tournament SPEC describes, in parallel, into a SQLite results file, then "
        "print the standings.  Re-running the same command resumes: finished chunks of matches are kept "
        "and only the rest are played, so an interrupted run (Ctrl-C, a crash, kill -9) loses only the "
        "chunks in progress.",
        epilog="Example: bgfast tournament tournaments/quick.toml --workers 2.  See tournaments/*.toml "
        "for specs; 'bgfast report DB' shows the standings again at any time.",
    )
    p.add_argument("spec", metavar="SPEC", help="the tournament spec (TOML)")
    p.add_argument("--db", metavar="PATH", help="results file, in a folder that exists (default: "
                   "results/<spec name>.sqlite, the folder made if missing)")
    p.add_argument("--workers", type=_positive, metavar="N", help="worker processes (default: all cores)")
    _add_backend_options(p, "chunks")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    p.add_argument("--append", action="store_true",
                   help="add this spec's matches to a results file that holds another spec")
    p.set_defaults(func=_cmd_tournament)


def _cmd_tournament(args: argparse.Namespace) -> int:
    from bgfast.tournament import TournamentSpec, get_reporter, run_tournament
    from bgfast.tournament.store import default_db_path

    spec = TournamentSpec.from_toml(args.spec)
    if args.db is not None:  # as every output file named: its folder must exist (the default's is made)
        _output_file(args.db, "--db")
    db = args.db or str(default_db_path(spec))
    try:   # Ctrl-C and SIGTERM raise KeyboardInterrupt here (see main)
        standings = run_tournament(spec, db, workers=args.workers, backend=args.backend,
                                   scheduler=args.scheduler, append=args.append,
                                   reporter=get_reporter("progress" if sys.stderr.isatty() and not args.quiet
                                                         else "quiet"))
    except KeyboardInterrupt as exc:
        how, status = _stopped(isinstance(exc, Terminated))
        print(f"{PROG}: {how}; finished chunks are saved in {db}: re-run the same command to resume",
              file=sys.stderr)
        return status
    print(standings.text())
    print(f"\nresults: {db}")
    return 0


def _add_report(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "report",
        help="show the standings of a tournament results file",
        description="Print the standings of the results file DB: per player matches, match wins, points "
        "per game with its standard error, Elo with a 95% interval (a maximum-likelihood fit over all "
        "matches, mean 0 or --anchor at 0), and the per-pairing table: Elo difference, 95% interval and "
        "LOS from the dice pairs, ppg with its paired and independent standard errors.  A file with "
        "matches of several lengths gets these tables for all its matches (the lengths pooled) and "
        "then each length's own.  A judged run ([judge] in the spec) adds per player and pairing, each "
        "length its own table: the raw and luck-adjusted results with their standard errors (money: "
        "points per game; match play: match score, 1 a win), Elo and LOS from the adjusted results, "
        "checker and cube error rates (the judge's best minus the chosen, normalized as gnubg's, "
        "x1000 per decision: mEMG, as 'bgfast analyse' gives them; thousandths of a point per unit "
        "of the cube in money play, of EMG in match play) and luck per game (points, or match "
        "winning chance).",
    )
    p.add_argument("db", metavar="DB", help="a results file written by 'bgfast tournament'")
    p.add_argument("--json", action="store_true", help="print the standings as JSON")
    p.add_argument("--matches", metavar="FILE.csv", help="also write one CSV row per match to FILE.csv")
    p.add_argument("--plot", metavar="FILE.png",
                   help="also draw the ratings with their intervals and the pairwise matrix (needs matplotlib)")
    p.add_argument("--pairings", metavar="FILE.csv", help="also write one CSV row per pairing to FILE.csv")
    p.add_argument("--html", metavar="FILE.html",
                   help="also write the report as one self-contained HTML page: the spec, the tables, the Elo "
                   "chart, each pairing's points per game as its matches were played (needs matplotlib)")
    p.add_argument("--anchor", metavar="NAME", help="rate this player 0 (default: the players' mean is 0)")
    p.add_argument("--rating", choices=("wins", "points"), default="wins",
                   help="rate match wins (default) or, for money games, points (net points per game "
                   "clipped to [-3, 3], as a score in [0, 1])")
    p.set_defaults(func=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from bgfast.tournament import load_standings, plot_ratings, write_matches_csv, write_pairings_csv
    from bgfast.tournament.html_report import write_html_report
    from bgfast.tournament.plots import require_plotting

    _path_fits(args.db, "results file")
    matches = args.matches if args.matches in (None, "-") else _output_file(args.matches, "--matches",
                                                                              results=args.db)
    pairings = args.pairings if args.pairings in (None, "-") else _output_file(args.pairings, "--pairings",
                                                                                results=args.db)
    plot = _output_file(args.plot, "--plot", suffix=".png", results=args.db) if args.plot is not None else None
    page = _output_file(args.html, "--html", results=args.db) if args.html is not None else None
    _one_file_each(*((option, Path(name)) for option, name in (("--matches", matches), ("--pairings", pairings))
                     if name not in (None, "-")), ("--plot", plot), ("--html", page))
    if plot is not None and plot.suffix.lower() not in PLOT_FORMATS:
        raise ValueError(f"--plot {args.plot!r}: the file type comes from its suffix, one of {', '.join(PLOT_FORMATS)}")
    if plot is not None:
        require_plotting()  # before the standings, so that a missing matplotlib is all that is printed
    if page is not None:
        require_plotting("--html")
    standings = load_standings(args.db, rating=args.rating, anchor=args.anchor)

    def write_csvs(to_stdout: bool) -> None:
        if pairings and (pairings == "-") == to_stdout:
            count = write_pairings_csv(standings, pairings)
            print(f"wrote {count} pairings to {pairings}", file=sys.stderr)
        if matches and (matches == "-") == to_stdout:
            rows = write_matches_csv(args.db, matches)
            print(f"wrote {rows} matches to {matches}", file=sys.stderr)

    # the files first: a reader of the table that goes away (`| head`) does not cost them
    write_csvs(to_stdout=False)
    if plot:
        plot_ratings(standings, plot)
        print(f"wrote the ratings plot to {plot}", file=sys.stderr)
    if page:
        write_html_report(args.db, standings, page)
        print(f"wrote the HTML report to {page}", file=sys.stderr)
    print(json.dumps(standings.to_json(), indent=2) if args.json else standings.text())
    write_csvs(to_stdout=True)
    return 0


def _add_export(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser(
        "export",
        help="write tournament matches as Jellyfish .mat or SGF files",
        description="Write match N of the results file DB (the index 'bgfast report --matches' prints), or "
        "every match, as a Jellyfish .mat file that GNU Backgammon imports or as SGF, its own format.  A "
        "match between bgfast's built-in bots is played again from the spec and its index; the decisions "
        "of Python bots and outside engines are recorded in the results file as they play, and played "
        "back.  Forfeited matches are refused; so are variants and starts from opening positions as .mat "
        "files (SGF holds them).",
    )
    p.add_argument("db", metavar="DB", help="a results file written by 'bgfast tournament'")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--match", type=_non_negative, metavar="N", help="the match to write (with --mat or --sgf)")
    which.add_argument("--all", action="store_true",
                       help="write every match (with --mat-dir or --sgf-dir); skips forfeits")
    p.add_argument("--mat", metavar="FILE", help="the .mat file of --match")
    p.add_argument("--mat-dir", metavar="DIR", help="the folder of --all's files, named RUN-N.mat (made if missing)")
    p.add_argument("--sgf", metavar="FILE", help="the SGF file of --match")
    p.add_argument("--sgf-dir", metavar="DIR", help="the folder of --all's SGF files, named RUN-N.sgf (made if missing)")
    p.add_argument("--run", metavar="NAME", help="the run (spec name) in a file that holds several")
    p.set_defaults(func=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    from bgfast.tournament.export import export_all, export_match

    _path_fits(args.db, "results file")
    fmt = "sgf" if args.sgf is not None or args.sgf_dir is not None else "mat"
    file, folder_name = (args.sgf, args.sgf_dir) if fmt == "sgf" else (args.mat, args.mat_dir)
    given = [name for name, value in (("--mat", args.mat), ("--mat-dir", args.mat_dir), ("--sgf", args.sgf),
                                      ("--sgf-dir", args.sgf_dir)) if value is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of --mat, --mat-dir, --sgf, --sgf-dir (got {', '.join(given)})"
                         if given else "give one of --mat, --mat-dir, --sgf, --sgf-dir: where to write")
    if args.all:
        if folder_name is None:
            raise ValueError(f"--all writes into a folder: give --{fmt}-dir DIR (not --{fmt})")
        if not folder_name:
            raise ValueError(f"--{fmt}-dir '': give a folder's name")
        _path_fits(folder_name, f"--{fmt}-dir")
        folder = Path(folder_name)
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"--{fmt}-dir {shortened(folder_name)!r} is a file, not a folder")
        output_folder(folder, f"the --{fmt}-dir folder")
        done = export_all(args.db, folder, run=args.run, format=fmt, progress=sys.stderr.isatty())
        print(f"wrote {len(done.written)} matches to {folder}", file=sys.stderr)
        if done.forfeits:
            print(f"skipped {len(done.forfeits)} forfeited matches: "
                  + ", ".join(f"{run} {idx}" for run, idx in done.forfeits), file=sys.stderr)
        return 0
    if file is None:
        raise ValueError(f"--match N writes one file: give --{fmt} FILE (not --{fmt}-dir)")
    out = _output_file(file, f"--{fmt}", results=args.db)
    run = export_match(args.db, args.match, out, run=args.run, format=fmt)
    print(f"wrote match {args.match} of run {run} to {out}", file=sys.stderr)
    return 0


def _output_file(name: str, option: str, *, suffix: str = "", results: str | None = None,
                 binary: bool = False) -> Path:
    """The file an output option names, checked before any work: not the ``results`` file
    being read (or its journal, lock or log, through any link), nor empty or too long for
    the system (:func:`_path_fits`), nor what :func:`~bgfast.validation.output_file_fault`
    refuses (a folder, a missing folder, one this process may not write in; for a
    ``binary`` file a device or pipe too: ``/dev/stdout`` would mix it with the command's
    text); ``suffix`` is added when the name has none (as matplotlib does).

    :raises ValueError: ``OPTION 'NAME': REASON``.
    """
    if not name:
        raise ValueError(f"{option} '': give a file's name")
    _path_fits(name, option)
    path = Path(name)
    if results is not None:
        kept = [Path(results), Path(f"{results}-wal"), Path(f"{results}-shm"), Path(f"{results}.lock"),
                Path(results).with_suffix(".log")]
        target = os.path.realpath(path)
        if any(target == os.path.realpath(k) or (k.exists() and path.exists() and os.path.samefile(k, path))
               for k in kept):
            raise ValueError(f"{option} {shortened(name)!r} is the results file {shortened(results)!r} (or its "
                             "journal, lock or log): writing there would destroy it; name another file")
    if suffix and not path.suffix and not _is_dir(path):
        path = path.with_suffix(suffix)
    fault = output_file_fault(path, device=not binary)
    if fault is not None:
        raise ValueError(f"{option} {shortened(str(path))!r}: {fault}")
    return path


def _path_fits(name: str, label: str) -> None:
    """Refuse a path the system cannot look up because it is too long (a file or folder name
    longer than the file system allows, or the whole path longer than the system's limit),
    naming it shortened, before SQLite or a writer gives a vaguer error about it.

    :raises ValueError: ``LABEL 'NAME': ...`` for such a path.
    """
    try:
        os.stat(name)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise ValueError(
                f"{label} {shortened(name)!r}: a path of {len(name):,} characters, too long for the system "
                f"(at most {_system_limit('PC_NAME_MAX', 255):,} characters a file or folder name, "
                f"{_system_limit('PC_PATH_MAX', 4096):,} in all)") from None


def _system_limit(name: str, default: int) -> int:
    """A limit of the file system of the working directory (:func:`os.pathconf`), or ``default``."""
    try:
        return int(os.pathconf(".", name))
    except (OSError, ValueError):
        return default


def _one_file_each(*outputs: tuple[str, Path | None]) -> None:
    """Refuse two output options (``--mat``, ``--sgf``...) that name the same file, through
    any link: one would overwrite the other.  ``None``: the option was not given.

    :raises ValueError: ``A and B name the same file 'NAME'...``.
    """
    given = [(option, path) for option, path in outputs if path is not None]
    for i, (first, a) in enumerate(given):
        for second, b in given[i + 1:]:
            if os.path.realpath(a) == os.path.realpath(b) or (a.exists() and b.exists() and os.path.samefile(a, b)):
                raise ValueError(f"{first} and {second} name the same file {shortened(str(b))!r}: one would "
                                 "overwrite the other; name two files")


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder (False for a name the system refuses to look up)."""
    try:
        return path.is_dir()
    except OSError:
        return False


# ---------------------------------------------------------------- engine


def _add_engine(sub: argparse._SubParsersAction[Parser]) -> None:
    from bgfast.engines import ubgi_server

    p = sub.add_parser(
        "engine",
        help="serve a bgfast bot as a UBGI engine on stdin/stdout",
        description="Speak UBGI v0.2 (bgci's engine protocol) on stdin/stdout for a bgfast bot, so that "
        "other programs (bgci, a bgfast tournament's command = [...]) can play it.  Keys: engine.ply "
        "(root-inclusive: UBGI 1-ply is gnubg's 0-ply), engine.cube, engine.seed and the game.* match "
        "context.  'go cube' answers take, drop or beaver when a double is offered (bgfast's extension).",
    )
    p.add_argument("--bot", default=ubgi_server.DEFAULT_BOT, metavar="SPEC",
                   help=f"the bot, NAME[:KEY=VALUE,...] or module:factory (default {ubgi_server.DEFAULT_BOT})")
    p.set_defaults(func=lambda a: ubgi_server.serve(a.bot))


# ---------------------------------------------------------------- the command

COMMANDS: list[Callable[[argparse._SubParsersAction[Parser]], None]] = [
    _add_moves, _add_show, _add_eval, _add_hint, _add_cube, _add_analyse, _add_play, _add_rollout, _add_tournament, _add_report,
    _add_export, _add_bench,
    _add_engine, _add_train]
"""The subcommands, in the order ``bgfast --help`` lists them."""


_BARE_XGID = re.compile(r"-[-a-oA-O]{25}:")
"""The start of an XGID without ``XGID=`` whose board's first point is empty."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="bgfast: backgammon by the full rules, very fast.",
        epilog="Positions are gnubg Position IDs (e.g. 4HPwATDgc/ABMA, the starting position); "
        "dice are two digits like 31 or 3-1.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 a run that failed, 2 bad input,
    130 Ctrl-C, 143 a SIGTERM that stopped a rollout or tournament).

    A command takes its signals through :func:`~bgfast.command_line.stopped_by_signals`
    (all but those of :data:`OWN_SIGNALS`): Ctrl-C (SIGINT), even when started with it
    ignored, and for those of :data:`SIGTERM_STOPS` SIGTERM too, raise
    :class:`KeyboardInterrupt` once; the command gets which one as ``args.stop``.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["train"]:       # its own command line, passed on whole
        return _cmd_train(words[1:])
    # an XGID without its prefix whose board starts with "-" would read as an option
    words = [f"XGID={w}" if _BARE_XGID.match(w) else w for w in words]
    parser = build_parser()
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    signals = (contextlib.nullcontext(StopSignal()) if args.command in OWN_SIGNALS
               else stopped_by_signals(sigterm=args.command in SIGTERM_STOPS))
    with signals as args.stop:   # around the messages too: a second Ctrl-C does not cut them
        try:
            return int(args.func(args) or 0)
        except (WorkerFailedError, RolloutWorkerError, ResultsWriteError, OutputFileError,
                BotFailedError, EngineError) as exc:  # the run failed (an engine too, after its start)
            print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_FAILURE
        except (BgfastError, ValueError) as exc:
            print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        except BrokenPipeError:
            return _reader_gone()
        except KeyboardInterrupt as exc:
            how, status = _stopped(isinstance(exc, Terminated))
            print(f"{PROG}: {how}", file=sys.stderr)
            return status
        except OSError as exc:  # a file that cannot be written, a cluster that cannot be reached...
            print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_FAILURE


def _reader_gone() -> int:
    """The exit status when standard output's reader went away (e.g. ``| head``): 141, as
    Unix tools stop on SIGPIPE, quietly (standard output is sent to /dev/null so that
    Python's last flush does not complain)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141


def _stopped(terminated: bool) -> tuple[str, int]:
    """How a command stopped by a signal says so: its words and exit status."""
    return ("terminated (SIGTERM)", EXIT_TERMINATED) if terminated else ("interrupted", EXIT_INTERRUPTED)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
