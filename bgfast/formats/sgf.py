"""Matches as SGF, GNU Backgammon's own format (``save match`` / ``load match``).

SGF (Smart Game Format, FF[4]) with ``GM[6]``, backgammon, as GNU Backgammon 1.07 writes
and reads it: one game tree a game, in a row.  The root node of each game holds the
match information: ``MI[length:L][game:I][ws:S0][bs:S1]`` (the match length, 0 = money;
the game's number from 0; the score of White and Black before it), the players ``PW``
(White, bgfast's player 0) and ``PB`` (Black, player 1), on the first game the date
``DT`` and the event ``EV``, round ``RO``, place ``PC``, annotator ``AN`` and comment
``GC``, the rules ``RU[...]`` (``Crawford``, ``CrawfordGame`` in the Crawford game,
``Jacoby``, ``Nackgammon`` or ``Hypergammon3``, joined by ``:``) and the result
``RE[W+2]`` (``R`` after the points: a resignation).  bgfast adds to ``RU`` what gnubg's
SGF does not say and gnubg passes over: ``Beavers`` (money play), ``DeadCube`` (a dead cube
may be doubled) and ``MaxCube=N`` (a maximum cube other than 64).

Each action is a node: ``;W[52mhxv]`` is White's roll 5-2 and its steps, ``;B[double]``,
``;W[take]``, ``;W[drop]``.  A step is two letters, from and to: ``a`` to ``x`` are the
points 1 to 24 of White (24 to 1 of Black), ``y`` the bar, ``z`` off.  A beaver is
gnubg's: the doubled player's ``double`` while the double waits, then the first
doubler's ``take``.  A game that does not start with the opening roll from the variant's
starting position (an opening from a tournament's book, a position set up) starts with a
setup node as gnubg writes and reads it: ``;PL[B]AE[a:y]AW[...]AB[...]``, the player on
roll, the board cleared, then each checker of the player on roll (``AW``, on its own
points) and of the other (``AB``), whatever their colours.

:func:`write_sgf` writes a :class:`~bgfast.game.MatchHistory` (or a
:class:`~bgfast.formats.match_file.MatchFile`), :func:`read_sgf` reads a file that gnubg,
bgfast or another program wrote back into one, checking every play and cube action
(:class:`~bgfast.formats.match_file.MatchReplay`); gnubg's analysis and comments are
passed over.

>>> from bgfast.bots import get_bot
>>> from bgfast.game import play_match_with_history
>>> h = play_match_with_history(get_bot("pubeval"), get_bot("random"), length=3, seed=2)
>>> text = sgf_text(h, players=("pubeval", "random"))
>>> print(text.splitlines()[0].replace(__version__, "VERSION"))
(;FF[4]GM[6]CA[UTF-8]AP[bgfast:VERSION]MI[length:3][game:0][ws:0][bs:0]PW[pubeval]PB[random]RU[Crawford]RE[W+6]
>>> print(text.splitlines()[1])
;B[51qrqv]
>>> read = parse_sgf(text)
>>> read.players, read.history.games == h.games
(('pubeval', 'random'), True)
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sgfmill import sgf_grammar

from bgfast import __version__
from bgfast.errors import InvalidMatchFileError
from bgfast.formats.match_file import (
    MAX_MATCH_LENGTH, MatchFile, MatchReplay, PathOrFile, decode_text, read_text, write_text,
)
from bgfast.game import MatchHistory, Turn
from bgfast.match import Rules
from bgfast.position import BAR, OFF, Position, starting_position
from bgfast.validation import whole_number

__all__ = ["parse_sgf", "read_sgf", "sgf_text", "write_sgf"]

_VARIANTS = {"nackgammon": "Nackgammon", "hypergammon": "Hypergammon3"}
_INFO = (("date", "DT"), ("event", "EV"), ("round", "RO"), ("place", "PC"), ("annotator", "AN"), ("comment", "GC"))
_SETUP = ("AE", "AB", "AW")


# ---------------------------------------------------------------- coordinates

def _letter(player: int, point: int) -> str:
    """The SGF letter of ``player``'s point (1..24, bar 25, off 0)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - (point - 1))


