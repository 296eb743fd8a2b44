"""The exceptions bgfast raises.

Every error caused by bad input is a :class:`ValueError` subclass as well as a
:class:`BgfastError`, so callers may catch either.  Messages quote the bad input
with ``repr`` and name the context.
"""
from typing import Any


class BgfastError(Exception):
    """Base class of every bgfast error."""


class InvalidPositionError(BgfastError, ValueError):
    """A Position ID, XGID or board that does not describe a legal position.

    Raised for a malformed ID (wrong length, characters outside the Base64
    alphabet, too many checkers encoded) and for impossible boards: more than
    15 checkers a side, negative counts, or a point held by both sides.
    """


class InvalidDiceError(BgfastError, ValueError):
    """Dice that are not two integers from 1 to 6 (or text that does not parse as such)."""


class InvalidMoveError(BgfastError, ValueError):
    """Move notation that does not parse (e.g. ``'24/x'``)."""


class IllegalMoveError(BgfastError, ValueError):
    """A move that parses but is not a legal play for this position and dice."""


class IllegalCubeActionError(BgfastError, ValueError):
    """A cube action the rules forbid: doubling in the Crawford game, doubling a
    cube owned by the opponent, doubling past the maximum cube value, or a take
    or pass with no double offered."""


class InvalidMatchIdError(BgfastError, ValueError):
    """A gnubg Match ID or XGID match field that does not parse."""


class InvalidMatchFileError(BgfastError, ValueError):
    """A match file (SGF, Jellyfish ``.mat``) that does not parse, or whose match breaks the
    rules: an illegal play, a cube action the rules forbid, a score or result that does not
    follow from the games.  The message starts with where: ``FILE: line N`` in a ``.mat`` file,
    ``FILE: game G, node N`` in an SGF file."""


class InvalidSpecError(BgfastError, ValueError):
    """A tournament spec (TOML) that is malformed; the message names the key path."""


class ResultsFileError(InvalidSpecError):
    """A tournament results file that cannot be used as one: missing, empty, not a bgfast
    results file (another SQLite database, other bytes), or damaged (a table dropped, rows
    deleted, pages that do not read); the message names the file and what is wrong.  A
    subclass of :class:`InvalidSpecError`, which these errors were before they had a class."""


class ResultsWriteError(BgfastError, OSError):
    """A results file the system will not let bgfast create or write: no permission for the
    file or its folder, a name too long, a full disk, an I/O error.  The chunks saved before
    stay in the file; the message names the file and the cause."""


class OutputFileError(BgfastError, OSError):
    """An output file (a CSV, a ``.mat`` or SGF file, a plot, weights) that the system will not
    let bgfast write: no permission for it or its folder, a folder that cannot hold files, a
    full disk or a file-size limit, an I/O error.  Every output file is written beside its
    name under a temporary one and renamed into place once whole
    (:func:`bgfast.validation.output_file`), so such a failure leaves no half-written file
    and a file of that name as it was; the message names the file and the system's reason.

    :ivar errno: the system's error number (:data:`errno.ENOSPC`...), or None.
    """


class UnknownBotError(BgfastError, ValueError):
    """A bot name that :func:`bgfast.bots.get_bot` does not know, a malformed bot spec, bad bot
    options (:class:`InvalidBotOptionsError`), or a bot whose optional package is not installed
    (:class:`BotPackageMissingError`; the message names the extra to install)."""


class InvalidBotOptionsError(UnknownBotError):
    """Options a known bot does not take, or an option value out of its range (``ply='1'``,
    a cube policy the bot does not have, a seed below 0...); the message names the option.
    A subclass of :class:`UnknownBotError`, which these errors were before they had a class."""


class BotPackageMissingError(UnknownBotError):
    """A bot whose optional package is not installed (``gnubg`` without gnubg-nn); the
    message names the package and the extra that installs it."""


class InvalidRolloutError(BgfastError, ValueError):
    """Rollout arguments that cannot be honoured (zero trials, a finished position...)."""


