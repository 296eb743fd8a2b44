# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The neural-net evaluator, in C.

Perspective.  The net values a position for the side *on roll, before it
rolls*.  Internally a position is held as it is after a play (the mover is
side 1 of the board, the side on roll side 0, as the move generator returns
children), and the net's outputs are side 0's; a child is valued from the
mover's view by flipping them (win <-> 1 - win, gammons and backgammons swap).

Outputs.  Five sigmoid units read as conditional probabilities, so the five
probabilities are consistent by construction: ``win = o0``, ``win gammon = win
* o1``, ``win backgammon = win gammon * o2``, ``lose gammon = (1 - win) * o3``,
``lose backgammon = lose gammon * o4`` (gammons include backgammons).  Results
that can no longer happen are exactly 0: no gammon for a side whose opponent
has borne a checker off, no backgammon in a race for a side whose opponent has
no checker left in its home board or on the bar.

Inputs (``NN_IN`` = 258), for the side on roll and then the other side, in the
style of TD-Gammon (Tesauro 1992) and GNU Backgammon: for each of its 24 points
and its bar a truncated unary code of the checker count ``n``, four units
``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2``; then the 58 dense hand-made
features of the heuristic evaluator (``heuristic.pyx``: pip counts, checkers off
and on the bar, home points, primes and trapped checkers, the shots at blots and
the pips they cost, back checkers and anchors, escapes, outfield control,
stacking, the race lead by pips and by Keith counts, and products of these).

The race net reads ``NN_RACE_IN`` = 71 inputs of its own after these (rows ``NN_IN ..``
of its first layer): first ``NN_RACE_IN_HOME`` = 36, 18 for each side, the side on roll
first.  A side wholly in its home board: the chances, from the one-sided bear-off
database, that it bears every checker off within 1, 2, .. 10 rolls, and (with all 15 on
the board) its first checker within 1 .. 4 rolls, then 1 (at home) and 1 (15 on the
board).  A side with checkers outside: the pips that bring every checker home / 40 and
the checkers outside / 15 (the last two units).  These are what decides a race's gammons
and its last rolls, which the point codes give only through a long chain of sums: fit to
66,000 of bgfast's race rollouts, a race net of 256 units comes within 0.0123 of held-out
ones in equity with them and 0.0186 without (model card).  Then 16 estimated ones for
each side, the side on roll first, non-zero for a side with checkers outside: the chances
that it bears its last checker off on its 1st, 2nd .. 10th roll from now and (with 15 on
the board) its first on its 1st .. 6th, as if it brought its outside checkers to its
6-point without waste, in as many rolls as the dice need to bring those pips (the
distribution of the sum of k rolls, doubles counted four times), and bore off from there
by the database, the roll that brings the last checker home counting for the share of a
roll it leaves over (``_race_estimate``).  Last, 3: the race's chances for the side on
roll, its win, gammon win and gammon loss, from both sides' rolls (the database's for a
side at home, the estimate's for the other) taken as independent, as for a pure bear-off
(``_race_chances``).  They carry the database to a straggler's race, a side that has
borne off checkers and has one sent back, which the first inputs see only as pips and a
count.  (Chances on a given roll rather than within it: the first layer is linear, so
either says the same, and these are zero away from the rolls that can happen.)
A file written before either kind gives its race net zero weights there
(:class:`bgfast.bots.neural_weights.Weights`), which values every position as before.

Nets.  Four nets (one hidden layer of sigmoid units each), indexed as the classes
that use them: one for contact positions, one for races, one for back games and
prime-versus-prime positions, and one for crashed positions (the ``back_game``,
``prime_vs_prime`` and ``crashed`` classes of :func:`bgfast.position_class.classify`,
decided here in C by the same rules; gnubg too values crashed positions with a net of
their own).  A file without a backgame or crashed net gets a copy of its contact net
there (:class:`bgfast.bots.neural_weights.Weights`), which values those positions as the
contact net did, to the bit.  Pure
bear-offs (both sides wholly in their home boards) are valued by the one-sided
bear-off database (``bearoff.pyx``) instead; a game that is over, or where the side
on roll bears off its last checkers with every roll, gets its exact value.

