"""Shared test data: the gnubg vectors and the wildbg position sets in tests/data/.

The files are the project's own copies of ``../shared/vectors`` (see its README for
the conventions: ``board = [side0, side1]``, side1 on roll, an empty ``results`` list
when nothing can be played).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

WILDBG_TOTALS = {
    # set: (sum over the 6 doubles, sum over the 15 non-doubles); a no-play counts as one
    "contact": (218_356, 185_957),
    "race": (140_720, 122_570),
}


def read_jsonl(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_ids(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="ascii").split()


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
