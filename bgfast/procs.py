"""Helpers for worker processes (tournament chunks, rollout blocks)."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

__all__ = ["exit_with_parent"]


def exit_with_parent(parent: int) -> None:
    """Make this worker end when the parent dies (even by kill -9)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, signal.SIGKILL) == 0:  # PR_SET_PDEATHSIG
                if os.getppid() != parent:  # the parent died before prctl
                    os._exit(1)
                return
        except (OSError, AttributeError):  # pragma: no cover
            pass

    def watch() -> None:  # pragma: no cover - portable fallback
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="bgfast-parent-watch", daemon=True).start()
