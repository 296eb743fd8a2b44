"""The HTML report of ``bgfast report DB --html FILE``: one self-contained page.

The page holds, in this order: the spec of each run in the file (name, seed, lengths,
rules, players), the standings (players, then pairings: ppg with its standard errors, Elo
with its interval and LOS), the Elo chart with the intervals and the pairwise matrix, the
running points per game of each pairing as its matches were played, the SPRT outcome and
the outside engines' figures when there are any, and, for a file with several match
lengths, each length's own tables and chart.  Everything is inline: CSS in a ``<style>``,
charts as SVG elements drawn by matplotlib (:mod:`~bgfast.tournament.plots`, the ``plot``
extra); no script, no external file, nothing fetched.  Every name and text from the file is
escaped (:func:`html.escape`).

**Judged figures.**  A judged run's (a ``[judge]`` table in the spec, measuring each
game's dice luck and each decision's error) figures are the section ``id="judged"``
(:func:`judged_section`), for each match length of the file: the table of each player's
and pairing's raw and luck-adjusted result, Elo from the adjusted results, error rates
and luck per game (error rates in mEMG; "n/a" for a rate with no decision, as gnubg prints
it, or of a file judged before errors were normalized); a chart a
pairing of its running raw and adjusted results, each in its narrowing 95% band
(:func:`running_judged`), where the adjusted one settles sooner; and a bar chart of each
player's error rates and luck.  Without a judge the section says that the matches were
not judged.

The heart is pure: :func:`running_ppg` (match rows in index order to each pairing's running
ppg), :func:`running_judged` (the same of the judged records, raw and adjusted) and
:func:`html_page` (standings, run specs and running ppg to the page's text);
:func:`write_html_report` reads the file and writes the page.
"""
from __future__ import annotations

import html
import math
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.tournament.judged import match_results
from bgfast.tournament.results import SavedMatch
from bgfast.tournament.standings import (NOT_AVAILABLE, PairingStanding, Standings, format_elo, format_rate,
                                         length_name)
from bgfast.tournament.store import open_results
from bgfast.validation import output_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["RUNNING_POINTS", "html_page", "judged_section", "running_judged", "running_ppg", "write_html_report"]

RUNNING_POINTS = 200
"""How many points (at most) each pairing's running-ppg line has, evenly spread over its matches."""

Series = dict[tuple[str, str], list[tuple[int, float]]]
"""Pairing ``(a, b)`` -> ``[(matches played, a's points per game so far), ...]``."""

