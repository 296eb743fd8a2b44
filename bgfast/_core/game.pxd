# cython: language_level=3
"""C declarations of the game and match loop (see game.pyx)."""
from cpython.ref cimport PyObject
from libc.stdint cimport int8_t, uint64_t
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.rng cimport Rng

cdef enum:
    MAX_GAMES = 256           # a match to N points lasts at most 2N - 1 games
    MAX_DOUBLES = 16
    MET_SIZE = 64
    MAX_SCRIPT = 1024         # scripted dice (tests, stratified rollouts)

cdef enum PlayKind:
    PLAY_RANDOM = 0
    PLAY_PUBEVAL = 1
    PLAY_HEURISTIC = 2
    PLAY_PYTHON = 3

cdef enum CubeKind:
    CUBE_NEVER = 0            # never doubles, always takes
    CUBE_KEITH = 1            # Keith count in races; no double and always take in contact
    CUBE_JANOWSKI = 2         # money: cubeful equity from win/gammon estimates
    CUBE_MET = 3              # match play through the match equity table
    CUBE_PYTHON = 4

cdef enum CubeResponse:
    RESPONSE_PASS = 0
    RESPONSE_TAKE = 1
    RESPONSE_BEAVER = 2

cdef enum GameKind:
    KIND_SINGLE = 0
    KIND_GAMMON = 1
    KIND_BACKGAMMON = 2
    KIND_PASS = 3

ctypedef struct Player:
    int play
    int cube
    double cube_efficiency    # Janowski's x (0 = dead cube, 1 = fully live)
    Rng rng                   # the player's own stream for random choices
    PyObject* py              # Python adapter for PLAY_PYTHON / CUBE_PYTHON, else NULL

ctypedef struct Rules:
    int length                # 0 = money game
    int crawford
    int jacoby
    int beaver
    int max_cube
    int checkers              # checkers a side (15; 3 in hypergammon)
    Board start               # the starting position (same for both sides)

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
    int max_plies             # stop after this many plies (0 = play to the end)

ctypedef struct MatchCtx:
    Rules rules
    Player players[2]
    Rng dice
    MoveGen* gen
    int score[2]
    double met[MET_SIZE][MET_SIZE]   # met[a][b]: P(win match) at a-away, b-away (pre-Crawford)
    double met_post[MET_SIZE]        # post-Crawford: trailer a-away vs leader 1-away
    int luck                         # 1: measure each rolled ply's luck (variance reduction)
    int script[MAX_SCRIPT]           # dice rolled before the stream is used
    int script_len
    int script_pos

cdef int next_die(MatchCtx* m) noexcept nogil
cdef int play_game(MatchCtx* m, int crawford, const GameStart* start, GameLog* log) except -1 nogil
cdef int play_match(MatchCtx* m, MatchLog* out) except -1 nogil
