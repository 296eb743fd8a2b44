"""Readers of the project's copies of the test vectors in tests/data/.

The files copy ``../shared/vectors`` (see its README for the conventions:
``board = [side0, side1]``, side1 on roll, an empty ``results`` list when nothing
can be played).  Imported as ``from vectors import ...`` (tests/ is on sys.path).
"""
from __future__ import annotations

import json
from pathlib import Path

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