class InvalidAnalysisError(BgfastError, ValueError):
    """A position or request that cannot be judged (:mod:`bgfast.analysis`): a finished game
    or match, a cube decision asked for after the dice are rolled, a bot that gives no
    probabilities."""


class InvalidYardstickError(BgfastError, ValueError):
    """A yardstick file that cannot be read or does not parse, or an evaluator or depth it
    cannot measure (:mod:`bgfast.yardstick`)."""


class InvalidMetError(BgfastError, ValueError):
    """A match equity table that is unknown or does not parse, or a lookup outside it."""


class InvalidWeightsError(BgfastError, ValueError):
    """An evaluator's weights file that cannot be read or does not fit the evaluator
    (another number of rows or features, text that is not numbers; for the neural net's
    binary file also a wrong magic or version, a truncated file, a checksum that does not
    match); the message names the file."""


class WorkerFailedError(BgfastError, RuntimeError):
    """A tournament chunk whose play raised, or a worker process that died (a tournament's,
    or a label run's of :mod:`bgfast.train.rollout_labels`).

    Finished chunks (label blocks) are saved; re-running the same spec (command) resumes.

    :ivar chunk: the chunk that failed (or one of those in flight when a worker died).
    :ivar trace: the worker's traceback, when there is one.
    """

    def __init__(self, message: str, *, chunk: int | None = None, trace: str = "") -> None:
        super().__init__(message)
        self.chunk = chunk
        self.trace = trace


class EngineForfeitsError(WorkerFailedError):
    """An outside player that forfeited :data:`~bgfast.engines.resilient.MAX_FORFEITS_IN_A_ROW`
    matches in a row and finished none between them (it crashes, hangs or answers illegally
    on every match): the tournament stops instead of forfeiting the rest of its matches.
    Finished chunks are saved; re-running the same spec resumes.  The message names the
    player, its engine, the matches and the last fault.

    :ivar player: the player's name in the spec.
    :ivar matches: the indices of the forfeited matches, in schedule order.
    """

    def __init__(self, message: str, *, player: str, matches: tuple[int, ...]) -> None:
        super().__init__(message)
        self.player = player
        self.matches = matches


class BotFailedError(BgfastError, RuntimeError):
    """A Python bot (a plugin, a registered bot) whose own code failed while it played:
    its ``choose_move``, ``should_double`` or ``accept_double`` raised, or ``choose_move``
    returned no play (None) or an illegal one.  The message names the bot as it was given
    and the error, ``bot 'NAME' failed: ExcType: message``; the bot's exception is the
    ``__cause__``, with its traceback."""


def one_line(exc: BaseException) -> str:
    """``exc``'s message on one line (whitespace runs made one space), or its type's name
    when it has no message: how the CLI and :class:`BotFailedError` quote an error."""
    return " ".join(str(exc).split()) or type(exc).__name__


def failure_text(exc: BaseException) -> str:
    """``exc`` on one line as a failure during play is quoted: bgfast's own errors by their
    message alone (it says what happened: "engine 'x' exited"), any other with its type's
    name first (a plugin's ``ZeroDivisionError: division by zero``)."""
    return one_line(exc) if isinstance(exc, BgfastError) else f"{type(exc).__name__}: {one_line(exc)}"


def shortened(text: str, limit: int = 100) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and its end with
    ``...`` between, ``limit`` characters in all: how a message quotes a long input (a
    3,000-character path) so that it stays one readable line.

    >>> shortened("results/" + "x" * 300 + ".sqlite", 30)
    'results/xxxxxx...xxxxxx.sqlite'
    """
    if len(text) <= limit:
        return text
    head = (limit - 3 + 1) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head):]


class RolloutSaveError(OutputFileError):
    """A rollout whose trials finished but whose save file (``save_rollout``, ``extend_rollout``,
    ``bgfast rollout --save``) could not be written: the trials are not lost, the result is
    in :attr:`result`; the message names the file and the system's reason."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
        """The :class:`~bgfast.rollout.RolloutResult` the file was to hold."""


