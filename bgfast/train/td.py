"""TD(lambda) self-play training, checkpointed and resumable.

The games and the weight updates run in the compiled core, on its game loop
(:meth:`bgfast._core.training.SelfPlay.td_train`, without the GIL); this module
drives them chunk by chunk, sets the learning rate of each chunk from the
config's schedule, measures the learning curve and writes checkpoints.  Game
``i`` is always played on the dice of game ``i`` of run ``config.seed`` and the
updates follow the games in order, so a run resumed from a checkpoint makes the
same net as one never interrupted, and the same config makes the same net
(on the same build: the compiled kernels' float operations are fixed, with the
same results with or without AVX2).
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Callable

import numpy as np

from bgfast._core import neural as _neural
from bgfast._core.training import train_positions
from bgfast.bots.neural_weights import Weights, encode_weights
from bgfast.errors import InvalidSpecError
from bgfast.train.checkpoint import AVERAGE, BEST, LOG, load_checkpoint, read_curve, save_checkpoint, write_curve
from bgfast.train.config import TrainConfig, self_play
from bgfast.train.curve import CurvePoint, paired_ppg

__all__ = ["START", "initial_weights", "run_td", "start_weights", "train_games", "widen"]

START = "start.bgw"
"""The copy of a run's starting weights in its folder (when its config has ``start``)."""


def encode_digest(weights: Weights) -> str:
    """The SHA-256 (hex) of ``weights`` as a weights file (the file's own last 32 bytes)."""
    return encode_weights(weights)[-32:].hex()


def initial_weights(config: TrainConfig) -> Weights:
    """Random starting weights: normal with deviation ``init_scale`` for the weight matrices,
    zero biases, from ``numpy.random.default_rng(config.init_seed)``, drawn for the contact
    and race nets (the race net's weights of its own inputs, ``RACE_INPUTS``, zero); the backgame
    and crashed nets start as copies of the contact net (see
    :class:`~bgfast.bots.neural_weights.Weights`), which training then specializes."""
    rng = np.random.default_rng(config.init_seed)
    shapes = _neural.Model(config.contact_hidden, config.race_hidden).shapes()
    arrays = {}
    for name, shape in shapes.items():
        if name.startswith(("backgame.", "crashed.")):
            continue
        if name.endswith(("w1", "w2")):
            if name == "race.w1":         # the race net's own inputs start at 0 (Weights adds their rows)
                shape = (_neural.INPUTS, shape[1])
            arrays[name] = (rng.standard_normal(shape) * config.init_scale).astype(np.float32)
        else:
            arrays[name] = np.zeros(shape, dtype=np.float32)
    return Weights(arrays, {"games": 0, "positions": [0, 0], "seconds": 0.0})


def widen(weights: Weights, contact_hidden: int, race_hidden: int, *, seed: int, scale: float) -> Weights:
    """``weights`` with ``contact_hidden`` and ``race_hidden`` hidden units (the backgame and
    crashed nets ``contact_hidden`` too), computing the same function: the existing units are kept, each new unit gets input weights normal with
    deviation ``scale`` (``numpy.random.default_rng(seed)``), a zero bias and zero output
    weights, so it starts to matter only as training moves them (function-preserving
    widening, as in Chen et al. 2016, "Net2Net").  A backgame or crashed net that is a copy of
    the contact net (a file written before it) stays a copy of the widened contact net.

    :raises InvalidSpecError: a net with more hidden units than asked for.
    """
    rng = np.random.default_rng(seed)
    arrays = dict(weights.arrays)
    for net, hidden in (("contact", contact_hidden), ("race", race_hidden), ("backgame", contact_hidden),
                        ("crashed", contact_hidden)):
        if net in ("backgame", "crashed") and weights.same_net(net, "contact"):
            arrays.update({f"{net}.{part}": arrays[f"contact.{part}"].copy() for part in ("w1", "b1", "w2", "b2")})
            continue
        w1, b1, w2 = arrays[f"{net}.w1"], arrays[f"{net}.b1"], arrays[f"{net}.w2"]
        have = w1.shape[1]
        if have > hidden:
            raise InvalidSpecError(f"the starting {net} net has {have} hidden units, more than {hidden}")
        if have == hidden:
            continue
        extra = hidden - have
        arrays[f"{net}.w1"] = np.concatenate(
            [w1, (rng.standard_normal((w1.shape[0], extra)) * scale).astype(np.float32)], axis=1)
        arrays[f"{net}.b1"] = np.concatenate([b1, np.zeros(extra, dtype=np.float32)])
        arrays[f"{net}.w2"] = np.concatenate([w2, np.zeros((w2.shape[0], extra), dtype=np.float32)], axis=1)
    return Weights(arrays, dict(weights.meta))


