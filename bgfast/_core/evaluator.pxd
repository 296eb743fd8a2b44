# cython: language_level=3
"""C declarations of the evaluator dispatch (see evaluator.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.heuristic cimport HeuristicSettings

# The kinds of evaluator the core has.  A new one (the neural net of issue 12) is one
# more value here and one more case in each function of evaluator.pyx.
cpdef enum EvaluatorKind:
    EVAL_HEURISTIC = 0

# A player's evaluator: its kind and that kind's settings.
ctypedef struct Evaluator:
    int kind
    HeuristicSettings heuristic   # EVAL_HEURISTIC: weights, move filter, blend
    const void* model             # the data of a kind that needs more (a net), else NULL

# Probabilities (win, wg, wbg, lg, lbg; see probs.pxd) of side 1 of ``b`` after its play.
cdef void evaluator_after(const Evaluator* e, const Board* b, float* p) noexcept nogil
# Index of the child of ``g`` (generated from ``parent``) this evaluator plays.
cdef int evaluator_choose(const Evaluator* e, const MoveGen* g, const Board* parent) noexcept nogil
# Probabilities of side 1 of ``b`` *on roll*: 0 plies = the opponent's view of the
# position flipped, 1 ply = the average over the 21 rolls of the evaluator's play.
cdef void evaluator_preroll(const Evaluator* e, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil

# The Python face: an evaluator's settings, and the objects its pointers point into.
cdef class CoreEvaluator:
    cdef Evaluator ev
    cdef readonly object weights
