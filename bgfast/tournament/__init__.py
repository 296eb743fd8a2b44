"""Tournaments: many bot-against-bot matches, in parallel, resumable, with ratings.

>>> from bgfast.tournament import TournamentSpec, run_tournament, load_standings
>>> spec = TournamentSpec.from_toml("tournaments/quick.toml")  # doctest: +SKIP
>>> standings = run_tournament(spec, workers=2)                # doctest: +SKIP
>>> print(standings.text())                                    # doctest: +SKIP

The modules: :mod:`~bgfast.tournament.spec` (the TOML spec),
:mod:`~bgfast.tournament.schedule` (who plays match ``i`` with which dice),
:mod:`~bgfast.tournament.openings` (positions games start from),
:mod:`~bgfast.tournament.worker` (playing chunks; process and Dask backends),
:mod:`~bgfast.tournament.results` (a played match's record, and a chunk's rows as named
columns), :mod:`~bgfast.tournament.totals` (a chunk's sums),
:mod:`~bgfast.tournament.store` (the SQLite results file: its schema, writer and reader),
:mod:`~bgfast.tournament.stats`, :mod:`~bgfast.tournament.pairs` (dice pairs as the unit),
:mod:`~bgfast.tournament.ratings` and :mod:`~bgfast.tournament.sprt` (pure statistics),
:mod:`~bgfast.tournament.standings` (standings, their text and JSON),
:mod:`~bgfast.tournament.csv_export` (the per-match and per-pairing CSV),
:mod:`~bgfast.tournament.plots` (the ratings plot),
:mod:`~bgfast.tournament.progress` (how a run shows its progress),
:mod:`~bgfast.tournament.runner` (the run loop) and :mod:`~bgfast.tournament.export`
(recorded matches as match files).
"""
from bgfast.tournament.csv_export import write_matches_csv, write_pairings_csv
from bgfast.tournament.pairs import PairingStats, Pentanomial
from bgfast.tournament.plots import plot_ratings
from bgfast.tournament.progress import ProgressReporter, QuietReporter, Reporter, get_reporter
from bgfast.tournament.runner import run_tournament
from bgfast.tournament.schedule import (
    Gauntlet,
    Pairing,
    RoundRobin,
    Scheduler,
    scheduler,
)
from bgfast.tournament.spec import PlayerSpec, SprtOptions, TournamentSpec
from bgfast.tournament.sprt import Sprt, SprtStatus, SprtVerdict
from bgfast.tournament.standings import Standings, load_standings
from bgfast.tournament.stats import Stats

__all__ = [
    "Gauntlet",
    "Pairing",
    "PairingStats",
    "Pentanomial",
    "PlayerSpec",
    "ProgressReporter",
    "QuietReporter",
    "Reporter",
    "RoundRobin",
    "Scheduler",
    "Sprt",
    "SprtOptions",
    "SprtStatus",
    "SprtVerdict",
    "Standings",
    "Stats",
    "TournamentSpec",
    "get_reporter",
    "load_standings",
    "plot_ratings",
    "run_tournament",
    "scheduler",
    "write_matches_csv",
    "write_pairings_csv",
]
