"""Session fixtures of the benchmarks: the wildbg position sets (see corpus.py)."""
from __future__ import annotations

import pytest

from bgfast import Position
from corpus import load_positions


@pytest.fixture(scope="session")
def contact() -> list[Position]:
    return load_positions("contact")


@pytest.fixture(scope="session")
def race() -> list[Position]:
    return load_positions("race")