class RolloutWorkerError(BgfastError, RuntimeError):
    """A rollout worker process that died (killed, out of memory...) before its trials were played.

    The rollout stops at once, without its result: its trials are a pure function of
    the arguments, so running it again gives the result it would have given.  What was
    finished is kept in :attr:`partial`, as an interrupted rollout keeps it.
    """

    def __init__(self, message: str, partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial
        """The :class:`~bgfast.rollout.RolloutResult` of the trials finished before the
        death, in whole rounds of the stratified rolls and marked ``interrupted`` (as
        after Ctrl-C with ``interruptible=True``), or None when too few were (the message
        says which)."""


class MissingExtraError(BgfastError, ImportError):
    """An optional dependency that a feature needs is not installed (the message names the extra)."""


class BotLoadError(UnknownBotError):
    """A plugin bot (``module:factory`` or an entry point of the group ``bgfast.bots``) that
    cannot be loaded: its module is missing or fails to import, the name is not in it or is
    not callable, or the factory raises.  The message names the plugin and the cause."""


class BotNotOnWorkersError(UnknownBotError):
    """A player's bot that this process builds but a Dask worker cannot: a bot registered
    at run time with :func:`bgfast.bots.register_bot` (it exists only in the process that
    registered it), or a plugin whose package or module the worker lacks.  The message names
    the player, its bot, the worker and the fix: publish the bot as an entry point of a package
    installed on every worker, or name it ``module:factory`` with the module importable there.

    :ivar player: the player's name.
    :ivar bot: the player's bot, as the spec writes it.
    """

    def __init__(self, message: str, *, player: str, bot: str) -> None:
        super().__init__(message)
        self.player = player
        self.bot = bot


class UbgiError(BgfastError, ValueError):
    """A UBGI v0.2 line that does not parse, or a value it carries that is out of range.

    :ivar code: the UBGI error code the line earns: ``bad_command``, ``bad_value``,
        ``bad_state`` or ``unsupported`` (UBGI v0.2, section 5).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class InvalidFibsBoardError(InvalidPositionError):
    """A FIBS ``board:`` line (the FIBS client protocol's board state) that does not parse
    or describes an impossible board."""


class EngineStartError(BgfastError, ValueError):
    """An outside engine that cannot be used, found before any match is played: a command
    that is missing or not executable, a process that exits or fails its handshake, an
    option it refuses."""


class EngineError(BgfastError, RuntimeError):
    """An outside engine that failed during play; the tournament restarts it and replays the
    match (after three failures of one match, the match is a forfeit).

    :ivar engine: the engine's name.
    :ivar kind: ``"crash"``, ``"timeout"`` or ``"illegal"`` (an illegal or unparsable answer),
        the counter the fault is counted in.
    :ivar seat: the seat (0 or 1) of the engine at the failed decision, or None if unknown.
    :ivar match: the match state of the failed decision, or None.
    """

    kind = "crash"

    def __init__(self, message: str, *, engine: str = "", seat: int | None = None,
                 match: object = None) -> None:
        super().__init__(message)
        self.engine = engine
        self.seat = seat
        self.match = match


class EngineCrashedError(EngineError):
    """An engine process that exited or closed its connection during play."""

    kind = "crash"


class EngineTimeoutError(EngineError):
    """An engine that gave no answer to a decision within its time limit (``timeout_s``)."""

    kind = "timeout"


class EngineIllegalAnswerError(EngineError):
    """An engine answer that parses but is not allowed: an illegal move for the position and
    dice, or a cube answer that does not fit the question."""

    kind = "illegal"


class EngineProtocolError(EngineError):
    """An engine answer that does not parse: garbage, an unexpected line, an error line."""

    kind = "illegal"


class Terminated(KeyboardInterrupt):
    """A SIGTERM (``kill PID``) turned into an interruption, so that a long run stops as
    after a Ctrl-C: finished work saved, a line saying so, status 143."""

    reason = "SIGTERM"
