"""Checks of argument values, one home for the "an integer, not a bool, in range" rule,
for the "a regular file, no larger than its format can be" rule of every file bgfast reads,
and for the "written beside, then renamed into place" rule of every file bgfast writes
(:func:`output_file`).

Every public entry point of bgfast validates what it is given and raises a specific
:class:`~bgfast.errors.BgfastError` (a :class:`ValueError` subclass) that names the
argument or key path and quotes the bad value with ``repr``.  These helpers are that
check, written once; the caller picks the exception class for its context
(``InvalidSpecError`` for a tournament spec, ``InvalidMatchIdError`` for a Match ID
field, ...).

``bool`` is a subclass of ``int`` in Python; a flag passed where a count is expected is
almost always a mistake, so :func:`whole_number` refuses it.  numpy integers are
accepted and returned as plain ``int``.

>>> whole_number(3, "trials", low=1)
3
>>> whole_number(True, "trials", low=1)
Traceback (most recent call last):
...
ValueError: trials must be a whole number of at least 1, got True
>>> from bgfast.errors import InvalidSpecError
>>> whole_number(0, "players[1].options.ply", low=0, high=2, error=InvalidSpecError)
0
>>> real_number(1.5, "cube_efficiency", low=0.0, high=1.0)
Traceback (most recent call last):
...
ValueError: cube_efficiency must be a number from 0.0 to 1.0, got 1.5
"""
from __future__ import annotations

import contextlib
import math
import os
import stat
import tempfile
from collections.abc import Collection, Iterator
from typing import IO, Any

import numpy as np

from bgfast.errors import BgfastError, OutputFileError, shortened

__all__ = ["check_input_file", "check_output_file", "flag", "one_of", "output_file", "output_file_fault", "output_folder", "power_of_two", "read_input_file",
           "real_number", "whole_number", "write_output_file"]


def _range_words(low: float | None, high: float | None, strict: bool = False) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}" if strict else f"from {low} to {high}"
    if low is not None:
        return f"above {low}" if strict else f"of at least {low}"
    if high is not None:
        return f"below {high}" if strict else f"of at most {high}"
    return ""


def _problem(name: str, what: str, bounds: str, value: object) -> str:
    return f"{name} must be {what}{' ' + bounds if bounds else ''}, got {value!r}"


def whole_number(value: object, name: str, *, low: int | None = None, high: int | None = None,
                 error: type[ValueError] = ValueError, what: str = "a whole number",
                 bounds: str | None = None) -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) within ``[low, high]``.

    >>> whole_number(0, "truncate", low=1, high=2**31 - 1, what="a positive integer",
    ...              bounds=f"up to {2**31 - 1:,}")
    Traceback (most recent call last):
    ...
    ValueError: truncate must be a positive integer up to 2,147,483,647, got 0

    :param name: what the value is, as the message shows it (an argument, a key path).
    :param low: the smallest allowed value, or None; :param high: the largest, or None.
    :param error: the exception class to raise (a :class:`ValueError` subclass).
    :param what: how the message names the expected kind of value.
    :param bounds: how the message names the allowed range (``""``: not at all, when
        ``what`` says it); default from ``low`` and ``high`` ("from 0 to 2", "of at least 1").
    :raises error: a bool, a non-integer, or a value out of range.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number = int(value)
        if (low is None or number >= low) and (high is None or number <= high):
            return number
    raise error(_problem(name, what, _range_words(low, high) if bounds is None else bounds, value))


def real_number(value: object, name: str, *, low: float | None = None, high: float | None = None,
                strict: bool = False, error: type[ValueError] = ValueError, what: str = "a number",
                bounds: str | None = None) -> float:
    """``value`` as a ``float`` if it is a finite real number (not a bool) within ``[low, high]``
    (within ``(low, high)`` when ``strict``).

    >>> real_number(0.0, "target_se", low=0.0, strict=True)
    Traceback (most recent call last):
    ...
    ValueError: target_se must be a number above 0.0, got 0.0

    :param what: and :param bounds: name the expected value as in :func:`whole_number`.
    :raises error: a bool, a non-number, NaN or infinity, or a value out of range.
    """
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        number = float(value)
        if strict:
            inside = (low is None or number > low) and (high is None or number < high)
        else:
            inside = (low is None or number >= low) and (high is None or number <= high)
        if math.isfinite(number) and inside:
            return number
    raise error(_problem(name, what, _range_words(low, high, strict) if bounds is None else bounds, value))


