"""Training positions labelled by bgfast's own rollouts: targets that are right in absolute terms.

A net fit to its own look-ahead learns to rank plays, but its look-ahead stands on its own
values, so whatever it misjudges about a kind of position (a back game's timing, a
crashed board, a race's gammons) it keeps misjudging.  A rollout played to the end does
not: its result is what the games gave, whatever the net thought of them.  A label run
makes such targets, block by block:

1. block ``b`` draws positions from varied games, run seed ``10_000 * seed + b`` of
   :func:`bgfast.sampling.sample_positions`: cubeless money games between bgfast's own
   bots (:data:`bgfast.sampling.TRAINING_PAIRINGS`: the net against itself, pubeval and
   the heuristic, and those two against each other and themselves), from the opening
   roll, a standard opening or a scrambled start (six turns of random play: where back
   games come from), ``per_class`` positions of each class
   (:mod:`bgfast.position_class`) a block, never a position of the equity yardstick nor
   of the files of ``exclude`` (by default the checker-play decision set,
   ``experiments/checker_play/decisions.csv`` of a source checkout, run from its root):
   those measure the result; with ``odd``, that many odd positions made from them after
   them (:func:`bgfast.sampling.odd_variants`);
2. rolls each position out with :func:`bgfast.rollout.rollout`, cubeless, ``trials``
   trials with its variance reduction (the first roll stratified over the 36 rolls,
   every roll's luck subtracted), the teacher net (``weights``) playing both sides at
   ``ply`` to the end of the game, trial seed ``(1_000_003 * seed + b) * 10_000 + i`` for
   the block's row ``i``;
3. writes ``block-NNNN.npz``: ``boards`` (n, 50) uint8 (the core's board, the side on
   roll as side 1, as :func:`bgfast.train.supervised.label_positions` takes them),
   ``targets`` (n, 5) float32 (the rollout's win, win gammon, win backgammon, lose gammon,
   lose backgammon: the side on roll's joint probabilities before its roll), ``equity_se``
   (n,) float32 (the rollout's standard error of the cubeless equity, points) and
   ``classes`` (n,) int8 (the index of the position's class in
   :class:`~bgfast.position_class.PositionClass`).

The blocks are independent: a run with ``workers`` processes labels them in parallel, each
block's file is written atomically when done, and a rerun labels only the missing ones,
so a killed run loses at most the blocks in progress.  ``labels.json`` holds the settings;
a rerun with other settings is refused.  :func:`read_labels` gives the first blocks that
are all there; :func:`read_sources` several runs' blocks (``FOLDER`` or ``FOLDER:N``, its
first ``N`` blocks, separated by commas), as :func:`bgfast.train.supervised.run_refine`
(``rollouts``) reads them.

Every label is bgfast's own: the net plays the trials, no other engine's evaluation or
rollout is used.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.errors import InvalidSpecError, WorkerFailedError
from bgfast.position import Position
from bgfast.position_class import PositionClass
from bgfast.train.checkpoint import unreadable
from bgfast.validation import whole_number, write_output_file

__all__ = ["RolloutLabelConfig", "format_sources", "label_block", "parse_sources", "read_labels",
           "read_sources", "resumes_sources", "run_labels"]

SETTINGS = "labels.json"
DECISION_SET = "experiments/checker_play/decisions.csv"
"""The checker-play decision set (from games without the net), relative to :data:`CHECKOUT`."""
CHECKOUT = Path(__file__).resolve().parents[2]
"""The folder above the package: a checkout's root, where ``experiments/`` is (not in a wheel)."""
DEFAULT_PER_CLASS = "race=150,back_game=100,crashed=100,prime_vs_prime=100,bearoff_contact=80,contact=150"


