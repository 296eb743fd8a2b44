"""Standings from a results file: each player's matches, points and Elo, each pairing's
figures from its dice pairs, the SPRT outcome, and their text and JSON forms
(``bgfast report`` and ``bgfast report --json``).

Standings are computed from SQL aggregates (sums grouped by seat pairing, and by kind of
unit), so a report on a million matches reads the file once and keeps a few numbers per
pairing in memory.
"""
from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bgfast.bots.cube_policy import DEFAULT_CUBE_POLICY
from bgfast.engines.counters import EngineCounters
from bgfast.terminal import display_width, pad
from bgfast.tournament.judged import JudgedFigures, judged_table
from bgfast.tournament.pairs import MIN_SAMPLES_FOR_ERROR, PairingStats, UnitGroup, pairing_stats, too_few_for_error
from bgfast.tournament.ratings import RATINGS, EloInterval, Ratings, fit_ratings
from bgfast.tournament.results import SeatTotals
from bgfast.tournament.sprt import Sprt, SprtVerdict, adjusted_verdict_of_chunks, verdict_of_chunks
from bgfast.tournament.stats import Stats, UnitSums, stratified_ratio_se
from bgfast.tournament.store import Store, open_results

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "PairingStanding",
    "PlayerStanding",
    "SprtOutcome",
    "Standings",
    "format_elo",
    "format_rate",
    "load_standings",
    "standings_from_store",
]


