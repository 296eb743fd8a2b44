# cython: language_level=3
"""C declarations of the game and match loop (see game.pyx)."""
from cpython.ref cimport PyObject
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint64_t
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.rng cimport Rng
from bgfast._core.evaluator cimport Evaluator
from bgfast._core.cube cimport MetTable

cdef enum:
    MAX_GAMES = 256           # a match to N points lasts at most 2N - 1 games
    MAX_DOUBLES = 16
    MAX_SCRIPT = 1024         # scripted dice (tests, stratified rollouts)
    SUMMARY_FIELDS = 10       # a match's summary: scores, winner, games, gammons, backgammons, doubles, plies
    JUDGED_FIELDS = 10        # a match's judged figures: luck, checker and cube errors and decisions, each side

# How a player chooses its checker plays.
cpdef enum PlayKind:
    PLAY_RANDOM = 0
    PLAY_PUBEVAL = 1
    PLAY_EVALUATOR = 2        # the best play of the player's own evaluator (the heuristic bot)
    PLAY_PYTHON = 3
    PLAY_HOOK = 4             # a C function's play (Player.hook; the training loops' self-play)

# How a player handles the cube.
cpdef enum CubeKind:
    CUBE_NEVER = 0            # never doubles, always takes
    CUBE_KEITH = 1            # Keith count in races; no double and always take in contact
    CUBE_JANOWSKI = 2         # money: cubeful equity from the evaluator's win/gammon estimates
    CUBE_MET = 3              # match play through the match equity table (Janowski in money play)
    CUBE_PYTHON = 4
    CUBE_NEVER_MET = 5        # never doubles, always takes; match play: plays by the table with the cube
                              # dead where it stands (a rollout's cubeless game); money: as CUBE_NEVER

# How a game ended.
cpdef enum GameKind:
    KIND_SINGLE = 0
    KIND_GAMMON = 1
    KIND_BACKGAMMON = 2
    KIND_PASS = 3

# The actions of a match record (see TurnRecord).
cpdef enum TurnAction:
    ACTION_MOVE = 0           # a roll and its play (maybe no step: a dance, a blocked roll)
    ACTION_DOUBLE = 1
    ACTION_TAKE = 2
    ACTION_PASS = 3
    ACTION_BEAVER = 4

# A player plugged in from C (PLAY_HOOK): asked on every roll, a forced one included,
# with the roll's plays in ``g`` generated from ``b`` (the player on roll as side 1);
# returns the index in ``g.items`` of its play.  ``ctx`` is the player's ``hook_ctx``.
ctypedef int (*PlayHook)(void* ctx, const MoveGen* g, const Board* b) except -1 nogil

ctypedef struct Player:
    int play
    int cube
    double cube_efficiency    # Janowski's x (0 = dead cube, 1 = fully live)
    Evaluator evaluator       # what its cube decisions and its luck are measured with
    Rng rng                   # the player's own stream for random choices
    uint64_t stream           # moves that stream to another lane: its bot's seed (0: the seat's lane)
    PyObject* py              # Python adapter for PLAY_PYTHON / CUBE_PYTHON, else NULL
    PlayHook hook             # PLAY_HOOK: the function that plays, and its context
    void* hook_ctx

ctypedef struct Rules:
    int length                # 0 = money game
    int crawford
    int jacoby
    int beaver
    int max_cube
    int dead_cube_allowed     # 1: a dead cube may be doubled (match play; Rules.dead_cube "allow")
    int checkers              # checkers a side (15; 3 in hypergammon)
    Board start               # the starting position (same for both sides)

# The match state one decision is made in.
ctypedef struct Scene:
    int player                # who decides (0 or 1)
    int score[2]
    int cube
    int owner                 # -1 centred, else the owning player
    int crawford              # this is the Crawford game

# One action of a recorded match, with the board before it from the actor's view
# (side 1 = ``player``; for an answer to a double, the taker's view).
ctypedef struct TurnRecord:
    Board before
    Board after               # ACTION_MOVE: the board after the play, the mover's view
    int32_t cube              # move: the cube in play; double/pass: the value offered;
                              # take/beaver: the value after the answer
    int16_t game              # index of the game in the match, from 0
    int8_t player
    int8_t action
    uint8_t d1, d2            # ACTION_MOVE: the roll (d1 >= d2)
    uint8_t nsteps
    uint8_t hit               # bit k set: step k hit a blot
    uint8_t src[4]            # the steps, notation points: from 1..25 (25 = bar)
    uint8_t dst[4]            # to 0..24 (0 = off)

# What the judge measured in one game, per player (see game.pyx's judge): the luck of its
# rolls (and half the opening roll's) and the error of its decisions, money play in points
# (cubeless equity times the cube), match play in match winning chance; decisions forced
# or not close not counted, cube decisions only of a player that may double.
ctypedef struct Judged:
    double luck[2]
    double checker_error[2]
    int checker_decisions[2]
    double cube_error[2]
    int cube_decisions[2]

