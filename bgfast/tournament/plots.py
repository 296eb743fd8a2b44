"""The ratings plot of ``bgfast report --plot``: each player's Elo with its interval, and the
pairwise matrix; and the running points per game of each pairing, which the HTML report
(:mod:`~bgfast.tournament.html_report`) draws beside it, with a judged run's running raw and
luck-adjusted results and its players' error rates and luck.  matplotlib is imported only here,
when a plot is drawn (``bgfast[plot]``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bgfast.tournament.judged import JudgedFigures
from bgfast.tournament.standings import Standings, format_elo, format_rate
from bgfast.validation import output_file

__all__ = ["figure_svg", "judged_players_figure", "judged_running_figure", "plot_ratings", "ratings_figure",
           "require_plotting", "running_ppg_figure"]


def require_plotting(option: str = "--plot") -> Any:
    """matplotlib's ``pyplot`` (on the Agg backend, which draws to files), what
    :func:`plot_ratings` draws with; call it first to find a missing matplotlib before
    any other work.

    :param option: the option that needs it, as the error names it.
    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from bgfast.errors import MissingExtraError

        raise MissingExtraError(f"{option} needs matplotlib: pip install 'bgfast[plot]'") from None
    return plt


def plot_ratings(standings: Standings, out: str | Path) -> None:
    """Draw :func:`ratings_figure` to an image file (PNG, SVG, PDF...: its suffix says which).

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    :raises OutputFileError: a file that cannot be written (written beside and renamed into
        place, :func:`bgfast.validation.output_file`: nothing is written then).
    """
    plt = require_plotting()
    fig = ratings_figure(standings)
    try:
        with output_file(out, "the ratings plot", binary=True) as handle:
            fig.savefig(handle, dpi=120, format=Path(out).suffix.lstrip(".").lower() or None)
    finally:
        plt.close(fig)


