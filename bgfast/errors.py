"""The exceptions bgfast raises.

Every error caused by bad input is a :class:`ValueError` subclass as well as a
:class:`BgfastError`, so callers may catch either.  Messages quote the bad input
with ``repr`` and name the context.
"""


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


class InvalidSpecError(BgfastError, ValueError):
    """A tournament spec (TOML) that is malformed; the message names the key path."""


class UnknownBotError(BgfastError, ValueError):
    """A bot name that :func:`bgfast.bots.get_bot` does not know, bad bot options, or a bot
    whose optional package is not installed (the message names the extra to install)."""


class InvalidRolloutError(BgfastError, ValueError):
    """Rollout arguments that cannot be honoured (zero trials, a finished position...)."""


class InvalidMetError(BgfastError, ValueError):
    """A match equity table that is unknown or does not parse, or a lookup outside it."""


class InvalidWeightsError(BgfastError, ValueError):
    """An evaluator's weights file that cannot be read or does not fit the evaluator
    (another number of rows or features, text that is not numbers; for the neural net's
    binary file also a wrong magic or version, a truncated file, a checksum that does not
    match); the message names the file."""


class WorkerFailedError(BgfastError, RuntimeError):
    """A tournament chunk whose play raised, or a worker process that died.

    Finished chunks are saved; re-running the same spec resumes.

    :ivar chunk: the chunk that failed (or one of those in flight when a worker died).
    :ivar trace: the worker's traceback, when there is one.
    """

    def __init__(self, message: str, *, chunk: int | None = None, trace: str = "") -> None:
        super().__init__(message)
        self.chunk = chunk
        self.trace = trace


class RolloutWorkerError(BgfastError, RuntimeError):
    """A rollout worker process that died (killed, out of memory...) before its trials were played.

    The rollout stops at once, with no result: its trials are a pure function of
    the arguments, so running it again gives the result it would have given.
    """


class MissingExtraError(BgfastError, ImportError):
    """An optional dependency that a feature needs is not installed (the message names the extra)."""
