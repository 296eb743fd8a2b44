# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""Cube decisions from win and gammon estimates: Janowski (money) and the MET (match play).

Both policies turn a bot's cubeless probabilities *before the roll* for the
side on roll (win ``p``, and gammon/backgammon rates) into three equities from
the doubler's view, no double (ND), double/take (DT) and double/pass (DP), and
then double when ``min(DT, DP) > ND`` and take when ``DT <= DP``.  The cube's
value is modelled as in R. Janowski, "Take-Points in Money Games" (1993): the
cubeful equity is ``x * live + (1 - x) * dead``, interpolating between the
dead cube (the cubeless equity) and a fully live cube (equity linear in ``p``
between the take point, where the opponent cashes, and the cash point) with
the cube efficiency ``x`` (0.68 by default; Janowski suggests about 2/3).

Money (``janowski``).  With ``W`` and ``L`` the average values of a win and a
loss (1 + gammon and backgammon rates per win or loss), Janowski's formulas:
dead ``E = p (W + L) - L``; live, own cube ``E = p (W + L + 1/2) - L`` up to the
cash point ``CP = (L + 1) / (W + L + 1/2)``; live, opponent's cube
``E = p (W + L + 1/2) - L - 1/2`` above the take point
``TP = (L - 1/2) / (W + L + 1/2)``; live, centred cube: linear from -1 at TP to
+1 at CP.  DT is twice the equity with the opponent owning the cube, DP is
+1.  The taker's take point is then ``(W_t - 1/2) / (W_t + L_t + x/2)`` in the
taker's terms: 25% with a dead cube (``x = 0``) and 20% fully live (``x = 1``)
without gammons.  With the Jacoby rule, gammons count single in the dead part
of ND while the cube is centred.

Match play (``met``).  The same model with match winning chances (MWC) from
the match equity table in place of money: each result (win or lose 1, 2 or 3
times the cube) is worth the MWC at the score it leads to, so gammons count
through the gammon values at the score.  Take and cash points of a live cube
come from the MET recursively, as the cube goes up, until the cube is dead for
its owner (winning the cube value wins the match, or the maximum cube).  With a
dead cube (``x = 0``) and no gammons the taker's take point is the MET take
point, e.g. 0.3713 for 4-away doubled by 2-away (Kazaross-XG2); the doubler
doubles inside the window between the doubling point (where DT overtakes ND)
and the cash point, and above it unless too good (playing on for the gammon is
worth more than cashing).  Money play, and scores beyond the table, fall back
to Janowski.
"""
from bgfast._core.board cimport Board
from bgfast._core.game cimport MatchCtx, MET_SIZE, CUBE_JANOWSKI, CUBE_MET, RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER
from bgfast._core.heuristic cimport heuristic_preroll, H_NOUT

DEF SCREEN = 0.25     # 0-ply screen: no 1-ply look when ND beats doubling by this much (cube units)


# ---------------------------------------------------------------- money: Janowski

cdef inline void _w_l(const float* p, double* W, double* L) noexcept nogil:
    cdef double win = p[0], lose = 1.0 - p[0]
    W[0] = 1.0 + (p[1] + p[2]) / win if win > 1e-6 else 1.0
    L[0] = 1.0 + (p[3] + p[4]) / lose if lose > 1e-6 else 1.0


cdef void _janowski(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    cdef double W, L, win = p[0], dead, dead_nd, tp, cp, live
    cdef double x = a.x
    _w_l(p, &W, &L)
    dead = win * (W + L) - L
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    live = -1.0 if win <= tp else win * (W + L + 0.5) - L - 0.5
    dt[0] = 2.0 * ((1.0 - x) * dead + x * live)
    dp[0] = 1.0
    if a.centred:
        dead_nd = 2.0 * win - 1.0 if a.jacoby else dead
        if win <= tp:
            live = -1.0
        elif win >= cp:
            live = 1.0
        else:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        nd[0] = (1.0 - x) * dead_nd + x * live
    else:
        live = 1.0 if win >= cp else win * (W + L + 0.5) - L
        nd[0] = (1.0 - x) * dead + x * live


# ---------------------------------------------------------------- match play: the MET

ctypedef struct _Met:
    const double* met
    const double* post
    int ad, at, post_crawford, max_cube
    double rw[3]
    double rl[3]


cdef inline double _mwc(const _Met* s, int ad, int at) noexcept nogil:
    """The doubler's MWC at (doubler ad-away, taker at-away)."""
    if ad <= 0:
        return 1.0
    if at <= 0:
        return 0.0
    if s.post_crawford:
        if at == 1:
            return s.post[ad]
        if ad == 1:
            return 1.0 - s.post[at]
    return s.met[ad * MET_SIZE + at]


