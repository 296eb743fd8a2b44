"""The training command line: ``bgfast train ...``.

    bgfast train td /work/train/run1 --games 2000000 --seed 1
    bgfast train td /work/train/run1            # resume with the saved config
    bgfast train curve /work/train/run1
    bgfast train snapshot /work/train/run1 bgfast/data/weights/neural.bgw
    bgfast train refine /work/train/refine1 --start /work/train/run1/best.bgw --plies 2
    bgfast train labels /work/train/labels1 --blocks 200 --workers 2
    bgfast train refine /work/train/refine2 --start neural.bgw --plies 0 --rollouts /work/train/labels1
    bgfast train refine /work/train/race1 --start neural.bgw --nets race --race-hidden 256 --rollouts /work/train/races
    bgfast train refine /work/train/contact1 --start neural.bgw --nets contact,backgame,crashed --rollouts /work/train/labels1:168,/work/train/labels2
    bgfast train refine /work/train/ahead1 --start neural.bgw --nets contact,backgame,crashed --plies 0 --lookahead-weight 40
    bgfast train prune bgfast/data/weights/neural.bgw /work/train/pruned.bgw --hidden 32
    bgfast train bench [--json] [--weights FILE]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Sequence

from bgfast.command_line import Parser
from bgfast.errors import BgfastError, InvalidSpecError
from bgfast.train.checkpoint import AVERAGE, BEST, CHECKPOINT, load_checkpoint, read_curve
from bgfast.train.config import RESUMABLE, TrainConfig, changed_settings, flag
from bgfast.train.rollout_labels import RolloutLabelConfig, resumes_sources, run_labels
from bgfast.train.supervised import RefineConfig, run_refine
from bgfast.train.td import run_td

__all__ = ["main"]


def _positive(text: str) -> int:
    """A whole number of at least 1, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _field_help(cls: type) -> dict[str, str]:
    """Each field's ``:ivar NAME: text`` from the class docstring, on one line."""
    text = " ".join((cls.__doc__ or "").split())
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    parts = re.split(r":ivar (\w+): ", text)
    return {name: body.split(" :raises")[0].strip().replace("%", "%%")
            for name, body in zip(parts[1::2], parts[2::2])}


