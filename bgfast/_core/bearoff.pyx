# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The one-sided bear-off database, computed by bgfast itself.

For every distribution of 0 to 15 checkers on a side's six home points (54,264
positions, C(21, 6)), the probability distribution of the number of rolls the
side needs to bear all its checkers off, when every roll is played to minimise
the expected number of rolls; and for the 15,504 positions with all 15 checkers
on the board, the distribution of the number of rolls to bear off the *first*
checker (played to minimise its expectation), which decides gammons.  This is
the one-sided database that GNU Backgammon ships (``gnubg_os0.bd``), built here
by dynamic programming over the 21 rolls with the core's move generator: a play
only lowers the pip count, so positions are solved in order of increasing pips.
The tables (about 7 MB of float32) are built at first use in about half a
second and kept for the life of the process.

Two-sided pure bear-offs (both sides wholly in their home boards, so no contact
can arise) are valued from the two one-sided distributions as independent
races: the side on roll, needing ``n`` rolls, wins when the opponent needs
``n`` or more; it wins a gammon when the opponent, with 15 checkers left, needs
``n`` or more rolls to bear off its first.  This is exact for the one-sided
play; it is an approximation of the two-sided game (where a side may prefer a
play that raises its chance of finishing by a given roll over the one that
minimises its expected rolls), the same approximation gnubg makes with its
one-sided databases.  No backgammon is possible in a pure bear-off.

