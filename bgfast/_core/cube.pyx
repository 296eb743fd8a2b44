# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The cube math, once: cubeless and cubeful equities, match equity lookups, cube decisions.

Probabilities are a side's five cubeless chances (win, win gammon, win backgammon,
lose gammon, lose backgammon; cumulative, see :mod:`bgfast._core.probs`).  Cube
ownership follows :class:`bgfast.match.MatchState`: ``owner`` is -1 for a centred cube,
else the player (0 or 1) who owns it, and each function says whose view (``player``
or ``doubler``) it takes.  The Python face is :mod:`bgfast.cube`.

Cube decisions: Janowski (money) and the MET (match play).

Both policies turn a bot's cubeless probabilities *before the roll* for the
side on roll (win ``p``, and gammon/backgammon rates) into three equities from
the doubler's view, no double (ND), double/take (DT) and double/pass (DP), and
then double when ``min(DT, DP) > ND`` and take when ``DT <= DP``.  The cube's
value is modelled as in R. Janowski, "Take-Points in Money Games" (1993): the
cubeful equity is ``x * live + (1 - x) * dead``, interpolating between the
dead cube (the cubeless equity) and a fully live cube (equity linear in ``p``
between the take point, where the opponent cashes, and the cash point) with
the cube efficiency ``x`` (0.68 by default; Janowski suggests about 2/3).

Money (:func:`money_equity`, the one Janowski formula: the decisions and the
cubeful value of a truncated rollout both use it).  With ``W`` and ``L`` the
average values of a win and a loss (1 + gammon and backgammon rates per win or
loss), Janowski's formulas:
dead ``E = p (W + L) - L``; live, own cube ``E = p (W + L + 1/2) - L`` up to the
cash point ``CP = (L + 1) / (W + L + 1/2)``; live, opponent's cube
``E = p (W + L + 1/2) - L - 1/2`` above the take point
``TP = (L - 1/2) / (W + L + 1/2)``; live, centred cube: linear from -1 at TP to
+1 at CP.  Beyond the take and cash points the live line runs on to the value
of a game played to the end: from -1 at TP down to ``-L`` at ``p = 0`` (the
opponent, too good to cash, plays on for its gammons) and from +1 at CP up to
``W`` at ``p = 1`` (too good to cash), as in GNU Backgammon's Janowski
equities; with the Jacoby rule and a centred cube those ends are -1 and +1 (a
game played on scores single).  So a position that loses gammons often is never
"better" doubled: the opponent does not cash it at -1.  DT is twice the equity
with the opponent owning the cube, DP is +1.  The taker's take point is then ``(W_t - 1/2) / (W_t + L_t + x/2)`` in the
taker's terms: 25% with a dead cube (``x = 0``) and 20% fully live (``x = 1``)
without gammons.  With the Jacoby rule, gammons count single in the dead part
of ND while the cube is centred.

