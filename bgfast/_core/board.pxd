# cython: language_level=3
"""C declarations of the board: gnubg's two-sided count convention.

``side[0]`` is the opponent, ``side[1]`` the side on roll; each array is from its
own side's view: index 0..23 = that side's points 1..24, index 24 = its bar.
Borne-off checkers are not stored (15 - sum).
"""
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

cdef enum:
    NUM_POINTS = 24
    BAR = 24
    BOARD_SIZE = 25
    NUM_CHECKERS = 15
    ID_LENGTH = 14
    KEY_BYTES = 10

# Error codes of decode_position_id / check_board (0 = valid).
cdef enum BoardError:
    BOARD_OK = 0
    ERR_ID_LENGTH = 1
    ERR_ID_CHAR = 2
    ERR_ID_TOO_MANY_CHECKERS = 3
    ERR_TOO_MANY_CHECKERS = 4
    ERR_POINT_SHARED = 5

ctypedef struct Board:
    uint8_t side[2][25]
    uint8_t pad[6]          # always zero: the struct hashes as 7 machine words

# Eight points at a time (SWAR): a side's counts read as little-endian words.
cdef extern from *:
    """
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define BGFAST_FROM_LE64(x) __builtin_bswap64(x)
    #else
    #define BGFAST_FROM_LE64(x) (x)
    #endif
    """
    uint64_t BGFAST_FROM_LE64(uint64_t) nogil


cdef inline uint64_t load8(const uint8_t* p) noexcept nogil:
    """Eight bytes from ``p`` (any alignment), byte k in bits 8k..8k+7."""
    cdef uint64_t x
    memcpy(&x, p, 8)
    return BGFAST_FROM_LE64(x)


cdef inline uint64_t byte_flags(uint64_t x) noexcept nogil:
    """Bit 0 of each byte set where that byte of ``x`` is non-zero."""
    return ((((x & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | x) >> 7) & 0x0101010101010101ULL


cdef inline uint32_t nonzero_bytes(uint64_t x) noexcept nogil:
    """An 8-bit mask, bit k set where byte k of ``x`` (bits 8k..8k+7) is non-zero."""
    return <uint32_t> ((byte_flags(x) * 0x0102040810204080ULL) >> 56)


cdef inline uint32_t nonzero_bytes_reversed(uint64_t x) noexcept nogil:
    """Like :func:`nonzero_bytes` with the bit order reversed: byte k -> bit 7 - k."""
    return <uint32_t> ((byte_flags(x) * 0x8040201008040201ULL) >> 56)


cdef inline bint side_has_back_checker(const uint8_t* s) noexcept nogil:
    """A checker of side ``s`` (its 25 counts) on its bar or in the opponent's home board
    (its points 19..24): losing a gammon so, the side loses a backgammon."""
    cdef int i
    for i in range(18, 25):
        if s[i]:
            return True
    return False


cdef uint64_t board_hash(const Board* b) noexcept nogil
cdef inline bint board_equal(const Board* a, const Board* b) noexcept nogil:
    cdef const uint64_t* x = <const uint64_t*> a
    cdef const uint64_t* y = <const uint64_t*> b
    return (x[0] == y[0] and x[1] == y[1] and x[2] == y[2] and x[3] == y[3]
            and x[4] == y[4] and x[5] == y[5] and x[6] == y[6])

cdef void board_swap(Board* dst, const Board* src) noexcept nogil
cdef int board_checkers(const Board* b, int side) noexcept nogil
cdef int board_pips(const Board* b, int side) noexcept nogil
cdef int check_board(const Board* b) noexcept nogil
cdef void encode_position_id(const Board* b, char* out) noexcept nogil
cdef int decode_position_id(const char* s, Py_ssize_t n, Board* b) noexcept nogil
cdef bint board_from_bytes(const unsigned char* data, Board* b) noexcept nogil
