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
- points made, one 0/1 feature per point (their value by location), and one per
  point holding a blot; home-board points, outfield points, anchors in the
  opponent's home board;
- the longest prime and the opponent's checkers trapped behind it; the
  opponent's blocks in the six points in front of the rearmost checker and the
  rolls with which it escapes past every block in the twelve (H. Berliner's
  "escapes", BKG 1980);
- checkers back, outside the home board, the pips to bring them home (the
  gammon features), stacking, a checker on the bar against a strong board;

and for the whole board the race lead (pip counts and Tom Keith's counts,
scaled by the square root of their sum, the usual race formula shape) and a few
products (exposure against a strong board or a prime, back checkers against a
prime, escapes of back checkers, back checkers when ahead or behind).

Four classes of positions have their own weights: contact, race (no checker
has to pass an opposing one; bear-offs included), and contact where one side
has no checker back (bearing in against a holding side, or holding).
Gammons and backgammons that can no longer happen are set to 0 exactly, and a
finished game evaluates exactly.

The weights are data (``bgfast/data/weights/heuristic.txt``), fitted by
logistic regression to the results of 40,000 pubeval self-play games
(``python tools/fit_heuristic.py --start pubeval --rounds 1 --games 40000
--seed 777`` reproduces them; fitting to the heuristic's own games measured
weaker).

