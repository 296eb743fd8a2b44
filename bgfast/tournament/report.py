"""Standings from a results file, their text and JSON forms, the per-match CSV, the plot,
and the :class:`Reporter` interface through which a run shows its progress.

Standings are computed from SQL aggregates (sums grouped by seat pairing), so a
report on a million matches reads the file once and keeps a few numbers per
pairing in memory.
"""
from __future__ import annotations

import csv
import dataclasses
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from bgfast.bots.cube_policy import DEFAULT_CUBE_POLICY
from bgfast.engines.counters import EngineCounters
from bgfast.tournament.pairs import PairingStats, pairing_stats
from bgfast.tournament.ratings import RATINGS, EloInterval, Ratings, fit_ratings
from bgfast.tournament.results import SavedMatch, SeatTotals
from bgfast.tournament.sprt import Sprt, SprtVerdict, verdict_of_chunks
from bgfast.tournament.stats import Stats, UnitSums, stratified_ratio_se
from bgfast.tournament.store import Store, open_results

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "CSV_COLUMNS",
    "PAIRING_CSV_COLUMNS",
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
    "require_plotting",
    "write_matches_csv",
    "write_pairings_csv",
]

CSV_COLUMNS = ("index", "player_a", "player_b", "length", "seed", "score_a", "score_b", "winner", "games",
               "dice_index", "gammons_a", "gammons_b", "backgammons_a", "backgammons_b", "cube_actions",
               "plies", "run", "opening", "forfeit")
"""Columns of ``--matches``: player_a sat in seat 0; the dice were stream (seed, dice_index);
``opening`` is the Position ID the match's first game started from, player_b on roll
(empty: the opening roll); ``forfeit`` names the player whose engine failed and forfeited
the match (its score is then the match length, no game of it was played out), else empty."""

PAIRING_CSV_COLUMNS = ("player_a", "player_b", "matches", "units", "paired", "a_wins", "b_wins", "a_ppg",
                       "ppg_se_paired", "ppg_se_independent", "elo_diff", "elo_diff_lo", "elo_diff_hi", "los",
                       "pairs_0", "pairs_1", "pairs_2")
"""Columns of ``--pairings``: one row per pairing from player_a's side; the Elo difference is
player_a's minus player_b's (match wins, or points with ``rating = "points"``); ``units`` are
dice pairs when ``paired``, else matches; ``pairs_k``: dice pairs in which player_a won k matches."""


@dataclass(frozen=True)
class PlayerStanding:
    """One player's line: match stats over all its matches, and its fitted Elo."""

    name: str
    stats: Stats
    elo: float
    elo_ci95: tuple[float, float]
    ppg_se_paired: float = math.nan
    """The standard error of ``stats.ppg`` with units (dice pairs) as the samples, each
    pairing a stratum (:func:`~bgfast.tournament.stats.stratified_ratio_se`)."""
    ppg_se_independent: float = math.nan
    """The standard error of ``stats.ppg`` with matches as the samples, each pairing a
    stratum (the spread between opponents is not noise when each pairing plays a fixed
    number of matches)."""
    engine: EngineCounters = dataclasses.field(default_factory=EngineCounters)
    """What the player's outside engine did (all zero for a bot that plays in bgfast)."""
    plays: str = ""
    """What plays for the player: a bot's name, ``engine NAME`` or ``command ...``."""

    @property
    def is_outside(self) -> bool:
        """True for an outside engine (a UBGI command or an engine bgfast drives by name)."""
        return self.plays.startswith(("engine ", "command "))


@dataclass(frozen=True)
class PairingStanding:
    """Two players' matches against each other, from ``a``'s view."""

    a: str
    b: str
    stats: Stats
    result: PairingStats | None = None
    """The same matches unit by unit (dice pairs, or matches when the dice are not paired)."""
    elo: EloInterval | None = None
    """a's Elo advantage over b from the units, with its 95% interval and LOS (the standings' rating kind)."""


