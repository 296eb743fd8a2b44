"""The type stubs of the compiled core (``bgfast/_core/*.pyi``) agree with the built modules.

``mypy.stubtest`` imports each extension module and compares every public name,
signature, default and attribute with its stub.  The names Cython adds to every
module (C-API capsules, the doctest hook, pickling helpers) are allowed in
``tests/data/stubtest_allowlist.txt``.  A ``cdef class`` takes its constructor
arguments in ``__cinit__``, which stubtest cannot see (the runtime ``__new__``
has no signature), so the stubs' ``__new__`` are compared with the ``.pyx``
source here as well.
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bgfast

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "bgfast" / "_core"
ALLOWLIST = ROOT / "tests" / "data" / "stubtest_allowlist.txt"
MODULES = sorted(p.stem for p in CORE.glob("*.pyx"))


def test_every_compiled_module_has_a_stub() -> None:
    assert MODULES, "no .pyx files found"
    missing = [name for name in MODULES if not (CORE / f"{name}.pyi").is_file()]
    assert not missing, f"bgfast/_core has no stub for {missing}"


def test_stubtest_finds_no_difference_between_the_stubs_and_the_modules(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    # Check the stubs only: the Python modules that ``bgfast/__init__.py`` pulls in are
    # followed silently (``mypy --strict bgfast`` is their check, not this test's).
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nfollow_imports = silent\n", encoding="utf-8")
    # the built modules are those this process imports (installed, or built in place)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(bgfast.__file__).resolve().parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(config),
         "--allowlist", str(ALLOWLIST), *(f"bgfast._core.{name}" for name in MODULES)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_package_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "bgfast"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _cinit_params(pyx: str) -> dict[str, list[tuple[str, object]]]:
    """``{class: [(argument, default or ...), ...]}`` of each ``cdef class``'s ``__cinit__`` (a
    bare ``*`` as ``("*", ...)``)."""
    out: dict[str, list[tuple[str, object]]] = {}
    for chunk in re.split(r"^cdef class ", pyx, flags=re.MULTILINE)[1:]:
        name = re.split(r"[\s(:]", chunk, maxsplit=1)[0]
        m = re.search(r"def __cinit__\(self(.*?)\):", chunk, flags=re.DOTALL)
        params: list[tuple[str, object]] = []
        if m:
            for part in m.group(1).split(","):
                if not part.strip():
                    continue
                decl, _, default = part.partition("=")
                decl = re.sub(r"\s+not\s+None\s*$", "", decl)   # Cython's "bytes board not None"
                params.append((decl.split()[-1], ast.literal_eval(default.strip()) if default else ...))
        out[name] = params
    return out


_NOT_CDEF_BASES = {"enum.IntEnum", "IntEnum", "NamedTuple"}


def _stub_new_params(pyi: str) -> dict[str, list[tuple[str, object]]]:
    """``{class: [(argument, default or ...), ...]}`` of each stub class's ``__new__`` (none: []),
    ``("*", ...)`` before its keyword-only arguments."""
    out: dict[str, list[tuple[str, object]]] = {}
    for node in ast.parse(pyi).body:
        if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
            continue
        if any(ast.unparse(base) in _NOT_CDEF_BASES for base in node.bases):
            continue  # a cpdef enum or a NamedTuple of the module: no __cinit__
        params: list[tuple[str, object]] = []
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__new__":
                args = item.args.args[1:]
                defaults = [...] * (len(args) - len(item.args.defaults)) + [
                    ast.literal_eval(d) for d in item.args.defaults]
                params = [(a.arg, d) for a, d in zip(args, defaults)]
                params += [("*", ...)] if item.args.kwonlyargs else []     # as the pyx writes its marker
                params += [(a.arg, ast.literal_eval(d) if d is not None else ...)
                           for a, d in zip(item.args.kwonlyargs, item.args.kw_defaults)]
        out[node.name] = params
    return out


@pytest.mark.parametrize("module", MODULES)
def test_the_stub_constructors_take_the_arguments_of_cinit(module: str) -> None:
    pyx = _cinit_params((CORE / f"{module}.pyx").read_text(encoding="utf-8"))
    stub = _stub_new_params((CORE / f"{module}.pyi").read_text(encoding="utf-8"))
    assert stub == pyx


def test_the_source_scan_reads_cinit_arguments_and_defaults() -> None:
    pyx = ("cdef class A:\n    cdef int x\n    def __cinit__(self, origin, bytes board not None, int d1,\n"
           "                  unsigned long long lane=0, met=None):\n        pass\n"
           "cdef class B:\n    def __cinit__(self):\n        pass\n")
    assert _cinit_params(pyx) == {"A": [("origin", ...), ("board", ...), ("d1", ...), ("lane", 0), ("met", None)],
                                  "B": []}
    pyi = ("class A:\n    def __new__(cls, origin: object, board: bytes, d1: int, lane: int = 0, met: None = None)"
           " -> A: ...\nclass B: ...\nclass _P: ...\nclass K(enum.IntEnum):\n    K_A = 0\n"
           "class R(NamedTuple):\n    x: int\n")
    assert _stub_new_params(pyi) == _cinit_params(pyx)
