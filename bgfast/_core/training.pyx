# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The neural net's self-play training, on the game loop of ``game.pyx``.

Games.  Every game here is a game of the one game loop (:c:func:`play_game`): its
opening roll, the starting position asked for (a variant's), its end and scoring,
cubeless money play without the Jacoby rule.  Game ``i`` of run ``seed`` rolls the dice
of match ``i`` of that run (:c:func:`seed_match`): what :class:`bgfast.game.MatchPlayer`
rolls for the same seed and index.  The net plays at 0 ply; when training needs to see
its games, it plays through a ``PLAY_HOOK`` player (:meth:`MatchRunner.plug`), which
the loop asks on every roll, a forced one included: the hook makes the net's choice and
keeps what training needs (each position and the value the player saw, the positions
before each roll, the candidate plays of a roll).  Nothing of a game touches Python.

TD(lambda) (:meth:`SelfPlay.td_train`): self-play (Sutton 1988; Tesauro 1992) in its
offline lambda-return form (Sutton and Barto 2018, section 12.1): each game is played
greedily at 0 ply with the weights fixed, then every position of it is moved towards
its lambda-return, computed backwards from the result with the values the players saw,
by the net's gradient step (:c:func:`neural_train_step`, whose loss ``neural.pyx``
describes).  The same seed, first game and weights give the same net.

Training data (:meth:`SelfPlay.td_targets`, :meth:`SelfPlay.positions`,
:meth:`SelfPlay.candidates`): positions of self-play games as (n, 50) uint8 boards,
side 1 on roll (the opponent's 25 counts, then the side on roll's), for supervised
training outside the core (``bgfast.train``); :func:`train_positions` trains on them.
"""
import numpy as np

from libc.stdlib cimport realloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from bgfast._core.board cimport Board, board_swap, board_from_bytes
from bgfast._core.movegen cimport MoveGen
from bgfast._core.rng cimport Rng, rng_seed, rng_below
from bgfast._core.evaluators cimport pubeval_choose
from bgfast._core.probs cimport probs_flip
from bgfast._core.neural cimport (
    Model, Neural, neural_candidates, neural_choose, neural_class, neural_train_step,
    NN_OUT, NN_MAX_HIDDEN, NN_MAX_CANDIDATES, NN_NETS, NET_CONTACT, NET_RACE, NET_BACKGAME, NET_CRASHED,
)
from bgfast._core.evaluator cimport CoreEvaluator, EVAL_NEURAL
from bgfast._core.game cimport (
    MatchRunner, MatchCtx, GameLog, PlayHook, play_game, seed_match, PLAY_RANDOM, PLAY_PUBEVAL, PLAY_EVALUATOR,
    CUBE_NEVER,
)
from bgfast._core.rng import run_key

PLAYERS = {"neural": PLAY_EVALUATOR, "pubeval": PLAY_PUBEVAL, "random": PLAY_RANDOM}
"""The players of :meth:`SelfPlay.versus` and :meth:`SelfPlay.candidates` by name, with
the game loop's :class:`~bgfast._core.game.PlayKind` (``"neural"``: the model at 0 ply)."""

RULES = (0, 0, 0, 0, 64, 0)
"""The game loop's rules of every game here: money play, no Jacoby rule, no beavers (the
players never double: cubeless games)."""

cdef enum:
    FIRST_PLIES = 1024        # positions a game's buffers hold before they grow
    FIRST_ROWS = 4096         # rows of a Rows before it grows


# ---------------------------------------------------------------- growing arrays

# Boards (50 bytes, side 1 on roll) and the number of the decision each came from.
ctypedef struct Rows:
    uint8_t* boards
    long long* ids
    long long n
    long long cap


cdef int _rows_reserve(Rows* r, long long more) except -1 nogil:
    """Room for ``more`` rows beyond ``r.n``."""
    cdef long long cap = r.cap
    cdef uint8_t* boards
    cdef long long* ids
    if r.n + more <= cap:
        return 0
    cap = 2 * cap if 2 * cap >= r.n + more else r.n + more
    if cap < FIRST_ROWS:
        cap = FIRST_ROWS
    boards = <uint8_t*> realloc(r.boards, cap * 50)
    if boards != NULL:
        r.boards = boards
    ids = <long long*> realloc(r.ids, cap * sizeof(long long))
    if ids != NULL:
        r.ids = ids
    if boards == NULL or ids == NULL:
        with gil:
            raise MemoryError()
    r.cap = cap
    return 0


