"""Standings from a results file, their text and JSON forms, the per-match CSV, the plot,
and the :class:`Reporter` interface through which a run shows its progress.

Standings are computed from SQL aggregates (sums grouped by seat pairing), so a
report on a million matches reads the file once and keeps a few numbers per
pairing in memory.
"""
from __future__ import annotations

import csv
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from bgfast.tournament.ratings import fit_elo
from bgfast.tournament.results import SavedMatch, SeatTotals
from bgfast.tournament.stats import Stats
from bgfast.tournament.store import Store, open_results

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "CSV_COLUMNS",
    "PairingStanding",
    "PlayerStanding",
    "ProgressReporter",
    "QuietReporter",
    "Reporter",
    "SprtOutcome",
    "Standings",
    "get_reporter",
    "load_standings",
    "plot_ratings",
    "write_matches_csv",
]

CSV_COLUMNS = ("index", "player_a", "player_b", "length", "seed", "score_a", "score_b", "winner", "games",
               "dice_index", "gammons_a", "gammons_b", "backgammons_a", "backgammons_b", "cube_actions",
               "plies", "run")
"""Columns of ``--matches``: player_a sat in seat 0; the dice were stream (seed, dice_index)."""


@dataclass(frozen=True)
class PlayerStanding:
    """One player's line: match stats over all its matches, and its fitted Elo."""

    name: str
    stats: Stats
    elo: float
    elo_ci95: tuple[float, float]


@dataclass(frozen=True)
class PairingStanding:
    """Two players' matches against each other, from ``a``'s view."""

    a: str
    b: str
    stats: Stats


@dataclass(frozen=True)
class SprtOutcome:
    """How an SPRT run ended (``status``: ``"H0"``, ``"H1"`` or ``"continue"`` while undecided)."""

    status: str
    matches: int
    llr: float
    elo0: float
    elo1: float


@dataclass(frozen=True)
class Standings:
    """A tournament's results: players (best Elo first), pairings, and the SPRT outcome if any."""

    tournament: str
    matches_played: int
    players: tuple[PlayerStanding, ...]
    pairings: tuple[PairingStanding, ...]
    sprt: SprtOutcome | None = None
    prior_draws: float = 0.0
    """Virtual draws per pairing the Elo fit needed (see :func:`~bgfast.tournament.ratings.fit_elo`)."""
    matches_scheduled: int = 0
    """Matches the file's spec(s) schedule (a run an SPRT decided counts the matches it played);
    more than :attr:`matches_played` when a run was interrupted or is still going."""
    running: bool = False
    """A ``bgfast tournament`` process held the file's writer lock when it was read."""

    @property
    def interrupted(self) -> bool:
        """True when the file holds fewer matches than its spec(s) schedule and no run
        is writing to it."""
        return self.matches_played < self.matches_scheduled and not self.running

    def to_json(self) -> dict[str, Any]:
        """The ``bgfast report --json`` object (an ``"sprt"`` key is added only for SPRT runs;
        ``matches_scheduled`` above ``matches_played`` means an interrupted run)."""
        out: dict[str, Any] = {
            "tournament": self.tournament,
            "matches_played": self.matches_played,
            "matches_scheduled": self.matches_scheduled,
            "running": self.running,
            "players": [
                {"name": p.name, "matches": p.stats.matches, "match_wins": p.stats.wins,
                 "ppg": round(p.stats.ppg, 4), "ppg_se": round(p.stats.ppg_se, 4),
                 "elo": round(p.elo, 1), "elo_ci95": [round(p.elo_ci95[0], 1), round(p.elo_ci95[1], 1)]}
                for p in self.players
            ],
            "pairings": [
                {"a": q.a, "b": q.b, "matches": q.stats.matches, "a_wins": q.stats.wins,
                 "b_wins": q.stats.losses, "a_ppg": round(q.stats.ppg, 4)}
                for q in self.pairings
            ],
        }
        if self.sprt is not None:
            out["sprt"] = {"status": self.sprt.status, "matches": self.sprt.matches,
                           "llr": round(self.sprt.llr, 3), "elo0": self.sprt.elo0, "elo1": self.sprt.elo1}
        return out

    def text(self) -> str:
        """The standings as a plain-text table."""
        lines = [f"{self.tournament}: {self.matches_played:,} matches, {len(self.players)} players"]
        if self.matches_played < self.matches_scheduled:
            lines.append(f"{self.tournament}: {self.matches_played:,} of {self.matches_scheduled:,} matches played "
                         + ("(a run is still writing to this file)" if self.running
                            else "(interrupted: re-run the same command to finish)"))
        width = max([len("player")] + [len(p.name) for p in self.players])
        lines.append(f"{'player':<{width}}  {'matches':>8}  {'wins':>8}  {'win%':>6}  {'ppg':>7}  {'± se':>6}  "
                     f"{'Elo':>7}  {'95% CI':>17}")
        for p in self.players:
            s = p.stats
            lines.append(f"{p.name:<{width}}  {s.matches:>8}  {s.wins:>8}  {100 * s.win_rate:>5.1f}%  "
                         f"{s.ppg:>+7.3f}  {s.ppg_se:>6.3f}  {p.elo:>+7.1f}  "
                         f"[{p.elo_ci95[0]:>+7.1f}, {p.elo_ci95[1]:>+7.1f}]")
        if self.prior_draws:
            lines.append("(Elo: some players never won or never lost, so each pairing got "
                         f"{self.prior_draws:g} virtual draw to keep the ratings finite)")
        lines.append("")
        names = [f"{q.a} - {q.b}" for q in self.pairings]
        pw = max([len("pairing")] + [len(n) for n in names])
        lines.append(f"{'pairing':<{pw}}  {'matches':>8}  {'a wins':>8}  {'b wins':>8}  {'a ppg':>7}")
        for name, q in zip(names, self.pairings):
            lines.append(f"{name:<{pw}}  {q.stats.matches:>8}  {q.stats.wins:>8}  {q.stats.losses:>8}  "
                         f"{q.stats.ppg:>+7.3f}")
        if self.sprt is not None:
            t = self.sprt
            verdict = {"H1": f"H1 accepted (Elo >= {t.elo1:g})", "H0": f"H0 accepted (Elo <= {t.elo0:g})"}.get(
                t.status, "undecided")
            lines.append("")
            lines.append(f"SPRT [{t.elo0:g}, {t.elo1:g}]: {verdict} after {t.matches} matches, LLR {t.llr:+.2f}")
        return "\n".join(lines)


