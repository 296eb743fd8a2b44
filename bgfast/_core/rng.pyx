# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""Seeded random streams for dice: xoshiro256** (Blackman and Vigna, 2018).

The stream of item ``index`` (a match or a rollout trial) in a run seeded
``seed`` starts from a 256-bit key, ``numpy.random.SeedSequence(seed)`` 's
first four 64-bit words, mixed with ``index`` and a ``lane`` (0 = the dice,
1 and 2 = the random choices of the players in seats 0 and 1) through
SplitMix64.  The same (seed, index, lane) gives the same numbers on every
machine, whichever process draws them.  Dice are drawn with Lemire's
multiply-and-reject method, so each face has probability exactly 1/6.
"""
from libc.stdint cimport uint32_t, uint64_t
import numpy as np

from bgfast._core.rng cimport Rng


cdef inline uint64_t _splitmix(uint64_t* x) noexcept nogil:
    x[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef void rng_seed(Rng* r, const uint64_t* key, uint64_t index, uint64_t lane) noexcept nogil:
    cdef uint64_t x = index * 0xD1B54A32D192ED03ULL + lane * 0x8CB92BA72F3D8DD7ULL
    cdef int i
    for i in range(4):
        r.s[i] = key[i] ^ _splitmix(&x)
    if r.s[0] == 0 and r.s[1] == 0 and r.s[2] == 0 and r.s[3] == 0:
        r.s[0] = 1


cdef uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = _rotl(r.s[3], 45)
    return result


cdef int rng_below(Rng* r, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n), exactly (Lemire 2019)."""
    cdef uint64_t m = (rng_next(r) >> 32) * n
    cdef uint32_t low = <uint32_t> m
    cdef uint32_t threshold
    if low < n:
        threshold = (<uint32_t> (-n)) % n
        while low < threshold:
            m = (rng_next(r) >> 32) * n
            low = <uint32_t> m
    return <int> (m >> 32)


cdef int rng_die(Rng* r) noexcept nogil:
    return rng_below(r, 6) + 1


_KEYS: dict[int, bytes] = {}


def run_key(seed):
    """The 256-bit key of run ``seed`` (32 bytes): SeedSequence(seed)'s first four words."""
    key = _KEYS.get(seed)
    if key is None:
        key = np.random.SeedSequence(seed).generate_state(4, np.uint64).tobytes()
        if len(_KEYS) < 1024:
            _KEYS[seed] = key
    return key


cdef class Stream:
    """A dice stream for (seed, index, lane), usable from Python."""
    cdef Rng r

    def __cinit__(self, seed, unsigned long long index=0, unsigned long long lane=0):
        cdef bytes key = run_key(seed)
        rng_seed(&self.r, <const uint64_t*> (<const char*> key), index, lane)

    def die(self):
        """One die, 1..6."""
        return rng_die(&self.r)

    def below(self, unsigned int n):
        """A uniform integer in [0, n)."""
        return rng_below(&self.r, n)
