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


# ---------------------------------------------------------------- play


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _add_play(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play one match between two bots and print its log",
        description="Play one match (or, with --length 0, one money game) between two bots, "
        "player 0 first, and print it game by game: Crawford game, doubles with take or pass, "
        "winner, kind of win, points, score after.  The dice are those of match INDEX of run SEED, "
        "so the same arguments print the same match, byte for byte.",
        epilog="A bot is NAME or NAME:KEY=VALUE,... with the options of the bot, e.g. random, "
        "pubeval (doubles in races by the Keith count) or pubeval:cube=never (cubeless).",
    )
    p.add_argument("--player", action="append", required=True, metavar="BOT",
                   help="a bot, given twice: player 0, then player 1")
    p.add_argument("--length", type=_non_negative, default=7, metavar="N",
                   help="match length in points, 0 = one money game (default 7)")
    p.add_argument("--seed", type=_non_negative, default=0, help="run seed of the dice (default 0)")
    p.add_argument("--index", type=_non_negative, default=0, metavar="N",
                   help="match index within the run (default 0)")
    p.add_argument("--json", action="store_true", help="print the match as one line of JSON")
    rules = p.add_argument_group("rules")
    rules.add_argument("--crawford", action=argparse.BooleanOptionalAction, default=True,
                       help="Crawford rule in match play (default on)")
    rules.add_argument("--jacoby", action=argparse.BooleanOptionalAction, default=True,
                       help="Jacoby rule in money play (default on)")
    rules.add_argument("--beaver", action=argparse.BooleanOptionalAction, default=False,
                       help="beavers in money play (default off)")
    rules.add_argument("--max-cube", type=int, default=64, metavar="N", help="highest cube value (default 64)")
    rules.add_argument("--variant", default="standard", help="starting position: standard, nackgammon, hypergammon")
    p.set_defaults(func=_cmd_play)


def _cmd_play(args: argparse.Namespace) -> int:
    from bgfast.bots.spec import bot_from_spec
    from bgfast.game import play_match
    from bgfast.match import Rules
    from bgfast.matchlog import match_json, match_text

    if len(args.player) != 2:
        raise ValueError(f"give --player twice (player 0, then player 1), got {args.player!r}")
    rules = Rules(crawford=args.crawford, jacoby=args.jacoby, beaver=args.beaver,
                  max_cube=args.max_cube, variant=args.variant)
    bots = [bot_from_spec(spec) for spec in args.player]
    record = play_match(bots[0], bots[1], length=args.length, rules=rules, seed=args.seed, index=args.index)
    print(match_json(record, args.player) if args.json else match_text(record, args.player))
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


# ---------------------------------------------------------------- the command

COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_moves, _add_show, _add_play, _add_bench]
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
