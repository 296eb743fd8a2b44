"""Tournament matches as Jellyfish ``.mat`` or SGF files: ``bgfast export``.

A results file keeps each match's numbers, not its moves; the moves are rebuilt:

* a match between bots that play in the compiled core is a pure function of the spec and
  the match's dice index, so it is played again (through
  :func:`bgfast.game.play_match_with_history`, which keeps every turn);
* a seat that a Python bot or an outside engine held has its decisions recorded in the
  file (:mod:`bgfast.engines.record`); a :class:`~bgfast.engines.record.ReplayBot` plays
  them back in that seat, with the same dice.

The rebuilt match is checked against the saved result (score, winner, games) and every
recorded decision must be used, so an export either is the match that was played or
raises.  A forfeit (it did not finish) is refused with one line, and so, as a ``.mat``
file, is a variant or a start from an opening position (the format has neither); SGF
(``format="sgf"``, :mod:`bgfast.formats.sgf`) holds both, with the run's rules.

>>> import os, tempfile
>>> from bgfast.tournament import TournamentSpec, run_tournament
>>> spec = TournamentSpec.from_dict({"name": "doc", "match_length": 3, "matches_per_pairing": 2,
...     "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
>>> folder = tempfile.mkdtemp()
>>> db = os.path.join(folder, "doc.sqlite")
>>> _ = run_tournament(spec, db, workers=1)
>>> export_match(db, 1, os.path.join(folder, "m1.mat"))
'doc'
>>> open(os.path.join(folder, "m1.mat")).readline()
' 3 point match\\n'
"""
from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bgfast.engines.record import RecordError, ReplayBot, plays_in_core
from bgfast.errors import BgfastError
from bgfast.formats.mat import write_mat
from bgfast.formats.sgf import write_sgf
from bgfast.game import MatchHistory, MatchPlayer, MatchRecord, MatchSummary, play_match_with_history
from bgfast.match import Rules
from bgfast.position import Position
from bgfast.terminal import progress_bar
from bgfast.validation import one_of, whole_number
from bgfast.tournament.results import SavedMatch
from bgfast.tournament.spec import PlayerSpec
from bgfast.tournament.store import Store, open_results

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["FORMATS", "ExportError", "ExportSummary", "export_all", "export_match", "match_history"]


class ExportError(BgfastError, ValueError):
    """A match that cannot be written (a forfeit; as a ``.mat`` file, a variant or an opening
    start; no record of a seat's decisions), or one that does not replay to its saved result."""


@dataclass(frozen=True)
class ExportSummary:
    """What :func:`export_all` did: the files written, and the forfeited matches it skipped
    (``(run, match index)``)."""

    written: tuple[Path, ...]
    forfeits: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class _Run:
    """What the export needs of a run's spec: read from the TOML the file keeps, without
    checking the players again (an outside engine need not be installed to export)."""

    name: str
    rules: Rules
    players: Mapping[str, Mapping[str, Any]]
    openings: bool
    raw: Mapping[str, Any]
    """The spec as the file keeps it (TOML parsed)."""


def _runs(store: Store, run: str | None) -> list[_Run]:
    saved = store.runs()
    if run is not None:
        saved = [r for r in saved if r["name"] == run]
        if not saved:
            names = ", ".join(r["name"] for r in store.runs()) or "none"
            raise ExportError(f"no run {run!r} in {str(store.path)!r} (runs: {names})")
    out = []
    for r in saved:
        raw = tomllib.loads(r["spec"])
        out.append(_Run(r["name"], Rules(**raw.get("rules", {})), {p["name"]: p for p in raw["players"]},
                        bool(raw.get("openings")), raw))
    return out


FORMATS = ("mat", "sgf")
"""The formats :func:`export_match` and :func:`export_all` write."""


def _check_format(run: _Run, fmt: str = "mat") -> None:
    if fmt == "sgf":
        return
    if run.rules.variant != "standard":
        raise ExportError(f"run {run.name!r} plays {run.rules.variant!r}: a .mat file holds standard backgammon "
                          "only (write SGF: --sgf)")
    if run.openings:
        raise ExportError(f"run {run.name!r} starts its games from opening positions: a .mat file starts from "
                          "the opening roll (write SGF: --sgf)")


