# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""Cubeful n-ply evaluation: the value of a position with the cube, looked ahead 0 to 3 plies.

GNU Backgammon's cubeful n-ply evaluation (its ``EvaluatePositionCubeful``), on the neural
net's search (:mod:`bgfast._core.search`).  Values are the side on roll's, before its roll:
money play in points (here absolute; the root's are given per unit of its cube), match play
in match winning chances (MWC, the match equity table of :mod:`bgfast._core.cube`).

The cube at a node is a :c:type:`CubeState` (value, owner: centred / the side on roll's /
its opponent's, and in match play each side's points to go); the rules of the game (money
or match, Crawford, Jacoby, beavers, the maximum cube, Janowski's ``x``) are a
:c:type:`CubeRules`.  For a node ``b`` and a cube state ``c``:

* ``raw(b, c, 0)``: the leaf formula on the net's 0-ply probabilities, the cube as it
  stands: Janowski's cubeful equity (money) or the cubeful MWC (match play) of
  :mod:`bgfast._core.cube`, which price the cube's later use by the efficiency ``x``;
* ``raw(b, c, N)``, ``N >= 1``: the average over the 21 rolls (doubles 1/36, the others
  2/36) of the mover's value after the play the search makes (chosen as
  :func:`~bgfast._core.search.search_preroll` chooses it: the net's 0-ply favourite for
  ``N = 1`` and with the search's 0-ply replies, with its filtered replies the search's
  ``N - 1``-ply choice by cubeless money equity above), that value
  the opponent's ``opt(child, c', N - 1)`` from its view (negated in money, ``1 - MWC`` in
  match play) with ``c'`` the same cube from the opponent's side; a play that bears off
  the last checker is worth its exact result: 1, 2 or 3 times the cube (single while the
  cube is centred under the Jacoby rule), in match play the MWC of the score it leads to;
* ``opt(b, c, N)``: the side on roll doubles when doubling beats playing on, so where it
  may double (not the Crawford game, a centred cube or its own, the doubled cube within
  the maximum, in match play a cube not dead for it) ``max(ND, min(DT, DP))`` with
  ``ND = raw(b, c, N)``, ``DT = raw(b, c doubled and owned by the taker, N)`` and ``DP``
  the cube's value cashed (+cube, or the MWC of winning it); with beavers (money) the
  taker's answer may also be a beaver, worth ``2 DT`` to the doubler; elsewhere ``ND``.

