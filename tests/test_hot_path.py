"""The compiled core stays free of Python objects where it runs hot.

Cython's annotation (``cython -a``) scores every source line by the Python C-API
calls it compiles to.  Every top-level ``cdef`` function of ``bgfast/_core``
declared ``nogil`` (move generation, the game loop, evaluators, dice, cube, the
training loops' players) must score zero on every line, except its signature
line (exception set-up of an ``except`` function) and the lines of its ``with
gil:`` blocks (the slow path for bots written in Python).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("Cython")

CORE = Path(__file__).resolve().parents[1] / "bgfast" / "_core"
MODULES = sorted(p.stem for p in CORE.glob("*.pyx"))
_SCORE = re.compile(r'class="cython line score-(\d+)"[^>]*>[^<]*<span class="">(\d+)')


@pytest.fixture(scope="module")
def annotated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The core's sources annotated by Cython in a scratch copy (the tree is not touched)."""
    root = tmp_path_factory.mktemp("annotate")
    core = root / "bgfast" / "_core"
    core.mkdir(parents=True)
    for path in CORE.iterdir():
        if path.suffix in (".pyx", ".pxd", ".h"):
            shutil.copy(path, core / path.name)
    (root / "bgfast" / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    subprocess.run([sys.executable, "-m", "cython", "-3", "-a", "-I", str(root),
                    *[str(core / f"{m}.pyx") for m in MODULES]],
                   cwd=root, check=True, capture_output=True, text=True)
    return core


def nogil_functions(lines: list[str]) -> dict[str, tuple[int, int, int]]:
    """Top-level ``cdef ... nogil`` functions: name -> (first line, signature's last line, last line)."""
    found: dict[str, tuple[int, int, int]] = {}
    i = 0
    while i < len(lines):
        match = re.match(r"cdef\s[^=]*?(\w+)\(", lines[i])
        if not match:
            i += 1
            continue
        end_sig = i
        while not lines[end_sig].rstrip().endswith(":") and end_sig + 1 < len(lines):
            end_sig += 1
        body_end = end_sig + 1
        while body_end < len(lines) and (not lines[body_end].strip() or lines[body_end][0].isspace()):
            body_end += 1
        if "nogil" in " ".join(lines[i:end_sig + 1]):
            found[match.group(1)] = (i + 1, end_sig + 1, body_end)
        i = body_end
    return found


def python_lines(core: Path, module: str) -> list[str]:
    """``function:line`` of every line of a nogil function that calls into Python."""
    lines = (core / f"{module}.pyx").read_text().splitlines()
    html = (core / f"{module}.html").read_text()
    scores = {int(n): int(s) for s, n in _SCORE.findall(html)}
    bad = []
    for name, (first, sig_end, last) in nogil_functions(lines).items():
        gil_indent = None
        for number in range(sig_end + 1, last + 1):
            text = lines[number - 1]
            indent = len(text) - len(text.lstrip())
            if gil_indent is not None and text.strip() and indent <= gil_indent:
                gil_indent = None
            if text.strip() == "with gil:":
                gil_indent = indent
            if scores.get(number, 0) and gil_indent is None and text.strip() != "with gil:":
                bad.append(f"{name}:{number}: {text.strip()}")
    return bad


@pytest.mark.parametrize("module", MODULES)
def test_nogil_functions_make_no_python_calls(annotated: Path, module: str) -> None:
    assert python_lines(annotated, module) == []


def test_the_check_finds_the_hot_functions_and_a_python_call(annotated: Path, tmp_path: Path) -> None:
    lines = (CORE / "movegen.pyx").read_text().splitlines()
    assert {"_search_pair", "_search_doubles", "_record_leaf", "generate_prepared"} <= set(nogil_functions(lines))
    evaluators = (CORE / "evaluators.pyx").read_text().splitlines()
    assert {"pubeval_choose", "is_race"} <= set(nogil_functions(evaluators))
    training = (CORE / "training.pyx").read_text().splitlines()   # the hooks the game loop calls a ply
    assert {"_td_play", "_sample_play", "_candidate_play", "_td_game"} <= set(nogil_functions(training))
    rollout = (CORE / "rollout.pyx").read_text().splitlines()   # a rollout's block of trials
    assert {"play_trials", "_trial", "_outcome", "_cubeful"} <= set(nogil_functions(rollout))
    search = (CORE / "search.pyx").read_text().splitlines()     # the net's n-ply search
    assert {"_preroll", "_choose", "_play_value", "search_preroll", "search_choose", "search_reserve"} \
        <= set(nogil_functions(search))
    # a nogil function holding a Python object call in a with-gil block is allowed; one outside is not
    core = tmp_path / "bgfast" / "_core"
    core.mkdir(parents=True)
    source = [
        "cdef int fine(int x) noexcept nogil:",
        "    if x < 0:",
        "        with gil:",
        "            print(x)",
        "    return x + 1",
        "",
        "",
        "cdef int slow(int x) except -1 nogil:",
        "    with gil:",
        "        print(x)",
        "    return x",
        "",
    ]
    (core / "probe.pyx").write_text("\n".join(source))
    html = "".join(
        f'<pre class="cython line score-{5 if n in (4, 10) else 0}">+<span class="">{n:03d}</span>'
        for n in range(1, len(source) + 1))
    (core / "probe.html").write_text(html)
    assert python_lines(core, "probe") == []
    (core / "probe.html").write_text(html.replace('score-0">+<span class="">005', 'score-3">+<span class="">005'))
    assert python_lines(core, "probe") == ["fine:5: return x + 1"]
