# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""Move generation: every distinct position a legal play of a roll reaches.

Rules, as GNU Backgammon plays them: a checker on the bar enters first (die d
enters on the mover's point 25-d); a point the opponent holds with two or more
checkers is blocked; landing on a single opposing checker hits it to the bar;
bearing off needs every checker in the home board and uses the exact die, or a
larger die from the highest occupied point only; the mover plays as many dice
as possible and, when only one die of a non-double can be played, the larger
one if it can.  When nothing can be played the single result is the unchanged
position (a play with no steps).

Legality for a die is computed for all points at once from bit masks in the
mover's coordinates (bit i = the mover's point i+1, bit 24 = the bar):
``occupied & ~(blocked << d)`` are the points a checker can leave with die d
without landing on a block.  The blocked mask cannot change during a play (a
hit only removes a blot), so it is computed once per generation.  Distinct
results are kept in a fixed open-addressing hash table with generation stamps,
so nothing is allocated or cleared per call.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t
cimport numpy as cnp
import numpy as np

from bgfast._core.board cimport Board, BOARD_SIZE, BAR, board_equal, load8, nonzero_bytes, nonzero_bytes_reversed, board_from_bytes, check_board, encode_position_id, ID_LENGTH
from bgfast._core.movegen cimport MoveGen, Child, MAX_CHILDREN, TABLE_SIZE, SLOT_BITS

cnp.import_array()

cdef enum:
    HOME_MASK = 0x3F


cdef MoveGen* movegen_new() noexcept nogil:
    cdef MoveGen* g = <MoveGen*> malloc(sizeof(MoveGen))
    if g != NULL:
        memset(g.slots, 0, sizeof(g.slots))
        g.stamp = 0
        g.n = 0
    return g


cdef void movegen_free(MoveGen* g) noexcept nogil:
    free(g)


cdef inline void _reset(MoveGen* g, int dice_used) noexcept nogil:
    g.n = 0
    g.dice_used = dice_used
    g.stamp += 1
    if g.stamp >> (32 - SLOT_BITS):   # wrapped: wipe the table once every 2**22 resets
        memset(g.slots, 0, sizeof(g.slots))
        g.stamp = 1


# Zobrist keys: ZOBRIST[side][index][count], zero for count 0 so empty points cost nothing.
cdef uint64_t ZOBRIST[2][25][16]


cdef void _init_zobrist() noexcept nogil:
    cdef uint64_t x = 0x243F6A8885A308D3ULL, z
    cdef int side, i, c
    for side in range(2):
        for i in range(25):
            ZOBRIST[side][i][0] = 0
            for c in range(1, 16):
                x += 0x9E3779B97F4A7C15ULL
                z = x
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
                ZOBRIST[side][i][c] = z ^ (z >> 31)


_init_zobrist()

# ZOBRIST_STEP[side][index][c]: the hash change when a point's count goes between c - 1 and c.
cdef uint64_t ZOBRIST_STEP[2][25][16]


cdef void _init_zobrist_steps() noexcept nogil:
    cdef int side, i, c
    for side in range(2):
        for i in range(25):
            ZOBRIST_STEP[side][i][0] = 0
            for c in range(1, 16):
                ZOBRIST_STEP[side][i][c] = ZOBRIST[side][i][c] ^ ZOBRIST[side][i][c - 1]


_init_zobrist_steps()


cdef inline Child* _next_slot(MoveGen* g, int depth) noexcept nogil:
    """Where the next child of a ``depth``-step play goes; NULL when a longer play is
    known (the rule to use as many dice as possible) or the buffer is full."""
    if depth < g.dice_used:
        return NULL
    if depth > g.dice_used:
        _reset(g, depth)
    if g.n == MAX_CHILDREN:
        g.overflow = 1
        return NULL
    return &g.items[g.n]