def start_weights(config: TrainConfig, source: Weights) -> Weights:
    """The first weights of a run that starts from ``source`` (widened to the config's sizes),
    counting its games from 0 again (the games ``source`` was trained on are kept in the meta
    as ``start_games``)."""
    wide = widen(source.nets_only(), config.contact_hidden, config.race_hidden, seed=config.init_seed,
                 scale=config.init_scale)
    return Weights(wide.arrays, {"games": 0, "positions": [0, 0], "seconds": 0.0,
                                 "start_games": source.meta.get("games"), "start": config.start})


def train_games(model: _neural.Model, config: TrainConfig, first: int, games: int,
                copies: list[_neural.Model] | None = None) -> dict[str, object]:
    """Train ``model`` on games ``first .. first + games - 1`` in chunks; the chunks' facts:
    ``positions`` and ``mse`` are (contact, race) pairs whose contact figures are of the
    positions with contact, those of the contact, backgame and crashed nets together.

    With ``config.workers`` > 1, ``copies`` are the workers' models (one each, any weights:
    they are loaded with ``model``'s at each round) and ``first`` and ``games`` must be
    whole rounds (multiples of ``workers * round_games``).
    """
    positions = [0, 0]
    plies = 0
    mse = (0.0, 0.0)
    done = first
    if config.workers > 1:
        size = config.workers * config.round_games
        if first % size or games % size or copies is None or len(copies) != config.workers:
            raise ValueError(f"with {config.workers} workers, games come in rounds of {size}, "
                             "played by one model copy per worker")
        from concurrent.futures import ThreadPoolExecutor

        copies_play = [self_play(copy) for copy in copies]      # each copy's self-play, made once
        with ThreadPoolExecutor(config.workers) as pool:
            while done < first + games:
                weights = model.get_weights()
                for copy in copies:
                    copy.set_weights(weights)
                starts = [done + w * config.round_games for w in range(config.workers)]
                results = list(pool.map(lambda a: a[0].td_targets(config.seed, a[1], config.round_games, config.lam),
                                        zip(copies_play, starts)))
                lr = config.learning_rate(done - done % config.chunk)
                for boards, targets, pl in results:
                    pc, pr, pb, pk = train_positions(model, boards, targets, lr, lr * config.race_lr_factor,
                                                     np.arange(len(boards), dtype=np.int64))
                    positions[0] += pc + pb + pk
                    positions[1] += pr
                    plies += pl
                done += size
        return {"positions": positions, "plies": plies, "mse": mse}
    games_of = self_play(model)
    while done < first + games:
        n = min(config.chunk - done % config.chunk, first + games - done)
        lr = config.learning_rate(done - done % config.chunk)
        (pc, pr, pb, pk), pl, (mc, mr, mb, mk) = games_of.td_train(config.seed, done, n, config.lam, lr,
                                                                    lr * config.race_lr_factor)
        mse = ((mc * pc + mb * pb + mk * pk) / (pc + pb + pk) if pc + pb + pk else 0.0, mr)
        positions[0] += pc + pb + pk
        positions[1] += pr
        plies += pl
        done += n
    return {"positions": positions, "plies": plies, "mse": mse}