@dataclass(frozen=True)
class SprtOutcome:
    """How an SPRT run ended (``status``: ``"H0"``, ``"H1"`` or ``"continue"`` while undecided)."""

    status: str
    matches: int
    llr: float
    elo0: float
    elo1: float
    lower: float = math.nan
    """The LLR bound at or below which H0 is accepted; :ivar upper: the bound for H1."""
    upper: float = math.nan

    @property
    def overshoot(self) -> float:
        """How far the LLR went past the bound it crossed (0.0 while undecided)."""
        if self.status == "H1":
            return self.llr - self.upper
        if self.status == "H0":
            return self.lower - self.llr
        return 0.0


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
    rating: str = "wins"
    """What the Elo figures rate: ``"wins"`` (match wins) or ``"points"`` (money points, bgci's score)."""
    anchor: str | None = None
    """The player rated 0, or None: the players' mean is 0."""
    forfeits: tuple[tuple[str, int, str, str], ...] = ()
    """Forfeited matches: (run, match index, the player who forfeited, the opponent)."""

    @property
    def paired(self) -> bool:
        """Every pairing's units are dice pairs (else some or all figures are the independent ones)."""
        return bool(self.pairings) and all(q.result is not None and q.result.paired for q in self.pairings)

    @property
    def interrupted(self) -> bool:
        """True when the file holds fewer matches than its spec(s) schedule and no run
        is writing to it."""
        return self.matches_played < self.matches_scheduled and not self.running

    def to_json(self) -> dict[str, Any]:
        """The ``bgfast report --json`` object (an ``"sprt"`` key is added only for SPRT runs;
        ``matches_scheduled`` above ``matches_played`` means an interrupted run).

        Each pairing has ``elo_diff`` (a's Elo minus b's), ``elo_diff_ci`` ([low, high], 95%),
        ``los``, ``ppg_se_paired`` (dice pairs as the samples) and ``ppg_se_independent``
        (matches as the samples), ``units`` and ``pentanomial`` (units by a's score 0, 1/4,
        1/2, 3/4, 1 per match); an infinite Elo (a pairing one side never won) is null.

        Each player has what its outside engine did (zeros for bgfast's own bots):
        ``decisions``, ``decision_ms_mean`` and ``decision_ms_max`` (milliseconds a decision,
        round trip), ``restarts``, ``crashes``, ``timeouts``, ``illegal_answers``,
        ``forfeits``, and ``cube_by_policy`` (cube decisions bgfast's policy made because
        the engine answered ``unsupported``)."""
        out: dict[str, Any] = {
            "tournament": self.tournament,
            "matches_played": self.matches_played,
            "matches_scheduled": self.matches_scheduled,
            "running": self.running,
            "rating": self.rating,
            "anchor": self.anchor,
            "paired": self.paired,
            "players": [
                {"name": p.name, "matches": p.stats.matches, "match_wins": p.stats.wins,
                 "ppg": round(p.stats.ppg, 4), "ppg_se": _json_number(p.ppg_se_independent, 4),
                 "ppg_se_paired": _json_number(p.ppg_se_paired, 4),
                 "elo": round(p.elo, 1), "elo_ci95": [round(p.elo_ci95[0], 1), round(p.elo_ci95[1], 1)],
                 **p.engine.report()}
                for p in self.players
            ],
            "pairings": [_pairing_json(q) for q in self.pairings],
        }
        if self.sprt is not None:
            out["sprt"] = {"status": self.sprt.status, "matches": self.sprt.matches,
                           "llr": round(self.sprt.llr, 3), "elo0": self.sprt.elo0, "elo1": self.sprt.elo1,
                           "bounds": [_json_number(self.sprt.lower, 3), _json_number(self.sprt.upper, 3)],
                           "overshoot": _json_number(self.sprt.overshoot, 3)}
        return out

    def text(self) -> str:
        """The standings as a plain-text table (one line while no match has finished)."""
        if not self.matches_played:  # a run's first chunk is not saved yet: no table to show
            line = f"{self.tournament}: no match has finished yet"
            if self.matches_scheduled:
                line += (f": 0 of {self.matches_scheduled:,} matches played "
                         + ("(a run is still writing to this file)" if self.running
                            else "(interrupted: re-run the same command to finish)"))
            return line
        lines = [f"{self.tournament}: {self.matches_played:,} matches, {len(self.players)} players"]
        if self.matches_played < self.matches_scheduled:
            lines.append(f"{self.tournament}: {self.matches_played:,} of {self.matches_scheduled:,} matches played "
                         + ("(a run is still writing to this file)" if self.running
                            else "(interrupted: re-run the same command to finish)"))
        width = max([len("player")] + [len(p.name) for p in self.players])
        se = "± pair" if self.paired else "± se"
        lines.append(f"{'player':<{width}}  {'matches':>8}  {'wins':>8}  {'win%':>6}  {'ppg':>7}  {se:>6}  "
                     f"{'Elo':>7}  {'95% CI':>17}")
        for p in self.players:
            s = p.stats
            error = p.ppg_se_paired if self.paired else p.ppg_se_independent
            lines.append(f"{p.name:<{width}}  {s.matches:>8}  {s.wins:>8}  {100 * s.win_rate:>5.1f}%  "
                         f"{s.ppg:>+7.3f}  {error:>6.3f}  {p.elo:>+7.1f}  "
                         f"[{p.elo_ci95[0]:>+7.1f}, {p.elo_ci95[1]:>+7.1f}]")
        rated = "points (money: net points clipped to [-3, 3], as a score)" if self.rating == "points" else "match wins"
        zero = f"{self.anchor} = 0" if self.anchor is not None else "mean 0"
        lines.append(f"(Elo: Bradley-Terry fit of {rated}, {zero}; 95% intervals from the "
                     + ("dice pairs)" if self.paired else "matches, taken as independent: dice not paired)"))
        if self.prior_draws:
            lines.append("(Elo: some players never won or never lost, so each pairing got "
                         f"{self.prior_draws:g} virtual draw to keep the ratings finite)")
        lines.append("")
        lines.extend(self._pairing_lines())
        lines.extend(self._engine_lines())
        if self.sprt is not None:
            t = self.sprt
            verdict = {"H1": f"H1 accepted (Elo >= {t.elo1:g})", "H0": f"H0 accepted (Elo <= {t.elo0:g})"}.get(
                t.status, "undecided")
            lines.append("")
            bounds = f" in [{t.lower:+.2f}, {t.upper:+.2f}]" if math.isfinite(t.lower) else ""
            over = f", overshoot {t.overshoot:.2f}" if t.status in ("H0", "H1") and math.isfinite(t.lower) else ""
            lines.append(f"SPRT [{t.elo0:g}, {t.elo1:g}]: {verdict} after {t.matches} matches, "
                         f"LLR {t.llr:+.2f}{bounds}{over}")
        return "\n".join(lines)

    def _engine_lines(self) -> list[str]:
        """The outside engines' table (decisions, time, faults), the forfeited matches, and
        which engines had their cube decisions made by bgfast; nothing without outside players."""
        outside = [p for p in self.players if p.is_outside]
        if not outside:
            return []
        width = max([len("engine")] + [len(p.name) for p in outside])
        lines = ["", f"{'engine':<{width}}  {'decisions':>9}  {'ms mean':>8}  {'ms max':>8}  {'restarts':>8}  "
                 f"{'crashes':>7}  {'timeouts':>8}  {'illegal':>7}  {'forfeits':>8}"]
        for p in outside:
            e = p.engine
            lines.append(f"{p.name:<{width}}  {e.decisions:>9}  {e.decision_ms_mean:>8.3f}  {e.decision_ms_max:>8.1f}  "
                         f"{e.restarts:>8}  {e.crashes:>7}  {e.timeouts:>8}  {e.illegal_answers:>7}  {e.forfeits:>8}")
        for p in outside:
            if p.engine.cube_by_policy:
                lines.append(f"({p.name} answered 'unsupported' to cube decisions: its {p.engine.cube_by_policy} "
                             f"cube decisions were made by bgfast's cube policy {DEFAULT_CUBE_POLICY!r})")
        if self.forfeits:
            shown = ", ".join(f"{idx} ({loser} vs {winner})" for _, idx, loser, winner in self.forfeits[:10])
            more = f" and {len(self.forfeits) - 10} more" if len(self.forfeits) > 10 else ""
            lines.append(f"forfeited matches (index): {shown}{more}")
        return lines

    def _pairing_lines(self) -> list[str]:
        names = [f"{q.a} - {q.b}" for q in self.pairings]
        pw = max([len("pairing")] + [len(n) for n in names])
        lines = [f"{'pairing':<{pw}}  {'matches':>8}  {'a wins':>8}  {'b wins':>8}  {'a ppg':>7}  {'± pair':>6}  "
                 f"{'± ind':>6}  {'Elo a-b':>7}  {'95% CI':>17}  {'LOS':>6}"]
        for name, q in zip(names, self.pairings):
            r, e = q.result, q.elo
            paired_se = f"{r.ppg_se_paired:>6.3f}" if r is not None and r.paired else f"{'-':>6}"
            elo = (f"{_fmt_elo(e.elo):>7}  [{_fmt_elo(e.lo):>7}, {_fmt_elo(e.hi):>7}]  {100 * e.los:>5.1f}%"
                   if e is not None else "")
            lines.append(f"{name:<{pw}}  {q.stats.matches:>8}  {q.stats.wins:>8}  {q.stats.losses:>8}  "
                         f"{q.stats.ppg:>+7.3f}  {paired_se}  {q.stats.ppg_se:>6.3f}  {elo}".rstrip())
        results = [q.result for q in self.pairings if q.result is not None and q.result.paired]
        if results and self.paired:
            ratios = [r.se_ratio for r in results if math.isfinite(r.se_ratio)]
            if ratios:
                lo, hi = min(ratios), max(ratios)
                spread = f"{lo:.2f}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f} to {hi:.2f}"
                lines.append(f"(± pair: dice pairs as the samples, {spread} times the independent ± ind; "
                             "Elo a-b and LOS from the pairs, the pentanomial way)")
        elif self.pairings:
            lines.append("(dice not paired: every error treats matches as independent)")
        return lines


