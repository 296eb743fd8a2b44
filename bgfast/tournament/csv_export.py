"""The CSV files of ``bgfast report``: one row per match of a results file (``--matches``),
and one row per pairing of its standings (``--pairings``).
"""
from __future__ import annotations

import csv
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from bgfast.game import JUDGED_COLUMNS
from bgfast.tournament.results import SavedMatch
from bgfast.tournament.standings import Standings
from bgfast.tournament.store import Store, open_results
from bgfast.validation import output_file

__all__ = ["CSV_COLUMNS", "PAIRING_CSV_COLUMNS", "write_matches_csv", "write_pairings_csv"]

CSV_COLUMNS = ("index", "player_a", "player_b", "length", "seed", "score_a", "score_b", "winner", "games",
               "dice_index", "gammons_a", "gammons_b", "backgammons_a", "backgammons_b", "cube_actions",
               "plies", "run", "opening", "forfeit", "luck_a", "luck_b", "checker_error_a", "checker_error_b",
               "checker_decisions_a", "checker_decisions_b", "cube_error_a", "cube_error_b", "cube_decisions_a",
               "cube_decisions_b")
"""Columns of ``--matches``: player_a sat in seat 0; the dice were stream (seed, dice_index);
``opening`` is the Position ID the match's first game started from, player_b on roll
(empty: the opening roll); ``forfeit`` names the player whose engine failed and forfeited
the match (its score is then the match length, no game of it was played out), else empty.
The last ten are a judged run's (``[judge]``; empty in other runs), each seat's own view:
the summed luck of its rolls (money: points; match play: match winning chance), the summed
error of its unforced checker plays and of its close or actual cube decisions (normalized as
gnubg's: money, points per unit of the cube; match play, EMG; times 1000 over the decisions
they are ``bgfast report``'s error rates, ``bgfast analyse``'s mEMG; empty for the matches of
a file judged before errors were normalized) and their counts
(:data:`bgfast.game.JUDGED_COLUMNS`)."""

PAIRING_CSV_COLUMNS = ("player_a", "player_b", "matches", "units", "paired", "a_wins", "b_wins", "a_ppg",
                       "ppg_se_paired", "ppg_se_independent", "elo_diff", "elo_diff_lo", "elo_diff_hi", "los",
                       "pairs_0", "pairs_1", "pairs_2")
"""Columns of ``--pairings``: one row per pairing from player_a's side; the Elo difference is
player_a's minus player_b's (match wins, or points with ``rating = "points"``); ``units`` are
dice pairs when ``paired``, else matches; ``pairs_k``: dice pairs in which player_a won k matches.
The standard errors, the interval and ``los`` are empty from too few units
(:data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`)."""


def write_pairings_csv(standings: Standings, out: str | Path | IO[str]) -> int:
    """Write one CSV row per pairing of ``standings`` (columns :data:`PAIRING_CSV_COLUMNS`) to
    ``out`` (a file name, ``-`` for stdout, or an open text file); returns the number of rows.

    :raises OutputFileError: a file that cannot be written (written beside and renamed into
        place, :func:`bgfast.validation.output_file`: nothing is written then).
    """
    if isinstance(out, (str, Path)) and str(out) != "-":
        with output_file(out, "the pairings CSV") as handle:
            return _write_pairings(standings, handle)
    return _write_pairings(standings, sys.stdout if isinstance(out, (str, Path)) else out)


def _write_pairings(standings: Standings, handle: IO[str]) -> int:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(PAIRING_CSV_COLUMNS)
    for q in standings.pairings:
        r, e = q.result, q.elo
        c: tuple[object, ...] = r.wins.counts if r is not None and r.paired else ("",) * 5
        writer.writerow((q.a, q.b, q.stats.matches, r.wins.units if r else "", int(r.paired) if r else "",
                         q.stats.wins, q.stats.losses, f"{q.stats.ppg:.6f}",
                         _number(r.ppg_se_paired, 6) if r else "",
                         _number(r.ppg_se_independent if r else q.stats.ppg_se, 6),
                         _number(e.elo, 2) if e else "", _number(e.lo, 2) if e else "", _number(e.hi, 2) if e else "",
                         _number(e.los, 6) if e else "", c[0], c[2], c[4]))
    return len(standings.pairings)


def _number(x: float, digits: int) -> str:
    """A figure in a CSV cell: ``digits`` decimals (``inf``, ``-inf``), or empty when NaN
    (not computed: from too few dice pairs, :data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`)."""
    return "" if math.isnan(x) else f"{x + 0.0:.{digits}f}"


def write_matches_csv(path: str | Path, out: str | Path | IO[str]) -> int:
    """Write one CSV row per match of results file ``path`` (columns :data:`CSV_COLUMNS`)
    to ``out`` (a file name or an open text file, ``-`` for stdout); returns the number of rows.

    Rows stream from the file, so memory does not grow with the number of matches.

    :raises InvalidSpecError: no such file, or not a bgfast results file.
    :raises OutputFileError: a file that cannot be written (written beside and renamed into
        place, :func:`bgfast.validation.output_file`: nothing is written then).
    """
    with open_results(path) as store:
        openings = _openings_by_run(store)
        forfeits = {(run, idx): loser for run, idx, loser, _winner in store.forfeits()}
        if isinstance(out, (str, Path)) and str(out) != "-":
            with output_file(out, "the matches CSV") as handle:
                return _write_csv(store.iter_matches(), handle, openings, forfeits)
        return _write_csv(store.iter_matches(), sys.stdout if isinstance(out, (str, Path)) else out, openings,
                          forfeits)


def _openings_by_run(store: Store) -> dict[str, Any]:
    """For each run with openings, its schedule (which tells a match's opening) and its
    Position IDs."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    from bgfast.tournament.schedule import scheduler
    from bgfast.tournament.spec import TournamentSpec

    out = {}
    for run in store.runs():
        raw = tomllib.loads(run["spec"])
        if raw.get("openings"):
            spec = TournamentSpec.from_dict(raw)
            out[run["name"]] = (scheduler(spec), spec.openings)
    return out


def _judged_cells(figures: tuple[float | None, ...]) -> list[str | int]:
    """A judged match's figures as cells: counts whole, luck and errors to 6 decimals, an
    unknown error (None) empty."""
    return ["" if x is None else int(x) if "decisions" in name else _number(float(x), 6)
            for name, x in zip(JUDGED_COLUMNS, figures)]


def _write_csv(matches: Iterable[SavedMatch], handle: IO[str], openings: dict[str, Any],
               forfeits: dict[tuple[str, int], str]) -> int:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for m in matches:
        r = m.result
        found = openings.get(m.run)
        opening = found[1][found[0].opening(m.idx)] if found else ""
        writer.writerow((m.idx, m.player0, m.player1, m.length, m.seed, r.score0, r.score1,
                         m.player0 if r.winner == 0 else m.player1, r.games, m.dice_index, r.gammons0,
                         r.gammons1, r.backgammons0, r.backgammons1, r.doubles, r.plies, m.run, opening,
                         forfeits.get((m.run, m.idx), ""),
                         *(("",) * len(JUDGED_COLUMNS) if m.judged is None else _judged_cells(m.judged))))
        n += 1
    return n
