/* The neural net's dense kernels (bgfast/_core/neural.pyx declares them with
   ``cdef extern from "neural.h"``): the first layer's sums, the hidden and output
   layers, and one gradient step.  Plain C with GCC vector extensions; on x86-64 Linux
   with GCC, each kernel is compiled for AVX-512, AVX2 and the baseline, the clone
   picked at run time, and none fuses a multiply and an add, so all give the same bits. */
#ifndef BGFAST_NEURAL_H
#define BGFAST_NEURAL_H

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>           /* posix_memalign */
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
    float acc[128];
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

/* nn_accumulate below for AVX2 and the baseline: blocks of 64 units where they fit (8 AVX
   registers). */
NN_CLONES static void nn_accumulate_clones(float* z, const float* src, const float* restrict w, const int* idx,
                                           const float* val, int m, const float* restrict dw,
                                           const float* dval, int nd, int H) {
    int j0 = 0;
    for (; j0 + 64 <= H; j0 += 64) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 64);
    for (; j0 + 32 <= H; j0 += 32) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 32);
    for (; j0 < H; j0 += 8) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 8);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* With AVX-512, blocks of 128 units: 8 registers of 16, each a chain of additions, so
   that the adder's latency is hidden (blocks of 64 are 4 chains, and wait on it).  The
   same additions in the same order as the clones': the same bits. */
__attribute__((target("avx512f"), optimize("no-loop-unroll-and-jam", "fp-contract=off")))
static void nn_accumulate_avx512(float* z, const float* src, const float* restrict w, const int* idx,
                                 const float* val, int m, const float* restrict dw,
                                 const float* dval, int nd, int H) {
    int j0 = 0;
    for (; j0 + 128 <= H; j0 += 128) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 128);
    for (; j0 + 64 <= H; j0 += 64) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 64);
    for (; j0 + 32 <= H; j0 += 32) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 32);
    for (; j0 < H; j0 += 8) nn_block(z, src, w, idx, val, m, dw, dval, nd, H, j0, 8);
}
#define NN_AVX512_ACCUMULATE 1
#endif

/* z[0:H] = src[0:H] (z itself or another array) + the m sparse columns idx/val of w, then
   the nd dense rows of dw (contiguous, all of them: a zero weight adds nothing) with
   weights dval; H a multiple of 8. */
static inline void nn_accumulate(float* z, const float* src, const float* restrict w, const int* idx,
                                 const float* val, int m, const float* restrict dw,
                                 const float* dval, int nd, int H) {
#ifdef NN_AVX512_ACCUMULATE
    if (__builtin_cpu_supports("avx512f")) {
        nn_accumulate_avx512(z, src, w, idx, val, m, dw, dval, nd, H);
        return;
    }
#endif
    nn_accumulate_clones(z, src, w, idx, val, m, dw, dval, nd, H);
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

/* sigmoid(z) . w + b over the H hidden units (H a multiple of 8): a pruning net's one
   linear output from its pre-activations z, left unchanged */
NN_CLONES static float nn_hidden_dot(const float* restrict z, const float* restrict w, float b, int H) {
    int j, k;
    nn_v8f s = {0, 0, 0, 0, 0, 0, 0, 0}, v, a;
    float t = 0;
    for (j = 0; j < H; j += 8) {
        __builtin_memcpy(&v, z + j, sizeof(v));
        __builtin_memcpy(&a, w + j, sizeof(a));
        s += a * nn_sigmoid8(v);
    }
    for (k = 0; k < 8; k++) t += s[k];
    return t + b;
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

#endif /* BGFAST_NEURAL_H */