def _seat0_stats(t: SeatTotals) -> Stats:
    """Seat 0's stats over the matches of one seating."""
    return Stats(matches=t.matches, wins=t.wins0, games=t.games, points=t.net, points_sq=t.net_sq,
                 games_sq=t.games_sq, points_games=t.net_games, gammons=t.gammons0, gammons_lost=t.gammons1,
                 backgammons=t.backgammons0, backgammons_lost=t.backgammons1, doubles=t.doubles)


def standings_from_store(store: Store, *, rating: str = "wins", anchor: str | None = None) -> Standings:
    """Standings from an open results file (see :func:`load_standings`)."""
    names = store.player_names()
    ids = list(names)
    pos = {pid: i for i, pid in enumerate(ids)}
    per_player = [Stats() for _ in ids]
    pairs: dict[tuple[int, int], Stats] = {}
    for totals in store.seat_totals():
        p0, p1 = pos[totals.player0], pos[totals.player1]
        s = _seat0_stats(totals)
        per_player[p0] += s
        per_player[p1] += ~s
        key, view = ((p0, p1), s) if p0 < p1 else ((p1, p0), ~s)
        pairs[key] = pairs.get(key, Stats()) + view
    runs = store.runs()
    results, ratings, paired_se = _unit_results(store, pos, pairs, rating, anchor, [names[pid] for pid in ids], runs)
    counters = store.engine_counters()
    plays = store.player_bots()
    strata: list[list[UnitSums]] = [[] for _ in ids]  # each player's pairings, matches as the units
    for (a, b), q in pairs.items():
        for player, view in ((a, q), (b, ~q)):
            strata[player].append(UnitSums(view.matches, view.points, view.games, view.points_sq, view.games_sq,
                                           view.points_games))
    players = sorted(
        (PlayerStanding(names[pid], per_player[i], ratings.elo[i], ratings.ci95[i], paired_se[i],
                        stratified_ratio_se(strata[i]), counters.get(pid, EngineCounters()), plays.get(pid, ""))
         for i, pid in enumerate(ids) if per_player[i].matches),
        key=lambda p: (-p.elo, p.name))
    pairings = tuple(PairingStanding(names[ids[a]], names[ids[b]], s, results[(a, b)], results[(a, b)].elo(rating))
                     for (a, b), s in sorted(pairs.items()))
    sprt = None
    scheduled = 0
    for run in runs:
        decided = run["sprt_status"] in ("H0", "H1")  # an SPRT that decided has finished its run
        scheduled += run["matches_played"] if decided else run["total_matches"]
        options = tomllib.loads(run["spec"]).get("sprt")  # the raw table: bots need not be installed here
        if options:
            alpha, beta = float(options.get("alpha", 0.05)), float(options.get("beta", 0.05))
            status, matches, llr = run["sprt_status"], run["sprt_matches"], run["sprt_llr"]
            if not decided:  # the run stopped before it decided: its verdict so far, from its matches
                verdict = _sprt_so_far(store, run, options, names)
                status, matches, llr = verdict.status.value, verdict.matches, verdict.llr
            sprt = SprtOutcome(status or "continue", matches or run["matches_played"],
                               llr or 0.0, float(options["elo0"]), float(options["elo1"]),
                               math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))
    return Standings(
        tournament=" + ".join(run["name"] for run in runs) if runs else store.path.stem,
        matches_played=sum(s.matches for s in per_player) // 2,
        players=tuple(players), pairings=pairings, sprt=sprt, prior_draws=ratings.prior_draws,
        matches_scheduled=scheduled, running=store.writer_active(), rating=rating, anchor=anchor,
        forfeits=tuple(store.forfeits()))