cdef inline bint _insert(MoveGen* g, uint64_t h, const Board* b) noexcept nogil:
    """Enter child ``g.n`` (board ``b``, hash ``h``) in the dedupe table; False if an
    equal board is already there."""
    cdef uint32_t stamp = g.stamp << SLOT_BITS
    cdef uint32_t slot = <uint32_t> (h & (TABLE_SIZE - 1))
    cdef uint32_t entry = g.slots[slot]
    cdef int k
    if g.n >= (1 << SLOT_BITS) - 1:     # cannot happen with 15 checkers a side (see TABLE_SIZE)
        g.overflow = 1
        return False
    while (entry & ~((1u << SLOT_BITS) - 1)) == stamp:
        k = <int> (entry & ((1u << SLOT_BITS) - 1)) - 1
        if g.hashes[k] == h and board_equal(&g.items[k].board, b):
            return False
        slot = (slot + 1) & (TABLE_SIZE - 1)
        entry = g.slots[slot]
    g.slots[slot] = stamp | <uint32_t> (g.n + 1)
    g.hashes[g.n] = h
    return True


cdef inline void _record_current(MoveGen* g, int depth, bint dedupe) noexcept nogil:
    """Record ``g.cur``, reached by the ``depth`` steps on the path."""
    cdef Child* c = _next_slot(g, depth)
    if c == NULL:
        return
    memcpy(&c.board, &g.cur, sizeof(Board))
    if dedupe and not _insert(g, g.cur_hash, &c.board):
        return
    memcpy(c.src, g.path_src, 4)
    memcpy(c.dst, g.path_dst, 4)
    c.hit = g.path_hit & ((1 << depth) - 1)
    c.nsteps = <uint8_t> depth
    g.n += 1


cdef inline void _record_leaf(MoveGen* g, int depth, int s, int t, bint dedupe) noexcept nogil:
    """Record ``g.cur`` after one more step ``s`` -> ``t`` (mover's indices, ``t`` < 0:
    borne off), built straight into the child's slot instead of made and unmade."""
    cdef Child* c = _next_slot(g, depth + 1)
    cdef uint8_t* me
    cdef uint8_t* opp
    cdef uint64_t h
    cdef int hit = 0
    if c == NULL:
        return
    memcpy(&c.board, &g.cur, sizeof(Board))
    me = c.board.side[1]
    opp = c.board.side[0]
    me[s] -= 1
    if t >= 0:
        me[t] += 1
        if opp[23 - t] == 1:
            hit = 1
            opp[23 - t] = 0
            opp[BAR] += 1
    if dedupe:
        h = g.cur_hash ^ ZOBRIST_STEP[1][s][me[s] + 1]
        if t >= 0:
            h ^= ZOBRIST_STEP[1][t][me[t]]
            if hit:
                h ^= ZOBRIST[0][23 - t][1] ^ ZOBRIST_STEP[0][BAR][opp[BAR]]
        if not _insert(g, h, &c.board):
            return
    memcpy(c.src, g.path_src, 4)
    memcpy(c.dst, g.path_dst, 4)
    c.src[depth] = <uint8_t> (s + 1)
    c.dst[depth] = <uint8_t> (t + 1) if t >= 0 else 0
    c.hit = (g.path_hit & ((1 << depth) - 1)) | (hit << depth)
    c.nsteps = <uint8_t> (depth + 1)
    g.n += 1


