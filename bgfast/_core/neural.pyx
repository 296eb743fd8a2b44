# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The neural-net evaluator, its self-play training, in C.

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

Nets.  One net (one hidden layer of sigmoid units) for contact positions and
one for races.  Pure bear-offs (both sides wholly in their home boards) are
valued by the one-sided bear-off database (``bearoff.pyx``) instead; a game
that is over, or where the side on roll bears off its last checkers with every
roll, gets its exact value.

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

Training (``Model.td_train``): TD(lambda) self-play (Sutton 1988; Tesauro 1992)
in its offline lambda-return form (Sutton and Barto 2018, section 12.1): each
game is played greedily at 0 ply with the weights fixed, then every position of
it is moved towards its lambda-return, computed backwards from the result with
the values the players saw.  The loss is the cross-entropy of each conditional
output, weighted by the target probability of its condition, so the gradient on
the logits is ``o0 - t_win``, ``t_win o1 - t_wg``, ``t_wg o2 - t_wbg``, ``(1 -
t_win) o3 - t_lg``, ``t_lg o4 - t_lbg``.  Plain stochastic gradient descent; the
same seed, first game and weights give the same net.
"""
import numpy as np

from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from bgfast._core.board cimport Board, BAR, board_swap, side_has_back_checker, board_checkers, board_from_bytes, check_board, load8, nonzero_bytes
from bgfast._core.movegen cimport MoveGen, Child, movegen_new, movegen_free, generate, MAX_CHILDREN
from bgfast._core.rng cimport Rng, rng_seed, rng_die, rng_below
from bgfast._core.evaluators cimport is_race, pubeval_choose
from bgfast._core.heuristic cimport heuristic_dense, heuristic_dense_roll, heuristic_dense_child, DenseRoll, H_NDENSE
from bgfast._core.probs cimport probs_flip, probs_equity, PlayValue
from bgfast._core.topk cimport topk_insert
from bgfast._core.bearoff cimport bearoff_build, bearoff_ready, bearoff_probs, is_pure_bearoff
from bgfast._core.neural cimport (
    NetPart, Neural, NeuralParent, NN_OUT, NN_RAW_SIDE, NN_RAW, NN_HAND, NN_IN, NN_MAX_HIDDEN, NN_NETS,
    NET_CONTACT, NET_RACE, CLASS_CONTACT, CLASS_RACE, CLASS_BEAROFF, CLASS_DECIDED,
)
from bgfast._core.rng import run_key

INPUTS = NN_IN
RAW_INPUTS = NN_RAW
HAND_INPUTS = NN_HAND
NETS = ("contact", "race")
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
MAX_HIDDEN = NN_MAX_HIDDEN
PLAYERS = {"neural": 0, "pubeval": 1, "random": 2}

DEF MAX_PLIES = 1024          # positions kept of one training game (longer games stop there)
DEF MAX_SPARSE = 320          # non-zero inputs of one position: at most 2 x 100 codes + 58
DEF SMALL_ROLL = 256          # children of a roll valued in a stack buffer (more: malloc)

cdef extern from *:
    """
    #include <stdint.h>
    #include <stddef.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    /* fp-contract=off: no clone fuses a multiply and an add, so all give the same bits */
    #define NN_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), \
                                     optimize("no-loop-unroll-and-jam", "fp-contract=off")))
    #elif defined(__GNUC__) && !defined(__clang__)
    #define NN_CLONES __attribute__((optimize("no-loop-unroll-and-jam", "fp-contract=off")))
    #else
    #define NN_CLONES
    #endif

    /* 1 / (1 + exp(-x)) lane by lane (GCC vector extensions), x clamped to [-30, 30]: exp
       through 2^t = 2^i 2^f with i = round(t), |f| <= 1/2, 2^f by its degree-6 Taylor
       polynomial (relative error below 2e-7), and 2^i built in the exponent bits.  One
       formula for vectors of 8 and of 16 lanes. */
    #define NN_DEFINE_SIGMOID(NAME, VF, VI)                                                   \
        static inline __attribute__((always_inline)) VF NAME(VF x) {                          \
            VI over, under, i;                                                                \
            VF t, f, p, hi = {0};                                                             \
            hi += 30.0f;                                                                      \
            over = x > hi;                                                                    \
            x = (VF)(((VI)x & ~over) | ((VI)hi & over));                                      \
            under = x < -hi;                                                                  \
            x = (VF)(((VI)x & ~under) | ((VI)(-hi) & under));                                 \
            t = x * -1.44269504f;                                                             \
            i = __builtin_convertvector(t + 64.5f, VI) - 64;                                  \
            f = t - __builtin_convertvector(i, VF);                                           \
            p = 1.0f + f * (0.693147181f + f * (0.240226507f + f * (0.0555041087f             \
                     + f * (0.00961812911f + f * (0.00133335581f + f * 0.000154035304f)))));  \
            return 1.0f / (1.0f + p * (VF)((i + 127) << 23));                                 \
        }
    typedef float nn_v8f __attribute__((vector_size(32)));
    typedef int32_t nn_v8i __attribute__((vector_size(32)));
    typedef float nn_v16f __attribute__((vector_size(64)));
    typedef int32_t nn_v16i __attribute__((vector_size(64)));
    NN_DEFINE_SIGMOID(nn_sigmoid8, nn_v8f, nn_v8i)
    NN_DEFINE_SIGMOID(nn_sigmoid16, nn_v16f, nn_v16i)

    /* z[j0:j0+B] = src[j0:j0+B] + sum_k val[k] w[idx[k] H + j0 ...] + sum_k dval[k] dw[k H + j0 ...]:
       the block of B hidden units stays in registers while every column is added, so each
       column is read once; each z[j] gets its additions in the order of the columns. */
    static inline __attribute__((always_inline)) void nn_block(
            float* z, const float* src, const float* restrict w, const int* idx, const float* val, int m,
            const float* restrict dw, const float* dval, int nd, int H, int j0, int B) {
        float acc[64];
        int k, j;
        __builtin_memcpy(acc, src + j0, B * sizeof(float));
        for (k = 0; k < m; k++) {
            const float* restrict row = w + (size_t)idx[k] * (size_t)H + j0;
            float a = val[k];
            for (j = 0; j < B; j++) acc[j] += a * row[j];
        }
        for (k = 0; k < nd; k++) {
            const float* restrict row = dw + (size_t)k * (size_t)H + j0;
            float a = dval[k];
            for (j = 0; j < B; j++) acc[j] += a * row[j];
        }
        __builtin_memcpy(z + j0, acc, B * sizeof(float));
    }

    /* Append (first + j, a[j] - b[j]) to idx/val for each j < n (n <= 64) where that
       difference is not 0, in the order of j; returns the new count m. */
    static inline int nn_changed(const float* a, const float* b, int n, int first, int* idx,
                                 float* val, int m) {
        uint64_t mask = 0;
        int j = 0;
    #if defined(__SSE2__)
        for (; j + 4 <= n; j += 4) {
            __m128 d = _mm_sub_ps(_mm_loadu_ps(a + j), _mm_loadu_ps(b + j));
            mask |= (uint64_t)_mm_movemask_ps(_mm_cmpneq_ps(d, _mm_setzero_ps())) << j;
        }
    #endif
        for (; j < n; j++) mask |= (uint64_t)(a[j] - b[j] != 0.0f) << j;
        while (mask) {
            j = __builtin_ctzll(mask);
            mask &= mask - 1;
            idx[m] = first + j;
            val[m] = a[j] - b[j];
            m++;
        }
        return m;
    }

    /* z[0:H] = src[0:H] (z itself or another array) + the m sparse columns idx/val of w, then
       the nd dense rows of dw (contiguous, all of them: a zero weight adds nothing) with
       weights dval; H a multiple of 8.  Blocks of 64 units where they fit (8 AVX registers). */
    NN_CLONES static void nn_accumulate(float* z, const float* src, const float* restrict w, const int* idx,
                                        const float* val, int m, const float* restrict dw,
                                        const float* dval, int nd, int H) {
        int j0 = 0;
        for (; j0 + 64 <= H; j0 += 64) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 64);
        for (; j0 + 32 <= H; j0 += 32) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 32);
        for (; j0 < H; j0 += 8) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 8);
    }

    /* h = sigmoid(z) in place, then out[o] = sigmoid(b2[o] + w2[o] . h) for the 5 outputs */
    NN_CLONES static void nn_hidden_output(float* restrict z, const float* restrict w2,
                                           const float* b2, int H, float* out) {
        int j, o, k;
        nn_v8f logits = {0, 0, 0, 0, 0, 0, 0, 0}, s[5], a, h;
        for (j = 0; j + 16 <= H; j += 16) {
            nn_v16f v;
            __builtin_memcpy(&v, z + j, sizeof(v));
            v = nn_sigmoid16(v);
            __builtin_memcpy(z + j, &v, sizeof(v));
        }
        if (j < H) {
            nn_v8f v;
            __builtin_memcpy(&v, z + j, sizeof(v));
            v = nn_sigmoid8(v);
            __builtin_memcpy(z + j, &v, sizeof(v));
        }
        for (o = 0; o < 5; o++) s[o] = logits;
        for (j = 0; j < H; j += 8) {       /* the 5 sums side by side: independent chains */
            __builtin_memcpy(&h, z + j, sizeof(h));
            for (o = 0; o < 5; o++) {
                __builtin_memcpy(&a, w2 + (size_t)o * (size_t)H + j, sizeof(a));
                s[o] += a * h;             /* lane k sums the products j + k, j += 8 */
            }
        }
        for (o = 0; o < 5; o++) {
            float t = 0;
            for (k = 0; k < 8; k++) t += s[o][k];
            logits[o] = t + b2[o];
        }
        logits = nn_sigmoid8(logits);
        for (o = 0; o < 5; o++) out[o] = logits[o];
    }

    /* One gradient step on one position: h its hidden activations, dz2 the gradient on the
       5 logits; the hidden gradient uses w2 before its update.  tmp: H floats of scratch. */
    NN_CLONES static void nn_backprop(float* restrict w1, float* restrict b1, float* restrict w2,
                                      float* b2, int H, const int* idx, const float* val, int m,
                                      const float* restrict h, const float* dz2, float lr,
                                      float* restrict tmp) {
        int j, o, k;
        for (j = 0; j < H; j++) tmp[j] = 0.0f;
        for (o = 0; o < 5; o++) {
            const float* restrict w = w2 + (size_t)o * (size_t)H;
            float d = dz2[o];
            if (d == 0.0f) continue;
            for (j = 0; j < H; j++) tmp[j] += d * w[j];
        }
        for (j = 0; j < H; j++) tmp[j] *= h[j] * (1.0f - h[j]);
        for (o = 0; o < 5; o++) {
            float* restrict w = w2 + (size_t)o * (size_t)H;
            float a = -lr * dz2[o];
            if (a == 0.0f) continue;
            for (j = 0; j < H; j++) w[j] += a * h[j];
            b2[o] += a;
        }
        for (j = 0; j < H; j++) b1[j] -= lr * tmp[j];
        for (k = 0; k < m; k++) {
            float* restrict row = w1 + (size_t)idx[k] * (size_t)H;
            float a = -lr * val[k];
            for (j = 0; j < H; j++) row[j] += a * tmp[j];
        }
    }
    """
    void nn_accumulate(float* z, const float* src, const float* w, const int* idx, const float* val, int m,
                       const float* dw, const float* dval, int nd, int H) nogil
    int nn_changed(const float* a, const float* b, int n, int first, int* idx, float* val, int m) nogil
    void nn_hidden_output(float* z, const float* w2, const float* b2, int H, float* out) nogil
    void nn_backprop(float* w1, float* b1, float* w2, float* b2, int H, const int* idx,
                     const float* val, int m, const float* h, const float* dz2, float lr,
                     float* tmp) nogil
    int posix_memalign(void** p, size_t alignment, size_t size) nogil


cdef extern from *:
    int __builtin_ctz(unsigned int x) nogil
    int __builtin_ctzll(unsigned long long x) nogil
    int __builtin_clz(unsigned int x) nogil


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
cdef float NO_HAND[NN_HAND]


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
    return CLASS_CONTACT


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


cdef inline void _joint(const float* o, int bits, float* q) noexcept nogil:
    """The five probabilities from the conditional outputs ``o``, masked by ``bits``."""
    q[0] = o[0]
    q[1] = o[0] * o[1] if bits & 2 else 0.0
    q[2] = q[1] * o[2] if bits & 4 else 0.0
    q[3] = (1 - o[0]) * o[3] if bits & 8 else 0.0
    q[4] = q[3] * o[4] if bits & 16 else 0.0


# ---------------------------------------------------------------- the forward pass

cdef inline int _encode_raw(const Board* a, int* idx, float* val) noexcept nogil:
    """The non-zero point-code inputs of ``a``: side 0 (on roll) first, then side 1."""
    cdef int m = 0, s, i, k, n, base
    for s in range(2):
        base = 0 if s == 0 else NN_RAW_SIDE
        for i in range(25):
            n = a.side[s][i]
            if n:
                for k in range(4):
                    if CODE[n][k] != 0:
                        idx[m] = base + 4 * i + k
                        val[m] = CODE[n][k]
                        m += 1
    return m


cdef inline int _encode_hand(const Board* a, int* idx, float* val) noexcept nogil:
    """The non-zero hand-made inputs of ``a``."""
    cdef float v[NN_HAND]
    heuristic_dense(a, v)
    return nn_changed(v, NO_HAND, NN_HAND, NN_RAW, idx, val, 0)


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
    cdef Board s
    if cls == CLASS_DECIDED:
        _decided(a, q)
        return
    if cls == CLASS_BEAROFF:
        board_swap(&s, a)
        bearoff_probs(&s, q)
        return
    m = _encode_raw(a, idx, val)
    m += _encode_hand(a, idx + m, val + m)
    _forward(&nn.part[NET_RACE if cls == CLASS_RACE else NET_CONTACT], idx, val, m, z, o)
    _joint(o, bits, q)


cdef void neural_children(const Neural* nn, const MoveGen* g, const Board* parent, float* out) noexcept nogil:
    cdef float acc[NN_NETS][NN_MAX_HIDDEN]
    cdef bint have[NN_NETS]
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    cdef float q[NN_OUT]
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef int i, m, cls, net, bits
    cdef float hand[NN_HAND]
    cdef float ref[NN_NETS][NN_HAND]
    cdef DenseRoll roll
    cdef bint rolled = False
    cdef const NetPart* part
    cdef const Board* a
    cdef Board s
    have[0] = False
    have[1] = False
    for i in range(g.n):
        a = &g.items[i].board
        cls = _classify(a, &bits)
        if cls == CLASS_DECIDED:
            _decided(a, q)
        elif cls == CLASS_BEAROFF:
            board_swap(&s, a)
            bearoff_probs(&s, q)
        else:
            net = NET_RACE if cls == CLASS_RACE else NET_CONTACT
            part = &nn.part[net]
            if not rolled:
                heuristic_dense_roll(parent, &roll)
                rolled = True
            heuristic_dense_child(&roll, a, hand)
            if not have[net]:           # the parent's point codes and this first child's hand inputs
                m = _encode_raw(parent, idx, val)
                memcpy(ref[net], hand, NN_HAND * sizeof(float))
                nn_accumulate(acc[net], part.b1, part.w1, idx, val, m, part.w1 + NN_RAW * part.hidden, hand,
                              NN_HAND, part.hidden)
                have[net] = True
            m = _encode_delta(a, parent, idx, val)
            # siblings share most hand inputs: add the ones that differ
            m = nn_changed(hand, ref[net], NN_HAND, NN_RAW, idx, val, m)
            nn_accumulate(z, acc[net], part.w1, idx, val, m, NULL, NULL, 0, part.hidden)
            _outputs(part, z, o)
            _joint(o, bits, q)
        probs_flip(q, out + NN_OUT * i)


cdef void neural_parent_init(NeuralParent* ps, const Board* parent) noexcept nogil:
    memcpy(&ps.parent, parent, sizeof(Board))
    heuristic_dense_roll(parent, &ps.roll)
    heuristic_dense(parent, ps.hand)
    ps.have[0] = False
    ps.have[1] = False


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
    cdef Board s
    for i in range(n):
        a = &g.items[which[i]].board
        cls = _classify(a, &bits)
        if cls == CLASS_DECIDED:
            _decided(a, q)
        elif cls == CLASS_BEAROFF:
            board_swap(&s, a)
            bearoff_probs(&s, q)
        else:
            net = NET_RACE if cls == CLASS_RACE else NET_CONTACT
            part = &nn.part[net]
            if not ps.have[net]:
                m = _encode_raw(&ps.parent, idx, val)
                nn_accumulate(ps.acc[net], part.b1, part.w1, idx, val, m, part.w1 + NN_RAW * part.hidden, ps.hand,
                              NN_HAND, part.hidden)
                ps.have[net] = True
            heuristic_dense_child(&ps.roll, a, hand)
            m = _encode_delta(a, &ps.parent, idx, val)
            m = nn_changed(hand, ps.hand, NN_HAND, NN_RAW, idx, val, m)
            nn_accumulate(z, ps.acc[net], part.w1, idx, val, m, NULL, NULL, 0, part.hidden)
            _outputs(part, z, o)
            _joint(o, bits, q)
        probs_flip(q, out + NN_OUT * i)


cdef int neural_candidates(const Neural* nn, const MoveGen* g, const Board* parent, int* top, int most,
                           float window, float* best, const PlayValue* value) noexcept nogil:
    cdef float small[SMALL_ROLL * NN_OUT]
    cdef float* vals = small
    cdef float tope[NN_MAX_CANDIDATES]
    cdef int i, j, k, n = g.n, kept = 0
    if most > NN_MAX_CANDIDATES:
        most = NN_MAX_CANDIDATES
    top[0] = 0
    if n < 1 or most < 1:
        return 0
    if n > SMALL_ROLL:
        vals = <float*> malloc(n * NN_OUT * sizeof(float))
    neural_children(nn, g, parent, vals)
    for i in range(n):
        if value == NULL:
            kept = topk_insert(tope, top, kept, most, probs_equity(vals + NN_OUT * i), i)
        else:
            kept = topk_insert(tope, top, kept, most, <float> value.fn(vals + NN_OUT * i, value.ctx), i)
    if best != NULL:
        for k in range(NN_OUT):
            best[k] = vals[NN_OUT * top[0] + k]
    if vals != small:
        free(vals)
    for j in range(1, kept):
        if tope[j] < tope[0] - window:
            return j
    return kept


cdef int neural_choose(const Neural* nn, const MoveGen* g, const Board* parent) noexcept nogil:
    cdef int best = 0
    neural_candidates(nn, g, parent, &best, 1, 0.0, NULL, NULL)
    return best


# ---------------------------------------------------------------- games in C

cdef int _opening(Board* b, Rng* dice, int* d1, int* d2) noexcept nogil:
    """The starting position and the opening roll as the game loop draws it (one die each,
    ties re-rolled, the higher die's player moves first with both); returns that player."""
    cdef int i
    memset(b, 0, sizeof(Board))
    for i in range(2):
        b.side[i][5] = 5
        b.side[i][7] = 3
        b.side[i][12] = 5
        b.side[i][23] = 2
    while True:
        d1[0] = rng_die(dice)
        d2[0] = rng_die(dice)
        if d1[0] != d2[0]:
            return 0 if d1[0] > d2[0] else 1


cdef inline int _argmax_equity(const float* vals, int n) noexcept nogil:
    cdef int i, best = 0
    cdef float e, best_e = probs_equity(vals)
    for i in range(1, n):
        e = probs_equity(vals + NN_OUT * i)
        if e > best_e:
            best_e = e
            best = i
    return best


cdef inline int _result_points(const Board* b) noexcept nogil:
    """Points the mover (side 1, just bore off its last checker) wins: 1, 2 or 3."""
    if board_checkers(b, 0) < 15:
        return 1
    return 3 if side_has_back_checker(b.side[0]) else 2


cdef int _play_versus(const Neural* nn, const int* kinds, Rng* dice, Rng* rngs, MoveGen* g,
                      int* plies_out) noexcept nogil:
    """One cubeless game, dice as the game loop draws them (the opening roll re-rolls ties;
    the higher die moves first); player ``p`` plays by ``kinds[p]``.  Returns player 0's
    points (+-1, 2, 3)."""
    cdef Board b
    cdef int d1, d2, turn, idx, kind, plies = 0
    turn = _opening(&b, dice, &d1, &d2)
    while True:
        generate(g, &b, d1, d2)
        kind = kinds[turn]
        if g.n <= 1:
            idx = 0
        elif kind == 0:
            idx = neural_choose(nn, g, &b)
        elif kind == 1:
            idx = pubeval_choose(g, &b)
        else:
            idx = rng_below(&rngs[turn], g.n)
        memcpy(&b, &g.items[idx].board, sizeof(Board))
        plies += 1
        if board_checkers(&b, 1) == 0:
            plies_out[0] = plies
            return _result_points(&b) * (1 if turn == 0 else -1)
        board_swap(&b, &b)
        turn = 1 - turn
        d1 = rng_die(dice)
        d2 = rng_die(dice)


ctypedef struct TDBuffers:
    Board* boards             # positions after each play (side 0 on roll)
    int* cls
    float* values             # the side on roll's probabilities as the players saw them
    float* returns            # their lambda-returns (the training targets)
    float* vals               # children's values of one roll
    float* tmp
    MoveGen* g


cdef inline void _lambda_target(const float* next_value, const float* next_return, float lam,
                                float* out) noexcept nogil:
    """``(1 - lam) flip(V_{t+1}) + lam flip(G_{t+1})``: the next position is the other side's."""
    cdef float a[NN_OUT]
    cdef float b[NN_OUT]
    cdef int k
    probs_flip(next_value, a)
    probs_flip(next_return, b)
    for k in range(NN_OUT):
        out[k] = (1 - lam) * a[k] + lam * b[k]


cdef float _train_position(NetPart* net, const Board* a, int cls, const float* t, float lr,
                           float* tmp) noexcept nogil:
    """One gradient step moving the net's value of ``a`` towards ``t``; returns the squared
    error of the win output before the step."""
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef float z[NN_MAX_HIDDEN]
    cdef float o[NN_OUT]
    cdef float dz[NN_OUT]
    cdef int m, bits
    m = _encode_raw(a, idx, val)
    m += _encode_hand(a, idx + m, val + m)
    _forward(net, idx, val, m, z, o)
    _classify(a, &bits)
    dz[0] = o[0] - t[0]
    dz[1] = t[0] * o[1] - t[1] if bits & 2 else 0.0
    dz[2] = t[1] * o[2] - t[2] if bits & 4 else 0.0
    dz[3] = (1 - t[0]) * o[3] - t[3] if bits & 8 else 0.0
    dz[4] = t[3] * o[4] - t[4] if bits & 16 else 0.0
    nn_backprop(net.w1, net.b1, net.w2, net.b2, net.hidden, idx, val, m, z, dz, lr, tmp)
    return dz[0] * dz[0]


cdef int _td_play(const Neural* nn, TDBuffers* buf, Rng* dice, float lam) noexcept nogil:
    """Play one self-play game at 0 ply into ``buf`` with its lambda-returns; returns its plies."""
    cdef Board b
    cdef int d1, d2, best, t, T = 0
    cdef MoveGen* g = buf.g
    _opening(&b, dice, &d1, &d2)
    while T < MAX_PLIES:
        generate(g, &b, d1, d2)
        neural_children(nn, g, &b, buf.vals)
        best = _argmax_equity(buf.vals, g.n)
        memcpy(&buf.boards[T], &g.items[best].board, sizeof(Board))
        buf.cls[T] = neural_class(&buf.boards[T])
        probs_flip(buf.vals + NN_OUT * best, buf.values + NN_OUT * T)
        T += 1
        if board_checkers(&buf.boards[T - 1], 1) == 0:
            break
        board_swap(&b, &buf.boards[T - 1])
        d1 = rng_die(dice)
        d2 = rng_die(dice)
    # the lambda-returns, backwards from the last position (exact when the game is over)
    memcpy(buf.returns + NN_OUT * (T - 1), buf.values + NN_OUT * (T - 1), NN_OUT * sizeof(float))
    for t in range(T - 2, -1, -1):
        _lambda_target(buf.values + NN_OUT * (t + 1), buf.returns + NN_OUT * (t + 1), lam,
                       buf.returns + NN_OUT * t)
    return T


cdef int _td_game(Neural* nn, TDBuffers* buf, Rng* dice, float lam, const float* lr,
                  double* stats) noexcept nogil:
    """Play one self-play game at 0 ply and train on it, last position first; returns its plies."""
    cdef int t, k, T = _td_play(nn, buf, dice, lam)
    for t in range(T - 2, -1, -1):
        k = buf.cls[t]
        if k == CLASS_CONTACT or k == CLASS_RACE:
            stats[2 + k] += _train_position(&nn.part[k], &buf.boards[t], k, buf.returns + NN_OUT * t,
                                            lr[k], buf.tmp)
            stats[k] += 1
    return T


cdef bint _td_buffers(TDBuffers* buf, MoveGen* g) noexcept nogil:
    buf.boards = <Board*> malloc(MAX_PLIES * sizeof(Board))
    buf.cls = <int*> malloc(MAX_PLIES * sizeof(int))
    buf.values = <float*> malloc(MAX_PLIES * NN_OUT * sizeof(float))
    buf.returns = <float*> malloc(MAX_PLIES * NN_OUT * sizeof(float))
    buf.vals = <float*> malloc(MAX_CHILDREN * NN_OUT * sizeof(float))
    buf.tmp = <float*> malloc(NN_MAX_HIDDEN * sizeof(float))
    buf.g = g
    return (buf.boards != NULL and buf.cls != NULL and buf.values != NULL and buf.returns != NULL
            and buf.vals != NULL and buf.tmp != NULL)


cdef void _td_free(TDBuffers* buf) noexcept nogil:
    free(buf.boards)
    free(buf.cls)
    free(buf.values)
    free(buf.returns)
    free(buf.vals)
    free(buf.tmp)


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


cdef class Model:
    """A contact net and a race net with their weights (float32, owned by the model).

    :param contact_hidden: hidden units of the contact net (a multiple of 8, 8 to 512).
    :param race_hidden: hidden units of the race net.

    Weights are zero until :meth:`set_weights` (see :mod:`bgfast.bots.neural_weights`
    for the file format and :mod:`bgfast.train` for training).  Boards are 50 bytes:
    the opponent's 25 counts then those of the side on roll (gnubg order, each side
    from its own view, index 24 = the bar).
    """
    def __cinit__(self, int contact_hidden=128, int race_hidden=64):
        cdef int k, h
        cdef void* mem
        memset(&self.nn, 0, sizeof(Neural))
        self.g = NULL
        for h in (contact_hidden, race_hidden):
            if h < 8 or h > NN_MAX_HIDDEN or h % 8:
                raise ValueError("hidden units must be a multiple of 8 from 8 to %d, got %d"
                                 % (NN_MAX_HIDDEN, h))
        self.contact_hidden = contact_hidden
        self.race_hidden = race_hidden
        for k in range(NN_NETS):
            h = contact_hidden if k == NET_CONTACT else race_hidden
            self.nn.part[k].hidden = h
            mem = NULL
            if posix_memalign(&mem, 64, (NN_IN + 1 + NN_OUT) * h * sizeof(float)):
                raise MemoryError()
            memset(mem, 0, (NN_IN + 1 + NN_OUT) * h * sizeof(float))
            self.nn.part[k].w1 = <float*> mem
            self.nn.part[k].b1 = self.nn.part[k].w1 + NN_IN * h
            self.nn.part[k].w2 = self.nn.part[k].b1 + h
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
        movegen_free(self.g)

    def __reduce__(self):
        return (_model_with, (self.contact_hidden, self.race_hidden, self.get_weights()))

    def shapes(self):
        """The arrays of :meth:`get_weights`, by name: ``{name: shape}`` in file order."""
        out = {}
        for k, name in enumerate(NETS):
            h = self.contact_hidden if k == NET_CONTACT else self.race_hidden
            out[name + ".w1"] = (NN_IN, h)
            out[name + ".b1"] = (h,)
            out[name + ".w2"] = (NN_OUT, h)
            out[name + ".b2"] = (NN_OUT,)
        return out

    def get_weights(self):
        """Copies of the weights: ``{name: float32 array}`` in :meth:`shapes` order; ``w1[i]``
        is input i's column (``INPUTS`` x hidden), ``w2[k]`` output k's row."""
        cdef int k, h
        out = {}
        for k in range(NN_NETS):
            h = self.nn.part[k].hidden
            name = NETS[k]
            out[name + ".w1"] = np.array(<float[:NN_IN * h]> self.nn.part[k].w1).reshape(NN_IN, h)
            out[name + ".b1"] = np.array(<float[:h]> self.nn.part[k].b1)
            out[name + ".w2"] = np.array(<float[:NN_OUT * h]> self.nn.part[k].w2).reshape(NN_OUT, h)
            out[name + ".b2"] = np.array(<float[:NN_OUT]> self.nn.part[k].b2)
        return out

    def set_weights(self, weights):
        """Load ``{name: array}`` with the names and shapes of :meth:`shapes`.

        :raises ValueError: a missing array or one of another shape.
        """
        cdef int k, h
        cdef float[::1] flat
        shapes = self.shapes()
        arrays = {}
        for name, shape in shapes.items():
            if name not in weights:
                raise ValueError("the weights have no array %r" % name)
            arr = np.ascontiguousarray(weights[name], dtype=np.float32)
            if arr.shape != shape:
                raise ValueError("weights %r: shape %r, expected %r" % (name, arr.shape, shape))
            arrays[name] = arr
        for k in range(NN_NETS):
            h = self.nn.part[k].hidden
            name = NETS[k]
            flat = arrays[name + ".w1"].ravel()
            memcpy(self.nn.part[k].w1, &flat[0], NN_IN * h * sizeof(float))
            flat = arrays[name + ".b1"].ravel()
            memcpy(self.nn.part[k].b1, &flat[0], h * sizeof(float))
            flat = arrays[name + ".w2"].ravel()
            memcpy(self.nn.part[k].w2, &flat[0], NN_OUT * h * sizeof(float))
            flat = arrays[name + ".b2"].ravel()
            memcpy(self.nn.part[k].b2, &flat[0], NN_OUT * sizeof(float))

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
        for a race (pure bear-offs included), else the contact net, without the bear-off
        database or the exact values of decided positions (for tests and analysis)."""
        cdef Board b, a
        cdef int idx[MAX_SPARSE]
        cdef float val[MAX_SPARSE]
        cdef float z[NN_MAX_HIDDEN]
        cdef float o[NN_OUT]
        cdef float q[NN_OUT]
        cdef int m, cls, bits
        _board_arg(board, &b)
        board_swap(&a, &b)
        if board_checkers(&a, 0) == 0 or board_checkers(&a, 1) == 0:
            raise ValueError("the game is over: a side has no checker left")
        _classify(&a, &bits)
        cls = CLASS_RACE if is_race(&a) else CLASS_CONTACT
        if cls == CLASS_RACE:
            if not side_has_back_checker(a.side[1]):
                bits &= ~0x04
            if not side_has_back_checker(a.side[0]):
                bits &= ~0x10
        m = _encode_raw(&a, idx, val)
        m += _encode_hand(&a, idx + m, val + m)
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

    def choose(self, const unsigned char[::1] board, int d1, int d2):
        """The play of (d1, d2) the net picks at 0 ply (the best equity for the mover): the
        resulting 50-byte board in the mover's frame."""
        cdef Board b
        cdef int idx
        _board_arg(board, &b)
        _dice_arg(d1, d2)
        with nogil:
            generate(self.g, &b, d1, d2)
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

    def td_train(self, seed, unsigned long long first, int games, double lam,
                 double lr_contact, double lr_race):
        """Play ``games`` self-play games (dice of game ``first + i`` of run ``seed``) and train
        on each by TD(lambda).  Returns ``(positions, plies, mse)``: positions trained per net
        (contact, race), plies played, and the mean squared error of the win output per net."""
        cdef TDBuffers buf
        cdef Rng dice
        cdef double stats[4]
        cdef float lr[2]
        cdef long long plies = 0
        cdef int i
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        if games < 0 or not 0.0 <= lam <= 1.0 or lr_contact < 0 or lr_race < 0:
            raise ValueError("games >= 0, 0 <= lam <= 1 and learning rates >= 0 are required")
        lr[0] = lr_contact
        lr[1] = lr_race
        memset(stats, 0, sizeof(stats))
        if not _td_buffers(&buf, self.g):
            _td_free(&buf)
            raise MemoryError()
        with nogil:
            for i in range(games):
                rng_seed(&dice, kp, first + i, 0)
                plies += _td_game(&self.nn, &buf, &dice, <float> lam, lr, stats)
        _td_free(&buf)
        return ((int(stats[0]), int(stats[1])), plies,
                (stats[2] / stats[0] if stats[0] else 0.0, stats[3] / stats[1] if stats[1] else 0.0))

    def td_targets(self, seed, unsigned long long first, int games, double lam):
        """The training data of :meth:`td_train` without the training: ``games`` self-play games
        (dice of game ``first + i`` of run ``seed``) played with the weights as they are, and
        each game's contact and race positions, last first, with their lambda-returns.

        Returns ``(boards, targets, plies)``: (n, 50) uint8 boards with side 1 on roll,
        (n, 5) float32 targets for :meth:`train_positions`, and the plies played.  Thread-safe
        on distinct models (it releases the GIL)."""
        cdef TDBuffers buf
        cdef Rng dice
        cdef int i, t, T
        cdef long long plies = 0, n = 0, cap
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        if games < 0 or not 0.0 <= lam <= 1.0:
            raise ValueError("games >= 0 and 0 <= lam <= 1 are required")
        if not _td_buffers(&buf, self.g):
            _td_free(&buf)
            raise MemoryError()
        cap = games * 64 + MAX_PLIES
        boards = np.zeros((cap, 50), dtype=np.uint8)
        targets = np.zeros((cap, NN_OUT), dtype=np.float32)
        cdef unsigned char[:, ::1] bv
        cdef float[:, ::1] tv
        for i in range(games):
            if n + MAX_PLIES > cap:
                cap = 2 * cap
                boards = np.resize(boards, (cap, 50))
                targets = np.resize(targets, (cap, NN_OUT))
            bv = boards
            tv = targets
            with nogil:
                rng_seed(&dice, kp, first + i, 0)
                T = _td_play(&self.nn, &buf, &dice, <float> lam)
                plies += T
                for t in range(T - 2, -1, -1):
                    if buf.cls[t] == CLASS_CONTACT or buf.cls[t] == CLASS_RACE:
                        memcpy(&bv[n, 0], buf.boards[t].side[1], 25)    # side 1 on roll
                        memcpy(&bv[n, 25], buf.boards[t].side[0], 25)
                        memcpy(&tv[n, 0], buf.returns + NN_OUT * t, NN_OUT * sizeof(float))
                        n += 1
        _td_free(&buf)
        return boards[:n].copy(), targets[:n].copy(), plies

    def train_positions(self, const unsigned char[:, ::1] boards, const float[:, ::1] targets,
                        double lr_contact, double lr_race, const long long[::1] order):
        """Supervised steps: for each ``i`` in ``order``, move the value of ``boards[i]`` (side 1 on
        roll) towards ``targets[i]`` (its 5 probabilities).  Pure bear-offs and decided
        positions are skipped.  Returns the number of positions trained per net."""
        cdef Py_ssize_t n = boards.shape[0], j, i
        cdef Board b, a
        cdef int cls
        cdef long long counts[2]
        cdef float lr[2]
        cdef float* tmp
        if boards.shape[1] != 50 or targets.shape[0] != n or targets.shape[1] != NN_OUT:
            raise ValueError("boards (n, 50) and targets (n, 5) are required")
        for j in range(order.shape[0]):
            if order[j] < 0 or order[j] >= n:
                raise ValueError("order holds an index outside the boards: %d" % order[j])
        lr[0] = lr_contact
        lr[1] = lr_race
        counts[0] = 0
        counts[1] = 0
        tmp = <float*> malloc(NN_MAX_HIDDEN * sizeof(float))
        if tmp == NULL:
            raise MemoryError()
        with nogil:
            for j in range(order.shape[0]):
                i = order[j]
                board_from_bytes(&boards[i, 0], &b)
                board_swap(&a, &b)
                cls = neural_class(&a)
                if cls == CLASS_CONTACT or cls == CLASS_RACE:
                    _train_position(&self.nn.part[cls], &a, cls, &targets[i, 0], lr[cls], tmp)
                    counts[cls] += 1
        free(tmp)
        return (counts[0], counts[1])

    def versus(self, str player0, str player1, seed, unsigned long long first, int games):
        """Results of ``games`` cubeless games (no Jacoby rule) between two players named in
        ``PLAYERS`` (``"neural"`` plays this model at 0 ply), on the
        dice of games ``first ..`` of run ``seed`` as :class:`bgfast.game.MatchPlayer` draws
        them.  Returns ``(points, plies)``: player 0's points per game (int8: +-1, 2, 3) and
        each game's plies."""
        cdef int kinds[2]
        cdef Rng dice
        cdef Rng rngs[2]
        cdef int i, pl
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        if player0 not in PLAYERS or player1 not in PLAYERS:
            raise ValueError("players are named from %s, got %r, %r" % (sorted(PLAYERS), player0, player1))
        kinds[0] = PLAYERS[player0]
        kinds[1] = PLAYERS[player1]
        points = np.zeros(games, dtype=np.int8)
        plies = np.zeros(games, dtype=np.int32)
        cdef signed char[::1] pv = points
        cdef int[::1] lv = plies
        with nogil:
            for i in range(games):
                rng_seed(&dice, kp, first + i, 0)
                rng_seed(&rngs[0], kp, first + i, 1)
                rng_seed(&rngs[1], kp, first + i, 2)
                pv[i] = <signed char> _play_versus(&self.nn, kinds, &dice, rngs, self.g, &pl)
                lv[i] = pl
        return points, plies

    def self_play_positions(self, seed, unsigned long long first, int games, int stride=1):
        """Positions of ``games`` 0-ply self-play games (dice of games ``first ..`` of run
        ``seed``), every ``stride``-th, before each roll: an (n, 50) uint8 array, side 1 on roll.
        Pure bear-offs and decided positions are left out."""
        cdef Rng dice
        cdef Board b
        cdef int d1, d2, best, i, ply
        cdef long long n = 0
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        cdef float* vals = <float*> malloc(MAX_CHILDREN * NN_OUT * sizeof(float))
        if vals == NULL:
            raise MemoryError()
        if stride < 1:
            raise ValueError("stride must be at least 1, got %d" % stride)
        cap = games * 64 // stride + 64
        out = np.zeros((cap, 50), dtype=np.uint8)
        cdef unsigned char[:, ::1] ov = out
        for i in range(games):
            if n + MAX_PLIES >= cap:
                cap = 2 * cap + MAX_PLIES
                out = np.resize(out, (cap, 50))
                ov = out
            with nogil:
                rng_seed(&dice, kp, first + i, 0)
                _opening(&b, &dice, &d1, &d2)
                ply = 0
                while ply < MAX_PLIES:
                    if ply > 0 and (ply + i) % stride == 0:
                        board_swap(&b, &b)
                        if neural_class(&b) <= CLASS_RACE:
                            memcpy(&ov[n, 0], b.side[1], 25)     # back to side 1 on roll
                            memcpy(&ov[n, 25], b.side[0], 25)
                            n += 1
                        board_swap(&b, &b)
                    generate(self.g, &b, d1, d2)
                    neural_children(&self.nn, self.g, &b, vals)
                    best = _argmax_equity(vals, self.g.n)
                    memcpy(&b, &self.g.items[best].board, sizeof(Board))
                    ply += 1
                    if board_checkers(&b, 1) == 0:
                        break
                    board_swap(&b, &b)
                    d1 = rng_die(&dice)
                    d2 = rng_die(&dice)
        free(vals)
        return out[:n].copy()

    def candidate_positions(self, seed, unsigned long long first, int games, int stride=1, int most=6,
                            double window=0.16, double explore=0.0, str opponent="neural"):
        """The net's candidate plays in ``games`` 0-ply self-play games (dice of games ``first ..``
        of run ``seed``): at every ``stride``-th roll, the positions after the best ``most`` plays
        at 0 ply within ``window`` (cubeless equity) of the best, the opponent on roll: an (n, 50)
        uint8 array, side 1 on roll, and an (n,) int64 array numbering the decision each came
        from.  These are what the net must rank to choose a play, the positions self-play never
        reaches but after its best play.  With ``explore`` > 0, a decision plays one of its
        candidates at random with that probability (the choice drawn from the game's own stream,
        lane 1), else the best.  With ``opponent`` ``"pubeval"`` or ``"random"`` (a name of
        ``PLAYERS``), that player makes the plays of one side (the side that did not win the
        opening roll in even games, the other in odd ones), so the positions are also the ones
        the net meets against another style; the candidates of its rolls are kept all the same.
        Pure bear-offs and decided positions are left out.

        :raises ValueError: ``stride`` or ``most`` out of range, ``explore`` outside 0..1, an
            unknown ``opponent``.
        """
        cdef Rng dice, pick
        cdef Board b
        cdef int d1, d2, best, i, ply, k, kept
        cdef long long n = 0, decision = 0
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        cdef int top[NN_MAX_CANDIDATES]
        cdef float win = window
        cdef uint32_t threshold
        if stride < 1:
            raise ValueError("stride must be at least 1, got %d" % stride)
        if not 1 <= most <= NN_MAX_CANDIDATES:
            raise ValueError("most must be 1 to %d, got %d" % (NN_MAX_CANDIDATES, most))
        if not 0.0 <= explore <= 1.0:
            raise ValueError("explore is a probability, got %r" % explore)
        if opponent not in PLAYERS:
            raise ValueError("opponent must be one of %s, got %r" % (", ".join(PLAYERS), opponent))
        cdef int other = PLAYERS[opponent]
        threshold = <uint32_t> (explore * 1000000)
        cap = games * 64 * most // stride + 64 * most
        out = np.zeros((cap, 50), dtype=np.uint8)
        ids = np.zeros(cap, dtype=np.int64)
        cdef unsigned char[:, ::1] ov = out
        cdef long long[::1] iv = ids
        for i in range(games):
            if n + MAX_PLIES * most >= cap:
                cap = 2 * cap + MAX_PLIES * most
                out = np.resize(out, (cap, 50))
                ids = np.resize(ids, cap)
                ov = out
                iv = ids
            with nogil:
                rng_seed(&dice, kp, first + i, 0)
                rng_seed(&pick, kp, first + i, 1)
                _opening(&b, &dice, &d1, &d2)
                ply = 0
                while ply < MAX_PLIES:
                    generate(self.g, &b, d1, d2)
                    kept = neural_candidates(&self.nn, self.g, &b, top, most, win, NULL, NULL)
                    best = top[0]
                    if kept > 1 and (ply + i) % stride == 0:
                        for k in range(kept):
                            if neural_class(&self.g.items[top[k]].board) <= CLASS_RACE:
                                memcpy(&ov[n, 0], self.g.items[top[k]].board.side[1], 25)
                                memcpy(&ov[n, 25], self.g.items[top[k]].board.side[0], 25)
                                iv[n] = decision
                                n += 1
                        decision += 1
                    if kept > 1 and threshold and <uint32_t> rng_below(&pick, 1000000) < threshold:
                        best = top[rng_below(&pick, kept)]
                    if other != 0 and (ply + i) % 2 == 1:
                        best = pubeval_choose(self.g, &b) if other == 1 else rng_below(&pick, self.g.n)
                    memcpy(&b, &self.g.items[best].board, sizeof(Board))
                    ply += 1
                    if board_checkers(&b, 1) == 0:
                        break
                    board_swap(&b, &b)
                    d1 = rng_die(&dice)
                    d2 = rng_die(&dice)
        return out[:n].copy(), ids[:n].copy()


def _model_with(int contact_hidden, int race_hidden, weights):
    """A model of these sizes with these weights (how a pickled model is rebuilt)."""
    model = Model(contact_hidden, race_hidden)
    model.set_weights(weights)
    return model


def board_class(const unsigned char[::1] board):
    """The class of a 50-byte board with side 1 on roll: 0 contact, 1 race, 2 pure bear-off
    (the database values it), 3 decided (the game is over or side 1 surely bears off now)."""
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

    :raises ValueError: not (n, 50).
    """
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Board b, a
    cdef int idx[MAX_SPARSE]
    cdef float val[MAX_SPARSE]
    cdef int m, k, bits, cls
    if boards.shape[1] != 50:
        raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
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
            if cls > CLASS_RACE:
                continue
            m = _encode_raw(&a, idx, val)
            m += _encode_hand(&a, idx + m, val + m)
            for k in range(m):
                xv[i, idx[k]] = val[k]
    return x, c, mask
