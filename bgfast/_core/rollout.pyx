# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True, initializedcheck=False
"""A rollout's trials, in C: a block of trials of one line played and valued in one call.

A trial is one game played from a line (a position, maybe with dice to play first) by the
bot on both sides, in the game loop (:c:func:`play_position`), with the streams of
``(seed, index)``, its first roll or two scripted when the rollout stratifies them; the
cubeful rollout plays the same trial again with the bot's cube (the same dice).  Each
trial is written as six numbers, all from the view of ``root``, the side on roll at the root:

* the five cumulative outcome chances (win, win gammon, win backgammon, lose gammon, lose
  backgammon): 0/1 for a finished game, the evaluator's probabilities of the final
  position for a truncated one;
* the cubeful value (0 when not asked for): money, the points won per initial cube
  (Janowski's cubeful equity from the evaluator's chances, the cube where it ended, when
  truncated: :c:func:`money_cubeful`); match play, the match winning chance after the game
  (the dead-cube MWC at the cube where it ended, when truncated: :c:func:`met_dead_cube`);
* less, with ``luck``, the trial's luck: the summed luck of both players as one vector in
  root's view (the opponent's win luck is root's loss luck, and so on), taken from the five
  chances; and for the cubeful value, the cube-weighted luck vector valued by the fixed
  linear map ``luck_scale`` (see :func:`bgfast.rollout.engine._luck_scale`).

The floating-point steps are those of the per-trial Python loop this replaces, in the same
order, so a rollout's numbers are the same to the bit.  Built-in bots and core evaluators
run without the GIL; a Python bot (called back from the game loop) or a Python evaluator
of truncated trials runs with it, by the same rules.  Signals (Ctrl-C) are checked before
each trial, so an interrupt stops a block between two trials.
"""
from cpython.exc cimport PyErr_CheckSignals
from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

from bgfast._core.probs cimport NOUT, probs_flip
from bgfast._core.evaluator cimport Evaluator, CoreEvaluator, EVAL_NEURAL, evaluator_preroll
from bgfast._core.search cimport SEARCH_MAX_PLIES
from bgfast._core.cube cimport Met, money_cubeful, money_x, met_mwc, met_dead_cube
from bgfast._core.game cimport (
    MatchRunner, MatchCtx, MatchLog, GameLog, GameStart, game_start, seed_match, play_position,
)
from bgfast._core.rng import run_key

VALUES = TRIAL_VALUES
"""The numbers of a trial (a row of :meth:`TrialRunner.play`'s output)."""


# ---------------------------------------------------------------- one trial

cdef int _play(const TrialSpec* t, MatchCtx* m, MatchLog* log, const uint64_t* key, uint64_t i,
               const GameStart* start) except -1 nogil:
    """Play trial ``i``'s game with the runner ``m``: its streams, its stratified first rolls."""
    cdef int r
    seed_match(m, key, i)
    m.script_pos = 0
    m.script_len = 0
    if t.stratified >= 1:
        r = i % STRATA_ROLLS
        m.script[0] = t.rolls[r][0]
        m.script[1] = t.rolls[r][1]
        m.script_len = 2
    if t.stratified == 2:
        r = (i % (STRATA_ROLLS * STRATA_ROLLS)) // STRATA_ROLLS
        m.script[2] = t.rolls[r][0]
        m.script[3] = t.rolls[r][1]
        m.script_len = 4
    play_position(m, log, start, t.score[0], t.score[1], t.crawford)
    return 0


cdef int _evaluate(const TrialSpec* t, MatchCtx* m, const GameLog* gl, double* p) except -1 nogil:
    """The probabilities of the side on roll in a truncated game's final position: by the core
    evaluator (consistent chances by construction), else by the Python ``evaluate``."""
    cdef float q[NOUT]
    cdef int k
    if t.evaluator.kind >= 0:
        evaluator_preroll(&t.evaluator, m.gen, &gl.final, t.evaluator_plies, q)
        for k in range(NOUT):
            p[k] = q[k]
        return 0
    with gil:
        values = (<object> t.evaluate)((<const char*> gl.final.side)[:50])
        for k in range(NOUT):
            p[k] = values[k]
    return 0


