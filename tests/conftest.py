"""Session fixtures with the test vectors (readers in tests/vectors.py)."""
from __future__ import annotations

import os
import signal

import pytest

from vectors import WILDBG_TOTALS, read_ids, read_jsonl

# Child Pythons that the tests start (``python -m bgfast engine`` as an outside engine, CLI
# runs, doctests) must import the installed bgfast, not the uncompiled source folder of the
# clone the tests run from: PYTHONSAFEPATH (Python 3.11+) keeps the working directory off
# their sys.path.
os.environ.setdefault("PYTHONSAFEPATH", "1")

# Tests that interrupt a run send SIGINT to a child.  A test session started in the
# background by a script (``pytest &``) inherits SIGINT ignored, and so would those
# children (an ignored signal stays ignored across exec, so Python then installs no
# KeyboardInterrupt handler); with a handler here, each child starts with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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
