"""Rollouts inside the GNU Backgammon program: ``gnubg -t -q -p benchmarks/gnubg_rollout_job.py``.

Not a benchmark module: gnubg runs it with its own Python and its ``gnubg`` module (the
standard library only besides); ``bench_rollout_precision.py`` starts it.  The request is
the JSON file named by the environment variable ``BGFAST_GNUBG_REQUEST``::

    {"answer": path, "items": [{"position_id", "match_id", "trials", "seed",
                                "variance_reduction": bool, "bearoff_truncation": bool}, ...]}

Each item is rolled out cubeless, with 0-ply checker play, one thread and gnubg's
quasi-random dice (its default), with or without its lookahead variance reduction;
``bearoff_truncation`` keeps gnubg's default of ending a cubeless trial at a position of
its bear-off databases (one-sided or exact), or turns it off.  The answers, one an item,
go to ``answer`` as a JSON list of ``{"probabilities", "probabilities_se", "equity",
"equity_se", "cpu_seconds", "wall_seconds", "text"}``: the seconds of the ``rollout``
command alone (CPU time of the whole process, all threads), the figures as gnubg prints
them (``set output digits 6``).

gnubg prints a rollout's result only when its standard output is a terminal (it decides
at start), so the parent gives it a pseudo-terminal, and this job points file descriptor
1 at a file while each ``rollout`` runs to read the result back.
"""
import json
import os
import re
import tempfile
import time

import gnubg  # noqa: F401 - gnubg's own module, only inside the program

_FIGURES = re.compile(r"^\s*\[?\s*([-+0-9. ]+?)\s+-\s+([-+0-9. ]+?)\s+CL\s+([-+0-9.]+)")


def _setup():
    gnubg.command("set threads 1")
    for player in (0, 1):
        gnubg.command(f"set player {player} human")
    gnubg.command("set automatic roll off")
    gnubg.command("set display off")
    gnubg.command("set output digits 6")
    gnubg.command("set output winpc off")
    gnubg.command("set rollout cubeful off")
    gnubg.command("set rollout chequerplay plies 0")
    gnubg.command("set rollout chequerplay cubeful off")
    gnubg.command("set rollout quasirandom on")
    gnubg.command("set rollout initial off")
    gnubg.command("set rollout truncation off")


def _parse(text):
    """The last result block gnubg printed: (five probabilities, equity, their SEs)."""
    lines = text.replace("\r", "").splitlines()
    done = max(i for i, line in enumerate(lines) if line.startswith("Rollout done"))
    rows = [m for m in (_FIGURES.match(line) for line in lines[done:]) if m][:2]
    if len(rows) != 2:
        raise RuntimeError("no rollout result in gnubg's output:\n" + "\n".join(lines[done:done + 12]))

    def numbers(m):
        probs = [float(x) for x in (m.group(1) + " " + m.group(2)).split()]
        return probs, float(m.group(3))

    (p, eq), (p_se, eq_se) = numbers(rows[0]), numbers(rows[1])
    return p, eq, p_se, eq_se


def rollout(item):
    gnubg.command("new game")
    gnubg.command(f"set matchid {item['match_id']}")
    gnubg.command(f"set board {item['position_id']}")
    if gnubg.positionid() != item["position_id"] or gnubg.matchid() != item["match_id"]:
        raise RuntimeError(f"gnubg holds {gnubg.positionid()}:{gnubg.matchid()}, not the item's position")
    gnubg.command(f"set rollout trials {item['trials']}")
    gnubg.command(f"set rollout seed {item['seed']}")
    gnubg.command("set rollout varredn " + ("on" if item["variance_reduction"] else "off"))
    truncation = "on" if item["bearoff_truncation"] else "off"
    gnubg.command(f"set rollout bearofftruncation exact {truncation}")
    gnubg.command(f"set rollout bearofftruncation onesided {truncation}")
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(1)
        os.dup2(capture.fileno(), 1)
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            gnubg.command("rollout")
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        text = capture.read().decode("utf-8", "replace")
    p, eq, p_se, eq_se = _parse(text)
    return {"probabilities": p, "equity": eq, "probabilities_se": p_se, "equity_se": eq_se,
            "cpu_seconds": cpu, "wall_seconds": wall, "text": text[text.rfind("Rollout done"):]}


def main():
    with open(os.environ["BGFAST_GNUBG_REQUEST"], encoding="utf-8") as f:
        request = json.load(f)
    _setup()
    answers = [rollout(item) for item in request["items"]]
    with open(request["answer"], "w", encoding="utf-8") as f:
        json.dump(answers, f)


main()
