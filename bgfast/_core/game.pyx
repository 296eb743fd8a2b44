# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The game and match loop, in C.

One loop serves every bot: built-in bots (random, pubeval, heuristic) choose
plays and cube actions in C without touching Python; Python bots are called
back, with the GIL, through an adapter object (``bgfast.game._PythonAdapter``)
at the same decision points, so every bot plays by the same rules.  C code plugs
its own players in (``PLAY_HOOK``, :meth:`MatchRunner.plug`): the training loops'
self-play (``training.pyx``), asked on every roll to see each position and value.

A game: opening roll (one die each, ties re-rolled, the higher die plays both);
then, turn by turn, a cube action before the roll when the cube is available
to the side on roll, the roll, the play.  The board is kept with the side on
roll as ``side[1]``.  Scoring: single, gammon (loser bore off none) x2,
backgammon (and still a checker on the bar or in the winner's home board) x3,
times the cube; with the Jacoby rule (money only) gammons count single while
the cube is centred.  A match to N points applies the Crawford rule (no cube
in the first game after a side first reaches N-1) when asked.

When asked (:meth:`MatchRunner.record_turns`), the loop also keeps the record of
every turn (:c:type:`TurnRecord`: the board before, the dice, the play as steps,
each cube action and answer); with the record off it costs one test a ply.
Decisions one at a time (a built-in bot asked from Python) go through the same
decision functions, from :class:`Decisions`, without a match.
"""
from cpython.ref cimport PyObject
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t

from bgfast._core.board cimport Board, BAR, board_swap, board_checkers, board_equal, board_from_bytes, BOARD_SIZE
from bgfast._core.movegen cimport MoveGen, Child, movegen_new, movegen_free, generate, MAX_CHILDREN
from bgfast._core.rng cimport Rng, rng_seed, rng_die, rng_below
from bgfast._core.evaluators cimport is_race, keith_count, pubeval_choose
from bgfast._core.probs cimport NOUT, PlayValue, probs_equity, probs_flip
from bgfast._core.evaluator cimport (
    Evaluator, CoreEvaluator, EVAL_HEURISTIC, EVAL_NEURAL, evaluator_choose, evaluator_luck,
    evaluator_after, evaluator_preroll, evaluator_roll,
)
from bgfast._core.cube cimport (
    CubeArgs, MetTable, Met, MET_SIZE, PlayScene, cube_choose, cube_decide, met_mwc,
    play_mwc, RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER,
)
from bgfast._core.cubeful cimport CubeRules, CubeState, cubeful_from_args, cubeful_decide, cubeful_offer, cubeful_respond
from bgfast._core.game cimport (
    Player, Rules, Scene, TurnRecord, TurnLog, GameLog, MatchLog, MatchCtx, GameStart, Judged,
    MAX_GAMES, MAX_DOUBLES, MAX_SCRIPT, SUMMARY_FIELDS, JUDGED_FIELDS,
    PLAY_RANDOM, PLAY_PUBEVAL, PLAY_EVALUATOR, PLAY_PYTHON, PLAY_HOOK, PlayHook,
    CUBE_NEVER, CUBE_KEITH, CUBE_JANOWSKI, CUBE_MET, CUBE_PYTHON, CUBE_NEVER_MET,
    KIND_SINGLE, KIND_GAMMON, KIND_BACKGAMMON, KIND_PASS,
    ACTION_MOVE, ACTION_DOUBLE, ACTION_TAKE, ACTION_PASS, ACTION_BEAVER,
)
from bgfast._core.rng import run_key

import numpy as np
from typing import NamedTuple

KIND_NAMES = ("single", "gammon", "backgammon", "pass")

GameResult = NamedTuple("GameResult", [
    ("winner", int), ("kind", str), ("points", int), ("cube", int), ("plies", int),
    ("truncated", bool), ("final", "bytes | None"), ("final_turn", int),
])
GameResult.__doc__ = """One game played by :meth:`MatchRunner.play_from`.

``winner`` (0 or 1) won ``points`` (``kind``: ``"single"``, ``"gammon"``, ``"backgammon"``,
``"pass"``) at cube ``cube`` after ``plies`` checker plays; a game stopped after the
ply limit is ``truncated``, with its position ``final`` (50 bytes, ``final_turn`` on roll)."""


cdef inline bytes _board_bytes(const Board* b):
    return (<const char*> b.side[0])[:25] + (<const char*> b.side[1])[:25]


cdef inline tuple _state(const Rules* r, const Scene* s):
    return (s.player, r.length, s.score[0], s.score[1], s.cube, s.owner, bool(s.crawford),
            bool(r.jacoby), bool(r.beaver), r.max_cube)


# ---------------------------------------------------------------- decisions

cdef int choose_play(const Rules* r, const MetTable* met, Player* p, MoveGen* g, const Scene* s,
                     const Board* b, int d1, int d2) except -1 nogil:
    """Index of ``s.player``'s chosen child in ``g.items`` (children already generated from
    ``b``).  A player of the MET cube policy plays match play by the table
    (:func:`~bgfast._core.cube.cube_choose`: the play of the best cubeful match winning chance);
    one of CUBE_NEVER_MET by the table with the cube dead where it stands (nobody doubles)."""
    cdef CubeArgs a
    if g.n == 1 and p.play != PLAY_HOOK:
        return 0
    if p.play == PLAY_RANDOM:
        return rng_below(&p.rng, g.n)
    if p.play == PLAY_PUBEVAL:
        return pubeval_choose(g, b)
    if p.play == PLAY_EVALUATOR:
        if (p.cube == CUBE_MET or p.cube == CUBE_NEVER_MET) and r.length > 0:
            cube_args(r, met, p, s, s.player, &a)
            if p.cube == CUBE_NEVER_MET:    # no cash points (as in the Crawford game), a dead cube
                a.crawford = 1
                a.x = 0.0
            return cube_choose(&a, &p.evaluator, g, b)
        return evaluator_choose(&p.evaluator, g, b, NULL)
    if p.play == PLAY_PYTHON:
        with gil:
            return _python_play(r, p, g, s, b, d1, d2)
    if p.play == PLAY_HOOK:
        return p.hook(p.hook_ctx, g, b)
    with gil:
        raise ValueError("unknown checker-play kind %d" % p.play)


cdef int _python_play(const Rules* r, Player* p, MoveGen* g, const Scene* s, const Board* b,
                      int d1, int d2) except -1:
    cdef Board chosen
    cdef int i
    adapter = <object> p.py
    result = adapter.choose_play(_board_bytes(b), d1, d2, _state(r, s))
    if not isinstance(result, bytes) or len(result) != 50:
        raise TypeError("a Python bot's play must come back as a 50-byte board")
    board_from_bytes(<const unsigned char*> (<const char*> result), &chosen)
    for i in range(g.n):
        if board_equal(&g.items[i].board, &chosen):
            return i
    return adapter.illegal_play(_board_bytes(b), d1, d2, result)


cdef inline bint cube_is_dead(const Rules* r, const Scene* s) noexcept nogil:
    """In match play, the cube already covers what ``s.player`` needs: winning this game at
    its value wins the match, so doubling it can only raise what the opponent wins."""
    return r.length > 0 and r.length - s.score[s.player] <= s.cube


cdef bint may_double(const Rules* r, const Scene* s) noexcept nogil:
    """``s.player`` (on roll) may double: not the Crawford game, the cube centred or its own,
    within the maximum, and not dead unless the rules allow doubling a dead cube."""
    if s.crawford:
        return False
    if s.owner != -1 and s.owner != s.player:
        return False
    if s.cube * 2 > r.max_cube:
        return False
    return r.dead_cube_allowed or not cube_is_dead(r, s)


cdef void cube_args(const Rules* r, const MetTable* met, const Player* p, const Scene* s, int doubler,
                    CubeArgs* a) noexcept nogil:
    """The cube math's arguments for a decision of ``p`` (its policy and efficiency), from
    ``doubler``'s view."""
    a.length = r.length
    a.doubler = doubler
    a.owner = s.owner
    a.away_d = r.length - s.score[doubler]
    a.away_t = r.length - s.score[1 - doubler]
    a.post_crawford = r.length > 0 and (a.away_d == 1 or a.away_t == 1)
    a.crawford = s.crawford
    a.cube = s.cube
    a.jacoby = r.length == 0 and r.jacoby
    a.beaver = r.beaver
    a.max_cube = r.max_cube
    a.x = p.cube_efficiency
    a.met = met if p.cube == CUBE_MET or p.cube == CUBE_NEVER_MET else NULL


cdef int offer_double(const Rules* r, const MetTable* met, Player* p, MoveGen* g, const Scene* s,
                      const Board* b) except -1 nogil:
    """Whether ``s.player`` (on roll in ``b``) doubles.  A built-in policy never doubles a dead
    cube (which the rules may allow): it cannot gain; a Python bot is asked."""
    cdef CubeArgs a
    cdef int diff
    if p.cube == CUBE_NEVER or p.cube == CUBE_NEVER_MET:
        return 0
    if p.cube != CUBE_PYTHON and cube_is_dead(r, s):
        return 0
    if p.cube == CUBE_KEITH:
        if not is_race(b):
            return 0
        diff = 8 * keith_count(b, 1) - 7 * keith_count(b, 0)   # 7 x (K_me * 8/7 - K_opp)
        return diff <= (28 if s.owner == -1 else 21)
    if p.cube == CUBE_JANOWSKI or p.cube == CUBE_MET:
        cube_args(r, met, p, s, s.player, &a)
        return cubeful_offer(&a, &p.evaluator, g, b)
    if p.cube == CUBE_PYTHON:
        with gil:
            adapter = <object> p.py
            return 1 if adapter.should_double(_board_bytes(b), _state(r, s)) else 0
    with gil:
        raise ValueError("cube policy %d is not available for this bot" % p.cube)


cdef int respond_double(const Rules* r, const MetTable* met, Player* p, MoveGen* g, const Scene* s,
                        const Board* b) except -1 nogil:
    """``s.player``'s answer to a double; ``b`` has the doubler on roll (side 1)."""
    cdef CubeArgs a
    cdef int diff, answer
    if p.cube == CUBE_NEVER or p.cube == CUBE_NEVER_MET:
        return RESPONSE_TAKE
    if p.cube == CUBE_KEITH:
        if not is_race(b):
            return RESPONSE_TAKE
        diff = 8 * keith_count(b, 1) - 7 * keith_count(b, 0)
        return RESPONSE_TAKE if diff >= 14 else RESPONSE_PASS
    if p.cube == CUBE_JANOWSKI or p.cube == CUBE_MET:
        cube_args(r, met, p, s, 1 - s.player, &a)
        return cubeful_respond(&a, &p.evaluator, g, b)
    if p.cube == CUBE_PYTHON:
        with gil:
            adapter = <object> p.py
            answer = int(adapter.accept_double(_board_bytes(b), _state(r, s)))
            if answer not in (RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER):
                raise ValueError("a cube response is 0 (pass), 1 (take) or 2 (beaver), got %r" % answer)
            return answer
    with gil:
        raise ValueError("cube policy %d is not available for this bot" % p.cube)


cdef inline int allowed_answer(const Rules* r, int answer, int cube) noexcept nogil:
    """The answer as the rules let it stand: a beaver outside money play with beavers on,
    or past the maximum cube, is a take."""
    if answer == RESPONSE_BEAVER and not (r.length == 0 and r.beaver and cube * 4 <= r.max_cube):
        return RESPONSE_TAKE
    return answer


# ---------------------------------------------------------------- the judge

# A cube decision counts when it is close (gnubg's rule: no double within this much
# normalized equity of the double's value, the take capped at the cash) or actually made;
# the same as bgfast.analysis.error_rates.CLOSE_CUBE (tests/test_judge.py checks they agree).
cdef double CLOSE_CUBE = 0.16
JUDGE_CLOSE_CUBE = CLOSE_CUBE


cdef inline double _mwc(const MatchCtx* m, int away, int opp_away, bint post_crawford) noexcept nogil:
    """The judge's table: the MWC of a side ``away`` from winning against ``opp_away``."""
    if away >= MET_SIZE:
        away = MET_SIZE - 1
    if opp_away >= MET_SIZE:
        opp_away = MET_SIZE - 1
    return met_mwc(m.judge_met, away, opp_away, post_crawford)


cdef inline bint _judged_in_mwc(const MatchCtx* m) noexcept nogil:
    return m.rules.length > 0 and m.judge_met != NULL


cdef void _luck_weights(const MatchCtx* m, const Scene* s, double* w) noexcept nogil:
    """The linear map from a luck vector (the five probabilities' change, the roller's view)
    to the judge's unit, the game's result as the cube stands: money, the cubeless
    equity's change times the cube (under the Jacoby rule with the cube centred, gammons
    and backgammons count nothing, as in the result when nobody doubles); match play,
    the cubeless MWC's change at the score and cube (the MWC is linear in the five numbers:
    ``L1 + w (W1 - L1) + wg (W2 - W1) + wbg (W3 - W2) - lg (L1 - L2) - lbg (L2 - L3)``, Wk
    and Lk the MWC after winning or losing k times the cube).  Any weights leave the luck's
    mean at zero; these make it follow the result."""
    cdef int away, opp, c = s.cube
    cdef bint pc
    cdef double w1, w2, w3, l1, l2, l3, g
    if not _judged_in_mwc(m):
        g = 0.0 if m.rules.length == 0 and m.rules.jacoby and s.owner == -1 else c
        w[0] = 2.0 * c
        w[1] = g
        w[2] = g
        w[3] = -g
        w[4] = -g
        return
    away = m.rules.length - s.score[s.player]
    opp = m.rules.length - s.score[1 - s.player]
    pc = away == 1 or opp == 1
    w1, w2, w3 = _mwc(m, away - c, opp, pc), _mwc(m, away - 2 * c, opp, pc), _mwc(m, away - 3 * c, opp, pc)
    l1, l2, l3 = _mwc(m, away, opp - c, pc), _mwc(m, away, opp - 2 * c, pc), _mwc(m, away, opp - 3 * c, pc)
    w[0] = w1 - l1
    w[1] = w2 - w1
    w[2] = w3 - w2
    w[3] = l2 - l1
    w[4] = l3 - l2


cdef void _judge_luck(MatchCtx* m, const Scene* s, const Board* b, int d1, int d2, GameLog* log) noexcept nogil:
    """Add the luck of ``s.player``'s roll (d1, d2) in ``b`` (on roll, side 1) by the judge:
    its equity (MWC) after its best 0-ply play of the roll minus the average over the 36
    rolls (``evaluator_luck``, valuing pubeval's best ``m.judge_filter`` plays of each roll,
    0: all), in the judge's unit.  A neural judge at 0 ply keeps its values of every play
    of the roll rolled (``m.judge_every``) for :func:`_judge_play`."""
    cdef float v[NOUT]
    cdef double w[NOUT]
    cdef double total = 0.0
    cdef int k
    cdef bint reuse = m.judge.kind == EVAL_NEURAL and m.judge.ply == 0
    memset(v, 0, sizeof(v))
    evaluator_luck(&m.judge, m.judge_gen, b, d1, d2, m.judge_filter, v, m.judge_every if reuse else NULL)
    m.judge_valued = reuse
    _luck_weights(m, s, w)
    for k in range(NOUT):
        total += w[k] * v[k]
    log.judged.luck[s.player] += total


cdef double _opening_value(MatchCtx* m, const Scene* s, const float* p) noexcept nogil:
    """The judge's value for ``s.player`` of the probabilities ``p`` (its view) at the start of
    a game: points (the cubeless equity as :func:`_luck_weights` counts it) or MWC."""
    cdef double w[NOUT]
    cdef double v
    cdef int k
    _luck_weights(m, s, w)
    if _judged_in_mwc(m):                   # the MWC of losing a single game, plus the weighted changes
        v = _mwc(m, m.rules.length - s.score[s.player], m.rules.length - s.score[1 - s.player] - s.cube,
                 m.rules.length - s.score[0] == 1 or m.rules.length - s.score[1] == 1)
    else:                                   # a single loss
        v = -s.cube
    for k in range(NOUT):
        v += w[k] * p[k]
    return v