cdef inline void _rows_put(Rows* r, const Board* a, long long id) noexcept nogil:
    """Append ``a``, a position after side 1's play, as a row with side 1 on roll (its side 0)."""
    memcpy(r.boards + 50 * r.n, a.side[1], 25)
    memcpy(r.boards + 50 * r.n + 25, a.side[0], 25)
    r.ids[r.n] = id
    r.n += 1


cdef tuple _rows_arrays(Rows* r):
    """Copies of the rows: an (n, 50) uint8 array and an (n,) int64 array."""
    boards = np.empty((r.n, 50), dtype=np.uint8)
    ids = np.empty(r.n, dtype=np.int64)
    cdef uint8_t[:, ::1] bv = boards
    cdef long long[::1] iv = ids
    if r.n:
        memcpy(&bv[0, 0], r.boards, r.n * 50)
        memcpy(&iv[0], r.ids, r.n * sizeof(long long))
    return boards, ids


cdef void _rows_free(Rows* r) noexcept nogil:
    free(r.boards)
    free(r.ids)


# ---------------------------------------------------------------- TD(lambda)

# One self-play game as TD(lambda) sees it: the hook's context.
ctypedef struct TDGame:
    const Neural* nn
    Board* boards             # positions after each play (side 0 on roll)
    int* cls                  # their classes (neural_class)
    float* values             # side 0's probabilities as the player who made the play saw them
    float* returns            # their lambda-returns (the training targets)
    int n                     # plies played
    int cap


cdef bint _td_grow(TDGame* t, int cap) noexcept nogil:
    """Room for ``cap`` plies; False when out of memory (what was there is kept)."""
    cdef void* p
    p = realloc(t.boards, cap * sizeof(Board))
    if p == NULL:
        return False
    t.boards = <Board*> p
    p = realloc(t.cls, cap * sizeof(int))
    if p == NULL:
        return False
    t.cls = <int*> p
    p = realloc(t.values, cap * NN_OUT * sizeof(float))
    if p == NULL:
        return False
    t.values = <float*> p
    p = realloc(t.returns, cap * NN_OUT * sizeof(float))
    if p == NULL:
        return False
    t.returns = <float*> p
    t.cap = cap
    return True


cdef void _td_free(TDGame* t) noexcept nogil:
    free(t.boards)
    free(t.cls)
    free(t.values)
    free(t.returns)


cdef int _td_play(void* ctx, const MoveGen* g, const Board* b) except -1 nogil:
    """The hook of TD self-play: the net's 0-ply play, the position after it, and its value."""
    cdef TDGame* t = <TDGame*> ctx
    cdef int best = 0
    cdef float p[NN_OUT]
    if t.n == t.cap and not _td_grow(t, 2 * t.cap):
        with gil:
            raise MemoryError()
    neural_candidates(t.nn, g, b, &best, 1, 0.0, p, NULL)
    memcpy(&t.boards[t.n], &g.items[best].board, sizeof(Board))
    t.cls[t.n] = neural_class(&t.boards[t.n])
    probs_flip(p, t.values + NN_OUT * t.n)
    t.n += 1
    return best


cdef inline void _lambda_target(const float* next_value, const float* next_return, float lam,
                                float* out) noexcept nogil:
    """``(1 - lam) flip(V_{t+1}) + lam flip(G_{t+1})``: the next position is the other side's."""
    cdef float a[NN_OUT]
    cdef float b[NN_OUT]
    cdef int k
    probs_flip(next_value, a)
    probs_flip(next_return, b)
    for k in range(NN_OUT):
        out[k] = (1 - lam) * a[k] + lam * b[k]


