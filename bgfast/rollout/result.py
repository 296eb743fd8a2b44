"""What a rollout returns: estimates with standard errors and 95% intervals.

Every number is from the view of the side on roll in the position rolled out,
before any dice or, when dice were given, with them to play (also when a play
was given: the view stays the player's, not its opponent's): probabilities of that
side winning, winning a gammon, and so on, and its equity.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bgfast.analysis.report import signed
from bgfast.dice import Dice
from bgfast.match import MatchState
from bgfast.position import NO_PLAY, Position
from bgfast.rollout.stats import Z95

if TYPE_CHECKING:
    from bgfast.rollout.cube_decision import CubeRollout

__all__ = ["Estimate", "PlayResult", "RolloutResult"]

_STRATIFIED = {36: "roll", 1296: "two rolls"}


def _sampling(strata: int, dice: Dice | None) -> str:
    """How the trials' rolls were drawn; with dice, the stratified rolls are the ones after them.

    >>> _sampling(36, None), _sampling(1296, Dice(3, 1)), _sampling(1, Dice(3, 1))
    ('first roll stratified', 'the two rolls after the 31 stratified', 'plain sampling')
    """
    if strata not in _STRATIFIED:
        return "plain sampling" if strata == 1 else f"{strata} strata"
    if dice is None:
        return f"first {_STRATIFIED[strata]} stratified"
    return f"the {_STRATIFIED[strata]} after the {dice} stratified"


def _num(x: float | None) -> float | None:
    """A JSON-safe number: NaN (the error of a single trial) becomes None."""
    return None if x is None or math.isnan(x) else x


@dataclass(frozen=True)
class Estimate:
    """A rollout estimate and its standard error.

    >>> e = Estimate(0.25, 0.01)
    >>> [round(x, 4) for x in e.interval]
    [0.2304, 0.2696]
    >>> str(e)
    '+0.2500 ± 0.0100'
    """

    value: float
    """The estimate (a mean over trials)."""
    se: float
    """Its standard error (see :mod:`bgfast.rollout.stats` for how it is computed)."""

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval, ``value ± 1.96 se`` (normal approximation)."""
        return (self.value - Z95 * self.se, self.value + Z95 * self.se)

    def __str__(self) -> str:
        return f"{signed(self.value, decimals=4)} ± " + ("n/a" if math.isnan(self.se) else f"{self.se:.4f}")