def _parser() -> Parser:
    ap = Parser(prog="bgfast train", description="Train bgfast's neural net by self-play.")
    sub = ap.add_subparsers(dest="command", required=True)
    td = sub.add_parser("td", help="TD(lambda) self-play into a run folder (resumes its checkpoint)",
                        description="Train the net by TD(lambda) self-play in the core, checkpointing to the run "
                                    "folder every few minutes and measuring it against pubeval every --eval-every "
                                    "games (bgfast.train.td); the same command again resumes the run.")
    td.add_argument("run_dir", type=Path, help="the run folder (created with the folders above it; a folder "
                                                "holding a run resumes it, its settings fixed but --games and "
                                                "--average-games)")
    train_help = _field_help(TrainConfig)
    for field in dataclasses.fields(TrainConfig):
        kind = type(field.default)
        td.add_argument(flag(field.name), type=kind, default=None,
                        help=f"{train_help.get(field.name, '')} (default {field.default!r})".strip())
    td.add_argument("--stop-after", type=float, default=None, help="seconds, then checkpoint and stop")
    td.add_argument("--start-from", type=Path, default=None,
                    help="a weights file a new run starts from (widened to --contact-hidden/--race-hidden); "
                         "sets --start to its SHA-256")
    cv = sub.add_parser("curve", help="print a run's learning curve",
                        description="Print a TD run's learning curve: games, ppg against pubeval with "
                                    "its standard error, learning rate, seconds.")
    cv.add_argument("run_dir", type=Path, help="the run folder of 'bgfast train td'")
    cv.add_argument("--json", action="store_true", help="print the points as a JSON list")
    rf = sub.add_parser("refine", help="fit the net to its own deeper look-ahead on its candidate plays (resumes)")
    rf.add_argument("run_dir", type=Path, help="the run folder (created; a folder holding a run resumes it "
                                                "with its settings: the flags left out take the folder's)")
    rf.add_argument("--start", type=Path, default=None,
                    help="the weights file to refine (a new run only; the shipped net is "
                         "bgfast/data/weights/neural.bgw)")
    refine_help = _field_help(RefineConfig)
    for field in dataclasses.fields(RefineConfig):
        text = f"{refine_help.get(field.name, '')} (default {field.default!r})".strip()
        if isinstance(field.default, bool):   # None: not given (a resume takes the folder's)
            rf.add_argument(flag(field.name), action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            rf.add_argument(flag(field.name), type=type(field.default), default=None, help=text)
    lb = sub.add_parser("labels", help="roll out positions of varied games, the net's targets (resumes)",
                        description="Draw positions from varied games and roll each out with the net: "
                                    "training targets of bgfast's own (bgfast.train.rollout_labels).")
    lb.add_argument("run_dir", type=Path, help="the label folder (created; a folder holding labels adds the "
                                                "missing blocks, with its settings)")
    lb.add_argument("--workers", type=_positive, default=1, help="processes labelling blocks at once (default 1)")
    label_help = _field_help(RolloutLabelConfig)
    for field in dataclasses.fields(RolloutLabelConfig):
        lb.add_argument(flag(field.name), type=type(field.default), default=None,
                        help=f"{label_help.get(field.name, '')} (default {field.default!r})".strip())
    pr = sub.add_parser("prune", help="distil the search's pruning nets from a weights file's nets into a new file",
                        description="Distil small pruning nets, which rank a roll's plays inside the search's "
                                    "look-ahead as gnubg's do, from SOURCE's nets on self-play positions, and write "
                                    "SOURCE's nets with them to TARGET (bgfast.train.prune); then measure how often "
                                    "they miss the net's favourite play.")
    pr.add_argument("source", type=Path, help="the weights file whose nets the pruning nets learn from")
    pr.add_argument("target", type=Path, help="the weights file to write: the same nets with their pruning nets")
    pr.add_argument("--hidden", type=_positive, default=32, help="hidden units of each pruning net (default 32)")
    pr.add_argument("--positions", type=_positive, default=200_000,
                    help="self-play positions whose plays of one roll the nets value (default 200000)")
    pr.add_argument("--epochs", type=_positive, default=12, help="passes over the plays (default 12)")
    pr.add_argument("--seed", type=int, default=101, help="the self-play run and the fit's seed (default 101)")
    pr.add_argument("--check-positions", type=int, default=5_000,
                    help="positions of run seed + 1 to measure the misses on (default 5000)")
    bn = sub.add_parser("bench", help="speed against gnubg-nn (bgfast bench neural)",
                        description="Measure the net's speed (evaluations, 0- and 2-ply decisions, self-play "
                                    "games a second) against gnubg-nn's on the same positions and rolls, as "
                                    "'bgfast bench neural' does.")
    bn.add_argument("--json", action="store_true", help="print the figures as JSON")
    bn.add_argument("--weights", type=Path, default=None, help="a weights file (default: the shipped net)")
    bn.add_argument("--positions", type=_positive, default=20000, help="distinct positions a pass (default 20000)")
    bn.add_argument("--games", type=_positive, default=200, help="self-play games a pass (default 200)")
    sn = sub.add_parser("snapshot", help="copy a run's best net (or its moving average, or its last) to a weights file")
    sn.add_argument("run_dir", type=Path, help="the run folder of 'bgfast train td'")
    sn.add_argument("target", type=Path, help="the weights file to write")
    sn.add_argument("--which", choices=("best", "average", "checkpoint"), default="best",
                    help="best.bgw (the best curve point, default), average.bgw (the moving average "
                         "of the weights now) or checkpoint.bgw (the weights now)")
    return ap


def _config(args: argparse.Namespace) -> TrainConfig:
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)
             if getattr(args, f.name) is not None}
    saved = load_checkpoint(args.run_dir)
    if saved is not None and "config" in saved.meta:
        base = TrainConfig.from_dict(dict(saved.meta["config"])).to_dict()
        fixed = changed_settings(base, given, RESUMABLE)
        if fixed:
            free = ", ".join(flag(k) for k in RESUMABLE)
            raise InvalidSpecError(f"{args.run_dir} was started with other settings ({'; '.join(fixed)}): "
                                   f"they cannot change on resume (only {free} may)")
        base.update(given)
        return TrainConfig.from_dict(base)
    return TrainConfig(**given)


def _refine_config(args: argparse.Namespace) -> RefineConfig:
    """The refinement's settings: the flags given, over the run folder's own settings when it
    holds a run (so a resume needs none of them, and a folder of an older bgfast takes the
    values it was run with), over the defaults otherwise (a changed setting is refused by
    :func:`~bgfast.train.supervised.run_refine`)."""
    from bgfast.train.supervised import START

    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(RefineConfig)
             if getattr(args, f.name) is not None}
    saved = load_checkpoint(args.run_dir, START) if args.run_dir.is_dir() else None
    if saved is not None and "refine" in saved.meta:
        settings = RefineConfig.saved(dict(saved.meta["refine"]))
        if "rollouts" in given and resumes_sources(given["rollouts"], settings["rollouts"],
                                                   settings["rollout_blocks"]):
            given["rollouts"] = settings["rollouts"]     # the folders again, the counts as recorded
        return RefineConfig(**{**settings, **given})
    return RefineConfig(**given)