@dataclass(frozen=True)
class RolloutLabelConfig:
    """Settings of a label run; the same settings and teacher give the same labels.

    :ivar seed: the run seed: the games the positions come from and the trials' dice.
    :ivar blocks: blocks to label (a rerun with more blocks labels the new ones).
    :ivar per_class: positions of each class a block, ``class=count`` pairs separated by
        commas (class names of :class:`~bgfast.position_class.PositionClass`).
    :ivar trials: trials a position (a multiple of 36 keeps the first roll stratified).
    :ivar ply: the teacher net's ply in the trials (0 on a small machine).
    :ivar weights: the teacher's weights file ("" = the shipped net).
    :ivar max_games: games a block may play looking for its positions.
    :ivar odd: odd positions a block beside those (:func:`bgfast.sampling.odd_variants` of the
        block's drawn positions: checkers piled onto a bar or into a tower, where the net's
        inputs run past what games show it), each rolled out as the others (0 = none).
    :ivar exclude: CSV files (a ``position_id`` column) whose positions are never drawn,
        separated by commas, relative to the working folder or else to the checkout's root
        (:data:`CHECKOUT`) ("" = none; the yardstick's positions are never drawn either way).
    """

    seed: int = 1
    blocks: int = 100
    per_class: str = DEFAULT_PER_CLASS
    trials: int = 36
    ply: int = 0
    weights: str = ""
    max_games: int = 5000
    exclude: str = DECISION_SET
    odd: int = 0

    def __post_init__(self) -> None:
        whole_number(self.seed, "seed", low=0, error=InvalidSpecError)
        whole_number(self.odd, "odd", low=0, error=InvalidSpecError)
        for name in ("blocks", "trials", "max_games"):
            whole_number(getattr(self, name), name, low=1, error=InvalidSpecError)
        whole_number(self.ply, "ply", low=0, high=3, error=InvalidSpecError)
        self.quota()

    def quota(self) -> dict[PositionClass, int]:
        """:attr:`per_class` read: each class's positions a block.

        :raises InvalidSpecError: a pair that is not ``class=count``, an unknown class or a
            negative count."""
        out: dict[PositionClass, int] = {}
        for part in filter(None, (p.strip() for p in self.per_class.split(","))):
            name, _, count = part.partition("=")
            try:
                cls = PositionClass(name.strip())
                if cls in out:
                    raise InvalidSpecError(f"per_class names {cls.value} twice: {self.per_class!r}")
                out[cls] = int(count)
            except InvalidSpecError:
                raise
            except ValueError:
                raise InvalidSpecError(f"per_class wants class=count pairs of {', '.join(c.value for c in PositionClass)}, "
                                       f"got {part!r}") from None
            if out[cls] < 0:
                raise InvalidSpecError(f"per_class: a count is 0 or more, got {part!r}")
        if not any(out.values()):
            raise InvalidSpecError(f"per_class asks for no positions: {self.per_class!r}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _excluded(config: RolloutLabelConfig) -> set[str]:
    """The Position IDs of the sets that measure the net: the yardstick and ``config.exclude``'s.

    :raises InvalidSpecError: a file of ``exclude`` missing, unreadable or without a ``position_id`` column.
    """
    from bgfast import yardstick

    ids = {row.position_id for row in yardstick.load()}
    for name in filter(None, (n.strip() for n in config.exclude.split(","))):
        path = Path(name)
        if not path.is_absolute() and not path.exists() and (CHECKOUT / path).exists():
            path = CHECKOUT / path                   # the checkout's own sets, from any folder
        try:
            with path.open(encoding="utf-8", newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as exc:
            raise InvalidSpecError(f"exclude: cannot read {name!r}: {exc.strerror or exc} (a path relative to "
                                   f"this folder or to a checkout of bgfast; give --exclude '' or other files "
                                   f"where there is none)") from None
        if rows and "position_id" not in rows[0]:
            raise InvalidSpecError(f"exclude: {name!r} has no position_id column")
        ids.update(row["position_id"] for row in rows)
    return ids


def block_path(run: Path, block: int) -> Path:
    return run / f"block-{block:04d}.npz"


def label_block(config: RolloutLabelConfig, block: int, exclude: set[str] | None = None) -> dict[str, NDArray[Any]]:
    """Block ``block``'s positions and rollout labels (the arrays of its file, module docstring)."""
    from bgfast.bots import get_bot
    from bgfast.rollout import rollout
    from bgfast.sampling import TRAINING_PAIRINGS, odd_variants, sample_positions

    excluded = _excluded(config) if exclude is None else exclude
    rows = sample_positions(config.quota(), 10_000 * config.seed + block, config.max_games,
                            pairings=TRAINING_PAIRINGS, exclude=excluded, say=None)
    if config.odd:
        drawn = [row["position_id"] for row in rows]
        rows += odd_variants(drawn, config.odd, 10_000 * config.seed + block, exclude=set(excluded) | set(drawn))
    spec = {"ply": config.ply, "cube": "never"} | ({"weights": config.weights} if config.weights else {})
    bot = get_bot("neural", **spec)
    classes = list(PositionClass)
    boards = np.zeros((len(rows), 50), dtype=np.uint8)
    targets = np.zeros((len(rows), 5), dtype=np.float32)
    se = np.zeros(len(rows), dtype=np.float32)
    cls = np.zeros(len(rows), dtype=np.int8)
    for i, row in enumerate(rows):
        result = rollout(row["position_id"], trials=config.trials, seed=(1_000_003 * config.seed + block) * 10_000 + i,
                         bot=bot)
        boards[i] = np.frombuffer(Position.from_id(row["position_id"]).to_bytes(), dtype=np.uint8)
        targets[i] = result.probabilities
        se[i] = result.equity.se
        cls[i] = classes.index(PositionClass(row["class"]))
    return {"boards": boards, "targets": targets, "equity_se": se, "classes": cls}


def _save(path: Path, arrays: dict[str, NDArray[Any]]) -> None:
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **arrays)
    write_output_file(path, buf.getvalue(), "the rollout labels", sync=True)


def _work(job: tuple[dict[str, Any], int, str, set[str]]) -> tuple[int, int, float]:
    settings, block, run, exclude = job
    start = time.process_time()
    arrays = label_block(RolloutLabelConfig(**settings), block, exclude)
    _save(block_path(Path(run), block), arrays)
    return block, len(arrays["boards"]), time.process_time() - start


def _short(config: RolloutLabelConfig, positions: int) -> str:
    """A warning for a block short of its quota (its games ran out: raise ``max_games``)."""
    quota = sum(config.quota().values()) + config.odd
    return "" if positions >= quota else f" (short of its {quota}: the games ran out; more with --max-games)"


def run_labels(config: RolloutLabelConfig, run_dir: str | Path, *, workers: int = 1,
               log: Callable[[str], None] | None = None) -> int:
    """Label the missing blocks of ``run_dir`` with ``workers`` processes; the blocks there.

    :raises InvalidSpecError: ``run_dir`` holds labels of other settings (``blocks`` may grow).
    """
    run = Path(run_dir)
    if run.exists() and not run.is_dir():
        raise InvalidSpecError(f"{run} is a file, not a label folder")
    saved = read_settings(run)
    if saved is not None:
        fixed = {k: (v, config.to_dict().get(k)) for k, v in saved.items()
                 if k != "blocks" and config.to_dict().get(k) != v}
        if fixed:
            raise InvalidSpecError(f"{run} holds labels made with other settings "
                                   f"({'; '.join(f'{k}: {v!r} there, {w!r} given' for k, (v, w) in sorted(fixed.items()))}): "
                                   f"give the same settings, or another folder")
    exclude = _excluded(config)                      # the files and the teacher first: a bad one
    from bgfast.bots import get_bot                  # leaves no settings behind

    get_bot("neural", **({"weights": config.weights} if config.weights else {}))
    run.mkdir(parents=True, exist_ok=True)
    settings_path = run / SETTINGS
    write_output_file(settings_path, json.dumps(config.to_dict(), indent=1, sort_keys=True) + "\n", "the settings")

    def say(text: str) -> None:
        line = time.strftime("%Y-%m-%d %H:%M:%S ") + text
        with (run / "log.txt").open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        if log is not None:
            log(line)

    missing = [b for b in range(config.blocks) if not block_path(run, b).exists()]
    say(f"{config.blocks - len(missing)} of {config.blocks} blocks labelled; labelling {len(missing)} "
        f"with {workers} worker(s)")
    jobs = [(config.to_dict(), b, str(run), exclude) for b in missing]
    if workers <= 1:
        results: Iterator[tuple[int, int, float]] = map(_work, jobs)
        for block, n, cpu in results:
            say(f"block {block}: {n} positions, {cpu:,.0f} CPU s{_short(config, n)}")
    else:
        from bgfast.procs import WorkerPool

        def died(lost: list[tuple[dict[str, Any], int, str, set[str]]]) -> BaseException:
            blocks = ", ".join(str(job[1]) for job in lost)
            return WorkerFailedError(f"a label worker died while labelling block(s) {blocks}: the blocks "
                                     f"finished are saved; run the same command again to label the rest")

        # bgfast.procs' pool: Ctrl-C and SIGTERM are the parent's (held back while the workers
        # fork), the workers end with the parent, a block is written whole or not at all
        with WorkerPool(_work, jobs, workers=workers, on_worker_death=died) as pool:
            for block, n, cpu in pool.results():
                say(f"block {block}: {n} positions, {cpu:,.0f} CPU s{_short(config, n)}")
    return sum(block_path(run, b).exists() for b in range(config.blocks))


def read_settings(run_dir: str | Path) -> dict[str, Any] | None:
    """The settings of the label folder ``run_dir`` (its ``labels.json``), or None when it has none.

    :raises InvalidSpecError: a damaged settings file.
    """
    path = Path(run_dir) / SETTINGS
    if not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(saved, dict):
            raise ValueError("not a JSON object")
        RolloutLabelConfig(**saved)
    except (ValueError, TypeError, OSError) as exc:
        raise InvalidSpecError(f"{path} is damaged ({' '.join(str(exc).split())}): remove the folder or "
                               f"write its settings again") from None
    return dict(saved)


def _read_block(path: Path) -> dict[str, NDArray[Any]]:
    """A block's arrays, checked (module docstring).

    :raises InvalidSpecError: a damaged block.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in ("boards", "targets", "equity_se", "classes")}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise InvalidSpecError(f"{path} is damaged ({unreadable(exc)}): delete it and label it again") from None
    n = len(arrays["boards"])
    board_sides = arrays["boards"].reshape(n, 2, 25).astype(np.int64).sum(axis=2) if n else np.zeros((0, 2))
    targets = arrays["targets"]
    good = (arrays["boards"].shape == (n, 50) and arrays["boards"].dtype == np.uint8
            and targets.shape == (n, 5) and arrays["equity_se"].shape == (n,) and arrays["classes"].shape == (n,)
            and bool(np.isfinite(targets).all()) and bool(((targets >= 0) & (targets <= 1)).all())
            and bool((board_sides <= 15).all()))
    if not good:
        raise InvalidSpecError(f"{path} is damaged (shapes, probabilities or checker counts out of range): "
                               f"delete it and label it again")
    return arrays


def read_labels(run_dir: str | Path, blocks: int = 0) -> tuple[dict[str, NDArray[Any]], int]:
    """The arrays of the blocks ``0 .. k - 1`` of a label run, concatenated, and ``k``:
    ``blocks`` of them, or (0) the first blocks that are all there (a run still labelling
    gives what it has).

    :raises InvalidSpecError: no label run in ``run_dir``, no block yet, or fewer than ``blocks``.
    """
    run = Path(run_dir)
    if read_settings(run) is None:
        raise InvalidSpecError(f"{run} holds no rollout labels ({SETTINGS} is missing)")
    parts: list[dict[str, NDArray[Any]]] = []
    while block_path(run, len(parts)).exists() and (not blocks or len(parts) < blocks):
        parts.append(_read_block(block_path(run, len(parts))))
    if not parts or len(parts) < blocks:
        raise InvalidSpecError(f"{run} holds {len(parts)} labelled block(s) in a row from block 0, "
                               f"{'not ' + str(blocks) if blocks else 'none yet'}")
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}, len(parts)


def parse_sources(text: str, blocks: int = 0) -> list[tuple[str, int]]:
    """The label runs of a refinement's ``rollouts`` setting: entries ``FOLDER`` (every
    block there, as :func:`read_labels` gives them) or ``FOLDER:N`` (its first ``N``
    blocks), separated by commas, as ``(folder, N)`` with ``N`` 0 for every block;
    ``blocks`` (its ``rollout_blocks``) is the count of a single folder named without one.

    :raises InvalidSpecError: an empty entry, a folder named twice, or ``blocks`` with
        several folders or a count."""
    sources: list[tuple[str, int]] = []
    for entry in (e.strip() for e in text.split(",")):
        folder, _, count = entry.rpartition(":")
        if folder and (count == "" or count.lstrip("-").isdigit() and not count.isdigit()):
            raise InvalidSpecError(f"rollouts {text!r}: {entry!r} has no whole number of blocks after its ':'")
        if not (folder and count.isdigit()):
            folder, count = entry, "0"
        if not folder:
            raise InvalidSpecError(f"rollouts {text!r} has an empty folder name")
        if any(Path(folder).resolve() == Path(seen).resolve() for seen, _ in sources):
            raise InvalidSpecError(f"rollouts {text!r} names the folder {folder!r} twice")
        sources.append((folder, int(count)))
    if blocks and (len(sources) > 1 or sources[0][1]):
        raise InvalidSpecError("rollout_blocks counts the blocks of a single rollouts folder named "
                               "without a count: give the counts as FOLDER:N instead")
    return [(sources[0][0], blocks)] if blocks else sources


def format_sources(sources: list[tuple[str, int]]) -> str:
    """The ``rollouts`` setting of ``sources`` (:func:`parse_sources`' inverse)."""
    return ",".join(folder if not blocks else f"{folder}:{blocks}" for folder, blocks in sources)


def resumes_sources(given: str, recorded: str, recorded_blocks: int = 0) -> bool:
    """Whether ``rollouts`` as given names the folders of a run's recorded ``rollouts`` (a
    single folder's count being ``recorded_blocks``), the same folders in its order, from
    any working folder, each with no count or the recorded one: a resume names them as
    the new run did."""
    try:
        ours, theirs = parse_sources(given), parse_sources(recorded, recorded_blocks) if recorded else []
    except InvalidSpecError:
        return False
    return len(ours) == len(theirs) and all(
        Path(folder).resolve() == Path(seen).resolve() and blocks in (0, count)
        for (folder, blocks), (seen, count) in zip(ours, theirs))


def read_sources(sources: list[tuple[str, int]]) -> tuple[dict[str, NDArray[Any]], list[tuple[str, int]]]:
    """The arrays of the label runs ``sources`` (:func:`parse_sources`), concatenated in
    their order, and the runs with the number of blocks read from each.

    :raises InvalidSpecError: as :func:`read_labels`."""
    parts, counted = [], []
    for folder, blocks in sources:
        arrays, blocks = read_labels(folder, blocks)
        parts.append(arrays)
        counted.append((folder, blocks))
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}, counted
