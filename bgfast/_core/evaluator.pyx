# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""One dispatch for "a player's evaluator": what the cube policies and the luck measure ask.

An evaluator turns a board into the five cubeless probabilities (win, win gammon,
win backgammon, lose gammon, lose backgammon; :mod:`bgfast._core.probs`) of a side,
and picks its favourite play of a roll.  The game loop's cube policies (Janowski,
the match equity table) and its luck measure (variance reduction in rollouts) ask a
player's evaluator, whatever plays the checkers: a bot with no evaluator of its own
(pubeval, random) gets the heuristic's, the default.

Kinds: the heuristic (``heuristic.pyx``) and the neural net (``neural.pyx``; the net
values a position for the side on roll, so its values are flipped here to the mover's).
Plies are gnubg's: a 1-ply estimate before the roll averages over the 21 rolls the
probabilities after the evaluator's 0-ply play (:func:`evaluator_roll`, the heuristic's
and the net's alike).  The net goes deeper through its n-ply search (``search.pyx``:
gnubg's move filters, a cache of evaluations), which a neural evaluator owns: its checker
play at ``ply`` 1 to 3, its estimates before the roll at any plies up to 3, and its cube
estimates at ``cube_ply``.

The luck measure (:func:`evaluator_luck`) values each of the 21 rolls of a position the
same way, the rolled one among them, and takes the rolled one's value minus the mean;
with a move filter a neural evaluator values only pubeval's best few plays of each roll,
from first-layer sums of the position shared by all its rolls.

Adding an evaluator kind: a value of ``EvaluatorKind`` in ``evaluator.pxd``, a case in
:func:`evaluator_after` and :func:`evaluator_choose`, and its settings in
:class:`CoreEvaluator`.  Everything here is ``nogil`` C without Python objects; the
pointers of an ``Evaluator`` point into objects that a :class:`CoreEvaluator` keeps
alive.
"""
from libc.string cimport memcpy

from bgfast._core.board cimport Board, board_from_bytes, board_swap
from bgfast._core.movegen cimport MoveGen, movegen_new, movegen_free, generate, MAX_CHILDREN
from bgfast._core.evaluators cimport pubeval_deltas
from bgfast._core.topk cimport topk_insert
from bgfast._core.probs cimport NOUT, probs_flip, probs_equity, PlayValue
from bgfast._core.heuristic cimport (
    HeuristicWeights, heuristic_probs, heuristic_choose, H_FILTER_MAX, H_FILTER_ALL,
)
from bgfast._core.neural cimport (
    Model, NeuralParent, neural_eval_after, neural_choose, neural_candidates, neural_children, neural_parent_init,
    neural_children_of,
)
from bgfast._core.search cimport (
    SEARCH_MAX_PLIES, Search, search_new, search_free, search_reserve, search_preroll, search_choose,
    search_set_filters, search_set_replies,
)
from bgfast._core.evaluator cimport EVAL_HEURISTIC, EVAL_NEURAL, Evaluator
from bgfast._core import heuristic as _heuristic
from bgfast._core import search as _search

import numpy as np

cdef enum:
    LUCK_FILTER_MAX = 64      # the most plays of a roll the luck measure's pubeval filter keeps


cdef void evaluator_after(const Evaluator* e, const Board* b, float* p) noexcept nogil:
    cdef float q[NOUT]
    if e.kind == EVAL_HEURISTIC:
        heuristic_probs(e.heuristic.weights, b, p)
    elif e.kind == EVAL_NEURAL:
        neural_eval_after(e.model, b, q)         # the side on roll's (side 0's) view
        probs_flip(q, p)


cdef int evaluator_choose(const Evaluator* e, const MoveGen* g, const Board* parent,
                          const PlayValue* value) noexcept nogil:
    if e.kind == EVAL_HEURISTIC:
        return heuristic_choose(&e.heuristic, g, parent)
    if e.kind == EVAL_NEURAL:
        if e.ply > 0:
            return search_choose(e.search, g, parent, e.ply, value)
        if value == NULL:
            return neural_choose(e.model, g, parent)
        return _choose_by(e, g, parent, value)
    return 0


cdef int _choose_by(const Evaluator* e, const MoveGen* g, const Board* parent,
                    const PlayValue* value) noexcept nogil:
    """The net's 0-ply play by ``value``: the first of the best."""
    cdef int best = 0
    neural_candidates(e.model, g, parent, &best, 1, 0.0, NULL, value)
    return best


cdef void evaluator_roll(const Evaluator* e, MoveGen* g, const Board* b, int d1, int d2, float* p) noexcept nogil:
    cdef int top
    generate(g, b, d1, d2)
    if e.kind == EVAL_NEURAL:       # the net values every play to choose one: keep its value
        neural_candidates(e.model, g, b, &top, 1, 0.0, p, NULL)
    elif e.kind == EVAL_HEURISTIC:
        evaluator_after(e, &g.items[heuristic_choose(&e.heuristic, g, b)].board, p)


# What the luck measure keeps between the 21 rolls of one position ``b``.
ctypedef struct LuckParent:
    const Board* b
    int filter                    # plays of a roll valued (0 = all)
    NeuralParent sums             # a neural evaluator with a filter: the net's first-layer sums of ``b``


cdef void luck_parent_init(const Evaluator* e, LuckParent* lp, const Board* b, int filter) noexcept nogil:
    lp.b = b
    lp.filter = filter
    if e.kind == EVAL_NEURAL and filter > 0:
        neural_parent_init(&lp.sums, b)


cdef int evaluator_luck_roll(const Evaluator* e, MoveGen* g, LuckParent* lp, int d1, int d2,
                             float* p, float* every) noexcept nogil:
    """The value of rolling (d1, d2) that the luck measure takes for side 1 of ``lp.b``.

    Without a filter (``lp.filter`` 0) this is :func:`evaluator_roll`: the probabilities
    after the evaluator's 0-ply play, which is the play itself.  With a filter, a neural
    evaluator values only pubeval's best ``filter`` plays of the roll (all of them when
    there are no more) and takes the best of those: a move filter, as the heuristic's
    own play always uses, that costs a fraction of valuing every play.  Each play is
    then valued from the first-layer sums of ``lp.b``, shared by the 21 rolls, so its
    value does not depend on the other plays valued with it; the best of the kept ones
    need not be the play the evaluator makes (which ranks every play).  Whatever the
    filter, the luck is a function of the roll minus its mean over the 36 rolls, so its
    expectation is exactly zero.

    With ``every`` (not NULL) a neural evaluator also writes there the probabilities
    after each play of the roll (``g.n`` rows of five, the mover's view), the numbers its
    value of the roll is taken from: every play is valued as it would be alone (without
    a filter by :func:`neural_children`, as its 0-ply choice values them; with one from
    the shared sums), so ``p`` is the same as without ``every``.  A judge reads the
    roll's checker-play error from them.  Other kinds leave ``every`` alone.

    :returns: the index in ``g`` (the roll's plays, as :func:`generate` orders them for
        ``(d1, d2)``) of the evaluator's own 0-ply play of the roll, when that is the play
        valued; else -1.
    """
    cdef int top = 0, n = 0, j, k, keep = lp.filter
    cdef int which[LUCK_FILTER_MAX]
    cdef float keys[LUCK_FILTER_MAX]
    cdef float vals[LUCK_FILTER_MAX * NOUT]
    cdef float scores[MAX_CHILDREN]
    cdef float eq, best_eq = 0
    cdef int all_plays[MAX_CHILDREN]
    generate(g, lp.b, d1, d2)
    if e.kind == EVAL_NEURAL:
        if keep <= 0:
            if every == NULL:
                neural_candidates(e.model, g, lp.b, &top, 1, 0.0, p, NULL)
                return top
            neural_children(e.model, g, lp.b, every)     # what neural_candidates values, then its choice
            for j in range(g.n):
                n = topk_insert(keys, which, n, 1, probs_equity(every + NOUT * j), j)
            top = which[0] if n > 0 else 0
            for k in range(NOUT):
                p[k] = every[NOUT * top + k] if n > 0 else 0
            return top
        if keep > LUCK_FILTER_MAX:
            keep = LUCK_FILTER_MAX
        if g.n <= keep:
            for j in range(g.n):
                which[j] = j
            n = g.n
        else:
            pubeval_deltas(g, lp.b, scores)
            for j in range(g.n):
                n = topk_insert(keys, which, n, keep, scores[j], j)
        if every == NULL:
            neural_children_of(e.model, &lp.sums, g, which, n, vals)
        else:                                   # every play valued; the kept ones read from there
            for j in range(g.n):
                all_plays[j] = j
            neural_children_of(e.model, &lp.sums, g, all_plays, g.n, every)
            for j in range(n):
                for k in range(NOUT):
                    vals[NOUT * j + k] = every[NOUT * which[j] + k]
        for j in range(n):
            eq = probs_equity(vals + NOUT * j)
            if j == 0 or eq > best_eq:
                best_eq = eq
                top = j
        for k in range(NOUT):
            p[k] = vals[NOUT * top + k]
        return -1
    if e.kind == EVAL_HEURISTIC:
        top = heuristic_choose(&e.heuristic, g, lp.b)
        evaluator_after(e, &g.items[top].board, p)
        return top
    return -1


cdef int evaluator_luck(const Evaluator* e, MoveGen* g, const Board* b, int d1, int d2, int filter,
                        float* total, float* every) noexcept nogil:
    """Add to ``total`` the luck of rolling (d1, d2) for the side on roll in ``b`` (side 1).

    Luck, as GNU Backgammon and eXtreme Gammon measure it for variance reduction:
    the evaluator's probabilities after its best 0-ply play of this roll, minus
    their average over all 36 rolls (each after its best 0-ply play).  With
    ``filter`` > 0 the value of a roll is that of the best of pubeval's best
    ``filter`` plays (:func:`evaluator_luck_roll`).  The rolled roll's value is
    one of the 21 averaged, computed once, so the luck is a function of the roll
    minus its exact mean over the 36 rolls, and its expectation is zero (to float
    rounding): subtracting a trial's summed luck from its result leaves the
    rollout unbiased while removing most of the dice's noise.  Five numbers, the
    side's own view: win, win gammon, win backgammon, lose gammon, lose
    backgammon.  ``e`` is the roller's evaluator (the heuristic for a bot
    without one of its own).

    The rolled roll is valued last, so ``g`` is left holding its plays (generated
    for ``(d1, d2)`` in that order, as the game loop generates them); with ``every``
    (not NULL, room for ``MAX_CHILDREN`` rows of five) a neural evaluator values every
    play of the rolled roll there (:func:`evaluator_luck_roll`; the luck is unchanged).

    :returns: the index in ``g`` of the evaluator's own 0-ply play of (d1, d2)
        when the luck measure found it (without a filter), else -1.
    """
    cdef float vals[6][6][NOUT]
    cdef float avg[NOUT]
    cdef LuckParent lp
    cdef int a, c, k, lo = d1 if d1 < d2 else d2, hi = d1 if d1 > d2 else d2, played
    cdef float w
    luck_parent_init(e, &lp, b, filter)
    for a in range(1, 7):
        for c in range(a, 7):
            if a != lo or c != hi:
                evaluator_luck_roll(e, g, &lp, a, c, vals[a - 1][c - 1], NULL)
    played = evaluator_luck_roll(e, g, &lp, d1, d2, vals[lo - 1][hi - 1], every)
    for k in range(NOUT):
        avg[k] = 0
    for a in range(1, 7):
        for c in range(a, 7):
            w = 1.0 if a == c else 2.0
            for k in range(NOUT):
                avg[k] += w * vals[a - 1][c - 1][k]
    for k in range(NOUT):
        total[k] += vals[lo - 1][hi - 1][k] - avg[k] / 36.0
    return played


cdef void evaluator_preroll(const Evaluator* e, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil:
    cdef Board s
    cdef float q[NOUT]
    cdef int d1, d2, k
    cdef float w
    if e.kind == EVAL_NEURAL:
        search_preroll(e.search, g, b, plies, p)
        return
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
            evaluator_roll(e, g, b, d1, d2, q)
            for k in range(NOUT):
                p[k] += w * q[k]
    for k in range(NOUT):
        p[k] /= 36.0


# ---------------------------------------------------------------- Python face

cdef MoveGen* _SHARED = movegen_new()    # used with the GIL held: one call at a time


cdef class CoreEvaluator:
    """An evaluator of the core with its settings, as a player of the game loop carries it.

    :param weights: a :class:`~bgfast._core.heuristic.HeuristicWeights` (kind heuristic) or
        a :class:`~bgfast._core.neural.Model` (kind neural); the evaluator keeps it alive.
    :param kind: an :class:`EvaluatorKind`; None = the heuristic.
    :param filter: the heuristic's move filter: its checker play evaluates pubeval's best
        ``filter`` plays of a roll (1 to 64), or every play (0); None = ``DEFAULT_FILTER`` (5).
    :param blend: the weight of pubeval's score beside the equity among the kept plays, 0 to 1;
        None = ``DEFAULT_BLEND`` (0.03).
    :param ply: the net's checker play, in gnubg's numbering, 0 to 3 (``search.MAX_PLIES``):
        0 is the play whose resulting position the net values best for the mover; ``n`` is
        the search's choice at ``n`` plies (:mod:`bgfast._core.search`: the plays its move
        filters keep, each valued by the average over the opponent's 21 rolls of its best
        ``n - 1``-ply reply); None = 0.  The heuristic plays at 0 ply only.
    :param cube_ply: the plies of the cube estimates (a 0-ply look screens out clear
        no-doubles, then this decides): 0 or 1 (the heuristic), 0 to 3 (the net); None = 1.
    :param filters: the net's move filters, in a form :func:`bgfast._core.search.check_filters`
        takes; None = gnubg's defaults (``search.DEFAULT_FILTERS``).
    :param cache_size: slots of the net's cache of evaluations (a power of two, or 0 for
        none); None = ``search.DEFAULT_CACHE_SIZE``.  The cache changes no result.
    :param replies: how the net's search chooses the replies below the root, one of
        ``search.REPLIES``: ``"0-ply"``, the net's 0-ply play valued deeper (gnubg's
        evaluation tree), or ``"filtered"``, the search's own play at that depth through the
        move filters; None = ``search.DEFAULT_REPLIES``.  The same below 2 plies.
    :param prune: whether the search ranks a reply's plays by the model's pruning nets first
        and values only their best few by the net (gnubg's pruning inside its look-ahead:
        :c:func:`neural_roll_best`); None = whenever the model has pruning nets.  It changes
        values at 1 ply and more (the favourite of a roll is sometimes missed), not at 0.
    :param zero_ply_weight: ``w``, 0 to 1: a checker-play choice at ``n`` >= 1 plies ranks the
        plays its filters keep by ``(1 - w)`` times their ``n``-ply value plus ``w`` times their
        0-ply value (at the root and for ``"filtered"`` replies; the values it reports stay
        ``n``-ply ones); None = 0, the plain ``n``-ply value.
    :raises ValueError: an unknown kind, ``filter``, ``blend``, ``ply``, ``cube_ply``,
        ``filters``, ``cache_size``, ``replies`` or ``zero_ply_weight`` out of range, or ``filter`` / ``blend`` for the net,
        a ply above 0 (checker play) or 1 (cube) or search settings for the heuristic,
        ``prune`` without pruning nets.
    :raises TypeError: ``weights`` that do not fit the kind.

    A neural evaluator's search has move generators and a cache of its own: one game (or
    one call) at a time per evaluator (the game loop's players and its worker processes do
    that; :meth:`on_roll_batch` makes its own search, so threads may share an evaluator).
    """

    def __cinit__(self, weights, kind=None, filter=None, blend=None, ply=None, cube_ply=None, filters=None,
                  cache_size=None, replies=None, prune=None, zero_ply_weight=None):
        kind = EVAL_HEURISTIC if kind is None else kind
        ply = 0 if ply is None else ply
        cube_ply = 1 if cube_ply is None else cube_ply
        self.ev.model = NULL
        self.ev.search = NULL
        if kind == EVAL_NEURAL:
            if filter is not None or blend is not None:
                raise ValueError("a neural evaluator has no move filter or blend")
            if not 0 <= ply <= SEARCH_MAX_PLIES:
                raise ValueError("a neural evaluator plays at ply 0 to %d, got %r" % (SEARCH_MAX_PLIES, ply))
            if not 0 <= cube_ply <= SEARCH_MAX_PLIES:
                raise ValueError("a neural evaluator's cube estimates are at 0 to %d plies, got %r"
                                 % (SEARCH_MAX_PLIES, cube_ply))
            cache_size = _search.DEFAULT_CACHE_SIZE if cache_size is None else cache_size
            if not (cache_size == 0 or (1 <= cache_size <= 1 << 26 and cache_size & (cache_size - 1) == 0)):
                raise ValueError("the cache has 0 or a power of two slots up to 2**26, got %r" % (cache_size,))
            if not isinstance(weights, Model):
                raise TypeError("a neural evaluator needs a Model, got %r" % (weights,))
            self.filters = _search.check_filters(filters)
            self.replies = _search.check_replies(replies)
            if prune is None:
                prune = (<Model> weights).prune_hidden > 0
            elif not isinstance(prune, bool):
                raise ValueError("prune is True, False or None, got %r" % (prune,))
            elif prune and (<Model> weights).prune_hidden == 0:
                raise ValueError("prune=True needs a model with pruning nets (bgfast train prune)")
            self.prune = prune
            zero_ply_weight = 0.0 if zero_ply_weight is None else zero_ply_weight
            if (isinstance(zero_ply_weight, bool) or not isinstance(zero_ply_weight, (int, float))
                    or not 0.0 <= zero_ply_weight <= 1.0):
                raise ValueError("the 0-ply value's weight is a number from 0 to 1, got %r" % (zero_ply_weight,))
            self.zero_ply_weight = float(zero_ply_weight)
            self.weights = weights
            self.ev.kind = kind
            self.ev.ply = ply
            self.ev.cube_ply = cube_ply
            self.ev.model = &(<Model> weights).nn
            self.ev.heuristic.weights = NULL
            self.ev.heuristic.filter = H_FILTER_ALL
            self.ev.heuristic.blend = 0
            self.ev.search = search_new(self.ev.model, cache_size)
            if self.ev.search == NULL:
                raise MemoryError()
            search_set_filters(self.ev.search, self.filters)
            search_set_replies(self.ev.search, self.replies)
            self.ev.search.prune = self.prune
            self.ev.search.zero_ply_weight = self.zero_ply_weight
            self._reserve(max(ply, cube_ply - 1))
            return
        filter = _heuristic.DEFAULT_FILTER if filter is None else filter
        blend = _heuristic.DEFAULT_BLEND if blend is None else blend
        if kind != EVAL_HEURISTIC:
            raise ValueError("unknown evaluator kind %r" % kind)
        if ply != 0:
            raise ValueError("the heuristic evaluator plays at ply 0 only, got %r" % (ply,))
        if cube_ply not in (0, 1):
            raise ValueError("the heuristic evaluator's cube estimates are at 0 or 1 ply, got %r" % (cube_ply,))
        if (filters is not None or cache_size is not None or replies is not None or prune is not None
                or zero_ply_weight is not None):
            raise ValueError("the heuristic evaluator has no search: no move filters, cache, replies, pruning "
                             "or 0-ply weight")
        if not 0 <= filter <= H_FILTER_MAX:
            raise ValueError("the move filter keeps 0 (all) to %d plays, got %r" % (H_FILTER_MAX, filter))
        if not 0.0 <= blend <= 1.0:
            raise ValueError("the pubeval blend is a weight from 0 to 1, got %r" % blend)
        if not isinstance(weights, HeuristicWeights):
            raise TypeError("a heuristic evaluator needs HeuristicWeights, got %r" % (weights,))
        self.weights = weights
        self.ev.kind = kind
        self.ev.ply = 0
        self.ev.cube_ply = cube_ply
        self.ev.heuristic.weights = (<HeuristicWeights> weights).table
        self.ev.heuristic.filter = filter if filter else H_FILTER_ALL
        self.ev.heuristic.blend = <float> blend

    def __dealloc__(self):
        search_free(self.ev.search)

    def __reduce__(self):
        if self.ev.kind == EVAL_NEURAL:
            return (CoreEvaluator, (self.weights, self.kind, None, None, self.ply, self.cube_ply, self.filters,
                                    self.cache_size, self.replies, self.prune, self.zero_ply_weight))
        return (CoreEvaluator, (self.weights, self.kind, self.filter, self.blend, None, self.cube_ply))

    cdef Search* _own_search(self, int plies) except NULL:
        """A search for one batch, with its own cache (of this evaluator's size) and this
        evaluator's filters, replies, pruning and 0-ply weight, room for ``plies``: threads may run batches of one
        evaluator at once.  The caller frees it."""
        cdef Search* search = search_new(self.ev.model, self.ev.search.cache_size)
        if search == NULL or not search_reserve(search, plies):
            search_free(search)
            raise MemoryError()
        search.filters = self.ev.search.filters
        search.replies = self.ev.search.replies
        search.prune = self.ev.search.prune
        search.zero_ply_weight = self.ev.search.zero_ply_weight
        return search

    cdef int _reserve(self, int plies) except -1:
        """The search's generators and cache for a choice at ``plies`` (net only)."""
        if self.ev.search != NULL and not search_reserve(self.ev.search, plies):
            raise MemoryError()
        return 0

    @property
    def kind(self):
        """The :class:`EvaluatorKind`."""
        return EvaluatorKind(self.ev.kind)

    @property
    def ply(self):
        """The plies of its checker play (0 to 3)."""
        return self.ev.ply

    @property
    def cube_ply(self):
        """The plies of its cube estimates."""
        return self.ev.cube_ply

    @property
    def cache_size(self):
        """Slots of the net's cache of evaluations (0: none; 0 for the heuristic)."""
        return 0 if self.ev.search == NULL else self.ev.search.cache_size

    def cache_stats(self):
        """``(lookups, hits)`` of the net's cache so far (``(0, 0)`` without one)."""
        if self.ev.search == NULL:
            return (0, 0)
        return (self.ev.search.lookups, self.ev.search.hits)

    @property
    def filter(self):
        """The heuristic's move filter (0 = every play is evaluated; 0 for the net)."""
        return 0 if self.ev.heuristic.filter == H_FILTER_ALL else self.ev.heuristic.filter

    @property
    def blend(self):
        """The weight of pubeval's score beside the equity (float32, as the core keeps it; 0 for
        the net)."""
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
        """Probabilities of side 1 of a 50-byte board with side 1 *on roll* (in play) at
        ``plies``: 0, 1 (the average over the 21 rolls of the evaluator's 0-ply play) or, for
        the net, up to 3 (its search: the average over the 21 rolls of the ``plies - 1``-ply
        value of the ``plies - 1``-ply play).

        :raises ValueError: ``plies`` out of range.
        """
        cdef Board b
        cdef float p[NOUT]
        cdef int most = SEARCH_MAX_PLIES if self.ev.kind == EVAL_NEURAL else 1
        if not 0 <= plies <= most:
            raise ValueError("plies must be 0 to %d, got %r" % (most, plies))
        if _SHARED == NULL:
            raise MemoryError()
        self._reserve(plies - 1)
        board_from_bytes(&board[0], &b)
        evaluator_preroll(&self.ev, _SHARED, &b, plies, p)
        return (p[0], p[1], p[2], p[3], p[4])

    def on_roll_batch(self, const unsigned char[:, ::1] boards, int plies=0):
        """:meth:`on_roll` of each row of an (n, 50) uint8 array of boards (side 1 on roll, in
        play: each side has a checker left): an (n, 5) float32 array.  Releases the GIL, so
        threads may label disjoint slices at once (each call has its own search, with this
        evaluator's filters and a cache of its size).  ``plies`` 0 to 3 for the net (2 plies
        costs about 21 times 1 ply times the plays the 1-ply filter keeps), 0 or 1 for the
        heuristic.

        :raises ValueError: not (n, 50), or ``plies`` out of range.
        """
        cdef Py_ssize_t i, n = boards.shape[0]
        cdef Board b
        cdef MoveGen* g
        cdef Search* search = NULL
        cdef Evaluator ev = self.ev
        cdef int most = SEARCH_MAX_PLIES if self.ev.kind == EVAL_NEURAL else 1
        if boards.shape[1] != 50:
            raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
        if not 0 <= plies <= most:
            raise ValueError("plies must be 0 to %d, got %r" % (most, plies))
        out = np.zeros((n, NOUT), dtype=np.float32)
        cdef float[:, ::1] o = out
        if ev.kind == EVAL_NEURAL:
            search = self._own_search(plies - 1)
            ev.search = search
        g = movegen_new()
        if g == NULL:
            search_free(search)
            raise MemoryError()
        with nogil:
            for i in range(n):
                board_from_bytes(&boards[i, 0], &b)
                evaluator_preroll(&ev, g, &b, plies, &o[i, 0])
        search_free(search)
        movegen_free(g)
        return out

    def replies_batch(self, const unsigned char[:, ::1] boards):
        """The position after this evaluator's play (at its ply) of each of the 21 rolls, for
        each row of an (n, 50) uint8 array of boards (side 1 on roll, in play): an (n, 21, 50)
        uint8 array, each board turned so that side 1 is the side now on roll (the input of
        :meth:`on_roll`).  The rolls come in :data:`bgfast.dice.ALL_21`'s order (1-1, 2-1,
        2-2, 3-1, ...); a roll with no legal play leaves the board as it was.  Releases the
        GIL.  For a net at 0 ply without pruning, ``on_roll(board, 1)`` is the average of
        ``flip(on_roll(reply, 0))`` over the 21 replies, weighted by each roll's chances (a
        test checks it); with pruning, the 1-ply value averages the search's pruned replies
        instead (``Model.choose(..., prune=True)``).

        :raises ValueError: not (n, 50).
        """
        cdef Py_ssize_t i, n = boards.shape[0]
        cdef int d1, d2, k, idx
        cdef Board b, after
        cdef MoveGen* g
        cdef Search* search = NULL
        cdef Evaluator ev = self.ev
        if boards.shape[1] != 50:
            raise ValueError("boards must be an (n, 50) array, got %r" % ((boards.shape[0], boards.shape[1]),))
        out = np.zeros((n, 21, 50), dtype=np.uint8)
        cdef unsigned char[:, :, ::1] o = out
        if ev.kind == EVAL_NEURAL and ev.ply > 0:
            search = self._own_search(ev.ply)
            ev.search = search
        g = movegen_new()
        if g == NULL:
            search_free(search)
            raise MemoryError()
        with nogil:
            for i in range(n):
                board_from_bytes(&boards[i, 0], &b)
                k = 0
                for d1 in range(1, 7):
                    for d2 in range(1, d1 + 1):
                        generate(g, &b, d1, d2)
                        idx = evaluator_choose(&ev, g, &b, NULL)
                        board_swap(&after, &g.items[idx].board)
                        memcpy(&o[i, k, 0], &after.side[0][0], 50)
                        k += 1
        search_free(search)
        movegen_free(g)
        return out

    def luck(self, const unsigned char[::1] board, int d1, int d2, int filter=0):
        """The luck of rolling (d1, d2) for side 1 of a 50-byte board (on roll, in play), as the
        game loop measures it for variance reduction: five numbers ``(win, win_gammon,
        win_bg, lose_gammon, lose_bg)``, the value of the roll minus its mean over the 36
        rolls, side 1's view.

        :param filter: a neural evaluator values only pubeval's best ``filter`` plays of each
            roll (0: every play; the heuristic's own filter applies whatever this is).
        :raises ValueError: dice outside 1..6, a negative filter.
        """
        cdef Board b
        cdef float total[NOUT]
        cdef int k
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice are 1..6, got %d, %d" % (d1, d2))
        if filter < 0:
            raise ValueError("the luck filter keeps 0 (all) or more plays, got %d" % filter)
        if _SHARED == NULL:
            raise MemoryError()
        board_from_bytes(&board[0], &b)
        for k in range(NOUT):
            total[k] = 0
        evaluator_luck(&self.ev, _SHARED, &b, d1, d2, filter, total, NULL)
        return (total[0], total[1], total[2], total[3], total[4])

    def choose(self, const unsigned char[::1] board, int d1, int d2):
        """The play of (d1, d2) this evaluator makes (at its ply) for side 1 of a 50-byte board
        on roll: the resulting 50-byte board in the mover's frame.

        :raises ValueError: dice outside 1..6.
        """
        cdef Board b
        cdef int idx
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError("dice are 1..6, got %d, %d" % (d1, d2))
        if _SHARED == NULL:
            raise MemoryError()
        board_from_bytes(&board[0], &b)
        generate(_SHARED, &b, d1, d2)
        idx = evaluator_choose(&self.ev, _SHARED, &b, NULL)
        return (<const char*> _SHARED.items[idx].board.side[0])[:50]
