# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""The board kernel: hashing, swapping, validation and gnubg Position ID coding.

The Python-visible functions take and return the board as 50 ``bytes``: the
opponent's 25 counts, then the 25 counts of the side on roll (gnubg order).
"""
from libc.string cimport memcpy, memset

from bgfast._core.board cimport (
    Board, BOARD_SIZE, BAR, NUM_POINTS, NUM_CHECKERS, ID_LENGTH, KEY_BYTES,
    BOARD_OK, ERR_ID_LENGTH, ERR_ID_CHAR, ERR_ID_TOO_MANY_CHECKERS,
    ERR_TOO_MANY_CHECKERS, ERR_POINT_SHARED,
)

cdef const char* B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    return h


cdef uint64_t board_hash(const Board* b) noexcept nogil:
    cdef const uint64_t* w = <const uint64_t*> b
    cdef uint64_t h = 0x9e3779b97f4a7c15ULL
    cdef int i
    for i in range(7):
        h = (h ^ w[i]) * 0x100000001b3ULL
        h = (h << 29) | (h >> 35)
    return _mix(h)


cdef void board_swap(Board* dst, const Board* src) noexcept nogil:
    cdef Board tmp
    memcpy(tmp.side[0], src.side[1], BOARD_SIZE)
    memcpy(tmp.side[1], src.side[0], BOARD_SIZE)
    memset(tmp.pad, 0, 6)
    memcpy(dst, &tmp, sizeof(Board))


cdef int board_checkers(const Board* b, int side) noexcept nogil:
    cdef int i, n = 0
    for i in range(BOARD_SIZE):
        n += b.side[side][i]
    return n


cdef int board_pips(const Board* b, int side) noexcept nogil:
    cdef int i, n = 0
    for i in range(BOARD_SIZE):
        n += b.side[side][i] * (i + 1)
    return n


cdef int check_board(const Board* b) noexcept nogil:
    cdef int i
    if board_checkers(b, 0) > NUM_CHECKERS or board_checkers(b, 1) > NUM_CHECKERS:
        return ERR_TOO_MANY_CHECKERS
    for i in range(NUM_POINTS):
        if b.side[1][i] and b.side[0][NUM_POINTS - 1 - i]:
            return ERR_POINT_SHARED
    return BOARD_OK


cdef void encode_position_id(const Board* b, char* out) noexcept nogil:
    """Write the 14-character gnubg Position ID of ``b`` (plus a NUL) to ``out``."""
    cdef uint8_t key[12]
    cdef int side, i, j, bit = 0
    cdef uint32_t acc
    memset(key, 0, 12)
    for side in range(2):
        for i in range(BOARD_SIZE):
            for j in range(b.side[side][i]):
                key[bit >> 3] |= <uint8_t> (1 << (bit & 7))
                bit += 1
            bit += 1
    # 10 bytes -> 14 Base64 characters, read as one big-endian bit stream.
    for i in range(4):
        acc = (<uint32_t> key[3 * i] << 16) | (<uint32_t> key[3 * i + 1] << 8) | key[3 * i + 2]
        out[4 * i] = B64[(acc >> 18) & 63]
        out[4 * i + 1] = B64[(acc >> 12) & 63]
        if 4 * i + 2 < ID_LENGTH:
            out[4 * i + 2] = B64[(acc >> 6) & 63]
            out[4 * i + 3] = B64[acc & 63]
    out[ID_LENGTH] = 0


cdef inline int _b64_value(char c) noexcept nogil:
    if c >= 65 and c <= 90:
        return c - 65
    if c >= 97 and c <= 122:
        return c - 97 + 26
    if c >= 48 and c <= 57:
        return c - 48 + 52
    if c == 43:
        return 62
    if c == 47:
        return 63
    return -1


cdef int decode_position_id(const char* s, Py_ssize_t n, Board* b) noexcept nogil:
    """Decode a gnubg Position ID into ``b``; return 0 or a BoardError code."""
    cdef uint8_t key[12]
    cdef int i, v, bit, side = 0, point = 0
    cdef uint32_t acc = 0
    if n != ID_LENGTH:
        return ERR_ID_LENGTH
    memset(key, 0, 12)
    memset(b, 0, sizeof(Board))
    for i in range(ID_LENGTH):
        v = _b64_value(s[i])
        if v < 0:
            return ERR_ID_CHAR
        acc = (acc << 6) | <uint32_t> v
        if i % 4 == 3:
            key[3 * (i // 4)] = (acc >> 16) & 255
            key[3 * (i // 4) + 1] = (acc >> 8) & 255
            key[3 * (i // 4) + 2] = acc & 255
            acc = 0
    # the last two characters carry 12 bits: 8 of byte 9 and 4 padding bits
    key[9] = (acc >> 4) & 255
    for bit in range(80):
        if key[bit >> 3] & (1 << (bit & 7)):
            if side > 1:
                return ERR_ID_TOO_MANY_CHECKERS
            if b.side[side][point] == 255:
                return ERR_ID_TOO_MANY_CHECKERS
            b.side[side][point] += 1
        else:
            point += 1
            if point == BOARD_SIZE:
                point = 0
                side += 1
    return check_board(b)


cdef bint board_from_bytes(const unsigned char* data, Board* b) noexcept nogil:
    memset(b, 0, sizeof(Board))
    memcpy(b.side[0], data, BOARD_SIZE)
    memcpy(b.side[1], data + BOARD_SIZE, BOARD_SIZE)
    return True


cdef inline bytes _to_bytes(const Board* b):
    return (<const char*> b.side[0])[:BOARD_SIZE] + (<const char*> b.side[1])[:BOARD_SIZE]


_ERRORS = {
    ERR_ID_LENGTH: "a Position ID has 14 characters",
    ERR_ID_CHAR: "a Position ID uses only the Base64 characters A-Z a-z 0-9 + /",
    ERR_ID_TOO_MANY_CHECKERS: "it encodes more checkers than a board holds",
    ERR_TOO_MANY_CHECKERS: "a side has more than 15 checkers",
    ERR_POINT_SHARED: "both sides have checkers on the same point",
}


def error_text(int code):
    """The reason, in words, for a nonzero code from :func:`decode_id`/:func:`check`."""
    return _ERRORS.get(code, "unknown error")


def decode_id(str pid):
    """Decode a gnubg Position ID: return (0, 50 bytes) or (error code, None)."""
    cdef Board b
    cdef bytes raw = pid.encode("ascii", "replace")
    cdef int err = decode_position_id(raw, len(raw), &b)
    if err:
        return err, None
    return 0, _to_bytes(&b)


def encode_id(const unsigned char[::1] data):
    """The gnubg Position ID of a 50-byte board."""
    cdef Board b
    cdef char out[16]
    board_from_bytes(&data[0], &b)
    encode_position_id(&b, out)
    return out[:ID_LENGTH].decode("ascii")


def check(const unsigned char[::1] data):
    """0 if the 50-byte board is possible, else an error code (see :func:`error_text`)."""
    cdef Board b
    board_from_bytes(&data[0], &b)
    return check_board(&b)
