"""A rollout saved to continue: ``bgfast rollout --save FILE`` and ``--extend FILE --trials N``.

A trial is a pure function of the rollout's arguments and its index (see
:mod:`bgfast.rollout.engine`), so a rollout is continued by playing trials ``n..N-1`` of
the same arguments and estimating from all ``N``: the result equals one run of ``N``
trials, bit for bit (with the same stratification: a save whose first two rolls are
stratified, ``n`` a multiple of 1296, continues to a multiple of 1296; one with only the
first roll stratified, to a total that is not one; plays dropped by ``prune_se`` are
dropped again at the same check points).

The file is a NumPy ``.npz`` (no pickles): ``trials``, an ``(lines, n, 6)`` float64 array,
each trial's six numbers per line (the five chances and the cubeful value, root's view,
luck-adjusted as rolled out; see :mod:`bgfast.rollout.engine`), and ``request``, a JSON
text of the arguments (``format`` :data:`FORMAT`, ``position`` as ``PositionID:MatchID``,
``rules``, ``bot`` and ``evaluator`` as bot specs, ``dice``, ``play``, ``plays`` (a list
of plays, or true for every play), ``prune_se``, ``cube``, ``cubeful``, ``seed``,
``truncate``, ``truncate_ply``, ``late_ply``, ``late_after``, ``exact_bearoff``,
``variance_reduction``, ``luck``, ``strata``, ``trials``: the trials saved), and ``checksum``,
the SHA-256 of the request's text and the trials' numbers (:func:`checksum`).

A save is checked when read (:func:`read_saved`), so that a file changed by hand or damaged
is refused, not extended into mixed trials: the checksum; finite numbers; without luck
adjustment each trial's chances from 0 to 1 (and its match winning chance, in match play);
a number of trials its strata allow (a multiple of 1,296 with the first two rolls stratified,
at least 72 with the first roll stratified) and as many as recorded.  A save of format
``bgfast-rollout-2`` (before the checksum) is read with the other checks.  A save of format
``bgfast-rollout-1`` (before late evaluation, read with none) is read in money play only: its
match play trials played the cubeless game by money play, and the trials after them would play
it by the score.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import zipfile
from typing import Any

import numpy as np

from bgfast.bots.spec import BotRecipe, portable_bot
from bgfast.errors import BgfastError, InvalidRolloutError, shortened
from bgfast.formats.text import format_position, read_position
from bgfast.match import Rules
from bgfast.rollout.engine import MIN_STRATIFIED_TRIALS, run_rollout
from bgfast.rollout.request import RolloutRequest
from bgfast.rollout.result import RolloutResult
from bgfast.validation import output_file, read_input_file

__all__ = ["FORMAT", "MAX_SAVE_BYTES", "checksum", "extend_rollout", "read_saved", "request_options", "save_rollout",
           "saved_trials", "write_saved"]

FORMAT = "bgfast-rollout-3"
"""The ``format`` of a save file this version writes and reads."""

_UNCHECKED_FORMAT = "bgfast-rollout-2"
"""The format before the checksum, still read (with every other check)."""

_MONEY_ONLY_FORMAT = "bgfast-rollout-1"
"""An older format still read in money play (its match play checker play was money play's)."""

MAX_SAVE_BYTES = 8 * 2**30
"""The largest save file read (48 bytes a trial and line: some 170 million trial-lines)."""


def request_options(request: RolloutRequest) -> dict[str, Any]:
    """The arguments of ``request`` as JSON values, those :meth:`RolloutRequest.create` takes
    again (but ``trials``).

    :raises InvalidRolloutError: a bot or evaluator that is not a registered bot (it has no
        spec to rebuild it from).
    """
    def spec(bot: Any) -> str:
        recipe = portable_bot(bot)
        if not isinstance(recipe, BotRecipe):
            label = getattr(bot, "label", None)
            what = (f"the outside engine {label!r}" if isinstance(label, str) and label
                    else f"the bot {type(bot).__name__!r}, which has no bot spec")
            raise InvalidRolloutError(f"a rollout played by {what} cannot be saved: a save names its bots by "
                                      "their specs, so that --extend can rebuild them")
        return recipe.text()

    rules = request.rules
    return {
        "position": format_position(request.position, request.match),
        "rules": {"variant": rules.variant, "beaver": rules.beaver, "max_cube": rules.max_cube,
                  "jacoby": rules.jacoby, "crawford": rules.crawford, "dead_cube": rules.dead_cube},
        "met": None if request.met is None else request.met.name,
        "bot": spec(request.bot),
        "evaluator": None if request.evaluator is request.bot else spec(request.evaluator),
        "dice": None if request.dice is None else str(request.dice),
        "play": None if request.play is None else str(request.play),
        "plays": (request.plays if request.candidates is None else [str(m) for m in request.candidates]),
        "prune_se": request.prune_se, "cube": request.cube, "cubeful": request.cubeful, "seed": request.seed,
        "truncate": request.truncate, "truncate_ply": request.truncate_ply, "late_ply": request.late_ply,
        "late_after": request.late_after, "exact_bearoff": request.exact_bearoff,
        "variance_reduction": request.variance_reduction, "luck": request.luck,
    }


def write_saved(path: str | os.PathLike[str], request: RolloutRequest, trials: np.ndarray, strata: int) -> None:
    """Save a rollout's arguments and its trials' numbers (``(lines, n, 6)``) to ``path``.

    :raises InvalidRolloutError: a bot that cannot be saved (see :func:`request_options`).
    :raises OutputFileError: the file cannot be written.
    """
    meta = {"format": FORMAT, **request_options(request), "strata": strata, "trials": int(trials.shape[1])}
    text = json.dumps(meta)
    data = np.ascontiguousarray(trials, dtype=np.float64)
    with output_file(path, "the rollout save file", binary=True) as f:
        np.savez(f, trials=data, request=np.array(text), checksum=np.array(checksum(text, data)))


def checksum(request: str, trials: np.ndarray) -> str:
    """The SHA-256 (hex) of a save's request text and its trials' numbers (float64, little-endian,
    with their shape): what a save file records and :func:`read_saved` checks.

    >>> checksum("{}", np.zeros((1, 2, 6)))[:12]
    'cc48a990f2a9'
    """
    digest = hashlib.sha256(request.encode("utf-8"))
    digest.update(repr(tuple(int(n) for n in trials.shape)).encode("ascii"))
    digest.update(np.ascontiguousarray(trials, dtype="<f8").tobytes())
    return digest.hexdigest()


def read_saved(path: str | os.PathLike[str]) -> tuple[dict[str, Any], np.ndarray, int]:
    """A save file's arguments (for :meth:`RolloutRequest.create`, less ``trials``), its
    trials' numbers and its strata.

    :raises InvalidRolloutError: a file that is missing or unreadable, not a save file of
        this format, or whose numbers do not fit its arguments.
    """
    raw = read_input_file(path, "the rollout save file", limit=MAX_SAVE_BYTES, error=InvalidRolloutError)
    where = repr(shortened(str(path)))
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            text = str(npz["request"][()])
            meta = json.loads(text)
            trials = np.array(npz["trials"], dtype=np.float64)
            recorded = str(npz["checksum"][()]) if "checksum" in npz.files else None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
        reason = ("its request is not JSON" if isinstance(exc, json.JSONDecodeError)
                  else "it lacks a save's arrays" if isinstance(exc, KeyError)
                  else "it is empty" if not raw else "it is not a NumPy archive")
        raise InvalidRolloutError(f"{where} is not a bgfast rollout save file ({reason})") from None
    if isinstance(meta, dict) and meta.get("format") == FORMAT and recorded != checksum(text, trials):
        raise InvalidRolloutError(f"{where} was changed or damaged after it was saved (its checksum does not match "
                                  "its arguments and trials): roll the position out again")
    if isinstance(meta, dict) and meta.get("format") == _UNCHECKED_FORMAT:
        meta["format"] = FORMAT
    if isinstance(meta, dict) and meta.get("format") == _MONEY_ONLY_FORMAT:
        if _match_length(str(meta.get("position"))):
            raise InvalidRolloutError(f"{where} was saved by an older bgfast whose match play rollouts played the "
                                      "cubeless game by money play: its trials cannot be continued; roll it out again")
        meta["format"] = FORMAT
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else None
        raise InvalidRolloutError(f"{where} is not a bgfast rollout save file of format {FORMAT!r} (got {got!r})")
    if trials.ndim != 3 or trials.shape[2] != 6 or trials.shape[1] < 1:
        raise InvalidRolloutError(f"{where} holds trials of shape {trials.shape}, not (lines, trials, 6)")
    strata = meta.pop("strata", None)
    count = meta.pop("trials", None)
    meta.pop("format")
    try:
        meta["rules"] = Rules(**meta["rules"])
        meta.setdefault("met", None)
        for key in ("truncate_ply", "late_ply", "late_after"):
            meta.setdefault(key, None)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidRolloutError(f"{where} has rules that do not read: {exc}") from None
    if strata not in (1, 36, 1296):
        raise InvalidRolloutError(f"{where} has strata {strata!r}, not 1, 36 or 1296")
    _check_trials(where, meta, trials, int(strata), count)
    return meta, trials, int(strata)


def _check_trials(where: str, meta: dict[str, Any], trials: np.ndarray, strata: int, count: object) -> None:
    """:raises InvalidRolloutError: trials' numbers that no rollout of ``meta`` gives: not
    finite, chances out of 0..1 without luck adjustment, or a number of trials that its
    strata do not allow or that is not the number recorded."""
    n = trials.shape[1]
    unplayed = np.zeros(trials.shape, dtype=bool)
    if meta.get("prune_se") is not None:   # a play dropped early: its trials from a block on are unplayed (NaN)
        rows = np.isnan(trials).all(axis=2)
        unplayed[np.flip(np.logical_and.accumulate(np.flip(rows, axis=1), axis=1), axis=1)] = True
    if not (np.isfinite(trials) | unplayed).all():
        line, trial, column = (int(i) for i in np.argwhere(~(np.isfinite(trials) | unplayed))[0])
        raise InvalidRolloutError(f"{where} holds a number that is not finite ({trials[line, trial, column]}, "
                                  f"trial {trial:,} of line {line}): it is damaged; roll the position out again")
    if meta.get("luck") is False:     # luck-adjusted chances may leave 0..1; plain ones may not
        columns = 6 if _match_length(str(meta.get("position"))) and meta.get("cubeful") else 5
        chances = trials[:, :, :columns]
        bad = np.argwhere(((chances < 0.0) | (chances > 1.0)) & ~unplayed[:, :, :columns])
        if len(bad):
            line, trial, column = (int(i) for i in bad[0])
            raise InvalidRolloutError(f"{where} holds a chance of {trials[line, trial, column]} (trial {trial:,} of "
                                      f"line {line}), outside 0 to 1: it is damaged; roll the position out again")
    if count is not None and count != n:
        raise InvalidRolloutError(f"{where} records {count!r} trials but holds {n:,}: it is damaged; roll the "
                                  "position out again")
    if strata == 1296 and n % 1296:
        raise InvalidRolloutError(f"{where} stratifies its first two rolls over 1,296 pairs but holds {n:,} trials, "
                                  "not a multiple of 1,296: it is damaged; roll the position out again")
    if strata == 36 and n < MIN_STRATIFIED_TRIALS:
        raise InvalidRolloutError(f"{where} stratifies its first roll but holds {n:,} trials, fewer than "
                                  f"{MIN_STRATIFIED_TRIALS}: it is damaged; roll the position out again")
    if strata == 1 and meta.get("variance_reduction", True) and n >= MIN_STRATIFIED_TRIALS:
        raise InvalidRolloutError(f"{where} samples its first rolls plainly but holds {n:,} trials, "
                                  f"{MIN_STRATIFIED_TRIALS} or more (which are stratified): it is damaged; roll "
                                  "the position out again")


def _match_length(text: str) -> int:
    """The match length of a saved ``PositionID:MatchID`` (0: money; a malformed one is
    refused later, when the request is checked)."""
    try:
        match = read_position(text).match
    except (BgfastError, ValueError):
        return 0
    return 0 if match is None else match.length


def save_rollout(path: str | os.PathLike[str], position: Any, **options: Any) -> RolloutResult:
    """:func:`~bgfast.rollout.rollout` of ``position`` with ``options``, saved to ``path`` to be
    continued by :func:`extend_rollout` (an interrupted rollout saves the trials it kept).

    :raises InvalidRolloutError: as :func:`~bgfast.rollout.rollout`; a bot that is not
        registered; a ``path`` that holds a save of another rollout, or more trials of this
        one (they would be lost: go on with :func:`extend_rollout`).
    :raises OutputFileError: the file cannot be written.
    """
    request = RolloutRequest.create(position, **options)
    _check_not_lost(path, request_options(request), request.trials)   # a bot that cannot be saved: refused here too
    return run_rollout(request, record=lambda data, strata: write_saved(path, request, data, strata))


def _check_not_lost(path: str | os.PathLike[str], options: dict[str, Any], trials: int) -> None:
    """Refuse to write over a save of another rollout, or of this one with more trials: their
    trials would be lost (a file that is not a readable save is written over, as any output).

    :raises InvalidRolloutError: naming the save and what to do.
    """
    if not os.path.isfile(path):
        return
    try:
        saved, data, _ = read_saved(path)
    except InvalidRolloutError:
        return
    where, held = repr(shortened(os.fspath(path))), data.shape[1]
    if isinstance(saved.get("rules"), Rules):          # read back as Rules, written as their fields
        saved = {**saved, "rules": dataclasses.asdict(saved["rules"])}
    if saved != options:
        changed = sorted(k for k in saved.keys() | options.keys() if saved.get(k) != options.get(k))
        raise InvalidRolloutError(f"{where} holds a saved rollout of {held:,} trials with other arguments "
                                  f"({', '.join(changed)}): writing there would lose it; name another file, or "
                                  "remove it first")
    if held > trials:
        raise InvalidRolloutError(f"{where} holds {held:,} trials of this rollout, more than {trials:,}: go on "
                                  "with it with extend_rollout (bgfast rollout --extend), or name another file")


def saved_trials(path: str | os.PathLike[str]) -> int:
    """The trials a save file holds (:func:`extend_rollout` to as many shows its result again).

    :raises InvalidRolloutError: as :func:`read_saved`.
    """
    return int(read_saved(path)[1].shape[1])


def extend_rollout(path: str | os.PathLike[str], trials: int, *, save: str | os.PathLike[str] | None = None,
                   workers: int = 1, target_se: float | None = None, progress: bool | None = False,
                   interruptible: bool = False, backend: str = "process",
                   scheduler: str | None = None) -> RolloutResult:
    """Continue the rollout saved in ``path`` to ``trials`` trials in all, on the same dice
    streams, and save it again (to ``save``, default ``path``): the result equals one
    rollout of ``trials`` trials with the saved arguments, bit for bit (on either
    ``backend``, as :func:`~bgfast.rollout.rollout`'s).  With ``target_se``,
    ``trials`` is the most: the trials stop at the first check point after the saved ones
    where the equity's standard error is at most it (see :func:`~bgfast.rollout.rollout`).
    ``trials`` equal to those saved plays none: the saved result, as it was.

    :raises InvalidRolloutError: a missing, unreadable or malformed save file, one that does
        not fit its arguments, ``trials`` fewer than saved, or of another stratification
        (see the module's docstring).
    :raises OutputFileError: the file cannot be written.
    """
    options, data, strata = read_saved(path)
    request = RolloutRequest.create(options.pop("position"), trials=trials, workers=workers, target_se=target_se,
                                    progress=progress, interruptible=interruptible, backend=backend,
                                    scheduler=scheduler, **options)
    target = path if save is None else save
    if save is not None and os.path.abspath(save) != os.path.abspath(path):
        _check_not_lost(save, request_options(request), trials)
    return run_rollout(request, previous=(data, strata),
                       record=lambda rows, s: write_saved(target, request, rows, s))