cdef inline double _won(const _Met* s, int pts) noexcept nogil:
    return _mwc(s, s.ad - pts, s.at)


cdef inline double _lost(const _Met* s, int pts) noexcept nogil:
    return _mwc(s, s.ad, s.at - pts)


cdef inline double _W(const _Met* s, int v) noexcept nogil:
    """The doubler's average MWC when winning at cube ``v`` (gammon rates as given)."""
    return s.rw[0] * _won(s, v) + s.rw[1] * _won(s, 2 * v) + s.rw[2] * _won(s, 3 * v)


cdef inline double _L(const _Met* s, int v) noexcept nogil:
    return s.rl[0] * _lost(s, v) + s.rl[1] * _lost(s, 2 * v) + s.rl[2] * _lost(s, 3 * v)


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


cdef inline double _line(double p, double p0, double y0, double p1, double y1) noexcept nogil:
    if p <= p0:
        return y0
    if p >= p1 or p1 - p0 <= 1e-12:
        return y1
    return y0 + (p - p0) * (y1 - y0) / (p1 - p0)


cdef void _met(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    cdef _Met s
    cdef double win = p[0], lose = 1.0 - p[0], x = a.x, live, lo_p, lo_y, hi_p, hi_y
    cdef int c = a.cube
    s.met = a.met
    s.post = a.met_post
    s.ad = a.away_d
    s.at = a.away_t
    s.post_crawford = a.post_crawford
    s.max_cube = a.max_cube
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
    dp[0] = _won(&s, c)
    # double/take: the taker owns the cube at 2c
    if _alive(s.at, 2 * c, s.max_cube):
        live = _line(win, _ptake_d(&s, 2 * c), _lost(&s, 2 * c), 1.0, _W(&s, 2 * c))
    else:
        live = win * _W(&s, 2 * c) + lose * _L(&s, 2 * c)
    dt[0] = (1.0 - x) * (win * _W(&s, 2 * c) + lose * _L(&s, 2 * c)) + x * live
    # no double: the cube stays at c, centred or the doubler's
    hi_p = _pmax_t(&s, c)
    hi_y = dp[0]
    if a.centred and _alive(s.at, c, s.max_cube):
        lo_p = _ptake_d(&s, c)
        lo_y = _lost(&s, c)
    else:
        lo_p = 0.0
        lo_y = _L(&s, c)
    live = _line(win, lo_p, lo_y, hi_p, hi_y)
    nd[0] = (1.0 - x) * (win * _W(&s, c) + lose * _L(&s, c)) + x * live


# ---------------------------------------------------------------- decisions

cdef inline bint _use_met(const CubeArgs* a) noexcept nogil:
    return (a.length > 0 and a.met != NULL and a.met_post != NULL
            and 0 < a.away_d < MET_SIZE and 0 < a.away_t < MET_SIZE
            and a.met[a.away_d * MET_SIZE + a.away_t] > 0.0)


cdef int cube_decide(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil:
    if _use_met(a):
        _met(p, a, nd, dt, dp)
    else:
        _janowski(p, a, nd, dt, dp)
    return 1 if (dt[0] if dt[0] < dp[0] else dp[0]) > nd[0] else 0


cdef void _args(MatchCtx* m, int doubler, int kind, double x, int cube, int owner, CubeArgs* a) noexcept nogil:
    a.length = m.rules.length
    a.away_d = m.rules.length - m.score[doubler]
    a.away_t = m.rules.length - m.score[1 - doubler]
    a.post_crawford = m.rules.length > 0 and (a.away_d == 1 or a.away_t == 1)
    a.cube = cube
    a.centred = owner == -1
    a.jacoby = m.rules.length == 0 and m.rules.jacoby
    a.max_cube = m.rules.max_cube
    a.x = x
    if kind == CUBE_MET:
        a.met = &m.met[0][0]
        a.met_post = &m.met_post[0]
    else:
        a.met = NULL
        a.met_post = NULL


cdef double _lost_at(const CubeArgs* a, int pts) noexcept nogil:
    cdef _Met s
    s.met = a.met
    s.post = a.met_post
    s.ad = a.away_d
    s.at = a.away_t
    s.post_crawford = a.post_crawford
    return _lost(&s, pts)


cdef int cube_offer(MatchCtx* m, int player, const Board* b, int cube, int owner, int crawford) except -1 nogil:
    """Whether ``player`` (side 1 of ``b``, on roll) doubles, by its Janowski or MET policy.

    A 0-ply estimate screens out clear no-doubles; otherwise the 1-ply estimate decides."""
    cdef CubeArgs a
    cdef float p[H_NOUT]
    cdef double nd, dt, dp, scale = 1.0
    _args(m, player, m.players[player].cube, m.players[player].cube_efficiency, cube, owner, &a)
    heuristic_preroll(m.gen, b, 0, p)
    cube_decide(p, &a, &nd, &dt, &dp)
    if _use_met(&a):
        scale = 0.5 * (dp - _lost_at(&a, cube))      # MWC per cube unit at this score
    if (dt if dt < dp else dp) - nd < -SCREEN * scale:
        return 0
    heuristic_preroll(m.gen, b, 1, p)
    return cube_decide(p, &a, &nd, &dt, &dp)


cdef int cube_respond(MatchCtx* m, int player, const Board* b, int cube, int owner, int crawford) except -1 nogil:
    """``player``'s answer to a double; the doubler is side 1 of ``b`` (on roll)."""
    cdef CubeArgs a
    cdef float p[H_NOUT]
    cdef double nd, dt, dp
    _args(m, 1 - player, m.players[player].cube, m.players[player].cube_efficiency, cube, owner, &a)
    a.centred = 1
    heuristic_preroll(m.gen, b, 1, p)
    cube_decide(p, &a, &nd, &dt, &dp)
    if dt > dp:
        return RESPONSE_PASS
    if a.length == 0 and m.rules.beaver and dt < 0.0:
        return RESPONSE_BEAVER
    return RESPONSE_TAKE


# ---------------------------------------------------------------- Python entry point

def decide(probs, *, double x=0.68, int length=0, int doubler_away=0, int taker_away=0,
           int cube=1, bint centred=True, bint jacoby=False, bint beaver=False, int max_cube=64,
           met=None, bint post_crawford=False):
    """A cube decision from given probabilities (for tests and analysis).

    :param probs: the doubler's ``(win, win_gammon, win_bg, lose_gammon, lose_bg)`` before the roll.
    :param met: ``(pre, post)`` match winning chances as ``bgfast.game`` passes them to the
        core (index = points away, 0 = won), needed in match play.
    :returns: ``(double, response, no_double, double_take, double_pass)``: whether the
        doubler doubles, the taker's answer (0 pass, 1 take, 2 beaver) and the three
        equities from the doubler's view (money: per current cube; match: MWC).
    """
    cdef CubeArgs a
    cdef float p[5]
    cdef double nd, dt, dp
    cdef double table[MET_SIZE][MET_SIZE]
    cdef double post[MET_SIZE]
    cdef int i, j, n, dbl, resp
    if len(probs) != 5:
        raise ValueError("probabilities are 5 numbers (win, wg, wbg, lg, lbg), got %r" % (probs,))
    for i in range(5):
        p[i] = probs[i]
    for i in range(MET_SIZE):
        post[i] = 0.0
        for j in range(MET_SIZE):
            table[i][j] = 0.0
    a.length = length
    a.away_d = doubler_away
    a.away_t = taker_away
    a.post_crawford = post_crawford
    a.cube = cube
    a.centred = centred
    a.jacoby = jacoby
    a.max_cube = max_cube
    a.x = x
    a.met = NULL
    a.met_post = NULL
    if met is not None:
        pre, row = met
        n = min(len(pre), MET_SIZE)
        for i in range(n):
            post[i] = row[i]
            for j in range(n):
                table[i][j] = pre[i][j]
        a.met = &table[0][0]
        a.met_post = &post[0]
    dbl = cube_decide(p, &a, &nd, &dt, &dp)
    resp = RESPONSE_TAKE
    if dt > dp:
        resp = RESPONSE_PASS
    elif length == 0 and beaver and dt < 0.0:
        resp = RESPONSE_BEAVER
    return bool(dbl), resp, nd, dt, dp