def _seat0_stats(t: SeatTotals) -> Stats:
    """Seat 0's stats over the matches of one seating."""
    return Stats(matches=t.matches, wins=t.wins0, games=t.games, points=t.net, points_sq=t.net_sq,
                 games_sq=t.games_sq, points_games=t.net_games, gammons=t.gammons0, gammons_lost=t.gammons1,
                 backgammons=t.backgammons0, backgammons_lost=t.backgammons1, doubles=t.doubles)


def standings_from_store(store: Store) -> Standings:
    """Standings from an open results file (see :func:`load_standings`)."""
    names = store.player_names()
    ids = list(names)
    pos = {pid: i for i, pid in enumerate(ids)}
    per_player = [Stats() for _ in ids]
    pairs: dict[tuple[int, int], Stats] = {}
    wins = [[0] * len(ids) for _ in ids]
    for totals in store.seat_totals():
        p0, p1 = pos[totals.player0], pos[totals.player1]
        s = _seat0_stats(totals)
        per_player[p0] += s
        per_player[p1] += ~s
        wins[p0][p1] += s.wins
        wins[p1][p0] += s.losses
        key, view = ((p0, p1), s) if p0 < p1 else ((p1, p0), ~s)
        pairs[key] = pairs.get(key, Stats()) + view
    ratings = fit_elo(wins)
    players = sorted(
        (PlayerStanding(names[pid], per_player[i], ratings.elo[i], ratings.ci95[i])
         for i, pid in enumerate(ids) if per_player[i].matches),
        key=lambda p: (-p.elo, p.name))
    pairings = tuple(PairingStanding(names[ids[a]], names[ids[b]], s) for (a, b), s in sorted(pairs.items()))
    runs = store.runs()
    sprt = None
    scheduled = 0
    for run in runs:
        decided = run["sprt_status"] in ("H0", "H1")  # an SPRT that decided has finished its run
        scheduled += run["matches_played"] if decided else run["total_matches"]
        options = tomllib.loads(run["spec"]).get("sprt")  # the raw table: bots need not be installed here
        if options:
            sprt = SprtOutcome(run["sprt_status"] or "continue", run["sprt_matches"] or run["matches_played"],
                               run["sprt_llr"] or 0.0, float(options["elo0"]), float(options["elo1"]))
    return Standings(
        tournament=runs[0]["name"] if runs else store.path.stem,
        matches_played=sum(s.matches for s in per_player) // 2,
        players=tuple(players), pairings=pairings, sprt=sprt, prior_draws=ratings.prior_draws,
        matches_scheduled=scheduled, running=store.writer_active())