Checker play (``heuristic_choose``) evaluates pubeval's best ``filter`` plays
(5 by default) of a roll, a move filter as engines use that keeps the cost per
game near pubeval's, and picks the one with the highest cubeless equity plus
``blend`` (0.03) times its pubeval score: among plausible plays the two
evaluators' errors partly cancel (measured: +0.289 ppg against pubeval with
the equity alone, +0.311 with the blend, 100,000 games each, seed 1).  Without
the filter (``filter=0``) plays are ranked by the equity alone.  The weights,
the filter and the blend are settings of one evaluator (``HeuristicSettings``,
carried by each player of the game loop), not of the process.
"""
import os

import numpy as np

from libc.math cimport expf, sqrtf
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from cpython.mem cimport PyMem_Calloc, PyMem_Free

from bgfast._core.board cimport (
    Board, board_from_bytes, board_checkers, side_has_back_checker, load8, nonzero_bytes,
)
from bgfast._core.movegen cimport MoveGen, MAX_CHILDREN
from bgfast._core.evaluators cimport keith_wastage, pubeval_deltas
from bgfast._core.probs cimport NOUT as P_NOUT, probs_equity
from bgfast._core.topk cimport topk_insert
from bgfast._core.heuristic cimport (
    H_SIDE, H_GLOBAL, H_NFEAT, H_NCLASS, H_ZPAD, H_FILTER_MAX, H_FILTER_ALL, H_DENSE, H_NDENSE,
    WeightTable, HeuristicSettings, SideInfo, DenseRoll,
)

cdef extern from "shots.h":
    void shots_off_bar(uint32_t rest, uint32_t opn, uint32_t blots, int* cnt, int* lost) nogil

cdef extern from *:
    int __builtin_clz(unsigned int x) nogil
    int __builtin_ctz(unsigned int x) nogil

NFEAT = H_NFEAT
DENSE = H_DENSE
NDENSE = H_NDENSE
DENSE_COLUMNS = tuple(range(H_DENSE)) + tuple(range(H_SIDE, H_SIDE + H_DENSE)) + tuple(range(2 * H_SIDE + 1, H_NFEAT))
"""The columns of :func:`features` that :func:`dense_features` holds, in its order."""
NGLOBAL = H_GLOBAL
NCLASS = H_NCLASS
NOUT = P_NOUT
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

cdef enum:
    BARBIT = 1 << 24
    MADE = 22             # f[MADE + i]: the side's point i+1 is made (2+ checkers)
    BLOT = 46             # f[BLOT + i]: a single checker on the side's point i+1

# Rolls of 36 that carry a checker past every block in the 12 points ahead of it:
# bit j of the pattern is the point 12 - j pips ahead (see _escape_table).
cdef uint8_t ESCAPES[4096]
# The shot features of _shots from its counts: rolls of 36 that hit, and the pips they cost
# (each hitting roll the farthest blot's, out of 36 rolls x 24 pips), a table lookup each.
cdef float SHOT_CHANCE[37]
cdef float PIPS_LOST[36 * 24 + 1]


cdef void _escape_table() noexcept nogil:
    cdef int pattern, a, b, s, cnt, far, d, pos
    cdef bint ok, esc
    for pattern in range(4096):
        far = 0
        for d in range(1, 13):
            if (pattern >> (12 - d)) & 1:
                far = d
        if far == 0:
            ESCAPES[pattern] = 36
            continue
        cnt = 0
        for a in range(1, 7):
            for b in range(a, 7):
                esc = False
                if a == b:
                    pos = 0
                    for s in range(4):
                        pos += a
                        if pos <= 12 and (pattern >> (12 - pos)) & 1:
                            break
                        if pos > far:
                            esc = True
                            break
                    if esc:
                        cnt += 1
                else:
                    # a then b, or b then a, through an open landing point
                    ok = not ((pattern >> (12 - a)) & 1)
                    if ok and (a > far or (a + b > far and not (a + b <= 12 and (pattern >> (12 - a - b)) & 1))):
                        esc = True
                    ok = not ((pattern >> (12 - b)) & 1)
                    if ok and (b > far or (a + b > far and not (a + b <= 12 and (pattern >> (12 - a - b)) & 1))):
                        esc = True
                    if esc:
                        cnt += 2
        ESCAPES[pattern] = cnt


_escape_table()


cdef void _shot_tables() noexcept nogil:
    cdef int k
    for k in range(37):
        SHOT_CHANCE[k] = k / 36.0
    for k in range(36 * 24 + 1):
        PIPS_LOST[k] = k / (36.0 * 25.0)


_shot_tables()


# ---------------------------------------------------------------- features

cdef inline int _popcount(uint32_t v) noexcept nogil:
    """Set bits of ``v`` (SWAR: no popcnt instruction on baseline x86-64)."""
    v = v - ((v >> 1) & 0x55555555u)
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u)
    return <int> ((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24)


cdef inline int _top_bit(uint32_t h) noexcept nogil:
    return 31 - __builtin_clz(h)


cdef inline uint32_t _double_hits(uint32_t h, uint32_t c, int a, int steps, uint32_t opn,
                                  uint32_t blots) noexcept nogil:
    """The blots ``h`` hit so far, and those a checker from ``c`` hits in ``steps`` more
    steps of ``a`` over open points (one checker playing a double)."""
    cdef int s
    for s in range(steps):
        c = (c >> a) & opn
        h |= c & blots
    return h


cdef float _shots(uint32_t src, int ybar, uint32_t blots, uint32_t opn, float* loss) noexcept nogil:
    """Chance (of 36 rolls) that the side on roll hits a blot; ``loss`` = mean pips lost / 25.

    Coordinates are those of the side on roll (bit i = its point i+1, bit 24 =
    its bar; it moves towards bit 0): ``src`` its checkers (bar included),
    ``blots`` the opponent's blots, ``opn`` the points not blocked by the opponent.
    A checker on the bar enters first; with two or more there, only entering
    checkers hit (a non-double).
    """
    cdef int a, b, nenter, cnt = 0, lost = 0
    cdef uint32_t h, ea, eb, rest = src & ~(<uint32_t> BARBIT)
    if blots == 0 or src < ((blots & (~blots + 1)) << 1):
        loss[0] = 0          # no blot, or every checker of the side on roll is past every blot
        return 0
    if ybar == 0:
        shots_off_bar(rest, opn, blots, &cnt, &lost)     # the 21 rolls side by side
    else:
        for a in range(1, 7):
            ea = (<uint32_t> BARBIT >> a) & opn
            if ea:
                nenter = ybar if ybar < 4 else 4
                h = _double_hits(ea & blots, rest | ea, a, 4 - nenter, opn, blots)
                if h:
                    cnt += 1
                    lost += _top_bit(h) + 1
            for b in range(a + 1, 7):
                eb = (<uint32_t> BARBIT >> b) & opn
                h = (ea | eb) & blots
                if ybar == 1:
                    if ea:
                        h |= ((rest | ea) >> b) & opn & blots
                    if eb:
                        h |= ((rest | eb) >> a) & opn & blots
                if h:
                    cnt += 2
                    lost += 2 * (_top_bit(h) + 1)
    loss[0] = PIPS_LOST[lost]
    return SHOT_CHANCE[cnt]


cdef inline uint32_t _reverse24(uint32_t v) noexcept nogil:
    """Bit i -> bit 23 - i: from one side's point numbering to the other's."""
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1)
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2)
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4)
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8)
    v = (v >> 16) | (v << 16)
    return v >> 8


cdef inline int _byte_sum(uint64_t w) noexcept nogil:
    """The sum of the eight bytes of ``w`` (a side's counts: at most 15 in all, so no byte
    of the product carries)."""
    return <int> ((w * 0x0101010101010101ULL) >> 56)


cdef inline int _byte_index_sum(uint64_t w) noexcept nogil:
    """The sum of k times byte k of ``w`` (at most 7 x 15: no byte of the product carries)."""
    return <int> ((w * 0x0001020304050607ULL) >> 56)


cdef inline uint64_t _excess3(uint64_t w) noexcept nogil:
    """Each byte ``n`` of ``w`` (at most 15) replaced by ``max(n - 3, 0)``."""
    cdef uint64_t t = (w | 0x8080808080808080ULL) - 0x0303030303030303ULL
    return t & 0x7F7F7F7F7F7F7F7FULL & (((t & 0x8080808080808080ULL) >> 7) * 0xFF)


cdef inline void _side_masks(const uint8_t* x, SideInfo* out) noexcept nogil:
    """The masks, pip count, home points and rearmost checker of side ``x``, eight points at a time."""
    cdef uint64_t w0 = load8(x), w1 = load8(x + 8), w2 = load8(x + 16)
    cdef uint32_t occ = nonzero_bytes(w0) | (nonzero_bytes(w1) << 8) | (nonzero_bytes(w2) << 16)
    cdef uint32_t made = (nonzero_bytes(w0 & 0xFEFEFEFEFEFEFEFEULL) | (nonzero_bytes(w1 & 0xFEFEFEFEFEFEFEFEULL) << 8)
                          | (nonzero_bytes(w2 & 0xFEFEFEFEFEFEFEFEULL) << 16))    # 2 or more checkers
    cdef uint32_t blots = occ & ~made
    cdef int n = x[24]
    out.made = made
    out.blots = blots
    out.occ = occ | ((<uint32_t> (n != 0)) << 24)
    out.rmade = _reverse24(made)
    out.rblots = _reverse24(blots)
    out.pips = (_byte_sum(w0) + _byte_index_sum(w0) + 9 * _byte_sum(w1) + _byte_index_sum(w1)
                + 17 * _byte_sum(w2) + _byte_index_sum(w2) + 25 * n)
    out.rear = _top_bit(out.occ) if out.occ else -1
    out.home = _popcount(made & 0x3F)


cdef inline void _side_own(const uint8_t* x, SideInfo* sx, float* f) noexcept nogil:
    """The dense features of side ``x`` that its own checkers fix (after :func:`_side_masks`):
    ``f[0..5]``, ``f[9..15]``, ``f[17]``, ``f[18]``, ``f[20]``; and its prime and Keith count."""
    cdef uint64_t w0 = load8(x), w1 = load8(x + 8), w2 = load8(x + 16)
    cdef uint64_t home6 = w0 & 0xFFFFFFFFFFFFULL
    cdef int i, n = x[24], home = _byte_sum(home6)
    cdef int board = _byte_sum(w0) + _byte_sum(w1) + _byte_sum(w2)
    cdef int outside = board - home                                # points 7..24
    cdef int off = 15 - board - n
    cdef int far = _byte_sum(w1 >> 32) + _byte_sum(w2) + n         # points 13..24 and the bar
    cdef int back = _byte_sum(w2 >> 16) + n                        # points 19..24 and the bar
    cdef int stack = _byte_sum(_excess3(w0)) + _byte_sum(_excess3(w1)) + _byte_sum(_excess3(w2))
    # pips to bring the checkers outside home in: the pips of points 7..24, less 6 each, and 19 from the bar
    cdef int to_home = sx.pips - 25 * n - home - _byte_index_sum(home6) - 6 * outside + 19 * n
    cdef int best = 0, best_lo = 0
    cdef uint32_t m = sx.made
    outside += n
    # the longest prime: after k steps of m &= m >> 1, bit i is set iff points i..i+k are made
    while m:
        best += 1
        m &= m >> 1
    if best >= 3:
        m = sx.made
        for i in range(best - 1):
            m &= m >> 1
        best_lo = __builtin_ctz(m)
    sx.prime = best
    sx.prime_lo = best_lo
    f[0] = sx.pips * 0.01
    f[1] = off * (1.0 / 15.0)
    f[2] = (n if n < 4 else 4) * 0.5
    f[3] = sx.home * (1.0 / 6.0)
    f[4] = best * (1.0 / 6.0)
    f[5] = (best - 3) * (1.0 / 3.0) if best >= 4 else 0.0
    f[9] = _popcount(sx.blots) * 0.2
    f[10] = _popcount(sx.blots & 0x3F) * (1.0 / 3.0)
    f[11] = back * 0.2
    f[12] = _popcount(sx.made & 0xFC0000) * 0.5
    f[13] = to_home * 0.01
    f[14] = outside * (1.0 / 15.0)
    f[15] = stack * 0.2
    f[17] = far * (1.0 / 15.0)
    f[18] = _popcount(sx.made & 0xFC0) * (1.0 / 6.0)
    f[20] = 1.0 if n else 0.0
    sx.keith = sx.pips + keith_wastage(x)     # Tom Keith's count


cdef inline void _side_cross(const uint8_t* x, const uint8_t* y, const SideInfo* sx, const SideInfo* sy,
                             float* f) noexcept nogil:
    """The dense features of side ``x`` that depend on ``y``'s checkers too (each array in
    its own side's view; ``y`` is on roll when ``x`` is side 1): ``f[6..8]``, ``f[16]``,
    ``f[19]``, ``f[21]``."""
    cdef int i, trapped = 0, rear = sx.rear, best = sx.prime, pattern, yhome = sy.home, n = x[24]
    cdef uint32_t yblock = sy.rmade
    cdef float loss = 0, hit
    if best >= 3:
        for i in range(24 - sx.prime_lo, 25):     # y's checkers behind the prime, y's numbering
            trapped += y[i]
    # the 12 points in front of the rearmost checker: blocks and escaping rolls
    pattern = 0
    if rear >= 12:
        pattern = (yblock >> (rear - 12)) & 0xFFF
    elif rear >= 0:
        pattern = (yblock << (12 - rear)) & 0xFFF
    # y (to roll) hits x's blots: y's coordinates; x's made points block
    hit = _shots(sy.occ, y[24], sx.rblots, ~sx.rmade, &loss)
    f[6] = trapped * (best - 2) * (1.0 / 20.0) if best >= 3 else 0.0
    f[7] = hit
    f[8] = loss
    f[16] = (n if n < 2 else 2) * 0.5 * (yhome * yhome) * (1.0 / 36.0)
    f[19] = _popcount(pattern & 0xFC0) * (1.0 / 6.0)
    f[21] = ESCAPES[pattern] * (1.0 / 36.0) if rear >= 6 else 1.0


cdef inline void _globals(const SideInfo* s1, const SideInfo* s0, const float* f1, const float* f0,
                          float* g) noexcept nogil:
    """The global features but the constant, from both sides' dense features ``f1`` (side 1,
    the mover) and ``f0``: ``g[0..13]``."""
    cdef int p1 = s1.pips, p0 = s0.pips, k1 = s1.keith, k0 = s0.keith
    g[0] = (p0 - p1) / sqrtf(<float> (p0 + p1 + 1))
    g[1] = (p0 - p1) * 0.01
    g[2] = (k0 - k1) / sqrtf(<float> (k0 + k1 + 1))
    g[3] = f1[7] * s0.home * (1.0 / 6.0)
    g[4] = f0[7] * s1.home * (1.0 / 6.0)
    # interactions: exposure against a strong board or a prime, back checkers and primes,
    # escaping back checkers, back checkers when ahead or behind in the race, a hit with
    # the opponent still on the bar
    g[5] = f1[7] * f0[3] * f0[3]
    g[6] = f1[7] * f0[4]
    g[7] = f1[11] * f0[4]
    g[8] = f0[11] * f1[4]
    g[9] = f1[21] * f1[11]
    g[10] = f0[21] * f0[11]
    g[11] = g[1] * f1[11]
    g[12] = g[1] * f0[11]
    g[13] = f1[7] * f0[20]


cdef inline int _class(const SideInfo* s1, const SideInfo* s0) noexcept nogil:
    if s1.rear < 0 or s0.rear < 0 or s1.rear < 23 - s0.rear:
        return 1          # race: no checker has an opposing one ahead of it
    if s1.rear < 18:
        return 2          # side 1 has no checker back: bearing in against a holding side
    if s0.rear < 18:
        return 3
    return 0


cdef inline int _features(const Board* b, float* f, SideInfo* s1, SideInfo* s0) noexcept nogil:
    """Dense features (the indicators are left to the caller) and the class."""
    _side_masks(b.side[1], s1)
    _side_masks(b.side[0], s0)
    _side_own(b.side[1], s1, f)
    _side_own(b.side[0], s0, f + H_SIDE)
    _side_cross(b.side[1], b.side[0], s1, s0, f)
    _side_cross(b.side[0], b.side[1], s0, s1, f + H_SIDE)
    f[2 * H_SIDE] = 1.0
    _globals(s1, s0, f, f + H_SIDE, f + 2 * H_SIDE + 1)
    return _class(s1, s0)


cdef inline void _indicators(const SideInfo* s, float* f) noexcept nogil:
    cdef uint32_t m = s.made, bl = s.blots
    while m:
        f[MADE + __builtin_ctz(m)] = 1
        m &= m - 1
    while bl:
        f[BLOT + __builtin_ctz(bl)] = 1
        bl &= bl - 1


cdef int heuristic_features(const Board* b, float* f) noexcept nogil:
    """Fill ``f`` (``H_NFEAT`` floats) for ``b`` after side 1's play; return the class:
    0 contact, 1 race, 2 contact where side 1 has no checker back, 3 where side 0 has none."""
    cdef SideInfo s1, s0
    cdef int cls
    memset(f, 0, H_NFEAT * sizeof(float))
    cls = _features(b, f, &s1, &s0)
    _indicators(&s1, f)
    _indicators(&s0, f + H_SIDE)
    return cls


cdef void heuristic_dense(const Board* b, float* v) noexcept nogil:
    """The dense features of ``b`` after side 1's play, as :func:`heuristic_features` has them
    (the same values), without the 0/1 indicators and the constant: ``v[0 .. H_DENSE - 1]``
    side 1's block, then side 0's, then the global features ``f[2 H_SIDE + 1 ..]``."""
    cdef SideInfo s1, s0
    _side_masks(b.side[1], &s1)
    _side_masks(b.side[0], &s0)
    _side_own(b.side[1], &s1, v)
    _side_own(b.side[0], &s0, v + H_DENSE)
    _side_cross(b.side[1], b.side[0], &s1, &s0, v)
    _side_cross(b.side[0], b.side[1], &s0, &s1, v + H_DENSE)
    _globals(&s1, &s0, v, v + H_DENSE, v + 2 * H_DENSE)


cdef void heuristic_dense_roll(const Board* parent, DenseRoll* r) noexcept nogil:
    """What :func:`heuristic_dense_child` reuses for the children of ``parent`` (side 1 to
    play): side 0's masks and its own features."""
    _side_masks(parent.side[0], &r.s0)
    _side_own(parent.side[0], &r.s0, r.own0)
    r.bar0 = parent.side[0][24]


