# cython: language_level=3
"""C declarations of the built-in evaluators (see evaluators.pyx)."""
from libc.stdint cimport uint8_t
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen

cdef bint is_race(const Board* b) noexcept nogil
cdef float pubeval(bint race, const Board* b) noexcept nogil
cdef int keith_count(const Board* b, int side) noexcept nogil


cdef inline int keith_wastage(const uint8_t* s) noexcept nogil:
    """Tom Keith's additions to a side's pip count (``s``: its 25 counts): 2 per checker
    beyond 1 on the ace point, 1 per checker beyond 1 on the deuce and beyond 3 on the
    trey, and 1 per empty point among the 4, 5 and 6 points."""
    cdef int n = (s[3] == 0) + (s[4] == 0) + (s[5] == 0)
    if s[0] > 1:
        n += 2 * (s[0] - 1)
    if s[1] > 1:
        n += s[1] - 1
    if s[2] > 3:
        n += s[2] - 3
    return n
cdef int pubeval_choose(const MoveGen* g, const Board* parent) noexcept nogil
cdef void pubeval_deltas(const MoveGen* g, const Board* parent, float* out) noexcept nogil
