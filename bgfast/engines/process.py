"""Outside engine processes: start them, read their lines with a deadline, log their stderr.

An engine process is started once and reused; it ends with the process that started it
(on Linux through ``PR_SET_PDEATHSIG``, so even a ``kill -9`` of the tournament worker
takes it along; GNU Backgammon's ``external`` would otherwise listen for a new connection
forever).  Linux sends that signal when the *thread* that started the engine ends, so
engines are started from long-lived threads (a worker's main thread, a Dask worker's
executor thread); UBGI engines also see the end of their stdin when their parent dies.  Its
stderr (and, for programs that talk over a socket, its stdout) goes line by line to the
``bgfast.engines`` logger, which a tournament writes to its run log: the first MiB of each
engine process (lines cut at 2,000 characters), then one warning, the rest read and dropped.

Lines are read through :class:`LineReader`, which waits on the file descriptor with
``poll`` so that every read has a deadline (POSIX only).
"""
from __future__ import annotations

import collections
import logging
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO

from bgfast.errors import EngineStartError

__all__ = ["EngineProcess", "LineReader", "check_command", "log"]

log = logging.getLogger("bgfast.engines")

_STDERR_TAIL = 20  # lines of an engine's stderr kept for error messages
_LOG_BYTES = 1 << 20  # bytes of one engine process's stderr written to the log, at most
_LOG_LINE_CHARS = 2000  # characters of one stderr line logged or kept, at most

_PR_SET_PDEATHSIG = 1


def _parent_death_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child get SIGKILL when its parent dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return None
    kill = int(signal.SIGKILL)

    def hook() -> None:  # runs in the child between fork and exec: no allocation-heavy work
        prctl(_PR_SET_PDEATHSIG, kill)

    return hook


_DIE_WITH_PARENT = _parent_death_hook()


def check_command(command: object, what: str = "engine command") -> list[str]:
    """``command`` as a list of strings whose program exists and is executable, without
    starting it.

    >>> check_command(["sh", "-c", "true"])[0]
    'sh'
    >>> check_command(["/no/such/engine"])
    Traceback (most recent call last):
    ...
    bgfast.errors.EngineStartError: engine command '/no/such/engine' is not an executable file

    :raises EngineStartError: not a non-empty list of strings, or a program that is not
        found on ``PATH`` or not executable.
    """
    if isinstance(command, str) or not isinstance(command, Sequence) or not command \
            or not all(isinstance(part, str) and part for part in command):
        raise EngineStartError(f"{what} must be a non-empty list of strings, got {command!r}")
    program = command[0]
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise EngineStartError(f"{what} {program!r} is not an executable file")
    elif shutil.which(program) is None:
        raise EngineStartError(f"{what} {program!r} is not found on PATH")
    return list(command)