cdef void heuristic_dense_child(const DenseRoll* r, const Board* child, float* v) noexcept nogil:
    """:func:`heuristic_dense` of ``child``, a play from the parent of ``r``.  Side 0's
    checkers are the parent's unless the play hit (then its bar holds more)."""
    cdef SideInfo s1, s0
    if child.side[0][24] == r.bar0:
        s0 = r.s0
        memcpy(v + H_DENSE, r.own0, H_DENSE * sizeof(float))
    else:
        _side_masks(child.side[0], &s0)
        _side_own(child.side[0], &s0, v + H_DENSE)
    _side_masks(child.side[1], &s1)
    _side_own(child.side[1], &s1, v)
    _side_cross(child.side[1], child.side[0], &s1, &s0, v)
    _side_cross(child.side[0], child.side[1], &s0, &s1, v + H_DENSE)
    _globals(&s1, &s0, v, v + H_DENSE, v + 2 * H_DENSE)


cdef inline float _sigmoid(float z) noexcept nogil:
    if z > 30:
        z = 30
    elif z < -30:
        z = -30
    return 1.0 / (1.0 + expf(-z))


cdef inline void _add_indicator_rows(const WeightTable* table, int cls, int first, uint32_t mask,
                                     float* acc) noexcept nogil:
    """Add to ``acc`` the weight rows ``first + i`` of class ``cls`` for each bit ``i`` set in ``mask``."""
    cdef const float* w
    cdef int o
    while mask:
        w = &table.w[cls][first + __builtin_ctz(mask)][0]
        mask &= mask - 1
        for o in range(H_ZPAD):
            acc[o] += w[o]