def _opening(run: _Run, index: int) -> Position:
    """The position match ``index`` of ``run`` starts from (the run has openings)."""
    from bgfast.errors import InvalidSpecError
    from bgfast.tournament.schedule import scheduler
    from bgfast.tournament.spec import TournamentSpec

    try:
        spec = TournamentSpec.from_dict(run.raw)
    except InvalidSpecError as exc:
        raise ExportError(f"run {run.name!r}: its spec cannot be read again to find match {index}'s opening "
                          f"({exc})") from None
    opening = scheduler(spec).opening(index)
    return Position(spec.openings[opening or 0])


_NOT_RECORDED = ("not in the results file (its match_records row deleted, or a file written by an earlier "
                 "version?), so its match cannot be rebuilt")


def _seat_bot(run: _Run, player: str, record: bytes | None) -> object:
    if record is not None:
        return ReplayBot(record)
    table = run.players.get(player)
    if table is None or "bot" not in table:
        raise ExportError(f"player {player!r}'s decisions are {_NOT_RECORDED}")
    bot = PlayerSpec(player, table["bot"], table.get("cube"), dict(table.get("options", {}))).build()
    if not plays_in_core(bot):
        raise ExportError(f"player {player!r} ({table['bot']}) plays in Python and its decisions are "
                          f"{_NOT_RECORDED}")
    return bot


def _history(store: Store, run: _Run, match: SavedMatch) -> MatchHistory:
    decisions = store.match_decisions(run.name, match.idx)
    if decisions is not None and decisions.forfeit is not None:
        loser = (match.player0, match.player1)[decisions.forfeit]
        raise ExportError(f"match {match.idx} of run {run.name!r} was forfeited by {loser!r} (its engine failed "
                          "three times): it did not finish, so there is no match to write")
    records = (decisions.seat0, decisions.seat1) if decisions is not None else (None, None)
    seats = (match.player0, match.player1)
    bots = [_seat_bot(run, player, record) for player, record in zip(seats, records)]
    where = f"match {match.idx} of run {run.name!r} in {str(store.path)!r}"
    changed = "the file was changed by hand, or the bots have changed since the match was played"
    try:
        if run.openings:
            history = MatchPlayer(bots[0], bots[1], length=match.length, rules=run.rules).history_from(
                _opening(run, match.idx), seed=match.seed, index=match.dice_index)
        else:
            history = play_match_with_history(bots[0], bots[1], length=match.length, rules=run.rules,
                                              seed=match.seed, index=match.dice_index)
    except RecordError as exc:
        seat = next(i for i, bot in enumerate(bots) if isinstance(bot, ReplayBot) and bot.failed)
        raise ExportError(f"{where} does not replay: the recorded decisions of {seats[seat]!r} (seat {seat}, its row "
                          f"in the match_records table) do not fit the match: {exc}; {changed}") from None
    rebuilt = history.record
    saved = match.result
    replayed = replay_summary(rebuilt)
    if ((rebuilt.score, rebuilt.winner, len(rebuilt.games), replayed.plies)
            != ((saved.score0, saved.score1), saved.winner, saved.games, saved.plies)):
        differ = "; ".join(f"{name} saved {a}, replayed {b}"
                           for name, a, b in zip(MatchSummary._fields, saved, replayed) if a != b)
        raise ExportError(f"{where} does not replay to its saved result (its row in the matches table): {differ}; "
                          f"{changed}")
    for seat, bot in enumerate(bots):
        if isinstance(bot, ReplayBot) and not bot.exhausted():
            raise ExportError(f"{where} does not replay: {bot.used} of the {len(bot.decisions)} recorded decisions "
                              f"of {seats[seat]!r} (seat {seat}, its row in the match_records table) are used; "
                              f"{changed}")
    return history


def replay_summary(record: MatchRecord) -> MatchSummary:
    """The numbers a results file keeps of a match (:class:`~bgfast.game.MatchSummary`), from
    its record as a replay rebuilds it: what a saved row is compared with."""
    gammons, backgammons = record.gammons, record.backgammons
    return MatchSummary(record.score[0], record.score[1], record.winner, len(record.games), gammons[0], gammons[1],
                        backgammons[0], backgammons[1], record.cube_actions, sum(g.plies for g in record.games))


_MAX_INDEX = 2**63 - 1
"""The largest integer a SQLite column holds: no match has a larger index."""