Match play (a :class:`Met`; the lookup of a table is :func:`mwc`, the value of
a dead cube :func:`dead_cube_mwc`, the cubeful value :func:`cubeful_mwc`).  The same
model with match winning chances (MWC) from the match equity table in place of money,
``MWC(cubeful) = (1 - x) MWC(dead) + x MWC(live)``, the generalization that GNU
Backgammon's manual gives ("Cubeful equities", gnubg 1.07, after Janowski): each
result (win or lose 1, 2 or 3 times the cube) is worth the MWC at the score it leads
to, so gammons count through the gammon values at the score.  Take and cash points of a live cube
come from the MET recursively, as the cube goes up, until the cube is dead for
its owner (winning the cube value wins the match, or the maximum cube); beyond
them the live line runs on to the MWC of a game lost or won with the cube as it
stands, as in money play (``_cubeful``, the one home of that line: "no double" is
the cube as it stands, "double/take" the taker owning twice the cube).  The same
value ranks the plays of a match-play checker decision (:func:`cube_choose`,
:func:`play_mwc`): after the play the cube is as it was, and in the Crawford game
it is dead for both; where the opponent, on roll after the play, may double, it first takes
its proper cube action (its ND, DT and DP as :func:`cube_decide` finds them), as GNU
Backgammon values a play (the position after it is not the top of its evaluation tree),
and plays of equal value (the opponent's double passed after each) go by cubeless equity.
The manual's example (3-0 to 7, Woolsey's table, the
side on roll 45.4% with the gammon rates shown there) is reproduced to its digits:
cubeless 29.10%, live 29.20%, cubeful 29.17% at ``x = 0.68``.  With a
dead cube (``x = 0``) and no gammons the taker's take point is the MET take
point, e.g. 0.3713 for 4-away doubled by 2-away (Kazaross-XG2); the doubler
doubles inside the window between the doubling point (where DT overtakes ND)
and the cash point, and above it unless too good (playing on for the gammon is
worth more than cashing).  Money play, and scores beyond the table, fall back
to Janowski.
"""
from libc.string cimport memset

from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.probs cimport NOUT, real, probs_equity, probs_flip, PlayValue
from bgfast._core.evaluator cimport Evaluator, evaluator_preroll, evaluator_choose
from bgfast._core.cube cimport (
    MET_SIZE, MetTable, CubeArgs, PlayScene, RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER,
)

cdef double SCREEN = 0.25     # 0-ply screen: no 1-ply look when ND beats doubling by this much (cube units)


# ---------------------------------------------------------------- money: Janowski

cdef inline void _w_l(const real* p, double* W, double* L) noexcept nogil:
    """The average values of a win and of a loss (1 + the gammon and backgammon rates)."""
    cdef double win = p[0], lose = 1.0 - p[0]
    W[0] = 1.0 + (p[1] + p[2]) / win if win > 1e-6 else 1.0
    L[0] = 1.0 + (p[3] + p[4]) / lose if lose > 1e-6 else 1.0


cdef inline double _through(double p, double p0, double y0, double p1, double y1) noexcept nogil:
    """The line through ``(p0, y0)`` and ``(p1, y1)`` at ``p`` (``y1`` when the two meet)."""
    if p1 - p0 <= 1e-12:
        return y1
    return y0 + (p - p0) * (y1 - y0) / (p1 - p0)


cdef inline double _live(double p, double lo, double y_lo, double hi, double y_hi,
                         double y_lost, double y_won) noexcept nogil:
    """Janowski's live cube: the broken line through ``(0, y_lost)``, ``(lo, y_lo)``,
    ``(hi, y_hi)`` and ``(1, y_won)``, at the winning chance ``p``.

    ``lo`` is where the opponent cashes (its cash point, the side's take point) and
    ``hi`` where the side cashes; beyond them the game is played on (too good to cash),
    so the line runs on to the value of a game lost (``y_lost`` at ``p = 0``) or won
    (``y_won`` at ``p = 1``) with the cube as it stands."""
    if p <= lo:
        return _through(p, 0.0, y_lost, lo, y_lo)
    if p >= hi:
        return _through(p, hi, y_hi, 1.0, y_won)
    return _through(p, lo, y_lo, hi, y_hi)


cdef double _money(const real* p, bint centred, bint mine, double x, bint jacoby) noexcept nogil:
    """Cubeful money equity per cube of the side whose probabilities ``p`` are, with the
    cube centred, its own (``mine``) or the opponent's (neither): Janowski's
    ``(1 - x) * dead + x * live``."""
    cdef double W, L, win = p[0], dead, tp, cp, live
    _w_l(p, &W, &L)
    dead = win * (W + L) - L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if centred:
        if jacoby:
            # gammons count single while the cube stays centred: so do the games played on
            dead = 2.0 * win - 1.0
            live = _live(win, tp, -1.0, cp, 1.0, -1.0, 1.0)
        else:
            live = _live(win, tp, -1.0, cp, 1.0, -L, W)
    elif mine:
        live = _live(win, 0.0, -L, cp, 1.0, -L, W)
    else:
        live = _live(win, tp, -1.0, 1.0, W, -L, W)
    return (1.0 - x) * dead + x * live


cdef void _janowski(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    dt[0] = 2.0 * _money(p, False, False, money_x(a.x, 2 * a.cube, a.max_cube), False)
    dp[0] = 1.0
    nd[0] = _money(p, a.owner == -1, a.owner == a.doubler, money_x(a.x, a.cube, a.max_cube), a.jacoby)


cdef double money_cubeful(const double* p, int owner, int player, double x, bint jacoby) noexcept nogil:
    return _money(p, owner == -1, owner == player, x, jacoby)


cdef double money_cubeful_f(const float* p, int owner, int player, double x, bint jacoby) noexcept nogil:
    return _money(p, owner == -1, owner == player, x, jacoby)


# ---------------------------------------------------------------- match play: the MET

cdef inline double _lookup(const MetTable* t, int away, int opp_away, bint post_crawford) noexcept nogil:
    """The MWC of the side ``away`` points from winning against one ``opp_away`` away
    (at or below 0: that side has won); after the Crawford game a 1-away side is the leader."""
    if away <= 0:
        return 1.0
    if opp_away <= 0:
        return 0.0
    if post_crawford:
        if opp_away == 1:
            return t.post[away]
        if away == 1:
            return 1.0 - t.post[opp_away]
    return t.pre[away][opp_away]


ctypedef struct _Met:
    const MetTable* t
    int ad, at, post_crawford, max_cube
    double rw[3]
    double rl[3]


cdef inline double _mwc(const _Met* s, int ad, int at) noexcept nogil:
    """The doubler's MWC at (doubler ad-away, taker at-away)."""
    return _lookup(s.t, ad, at, s.post_crawford)


cdef inline double _won(const _Met* s, int pts) noexcept nogil:
    return _mwc(s, s.ad - pts, s.at)


cdef inline double _lost(const _Met* s, int pts) noexcept nogil:
    return _mwc(s, s.ad, s.at - pts)


cdef inline double _W(const _Met* s, int v) noexcept nogil:
    """The doubler's average MWC when winning at cube ``v`` (gammon rates as given)."""
    return s.rw[0] * _won(s, v) + s.rw[1] * _won(s, 2 * v) + s.rw[2] * _won(s, 3 * v)


cdef inline double _L(const _Met* s, int v) noexcept nogil:
    return s.rl[0] * _lost(s, v) + s.rl[1] * _lost(s, 2 * v) + s.rl[2] * _lost(s, 3 * v)


cdef inline double _dead(const _Met* s, double win, double lose, int v) noexcept nogil:
    """The doubler's MWC with the cube dead at ``v``: each result's MWC, weighted."""
    return win * _W(s, v) + lose * _L(s, v)


cdef inline bint _alive(int away, int v, int max_cube) noexcept nogil:
    """The owner of a cube at ``v`` can still gain by doubling it."""
    return away > v and 2 * v <= max_cube


cdef inline double _clamp(double p) noexcept nogil:
    return 0.0 if p < 0.0 else (1.0 if p > 1.0 else p)


cdef double _pmax_t(const _Met* s, int v) noexcept nogil:
    """Doubler doubles ``v`` -> ``2v``: the highest doubler ``p`` at which the taker still
    takes, with the taker's recube fully live."""
    cdef double w2 = _W(s, 2 * v), target = _won(s, v), p0, y0
    if _alive(s.at, 2 * v, s.max_cube):
        p0 = _ptake_d(s, 2 * v)
        y0 = _lost(s, 2 * v)
    else:
        p0 = 0.0
        y0 = _L(s, 2 * v)
    if w2 - y0 <= 1e-12:
        return 1.0
    return _clamp(p0 + (target - y0) * (1.0 - p0) / (w2 - y0))


cdef double _ptake_d(const _Met* s, int v) noexcept nogil:
    """Taker redoubles ``v`` -> ``2v``: the lowest doubler ``p`` at which the doubler takes."""
    cdef double l2 = _L(s, 2 * v), target = _lost(s, v), p1, y1
    if _alive(s.ad, 2 * v, s.max_cube):
        p1 = _pmax_t(s, 2 * v)
        y1 = _won(s, 2 * v)
    else:
        p1 = 1.0
        y1 = _W(s, 2 * v)
    if y1 - l2 <= 1e-12:
        return 0.0
    return _clamp((target - l2) * p1 / (y1 - l2))


cdef void _met_setup(const real* p, const MetTable* t, int away_d, int away_t, bint post_crawford,
                     int max_cube, _Met* s) noexcept nogil:
    """The doubler's score and its results' rates (single, gammon, backgammon of a win and a loss)."""
    cdef double win = p[0], lose = 1.0 - p[0]
    s.t = t
    s.ad = away_d
    s.at = away_t
    s.post_crawford = post_crawford
    s.max_cube = max_cube
    if win > 1e-6:
        s.rw[0] = (p[0] - p[1]) / win
        s.rw[1] = (p[1] - p[2]) / win
        s.rw[2] = p[2] / win
    else:
        s.rw[0], s.rw[1], s.rw[2] = 1.0, 0.0, 0.0
    if lose > 1e-6:
        s.rl[0] = (lose - p[3]) / lose
        s.rl[1] = (p[3] - p[4]) / lose
        s.rl[2] = p[4] / lose
    else:
        s.rl[0], s.rl[1], s.rl[2] = 1.0, 0.0, 0.0


cdef double met_mwc(const MetTable* t, int away, int opp_away, bint post_crawford) noexcept nogil:
    return _lookup(t, away, opp_away, post_crawford)


cdef double met_dead_cube(const double* p, const MetTable* t, int away, int opp_away, int cube) noexcept nogil:
    """A game with either side 1-away is the Crawford game or comes after it, so the scores it
    leads to are read post-Crawford."""
    cdef _Met s
    _met_setup(p, t, away, opp_away, away == 1 or opp_away == 1, 0, &s)
    return _dead(&s, p[0], 1.0 - p[0], cube)


cdef double _cubeful(const _Met* s, double win, int c, bint mine, bint theirs, double x) noexcept nogil:
    """The cubeful MWC of the side ``s`` is set up for (``s.ad`` away, winning chance
    ``win``) with the cube at ``c``, which it may double later (``mine``) and its opponent
    may (``theirs``): ``(1 - x) * dead + x * live``.  The live line runs from the MWC of a
    game lost at ``c`` (``p = 0``) through the opponent's cash point (where the side loses
    ``c``) and the side's own cash point (where it wins ``c``) to the MWC of a game won at
    ``c`` (``p = 1``); a side that may not double, or whose cube is dead, has no cash point
    (the line runs straight on), so with neither cash point the live line is the dead cube."""
    cdef double lo_p = 0.0, lo_y = _L(s, c), hi_p = 1.0, hi_y = _W(s, c)
    if mine and _alive(s.ad, c, s.max_cube):
        hi_p = _pmax_t(s, c)
        hi_y = _won(s, c)
    if theirs and _alive(s.at, c, s.max_cube):
        lo_p = _ptake_d(s, c)
        lo_y = _lost(s, c)
    return ((1.0 - x) * _dead(s, win, 1.0 - win, c)
            + x * _live(win, lo_p, lo_y, hi_p, hi_y, _L(s, c), _W(s, c)))


cdef inline void _met_equities(const _Met* s, double win, int c, bint mine, bint theirs, double x,
                               double* nd, double* dt, double* dp) noexcept nogil:
    """The doubler's (``s``'s side, on roll) ND, DT and DP; ``mine``/``theirs``: who may
    double the cube at ``c`` later if it does not double now."""
    dp[0] = _won(s, c)
    # double/take: the taker owns the cube at 2c
    dt[0] = _cubeful(s, win, 2 * c, False, True, x)
    # no double: the cube stays at c, centred or the doubler's
    nd[0] = _cubeful(s, win, c, mine, theirs, x)


cdef void _met(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    cdef _Met s
    _met_setup(p, a.met, a.away_d, a.away_t, a.post_crawford, a.max_cube, &s)
    _met_equities(&s, p[0], a.cube, a.owner == -1 or a.owner == a.doubler, a.owner == -1, a.x, nd, dt, dp)


cdef double standing_mwc(const float* p, const PlayScene* ps) noexcept nogil:
    """The mover's cubeful MWC from its probabilities ``p`` with the cube as it stands
    (:func:`cubeful_mwc`), no cube action of either side pending."""
    cdef _Met s
    _met_setup(p, ps.met, ps.away, ps.opp_away, ps.post_crawford, ps.max_cube, &s)
    return _cubeful(&s, p[0], ps.cube, ps.mine, ps.theirs, ps.x)


cdef double play_mwc(const float* p, const void* ctx) noexcept nogil:
    """The value of a play in match play: the mover's MWC after it (``p`` its probabilities
    then), its opponent on roll.  Where the opponent may double (the cube centred or its own,
    not the Crawford game, alive for it), it takes its proper cube action first, as
    :func:`cube_decide` finds it (double when both answers give it more than no double; the
    mover then answers its best): gnubg values a play so, its evaluation of the position after
    the play not being the top of its tree.  Elsewhere, the cube as it stands."""
    cdef const PlayScene* ps = <const PlayScene*> ctx
    cdef _Met o
    cdef float q[NOUT]
    cdef double nd, dt, dp
    if not (ps.theirs and _alive(ps.opp_away, ps.cube, ps.max_cube)):
        return standing_mwc(p, ps)
    probs_flip(p, q)
    _met_setup(q, ps.met, ps.opp_away, ps.away, ps.post_crawford, ps.max_cube, &o)
    _met_equities(&o, q[0], ps.cube, True, ps.mine, ps.x, &nd, &dt, &dp)   # ps.mine: the cube is centred
    if dp < dt:
        dt = dp
    return 1.0 - (dt if dt > nd else nd)


# ---------------------------------------------------------------- decisions

cdef bint cube_uses_met(const CubeArgs* a) noexcept nogil:
    return _use_met(a)


cdef inline bint _use_met(const CubeArgs* a) noexcept nogil:
    return (a.length > 0 and a.met != NULL
            and 0 < a.away_d < MET_SIZE and 0 < a.away_t < MET_SIZE
            and a.met.pre[a.away_d][a.away_t] > 0.0)


cdef int cube_decide(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    if _use_met(a):
        _met(p, a, nd, dt, dp)
    else:
        _janowski(p, a, nd, dt, dp)
    return 1 if (dt[0] if dt[0] < dp[0] else dp[0]) > nd[0] else 0


cdef int cube_answer(const CubeArgs* a, double dt, double dp) noexcept nogil:
    return _answer(a, dt, dp)


cdef inline int _answer(const CubeArgs* a, double dt, double dp) noexcept nogil:
    """The taker's answer: pass when a take gives the doubler more than a pass; beaver
    (money play, when allowed) when the take leaves the doubler behind."""
    if dt > dp:
        return RESPONSE_PASS
    if a.length == 0 and a.beaver and dt < 0.0:
        return RESPONSE_BEAVER
    return RESPONSE_TAKE


cdef int cube_offer(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil:
    """Whether the doubler (side 1 of ``b``, on roll) doubles, by its Janowski or MET policy.

    A 0-ply estimate screens out clear no-doubles; otherwise the estimate at the evaluator's
    ``cube_ply`` (1 by default) decides."""
    cdef float p[NOUT]
    cdef double nd, dt, dp
    if cube_screened(a, e, g, b, p, &nd, &dt, &dp):
        return 0
    if e.cube_ply > 0:       # else the screen's estimate is the one at cube_ply
        evaluator_preroll(e, g, b, e.cube_ply, p)
    return cube_decide(p, a, &nd, &dt, &dp)


cdef bint cube_screened(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b, float* p,
                        double* nd, double* dt, double* dp) noexcept nogil:
    """The 0-ply screen of :func:`cube_offer`: the 0-ply probabilities in ``p`` and their
    decision's equities; true when no double beats doubling by SCREEN cube units."""
    cdef double scale = 1.0
    evaluator_preroll(e, g, b, 0, p)
    cube_decide(p, a, nd, dt, dp)
    if _use_met(a):
        # MWC per cube unit at this score
        scale = 0.5 * (dp[0] - _lookup(a.met, a.away_d, a.away_t - a.cube, a.post_crawford))
    return (dt[0] if dt[0] < dp[0] else dp[0]) - nd[0] < -SCREEN * scale


cdef int cube_respond(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil:
    """The taker's answer to a double, by its estimate at ``cube_ply``; the doubler is side 1 of
    ``b`` (on roll)."""
    cdef float p[NOUT]
    cdef double nd, dt, dp
    evaluator_preroll(e, g, b, e.cube_ply, p)
    cube_decide(p, a, &nd, &dt, &dp)
    return _answer(a, dt, dp)


cdef int cube_choose(const CubeArgs* a, const Evaluator* e, const MoveGen* g, const Board* b) noexcept nogil:
    cdef PlayScene ps
    cdef PlayValue value
    if not _use_met(a):
        return evaluator_choose(e, g, b, NULL)
    _play_scene(a, &ps)
    value.fn = play_mwc
    value.ctx = &ps
    value.unit = 0.5 * (_lookup(a.met, a.away_d - a.cube, a.away_t, a.post_crawford)
                        - _lookup(a.met, a.away_d, a.away_t - a.cube, a.post_crawford))
    return evaluator_choose(e, g, b, &value)


cdef void _play_scene(const CubeArgs* a, PlayScene* ps) noexcept nogil:
    """The PlayScene of the mover ``a.doubler``: after its play the cube is as it was."""
    ps.met = a.met
    ps.away = a.away_d
    ps.opp_away = a.away_t
    ps.post_crawford = a.post_crawford
    ps.cube = a.cube
    ps.mine = not a.crawford and (a.owner == -1 or a.owner == a.doubler)
    ps.theirs = not a.crawford and a.owner != a.doubler
    ps.max_cube = a.max_cube
    ps.x = a.x


# ---------------------------------------------------------------- Python face

MET_ROWS = MET_SIZE
"""The most rows of a :class:`Met`: 0-away to 63-away."""


cdef inline void _probs_in(probs, double* p) except *:
    cdef int i
    if len(probs) != NOUT:
        raise ValueError("probabilities are 5 numbers (win, wg, wbg, lg, lbg), got %r" % (probs,))
    for i in range(NOUT):
        p[i] = probs[i]


cdef class Met:
    """A match equity table in C memory, as the cube decisions and lookups read it.

    :param pre: the pre-Crawford match winning chances, ``pre[a][b]`` for the side
        ``a``-away against ``b``-away (index 0 = the match is won: ``pre[0][b]`` = 1,
        ``pre[a][0]`` = 0), an (n, n) table with n at most 64.
    :param post: the post-Crawford row: the trailer's chance ``a``-away, the leader 1-away.
    :raises ValueError: a table that is not square, larger than 64, or a row of another length.
    """

    def __cinit__(self, pre, post):
        cdef int i, j, n = len(pre)
        if n == 0 or n > MET_SIZE or len(post) != n or any(len(row) != n for row in pre):
            raise ValueError("a match equity table is an (n, n) table and a row of n, n at most %d" % MET_SIZE)
        memset(&self.t, 0, sizeof(MetTable))
        for i in range(n):
            self.t.post[i] = post[i]
            for j in range(n):
                self.t.pre[i][j] = pre[i][j]
        self.size = n

    def __reduce__(self):
        n = self.size
        return (Met, ([[self.t.pre[i][j] for j in range(n)] for i in range(n)], [self.t.post[i] for i in range(n)]))


def decide(probs, *, double x=0.68, int length=0, int doubler_away=0, int taker_away=0,
           int cube=1, int owner=-1, int doubler=0, bint jacoby=False, bint beaver=False,
           int max_cube=64, Met met=None, bint post_crawford=False):
    """A cube decision from given probabilities.

    :param probs: the doubler's ``(win, win_gammon, win_bg, lose_gammon, lose_bg)`` before the roll.
    :param owner: -1 centred, else the player who owns the cube (the doubler's: ``doubler``).
    :param met: the :class:`Met` of match play (Janowski without one, and in money play).
    :returns: ``(double, response, no_double, double_take, double_pass)``: whether the
        doubler doubles, the taker's answer (a :class:`CubeAnswer`) and the three
        equities from the doubler's view (money: per current cube; match: MWC).
    :raises ValueError: not five probabilities.
    """
    cdef CubeArgs a
    cdef double pd[NOUT]
    cdef float p[NOUT]
    cdef double nd, dt, dp
    cdef int i, dbl
    _probs_in(probs, pd)
    for i in range(NOUT):
        p[i] = <float> pd[i]
    a.length = length
    a.doubler = doubler
    a.owner = owner
    a.away_d = doubler_away
    a.away_t = taker_away
    a.post_crawford = post_crawford
    a.crawford = 0
    a.cube = cube
    a.jacoby = jacoby
    a.beaver = beaver
    a.max_cube = max_cube
    a.x = x
    a.met = NULL if met is None else &met.t
    dbl = cube_decide(p, &a, &nd, &dt, &dp)
    return bool(dbl), CubeAnswer(_answer(&a, dt, dp)), nd, dt, dp


def money_equity(probs, int owner=-1, int player=0, double x=0.68, bint jacoby=False, int cube=1,
                 int max_cube=64):
    """Cubeful money equity per cube of ``player`` from its probabilities (Janowski).

    :param owner: -1 centred, else the player who owns the cube.
    :param jacoby: the Jacoby rule: gammons count single while the cube is centred.
    :param cube: the cube's value, ``max_cube`` the highest: a cube that cannot be turned
        again is dead (``x`` = 0).
    """
    cdef double p[NOUT]
    _probs_in(probs, p)
    return money_cubeful(p, owner, player, money_x(x, cube, max_cube), jacoby)


def mwc(Met met not None, int away, int opp_away, bint post_crawford=False):
    """The match winning chance of the side ``away`` points from winning against one
    ``opp_away`` away (0 or less: that side has won); ``post_crawford``: the Crawford game
    has been played, so a 1-away side is the leader.

    :raises ValueError: an away beyond the table.
    """
    if away >= met.size or opp_away >= met.size:
        raise ValueError("%d-away, %d-away is beyond the table (%d rows)" % (away, opp_away, met.size))
    return met_mwc(&met.t, away, opp_away, post_crawford)


def dead_cube_mwc(probs, Met met not None, int away, int opp_away, int cube=1):
    """The match winning chance of the side ``away`` points from winning, from its
    probabilities, with the cube dead at ``cube``: each result's MWC, weighted.

    A game with either side 1-away is the Crawford game or comes after it, so the
    scores it leads to are read post-Crawford.

    :raises ValueError: not five probabilities, an away below 1 or beyond the table.
    """
    cdef double p[NOUT]
    if not (0 < away < met.size and 0 < opp_away < met.size):
        raise ValueError("%d-away, %d-away is not a score of the table (%d rows)" % (away, opp_away, met.size))
    _probs_in(probs, p)
    return met_dead_cube(p, &met.t, away, opp_away, cube)


cdef int _scene_in(PlayScene* ps, float* p, probs, Met met, int away, int opp_away, int cube, int owner,
                   int player, double x, bint crawford, int max_cube) except -1:
    cdef double pd[NOUT]
    cdef int i
    if not (0 < away < met.size and 0 < opp_away < met.size):
        raise ValueError("%d-away, %d-away is not a score of the table (%d rows)" % (away, opp_away, met.size))
    _probs_in(probs, pd)
    for i in range(NOUT):
        p[i] = <float> pd[i]
    ps.met = &met.t
    ps.away = away
    ps.opp_away = opp_away
    ps.post_crawford = away == 1 or opp_away == 1
    ps.cube = cube
    ps.mine = not crawford and (owner == -1 or owner == player)
    ps.theirs = not crawford and owner != player
    ps.max_cube = max_cube
    ps.x = x
    return 0


def cubeful_mwc(probs, Met met not None, int away, int opp_away, int cube=1, int owner=-1,
                int player=0, double x=0.68, bint crawford=False, int max_cube=64):
    """The cubeful match winning chance of ``player``, ``away`` points from winning against
    one ``opp_away`` away, from its probabilities with the cube at ``cube`` (``owner`` -1
    centred, else the player who owns it) as it stands: Janowski's ``(1 - x) * dead + x *
    live`` on the table.  ``crawford``: this is the Crawford game, so neither side may
    double.  A game with either side 1-away is the Crawford game or comes after it, so the
    scores it leads to are read post-Crawford.

    :raises ValueError: not five probabilities, an away below 1 or beyond the table.
    """
    cdef float p[NOUT]
    cdef PlayScene ps
    _scene_in(&ps, p, probs, met, away, opp_away, cube, owner, player, x, crawford, max_cube)
    return standing_mwc(p, &ps)


def play_mwc_of(probs, Met met not None, int away, int opp_away, int cube=1, int owner=-1,
                int player=0, double x=0.68, bint crawford=False, int max_cube=64):
    """The value of a play of ``player`` in match play (:c:func:`play_mwc`, what the core ranks
    plays by): its match winning chance after the play, from its probabilities then, its
    opponent on roll taking its proper cube action where it may double; else
    :func:`cubeful_mwc`.  Arguments as :func:`cubeful_mwc`'s.

    :raises ValueError: not five probabilities, an away below 1 or beyond the table.
    """
    cdef float p[NOUT]
    cdef PlayScene ps
    _scene_in(&ps, p, probs, met, away, opp_away, cube, owner, player, x, crawford, max_cube)
    return play_mwc(p, &ps)


def cubeless_equity(probs):
    """Cubeless money equity per cube: ``2 win - 1 + wg - lg + wbg - lbg``."""
    cdef double p[NOUT]
    _probs_in(probs, p)
    return probs_equity(p)


def cubeless_equities(const double[:, :] probs):
    """:func:`cubeless_equity` of each row of an (n, 5) array; an array of shape (n,)."""
    import numpy as np

    if probs.shape[1] != NOUT:
        raise ValueError("probabilities are rows of 5 numbers, got rows of %d" % probs.shape[1])
    cdef Py_ssize_t i, k, n = probs.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    cdef double row[NOUT]
    for i in range(n):
        for k in range(NOUT):
            row[k] = probs[i, k]
        o[i] = probs_equity(row)
    return out


def flip(probs):
    """The same probabilities from the other side's view: ``(1 - win, lg, lbg, wg, wbg)``."""
    cdef double q[NOUT]
    cdef double p[NOUT]
    _probs_in(probs, q)
    probs_flip(q, p)
    return (p[0], p[1], p[2], p[3], p[4])