cdef void _td_returns(TDGame* t, float lam) noexcept nogil:
    """The lambda-returns of the game in ``t``, backwards from its last position (whose value
    is exact: the game is over)."""
    cdef int i, T = t.n
    memcpy(t.returns + NN_OUT * (T - 1), t.values + NN_OUT * (T - 1), NN_OUT * sizeof(float))
    for i in range(T - 2, -1, -1):
        _lambda_target(t.values + NN_OUT * (i + 1), t.returns + NN_OUT * (i + 1), lam, t.returns + NN_OUT * i)


cdef int _td_game(MatchCtx* m, GameLog* gl, TDGame* t, const uint64_t* key, uint64_t index,
                  float lam) except -1 nogil:
    """Play game ``index`` of the run ``key`` on ``m`` (both seats plugged to :c:func:`_td_play`
    with ``t``) into ``t``, with its lambda-returns; returns its plies."""
    seed_match(m, key, index)
    t.n = 0
    play_game(m, 0, NULL, gl)
    _td_returns(t, lam)
    return t.n


# ---------------------------------------------------------------- positions for supervised training

# Positions before each roll of self-play games: the hook's context.
ctypedef struct Sampling:
    const Neural* nn
    Rows rows
    int game                  # the game's number in the call, from 0
    int ply                   # plies played in the game
    int stride                # keep the position before every stride-th roll (by game + ply)


cdef int _sample_play(void* ctx, const MoveGen* g, const Board* b) except -1 nogil:
    """The hook of :meth:`SelfPlay.positions`: keep the position before the roll, then the
    net's 0-ply play."""
    cdef Sampling* s = <Sampling*> ctx
    cdef Board a
    if s.ply > 0 and (s.ply + s.game) % s.stride == 0:
        board_swap(&a, b)
        if neural_class(&a) < NN_NETS:
            _rows_reserve(&s.rows, 1)
            _rows_put(&s.rows, &a, 0)
    s.ply += 1
    return neural_choose(s.nn, g, b)


# The net's candidate plays of self-play games: the hook's context.
ctypedef struct Candidates:
    const Neural* nn
    Rows rows
    Rng pick                  # the game's stream of random choices (lane 1)
    int game
    int ply
    int stride
    int most
    float window
    uint32_t threshold        # explore, in millionths
    int other                 # the PlayKind of the odd plies (by game + ply), PLAY_EVALUATOR: the net
    long long decision        # decisions kept so far


cdef int _candidate_play(void* ctx, const MoveGen* g, const Board* b) except -1 nogil:
    """The hook of :meth:`SelfPlay.candidates`: keep the net's candidates of the roll, then
    play the best (or, exploring, one of them at random, or the other player's play)."""
    cdef Candidates* c = <Candidates*> ctx
    cdef int top[NN_MAX_CANDIDATES]
    cdef int best, k, kept
    kept = neural_candidates(c.nn, g, b, top, c.most, c.window, NULL, NULL)
    best = top[0]
    if kept > 1 and (c.ply + c.game) % c.stride == 0:
        _rows_reserve(&c.rows, kept)
        for k in range(kept):
            if neural_class(&g.items[top[k]].board) < NN_NETS:
                _rows_put(&c.rows, &g.items[top[k]].board, c.decision)
        c.decision += 1
    if kept > 1 and c.threshold and <uint32_t> rng_below(&c.pick, 1000000) < c.threshold:
        best = top[rng_below(&c.pick, kept)]
    if c.other != PLAY_EVALUATOR and (c.ply + c.game) % 2 == 1:
        best = pubeval_choose(g, b) if c.other == PLAY_PUBEVAL else rng_below(&c.pick, g.n)
    c.ply += 1
    return best


# ---------------------------------------------------------------- Python entry points