def _label_config(args: argparse.Namespace) -> RolloutLabelConfig:
    """The label run's settings: the flags given over the folder's own (``labels.json``)."""
    from bgfast.train.rollout_labels import read_settings

    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(RolloutLabelConfig)
             if getattr(args, f.name) is not None}
    saved = read_settings(args.run_dir) or {}
    return RolloutLabelConfig(**{**saved, **given})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv``; returns the exit status: 2 on bad input (a bad setting,
    a missing or damaged file), 1 when the system fails it, each with a one-line message."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "td":
            start = None
            if args.start_from is not None:
                from bgfast.bots.neural_weights import read_weights
                from bgfast.train.td import encode_digest

                start = read_weights(args.start_from)
                args.start = encode_digest(start)
            config = _config(args)
            _set_games(args.run_dir, config)
            run_td(config, args.run_dir, log=lambda line: print(line, flush=True), stop_after=args.stop_after,
                   start=start)
        elif args.command == "refine":
            from bgfast.bots.neural_weights import read_weights

            refine = _refine_config(args)
            start = read_weights(args.start) if args.start is not None else None
            run_refine(refine, start, args.run_dir, log=lambda line: print(line, flush=True))
        elif args.command == "labels":
            done = run_labels(_label_config(args), args.run_dir, workers=args.workers,
                              log=lambda line: print(line, flush=True))
            print(f"{done} blocks labelled in {args.run_dir}")
        elif args.command == "prune":
            from bgfast.bots.neural_weights import read_weights, write_weights
            from bgfast.train.prune import distil_prune
            from bgfast.validation import check_output_file

            source = read_weights(args.source)
            try:
                check_output_file(args.target, "neural weights")
            except OSError as exc:     # checked before any work, as bgfast's output options: bad input
                raise InvalidSpecError(str(exc)) from None
            pruned = distil_prune(source, hidden=args.hidden, positions=args.positions,
                                  epochs=args.epochs, seed=args.seed, check_positions=args.check_positions,
                                  log=lambda line: print(line, flush=True))
            write_weights(args.target, pruned)
            print(f"wrote {args.target}")
        elif args.command == "bench":
            from bgfast.bots.neural_weights import read_weights
            from bgfast.train.bench import bench_neural, format_bench

            result = bench_neural(read_weights(args.weights).model(), positions=args.positions, games=args.games)
            print(json.dumps(result) if args.json else format_bench(result))
        elif args.command == "curve":
            if not (args.run_dir / CHECKPOINT).is_file():
                raise InvalidSpecError(f"{args.run_dir} is not a run folder of 'bgfast train td' (no {CHECKPOINT})")
            points = read_curve(args.run_dir)
            if not points and not args.json:
                print(f"{args.run_dir}: no curve point yet (one every --eval-every games)", file=sys.stderr)
            if args.json:
                print(json.dumps(points))
            for p in points if not args.json else []:
                print(f"{p['games']:>9,}  {p['ppg']:+.3f} +- {p['se']:.3f}  lr {p['lr']:.4f}  {p['seconds']:,.0f} s")
        elif args.command == "snapshot":
            name = {"best": BEST, "average": AVERAGE, "checkpoint": CHECKPOINT}[args.which]
            source = args.run_dir / name
            if not (args.run_dir / CHECKPOINT).is_file():
                raise InvalidSpecError(f"{args.run_dir} is not a run folder of 'bgfast train td' (no {CHECKPOINT})")
            if not source.exists():
                why = {"best": " (the best curve point is kept from the first one on)",
                       "average": " (a run keeps a moving average only with --average-games N)"}.get(args.which, "")
                raise InvalidSpecError(f"{args.run_dir} has no {name} yet{why}")
            load_checkpoint(args.run_dir, name)          # refuse to copy a damaged file
            try:
                shutil.copyfile(source, args.target)
            except OSError as exc:
                raise InvalidSpecError(f"cannot write {str(args.target)!r}: {exc.strerror or exc}") from None
            print(f"copied {source} to {args.target}")
    except BrokenPipeError:
        raise                       # the reader went away: bgfast.cli stops quietly
    except (BgfastError, OSError) as exc:
        print(f"bgfast: error: {_as_typed(' '.join(str(exc).split()), args)}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    return 0


def _as_typed(message: str, args: argparse.Namespace) -> str:
    """``message`` with a setting it opens with (``lookahead_weight must be...``) named as the
    flag typed (``--lookahead-weight must be...``)."""
    name, _, rest = message.partition(" must be ")
    if rest and name in vars(args) and name not in ("run_dir", "source", "target"):
        return f"{flag(name)} must be {rest}"
    return message


def _set_games(run_dir: Path, config: TrainConfig) -> None:
    """Record the resumable settings (a new total of games...) in the checkpoint's config."""
    from bgfast.train.checkpoint import save_checkpoint

    saved = load_checkpoint(run_dir)
    if saved is not None and saved.meta.get("config") != config.to_dict():
        saved.meta["config"] = config.to_dict()
        save_checkpoint(run_dir, saved)
