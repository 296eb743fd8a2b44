# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The neural net's n-ply search: checker play, evaluations and cube estimates at 0 to 3 plies.

Plies are gnubg's: 0 plies is the net's value of a position; ``N`` plies, of a position
before its side on roll rolls, is the average over the 21 rolls (doubles weighted 1/36,
the others 2/36) of the ``N - 1``-ply value of the side's reply to the roll.  The value of
a play at ``k`` plies is the ``k``-ply value of the position it leaves, from the mover's
view (a play that bears off the last checker is worth its exact result at any depth).

Replies.  Which reply a roll gets below the root is the search's ``replies`` setting
(:data:`REPLIES`): ``"0-ply"`` (the default, :data:`DEFAULT_REPLIES`), the play the net
values best at 0 ply, valued at ``N - 1`` plies: gnubg's own evaluation tree
(``EvaluatePositionFull``: each roll's 0-ply best move, evaluated one ply shallower); or
``"filtered"``, the play the search itself would make at ``N - 1`` plies (the move filters
of that ply, the survivors valued at ``N - 1`` plies): the best ``N - 1``-ply reply.  The
two agree up to 1 ply (a 1-ply value is the average of the 0-ply favourites' values) and
part from 2 plies on, where ``"filtered"`` costs about the 1-ply filter's survivors times
more (8 at most by default).  Measured on the checker-play decisions of
``experiments/checker_play`` (judged by gnubg at 2 plies), the two play alike at 2 plies
(see ``bgfast/data/weights/neural.md``), so the cheaper is the default.

A choice at ``N`` plies (the play of one roll, the root) runs gnubg's move filters: every
play is valued at 0 ply; level 0 of the ``N``-ply filter keeps at most ``keep`` of them
within ``window`` money points of the best (the best always stays), and each level ``k``
from 1 to ``N - 1`` values the survivors at ``k`` plies and prunes them again by its
filter, or is skipped (``keep`` 0, gnubg's "no pruning"); the survivors are valued at
``N`` plies, and the first of the best is played (ties go to the better 0-ply value).  A
single survivor is played without the last valuation.  gnubg's defaults ("Normal"): for 1
ply {0 ply: 8 within 0.16}; for 2 plies {0: 8 within 0.16, 1: none}; for 3 plies {0: 8
within 0.16, 1: none, 2: 2 within 0.04} (:data:`DEFAULT_FILTERS`).  With ``"0-ply"``
replies the filters choose the root's play alone; with ``"filtered"`` they choose every
reply too, and a filter of 1 play within 0 at level 0 (:data:`GREEDY_FILTERS`) then gives
gnubg's tree.

A choice may weigh its survivors' 0-ply values in (the search's ``zero_ply_weight`` ``w``,
0 by default): the last valuation ranks them by ``(1 - w)`` times their ``N``-ply value
plus ``w`` times their 0-ply value, both by the root's value function; what it reports of
the chosen play is its ``N``-ply value.  The neural bot sets 0.2 at 1 ply (measured in
``experiments/zero_ply_weight/``).

The root of a choice may be valued by a :c:type:`PlayValue` (match play: cubeful match
winning chances; windows in money points scaled by its ``unit``); the replies below it
are valued by cubeless money equity.

Cache.  Each search keeps a table of evaluations at 1 ply or more (a position before its
roll, its plies and its five probabilities), one slot a hash of the position and the
plies, the newest entry winning a slot; a hit needs the same board and plies, so the cache
changes no result.  Its hits are transpositions: rolls whose replies leave the same
position (a dance on the bar, two rolls played alike), and the positions a choice meets
again.  0-ply values are not cached: the net values the plays of one roll together from
their parent's first-layer sums, and a value so found may differ in the last bit from the
same position's valued alone; a value at 1 ply or more is a function of the position only.

Pruning.  With pruning (the search's ``prune``, on when the weights carry pruning nets),
each 0-ply favourite below the root is found as gnubg finds it inside its look-ahead
(``FindBestMoveInEval``): a roll of more than ``5 + floor(log2(plays))`` plays has them
ranked by a pruning net (the point codes alone, 32 sigmoid units, one linear output:
:mod:`bgfast.train.prune` distils it from the net) and only that many of the best are
valued by the net (:c:func:`neural_roll_best`).  The root's own filter still values every
play at 0 ply, a 0-ply play is never pruned, and neither is a roll from a race.  The
shipped nets' pruning nets miss the net's favourite in about 2% of the rolls they prune,
0.3 millipoints a roll on average; 2-ply checker play is the same within 0.006
millipoints a decision, at about 1.6 times the speed (see ``bgfast/data/weights/neural.md``).

Cost.  Nearly all the time goes to the leaves: each roll's plays valued at 0 ply to find
the favourite.  The 21 rolls of one position share the net's sums of its point codes and
the hand-made inputs' per-position part (:c:type:`NeuralRolls`; the same bits as valuing
each roll alone), its move generator is prepared once, and one roll's values go to a
scratch buffer of the search: nothing is allocated in the recursion.

Everything here is ``nogil`` C on the net of ``neural.pyx``; a search is used by one
thread at a time (a :class:`~bgfast._core.evaluator.CoreEvaluator` owns one; a batch call
makes its own).
"""
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint64_t

from bgfast._core.board cimport Board, board_swap, board_checkers, board_hash, board_equal
from bgfast._core.movegen cimport MoveGen, MAX_CHILDREN, movegen_new, movegen_free, prepare, generate_prepared
from bgfast._core.probs cimport NOUT, probs_flip, probs_equity, PlayValue
from bgfast._core.neural cimport (
    NN_MAX_CANDIDATES, NeuralRolls, neural_eval_after, neural_rolls_init, neural_roll_candidates, neural_roll_best,
)
from bgfast._core.search cimport (
    SEARCH_MAX_PLIES, SEARCH_MAX_KEEP, REPLIES_0PLY, REPLIES_FILTERED, MoveFilter, CacheEntry, Search,
)

assert <int> SEARCH_MAX_KEEP == <int> NN_MAX_CANDIDATES

MAX_PLIES = SEARCH_MAX_PLIES
MAX_KEEP = SEARCH_MAX_KEEP
DEFAULT_FILTERS = (
    ((8, 0.16),),
    ((8, 0.16), None),
    ((8, 0.16), None, (2, 0.04)),
)
"""gnubg's "Normal" move filters: for a choice at ``n`` plies (``DEFAULT_FILTERS[n - 1]``),
level ``k``'s ``(keep, window)``, or None where level ``k`` is skipped."""
GREEDY_FILTERS = (
    ((1, 0.0),),
    ((1, 0.0), None),
    ((1, 0.0), None, None),
)
"""Filters that keep the 0-ply favourite alone: each reply in an evaluation is the net's
0-ply play, valued deeper (gnubg's evaluation tree; the supervised refinement's labels)."""
REPLIES = ("0-ply", "filtered")
"""How a reply below the root of a search is chosen: ``"0-ply"``, the net's 0-ply play,
valued deeper (gnubg's evaluation tree); ``"filtered"``, the search's own play at that
depth (the move filters of that ply, the survivors valued at its plies)."""
DEFAULT_REPLIES = "0-ply"
"""The replies of a search unless set otherwise (see the module docstring)."""
DEFAULT_CACHE_SIZE = 1 << 16
"""Slots of a search's cache of evaluations (about 80 bytes each)."""


# ---------------------------------------------------------------- the search

cdef Search* search_new(const Neural* model, int cache_size) noexcept nogil:
    """A search with no filters set: its owner sets them (:func:`search_set_filters`)."""
    cdef Search* s = <Search*> malloc(sizeof(Search))
    if s == NULL:
        return NULL
    memset(s, 0, sizeof(Search))
    s.model = model
    s.cache_size = cache_size
    return s


cdef void search_free(Search* s) noexcept nogil:
    cdef int k
    if s == NULL:
        return
    for k in range(s.depth):
        movegen_free(s.gens[k])
    free(s.cache)
    free(s.scratch)
    free(s)


cdef bint search_reserve(Search* s, int plies) noexcept nogil:
    if plies > SEARCH_MAX_PLIES:
        plies = SEARCH_MAX_PLIES
    while s.depth < plies:
        s.gens[s.depth] = movegen_new()
        if s.gens[s.depth] == NULL:
            return False
        s.depth += 1
    if plies > 0 and s.cache == NULL and s.cache_size > 0:
        s.cache = <CacheEntry*> calloc(s.cache_size, sizeof(CacheEntry))
        if s.cache == NULL:
            return False
    if s.scratch == NULL:               # a 1-ply estimate uses it too
        s.scratch = <float*> malloc(NOUT * MAX_CHILDREN * sizeof(float))
        if s.scratch == NULL:
            return False
    return True


cdef inline double _value(const PlayValue* value, const float* p) noexcept nogil:
    return probs_equity(p) if value == NULL else value.fn(p, value.ctx)


cdef inline CacheEntry* _slot(Search* s, const Board* b, int plies) noexcept nogil:
    cdef uint64_t h = board_hash(b) ^ (<uint64_t> plies * 0x9e3779b97f4a7c15ULL)
    return &s.cache[(h ^ (h >> 29)) & <uint64_t> (s.cache_size - 1)]


cdef inline void _after(Search* s, const Board* a, float* p) noexcept nogil:
    """Probabilities of side 1 of ``a`` after its play (the net values it for side 0, on roll)."""
    cdef float q[NOUT]
    neural_eval_after(s.model, a, q)
    probs_flip(q, p)


cdef void _preroll(Search* s, MoveGen* g, const Board* b, int plies, int depth, float* p) noexcept nogil:
    """Probabilities of side 1 of ``b`` (on roll) at ``plies``: ``g`` for its rolls, the
    search's generators from ``depth`` on below."""
    cdef Board sw
    cdef float q[NOUT]
    cdef int d1, d2, k, top
    cdef float w
    cdef CacheEntry* slot = NULL
    cdef NeuralRolls rolls
    if plies <= 0:
        board_swap(&sw, b)
        _after(s, &sw, q)                       # the opponent's view, after its play
        probs_flip(q, p)
        return
    if s.cache != NULL:
        slot = _slot(s, b, plies)
        s.lookups += 1
        if slot.plies == plies and board_equal(&slot.board, b):
            s.hits += 1
            memcpy(p, slot.p, NOUT * sizeof(float))
            return
    for k in range(NOUT):
        p[k] = 0
    neural_rolls_init(&rolls, b)                # the net's sums of ``b``, shared by its 21 rolls
    prepare(g, b)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            generate_prepared(g, d1, d2)
            if plies == 1 or s.replies == REPLIES_0PLY:
                top = neural_roll_best(s.model, &rolls, g, s.prune, q, s.scratch)   # the 0-ply favourite
                if plies > 1:
                    _play_value(s, &g.items[top].board, plies - 1, depth, q)
            else:
                _choose(s, g, &rolls, plies - 1, NULL, depth, q)
            for k in range(NOUT):
                p[k] += w * q[k]
    for k in range(NOUT):
        p[k] /= 36.0
    if slot != NULL:
        memcpy(&slot.board, b, sizeof(Board))
        slot.plies = plies
        memcpy(slot.p, p, NOUT * sizeof(float))


cdef void _play_value(Search* s, const Board* child, int plies, int depth, float* p) noexcept nogil:
    """The mover's probabilities at ``plies`` after the play leading to ``child`` (the mover's
    frame, side 1 the mover), with the search's generators from ``depth`` on."""
    cdef Board sw
    cdef float q[NOUT]
    if board_checkers(child, 1) == 0:          # the mover bore off its last checker: the result
        _after(s, child, p)
        return
    board_swap(&sw, child)                     # the opponent on roll
    _preroll(s, s.gens[depth], &sw, plies, depth + 1, q)
    probs_flip(q, p)


cdef int _choose(Search* s, const MoveGen* g, NeuralRolls* rolls, int plies, const PlayValue* value,
                 int depth, float* out) noexcept nogil:
    """Index of the child of ``g`` (generated from ``rolls.parent``) played at ``plies`` (>= 1)
    by the search's filters; its probabilities at ``plies`` in ``out`` unless NULL (the
    mover's view)."""
    cdef int top[SEARCH_MAX_KEEP]
    cdef int order[SEARCH_MAX_KEEP]
    cdef double keys[SEARCH_MAX_KEEP]
    cdef double zero[SEARCH_MAX_KEEP]          # each candidate's 0-ply value, beside ``top``
    cdef double zero_order[SEARCH_MAX_KEEP]
    cdef float probs[SEARCH_MAX_KEEP][NOUT]
    cdef int n, j, i, k, best
    cdef double v, best_v = 0, unit = 1.0 if value == NULL else value.unit
    cdef double w = s.zero_ply_weight
    cdef const MoveFilter* f = s.filters[plies]
    cdef float window = f[0].window if value == NULL else <float> (f[0].window * value.unit)
    n = neural_roll_candidates(s.model, rolls, g, top, f[0].keep, window, NULL, value, s.scratch)
    for j in range(n):                         # the scratch holds every play's 0-ply probabilities
        zero[j] = _value(value, s.scratch + NOUT * top[j]) if w != 0 else 0.0
    for k in range(1, plies):
        if f[k].keep == 0 or n <= 1:
            continue
        for j in range(n):                     # value at k plies; sort, best first, ties in 0-ply order
            _play_value(s, &g.items[top[j]].board, k, depth, probs[0])
            v = _value(value, probs[0])
            i = j
            while i > 0 and keys[i - 1] < v:
                keys[i] = keys[i - 1]
                order[i] = order[i - 1]
                zero_order[i] = zero_order[i - 1]
                i -= 1
            keys[i] = v
            order[i] = top[j]
            zero_order[i] = zero[j]
        if n > f[k].keep:
            n = f[k].keep
        for j in range(1, n):
            if keys[j] < keys[0] - f[k].window * unit:
                n = j
                break
        for j in range(n):
            top[j] = order[j]
            zero[j] = zero_order[j]
    if n <= 1 and out == NULL:
        return top[0]
    best = 0
    for j in range(n):
        _play_value(s, &g.items[top[j]].board, plies, depth, probs[j])
        v = _value(value, probs[j])
        if w != 0:
            v = (1.0 - w) * v + w * zero[j]
        if j == 0 or v > best_v:
            best_v = v
            best = j
    if out != NULL:
        memcpy(out, probs[best], NOUT * sizeof(float))
    return top[best]


cdef void search_preroll(Search* s, MoveGen* g, const Board* b, int plies, float* p) noexcept nogil:
    _preroll(s, g, b, plies, 0, p)


cdef int search_choose(Search* s, const MoveGen* g, const Board* parent, int plies,
                       const PlayValue* value) noexcept nogil:
    cdef NeuralRolls rolls
    neural_rolls_init(&rolls, parent)
    return _choose(s, g, &rolls, plies, value, 0, NULL)


# ---------------------------------------------------------------- Python face

def check_filters(filters):
    """The move filters ``filters`` in their normal form, as :data:`DEFAULT_FILTERS` gives them:
    for each ply ``n`` from 1 to ``MAX_PLIES``, a tuple of ``n`` levels, each ``(keep, window)``
    (ints 1 to ``MAX_KEEP``, windows in money points >= 0) or None (level skipped; not level 0).

    :param filters: None (the defaults), a sequence like :data:`DEFAULT_FILTERS` (the filters
        of plies 1, 2, ...; plies left out keep their defaults), or a mapping ``{ply: levels}``
        overriding the defaults of the plies it names.
    :raises ValueError: a bad ply, level, ``keep`` or ``window``.
    """
    out = list(DEFAULT_FILTERS)
    if filters is None:
        return tuple(out)
    if hasattr(filters, "items"):
        items = list(filters.items())
    elif isinstance(filters, (str, bytes)):
        raise ValueError("move filters are a sequence or a mapping of plies to levels, got %r" % (filters,))
    else:
        items = list(enumerate(filters, 1))
    for ply, levels in items:
        if isinstance(ply, bool) or not isinstance(ply, int) or not 1 <= ply <= SEARCH_MAX_PLIES:
            raise ValueError("move filters are for plies 1 to %d, got ply %r" % (SEARCH_MAX_PLIES, ply))
        try:
            levels = list(levels)
        except TypeError:
            raise ValueError("the %d-ply move filter is a sequence of %d levels, got %r" % (ply, ply, levels)) from None
        if len(levels) != ply:
            raise ValueError("the %d-ply move filter has %d levels (0 to %d plies), got %d"
                             % (ply, ply, ply - 1, len(levels)))
        normal = []
        for k, level in enumerate(levels):
            if level is None:
                if k == 0:
                    raise ValueError("level 0 of the %d-ply move filter cannot be skipped" % ply)
                normal.append(None)
                continue
            try:
                keep, window = level
            except (TypeError, ValueError):
                raise ValueError("level %d of the %d-ply move filter is (keep, window) or None, got %r"
                                 % (k, ply, level)) from None
            if isinstance(keep, bool) or not isinstance(keep, int) or not 1 <= keep <= SEARCH_MAX_KEEP:
                raise ValueError("level %d of the %d-ply move filter keeps 1 to %d plays, got %r"
                                 % (k, ply, SEARCH_MAX_KEEP, keep))
            if isinstance(window, bool) or not isinstance(window, (int, float)) or not 0 <= window < 1e6:
                raise ValueError("level %d of the %d-ply move filter has a window of money points >= 0, got %r"
                                 % (k, ply, window))
            normal.append((keep, float(window)))
        out[ply - 1] = tuple(normal)
    return tuple(out)


cdef int search_set_filters(Search* s, object filters) except -1:
    cdef int n, k
    for n, levels in enumerate(check_filters(filters), 1):
        for k, level in enumerate(levels):
            s.filters[n][k].keep = 0 if level is None else level[0]
            s.filters[n][k].window = 0.0 if level is None else level[1]
    return 0



def check_replies(replies):
    """How the replies below the root are chosen, in normal form: one of :data:`REPLIES`.

    :param replies: None (:data:`DEFAULT_REPLIES`) or one of :data:`REPLIES`.
    :raises ValueError: anything else.
    """
    if replies is None:
        return DEFAULT_REPLIES
    if replies not in REPLIES:
        raise ValueError("replies are %s, got %r" % (" or ".join(repr(r) for r in REPLIES), replies))
    return str(replies)


cdef int search_set_replies(Search* s, object replies) except -1:
    s.replies = REPLIES_0PLY if check_replies(replies) == "0-ply" else REPLIES_FILTERED
    return 0