def _sprt_so_far(store: Store, run: dict[str, Any], options: dict[str, Any], names: dict[int, str]) -> SprtVerdict:
    """The SPRT verdict of an undecided ``run``, pair by pair over its saved chunks."""
    raw = tomllib.loads(run["spec"])
    tested_name = raw.get("challenger") or raw["players"][0]["name"]
    tested = next(pid for pid, name in names.items() if name == tested_name)
    test = Sprt(float(options["elo0"]), float(options["elo1"]), float(options.get("alpha", 0.05)),
                float(options.get("beta", 0.05)))
    return verdict_of_chunks(test, store.iter_outcomes(run["run"]), tested, paired=raw.get("paired_dice", True))


def _unit_results(store: Store, pos: dict[int, int], pairs: dict[tuple[int, int], Stats], rating: str,
                  anchor: str | None, names: list[str],
                  runs: list[dict[str, Any]]) -> tuple[dict[tuple[int, int], PairingStats], Ratings, list[float]]:
    """The pairings unit by unit, the ratings fitted with units as the samples, and each
    player's paired ppg standard error (players and pairings as indices in ``names``)."""
    if rating not in RATINGS:
        raise ValueError(f"rating must be one of {', '.join(RATINGS)}, got {rating!r}")
    if rating == "points":
        lengths = set()
        for run in runs:
            raw = tomllib.loads(run["spec"])["match_length"]
            lengths.update(raw if isinstance(raw, list) else [raw])
        if lengths - {0}:
            raise ValueError("points ratings are for money games (match_length = 0); this file holds "
                             f"{', '.join(str(n) for n in sorted(lengths - {0}))}-point matches")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor: no player {anchor!r} in this file (players: {', '.join(names)})")
    groups = [g._replace(player_a=pos[g.player_a], player_b=pos[g.player_b]) for g in store.unit_totals()]
    results = pairing_stats(groups, pairs)
    units = {key: (r.points if rating == "points" else r.wins.sums()) for key, r in results.items()}
    ratings = fit_ratings(len(names), units, anchor=None if anchor is None else names.index(anchor))
    strata: list[list[UnitSums]] = [[] for _ in names]  # each player's pairings, from its side
    for (a, b), r in results.items():
        strata[a].append(r.net)
        strata[b].append((~r).net)
    return results, ratings, [stratified_ratio_se(h) if h else math.nan for h in strata]


