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
import json
import sys
from typing import Callable, NoReturn, Sequence

from bgfast import __version__
from bgfast.dice import Dice
from bgfast.errors import BgfastError
from bgfast.position import Move, Position

__all__ = ["main", "build_parser", "COMMANDS"]

PROG = "bgfast"
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, like every other bgfast error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} (see '{self.prog} --help')\n")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# ---------------------------------------------------------------- moves


def _add_moves(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "moves",
        help="list the legal plays of a roll",
        description="List every legal play of DICE in the position, one per distinct resulting "
        "position, in gnubg notation with the resulting Position ID (still from the mover's "
        "view, not swapped).  A roll that cannot be played gives one empty play.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID (14 characters), side on roll to move")
    p.add_argument("dice", metavar="DICE", help="the roll, like 31 or 3-1")
    p.add_argument("--json", action="store_true", help='print a JSON list of {"move", "position_id"} objects')
    p.set_defaults(func=_cmd_moves)


def _play_order(move: Move) -> tuple[tuple[int, int], ...]:
    return tuple((-cm.src, -cm.dst) for cm in move.checker_moves)


def _cmd_moves(args: argparse.Namespace) -> int:
    pos = Position.from_id(args.position_id)
    dice = Dice.parse(args.dice)
    moves = sorted(pos.legal_moves(dice.high, dice.low), key=_play_order)
    if args.json:
        print(json.dumps([{"move": str(m), "position_id": m.position.id()} for m in moves], indent=2))
        return 0
    texts = [str(m) or "(no play)" for m in moves]
    width = max(len(t) for t in texts)
    for text, move in zip(texts, moves):
        print(f"{text:<{width}}  {move.position.id()}")
    return 0


# ---------------------------------------------------------------- show


def _add_show(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "show",
        help="draw a position",
        description="Draw the board of a gnubg Position ID; X is the side on roll, moving down to its 1-point.",
    )
    p.add_argument("position_id", metavar="POSITION_ID", help="gnubg Position ID (14 characters)")
    p.set_defaults(func=_cmd_show)


def _cmd_show(args: argparse.Namespace) -> int:
    print(Position.from_id(args.position_id).diagram())
    return 0


# ---------------------------------------------------------------- bench


def _add_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure speed", description="Measure bgfast's speed (and its peers' where installed).")
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True, parser_class=_Parser)
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


def _cmd_bench_movegen(args: argparse.Namespace) -> int:
    from bgfast import bench

    result = bench.movegen(repeat=args.repeat, positions=args.positions, peers=args.peers)
    print(json.dumps(result, indent=2) if args.json else bench.movegen_report(result))
    return 0


# ---------------------------------------------------------------- the command

COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_moves, _add_show, _add_bench]
"""The subcommands, in the order ``bgfast --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="bgfast: backgammon by the full rules, very fast.",
        epilog="Positions are gnubg Position IDs (e.g. 4HPwATDgc/ABMA, the starting position); "
        "dice are two digits like 31 or 3-1.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except (BgfastError, ValueError) as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
