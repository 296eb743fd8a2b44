"""The ratings plot of ``bgfast report --plot``: each player's Elo with its interval, and the
pairwise matrix; and the running points per game of each pairing, which the HTML report
(:mod:`~bgfast.tournament.html_report`) draws beside it.  matplotlib is imported only here,
when a plot is drawn (``bgfast[plot]``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bgfast.tournament.standings import Standings, format_elo
from bgfast.validation import output_file

__all__ = ["figure_svg", "plot_ratings", "ratings_figure", "require_plotting", "running_ppg_figure"]


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
            if not points:
                continue
            x = [m for m, _ in points]
            y = [v for _, v in points]
            line, = ax.plot(x, y, linewidth=1.2, label=_label(f"{a} - {b}"))
            se = final_se.get((a, b), math.nan)
            if math.isfinite(se):
                ax.fill_between([x[-1] * 0.9, x[-1]], y[-1] - 1.96 * se, y[-1] + 1.96 * se,
                                color=line.get_color(), alpha=0.2, linewidth=0)
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