cdef int _outcome(const TrialSpec* t, MatchCtx* m, const GameLog* gl, double* row) except -1 nogil:
    """The five chances of a game (a cubeless one: no pass), root's view."""
    cdef double p[NOUT]
    cdef int k
    if gl.truncated:
        _evaluate(t, m, gl, p)
        if gl.final_turn == t.root:
            memcpy(row, p, sizeof(p))
        else:
            probs_flip(p, row)
        return 0
    memset(row, 0, NOUT * sizeof(double))
    k = 1 if gl.winner == t.root else 3       # where the winner's gammon and backgammon go
    if k == 1:
        row[0] = 1.0
    row[k] = 1.0 if gl.kind >= 1 else 0.0
    row[k + 1] = 1.0 if gl.kind >= 2 else 0.0
    return 0


cdef int _cubeful(const TrialSpec* t, MatchCtx* m, const GameLog* gl, const double* row,
                  double* value) except -1 nogil:
    """The cubeful value of a game (root's view); ``row``: the same game's chances (root's
    view) when it is the cubeless game, else NULL (the final position is evaluated)."""
    cdef double p[NOUT]
    cdef double p_root[NOUT]
    cdef double p_on_roll[NOUT]
    cdef int owner = t.owner, k, won = gl.winner == t.root, away, opp_away
    if not gl.truncated:
        if t.length == 0:
            value[0] = (gl.points if won else -gl.points) / <double> t.cube
            return 0
        away, opp_away = t.away[0], t.away[1]
        if won:
            value[0] = met_mwc(t.met, away - gl.points, opp_away, away == 1 or opp_away == 1)
        else:
            value[0] = met_mwc(t.met, away, opp_away - gl.points, away == 1 or opp_away == 1)
        return 0
    for k in range(gl.ndoubles):
        if gl.double_response[k]:
            owner = 1 - gl.double_by[k]
    if row != NULL:
        memcpy(p_root, row, sizeof(p_root))
    else:
        _evaluate(t, m, gl, p)
        if gl.final_turn == t.root:
            memcpy(p_root, p, sizeof(p))
        else:
            probs_flip(p, p_root)
    if t.length == 0:
        if gl.final_turn == t.root:
            memcpy(p_on_roll, p_root, sizeof(p_root))
        else:
            probs_flip(p_root, p_on_roll)
        value[0] = money_cubeful(p_on_roll, owner, gl.final_turn, money_x(t.cube_efficiency, gl.cube, t.max_cube),
                                 t.jacoby) \
            * <double> gl.cube / <double> t.cube
        if gl.final_turn != t.root:
            value[0] = -value[0]
        return 0
    value[0] = met_dead_cube(p_root, t.met, t.away[0], t.away[1], gl.cube)
    return 0


cdef void _root_luck(const float* own, const float* other, double* total) noexcept nogil:
    """Both players' summed luck (``own``: root's, ``other``: its opponent's, each in its own
    view) as one vector in root's view: the opponent's win luck is root's loss luck."""
    total[0] = <double> own[0] + -(<double> other[0])
    total[1] = <double> own[1] + <double> other[3]
    total[2] = <double> own[2] + <double> other[4]
    total[3] = <double> own[3] + <double> other[1]
    total[4] = <double> own[4] + <double> other[2]


cdef int _trial(const TrialSpec* t, const uint64_t* key, const GameStart* start, uint64_t i,
                double* out) except -1 nogil:
    """Play trial ``i`` and write its six numbers to ``out``."""
    cdef double row[NOUT]
    cdef double luck[NOUT]
    cdef double value = 0.0, scaled
    cdef int k
    cdef const GameLog* gl = &t.cubeless_log.games[0]
    cdef const GameLog* valued = gl
    _play(t, t.cubeless, t.cubeless_log, key, i, start)
    _outcome(t, t.cubeless, gl, row)
    if t.luck:
        _root_luck(&gl.luck[t.root][0], &gl.luck[1 - t.root][0], luck)
        for k in range(NOUT):
            out[k] = row[k] - luck[k]
    else:
        memcpy(out, row, sizeof(row))
    if t.cubeful_value:
        if t.cubeful == NULL:
            _cubeful(t, t.cubeless, gl, row, &value)
        else:
            _play(t, t.cubeful, t.cubeful_log, key, i, start)
            valued = &t.cubeful_log.games[0]
            _cubeful(t, t.cubeful, valued, NULL, &value)
        if t.luck:
            _root_luck(&valued.cube_luck[t.root][0], &valued.cube_luck[1 - t.root][0], luck)
            scaled = 0.0                      # summed in order from 0, as numpy's dot of five numbers
            for k in range(NOUT):
                scaled = scaled + t.luck_scale[k] * luck[k]
            value = value - scaled
    out[NOUT] = value
    return 0


