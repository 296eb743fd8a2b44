"""What a rollout is asked to do: :class:`RolloutRequest`, checked once before any trial.

:meth:`RolloutRequest.create` takes the keyword arguments of
:func:`bgfast.rollout.rollout`, checks every one of them (and how they fit
together: dice and the match state, a play and the dice, truncation and an
evaluator), resolves names to objects (bots, the match equity table) and
returns a frozen request; the constructor itself checks nothing, as
:class:`~bgfast.tournament.spec.TournamentSpec`'s does not.

>>> request = RolloutRequest.create("4HPwATDgc/ABMA", dice="31", trials=144, seed=2)
>>> request.position.id(), str(request.dice), request.trials, request.match.dice
('4HPwATDgc/ABMA', '31', 144, (0, 0))
>>> RolloutRequest.create("4HPwATDgc/ABMA", trials=0)
Traceback (most recent call last):
...
bgfast.errors.InvalidRolloutError: trials must be a positive integer, got 0
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

from bgfast.bots import get_bot
from bgfast.bots.spec import BotRecipe
from bgfast.engines.base import OutsideBot
from bgfast.dice import Dice
from bgfast.errors import IllegalCubeActionError, InvalidRolloutError, shortened
from bgfast.game import MAX_MATCH_LENGTH
from bgfast.formats.text import PositionText, format_position, read_position
from bgfast.match import GameState, MatchState, Rules
from bgfast.met import MatchEquityTable
from bgfast.position import VARIANTS, Move, Position
from bgfast.validation import real_number, whole_number

__all__ = ["BACKENDS", "MAX_TRIALS", "MAX_TRUNCATE", "RolloutRequest"]


def _best_plays(pos: Position, match: MatchState, rules: Rules, met: MatchEquityTable | None, roll: Dice,
                bot: Any, top: int) -> list[Move]:
    """The ``top`` best plays of ``roll`` by ``bot``'s evaluation at its ply, as ``bgfast hint``
    ranks them at the score (:func:`bgfast.analysis.plays.rank_plays`)."""
    from bgfast.analysis.judge import Judge
    from bgfast.analysis.plays import rank_plays
    from bgfast.errors import InvalidAnalysisError

    try:
        judge = Judge.of(bot)
    except InvalidAnalysisError:
        raise InvalidRolloutError(f"the best {top} plays are found by the bot's evaluation, but "
                                  f"{BotRecipe.of(bot).text()!r} gives no probabilities: give the plays "
                                  "or use a bot that evaluates (neural, heuristic)") from None
    text = format_position(pos, dataclasses.replace(match, dice=(roll.high, roll.low)))
    ranking = rank_plays(text, roll, judge, rules=rules, met=met)
    return [p.move for p in ranking.plays[:top]]

BACKENDS = ("process", "dask")
"""Where a rollout's blocks of trials can be played (``backend``)."""

DEFAULT_TRIALS = 1296
"""A rollout's trials when none are asked for: one round of the 1,296 pairs of first two rolls."""

MAX_TRIALS = 10**8
"""The most trials of a rollout: it keeps every trial's six numbers (48 bytes a trial and
line) to estimate from, 4.8 GB a line at this cap, and at some thousands of trials a
second 10**8 trials already take hours to days."""

MAX_TRUNCATE = 2**31 - 1
"""The largest ``truncate`` (plies); the game loop counts plies in a C int."""


def _count(value: object, name: str, *, low: int = 1, high: int | None = None) -> int:
    """A positive count (or, with ``low=0``, a non-negative integer), in the rollout's words."""
    what, bounds = ("a positive integer", "") if low == 1 else ("an integer", f"from {low}")
    if high is not None:
        bounds += f"{' ' if bounds else ''}up to {high:,}"
    return whole_number(value, name, low=low, high=high, what=what, bounds=bounds, error=InvalidRolloutError)


