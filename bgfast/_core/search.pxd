# cython: language_level=3
"""C declarations of the neural net's n-ply search (see search.pyx)."""
from libc.stdint cimport uint64_t
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.neural cimport Neural
from bgfast._core.probs cimport NOUT, PlayValue

cdef enum:
    SEARCH_MAX_PLIES = 3      # the deepest choice or evaluation
    SEARCH_MAX_KEEP = 64      # the most candidates a filter keeps (neural_candidates' most)
    # How a reply below the root of a search is chosen (Search.replies):
    REPLIES_0PLY = 0          # the net's 0-ply play, valued deeper (gnubg's evaluation tree)
    REPLIES_FILTERED = 1      # the search's own play at that depth, through the move filters

# One level of a move filter: the candidates valued at this level's plies go on, best
# first, at most ``keep`` of them within ``window`` money points of the best (the best
# always goes on); ``keep`` 0: this level is skipped (gnubg's "no pruning").
ctypedef struct MoveFilter:
    int keep
    float window

# One cached evaluation: the probabilities ``p`` of side 1 of ``board`` (on roll) at
# ``plies`` (>= 1; 0 = an empty slot).
ctypedef struct CacheEntry:
    Board board
    int plies
    float p[NOUT]

# A search: the net, its filters, move generators for the levels below the caller's,
# and a cache of evaluations (a fixed-size table, one entry a slot, the newest wins).
ctypedef struct Search:
    const Neural* model
    MoveFilter filters[SEARCH_MAX_PLIES + 1][SEARCH_MAX_PLIES]   # [n][k]: an n-ply choice's filter at k plies
    int replies                         # REPLIES_0PLY or REPLIES_FILTERED
    bint prune                          # rank a reply's plays by the pruning nets first (neural_roll_best)
    double zero_ply_weight              # a choice ranks its survivors by (1 - w) deep value + w 0-ply value
    float* scratch                      # NOUT * MAX_CHILDREN floats: one roll's 0-ply values
    int depth                           # generators allocated in gens
    MoveGen* gens[SEARCH_MAX_PLIES]
    int cache_size                      # slots (a power of two, or 0: no cache)
    CacheEntry* cache                   # allocated with the first generator
    unsigned long long lookups
    unsigned long long hits

# A search of ``model`` with no filters (its owner sets them, and its replies), no
# generators yet, and a cache of ``cache_size`` slots once it has any (NULL: out of memory).
cdef Search* search_new(const Neural* model, int cache_size) noexcept nogil
cdef void search_free(Search* s) noexcept nogil
# Allocate what a choice at ``plies`` (or an evaluation at ``plies + 1`` on the caller's
# generator) needs: ``plies`` generators, the cache and the scratch buffer.  False: out of memory.
cdef bint search_reserve(Search* s, int plies) noexcept nogil
# Probabilities of side 1 of ``b`` (on roll, in play) at ``plies`` (0 to SEARCH_MAX_PLIES),
# with ``g`` for ``b``'s own rolls (overwritten) and the search's generators below
# (reserved for ``plies - 1``).
cdef void search_preroll(Search* s, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil
# Index of the child of ``g`` (generated from ``parent``) chosen at ``plies`` (1 to
# SEARCH_MAX_PLIES, generators reserved for ``plies``), valued by ``value`` at the root
# (cubeless money equity when NULL) and by cubeless money equity below.
cdef int search_choose(Search* s, const MoveGen* g, const Board* parent, int plies,
                       const PlayValue* value) noexcept nogil
# Set the filters of ``s`` from their Python form (see :func:`check_filters`); raises
# ValueError for bad ones.
cdef int search_set_filters(Search* s, object filters) except -1
# Set how the replies below the root are chosen from the Python form (see
# :func:`check_replies`); raises ValueError for a bad one.
cdef int search_set_replies(Search* s, object replies) except -1
