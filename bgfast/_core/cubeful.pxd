# cython: language_level=3
"""C declarations of the cubeful n-ply evaluation (see cubeful.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.cube cimport CubeArgs, MetTable
from bgfast._core.evaluator cimport Evaluator
from bgfast._core.search cimport Search

cdef enum:
    CF_CENTRED = 0            # the cube is in the middle
    CF_MINE = 1               # the side on roll owns it
    CF_THEIRS = 2             # its opponent owns it

# The cube as the side on roll at one node sees it: its value, who owns it and, in match
# play, the points each side still needs (0 in money play).
ctypedef struct CubeState:
    int cube
    int owner                 # CF_CENTRED, CF_MINE or CF_THEIRS
    int away, opp_away        # match play: the side on roll's and its opponent's points to go

# What stays the same through one game: the money or match rules of the cube.
ctypedef struct CubeRules:
    const MetTable* met       # match play by this table; NULL: money (Janowski)
    int crawford              # the Crawford game: neither side may double
    int post_crawford         # a side is 1-away: the scores the game leads to are post-Crawford
    int jacoby                # money: gammons count single while the cube is centred
    int beaver                # money: a taker may beaver (redouble at once, keeping the cube)
    int max_cube
    double x                  # Janowski's cube efficiency at the leaves

# The rules and root state of a CubeArgs (the doubler = the side on roll, side 1 of the board).
cdef void cubeful_from_args(const CubeArgs* a, CubeRules* r, CubeState* st) noexcept nogil
# No double, double/take and double/pass of the side on roll (side 1) of ``b`` before its roll
# at ``plies`` (0 to SEARCH_MAX_PLIES), its view: money in units of the current cube, match
# play in match winning chances; ``p`` (unless NULL) its cubeless probabilities at ``plies``.
# ``g`` is overwritten; the search's generators must be reserved for ``plies - 1``.
# Returns 0, or -1 when out of memory (the values are then those of 0 plies).
cdef int cubeful_decide(Search* s, MoveGen* g, const Board* b, const CubeRules* r, const CubeState* st,
                        int plies, double* nd, double* dt, double* dp, float* p) noexcept nogil
# cube_offer / cube_respond of cube.pyx, with a neural evaluator's cube_ply >= 1 valued by
# cubeful_decide (the 0-ply screen first); other evaluators and cube_ply 0 as cube.pyx does.
cdef int cubeful_offer(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil
cdef int cubeful_respond(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil
