"""Jobs run inside the GNU Backgammon program: ``gnubg -t -q -p tests/gnubg_jobs.py``.

Not a test module: gnubg runs it with its own Python and its ``gnubg`` module (the
standard library only besides).  The request is the JSON file named by the environment
variable ``BGFAST_GNUBG_REQUEST``: ``{"job": name, "items": [...], "answer": path}``; the
answers, one an item, go to ``answer`` as a JSON list.  ``tests/gnubg_oracle.py``
writes the request and reads the answer.

Jobs:

* ``hints``: ``[position_id, die1, die2]`` -> gnubg's notation of every legal play
  (``hint`` at 0 ply, so that all plays are listed), ``[]`` when none.
* ``xgid``: an XGID -> ``[position_id, match_id]`` after ``set xgid``, or
  ``{"error": "not read"}`` when gnubg kept its previous state.
* ``double``: ``[position_id, match_id]`` -> the Match ID after ``set matchid``,
  ``set board`` and ``double`` (``{"error": ...}`` when gnubg did not take the Match ID);
  the player on roll is to double, so a refused double leaves the Match ID as it was.
"""
import json
import os

import gnubg  # noqa: F401 - gnubg's own module, only inside the program

# a Match ID gnubg cannot have after reading anything sensible: a 1-point match, score 0-0
_SENTINEL_MATCH = "new match 1"


def _setup():
    for player in (0, 1):
        gnubg.command(f"set player {player} human")
    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("set display off")
    gnubg.command("set automatic roll off")


def hints(item):
    position_id, die1, die2 = item
    gnubg.command(f"set board {position_id}")
    gnubg.command(f"set dice {die1} {die2}")
    return [entry["move"] for entry in gnubg.hint(100000)["hint"]]


def xgid(item):
    gnubg.command(_SENTINEL_MATCH)
    before = (gnubg.positionid(), gnubg.matchid())
    gnubg.command(f"set xgid {item}")
    after = (gnubg.positionid(), gnubg.matchid())
    return {"error": "not read"} if after == before else list(after)


def double(item):
    position_id, match_id = item
    gnubg.command(_SENTINEL_MATCH)
    gnubg.command(f"set matchid {match_id}")
    gnubg.command(f"set board {position_id}")
    if gnubg.matchid() != match_id:
        return {"error": f"gnubg holds Match ID {gnubg.matchid()} after set matchid {match_id}"}
    gnubg.command("double")
    return gnubg.matchid()


def main():
    with open(os.environ["BGFAST_GNUBG_REQUEST"], encoding="utf-8") as f:
        request = json.load(f)
    _setup()
    gnubg.command("new game")
    job = {"hints": hints, "xgid": xgid, "double": double}[request["job"]]
    answers = [job(item) for item in request["items"]]
    with open(request["answer"], "w", encoding="utf-8") as f:
        json.dump(answers, f)


main()