cdef class SelfPlay:
    """A model's games on the game loop, from one starting position, and the training data
    they make.

    :param model: the net (:class:`~bgfast._core.neural.Model`); TD training changes its
        weights.
    :param start: the starting position of one side, 25 counts in its own view (a variant's:
        ``bgfast.match.VARIANTS[name][1]``).
    :raises ValueError: a start that is not 25 counts.

    Each call plays games ``first .. first + games - 1`` of run ``seed`` on their own dice
    (see the module's docstring) and releases the GIL while it plays, so calls on distinct
    models can run in threads side by side.
    """

    def __cinit__(self, Model model not None, start):
        self.start = tuple(int(n) for n in start)
        if len(self.start) != 25:
            raise ValueError("a starting position is 25 counts, got %d" % len(self.start))
        self.model = model
        self.evaluator = CoreEvaluator(model, EVAL_NEURAL)

    def td_train(self, seed, unsigned long long first, int games, double lam,
                 double lr_contact, double lr_race):
        """Play ``games`` self-play games and train the model on each by TD(lambda), the
        game's last position first, each position by the net of its class (the backgame
        and crashed nets at ``lr_contact``).

        :returns: ``(positions, plies, mse)``: positions trained per net (contact, race,
            backgame, crashed: the order of ``NETS``), plies played, and the mean squared error of
            the win output per net.
        :raises ValueError: games < 0, lam outside 0..1, a negative learning rate.
        """
        cdef TDGame t
        cdef double stats[2 * NN_NETS]    # positions per net, then their summed squared errors
        cdef float lr[NN_NETS]
        cdef float tmp[NN_MAX_HIDDEN]
        cdef long long plies = 0
        cdef int i, k, cls
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        cdef Neural* nn = &self.model.nn
        if games < 0 or not 0.0 <= lam <= 1.0 or lr_contact < 0 or lr_race < 0:
            raise ValueError("games >= 0, 0 <= lam <= 1 and learning rates >= 0 are required")
        lr[NET_CONTACT] = lr_contact
        lr[NET_RACE] = lr_race
        lr[NET_BACKGAME] = lr_contact
        lr[NET_CRASHED] = lr_contact
        memset(stats, 0, sizeof(stats))
        memset(&t, 0, sizeof(TDGame))
        t.nn = nn
        try:
            if not _td_grow(&t, FIRST_PLIES):
                raise MemoryError()
            runner = _hooked(self, _td_play, &t)
            with nogil:
                for i in range(games):
                    plies += _td_game(runner.m, &runner.log.games[0], &t, kp, first + i, <float> lam)
                    for k in range(t.n - 2, -1, -1):
                        cls = t.cls[k]
                        if cls < NN_NETS:          # valued by the net of its index
                            stats[NN_NETS + cls] += neural_train_step(nn, cls, &t.boards[k],
                                                                      t.returns + NN_OUT * k, lr[cls], tmp)
                            stats[cls] += 1
        finally:
            _td_free(&t)
        return (tuple(int(stats[k]) for k in range(NN_NETS)), plies,
                tuple(stats[NN_NETS + k] / stats[k] if stats[k] else 0.0 for k in range(NN_NETS)))

    def td_targets(self, seed, unsigned long long first, int games, double lam):
        """The training data of :meth:`td_train` without the training: ``games`` self-play
        games played with the weights as they are, and each game's positions that a net
        values (contact, race, backgame and crashed), last first, with their lambda-returns.

        :returns: ``(boards, targets, plies)``: (n, 50) uint8 boards with side 1 on roll,
            (n, 5) float32 targets (its probabilities) for :func:`train_positions`, and the
            plies played.
        :raises ValueError: games < 0, lam outside 0..1.
        """
        cdef TDGame t
        cdef int i, k, T
        cdef long long plies = 0, n = 0, cap = games * 64 + FIRST_PLIES
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        cdef unsigned char[:, ::1] bv
        cdef float[:, ::1] tv
        if games < 0 or not 0.0 <= lam <= 1.0:
            raise ValueError("games >= 0 and 0 <= lam <= 1 are required")
        boards = np.zeros((cap, 50), dtype=np.uint8)
        targets = np.zeros((cap, NN_OUT), dtype=np.float32)
        memset(&t, 0, sizeof(TDGame))
        t.nn = &self.model.nn
        try:
            if not _td_grow(&t, FIRST_PLIES):
                raise MemoryError()
            runner = _hooked(self, _td_play, &t)
            for i in range(games):
                with nogil:
                    T = _td_game(runner.m, &runner.log.games[0], &t, kp, first + i, <float> lam)
                plies += T
                if n + T > cap:
                    cap = 2 * cap + T
                    boards = np.resize(boards, (cap, 50))
                    targets = np.resize(targets, (cap, NN_OUT))
                bv = boards
                tv = targets
                with nogil:
                    for k in range(T - 2, -1, -1):
                        if t.cls[k] < NN_NETS:
                            memcpy(&bv[n, 0], t.boards[k].side[1], 25)    # side 1 on roll
                            memcpy(&bv[n, 25], t.boards[k].side[0], 25)
                            memcpy(&tv[n, 0], t.returns + NN_OUT * k, NN_OUT * sizeof(float))
                            n += 1
        finally:
            _td_free(&t)
        return boards[:n].copy(), targets[:n].copy(), plies

    def versus(self, str player0, str player1, seed, unsigned long long first, int games):
        """Results of ``games`` cubeless games between two players named in :data:`PLAYERS`.

        :returns: ``(points, plies)``: player 0's points in each game (int8: +-1, 2, 3) and
            each game's plies (int32).
        :raises ValueError: a player not named in :data:`PLAYERS`.
        """
        cdef int i
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        cdef MatchRunner runner
        cdef GameLog* gl
        if player0 not in PLAYERS or player1 not in PLAYERS:
            raise ValueError("players are named from %s, got %r, %r" % (sorted(PLAYERS), player0, player1))
        runner = _runner(self, PLAYERS[player0], PLAYERS[player1])
        gl = &runner.log.games[0]
        points = np.zeros(games, dtype=np.int8)
        plies = np.zeros(games, dtype=np.int32)
        cdef signed char[::1] pv = points
        cdef int[::1] lv = plies
        with nogil:
            for i in range(games):
                seed_match(runner.m, kp, first + i)
                play_game(runner.m, 0, NULL, gl)
                pv[i] = <signed char> (gl.points if gl.winner == 0 else -gl.points)
                lv[i] = gl.plies
        return points, plies

    def positions(self, seed, unsigned long long first, int games, int stride=1):
        """Positions of ``games`` 0-ply self-play games before each roll but the first, those of
        every ``stride``-th roll (counted from the game's number in the call plus the ply).
        Pure bear-offs and decided positions are left out.

        :returns: an (n, 50) uint8 array, side 1 on roll.
        :raises ValueError: ``stride`` below 1.
        """
        cdef Sampling s
        cdef int i
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        if stride < 1:
            raise ValueError("stride must be at least 1, got %d" % stride)
        memset(&s, 0, sizeof(Sampling))
        s.nn = &self.model.nn
        s.stride = stride
        try:
            runner = _hooked(self, _sample_play, &s)
            with nogil:
                for i in range(games):
                    seed_match(runner.m, kp, first + i)
                    s.game = i
                    s.ply = 0
                    play_game(runner.m, 0, NULL, &runner.log.games[0])
            return _rows_arrays(&s.rows)[0]
        finally:
            _rows_free(&s.rows)

    def candidates(self, seed, unsigned long long first, int games, int stride=1, int most=6,
                   double window=0.16, double explore=0.0, str opponent="neural"):
        """The net's candidate plays in ``games`` 0-ply self-play games: at every ``stride``-th
        roll (counted from the game's number in the call plus the ply), the positions after
        the best ``most`` plays at 0 ply within ``window`` (cubeless equity) of the best, the
        opponent on roll.  These are what the net must rank to choose a play, the positions
        self-play never reaches but after its best play.  With ``explore`` > 0, a decision
        plays one of its candidates at random with that probability (the choice drawn from
        the game's own stream, lane 1), else the best.  With ``opponent`` ``"pubeval"`` or
        ``"random"`` (a name of :data:`PLAYERS`), that player makes the plays of one side
        (the side that did not win the opening roll in even games, the other in odd ones), so
        the positions are also the ones the net meets against another style; the candidates
        of its rolls are kept all the same.  Pure bear-offs and decided positions are left out.

        :returns: an (n, 50) uint8 array, side 1 on roll, and an (n,) int64 array numbering
            the decision each came from.
        :raises ValueError: ``stride`` or ``most`` out of range, ``explore`` outside 0..1, an
            unknown ``opponent``.
        """
        cdef Candidates c
        cdef int i
        cdef bytes key = run_key(seed)
        cdef const uint64_t* kp = <const uint64_t*> (<const char*> key)
        if stride < 1:
            raise ValueError("stride must be at least 1, got %d" % stride)
        if not 1 <= most <= NN_MAX_CANDIDATES:
            raise ValueError("most must be 1 to %d, got %d" % (NN_MAX_CANDIDATES, most))
        if not 0.0 <= explore <= 1.0:
            raise ValueError("explore is a probability, got %r" % explore)
        if opponent not in PLAYERS:
            raise ValueError("opponent must be one of %s, got %r" % (", ".join(PLAYERS), opponent))
        memset(&c, 0, sizeof(Candidates))
        c.nn = &self.model.nn
        c.stride = stride
        c.most = most
        c.window = <float> window
        c.threshold = <uint32_t> (explore * 1000000)
        c.other = PLAYERS[opponent]
        try:
            runner = _hooked(self, _candidate_play, &c)
            with nogil:
                for i in range(games):
                    seed_match(runner.m, kp, first + i)
                    rng_seed(&c.pick, kp, first + i, 1)
                    c.game = i
                    c.ply = 0
                    play_game(runner.m, 0, NULL, &runner.log.games[0])
            return _rows_arrays(&c.rows)
        finally:
            _rows_free(&c.rows)


