"""Readers of the test vectors: the gnubg cases in tests/data/, the wildbg sets in the package.

The boards of the ``.jsonl`` files follow the board convention of
:mod:`bgfast.position` (``board = [side0, side1]``, side1 on roll); a case whose
roll cannot be played has an empty ``results`` list.  The wildbg benchmark sets
are the package's own copy (``bgfast/data/wildbg``, read by
:func:`bgfast.bench.load_wildbg_set`).  Imported as ``from vectors import ...``
(tests/ is on sys.path).
"""
from __future__ import annotations

import json
from pathlib import Path

from bgfast.bench import load_wildbg_set

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
    """The 1000 Position IDs of a wildbg set, ``"contact.csv"`` or ``"race.csv"``."""
    return load_wildbg_set(name.removesuffix(".csv"))
