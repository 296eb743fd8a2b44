# cython: language_level=3
"""C declarations of the cube math (see cube.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.evaluator cimport Evaluator

cdef enum:
    MET_SIZE = 64             # scores up to 63-away; the longest match the core plays is 64

# The answer to a double.
cpdef enum CubeAnswer:
    RESPONSE_PASS = 0
    RESPONSE_TAKE = 1
    RESPONSE_BEAVER = 2

# A match equity table as the core reads it; index = points away, 0 = the match is won.
ctypedef struct MetTable:
    double pre[MET_SIZE][MET_SIZE]    # pre[a][b]: P(win match) at a-away against b-away, pre-Crawford
    double post[MET_SIZE]             # post[a]: the trailer's chance at a-away, the leader 1-away

# What a cube decision needs, from the doubler's view.  Cube ownership: ``owner`` is -1
# for a centred cube, else the player (0 or 1) who owns it, as in MatchState.
ctypedef struct CubeArgs:
    int length                # 0 = money
    int doubler               # the player (0 or 1) who may double
    int owner                 # -1 centred, else the owning player
    int away_d, away_t        # match play: points the doubler / taker still need
    int post_crawford         # a side is 1-away: the scores the game leads to are post-Crawford
    int crawford              # this is the Crawford game: neither side may double
    int cube                  # the cube value now
    int jacoby                # money: gammons count single while the cube is centred
    int beaver                # money: the taker may beaver
    int max_cube
    double x                  # Janowski's cube efficiency
    const MetTable* met       # match play through this table; NULL = Janowski

# Equities from the doubler's view: no double, double/take, double/pass; money in units
# of the current cube, match play as match winning chances.  Returns 1 if the doubler
# should double.
cdef int cube_decide(const float* p, const CubeArgs* a, double* nd, double* dt, double* dp) noexcept nogil
# Whether the doubler (side 1 of ``b``, on roll) doubles, by ``e``'s estimates.
cdef int cube_offer(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil
# The 0-ply screen of cube_offer: ``p`` = the 0-ply probabilities of side 1 of ``b`` (on
# roll), ``nd``/``dt``/``dp`` their decision; true: no double, clearly (no deeper look).
cdef bint cube_screened(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b, float* p,
                        double* nd, double* dt, double* dp) noexcept nogil
# Whether ``a`` is valued by its match equity table (match play within the table), else Janowski.
cdef bint cube_uses_met(const CubeArgs* a) noexcept nogil
# The taker's answer (a CubeAnswer) to a double worth ``dt`` (take) or ``dp`` (pass) to the doubler.
cdef int cube_answer(const CubeArgs* a, double dt, double dp) noexcept nogil
# The taker's answer (a CubeAnswer) to a double; ``b`` has the doubler on roll.
cdef int cube_respond(const CubeArgs* a, const Evaluator* e, MoveGen* g, const Board* b) noexcept nogil
# The play of the side on roll in ``b`` (``a.doubler``, the mover) among the children of
# ``g``: in match play by the table, the one of the highest cubeful match winning chance
# (play_mwc); otherwise, and for the heuristic, the evaluator's money-play choice.
cdef int cube_choose(const CubeArgs* a, const Evaluator* e, const MoveGen* g, const Board* b) noexcept nogil

# Cubeful money equity per cube of ``player`` from its probabilities ``p`` (Janowski; the
# cube centred for ``owner`` -1, else owned by ``owner``): what money_equity returns.
# Janowski's x for a cube of value ``cube`` that its holder (or either side, centred) may
# still turn: a cube that cannot be doubled again (2 * cube > max_cube) is dead, x = 0.
cdef inline double money_x(double x, int cube, int max_cube) noexcept nogil:
    return x if 2 * cube <= max_cube else 0.0

cdef double money_cubeful(const double* p, int owner, int player, double x, bint jacoby) noexcept nogil
# The same from float probabilities (the decisions' arithmetic: cube_decide's no double).
cdef double money_cubeful_f(const float* p, int owner, int player, double x, bint jacoby) noexcept nogil
# The MWC of the side ``away`` points from winning against one ``opp_away`` away: what mwc returns.
cdef double met_mwc(const MetTable* t, int away, int opp_away, bint post_crawford) noexcept nogil
# The MWC of the side ``away`` points from winning, from its probabilities ``p``, with the cube
# dead at ``cube`` (both aways 1 or more, within the table): what dead_cube_mwc returns.
cdef double met_dead_cube(const double* p, const MetTable* t, int away, int opp_away, int cube) noexcept nogil

# What play_mwc needs: the score and cube after a play, from the mover's view.
ctypedef struct PlayScene:
    const MetTable* met
    int away, opp_away        # the mover's and its opponent's points to go
    int post_crawford         # as in CubeArgs
    int cube
    int mine, theirs          # the mover / its opponent may double the cube later
    int max_cube
    double x                  # Janowski's cube efficiency
# The mover's cubeful match winning chance from its probabilities ``p`` after a play, its
# opponent on roll taking its proper cube action where it may double; ``ctx`` is a
# PlayScene.  A PlayValue function (probs.pxd).
cdef double play_mwc(const float* p, const void* ctx) noexcept nogil
# The cubeful match winning chance of the side of a PlayScene from its probabilities ``p``, the
# cube as it stands, no cube action pending (a side before its roll, or after a play where
# the opponent may not double): what cubeful_mwc returns.
cdef double standing_mwc(const float* p, const PlayScene* ps) noexcept nogil

# A match equity table in C memory (the Python face of MetTable).
cdef class Met:
    cdef MetTable t
    cdef readonly int size
