"""A UBGI engine for the fault tests: bgfast's own server around pubeval, with one fault.

    python fake_ubgi.py MODE [N] [ONCE_FILE]

MODE is what goes wrong at the N-th ``go`` (0 = never): ``crash`` (the process exits with
status 3), ``hang`` (it stops answering), ``illegal`` (an illegal move), ``garbage`` (a line
that is not UBGI), ``badcube`` (``bestcube take`` with no double offered).  Other modes:
``healthy``; ``noxgid`` (refuses XGIDs and lists no game.* key); ``nocube`` (answers
``error unsupported`` to ``go cube``); ``nohandshake`` (exits before ``ubgiok``); ``silent``
(never answers ``ubgi``); ``refuse`` (refuses every ``set``).  With ONCE_FILE the fault
happens only while that file exists, and the engine removes it as it faults, so the
next process started is healthy.  ``breaks`` crashes at the N-th ``go`` and leaves
ONCE_FILE behind; a process started while it exists exits before its handshake (an
install that broke during a run).
"""
from __future__ import annotations

import os
import sys
import time

from bgfast.engines.ubgi_server import UbgiServer


def main() -> None:
    mode = sys.argv[1]
    at = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    once = sys.argv[3] if len(sys.argv) > 3 else None
    server = UbgiServer("pubeval")
    if mode == "noxgid":
        server.keys = {k: v for k, v in server.keys.items() if not k.startswith("game.")}
    out = sys.stdout
    gos = 0
    broken = mode == "breaks" and once is not None and os.path.exists(once)
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        if line == "quit":
            return
        if (mode == "nohandshake" or broken) and line == "ubgi":
            print("id name broken", flush=True)
            os._exit(1)
        if mode == "silent" and line == "ubgi":
            time.sleep(3600)
        if mode == "refuse" and line.startswith("set "):
            print("error bad_value no options here", flush=True)
            continue
        if mode == "noxgid" and (line.startswith("position xgid") or line.startswith("set game.")):
            print("error unsupported xgid", flush=True)
            continue
        if mode == "nocube" and line == "go cube":
            print("error unsupported go cube", flush=True)
            continue
        if line.startswith("go"):
            gos += 1
            if mode == "breaks" and at and gos >= at and once is not None:
                open(once, "w").close()
                print("fake engine: crashing, and broken from now on", file=sys.stderr, flush=True)
                os._exit(3)
            armed = at and gos >= at and (once is None or os.path.exists(once))
            if armed:
                if once is not None:
                    os.remove(once)
                if mode == "crash":
                    print("fake engine: crashing on purpose", file=sys.stderr, flush=True)
                    os._exit(3)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "illegal":
                    print("bestmove 24/1" if line != "go cube" else "bestcube take", flush=True)
                    continue
                if mode == "garbage":
                    print("Hello, I am not a UBGI engine", flush=True)
                    continue
                if mode == "badcube" and line == "go cube":
                    print("bestcube take", flush=True)
                    continue
        answer = server.handle(line)
        if answer:
            out.write("\n".join(answer) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