def load_standings(path: str | Path) -> Standings:
    """Standings of every match in the results file ``path``.

    Elo is a maximum-likelihood Bradley-Terry fit over all matches, anchored so
    the players' mean is 0, with 95% intervals from the Fisher information
    (see :func:`~bgfast.tournament.ratings.fit_elo`).

    :raises InvalidSpecError: no such file, or not a bgfast results file.
    """
    with open_results(path) as store:
        return standings_from_store(store)


def write_matches_csv(path: str | Path, out: str | Path | IO[str]) -> int:
    """Write one CSV row per match of results file ``path`` (columns :data:`CSV_COLUMNS`)
    to ``out`` (a file name or an open text file, ``-`` for stdout); returns the number of rows.

    Rows stream from the file, so memory does not grow with the number of matches.

    :raises InvalidSpecError: no such file, or not a bgfast results file.
    """
    with open_results(path) as store:
        if isinstance(out, (str, Path)) and str(out) != "-":
            with open(out, "w", newline="", encoding="utf-8") as handle:
                return _write_csv(store.iter_matches(), handle)
        return _write_csv(store.iter_matches(), sys.stdout if isinstance(out, (str, Path)) else out)


def _write_csv(matches: Iterable[SavedMatch], handle: IO[str]) -> int:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for m in matches:
        r = m.result
        writer.writerow((m.idx, m.player0, m.player1, m.length, m.seed, r.score0, r.score1,
                         m.player0 if r.winner == 0 else m.player1, r.games, m.dice_index, r.gammons0,
                         r.gammons1, r.backgammons0, r.backgammons1, r.doubles, r.plies, m.run))
        n += 1
    return n


def plot_ratings(standings: Standings, out: str | Path) -> None:
    """Draw each player's Elo with its 95% interval to an image file (PNG, SVG, PDF...).

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from bgfast.errors import MissingExtraError

        raise MissingExtraError("--plot needs matplotlib: pip install 'bgfast[plot]'") from None
    players = list(reversed(standings.players))
    fig, ax = plt.subplots(figsize=(7.0, 1.2 + 0.45 * len(players)))
    try:
        y = range(len(players))
        elo = [p.elo for p in players]
        lo = [p.elo - p.elo_ci95[0] for p in players]
        hi = [p.elo_ci95[1] - p.elo for p in players]
        ax.errorbar(elo, list(y), xerr=[lo, hi], fmt="o", capsize=4)
        ax.set_yticks(list(y), [p.name for p in players])
        ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("Elo (mean 0), 95% interval")
        ax.set_title(f"{standings.tournament}: {standings.matches_played:,} matches")
        fig.tight_layout()
        fig.savefig(out, dpi=120)
    finally:
        plt.close(fig)


# ---------------------------------------------------------------- reporters


class Reporter(Protocol):
    """What a run tells as it goes; the runner itself never prints."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        """The run starts: ``total`` matches in the spec, ``done`` already in the file."""

    def on_chunk_end(self, matches: int, done: int) -> None:
        """A chunk of ``matches`` matches was saved; ``done`` are saved in all."""

    def on_finish(self, standings: Standings) -> None:
        """The run ended (finished, stopped by SPRT, or interrupted: ``standings`` is what is saved)."""


class QuietReporter:
    """Shows nothing."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        pass

    def on_chunk_end(self, matches: int, done: int) -> None:
        pass

    def on_finish(self, standings: Standings) -> None:
        pass


class ProgressReporter:
    """A tqdm progress bar on stderr: matches done, matches/s and ETA."""

    def __init__(self, file: IO[str] | None = None) -> None:
        self._file = file
        self._bar: Any = None

    def on_start(self, spec: Any, total: int, done: int) -> None:
        from tqdm import tqdm

        class _Bar(tqdm):  # type: ignore[misc]
            monitor_interval = 0  # no monitor thread: worker processes are forked after this

        self._bar = _Bar(total=total, initial=done, unit=" matches", unit_scale=total >= 100_000, smoothing=0.05,
                         desc=getattr(spec, "name", "tournament"), file=self._file or sys.stderr,
                         dynamic_ncols=True)

    def on_chunk_end(self, matches: int, done: int) -> None:
        if self._bar is not None:
            self._bar.update(matches)

    def on_finish(self, standings: Standings) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def get_reporter(name: str) -> Reporter:
    """A reporter by name: ``"progress"`` or ``"quiet"``.

    :raises ValueError: an unknown name.
    """
    reporters: dict[str, type[ProgressReporter | QuietReporter]] = {
        "progress": ProgressReporter, "quiet": QuietReporter}
    try:
        return reporters[name]()
    except KeyError:
        raise ValueError(f"unknown reporter {name!r}; choose from {', '.join(reporters)}") from None