cdef int play_trials(const TrialSpec* t, const uint64_t* key, const GameStart* start, uint64_t first,
                     Py_ssize_t n, double* out) except -1 nogil:
    cdef Py_ssize_t k
    for k in range(n):
        with gil:
            PyErr_CheckSignals()
        _trial(t, key, start, first + k, &out[k * TRIAL_VALUES])
    return 0


# ---------------------------------------------------------------- Python face

cdef class TrialRunner:
    """Plays a rollout's trials in blocks: the core's half of :mod:`bgfast.rollout.engine`.

    :param cubeless: the :class:`~bgfast._core.game.MatchRunner` of the bot on both sides
        with a cube that never moves (its players never double), luck measured when ``luck``.
    :param cubeful: the runner of the bot with its cube, or None: the cubeless game is
        valued cubeful (a bot that never doubles).
    :param root: the player (0 or 1) on roll at the root, whose view every number takes.
    :param score: the match score (player 0's, player 1's) the games are played at (None: 0-0).
    :param crawford: the games are the Crawford game.
    :param cube: the cube's value at the root; ``owner`` -1 centred, else its owner.
    :param length: the match length, 0 for money (``jacoby``: the Jacoby rule).
    :param met: the :class:`~bgfast._core.cube.Met` of match play's cubeful values.
    :param cube_efficiency: Janowski's x of a truncated money game's cubeful value.
    :param max_cube: the highest cube: a truncated money game's cube that cannot be turned
        again is valued dead (x = 0).
    :param max_plies: truncate each game after this many plies (0: play to the end).
    :param stratified: 0, 1 or 2: trial ``i`` first rolls ``rolls[i % 36]`` (1), and then
        ``rolls[(i % 1296) // 36]`` (2), before its stream.
    :param rolls: the 36 rolls ``(d1, d2)`` the stratified rolls rotate through (None: none).
    :param luck: subtract each trial's luck (the runners must measure it).
    :param cubeful_value: the sixth number is the cubeful value (else 0).
    :param luck_scale: five weights: the cubeful value's luck is the cube-weighted luck
        vector (root's view) times these (None: zeros).
    :param evaluator: the :class:`~bgfast._core.evaluator.CoreEvaluator` of truncated
        games' final positions (at ``evaluator_plies``: 0 or 1, the net's up to 3 through its
        n-ply search), or None for ``evaluate``.
    :param evaluate: a Python function of a 50-byte board (side 1 on roll) to the five
        chances of the side on roll, for truncated games when ``evaluator`` is None.
    :raises ValueError: a root, score, stratification, rolls, luck scale or plies out of
        range; match play without a table or beyond it; truncation with nothing to evaluate.
    """
    cdef TrialSpec t
    cdef int max_plies
    cdef readonly bint calls_python    # trials call Python (a Python bot or evaluator): they hold the GIL
    cdef object _keep

    def __cinit__(self, MatchRunner cubeless not None, MatchRunner cubeful=None, int root=0, score=None,
                  bint crawford=False, int cube=1, int owner=-1, int length=0, bint jacoby=False,
                  Met met=None, double cube_efficiency=0.68, int max_cube=64, int max_plies=0, int stratified=0,
                  rolls=None, bint luck=False, bint cubeful_value=False, luck_scale=None,
                  CoreEvaluator evaluator=None, int evaluator_plies=0, evaluate=None):
        cdef int k
        cdef TrialSpec* t = &self.t
        memset(t, 0, sizeof(TrialSpec))
        score = (0, 0) if score is None else score
        rolls = () if rolls is None else rolls
        luck_scale = (0.0,) * NOUT if luck_scale is None else luck_scale
        self._keep = [cubeless, cubeful, met, evaluator, evaluate]
        if root != 0 and root != 1:
            raise ValueError("root is player 0 or 1, got %d" % root)
        if not 0 <= stratified <= 2:
            raise ValueError("0, 1 or 2 rolls are stratified, got %d" % stratified)
        if stratified and len(rolls) != STRATA_ROLLS:
            raise ValueError("stratified rolls rotate through %d rolls, got %d" % (STRATA_ROLLS, len(rolls)))
        if len(luck_scale) != NOUT:
            raise ValueError("the luck scale is %d weights, got %d" % (NOUT, len(luck_scale)))
        if not 0 <= evaluator_plies <= (SEARCH_MAX_PLIES if evaluator is not None
                                        and evaluator.ev.kind == EVAL_NEURAL else 1):
            raise ValueError("a truncated game is evaluated at 0 or 1 ply (the net's at up to %d), got %d"
                             % (SEARCH_MAX_PLIES, evaluator_plies))
        if max_plies < 0:
            raise ValueError("max_plies is 0 (no truncation) or more, got %d" % max_plies)
        if max_plies and evaluator is None and evaluate is None:
            raise ValueError("truncated games need an evaluator or evaluate")
        t.cubeless, t.cubeless_log = cubeless.m, cubeless.log
        if cubeful is not None:
            t.cubeful, t.cubeful_log = cubeful.m, cubeful.log
        t.root = root
        t.score[0], t.score[1] = score
        t.crawford = crawford
        t.cube = cube
        t.owner = owner
        t.length = length
        t.jacoby = jacoby
        if length:
            t.away[0], t.away[1] = length - t.score[root], length - t.score[1 - root]
            if met is None or not (0 < t.away[0] < met.size and 0 < t.away[1] < met.size):
                raise ValueError("match play needs a table holding the score, %d-away, %d-away"
                                 % (t.away[0], t.away[1]))
            t.met = &met.t
        t.cube_efficiency = cube_efficiency
        if max_cube < cube:
            raise ValueError("max_cube is at least the cube (%d), got %d" % (cube, max_cube))
        t.max_cube = max_cube
        t.stratified = stratified
        for k in range(STRATA_ROLLS if stratified else 0):
            d1, d2 = rolls[k]
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise ValueError("a roll is two dice of 1..6, got %r" % ((d1, d2),))
            t.rolls[k][0], t.rolls[k][1] = d1, d2
        t.luck = luck
        t.cubeful_value = cubeful_value
        for k in range(NOUT):
            t.luck_scale[k] = luck_scale[k]
        t.evaluator.kind = -1
        if evaluator is not None:
            if evaluator_plies > 1:
                evaluator._reserve(evaluator_plies - 1)    # its search's generators and cache
            memcpy(&t.evaluator, &evaluator.ev, sizeof(Evaluator))
        t.evaluator_plies = evaluator_plies
        t.evaluate = <PyObject*> evaluate if evaluate is not None else NULL
        self.max_plies = max_plies
        self.calls_python = (
            (max_plies > 0 and evaluator is None)
            or cubeless.m.players[0].py != NULL or cubeless.m.players[1].py != NULL
            or (cubeful is not None and (cubeful.m.players[0].py != NULL or cubeful.m.players[1].py != NULL)))

    def play(self, seed, const unsigned char[::1] board not None, int turn, int d1, int d2,
             unsigned long long first, double[:, ::1] out not None, bint no_double=False):
        """Play trials ``first`` to ``first + len(out) - 1`` of run ``seed`` from ``board``
        (50 bytes, ``turn`` on roll as side 1; ``d1, d2`` dice it plays first without a cube
        action, or 0, 0 to roll) and write trial ``first + k``'s six numbers to ``out[k]``.
        ``no_double``: with 0, 0, the side on roll rolls at once, without a cube action (the
        no-double line of a cube decision).

        :raises ValueError: ``out`` not six wide, a board not of 50 bytes, a turn not 0 or 1.
        :raises KeyboardInterrupt: a signal between two trials (the block is not finished).
        """
        cdef GameStart st
        cdef bytes key = run_key(seed)
        cdef const uint64_t* k = <const uint64_t*> (<const char*> key)
        if out.shape[1] != TRIAL_VALUES:
            raise ValueError("out is %d wide, got %d" % (TRIAL_VALUES, out.shape[1]))
        game_start(&st, board, turn, self.t.cube, self.t.owner, d1, d2, self.max_plies)
        st.no_double = no_double
        if out.shape[0] == 0:
            return
        if self.calls_python:
            play_trials(&self.t, k, &st, first, out.shape[0], &out[0, 0])
        else:
            with nogil:
                play_trials(&self.t, k, &st, first, out.shape[0], &out[0, 0])