def ratings_figure(standings: Standings) -> Any:
    """A matplotlib figure of each player's Elo with its 95% interval, and beside it the
    pairwise matrix (row player's Elo advantage over the column player, from their dice
    pairs, with the 95% interval); close it with ``pyplot.close``.

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
        ax.set_yticks(list(y), [_label(p.name) for p in players])
        ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        zero = f"{standings.anchor} = 0" if standings.anchor is not None else "mean 0"
        ax.set_xlabel(_label(f"Elo ({zero}), 95% interval"))
        ax.set_title(_label(f"{standings.tournament}: {standings.matches_played:,} matches"))
        _plot_matrix(grid, standings, [p.name for p in standings.players])
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def running_ppg_figure(series: Mapping[tuple[str, str], Sequence[tuple[int, float]]],
                       final_se: Mapping[tuple[str, str], float]) -> Any:
    """A matplotlib figure of each pairing's running points per game (from the first
    player's side) against the matches it has played, one line a pairing, with the final
    figure's 95% band (± 1.96 ``final_se``, where finite) as a shaded strip at the right end.

    :param series: pairing ``(a, b)`` -> ``[(matches played, a's ppg so far), ...]``
        (:func:`~bgfast.tournament.html_report.running_ppg`).
    :param final_se: pairing -> the standard error of its final ppg (NaN: none).
    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    import math

    plt = require_plotting()
    fig, ax = plt.subplots(figsize=(9.0, 4.2))
    try:
        for (a, b), points in series.items():
            _running_line(ax, points, final_se.get((a, b), math.nan), f"{a} - {b}")
        ax.axhline(0.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("matches played in the pairing")
        ax.set_ylabel("points per game so far (first player's side)")
        ax.set_title("Running points per game, pairing by pairing (band: the final 95% interval)")
        if series:
            ax.legend(fontsize=8, loc="best")
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def judged_running_figure(series: Mapping[tuple[str, str], Sequence[tuple[int, float, float]]],
                          final_se: Mapping[tuple[str, str], tuple[float, float]], *, money: bool) -> Any:
    """A matplotlib figure of each judged pairing's running raw and luck-adjusted result
    (from the first player's side) as its matches were played, a panel a pairing, each
    line in its 95% band as it narrows: ± 1.96 times the final standard error times
    sqrt(final matches / matches so far), the interval the figure had after that many
    matches at its final spread.  The adjusted line's band is the narrower by the ratio of
    the standard errors, and the line settles sooner.

    :param series: pairing ``(a, b)`` -> ``[(matches played, raw so far, adjusted so far), ...]``
        (:func:`~bgfast.tournament.html_report.running_judged`).
    :param final_se: pairing -> the final (raw, adjusted) standard errors (NaN: no band).
    :param money: money games (points per game) or match play (match score).
    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    import math

    plt = require_plotting()
    pairs = [pair for pair, points in series.items() if points]
    columns = max(1, min(3, len(pairs)))
    rows = max(1, -(-len(pairs) // columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.6 * columns + 0.6, 3.0 * rows + 0.5), squeeze=False)
    try:
        unit = "points per game" if money else "match score"
        for ax, (a, b) in zip(axes.flat, pairs):
            raw_se, adjusted_se = final_se.get((a, b), (math.nan, math.nan))
            points = series[(a, b)]
            low, high = _running_line(ax, [(n, r) for n, r, _ in points], raw_se, "raw", funnel=True, color="tab:grey")
            low2, high2 = _running_line(ax, [(n, j) for n, _, j in points], adjusted_se, "luck-adjusted",
                                        funnel=True, color="tab:orange")
            if math.isfinite(min(low, low2)) and math.isfinite(max(high, high2)):
                pad = 0.15 * (max(high, high2) - min(low, low2)) or 0.1
                ax.set_ylim(min(low, low2) - pad, max(high, high2) + pad)
            ax.axhline(0.0, color="grey", linewidth=0.8, linestyle=":")
            ax.set_title(_label(f"{a} - {b}"), fontsize=9)
            ax.set_xlabel("matches played", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=7, loc="best")
        for ax in list(axes.flat)[len(pairs):]:
            ax.set_visible(False)
        for ax in axes[:, 0]:
            ax.set_ylabel(f"{unit} so far", fontsize=8)
        fig.suptitle(f"Raw and luck-adjusted {unit} as the matches were played (bands: 95% interval)", fontsize=10)
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def judged_players_figure(players: Mapping[str, JudgedFigures]) -> Any:
    """A matplotlib figure of each player's checker error rate, cube error rate (mEMG a
    decision) and luck per game as bars, each with its number (``n/a``: no decision counted,
    or errors of a file judged before they were normalized).

    :raises MissingExtraError: matplotlib is not installed (``pip install 'bgfast[plot]'``).
    """
    import math

    plt = require_plotting()
    names = list(players)[::-1]
    money = all(f.money for f in players.values())

    def luck_text(x: float) -> str:
        return f"{x:+.4f}"

    panels: list[tuple[str, list[float], Callable[[float], str]]] = [
        ("checker error rate (mEMG)", [players[n].checker_error_rate for n in names], format_rate),
        ("cube error rate (mEMG)", [players[n].cube_error_rate for n in names], format_rate),
        ("luck per game" + (" (points)" if money else " (MWC)"), [players[n].luck_per_game for n in names], luck_text)]
    fig, axes = plt.subplots(1, 3, figsize=(10.0, 1.2 + 0.45 * len(names)), sharey=True)
    try:
        for ax, (title, values, text) in zip(axes, panels):
            shown = [v if math.isfinite(v) else 0.0 for v in values]
            bars = ax.barh(range(len(names)), shown, color="tab:blue" if "error" in title else "tab:green")
            ax.bar_label(bars, labels=[text(v) for v in values], padding=3, fontsize=8)
            ax.axvline(0.0, color="grey", linewidth=0.8)
            ax.set_title(title, fontsize=9)
            ax.tick_params(labelsize=8)
            ax.margins(x=0.35)
            if not any(math.isfinite(v) for v in values):  # no decision of the kind: an empty panel, no scale
                ax.set_xlim(0.0, 1.0)
                ax.set_xticks([])
        axes[0].set_yticks(range(len(names)), [_label(n) for n in names])
        fig.tight_layout()
    except BaseException:
        plt.close(fig)
        raise
    return fig


def _running_line(ax: Any, points: Sequence[tuple[int, float]], se: float, label: str, *,
                  funnel: bool = False, color: str | None = None) -> tuple[float, float]:
    """One running line on ``ax`` with its 95% band (where ``se`` is finite): the final
    interval as a strip at the right end, or (``funnel``) the interval after each point's
    matches, ± 1.96 ``se`` sqrt(final / so far).

    :returns: the lowest and highest the line and its band reach over the last nine tenths
        of its matches (where a chart's scale should reach); infinite for no points.
    """
    import math

    if not points:
        return math.inf, -math.inf
    x = [m for m, _ in points]
    y = [v for _, v in points]
    line, = ax.plot(x, y, linewidth=1.2, label=_label(label), color=color)
    half = [0.0] * len(x)
    if math.isfinite(se):
        if funnel:
            half = [1.96 * se * math.sqrt(x[-1] / m) for m in x]
            ax.fill_between(x, [v - h for v, h in zip(y, half)], [v + h for v, h in zip(y, half)],
                            color=line.get_color(), alpha=0.2, linewidth=0)
        else:
            ax.fill_between([x[-1] * 0.9, x[-1]], y[-1] - 1.96 * se, y[-1] + 1.96 * se,
                            color=line.get_color(), alpha=0.2, linewidth=0)
    late = [i for i, m in enumerate(x) if m >= 0.1 * x[-1]]
    return min(y[i] - half[i] for i in late), max(y[i] + half[i] for i in late)


def figure_svg(fig: Any) -> str:
    """``fig`` as an SVG element (no XML declaration or DOCTYPE, so that it sits inside an
    HTML page), its text kept as text (the browser's fonts draw any script), no date in it;
    closes the figure."""
    import io

    plt = require_plotting()
    out = io.StringIO()
    try:
        with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "bgfast"}):
            fig.savefig(out, format="svg", metadata={"Date": None})
    finally:
        plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


def _label(text: str) -> str:
    """``text`` for matplotlib, shown as it is: a ``$`` would start its mathematical notation."""
    return text.replace("$", r"\$")


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
            label[r][c] = f"{format_elo(sign * e.elo)}\n[{format_elo(lo)},\n{format_elo(hi)}]"
    finite = diff[np.isfinite(diff)]
    scale = float(np.abs(finite).max()) if finite.size else 0.0
    scale = scale or 1.0  # every difference 0: a white matrix, not a colour scale of no width
    shade = np.clip(np.nan_to_num(diff, nan=0.0, posinf=scale, neginf=-scale), -scale, scale)
    ax.imshow(shade, cmap="RdBu", vmin=-scale, vmax=scale)
    for r in range(n):
        for c in range(n):
            if label[r][c]:
                dark = abs(shade[r, c]) > 0.6 * scale
                ax.text(c, r, label[r][c], ha="center", va="center", fontsize=6.5,
                        color="white" if dark else "black")
    ax.set_xticks(range(n), [_label(name) for name in names], rotation=30, ha="right")
    ax.set_yticks(range(n), [_label(name) for name in names])
    ax.set_title("Elo row - column, 95% interval" + (" (dice pairs)" if standings.paired else ""))
