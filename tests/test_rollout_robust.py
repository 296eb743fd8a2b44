"""Rollouts over worker processes: a worker killed with kill -9, Ctrl-C, SIGTERM, more workers
than work.

The command-line tests start ``python -m bgfast rollout`` in a child process and kill
or interrupt it (or one of its workers); every wait has a timeout, so a hang fails the
test instead of stalling the suite.  They wait for what they need to have happened (the
worker processes, CPU time spent in them, a file a bot writes), never for a fixed time, so
that a loaded machine makes them slower, not wrong.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tournament_helpers import alive, child_env, children_of

from bgfast import Position, procs
from bgfast.bots import Bot, get_bot
from bgfast.cli import main
from bgfast.errors import BgfastError, RolloutWorkerError
from bgfast.rollout import engine, rollout

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses fork, /proc and SIGKILL")

LONG = ("rollout", "4HPwATDgc/ABMA", "--trials", "1296000", "--workers", "2", "--no-luck")
"""A rollout that runs for far longer than any test waits."""

LONG_PUBEVAL = ("rollout", "4HPwATDgc/ABMA", "--trials", "12960000", "--workers", "2", "--no-luck",
                "--bot", "pubeval", "--json")
"""As :data:`LONG` (minutes), with a bot fast enough to check its trials again in this process."""

ROUND = 1296
"""The trials of a round of the stratified pairs of first two rolls: a rollout stopped early keeps whole ones."""


def start_rollout(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """``bgfast ARGS...`` in a child process, the leader of its own process group.

    It runs in ``cwd`` (a scratch folder), so that ``python -m`` imports the bgfast
    this process imported, not a source tree that happens to be the current folder.
    """
    return subprocess.Popen([sys.executable, "-m", "bgfast", *args], env=child_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd)


def wait_for_workers(proc: subprocess.Popen[str], n: int, timeout: float = 30.0,
                     parent: int | None = None) -> list[int]:
    """The pids of ``proc``'s (or ``parent``'s) ``n`` worker processes, once they have been
    playing for a moment."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the rollout ended early: {proc.communicate()}"
        workers = children_of(proc.pid if parent is None else parent)
        if len(workers) >= n:
            time.sleep(0.5)  # let them start their blocks
            return workers
        time.sleep(0.02)
    raise AssertionError(f"no {n} worker processes after {timeout} s")


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_trials(proc: subprocess.Popen[str], rollout_pid: int | None = None, cpu: float = 1.0,
                    timeout: float = 120.0) -> list[int]:
    """The pids of the rollout's two workers once they have used ``cpu`` CPU-seconds together:
    some rounds of trials are finished then (pubeval plays a round in about 0.05 s, neural
    no-luck in 0.5 s), however loaded the machine.  ``rollout_pid``: the rollout's, when
    ``proc`` is a shell that started it."""
    deadline = time.monotonic() + timeout
    workers = wait_for_workers(proc, 2, timeout, parent=rollout_pid)
    while sum(cpu_seconds(pid) for pid in workers) < cpu:
        assert proc.poll() is None, f"the rollout ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, f"the workers used under {cpu} CPU-seconds in {timeout} s"
        time.sleep(0.02)
    return workers


def stopped_result(out: str, err: str, requested: int) -> tuple[dict, int]:
    """The JSON result a stopped rollout printed, and its trials: whole rounds, marked interrupted."""
    result = json.loads(out)
    n = result["trials"]
    assert result["interrupted"] is True and result["trials_requested"] == requested
    assert ROUND <= n < requested and n % ROUND == 0, n
    assert err.count("\n") == 1, err
    return result, n


def assert_gone(pids: list[int], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids), "worker processes outlived the rollout"


