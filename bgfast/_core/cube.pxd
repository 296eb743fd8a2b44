# cython: language_level=3
"""C declarations of the cube policies (see cube.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.game cimport MatchCtx

ctypedef struct CubeArgs:
    int length                # 0 = money
    int away_d, away_t        # match play: points the doubler / taker still need
    int post_crawford         # a side is 1-away and this is not the Crawford game
    int cube                  # the cube value now
    int centred               # 1 centred, 0 owned by the doubler
    int jacoby                # money: gammons count single while the cube is centred
    int max_cube
    double x                  # Janowski's cube efficiency
    const double* met         # MET_SIZE x MET_SIZE pre-Crawford match winning chances (or NULL)
    const double* met_post    # post-Crawford row (or NULL)

# Equities from the doubler's view: no double, double/take, double/pass; money in units
# of the current cube, match play as match winning chances.  Returns 1 if the doubler
# should double.
cdef int cube_decide(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil
cdef int cube_offer(MatchCtx* m, int player, const Board* b, int cube, int owner, int crawford) except -1 nogil
cdef int cube_respond(MatchCtx* m, int player, const Board* b, int cube, int owner, int crawford) except -1 nogil