cdef void _judge_opening(MatchCtx* m, Scene* s, const Board* b, int d1, int d2, int roller,
                         GameLog* log) noexcept nogil:
    """Add the luck of the opening roll (d1, d2) that ``roller`` won, in ``b`` (the start,
    the roller as side 1): who moves first, and with which roll.  Player 0's value after
    it is the judge's value (its unit) after the roller's best 0-ply play, the roller's
    for player 0, the complement for player 1; the luck is that minus its mean over the
    30 equally likely opening rolls (each non-double roll once for each player).  The
    event is zero-sum, and half of it is each side's luck (``+x/2`` and ``-x/2``): the
    luck difference moves by the whole and each side's own luck averages zero."""
    cdef float p[NOUT]
    cdef double value0, mean0 = 0.0, total = 0.0 if m.rules.length == 0 else 1.0
    cdef int a, c
    for a in range(1, 7):
        for c in range(a + 1, 7):
            evaluator_roll(&m.judge, m.judge_gen, b, a, c, p)
            s.player = 0
            value0 = _opening_value(m, s, p)
            s.player = 1
            value0 += total - _opening_value(m, s, p)
            mean0 += value0 / 30.0
    evaluator_roll(&m.judge, m.judge_gen, b, d1, d2, p)
    s.player = roller
    value0 = _opening_value(m, s, p)
    if roller == 1:
        value0 = total - value0
    log.judged.luck[0] += 0.5 * (value0 - mean0)
    log.judged.luck[1] -= 0.5 * (value0 - mean0)


cdef double _emg_unit(const MatchCtx* m, const Scene* s, double* low) noexcept nogil:
    """The MWC worth one EMG to ``s.player`` at the score and cube: half what the cube in
    play swings (winning it minus losing it); ``low``, the MWC after losing it.  gnubg's
    normalization of match-play errors (``mwc2eq``)."""
    cdef int away = m.rules.length - s.score[s.player]
    cdef int opp = m.rules.length - s.score[1 - s.player]
    cdef bint pc = away == 1 or opp == 1
    low[0] = _mwc(m, away, opp - s.cube, pc)
    return 0.5 * (_mwc(m, away - s.cube, opp, pc) - low[0])


cdef void _play_scene(const MatchCtx* m, const Scene* s, PlayScene* ps, PlayValue* value) noexcept nogil:
    """The judge's value of a play in match play: the mover's cubeful MWC (``play_mwc``)."""
    ps.met = m.judge_met
    ps.away = m.rules.length - s.score[s.player]
    ps.opp_away = m.rules.length - s.score[1 - s.player]
    if ps.away >= MET_SIZE:
        ps.away = MET_SIZE - 1
    if ps.opp_away >= MET_SIZE:
        ps.opp_away = MET_SIZE - 1
    ps.post_crawford = ps.away == 1 or ps.opp_away == 1
    ps.cube = s.cube
    ps.mine = not s.crawford and (s.owner == -1 or s.owner == s.player)
    ps.theirs = not s.crawford and s.owner != s.player
    ps.max_cube = m.rules.max_cube
    ps.x = m.judge_x
    cdef double low
    value.fn = play_mwc
    value.ctx = ps
    value.unit = _emg_unit(m, s, &low)


cdef double _play_value(MatchCtx* m, const Scene* s, const Board* after, const PlayValue* value) noexcept nogil:
    """The judge's value of the position ``after`` a play (the mover as side 1) at the judge's
    ply, the mover's view: points (cubeless equity times the cube) or cubeful MWC."""
    cdef float p[NOUT]
    cdef float q[NOUT]
    cdef Board opp
    if m.judge.ply == 0:
        evaluator_after(&m.judge, after, p)
    else:                                   # an n-ply choice values each play by the opponent's n-ply roll
        board_swap(&opp, after)
        evaluator_preroll(&m.judge, m.judge_gen, &opp, m.judge.ply, q)
        probs_flip(q, p)
    if value != NULL:
        return value.fn(p, value.ctx)
    return s.cube * probs_equity(p)


cdef inline double _every_value(const MatchCtx* m, const Scene* s, int j, const PlayValue* value) noexcept nogil:
    """The judge's 0-ply value of play ``j`` of the roll from ``m.judge_every``, as
    :func:`_play_value` values it."""
    if value != NULL:
        return value.fn(m.judge_every + NOUT * j, value.ctx)
    return s.cube * probs_equity(m.judge_every + NOUT * j)


cdef void _judge_play(MatchCtx* m, const Scene* s, const Board* b, int chosen, GameLog* log) noexcept nogil:
    """The error of ``s.player``'s play ``chosen`` among the plays in ``m.gen`` (generated from
    ``b``): the judge's value of its best play minus that of the chosen one, both at its
    ply (never below 0), normalized as gnubg's error rates are: money per unit of the cube,
    match play in EMG (the MWC given up over ``PlayValue.unit``, half the MWC swing of the
    cube at the score); a forced play (one resulting position) is no decision.  At 0 ply
    after the judge's luck measure of this roll the values are those it found for every
    play (``m.judge_every``, the same plays in the same order): nothing is valued again."""
    cdef PlayScene ps
    cdef PlayValue pv
    cdef const PlayValue* value = NULL
    cdef int best, j
    cdef double err, v, top = 0.0
    cdef double unit = s.cube
    cdef bint valued = m.judge_valued
    m.judge_valued = 0
    if m.gen.n <= 1:
        return
    if _judged_in_mwc(m):
        _play_scene(m, s, &ps, &pv)
        value = &pv
        unit = pv.unit
    log.judged.checker_decisions[s.player] += 1
    if valued and m.judge_gen.n == m.gen.n:
        for j in range(m.gen.n):
            v = _every_value(m, s, j, value)
            if j == 0 or v > top:
                top = v
        err = top - _every_value(m, s, chosen, value)
        if err > 0 and unit > 0:
            log.judged.checker_error[s.player] += err / unit
        return
    best = evaluator_choose(&m.judge, m.gen, b, value)
    if best == chosen:
        return
    err = (_play_value(m, s, &m.gen.items[best].board, value)
           - _play_value(m, s, &m.gen.items[chosen].board, value))
    if err > 0 and unit > 0:
        log.judged.checker_error[s.player] += err / unit


cdef void _judge_cube(MatchCtx* m, const Scene* s, const Board* b, double* eq) noexcept nogil:
    """The judge's no double, double/take and double/pass (``eq[0..2]``) for ``s.player`` on
    roll in ``b``, its view, at the judge's cube plies, normalized as gnubg's error rates
    are (money: points per unit of the cube; match play: EMG, the MWC with losing the cube
    -1 and winning it +1); ``eq[3]``: 1 when the decision is close (gnubg's rule).

    A neural judge with ``cube_ply`` >= 1 values the three actions by the cubeful n-ply walk
    (:func:`~bgfast._core.cubeful.cubeful_decide`, one call for the three, as its own cube
    decisions are made: each side doubling when right at every node, a last roll's values
    exact); other judges, and ``cube_ply`` 0, by Janowski's formula (MET in match play) on
    their probabilities at ``cube_ply`` (:func:`~bgfast._core.cube.cube_decide`)."""
    cdef CubeArgs a
    cdef CubeRules r
    cdef CubeState st
    cdef float p[NOUT]
    cdef double unit, low
    cdef int k
    a.length = m.rules.length
    a.doubler = s.player
    a.owner = s.owner
    a.away_d = m.rules.length - s.score[s.player]
    a.away_t = m.rules.length - s.score[1 - s.player]
    a.post_crawford = m.rules.length > 0 and (a.away_d == 1 or a.away_t == 1)
    a.crawford = s.crawford
    a.cube = s.cube
    a.jacoby = m.rules.length == 0 and m.rules.jacoby
    a.beaver = m.rules.beaver
    a.max_cube = m.rules.max_cube
    a.x = m.judge_x
    a.met = m.judge_met if m.rules.length > 0 else NULL
    if m.judge.kind == EVAL_NEURAL and m.judge.cube_ply > 0:
        cubeful_from_args(&a, &r, &st)
        cubeful_decide(m.judge.search, m.judge_gen, b, &r, &st, m.judge.cube_ply, &eq[0], &eq[1], &eq[2], NULL)
    else:
        evaluator_preroll(&m.judge, m.judge_gen, b, m.judge.cube_ply, p)
        cube_decide(p, &a, &eq[0], &eq[1], &eq[2])
    if _judged_in_mwc(m):                   # normalized: losing the cube -1, winning it (the pass) +1
        unit = _emg_unit(m, s, &low)
        for k in range(3):
            eq[k] = (eq[k] - low) / unit - 1.0 if unit > 0 else 0.0
    eq[3] = 1.0 if eq[0] - (eq[1] if eq[1] < 1.0 else 1.0) < CLOSE_CUBE else 0.0