ctypedef struct GameLog:
    int crawford
    int cube
    int ndoubles
    int8_t double_by[MAX_DOUBLES]
    int8_t double_response[MAX_DOUBLES]
    int points
    int winner
    int kind
    int score_after[2]
    int plies
    float luck[2][5]          # variance reduction: each player's summed luck, own view (see game.pyx)
    float cube_luck[2][5]     # the same with each ply's luck times the cube value it was rolled at
    Judged judged             # the judge's figures (zero without a judge)
    int truncated             # 1: stopped after max_plies; ``final`` holds the position
    int final_turn            # the player on roll (side 1) in ``final``
    Board final

ctypedef struct MatchLog:
    int ngames
    int score[2]
    int winner
    GameLog games[MAX_GAMES]

# Where a game starts when it does not start with the opening roll (rollouts).
ctypedef struct GameStart:
    Board board               # side 1 = ``turn``, on roll
    int turn
    int cube
    int owner                 # -1 centred, else the owning player
    int d1, d2                # dice to play first without a cube action (0, 0 = roll as usual)
    int no_double             # 1: with no dice given, the side on roll rolls without a cube action
                              # (a cube rollout's no-double line); game_start sets 0
    int max_plies             # stop after this many plies (0 = play to the end)

# A growing array of turns: the record of a match, kept when asked.
ctypedef struct TurnLog:
    TurnRecord* turns
    int n
    int cap

ctypedef struct MatchCtx:
    Rules rules
    Player players[2]
    Rng dice
    MoveGen* gen
    int score[2]
    const MetTable* met              # the match equity table of CUBE_MET players, or NULL
    int luck                         # 1: measure each rolled ply's luck (variance reduction)
    int luck_filter                  # plays of a roll the luck measure values (0 = all; evaluator.pyx)
    int record                       # 1: keep the record of each turn in ``log``
    int judging                      # 1: the judge measures luck and errors (MatchRunner.set_judge)
    Evaluator judge                  # the judge's evaluator
    double judge_x                   # the judge's cube efficiency (Janowski's x)
    const MetTable* judge_met        # the judge's table in match play
    MoveGen* judge_gen               # the judge's move generator (the players' stays as it is)
    int judge_filter                 # plays of each roll the judge's luck measure values (0 = all)
    float* judge_every               # the judge's 0-ply values of each play of the roll rolled
    int judge_valued                 # 1: judge_every holds this turn's plays (its 0-ply luck measure)
    TurnLog log
    int game                         # the index of the game being played
    int script[MAX_SCRIPT]           # dice rolled before the stream is used
    int script_len
    int script_pos
    int late                         # 1: gnubg's late evaluation: from ply ``late_after`` of each game on
    int late_after                   # (plies played, the first 0) the players use ``late_ev``
    Evaluator early_ev[2]            # the players' own evaluators, put back at the start of each game
    Evaluator late_ev[2]

cdef int next_die(MatchCtx* m) noexcept nogil
# Seed the dice (lane 0) and both players' streams (lane 1 + seat + 4 * the player's stream:
# lanes 1, 2 for bots without a seed) for match (or trial) ``index`` of the run whose key
# (``rng.run_key``) is ``key``.
cdef void seed_match(MatchCtx* m, const uint64_t* key, uint64_t index) noexcept nogil
cdef int play_game(MatchCtx* m, int crawford, const GameStart* start, GameLog* log) except -1 nogil
cdef int play_match(MatchCtx* m, MatchLog* out, const GameStart* first) except -1 nogil
# Fill ``st`` from a 50-byte board (``turn`` on roll as side 1) and the game's state; ValueError
# for a board of another length or a turn other than 0 or 1.
cdef int game_start(GameStart* st, const unsigned char[::1] board, int turn, int cube, int owner,
                    int d1, int d2, int max_plies) except -1
# Play one game from ``start`` at the score (score0, score1) into ``log.games[0]`` (its one game).
cdef int play_position(MatchCtx* m, MatchLog* log, const GameStart* start, int score0, int score1,
                       int crawford) except -1 nogil


# The Python face: two players under fixed rules (see game.pyx); C code plugs a PLAY_HOOK
# player into a seat with ``plug`` (the training loops) and plays games with ``play_game``
# or ``play_position`` (a rollout's trials).
cdef class MatchRunner:
    cdef MatchCtx* m
    cdef MatchLog* log
    cdef list _keep           # the objects the players and the table point into
    cdef public int checkers
    cdef void _seed(self, seed, unsigned long long index)
    cdef void plug(self, int player, PlayHook hook, void* ctx) noexcept