@pytest.fixture
def proc_cleanup() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail (rather than hang) an in-process rollout that does not return within 30 s."""
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("the rollout hung")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(30)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- a worker dies


def test_kill_9_of_a_worker_prints_the_finished_trials_result_and_a_one_line_error(proc_cleanup: list,
                                                                                   tmp_path: Path) -> None:
    proc = start_rollout(tmp_path, *LONG_PUBEVAL)
    proc_cleanup.append(proc)
    workers = wait_for_trials(proc, cpu=0.5)
    os.kill(workers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    result, n = stopped_result(out, err, 12960000)
    assert err.startswith("bgfast: error: a rollout worker process died (killed?) while trials "), err
    assert err.endswith(f" were being played; the rollout is stopped, with the result of the {n:,} trials "
                        "finished before it (of 12,960,000 asked for)\n"), err
    # the figures are those of the first n trials, as a rollout of n trials gives them
    assert result["equity"] == rollout(Position(), trials=n, bot="pubeval", luck=False).equity.value
    assert_gone(workers)


class KillsItsWorker(Bot):
    """Plays like pubeval in the parent; in a worker process it kills that process (SIGKILL)."""

    name = "kills-its-worker"

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self._bot: Bot | None = None

    def __getstate__(self) -> dict:
        return {"parent": self.parent, "_bot": None}

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        if os.getpid() != self.parent:
            os.kill(os.getpid(), signal.SIGKILL)
        if self._bot is None:
            self._bot = get_bot("pubeval", cube="never")
        return self._bot.choose_move(position, dice, match)


def test_a_worker_that_dies_raises_a_bgfast_error_from_the_api(deadline: None) -> None:
    with pytest.raises(RolloutWorkerError, match="worker process died") as info:
        rollout(Position(), bot=KillsItsWorker(os.getpid()), trials=720, workers=2, luck=False)
    assert isinstance(info.value, BgfastError)
    assert info.value.partial is None and str(info.value).endswith("the rollout is stopped, with no result")
    # in the parent the same bot plays: it is the dead worker that failed, not the arguments
    assert rollout(Position(), bot=KillsItsWorker(os.getpid()), trials=2, luck=False).trials == 2


_real_run_block = engine._run_block


def _dies_from_block_13(bounds: tuple[int, int]) -> object:
    """A worker's block call that kills its worker on the blocks of 162 trials from the
    14th on.  The pool keeps six blocks in flight and collects them in order, so block 13
    starts only once blocks 0-7, the first round of 1296 trials, are collected."""
    if bounds[0] >= 13 * 162:
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_run_block(bounds)


def test_a_worker_that_dies_keeps_the_whole_rounds_finished_in_the_errors_partial_result(
        deadline: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_run_block", _dies_from_block_13)  # the forked workers see it too
    with pytest.raises(RolloutWorkerError) as info:
        rollout(Position(), bot="pubeval", trials=3 * ROUND, workers=2, luck=False)
    partial = info.value.partial
    assert (partial.trials, partial.trials_requested, partial.interrupted) == (ROUND, 3 * ROUND, True)
    assert partial.equity == rollout(Position(), bot="pubeval", trials=ROUND, luck=False).equity
    assert str(info.value).endswith("the rollout is stopped, with the result of the 1,296 trials finished "
                                    "before it (of 3,888 asked for)")


# ---------------------------------------------------------------- Ctrl-C, SIGTERM


def test_ctrl_c_prints_the_finished_trials_result_and_one_line_and_stops_the_workers(
        proc_cleanup: list, tmp_path: Path) -> None:
    proc = start_rollout(tmp_path, *LONG, "--json")
    proc_cleanup.append(proc)
    workers = wait_for_trials(proc, cpu=3.0)   # rounds of the 1296 stratified pairs of first rolls finished
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole process group
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    result = json.loads(out)
    n = result["trials"]
    assert result["interrupted"] is True and result["trials_requested"] == 1296000
    assert 1296 <= n < 1296000 and n % 1296 == 0   # whole rounds of the first two rolls' strata
    assert err == f"bgfast: interrupted after {n:,} of 1,296,000 trials: the result above is of those\n"
    assert_gone(workers)


def test_ctrl_c_before_the_first_whole_round_says_there_is_no_result(proc_cleanup: list, tmp_path: Path) -> None:
    # printed "bgfast: interrupted" alone: no word of why no result came, nor that --save wrote nothing
    proc = start_rollout(tmp_path, "rollout", "4HPwATDgc/ABMA", "--trials", "1296", "--workers", "2",
                         "--bot", "neural:ply=3", "--save", str(tmp_path / "r.npz"))
    proc_cleanup.append(proc)
    workers = wait_for_trials(proc, cpu=0.5)   # a round of 3-ply trials takes minutes
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out) == (130, "")
    assert err == ("bgfast: interrupted before the first whole round of trials (36 first rolls, or 1,296 pairs "
                   "of first two rolls) had finished: no result, nothing saved\n")
    assert not (tmp_path / "r.npz").exists()
    assert_gone(workers)


def test_sigterm_prints_the_finished_trials_result_and_one_line_and_exits_143(
        proc_cleanup: list, tmp_path: Path) -> None:
    proc = start_rollout(tmp_path, *LONG_PUBEVAL)
    proc_cleanup.append(proc)
    workers = wait_for_trials(proc, cpu=0.5)
    proc.terminate()   # kill PID: the rollout alone, as a service manager or a batch system's time limit does
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    _result, n = stopped_result(out, err, 12960000)
    assert err == f"bgfast: terminated (SIGTERM) after {n:,} of 12,960,000 trials: the result above is of those\n"
    assert_gone(workers)


def test_a_volley_of_ctrl_cs_still_prints_the_finished_trials_result(proc_cleanup: list, tmp_path: Path) -> None:
    proc = start_rollout(tmp_path, *LONG_PUBEVAL)
    proc_cleanup.append(proc)
    workers = wait_for_trials(proc, cpu=0.5)
    while proc.poll() is None:   # Ctrl-C pressed again and again: the later ones land while the result is made
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.002)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    _result, n = stopped_result(out, err, 12960000)
    assert err == f"bgfast: interrupted after {n:,} of 12,960,000 trials: the result above is of those\n"
    assert_gone(workers)


def test_a_rollout_started_in_a_scripts_background_stops_on_kill_int(proc_cleanup: list, tmp_path: Path) -> None:
    # a shell without job control starts `cmd &` with SIGINT ignored; Python then sets no handler
    proc = subprocess.Popen(["sh", "-c", '"$@" & wait $!', "sh", sys.executable, "-m", "bgfast", *LONG_PUBEVAL],
                            env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=tmp_path)
    proc_cleanup.append(proc)
    wait_for_workers(proc, 1)   # the shell's one child: the rollout
    command = children_of(proc.pid)[0]
    workers = wait_for_trials(proc, command, cpu=0.5)
    os.kill(command, signal.SIGINT)   # kill -INT PID
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    _result, n = stopped_result(out, err, 12960000)
    assert err == f"bgfast: interrupted after {n:,} of 12,960,000 trials: the result above is of those\n"
    assert_gone(workers)


SLOW_BOT = """
from pathlib import Path
import time