cdef void _judge_offer(const Scene* s, const double* eq, int doubled, GameLog* log) noexcept nogil:
    """The error of ``s.player``'s cube action: the judge's best (no double, or the double
    at the taker's best answer) minus the value of what it did."""
    cdef double double_value = eq[1] if eq[1] < eq[2] else eq[2]
    cdef double best = eq[0] if eq[0] > double_value else double_value
    if doubled or eq[3] != 0:
        log.judged.cube_decisions[s.player] += 1
    log.judged.cube_error[s.player] += best - (double_value if doubled else eq[0])


cdef void _judge_answer(int taker, const double* eq, int answer, GameLog* log) noexcept nogil:
    """The error of ``taker``'s answer (a beaver judged as a take): what the doubler gets
    from it, the judge's view, minus what the better answer gives the doubler."""
    cdef double given = eq[2] if answer == RESPONSE_PASS else eq[1]
    cdef double least = eq[1] if eq[1] < eq[2] else eq[2]
    log.judged.cube_decisions[taker] += 1
    log.judged.cube_error[taker] += given - least


# ---------------------------------------------------------------- the loop

cdef inline bint plays_as_luck(const Rules* r, const Player* p) noexcept nogil:
    """The player's play of a roll is the luck measure's (its own evaluator's 0-ply choice by
    cubeless equity: not a match-play MET player, who ranks plays by match winning chance),
    so the loop can take the play the luck measure found instead of choosing again."""
    if (p.cube == CUBE_MET or p.cube == CUBE_NEVER_MET) and r.length > 0:
        return False
    return p.play == PLAY_EVALUATOR and (p.evaluator.kind == EVAL_HEURISTIC
                                         or (p.evaluator.kind == EVAL_NEURAL and p.evaluator.ply == 0))


cdef TurnRecord* _new_turn(MatchCtx* m, int player, int action, const Board* before, int cube) except NULL nogil:
    """A new turn at the end of the match record, its common fields set."""
    cdef TurnLog* t = &m.log
    cdef TurnRecord* grown
    cdef TurnRecord* rec
    cdef int cap
    if t.n == t.cap:
        cap = 256 if t.cap == 0 else 2 * t.cap
        grown = <TurnRecord*> realloc(t.turns, cap * sizeof(TurnRecord))
        if grown == NULL:
            with gil:
                raise MemoryError()
        t.turns = grown
        t.cap = cap
    rec = &t.turns[t.n]
    t.n += 1
    memset(rec, 0, sizeof(TurnRecord))
    memcpy(&rec.before, before, sizeof(Board))
    rec.player = <int8_t> player
    rec.action = <int8_t> action
    rec.cube = cube
    rec.game = <int16_t> m.game
    return rec


cdef int _record_move(MatchCtx* m, int player, const Board* before, int d1, int d2, const Child* c,
                      int cube) except -1 nogil:
    cdef TurnRecord* rec = _new_turn(m, player, ACTION_MOVE, before, cube)
    cdef int k
    memcpy(&rec.after, &c.board, sizeof(Board))
    rec.d1 = <uint8_t> (d1 if d1 >= d2 else d2)
    rec.d2 = <uint8_t> (d2 if d1 >= d2 else d1)
    rec.nsteps = c.nsteps
    rec.hit = c.hit
    for k in range(c.nsteps):
        rec.src[k] = c.src[k]
        rec.dst[k] = c.dst[k]
    return 0


cdef int _record_cube(MatchCtx* m, int doubler, const Board* b, int cube, int answer) except -1 nogil:
    """A double from ``cube`` and its answer (the taker's view of the board)."""
    cdef Board taker_view
    cdef int action = ACTION_TAKE
    _new_turn(m, doubler, ACTION_DOUBLE, b, 2 * cube)
    board_swap(&taker_view, b)
    if answer == RESPONSE_PASS:
        action = ACTION_PASS
    elif answer == RESPONSE_BEAVER:
        action = ACTION_BEAVER
    _new_turn(m, 1 - doubler, action, &taker_view, 4 * cube if answer == RESPONSE_BEAVER else 2 * cube)
    return 0


cdef int next_die(MatchCtx* m) noexcept nogil:
    """The next die: from the script while it lasts, then from the match's stream."""
    if m.script_pos < m.script_len:
        m.script_pos += 1
        return m.script[m.script_pos - 1]
    return rng_die(&m.dice)


cdef int play_game(MatchCtx* m, int crawford, const GameStart* start, GameLog* log) except -1 nogil:
    """Play one game to its end into ``log``; from the opening roll when ``start`` is NULL."""
    cdef Board b
    cdef int a, c, d1, d2, turn, idx, answer, i, played, doubled
    cdef double cube_eq[4]                    # the judge's no double, double/take, double/pass, close
    cdef int cube = 1, owner = -1, plies = 0, max_plies = 0, k
    cdef int left[2]                          # checkers each player still has on the board
    cdef float ply_luck[5]
    cdef bint skip_cube = True, judge_cube = False
    cdef bint drawn = True                    # this turn's dice are known (the opening roll, given dice)
    cdef const uint8_t* loser
    cdef const Child* chosen
    cdef Scene sc
    memset(log, 0, sizeof(GameLog))
    log.crawford = crawford
    if m.late:
        memcpy(&m.players[0].evaluator, &m.early_ev[0], sizeof(Evaluator))
        memcpy(&m.players[1].evaluator, &m.early_ev[1], sizeof(Evaluator))
    if start == NULL:
        memcpy(&b, &m.rules.start, sizeof(Board))
        while True:
            a = next_die(m)
            c = next_die(m)
            if a != c:
                break
        turn = 0 if a > c else 1
        d1 = a
        d2 = c
    else:
        memcpy(&b, &start.board, sizeof(Board))
        turn = start.turn
        cube = start.cube
        owner = start.owner
        d1 = start.d1
        d2 = start.d2
        drawn = d1 != 0
        skip_cube = drawn or start.no_double
        max_plies = start.max_plies
    sc.score[0] = m.score[0]
    sc.score[1] = m.score[1]
    sc.crawford = crawford
    if m.judging and start == NULL:
        sc.cube = 1
        sc.owner = -1
        _judge_opening(m, &sc, &b, d1, d2, turn, log)
    left[turn] = board_checkers(&b, 1)
    left[1 - turn] = board_checkers(&b, 0)
    while True:
        if m.late and plies == m.late_after:    # late evaluation: the rest of the game at other plies
            memcpy(&m.players[0].evaluator, &m.late_ev[0], sizeof(Evaluator))
            memcpy(&m.players[1].evaluator, &m.late_ev[1], sizeof(Evaluator))
        if max_plies and plies >= max_plies:
            log.truncated = 1
            log.final_turn = turn
            memcpy(&log.final, &b, sizeof(Board))
            log.cube = cube
            log.plies = plies
            return 0
        sc.player = turn
        sc.cube = cube
        sc.owner = owner
        if not skip_cube:
            doubled = 0
            if may_double(&m.rules, &sc):
                judge_cube = m.judging and m.players[turn].cube != CUBE_NEVER
                if judge_cube:              # a player that never doubles makes no cube decision to judge
                    _judge_cube(m, &sc, &b, cube_eq)
                doubled = offer_double(&m.rules, m.met, &m.players[turn], m.gen, &sc, &b)
                if judge_cube:
                    _judge_offer(&sc, cube_eq, doubled, log)
            if doubled:
                sc.player = 1 - turn
                answer = respond_double(&m.rules, m.met, &m.players[1 - turn], m.gen, &sc, &b)  # doubler on roll
                answer = allowed_answer(&m.rules, answer, cube)
                sc.player = turn
                if judge_cube:
                    _judge_answer(1 - turn, cube_eq, answer, log)
                if log.ndoubles < MAX_DOUBLES:
                    log.double_by[log.ndoubles] = <int8_t> turn
                    log.double_response[log.ndoubles] = <int8_t> answer
                    log.ndoubles += 1
                if m.record:
                    _record_cube(m, turn, &b, cube, answer)
                if answer == RESPONSE_PASS:
                    log.cube = cube
                    log.points = cube
                    log.winner = turn
                    log.kind = KIND_PASS
                    log.plies = plies
                    return 0
                cube *= 4 if answer == RESPONSE_BEAVER else 2
                owner = 1 - turn
                sc.cube = cube
                sc.owner = owner
        if not drawn:
            d1 = next_die(m)
            d2 = next_die(m)
            if m.judging:                   # not the opening roll (no doubles) nor a rollout's set first roll
                _judge_luck(m, &sc, &b, d1, d2, log)
        played = -1
        if m.luck and not (drawn and start != NULL):     # leaves m.gen holding the plays of (d1, d2)
            memset(ply_luck, 0, sizeof(ply_luck))
            played = evaluator_luck(&m.players[turn].evaluator, m.gen, &b, d1, d2, m.luck_filter, ply_luck, NULL)
            for k in range(5):
                log.luck[turn][k] += ply_luck[k]
                log.cube_luck[turn][k] += cube * ply_luck[k]    # the cube was set before the roll
        else:
            generate(m.gen, &b, d1, d2)
        skip_cube = False
        drawn = False
        if played >= 0 and plays_as_luck(&m.rules, &m.players[turn]):
            idx = played
        else:
            idx = choose_play(&m.rules, m.met, &m.players[turn], m.gen, &sc, &b, d1, d2)
        if m.judging:
            _judge_play(m, &sc, &b, idx, log)
        chosen = &m.gen.items[idx]
        if m.record:
            _record_move(m, turn, &b, d1, d2, chosen, cube)
        memcpy(&b, &chosen.board, sizeof(Board))
        plies += 1
        for k in range(chosen.nsteps):
            if chosen.dst[k] == 0:
                left[turn] -= 1
        if left[turn] == 0:
            loser = b.side[0]
            log.winner = turn
            log.cube = cube
            log.plies = plies
            log.kind = KIND_SINGLE
            if board_checkers(&b, 0) == m.rules.checkers:
                log.kind = KIND_GAMMON
                if loser[BAR]:
                    log.kind = KIND_BACKGAMMON
                for i in range(18, 24):
                    if loser[i]:
                        log.kind = KIND_BACKGAMMON
            if m.rules.length == 0 and m.rules.jacoby and owner == -1:
                log.points = cube
            else:
                log.points = cube * (log.kind + 1)
            return 0
        board_swap(&b, &b)
        turn = 1 - turn