At the root the three values ``ND``, ``DT`` and ``DP`` are returned as they are (the proper
action is the caller's): at 0 plies they are exactly :func:`~bgfast._core.cube.cube_decide`'s
(the same float arithmetic).  The cubeless probabilities found on the way are the search's
at the same plies (the same plays, sums and order), so one walk gives both.  Each node's
plays and net values are found once for all the cube states that reach it (at most two per
root state a ply: the cube as it is and doubled), as gnubg does.

A neural evaluator's own cube decisions (:func:`cubeful_offer`, :func:`cubeful_respond`,
the game loop's) use this walk at its ``cube_ply`` (1 to 3) after the 0-ply screen of
:func:`~bgfast._core.cube.cube_offer`; other evaluators, and ``cube_ply`` 0, decide as
:mod:`bgfast._core.cube` does on their probabilities.

Everything here is ``nogil`` C without Python objects, except the Python face
:func:`cube_values`.
"""
from libc.string cimport memcpy

from bgfast._core.board cimport Board, board_swap, board_checkers, board_from_bytes
from bgfast._core.movegen cimport MoveGen, movegen_new, movegen_free, generate
from bgfast._core.probs cimport NOUT, probs_flip
from bgfast._core.neural cimport NeuralRolls, neural_eval_after, neural_rolls_init, neural_roll_best
from bgfast._core.search cimport SEARCH_MAX_PLIES, REPLIES_0PLY, Search, search_preroll, search_choose
from bgfast._core.cube cimport (
    CubeArgs, MetTable, Met, PlayScene, standing_mwc, met_mwc, money_cubeful_f, money_x, cube_offer, cube_respond,
    cube_screened, cube_uses_met, cube_answer,
)
from bgfast._core.evaluator cimport Evaluator, EVAL_NEURAL, CoreEvaluator
from bgfast._core.cube import CubeAnswer
from bgfast._core.cubeful cimport CF_CENTRED, CF_MINE, CF_THEIRS, CubeState, CubeRules

cdef enum:
    MAX_STATES = 4 << SEARCH_MAX_PLIES    # cube states a node can be asked for (2 at the root, x2 a ply)

MAX_PLIES = SEARCH_MAX_PLIES


# ---------------------------------------------------------------- one node's cube

ctypedef struct _Walk:
    Search* s
    const CubeRules* r
    MoveGen* gens[SEARCH_MAX_PLIES]       # gens[d]: the rolls of a node at depth d (0: the caller's)


cdef inline bint _may_double(const CubeRules* r, const CubeState* st) noexcept nogil:
    if r.crawford or st.owner == CF_THEIRS or 2 * st.cube > r.max_cube:
        return False
    return r.met == NULL or st.away > st.cube          # match play: not a dead cube


cdef inline void _flip(const CubeState* st, CubeState* out) noexcept nogil:
    """The same cube from the opponent's side."""
    out.cube = st.cube
    out.owner = CF_CENTRED if st.owner == CF_CENTRED else (CF_THEIRS if st.owner == CF_MINE else CF_MINE)
    out.away = st.opp_away
    out.opp_away = st.away


cdef inline void _doubled(const CubeState* st, CubeState* out) noexcept nogil:
    """The side on roll has doubled and been taken: twice the cube, the taker's."""
    out.cube = 2 * st.cube
    out.owner = CF_THEIRS
    out.away = st.away
    out.opp_away = st.opp_away


cdef inline double _other(const CubeRules* r, double v) noexcept nogil:
    """A value of the opponent's as the side's."""
    return -v if r.met == NULL else 1.0 - v


cdef inline double _cash(const CubeRules* r, const CubeState* st) noexcept nogil:
    """Double/pass: the side on roll wins the cube as it stands."""
    if r.met == NULL:
        return st.cube
    return met_mwc(r.met, st.away - st.cube, st.opp_away, r.post_crawford)


cdef inline double _won(const CubeRules* r, const CubeState* st, int points) noexcept nogil:
    """The game is over: the side wins ``points`` (1, 2 or 3) times the cube."""
    if r.met == NULL:
        if r.jacoby and st.owner == CF_CENTRED:
            points = 1
        return points * st.cube
    return met_mwc(r.met, st.away - points * st.cube, st.opp_away, r.post_crawford)


cdef inline double _leaf(const CubeRules* r, const CubeState* st, const float* p) noexcept nogil:
    """0 plies: the side's value from its probabilities ``p`` before its roll, the cube as it stands."""
    cdef PlayScene ps
    if r.met == NULL:
        return st.cube * money_cubeful_f(p, -1 if st.owner == CF_CENTRED else (0 if st.owner == CF_MINE else 1),
                                         0, money_x(r.x, st.cube, r.max_cube), r.jacoby)
    ps.met = r.met
    ps.away = st.away
    ps.opp_away = st.opp_away
    ps.post_crawford = r.post_crawford
    ps.cube = st.cube
    ps.mine = not r.crawford and st.owner != CF_THEIRS
    ps.theirs = not r.crawford and st.owner != CF_MINE
    ps.max_cube = r.max_cube
    ps.x = r.x
    return standing_mwc(p, &ps)


cdef inline double _optimal(const CubeRules* r, const CubeState* st, double nd, double dt) noexcept nogil:
    """The side's value with its best cube action now: ``nd`` playing on, ``dt`` doubled and taken."""
    cdef double answer
    if not _may_double(r, st):
        return nd
    answer = _cash(r, st)
    if dt < answer:
        answer = dt
    if r.met == NULL and r.beaver and 4 * st.cube <= r.max_cube and 2.0 * dt < answer:
        answer = 2.0 * dt                   # the taker beavers
    return answer if answer > nd else nd


cdef inline bint _same(const CubeState* a, const CubeState* b) noexcept nogil:
    return a.cube == b.cube and a.owner == b.owner and a.away == b.away and a.opp_away == b.opp_away


cdef inline int _add(CubeState* states, int* n, const CubeState* st) noexcept nogil:
    """The index of ``st`` in ``states[:n]``, appended when new."""
    cdef int j
    for j in range(n[0]):
        if _same(&states[j], st):
            return j
    states[n[0]] = st[0]
    n[0] += 1
    return n[0] - 1


cdef inline int _points(const float* q) noexcept nogil:
    """1, 2 or 3: the result of a finished game from the winner's exact probabilities ``q``."""
    return 1 + (1 if q[1] > 0.5 else 0) + (1 if q[2] > 0.5 else 0)


# ---------------------------------------------------------------- the walk

cdef void _raw(_Walk* w, const Board* b, int plies, int depth, const CubeState* st, int n,
               double* out, float* probs) noexcept nogil:
    """``out[i]`` = raw(b, st[i], plies) for ``i < n``, the side on roll's (side 1 of ``b``)
    view; ``probs`` its cubeless probabilities at ``plies`` (the search's)."""
    cdef CubeState child[MAX_STATES]
    cdef CubeState f, d
    cdef int to_nd[MAX_STATES]
    cdef int to_dt[MAX_STATES]
    cdef double cv[MAX_STATES]
    cdef double acc[MAX_STATES]
    cdef float q[NOUT]
    cdef float qo[NOUT]
    cdef Board sw
    cdef const Board* a
    cdef MoveGen* g = w.gens[depth]
    cdef NeuralRolls rolls
    cdef int m = 0, i, j, k, d1, d2, top, points
    cdef float wt
    cdef double v
    if plies <= 0:
        search_preroll(w.s, g, b, 0, probs)
        for i in range(n):
            out[i] = _leaf(w.r, &st[i], probs)
        return
    for i in range(n):                     # the cube states the opponent's nodes are asked for
        _flip(&st[i], &f)
        to_nd[i] = _add(child, &m, &f)
        to_dt[i] = -1
        if _may_double(w.r, &f):
            _doubled(&f, &d)
            to_dt[i] = _add(child, &m, &d)
        acc[i] = 0.0
    for k in range(NOUT):
        probs[k] = 0
    neural_rolls_init(&rolls, b)               # the net's sums of ``b``, shared by its 21 rolls
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            wt = 1.0 if d1 == d2 else 2.0
            generate(g, b, d1, d2)
            if plies == 1 or w.s.replies == REPLIES_0PLY:   # the 0-ply favourite, as the search finds it
                top = neural_roll_best(w.s.model, &rolls, g, w.s.prune, q, w.s.scratch)
            else:
                top = search_choose(w.s, g, b, plies - 1, NULL)
            a = &g.items[top].board
            if board_checkers(a, 1) == 0:  # the mover bore off its last checker
                neural_eval_after(w.s.model, a, qo)
                probs_flip(qo, q)
                points = _points(q)
                for i in range(n):
                    acc[i] += wt * _won(w.r, &st[i], points)
            else:
                if plies == 1:
                    probs_flip(q, qo)
                    for j in range(m):
                        cv[j] = _leaf(w.r, &child[j], qo)
                else:
                    board_swap(&sw, a)
                    _raw(w, &sw, plies - 1, depth + 1, child, m, cv, qo)
                    probs_flip(qo, q)
                for i in range(n):
                    v = _optimal(w.r, &child[to_nd[i]], cv[to_nd[i]], cv[to_dt[i]] if to_dt[i] >= 0 else 0.0)
                    acc[i] += wt * _other(w.r, v)
            for k in range(NOUT):
                probs[k] += wt * q[k]
    for k in range(NOUT):
        probs[k] /= 36.0
    for i in range(n):
        out[i] = acc[i] / 36.0


cdef void cubeful_from_args(const CubeArgs* a, CubeRules* r, CubeState* st) noexcept nogil:
    r.met = a.met if cube_uses_met(a) else NULL
    r.crawford = a.crawford
    r.post_crawford = a.post_crawford
    r.jacoby = a.jacoby
    r.beaver = a.beaver and a.length == 0
    r.max_cube = a.max_cube
    r.x = a.x
    st.cube = a.cube
    st.owner = CF_CENTRED if a.owner == -1 else (CF_MINE if a.owner == a.doubler else CF_THEIRS)
    st.away = a.away_d
    st.opp_away = a.away_t


cdef int cubeful_decide(Search* s, MoveGen* g, const Board* b, const CubeRules* r, const CubeState* st,
                        int plies, double* nd, double* dt, double* dp, float* p) noexcept nogil:
    cdef _Walk w
    cdef CubeState roots[2]
    cdef double out[2]
    cdef float probs[NOUT]
    cdef int k, rc = 0
    if plies > SEARCH_MAX_PLIES:
        plies = SEARCH_MAX_PLIES
    w.s = s
    w.r = r
    w.gens[0] = g
    for k in range(1, SEARCH_MAX_PLIES):
        w.gens[k] = NULL
    for k in range(1, plies):
        w.gens[k] = movegen_new()
        if w.gens[k] == NULL:
            rc = -1
            plies = 0
            break
    roots[0] = st[0]
    _doubled(st, &roots[1])
    _raw(&w, b, plies, 0, roots, 2, out, probs)
    for k in range(1, SEARCH_MAX_PLIES):
        movegen_free(w.gens[k])
    if r.met == NULL:                      # per unit of the cube (a power of two: exact)
        nd[0] = out[0] / st.cube
        dt[0] = out[1] / st.cube
        dp[0] = 1.0
    else:
        nd[0] = out[0]
        dt[0] = out[1]
        dp[0] = _cash(r, st)
    if p != NULL:
        memcpy(p, probs, NOUT * sizeof(float))
    return rc


# ---------------------------------------------------------------- the game loop's cube

cdef int cubeful_offer(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil:
    cdef float p[NOUT]
    cdef double nd, dt, dp
    cdef CubeRules r
    cdef CubeState st
    if e.kind != EVAL_NEURAL or e.cube_ply <= 0:
        return cube_offer(a, e, g, b)
    if cube_screened(a, e, g, b, p, &nd, &dt, &dp):
        return 0
    cubeful_from_args(a, &r, &st)
    cubeful_decide(e.search, g, b, &r, &st, e.cube_ply, &nd, &dt, &dp, NULL)
    return 1 if (dt if dt < dp else dp) > nd else 0


cdef int cubeful_respond(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil:
    cdef double nd, dt, dp
    cdef CubeRules r
    cdef CubeState st
    if e.kind != EVAL_NEURAL or e.cube_ply <= 0:
        return cube_respond(a, e, g, b)
    cubeful_from_args(a, &r, &st)
    cubeful_decide(e.search, g, b, &r, &st, e.cube_ply, &nd, &dt, &dp, NULL)
    return cube_answer(a, dt, dp)


# ---------------------------------------------------------------- Python face

def cube_values(CoreEvaluator evaluator not None, const unsigned char[::1] board, int plies, *, int cube=1,
                int owner=-1, int player=0, double x=0.68, bint jacoby=False, bint beaver=False,
                int max_cube=64, Met met=None, int away=0, int opp_away=0, bint crawford=False):
    """The cube decision of ``player``, on roll as side 1 of a 50-byte board (in play), at
    ``plies`` (0 to ``MAX_PLIES``) by a neural evaluator's cubeful n-ply walk.

    :param owner: -1 centred, else the player (0 or 1) who owns the cube.
    :param met: match play by this table, ``away`` / ``opp_away`` the side on roll's and its
        opponent's points to go (both 1 or more, within it); None: money play.
    :param crawford: the Crawford game (nobody may double).
    :returns: ``(double, response, no_double, double_take, double_pass, probabilities)``:
        whether doubling beats playing on (``min(DT, DP) > ND``), the taker's answer (a
        :class:`~bgfast._core.cube.CubeAnswer`: pass when a take gives the doubler more than
        a pass, beaver as :func:`~bgfast._core.cube.decide`), the three values from the
        side on roll's view (money: per unit of the current cube, double/pass 1.0; match
        play: MWC), whether or not it may double now; its five cubeless probabilities at
        ``plies`` (the search's).
    :raises ValueError: not a neural evaluator, ``plies`` out of range, a bad cube, owner,
        player or score.
    :raises MemoryError: out of memory.
    """
    cdef Board b
    cdef CubeArgs a
    cdef CubeRules r
    cdef CubeState st
    cdef MoveGen* g
    cdef double nd, dt, dp
    cdef float p[NOUT]
    cdef int rc
    if evaluator.ev.kind != EVAL_NEURAL:
        raise ValueError("the cubeful n-ply walk needs a neural evaluator")
    if not 0 <= plies <= SEARCH_MAX_PLIES:
        raise ValueError("plies must be 0 to %d, got %r" % (SEARCH_MAX_PLIES, plies))
    if board.shape[0] != 50:
        raise ValueError("a board is 50 bytes, got %d" % board.shape[0])
    if cube < 1 or max_cube < cube:
        raise ValueError("the cube is 1 to max_cube (%d), got %d" % (max_cube, cube))
    if not -1 <= owner <= 1 or not 0 <= player <= 1:
        raise ValueError("owner is -1, 0 or 1 and player 0 or 1, got %d and %d" % (owner, player))
    if met is not None and not (0 < away < met.size and 0 < opp_away < met.size):
        raise ValueError("%d-away, %d-away is not a score of the table (%d rows)" % (away, opp_away, met.size))
    board_from_bytes(&board[0], &b)
    if board_checkers(&b, 0) == 0 or board_checkers(&b, 1) == 0:
        raise ValueError("the game is over: a side has no checker left")
    a.length = 0 if met is None else max(away, opp_away)
    a.doubler = player
    a.owner = owner
    a.away_d = away
    a.away_t = opp_away
    a.post_crawford = met is not None and (away == 1 or opp_away == 1)
    a.crawford = crawford
    a.cube = cube
    a.jacoby = jacoby and met is None
    a.beaver = beaver
    a.max_cube = max_cube
    a.x = x
    a.met = NULL if met is None else &met.t
    cubeful_from_args(&a, &r, &st)
    evaluator._reserve(plies - 1)
    g = movegen_new()
    if g == NULL:
        raise MemoryError()
    with nogil:
        rc = cubeful_decide(evaluator.ev.search, g, &b, &r, &st, plies, &nd, &dt, &dp, p)
    movegen_free(g)
    if rc != 0:
        raise MemoryError()
    return ((dt if dt < dp else dp) > nd, CubeAnswer(cube_answer(&a, dt, dp)), nd, dt, dp,
            (p[0], p[1], p[2], p[3], p[4]))