def _point(player: int, letter: str) -> int:
    """``player``'s point of an SGF letter (the inverse of :func:`_letter`); -1 if none."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    if "a" <= letter <= "x":
        index = ord(letter) - ord("a")
        return index + 1 if player == 0 else 24 - index
    return -1


def _escape(text: str) -> str:
    return sgf_grammar.escape_text(text.encode("utf-8")).decode("utf-8")  # type: ignore[no-any-return]


# ---------------------------------------------------------------- writing

def _rules_value(rules: Rules, length: int, crawford_game: bool) -> str:
    tokens = []
    if length > 0 and rules.crawford:
        tokens.append("Crawford")
        if crawford_game:
            tokens.append("CrawfordGame")
    if length == 0 and rules.jacoby:
        tokens.append("Jacoby")
    if rules.variant in _VARIANTS:
        tokens.append(_VARIANTS[rules.variant])
    if length == 0 and rules.beaver:
        tokens.append("Beavers")
    if length > 0 and rules.dead_cube == "allow":
        tokens.append("DeadCube")
    if rules.max_cube != Rules().max_cube:
        tokens.append(f"MaxCube={rules.max_cube}")
    return ":".join(tokens)


def _board_nodes(first: Turn) -> str:
    """gnubg's setup node for a game that starts from ``first``'s position, ``first.player`` on
    roll.  As gnubg writes and reads it, ``AW`` holds the checkers of the player that ``PL``
    puts on roll, on its own points (``a`` its 1-point), and ``AB`` the other's (``x`` its
    1-point); with ``PL[W]`` these are White's and Black's."""
    mine, theirs = first.position.board[1], first.position.board[0]
    on_roll = "".join(f"[{'y' if i == 24 else chr(ord('a') + i)}]" * n for i, n in enumerate(mine))
    other = "".join(f"[{'y' if i == 24 else chr(ord('x') - i)}]" * n for i, n in enumerate(theirs))
    return (f"\n;PL[{'WB'[first.player]}]AE[a:y]" + (f"AW{on_roll}" if on_roll else "")
            + (f"AB{other}" if other else ""))


def _turn_nodes(turn: Turn) -> str:
    colour = "WB"[turn.player]
    if turn.action == "move":
        assert turn.dice is not None and turn.move is not None
        steps = "".join(_letter(turn.player, s.src) + _letter(turn.player, s.dst) for s in turn.move.checker_moves)
        return f"\n;{colour}[{turn.dice.high}{turn.dice.low}{steps}]"
    if turn.action == "double":
        return f"\n;{colour}[double]"
    if turn.action == "take":
        return f"\n;{colour}[take]"
    if turn.action == "pass":
        return f"\n;{colour}[drop]"
    if turn.action == "beaver":   # gnubg's beaver: a double while the double waits, which the doubler takes
        return f"\n;{colour}[double]\n;{'WB'[1 - turn.player]}[take]"
    raise ValueError(f"unknown action {turn.action!r} in a game history")


def _opens_normally(turns: Sequence[Turn], rules: Rules) -> bool:
    first = turns[0]
    return (first.action == "move" and first.dice is not None and not first.dice.is_double
            and first.position == starting_position(rules.variant))


def sgf_text(match: MatchHistory | MatchFile, *, players: tuple[object, object] | None = None,
             rules: Rules | None = None, info: Mapping[str, str] | None = None) -> str:
    """The SGF text of a match (see :func:`write_sgf`)."""
    if isinstance(match, MatchFile):
        players = match.players if players is None else players
        rules = match.rules if rules is None else rules
        info = match.info if info is None else info
        history = match.history
    else:
        history = match
    players = players or ("player0", "player1")
    rules = rules or Rules()
    info = info or {}
    names = [str(p).strip() for p in players]
    for which, name in enumerate(names):
        if not name:
            raise ValueError(f"player {which} needs a non-empty name, got {players[which]!r}")
    unknown = sorted(set(info) - {key for key, _ in _INFO})
    if unknown:
        raise ValueError(f"unknown match info {unknown}: the keys are {', '.join(k for k, _ in _INFO)}")
    record = history.record
    if len(history.games) != len(record.games):
        raise ValueError(f"the history has {len(history.games)} games of turns, its record {len(record.games)}")
    out = []
    score = (0, 0)
    for i, (game, turns) in enumerate(zip(record.games, history.games)):
        if not turns:
            raise ValueError(f"game {game.number} has no turn")
        head = (f"(;FF[4]GM[6]CA[UTF-8]AP[bgfast:{__version__}]MI[length:{record.length}][game:{i}]"
                f"[ws:{score[0]}][bs:{score[1]}]PW[{_escape(names[0])}]PB[{_escape(names[1])}]")
        if i == 0:
            head += "".join(f"{prop}[{_escape(info[key])}]" for key, prop in _INFO if info.get(key))
        ru = _rules_value(rules, record.length, game.crawford)
        head += f"RU[{ru}]" if ru else ""
        head += f"RE[{'WB'[game.winner]}+{game.points}{'R' if game.kind == 'resign' else ''}]"
        body = "" if _opens_normally(turns, rules) else _board_nodes(turns[0])
        body += "".join(_turn_nodes(turn) for turn in turns)
        out.append(head + body + ")\n")
        score = game.score_after
    return "".join(out)


def write_sgf(match: MatchHistory | MatchFile, path_or_file: PathOrFile, *,
              players: tuple[object, object] | None = None, rules: Rules | None = None,
              info: Mapping[str, str] | None = None) -> None:
    """Write a match as an SGF file that GNU Backgammon loads (``load match``).

    :param match: the match: a :class:`~bgfast.game.MatchHistory` (from
        :func:`~bgfast.game.play_match_with_history`) or a read
        :class:`~bgfast.formats.match_file.MatchFile`, which brings its players, rules and
        information (the arguments given here replace them).
    :param path_or_file: a path, or a text file open for writing.
    :param players: the names of player 0 (White) and player 1 (Black).
    :param rules: the rules the match was played under (default :class:`~bgfast.match.Rules`):
        Crawford, Jacoby, the variant, and bgfast's beaver, dead-cube and maximum-cube rules.
    :param info: ``event``, ``round``, ``place``, ``date`` (``YYYY-MM-DD``), ``annotator``, ``comment``.
    :raises ValueError: an empty player name, an unknown info key, a game without turns.
    :raises OutputFileError: a path that cannot be written (nothing is written to it).

    >>> import io
    >>> from bgfast.bots import get_bot
    >>> from bgfast.game import play_match_with_history
    >>> out = io.StringIO()
    >>> write_sgf(play_match_with_history(get_bot("pubeval"), get_bot("random"), length=1, seed=4), out)
    >>> out.getvalue().count("(;FF[4]GM[6]")
    1
    """
    write_text(sgf_text(match, players=players, rules=rules, info=info), path_or_file, "write_sgf", "the SGF file")


# ---------------------------------------------------------------- reading

def _values(node: Mapping[str, list[bytes]], prop: str) -> list[str]:
    return [sgf_grammar.simpletext_value(v).decode("utf-8", "replace") for v in node.get(prop, [])]


def _value(node: Mapping[str, list[bytes]], prop: str) -> str | None:
    values = _values(node, prop)
    return values[0] if values else None


def _match_info(root: Mapping[str, list[bytes]], fail: Any) -> dict[str, int]:
    info: dict[str, int] = {}
    for item in _values(root, "MI"):
        key, _, value = item.partition(":")
        if key in ("length", "game", "ws", "bs"):
            try:
                info[key] = whole_number(int(value), f"MI {key}", low=0)
            except ValueError:
                raise fail(f"MI[{item}] is not {key}:N with N a whole number") from None
    return info


def _rules(tokens: list[str], length: int, base: Rules, fail: Any) -> Rules:
    variant = "standard"
    for token in tokens:
        if token in ("Hypergammon1", "Hypergammon2"):
            raise fail(f"RU {token}: bgfast plays hypergammon with 3 checkers only (Hypergammon3)")
        for name, value in _VARIANTS.items():
            if token == value:
                variant = name
    max_cube = base.max_cube
    for token in tokens:
        if token.startswith("MaxCube="):
            try:
                max_cube = int(token.partition("=")[2])
            except ValueError:
                raise fail(f"RU {token} is not MaxCube=N") from None
    try:
        return Rules(crawford="Crawford" in tokens if length > 0 else base.crawford,
                     jacoby="Jacoby" in tokens if length == 0 else base.jacoby,
                     beaver=True if "Beavers" in tokens else base.beaver,
                     max_cube=max_cube, variant=variant,
                     dead_cube="allow" if "DeadCube" in tokens else base.dead_cube)
    except ValueError as exc:
        raise fail(f"RU: {exc}") from None


def _setup(node: Mapping[str, list[bytes]], position: Position, on_roll: int, fail: Any) -> tuple[Position, int]:
    """The position (the view of the player on roll) after a node's ``PL``, ``AE``, ``AB``, ``AW``."""
    colour = _value(node, "PL")
    if colour is not None:
        if colour not in ("W", "B"):
            raise fail(f"PL[{colour}] is not W or B")
        on_roll = "WB".index(colour)
    # as gnubg reads a setup: AW are the checkers of the player on roll (after PL), AB the other's
    board = {on_roll: list(position.board[1]), 1 - on_roll: list(position.board[0])}

    def points(prop: str) -> list[str]:
        letters = []
        for item in _values(node, prop):
            first, sep, last = item.partition(":")
            if len(first) != 1 or (sep and len(last) != 1) or not "a" <= first <= (last or first) <= "y":
                raise fail(f"{prop}[{item}] is not a point a..y or a range of them")
            letters += [chr(c) for c in range(ord(first), ord(last or first) + 1)]
        return letters

    for letter in points("AE"):
        board[on_roll][_point(0, letter) - 1] = 0
        board[1 - on_roll][_point(1, letter) - 1] = 0
    for letter in points("AW"):
        board[on_roll][_point(0, letter) - 1] += 1
    for letter in points("AB"):
        board[1 - on_roll][_point(1, letter) - 1] += 1
    try:
        return Position.from_board([board[1 - on_roll], board[on_roll]]), on_roll
    except ValueError as exc:
        raise fail(f"the position set up is not a position: {exc}") from None