Pruning nets.  A model may also hold one small net for each net (``prune_hidden`` units on
the ``NN_RAW`` point codes alone, one linear output: the side on roll's cubeless equity),
distilled from it by :mod:`bgfast.train.prune`.  :c:func:`neural_roll_best`, the search's
reply finder, ranks a roll's plays by them and values only the best ``NN_PRUNE_BASE +
floor(log2(plays))`` by the net; a pruning net's sums start from the parent's point codes
and add the codes a play changed, as the net's do.  Nothing at 0 ply uses them.

Speed.  Weights are float32, one contiguous column per input, so a position's
hidden pre-activations are the bias plus the sum of the columns of its non-zero
inputs.  The children of one roll are valued together: the parent's point-code
part is summed once per net, and each child adds only the columns of the codes
that its play changed (a few points) and of the hand inputs that differ from the
roll's first child's.  The hand inputs are the heuristic's dense features alone
(``heuristic_dense``), and the side on roll's own ones are computed once per roll.
The inner loops are plain C over the hidden units (vectorized by the compiler,
with AVX-512 and AVX2 clones chosen at run time on x86-64 Linux).  Every clone
does the same arithmetic, without fused multiply-adds, so the values do not
depend on the CPU.

Training.  :c:func:`neural_train_step` moves the net's value of one position towards
a target: the loss is the cross-entropy of each conditional output, weighted by the
target probability of its condition, so the gradient on the logits is ``o0 - t_win``,
``t_win o1 - t_wg``, ``t_wg o2 - t_wbg``, ``(1 - t_win) o3 - t_lg``, ``t_lg o4 - t_lbg``;
plain stochastic gradient descent.  The self-play that makes the targets (TD(lambda),
the positions and candidate plays for supervised training) is ``training.pyx``'s, on the
game loop of ``game.pyx``.

The dense kernels (the first layer's sums, the hidden and output layers, the gradient
step) are C in ``neural.h`` beside this file.
"""
import numpy as np

from libc.stdlib cimport malloc, free
from libc.string cimport memcmp, memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from bgfast._core.board cimport Board, BAR, board_swap, side_has_back_checker, board_checkers, board_from_bytes, check_board, load8, nonzero_bytes
from bgfast._core.movegen cimport MoveGen, MAX_CHILDREN, movegen_new, movegen_free, generate
from bgfast._core.evaluators cimport is_race
from bgfast._core.heuristic cimport heuristic_dense, heuristic_dense_roll, heuristic_dense_child, DenseRoll, H_NDENSE
from bgfast._core.probs cimport probs_flip, probs_equity, PlayValue
from bgfast._core.topk cimport topk_insert, topk_insert_tied
from bgfast._core.bearoff cimport BO_ROLLS
from bgfast._core.bearoff cimport (
    bearoff_build, bearoff_ready, bearoff_probs, bearoff_index, bearoff_gammon_index, bearoff_rolls, bearoff_first_off,
    bearoff_rolls_span, bearoff_first_off_span,
)
from bgfast._core.neural cimport (
    NetPart, PruneNet, Neural, NeuralParent, NeuralRolls, NN_OUT, NN_RAW_SIDE, NN_RAW, NN_HAND, NN_IN, NN_RACE_IN,
    NN_RACE_IN_HOME, NN_ROWS,
    NN_MAX_HIDDEN, NN_NETS, NN_PRUNE_MAX_HIDDEN, NN_PRUNE_BASE,
    NET_CONTACT, NET_RACE, NET_BACKGAME, NET_CRASHED,
    CLASS_CONTACT, CLASS_RACE, CLASS_BACKGAME, CLASS_CRASHED, CLASS_BEAROFF, CLASS_DECIDED,
)

INPUTS = NN_IN
RAW_INPUTS = NN_RAW
HAND_INPUTS = NN_HAND
RACE_INPUTS = NN_RACE_IN
RACE_HOME_INPUTS = NN_RACE_IN_HOME
NETS = ("contact", "race", "backgame", "crashed")
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
MAX_HIDDEN = NN_MAX_HIDDEN
PRUNE_MAX_HIDDEN = NN_PRUNE_MAX_HIDDEN
PRUNE_BASE = NN_PRUNE_BASE
BEAROFF_CLASS = CLASS_BEAROFF   # board_class of a pure bear-off, valued by the database
DECIDED_CLASS = CLASS_DECIDED   # board_class of a decided game, valued exactly
cdef enum:
    MAX_SPARSE = NN_ROWS      # inputs of one position: each at most once (a child's codes and hand
                              # inputs, at most NN_IN, then NN_RACE_IN race inputs written whole)
    RACE_SIDE = 18            # race inputs a side, both sides' first (NN_RACE_IN_HOME)
    RACE_FINISH = 10          # P(all off within 1 .. 10 rolls)
    RACE_FIRST = 4            # P(first checker off within 1 .. 4 rolls)
    RACE_AT_HOME = 14         # 1: every checker in the home board
    RACE_FIFTEEN = 15         # 1: at home with all 15 on the board
    RACE_PIPS_HOME = 16       # outside: pips to bring every checker home / 40
    RACE_OUTSIDE = 17         # outside: checkers outside the home board / 15
    RACE_EST_SIDE = 16        # estimated race inputs a side, after both sides' RACE_SIDE
    RACE_EST_FINISH = 10      # outside: estimated P(all off on roll 1, 2 .. 10)
    RACE_EST_FIRST = 6        # outside, 15 on the board: estimated P(first off on roll 1 .. 6)
    RACE_CHANCES = 3          # the race's estimated chances (_race_chances), after the estimated inputs
    HOME_PIPS_MAX = 300       # more than the pips any side needs to bring its checkers home
    SMALL_ROLL = 256          # children of a roll valued in a stack buffer (more: malloc)

cdef extern from "neural.h":
    void nn_accumulate(float* z, const float* src, const float* w, const int* idx, const float* val, int m,
                       const float* dw, const float* dval, int nd, int H) nogil
    int nn_changed(const float* a, const float* b, int n, int first, int* idx, float* val, int m) nogil
    void nn_hidden_output(float* z, const float* w2, const float* b2, int H, float* out) nogil
    float nn_hidden_dot(const float* z, const float* w, float b, int H) nogil
    void nn_backprop(float* w1, float* b1, float* w2, float* b2, int H, const int* idx,
                     const float* val, int m, const float* h, const float* dz2, float lr,
                     float* tmp) nogil
    int posix_memalign(void** p, size_t alignment, size_t size) nogil



cdef extern from *:
    void __builtin_prefetch(const void* p) nogil
    int __builtin_ctzll(unsigned long long x) nogil
    int __builtin_clz(unsigned int x) nogil
    int __builtin_ctz(unsigned int x) nogil


# CODE[n]: the four units of a count n (truncated unary, then the excess over 3 halved).
cdef float CODE[16][4]
# CHANGE[o][n]: the units whose value differs between counts o and n, and by how much.
ctypedef struct CodeChange:
    int count
    int unit[4]
    float delta[4]
cdef CodeChange CHANGE[16][16]
# The hand-made inputs NN_RAW .. NN_IN - 1 are heuristic_dense's features, in its order.
assert <int> NN_HAND == <int> H_NDENSE
assert <int> NN_RACE_IN_HOME == 2 * <int> RACE_SIDE
assert <int> NN_RACE_IN == 2 * (<int> RACE_SIDE + <int> RACE_EST_SIDE) + <int> RACE_CHANCES
cdef float NO_HAND[NN_HAND]
# HOME_ON[e][k]: the chance that the k-th roll is the one that brings the e-th pip (doubles
# count four times), nonzero for k = HOME_FIRST[e] .. HOME_LAST[e] (after the last, less than
# HOME_NEGLIGIBLE of the chance is left).
cdef float HOME_ON[HOME_PIPS_MAX + 1][BO_ROLLS]
cdef int HOME_FIRST[HOME_PIPS_MAX + 1]
cdef int HOME_LAST[HOME_PIPS_MAX + 1]
cdef double HOME_NEGLIGIBLE = 1e-6
cdef int ROLL_PIPS[36]          # the pips of each of the 36 rolls (d1, d2), doubles four times
# HOME_LEFT[e]: the share of its pips that the roll bringing the e-th pip leaves over (the
# expectation over the dice), as a fraction of that roll.
cdef float HOME_LEFT[HOME_PIPS_MAX + 1]


cdef void _init_tables() noexcept nogil:
    cdef int n, o, k
    cdef float d
    cdef CodeChange* c
    for n in range(16):
        CODE[n][0] = 1.0 if n >= 1 else 0.0
        CODE[n][1] = 1.0 if n >= 2 else 0.0
        CODE[n][2] = 1.0 if n >= 3 else 0.0
        CODE[n][3] = (n - 3) * 0.5 if n > 3 else 0.0
    for o in range(16):
        for n in range(16):
            c = &CHANGE[o][n]
            c.count = 0
            for k in range(4):
                d = CODE[n][k] - CODE[o][k]
                if d != 0:
                    c.unit[c.count] = k
                    c.delta[c.count] = d
                    c.count += 1
            for k in range(c.count, 4):
                c.unit[k] = 0
                c.delta[k] = 0
    memset(NO_HAND, 0, sizeof(NO_HAND))
    _init_home_by()


cdef void _init_home_by() noexcept nogil:
    cdef double sums[2][HOME_PIPS_MAX + 1]      # P(k rolls bring exactly p pips), p >= MAX in the last
    cdef double by[BO_ROLLS][HOME_PIPS_MAX + 1]  # P(k rolls bring p pips or more)
    cdef double tail
    cdef int k, p, e, j, d1, d2, cur = 0
    cdef bint stopped
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            ROLL_PIPS[6 * (d1 - 1) + d2 - 1] = 4 * d1 if d1 == d2 else d1 + d2
    memset(sums, 0, sizeof(sums))
    sums[0][0] = 1.0
    for k in range(BO_ROLLS):
        tail = 0.0
        for p in range(HOME_PIPS_MAX, -1, -1):
            tail += sums[cur][p]
            by[k][p] = tail
        memset(sums[1 - cur], 0, sizeof(sums[0]))
        for p in range(HOME_PIPS_MAX + 1):
            if sums[cur][p] == 0:
                continue
            for j in range(36):
                sums[1 - cur][min(p + ROLL_PIPS[j], <int> HOME_PIPS_MAX)] += sums[cur][p] / 36.0
        cur = 1 - cur
    for e in range(HOME_PIPS_MAX + 1):
        HOME_FIRST[e] = 0
        HOME_LAST[e] = -1
        stopped = False
        for k in range(BO_ROLLS):
            HOME_ON[e][k] = 0
            if k == 0 or stopped:
                continue
            if by[k - 1][e] > 1 - HOME_NEGLIGIBLE:    # home before roll k but for a negligible chance
                stopped = True
                continue
            HOME_ON[e][k] = <float> (by[k][e] - by[k - 1][e])
            if HOME_ON[e][k] != 0:
                if HOME_LAST[e] < 0:
                    HOME_FIRST[e] = k
                HOME_LAST[e] = k
    _init_home_left()


cdef void _init_home_left() noexcept nogil:
    cdef double visit[HOME_PIPS_MAX + 1]           # P(some number of rolls brings exactly p pips)
    cdef double left
    cdef int p, e, j, step
    memset(visit, 0, sizeof(visit))
    visit[0] = 1.0
    for p in range(1, HOME_PIPS_MAX + 1):
        for j in range(36):
            step = ROLL_PIPS[j]
            if step <= p:
                visit[p] += visit[p - step] / 36.0
    for e in range(HOME_PIPS_MAX + 1):
        left = 0.0
        for p in range(max(0, e - 24), e):
            for j in range(36):
                step = ROLL_PIPS[j]
                if p + step >= e:
                    left += visit[p] / 36.0 * (p + step - e) / step
        HOME_LEFT[e] = <float> left


_init_tables()


# ---------------------------------------------------------------- classes and exact values

cdef bint _clears(int* pips, int n, const int* dice, int k, int nd, uint32_t blocked) noexcept nogil:
    """Some order of the dice ``dice[k:nd]`` bears off every checker at ``pips[0:n]`` (0 = off),
    ``blocked`` bit p - 1 set where pip p is held by the opponent."""
    cdef int j, x, d, other
    cdef bint ok
    for j in range(n):
        if pips[j]:
            break
    else:
        return True
    if k == nd:
        return False
    d = dice[k]
    for j in range(n):
        x = pips[j]
        if x == 0:
            continue
        if x > d:
            if blocked & (1u << (x - d - 1)):
                continue
            pips[j] = x - d
        elif x < d:
            ok = True
            for other in range(n):
                if pips[other] > x:
                    ok = False
            if not ok:
                continue
            pips[j] = 0
        else:
            pips[j] = 0
        if _clears(pips, n, dice, k + 1, nd, blocked):
            pips[j] = x
            return True
        pips[j] = x
    return False


cdef bint _surely_off(const uint8_t* r, const uint8_t* opp) noexcept nogil:
    """The side ``r`` (at most 2 checkers, all home) bears them all off with every roll,
    whatever points the opponent ``opp`` holds in its way."""
    cdef int pips[2]
    cdef int dice[4]
    cdef int n = 0, i, k, d1, d2
    cdef uint32_t blocked = 0
    for i in range(6):
        for k in range(r[i]):
            if n < 2:
                pips[n] = i + 1
            n += 1
        if opp[23 - i] >= 2:
            blocked |= 1u << i
    if n > 2 or n == 0:
        return n == 0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            if d1 == d2:
                for k in range(4):
                    dice[k] = d1
                if not _clears(pips, n, dice, 0, 4, blocked):
                    return False
            else:
                dice[0] = d1
                dice[1] = d2
                if not _clears(pips, n, dice, 0, 2, blocked):
                    dice[0] = d2
                    dice[1] = d1
                    if not _clears(pips, n, dice, 0, 2, blocked):
                        return False
    return True


cdef inline void _scan(const uint8_t* s, int* left, int* rear) noexcept nogil:
    """Checkers of a side on the board, and the index of its rearmost (-1: none), eight
    points at a time."""
    cdef uint64_t w0 = load8(s), w1 = load8(s + 8), w2 = load8(s + 16)
    cdef uint32_t occ = (nonzero_bytes(w0) | (nonzero_bytes(w1) << 8) | (nonzero_bytes(w2) << 16)
                         | ((<uint32_t> (s[24] != 0)) << 24))
    # a side has at most 15 checkers, so the byte sums below never carry
    left[0] = <int> (((w0 * 0x0101010101010101ULL) >> 56) + ((w1 * 0x0101010101010101ULL) >> 56)
                     + ((w2 * 0x0101010101010101ULL) >> 56)) + s[24]
    rear[0] = 31 - __builtin_clz(occ) if occ else -1


# The rules of bgfast.position_class (its module docstring), for the two sides of a board
# (each 25 counts in its own view, index 24 the bar); its constants:
cdef enum:
    BACK_GAME_PIP_DEFICIT = 40
    CRASHED_CHECKERS = 6
    PRIME_LENGTH = 4


cdef inline int _pips(const uint8_t* s) noexcept nogil:
    cdef int i, p = 0
    for i in range(25):
        p += (i + 1) * s[i]
    return p


cdef inline bint _two_back_anchors(const uint8_t* s) noexcept nogil:
    """Two or more of the side's points 19-24 (its opponent's home board) made."""
    cdef int i, n = 0
    for i in range(18, 24):
        n += s[i] >= 2
    return n >= 2


cdef inline bint _crashed(const uint8_t* s, int on_board) noexcept nogil:
    """position_class.has_crashed of a side with ``on_board`` checkers on the board (bar too)."""
    cdef int ace = s[0], deuce = s[1]
    if on_board <= CRASHED_CHECKERS:
        return True
    if ace >= 2:
        if on_board - ace <= CRASHED_CHECKERS:
            return True
        return deuce >= 2 and on_board - ace - deuce + 1 <= CRASHED_CHECKERS
    return on_board - (deuce - 1 if deuce > 1 else 0) <= CRASHED_CHECKERS


cdef inline int _prime_bottom(const uint8_t* s) noexcept nogil:
    """The index of the lowest point of the side's longest run of made points (the first from
    its ace point of the longest), when it is PRIME_LENGTH or longer; else -1."""
    cdef uint64_t two = 0xFEFEFEFEFEFEFEFEULL          # a byte of 2 or more has a bit here
    cdef uint32_t starts = (nonzero_bytes(load8(s) & two) | (nonzero_bytes(load8(s + 8) & two) << 8)
                            | (nonzero_bytes(load8(s + 16) & two) << 16))   # bit i: point i made
    cdef int length = 1
    if starts == 0:
        return -1
    while starts & (starts >> 1):      # bit i: a run of length + 1 made points from point i
        starts &= starts >> 1
        length += 1
    return __builtin_ctz(starts) if length >= PRIME_LENGTH else -1


cdef inline int _contact_class(const Board* a, int l0, int r0, int l1, int r1) noexcept nogil:
    """The class of ``a``, a position with contact whose sides have ``l0``, ``l1`` checkers on
    the board and their rearmost at ``r0``, ``r1``, as :func:`bgfast.position_class.classify`
    has it: CLASS_BACKGAME for a ``back_game`` (a side anchored twice in its opponent's home
    board and 40 pips or more behind); else CLASS_CRASHED for a side ``crashed``; else
    CLASS_BACKGAME for a ``prime_vs_prime`` (neither side wholly home, each with a checker
    behind the other's prime, the longest run of 4 or more made points); else CLASS_CONTACT
    (``bearoff_contact`` and ``contact``).  The class is the same whichever side is on roll."""
    cdef const uint8_t* s0 = a.side[0]
    cdef const uint8_t* s1 = a.side[1]
    cdef int b0, b1, deficit
    cdef bint anchored0 = _two_back_anchors(s0), anchored1 = _two_back_anchors(s1)
    if anchored0 or anchored1:
        deficit = _pips(s0) - _pips(s1)
        if (anchored0 and deficit >= BACK_GAME_PIP_DEFICIT) or (anchored1 and -deficit >= BACK_GAME_PIP_DEFICIT):
            return CLASS_BACKGAME
    if _crashed(s0, l0) or _crashed(s1, l1):
        return CLASS_CRASHED
    if r0 < 6 or r1 < 6:               # a side wholly home: bearoff_contact
        return CLASS_CONTACT
    # side 1's prime from index b1 up is side 0's 23 - b1 down: side 0 is behind it from 24 - b1
    b1 = _prime_bottom(s1)
    if b1 < 0 or r0 < 24 - b1:
        return CLASS_CONTACT
    b0 = _prime_bottom(s0)
    if b0 < 0 or r1 < 24 - b0:
        return CLASS_CONTACT
    return CLASS_BACKGAME


cdef inline int _classify(const Board* a, int* bits) noexcept nogil:
    """The class of ``a`` (after side 1's play), and in ``bits`` the outputs that can still
    be non-zero for side 0: bit 1 its gammon win, 2 its backgammon win, 3 and 4 its losses."""
    cdef int l0, l1, r0, r1
    _scan(a.side[0], &l0, &r0)
    _scan(a.side[1], &l1, &r1)
    bits[0] = 0x1F
    if l1 < 15:
        bits[0] &= ~0x06               # the mover has borne off: no gammon for the side on roll
    if l0 < 15:
        bits[0] &= ~0x18
    if l1 == 0 or l0 == 0:
        return CLASS_DECIDED
    if r0 < 6 and r1 < 6:
        return CLASS_BEAROFF
    if l0 <= 2 and r0 < 6 and _surely_off(a.side[0], a.side[1]):
        return CLASS_DECIDED
    if r1 < 23 - r0:                   # no checker has an opposing one ahead of it
        if r1 < 18:                    # no backgammon without a checker in the winner's home
            bits[0] &= ~0x04
        if r0 < 18:
            bits[0] &= ~0x10
        return CLASS_RACE
    return _contact_class(a, l0, r0, l1, r1)


cdef int neural_class(const Board* a) noexcept nogil:
    """The class of ``a``, a position after side 1's play (side 0 on roll)."""
    cdef int bits
    return _classify(a, &bits)


cdef void _decided(const Board* a, float* q) noexcept nogil:
    """Exact probabilities of side 0 (on roll) of a decided position ``a``."""
    cdef const uint8_t* r = a.side[0]
    cdef const uint8_t* m = a.side[1]
    cdef bint lost = board_checkers(a, 1) == 0
    q[0] = 0.0 if lost else 1.0
    q[1] = 0
    q[2] = 0
    q[3] = 0
    q[4] = 0
    if lost:
        if board_checkers(a, 0) == 15:
            q[3] = 1
            q[4] = 1.0 if side_has_back_checker(r) else 0.0
    elif board_checkers(a, 1) == 15:
        q[1] = 1
        q[2] = 1.0 if side_has_back_checker(m) else 0.0


cdef inline bint _exact(const Board* a, int cls, float* q) noexcept nogil:
    """Side 0's exact probabilities of ``a`` in ``q`` when no net values it (class
    ``cls``: a game decided, or a pure bear-off and its database): True; else False."""
    cdef Board s
    if cls == CLASS_DECIDED:
        _decided(a, q)
        return True
    if cls == CLASS_BEAROFF:
        board_swap(&s, a)
        bearoff_probs(&s, q)
        return True
    return False


cdef inline void _joint(const float* o, int bits, float* q) noexcept nogil:
    """The five probabilities from the conditional outputs ``o``, masked by ``bits``."""
    q[0] = o[0]
    q[1] = o[0] * o[1] if bits & 2 else 0.0
    q[2] = q[1] * o[2] if bits & 4 else 0.0
    q[3] = (1 - o[0]) * o[3] if bits & 8 else 0.0
    q[4] = q[3] * o[4] if bits & 16 else 0.0


# ---------------------------------------------------------------- the forward pass

cdef inline int _encode_raw(const Board* a, int* idx, float* val) noexcept nogil:
    """The non-zero point-code inputs of ``a``: side 0 (on roll) first, then side 1, each
    place's units in order (the change from an empty place: :data:`CHANGE`).  Writes up to 3
    entries of ``idx`` and ``val`` beyond those it returns."""
    cdef const uint8_t* pa = <const uint8_t*> a
    cdef int m = 0, w, j, k, base
    cdef uint64_t occupied = 0      # bit j: byte j of the board (places, then padding) is not 0
    cdef const CodeChange* c
    for w in range(7):
        occupied |= (<uint64_t> nonzero_bytes(load8(pa + 8 * w))) << (8 * w)
    occupied &= (1ULL << 50) - 1
    while occupied:
        j = __builtin_ctzll(occupied)
        occupied &= occupied - 1
        base = 4 * j if j < 25 else NN_RAW_SIDE + 4 * (j - 25)
        c = &CHANGE[0][pa[j]]
        for k in range(4):
            idx[m + k] = base + c.unit[k]
            val[m + k] = c.delta[k]
        m += c.count
    return m


cdef inline int _encode_hand(const Board* a, int* idx, float* val) noexcept nogil:
    """The non-zero hand-made inputs of ``a``."""
    cdef float v[NN_HAND]
    heuristic_dense(a, v)
    return nn_changed(v, NO_HAND, NN_HAND, NN_RAW, idx, val, 0)


ctypedef struct RaceRolls:
    float finish[BO_ROLLS]    # P(a side bears its last checker off on its n-th roll from now)
    float first[BO_ROLLS]     # the same for its first checker; all 0 without 15 on the board
    bint fifteen              # all 15 on the board
    int last                  # a roll after which ``finish`` has no chance


ctypedef struct RacePlan:
    # what a side's race inputs read from the database, found before they are read
    int on                    # checkers on the board
    int outside               # checkers outside the home board
    int pips_home             # pips that bring them home
    int home                  # the database position: the side's, or its gathered one (outside)
    int first                 # its index for the first checker off, -1 without 15 on the board


cdef inline void _race_plan(const uint8_t* s, RacePlan* plan) noexcept nogil:
    """The database rows side ``s`` (25 counts, its own view) needs, asked of the memory at
    once (the rows are spread over megabytes: fetching them side by side overlaps the waits)."""
    cdef int i
    cdef uint8_t gathered[25]
    plan.on = 0
    plan.outside = 0
    plan.pips_home = 0
    for i in range(25):
        plan.on += s[i]
        if i >= 6 and s[i]:
            plan.outside += s[i]
            plan.pips_home += s[i] * (i - 5)
    if plan.outside:
        memset(gathered, 0, sizeof(gathered))
        memcpy(gathered, s, 6)
        gathered[5] += plan.outside
        plan.home = bearoff_index(gathered)
        plan.first = bearoff_gammon_index(gathered) if plan.on == 15 else -1
    else:
        plan.home = bearoff_index(s)
        plan.first = bearoff_gammon_index(s) if plan.on == 15 else -1
    _prefetch_row(bearoff_rolls(plan.home))
    if plan.first >= 0:
        _prefetch_row(bearoff_first_off(plan.first))


cdef inline void _prefetch_row(const float* row) noexcept nogil:
    __builtin_prefetch(row)
    __builtin_prefetch(row + BO_ROLLS - 1)


cdef inline void _race_side(const RacePlan* plan, float* v, float* e, RaceRolls* r) noexcept nogil:
    """The race inputs of one side (``plan``: :c:func:`_race_plan`'s): ``RACE_SIDE`` floats
    in ``v``, ``RACE_EST_SIDE`` estimated ones in ``e``, and its rolls in ``r``: the
    database's for a side at home, else :c:func:`_race_estimate`'s."""
    cdef int n
    cdef float acc
    memset(v, 0, RACE_SIDE * sizeof(float))
    memset(e, 0, RACE_EST_SIDE * sizeof(float))
    memset(r, 0, sizeof(RaceRolls))
    r.fifteen = plan.on == 15
    if plan.outside:
        v[RACE_PIPS_HOME] = plan.pips_home / 40.0
        v[RACE_OUTSIDE] = plan.outside / 15.0
        _race_estimate(plan.home, plan.first, plan.pips_home, r)
        memcpy(e, r.finish + 1, RACE_EST_FINISH * sizeof(float))
        memcpy(e + RACE_EST_FINISH, r.first + 1, RACE_EST_FIRST * sizeof(float))
        return
    memcpy(r.finish, bearoff_rolls(plan.home), sizeof(r.finish))
    r.last = bearoff_rolls_span(plan.home)[1]
    acc = r.finish[0]
    for n in range(RACE_FINISH):
        acc += r.finish[n + 1]
        v[n] = acc
    v[RACE_AT_HOME] = 1.0
    if plan.first >= 0:
        memcpy(r.first, bearoff_first_off(plan.first), sizeof(r.first))
        acc = r.first[0]
        for n in range(RACE_FIRST):
            acc += r.first[n + 1]
            v[RACE_FINISH + n] = acc
        v[RACE_FIFTEEN] = 1.0


cdef inline void _race_estimate(int home, int first, int pips_home, RaceRolls* r) noexcept nogil:
    """The rolls of a side with checkers outside its home board, in ``r``, as if it first
    brought them to its 6-point (``pips_home`` pips, with no waste, in as many rolls as the
    dice need) and then bore off from there (the database position ``home``, and ``first``
    its index for the first checker, -1 without all 15 on the board), the roll that brings
    the last checker home counted as the share of a roll of bearing off that it leaves over
    (``HOME_LEFT``).  Cut at ``BO_ROLLS - 1`` rolls."""
    cdef const float* after = bearoff_rolls(home)
    cdef const float* first_after = bearoff_first_off(first) if first >= 0 else NULL
    if pips_home > HOME_PIPS_MAX:
        return
    r.last = _home_then(after, bearoff_rolls_span(home), pips_home, r.finish)
    if first_after != NULL:
        _home_then(first_after, bearoff_first_off_span(first), pips_home, r.first)


cdef inline int _home_then(const float* after, const uint8_t* span, int pips_home, float* rolls) noexcept nogil:
    """Add to ``rolls`` (``BO_ROLLS``) the chance of being done on each roll when the dice first
    bring ``pips_home`` pips and then ``after`` (the database's rolls from the 6-point on, with
    a chance from ``span[0]`` to ``span[1]`` rolls) takes over, the roll that brings the last
    pip counting as ``HOME_LEFT`` of a roll of ``after``; returns a roll after which ``rolls``
    has no chance."""
    cdef float p, left = HOME_LEFT[pips_home]
    cdef const float* home_on = HOME_ON[pips_home]
    cdef float mix[BO_ROLLS]        # mix[i]: the chance of being done i rolls after the one that brings the last pip
    cdef int k, i, top, lo = span[0], hi = span[1]
    if lo > 0:
        lo -= 1
    for i in range(lo, hi + 1):
        mix[i] = (1 - left) * after[i] + (left * after[i + 1] if i + 1 < BO_ROLLS else 0)
    for k in range(HOME_FIRST[pips_home], HOME_LAST[pips_home] + 1):
        p = home_on[k]
        top = min(hi, BO_ROLLS - 1 - k)
        for i in range(lo, top + 1):
            rolls[k + i] += p * mix[i]
    return min(HOME_LAST[pips_home] + hi, BO_ROLLS - 1)


cdef inline void _race_chances(const RaceRolls* r0, const RaceRolls* r1, float* c) noexcept nogil:
    """The chances of a race from the rolls of its sides taken as independent, side 0 (``r0``)
    on roll, as for a pure bear-off (``bearoff.pyx``): it wins when side 1 needs as many
    rolls as it or more, wins a gammon when side 1 needs as many or more to bear off its
    first checker, and loses a gammon when side 1 finishes before its first is off."""
    cdef int n
    cdef float behind1 = 1, first_behind1 = 1, first_off0 = 0
    c[0] = 0
    c[1] = 0
    c[2] = 0
    for n in range(max(r0.last, r1.last) + 1):       # beyond, neither side can still be bearing off
        c[0] += r0.finish[n] * behind1
        c[1] += r0.finish[n] * first_behind1
        first_off0 += r0.first[n]
        c[2] += r1.finish[n] * (1 - first_off0)
        behind1 -= r1.finish[n]
        first_behind1 -= r1.first[n]
    if not r1.fifteen:
        c[1] = 0
    if not r0.fifteen:
        c[2] = 0
    for n in range(RACE_CHANCES):
        c[n] = min(max(c[n], <float> 0), <float> 1)


ctypedef struct RaceSide:
    # the race inputs of a side on roll, kept for the next position where it is the same
    bint valid
    uint8_t side[25]
    float v[RACE_SIDE]
    float e[RACE_EST_SIDE]
    RaceRolls rolls


cdef inline void _race_on_roll(const Board* a, RaceSide* on_roll) noexcept nogil:
    """Make ``on_roll`` hold the race inputs of ``a``'s side on roll (side 0), unless it
    holds them already (the plays of one parent, all rolls, share them)."""
    cdef RacePlan plan0
    if not on_roll.valid or memcmp(on_roll.side, a.side[0], 25) != 0:
        _race_plan(a.side[0], &plan0)
        _race_side(&plan0, on_roll.v, on_roll.e, &on_roll.rolls)
        memcpy(on_roll.side, a.side[0], 25)
        on_roll.valid = True


cdef inline int _race_entries(const float* v, int first, int n, int* idx, float* val) noexcept nogil:
    """Append the non-zero ``v[0 .. n - 1]`` as columns ``first ..``; writes ``n`` entries
    of ``idx`` and ``val`` whatever it returns."""
    cdef int k, m = 0
    for k in range(n):                # without a branch: most of these are hard to predict
        idx[m] = first + k
        val[m] = v[k]
        m += v[k] != 0
    return m


cdef inline int _encode_race(const Board* a, int* idx, float* val) noexcept nogil:
    """The non-zero race inputs of ``a`` (side 0, on roll, then side 1; their estimated ones in
    the same order; the race's estimated chances), columns ``NN_IN ..``.  Writes
    ``NN_RACE_IN`` entries of ``idx`` and ``val`` whatever it returns."""
    cdef float v[NN_RACE_IN]
    cdef RaceRolls r0, r1
    cdef RacePlan plan0, plan1
    _race_plan(a.side[0], &plan0)
    _race_plan(a.side[1], &plan1)
    _race_side(&plan0, v, v + 2 * RACE_SIDE, &r0)
    _race_side(&plan1, v + RACE_SIDE, v + 2 * RACE_SIDE + RACE_EST_SIDE, &r1)
    _race_chances(&r0, &r1, v + 2 * (RACE_SIDE + RACE_EST_SIDE))
    return _race_entries(v, NN_IN, NN_RACE_IN, idx, val)


cdef inline int _encode_race_on_roll(const RaceSide* on_roll, int* idx, float* val) noexcept nogil:
    """The race inputs of the side on roll alone (``on_roll``, valid): the part of
    :c:func:`_encode_race` that the plays of one parent share."""
    cdef int m = _race_entries(on_roll.v, NN_IN, RACE_SIDE, idx, val)
    return m + _race_entries(on_roll.e, NN_IN + 2 * RACE_SIDE, RACE_EST_SIDE, idx + m, val + m)


cdef inline int _encode_race_mover(const Board* a, RaceSide* on_roll, int* idx, float* val) noexcept nogil:
    """The rest of :c:func:`_encode_race` after :c:func:`_encode_race_on_roll`: the
    mover's race inputs, its estimated ones and the race's estimated chances."""
    cdef float v[RACE_SIDE]
    cdef float e[RACE_EST_SIDE]
    cdef float c[RACE_CHANCES]
    cdef RaceRolls r1
    cdef RacePlan plan1
    cdef int m
    _race_plan(a.side[1], &plan1)
    _race_on_roll(a, on_roll)
    _race_side(&plan1, v, e, &r1)
    _race_chances(&on_roll.rolls, &r1, c)
    m = _race_entries(v, NN_IN + RACE_SIDE, RACE_SIDE, idx, val)
    m += _race_entries(e, NN_IN + 2 * RACE_SIDE + RACE_EST_SIDE, RACE_EST_SIDE, idx + m, val + m)
    return m + _race_entries(c, NN_IN + 2 * (RACE_SIDE + RACE_EST_SIDE), RACE_CHANCES, idx + m, val + m)


cdef inline int _encode_delta(const Board* a, const Board* parent, int* idx, float* val) noexcept nogil:
    """The changes of the point-code inputs from ``parent`` to ``a`` (same frame).  Writes up
    to 3 entries of ``idx`` and ``val`` beyond those it returns."""
    cdef const uint8_t* pa = <const uint8_t*> a
    cdef const uint8_t* pp = <const uint8_t*> parent
    cdef int m = 0, w, j, k, base
    cdef uint64_t changed = 0       # bit j: byte j of the boards differs (the padding never does)
    cdef const CodeChange* c
    for w in range(7):
        changed |= (<uint64_t> nonzero_bytes(load8(pa + 8 * w) ^ load8(pp + 8 * w))) << (8 * w)
    while changed:
        j = __builtin_ctzll(changed)
        changed &= changed - 1
        base = 4 * j if j < 25 else NN_RAW_SIDE + 4 * (j - 25)
        c = &CHANGE[pp[j]][pa[j]]
        for k in range(4):
            idx[m + k] = base + c.unit[k]
            val[m + k] = c.delta[k]
        m += c.count
    return m


cdef inline void _outputs(const NetPart* net, float* z, float* o) noexcept nogil:
    """From pre-activations ``z`` (overwritten by the activations) to the 5 output units."""
    nn_hidden_output(z, net.w2, net.b2, net.hidden, o)


cdef inline void _forward(const NetPart* net, const int* idx, const float* val, int m,
                          float* z, float* o) noexcept nogil:
    nn_accumulate(z, net.b1, net.w1, idx, val, m, NULL, NULL, 0, net.hidden)
    _outputs(net, z, o)


cdef void neural_eval_after(const Neural* nn, const Board* a, float* q) noexcept nogil:
    cdef int bits, m
    cdef int cls = _classify(a, &bits)
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    if _exact(a, cls, q):
        return
    m = _encode_raw(a, idx, val)
    m += _encode_hand(a, idx + m, val + m)
    if cls == CLASS_RACE:
        m += _encode_race(a, idx + m, val + m)
    _forward(&nn.part[cls], idx, val, m, z, o)             # the net of the class's index
    _joint(o, bits, q)


cdef void neural_rolls_init(NeuralRolls* r, const Board* parent) noexcept nogil:
    memcpy(&r.parent, parent, sizeof(Board))
    cdef int k
    r.rolled = False
    for k in range(NN_NETS):
        r.have[k] = False
        r.have_prune[k] = False


cdef void neural_roll_children(const Neural* nn, NeuralRolls* r, const MoveGen* g, float* out) noexcept nogil:
    _roll_children(nn, r, g, NULL, NULL, g.n, out)


cdef void _roll_children(const Neural* nn, NeuralRolls* r, const MoveGen* g, const int* which,
                         const int* classes, int n, float* out) noexcept nogil:
    """The children ``which[0 .. n - 1]`` of one roll (NULL: the first ``n``), their values at
    ``out + NN_OUT * j`` (``classes[j]``, unless NULL: the child's class and its bits << 8, as
    :func:`_classify` gives them): each net's sums start from the parent's point codes (shared by the
    rolls) plus the first of these children's hand-made inputs; each child adds the codes
    its play changed and the hand-made inputs that differ from that first child's.  The race
    net's sums hold the side on roll's race inputs too (the parent's side 0, every race
    play's); each race child adds the mover's and the chances.  The contact, backgame and crashed nets share
    one first child (the first with contact), so a backgame or crashed net with the contact
    net's weights gives the contact net's bits."""
    cdef float acc[NN_NETS][NN_MAX_HIDDEN]
    cdef bint have[NN_NETS]
    cdef bint have_ref[2]             # ref[0]: the first child with contact; ref[1]: the first race
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    cdef float q[NN_OUT]
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef int i, j, m, cls, net, bits
    cdef float hand[NN_HAND]
    cdef float ref[2][NN_HAND]
    cdef int group
    cdef const NetPart* part
    cdef const Board* a
    cdef const Board* parent = &r.parent
    cdef RaceSide on_roll
    on_roll.valid = False
    for net in range(NN_NETS):
        have[net] = False
    have_ref[0] = False
    have_ref[1] = False
    for j in range(n):
        i = j if which == NULL else which[j]
        a = &g.items[i].board
        if classes == NULL:
            cls = _classify(a, &bits)
        else:
            cls = classes[j] & 0xff
            bits = classes[j] >> 8
        if not _exact(a, cls, q):
            net = cls
            group = 1 if net == NET_RACE else 0
            part = &nn.part[net]
            if not r.rolled:
                heuristic_dense_roll(parent, &r.roll)
                r.rolled = True
            heuristic_dense_child(&r.roll, a, hand)
            if not have[net]:           # the parent's point codes and this first child's hand inputs
                if not r.have[net]:
                    m = _encode_raw(parent, idx, val)
                    if net == NET_RACE:   # the side on roll's race inputs: every race play of every roll has them
                        _race_on_roll(parent, &on_roll)
                        m += _encode_race_on_roll(&on_roll, idx + m, val + m)
                    nn_accumulate(r.raw[net], part.b1, part.w1, idx, val, m, NULL, NULL, 0, part.hidden)
                    r.have[net] = True
                if not have_ref[group]:
                    memcpy(ref[group], hand, NN_HAND * sizeof(float))
                    have_ref[group] = True
                nn_accumulate(acc[net], r.raw[net], part.w1, idx, val, 0, part.w1 + NN_RAW * part.hidden,
                              ref[group], NN_HAND, part.hidden)
                have[net] = True
            m = _encode_delta(a, parent, idx, val)
            # siblings share most hand inputs: add the ones that differ
            m = nn_changed(hand, ref[group], NN_HAND, NN_RAW, idx, val, m)
            if net == NET_RACE:         # the mover's race inputs: the shared sums hold the side on roll's
                m += _encode_race_mover(a, &on_roll, idx + m, val + m)
            nn_accumulate(z, acc[net], part.w1, idx, val, m, NULL, NULL, 0, part.hidden)
            _outputs(part, z, o)
            _joint(o, bits, q)
        probs_flip(q, out + NN_OUT * j)


cdef inline float _prune_equity(const Neural* nn, NeuralRolls* r, const Board* a, int cls, int bits) noexcept nogil:
    """The pruning nets' cubeless equity for the mover of child ``a`` of ``r.parent``, of
    class ``cls`` and ``bits`` (the exact value of a pure bear-off or a decided game)."""
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef float z[NN_PRUNE_MAX_HIDDEN]
    cdef float q[NN_OUT]
    cdef float p[NN_OUT]
    cdef int m
    cdef const PruneNet* net
    if not _exact(a, cls, q):
        net = &nn.prune[cls]
        if not r.have_prune[cls]:
            m = _encode_raw(&r.parent, idx, val)
            nn_accumulate(r.prune_raw[cls], net.b1, net.w1, idx, val, m, NULL, NULL, 0, net.hidden)
            r.have_prune[cls] = True
        m = _encode_delta(a, &r.parent, idx, val)
        nn_accumulate(z, r.prune_raw[cls], net.w1, idx, val, m, NULL, NULL, 0, net.hidden)
        return -nn_hidden_dot(z, net.w2, net.b2, net.hidden)     # the side on roll's, turned
    probs_flip(q, p)
    return probs_equity(p)


cdef int neural_roll_best(const Neural* nn, NeuralRolls* r, const MoveGen* g, bint prune, float* best,
                          float* scratch) noexcept nogil:
    cdef int top[NN_MAX_CANDIDATES]
    cdef int classes[NN_MAX_CANDIDATES]
    cdef int cls[MAX_CHILDREN]
    cdef int bits
    cdef float keys[NN_MAX_CANDIDATES]
    cdef float vals[NN_MAX_CANDIDATES * NN_OUT]
    cdef int n = g.n, keep = NN_PRUNE_BASE, kept = 0, i, j, k, choice = 0
    cdef float v, best_v = 0
    while (2 << (keep - NN_PRUNE_BASE)) <= n:      # NN_PRUNE_BASE + floor(log2(n))
        keep += 1
    if not prune or nn.prune_hidden == 0 or n <= keep or is_race(&r.parent):   # a race: every play
        neural_roll_candidates(nn, r, g, &choice, 1, 0.0, best, NULL, scratch)
        return choice
    for i in range(n):
        cls[i] = _classify(&g.items[i].board, &bits)
        kept = topk_insert(keys, top, kept, keep, _prune_equity(nn, r, &g.items[i].board, cls[i], bits), i)
        cls[i] |= bits << 8
    for i in range(1, kept):                       # in the plays' order: ties go to the first
        j = i
        k = top[i]
        while j > 0 and top[j - 1] > k:
            top[j] = top[j - 1]
            j -= 1
        top[j] = k
    for j in range(kept):
        classes[j] = cls[top[j]]
    _roll_children(nn, r, g, top, classes, kept, vals)
    for j in range(kept):
        v = probs_equity(vals + NN_OUT * j)
        if j == 0 or v > best_v:
            best_v = v
            choice = j
    if best != NULL:
        memcpy(best, vals + NN_OUT * choice, NN_OUT * sizeof(float))
    return top[choice]


cdef void neural_children(const Neural* nn, const MoveGen* g, const Board* parent, float* out) noexcept nogil:
    cdef NeuralRolls r
    neural_rolls_init(&r, parent)
    neural_roll_children(nn, &r, g, out)


cdef void neural_parent_init(NeuralParent* ps, const Board* parent) noexcept nogil:
    cdef int k
    memcpy(&ps.parent, parent, sizeof(Board))
    heuristic_dense_roll(parent, &ps.roll)
    heuristic_dense(parent, ps.hand)
    for k in range(NN_NETS):
        ps.have[k] = False


cdef void neural_children_of(const Neural* nn, NeuralParent* ps, const MoveGen* g, const int* which, int n,
                             float* out) noexcept nogil:
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    cdef float q[NN_OUT]
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef float hand[NN_HAND]
    cdef int i, m, cls, net, bits
    cdef const NetPart* part
    cdef const Board* a
    cdef RaceSide on_roll
    on_roll.valid = False
    for i in range(n):
        a = &g.items[which[i]].board
        cls = _classify(a, &bits)
        if not _exact(a, cls, q):
            net = cls
            part = &nn.part[net]
            if not ps.have[net]:
                m = _encode_raw(&ps.parent, idx, val)
                if net == NET_RACE:
                    _race_on_roll(&ps.parent, &on_roll)
                    m += _encode_race_on_roll(&on_roll, idx + m, val + m)
                nn_accumulate(ps.acc[net], part.b1, part.w1, idx, val, m, part.w1 + NN_RAW * part.hidden, ps.hand,
                              NN_HAND, part.hidden)
                ps.have[net] = True
            heuristic_dense_child(&ps.roll, a, hand)
            m = _encode_delta(a, &ps.parent, idx, val)
            m = nn_changed(hand, ps.hand, NN_HAND, NN_RAW, idx, val, m)
            if net == NET_RACE:
                m += _encode_race_mover(a, &on_roll, idx + m, val + m)
            nn_accumulate(z, ps.acc[net], part.w1, idx, val, m, NULL, NULL, 0, part.hidden)
            _outputs(part, z, o)
            _joint(o, bits, q)
        probs_flip(q, out + NN_OUT * i)


cdef int neural_roll_candidates(const Neural* nn, NeuralRolls* r, const MoveGen* g, int* top, int most,
                                float window, float* best, const PlayValue* value, float* scratch) noexcept nogil:
    cdef float small[SMALL_ROLL * NN_OUT]
    cdef float* vals = scratch
    cdef float tope[NN_MAX_CANDIDATES]
    cdef float ties[NN_MAX_CANDIDATES]
    cdef float key
    cdef int i, j, k, n = g.n, kept = 0
    if most > NN_MAX_CANDIDATES:
        most = NN_MAX_CANDIDATES
    top[0] = 0
    if n < 1 or most < 1:
        return 0
    if scratch == NULL:
        if n <= SMALL_ROLL:
            vals = small
        else:
            vals = <float*> malloc(n * NN_OUT * sizeof(float))
    neural_roll_children(nn, r, g, vals)
    if value == NULL and most == 1:     # the 0-ply favourite alone: the first of the best
        tope[0] = probs_equity(vals)
        for i in range(1, n):
            key = probs_equity(vals + NN_OUT * i)
            if key > tope[0]:
                tope[0] = key
                top[0] = i
        kept = 1
    else:
        for i in range(n):
            if value == NULL:
                kept = topk_insert(tope, top, kept, most, probs_equity(vals + NN_OUT * i), i)
            else:                       # equal values (a play the opponent doubles out) by cubeless equity
                kept = topk_insert_tied(tope, ties, top, kept, most, <float> value.fn(vals + NN_OUT * i, value.ctx),
                                        probs_equity(vals + NN_OUT * i), i)
    if best != NULL:
        for k in range(NN_OUT):
            best[k] = vals[NN_OUT * top[0] + k]
    if vals != small and vals != scratch:
        free(vals)
    for j in range(1, kept):
        if tope[j] < tope[0] - window:
            return j
    return kept


cdef int neural_candidates(const Neural* nn, const MoveGen* g, const Board* parent, int* top, int most,
                           float window, float* best, const PlayValue* value) noexcept nogil:
    cdef NeuralRolls r
    neural_rolls_init(&r, parent)
    return neural_roll_candidates(nn, &r, g, top, most, window, best, value, NULL)


cdef int neural_choose(const Neural* nn, const MoveGen* g, const Board* parent) noexcept nogil:
    cdef int best = 0
    neural_candidates(nn, g, parent, &best, 1, 0.0, NULL, NULL)
    return best


# ---------------------------------------------------------------- training

cdef float neural_train_step(Neural* nn, int net, const Board* a, const float* target, float lr,
                             float* tmp) noexcept nogil:
    """One gradient step of net ``net`` moving its value of ``a`` (after side 1's play) towards
    ``target``, side 0's five probabilities; returns the squared error of the win output
    before the step."""
    cdef NetPart* part = &nn.part[net]
    cdef const float* t = target
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    cdef float dz[NN_OUT]
    cdef int m, bits
    m = _encode_raw(a, idx, val)
    m += _encode_hand(a, idx + m, val + m)
    if net == NET_RACE:
        m += _encode_race(a, idx + m, val + m)
    _forward(part, idx, val, m, z, o)
    _classify(a, &bits)
    dz[0] = o[0] - t[0]
    dz[1] = t[0] * o[1] - t[1] if bits & 2 else 0.0
    dz[2] = t[1] * o[2] - t[2] if bits & 4 else 0.0
    dz[3] = (1 - t[0]) * o[3] - t[3] if bits & 8 else 0.0
    dz[4] = t[3] * o[4] - t[4] if bits & 16 else 0.0
    nn_backprop(part.w1, part.b1, part.w2, part.b2, part.hidden, idx, val, m, z, dz, lr, tmp)
    return dz[0] * dz[0]


# ---------------------------------------------------------------- Python entry points

cdef inline bint _board_arg(const unsigned char[::1] data, Board* b) except False:
    if data.shape[0] != 50:
        raise ValueError("a board is 50 bytes (the opponent's 25 counts, then the side on roll's), "
                         "got %d" % data.shape[0])
    board_from_bytes(&data[0], b)
    if check_board(b):
        raise ValueError("not a legal board: more than 15 checkers a side or a point held by both")
    return True


cdef inline bint _dice_arg(int d1, int d2) except False:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError("dice are 1..6, got %d, %d" % (d1, d2))
    return True


cdef inline int _rows(int net) noexcept nogil:
    """The first-layer rows net ``net`` reads: the shared inputs, and the race net's own."""
    return NN_ROWS if net == NET_RACE else NN_IN


cdef class Model:
    """The contact, race, backgame and crashed nets with their weights (float32, owned by the model).

    :param contact_hidden: hidden units of the contact net (a multiple of 8, 8 to 512).
    :param race_hidden: hidden units of the race net.
    :param backgame_hidden: hidden units of the backgame net (back games and
        prime-versus-prime positions); None: ``contact_hidden``.
    :param crashed_hidden: hidden units of the crashed net (a side crashed, by gnubg's rule:
        :func:`bgfast.position_class.has_crashed`); None: ``contact_hidden``.
    :param prune_hidden: hidden units of each net's pruning net (a multiple of 8, 8 to
        ``PRUNE_MAX_HIDDEN``), or 0 (the default) for none: the small nets on the point codes
        alone that rank a roll's plays inside the search before the nets value the best few
        (:mod:`bgfast._core.search`, :mod:`bgfast.train.prune`).
    :raises ValueError: a hidden size out of range.

    Weights are zero until :meth:`set_weights` (see :mod:`bgfast.bots.neural_weights`
    for the file format and :mod:`bgfast.train` for training).  Boards are 50 bytes:
    the opponent's 25 counts then those of the side on roll (gnubg order, each side
    from its own view, index 24 = the bar).
    """
    def __cinit__(self, int contact_hidden=128, int race_hidden=64, backgame_hidden=None, *, crashed_hidden=None,
                  int prune_hidden=0):
        cdef int k, h
        cdef int hidden[NN_NETS]
        cdef void* mem
        memset(&self.nn, 0, sizeof(Neural))
        self.g = NULL
        hidden[NET_CONTACT] = contact_hidden
        hidden[NET_RACE] = race_hidden
        hidden[NET_BACKGAME] = contact_hidden if backgame_hidden is None else backgame_hidden
        hidden[NET_CRASHED] = contact_hidden if crashed_hidden is None else crashed_hidden
        for k in range(NN_NETS):
            h = hidden[k]
            if h < 8 or h > NN_MAX_HIDDEN or h % 8:
                raise ValueError("hidden units must be a multiple of 8 from 8 to %d, got %d"
                                 % (NN_MAX_HIDDEN, h))
        if prune_hidden != 0 and (prune_hidden < 8 or prune_hidden > NN_PRUNE_MAX_HIDDEN or prune_hidden % 8):
            raise ValueError("pruning nets have 0 or a multiple of 8 from 8 to %d hidden units, got %d"
                             % (NN_PRUNE_MAX_HIDDEN, prune_hidden))
        self.contact_hidden = hidden[NET_CONTACT]
        self.race_hidden = hidden[NET_RACE]
        self.backgame_hidden = hidden[NET_BACKGAME]
        self.crashed_hidden = hidden[NET_CRASHED]
        self.prune_hidden = prune_hidden
        self.nn.prune_hidden = prune_hidden
        for k in range(NN_NETS):
            h = hidden[k]
            self.nn.part[k].hidden = h
            mem = NULL
            if posix_memalign(&mem, 64, (NN_ROWS + 1 + NN_OUT) * h * sizeof(float)):
                raise MemoryError()
            memset(mem, 0, (NN_ROWS + 1 + NN_OUT) * h * sizeof(float))
            self.nn.part[k].w1 = <float*> mem
            self.nn.part[k].b1 = self.nn.part[k].w1 + NN_ROWS * h
            self.nn.part[k].w2 = self.nn.part[k].b1 + h
            if prune_hidden:
                mem = NULL
                if posix_memalign(&mem, 64, (NN_RAW + 2) * prune_hidden * sizeof(float)):
                    raise MemoryError()
                memset(mem, 0, (NN_RAW + 2) * prune_hidden * sizeof(float))
                self.nn.prune[k].hidden = prune_hidden
                self.nn.prune[k].w1 = <float*> mem
                self.nn.prune[k].b1 = self.nn.prune[k].w1 + NN_RAW * prune_hidden
                self.nn.prune[k].w2 = self.nn.prune[k].b1 + prune_hidden
        self.g = movegen_new()
        if self.g == NULL:
            raise MemoryError()
        with nogil:
            bearoff_build()
        if not bearoff_ready():
            raise MemoryError()

    def __dealloc__(self):
        cdef int k
        for k in range(NN_NETS):
            free(self.nn.part[k].w1)
            free(self.nn.prune[k].w1)
        movegen_free(self.g)

    def __reduce__(self):
        return (_model_with, (self.contact_hidden, self.race_hidden, self.backgame_hidden, self.crashed_hidden,
                              self.get_weights(), self.prune_hidden))

    def _arrays(self):
        """``(name, shape, address)`` of each weights array in file order: each net's ``w1``,
        ``b1``, ``w2``, ``b2``, then, with pruning nets, ``contact.prune.w1``..."""
        cdef int k, h
        cdef NetPart* part
        cdef PruneNet* prune
        out = []
        for k in range(NN_NETS):
            part = &self.nn.part[k]
            h = part.hidden
            out += [(NETS[k] + ".w1", (_rows(k), h), <size_t> part.w1), (NETS[k] + ".b1", (h,), <size_t> part.b1),
                    (NETS[k] + ".w2", (NN_OUT, h), <size_t> part.w2), (NETS[k] + ".b2", (NN_OUT,), <size_t> part.b2)]
        for k in range(NN_NETS if self.prune_hidden else 0):
            prune = &self.nn.prune[k]
            h = prune.hidden
            name = NETS[k] + ".prune"
            out += [(name + ".w1", (NN_RAW, h), <size_t> prune.w1), (name + ".b1", (h,), <size_t> prune.b1),
                    (name + ".w2", (1, h), <size_t> prune.w2), (name + ".b2", (1,), <size_t> &prune.b2)]
        return out

    def shapes(self):
        """The arrays of :meth:`get_weights`, by name: ``{name: shape}`` in file order (each
        net's ``w1``, ``b1``, ``w2``, ``b2``, then, with pruning nets, ``contact.prune.w1``...:
        ``w1`` ``RAW_INPUTS`` x h, ``b1``, ``w2`` 1 x h, ``b2`` of 1, the linear output)."""
        return {name: shape for name, shape, _ in self._arrays()}

    def get_weights(self):
        """Copies of the weights: ``{name: float32 array}`` in :meth:`shapes` order; ``w1[i]``
        is input i's column (``INPUTS`` x hidden; the race net's ``INPUTS + RACE_INPUTS``; a
        pruning net's ``RAW_INPUTS``), ``w2[k]`` output k's row."""
        cdef size_t address
        out = {}
        for name, shape, address in self._arrays():
            out[name] = np.array(<float[:int(np.prod(shape))]> <float*> address).reshape(shape)
        return out

    def set_weights(self, weights):
        """Load ``{name: array}`` with the names and shapes of :meth:`shapes` (others are
        ignored: a model without pruning nets takes weights with them).

        :raises ValueError: a missing array or one of another shape.
        """
        cdef float[::1] flat
        cdef size_t address
        arrays = []
        for name, shape, address in self._arrays():
            if name not in weights:
                raise ValueError("the weights have no array %r" % name)
            arr = np.ascontiguousarray(weights[name], dtype=np.float32)
            if arr.shape != shape:
                raise ValueError("weights %r: shape %r, expected %r" % (name, arr.shape, shape))
            arrays.append((arr.ravel(), address))
        for arr, address in arrays:
            flat = arr
            memcpy(<float*> address, &flat[0], flat.shape[0] * sizeof(float))

    def evaluate(self, const unsigned char[::1] board):
        """Probabilities ``(win, win_gammon, win_bg, lose_gammon, lose_bg)`` of the side on roll
        (side 1 of ``board``), before its roll, at 0 ply (the net's value of the position as
        the opponent left it).  Deeper looks are the evaluator dispatch's
        (:class:`bgfast._core.evaluator.CoreEvaluator` with ``kind=EVAL_NEURAL``)."""
        cdef Board b, a
        cdef float p[NN_OUT]
        _board_arg(board, &b)
        board_swap(&a, &b)
        neural_eval_after(&self.nn, &a, p)
        return (p[0], p[1], p[2], p[3], p[4])

    def evaluate_after(self, const unsigned char[::1] board):
        """Probabilities of side 1 of ``board`` after its play (side 0 to roll next)."""
        cdef Board b
        cdef float q[NN_OUT]
        cdef float p[NN_OUT]
        _board_arg(board, &b)
        neural_eval_after(&self.nn, &b, q)
        probs_flip(q, p)
        return (p[0], p[1], p[2], p[3], p[4])

    def evaluate_net(self, const unsigned char[::1] board):
        """The bare net's probabilities of the side on roll (side 1 of ``board``): the race net
        for a race (pure bear-offs included), the backgame net for a back game or a
        prime-versus-prime position, the crashed net for a crashed one, else the contact net, without the bear-off database or
        the exact values of decided positions (for tests and analysis).

        :raises ValueError: not a legal 50-byte board, or a game that is over."""
        cdef Board b, a
        cdef int idx[MAX_SPARSE]
        cdef float val[MAX_SPARSE]
        cdef float z[NN_MAX_HIDDEN]
        cdef float o[NN_OUT]
        cdef float q[NN_OUT]
        cdef int m, cls, bits, l0, r0, l1, r1
        _board_arg(board, &b)
        board_swap(&a, &b)
        if board_checkers(&a, 0) == 0 or board_checkers(&a, 1) == 0:
            raise ValueError("the game is over: a side has no checker left")
        _classify(&a, &bits)
        if is_race(&a):
            cls = CLASS_RACE
        else:
            _scan(a.side[0], &l0, &r0)
            _scan(a.side[1], &l1, &r1)
            cls = _contact_class(&a, l0, r0, l1, r1)
        if cls == CLASS_RACE:
            if not side_has_back_checker(a.side[1]):
                bits &= ~0x04
            if not side_has_back_checker(a.side[0]):
                bits &= ~0x10
        m = _encode_raw(&a, idx, val)
        m += _encode_hand(&a, idx + m, val + m)
        if cls == CLASS_RACE:
            m += _encode_race(&a, idx + m, val + m)
        _forward(&self.nn.part[cls], idx, val, m, z, o)
        _joint(o, bits, q)
        return (q[0], q[1], q[2], q[3], q[4])

    def evaluate_batch(self, const unsigned char[:, ::1] boards):
        """:meth:`evaluate` of each row of an (n, 50) uint8 array: an (n, 5) float32 array."""
        cdef Py_ssize_t i, n = boards.shape[0]
        cdef Board b, a
        if boards.shape[1] != 50:
            raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
        out = np.zeros((n, NN_OUT), dtype=np.float32)
        cdef float[:, ::1] o = out
        for i in range(n):
            _board_arg(boards[i], &b)
        with nogil:
            for i in range(n):
                board_from_bytes(&boards[i, 0], &b)
                board_swap(&a, &b)
                neural_eval_after(&self.nn, &a, &o[i, 0])
        return out

    def children(self, const unsigned char[::1] board, int d1, int d2):
        """``(children, probs)``: the distinct plays of (d1, d2) as 50-byte boards in the mover's
        frame and an (n, 5) array of the mover's probabilities after each (0 ply)."""
        cdef Board b
        cdef int i
        _board_arg(board, &b)
        _dice_arg(d1, d2)
        generate(self.g, &b, d1, d2)
        out = np.zeros((self.g.n, NN_OUT), dtype=np.float32)
        cdef float[:, ::1] o = out
        neural_children(&self.nn, self.g, &b, &o[0, 0])
        kids = [(<const char*> self.g.items[i].board.side[0])[:50] for i in range(self.g.n)]
        return kids, out

    def choose(self, const unsigned char[::1] board, int d1, int d2, bint prune=False):
        """The play of (d1, d2) the net picks at 0 ply (the best equity for the mover): the
        resulting 50-byte board in the mover's frame.  With ``prune`` (and pruning nets), as
        the search picks a reply: among the pruning nets' best ``PRUNE_BASE +
        floor(log2(plays))`` plays only (:c:func:`neural_roll_best`)."""
        cdef Board b
        cdef int idx
        cdef NeuralRolls rolls
        _board_arg(board, &b)
        _dice_arg(d1, d2)
        with nogil:
            generate(self.g, &b, d1, d2)
            if prune:
                neural_rolls_init(&rolls, &b)
                idx = neural_roll_best(&self.nn, &rolls, self.g, True, NULL, NULL)
            else:
                idx = neural_choose(&self.nn, self.g, &b)
        return (<const char*> self.g.items[idx].board.side[0])[:50]

    def choose_batch(self, const unsigned char[:, ::1] boards, const long long[:, ::1] dice):
        """:meth:`choose` for each row: boards (n, 50) uint8, dice (n, 2); returns the chosen
        plays as an (n, 50) uint8 array (mover's frame)."""
        cdef Py_ssize_t i, n = boards.shape[0]
        cdef Board b
        cdef int idx
        if boards.shape[1] != 50 or dice.shape[0] != n or dice.shape[1] != 2:
            raise ValueError("boards (n, 50) and dice (n, 2) are required")
        for i in range(n):
            _board_arg(boards[i], &b)
            _dice_arg(dice[i, 0], dice[i, 1])
        out = np.zeros((n, 50), dtype=np.uint8)
        cdef unsigned char[:, ::1] ov = out
        with nogil:
            for i in range(n):
                board_from_bytes(&boards[i, 0], &b)
                generate(self.g, &b, <int> dice[i, 0], <int> dice[i, 1])
                idx = neural_choose(&self.nn, self.g, &b)
                memcpy(&ov[i, 0], self.g.items[idx].board.side[0], 50)
        return out

def _model_with(int contact_hidden, int race_hidden, int backgame_hidden, int crashed_hidden, weights,
                int prune_hidden=0):
    """A model of these sizes with these weights (how a pickled model is rebuilt)."""
    model = Model(contact_hidden, race_hidden, backgame_hidden, crashed_hidden=crashed_hidden, prune_hidden=prune_hidden)
    model.set_weights(weights)
    return model


def board_class(const unsigned char[::1] board):
    """The class of a 50-byte board with side 1 on roll: 0 contact, 1 race, 2 backgame (a
    back game or a prime-versus-prime position, as :func:`bgfast.position_class.classify`
    has them), 3 crashed (its ``crashed``), each valued by the net ``NETS[class]``; 4 pure
    bear-off (the database values it), 5 decided (the game is over or side 1 surely bears
    off now).

    :raises ValueError: not a legal 50-byte board."""
    cdef Board b, a
    _board_arg(board, &b)
    board_swap(&a, &b)
    return neural_class(&a)


def inputs(const unsigned char[::1] board):
    """The net's input vector (``INPUTS`` float32) of a 50-byte board with side 1 on roll."""
    cdef Board b, a
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef int m, k
    _board_arg(board, &b)
    board_swap(&a, &b)
    m = _encode_raw(&a, idx, val)
    m += _encode_hand(&a, idx + m, val + m)
    out = np.zeros(NN_IN, dtype=np.float32)
    for k in range(m):
        out[idx[k]] = val[k]
    return out


def inputs_batch(const unsigned char[:, ::1] boards):
    """The net's inputs of each row of an (n, 50) uint8 array of boards (side 1 on roll), for
    supervised training outside the core: ``(x, cls, mask)`` with ``x`` an (n, ``INPUTS``)
    float32 array (:func:`inputs` of each row), ``cls`` the (n,) int8 :func:`board_class`
    and ``mask`` an (n, 5) float32 array of the outputs that can still be non-zero (1) or
    are exactly 0 whatever the net says (0: a gammon after a checker was borne off, a
    backgammon in a race with no checker left behind).  Releases the GIL.

    :raises ValueError: not (n, 50), or a row that is not a legal board.
    """
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Board b, a
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef int m, k, bits, cls
    if boards.shape[1] != 50:
        raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
    for i in range(n):
        _board_arg(boards[i], &b)
    x = np.zeros((n, NN_IN), dtype=np.float32)
    c = np.zeros(n, dtype=np.int8)
    mask = np.zeros((n, NN_OUT), dtype=np.float32)
    cdef float[:, ::1] xv = x
    cdef signed char[::1] cv = c
    cdef float[:, ::1] mv = mask
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            board_swap(&a, &b)
            cls = _classify(&a, &bits)
            cv[i] = cls
            for k in range(NN_OUT):
                mv[i, k] = 1.0 if bits & (1 << k) else 0.0
            if cls >= NN_NETS:            # no net values it
                continue
            m = _encode_raw(&a, idx, val)
            m += _encode_hand(&a, idx + m, val + m)
            for k in range(m):
                xv[i, idx[k]] = val[k]
    return x, c, mask


def race_inputs_batch(const unsigned char[:, ::1] boards):
    """The race net's own inputs (module docstring) of each row of an (n, 50) uint8 array of
    boards (side 1 on roll): an (n, ``RACE_INPUTS``) float32 array, computed for any legal
    board (the race net reads them after :func:`inputs_batch`'s ``INPUTS``).  Releases the GIL.

    :raises ValueError: not (n, 50), or a row that is not a legal board.
    """
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Board b, a
    cdef int idx[NN_RACE_IN]
    cdef float val[NN_RACE_IN]
    cdef int m, k
    if boards.shape[1] != 50:
        raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
    for i in range(n):
        _board_arg(boards[i], &b)
    with nogil:
        bearoff_build()                # the inputs read the bear-off database
    if not bearoff_ready():
        raise MemoryError()
    x = np.zeros((n, NN_RACE_IN), dtype=np.float32)
    cdef float[:, ::1] xv = x
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            board_swap(&a, &b)
            m = _encode_race(&a, idx, val)
            for k in range(m):
                xv[i, idx[k] - NN_IN] = val[k]
    return x