def run_td(config: TrainConfig, run_dir: str | Path, *, log: Callable[[str], None] | None = None,
           stop_after: float | None = None, start: Weights | None = None) -> Weights:
    """Train by self-play into ``run_dir`` until ``config.games`` games, resuming its checkpoint.

    :param stop_after: stop (after a checkpoint) once this many seconds have passed.
    :param start: the starting weights of a new run whose config has ``start`` (their file's
        SHA-256); None reads the copy in the run folder.
    :returns: the weights at the end, with the run state in their meta.
    :raises InvalidSpecError: ``run_dir`` holds a checkpoint of another config, or the starting
        weights are missing or are not the file ``config.start`` names.
    """
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    logfile = run / LOG

    def say(text: str) -> None:
        line = time.strftime("%Y-%m-%d %H:%M:%S ") + text
        with logfile.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        if log is not None:
            log(line)

    saved = load_checkpoint(run)
    if saved is None and config.start:
        if start is None:
            start = load_checkpoint(run, START)
        if start is None:
            raise InvalidSpecError(f"{run} has no {START}: give the starting weights of a new run")
        if encode_digest(start) != config.start:
            raise InvalidSpecError(f"the starting weights are not the file whose SHA-256 is {config.start}")
        save_checkpoint(run, start, START)
        weights = start_weights(config, start)
        weights.meta["config"] = config.to_dict()
        save_checkpoint(run, weights)
        say(f"new run from {START} ({start.meta.get('games')} games): {json.dumps(config.to_dict(), sort_keys=True)}")
    elif saved is None:
        weights = initial_weights(config)
        weights.meta["config"] = config.to_dict()
        save_checkpoint(run, weights)
        say(f"new run: {json.dumps(config.to_dict(), sort_keys=True)}")
    else:
        weights = saved
        if not TrainConfig.from_dict(dict(weights.meta.get("config", {}))).same_run(config):
            raise InvalidSpecError(f"{run} holds a run of another config: {weights.meta.get('config')!r}; "
                                   "use its config (or a new folder)")
        weights.meta["config"] = config.to_dict()
        say(f"resuming after {weights.meta['games']:,} games")
    model = weights.model()
    copies = [weights.model() for _ in range(config.workers)] if config.workers > 1 else None
    games = int(weights.meta["games"])
    positions = list(weights.meta.get("positions", [0, 0]))
    seconds = float(weights.meta.get("seconds", 0.0))
    best = float(weights.meta.get("best_ppg", -10.0))
    curve = [p for p in read_curve(run) if p["games"] <= games]
    write_curve(run, curve)
    average = load_checkpoint(run, AVERAGE) if config.average_games else None
    if config.average_games and (average is None or average.meta.get("games") != games):
        average = Weights(model.get_weights(), {"games": games})      # (re)start the average here
    started = time.monotonic()
    last_save = started
    mse: tuple[float, float] = (0.0, 0.0)

    def checkpoint() -> Weights:
        w = Weights.of(model, {**weights.meta, "games": games, "positions": positions,
                               "seconds": seconds + time.monotonic() - started, "best_ppg": best})
        if average is not None:                   # first: a checkpoint never runs ahead of it
            save_checkpoint(run, Weights(average.arrays, {**w.meta, "averaged": True}), AVERAGE)
        save_checkpoint(run, w)
        return w

    while games < config.games:
        n = min(config.eval_every - games % config.eval_every, config.games - games,
                config.chunk - games % config.chunk)
        facts = train_games(model, config, games, n, copies)
        games += n
        positions[0] += facts["positions"][0]      # type: ignore[index]
        positions[1] += facts["positions"][1]      # type: ignore[index]
        mse = facts["mse"]                         # type: ignore[assignment]
        if average is not None:
            keep = math.exp(-n / config.average_games)
            now = model.get_weights()
            for name, arr in average.arrays.items():
                arr *= np.float32(keep)
                arr += np.float32(1.0 - keep) * now[name]
            average.meta["games"] = games
        if games % config.eval_every == 0 or games == config.games:
            measured = model if average is None else average.model()
            ppg, se = paired_ppg(measured, "pubeval", seed=config.eval_seed, pairs=config.eval_pairs)
            point = CurvePoint(games, (positions[0], positions[1]), ppg, se, config.eval_pairs,
                               config.learning_rate(games - 1), mse,
                               round(seconds + time.monotonic() - started, 1), average is not None)
            curve.append(point.to_dict())
            write_curve(run, curve)
            say(point.text())
            if ppg > best:
                best = ppg
                save_checkpoint(run, Weights.of(measured, {**weights.meta, "games": games, "positions": positions,
                                                           "seconds": point.seconds,
                                                           "ppg_vs_pubeval": ppg, "se": se,
                                                           "pairs": config.eval_pairs,
                                                           "averaged": average is not None}), BEST)
            checkpoint()
            last_save = time.monotonic()
        elif time.monotonic() - last_save >= config.checkpoint_seconds:
            checkpoint()
            last_save = time.monotonic()
        if stop_after is not None and time.monotonic() - started >= stop_after:
            break
    final = checkpoint()
    say(f"stopped after {games:,} games")
    return final
