# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The heuristic evaluator: hand-written backgammon features, logistic outputs.

``heuristic_probs`` estimates, for a position after a play (side 1 has just
moved, side 0 is on roll), the probabilities of side 1's results: win, win a
gammon (or backgammon), win a backgammon, lose a gammon (or backgammon), lose a
backgammon.  Each is a logistic function of a weighted sum of features that a
backgammon player reads off the board, for each side (``_side_features``):

- pip count, checkers borne off, checkers on the bar;
- blots, and the *shots* at them: the rolls of 36 with which the side on roll
  hits at least one blot (direct and indirect, through open points, entering
  from the bar first), and the pips that the worst such hit costs;
- points made, one feature per point (their value by location), home-board
  points, outfield points, anchors in the opponent's home board;
- the longest prime and the opponent's checkers trapped behind it, the
  opponent's blocks in front of the rearmost checker;
- checkers back, outside the home board, the pips to bring them home (the
  gammon features), stacking, a checker on the bar against a strong board;

and for the whole board the race lead (pip counts and Keith counts, scaled by
the square root of their sum, the usual race formula shape).  Contact and race
positions (no checker has to pass an opposing one) have their own weights.
Bear-offs use the race weights; gammons and backgammons that can no longer
happen are set to 0 exactly, and a finished game evaluates exactly.

