# cython: language_level=3
"""C declarations of the move generator (see movegen.pyx)."""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from bgfast._core.board cimport Board

cdef enum:
    MAX_CHILDREN = 4096       # distinct results of one roll; the known maximum is far lower
    # Open-addressing dedupe table for non-doubles (doubles need none), a power of two
    # at least twice their most children: two passes of at most 15 x 15 leaves = 450.
    # Small enough to stay in the L1 cache.
    TABLE_SIZE = 1024
    SLOT_BITS = 10            # a slot holds (stamp << SLOT_BITS) | (child index + 1)
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
    uint32_t occ              # mover coordinates: the mover's occupied points in the root
    uint32_t blocked          # mover coordinates: points the opponent holds with 2+
    Board cur                 # the board being searched, changed and restored in place
    uint64_t cur_hash         # Zobrist hash of ``cur``, kept up to date move by move
    int die_seq[4]
    int ndice
    int doubles
    int hi_die_playable       # non-doubles: the higher die alone can be played
    int pass2                 # non-doubles: searching the smaller die first
    uint32_t hi_sources       # non-doubles: points the higher die can leave in the starting position
    uint32_t stamp            # generation stamp of the dedupe table (19 bits)
    uint8_t path_src[4]
    uint8_t path_dst[4]
    uint8_t path_hit
    uint64_t hashes[MAX_CHILDREN]
    uint32_t slots[TABLE_SIZE]
    Child items[MAX_CHILDREN]

cdef MoveGen* movegen_new() noexcept nogil
cdef void movegen_free(MoveGen* g) noexcept nogil
cdef int generate(MoveGen* g, const Board* b, int d1, int d2) noexcept nogil
cdef void prepare(MoveGen* g, const Board* b) noexcept nogil
cdef int generate_prepared(MoveGen* g, int d1, int d2) noexcept nogil