def _fmt_elo(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _json_number(x: float, digits: int) -> float | None:
    """``x`` rounded, or None (JSON null) when it is infinite or NaN."""
    return round(x, digits) if math.isfinite(x) else None


def _pairing_json(q: PairingStanding) -> dict[str, Any]:
    out: dict[str, Any] = {"a": q.a, "b": q.b, "matches": q.stats.matches, "a_wins": q.stats.wins,
                           "b_wins": q.stats.losses, "a_ppg": round(q.stats.ppg, 4)}
    r, e = q.result, q.elo
    if r is not None and e is not None:
        out.update({
            "paired": r.paired, "units": r.wins.units, "pentanomial": list(r.wins.counts),
            "elo_diff": _json_number(e.elo, 1), "elo_diff_ci": [_json_number(e.lo, 1), _json_number(e.hi, 1)],
            "los": _json_number(e.los, 4),
            "ppg_se_paired": _json_number(r.ppg_se_paired, 4), "ppg_se_independent": round(r.ppg_se_independent, 4),
        })
    return out


def load_standings(path: str | Path, *, rating: str = "wins", anchor: str | None = None) -> Standings:
    """Standings of every match in the results file ``path``.

    Elo is a maximum-likelihood Bradley-Terry fit over all matches, anchored so the
    players' mean is 0 (or player ``anchor`` at 0), with 95% intervals from its
    cluster-robust covariance: dice pairs are the samples (see
    :func:`~bgfast.tournament.ratings.fit_ratings`).  Each pairing's Elo difference,
    interval and LOS come from its dice pairs, the pentanomial way
    (:class:`~bgfast.tournament.pairs.PairingStats`).  Without paired dice the samples
    are matches, and the figures are the independent ones.

    :param rating: ``"wins"`` rates match wins; ``"points"`` rates money games' points
        (bgci's score: net points clipped to [-3, 3], mapped to [0, 1]).
    :param anchor: the name of the player rated 0 (default: the mean is 0).
    :raises InvalidSpecError: no such file, or not a bgfast results file.
    :raises ValueError: an unknown ``rating`` or ``anchor``, or points ratings of match play.
    """
    with open_results(path) as store:
        return standings_from_store(store, rating=rating, anchor=anchor)


def write_pairings_csv(standings: Standings, out: str | Path | IO[str]) -> int:
    """Write one CSV row per pairing of ``standings`` (columns :data:`PAIRING_CSV_COLUMNS`) to
    ``out`` (a file name, ``-`` for stdout, or an open text file); returns the number of rows."""
    if isinstance(out, (str, Path)) and str(out) != "-":
        with open(out, "w", newline="", encoding="utf-8") as handle:
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
                         f"{r.ppg_se_paired:.6f}" if r else "", f"{q.stats.ppg_se:.6f}",
                         f"{e.elo:.2f}" if e else "", f"{e.lo:.2f}" if e else "", f"{e.hi:.2f}" if e else "",
                         f"{e.los:.6f}" if e else "", c[0], c[2], c[4]))
    return len(standings.pairings)


