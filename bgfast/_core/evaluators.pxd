# cython: language_level=3
"""C declarations of the built-in evaluators (see evaluators.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen

cdef bint is_race(const Board* b) noexcept nogil
cdef float pubeval(bint race, const Board* b) noexcept nogil
cdef int keith_count(const Board* b, int side) noexcept nogil
cdef int pubeval_choose(const MoveGen* g, const Board* parent) noexcept nogil
cdef void pubeval_deltas(const MoveGen* g, const Board* parent, float* out) noexcept nogil