def flag(value: object, name: str, *, error: type[ValueError] = ValueError, zero_one: bool = False) -> bool:
    """``value`` if it is a bool (``True`` / ``False``).

    :param zero_one: accept the integers 0 and 1 as well (a flag read from a bit field).

    >>> flag(False, "rules.crawford")
    False
    >>> flag(1, "crawford", zero_one=True)
    True

    :raises error: anything else, including 0 and 1 unless ``zero_one``.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if zero_one and isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise error(f"{name} must be true or false, got {value!r}")


def power_of_two(value: object, name: str, *, low: int = 1, high: int | None = None,
                 error: type[ValueError] = ValueError) -> int:
    """``value`` as an ``int`` if it is a power of two (an integer, not a bool) within ``[low, high]``.

    >>> power_of_two(64, "rules.max_cube", low=2, high=32768)
    64
    >>> power_of_two(48, "rules.max_cube", low=2, high=32768)
    Traceback (most recent call last):
    ...
    ValueError: rules.max_cube must be a power of two from 2 to 32768, got 48

    :raises error: a bool, a non-integer, not a power of two, or out of range.
    """
    if not isinstance(value, bool) and isinstance(value, (int, np.integer)):
        number = int(value)
        if number >= max(low, 1) and not number & (number - 1) and (high is None or number <= high):
            return number
    bounds = _range_words(low, high)
    raise error(f"{name} must be a power of two {bounds}, got {value!r}")


def one_of(value: object, name: str, choices: Collection[object], *,
           error: type[ValueError] = ValueError) -> object:
    """``value`` if it is one of ``choices``.

    >>> one_of("met", "cube", ("never", "met"))
    'met'

    :raises error: any other value; the message lists the choices.
    """
    if not isinstance(value, bool) and value in choices:
        return value
    listed = ", ".join(str(c) for c in choices)
    raise error(f"{name} must be one of {listed}, got {value!r}")


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a plain file"


def _unreadable(what: str, path: str | os.PathLike[str], reason: str, error: type[ValueError]) -> ValueError:
    return error(f"cannot read {what} {shortened(os.fspath(path))!r}: {reason}")


def check_input_file(path: str | os.PathLike[str], what: str, *, limit: int,
                     error: type[ValueError] = ValueError) -> int:
    """The size in bytes of ``path`` if it is a regular file (a link to one counts) of at most
    ``limit`` bytes: what every reader of a user's file checks before it reads, so that a
    device (``/dev/zero``), a pipe or a folder is refused in one line instead of read
    without end.  Use :func:`read_input_file` to read the file too.

    >>> check_input_file("/dev/zero", "tournament spec", limit=1 << 24)
    Traceback (most recent call last):
    ...
    ValueError: cannot read tournament spec '/dev/zero': it is a character device, not a regular file

    :param what: what the file is, as the message names it (``"tournament spec"``).
    :param limit: the most bytes a file of its format can hold.
    :raises error: ``cannot read WHAT 'PATH': REASON``: a path that does not exist or cannot
        be looked up (the system's reason), not a regular file, or larger than ``limit``.
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise _unreadable(what, path, reason, error) from None
    if not stat.S_ISREG(info.st_mode):
        raise _unreadable(what, path, f"it is {_file_kind(info.st_mode)}, not a regular file", error)
    if info.st_size > limit:
        raise _unreadable(what, path, f"it is {info.st_size:,} bytes, more than such a file can be "
                          f"({limit:,} at most)", error)
    return info.st_size


def read_input_file(path: str | os.PathLike[str], what: str, *, limit: int,
                    error: type[ValueError] = ValueError) -> bytes:
    """The bytes of the file ``path``, checked by :func:`check_input_file` first; a file that
    grows past ``limit`` while it is read is refused as well (at most ``limit + 1`` bytes are
    read).

    :raises error: as :func:`check_input_file`, or a file that cannot be opened or read (the
        system's reason).
    """
    check_input_file(path, what, limit=limit, error=error)
    try:
        with open(path, "rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise _unreadable(what, path, exc.strerror or str(exc), error) from None
    if len(data) > limit:
        raise _unreadable(what, path, f"it is more than such a file can be ({limit:,} bytes at most)", error)
    return data


def _unwritable(what: str, path: str, exc: OSError | str) -> OutputFileError:
    """The error of an output file that could not be written, naming it and the reason."""
    reason = exc if isinstance(exc, str) else (exc.strerror or os.strerror(exc.errno) if exc.errno else str(exc))
    error = OutputFileError(f"cannot write {what} {shortened(path)!r}: {reason}; nothing was written")
    error.errno = None if isinstance(exc, str) else exc.errno
    return error


def _new_file_mode() -> int:
    """The permissions a new file gets: read and write for all, less the process's umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def output_file(path: str | os.PathLike[str], what: str, *, binary: bool = False,
                sync: bool = False) -> Iterator[IO[Any]]:
    """A file to write ``path``'s new content into, put in place only once it is whole: the
    one way bgfast writes an output file (CSV, ``.mat``, SGF, plots, weights).

    The content goes to a temporary file in the same folder, which replaces ``path`` (a
    rename, atomic) when the ``with`` block ends without an error; on an error it is
    removed, so that a full disk, a file-size limit or an interruption never leaves a
    truncated file, and a file of that name is left as it was.  A new file gets the usual
    permissions (the umask's), a replaced one keeps its own; a link is written through.
    A device or a pipe (``/dev/stdout``) is written as it is, having nothing to rename.
    Text is UTF-8 with ``\\n`` line ends.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with output_file(path, "the example") as f:
    ...     _ = f.write("whole\\n")
    >>> open(path).read(), os.listdir(os.path.dirname(path))
    ('whole\\n', ['out.txt'])
    >>> with output_file("/proc/version", "the example") as f:
    ...     _ = f.write("x")
    Traceback (most recent call last):
    ...
    bgfast.errors.OutputFileError: cannot write the example '/proc/version': ...; nothing was written

    :param what: what the file is, as the message names it (``"the matches CSV"``).
    :param binary: a binary file (default: text).
    :param sync: flush the content to the disk before the rename (``fsync``), for files
        that must survive a power cut (checkpoints); slower.
    :raises OutputFileError: ``cannot write WHAT 'PATH': REASON; nothing was written``: the
        path is a folder, its folder cannot hold a new file, or writing failed; an
        :class:`OSError` raised in the block is turned into this error as well.
    """
    name = os.fspath(path)
    try:
        info: os.stat_result | None = os.stat(name)
    except (OSError, ValueError):
        info = None
    mode = "wb" if binary else "w"
    text = {} if binary else {"encoding": "utf-8", "newline": "\n"}
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise _unwritable(what, name, "it is a folder")
    if info is not None and not stat.S_ISREG(info.st_mode):  # a device, a pipe: nothing to rename
        try:
            with open(name, mode, **text) as stream:  # type: ignore[call-overload]
                yield stream
        except OSError as exc:
            if isinstance(exc, BgfastError):
                raise
            raise _unwritable(what, name, exc) from None
        return
    target = os.path.realpath(name) if os.path.islink(name) else name  # a link is written through
    folder, base = os.path.split(target)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{base[:200]}.", suffix=".tmp", dir=folder or ".")
    except (OSError, ValueError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        error = _unwritable(what, name, f"its folder {shortened(folder or '.')!r} takes no new file ({reason})")
        error.errno = exc.errno if isinstance(exc, OSError) else None
        raise error from None
    try:
        os.fchmod(fd, stat.S_IMODE(info.st_mode) if info is not None else _new_file_mode())
        with open(fd, mode, **text) as handle:  # type: ignore[call-overload]
            yield handle
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError) and not isinstance(exc, BgfastError):
            raise _unwritable(what, name, exc) from None
        raise


def write_output_file(path: str | os.PathLike[str], data: str | bytes, what: str, *, sync: bool = False) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` through :func:`output_file`.

    :raises OutputFileError: as :func:`output_file`.
    """
    with output_file(path, what, binary=isinstance(data, bytes), sync=sync) as handle:
        handle.write(data)


def output_file_fault(path: str | os.PathLike[str], *, device: bool = False) -> str | None:
    """Why :func:`output_file` could not write ``path``, or None: it is a folder; it is a
    device or pipe (unless ``device``: ``/dev/stdout`` takes text, but a binary file there
    would be mixed with the command's messages); its folder does not exist; this process
    may not make a file in it.  A name the system refuses to look up (too long...) is left
    to the writer, whose error names the fault.  The one home of these checks, which
    :func:`check_output_file` and the command line's output options word their own way."""
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    try:
        if os.path.isdir(name):
            return "it is a folder, not a file"
        if not device and os.path.exists(name) and not os.path.isfile(name):
            return "it is not a regular file (a device or a pipe); name a file"
        if not os.path.isdir(folder):
            return f"there is no folder {shortened(os.path.dirname(name) or '.')!r}"
        if not os.path.exists(name) and not os.access(folder, os.W_OK | os.X_OK):
            return os.strerror(13)
    except (OSError, ValueError):
        return None
    return None


def check_output_file(path: str | os.PathLike[str], what: str) -> None:
    """Check, before a long computation, that :func:`output_file` could write ``path``
    (:func:`output_file_fault`: not a folder nor a device or pipe, in a folder that exists
    and that this process may write in).

    :raises OutputFileError: ``cannot write WHAT 'PATH': REASON; nothing was written``.
    """
    fault = output_file_fault(path, device=False)
    if fault is not None:
        raise _unwritable(what, os.fspath(path), fault)


def output_folder(path: str | os.PathLike[str], what: str) -> None:
    """Make the folder ``path`` (and the folders above it) if it does not exist, for output
    files to go into.

    :raises OutputFileError: ``cannot make WHAT 'PATH': REASON``: it is a file, or the
        system refuses (no permission, a read-only or full file system...).
    """
    name = os.fspath(path)
    try:
        os.makedirs(name, exist_ok=True)
    except (OSError, ValueError) as exc:
        reason = "it is a file, not a folder" if isinstance(exc, FileExistsError) else (
            exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc))
        error = OutputFileError(f"cannot make {what} {shortened(name)!r}: {reason}")
        error.errno = exc.errno if isinstance(exc, OSError) else None
        raise error from None
