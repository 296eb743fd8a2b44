# cython: language_level=3
"""C declarations of the one-sided bear-off database (see bearoff.pyx)."""
from libc.stdint cimport uint8_t
from bgfast._core.board cimport Board

cdef enum:
    BO_POINTS = 6             # the home board
    BO_CHECKERS = 15
    BO_POSITIONS = 54264      # C(21, 6): 0..15 checkers on 6 points
    BO_GAMMON_POSITIONS = 15504   # C(20, 5): exactly 15 checkers on 6 points
    BO_ROLLS = 32             # distribution bins: 0..31 rolls (the longest bear-off takes fewer)

# Build the tables if not built yet (about a second, once a process; idempotent).
cdef void bearoff_build() noexcept nogil
cdef bint bearoff_ready() noexcept nogil
# Index of a side's 6 home counts (points 1..6); -1 if it has a checker elsewhere (``s``: 25 counts).
cdef int bearoff_index(const uint8_t* s) noexcept nogil
cdef int bearoff_gammon_index(const uint8_t* s) noexcept nogil
# P(n rolls to bear off all), n = 0..BO_ROLLS-1, for bearoff_index ``i``.
cdef const float* bearoff_rolls(int i) noexcept nogil
# P(n rolls to bear off the first checker), for bearoff_gammon_index ``i``.
cdef const float* bearoff_first_off(int i) noexcept nogil
# The first and the last n with a chance in bearoff_rolls(i) (in bearoff_first_off(i)).
cdef const uint8_t* bearoff_rolls_span(int i) noexcept nogil
cdef const uint8_t* bearoff_first_off_span(int i) noexcept nogil
# Both sides of ``b`` wholly in their home boards (a pure bear-off; no contact possible).
cdef bint is_pure_bearoff(const Board* b) noexcept nogil
# Probabilities of side 1 of ``b``, on roll, in a pure bear-off (see bearoff.pyx).
cdef void bearoff_probs(const Board* b, float* p) noexcept nogil
