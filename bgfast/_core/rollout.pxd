# cython: language_level=3
"""C declarations of the rollout's trials (see rollout.pyx)."""
from cpython.ref cimport PyObject
from libc.stdint cimport uint64_t
from bgfast._core.cube cimport MetTable
from bgfast._core.evaluator cimport Evaluator
from bgfast._core.game cimport MatchCtx, MatchLog, GameStart

cdef enum:
    TRIAL_VALUES = 6          # a trial's numbers: the five cumulative outcome chances, the cubeful value
    STRATA_ROLLS = 36         # the rolls a stratified first (or second) roll rotates through

# Everything a trial is played and valued by, but its line (the GameStart) and its index.
# Perspective: every number is from the view of ``root``, the side on roll at the root.
ctypedef struct TrialSpec:
    MatchCtx* cubeless        # the bot on both sides, never doubling
    MatchLog* cubeless_log
    MatchCtx* cubeful         # the bot with its cube, or NULL: the cubeless game is valued cubeful
    MatchLog* cubeful_log
    int root
    int score[2]              # the match score (players 0 and 1) the games are played at
    int crawford              # the games are the Crawford game
    int cube                  # the cube at the root (its value; the cubeful value is per this cube)
    int owner                 # -1 centred, else the player who owns it
    int length                # 0 = money
    int jacoby                # money: the Jacoby rule
    int away[2]               # match play: the points root and its opponent need
    const MetTable* met       # match play: the table the cubeful value is read from
    double cube_efficiency    # Janowski's x of a truncated money trial's cubeful value
    int max_cube              # the highest cube: one that cannot be turned again is dead
    int stratified            # first rolls scripted: 0, 1 (the first) or 2 (the first two)
    int rolls[STRATA_ROLLS][2]  # the rolls they rotate through, in order
    int luck                  # 1: subtract the trial's luck (the runners measure it)
    int cubeful_value         # 1: the sixth number is the cubeful value, else 0
    double luck_scale[5]      # the cube-weighted luck vector's weights in the cubeful value's scale
    Evaluator evaluator       # a truncated trial's evaluator (kind -1: ``evaluate`` instead)
    int evaluator_plies       # its plies (0 or 1; the net's 0 to 3)
    PyObject* evaluate        # Python: a 50-byte board (side 1 on roll) -> its five chances, or NULL

# Play trials ``first .. first + n - 1`` of the run whose key is ``key`` (bgfast._core.rng.run_key)
# from ``start`` and write their numbers to ``out`` (n rows of TRIAL_VALUES).  Checks for signals
# (Ctrl-C) before each trial.
cdef int play_trials(const TrialSpec* t, const uint64_t* key, const GameStart* start, uint64_t first,
                     Py_ssize_t n, double* out) except -1 nogil