def write_matches_csv(path: str | Path, out: str | Path | IO[str]) -> int:
    """Write one CSV row per match of results file ``path`` (columns :data:`CSV_COLUMNS`)
    to ``out`` (a file name or an open text file, ``-`` for stdout); returns the number of rows.

    Rows stream from the file, so memory does not grow with the number of matches.

    :raises InvalidSpecError: no such file, or not a bgfast results file.
    """
    with open_results(path) as store:
        openings = _openings_by_run(store)
        forfeits = {(run, idx): loser for run, idx, loser, _winner in store.forfeits()}
        if isinstance(out, (str, Path)) and str(out) != "-":
            with open(out, "w", newline="", encoding="utf-8") as handle:
                return _write_csv(store.iter_matches(), handle, openings, forfeits)
        return _write_csv(store.iter_matches(), sys.stdout if isinstance(out, (str, Path)) else out, openings,
                          forfeits)


def _openings_by_run(store: Store) -> dict[str, Any]:
    """For each run with openings, its schedule (which tells a match's opening) and its
    Position IDs."""
    import tomllib

    from bgfast.tournament.schedule import scheduler
    from bgfast.tournament.spec import TournamentSpec

    out = {}
    for run in store.runs():
        raw = tomllib.loads(run["spec"])
        if raw.get("openings"):
            spec = TournamentSpec.from_dict(raw)
            out[run["name"]] = (scheduler(spec), spec.openings)
    return out


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
                         forfeits.get((m.run, m.idx), "")))
        n += 1
    return n


