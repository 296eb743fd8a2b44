"""How analysis prints numbers: the one wording of probabilities and equities in the
text of ``bgfast eval``, ``hint`` and ``cube``.

>>> from bgfast.probabilities import Probabilities
>>> probabilities_line(Probabilities(0.6, 0.2, 0.01, 0.1, 0.005))
'win 60.0% (gammon 20.0%, backgammon 1.0%)  lose 40.0% (gammon 10.0%, backgammon 0.5%)'
>>> signed(0.1234), signed(-0.5), signed(-0.0004), percent(0.4567)
('+0.123', '-0.500', '+0.000', '45.67%')
>>> signed(-12.34, decimals=1, width=8)
'   -12.3'
"""
from __future__ import annotations

from typing import Any

from bgfast.probabilities import Probabilities

__all__ = ["percent", "probabilities_dict", "probabilities_line", "signed"]


def signed(equity: float, *, decimals: int = 3, width: int = 0) -> str:
    """An equity (or a difference, a rate) with its sign and ``decimals`` decimals, as gnubg
    prints them, right-aligned in ``width`` characters: the one formatter of signed figures.
    A value that rounds to zero is ``+0.000``, never ``-0.000``."""
    value = round(equity, decimals) + 0.0      # -0.0 + 0.0 is 0.0: no negative zero
    return f"{value:+{width}.{decimals}f}"


def percent(chance: float) -> str:
    """A chance (0 to 1) as a percentage with two decimals."""
    return f"{100.0 * chance:.2f}%"


def probabilities_line(p: Probabilities) -> str:
    """The five probabilities in one line: the wins, then the losses (``1 - win``)."""
    return (f"win {100 * p.win:.1f}% (gammon {100 * p.win_gammon:.1f}%, backgammon {100 * p.win_backgammon:.1f}%)"
            f"  lose {100 * (1 - p.win):.1f}% (gammon {100 * p.lose_gammon:.1f}%, "
            f"backgammon {100 * p.lose_backgammon:.1f}%)")


def probabilities_dict(p: Probabilities) -> dict[str, Any]:
    """The five probabilities for JSON, by name (``win``, ``win_gammon``, ``win_backgammon``,
    ``lose_gammon``, ``lose_backgammon``)."""
    return {"win": p.win, "win_gammon": p.win_gammon, "win_backgammon": p.win_backgammon,
            "lose_gammon": p.lose_gammon, "lose_backgammon": p.lose_backgammon}