cdef int play_match(MatchCtx* m, MatchLog* out, const GameStart* first) except -1 nogil:
    """Play a match to its end into ``out``; its first game from ``first`` (NULL: the opening roll)."""
    cdef int crawford, crawford_done = 0, length = m.rules.length
    cdef GameLog* log
    out.ngames = 0
    m.score[0] = 0
    m.score[1] = 0
    m.log.n = 0
    while True:
        crawford = 0
        if (length > 1 and m.rules.crawford and not crawford_done
                and (m.score[0] == length - 1 or m.score[1] == length - 1)):
            crawford = 1
            crawford_done = 1
        if out.ngames == MAX_GAMES:
            with gil:
                raise RuntimeError("match exceeded %d games" % MAX_GAMES)
        log = &out.games[out.ngames]
        m.game = out.ngames
        play_game(m, crawford, first if out.ngames == 0 else NULL, log)
        out.ngames += 1
        m.score[log.winner] += log.points
        log.score_after[0] = m.score[0]
        log.score_after[1] = m.score[1]
        if length == 0 or m.score[log.winner] >= length:
            out.winner = log.winner
            break
    out.score[0] = m.score[0]
    out.score[1] = m.score[1]
    return 0


cdef int play_position(MatchCtx* m, MatchLog* log, const GameStart* start, int score0, int score1,
                       int crawford) except -1 nogil:
    """Play one game from ``start`` at the score (score0, score1) into ``log.games[0]``, the
    log's one game (what :meth:`MatchRunner.play_from` and the rollout's trials play)."""
    m.score[0] = score0
    m.score[1] = score1
    m.game = 0
    m.log.n = 0
    play_game(m, crawford, start, &log.games[0])
    log.ngames = 1
    return 0


# ---------------------------------------------------------------- Python entry points

cdef object _turn_dtype():
    cdef TurnRecord r
    cdef char* base = <char*> &r

    return np.dtype({
        "names": ["before", "after", "cube", "game", "player", "action", "d1", "d2", "nsteps", "hit",
                  "src", "dst"],
        "formats": [(np.uint8, 50), (np.uint8, 50), np.int32, np.int16, np.int8, np.int8, np.uint8,
                    np.uint8, np.uint8, np.uint8, (np.uint8, 4), (np.uint8, 4)],
        "offsets": [<char*> &r.before - base, <char*> &r.after - base, <char*> &r.cube - base,
                    <char*> &r.game - base, <char*> &r.player - base, <char*> &r.action - base,
                    <char*> &r.d1 - base, <char*> &r.d2 - base, <char*> &r.nsteps - base,
                    <char*> &r.hit - base, <char*> &r.src[0] - base, <char*> &r.dst[0] - base],
        "itemsize": sizeof(TurnRecord),
    })


TURN_DTYPE = _turn_dtype()
"""The numpy dtype of :meth:`MatchRunner.turns`: one row per action (see ``TurnRecord``).

``before``/``after`` are 50-byte boards (opponent's 25 counts, then the actor's);
``action`` a :class:`TurnAction`; ``d1 >= d2`` the roll of a move; ``src``/``dst`` its
first ``nsteps`` steps in notation points (bar 25, off 0), bit k of ``hit`` set when
step k hit; ``cube`` as for :class:`bgfast.game.Turn`."""


cdef int _set_rules(Rules* r, rules, start) except -1:
    """Fill ``r`` from ``(length, crawford, jacoby, beaver, max_cube, dead_cube_allowed)`` and a
    side's 25 counts."""
    cdef int i
    r.length, r.crawford, r.jacoby, r.beaver, r.max_cube, r.dead_cube_allowed = rules
    if len(start) != 25:
        raise ValueError("a starting position is 25 counts")
    for i in range(25):
        r.start.side[0][i] = start[i]
        r.start.side[1][i] = start[i]
    r.checkers = sum(start)
    return 0


cdef int _set_player(Player* p, spec, list keep) except -1:
    """Fill ``p`` from ``(play_kind, cube_kind, cube_efficiency, evaluator, adapter[, stream])``.

    ``evaluator`` is a :class:`~bgfast._core.evaluator.CoreEvaluator` or None (a player
    that neither plays nor doubles by one); ``adapter`` the Python side of a
    ``PLAY_PYTHON`` / ``CUBE_PYTHON`` player, else None; ``stream`` (0 when left out, below
    2**62) moves the player's stream of random choices to another lane (see
    ``seed_match``).  Objects the player points into are appended to ``keep``."""
    play, cube, eff, evaluator, adapter = spec[:5]
    stream = spec[5] if len(spec) > 5 else 0
    if not 0 <= stream < 2**62:
        raise ValueError("a player's stream is from 0 to 2**62 - 1, got %r" % (stream,))
    p.stream = stream
    p.play = play
    p.cube = cube
    p.cube_efficiency = eff
    p.py = NULL
    p.hook = NULL
    p.hook_ctx = NULL
    memset(&p.evaluator, 0, sizeof(Evaluator))
    p.evaluator.kind = -1
    if not (PLAY_RANDOM <= play <= PLAY_PYTHON):
        raise ValueError("unknown checker-play kind %r" % (play,))
    if not (CUBE_NEVER <= cube <= CUBE_NEVER_MET):
        raise ValueError("unknown cube policy %r" % (cube,))
    if evaluator is not None:
        if not isinstance(evaluator, CoreEvaluator):
            raise TypeError("a player's evaluator is a CoreEvaluator, got %r" % (evaluator,))
        memcpy(&p.evaluator, &(<CoreEvaluator> evaluator).ev, sizeof(Evaluator))
        keep.append(evaluator)
    elif play == PLAY_EVALUATOR or cube == CUBE_JANOWSKI or cube == CUBE_MET:
        raise ValueError("a player that plays or doubles by an evaluator needs one")
    if adapter is not None:
        keep.append(adapter)
        p.py = <PyObject*> adapter
    if (play == PLAY_PYTHON or cube == CUBE_PYTHON) and adapter is None:
        raise ValueError("a Python player needs an adapter")
    return 0


cdef const MetTable* _met_table(met, list keep) except? NULL:
    if met is None:
        return NULL
    if not isinstance(met, Met):
        raise TypeError("a match equity table for the core is a bgfast._core.cube.Met, got %r" % (met,))
    keep.append(met)
    return &(<Met> met).t