def _bot_name(bot: object) -> str:
    """How a rollout's report names its bot: its spec (``pubeval:cube=keith,...``), or for an
    outside engine its kind and label (``ubgi engine python -m bgfast.engines.ubgi_server``)."""
    if isinstance(bot, OutsideBot):
        return f"{bot.name} engine {bot.label}"
    return BotRecipe.of(bot).text()


@dataclass(frozen=True)
class RolloutRequest:
    """A checked rollout: the position, what is rolled out of it, by whom, how many times.

    Build it with :meth:`create`.  Every view is the side on roll's in :attr:`position`,
    which is :attr:`match`'s ``player_on_roll``.
    """

    position: Position
    match: MatchState
    """Score and cube; its ``dice`` are cleared (they are in :attr:`dice`)."""
    rules: Rules
    met: MatchEquityTable | None
    """The match equity table in match play, None in money play."""
    bot: Any
    """The bot object playing both sides."""
    bot_name: str
    """The bot's full spec, its name and options (``neural:cube=auto,cube_efficiency=0.68,ply=1``;
    only the name for a bot without ``options()``): what a report says played."""
    evaluator: Any
    """What finishes truncated trials (the bot unless another was given)."""
    dice: Dice | None
    """The roll the side on roll plays first, or None to start before the dice."""
    play: Move | None
    """With :attr:`dice`, the one play rolled out (None: the bot's, or with :attr:`plays` every one)."""
    plays: bool
    """Several plays of :attr:`dice` are rolled out and ranked: :attr:`candidates`, or every one."""
    candidates: tuple[Move, ...] | None
    """With :attr:`plays`, the plays rolled out (the K best, or those given); None: every play."""
    prune_se: float | None
    """With :attr:`plays`: a play this many standard errors behind the best is dropped early."""
    cubeful: bool
    cube: bool
    """The cube decision is rolled out: no double and double/take on the same dice (:attr:`cubeful` too)."""
    trials: int
    seed: int
    workers: int
    truncate: int | None
    exact_bearoff: bool
    target_se: float | None
    variance_reduction: bool
    luck: bool
    """Whether each trial's luck is subtracted (resolved from ``luck`` and ``variance_reduction``)."""
    progress: bool | None
    interruptible: bool = False
    late_ply: int | None = None
    """gnubg's late evaluation: from ply :attr:`late_after` of each trial on, the neural bot
    plays (and, cubeful, estimates the cube) at this many plies; None: at its own throughout."""
    late_after: int | None = None
    """The plies of a trial (half-moves, the given dice's play the first) before late evaluation."""
    truncate_ply: int | None = None
    """Truncated trials are finished with the neural evaluator at this many plies (its n-ply
    search); None: the evaluator's own ply."""
    backend: str = "process"
    """Where the trials are played: ``"process"`` (a process pool) or ``"dask"`` (a Dask cluster)."""
    scheduler: str | None = None
    """With the dask backend, the scheduler's address; None: a local cluster of :attr:`workers`."""

    def late_bot(self) -> Any:
        """The bot as it plays after :attr:`late_after` plies (its ply and cube ply
        :attr:`late_ply`), or None without late evaluation."""
        if self.late_ply is None:
            return None
        return type(self.bot)(**{**self.bot.options(), "ply": self.late_ply, "cube_ply": self.late_ply})

    @property
    def checkers(self) -> int:
        """Checkers a side in the variant (15, or 3 in hypergammon)."""
        return sum(VARIANTS[self.rules.variant][1])

    @classmethod
    def create(
        cls,
        position: Position | str,
        *,
        dice: Dice | str | tuple[int, int] | None = None,
        play: Move | str | None = None,
        plays: bool | int | Sequence[Move | str] = False,
        prune_se: float | None = None,
        cube: bool = False,
        bot: Any = "neural",
        evaluator: Any = None,
        match: MatchState | None = None,
        rules: Rules | None = None,
        met: MatchEquityTable | str | None = None,
        cubeful: bool = False,
        trials: int = DEFAULT_TRIALS,
        seed: int = 0,
        workers: int = 1,
        truncate: int | None = None,
        exact_bearoff: bool = False,
        target_se: float | None = None,
        variance_reduction: bool = True,
        luck: bool | None = None,
        progress: bool | None = False,
        interruptible: bool = False,
        late_ply: int | None = None,
        late_after: int | None = None,
        truncate_ply: int | None = None,
        backend: str = "process",
        scheduler: str | None = None,
    ) -> RolloutRequest:
        """Check the arguments of a rollout (those of :func:`~bgfast.rollout.rollout`).

        :param position: a :class:`Position`, Position ID, ``PositionID:MatchID`` or XGID
            (the last two also give the match state).
        :param dice: a roll for the side on roll to play first (no cube action before it).
        :param play: with ``dice``, the play to roll out (notation or a :class:`Move`).
        :param plays: with ``dice``, roll out several plays with the same dice (common random
            numbers): True, every distinct play; an int K, the K best by the bot's own
            evaluation at its ply (:func:`bgfast.analysis.plays.rank_plays`, the ranking of
            ``bgfast hint``); a sequence of plays (notation or :class:`Move`), those.  The
            result is the best play's, its :attr:`~bgfast.rollout.RolloutResult.plays` all of
            them ranked with their differences.
        :param prune_se: with ``plays``, drop a play early once its difference to the best is
            more than this many standard errors below zero (as gnubg's rollouts drop clearly
            worse candidates), checked every :data:`~bgfast.rollout.engine.PRUNE_EVERY` trials
            (1296 with the first two rolls stratified, else 324) on the trials so far; a
            dropped play's figures are of the trials it had
            (:attr:`~bgfast.rollout.PlayResult.dropped_after`).
        :param cube: roll out the cube decision of the side on roll, before its roll: no
            double (it rolls without doubling) and double/take (the opponent owns the cube
            at twice its value) on the same dice, trial by trial, cubeful (``cubeful`` is
            implied); the result's :attr:`~bgfast.rollout.RolloutResult.cube_decision`
            has both equities, the difference with its paired error, double/pass and the
            proper action.  A pending double in the match state is that decision.
        :param bot: a bot name or object (default ``"neural"``); it plays both sides, and
            with ``cubeful`` its cube policy makes the cube actions.
        :param evaluator: what finishes truncated trials (default: the bot); see
            :class:`~bgfast.rollout.Evaluator`.
        :param match: score and cube (default: money, cube centred, the Jacoby
            rule as in ``rules``); ``match.player_on_roll`` is the side on roll.
        :param rules: beavers, maximum cube, variant (default :class:`Rules`); the
            variant's checkers a side (3 in hypergammon) decide gammons, and the
            position may not have more on the board.  The rules an XGID states (its
            maximum cube; in money play its Jacoby and beaver rules) are put over them
            (:meth:`bgfast.formats.text.PositionText.rules`).
        :param met: the match equity table for match play (default Kazaross-XG2).
        :param cubeful: also roll out with the cube: money points per game per
            initial cube, or in match play the match winning chance and its EMG.
            Cubeless numbers always come from games where nobody doubles (the same
            dice), so a passed double never cuts them short.
        :param trials: the number of trials, or with ``target_se`` the most; at most
            :data:`MAX_TRIALS`.
        :param seed: the run seed; trial ``i`` uses the streams of ``(seed, i)``.
        :param workers: processes, at most one per block of trials (more would
            idle, so they are not started); the result does not depend on it.
        :param backend: where the blocks of trials are played: ``"process"`` (a process
            pool of ``workers``, or this process with one) or ``"dask"`` (a Dask task a block,
            on a local cluster of ``workers`` processes or the scheduler at ``scheduler``);
            the result is the same bit for bit.
        :param scheduler: with the dask backend, the scheduler's address (``tcp://host:8786``).
        :param truncate: stop each trial after this many plies (half-moves) and
            use the evaluator's probabilities (cubeful: Janowski's formula in money
            play with the bot's ``cube_efficiency``, a dead cube in match play).
        :param truncate_ply: with ``truncate``, evaluate the position a trial stops in at
            this many plies, 0 to 3, through the neural evaluator's n-ply search (gnubg's
            plies: 1 = the average over the 21 rolls of the 0-ply play's value); default:
            the evaluator's own ply.  The evaluator must be the neural bot.
        :param late_ply: gnubg's late evaluation: from ply ``late_after`` of each trial on
            (plies are half-moves; with ``dice`` their play is the first, ply 0), the neural
            bot plays at ``late_ply`` plies, 0 to 3, and estimates the cube at as many (its
            ``ply`` and ``cube_ply``), on both sides; before, at its own.  Give both or neither.
        :param late_after: the plies of each trial played before late evaluation (0: all).
        :param exact_bearoff: at truncation, use GNU Backgammon's two-sided
            bear-off database (exact) when the position is in it (needs gnubg-nn).
        :param target_se: stop once the ranking equity's standard error (cubeful
            when computed; with ``plays`` the largest over the plays) is at most
            this; checked after 1296, 2592, ... trials, then every ~10%.
        :param variance_reduction: stratify the first roll(s) and, unless ``luck=False``, adjust for luck.
        :param luck: subtract each trial's luck from its cubeless result, not from its cubeful
            value (default: as ``variance_reduction``, except in hypergammon: the luck
            estimate's evaluator is fitted to 15 checkers, so it is off there and
            ``luck=True`` is refused).
        :param progress: show a tqdm progress bar on stderr (None: only on a terminal).
        :param interruptible: a :class:`KeyboardInterrupt` (Ctrl-C) during the trials ends
            them and the result is that of the trials finished by then
            (:attr:`~bgfast.rollout.result.RolloutResult.interrupted`), cut to whole rounds
            of the stratified rolls (36 first rolls, or 1296 pairs of first two rolls), so
            every stratum is played as often; with too few (two rounds of 36, one of 1296)
            it is raised after all.  False (the default): it is raised.  (A worker process
            that dies raises :class:`~bgfast.errors.RolloutWorkerError` either way, the
            result of the trials finished, cut the same way, in its ``partial``.)
        :raises InvalidRolloutError: zero, negative or too many (:data:`MAX_TRIALS`) trials;
            zero or negative workers, plies or target, an unknown backend, a scheduler without
            the dask backend, a finished position or match, a board no game reaches
            (:meth:`Position.unreachable`), no game in play (its state), a pending double
            (without ``cube``) or resignation (with ``cube``), ``plays`` or ``play`` without dice, truncation with no evaluator, a position with
            more checkers than the variant has; ``cube`` with dice or a play, or where the
            side on roll may not double (the Crawford game, the opponent's cube, ...);
            ``late_ply`` without ``late_after`` or the other way round, or either out of range,
            or late evaluation of a bot other than the neural one; ``truncate_ply`` without
            ``truncate``, out of 0 to 3, or with an evaluator other than the neural bot.
        :raises InvalidPositionError: a malformed position.  :raises InvalidDiceError: bad dice.
        :raises IllegalMoveError, InvalidMoveError: a bad play.  :raises UnknownBotError: an unknown bot.
        """
        text = read_position(position)
        pos, parsed_match = text.position, text.match
        trials = _count(trials, "trials")
        if trials > MAX_TRIALS:
            raise InvalidRolloutError(f"trials must be at most {MAX_TRIALS:,} (a rollout keeps every trial's "
                                      f"results in memory), got {trials:,}")
        workers = _count(workers, "workers")
        if backend not in BACKENDS:
            raise InvalidRolloutError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        if scheduler is not None and backend != "dask":
            raise InvalidRolloutError("a scheduler address is only for the dask backend")
        seed = _count(seed, "seed", low=0)
        truncate = None if truncate is None else _count(truncate, "truncate", high=MAX_TRUNCATE)
        if target_se is not None:  # checked; the value itself is kept as given (the result reports it)
            real_number(target_se, "target_se", low=0.0, strict=True, what="a positive number", bounds="",
                        error=InvalidRolloutError)
        given = shortened(position.strip()) if isinstance(position, str) else pos.id()  # as the user wrote it
        if pos.unreachable() is not None:
            raise InvalidRolloutError(f"position {given!r} {pos.unreachable()}")
        if pos.is_over():
            raise InvalidRolloutError(f"position {given!r} is already over: nothing to roll out")
        rules = cls._rules(rules, text)
        match = cls._match(match or parsed_match or MatchState(jacoby=rules.jacoby), bool(cube))
        table = None
        if match.length:
            table = met if isinstance(met, MatchEquityTable) else MatchEquityTable.load(met or "Kazaross-XG2")
            table.check_length(match.length, InvalidRolloutError)
        bot_obj, eval_obj = cls._players(bot, evaluator, truncate)
        if exact_bearoff:
            cls._check_exact_bearoff(truncate, rules)
        roll = cls._roll(dice, match)
        move = cls._play(pos, roll, play, bool(plays) if isinstance(plays, (bool, int)) else True)
        candidates = cls._candidates(pos, match, rules, table, roll, plays, bot_obj)
        if prune_se is not None:
            real_number(prune_se, "prune_se", low=0.0, strict=True, what="a positive number", bounds="",
                        error=InvalidRolloutError)
            if not plays:
                raise InvalidRolloutError("prune_se drops plays behind the best: give plays too")
        if cube:
            cls._check_cube(match, rules, roll, move, plays is not False)
        use_luck = variance_reduction if luck is None else bool(luck)
        if rules.variant == "hypergammon" and use_luck:
            # the luck estimate's evaluator is fitted to 15 checkers: it has no gammons with 3
            if luck:
                raise InvalidRolloutError("luck adjustment uses a 15-checker evaluator: not for hypergammon "
                                          "(give luck=False)")
            use_luck = False
        late_ply, late_after = cls._late(late_ply, late_after, bot_obj)
        truncate_ply = cls._truncate_ply(truncate_ply, truncate, eval_obj)
        return cls(position=pos, match=dataclasses.replace(match, dice=(0, 0)), rules=rules, met=table,
                   bot=bot_obj, bot_name=_bot_name(bot_obj),
                   evaluator=eval_obj, dice=roll, play=move, plays=candidates is not None or plays is True,
                   candidates=candidates, prune_se=None if prune_se is None else float(prune_se),
                   cubeful=bool(cubeful or cube),
                   cube=bool(cube),
                   trials=trials, seed=seed, workers=workers, truncate=truncate,
                   exact_bearoff=bool(exact_bearoff), target_se=target_se,
                   variance_reduction=bool(variance_reduction), luck=bool(use_luck), progress=progress,
                   interruptible=bool(interruptible), late_ply=late_ply, late_after=late_after,
                   truncate_ply=truncate_ply, backend=backend, scheduler=scheduler)

    @staticmethod
    def _late(late_ply: object, late_after: object, bot: Any) -> tuple[int | None, int | None]:
        """Late evaluation's plies and the plies before it, checked (both or neither)."""
        from bgfast.bots.neural import PLIES, NeuralBot

        if late_ply is None and late_after is None:
            return None, None
        if late_ply is None or late_after is None:
            given, missing = ("late_ply", "late_after") if late_after is None else ("late_after", "late_ply")
            raise InvalidRolloutError(f"late evaluation needs both late_ply and late_after: {given} is given "
                                      f"without {missing}")
        ply = _count(late_ply, "late_ply", low=PLIES[0], high=PLIES[-1])
        after = _count(late_after, "late_after", low=0, high=MAX_TRUNCATE)
        if not isinstance(bot, NeuralBot):
            raise InvalidRolloutError(f"late evaluation changes the neural bot's plies; bot "
                                      f"{BotRecipe.of(bot).text()!r} has none")
        return ply, after

    @staticmethod
    def _truncate_ply(truncate_ply: object, truncate: int | None, evaluator: Any) -> int | None:
        """The plies a truncated trial's position is evaluated at, checked."""
        from bgfast.bots.neural import PLIES, NeuralBot

        if truncate_ply is None:
            return None
        plies = _count(truncate_ply, "truncate_ply", low=PLIES[0], high=PLIES[-1])
        if truncate is None:
            raise InvalidRolloutError("truncate_ply is the plies a truncated trial is evaluated at: give truncate=N too")
        if not isinstance(evaluator, NeuralBot):
            raise InvalidRolloutError(f"truncate_ply evaluates through the neural bot's n-ply search; the evaluator "
                                      f"{BotRecipe.of(evaluator).text()!r} has none")
        return plies

    @staticmethod
    def _rules(rules: Rules | None, text: PositionText) -> Rules:
        """``rules`` with those the position's text states put over them (an XGID's maximum
        cube, its Jacoby and beaver rules in money play), checked against the position."""
        if rules is not None and not isinstance(rules, Rules):
            raise InvalidRolloutError(f"rules must be a Rules, got {rules!r}")
        rules = text.rules(rules)
        pos = text.position
        checkers = sum(VARIANTS[rules.variant][1])
        opponent_checkers, own_checkers = pos.checkers()
        if max(own_checkers, opponent_checkers) > checkers:
            raise InvalidRolloutError(
                f"position {pos.id()!r} has {own_checkers} checkers of the side on roll and {opponent_checkers} "
                f"of the opponent on the board, more than the {checkers} a side of {rules.variant}"
            )
        return rules

    @staticmethod
    def _match(match: MatchState, cube: bool = False) -> MatchState:
        """The match state checked; with ``cube``, a pending double is withdrawn (it is the
        decision rolled out: the doubler on roll before its roll)."""
        if not isinstance(match, MatchState):
            raise InvalidRolloutError(f"match must be a MatchState, got {match!r}")
        if match.resigned and cube:
            raise InvalidRolloutError(f"a resignation is offered ({match.describe()}, Match ID {match.match_id()}): "
                                      f"player {match.turn} is to answer it, not to double; roll out the position "
                                      "(without --cube) to judge the resignation")
        if match.double_offered and cube:
            match = dataclasses.replace(match, double_offered=False, turn=match.player_on_roll)
        if match.double_offered:
            raise InvalidRolloutError(f"a double is pending ({match.describe()}, Match ID {match.match_id()}): "
                                      "roll out the position before or after it, or the double with cube=True "
                                      "(bgfast rollout --cube)")
        if match.length and min(match.away(0), match.away(1)) == 0:
            raise InvalidRolloutError(f"the match is already over ({match.describe(dice=False)}, Match ID "
                                      f"{match.match_id()}): nothing to roll out")
        if match.game_state != GameState.PLAYING:
            raise InvalidRolloutError(f"no game is being played ({match.game_state.describe()}, Match ID "
                                      f"{match.match_id()}): nothing to roll out")
        if match.length > MAX_MATCH_LENGTH:
            raise InvalidRolloutError(
                f"match length {match.length} is beyond the longest the game loop plays ({MAX_MATCH_LENGTH})")
        return match

    @staticmethod
    def _players(bot: Any, evaluator: Any, truncate: int | None) -> tuple[Any, Any]:
        """The bot and the evaluator as objects."""
        bot_obj = get_bot(bot) if isinstance(bot, str) else bot
        if not (hasattr(bot_obj, "choose_move") or hasattr(bot_obj, "core_config")):
            raise InvalidRolloutError(f"bot {bot!r} has neither choose_move() nor core_config(): it cannot play")
        eval_obj = bot_obj if evaluator is None else (get_bot(evaluator) if isinstance(evaluator, str) else evaluator)
        if truncate is not None and not callable(getattr(eval_obj, "evaluate", None)):
            raise InvalidRolloutError(
                f"truncation after {truncate} plies needs an evaluator: {getattr(eval_obj, 'name', eval_obj)!r} "
                "has no evaluate() giving probabilities"
            )
        return bot_obj, eval_obj

    @staticmethod
    def _candidates(pos: Position, match: MatchState, rules: Rules, met: MatchEquityTable | None,
                    roll: Dice | None, plays: object, bot: Any) -> tuple[Move, ...] | None:
        """The plays rolled out when only some are (``plays`` a count or a sequence), checked
        legal, in notation order; None otherwise."""
        if isinstance(plays, bool) or roll is None:
            return None
        if isinstance(plays, int):
            top = _count(plays, "plays (the best K plays)")
            return tuple(sorted(_best_plays(pos, match, rules, met, roll, bot, top), key=str))
        if isinstance(plays, (str, Move)) or not isinstance(plays, Sequence):
            raise InvalidRolloutError(f"plays must be True, a number of plays or a list of plays, got {plays!r}")
        legal = pos.legal_moves(roll.high, roll.low)
        chosen: dict[Position, Move] = {}
        for given in plays:
            move = given if isinstance(given, Move) else pos.parse_move(str(given), roll)
            if move not in legal:
                raise InvalidRolloutError(f"play {str(move)!r} is not a play of {roll} in {pos.id()}")
            chosen.setdefault(move.position, move)      # the same play twice is rolled out once
        if not chosen:
            raise InvalidRolloutError("plays is an empty list: give at least one play")
        return tuple(sorted(chosen.values(), key=str))

    @staticmethod
    def _check_cube(match: MatchState, rules: Rules, roll: Dice | None, move: Move | None, plays: bool) -> None:
        """A cube decision is before the roll, and the side on roll may double."""
        if roll is not None or move is not None or plays:
            given = f"the dice {roll} are" if roll is not None else "a play is"
            raise InvalidRolloutError(f"the cube decision comes before the roll, but {given} given: "
                                      "roll out the position before its dice")
        try:
            match.double(match.player_on_roll, rules)
        except IllegalCubeActionError as exc:
            raise InvalidRolloutError(f"no cube decision to roll out: {exc}") from None

    @staticmethod
    def _check_exact_bearoff(truncate: int | None, rules: Rules) -> None:
        if truncate is None:
            raise InvalidRolloutError("exact_bearoff applies where trials are truncated: give truncate=N too")
        if rules.variant == "hypergammon":
            raise InvalidRolloutError("exact_bearoff uses a 15-checker database: not for hypergammon")
        try:
            import gnubg_nn  # noqa: F401
        except ImportError:
            raise InvalidRolloutError("exact_bearoff needs gnubg-nn (pip install bgfast[gnubg])") from None

    @staticmethod
    def _roll(dice: Dice | str | tuple[int, int] | None, match: MatchState) -> Dice | None:
        """The roll to play first: ``dice``, or the match state's; the two must agree."""
        if dice is None:
            return None if match.dice == (0, 0) else Dice(*match.dice)
        roll = Dice.of(dice)
        if match.dice != (0, 0) and roll != Dice(*match.dice):
            raise InvalidRolloutError(f"the match state says {Dice(*match.dice)} was rolled, "
                                      f"but the dice given are {roll}: give one or make them agree")
        return roll

    @staticmethod
    def _play(pos: Position, roll: Dice | None, play: Move | str | None, plays: bool) -> Move | None:
        """The one play to roll out, checked legal, or None."""
        if plays and roll is None:
            raise InvalidRolloutError("plays needs the dice it is a play of")
        if plays and play is not None:
            raise InvalidRolloutError(f"give either plays=True or play={play!r}, not both")
        if play is None:
            return None
        if roll is None:
            raise InvalidRolloutError("a play needs the dice it is a play of")
        move = play if isinstance(play, Move) else pos.parse_move(str(play), roll)
        if move not in pos.legal_moves(roll.high, roll.low):
            raise InvalidRolloutError(f"play {str(move)!r} is not a play of {roll} in {pos.id()}")
        return move