JudgedSeries = dict[tuple[str, str], list[tuple[int, float, float]]]
"""Pairing ``(a, b)`` -> ``[(matches played, a's raw result so far, its luck-adjusted so far), ...]``."""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1150px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f3f3f3; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
p.note { color: #555; font-size: 0.85em; margin: 0.2em 0; }
.chart svg { max-width: 100%; height: auto; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.1em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
section#judged { background: #fafaf0; border: 1px dashed #bba; padding: 0.2em 1em; }
"""


def running_ppg(matches: Iterable[SavedMatch], pairings: Sequence[tuple[str, str]],
                totals: Mapping[tuple[str, str], int], points: int = RUNNING_POINTS) -> Series:
    """Each pairing's points per game as its matches were played, in the order given (the
    results file's: run by run, match index order).

    :param matches: the file's matches (:meth:`~bgfast.tournament.store.ResultsReader.iter_matches`).
    :param pairings: the pairings ``(a, b)`` to follow, each from ``a``'s side (a match of
        ``b`` in seat 0 counts from ``a``'s side too); other matches are skipped.
    :param totals: each pairing's number of matches, to spread the points over.
    :param points: at most this many points a pairing (its last match always one).
    :returns: pairing -> ``[(matches played, a's net points / games so far), ...]``.

    >>> from bgfast.game import MatchSummary
    >>> rows = [SavedMatch("r", i, "x" if i % 2 else "y", "y" if i % 2 else "x", 1, 0, i,
    ...                    MatchSummary(1, 0, 0, 1, 0, 0, 0, 0, 0, 50)) for i in range(4)]
    >>> running_ppg(rows, [("x", "y")], {("x", "y"): 4})
    {('x', 'y'): [(1, -1.0), (2, 0.0), (3, -0.3333333333333333), (4, 0.0)]}
    """
    out: Series = {pair: [] for pair in pairings}
    side: dict[tuple[str, str], tuple[tuple[str, str], int]] = {}
    for a, b in pairings:
        side[(a, b)], side[(b, a)] = ((a, b), 1), ((a, b), -1)
    step = {pair: max(1, totals.get(pair, 0) // max(1, points)) for pair in pairings}
    played = dict.fromkeys(pairings, 0)
    net = dict.fromkeys(pairings, 0)
    games = dict.fromkeys(pairings, 0)
    for match in matches:
        found = side.get((match.player0, match.player1))
        if found is None:
            continue
        pair, sign = found
        played[pair] += 1
        net[pair] += sign * (match.result.score0 - match.result.score1)
        games[pair] += match.result.games
        n = played[pair]
        if games[pair] and (n % step[pair] == 0 or n == totals.get(pair)):
            out[pair].append((n, net[pair] / games[pair]))
    for pair in pairings:  # a pairing whose total was not given, or grew meanwhile: its last point
        if games[pair] and (not out[pair] or out[pair][-1][0] != played[pair]):
            out[pair].append((played[pair], net[pair] / games[pair]))
    return out


def running_judged(rows: NDArray[np.void], names: Mapping[int, str], pairings: Sequence[tuple[str, str]],
                   points: int = RUNNING_POINTS) -> JudgedSeries:
    """Each judged pairing's mean raw and luck-adjusted result so far as its matches were
    played, in the results file's order (run by run, match index order), from the first
    player's side: money in points per game, match play in match score
    (:func:`~bgfast.tournament.judged.match_results`); its last point is the pairing's
    judged figures over all its matches.

    :param rows: judged match records of one match length (``Store.judged_matches``).
    :param names: player id -> name (``Store.player_names``).
    :param pairings: the pairings ``(a, b)`` to follow, by name; one without a match in
        ``rows`` gets no points.
    :param points: at most this many points a pairing (its last match always one).

    >>> from bgfast.tournament.judged import JUDGED_MATCH_DTYPE
    >>> rows = np.zeros(3, dtype=JUDGED_MATCH_DTYPE)
    >>> rows["player1"], rows["score0"], rows["luck0"] = 1, [1, 2, 0], [0.5, 1.0, 0.0]
    >>> rows["score1"] = [0, 0, 1]
    >>> running_judged(rows, {0: "x", 1: "y"}, [("x", "y")])
    {('x', 'y'): [(1, 1.0, 0.5), (2, 1.5, 0.75), (3, 0.6666666666666666, 0.16666666666666666)]}
    """
    ids = {name: i for i, name in names.items()}
    out: JudgedSeries = {}
    for a, b in pairings:
        out[(a, b)] = []
        if a not in ids or b not in ids:
            continue
        mine = ((rows["player0"] == ids[a]) & (rows["player1"] == ids[b])) | (
            (rows["player0"] == ids[b]) & (rows["player1"] == ids[a]))
        r = rows[mine]
        if not len(r):
            continue
        raw, adjusted = (np.cumsum(x) / np.arange(1, len(r) + 1) for x in match_results(r, ids[a]))
        step = max(1, len(r) // max(1, points))
        at = sorted(set(range(step, len(r) + 1, step)) | {len(r)})
        out[(a, b)] = [(n, float(raw[n - 1]), float(adjusted[n - 1])) for n in at]
    return out


def html_page(standings: Standings, specs: Sequence[str], running: Series, charts: Mapping[str, str],
              judged: Mapping[int | None, JudgedSeries] | None = None) -> str:
    """The report page's text (UTF-8 HTML5).

    :param standings: the file's standings (:func:`~bgfast.tournament.standings.load_standings`).
    :param specs: the TOML text of each run's spec, oldest first (the file's ``runs``).
    :param running: each pairing's running ppg (:func:`running_ppg`).
    :param charts: inline SVG elements by name: ``"ratings"`` (the Elo chart of the
        standings), ``"running"`` (the running ppg), ``"ratings <length>"`` (a length's Elo
        chart), and a judged table's charts (:func:`judged_section`); a missing one is left out.
    :param judged: each judged table's running raw and adjusted results, by its length
        (None: the file's one length; :func:`running_judged`).
    """
    e = html.escape
    title = f"{standings.tournament}: tournament report"
    body = [f"<h1>{e(title)}</h1>",
            f"<p>{standings.matches_played:,} matches, {len(standings.players)} players"
            + (f" (of {standings.matches_scheduled:,} scheduled)"
               if standings.matches_played < standings.matches_scheduled else "") + "</p>"]
    body.append("<h2>Spec</h2>")
    for text in specs:
        body.append(_spec_section(text))
    body.append("<h2>Standings</h2>")
    if standings.by_length:
        body.append(f"<p class=\"note\">These tables pool the {len(standings.by_length)} match lengths "
                    f"({e(', '.join(length_name(s.length or 0) for s in standings.by_length))}): one rating over "
                    "this mix; each length's own tables are further down.</p>")
    body.extend(_tables(standings))
    body.append("<h2>Elo with 95% intervals</h2>")
    body.append(_chart(charts, "ratings"))
    body.append("<h2>Points per game as the matches were played</h2>")
    body.append("<p class=\"note\">Each pairing's points per game so far, from the first player's side, after each "
                "of its matches in the results file's order (the band at the right end: the final 95% interval, "
                "± 1.96 standard errors).</p>")
    body.append(_chart(charts, "running"))
    if running:
        body.append("<table><tr><th>pairing</th><th>after matches</th><th>a ppg so far</th></tr>"
                    + "".join(_checkpoint_rows(pair, series) for pair, series in running.items()) + "</table>")
    body.append(judged_section(standings, charts, judged))
    if standings.sprt is not None:
        t = standings.sprt
        on = " on luck-adjusted scores" if t.on == "luck_adjusted" else ""
        body.append(f"<h2>SPRT</h2><p>SPRT{on} [{t.elo0:g}, {t.elo1:g}]: {e(t.verdict)} after {t.matches} matches, "
                    f"LLR {t.llr:+.2f}</p>")
    body.extend(_engine_section(standings))
    for one in standings.by_length:
        body.append(f"<h2 id=\"length-{one.length}\">{e(one.tournament)}</h2>")
        body.append(f"<p>{one.matches_played:,} matches, {len(one.players)} players</p>")
        body.extend(_tables(one))
        body.append(_chart(charts, f"ratings {one.length}"))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def judged_section(standings: Standings, charts: Mapping[str, str] | None = None,
                   running: Mapping[int | None, JudgedSeries] | None = None) -> str:
    """The judged figures, per player and per pairing: the raw and luck-adjusted results
    with their standard errors, Elo from the adjusted results, the checker and cube error
    rates (mEMG a decision, "n/a" without a decision or with an older file's errors) and the luck per game; each match
    length's own table for a file of several; a note when the matches were not judged
    (nothing made up).

    :param charts: inline SVG elements by name (:func:`judged_chart_name`): a table's
        running raw and adjusted results (``"judged running"``) and its players' error
        rates and luck (``"judged players"``); a missing one is left out.
    :param running: a table's running results by its length (None: the file's one
        length; :func:`running_judged`), for a few checkpoints as numbers.
    """
    e = html.escape
    charts = charts or {}
    tables = [s for s in (standings, *standings.by_length) if s.judged_players]
    if not tables:
        return ("<section id=\"judged\"><h2>Judged figures</h2><p>These matches were not judged: a judge "
                "(a bot that measures each roll's luck and each decision's error) is not part of this tournament, "
                "so there are no luck-adjusted points per game, error rates or luck per game to show.</p></section>")
    parts = ["<section id=\"judged\"><h2>Judged figures</h2><p>Adjusted = the result minus the player's luck "
             "plus its opponent's (gnubg's luck-adjusted result); money games in points per game, match play in "
             f"match score; error rates in mEMG per decision, as gnubg's and <code>bgfast analyse</code>'s "
             f"(thousandths of a point per unit of the cube; match play, of EMG); "
             f"{NOT_AVAILABLE}: no decision of that kind, or a file judged before errors were normalized.</p>"]
    for one in tables:
        if one.length is not None:
            parts.append(f"<h3>{e(length_name(one.length))}</h3>")
        parts.append(f"<p>{e(one.judged_text())}.</p>")
        parts.append("<table><tr><th>player or pairing</th><th>raw</th><th>adjusted</th><th>Elo (adjusted)</th>"
                     "<th>LOS</th><th>checker error rate</th><th>cube error rate</th><th>luck per game</th></tr>")
        rows = [*one.judged_players.items(), *((f"{a} vs {b}", f) for (a, b), f in one.judged_pairings.items())]
        for name, f in rows:
            los = NOT_AVAILABLE if math.isnan(f.elo.los) else f"{f.elo.los:.3f}"
            parts.append(f"<tr><td>{e(name)}</td>{_n(f'{f.raw:+.3f} ± {_se(f.raw_se)}')}"
                         f"{_n(f'{f.adjusted:+.4f} ± {_se(f.adjusted_se, 4)}')}{_n(format_elo(f.elo.elo))}"
                         f"{_n(los)}{_n(format_rate(f.checker_error_rate))}{_n(format_rate(f.cube_error_rate))}"
                         f"{_n(f'{f.luck_per_game:+.4f}')}</tr>")
        parts.append("</table>")
        unit = "points per game" if all(f.money for f in one.judged_players.values()) else "match score"
        parts.append(f"<p class=\"note\">Each pairing's {unit} so far, raw (grey) and luck-adjusted (orange), "
                     "from the first player's side, as its matches were played; each band is the 95% interval "
                     "after that many matches at the final spread (± 1.96 final standard errors × "
                     "√(final matches / matches so far)): the adjusted one is narrower, and its line settles "
                     "sooner.</p>")
        parts.append(_chart(charts, judged_chart_name("running", one.length)))
        series = (running or {}).get(one.length, {})
        if any(series.values()):
            parts.append("<table><tr><th>pairing</th><th>after matches</th><th>raw so far</th>"
                         "<th>adjusted so far</th></tr>"
                         + "".join(_checkpoint_rows(pair, points) for pair, points in series.items()) + "</table>")
        parts.append(_chart(charts, judged_chart_name("players", one.length)))
    parts.append("</section>")
    return "".join(parts)


def judged_chart_name(kind: str, length: int | None) -> str:
    """The name of a judged table's chart in :func:`html_page`'s ``charts``: ``kind``
    (``"running"`` or ``"players"``) of the table of ``length`` (None: the file's one length).

    >>> judged_chart_name("running", None), judged_chart_name("players", 7)
    ('judged running', 'judged players 7')
    """
    return f"judged {kind}" + ("" if length is None else f" {length}")


def _spec_section(text: str) -> str:
    """One run's spec: name, seed, format, lengths, matches, rules and players (from its TOML;
    its bots need not be installed)."""
    e = html.escape
    raw = tomllib.loads(text)
    lengths = raw["match_length"] if isinstance(raw["match_length"], list) else [raw["match_length"]]
    items = [("name", raw.get("name", "")), ("seed", raw.get("seed", "")),
             ("format", raw.get("format", "round-robin")),
             ("match lengths", ", ".join(length_name(n) for n in lengths)),
             ("matches per pairing", raw.get("matches_per_pairing", "")),
             ("paired dice", "yes" if raw.get("paired_dice", True) else "no")]
    if raw.get("challenger"):
        items.append(("challenger", raw["challenger"]))
    rules = raw.get("rules", {})
    if rules:
        items.append(("rules", ", ".join(f"{k} = {_toml_value(v)}" for k, v in rules.items())))
    if raw.get("sprt"):
        items.append(("sprt", ", ".join(f"{k} = {_toml_value(v)}" for k, v in raw["sprt"].items())))
    out = [f"<h3>{e(str(raw.get('name', '')))}</h3><dl>"
           + "".join(f"<dt>{e(k)}</dt><dd>{e(str(v))}</dd>" for k, v in items) + "</dl>"]
    out.append("<table><tr><th>player</th><th>plays</th><th>settings</th></tr>")
    for player in raw.get("players", []):
        plays = next((f"{key} {_toml_value(player[key])}" for key in ("bot", "engine", "command") if key in player), "")
        settings = ", ".join(f"{k} = {_toml_value(v)}" for k, v in player.items()
                             if k not in ("name", "bot", "engine", "command"))
        out.append(f"<tr><td>{e(str(player.get('name', '')))}</td><td>{e(plays)}</td><td>{e(settings)}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _toml_value(value: Any) -> str:
    """A spec value as TOML writes it (strings quoted, tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)


def _tables(standings: Standings) -> list[str]:
    """The players' and the pairings' tables of ``standings`` with their notes, as the text report has them."""
    e = html.escape
    se_name = "± pair" if standings.paired else "± se"
    rows = ["<table><tr><th>player</th><th>plays</th><th>matches</th><th>wins</th><th>win%</th><th>ppg</th>"
            f"<th>{e(se_name)}</th><th>Elo</th><th>95% CI</th></tr>"]
    for p in standings.players:
        s = p.stats
        error = p.ppg_se_paired if standings.paired else p.ppg_se_independent
        rows.append(f"<tr><td>{e(p.name)}</td><td>{e(p.plays)}</td>{_n(str(s.matches))}{_n(str(s.wins))}"
                    f"{_n(f'{100 * s.win_rate:.1f}%')}{_n(f'{s.ppg:+.3f}')}{_n(_se(error))}"
                    f"{_n(f'{p.elo:+.1f}')}{_n(_interval(*p.elo_ci95))}</tr>")
    rows.append("</table>")
    rated = ("points (money: net points clipped to [-3, 3], as a score)" if standings.rating == "points"
             else "match wins")
    zero = f"{standings.anchor} = 0" if standings.anchor is not None else "mean 0"
    rows.append(f"<p class=\"note\">Elo: Bradley-Terry fit of {e(rated)}, {e(zero)}; 95% intervals from the "
                + ("dice pairs" if standings.paired else "matches, taken as independent: dice not paired")
                + (f"; {standings.prior_draws:g} virtual draw a pairing keeps the ratings finite"
                   if standings.prior_draws else "") + ".</p>")
    rows.append("<table><tr><th>pairing</th><th>matches</th><th>a wins</th><th>b wins</th><th>a ppg</th>"
                "<th>± pair</th><th>± ind</th><th>Elo a-b</th><th>95% CI</th><th>LOS</th></tr>")
    rows.extend(_pairing_row(q) for q in standings.pairings)
    rows.append("</table>")
    rows.append("<p class=\"note\">± pair: dice pairs as the samples; ± ind: matches as independent samples; "
                f"{NOT_AVAILABLE}: too few samples for an error to rest on.</p>")
    return rows


def _pairing_row(q: PairingStanding) -> str:
    e = html.escape
    r, elo = q.result, q.elo
    paired = _se(r.ppg_se_paired) if r is not None and r.paired else "-"
    independent = _se(r.ppg_se_independent if r is not None else q.stats.ppg_se)
    cells = [_n(str(q.stats.matches)), _n(str(q.stats.wins)), _n(str(q.stats.losses)), _n(f"{q.stats.ppg:+.3f}"),
             _n(paired), _n(independent)]
    if elo is not None:
        los = NOT_AVAILABLE if math.isnan(elo.los) else f"{100 * elo.los:.1f}%"
        cells += [_n(format_elo(elo.elo)), _n(_interval(elo.lo, elo.hi)), _n(los)]
    else:
        cells += ["<td></td>"] * 3
    return f"<tr><td>{e(q.a)} - {e(q.b)}</td>{''.join(cells)}</tr>"


def _engine_section(standings: Standings) -> list[str]:
    """The outside engines' figures (decisions, time, faults) and the forfeits; nothing without outside players."""
    e = html.escape
    outside = [p for p in standings.players if p.is_outside]
    if not outside:
        return []
    rows = ["<h2>Outside engines</h2><table><tr><th>engine</th><th>decisions</th><th>ms mean</th><th>ms max</th>"
            "<th>restarts</th><th>crashes</th><th>timeouts</th><th>illegal</th><th>forfeits</th></tr>"]
    for p in outside:
        c = p.engine
        rows.append(f"<tr><td>{e(p.name)}</td>{_n(str(c.decisions))}{_n(f'{c.decision_ms_mean:.3f}')}"
                    f"{_n(f'{c.decision_ms_max:.1f}')}{_n(str(c.restarts))}{_n(str(c.crashes))}"
                    f"{_n(str(c.timeouts))}{_n(str(c.illegal_answers))}{_n(str(c.forfeits))}</tr>")
    rows.append("</table>")
    if standings.forfeits:
        shown = ", ".join(f"{idx} ({loser} vs {winner})" for _, idx, loser, winner in standings.forfeits[:10])
        rows.append(f"<p class=\"note\">forfeited matches (index): {e(shown)}"
                    + (f" and {len(standings.forfeits) - 10} more" if len(standings.forfeits) > 10 else "") + "</p>")
    return rows


def _checkpoint_rows(pair: tuple[str, str], series: Sequence[tuple[Any, ...]]) -> str:
    """A pairing's running figures (``(matches, figure, ...)`` points) at a few points (a
    tenth, a quarter, half, all of its matches)."""
    if not series:
        return ""
    total = series[-1][0]
    shown: list[tuple[Any, ...]] = []
    for share in (0.1, 0.25, 0.5, 1.0):
        point = next((s for s in series if s[0] >= share * total), series[-1])
        if point not in shown:
            shown.append(point)
    e = html.escape
    return "".join(f"<tr><td>{e(pair[0])} - {e(pair[1])}</td>{_n(str(n))}"
                   + "".join(_n(f"{x:+.3f}") for x in figures) + "</tr>" for n, *figures in shown)


def _chart(charts: Mapping[str, str], name: str) -> str:
    svg = charts.get(name)
    return f"<div class=\"chart\">{svg}</div>" if svg else ""


def _n(text: str) -> str:
    """A number's cell (right-aligned)."""
    return f"<td class=\"n\">{html.escape(text)}</td>"


def _se(x: float, digits: int = 3) -> str:
    return NOT_AVAILABLE if math.isnan(x) else f"{x:.{digits}f}"


def _interval(lo: float, hi: float) -> str:
    return f"[{format_elo(lo)}, {format_elo(hi)}]"


def write_html_report(db: str | Path, standings: Standings, out: str | Path) -> None:
    """Write the HTML report of the results file ``db`` (whose standings are ``standings``)
    to ``out``: reads its runs' specs and its match rows (once, streamed) for the running
    ppg, draws the charts (matplotlib), and writes the page atomically
    (:func:`bgfast.validation.output_file`).

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    :raises OutputFileError: ``out`` cannot be written (nothing is written then).
    """
    from bgfast.tournament.plots import (figure_svg, judged_players_figure, judged_running_figure, ratings_figure,
                                         require_plotting, running_ppg_figure)

    require_plotting("--html")
    pairs = [(q.a, q.b) for q in standings.pairings]
    judged_tables = [s for s in (standings, *standings.by_length) if s.judged_players]
    with open_results(db) as store:
        specs = [run["spec"] for run in store.runs()]
        running = running_ppg(store.iter_matches(), pairs, {(q.a, q.b): q.stats.matches for q in standings.pairings})
        judged: dict[int | None, JudgedSeries] = {}
        if judged_tables:
            rows, names = store.judged_matches(), store.player_names()
            for one in judged_tables:
                mine = rows if one.length is None else rows[rows["length"] == one.length]
                judged[one.length] = running_judged(mine, names, list(one.judged_pairings))
    final_se = {(q.a, q.b): (q.result.ppg_se_paired if q.result.paired else q.result.ppg_se_independent)
                if q.result is not None else q.stats.ppg_se for q in standings.pairings}
    charts: dict[str, str] = {}
    with warnings.catch_warnings():  # text stays text in the SVG: the browser's fonts draw what matplotlib's lack
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        if standings.players:
            charts["ratings"] = figure_svg(ratings_figure(standings))
            charts["running"] = figure_svg(running_ppg_figure(running, final_se))
        for one in standings.by_length:
            if one.players:
                charts[f"ratings {one.length}"] = figure_svg(ratings_figure(one))
        for one in judged_tables:
            money = all(f.money for f in one.judged_players.values())
            errors = {pair: (f.raw_se, f.adjusted_se) for pair, f in one.judged_pairings.items()}
            charts[judged_chart_name("running", one.length)] = figure_svg(
                judged_running_figure(judged[one.length], errors, money=money))
            charts[judged_chart_name("players", one.length)] = figure_svg(judged_players_figure(one.judged_players))
    page = html_page(standings, specs, running, charts, judged)
    with output_file(out, "the HTML report") as handle:
        handle.write(page)
