"""The package's layer rule, read from the source with ``ast``:

    _core  <-  base  <-  codecs  <-  model  <-  formats  <-  bots  <-  engines  <-  pool
           <-  analysis  <-  runs  <-  cli

* ``_core``: the compiled kernels; they import nothing of bgfast outside ``_core``.
* base: the errors, the argument and file checks, the terminal's drawing (``bgfast.errors``,
  ``bgfast.validation``, ``bgfast.command_line``, ``bgfast.terminal``).
* codecs: the text codecs that work on plain fields and records (``bgfast.codecs``: the
  Position ID's Python face, the Match ID, the XGID); they know nothing of the value types.
* model: the value types and the rules (``bgfast`` itself, ``position``, ``dice``,
  ``match``, ``met``, ``cube``, ``probabilities``, ``evaluator``, ``game``, ``batch``).
* formats: the readers and writers built on the model (``bgfast.formats.*``, such as
  ``parse_position``, the ``.mat`` writer, the match log).
* bots: the Bot interface, the registry and the built-in bots and adapters.
* engines: outside engines as players (``bgfast.engines``: UBGI, the gnubg program); bots
  may not lean on them, and they may not lean on what runs them.
* pool: the one worker-pool driver (``bgfast.procs``) that rollouts and tournaments share.
* analysis: judging positions and plays (``bgfast.analysis``: eval, hint, cube, the board as SVG).
* runs: what plays many games -- rollouts, tournaments, training, benchmarks -- then the
  command line.

A module may import its own layer and the layers below it, never one above.  Every
module under bgfast/ is found and checked, so a new one is covered without editing
this file: it belongs to the layer of its sub-package (``bgfast/bots/x.py`` is a bot
module), and a new top-level module (``bgfast/foo.py``) to the model layer.  Put a
new top-level module somewhere else by adding it to ``LAYERS``.  Imports inside
functions count too (lazy imports of a higher layer are still a dependency on it);
``.pyx``/``.pxd`` files are read line by line.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "bgfast"

# Lowest layer first.  A module belongs to the layer of the longest prefix listed here
# (``bgfast.bots`` covers ``bgfast.bots.pubeval``); anything unlisted is DEFAULT_LAYER.
LAYERS: dict[str, tuple[str, ...]] = {
    "core": ("bgfast._core",),
    "base": ("bgfast.errors", "bgfast.validation", "bgfast.command_line", "bgfast.terminal"),
    "codecs": ("bgfast.codecs",),
    "model": ("bgfast", "bgfast.position", "bgfast.dice", "bgfast.match", "bgfast.met", "bgfast.cube",
              "bgfast.probabilities", "bgfast.evaluator", "bgfast.game", "bgfast.batch", "bgfast.xgid"),
    "formats": ("bgfast.formats",),
    "bots": ("bgfast.bots",),
    "engines": ("bgfast.engines",),
    "pool": ("bgfast.procs",),
    "analysis": ("bgfast.analysis",),
    "runs": ("bgfast.rollout", "bgfast.tournament", "bgfast.train", "bgfast.bench", "bgfast.yardstick", "bgfast.sampling"),
    "cli": ("bgfast.cli", "bgfast.__main__"),
}
DEFAULT_LAYER = "model"
RANK = {name: i for i, name in enumerate(LAYERS)}


def layer_of(module: str) -> str:
    best, best_len = DEFAULT_LAYER, -1
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            # "bgfast" itself names only the package's __init__, not everything below it
            matches = module == prefix or (prefix != "bgfast" and module.startswith(prefix + "."))
            if matches and len(prefix) > best_len:
                best, best_len = layer, len(prefix)
    return best


def discover_modules(root: Path = PACKAGE_DIR) -> dict[str, Path]:
    """``{"bgfast.position": path, ...}`` for every .py, .pyx and .pxd file in the package."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd") or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        if path.suffix == ".pxd" and name in modules:
            name += " (pxd)"
        modules[name] = path
    return modules


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, known: set[str]) -> list[str]:
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    # "from bgfast import bots" imports the module bgfast.bots; "from bgfast import Position" the package
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in node.names]


_CIMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+))", re.MULTILINE)


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The bgfast modules that ``module`` (at ``path``) imports, anywhere in the file."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set()
    if path.suffix in (".pyx", ".pxd"):
        for m in _CIMPORT.finditer(text):
            found.add(m.group(1) or m.group(2))
    else:
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.update(_resolve(module, path.name == "__init__.py", node, known))
    return {name for name in found if name == "bgfast" or name.startswith("bgfast.")}


def violations(module: str, path: Path, known: set[str]) -> list[str]:
    mine = layer_of(module.removesuffix(" (pxd)"))
    bad = []
    for target in sorted(imported_modules(module, path, known)):
        theirs = layer_of(target)
        if RANK[theirs] > RANK[mine]:
            bad.append(f"{module} ({mine} layer) imports {target} ({theirs} layer)")
    return bad