def _find(store: Store, index: int, run: str | None, fmt: str = "mat") -> tuple[_Run, SavedMatch]:
    index = whole_number(index, "match index", low=0, error=ExportError)
    runs = _runs(store, run)
    if not runs:
        raise ExportError(f"{str(store.path)!r} holds no run")
    if len(runs) > 1:
        raise ExportError(f"{str(store.path)!r} holds several runs ({', '.join(r.name for r in runs)}): "
                          "name one with --run")
    found = next(store.iter_matches(runs[0].name, index), None) if index <= _MAX_INDEX else None
    if found is None:
        raise ExportError(f"run {runs[0].name!r} has no match {index} in {str(store.path)!r} "
                          "(the index is the one 'bgfast report --matches' prints)")
    _check_format(runs[0], fmt)
    return runs[0], found


def match_history(path: str | Path, index: int, *, run: str | None = None) -> tuple[MatchHistory, tuple[str, str]]:
    """Match ``index`` of a results file rebuilt turn by turn, and the names of its seats.

    :param run: the run (spec name) the match belongs to; needed when the file holds several.
    :raises ExportError: an ``index`` that is not a whole number of at least 0, no such run or
        match, several runs and no ``run``, a forfeit, a seat with no record, a replay that differs.
    :raises InvalidSpecError: no such file, or not a bgfast results file.
    """
    with open_results(path) as store:
        found_run, match = _find(store, index, run, "sgf")
        return _history(store, found_run, match), (match.player0, match.player1)


def _write(fmt: str, history: MatchHistory, out: str | Path | IO[str], run: _Run, players: tuple[str, str]) -> None:
    if fmt == "sgf":
        write_sgf(history, out, players=players, rules=run.rules)
    else:
        write_mat(history, out, players=players, rules=run.rules)


def export_match(path: str | Path, index: int, out: str | Path | IO[str], *, run: str | None = None,
                 format: str = "mat") -> str:
    """Write match ``index`` of the results file ``path`` to ``out`` (a file name or an open
    text file) as a ``.mat`` file, or as SGF with ``format="sgf"``; returns the run's name.

    :raises ExportError: as :func:`match_history`, and as a ``.mat`` file a variant or an
        opening start.
    :raises InvalidSpecError: no such file, or not a bgfast results file.
    :raises ValueError: a format other than ``"mat"`` and ``"sgf"``.
    """
    one_of(format, "format", FORMATS)
    with open_results(path) as store:
        found_run, match = _find(store, index, run, format)
        history = _history(store, found_run, match)
    _write(format, history, out, found_run, (match.player0, match.player1))
    return found_run.name


def export_all(path: str | Path, folder: str | Path, *, run: str | None = None, format: str = "mat",
               progress: bool = False) -> ExportSummary:
    """Write every finished match of the results file ``path`` (of the run ``run``; of every
    run without it) into ``folder`` as ``<run>-<index>.mat`` (``.sgf`` with ``format="sgf"``),
    skipping forfeits.

    :param progress: show a progress bar (matches done, matches/s, ETA) on stderr.
    :raises ExportError: as a ``.mat`` file, a run with a variant or an opening start (before
        any file is written); a seat with no record, a replay that differs.
    :raises InvalidSpecError: no such file, or not a bgfast results file.
    :raises OutputFileError: a file that cannot be written (it names the file; those
        written before it stay).
    :raises ValueError: a format other than ``"mat"`` and ``"sgf"``.
    """
    one_of(format, "format", FORMATS)
    folder = Path(folder)
    written: list[Path] = []
    skipped: list[tuple[str, int]] = []
    with open_results(path) as store:
        runs = _runs(store, run)
        for r in runs:
            _check_format(r, format)
        forfeited = {(name, idx) for name, idx, _loser, _winner in store.forfeits()}
        bar = None
        if progress:
            total = sum(r["matches_played"] for r in store.runs() if r["name"] in {x.name for x in runs})
            bar = progress_bar(total=total, unit=" matches", desc="export", smoothing=0.05)
        try:
            for r in runs:
                for match in store.iter_matches(r.name):
                    if bar is not None:
                        bar.update(1)
                    if (r.name, match.idx) in forfeited:
                        skipped.append((r.name, match.idx))
                        continue
                    target = folder / f"{r.name}-{match.idx}.{format}"
                    _write(format, _history(store, r, match), target, r, (match.player0, match.player1))
                    written.append(target)
        finally:
            if bar is not None:
                bar.close()
    return ExportSummary(tuple(written), tuple(skipped))
