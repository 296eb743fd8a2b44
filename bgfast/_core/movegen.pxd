# cython: language_level=3
"""C declarations of the move generator (see movegen.pyx)."""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from bgfast._core.board cimport Board

cdef enum:
    MAX_CHILDREN = 4096       # distinct results of one roll; the known maximum is far lower
    TABLE_SIZE = 16384        # open-addressing dedupe table, a power of two > 2 * MAX_CHILDREN
    MAX_STEPS = 4

# One distinct resulting position, in the mover's frame (not swapped), with one
# sequence of single-checker steps that reaches it.  Steps are in notation
# points: from 1..25 (25 = bar), to 0..24 (0 = off).
ctypedef struct Child:
    Board board
    uint8_t src[4]
    uint8_t dst[4]
    uint8_t hit               # bit k set: step k hit a blot
    uint8_t nsteps

ctypedef struct MoveGen:
    int n                     # number of children in items
    int dice_used             # dice played by every child (0..4)
    int overflow              # 1 if more than MAX_CHILDREN distinct results existed
    uint32_t blocked          # mover coordinates: points the opponent holds with 2+
    int die_seq[4]
    int ndice
    int doubles
    int hi_die_playable       # non-doubles: the higher die alone can be played
    uint32_t stamp            # generation stamp of the dedupe table
    uint8_t path_src[4]
    uint8_t path_dst[4]
    uint8_t path_hit
    uint64_t hashes[MAX_CHILDREN]
    uint32_t slot_stamp[TABLE_SIZE]
    uint16_t slot_index[TABLE_SIZE]
    Child items[MAX_CHILDREN]

cdef MoveGen* movegen_new() noexcept nogil
cdef void movegen_free(MoveGen* g) noexcept nogil
cdef int generate(MoveGen* g, const Board* b, int d1, int d2) noexcept nogil