cdef void heuristic_probs(const WeightTable* table, const Board* b, float* p) noexcept nogil:
    """Probabilities of side 1's results after its play; ``p[0..4]`` = win, win gammon,
    win backgammon, lose gammon, lose backgammon (the gammons include backgammons)."""
    cdef float f[H_NFEAT]
    cdef float z[H_ZPAD]
    cdef float za[H_ZPAD]
    cdef SideInfo s1, s0
    cdef int o, k, cls
    cdef uint32_t m
    cdef float fk
    cdef const float* w
    cdef int left1 = board_checkers(b, 1), left0 = board_checkers(b, 0)
    if left1 == 0:
        p[0] = 1
        p[1] = 1 if left0 == 15 else 0
        p[2] = 1 if left0 == 15 and side_has_back_checker(b.side[0]) else 0
        p[3] = 0
        p[4] = 0
        return
    cls = _features(b, f, &s1, &s0)
    for o in range(H_ZPAD):
        z[o] = 0
        za[o] = 0
    # dense features: the first H_DENSE of each side and the globals
    for k in range(H_DENSE):
        fk = f[k]
        w = &table.w[cls][k][0]
        for o in range(H_ZPAD):
            z[o] += fk * w[o]
        fk = f[H_SIDE + k]
        w = &table.w[cls][H_SIDE + k][0]
        for o in range(H_ZPAD):
            za[o] += fk * w[o]
    for k in range(2 * H_SIDE, H_NFEAT):
        fk = f[k]
        w = &table.w[cls][k][0]
        for o in range(H_ZPAD):
            z[o] += fk * w[o]
    # 0/1 indicators: add the weights of those set
    _add_indicator_rows(table, cls, MADE, s1.made, z)
    _add_indicator_rows(table, cls, BLOT, s1.blots, za)
    _add_indicator_rows(table, cls, H_SIDE + MADE, s0.made, z)
    _add_indicator_rows(table, cls, H_SIDE + BLOT, s0.blots, za)
    for o in range(P_NOUT):
        p[o] = _sigmoid(z[o] + za[o])
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
        if s0.rear < 18:
            p[2] = 0
        if s1.rear < 18:
            p[4] = 0