cdef MatchRunner _runner(SelfPlay play, int kind0, int kind1):
    """A runner of cubeless games between two players of :data:`PLAYERS`' kinds."""
    players = [(kind, CUBE_NEVER, 0.0, play.evaluator if kind == PLAY_EVALUATOR else None, None)
               for kind in (kind0, kind1)]
    return MatchRunner(RULES, play.start, players)


cdef MatchRunner _hooked(SelfPlay play, PlayHook hook, void* ctx):
    """A runner of cubeless games where both seats play by ``hook(ctx, ...)``."""
    cdef MatchRunner runner = _runner(play, PLAY_RANDOM, PLAY_RANDOM)
    runner.plug(0, hook, ctx)
    runner.plug(1, hook, ctx)
    return runner


def train_positions(Model model not None, const unsigned char[:, ::1] boards, const float[:, ::1] targets,
                    double lr_contact, double lr_race, const long long[::1] order):
    """Supervised steps: for each ``i`` in ``order``, move the model's value of ``boards[i]``
    (side 1 on roll) towards ``targets[i]`` (its 5 probabilities), by the net of its class
    (the backgame and crashed nets at ``lr_contact``).  Pure bear-offs and decided positions are skipped.

    :returns: the number of positions trained per net (contact, race, backgame, crashed: the order
        of ``NETS``).
    :raises ValueError: boards not (n, 50), targets not (n, 5), an index of ``order``
        outside the boards.
    """
    cdef Py_ssize_t n = boards.shape[0], j, i
    cdef Board b, a
    cdef int cls
    cdef long long counts[NN_NETS]
    cdef float lr[NN_NETS]
    cdef float tmp[NN_MAX_HIDDEN]
    cdef Neural* nn = &model.nn
    if boards.shape[1] != 50 or targets.shape[0] != n or targets.shape[1] != NN_OUT:
        raise ValueError("boards (n, 50) and targets (n, 5) are required")
    for j in range(order.shape[0]):
        if order[j] < 0 or order[j] >= n:
            raise ValueError("order holds an index outside the boards: %d" % order[j])
    lr[NET_CONTACT] = lr_contact
    lr[NET_RACE] = lr_race
    lr[NET_BACKGAME] = lr_contact
    lr[NET_CRASHED] = lr_contact
    for j in range(NN_NETS):
        counts[j] = 0
    with nogil:
        for j in range(order.shape[0]):
            i = order[j]
            board_from_bytes(&boards[i, 0], &b)
            board_swap(&a, &b)
            cls = neural_class(&a)
            if cls < NN_NETS:              # valued by the net of its index
                neural_train_step(nn, cls, &a, &targets[i, 0], lr[cls], tmp)
                counts[cls] += 1
    return tuple(counts[k] for k in range(NN_NETS))
