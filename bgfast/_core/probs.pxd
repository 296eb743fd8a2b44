# cython: language_level=3
"""Cubeless outcome probabilities: the five numbers every evaluator gives, and their equity.

``p[0..4]`` = win, win gammon, win backgammon, lose gammon, lose backgammon, of one
side, cumulative as in GNU Backgammon (a gammon includes the backgammons, a win the
gammons).  Header only (inline), so that the evaluators' hot loops compile it in;
its Python face is :func:`bgfast._core.cube.cubeless_equity` / :func:`~bgfast._core.cube.flip`.
"""

cdef enum:
    NOUT = 5                  # win, win gammon, win backgammon, lose gammon, lose backgammon

ctypedef fused real:
    float
    double

# How a player values the probabilities after one of its plays (the mover's view), when
# not by their cubeless money equity: ``fn(p, ctx)``, higher is better, and ``unit``, the
# value of one money point (a move filter's window, set in money points, is scaled by it).
# The match-play value is :func:`bgfast._core.cube.play_mwc` (its context a PlayScene).
ctypedef double (*play_value_fn)(const float* p, const void* ctx) noexcept nogil
ctypedef struct PlayValue:
    play_value_fn fn
    const void* ctx
    double unit


cdef inline real probs_equity(const real* p) noexcept nogil:
    """Cubeless money equity per cube of the side whose probabilities these are:
    ``2 win - 1 + wg - lg + wbg - lbg`` (each gammon and backgammon adds one point)."""
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


cdef inline void probs_flip(const real* q, real* p) noexcept nogil:
    """``p`` = the probabilities ``q`` from the other side's view (``p`` may not be ``q``)."""
    p[0] = 1 - q[0]
    p[1] = q[3]
    p[2] = q[4]
    p[3] = q[1]
    p[4] = q[2]