cdef float heuristic_equity(const WeightTable* table, const Board* b) noexcept nogil:
    """Cubeless money equity of side 1 of ``b`` after its play (see :func:`heuristic_probs`)."""
    cdef float p[P_NOUT]
    heuristic_probs(table, b, p)
    return probs_equity(p)


DEFAULT_FILTER = 5
"""Plays a roll the heuristic bot evaluates by default (pubeval's best five)."""
DEFAULT_BLEND = 0.03
"""The default weight of pubeval's score beside the equity among the kept plays."""
FILTER_MAX = H_FILTER_MAX
"""The most plays the move filter keeps (``filter=0`` keeps them all)."""


cdef int heuristic_choose(const HeuristicSettings* s, const MoveGen* g, const Board* parent) noexcept nogil:
    """Index of the child of ``g`` (generated from ``parent``) that the heuristic plays.

    With at most ``s.filter`` children, the one with the highest cubeless equity.
    With more, only pubeval's ``s.filter`` best are evaluated (a move filter: pubeval
    is an order of magnitude cheaper than the evaluator), ranked by the equity
    plus ``s.blend`` times the pubeval score."""
    cdef int i, k, n = g.n, best = 0, kept = 0
    cdef int keep = s.filter
    cdef float e, best_e, blend = s.blend
    cdef const WeightTable* w = s.weights
    cdef int top[H_FILTER_MAX]
    cdef float topsc[H_FILTER_MAX]
    cdef float scores[MAX_CHILDREN]
    if n <= 1:
        return 0
    if n <= keep:
        best_e = heuristic_equity(w, &g.items[0].board)
        for i in range(1, n):
            e = heuristic_equity(w, &g.items[i].board)
            if e > best_e:
                best_e = e
                best = i
        return best
    pubeval_deltas(g, parent, scores)
    for i in range(n):
        kept = topk_insert(topsc, top, kept, keep, scores[i], i)
    best = top[0]
    best_e = heuristic_equity(w, &g.items[best].board) + blend * topsc[0]
    for k in range(1, kept):
        e = heuristic_equity(w, &g.items[top[k]].board) + blend * topsc[k]
        if e > best_e:
            best_e = e
            best = top[k]
    return best