Index (``bearoff_index``): the combinatorial number system over the positions of
the six "bars" of a stars-and-bars word: counts ``c1..c6`` and a seventh, slack,
pile of ``15 - sum``; bar ``j`` sits at ``c1 + .. + c(j+1) + j`` and the index is
``sum_j C(bar_j, j + 1)``, a bijection onto ``0 .. C(21, 6) - 1`` (the empty side
has index 0).
"""
import numpy as np

from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport uint8_t

from bgfast._core.board cimport Board, BAR, board_from_bytes, board_checkers
from bgfast._core.movegen cimport MoveGen, movegen_new, movegen_free, prepare, generate_prepared
from bgfast._core.bearoff cimport BO_POINTS, BO_CHECKERS, BO_POSITIONS, BO_GAMMON_POSITIONS, BO_ROLLS

POSITIONS = BO_POSITIONS
GAMMON_POSITIONS = BO_GAMMON_POSITIONS
ROLLS = BO_ROLLS

cdef float P_ROLLS[BO_POSITIONS][BO_ROLLS]
cdef float P_FIRST[BO_GAMMON_POSITIONS][BO_ROLLS]
cdef float MEAN[BO_POSITIONS]
cdef float MEAN_FIRST[BO_GAMMON_POSITIONS]
cdef uint8_t SPAN[BO_POSITIONS][2]            # the first and last n with a chance in P_ROLLS
cdef uint8_t SPAN_FIRST[BO_GAMMON_POSITIONS][2]
cdef int BINOM[24][8]
cdef bint READY = False
cdef int LONGEST = 0          # the most rolls any position can take (for the tests)


cdef void _binomials() noexcept nogil:
    cdef int n, k
    for n in range(24):
        for k in range(8):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]


cdef inline bint _home_only(const uint8_t* s) noexcept nogil:
    cdef int i
    for i in range(BO_POINTS, 25):
        if s[i]:
            return False
    return True


cdef int bearoff_index(const uint8_t* s) noexcept nogil:
    cdef int j, pos = 0, r = 0
    if not _home_only(s):
        return -1
    for j in range(BO_POINTS):
        pos += s[j]
        r += BINOM[pos + j][j + 1]
    return r if pos <= BO_CHECKERS else -1


cdef int bearoff_gammon_index(const uint8_t* s) noexcept nogil:
    cdef int j, pos = 0, r = 0
    if not _home_only(s):
        return -1
    for j in range(BO_POINTS - 1):
        pos += s[j]
        r += BINOM[pos + j][j + 1]
    return r if pos + s[BO_POINTS - 1] == BO_CHECKERS else -1


cdef bint bearoff_ready() noexcept nogil:
    return READY


cdef const float* bearoff_rolls(int i) noexcept nogil:
    return &P_ROLLS[i][0]


cdef const uint8_t* bearoff_rolls_span(int i) noexcept nogil:
    return SPAN[i]


cdef const uint8_t* bearoff_first_off_span(int i) noexcept nogil:
    return SPAN_FIRST[i]


cdef void _span(const float* dist, uint8_t* span) noexcept nogil:
    cdef int lo = 0, hi = BO_ROLLS - 1
    while lo < hi and dist[lo] == 0:
        lo += 1
    while hi > lo and dist[hi] == 0:
        hi -= 1
    span[0] = lo
    span[1] = hi


cdef const float* bearoff_first_off(int i) noexcept nogil:
    return &P_FIRST[i][0]


cdef inline void _shift_add(double* acc, const float* dist, double w) noexcept nogil:
    """``acc[n + 1] += w * dist[n]``: one more roll (the last bin keeps the tail, empty in practice)."""
    cdef int n
    for n in range(BO_ROLLS - 2):
        acc[n + 1] += w * dist[n]
    acc[BO_ROLLS - 1] += w * (dist[BO_ROLLS - 2] + dist[BO_ROLLS - 1])


cdef void bearoff_build() noexcept nogil:
    global READY, LONGEST
    cdef int c[6]
    cdef int c0, c1, c2, c3, c4, c5
    cdef int npos = 0, i, j, k, p, idx, gi, best, bestg, ci, cg, pips, d1, d2, n, total
    cdef int count[91]
    cdef int start[92]
    cdef int* order
    cdef int* pip_of
    cdef uint8_t* counts
    cdef Board b
    cdef MoveGen* g
    cdef double acc[BO_ROLLS]
    cdef double accg[BO_ROLLS]
    cdef double w, m, bm, bmg, s
    cdef bint fifteen, early
    if READY:
        return
    _binomials()
    order = <int*> malloc(BO_POSITIONS * sizeof(int))
    pip_of = <int*> malloc(BO_POSITIONS * sizeof(int))
    counts = <uint8_t*> malloc(BO_POSITIONS * BO_POINTS)
    g = movegen_new()
    if order == NULL or pip_of == NULL or counts == NULL or g == NULL:
        free(order)
        free(pip_of)
        free(counts)
        movegen_free(g)
        return
    memset(&b, 0, sizeof(Board))
    memset(count, 0, sizeof(count))
    # every position, by index; then a counting sort by pip count
    for c0 in range(16):
        for c1 in range(16 - c0):
            for c2 in range(16 - c0 - c1):
                for c3 in range(16 - c0 - c1 - c2):
                    for c4 in range(16 - c0 - c1 - c2 - c3):
                        for c5 in range(16 - c0 - c1 - c2 - c3 - c4):
                            c[0] = c0
                            c[1] = c1
                            c[2] = c2
                            c[3] = c3
                            c[4] = c4
                            c[5] = c5
                            for k in range(BO_POINTS):
                                b.side[1][k] = <uint8_t> c[k]
                            idx = bearoff_index(b.side[1])
                            pips = 0
                            for k in range(BO_POINTS):
                                counts[idx * BO_POINTS + k] = <uint8_t> c[k]
                                pips += c[k] * (k + 1)
                            pip_of[idx] = pips
                            count[pips] += 1
                            npos += 1
    start[0] = 0
    for p in range(91):
        start[p + 1] = start[p] + count[p]
    for idx in range(BO_POSITIONS):
        order[start[pip_of[idx]]] = idx
        start[pip_of[idx]] += 1
    memset(P_ROLLS, 0, sizeof(P_ROLLS))
    memset(P_FIRST, 0, sizeof(P_FIRST))
    P_ROLLS[0][0] = 1          # no checker left: done in 0 rolls
    MEAN[0] = 0
    LONGEST = 0
    for i in range(1, BO_POSITIONS):       # order[0] is the empty side (0 pips)
        idx = order[i]
        total = 0
        for k in range(BO_POINTS):
            b.side[1][k] = counts[idx * BO_POINTS + k]
            total += b.side[1][k]
        fifteen = total == BO_CHECKERS
        prepare(g, &b)
        for n in range(BO_ROLLS):
            acc[n] = 0
            accg[n] = 0
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                w = 1.0 if d1 == d2 else 2.0
                generate_prepared(g, d1, d2)
                best = -1
                bestg = -1
                bm = 1e30
                bmg = 1e30
                early = False
                for j in range(g.n):
                    ci = bearoff_index(g.items[j].board.side[1])
                    m = MEAN[ci]
                    if m < bm:
                        bm = m
                        best = ci
                    if fifteen:
                        cg = bearoff_gammon_index(g.items[j].board.side[1])
                        if cg < 0:
                            early = True          # a checker is off with this roll
                        elif MEAN_FIRST[cg] < bmg:
                            bmg = MEAN_FIRST[cg]
                            bestg = cg
                _shift_add(acc, P_ROLLS[best], w)
                if fifteen:
                    if early:
                        accg[1] += w
                    else:
                        _shift_add(accg, P_FIRST[bestg], w)
        s = 0
        for n in range(BO_ROLLS):
            P_ROLLS[idx][n] = <float> (acc[n] / 36.0)
            s += n * acc[n] / 36.0
            if acc[n] > 0 and n > LONGEST:
                LONGEST = n
        MEAN[idx] = <float> s
        if fifteen:
            gi = bearoff_gammon_index(b.side[1])
            s = 0
            for n in range(BO_ROLLS):
                P_FIRST[gi][n] = <float> (accg[n] / 36.0)
                s += n * accg[n] / 36.0
            MEAN_FIRST[gi] = <float> s
    for k in range(BO_POINTS):
        b.side[1][k] = 0
    free(order)
    free(pip_of)
    free(counts)
    movegen_free(g)
    for i in range(BO_POSITIONS):
        _span(P_ROLLS[i], SPAN[i])
    for i in range(BO_GAMMON_POSITIONS):
        _span(P_FIRST[i], SPAN_FIRST[i])
    READY = True


cdef bint is_pure_bearoff(const Board* b) noexcept nogil:
    return _home_only(b.side[0]) and _home_only(b.side[1])


cdef void bearoff_probs(const Board* b, float* p) noexcept nogil:
    """``p[0..4]``: side 1 (on roll)'s win, win gammon, win backgammon, lose gammon, lose
    backgammon in the pure bear-off ``b`` (both sides in their home boards; built tables)."""
    cdef int n, nx = board_checkers(b, 1), ny = board_checkers(b, 0)
    cdef const float* px
    cdef const float* py
    cdef const float* fx
    cdef const float* fy
    cdef double win = 0, wg = 0, lg = 0, tail_y, tail_fy, tail_x, tail_fx
    p[2] = 0
    p[4] = 0
    if nx == 0 or ny == 0:          # finished: the side with no checker left has won
        p[0] = 1 if nx == 0 else 0
        p[1] = 1 if nx == 0 and ny == BO_CHECKERS else 0
        p[3] = 1 if ny == 0 and nx == BO_CHECKERS else 0
        return
    px = bearoff_rolls(bearoff_index(b.side[1]))
    py = bearoff_rolls(bearoff_index(b.side[0]))
    # win: the side on roll finishes on its n-th roll and the opponent needs n or more
    tail_y = 1.0
    for n in range(1, BO_ROLLS):
        tail_y -= py[n - 1]           # P(opponent needs >= n rolls)
        win += px[n] * tail_y
    if ny == BO_CHECKERS:
        fy = bearoff_first_off(bearoff_gammon_index(b.side[0]))
        tail_fy = 1.0
        for n in range(1, BO_ROLLS):
            tail_fy -= fy[n - 1]
            wg += px[n] * tail_fy
    if nx == BO_CHECKERS:
        # the opponent finishes on its m-th roll, after the side on roll's m-th, none of them off
        fx = bearoff_first_off(bearoff_gammon_index(b.side[1]))
        tail_fx = 1.0
        for n in range(1, BO_ROLLS):
            tail_fx -= fx[n]          # P(first off needs > n rolls)
            lg += py[n] * tail_fx
    p[0] = <float> win
    p[1] = <float> wg
    p[3] = <float> lg


# ---------------------------------------------------------------- Python entry points

def build():
    """Build the tables now (they are otherwise built at first use)."""
    with nogil:
        bearoff_build()
    if not READY:
        raise MemoryError()


def _side_counts(counts):
    values = [int(v) for v in counts]
    if len(values) != BO_POINTS or min(values) < 0 or sum(values) > BO_CHECKERS:
        raise ValueError("a one-sided bear-off position is 6 counts (points 1..6) of 0..15 "
                         "checkers in all, got %r" % (counts,))
    return bytes(values + [0] * (25 - BO_POINTS))


def index(counts):
    """The database index of ``counts`` (checkers on points 1..6)."""
    cdef bytes s = _side_counts(counts)
    build()
    return bearoff_index(<const uint8_t*> (<const char*> s))


def rolls(counts):
    """``P(n rolls to bear off every checker)`` for n = 0..ROLLS-1, shape (ROLLS,) float32."""
    cdef bytes s = _side_counts(counts)
    build()
    cdef int i = bearoff_index(<const uint8_t*> (<const char*> s))
    return np.array(<float[:BO_ROLLS]> &P_ROLLS[i][0], dtype=np.float32)


def first_off(counts):
    """``P(n rolls to bear off the first checker)`` for a 15-checker position, shape (ROLLS,).

    :raises ValueError: ``counts`` has fewer than 15 checkers.
    """
    cdef bytes s = _side_counts(counts)
    build()
    cdef int i = bearoff_gammon_index(<const uint8_t*> (<const char*> s))
    if i < 0:
        raise ValueError("the first-checker distribution is kept for 15 checkers, got %r" % (counts,))
    return np.array(<float[:BO_ROLLS]> &P_FIRST[i][0], dtype=np.float32)


def mean_rolls(counts):
    """The expected number of rolls to bear off every checker of ``counts``."""
    cdef bytes s = _side_counts(counts)
    build()
    return MEAN[bearoff_index(<const uint8_t*> (<const char*> s))]


def longest():
    """The most rolls any position of the database can take (a bin index below ROLLS)."""
    build()
    return LONGEST


def probabilities(const unsigned char[::1] board):
    """Side 1's ``(win, win_gammon, win_bg, lose_gammon, lose_bg)``, on roll, in a pure bear-off
    (a 50-byte board, both sides wholly in their home boards).

    :raises ValueError: a checker outside a home board.
    """
    cdef Board b
    cdef float p[5]
    if board.shape[0] != 50:
        raise ValueError("a board is 50 bytes, got %d" % board.shape[0])
    board_from_bytes(&board[0], &b)
    if not is_pure_bearoff(&b) or board_checkers(&b, 0) > BO_CHECKERS or board_checkers(&b, 1) > BO_CHECKERS:
        raise ValueError("not a pure bear-off: every checker must be in its side's home board")
    build()
    bearoff_probs(&b, p)
    return (p[0], p[1], p[2], p[3], p[4])