@dataclass(frozen=True)
class RolloutResult:
    """The result of :func:`bgfast.rollout.rollout`.

    Perspective: the side on roll in :attr:`position`, before the dice or, with
    :attr:`dice`, with them to play (also when a :attr:`play` of them was
    given: still the player's view, not its opponent's).  Probabilities
    are cumulative as in gnubg: :attr:`win_gammon` includes backgammons.

    The cubeless equity is money points per game at cube 1 (gammons 2,
    backgammons 3, no Jacoby rule).  The cubeful equity, when asked for, is
    in money play the points won per game in units of the initial cube; in
    match play the match winning chance (:attr:`cubeful_mwc`) converted to
    normalised money-game units (EMG) through the match equity table.
    """

    position: Position
    """The position rolled out (side on roll = the perspective of every number)."""
    match: MatchState
    """Score and cube at the start; ``match.player_on_roll`` is the side on roll."""
    dice: Dice | None
    """The roll played first by the side on roll, if one was given."""
    play: str | None
    """That roll's play (gnubg notation) if fixed: given, or the bot's deterministic choice."""
    bot: str
    """The bot that played both sides: its full spec, name and options
    (``neural:cube=auto,cube_efficiency=0.68,ply=1``), as ``bgfast rollout --bot`` reads it."""
    trials: int
    """Trials played (and kept)."""
    seed: int
    """The run seed: trial ``i`` uses the streams of ``(seed, i)``."""
    strata: int
    """The sampling: 1 plain, 36 the first roll stratified, 1296 the first two rolls
    (with :attr:`dice`, which are fixed, the roll or two rolls after them)."""
    truncate: int | None
    """Trials were cut after this many plies and finished with the evaluator, or None."""
    win: Estimate
    win_gammon: Estimate
    win_backgammon: Estimate
    lose_gammon: Estimate
    lose_backgammon: Estimate
    equity: Estimate
    """Cubeless equity (money points per game, cube 1)."""
    cubeful_equity: Estimate | None = None
    """Cubeful equity (money: points per game / initial cube; match: EMG), or None."""
    cubeful_mwc: Estimate | None = None
    """Match play with the cube: the match winning chance, or None."""
    seconds: float = 0.0
    """Wall time of the rollout."""
    plays: tuple[PlayResult, ...] = field(default_factory=tuple)
    """With ``plays=True``: every play of :attr:`dice`, best first."""
    luck_adjusted: bool = False
    """Each trial's luck was subtracted (variance reduction) from its cubeless results and,
    with the cube, from its cubeful value (see :attr:`luck_adjusted_figures`)."""
    variant: str = "standard"
    """The variant's rules the trials were played by (see :data:`bgfast.position.VARIANTS`)."""
    target_se: float | None = None
    """The standard error the rollout was to stop at, if one was given."""
    target_reached: bool | None = None
    """Whether the ranking equity's error reached :attr:`target_se` (False: the
    trial limit came first); None without a target."""
    interrupted: bool = False
    """The rollout was stopped before its trials were all played (Ctrl-C, SIGTERM to the
    ``bgfast rollout`` command, or a worker process that died: see
    :class:`~bgfast.errors.RolloutWorkerError`): the figures are those of :attr:`trials`
    finished trials, out of :attr:`trials_requested`."""
    trials_requested: int | None = None
    """The trials asked for (the most, with a target), or None when the same as :attr:`trials`."""
    late_ply: int | None = None
    """Late evaluation: from ply :attr:`late_after` of each trial on the bot played (and
    estimated the cube) at this many plies; None: at its own throughout."""
    late_after: int | None = None
    """The plies of each trial played before late evaluation."""
    truncate_ply: int | None = None
    """Truncated trials were evaluated at this many plies (None: the evaluator's own)."""
    cube_decision: CubeRollout | None = None
    """With ``cube=True``: no double and double/take rolled out on the same dice, double/pass
    and the proper action (:class:`~bgfast.rollout.cube_decision.CubeRollout`); the other
    figures are then no double's."""

    @property
    def luck_adjusted_figures(self) -> tuple[str, ...]:
        """The figures that had each trial's luck subtracted, by their JSON keys (with their ``_se``):
        ``probabilities`` and ``equity`` (cubeless), ``cubeful_equity`` (and ``cubeful_mwc``
        in match play) when rolled out with the cube, and the plays' ``difference`` (which
        is of the ranking equity, :attr:`ranking_equity`).  Empty without luck adjustment.

        >>> from bgfast.rollout import rollout
        >>> rollout("4HPwATDgc/ABMA", trials=72, seed=1, bot="heuristic", cubeful=True).luck_adjusted_figures
        ('probabilities', 'equity', 'cubeful_equity')
        """
        if not self.luck_adjusted:
            return ()
        figures: tuple[str, ...] = ("probabilities", "equity")
        if self.cubeful_equity is not None:
            figures += ("cubeful_equity",)
        if self.cubeful_mwc is not None:
            figures += ("cubeful_mwc",)
        return figures + (("difference",) if self.plays else ())

    @property
    def probabilities(self) -> tuple[float, float, float, float, float]:
        """``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, as reported:
        :attr:`probabilities_raw` brought into [0, 1] and made consistent (win >= win
        gammon >= win backgammon, lose gammon <= 1 - win, lose gammon >= lose backgammon).

        Luck adjustment can take an estimate a little outside its range (a lose
        backgammon of -0.14%, a win of 1.0000001); the estimate itself stays unbiased,
        so it is kept as :attr:`probabilities_raw`.

        >>> from bgfast.rollout import rollout
        >>> r = rollout("4HPwATDgc/ABMA", trials=72, seed=1)
        >>> all(0.0 <= v <= 1.0 for v in r.probabilities)
        True
        """
        return _consistent(self.probabilities_raw)

    @property
    def probabilities_raw(self) -> tuple[float, float, float, float, float]:
        """The five estimates as the trials give them (with luck adjustment, possibly a
        little below 0 or above 1): the values of :attr:`win` ... :attr:`lose_backgammon`."""
        return tuple(e.value for e in self._probs)  # type: ignore[return-value]

    @property
    def probabilities_se(self) -> tuple[float, float, float, float, float]:
        """The standard errors of :attr:`probabilities`."""
        return tuple(e.se for e in self._probs)  # type: ignore[return-value]

    @property
    def _probs(self) -> tuple[Estimate, ...]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon)

    @property
    def ranking_equity(self) -> Estimate:
        """The equity plays are ranked by: cubeful when computed, else cubeless (each
        luck-adjusted when :attr:`luck_adjusted`)."""
        return self.cubeful_equity if self.cubeful_equity is not None else self.equity

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``position_id``, ``match_id`` (gnubg's: length, score, cube,
        Crawford, Jacoby), ``variant``, ``trials``, ``probabilities`` (5, as reported: in
        [0, 1] and consistent), ``probabilities_raw`` (the unclamped estimates), their
        ``probabilities_se``, ``equity``, ``equity_se``, ``cubeful_equity``,
        ``cubeful_equity_se`` (None without the cube), ``luck_adjusted_figures`` (the keys
        of the figures that are luck-adjusted, see :attr:`luck_adjusted_figures`), and
        ``plays`` when rolled out.

        >>> from bgfast.rollout import rollout
        >>> data = rollout("4HPwATDgc/ABMA", trials=72, seed=1).to_dict()
        >>> data["trials"], len(data["probabilities"]), data["cubeful_equity"]
        (72, 5, None)
        >>> data["luck_adjusted_figures"]
        ['probabilities', 'equity']
        """
        out: dict[str, Any] = {"position_id": self.position.id(), "match_id": self.match.match_id(),
                               "variant": self.variant, "trials": self.trials, **_estimates(self)}
        if self.cubeful_mwc is not None:
            out["cubeful_mwc"] = self.cubeful_mwc.value
            out["cubeful_mwc_se"] = _num(self.cubeful_mwc.se)
        out.update(dice=None if self.dice is None else str(self.dice), play=self.play, bot=self.bot,
                   seed=self.seed, strata=self.strata, luck_adjusted=self.luck_adjusted,
                   luck_adjusted_figures=list(self.luck_adjusted_figures), truncate=self.truncate,
                   truncate_ply=self.truncate_ply, late_ply=self.late_ply, late_after=self.late_after,
                   seconds=self.seconds,
                   target_se=self.target_se, target_reached=self.target_reached, interrupted=self.interrupted,
                   trials_requested=self.trials_requested or self.trials)
        if self.plays:
            out["plays"] = [p.to_dict() for p in self.plays]
        if self.cube_decision is not None:
            out.update(self.cube_decision.to_dict())
        return out

    def report(self) -> str:
        """The result as text: the setting, the five chances, the equities, and the ranked plays.

        ``±`` is one standard error; the 95% intervals are printed beside the equities.

        >>> from bgfast.rollout import rollout
        >>> print(rollout("4HPwATDgc/ABMA", trials=72, seed=1).report().splitlines()[0])
        rollout of 4HPwATDgc/ABMA: money game (Jacoby), cube 1 centred (player 0 on roll)
        """
        cube = "cubeful" if self.cubeful_equity is not None else "cubeless"
        lines = [
            f"rollout of {self.position.id()}"
            + ("" if self.variant == "standard" else f" ({self.variant})") + f": {self.match.describe(dice=False)}",
            f"{self.bot} on both sides, {self.trials:,} trial{'' if self.trials == 1 else 's'} "
            f"({_sampling(self.strata, self.dice)}"
            + (", luck-adjusted" if self.luck_adjusted else "") + "), "
            f"seed {self.seed}" + (f", truncated after {self.truncate} plies" if self.truncate else "")
            + (f" (evaluated at {self.truncate_ply} ply)" if self.truncate and self.truncate_ply is not None else "")
            + f", {self.seconds:.2f} s",
        ]
        if self.late_ply is not None:
            lines.append(f"late evaluation: {self.late_ply} ply from ply {self.late_after} of each trial on "
                         "(checker play and cube)")
        if self.interrupted:
            lines.append(f"interrupted: the figures are of the {self.trials:,} trials finished, of "
                         f"{self.trials_requested or self.trials:,} asked for")
        if self.target_se is not None:
            lines.append(f"target SE {self.target_se:g}: " + ("reached" if self.target_reached else
                         "not reached: interrupted" if self.interrupted else
                         f"not reached within the {self.trials:,} trials allowed"))
        if self.dice is not None:
            lines.append(f"dice {self.dice} played first" + (f": {self.play}" if self.play else ""))
        lines += [
            "for the side on roll, " + ("before the dice" if self.dice is None else f"with {self.dice} to play")
            + " (± = one standard error)",
            "",
            f"{'':12}{'win':>10}{'w gammon':>10}{'w bg':>10}{'l gammon':>10}{'l bg':>10}",
            f"{'chance':12}" + "".join(f"{100 * v:9.2f}%" for v in self.probabilities),
            f"{'±':12}" + "".join(f"{'n/a':>10}" if math.isnan(v) else f"{100 * v:9.2f}%"
                                  for v in self.probabilities_se),
            "",
            _equity_line("cubeless equity", self.equity),
        ]
        if self.cube_decision is not None:   # its no double is the cubeful equity
            lines += ["", *self.cube_decision.text(self.cubeful_mwc is not None)]
        elif self.cubeful_equity is not None:
            lines.append(_equity_line("cubeful equity" + (" (EMG)" if self.cubeful_mwc else ""), self.cubeful_equity))
        if self.cubeful_mwc is not None and self.cube_decision is None:
            low, high = self.cubeful_mwc.interval
            mwc = f"{'match winning chance:':<28}{100 * self.cubeful_mwc.value:.2f}% ± "
            if math.isnan(self.cubeful_mwc.se):
                mwc += "n/a"
            else:
                mwc += f"{100 * self.cubeful_mwc.se:.2f}%   95% [{100 * low:.2f}%, {100 * high:.2f}%]"
            lines.append(mwc)
        if self.plays:
            width = max(len(p.move or NO_PLAY) for p in self.plays)
            count = f"{len(self.plays)} play{'' if len(self.plays) == 1 else 's'}"
            by = ("luck-adjusted " if self.luck_adjusted else "") + f"{cube} equity"
            lines += ["", (f"{count} of {self.dice}, ranked by {by} "
                           "(same dice for every play; difference to the best with its own error)"),
                      f"{'#':>3}  {'play':<{width}}  {'equity':>17}  {'difference':>17}"]
            for i, p in enumerate(self.plays, 1):
                diff = "" if i == 1 else str(p.difference)
                dropped = "" if p.dropped_after is None else f"  dropped after {p.dropped_after:,} trials"
                lines.append(f"{i:>3}  {p.move or NO_PLAY:<{width}}  {p.result.ranking_equity!s:>17}  {diff:>17}"
                             f"{dropped}".rstrip())
        return "\n".join(lines)


def _equity_line(label: str, e: Estimate) -> str:
    if math.isnan(e.se):  # a single trial has no error
        return f"{label + ':':<28}{e!s}"
    low, high = e.interval
    return f"{label + ':':<28}{e!s}   95% [{low:+.4f}, {high:+.4f}]"


@dataclass(frozen=True)
class PlayResult:
    """One play of a roll, rolled out with the same dice as every other play.

    :attr:`difference` is this play's equity minus the best play's (0 for the
    best), with the standard error of that difference: the plays share their
    trials' dice (common random numbers), so it is computed from the per-trial
    differences and is usually much smaller than either play's own error.
    """

    move: str
    """The play in gnubg notation."""
    position_id: str
    """The position after the play, still from the mover's view."""
    result: RolloutResult
    """The rollout of this play (perspective: the side that plays it)."""
    difference: Estimate
    """Equity (cubeful if computed, else cubeless; luck-adjusted with the rollout) minus the best play's."""
    dropped_after: int | None = None
    """With pruning (``prune_se``): the trials after which this play was dropped, clearly
    behind the best (its figures are of those trials); None: rolled out to the end."""

    def to_dict(self) -> dict[str, Any]:
        """``move``, ``position_id``, the result's numbers (``probabilities`` and
        ``probabilities_raw`` as :meth:`RolloutResult.to_dict`), ``difference`` and ``difference_se``."""
        r = self.result
        return {
            "move": self.move,
            "position_id": self.position_id,
            **_estimates(r),
            "difference": self.difference.value,
            "difference_se": _num(self.difference.se),
            "trials": r.trials,
            "dropped_after": self.dropped_after,
        }


