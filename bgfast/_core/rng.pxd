# cython: language_level=3
"""C declarations of the dice stream (see rng.pyx)."""
from libc.stdint cimport uint32_t, uint64_t

ctypedef struct Rng:
    uint64_t s[4]

cdef void rng_seed(Rng* r, const uint64_t* key, uint64_t index, uint64_t lane) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef int rng_die(Rng* r) noexcept nogil
cdef int rng_below(Rng* r, uint32_t n) noexcept nogil