cdef extern from *:
    int __builtin_clz(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil


cdef inline uint32_t _sources(uint32_t occ, uint32_t blocked, int d) noexcept nogil:
    """Mask of the mover's points a checker can legally leave with die ``d``."""
    cdef uint32_t movable
    if occ >> BAR:                                     # on the bar: enter first
        return (<uint32_t> 1 << BAR) if not (blocked >> (BAR - d)) & 1 else 0
    movable = occ & ~(blocked << d) & ~((<uint32_t> 1 << d) - 1)
    if occ & ~(<uint32_t> HOME_MASK):                  # not all home: no bearing off
        return movable
    movable |= occ & ((<uint32_t> 1) << (d - 1))       # exact bear-off
    if (occ >> d) == 0 and occ:                        # nothing on point d+1 or higher:
        movable |= (<uint32_t> 1) << (31 - __builtin_clz(occ))   # larger die from the highest point
    return movable


cdef inline uint32_t _reversible(MoveGen* g, uint32_t srcs) noexcept nogil:
    """Second pass (smaller die first), second step with the larger die: the sources
    whose play the first pass already reached in the other order.

    Step one moved a checker s1 -> t1 with the smaller die.  A larger-die step
    from s2 != t1 gives the same position as (s2 with the larger die, then s1
    with the smaller) whenever that order is legal: s2 could play the larger
    die at the start and s1 still has a checker after it.  Blocks never change
    during a play and the larger step only moves checkers nearer home, so
    nothing else can make that order illegal.
    """
    cdef int s1 = g.path_src[0] - 1
    cdef int t1 = g.path_dst[0] - 1          # -1: borne off
    cdef uint32_t rev = srcs & g.hi_sources
    if t1 >= 0:
        rev &= ~((<uint32_t> 1) << t1)      # continuing the same checker is new
    if g.cur.side[1][s1] == 0:
        rev &= ~((<uint32_t> 1) << s1)      # s1's only checker cannot move twice
    return rev


cdef inline uint32_t _make_step(MoveGen* g, uint32_t occ, int depth, int s, int t, bint hashed) noexcept nogil:
    """Move one checker ``s`` -> ``t`` in ``g.cur`` (hitting a blot there), note it on
    the path and return the new occupancy; :func:`_unmake_step` undoes it."""
    cdef uint8_t* me = g.cur.side[1]
    cdef uint8_t* opp = g.cur.side[0]
    cdef int n = me[s]
    if hashed:
        g.cur_hash ^= ZOBRIST_STEP[1][s][n]
    me[s] = <uint8_t> (n - 1)
    if n == 1:
        occ &= ~((<uint32_t> 1) << s)
    g.path_src[depth] = <uint8_t> (s + 1)
    g.path_hit &= ~(1 << depth)
    if t < 0:
        g.path_dst[depth] = 0
        return occ
    g.path_dst[depth] = <uint8_t> (t + 1)
    if opp[23 - t] == 1:
        opp[23 - t] = 0
        opp[BAR] += 1
        g.path_hit |= (1 << depth)
        if hashed:
            g.cur_hash ^= ZOBRIST[0][23 - t][1] ^ ZOBRIST_STEP[0][BAR][opp[BAR]]
    n = me[t] + 1
    me[t] = <uint8_t> n
    if hashed:
        g.cur_hash ^= ZOBRIST_STEP[1][t][n]
    return occ | ((<uint32_t> 1) << t)


cdef inline void _unmake_step(MoveGen* g, int depth, int s, int t) noexcept nogil:
    cdef uint8_t* me = g.cur.side[1]
    cdef uint8_t* opp = g.cur.side[0]
    if t >= 0:
        me[t] -= 1
        if (g.path_hit >> depth) & 1:
            opp[BAR] -= 1
            opp[23 - t] = 1
    me[s] += 1


cdef void _search_doubles(MoveGen* g, uint32_t occ, int depth, int max_src) noexcept nogil:
    """Doubles: play the die from sources in non-increasing order.

    No dedupe is needed: a play of a double is fixed by the multiset of points
    its steps leave (the net change on each chain of points ``d`` apart gives
    the number of steps from each point, top down, and the hits follow), and
    the non-increasing order is legal whenever any order is, so each multiset,
    hence each distinct result, is reached exactly once.
    """
    cdef int d = g.die_seq[0]
    cdef int s
    cdef uint32_t nocc
    cdef uint32_t srcs = _sources(occ, g.blocked, d) & (((<uint32_t> 2) << max_src) - 1)
    if srcs == 0:
        _record_current(g, depth, False)
        return
    while srcs:
        s = __builtin_ctz(srcs)
        srcs &= srcs - 1
        if depth == 3:
            _record_leaf(g, 3, s, s - d, False)
        else:
            nocc = _make_step(g, occ, depth, s, s - d, False)
            _search_doubles(g, nocc, depth + 1, s)
            _unmake_step(g, depth, s, s - d)


cdef void _search_pair(MoveGen* g, uint32_t occ, int first, int second) noexcept nogil:
    """Non-doubles: every play of ``first`` then ``second`` (deduplicated by hash)."""
    cdef int s1, s2
    cdef uint32_t nocc, srcs2
    cdef uint64_t saved_hash = g.cur_hash
    cdef uint32_t srcs = _sources(occ, g.blocked, first)
    if srcs == 0:
        _record_current(g, 0, True)
        return
    while srcs:
        s1 = __builtin_ctz(srcs)
        srcs &= srcs - 1
        nocc = _make_step(g, occ, 0, s1, s1 - first, True)
        srcs2 = _sources(nocc, g.blocked, second)
        if srcs2 == 0:
            # Higher-die rule: a lone smaller die only counts when the larger cannot be played.
            if not (g.pass2 and g.hi_die_playable):
                _record_current(g, 1, True)
        else:
            if g.pass2:
                srcs2 &= ~_reversible(g, srcs2)
            while srcs2:
                s2 = __builtin_ctz(srcs2)
                srcs2 &= srcs2 - 1
                _record_leaf(g, 1, s2, s2 - second, True)
        _unmake_step(g, 0, s1, s1 - first)
        g.cur_hash = saved_hash


cdef void prepare(MoveGen* g, const Board* b) noexcept nogil:
    """Load ``b`` (``b.side[1]`` moves) as the root of the next :func:`generate_prepared` calls.

    A search restores the root, so one board is prepared once for all its rolls.
    """
    cdef int i
    cdef uint32_t occ = 0, blocked = 0
    cdef const uint8_t* me = b.side[1]
    cdef const uint8_t* opp = b.side[0]
    for i in range(3):               # eight points at a time (SWAR)
        occ |= nonzero_bytes(load8(me + 8 * i)) << (8 * i)
        blocked |= nonzero_bytes_reversed(load8(opp + 8 * i) & 0xFEFEFEFEFEFEFEFEULL) << (16 - 8 * i)
    occ |= (<uint32_t> (me[BAR] != 0)) << BAR
    memcpy(&g.cur, b, sizeof(Board))
    memset(g.cur.pad, 0, sizeof(g.cur.pad))
    g.occ = occ
    g.blocked = blocked


cdef int generate(MoveGen* g, const Board* b, int d1, int d2) noexcept nogil:
    """Fill ``g.items[0:g.n]`` with the distinct results of playing (d1, d2) in ``b``.

    ``b.side[1]`` moves.  Returns the number of children (at least 1).
    """
    prepare(g, b)
    return generate_prepared(g, d1, d2)


cdef int generate_prepared(MoveGen* g, int d1, int d2) noexcept nogil:
    """:func:`generate` for the board last given to :func:`prepare`."""
    cdef int i, hi, lo
    cdef uint32_t occ = g.occ
    g.cur_hash = 0                  # hashes are relative to the root: only children are compared
    g.overflow = 0
    g.path_hit = 0
    _reset(g, 0)
    if d1 == d2:
        g.doubles = 1
        g.pass2 = 0
        g.ndice = 4
        for i in range(4):
            g.die_seq[i] = d1
        _search_doubles(g, occ, 0, BAR)
    else:
        hi = d1 if d1 > d2 else d2
        lo = d2 if d1 > d2 else d1
        g.doubles = 0
        g.pass2 = 0
        g.ndice = 2
        g.hi_die_playable = 0
        g.die_seq[0] = hi
        g.die_seq[1] = lo
        _search_pair(g, occ, hi, lo)
        g.hi_die_playable = g.dice_used >= 1
        g.hi_sources = _sources(occ, g.blocked, hi)
        g.die_seq[0] = lo
        g.die_seq[1] = hi
        g.pass2 = 1
        _search_pair(g, occ, lo, hi)
        g.pass2 = 0
    return g.n


# ---------------------------------------------------------------- Python entry points

cdef class Generator:
    """A reusable move-generation buffer for calls from Python.

    :meth:`children` returns the results of one roll as packed bytes: for each
    child 50 board bytes (gnubg order, mover's frame) and 10 step bytes
    (4 sources, 4 destinations in notation points, the hit mask, the number of
    steps).
    """
    cdef MoveGen* g

    def __cinit__(self):
        self.g = movegen_new()
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        movegen_free(self.g)

    def children(self, const unsigned char[::1] board, int d1, int d2):
        """Return (boards: bytes of n*50, steps: bytes of n*10) for dice (d1, d2)."""
        _check_dice(d1, d2)
        cdef Board b
        cdef int i, n
        cdef Child* c
        cdef bytearray boards, steps
        cdef unsigned char* pb
        cdef unsigned char* ps
        board_from_bytes(&board[0], &b)
        with nogil:
            n = generate(self.g, &b, d1, d2)
        if self.g.overflow:
            raise RuntimeError("more than %d distinct plays" % MAX_CHILDREN)
        boards = bytearray(n * 50)
        steps = bytearray(n * 10)
        pb = boards
        ps = steps
        for i in range(n):
            c = &self.g.items[i]
            memcpy(pb + 50 * i, c.board.side[0], 25)
            memcpy(pb + 50 * i + 25, c.board.side[1], 25)
            memcpy(ps + 10 * i, c.src, 4)
            memcpy(ps + 10 * i + 4, c.dst, 4)
            ps[10 * i + 8] = c.hit
            ps[10 * i + 9] = c.nsteps
        return bytes(boards), bytes(steps)

    def count(self, const unsigned char[::1] board, int d1, int d2):
        """The number of distinct results of (d1, d2) (1 when nothing can be played)."""
        _check_dice(d1, d2)
        cdef Board b
        cdef int n
        board_from_bytes(&board[0], &b)
        with nogil:
            n = generate(self.g, &b, d1, d2)
        return n

    def child_ids(self, const unsigned char[::1] board, int d1, int d2):
        """The gnubg Position IDs of the distinct results, in generation order."""
        _check_dice(d1, d2)
        cdef Board b
        cdef int i, n
        cdef char out[16]
        board_from_bytes(&board[0], &b)
        with nogil:
            n = generate(self.g, &b, d1, d2)
        result = []
        for i in range(n):
            encode_position_id(&self.g.items[i].board, out)
            result.append(out[:ID_LENGTH].decode("ascii"))
        return result


cdef MoveGen* _SHARED = movegen_new()    # used with the GIL held: one call at a time


cdef class ChildList:
    """The results of one roll, kept in C memory; the base of ``position.LegalMoves``.

    ``ChildList(origin, board, d1, d2)``: ``board`` is the 50-byte board of ``origin``
    (opponent's counts, then the mover's), ``origin`` is kept as it is for the subclass
    (a Position); dice must be 1..6 (the caller validates them).  Children are in the
    mover's frame, not swapped.  The accessors have underscored names, so that a
    subclass shows only its own API.
    """
    cdef Child* items
    cdef readonly int _n
    cdef readonly int _high
    cdef readonly int _low
    cdef readonly object _origin

    def __cinit__(self, origin, bytes board not None, int d1, int d2):
        cdef Board b
        self.items = NULL
        self._origin = origin
        self._high = d1 if d1 > d2 else d2
        self._low = d2 if d1 > d2 else d1
        if len(board) != 50:
            raise ValueError("a board is 50 bytes")
        board_from_bytes(<const unsigned char*> (<const char*> board), &b)
        self._n = generate(_SHARED, &b, d1, d2)
        if _SHARED.overflow:
            raise RuntimeError("more than %d distinct plays" % MAX_CHILDREN)
        self.items = <Child*> malloc(self._n * sizeof(Child))
        if self.items == NULL:
            raise MemoryError()
        memcpy(self.items, _SHARED.items, self._n * sizeof(Child))

    def __dealloc__(self):
        free(self.items)

    def __len__(self):
        return self._n

    cpdef bytes _board(self, int i):
        """The 50-byte board of child ``i``."""
        if not 0 <= i < self._n:
            raise IndexError(i)
        return (<char*> self.items[i].board.side[0])[:50]

    cpdef list _steps(self, int i):
        """Child ``i``'s steps: ``[(src, dst, hit), ...]`` in notation points (bar 25, off 0)."""
        cdef Child* c
        cdef int k
        if not 0 <= i < self._n:
            raise IndexError(i)
        c = &self.items[i]
        return [(c.src[k], c.dst[k], bool(c.hit >> k & 1)) for k in range(c.nsteps)]

    cpdef int _find(self, bytes board):
        """The index of the child with this 50-byte board, or -1."""
        cdef Board b
        cdef int i
        if len(board) != 50:
            raise ValueError("a board is 50 bytes")
        board_from_bytes(<const unsigned char*> (<const char*> board), &b)
        for i in range(self._n):
            if board_equal(&self.items[i].board, &b):
                return i
        return -1


cdef inline void _check_dice(int d1, int d2) except *:
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError("dice must be 1..6, got (%d, %d)" % (d1, d2))


def count_batch(const unsigned char[:, ::1] boards, const int64_t[:, ::1] dice):
    """Generate for every (board, roll) pair in C and return the child counts.

    :param boards: uint8 array of shape (N, 50): opponent's 25 counts, then the mover's.
    :param dice: int64 array of shape (M, 2): the rolls; each board is played with each roll.
    :returns: int32 array of shape (N, M): distinct results per generation (1 = no legal play).
    """
    cdef Py_ssize_t n = boards.shape[0], m = dice.shape[0], i, j
    cdef cnp.ndarray[cnp.int32_t, ndim=2] out = np.empty((n, m), dtype=np.int32)
    cdef int[:, ::1] view = out
    cdef Board b
    cdef MoveGen* g
    cdef int overflow = 0
    cdef Py_ssize_t bad = -1
    if boards.shape[1] != 50 or dice.shape[1] != 2:
        raise ValueError("boards must have shape (N, 50) and dice (M, 2)")
    for j in range(m):
        _check_dice(<int> dice[j, 0], <int> dice[j, 1])
    g = movegen_new()
    if g == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            if check_board(&b):
                bad = i
                break
            prepare(g, &b)
            for j in range(m):
                view[i, j] = generate_prepared(g, <int> dice[j, 0], <int> dice[j, 1])
                overflow |= g.overflow
    movegen_free(g)
    if bad >= 0:
        raise ValueError("board %d is impossible (more than 15 checkers a side or a shared point)" % bad)
    if overflow:
        raise RuntimeError("more than %d distinct plays" % MAX_CHILDREN)
    return out


def ids_batch(const unsigned char[:, ::1] boards, const int64_t[:, ::1] dice):
    """Like :func:`count_batch`, and also the Position ID of every child.

    :returns: ``(counts, ids)``: counts int32 (N, M) as in :func:`count_batch`;
        ids a flat ``S14`` array of all children, generation by generation in
        row-major (board, roll) order, so generation (i, j) owns the slice
        starting at ``counts.ravel()[:i * M + j].sum()``.
    """
    cdef cnp.ndarray[cnp.int32_t, ndim=2] counts = count_batch(boards, dice)
    cdef Py_ssize_t n = boards.shape[0], m = dice.shape[0], i, j, k, pos = 0
    cdef int c
    cdef cnp.ndarray ids = np.zeros(int(counts.sum()), dtype="S14")
    cdef char* out = <char*> cnp.PyArray_DATA(ids)
    cdef char buf[16]
    cdef Board b
    cdef MoveGen* g = movegen_new()
    if g == NULL:
        raise MemoryError()
    with nogil:
        for i in range(n):
            board_from_bytes(&boards[i, 0], &b)
            prepare(g, &b)
            for j in range(m):
                c = generate_prepared(g, <int> dice[j, 0], <int> dice[j, 1])
                for k in range(c):
                    encode_position_id(&g.items[k].board, buf)
                    memcpy(out + 14 * pos, buf, 14)
                    pos += 1
    movegen_free(g)
    return counts, ids
