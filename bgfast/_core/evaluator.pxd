# cython: language_level=3
"""C declarations of the evaluator dispatch (see evaluator.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.heuristic cimport HeuristicSettings
from bgfast._core.neural cimport Neural
from bgfast._core.probs cimport PlayValue
from bgfast._core.search cimport Search

# The kinds of evaluator the core has.  A new one is one more value here and one more
# case in each function of evaluator.pyx.
cpdef enum EvaluatorKind:
    EVAL_HEURISTIC = 0
    EVAL_NEURAL = 1

# A player's evaluator: its kind and that kind's settings.
ctypedef struct Evaluator:
    int kind
    int ply                       # plies of its checker play: 0, or 1 to 3 (EVAL_NEURAL only)
    int cube_ply                  # plies of its cube estimates: 0 or 1, up to 3 for EVAL_NEURAL
    HeuristicSettings heuristic   # EVAL_HEURISTIC: weights, move filter, blend
    const Neural* model           # EVAL_NEURAL: the net (a Model's), else NULL
    Search* search                # EVAL_NEURAL: its n-ply search (search.pyx), else NULL

# Probabilities (win, wg, wbg, lg, lbg; see probs.pxd) of side 1 of ``b`` after its play.
cdef void evaluator_after(const Evaluator* e, const Board* b, float* p) noexcept nogil
# Index of the child of ``g`` (generated from ``parent``) this evaluator plays, at its ply:
# the net's by ``value`` (cubeless money equity when NULL); the heuristic's by its own
# money-play choice whatever ``value`` says.
cdef int evaluator_choose(const Evaluator* e, const MoveGen* g, const Board* parent,
                          const PlayValue* value) noexcept nogil
# Probabilities of side 1 of ``b`` (on roll) after rolling (d1, d2) and the evaluator's
# 0-ply play (``g`` is overwritten with the roll's plays).
cdef void evaluator_roll(const Evaluator* e, MoveGen* g, const Board* b, int d1, int d2, float* p) noexcept nogil
# Add to ``total`` the luck of rolling (d1, d2) for side 1 of ``b`` (on roll): the value of
# the roll (see evaluator.pyx; ``filter`` > 0: pubeval's best ``filter`` plays valued) minus
# its mean over the 36 rolls.  ``g`` is left holding the plays of (d1, d2); returns the index
# there of the evaluator's own 0-ply play when the luck measure found it, else -1.  ``every``
# (NULL, or MAX_CHILDREN rows of five): a neural evaluator's values of each play of (d1, d2).
cdef int evaluator_luck(const Evaluator* e, MoveGen* g, const Board* b, int d1, int d2, int filter,
                        float* total, float* every) noexcept nogil
# Probabilities of side 1 of ``b`` *on roll* (in play) at ``plies``: 0 = the opponent's view
# of the position flipped, 1 = the average of evaluator_roll over the 21 rolls, more (the
# net's, up to the plies its search has reserved) = search_preroll.  ``g`` is overwritten.
cdef void evaluator_preroll(const Evaluator* e, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil

# The Python face: an evaluator's settings, and the objects its pointers point into.
cdef class CoreEvaluator:
    cdef Evaluator ev
    cdef readonly object weights
    cdef readonly object filters      # the net's move filters (normal form), None for the heuristic
    cdef readonly object replies      # how the net's search chooses replies (search.REPLIES), None for the heuristic
    cdef readonly object prune        # whether the net's search prunes replies (bool), None for the heuristic
    cdef readonly object zero_ply_weight  # the 0-ply value's weight in the net's choices (float), None for the heuristic
    cdef int _reserve(self, int plies) except -1
    cdef Search* _own_search(self, int plies) except NULL