MODULES = discover_modules()
KNOWN = {name.removesuffix(" (pxd)") for name in MODULES}


def test_the_package_scan_finds_the_core_and_the_api_modules() -> None:
    for name in ("bgfast", "bgfast.position", "bgfast.errors", "bgfast._core.movegen", "bgfast._core.board", "bgfast.cli"):
        assert name in MODULES, name
    assert layer_of("bgfast._core.movegen") == "core"
    assert layer_of("bgfast.position") == "model"
    assert layer_of("bgfast.validation") == "base"
    assert layer_of("bgfast.codecs.match_id") == "codecs"
    assert layer_of("bgfast.codecs") == "codecs"
    assert layer_of("bgfast.formats.text") == "formats"
    assert layer_of("bgfast.formats") == "formats"
    assert layer_of("bgfast.bots.pubeval") == "bots"
    assert layer_of("bgfast.engines.ubgi_client") == "engines"
    assert layer_of("bgfast.procs") == "pool"
    assert layer_of("bgfast.tournament.runner") == "runs"
    assert layer_of("bgfast.rollout.engine") == "runs"
    assert layer_of("bgfast.cli") == "cli"
    assert layer_of("bgfast.something_new") == DEFAULT_LAYER


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports_only_its_own_layer_or_lower_ones(module: str) -> None:
    assert not violations(module, MODULES[module], KNOWN)


def test_the_core_imports_no_bgfast_python_module() -> None:
    for module, path in MODULES.items():
        if layer_of(module.removesuffix(" (pxd)")) == "core":
            outside = {m for m in imported_modules(module, path, KNOWN) if not m.startswith("bgfast._core")}
            assert not outside, f"{module} imports {sorted(outside)}"


# ---------------------------------------------------------------- the checker itself


@pytest.mark.parametrize(
    ("module", "filename", "source", "expected"),
    [
        ("bgfast.position", "position.py", "def f():\n    import bgfast.bots\n", ["bgfast.bots"]),
        ("bgfast.bots.random", "random.py", "from bgfast.tournament import spec\n", ["bgfast.tournament"]),
        ("bgfast.bots.random", "random.py", "from ..rollout import engine\n", ["bgfast.rollout.engine"]),
        ("bgfast.rollout.engine", "engine.py", "from bgfast import cli\n", ["bgfast.cli"]),
        ("bgfast.match", "match.py", "from . import bench\n", ["bgfast.bench"]),
        ("bgfast.codecs.xgid", "xgid.py", "from bgfast.position import Position\n", ["bgfast.position"]),
        ("bgfast.position", "position.py", "from bgfast.formats.text import parse_position\n",
         ["bgfast.formats.text"]),
        ("bgfast.position", "position.py", "from bgfast.codecs import xgid\n", []),
        ("bgfast.position", "position.py", "from bgfast.formats import text\n", ["bgfast.formats.text"]),
        ("bgfast._core.movegen", "movegen.pyx", "from bgfast.position cimport Foo\nimport bgfast.errors\n",
         ["bgfast.errors", "bgfast.position"]),
        ("bgfast.bots.random", "random.py", "from bgfast import Position\nfrom bgfast.position import Move\n", []),
        ("bgfast.cli", "cli.py", "import bgfast.tournament\nfrom bgfast.bots import get_bot\n", []),
        ("bgfast._core.movegen", "movegen.pyx", "from bgfast._core.board cimport Board\n", []),
        ("bgfast.engines.ubgi_client", "ubgi_client.py", "from bgfast.tournament import spec\n", ["bgfast.tournament"]),
        ("bgfast.engines.ubgi_client", "ubgi_client.py", "from bgfast import procs\n", ["bgfast.procs"]),
        ("bgfast.bots.spec", "spec.py", "from bgfast.engines import ubgi_client\n", ["bgfast.engines.ubgi_client"]),
        ("bgfast.tournament.worker", "worker.py", "from bgfast.engines import ubgi_client\nfrom bgfast import procs\n",
         []),
    ],
)
def test_the_checker_flags_imports_of_a_higher_layer(
    tmp_path: Path, module: str, filename: str, source: str, expected: list[str]
) -> None:
    path = tmp_path / filename
    path.write_text(source, encoding="utf-8")
    # a fixed module list, so that the cases do not depend on which modules exist today
    known = {"bgfast", "bgfast.position", "bgfast.bots", "bgfast.rollout", "bgfast.rollout.engine",
             "bgfast.tournament", "bgfast.bench", "bgfast.cli", "bgfast._core", "bgfast._core.board",
             "bgfast.codecs", "bgfast.codecs.xgid", "bgfast.formats", "bgfast.formats.text", "bgfast.engines",
             "bgfast.engines.ubgi_client", "bgfast.procs", "bgfast.tournament.worker"}
    found = violations(module, path, known)
    assert [v.split(" imports ")[1].split(" (")[0] for v in found] == expected