def require_plotting() -> Any:
    """matplotlib's ``pyplot`` (on the Agg backend, which draws to files), what
    :func:`plot_ratings` draws with; call it first to find a missing matplotlib before
    any other work.

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from bgfast.errors import MissingExtraError

        raise MissingExtraError("--plot needs matplotlib: pip install 'bgfast[plot]'") from None
    return plt


def plot_ratings(standings: Standings, out: str | Path) -> None:
    """Draw each player's Elo with its 95% interval, and beside it the pairwise matrix
    (row player's Elo advantage over the column player, from their dice pairs, with the
    95% interval), to an image file (PNG, SVG, PDF...).

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    plt = require_plotting()
    players = list(reversed(standings.players))
    n = len(players)
    fig, (ax, grid) = plt.subplots(1, 2, figsize=(6.0 + 1.1 * n, 1.8 + 0.9 * n),
                                   gridspec_kw={"width_ratios": [1.0, max(1.0, 0.35 * n)]})
    try:
        y = range(n)
        elo = [p.elo for p in players]
        lo = [p.elo - p.elo_ci95[0] for p in players]
        hi = [p.elo_ci95[1] - p.elo for p in players]
        ax.errorbar(elo, list(y), xerr=[lo, hi], fmt="o", capsize=4)
        ax.set_yticks(list(y), [p.name for p in players])
        ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        zero = f"{standings.anchor} = 0" if standings.anchor is not None else "mean 0"
        ax.set_xlabel(f"Elo ({zero}), 95% interval")
        ax.set_title(f"{standings.tournament}: {standings.matches_played:,} matches")
        _plot_matrix(grid, standings, [p.name for p in standings.players])
        fig.tight_layout()
        fig.savefig(out, dpi=120)
    finally:
        plt.close(fig)


def _plot_matrix(ax: Any, standings: Standings, names: list[str]) -> None:
    """The pairwise Elo matrix: cell (row, column) is row's advantage over column, with its interval."""
    import numpy as np

    n = len(names)
    index = {name: i for i, name in enumerate(names)}
    diff = np.full((n, n), np.nan)
    label = [["" for _ in names] for _ in names]
    for q in standings.pairings:
        if q.elo is None or q.a not in index or q.b not in index:
            continue
        i, j = index[q.a], index[q.b]
        e = q.elo
        for r, c, sign in ((i, j, 1.0), (j, i, -1.0)):
            lo, hi = (e.lo, e.hi) if sign > 0 else (-e.hi, -e.lo)
            diff[r, c] = sign * e.elo
            label[r][c] = f"{_fmt_elo(sign * e.elo)}\n[{_fmt_elo(lo)},\n{_fmt_elo(hi)}]"
    finite = diff[np.isfinite(diff)]
    scale = float(np.abs(finite).max()) if finite.size else 1.0
    shade = np.clip(np.nan_to_num(diff, nan=0.0, posinf=scale, neginf=-scale), -scale, scale)
    ax.imshow(shade, cmap="RdBu", vmin=-scale, vmax=scale)
    for r in range(n):
        for c in range(n):
            if label[r][c]:
                dark = abs(shade[r, c]) > 0.6 * scale
                ax.text(c, r, label[r][c], ha="center", va="center", fontsize=6.5,
                        color="white" if dark else "black")
    ax.set_xticks(range(n), names, rotation=30, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_title("Elo row - column, 95% interval" + (" (dice pairs)" if standings.paired else ""))


# ---------------------------------------------------------------- reporters


class Reporter(Protocol):
    """What a run tells as it goes; the runner itself never prints."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        """The run starts: ``total`` matches in the spec, ``done`` already in the file."""

    def on_chunk_end(self, matches: int, done: int) -> None:
        """A chunk of ``matches`` matches was saved; ``done`` are saved in all."""

    def on_status(self, text: str) -> None:
        """The run's standing after that chunk, one line: the LLR and its bounds in an SPRT
        run, else the leader and its margin (optional: the runner skips reporters without it)."""

    def on_finish(self, standings: Standings) -> None:
        """The run ended (finished, stopped by SPRT, or interrupted: ``standings`` is what is saved)."""


class QuietReporter:
    """Shows nothing."""

    def on_start(self, spec: Any, total: int, done: int) -> None:
        pass

    def on_chunk_end(self, matches: int, done: int) -> None:
        pass

    def on_status(self, text: str) -> None:
        pass

    def on_finish(self, standings: Standings) -> None:
        pass


class ProgressReporter:
    """A tqdm progress bar on stderr: matches done, matches/s, ETA, and the standing
    (the LLR and its bounds in an SPRT run, else the leader and its margin)."""

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

    def on_status(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

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