from bgfast.bots import Bot, get_bot

STARTED = Path(__file__).with_name("started")


class Slow(Bot):
    \"\"\"pubeval's plays, 20 ms each; the first one writes the file ``started``.\"\"\"

    name = "slow"

    def __init__(self):
        self.inner = get_bot("pubeval", cube="never")

    def choose_move(self, position, dice, match):
        STARTED.touch()
        time.sleep(0.02)
        return self.inner.choose_move(position, dice, match)
"""


def test_ctrl_c_before_any_block_is_finished_prints_only_the_one_line(proc_cleanup: list, tmp_path: Path) -> None:
    # a bot that tells when the trials have started (a file), and plays a block of 324 trials in minutes
    (tmp_path / "bgfast_slow_bot.py").write_text(SLOW_BOT)
    env = {**child_env(), "PYTHONPATH": f"{tmp_path}{os.pathsep}{child_env()['PYTHONPATH']}"}
    proc = subprocess.Popen([sys.executable, "-m", "bgfast", "rollout", "4HPwATDgc/ABMA", "--trials", "1296000",
                             "--bot", "bgfast_slow_bot:Slow"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path)
    proc_cleanup.append(proc)
    deadline = time.monotonic() + 120
    while not (tmp_path / "started").exists():
        assert proc.poll() is None, f"the rollout ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "the rollout's bot made no play in 120 s"
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out) == (130, "")
    assert err == ("bgfast: interrupted before the first whole round of trials (36 first rolls, or 1,296 pairs "
                   "of first two rolls) had finished: no result\n")


class InterruptedAfter(Bot):
    """pubeval's plays until its ``calls``-th, which raises KeyboardInterrupt (as Ctrl-C would)."""

    def __init__(self, calls: int) -> None:
        self.calls, self.pubeval = calls, get_bot("pubeval")

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        self.calls -= 1
        if self.calls == 0:
            raise KeyboardInterrupt
        return self.pubeval.choose_move(position, dice, match)