def _game(replay: MatchReplay, number: int, nodes: list[dict[str, list[bytes]]], tokens: list[str],
          may_stop: bool = False) -> None:
    """Play game ``number``'s nodes on ``replay``; ``may_stop``: a game with no result (``RE``)
    that has not ended is left in play (the last game of a match in progress)."""
    def fail_at(n: int) -> Any:
        return lambda message: replay.fail(f"game {number}, node {n}", message)

    root = nodes[0]
    fail = fail_at(1)
    info = _match_info(root, fail)
    score = (info["ws"], info["bs"]) if "ws" in info and "bs" in info else None
    crawford = "CrawfordGame" in tokens if "Crawford" in tokens and replay.length > 1 else None
    replay.start_game("game %d, node 1" % number, score=score, crawford=crawford)
    result = _value(root, "RE")
    beaver_taker: int | None = None      # after a beaver, the first doubler's take to pass over
    for n, node in enumerate(nodes[1:], start=2):
        where, fail = f"game {number}, node {n}", fail_at(n)
        game = replay.game
        assert game is not None
        if any(prop in node for prop in _SETUP):
            on_roll = game.on_roll if game.on_roll is not None else 0
            position, on_roll = _setup(node, game.position, on_roll, fail)
            replay.set_position(where, position, on_roll)
        cube = _value(node, "CV")
        owner = _value(node, "CP")
        if cube is not None or owner is not None:
            if owner is not None and owner not in ("c", "w", "b"):
                raise fail(f"CP[{owner}] is not c, w or b")
            try:
                cube_value = None if cube is None else int(cube)
            except ValueError:
                raise fail(f"CV[{cube}] is not a cube value") from None
            replay.set_cube(where, value=cube_value, owner=None if owner is None else "cwb".index(owner) - 1)
        moves = [(player, value) for player, prop in enumerate("WB") for value in _values(node, prop)]
        if not moves:
            continue
        player, value = moves[0]
        if beaver_taker is not None:
            if (player, value) != (beaver_taker, "take"):
                raise fail(f"after a beaver, player {beaver_taker} takes it (bgfast knows no raccoon or drop "
                           f"of a beaver), not {'WB'[player]}[{value}]")
            beaver_taker = None
            continue
        if value == "double":
            if "NoCube" in tokens:
                raise fail("a double in a game played without the cube (RU NoCube)")
            if game.doubled_by == 1 - player:
                replay.beaver(where, player)
                beaver_taker = 1 - player
            else:
                replay.double(where, player)
        elif value == "take":
            replay.take(where, player)
        elif value == "drop":
            replay.drop(where, player)
        else:
            if len(value) < 2 or not ("1" <= value[0] <= "6" and "1" <= value[1] <= "6") or len(value) % 2:
                raise fail(f"{'WB'[player]}[{value}] is not double, take, drop or a roll and its steps")
            steps = []
            for k in range(2, len(value), 2):
                src, dst = _point(player, value[k]), _point(player, value[k + 1])
                if src in (-1, OFF) or dst in (-1, BAR):
                    raise fail(f"{'WB'[player]}[{value}]: {value[k:k + 2]!r} is not a step (from a..y to a..x or z)")
                steps.append(f"{'bar' if src == BAR else src}/{'off' if dst == OFF else dst}")   # gnubg's words
            replay.roll(where, player, (int(value[0]), int(value[1])), " ".join(steps))
    if beaver_taker is not None:
        raise fail_at(len(nodes))(f"the beaver waits for player {beaver_taker}'s take")
    if result is None:
        if not (may_stop and replay.game is not None and replay.game.result is None):
            replay.end_game(f"game {number}, node 1")
        return
    winner_text, plus, rest = result[:1].upper(), result[1:2], result[2:]
    digits = rest.rstrip("Rr")
    if winner_text not in ("W", "B") or plus != "+" or not digits.isdigit():
        raise fail_at(1)(f"RE[{result}] is not W+N or B+N (R: resigned)")
    winner, points = "WB".index(winner_text), int(digits)
    if rest.upper().endswith("R") and replay.game is not None and replay.game.result is None:
        replay.resign(f"game {number}, node 1", winner=winner, points=points)
    replay.end_game(f"game {number}, node 1", winner=winner, points=points)


