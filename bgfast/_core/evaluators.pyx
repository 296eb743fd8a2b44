# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""Built-in position evaluators, in C.

``pubeval`` is Tesauro's public evaluation function (G. Tesauro, "pubeval.c",
IBM Research, 1993, posted to rec.games.backgammon and kept with GNU
Backgammon): a linear score over a raw encoding of the board, with separate
published weights for race and contact positions.  Higher is better for the
side that has just moved (``side[1]`` of the board after the move).

``keith_count`` is Tom Keith's race count ("The Keith Count", bkgm.com, 2004):
the pip count plus 2 for each checker beyond 1 on the ace point, 1 for each
checker beyond 1 on the deuce point, 1 for each checker beyond 3 on the trey
point, and 1 for each empty point among the 4, 5 and 6 points.
"""
from libc.stdint cimport uint8_t
from libc.stdint cimport uint32_t, uint64_t
from bgfast._core.board cimport Board, BAR, board_from_bytes, load8, nonzero_bytes, nonzero_bytes_reversed
from bgfast._core.movegen cimport MoveGen, Child

# Tesauro's published weights, indexed [5 * (24 - point) + k] for points 24..1,
# k = opponent blot, own blot, own point made, exactly 3 own, own checkers beyond 3;
# then [120] the opponent's checkers on the bar and [121] the checkers borne off.
cdef float PUBEVAL_RACE[122]
cdef float PUBEVAL_CONTACT[122]

_RACE = (
    .00000, -.17160, .27010, .29906, -.08471, .00000, -1.40375,
    -1.05121, .07217, -.01351, .00000, -1.29506, -2.16183, .13246,
    -1.03508, .00000, -2.29847, -2.34631, .17253, .08302, .00000,
    -1.27266, -2.87401, -.07456, -.34240, .00000, -1.34640, -2.46556,
    -.13022, -.01591, .00000, .27448, .60015, .48302, .25236, .00000,
    .39521, .68178, .05281, .09266, .00000, .24855, -.06844, -.37646,
    .05685, .00000, .17405, .00430, .74427, .00576, .00000, .12392,
    .31202, -.91035, -.16270, .00000, .01418, -.10839, -.02781, -.88035,
    .00000, 1.07274, 2.00366, 1.16242, .22520, .00000, .85631, 1.06349,
    1.49549, .18966, .00000, .37183, -.50352, -.14818, .12039, .00000,
    .13681, .13978, 1.11245, -.12707, .00000, -.22082, .20178, -.06285,
    -.52728, .00000, -.13597, -.19412, -.09308, -1.26062, .00000, 3.05454,
    5.16874, 1.50680, 5.35000, .00000, 2.19605, 3.85390, .88296, 2.30052,
    .00000, .92321, 1.08744, -.11696, -.78560, .00000, -.09795, -.83050,
    -1.09167, -4.94251, .00000, -1.00316, -3.66465, -2.56906, -9.67677,
    .00000, -2.77982, -7.26713, -3.40177, -12.32252, .00000, 3.42040,
)
_CONTACT = (
    .25696, -.66937, -1.66135, -2.02487, -2.53398, -.16092, -1.11725,
    -1.06654, -.92830, -1.99558, -1.10388, -.80802, .09856, -.62086,
    -1.27999, -.59220, -.73667, .89032, -.38933, -1.59847, -1.50197,
    -.60966, 1.56166, -.47389, -1.80390, -.83425, -.97741, -1.41371,
    .24500, .10970, -1.36476, -1.05572, 1.15420, .11069, -.38319, -.74816,
    -.59244, .81116, -.39511, .11424, -.73169, -.56074, 1.09792, .15977,
    .13786, -1.18435, -.43363, 1.06169, -.21329, .04798, -.94373, -.22982,
    1.22737, -.13099, -.06295, -.75882, -.13658, 1.78389, .30416, .36797,
    -.69851, .13003, 1.23070, .40868, -.21081, -.64073, .31061, 1.59554,
    .65718, .25429, -.80789, .08240, 1.78964, .54304, .41174, -1.06161,
    .07851, 2.01451, .49786, .91936, -.90750, .05941, 1.83120, .58722,
    1.28777, -.83711, -.33248, 2.64983, .52698, .82132, -.58897, -1.18223,
    3.35809, .62017, .57353, -.07276, -.36214, 4.37655, .45481, .21746,
    .10504, -.61977, 3.54001, .04612, -.18108, .63211, -.87046, 2.47673,
    -.48016, -1.27157, .86505, -1.11342, 1.24612, -.82385, -2.77082,
    1.23606, -1.59529, .10438, -1.30206, -4.11520, 5.62596, -2.75800,
)
for _i in range(122):
    PUBEVAL_RACE[_i] = _RACE[_i]
    PUBEVAL_CONTACT[_i] = _CONTACT[_i]


cdef bint is_race(const Board* b) noexcept nogil:
    """True when no checker of one side still has to pass a checker of the other."""
    cdef int mover_back = -1, opp_back = -1, i
    for i in range(BAR, -1, -1):
        if b.side[1][i]:
            mover_back = i
            break
    for i in range(BAR, -1, -1):
        if b.side[0][i]:
            opp_back = i
            break
    if mover_back < 0 or opp_back < 0:
        return True
    return mover_back < 23 - opp_back


# PUBEVAL_TABLE[race][point - 1][code]: the weights of one point folded into one number,
# code = the mover's checkers there (0..15), or 16 for a lone opposing checker (a blot).
cdef float PUBEVAL_TABLE[2][24][17]


cdef void _fold_pubeval_weights() noexcept nogil:
    cdef int race, point, n, base
    cdef const float* w
    cdef float v
    for race in range(2):
        w = &PUBEVAL_RACE[0] if race else &PUBEVAL_CONTACT[0]
        for point in range(1, 25):
            base = 5 * (24 - point)
            for n in range(16):
                v = 0
                if n == 1:
                    v = w[base + 1]
                elif n >= 2:
                    v = w[base + 2]
                    if n == 3:
                        v += w[base + 3]
                    elif n >= 4:
                        v += w[base + 4] * <float> (n - 3) * <float> 0.5
                PUBEVAL_TABLE[race][point - 1][n] = v
            PUBEVAL_TABLE[race][point - 1][16] = w[base]


_fold_pubeval_weights()


cdef float pubeval(bint race, const Board* b) noexcept nogil:
    """Tesauro's pubeval score of ``b`` for side 1, the side that has just moved.

    ``race`` is whether the position *before* the move was a race, as Tesauro specifies.
    The per-point weights are folded into one table lookup a point.
    """
    cdef const float* w = &PUBEVAL_CONTACT[0]
    cdef const uint8_t* me = b.side[1]
    cdef const uint8_t* opp = b.side[0]
    cdef int r = 1 if race else 0
    cdef int i, n, on_board = 0
    cdef float score = 0
    if race:
        w = &PUBEVAL_RACE[0]
    for i in range(24):
        n = me[i]
        on_board += n
        if n == 0 and opp[23 - i] == 1:
            n = 16
        score += PUBEVAL_TABLE[r][i][n]
    on_board += me[BAR]
    if on_board == 0:
        return 99999999.0
    score += w[120] * <float> opp[BAR] * <float> 0.5
    score += w[121] * <float> (15 - on_board) / <float> 15.0
    return score


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


ctypedef struct _PubevalParent:
    int race                  # 1: race weights
    const float* table        # PUBEVAL_TABLE[race], 24 x 17
    const Board* board
    int on_board              # the mover's checkers not yet borne off
    double bar_weight         # per opposing checker on the bar
    double off_weight         # per checker borne off
    float value[24]           # each point's table value before the play


cdef inline int _point_code(const Board* b, int i) noexcept nogil:
    """The table code of the mover's point ``i + 1``: its checkers, or 16 for an opposing blot."""
    cdef int n = b.side[1][i]
    return n | (<int> (n == 0) & <int> (b.side[0][23 - i] == 1)) << 4