def _consistent(p: tuple[float, ...]) -> tuple[float, float, float, float, float]:
    """Five cumulative chances clamped to [0, 1] and to each other (see
    :attr:`RolloutResult.probabilities`).

    >>> _consistent((1.0000001, 0.2, 0.21, 0.0, -0.0014))
    (1.0, 0.2, 0.2, 0.0, 0.0)
    """
    def clamp(v: float, high: float) -> float:
        return high if v > high else (0.0 if v < 0.0 or math.isnan(v) else v)

    win = clamp(p[0], 1.0)
    wg = clamp(p[1], win)
    lg = clamp(p[3], 1.0 - win)
    return (win, wg, clamp(p[2], wg), lg, clamp(p[4], lg))


def _estimates(r: RolloutResult) -> dict[str, Any]:
    """The JSON keys of a result's chances and equities (and their standard errors)."""
    return {
        "probabilities": list(r.probabilities),
        "probabilities_raw": list(r.probabilities_raw),
        "probabilities_se": [_num(x) for x in r.probabilities_se],
        "equity": r.equity.value,
        "equity_se": _num(r.equity.se),
        "cubeful_equity": None if r.cubeful_equity is None else r.cubeful_equity.value,
        "cubeful_equity_se": None if r.cubeful_equity is None else _num(r.cubeful_equity.se),
    }
