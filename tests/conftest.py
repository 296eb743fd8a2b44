"""Session fixtures with the test vectors (readers in tests/vectors.py)."""
from __future__ import annotations

import pytest

from vectors import WILDBG_TOTALS, read_ids, read_jsonl


@pytest.fixture(scope="session")
def movegen_cases() -> list[dict]:
    """The 3157 gnubg move-generation cases of movegen.jsonl."""
    return read_jsonl("movegen.jsonl")


@pytest.fixture(scope="session")
def position_id_cases() -> list[dict]:
    """The 200 Position ID <-> board cases of ids.jsonl."""
    return [c for c in read_jsonl("ids.jsonl") if c["kind"] == "position"]


@pytest.fixture(scope="session")
def wildbg_sets() -> dict[str, list[str]]:
    """The wildbg benchmark sets, ``{"contact": [1000 IDs], "race": [1000 IDs]}``."""
    return {name: read_ids(f"{name}.csv") for name in WILDBG_TOTALS}