cdef inline int _checkers_on(const uint8_t* side) noexcept nogil:
    """The checkers a side still has on its 24 points and the bar (at most 15 a side)."""
    cdef uint64_t words = load8(side) + load8(side + 8) + load8(side + 16)
    return <int> ((words * 0x0101010101010101ULL) >> 56) + side[BAR]


cdef inline void _pubeval_parent(const Board* parent, _PubevalParent* pp) noexcept nogil:
    cdef int i
    cdef const float* w
    pp.race = 1 if is_race(parent) else 0
    w = &PUBEVAL_RACE[0] if pp.race else &PUBEVAL_CONTACT[0]
    pp.table = &PUBEVAL_TABLE[pp.race][0][0]
    pp.board = parent
    pp.on_board = _checkers_on(parent.side[1])
    pp.bar_weight = <double> w[120] * 0.5
    pp.off_weight = <double> w[121] / 15.0
    for i in range(24):
        pp.value[i] = pp.table[17 * i + _point_code(parent, i)]


cdef inline double _pubeval_delta(const _PubevalParent* pp, const Child* c) noexcept nogil:
    """Pubeval score of child ``c`` minus its parent's, over the points the play touched
    (those where either side's count changed); 1e9 for a play that bears off the last checker."""
    cdef const Board* b = &c.board
    cdef const uint8_t* pme = pp.board.side[1]
    cdef const uint8_t* popp = pp.board.side[0]
    cdef uint32_t touched = 0
    cdef int i, borne
    cdef double delta = 0
    for i in range(3):
        touched |= nonzero_bytes(load8(b.side[1] + 8 * i) ^ load8(pme + 8 * i)) << (8 * i)
        touched |= nonzero_bytes_reversed(load8(b.side[0] + 8 * i) ^ load8(popp + 8 * i)) << (16 - 8 * i)
    borne = pp.on_board - _checkers_on(b.side[1])
    if borne == pp.on_board:
        return 1e9                              # all checkers off: the best play there is
    while touched:
        i = __builtin_ctz(touched)
        touched &= touched - 1
        delta += pp.table[17 * i + _point_code(b, i)]
        delta -= pp.value[i]
    return delta + pp.bar_weight * (b.side[0][BAR] - popp[BAR]) + pp.off_weight * borne