cdef int game_start(GameStart* st, const unsigned char[::1] board, int turn, int cube, int owner,
                     int d1, int d2, int max_plies) except -1:
    """Fill ``st`` from a board of 50 bytes (``turn`` on roll as side 1) and the game's state.

    :raises ValueError: a board of another length, or a turn other than 0 or 1.
    """
    if turn != 0 and turn != 1:
        raise ValueError("turn is 0 or 1, got %d" % turn)
    if board.shape[0] != 2 * BOARD_SIZE:
        raise ValueError("a board is %d bytes, got %d" % (2 * BOARD_SIZE, board.shape[0]))
    board_from_bytes(&board[0], &st.board)
    st.turn = turn
    st.cube = cube
    st.owner = owner
    st.d1 = d1
    st.d2 = d2
    st.no_double = 0
    st.max_plies = max_plies
    return 0


cdef class MatchRunner:
    """Plays matches between two configured players under fixed rules.

    :param rules: ``(length, crawford, jacoby, beaver, max_cube, dead_cube_allowed)`` as ints.
    :param start: the starting position of one side, 25 counts (own view).
    :param players: two ``(play_kind, cube_kind, cube_efficiency, evaluator, adapter[, stream])``: a
        :class:`PlayKind`, a :class:`CubeKind`, Janowski's x, a
        :class:`~bgfast._core.evaluator.CoreEvaluator` or None, the Python adapter of a
        Python player or None, and the stream of its random choices (its bot's seed, below
        2**62; 0 when left out: the seat's own stream of each match).
    :param met: the :class:`~bgfast._core.cube.Met` of ``CUBE_MET`` players in match play, or None.
    """
    def __cinit__(self, rules, start, players, met=None):
        self.m = NULL
        self.log = NULL
        cdef int s
        cdef MatchCtx* m = <MatchCtx*> PyMem_Calloc(1, sizeof(MatchCtx))
        if m == NULL:
            raise MemoryError()
        self.m = m
        self.log = <MatchLog*> PyMem_Calloc(1, sizeof(MatchLog))
        m.gen = movegen_new()
        if self.log == NULL or m.gen == NULL:
            raise MemoryError()
        _set_rules(&m.rules, rules, start)
        self.checkers = m.rules.checkers
        self._keep = []
        for s in range(2):
            _set_player(&m.players[s], players[s], self._keep)
        m.met = _met_table(met, self._keep)

    def __dealloc__(self):
        if self.m != NULL:
            movegen_free(self.m.gen)
            if self.m.judge_gen != NULL:
                movegen_free(self.m.judge_gen)
            free(self.m.judge_every)
            free(self.m.log.turns)
            PyMem_Free(self.m)
        PyMem_Free(self.log)

    cdef void _seed(self, seed, unsigned long long index):
        cdef bytes key = run_key(seed)
        seed_match(self.m, <const uint64_t*> (<const char*> key), index)

    cdef void plug(self, int player, PlayHook hook, void* ctx) noexcept:
        """Seat ``player`` plays by ``hook(ctx, ...)`` (``PLAY_HOOK``); its cube policy stays."""
        self.m.players[player].play = PLAY_HOOK
        self.m.players[player].hook = hook
        self.m.players[player].hook_ctx = ctx

    def reseed(self, seed, unsigned long long index):
        """Seed the dice and both players' streams for item ``index`` of run ``seed``."""
        self._seed(seed, index)

    def script(self, dice):
        """Roll these dice (a flat sequence of 1..6) before the stream, in the next match or game.

        :returns: nothing; :meth:`script_left` tells how many were not used.
        """
        cdef int i, n = len(dice)
        if n > MAX_SCRIPT:
            raise ValueError("at most %d scripted dice" % MAX_SCRIPT)
        for i in range(n):
            if not 1 <= dice[i] <= 6:
                raise ValueError("a die is 1..6, got %r" % (dice[i],))
            self.m.script[i] = dice[i]
        self.m.script_len = n
        self.m.script_pos = 0

    def late_evaluation(self, int after, evaluators=None):
        """gnubg's late evaluation: from ply ``after`` of each game on (plies played in it, the
        first 0; a game that starts with given dice counts their play as its first), both
        players use ``evaluators`` (two :class:`~bgfast._core.evaluator.CoreEvaluator`, one a
        player: their plies of checker play and cube estimates) instead of their own, which
        each game starts with again.  None: off.

        :raises ValueError: ``after`` negative, or a player without an evaluator.
        :raises TypeError: evaluators that are not two CoreEvaluators.
        """
        cdef int s
        if evaluators is None:
            if self.m.late:
                for s in range(2):
                    memcpy(&self.m.players[s].evaluator, &self.m.early_ev[s], sizeof(Evaluator))
            self.m.late = 0
            return
        if after < 0:
            raise ValueError("late evaluation starts at ply 0 or later, got %d" % after)
        if len(evaluators) != 2 or not all(isinstance(e, CoreEvaluator) for e in evaluators):
            raise TypeError("late evaluation needs two CoreEvaluators, got %r" % (evaluators,))
        for s in range(2):
            if self.m.players[s].evaluator.kind < 0:
                raise ValueError("late evaluation changes a player's evaluator; player %d has none" % s)
        if not self.m.late:
            for s in range(2):
                memcpy(&self.m.early_ev[s], &self.m.players[s].evaluator, sizeof(Evaluator))
        for s in range(2):
            memcpy(&self.m.late_ev[s], &(<CoreEvaluator> evaluators[s]).ev, sizeof(Evaluator))
            self._keep.append(evaluators[s])
        self.m.late_after = after
        self.m.late = 1

    def measure_luck(self, bint on, int filter=0):
        """Measure the luck of every rolled ply in :meth:`play_from` (variance reduction),
        each player's with its own evaluator.

        :param filter: a neural evaluator values only pubeval's best ``filter`` plays of
            each roll for the luck (0: every play; see ``evaluator_luck_roll``); the
            luck's mean over the rolls is zero whatever the filter.
        :raises ValueError: a player without an evaluator, a negative filter.
        """
        if on and (self.m.players[0].evaluator.kind < 0 or self.m.players[1].evaluator.kind < 0):
            raise ValueError("measuring luck needs both players' evaluators")
        if filter < 0:
            raise ValueError("the luck filter keeps 0 (all) or more plays, got %d" % filter)
        self.m.luck = on
        self.m.luck_filter = filter

    def set_judge(self, evaluator, met=None, double cube_efficiency=0.68, int luck_filter=0):
        """Judge the next matches and games with ``evaluator`` (None: no judge, the loop as
        without one): each side's luck and each decision's error, per game (:meth:`judged`).

        The luck of a roll is the judge's value after its best 0-ply play of the roll minus
        the average over the 36 rolls, the roller's view; the opening roll's (who moves
        first, and with which roll) is the value after it minus its mean over the 30
        opening rolls, half to each side; a game's set first roll (a rollout's) is not
        luck.  Each side's luck so averages zero whatever the judge.  A checker play's
        error is the value of the judge's best play minus the chosen one's, both at the
        judge's ply (a forced play is no decision); a cube action's is the judge's best
        action minus the one taken, at its cube plies (gnubg's rule: a decision counts when
        the double was close, or made, or answered), judged only when the player on roll
        has a cube policy (a player that never doubles makes no cube decision).  Luck is
        in the result's unit: money play in points, the cubeless equity times the cube
        (under the Jacoby rule with the cube centred gammons count nothing, as in the
        result); match play in match winning chance through ``met`` (cubeless).  Errors
        are normalized as gnubg's error rates are (``bgfast.analysis.error_rates``): money
        play in points per unit of the cube (plays by the cubeless equity, cube actions
        Janowski's with ``cube_efficiency``), match play in EMG, the cubeful MWC given up
        over half the MWC swing of the cube at the score.  A neural judge with ``cube_ply`` >= 1 values no double,
        double/take and double/pass by the cubeful n-ply walk
        (:func:`~bgfast._core.cubeful.cube_values`, as its own cube decisions), Janowski's
        (or the table's) cube math only at its leaves: a last roll's are exact.

        With ``luck_filter`` > 0 a neural judge values only pubeval's best ``luck_filter``
        plays of each roll for the luck (as rollouts' ``measure_luck``): the luck's mean
        stays zero, its variance grows a little.  A neural judge at 0 ply values every play
        of the roll rolled once, for its luck and the play's error alike.

        :param evaluator: a :class:`~bgfast._core.evaluator.CoreEvaluator` (its own search:
            not one a player uses), or None.
        :param met: the :class:`~bgfast._core.cube.Met` of match play (required for a match).
        :param luck_filter: plays of each roll the luck measure values (0: all).
        :raises ValueError: match play without a table or with one shorter than the match, a
            negative ``luck_filter``.
        :raises TypeError: an evaluator or table of another type.
        """
        if luck_filter < 0:
            raise ValueError("the luck filter keeps 0 (all) or more plays, got %d" % luck_filter)
        if evaluator is None:
            self.m.judging = 0
            return
        if not isinstance(evaluator, CoreEvaluator):
            raise TypeError("a judge is a CoreEvaluator, got %r" % (evaluator,))
        if self.m.rules.length > 0 and met is None:
            raise ValueError("a judge of match play needs a match equity table")
        if self.m.rules.length > 0 and isinstance(met, Met) and self.m.rules.length >= (<Met> met).size:
            # the judge reads every score of the match: rows beyond the table are not its values
            raise ValueError("a judge of a %d-point match needs a table of %d points or more, got %d"
                             % (self.m.rules.length, self.m.rules.length, (<Met> met).size - 1))
        if self.m.judge_gen == NULL:
            self.m.judge_gen = movegen_new()
            if self.m.judge_gen == NULL:
                raise MemoryError()
        if self.m.judge_every == NULL:
            self.m.judge_every = <float*> malloc(MAX_CHILDREN * NOUT * sizeof(float))
            if self.m.judge_every == NULL:
                raise MemoryError()
        memcpy(&self.m.judge, &(<CoreEvaluator> evaluator).ev, sizeof(Evaluator))
        self._keep.append(evaluator)
        self.m.judge_met = _met_table(met, self._keep) if self.m.rules.length > 0 else NULL
        self.m.judge_x = cube_efficiency
        self.m.judge_filter = luck_filter
        self.m.judge_valued = 0
        self.m.judging = 1

    def judged(self):
        """The judge's figures of the last match (or game) played, summed over its games:
        ``(luck0, luck1, checker_error0, checker_error1, checker_decisions0,
        checker_decisions1, cube_error0, cube_error1, cube_decisions0, cube_decisions1)``,
        each player's in its own view (see :meth:`set_judge`; zeros without a judge)."""
        cdef double out[JUDGED_FIELDS]
        _summarize_judged(self.log, out)
        return tuple(out[k] for k in range(JUDGED_FIELDS))

    def record_turns(self, bint on):
        """Keep the record of every turn of the next matches and games (see :meth:`turns`)."""
        self.m.record = on
        self.m.log.n = 0

    def turns(self):
        """The record of the last match or game played with :meth:`record_turns` on: an
        array of :data:`TURN_DTYPE`, one row per action in order (empty when off)."""
        cdef Py_ssize_t size = self.m.log.n * sizeof(TurnRecord)
        data = (<const char*> self.m.log.turns)[:size] if size else b""
        return np.frombuffer(data, dtype=TURN_DTYPE)

    def luck(self, bint cube=False):
        """The last game's summed luck: ``((5 numbers of player 0), (player 1))``, each in its own view.

        :param cube: each ply's luck times the cube value at that roll (the cube is
            turned before the dice are rolled, so the weight is known before the roll
            and the weighted luck keeps its mean of zero).
        """
        cdef GameLog* gl = &self.log.games[0]
        if cube:
            return (tuple(gl.cube_luck[0][k] for k in range(5)), tuple(gl.cube_luck[1][k] for k in range(5)))
        return (tuple(gl.luck[0][k] for k in range(5)), tuple(gl.luck[1][k] for k in range(5)))

    def script_left(self):
        """Scripted dice not yet rolled."""
        return self.m.script_len - self.m.script_pos

    def play_from(self, const unsigned char[::1] board, int turn, int cube=1, int owner=-1,
                  int d1=0, int d2=0, int max_plies=0, int score0=0, int score1=0,
                  bint crawford=False):
        """Play one game from ``board`` (``turn`` on roll, side 1) with the current streams.

        :returns: a :class:`GameResult`; its ``final`` board (50 bytes, ``final_turn`` on
            roll) only when truncated, else None.
        """
        cdef GameStart st
        cdef GameLog* gl = &self.log.games[0]
        game_start(&st, board, turn, cube, owner, d1, d2, max_plies)
        if self.m.players[0].py == NULL and self.m.players[1].py == NULL:
            with nogil:
                play_position(self.m, self.log, &st, score0, score1, crawford)
        else:
            play_position(self.m, self.log, &st, score0, score1, crawford)
        final = _board_bytes(&gl.final) if gl.truncated else None
        return GameResult(gl.winner, KIND_NAMES[gl.kind], gl.points, gl.cube, gl.plies, bool(gl.truncated),
                          final, gl.final_turn)

    def play(self, seed, unsigned long long index, board=None, int turn=1):
        """Play match ``index`` of run ``seed``; return its summary.

        :param board: where the first game starts (50 bytes, ``turn`` on roll as side 1,
            the cube centred, dice to roll), or None for the opening roll; later games
            start from the opening roll.
        :returns: ``(score0, score1, winner, games, gammons0, gammons1,
            backgammons0, backgammons1, doubles, plies)``.
        """
        cdef GameStart st
        cdef const GameStart* first = NULL
        if board is not None:
            game_start(&st, board, turn, 1, -1, 0, 0, 0)
            first = &st
        cdef int64_t s[SUMMARY_FIELDS]
        self._seed(seed, index)
        if self.m.players[0].py == NULL and self.m.players[1].py == NULL:
            with nogil:
                play_match(self.m, self.log, first)
        else:
            play_match(self.m, self.log, first)
        _summarize(self.log, s)
        return (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])

    def games(self):
        """The games of the last match played: a list of
        ``(crawford, cube, doubles, points, winner, kind, score_after, plies)``,
        ``doubles`` a list of ``(by, response)`` with response 0 pass, 1 take, 2 beaver."""
        cdef int i, k
        cdef GameLog* gl
        out = []
        for i in range(self.log.ngames):
            gl = &self.log.games[i]
            doubles = [(gl.double_by[k], gl.double_response[k]) for k in range(gl.ndoubles)]
            out.append((bool(gl.crawford), gl.cube, doubles, gl.points, gl.winner,
                        KIND_NAMES[gl.kind], (gl.score_after[0], gl.score_after[1]), gl.plies))
        return out