The weights are data (``bgfast/data/weights/heuristic.txt``), fitted by
logistic regression to the results of self-play games
(``tools/fit_heuristic.py`` reproduces them).
"""
import os

import numpy as np

from libc.math cimport expf, sqrtf
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from bgfast._core.board cimport Board, BAR, board_from_bytes, board_swap, board_checkers
from bgfast._core.movegen cimport MoveGen, movegen_new, movegen_free, generate
from bgfast._core.rng cimport Rng, rng_seed, rng_die, rng_below, rng_next
from bgfast._core.evaluators cimport is_race, pubeval, keith_count
from bgfast._core.heuristic cimport H_SIDE, H_GLOBAL, H_NFEAT, H_NCLASS, H_NOUT
from bgfast._core.rng import run_key

cdef extern from *:
    int __builtin_clz(unsigned int x) nogil

NFEAT = H_NFEAT
NCLASS = H_NCLASS
NOUT = H_NOUT
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

cdef float W[H_NCLASS][H_NOUT][H_NFEAT]
memset(W, 0, sizeof(W))

DEF BARBIT = 1 << 24


# ---------------------------------------------------------------- features

cdef inline int _top_bit(uint32_t h) noexcept nogil:
    return 31 - __builtin_clz(h)


cdef float _shots(uint32_t src, int ybar, uint32_t blots, uint32_t opn, float* loss) noexcept nogil:
    """Chance (of 36 rolls) that the side on roll hits a blot; ``loss`` = mean pips lost.

    Coordinates are those of the side on roll (bit i = its point i+1, bit 24 =
    its bar; it moves towards bit 0): ``src`` its checkers, ``blots`` the
    opponent's blots, ``opn`` the points not blocked by the opponent.
    """
    cdef int a, b, w, s, nenter, cnt = 0, lost = 0
    cdef uint32_t sa, sb, ea, eb, h, c, rest = src & ~(<uint32_t> BARBIT)
    if blots == 0:
        loss[0] = 0
        return 0
    if (src | (BARBIT if ybar else 0)) >> 1 < (blots & (~blots + 1)):
        loss[0] = 0          # every checker of the side on roll is already past every blot
        return 0
    for a in range(1, 7):
        for b in range(a, 7):
            if a == b:
                w = 1
                if ybar:
                    ea = (<uint32_t> BARBIT >> a) & opn
                    if ea == 0:
                        continue
                    h = ea & blots
                    nenter = ybar if ybar < 4 else 4
                    c = rest | ea
                    for s in range(4 - nenter):
                        c = (c >> a) & opn
                        h |= c & blots
                else:
                    h = 0
                    c = rest
                    for s in range(4):
                        c = (c >> a) & opn
                        h |= c & blots
            else:
                w = 2
                if ybar == 0:
                    sa = (rest >> a) & opn
                    sb = (rest >> b) & opn
                    h = (sa | sb | ((sa >> b) & opn) | ((sb >> a) & opn)) & blots
                else:
                    ea = (<uint32_t> BARBIT >> a) & opn
                    eb = (<uint32_t> BARBIT >> b) & opn
                    h = (ea | eb) & blots
                    if ybar == 1:
                        if ea:
                            h |= ((rest | ea) >> b) & opn & blots
                        if eb:
                            h |= ((rest | eb) >> a) & opn & blots
            if h:
                cnt += w
                lost += w * (_top_bit(h) + 1)
    loss[0] = lost / (36.0 * 25.0)
    return cnt / 36.0


cdef void _side_features(const uint8_t* x, const uint8_t* y, float* f, int* pips_out,
                         int* home_out) noexcept nogil:
    """Features of side ``x`` against ``y`` (each array in its own side's view); ``y`` is on roll
    when ``x`` is side 1.  Writes ``H_SIDE`` floats to ``f``."""
    cdef int i, n, pips = 0, off = 15, blots = 0, home_blots = 0, back = 0, anchors = 0
    cdef int outside = 0, to_home = 0, stack = 0, far = 0, outfield = 0, home = 0, yhome = 0
    cdef int run = 0, best = 0, best_lo = 0, trapped = 0, rear = -1, blocks = 0
    cdef uint32_t made = 0, xblots = 0, ysrc = 0, yblock = 0
    cdef float loss = 0, hit
    for i in range(H_SIDE):
        f[i] = 0
    for i in range(25):
        n = x[i]
        off -= n
        pips += n * (i + 1)
        if n and i > rear:
            rear = i
        if y[i]:
            ysrc |= (<uint32_t> 1) << i
            if i < 24 and y[i] >= 2:
                yblock |= (<uint32_t> 1) << (23 - i)     # y's point in x's coordinates
            if i < 6 and y[i] >= 2:
                yhome += 1
        if i == 24:
            break
        if n >= 2:
            made |= (<uint32_t> 1) << i
            f[21 + i] = 1
            if i < 6:
                home += 1
            elif i < 12:
                outfield += 1
            elif i >= 18:
                anchors += 1
            if n > 3:
                stack += n - 3
            run += 1
            if run > best:
                best = run
                best_lo = i - run + 1
        else:
            run = 0
            if n == 1:
                blots += 1
                xblots |= (<uint32_t> 1) << (23 - i)          # in y's coordinates
                f[45 + i] = 1
                if i < 6:
                    home_blots += 1
        if i >= 18:
            back += n
        if i >= 12:
            far += n
        if i >= 6:
            outside += n
            to_home += n * (i - 5)
    n = x[24]
    back += n
    far += n
    outside += n
    to_home += n * 19
    # y's checkers behind x's longest prime: at x coordinates below its low end
    if best >= 3:
        for i in range(23 - best_lo + 1, 25):
            trapped += y[i]
    # y's blocks in the six points in front of x's rearmost checker
    if rear >= 0:
        for i in range(rear - 1, rear - 7, -1):
            if i < 0:
                break
            if (yblock >> i) & 1:
                blocks += 1
    # shots: y on roll hits x's blots; y's coordinates, x's made points block
    cdef uint32_t opn = 0
    for i in range(24):
        if x[23 - i] < 2:
            opn |= (<uint32_t> 1) << i
    hit = _shots(ysrc, y[24], xblots, opn, &loss)
    f[0] = pips / 100.0
    f[1] = off / 15.0
    f[2] = (x[24] if x[24] < 4 else 4) / 2.0
    f[3] = home / 6.0
    f[4] = best / 6.0
    f[5] = (best - 3) / 3.0 if best >= 4 else 0.0
    f[6] = (trapped / 5.0) * (best - 2) / 4.0 if best >= 3 else 0.0
    f[7] = hit
    f[8] = loss
    f[9] = blots / 5.0
    f[10] = home_blots / 3.0
    f[11] = back / 5.0
    f[12] = anchors / 2.0
    f[13] = to_home / 100.0
    f[14] = outside / 15.0
    f[15] = stack / 5.0
    f[16] = ((x[24] if x[24] < 2 else 2) / 2.0) * (yhome / 6.0) * (yhome / 6.0)
    f[17] = far / 15.0
    f[18] = outfield / 6.0
    f[19] = blocks / 6.0
    f[20] = 1.0 if x[24] else 0.0
    pips_out[0] = pips
    home_out[0] = home


cdef int heuristic_features(const Board* b, float* f) noexcept nogil:
    """Fill ``f`` (``H_NFEAT`` floats) for ``b`` after side 1's play; return the class (0 contact, 1 race)."""
    cdef int p1, p0, h1, h0, k1, k0
    cdef float* g = f + 2 * H_SIDE
    _side_features(b.side[1], b.side[0], f, &p1, &h1)
    _side_features(b.side[0], b.side[1], f + H_SIDE, &p0, &h0)
    k1 = keith_count(b, 1)
    k0 = keith_count(b, 0)
    g[0] = 1.0
    g[1] = (p0 - p1) / sqrtf(<float> (p0 + p1 + 1))
    g[2] = (p0 - p1) / 100.0
    g[3] = (k0 - k1) / sqrtf(<float> (k0 + k1 + 1))
    g[4] = f[7] * h0 / 6.0
    g[5] = f[H_SIDE + 7] * h1 / 6.0
    return 1 if is_race(b) else 0


cdef inline float _sigmoid(float z) noexcept nogil:
    if z > 30:
        z = 30
    elif z < -30:
        z = -30
    return 1.0 / (1.0 + expf(-z))


cdef inline bint _none_back(const uint8_t* s) noexcept nogil:
    """No checker of ``s`` on its bar or in the opponent's home board (its points 19..24)."""
    cdef int i
    for i in range(18, 25):
        if s[i]:
            return False
    return True


cdef void heuristic_probs(const Board* b, float* p) noexcept nogil:
    """Probabilities of side 1's results after its play; ``p[0..4]`` = win, win gammon,
    win backgammon, lose gammon, lose backgammon (the gammons include backgammons)."""
    cdef float f[H_NFEAT]
    cdef int o, k, cls
    cdef float z
    cdef int left1 = board_checkers(b, 1), left0 = board_checkers(b, 0)
    if left1 == 0:
        p[0] = 1
        p[1] = 1 if left0 == 15 else 0
        p[2] = 1 if left0 == 15 and not _none_back(b.side[0]) else 0
        p[3] = 0
        p[4] = 0
        return
    cls = heuristic_features(b, f)
    for o in range(H_NOUT):
        z = 0
        for k in range(H_NFEAT):
            z += W[cls][o][k] * f[k]
        p[o] = _sigmoid(z)
    if p[1] > p[0]:
        p[1] = p[0]
    if p[2] > p[1]:
        p[2] = p[1]
    if p[3] > 1 - p[0]:
        p[3] = 1 - p[0]
    if p[4] > p[3]:
        p[4] = p[3]
    if left0 < 15:
        p[1] = 0
        p[2] = 0
    if left1 < 15:
        p[3] = 0
        p[4] = 0
    if cls == 1:
        if _none_back(b.side[0]):
            p[2] = 0
        if _none_back(b.side[1]):
            p[4] = 0


cdef float probs_equity(const float* p) noexcept nogil:
    """Cubeless money equity of the five probabilities (per cube, from their side's view)."""
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


cdef float heuristic_equity(const Board* b) noexcept nogil:
    cdef float p[H_NOUT]
    heuristic_probs(b, p)
    return probs_equity(p)


cdef int heuristic_choose(const MoveGen* g) noexcept nogil:
    """Index of the child of ``g`` with the highest cubeless equity for the mover."""
    cdef int i, best = 0
    cdef float e, best_e
    if g.n <= 1:
        return 0
    best_e = heuristic_equity(&g.items[0].board)
    for i in range(1, g.n):
        e = heuristic_equity(&g.items[i].board)
        if e > best_e:
            best_e = e
            best = i
    return best


cdef inline void _flip(const float* q, float* p) noexcept nogil:
    p[0] = 1 - q[0]
    p[1] = q[3]
    p[2] = q[4]
    p[3] = q[1]
    p[4] = q[2]


cdef void heuristic_preroll(MoveGen* g, const Board* b, int plies, float* p) noexcept nogil:
    cdef Board s
    cdef float q[H_NOUT]
    cdef int d1, d2, k, idx
    cdef float w
    if plies <= 0:
        board_swap(&s, b)
        heuristic_probs(&s, q)
        _flip(q, p)
        return
    for k in range(H_NOUT):
        p[k] = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            generate(g, b, d1, d2)
            idx = heuristic_choose(g)
            heuristic_probs(&g.items[idx].board, q)
            for k in range(H_NOUT):
                p[k] += w * q[k]
    for k in range(H_NOUT):
        p[k] /= 36.0


# ---------------------------------------------------------------- weights

def weights_path():
    """Where the shipped weights live: ``bgfast/data/weights/heuristic.txt``."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "weights",
                        "heuristic.txt")


def set_weights(weights):
    """Use ``weights``, an array of shape (NCLASS, NOUT, NFEAT) (class 0 contact, 1 race)."""
    arr = np.asarray(weights, dtype=np.float32)
    if arr.shape != (H_NCLASS, H_NOUT, H_NFEAT):
        raise ValueError("heuristic weights must have shape %r, got %r"
                         % ((H_NCLASS, H_NOUT, H_NFEAT), arr.shape))
    cdef int c, o, k
    for c in range(H_NCLASS):
        for o in range(H_NOUT):
            for k in range(H_NFEAT):
                W[c][o][k] = arr[c, o, k]


def get_weights():
    """The weights in use, an array of shape (NCLASS, NOUT, NFEAT)."""
    out = np.zeros((H_NCLASS, H_NOUT, H_NFEAT), dtype=np.float32)
    cdef int c, o, k
    for c in range(H_NCLASS):
        for o in range(H_NOUT):
            for k in range(H_NFEAT):
                out[c, o, k] = W[c][o][k]
    return out


def load_weights(path=None):
    """Load weights from a text file (one row of NFEAT numbers per class and output)."""
    rows = np.loadtxt(path or weights_path(), dtype=np.float64, comments="#", ndmin=2)
    set_weights(rows.reshape(H_NCLASS, H_NOUT, H_NFEAT))


if os.path.exists(weights_path()):
    load_weights()


# ---------------------------------------------------------------- Python entry points

def evaluate_after(const unsigned char[::1] board):
    """Probabilities ``(win, win_gammon, win_bg, lose_gammon, lose_bg)`` of side 1 of a
    50-byte board after side 1's play (side 0 on roll)."""
    cdef Board b
    cdef float p[H_NOUT]
    board_from_bytes(&board[0], &b)
    heuristic_probs(&b, p)
    return (p[0], p[1], p[2], p[3], p[4])


def evaluate_on_roll(const unsigned char[::1] board, int plies=0):
    """Probabilities of side 1 of a 50-byte board with side 1 *on roll* (0 or 1 ply)."""
    cdef Board b
    cdef float p[H_NOUT]
    cdef MoveGen* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    board_from_bytes(&board[0], &b)
    with nogil:
        heuristic_preroll(g, &b, plies, p)
    movegen_free(g)
    return (p[0], p[1], p[2], p[3], p[4])


def features(const unsigned char[::1] board):
    """``(class, features)`` of a 50-byte board after side 1's play: class 0 contact, 1 race."""
    cdef Board b
    out = np.zeros(H_NFEAT, dtype=np.float32)
    cdef float[::1] f = out
    board_from_bytes(&board[0], &b)
    cls = heuristic_features(&b, &f[0])
    return cls, out


cdef int _pick(MoveGen* g, const Board* b, int policy, Rng* r) noexcept nogil:
    cdef int i, best = 0
    cdef float s, best_s
    cdef bint race
    if g.n <= 1:
        return 0
    if policy == 0:
        race = is_race(b)
        best_s = pubeval(race, &g.items[0].board)
        for i in range(1, g.n):
            s = pubeval(race, &g.items[i].board)
            if s > best_s:
                best_s = s
                best = i
        return best
    if policy == 2:
        return rng_below(r, g.n)
    return heuristic_choose(g)


def sample_positions(int games, seed, int policy=1, int stride=1, double explore=0.0):
    """Self-play training data: positions after each play and how the game ended.

    :param policy: 0 pubeval, 1 heuristic plays both sides.
    :param stride: keep every ``stride``-th position of a game.
    :param explore: chance of a random play instead (the positions before it are not kept).
    :returns: ``(X, cls, result)``: features (n, NFEAT) float32, class (n,) int8 and the
        mover's result (n,) int8 in -3..3 (points won, before any cube).
    """
    cdef Rng dice, pick
    cdef Board b
    cdef MoveGen* g = movegen_new()
    cdef int gi, a, c, d1, d2, turn, idx, plies, kind, winner, i, k, cls, mover, n = 0, cap
    cdef int maxp = 2000, first_kept
    cdef float* buf = <float*> PyMem_Malloc(maxp * H_NFEAT * sizeof(float))
    cdef int* bmover = <int*> PyMem_Malloc(maxp * sizeof(int))
    cdef int* bcls = <int*> PyMem_Malloc(maxp * sizeof(int))
    cdef uint32_t ex = <uint32_t> (explore * 4294967295.0)
    cdef bytes key = run_key(seed)
    cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
    if g == NULL or buf == NULL or bmover == NULL or bcls == NULL:
        raise MemoryError()
    cap = games * 30 // stride + 1000
    X = np.zeros((cap, H_NFEAT), dtype=np.float32)
    C = np.zeros(cap, dtype=np.int8)
    Y = np.zeros(cap, dtype=np.int8)
    cdef float[:, ::1] xv
    cdef signed char[::1] cv, yv
    for gi in range(games):
        rng_seed(&dice, kp, gi, 0)
        rng_seed(&pick, kp, gi, 7)
        with nogil:
            memset(&b, 0, sizeof(Board))
            for i in range(2):
                b.side[i][5] = 5
                b.side[i][7] = 3
                b.side[i][12] = 5
                b.side[i][23] = 2
            while True:
                a = rng_die(&dice)
                c = rng_die(&dice)
                if a != c:
                    break
            turn = 0
            d1 = a
            d2 = c
            plies = 0
            first_kept = 0
            while True:
                generate(g, &b, d1, d2)
                if ex and <uint32_t> (rng_next(&pick) >> 32) < ex:
                    idx = rng_below(&pick, g.n)
                    first_kept = plies + 1
                else:
                    idx = _pick(g, &b, policy, &pick)
                memcpy(&b, &g.items[idx].board, sizeof(Board))
                if plies < maxp:
                    bcls[plies] = heuristic_features(&b, buf + plies * H_NFEAT)
                    bmover[plies] = turn
                plies += 1
                if board_checkers(&b, 1) == 0:
                    winner = turn
                    kind = 1
                    if board_checkers(&b, 0) == 15:
                        kind = 2
                        if not _none_back(b.side[0]):
                            kind = 3
                    break
                board_swap(&b, &b)
                turn = 1 - turn
                d1 = rng_die(&dice)
                d2 = rng_die(&dice)
        if plies > maxp:
            plies = maxp
        if n + plies > cap:
            cap = 2 * (n + plies)
            X = np.resize(X, (cap, H_NFEAT))
            C = np.resize(C, cap)
            Y = np.resize(Y, cap)
        xv = X
        cv = C
        yv = Y
        for i in range(first_kept, plies):
            if (plies - 1 - i) % stride:
                continue
            for k in range(H_NFEAT):
                xv[n, k] = buf[i * H_NFEAT + k]
            cv[n] = bcls[i]
            yv[n] = kind if bmover[i] == winner else -kind
            n += 1
    movegen_free(g)
    PyMem_Free(buf)
    PyMem_Free(bmover)
    PyMem_Free(bcls)
    return X[:n].copy(), C[:n].copy(), Y[:n].copy()
