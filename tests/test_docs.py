"""The examples in the documentation run: README.md and every bgfast module's docstrings."""
from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import bgfast

README = Path(__file__).resolve().parents[1] / "README.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = ["bgfast"]
    for info in pkgutil.walk_packages(bgfast.__path__, prefix="bgfast."):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # importing __main__ runs the command
            names.append(info.name)
    return sorted(names)


def test_the_readme_examples_pass() -> None:
    result = doctest.testfile(str(README), module_relative=False, optionflags=FLAGS, verbose=False)
    assert result.attempted > 10, "the README lost its >>> examples"
    assert result.failed == 0


@pytest.mark.parametrize("name", _modules())
def test_the_docstring_examples_of_each_module_pass(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional dependency (gnubg-nn, matplotlib, dask) that is not installed
        if exc.name and not exc.name.startswith("bgfast"):
            pytest.skip(f"{name} needs {exc.name}")
        raise
    result = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    assert result.failed == 0