cdef int pubeval_choose(const MoveGen* g, const Board* parent) noexcept nogil:
    """The index of the child of ``g`` (generated from ``parent``) with the best pubeval score.

    Only the points a play touched change its score, so each child is scored by
    the difference from ``parent`` over those points (the same argmax as scoring
    every child in full, at a fraction of the cost).  Ties go to the first child.
    """
    cdef _PubevalParent pp
    cdef int k, best = 0
    cdef double delta, best_delta = 0
    _pubeval_parent(parent, &pp)
    for k in range(g.n):
        delta = _pubeval_delta(&pp, &g.items[k])
        if delta >= 1e9:
            return k
        if k == 0 or delta > best_delta:
            best_delta = delta
            best = k
    return best


cdef void pubeval_deltas(const MoveGen* g, const Board* parent, float* out) noexcept nogil:
    """``out[k]`` = pubeval score of child ``k`` of ``g`` minus that of ``parent`` (as in
    :func:`pubeval_choose`, over the touched points only); a play bearing off the last
    checker gets 1e9."""
    cdef _PubevalParent pp
    cdef int k
    _pubeval_parent(parent, &pp)
    for k in range(g.n):
        out[k] = <float> _pubeval_delta(&pp, &g.items[k])


cdef int keith_count(const Board* b, int side) noexcept nogil:
    cdef const uint8_t* s = b.side[side]
    cdef int i, count = 0
    for i in range(25):
        count += s[i] * (i + 1)
    return count + keith_wastage(s)


def pubeval_score(const unsigned char[::1] board, bint race):
    """Tesauro's pubeval score of a 50-byte board after a move (side 1 just moved)."""
    cdef Board b
    board_from_bytes(&board[0], &b)
    return pubeval(race, &b)


def keith(const unsigned char[::1] board, int side):
    """Keith count of ``side`` (0 or 1) on a 50-byte board."""
    cdef Board b
    board_from_bytes(&board[0], &b)
    return keith_count(&b, side)


def race(const unsigned char[::1] board):
    """True when the 50-byte board is a race (no contact)."""
    cdef Board b
    board_from_bytes(&board[0], &b)
    return is_race(&b)