cdef void seed_match(MatchCtx* m, const uint64_t* key, uint64_t index) noexcept nogil:
    """Seed the dice and both players' streams for match ``index`` of the run whose key is ``key``:
    lane 0 the dice, lane ``1 + seat + 4 * stream`` each player's random choices (lanes 1 and 2
    for players whose bot has no seed of its own)."""
    rng_seed(&m.dice, key, index, 0)
    rng_seed(&m.players[0].rng, key, index, 1 + (m.players[0].stream << 2))
    rng_seed(&m.players[1].rng, key, index, 2 + (m.players[1].stream << 2))


cdef void _summarize(const MatchLog* log, int64_t* out) noexcept nogil:
    """The summary of the match in ``log`` into ``out[0:10]``: ``score0, score1, winner, games,
    gammons0, gammons1, backgammons0, backgammons1, doubles, plies``."""
    cdef int i
    cdef const GameLog* gl
    out[0] = log.score[0]
    out[1] = log.score[1]
    out[2] = log.winner
    out[3] = log.ngames
    for i in range(4, SUMMARY_FIELDS):
        out[i] = 0
    for i in range(log.ngames):
        gl = &log.games[i]
        out[8] += gl.ndoubles
        out[9] += gl.plies
        if gl.kind == KIND_GAMMON:
            out[4 + gl.winner] += 1
        elif gl.kind == KIND_BACKGAMMON:
            out[6 + gl.winner] += 1


cdef void _summarize_judged(const MatchLog* log, double* out) noexcept nogil:
    """The judge's figures of the match in ``log``, summed over its games, into
    ``out[0:10]``: luck, checker error, checker decisions, cube error, cube decisions, each
    as player 0's then player 1's."""
    cdef int i, k
    cdef const Judged* j
    for k in range(JUDGED_FIELDS):
        out[k] = 0
    for i in range(log.ngames):
        j = &log.games[i].judged
        for k in range(2):
            out[k] += j.luck[k]
            out[2 + k] += j.checker_error[k]
            out[4 + k] += j.checker_decisions[k]
            out[6 + k] += j.cube_error[k]
            out[8 + k] += j.cube_decisions[k]


