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
* ``import``: ``{"path", "format": "mat" | "sgf", "jacoby": bool}`` -> the match gnubg holds
  after ``import mat`` or ``load match`` (``gnubg.match()`` without the analysis: per game
  its ``info`` and its actions, each with ``action``, ``player`` (``X`` = player 0), and
  ``dice``, ``move`` (the steps, 1-based from the mover's side, bar 25, off 0) and
  ``board`` (the Position ID before it) where gnubg gives them), and what gnubg printed
  while reading (``output``: warnings such as an invalid move).  ``jacoby`` sets gnubg's
  Jacoby rule first: a .mat file does not carry it, and gnubg scores a money game's
  gammons by its own setting.  With ``export_mat`` / ``export_sgf`` paths, gnubg then writes
  the match it read with ``export match mat`` / ``save match``.
* ``cube``: ``[position_id, score_on_roll, score_opponent, length, cube, owner, crawford(, plies)]``
  (``owner`` 0: the side on roll, 1: its opponent, -1: centred; ``plies`` default 0) -> gnubg's view (at ``plies``) of
  the side on roll's cube decision: ``{"probs": [5 cubeless probabilities], "nd", "dt",
  "dp": the three cubeful match winning chances (``cfevaluate`` at 0 ply, its normalized
  equities through ``eq2mwc``), "action": gnubg's recommendation, "class": its position
  class (``classifypos``)}``.
* ``selfplay``: ``{"length", "seed", "mat", "sgf", "jacoby", "variation"}`` -> gnubg plays a
  match (length 0: one money game) against itself at 0 ply with seed ``seed``, then
  writes it with ``export match mat`` and ``save match`` (SGF) to the paths given; the
  answer is the match as for ``import``.
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


def cube(item):
    position_id, mine, theirs, length, value, owner, crawford, *plies = item
    board = gnubg.positionfromid(position_id)
    info = gnubg.cubeinfo(value, owner, 0, length, (mine, theirs), crawford)
    context = gnubg.evalcontext(1, plies[0] if plies else 0, 1, 1, 0.0)    # cubeful, deterministic
    probs = gnubg.evaluate(board, info, context)[:5]
    _best, nd, dt, dp, _code, action = gnubg.cfevaluate(board, info, context)
    if length == 0:                                      # money: normalized equities as they are
        return {"probs": list(probs), "nd": nd, "dt": dt, "dp": dp, "action": action,
                "class": gnubg.classifypos(board, 0)}
    return {"probs": list(probs), "nd": gnubg.eq2mwc(nd, info), "dt": gnubg.eq2mwc(dt, info),
            "dp": gnubg.eq2mwc(dp, info), "action": action, "class": gnubg.classifypos(board, 0)}


_KEEP = ("action", "player", "dice", "move", "board", "resigned", "cube")


def _match():
    """``gnubg.match()`` without the analysis, in plain JSON types."""
    match = gnubg.match(0, 1, 0, 0)
    if not match:
        return {"games": []}
    games = []
    for game in match["games"]:
        actions = [{k: v for k, v in action.items() if k in _KEEP} for action in game["game"]]
        games.append({"info": dict(game["info"]), "game": actions})
    info = {k: v for k, v in match["match-info"].items() if k != "default-eval-context"}
    return json.loads(json.dumps({"match-info": info, "games": games}, default=str))


class _Captured:
    """What gnubg prints (through sys.stdout) while a command runs."""

    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


def _run_captured(command):
    import sys
    saved, sys.stdout = sys.stdout, _Captured()
    try:
        gnubg.command(command)
    finally:
        captured, sys.stdout = sys.stdout, saved
    return "".join(captured.parts)


def import_match(item):
    gnubg.command("set jacoby " + ("on" if item.get("jacoby", True) else "off"))
    command = {"mat": "import mat", "sgf": "load match"}[item["format"]]
    output = _run_captured(f"{command} {item['path']}")
    answer = _match()
    answer["output"] = output
    if item.get("export_mat"):
        gnubg.command(f"export match mat {item['export_mat']}")
    if item.get("export_sgf"):
        gnubg.command(f"save match {item['export_sgf']}")
    return answer


def selfplay(item):
    # one game at a time (automatic game off), so that a money session stops after its first
    gnubg.command("set automatic game off")
    gnubg.command("set confirm new off")
    for player in (0, 1):
        gnubg.command(f"set player {player} gnubg")
        for kind in ("chequerplay", "cubedecision"):
            gnubg.command(f"set player {player} {kind} evaluation plies 0")
    gnubg.command("set jacoby " + ("on" if item.get("jacoby", True) else "off"))
    gnubg.command(f"set variation {item.get('variation', 'standard')}")
    gnubg.command(f"set seed {item['seed']}")
    length = item["length"]
    gnubg.command(f"new match {length}" if length else "new session")
    for _ in range(4 * length):
        last = gnubg.match(0, 0, 0, 0)["games"][-1]["info"]
        score = [last["score-X"], last["score-O"]]
        if last.get("winner") in ("X", "O"):
            score["XO".index(last["winner"])] += last["points-won"]
        if last.get("winner") not in ("X", "O") or max(score) >= length:
            break
        gnubg.command("new game")
    for player in (0, 1):
        gnubg.command(f"set player {player} human")
    gnubg.command(f"export match mat {item['mat']}")
    gnubg.command(f"save match {item['sgf']}")
    return _match()


def main():
    with open(os.environ["BGFAST_GNUBG_REQUEST"], encoding="utf-8") as f:
        request = json.load(f)
    _setup()
    gnubg.command("new game")
    job = {"hints": hints, "xgid": xgid, "double": double, "cube": cube, "import": import_match,
           "selfplay": selfplay}[request["job"]]
    answers = [job(item) for item in request["items"]]
    with open(request["answer"], "w", encoding="utf-8") as f:
        json.dump(answers, f)


main()