@dataclass(frozen=True)
class PlayerStanding:
    """One player's line: match stats over all its matches, and its fitted Elo."""

    name: str
    stats: Stats
    elo: float
    elo_ci95: tuple[float, float]
    """The 95% interval of :attr:`elo`; NaN bounds from too few units (see :attr:`units`)."""
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
    units: int = 0
    """The units its figures rest on: dice pairs (matches without paired dice) over all its
    pairings.  With fewer than :data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`, its
    :attr:`elo_ci95` and standard errors are NaN: too few for an error to rest on."""

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
    on: str = "raw"
    """What the test counted: ``"raw"`` (match wins) or ``"luck_adjusted"`` (the judge's
    luck-adjusted scores, ``[sprt] on``)."""

    @property
    def verdict(self) -> str:
        """The outcome in words: ``"H1 accepted (Elo >= 5)"``, ``"H0 accepted (Elo <= 0)"`` or ``"undecided"``."""
        return {"H1": f"H1 accepted (Elo >= {self.elo1:g})", "H0": f"H0 accepted (Elo <= {self.elo0:g})"}.get(
            self.status, "undecided")

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
    length: int | None = None
    """The match length (0 = money) these standings are of, or None: every match of the file."""
    by_length: tuple[Standings, ...] = ()
    """A file with matches of several lengths: each length's own standings (its matches
    alone, its own Elo fit; :attr:`length` set, no SPRT, engine or forfeit figures), shortest
    first, money games (0) first of all; empty for a file of one length, whose table is this one."""
    judged_players: Mapping[str, JudgedFigures] = dataclasses.field(default_factory=dict)
    """A judged run's figures (:mod:`~bgfast.tournament.judged`) by player name; empty when not
    judged, or in a table that pools several match lengths (each length's own has them)."""
    judged_pairings: Mapping[tuple[str, str], JudgedFigures] = dataclasses.field(default_factory=dict)
    """The same by pairing ``(a, b)``, a's view."""
    judged_matches: int = 0
    """The matches the judged figures cover: those of the judged runs (an unjudged run appended
    to the file, or one a judged run was appended to, adds matches that are not judged)."""
    judges: tuple[str, ...] = ()
    """The judge of each judged run, in words (``"neural ply=0 luck_filter=4"``), once each."""

    @property
    def paired(self) -> bool:
        """Every pairing's units are dice pairs (else some or all figures are the independent ones)."""
        return bool(self.pairings) and all(q.result is not None and q.result.paired for q in self.pairings)

    @property
    def too_few_samples(self) -> bool:
        """Some player or pairing has too few samples for its standard errors and intervals
        (:data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`): they are NaN, ``n/a`` in the text."""
        return any(too_few_for_error(p.units) or too_few_for_error(p.stats.matches) for p in self.players) or any(
            q.result is not None and (q.result.too_few_units or too_few_for_error(q.stats.matches))
            for q in self.pairings)

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
        A player or pairing with fewer units than
        :data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR` has null standard errors,
        interval and LOS, and a ``note`` that says why.

        A file with matches of several lengths adds ``"lengths"``: a list, shortest first
        (money, 0, first of all), of each length's own standings: ``length``,
        ``matches_played``, ``rating``, ``anchor`` (null when that player did not play the
        length), ``paired``, and ``players`` and ``pairings`` as above (without the engine
        counts, which are the file's).  The top-level tables then pool every length.

        Each player has what its outside engine did (zeros for bgfast's own bots):
        ``decisions``, ``decision_ms_mean`` and ``decision_ms_max`` (milliseconds a decision,
        round trip), ``restarts``, ``crashes``, ``timeouts``, ``illegal_answers``,
        ``forfeits``, and ``cube_by_policy`` (cube decisions bgfast's policy made because
        the engine answered ``unsupported``)."""
        out: dict[str, Any] = {"length": self.length} if self.length is not None else {
            "tournament": self.tournament, "matches_played": self.matches_played,
            "matches_scheduled": self.matches_scheduled, "running": self.running}
        if self.length is not None:
            out["matches_played"] = self.matches_played
        out.update({
            "rating": self.rating,
            "anchor": self.anchor,
            "paired": self.paired,
            "players": [
                {"name": p.name, "matches": p.stats.matches, "match_wins": p.stats.wins,
                 "ppg": round(p.stats.ppg, 4), "ppg_se": _json_number(p.ppg_se_independent, 4),
                 "ppg_se_paired": _json_number(p.ppg_se_paired, 4),
                 "elo": round(p.elo, 1), "elo_ci95": _json_interval(*p.elo_ci95),
                 **(p.engine.report() if self.length is None else {}), **_too_few_note(p.units, self.paired),
                 **(self.judged_players[p.name].to_json() if p.name in self.judged_players else {})}
                for p in self.players
            ],
            "pairings": [{**_pairing_json(q), **(self.judged_pairings[(q.a, q.b)].to_json()
                                                 if (q.a, q.b) in self.judged_pairings else {})}
                         for q in self.pairings],
        })
        if self.judged_players:
            out["judged_matches"] = self.judged_matches
            out["judges"] = list(self.judges)
        if self.by_length:
            out["lengths"] = [s.to_json() for s in self.by_length]
        if self.sprt is not None:
            out["sprt"] = {"status": self.sprt.status, "matches": self.sprt.matches,
                           "llr": _json_number(self.sprt.llr, 3), "elo0": self.sprt.elo0, "elo1": self.sprt.elo1,
                           "bounds": [_json_number(self.sprt.lower, 3), _json_number(self.sprt.upper, 3)],
                           "overshoot": _json_number(self.sprt.overshoot, 3), "on": self.sprt.on}
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
        lines.extend(self._table_lines())
        lines.extend(self._judged_lines())
        if self.by_length:
            lines.append(f"(the tables above pool the {len(self.by_length)} match lengths "
                         f"({', '.join(length_name(s.length or 0) for s in self.by_length)}): one rating over "
                         "this mix of lengths, each player's figures weighing the lengths as its matches do; "
                         "each length's own tables follow)")
        lines.extend(self._engine_lines())
        if self.sprt is not None:
            t = self.sprt
            verdict = t.verdict
            lines.append("")
            bounds = f" in [{t.lower:+.2f}, {t.upper:+.2f}]" if math.isfinite(t.lower) else ""
            over = f", overshoot {t.overshoot:.2f}" if t.status in ("H0", "H1") and math.isfinite(t.lower) else ""
            on = " on luck-adjusted scores" if t.on == "luck_adjusted" else ""
            lines.append(f"SPRT{on} [{t.elo0:g}, {t.elo1:g}]: {verdict} after {t.matches} matches, "
                         f"LLR {t.llr:+.2f}{bounds}{over}")
        for one in self.by_length:
            lines.append("")
            lines.append(one.text())
        return "\n".join(lines)

    def judged_text(self) -> str:
        """How many of the matches the judged figures cover, and by which judge."""
        judges = ", ".join(self.judges) or "the judge"
        return f"{self.judged_matches:,} of {self.matches_played:,} matches judged, by {judges}"

    def _judged_lines(self) -> list[str]:
        """The judged figures, a line a player and a pairing (none when not judged)."""
        if not self.judged_players:
            return []
        money = next(iter(self.judged_players.values())).money
        unit = "ppg" if money else "score"
        lines = ["", f"judged ({'points' if money else 'match winning chance'}; adjusted = result - own luck "
                 "+ opponent's luck; error rates in mEMG per decision):",
                 f"  {self.judged_text()}",
                 f"  {'player':<20} {unit + ' raw':>16} {unit + ' adjusted':>17} {'Elo adj':>8} "
                 f"{'checker':>8} {'cube':>8} {'luck/game':>9}"]

        def row(name: str, f: JudgedFigures) -> str:
            return (f"  {name:<20} {f.raw:+8.3f} ±{_se_text(f.raw_se):>6} {f.adjusted:+8.4f} ±{_se_text(f.adjusted_se, 4):>7} "
                    f"{format_elo(f.elo.elo):>8} {format_rate(f.checker_error_rate):>8} "
                    f"{format_rate(f.cube_error_rate):>8} {f.luck_per_game:+9.4f}")
        lines.extend(row(name, f) for name, f in self.judged_players.items())
        lines.extend(row(f"{a} - {b}", f) for (a, b), f in self.judged_pairings.items())
        lines.append("  (Elo adj: the Elo of the adjusted score 0.5 + ppg / 6, each row's edge on its opponents: "
                     "not centred as the Elo above, and on the points scale, not the match wins')" if money else
                     "  (Elo adj: the Elo of the adjusted match score, each row's edge on its opponents: not "
                     "centred as the Elo above; a pairing's compares with its Elo a-b)")
        return lines

    def _table_lines(self) -> list[str]:
        """The players' table, its notes, and the pairings' table with theirs."""
        lines = []
        width = max([len("player")] + [display_width(p.name) for p in self.players])
        se = "± pair" if self.paired else "± se"
        lines.append(f"{'player':<{width}}  {'matches':>8}  {'wins':>8}  {'win%':>6}  {'ppg':>7}  {se:>6}  "
                     f"{'Elo':>7}  {'95% CI':>17}")
        for p in self.players:
            s = p.stats
            error = p.ppg_se_paired if self.paired else p.ppg_se_independent
            lines.append(f"{pad(p.name, width)}  {s.matches:>8}  {s.wins:>8}  {100 * s.win_rate:>5.1f}%  "
                         f"{s.ppg:>+7.3f}  {_se_text(error)}  {p.elo:>+7.1f}  {_interval_text(*p.elo_ci95)}")
        rated = "points (money: net points clipped to [-3, 3], as a score)" if self.rating == "points" else "match wins"
        zero = f"{self.anchor} = 0" if self.anchor is not None else "mean 0"
        lines.append(f"(Elo: Bradley-Terry fit of {rated}, {zero}; 95% intervals from the "
                     + ("dice pairs)" if self.paired else "matches, taken as independent: dice not paired)"))
        if self.prior_draws:
            lines.append("(Elo: some players never won or never lost, so each pairing got "
                         f"{self.prior_draws:g} virtual draw to keep the ratings finite)")
        lines.append("")
        lines.extend(self._pairing_lines())
        if self.too_few_samples:
            unit = "dice pairs" if self.paired else "matches"
            lines.append(f"({NOT_AVAILABLE}: from fewer than {MIN_SAMPLES_FOR_ERROR} {unit}"
                         + (" (matches for ± ind)" if self.paired else "")
                         + ", too few for a standard error, an interval or a LOS to rest on)")
        return lines

    def _engine_lines(self) -> list[str]:
        """The outside engines' table (decisions, time, faults), the forfeited matches, and
        which engines had their cube decisions made by bgfast; nothing without outside players."""
        outside = [p for p in self.players if p.is_outside]
        if not outside or self.length is not None:  # the engines' figures are the file's, not a length's
            return []
        width = max([len("engine")] + [display_width(p.name) for p in outside])
        lines = ["", f"{'engine':<{width}}  {'decisions':>9}  {'ms mean':>8}  {'ms max':>8}  {'restarts':>8}  "
                 f"{'crashes':>7}  {'timeouts':>8}  {'illegal':>7}  {'forfeits':>8}"]
        for p in outside:
            e = p.engine
            lines.append(f"{pad(p.name, width)}  {e.decisions:>9}  {e.decision_ms_mean:>8.3f}  {e.decision_ms_max:>8.1f}  "
                         f"{e.restarts:>8}  {e.crashes:>7}  {e.timeouts:>8}  {e.illegal_answers:>7}  {e.forfeits:>8}")
        for p in outside:
            if p.engine.cube_by_policy:
                lines.append(f"({p.name} answered 'unsupported' to cube decisions: its {p.engine.cube_by_policy} "
                             f"cube decisions were made by bgfast's cube policy {DEFAULT_CUBE_POLICY!r})")
        if self.forfeits:
            shown = ", ".join(f"{idx} ({loser} forfeited to {winner})" for _, idx, loser, winner in self.forfeits[:10])
            more = f" and {len(self.forfeits) - 10} more" if len(self.forfeits) > 10 else ""
            lines.append(f"forfeited matches (index): {shown}{more}")
        return lines

    def _pairing_lines(self) -> list[str]:
        names = [f"{q.a} - {q.b}" for q in self.pairings]
        pw = max([len("pairing")] + [display_width(n) for n in names])
        lines = [f"{'pairing':<{pw}}  {'matches':>8}  {'a wins':>8}  {'b wins':>8}  {'a ppg':>7}  {'± pair':>6}  "
                 f"{'± ind':>6}  {'Elo a-b':>7}  {'95% CI':>17}  {'LOS':>6}"]
        for name, q in zip(names, self.pairings):
            r, e = q.result, q.elo
            paired_se = _se_text(r.ppg_se_paired) if r is not None and r.paired else f"{'-':>6}"
            independent_se = _se_text(r.ppg_se_independent if r is not None else q.stats.ppg_se)
            los = f"{NOT_AVAILABLE:>6}" if e is not None and math.isnan(e.los) else f"{100 * e.los:>5.1f}%" if e else ""
            elo = f"{format_elo(e.elo):>7}  {_interval_text(e.lo, e.hi)}  {los}" if e is not None else ""
            lines.append(f"{pad(name, pw)}  {q.stats.matches:>8}  {q.stats.wins:>8}  {q.stats.losses:>8}  "
                         f"{q.stats.ppg:>+7.3f}  {paired_se}  {independent_se}  {elo}".rstrip())
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
    runs = store.runs()
    _check_rating(rating, anchor, list(names.values()), runs)
    counters = store.engine_counters()
    plays = store.player_bots()
    table = _table(names, store.seat_totals(), store.unit_totals(), rating, anchor, counters, plays)
    by_length: tuple[Standings, ...] = ()
    if len(store.lengths()) > 1:  # each length's own table; one length's would repeat the pooled one
        by_length = tuple(
            _length_standings(length, _table(names, seats, units, rating, anchor, counters, plays, played_only=True),
                              rating, anchor)
            for length, (seats, units) in store.totals_by_length().items())
    players, pairings, prior_draws = table
    judged_rows = store.judged_matches()
    judged: tuple[dict[str, JudgedFigures], dict[tuple[str, str], JudgedFigures]] = ({}, {})
    judges = tuple(dict.fromkeys(_judge_words(tomllib.loads(run["spec"]).get("judge")) for run in runs
                                 if "judge" in tomllib.loads(run["spec"])))
    if len(judged_rows) and len(store.lengths()) == 1:
        judged = judged_table(judged_rows, names)
    elif len(judged_rows):
        by_length = tuple(_with_judged(one, *judged_table(judged_rows[judged_rows["length"] == one.length], names),
                                       int((judged_rows["length"] == one.length).sum()), judges)
                          for one in by_length)
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
                               math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha),
                               str(options.get("on", "raw")))
    return Standings(
        tournament=" + ".join(run["name"] for run in runs) if runs else store.path.stem,
        matches_played=sum(p.stats.matches for p in players) // 2,
        players=players, pairings=pairings, sprt=sprt, prior_draws=prior_draws,
        matches_scheduled=scheduled, running=store.writer_active(), rating=rating, anchor=anchor,
        forfeits=tuple(store.forfeits()), by_length=by_length, judged_players=judged[0], judged_pairings=judged[1],
        judged_matches=len(judged_rows) if judged[0] else 0, judges=judges if judged[0] else ())


def _judge_words(raw: object) -> str:
    """A run's ``[judge]`` table (its spec's TOML) in words, as :meth:`JudgeSpec.describe` puts it."""
    if not isinstance(raw, dict):
        return str(raw)
    return " ".join([str(raw.get("bot")), *(f"{k}={v}" for k, v in sorted(raw.items()) if k != "bot")])


_Table = tuple[tuple[PlayerStanding, ...], tuple[PairingStanding, ...], float]
"""A standings table: its players (best Elo first), its pairings and the Elo fit's virtual draws."""


def _length_standings(length: int, table: _Table, rating: str, anchor: str | None) -> Standings:
    """The standings of one match length's matches (no SPRT, engines or forfeits: those are the file's)."""
    players, pairings, prior_draws = table
    return Standings(tournament=length_name(length), matches_played=sum(p.stats.matches for p in players) // 2,
                     players=players, pairings=pairings, prior_draws=prior_draws, rating=rating,
                     anchor=anchor if any(p.name == anchor for p in players) else None, length=length)


def _with_judged(one: Standings, players: dict[str, JudgedFigures], pairings: dict[tuple[str, str], JudgedFigures],
                 matches: int, judges: tuple[str, ...]) -> Standings:
    return dataclasses.replace(one, judged_players=players, judged_pairings=pairings, judged_matches=matches,
                               judges=judges if players else ())


def length_name(length: int) -> str:
    """How the report names a match length: ``"money games"`` or ``"7-point matches"``.

    >>> length_name(0), length_name(1), length_name(7)
    ('money games', '1-point matches', '7-point matches')
    """
    return "money games" if length == 0 else f"{length}-point matches"


def _table(names: dict[int, str], seat_totals: list[SeatTotals], unit_totals: list[UnitGroup], rating: str,
           anchor: str | None, counters: dict[int, EngineCounters], plays: dict[int, str], *,
           played_only: bool = False) -> _Table:
    """The players and pairings of the matches these sums are of (players by id in ``names``;
    ``anchor`` rated 0 when it played them, else the players' mean is 0).  The Elo fit
    counts every player of ``names``, or (``played_only``) those who played these matches."""
    played = {pid for t in seat_totals for pid in (t.player0, t.player1)}
    ids = [pid for pid in names if pid in played or not played_only]
    pos = {pid: i for i, pid in enumerate(ids)}
    per_player = [Stats() for _ in ids]
    pairs: dict[tuple[int, int], Stats] = {}
    for totals in seat_totals:
        p0, p1 = pos[totals.player0], pos[totals.player1]
        s = _seat0_stats(totals)
        per_player[p0] += s
        per_player[p1] += ~s
        key, view = ((p0, p1), s) if p0 < p1 else ((p1, p0), ~s)
        pairs[key] = pairs.get(key, Stats()) + view
    table_names = [names[pid] for pid in ids]
    groups = [g._replace(player_a=pos[g.player_a], player_b=pos[g.player_b]) for g in unit_totals]
    results, ratings, paired_se = _unit_results(groups, pairs, rating,
                                                anchor if anchor in table_names else None, table_names)
    strata: list[list[UnitSums]] = [[] for _ in ids]  # each player's pairings, matches as the units
    for (a, b), q in pairs.items():
        for player, view in ((a, q), (b, ~q)):
            strata[player].append(UnitSums(view.matches, view.points, view.games, view.points_sq, view.games_sq,
                                           view.points_games))
    units = [0] * len(ids)  # each player's units (dice pairs, or matches) over its pairings
    for (a, b), r in results.items():
        units[a] += r.wins.units
        units[b] += r.wins.units
    nan = math.nan
    players = sorted(
        (PlayerStanding(names[pid], per_player[i], ratings.elo[i],
                        (nan, nan) if too_few_for_error(units[i]) else ratings.ci95[i],
                        nan if too_few_for_error(units[i]) else paired_se[i],
                        nan if too_few_for_error(per_player[i].matches) else stratified_ratio_se(strata[i]),
                        counters.get(pid, EngineCounters()), plays.get(pid, ""), units[i])
         for i, pid in enumerate(ids) if per_player[i].matches),
        key=lambda p: (math.isnan(p.elo), 0.0 if math.isnan(p.elo) else -p.elo, p.name))  # NaN last, not anywhere
    pairings = tuple(PairingStanding(names[ids[a]], names[ids[b]], s, results[(a, b)], results[(a, b)].elo(rating))
                     for (a, b), s in sorted(pairs.items()))
    return tuple(players), pairings, ratings.prior_draws


def _sprt_so_far(store: Store, run: dict[str, Any], options: dict[str, Any], names: dict[int, str]) -> SprtVerdict:
    """The SPRT verdict of an undecided ``run``, pair by pair over its saved chunks."""
    raw = tomllib.loads(run["spec"])
    tested_name = raw.get("challenger") or raw["players"][0]["name"]
    tested = next(pid for pid, name in names.items() if name == tested_name)
    test = Sprt(float(options["elo0"]), float(options["elo1"]), float(options.get("alpha", 0.05)),
                float(options.get("beta", 0.05)))
    paired = raw.get("paired_dice", True)
    if options.get("on", "raw") == "luck_adjusted":
        return adjusted_verdict_of_chunks(test, store.judged_matches(run["run"]), tested, paired=paired)
    return verdict_of_chunks(test, store.iter_outcomes(run["run"]), tested, paired=paired)


def _check_rating(rating: str, anchor: str | None, names: list[str], runs: list[dict[str, Any]]) -> None:
    """Refuse an unknown rating kind, points ratings of match play, or an anchor no player is called."""
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


def _unit_results(groups: list[UnitGroup], pairs: dict[tuple[int, int], Stats], rating: str, anchor: str | None,
                  names: list[str]) -> tuple[dict[tuple[int, int], PairingStats], Ratings, list[float]]:
    """The pairings unit by unit, the ratings fitted with units as the samples, and each
    player's paired ppg standard error (players and pairings as indices in ``names``)."""
    results = pairing_stats(groups, pairs)
    units = {key: (r.points if rating == "points" else r.wins.sums()) for key, r in results.items()}
    ratings = fit_ratings(len(names), units, anchor=None if anchor is None else names.index(anchor))
    strata: list[list[UnitSums]] = [[] for _ in names]  # each player's pairings, from its side
    for (a, b), r in results.items():
        strata[a].append(r.net)
        strata[b].append((~r).net)
    return results, ratings, [stratified_ratio_se(h) if h else math.nan for h in strata]


def format_elo(x: float) -> str:
    """An Elo figure as the tables show it: signed, one decimal, ``+inf``/``-inf`` for an
    infinite one (a pairing one side never won), ``n/a`` for NaN (an interval from too few
    dice pairs, see :data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`).

    >>> format_elo(12.34), format_elo(float("-inf")), format_elo(float("nan"))
    ('+12.3', '-inf', 'n/a')
    """
    if math.isnan(x):
        return NOT_AVAILABLE
    return f"{x + 0.0:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")  # + 0.0: no "-0.0"


def format_rate(x: float) -> str:
    """An error rate as the tables show it: two decimals, or ``n/a`` for NaN (no decision
    counted, as gnubg prints it).

    >>> format_rate(12.345), format_rate(float("nan"))
    ('12.35', 'n/a')
    """
    return NOT_AVAILABLE if math.isnan(x) else f"{x:.2f}"


NOT_AVAILABLE = "n/a"
"""How the tables show a figure from too few samples (:data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR`)."""


def _se_text(x: float, digits: int = 3) -> str:
    """A standard error in its table column (6 wide): three decimals (``digits``), or ``n/a``."""
    return f"{NOT_AVAILABLE:>6}" if math.isnan(x) else f"{x:>6.{digits}f}"


def _interval_text(lo: float, hi: float) -> str:
    """A 95% interval in its table column: ``[  -12.3,   +45.6]``, each bound ``n/a`` when NaN."""
    return f"[{format_elo(lo):>7}, {format_elo(hi):>7}]"


def _too_few_note(samples: int, paired: bool) -> dict[str, str]:
    """The JSON ``note`` of a player or pairing whose errors are null for too few samples."""
    if not too_few_for_error(samples):
        return {}
    unit = "dice pairs" if paired else "matches"
    return {"note": f"{samples} {unit}: too few for a standard error, an interval or a LOS "
                    f"(at least {MIN_SAMPLES_FOR_ERROR} {unit}); they are null"}


def _json_number(x: float, digits: int) -> float | None:
    """``x`` rounded, or None (JSON null) when it is infinite or NaN."""
    return round(x, digits) + 0.0 if math.isfinite(x) else None  # + 0.0: no -0.0


def _json_interval(lo: float, hi: float) -> list[float | None] | None:
    """An interval as JSON: ``[low, high]`` (an infinite bound null), or null when it was not
    computed (NaN bounds: too few samples)."""
    if math.isnan(lo) and math.isnan(hi):
        return None
    return [_json_number(lo, 1), _json_number(hi, 1)]


def _pairing_json(q: PairingStanding) -> dict[str, Any]:
    out: dict[str, Any] = {"a": q.a, "b": q.b, "matches": q.stats.matches, "a_wins": q.stats.wins,
                           "b_wins": q.stats.losses, "a_ppg": round(q.stats.ppg, 4)}
    r, e = q.result, q.elo
    if r is not None and e is not None:
        out.update({
            "paired": r.paired, "units": r.wins.units, "pentanomial": list(r.wins.counts),
            "elo_diff": _json_number(e.elo, 1), "elo_diff_ci": _json_interval(e.lo, e.hi),
            "los": _json_number(e.los, 4),
            "ppg_se_paired": _json_number(r.ppg_se_paired, 4),
            "ppg_se_independent": _json_number(r.ppg_se_independent, 4),
            **_too_few_note(r.wins.units, r.paired),
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