cdef int _play_rows(MatchCtx** ctx, MatchLog** logs, const uint64_t* key, const int32_t[::1] which,
                    const uint64_t[::1] indices, const GameStart* starts, const int32_t* start_of,
                    int64_t[:, ::1] out, double* judged) except -1 nogil:
    cdef Py_ssize_t i
    cdef int32_t r
    cdef const GameStart* first = NULL
    for i in range(indices.shape[0]):
        r = which[i]
        seed_match(ctx[r], key, indices[i])
        if start_of != NULL:
            first = &starts[start_of[i]] if start_of[i] >= 0 else NULL
        play_match(ctx[r], logs[r], first)
        _summarize(logs[r], &out[i, 0])
        if judged != NULL:
            _summarize_judged(logs[r], &judged[i * JUDGED_FIELDS])
    return 0


def play_many(seed, runners, const int32_t[::1] which not None, const uint64_t[::1] indices not None,
              int64_t[:, ::1] out not None, starts=(), const int32_t[::1] start_of=None,
              double[:, ::1] judged=None):
    """Play match ``indices[i]`` of run ``seed`` with ``runners[which[i]]``, for every i in
    order, and write its summary to ``out[i]``: what :meth:`MatchRunner.play` returns, without
    a call from Python a match.

    :param runners: :class:`MatchRunner` objects.
    :param out: shape ``(len(indices), 10)``.
    :param starts: boards (50 bytes, side 1 on roll, as for :meth:`MatchRunner.play`) that
        first games start from; ``start_of[i]`` is the number of match i's, -1 for the
        opening roll.  Without ``start_of`` every match starts with the opening roll.
    :param judged: shape ``(len(indices), 10)``: each match's judged figures
        (:meth:`MatchRunner.judged`; zeros from a runner without a judge), or None.
    :raises ValueError: arrays of different lengths, ``out`` or ``judged`` not 10 wide, a runner or start
        number out of range, a board that is not 50 bytes.
    :raises TypeError: a runner that is not a :class:`MatchRunner`.
    """
    cdef Py_ssize_t i, n = indices.shape[0], nr = len(runners), ns = len(starts)
    cdef bint calls_python = False
    cdef bytes key = run_key(seed)
    cdef const uint64_t* k = <const uint64_t*> (<const char*> key)
    cdef const int32_t* first = NULL
    cdef MatchRunner runner
    if which.shape[0] != n or out.shape[0] != n or out.shape[1] != SUMMARY_FIELDS:
        raise ValueError("which (%d) and out (%d x %d) must be as long as indices (%d), out %d wide"
                         % (which.shape[0], out.shape[0], out.shape[1], n, SUMMARY_FIELDS))
    cdef double* judged_at = NULL
    if judged is not None:
        if judged.shape[0] != n or judged.shape[1] != JUDGED_FIELDS:
            raise ValueError("judged must be %d x %d, got %d x %d" % (n, JUDGED_FIELDS, judged.shape[0],
                                                                        judged.shape[1]))
        if n:
            judged_at = &judged[0, 0]
    if start_of is not None and start_of.shape[0] != n:
        raise ValueError("start_of (%d) must be as long as indices (%d)" % (start_of.shape[0], n))
    for i in range(n):
        if not 0 <= which[i] < nr:
            raise ValueError("which[%d] = %d: no such runner (%d given)" % (i, which[i], nr))
        if start_of is not None and not -1 <= start_of[i] < ns:
            raise ValueError("start_of[%d] = %d: no such start (%d given)" % (i, start_of[i], ns))
    cdef MatchCtx** ctx = <MatchCtx**> PyMem_Malloc((nr + 1) * sizeof(MatchCtx*))
    cdef MatchLog** logs = <MatchLog**> PyMem_Malloc((nr + 1) * sizeof(MatchLog*))
    cdef GameStart* st = <GameStart*> PyMem_Malloc((ns + 1) * sizeof(GameStart))
    try:
        if ctx == NULL or logs == NULL or st == NULL:
            raise MemoryError()
        for i in range(nr):
            runner = runners[i]  # TypeError if it is not a MatchRunner
            ctx[i], logs[i] = runner.m, runner.log
            calls_python = calls_python or runner.m.players[0].py != NULL or runner.m.players[1].py != NULL
        for i in range(ns):
            game_start(&st[i], starts[i], 1, 1, -1, 0, 0, 0)
        if start_of is not None and n:
            first = &start_of[0]
        if calls_python:
            _play_rows(ctx, logs, k, which, indices, st, first, out, judged_at)
        else:
            with nogil:
                _play_rows(ctx, logs, k, which, indices, st, first, out, judged_at)
    finally:
        PyMem_Free(ctx)
        PyMem_Free(logs)
        PyMem_Free(st)


cdef MoveGen* _SHARED = movegen_new()    # single decisions, with the GIL held: one at a time


cdef class Decisions:
    """One built-in player's decisions, asked one at a time: what a bot answers from Python.

    The same decision functions as the game loop, on a single position and match state,
    without a match or a match runner.

    :param rules: ``(length, crawford, jacoby, beaver, max_cube, dead_cube_allowed)`` as ints.
    :param player: ``(play_kind, cube_kind, cube_efficiency, evaluator, None)`` as for
        :class:`MatchRunner` (a Python player has no decisions in the core).
    :param met: the :class:`~bgfast._core.cube.Met` of a ``CUBE_MET`` player in match play, or None.
    """
    cdef Rules rules
    cdef Player p
    cdef const MetTable* met
    cdef list _keep

    def __cinit__(self, rules, player, met=None):
        if _SHARED == NULL:
            raise MemoryError()
        self._keep = []
        _set_rules(&self.rules, rules, (0,) * 25)
        _set_player(&self.p, player, self._keep)
        if self.p.play == PLAY_PYTHON or self.p.cube == CUBE_PYTHON:
            raise ValueError("a Python player's decisions are its own, not the core's")
        self.met = _met_table(met, self._keep)

    def reseed(self, seed, unsigned long long index, unsigned long long lane):
        """Seed the player's stream of random choices: lane ``lane`` of item ``index`` of run ``seed``."""
        cdef bytes key = run_key(seed)
        rng_seed(&self.p.rng, <const uint64_t*> (<const char*> key), index, lane)

    cdef void _scene(self, Scene* s, int player, int score0, int score1, int cube, int owner, int crawford):
        s.player = player
        s.score[0] = score0
        s.score[1] = score1
        s.cube = cube
        s.owner = owner
        s.crawford = crawford

    def choose(self, const unsigned char[::1] board, int d1, int d2, int player,
               int score0=0, int score1=0, int cube=1, int owner=-1, bint crawford=False):
        """The 50-byte board ``player`` (on roll, side 1 of ``board``) plays to with (d1, d2)."""
        cdef Board b
        cdef Scene s
        cdef int idx
        board_from_bytes(&board[0], &b)
        self._scene(&s, player, score0, score1, cube, owner, crawford)
        generate(_SHARED, &b, d1, d2)
        idx = choose_play(&self.rules, self.met, &self.p, _SHARED, &s, &b, d1, d2)
        return _board_bytes(&_SHARED.items[idx].board)

    def offer(self, const unsigned char[::1] board, int player, int score0=0, int score1=0,
              int cube=1, int owner=-1, bint crawford=False):
        """Whether ``player`` (on roll, side 1 of ``board``) doubles; False when the cube is
        unavailable to it (the Crawford game, the opponent's cube, the maximum, a dead cube
        the rules refuse) and for a dead cube, which a built-in policy never doubles."""
        cdef Board b
        cdef Scene s
        board_from_bytes(&board[0], &b)
        self._scene(&s, player, score0, score1, cube, owner, crawford)
        if not may_double(&self.rules, &s):
            return False
        return bool(offer_double(&self.rules, self.met, &self.p, _SHARED, &s, &b))

    def respond(self, const unsigned char[::1] board, int player, int score0=0, int score1=0,
                int cube=1, int owner=-1, bint crawford=False):
        """``player``'s answer (a :class:`~bgfast._core.cube.CubeAnswer`) to a double; the
        doubler is side 1 of ``board``.  A beaver the rules do not allow is a take."""
        cdef Board b
        cdef Scene s
        cdef int answer
        board_from_bytes(&board[0], &b)
        self._scene(&s, player, score0, score1, cube, owner, crawford)
        answer = respond_double(&self.rules, self.met, &self.p, _SHARED, &s, &b)
        return allowed_answer(&self.rules, answer, cube)