def test_an_interruptible_rollout_returns_the_trials_finished_and_another_raises(deadline: None) -> None:
    # plain sampling: trial i is the same in any rollout of seed 5
    whole = rollout("4HPwATDgc/ABMA", trials=324, bot=InterruptedAfter(10**9), seed=5, variance_reduction=False)
    # blocks of 324 trials with one worker: the second block is cut, the first kept
    partial = rollout("4HPwATDgc/ABMA", trials=1296, bot=InterruptedAfter(whole_calls(whole) + 50), seed=5,
                      variance_reduction=False, interruptible=True)
    assert (partial.interrupted, partial.trials, partial.trials_requested) == (True, 324, 1296)
    assert (partial.equity, partial.win) == (whole.equity, whole.win)
    assert "interrupted: the figures are of the 324 trials finished, of 1,296 asked for" in partial.report()
    assert partial.to_dict()["interrupted"] is True and whole.to_dict()["interrupted"] is False
    with pytest.raises(KeyboardInterrupt):
        rollout("4HPwATDgc/ABMA", trials=1296, bot=InterruptedAfter(whole_calls(whole) + 50), seed=5,
                variance_reduction=False)
    with pytest.raises(KeyboardInterrupt):   # no block finished: nothing to estimate from, raised all the same
        rollout("4HPwATDgc/ABMA", trials=1296, bot=InterruptedAfter(50), seed=5, variance_reduction=False,
                interruptible=True)


def whole_calls(result) -> int:  # type: ignore[no-untyped-def]
    """The plays of a rollout's trials (choose_move calls), from a rerun that counts them."""
    counter = InterruptedAfter(10**9)
    rollout(result.position, trials=result.trials, bot=counter, seed=result.seed, variance_reduction=False)
    return 10**9 - counter.calls


# ---------------------------------------------------------------- more workers than work


def test_workers_beyond_the_blocks_of_trials_are_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    real = procs.ProcessPoolExecutor

    def spy(max_workers: int, **kwargs: object) -> object:
        started.append(max_workers)
        return real(max_workers, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(procs, "ProcessPoolExecutor", spy)
    one = rollout(Position(), trials=3, seed=2, luck=False)
    many = rollout(Position(), trials=3, seed=2, luck=False, workers=325)
    assert started == [3] and many.equity == one.equity and many.trials == 3


def test_the_rollout_command_with_more_workers_than_trials_prints_the_result(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rollout", "4HPwATDgc/ABMA", "--workers", "325", "--trials", "36", "--no-luck", "--json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["trials"] == 36
    assert data["equity"] == rollout(Position(), trials=36, luck=False).equity.value


def test_kill_9_of_the_parent_ends_its_workers(proc_cleanup: list[subprocess.Popen[str]], tmp_path: Path) -> None:
    proc = start_rollout(tmp_path, *LONG)
    proc_cleanup.append(proc)
    workers = wait_for_workers(proc, 2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert_gone(workers)