class LineReader:
    """Reads text lines from a file descriptor, each read with a deadline.

    :param fd: a pipe or socket descriptor, read with ``os.read``.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN | select.POLLPRI)

    def readline(self, deadline: float | None) -> str:
        """The next line, stripped, waiting until ``deadline`` (``time.monotonic()``; None:
        no limit).

        :raises TimeoutError: no whole line by the deadline.
        :raises EOFError: the other end closed (the process exited).
        """
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[:end], self._buffer[end + 1:]
                return line.decode("utf-8", "replace").strip()
            if deadline is None:
                wait = -1
            else:
                wait = int((deadline - time.monotonic()) * 1000.0) + 1
                if wait <= 0:
                    raise TimeoutError("no answer in time")
            if not self._poll.poll(wait):
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError("no answer in time")
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("the engine closed its output")
            self._buffer += chunk

    def pending(self) -> bool:
        """True if a whole line is already buffered."""
        return b"\n" in self._buffer


class EngineProcess:
    """One running outside program.

    :param command: the program and its arguments.
    :param name: the engine's name in log lines and messages.
    :param merge_stdout: send stdout to the log with stderr (for programs that answer on
        a socket); otherwise stdout is a pipe read through :attr:`reader`.
    :raises EngineStartError: the program cannot be started (see :meth:`start`).
    """

    def __init__(self, command: Sequence[str], *, name: str, merge_stdout: bool = False) -> None:
        self.command = list(command)
        self.name = name
        self.merge_stdout = merge_stdout
        self.proc: subprocess.Popen[bytes] | None = None
        self.reader: LineReader | None = None
        self._stdin: IO[bytes] | None = None
        self._tail: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL)
        self._log_thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the program.

        :raises EngineStartError: it is not found, not executable, or the system refuses.
        """
        try:
            self.proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT if self.merge_stdout else subprocess.PIPE,
                bufsize=0, close_fds=True, preexec_fn=_DIE_WITH_PARENT)  # noqa: PLW1509 - see _parent_death_hook
        except OSError as exc:
            raise EngineStartError(f"engine {self.name!r}: cannot start {self.command[0]!r}: "
                                   f"{exc.strerror or exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin = self.proc.stdin
        logged = self.proc.stdout if self.merge_stdout else self.proc.stderr
        if not self.merge_stdout:
            self.reader = LineReader(self.proc.stdout.fileno())
        log.info("engine %s: started %s (pid %d)", self.name, " ".join(self.command), self.proc.pid)
        if logged is not None:
            self._log_thread = threading.Thread(target=self._log_lines, args=(logged, self.proc.pid),
                                                name=f"bgfast-engine-log-{self.proc.pid}", daemon=True)
            self._log_thread.start()

    def _log_lines(self, stream: IO[bytes], pid: int) -> None:
        logged = 0
        try:
            for raw in iter(stream.readline, b""):
                text = raw.decode("utf-8", "replace").rstrip()
                if not text:
                    continue
                self._tail.append(text[:_LOG_LINE_CHARS])
                if logged < _LOG_BYTES:               # a chatty engine must not fill the disk
                    logged += len(raw)
                    log.info("engine %s (pid %d): %s", self.name, pid, text[:_LOG_LINE_CHARS])
                    if logged >= _LOG_BYTES:
                        log.warning("engine %s (pid %d): more than %d bytes of stderr; the rest of this process's "
                                    "is read but not logged", self.name, pid, _LOG_BYTES)
        except (OSError, ValueError):  # the stream was closed by kill()
            pass

    @property
    def pid(self) -> int | None:
        """The process id, or None before :meth:`start`."""
        return self.proc.pid if self.proc is not None else None

    def returncode(self) -> int | None:
        """The exit status if the process has ended, else None."""
        return self.proc.poll() if self.proc is not None else None

    def write(self, text: str) -> None:
        """Send ``text`` to the program's stdin.

        :raises BrokenPipeError: the program has closed its stdin (it exited).
        """
        assert self._stdin is not None, "start() first"
        self._stdin.write(text.encode("utf-8"))

    def stderr_tail(self) -> str:
        """The last lines the program wrote to its log stream, joined with ' | '."""
        if self._log_thread is not None:
            self._log_thread.join(0.05)
        return " | ".join(self._tail)

    def describe_exit(self) -> str:
        """How the process ended (status or signal) and its last stderr lines, for messages."""
        code = self.returncode()
        if code is None and self.proc is not None:
            try:
                code = self.proc.wait(0.2)
            except subprocess.TimeoutExpired:
                code = None
        if code is None:
            state = "is still running"
        elif code < 0:
            state = f"was killed by signal {-code}"
        else:
            state = f"exited with status {code}"
        tail = self.stderr_tail()
        return f"{state}{'; stderr: ' + tail if tail else ''}"

    def kill(self) -> None:
        """End the program at once (SIGKILL) and reap it."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:  # pragma: no cover - already gone
                pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
            log.warning("engine %s (pid %d) did not die", self.name, proc.pid)
        self._close_pipes()

    def close(self, goodbye: str | None = None, grace: float = 1.0) -> None:
        """Ask the program to exit with ``goodbye`` (e.g. ``"quit\\n"``), wait up to
        ``grace`` seconds, then kill it."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None and goodbye:
            try:
                self.write(goodbye)
                proc.wait(grace)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        log.info("engine %s (pid %d): stopped", self.name, proc.pid)

    def _close_pipes(self) -> None:
        proc = self.proc
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # pragma: no cover
                    pass
