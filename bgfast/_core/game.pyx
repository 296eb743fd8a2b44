# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""The game and match loop, in C.

One loop serves every bot: built-in bots (random, pubeval, heuristic) choose
plays and cube actions in C without touching Python; Python bots are called
back, with the GIL, through an adapter object (``bgfast.game._PythonAdapter``)
at the same decision points, so every bot plays by the same rules.

A game: opening roll (one die each, ties re-rolled, the higher die plays both);
then, turn by turn, a cube action before the roll when the cube is available
to the side on roll, the roll, the play.  The board is kept with the side on
roll as ``side[1]``.  Scoring: single, gammon (loser bore off none) x2,
backgammon (and still a checker on the bar or in the winner's home board) x3,
times the cube; with the Jacoby rule (money only) gammons count single while
the cube is centred.  A match to N points applies the Crawford rule (no cube
in the first game after a side first reaches N-1) when asked.
"""
from cpython.ref cimport PyObject
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, uint64_t

from bgfast._core.board cimport Board, BAR, board_swap, board_checkers, board_equal, board_from_bytes
from bgfast._core.movegen cimport MoveGen, Child, movegen_new, movegen_free, generate
from bgfast._core.rng cimport Rng, rng_seed, rng_die, rng_below
from bgfast._core.evaluators cimport is_race, keith_count, pubeval_choose
from bgfast._core.heuristic cimport heuristic_choose, heuristic_probs, heuristic_preroll
from bgfast._core.cube cimport cube_offer, cube_respond
from bgfast._core.game cimport (
    Player, Rules, GameLog, MatchLog, MatchCtx, GameStart, MAX_GAMES, MAX_DOUBLES, MET_SIZE, MAX_SCRIPT,
    PLAY_RANDOM, PLAY_PUBEVAL, PLAY_HEURISTIC, PLAY_PYTHON,
    CUBE_NEVER, CUBE_KEITH, CUBE_JANOWSKI, CUBE_MET, CUBE_PYTHON,
    RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER,
    KIND_SINGLE, KIND_GAMMON, KIND_BACKGAMMON, KIND_PASS,
)
from bgfast._core.rng import run_key

KIND_NAMES = ("single", "gammon", "backgammon", "pass")


cdef inline bytes _board_bytes(const Board* b):
    return (<const char*> b.side[0])[:25] + (<const char*> b.side[1])[:25]


cdef inline tuple _state(MatchCtx* m, int player, int cube, int owner, int crawford):
    return (player, m.rules.length, m.score[0], m.score[1], cube, owner, bool(crawford),
            bool(m.rules.jacoby), bool(m.rules.beaver), m.rules.max_cube)


# ---------------------------------------------------------------- decisions

cdef int choose_play(MatchCtx* m, int player, const Board* b, int d1, int d2,
                     int cube, int owner, int crawford) except -1 nogil:
    """Index of the chosen child in ``m.gen.items`` (children already generated)."""
    cdef Player* p = &m.players[player]
    cdef MoveGen* g = m.gen
    if g.n == 1:
        return 0
    if p.play == PLAY_RANDOM:
        return rng_below(&p.rng, g.n)
    if p.play == PLAY_PUBEVAL:
        return pubeval_choose(g, b)
    if p.play == PLAY_HEURISTIC:
        return heuristic_choose(g, b)
    if p.play == PLAY_PYTHON:
        with gil:
            return _python_play(m, player, b, d1, d2, cube, owner, crawford)
    with gil:
        raise ValueError("unknown checker-play kind %d" % p.play)


cdef int _python_play(MatchCtx* m, int player, const Board* b, int d1, int d2,
                      int cube, int owner, int crawford) except -1:
    cdef Board chosen
    cdef int i
    adapter = <object> m.players[player].py
    result = adapter.choose_play(_board_bytes(b), d1, d2, _state(m, player, cube, owner, crawford))
    if not isinstance(result, bytes) or len(result) != 50:
        raise TypeError("a Python bot's play must come back as a 50-byte board")
    board_from_bytes(<const unsigned char*> (<const char*> result), &chosen)
    for i in range(m.gen.n):
        if board_equal(&m.gen.items[i].board, &chosen):
            return i
    return adapter.illegal_play(_board_bytes(b), d1, d2, result)


cdef bint cube_dead_for(MatchCtx* m, int player, int cube) noexcept nogil:
    """The cube is dead for ``player``: doubling cannot gain anything (match play only)."""
    return m.rules.length > 0 and m.rules.length - m.score[player] <= cube


cdef bint may_double(MatchCtx* m, int player, int cube, int owner, int crawford) noexcept nogil:
    if crawford:
        return False
    if owner != -1 and owner != player:
        return False
    if cube * 2 > m.rules.max_cube:
        return False
    return not cube_dead_for(m, player, cube)


cdef int offer_double(MatchCtx* m, int player, const Board* b, int cube, int owner,
                      int crawford) except -1 nogil:
    """Whether ``player`` (on roll in ``b``) doubles."""
    cdef Player* p = &m.players[player]
    cdef int diff
    if p.cube == CUBE_NEVER:
        return 0
    if p.cube == CUBE_KEITH:
        if not is_race(b):
            return 0
        diff = 8 * keith_count(b, 1) - 7 * keith_count(b, 0)   # 7 x (K_me * 8/7 - K_opp)
        return diff <= (28 if owner == -1 else 21)
    if p.cube == CUBE_JANOWSKI or p.cube == CUBE_MET:
        return cube_offer(m, player, b, cube, owner, crawford)
    if p.cube == CUBE_PYTHON:
        with gil:
            adapter = <object> p.py
            return 1 if adapter.should_double(_board_bytes(b), _state(m, player, cube, owner, crawford)) else 0
    with gil:
        raise ValueError("cube policy %d is not available for this bot" % p.cube)


cdef int respond_double(MatchCtx* m, int player, const Board* b, int cube, int owner,
                        int crawford) except -1 nogil:
    """``player``'s answer to a double; ``b`` has the doubler on roll (side 1)."""
    cdef Player* p = &m.players[player]
    cdef int diff, answer
    if p.cube == CUBE_NEVER:
        return RESPONSE_TAKE
    if p.cube == CUBE_KEITH:
        if not is_race(b):
            return RESPONSE_TAKE
        diff = 8 * keith_count(b, 1) - 7 * keith_count(b, 0)
        return RESPONSE_TAKE if diff >= 14 else RESPONSE_PASS
    if p.cube == CUBE_JANOWSKI or p.cube == CUBE_MET:
        return cube_respond(m, player, b, cube, owner, crawford)
    if p.cube == CUBE_PYTHON:
        with gil:
            adapter = <object> p.py
            answer = int(adapter.accept_double(_board_bytes(b), _state(m, player, cube, owner, crawford)))
            if answer not in (RESPONSE_PASS, RESPONSE_TAKE, RESPONSE_BEAVER):
                raise ValueError("a cube response is 0 (pass), 1 (take) or 2 (beaver), got %r" % answer)
            return answer
    with gil:
        raise ValueError("cube policy %d is not available for this bot" % p.cube)


# ---------------------------------------------------------------- the loop

cdef void add_luck(MoveGen* g, const Board* b, int d1, int d2, float* total) noexcept nogil:
    """Add to ``total`` the luck of rolling (d1, d2) for the side on roll in ``b`` (side 1).

    Luck, as GNU Backgammon and eXtreme Gammon measure it for variance reduction:
    the heuristic evaluator's probabilities after its best play of this roll,
    minus their average over all 36 rolls (each after its best play).  Its
    expectation over the roll is exactly zero, so subtracting a trial's summed
    luck from its result leaves the rollout unbiased while removing most of the
    dice's noise.  Five numbers, the side's own view: win, win gammon, win
    backgammon, lose gammon, lose backgammon.
    """
    cdef float avg[5]
    cdef float got[5]
    cdef int k
    heuristic_preroll(g, b, 1, avg)
    generate(g, b, d1, d2)
    heuristic_probs(&g.items[heuristic_choose(g, b)].board, got)
    for k in range(5):
        total[k] += got[k] - avg[k]


cdef int next_die(MatchCtx* m) noexcept nogil:
    """The next die: from the script while it lasts, then from the match's stream."""
    if m.script_pos < m.script_len:
        m.script_pos += 1
        return m.script[m.script_pos - 1]
    return rng_die(&m.dice)


cdef int play_game(MatchCtx* m, int crawford, const GameStart* start, GameLog* log) except -1 nogil:
    """Play one game to its end into ``log``; from the opening roll when ``start`` is NULL."""
    cdef Board b
    cdef int a, c, d1, d2, turn, idx, answer, i
    cdef int cube = 1, owner = -1, plies = 0, max_plies = 0, k
    cdef int left[2]                          # checkers each player still has on the board
    cdef bint skip_cube = True
    cdef const uint8_t* loser
    cdef const Child* chosen
    memset(log, 0, sizeof(GameLog))
    log.crawford = crawford
    if start == NULL:
        memcpy(&b, &m.rules.start, sizeof(Board))
        while True:
            a = next_die(m)
            c = next_die(m)
            if a != c:
                break
        turn = 0 if a > c else 1
        d1 = a
        d2 = c
    else:
        memcpy(&b, &start.board, sizeof(Board))
        turn = start.turn
        cube = start.cube
        owner = start.owner
        d1 = start.d1
        d2 = start.d2
        skip_cube = d1 != 0
        max_plies = start.max_plies
    left[turn] = board_checkers(&b, 1)
    left[1 - turn] = board_checkers(&b, 0)
    while True:
        if max_plies and plies >= max_plies:
            log.truncated = 1
            log.final_turn = turn
            memcpy(&log.final, &b, sizeof(Board))
            log.cube = cube
            log.plies = plies
            return 0
        if not skip_cube:
            if may_double(m, turn, cube, owner, crawford) and offer_double(m, turn, &b, cube, owner, crawford):
                answer = respond_double(m, 1 - turn, &b, cube, owner, crawford)   # doubler on roll
                if answer == RESPONSE_BEAVER and not (m.rules.length == 0 and m.rules.beaver
                                                      and cube * 4 <= m.rules.max_cube):
                    answer = RESPONSE_TAKE
                if log.ndoubles < MAX_DOUBLES:
                    log.double_by[log.ndoubles] = <int8_t> turn
                    log.double_response[log.ndoubles] = <int8_t> answer
                    log.ndoubles += 1
                if answer == RESPONSE_PASS:
                    log.cube = cube
                    log.points = cube
                    log.winner = turn
                    log.kind = KIND_PASS
                    log.plies = plies
                    return 0
                cube *= 4 if answer == RESPONSE_BEAVER else 2
                owner = 1 - turn
            d1 = next_die(m)
            d2 = next_die(m)
        if m.luck and not (skip_cube and start != NULL):
            add_luck(m.gen, &b, d1, d2, log.luck[turn])
        skip_cube = False
        generate(m.gen, &b, d1, d2)
        idx = choose_play(m, turn, &b, d1, d2, cube, owner, crawford)
        chosen = &m.gen.items[idx]
        memcpy(&b, &chosen.board, sizeof(Board))
        plies += 1
        for k in range(chosen.nsteps):
            if chosen.dst[k] == 0:
                left[turn] -= 1
        if left[turn] == 0:
            loser = b.side[0]
            log.winner = turn
            log.cube = cube
            log.plies = plies
            log.kind = KIND_SINGLE
            if board_checkers(&b, 0) == m.rules.checkers:
                log.kind = KIND_GAMMON
                if loser[BAR]:
                    log.kind = KIND_BACKGAMMON
                for i in range(18, 24):
                    if loser[i]:
                        log.kind = KIND_BACKGAMMON
            if m.rules.length == 0 and m.rules.jacoby and owner == -1:
                log.points = cube
            else:
                log.points = cube * (log.kind + 1)
            return 0
        board_swap(&b, &b)
        turn = 1 - turn


cdef int play_match(MatchCtx* m, MatchLog* out) except -1 nogil:
    cdef int crawford, crawford_done = 0, length = m.rules.length
    cdef GameLog* log
    out.ngames = 0
    m.score[0] = 0
    m.score[1] = 0
    while True:
        crawford = 0
        if (length > 1 and m.rules.crawford and not crawford_done
                and (m.score[0] == length - 1 or m.score[1] == length - 1)):
            crawford = 1
            crawford_done = 1
        if out.ngames == MAX_GAMES:
            with gil:
                raise RuntimeError("match exceeded %d games" % MAX_GAMES)
        log = &out.games[out.ngames]
        play_game(m, crawford, NULL, log)
        out.ngames += 1
        m.score[log.winner] += log.points
        log.score_after[0] = m.score[0]
        log.score_after[1] = m.score[1]
        if length == 0 or m.score[log.winner] >= length:
            out.winner = log.winner
            break
    out.score[0] = m.score[0]
    out.score[1] = m.score[1]
    return 0


# ---------------------------------------------------------------- Python entry point

cdef class MatchRunner:
    """Plays matches between two configured players under fixed rules.

    :param rules: ``(length, crawford, jacoby, beaver, max_cube)`` as ints.
    :param start: the starting position of one side, 25 counts (own view).
    :param players: two ``(play_kind, cube_kind, cube_efficiency, adapter_or_None)``.
    :param met: optional ``(pre, post)``: an (n, n) table of match winning chances
        at (away, opponent away), index 0 = 0-away, and the post-Crawford row.
    """
    cdef MatchCtx* m
    cdef MatchLog* log
    cdef object _adapters     # keeps the Python adapters alive
    cdef public int checkers

    def __cinit__(self, rules, start, players, met=None):
        self.m = NULL
        self.log = NULL
        cdef int i, j, s
        cdef MatchCtx* m = <MatchCtx*> PyMem_Calloc(1, sizeof(MatchCtx))
        if m == NULL:
            raise MemoryError()
        self.m = m
        self.log = <MatchLog*> PyMem_Calloc(1, sizeof(MatchLog))
        m.gen = movegen_new()
        if self.log == NULL or m.gen == NULL:
            raise MemoryError()
        m.rules.length, m.rules.crawford, m.rules.jacoby, m.rules.beaver, m.rules.max_cube = rules
        if len(start) != 25:
            raise ValueError("a starting position is 25 counts")
        for i in range(25):
            m.rules.start.side[0][i] = start[i]
            m.rules.start.side[1][i] = start[i]
        m.rules.checkers = sum(start)
        self.checkers = m.rules.checkers
        self._adapters = []
        for s in range(2):
            play, cube, eff, adapter = players[s]
            m.players[s].play = play
            m.players[s].cube = cube
            m.players[s].cube_efficiency = eff
            m.players[s].py = NULL
            if adapter is not None:
                self._adapters.append(adapter)
                m.players[s].py = <PyObject*> adapter
            if (play == PLAY_PYTHON or cube == CUBE_PYTHON) and adapter is None:
                raise ValueError("a Python player needs an adapter")
        if met is not None:
            pre, post = met
            for i in range(min(len(pre), MET_SIZE)):
                m.met_post[i] = post[i]
                for j in range(min(len(pre), MET_SIZE)):
                    m.met[i][j] = pre[i][j]

    def __dealloc__(self):
        if self.m != NULL:
            movegen_free(self.m.gen)
            PyMem_Free(self.m)
        PyMem_Free(self.log)

    cdef void _seed(self, seed, unsigned long long index):
        cdef bytes key = run_key(seed)
        cdef const uint64_t* k = <const uint64_t*> (<const char*> key)
        rng_seed(&self.m.dice, k, index, 0)
        rng_seed(&self.m.players[0].rng, k, index, 1)
        rng_seed(&self.m.players[1].rng, k, index, 2)

    def reseed(self, seed, unsigned long long index):
        """Seed the dice and both players' streams for item ``index`` of run ``seed``."""
        self._seed(seed, index)

    def script(self, dice):
        """Roll these dice (a flat sequence of 1..6) before the stream, in the next match or game.

        :returns: nothing; :meth:`script_left` tells how many were not used.
        """
        cdef int i, n = len(dice)
        if n > MAX_SCRIPT:
            raise ValueError("at most %d scripted dice" % MAX_SCRIPT)
        for i in range(n):
            if not 1 <= dice[i] <= 6:
                raise ValueError("a die is 1..6, got %r" % (dice[i],))
            self.m.script[i] = dice[i]
        self.m.script_len = n
        self.m.script_pos = 0

    def measure_luck(self, bint on):
        """Measure the luck of every rolled ply in :meth:`play_from` (variance reduction)."""
        self.m.luck = on

    def luck(self):
        """The last game's summed luck: ``((5 numbers of player 0), (player 1))``, each in its own view."""
        cdef GameLog* gl = &self.log.games[0]
        return (tuple(gl.luck[0][k] for k in range(5)), tuple(gl.luck[1][k] for k in range(5)))

    def script_left(self):
        """Scripted dice not yet rolled."""
        return self.m.script_len - self.m.script_pos

    def play_from(self, const unsigned char[::1] board, int turn, int cube=1, int owner=-1,
                  int d1=0, int d2=0, int max_plies=0, int score0=0, int score1=0,
                  bint crawford=False):
        """Play one game from ``board`` (``turn`` on roll, side 1) with the current streams.

        :returns: ``(winner, kind, points, cube, plies, truncated, final_board, final_turn)``;
            ``final_board`` (50 bytes, ``final_turn`` on roll) only when truncated, else None.
        """
        cdef GameStart st
        cdef GameLog* gl = &self.log.games[0]
        board_from_bytes(&board[0], &st.board)
        st.turn = turn
        st.cube = cube
        st.owner = owner
        st.d1 = d1
        st.d2 = d2
        st.max_plies = max_plies
        self.m.score[0] = score0
        self.m.score[1] = score1
        if self.m.players[0].py == NULL and self.m.players[1].py == NULL:
            with nogil:
                play_game(self.m, crawford, &st, gl)
        else:
            play_game(self.m, crawford, &st, gl)
        self.log.ngames = 1
        final = _board_bytes(&gl.final) if gl.truncated else None
        return (gl.winner, KIND_NAMES[gl.kind], gl.points, gl.cube, gl.plies, bool(gl.truncated),
                final, gl.final_turn)

    def play(self, seed, unsigned long long index):
        """Play match ``index`` of run ``seed``; return its summary.

        :returns: ``(score0, score1, winner, games, gammons0, gammons1,
            backgammons0, backgammons1, doubles, plies)``.
        """
        cdef int i, g0 = 0, g1 = 0, b0 = 0, b1 = 0, doubles = 0, plies = 0
        cdef GameLog* gl
        self._seed(seed, index)
        if self.m.players[0].py == NULL and self.m.players[1].py == NULL:
            with nogil:
                play_match(self.m, self.log)
        else:
            play_match(self.m, self.log)
        for i in range(self.log.ngames):
            gl = &self.log.games[i]
            doubles += gl.ndoubles
            plies += gl.plies
            if gl.kind == KIND_GAMMON:
                if gl.winner == 0:
                    g0 += 1
                else:
                    g1 += 1
            elif gl.kind == KIND_BACKGAMMON:
                if gl.winner == 0:
                    b0 += 1
                else:
                    b1 += 1
        return (self.log.score[0], self.log.score[1], self.log.winner, self.log.ngames,
                g0, g1, b0, b1, doubles, plies)

    def games(self):
        """The games of the last match played: a list of
        ``(crawford, cube, doubles, points, winner, kind, score_after, plies)``,
        ``doubles`` a list of ``(by, response)`` with response 0 pass, 1 take, 2 beaver."""
        cdef int i, k
        cdef GameLog* gl
        out = []
        for i in range(self.log.ngames):
            gl = &self.log.games[i]
            doubles = [(gl.double_by[k], gl.double_response[k]) for k in range(gl.ndoubles)]
            out.append((bool(gl.crawford), gl.cube, doubles, gl.points, gl.winner,
                        KIND_NAMES[gl.kind], (gl.score_after[0], gl.score_after[1]), gl.plies))
        return out

    # -- single decisions, so that the built-in bots answer the same from Python

    cdef void _set_scene(self, int player, int score0, int score1):
        self.m.score[0] = score0
        self.m.score[1] = score1

    def choose(self, const unsigned char[::1] board, int d1, int d2, int player,
               int score0=0, int score1=0, int cube=1, int owner=-1, bint crawford=False):
        """The 50-byte board ``player`` (on roll, side 1 of ``board``) plays to with (d1, d2)."""
        cdef Board b
        cdef int idx
        board_from_bytes(&board[0], &b)
        self._set_scene(player, score0, score1)
        generate(self.m.gen, &b, d1, d2)
        idx = choose_play(self.m, player, &b, d1, d2, cube, owner, crawford)
        return _board_bytes(&self.m.gen.items[idx].board)

    def offer(self, const unsigned char[::1] board, int player, int score0=0, int score1=0,
              int cube=1, int owner=-1, bint crawford=False):
        """Whether ``player`` (on roll, side 1 of ``board``) doubles; False when the cube is unavailable."""
        cdef Board b
        board_from_bytes(&board[0], &b)
        self._set_scene(player, score0, score1)
        if not may_double(self.m, player, cube, owner, crawford):
            return False
        return bool(offer_double(self.m, player, &b, cube, owner, crawford))

    def respond(self, const unsigned char[::1] board, int player, int score0=0, int score1=0,
                int cube=1, int owner=-1, bint crawford=False):
        """``player``'s answer (0 pass, 1 take, 2 beaver) to a double; the doubler is side 1 of ``board``."""
        cdef Board b
        board_from_bytes(&board[0], &b)
        self._set_scene(player, score0, score1)
        return respond_double(self.m, player, &b, cube, owner, crawford)
