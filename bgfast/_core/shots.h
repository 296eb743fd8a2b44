/* The heuristic's shot count without a checker on the bar (bgfast/_core/heuristic.pyx,
   _shots, declares it with ``cdef extern from "shots.h"``): the 15 non-doubles and the 6
   doubles each in a lane of a vector (GCC vector extensions), so that the rolls are
   counted side by side instead of one after the other.  Integers only: every clone
   (AVX-512, AVX2, the baseline) counts exactly what the roll-by-roll loop counts. */
#ifndef BGFAST_SHOTS_H
#define BGFAST_SHOTS_H

#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SHOTS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SHOTS_CLONES
#endif

typedef uint32_t shots_v16u __attribute__((vector_size(64)));
typedef int32_t shots_v16i __attribute__((vector_size(64)));
typedef float shots_v16f __attribute__((vector_size(64)));

/* Lanes 0..14: the non-doubles (a, b), a < b; lanes 15: nothing (a shift of 31 from a
   side with no checker above bit 24 reaches no blot, and its weight is 0). */
static const shots_v16u SHOTS_A = {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 31};
static const shots_v16u SHOTS_B = {2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6, 31};
static const shots_v16i SHOTS_PAIR_WEIGHT = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0};
/* Lanes 0..5: the doubles 1-1 .. 6-6; the others nothing. */
static const shots_v16u SHOTS_D = {1, 2, 3, 4, 5, 6, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31};
static const shots_v16i SHOTS_DOUBLE_WEIGHT = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

/* Rolls (of 36) whose lane's hits ``h`` are not empty, and the pips of each such roll's
   farthest blot hit (its top bit + 1): the top bit through the float exponent, exact for
   the 24 bits of a board. */
static inline __attribute__((always_inline)) void shots_tally(shots_v16u h, shots_v16i weight, int* cnt,
                                                              int* lost) {
    shots_v16i hit = (shots_v16i)(h != 0) & weight;          /* the roll's weight, or 0 */
    shots_v16f f = __builtin_convertvector((shots_v16i)(h | 1), shots_v16f);
    shots_v16i top = (((shots_v16i)f) >> 23) - 127;
    shots_v16i pips = hit * (top + 1);
    int k, c = 0, l = 0;
    for (k = 0; k < 16; k++) {
        c += hit[k];
        l += pips[k];
    }
    *cnt = c;
    *lost = l;
}

/* The side on roll's checkers ``rest`` (bit i its point i + 1, none on the bar), the points
   ``opn`` not blocked by the opponent, the opponent's ``blots`` (bits 0..23): ``cnt`` the
   rolls of 36 that hit at least one blot, ``lost`` the sum over them of the farthest blot's
   pips.  A non-double (a, b) hits what a or b reaches directly, or a then b (b then a)
   through an open point; a double what one checker reaches in up to 4 steps over open
   points. */
SHOTS_CLONES static void shots_off_bar(uint32_t rest, uint32_t opn, uint32_t blots, int* cnt, int* lost) {
    shots_v16u r = {0}, o = {0}, bl = {0}, sa, sb, h, c;
    int k, cp, lp, cd, ld;
    r += rest;
    o += opn;
    bl += blots;
    sa = (r >> SHOTS_A) & o;
    sb = (r >> SHOTS_B) & o;
    h = (sa | sb | (sa >> SHOTS_B) | (sb >> SHOTS_A)) & bl;
    shots_tally(h, SHOTS_PAIR_WEIGHT, &cp, &lp);
    c = (r >> SHOTS_D) & o;
    h = c & bl;
    for (k = 0; k < 3; k++) {
        c = (c >> SHOTS_D) & o;
        h |= c & bl;
    }
    shots_tally(h, SHOTS_DOUBLE_WEIGHT, &cd, &ld);
    *cnt = cp + cd;
    *lost = lp + ld;
}

#endif /* BGFAST_SHOTS_H */
