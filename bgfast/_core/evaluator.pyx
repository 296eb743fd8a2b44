# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""One dispatch for "a player's evaluator": what the cube policies and the luck measure ask.

An evaluator turns a board into the five cubeless probabilities (win, win gammon,
win backgammon, lose gammon, lose backgammon; :mod:`bgfast._core.probs`) of a side,
and picks its favourite play of a roll.  The game loop's cube policies (Janowski,
the match equity table) and its luck measure (variance reduction in rollouts) ask a
player's evaluator, whatever plays the checkers: a bot with no evaluator of its own
(pubeval, random) gets the heuristic's, the default.

Adding an evaluator kind (issue 12's neural net): a value of ``EvaluatorKind`` in
``evaluator.pxd``, a case in :func:`evaluator_after` and :func:`evaluator_choose` (and
in :func:`evaluator_preroll` if it estimates positions before the roll itself), and
its settings in :class:`CoreEvaluator`.  Everything here is ``nogil`` C without Python
objects; the pointers of an ``Evaluator`` point into objects that a
:class:`CoreEvaluator` keeps alive.
"""
from bgfast._core.board cimport Board, board_from_bytes, board_swap
from bgfast._core.movegen cimport MoveGen, movegen_new, generate
from bgfast._core.probs cimport NOUT, probs_flip
from bgfast._core.heuristic cimport (
    HeuristicWeights, heuristic_probs, heuristic_choose, H_FILTER_MAX, H_FILTER_ALL,
)
from bgfast._core.evaluator cimport EVAL_HEURISTIC, Evaluator
from bgfast._core import heuristic as _heuristic


cdef void evaluator_after(const Evaluator* e, const Board* b, float* p) noexcept nogil:
    if e.kind == EVAL_HEURISTIC:
        heuristic_probs(e.heuristic.weights, b, p)


cdef int evaluator_choose(const Evaluator* e, const MoveGen* g, const Board* parent) noexcept nogil:
    if e.kind == EVAL_HEURISTIC:
        return heuristic_choose(&e.heuristic, g, parent)
    return 0


cdef void evaluator_preroll(const Evaluator* e, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil:
    cdef Board s
    cdef float q[NOUT]
    cdef int d1, d2, k, idx
    cdef float w
    if plies <= 0:
        board_swap(&s, b)
        evaluator_after(e, &s, q)
        probs_flip(q, p)
        return
    for k in range(NOUT):
        p[k] = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            generate(g, b, d1, d2)
            idx = evaluator_choose(e, g, b)
            evaluator_after(e, &g.items[idx].board, q)
            for k in range(NOUT):
                p[k] += w * q[k]
    for k in range(NOUT):
        p[k] /= 36.0


# ---------------------------------------------------------------- Python face

cdef MoveGen* _SHARED = movegen_new()    # used with the GIL held: one call at a time


cdef class CoreEvaluator:
    """An evaluator of the core with its settings, as a player of the game loop carries it.

    :param weights: a :class:`~bgfast._core.heuristic.HeuristicWeights` (kind heuristic).
    :param kind: an :class:`EvaluatorKind` (only the heuristic so far; None = the heuristic).
    :param filter: the heuristic's move filter: its checker play evaluates pubeval's best
        ``filter`` plays of a roll (1 to 64), or every play (0); None = ``DEFAULT_FILTER`` (5).
    :param blend: the weight of pubeval's score beside the equity among the kept plays, 0 to 1;
        None = ``DEFAULT_BLEND`` (0.03).
    :raises ValueError: an unknown kind, ``filter`` or ``blend`` out of range.
    :raises TypeError: ``weights`` that are not a ``HeuristicWeights``.
    """

    def __cinit__(self, weights, kind=None, filter=None, blend=None):
        kind = EVAL_HEURISTIC if kind is None else kind
        filter = _heuristic.DEFAULT_FILTER if filter is None else filter
        blend = _heuristic.DEFAULT_BLEND if blend is None else blend
        if kind != EVAL_HEURISTIC:
            raise ValueError("unknown evaluator kind %r" % kind)
        if not 0 <= filter <= H_FILTER_MAX:
            raise ValueError("the move filter keeps 0 (all) to %d plays, got %r" % (H_FILTER_MAX, filter))
        if not 0.0 <= blend <= 1.0:
            raise ValueError("the pubeval blend is a weight from 0 to 1, got %r" % blend)
        if not isinstance(weights, HeuristicWeights):
            raise TypeError("a heuristic evaluator needs HeuristicWeights, got %r" % (weights,))
        self.weights = weights
        self.ev.kind = kind
        self.ev.model = NULL
        self.ev.heuristic.weights = (<HeuristicWeights> weights).table
        self.ev.heuristic.filter = filter if filter else H_FILTER_ALL
        self.ev.heuristic.blend = <float> blend

    def __reduce__(self):
        return (CoreEvaluator, (self.weights, self.kind, self.filter, self.blend))

    @property
    def kind(self):
        """The :class:`EvaluatorKind`."""
        return EvaluatorKind(self.ev.kind)

    @property
    def filter(self):
        """The move filter (0 = every play is evaluated)."""
        return 0 if self.ev.heuristic.filter == H_FILTER_ALL else self.ev.heuristic.filter

    @property
    def blend(self):
        """The weight of pubeval's score beside the equity (float32, as the core keeps it)."""
        return self.ev.heuristic.blend

    def after(self, const unsigned char[::1] board):
        """Probabilities ``(win, win_gammon, win_bg, lose_gammon, lose_bg)`` of side 1 of a
        50-byte board after side 1's play (side 0 on roll)."""
        cdef Board b
        cdef float p[NOUT]
        board_from_bytes(&board[0], &b)
        evaluator_after(&self.ev, &b, p)
        return (p[0], p[1], p[2], p[3], p[4])

    def on_roll(self, const unsigned char[::1] board, int plies=0):
        """Probabilities of side 1 of a 50-byte board with side 1 *on roll*, at 0 or 1 ply.

        :raises ValueError: ``plies`` other than 0 or 1.
        """
        cdef Board b
        cdef float p[NOUT]
        if plies not in (0, 1):
            raise ValueError("plies must be 0 or 1, got %r" % plies)
        if _SHARED == NULL:
            raise MemoryError()
        board_from_bytes(&board[0], &b)
        evaluator_preroll(&self.ev, _SHARED, &b, plies, p)
        return (p[0], p[1], p[2], p[3], p[4])