def _check_between_trees(data: bytes, source: str) -> None:
    """Refuse text outside the game trees (sgfmill skips it, and a game whose ``(`` was
    damaged would be dropped with it).

    :raises InvalidMatchFileError: naming the line and the tree it follows.
    """
    position, trees = 0, 0
    while True:
        rest = data[position:]
        start = position + len(rest) - len(rest.lstrip())
        if start == len(data):
            return
        line = data.count(b"\n", 0, start) + 1
        if data[start:start + 1] != b"(":
            snippet = data[start:start + 20].decode("utf-8", "replace")
            raise InvalidMatchFileError(f"{source}: line {line}: {snippet!r} is not SGF "
                                        f"(after game tree {trees}, where a tree's '(' belongs)")
        _, end = sgf_grammar.tokenise(data, start)
        if end <= start:
            raise InvalidMatchFileError(f"{source}: line {line}: a game tree that does not parse")
        position, trees = end, trees + 1


def parse_sgf(text: str | bytes, *, rules: Rules | None = None, source: str = "<sgf>",
              unfinished: bool = False) -> MatchFile:
    """Read SGF text (see :func:`read_sgf`; bytes are read by
    :func:`~bgfast.formats.match_file.decode_text`: UTF-8, UTF-16 or
    Windows-1252); ``source`` names it in error messages."""
    if isinstance(text, (bytes, bytearray)):
        text = decode_text(bytes(text), source)
    data = text.lstrip("\ufeff").encode("utf-8")
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as exc:     # sgfmill counts its game trees from 0; every other message from 1
        message = re.sub(r"\bgame (\d+)", lambda m: f"game {int(m.group(1)) + 1}", str(exc))
        raise InvalidMatchFileError(f"{source}: not an SGF file: {message}") from None
    _check_between_trees(data, source)
    games = [list(sgf_grammar.main_sequence_iter(tree)) for tree in trees]
    games = [nodes for nodes in games if _value(nodes[0], "GM") == "6"]
    if not games:
        raise InvalidMatchFileError(f"{source}: no backgammon game (GM[6]) in the file")
    first = games[0][0]
    length = _match_info(first, lambda m: InvalidMatchFileError(f"{source}: game 1, node 1: {m}")).get("length", 0)
    tokens = [t for value in _values(first, "RU") for t in value.split(":")]
    read_rules = _rules(tokens, length, rules or Rules(),
                        lambda m: InvalidMatchFileError(f"{source}: game 1, node 1: {m}"))
    if length > MAX_MATCH_LENGTH:
        raise InvalidMatchFileError(f"{source}: game 1, node 1: a {length} point match; the longest a match ID "
                                    f"holds is {MAX_MATCH_LENGTH}")
    replay = MatchReplay(length=length, rules=read_rules, source=source)
    for number, nodes in enumerate(games, start=1):
        root_tokens = [t for value in _values(nodes[0], "RU") for t in value.split(":")]
        info = _match_info(nodes[0], lambda m: replay.fail(f"game {number}, node 1", m))
        if info.get("length", 0) != length:
            raise replay.fail(f"game {number}, node 1", f"the match length is {info.get('length', 0)}, "
                                                        f"game 1's is {length}")
        if _rules(root_tokens, length, rules or Rules(), lambda m: replay.fail(f"game {number}, node 1", m)) \
                != read_rules:
            raise replay.fail(f"game {number}, node 1", f"the rules RU[{':'.join(root_tokens)}] differ from "
                                                        f"game 1's RU[{':'.join(tokens)}]")
        _game(replay, number, nodes, root_tokens, may_stop=unfinished and number == len(games))
    players = (_value(first, "PW") or "player0", _value(first, "PB") or "player1")
    match_info = {key: value for key, prop in _INFO if (value := _value(first, prop))}
    return replay.finish(f"game {len(games)}", players=players, info=match_info, unfinished=unfinished)


def read_sgf(path_or_file: PathOrFile, *, rules: Rules | None = None, unfinished: bool = False) -> MatchFile:
    """Read an SGF match file (``GM[6]``, as GNU Backgammon and :func:`write_sgf` write it).

    :param path_or_file: a path, or a text file open for reading.
    :param unfinished: keep a last game the file stops in the middle of (no ``RE``, not
        ended: :attr:`~bgfast.formats.match_file.MatchFile.unfinished`) instead of refusing it.
    :param rules: the rules the file does not state (beavers, a dead cube, the maximum
        cube, and Crawford or Jacoby where they do not apply); the file's ``RU`` decides
        the rest.  Default :class:`~bgfast.match.Rules`.
    :returns: a :class:`~bgfast.formats.match_file.MatchFile`: the match history with
        every position, the players (White, Black), the rules, the match information.
    :raises InvalidMatchFileError: not SGF, no backgammon game, a property that does not
        parse, an illegal play or cube action, a score or result that does not follow;
        the message names the game and node (the root is node 1).
    """
    text, source = read_text(path_or_file, "<sgf>")
    return parse_sgf(text, rules=rules, source=source, unfinished=unfinished)
