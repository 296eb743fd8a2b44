"""Make tests/data/neural_games.json: the neural net's games and values, to pin them.

    python tools/neural_vectors.py

What is recorded, and how, is tests/neural_games.py.  Record it with the code whose
results a change must keep (the test compares the code of the day against it).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from neural_games import DATA, make  # noqa: E402


def main() -> None:
    DATA.write_text(json.dumps(make(), indent=1) + "\n")
    print(f"wrote {DATA}")


if __name__ == "__main__":
    main()