# ---------------------------------------------------------------- weights

def weights_path():
    """Where the shipped weights live: ``bgfast/data/weights/heuristic.txt``."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "weights",
                        "heuristic.txt")


cdef class HeuristicWeights:
    """One set of the evaluator's weights, in C memory; an evaluator points to it.

    :param weights: an array of shape ``(NCLASS, NOUT, NFEAT)`` (classes as :func:`features`,
        outputs as :data:`OUTPUTS`): the logistic weights of each class and output.
    :raises ValueError: another shape, or a value that is not a finite number.
    """

    def __cinit__(self, weights):
        self.table = NULL
        arr = np.asarray(weights, dtype=np.float32)
        if arr.shape != (H_NCLASS, P_NOUT, H_NFEAT):
            raise ValueError("heuristic weights must have shape %r, got %r"
                             % ((H_NCLASS, P_NOUT, H_NFEAT), arr.shape))
        if not np.isfinite(arr).all():
            raise ValueError("heuristic weights must be finite numbers")
        self.table = <WeightTable*> PyMem_Calloc(1, sizeof(WeightTable))
        if self.table == NULL:
            raise MemoryError()
        cdef const float[:, :, ::1] v = np.ascontiguousarray(arr)
        cdef int c, o, k
        for c in range(H_NCLASS):
            for o in range(P_NOUT):
                for k in range(H_NFEAT):
                    self.table.w[c][k][o] = v[c, o, k]

    def __dealloc__(self):
        PyMem_Free(self.table)

    def __reduce__(self):
        return (HeuristicWeights, (self.to_array(),))

    def to_array(self):
        """The weights, an array of shape ``(NCLASS, NOUT, NFEAT)``."""
        out = np.zeros((H_NCLASS, P_NOUT, H_NFEAT), dtype=np.float32)
        cdef float[:, :, ::1] v = out
        cdef int c, o, k
        for c in range(H_NCLASS):
            for o in range(P_NOUT):
                for k in range(H_NFEAT):
                    v[c, o, k] = self.table.w[c][k][o]
        return out


def read_weights(path=None):
    """Weights from a text file: ``NCLASS * NOUT`` rows of ``NFEAT`` numbers (``#`` comments).

    :param path: the file; the shipped weights (:func:`weights_path`) by default.
    :raises ValueError: a file that cannot be read, text that is not numbers, or
        another number of rows or columns (the message names the file).
    """
    path = weights_path() if path is None else os.fspath(path)
    try:
        rows = np.loadtxt(path, dtype=np.float64, comments="#", ndmin=2)
    except OSError as exc:
        raise ValueError("cannot read heuristic weights %r: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise ValueError("heuristic weights %r are not rows of numbers: %s" % (path, exc)) from None
    if rows.shape != (H_NCLASS * P_NOUT, H_NFEAT):
        raise ValueError("heuristic weights %r have %d rows of %d numbers; this evaluator needs %d rows of %d"
                         % (path, rows.shape[0], rows.shape[1], H_NCLASS * P_NOUT, H_NFEAT))
    return HeuristicWeights(rows.reshape(H_NCLASS, P_NOUT, H_NFEAT))


# ---------------------------------------------------------------- Python entry points

def features(const unsigned char[::1] board):
    """``(class, features)`` of a 50-byte board after side 1's play: class 0 contact, 1 race,
    2 contact with no checker of side 1 back, 3 with none of side 0 back."""
    cdef Board b
    out = np.zeros(H_NFEAT, dtype=np.float32)
    cdef float[::1] f = out
    board_from_bytes(&board[0], &b)
    cls = heuristic_features(&b, &f[0])
    return cls, out


def dense_features(const unsigned char[:, ::1] boards):
    """The dense features of each board (rows of 50 bytes, after side 1's play) as the
    neural net reads them: an (n, ``NDENSE``) float32 array, side 1's ``DENSE`` features,
    side 0's, then the global features but the constant.  The same values as the columns
    ``DENSE_COLUMNS`` of :func:`features_batch`.

    :raises ValueError: rows that are not 50 bytes.
    """
    if boards.shape[1] != 50:
        raise ValueError("boards must be rows of 50 bytes, got %d" % boards.shape[1])
    cdef Py_ssize_t i, n = boards.shape[0]
    X = np.zeros((n, H_NDENSE), dtype=np.float32)
    cdef float[:, ::1] xv = X
    cdef Board b
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            heuristic_dense(&b, &xv[i, 0])
    return X


def dense_features_roll(const unsigned char[::1] parent, const unsigned char[:, ::1] children):
    """:func:`dense_features` of plays from ``parent`` (50 bytes, side 1 to play), computed
    as the net computes those of one roll (the side on roll's own features once, reused
    where a play does not hit).

    :param children: rows of 50 bytes, each a play from ``parent`` (the mover's frame).
    :raises ValueError: rows that are not 50 bytes, or a child with no more checkers on
        side 0's bar than the parent has but another side 0 (not a play from it).
    """
    if parent.shape[0] != 50 or children.shape[1] != 50:
        raise ValueError("boards are 50 bytes")
    cdef Py_ssize_t i, n = children.shape[0]
    cdef Board p, b
    cdef DenseRoll r
    cdef int j
    X = np.zeros((n, H_NDENSE), dtype=np.float32)
    cdef float[:, ::1] xv = X
    board_from_bytes(&parent[0], &p)
    for i in range(n):
        if children[i, 24] == parent[24]:
            for j in range(25):
                if children[i, j] != parent[j]:
                    raise ValueError("child %d: side 0 differs from the parent's without a hit" % i)
    heuristic_dense_roll(&p, &r)
    with nogil:
        for i in range(n):
            board_from_bytes(&children[i, 0], &b)
            heuristic_dense_child(&r, &b, &xv[i, 0])
    return X


def features_batch(const unsigned char[:, ::1] boards):
    """:func:`features` of many boards: ``(classes, X)``, shapes (n,) int8 and (n, NFEAT) float32.

    :param boards: ``uint8`` array of shape (n, 50), each row a board after side 1's play.
    :raises ValueError: rows that are not 50 bytes.
    """
    if boards.shape[1] != 50:
        raise ValueError("boards must be rows of 50 bytes, got %d" % boards.shape[1])
    cdef Py_ssize_t i, n = boards.shape[0]
    X = np.zeros((n, H_NFEAT), dtype=np.float32)
    C = np.zeros(n, dtype=np.int8)
    cdef float[:, ::1] xv = X
    cdef signed char[::1] cv = C
    cdef Board b
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            cv[i] = <signed char> heuristic_features(&b, &xv[i, 0])
    return C, X
