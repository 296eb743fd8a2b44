# cython: language_level=3
"""C declarations of the neural-net evaluator (see neural.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen
from bgfast._core.rng cimport Rng
from bgfast._core.heuristic cimport DenseRoll
from bgfast._core.probs cimport PlayValue

cdef enum:
    NN_OUT = 5                # win, win gammon, win backgammon, lose gammon, lose backgammon
    NN_RAW_SIDE = 100         # 25 places (points 1..24, bar) x 4 units of the count code
    NN_RAW = 200              # the side on roll's block, then the other side's
    NN_HAND = 58              # the heuristic's dense features (heuristic.pyx)
    NN_IN = 258
    NN_RACE_IN = 71           # the race net's own inputs, after the NN_IN shared ones (neural.pyx)
    NN_RACE_IN_HOME = 36      # the first of them, those a file of rounds 12 to 18 has rows for
    NN_ROWS = 329             # NN_IN + NN_RACE_IN: the first-layer rows every net is allocated
    NN_MAX_HIDDEN = 512
    NN_NETS = 4
    NN_MAX_CANDIDATES = 64    # the most plays neural_candidates keeps
    NN_PRUNE_MAX_HIDDEN = 64  # the largest pruning net
    NN_PRUNE_BASE = 5         # a pruned roll keeps NN_PRUNE_BASE + floor(log2(plays)) plays
    NET_CONTACT = 0
    NET_RACE = 1
    NET_BACKGAME = 2          # back games and prime-versus-prime positions
    NET_CRASHED = 3           # crashed positions (gnubg's rule, bgfast.position_class)
    # classes of a position after a play (side 0 on roll); a class below NN_NETS is valued
    # by the net of the same index
    CLASS_CONTACT = 0
    CLASS_RACE = 1
    CLASS_BACKGAME = 2        # bgfast.position_class's back_game or prime_vs_prime
    CLASS_CRASHED = 3         # bgfast.position_class's crashed
    CLASS_BEAROFF = 4         # both sides wholly home: the one-sided database
    CLASS_DECIDED = 5         # the game is over, or the side on roll surely bears off this roll

ctypedef struct NetPart:
    int hidden                # hidden units, a multiple of 8
    float* w1                 # NN_ROWS x hidden: input i's column at w1 + i * hidden (the
                              # contact, backgame and crashed nets read the first NN_IN)
    float* b1                 # hidden
    float* w2                 # NN_OUT x hidden
    float b2[8]

# A pruning net of the search (neural_roll_best): the NN_RAW point codes alone, ``hidden``
# sigmoid units, one linear output, the cubeless equity of the side on roll.
ctypedef struct PruneNet:
    int hidden                # a multiple of 8
    float* w1                 # NN_RAW x hidden, input i's column at w1 + i * hidden
    float* b1                 # hidden
    float* w2                 # hidden
    float b2

# The nets, and one pruning net for each, distilled from it (prune_hidden 0: none).
ctypedef struct Neural:
    NetPart part[NN_NETS]
    PruneNet prune[NN_NETS]
    int prune_hidden

# A parent position's first-layer sums, shared by the plays of all its rolls (the luck
# measure values plays of the 21 rolls of one position): each net's biases plus the
# columns of the parent's point codes and hand-made inputs, filled when first needed.
ctypedef struct NeuralParent:
    Board parent
    DenseRoll roll            # the hand-made inputs' per-parent part (heuristic_dense_roll)
    float hand[NN_HAND]
    bint have[NN_NETS]
    float acc[NN_NETS][NN_MAX_HIDDEN]

# What the children of the 21 rolls of one position share when the net values them as
# neural_children does, to the bit: the hand-made inputs' per-parent part and each net's
# biases plus the columns of the parent's point codes (neural_children adds the columns
# of a roll's first child's hand-made inputs to these), each filled when first needed.
ctypedef struct NeuralRolls:
    Board parent
    bint rolled
    DenseRoll roll
    bint have[NN_NETS]
    float raw[NN_NETS][NN_MAX_HIDDEN]
    bint have_prune[NN_NETS]
    float prune_raw[NN_NETS][NN_PRUNE_MAX_HIDDEN]   # each pruning net's biases plus the parent's codes

cdef int neural_class(const Board* a) noexcept nogil
# Probabilities of the side on roll (side 0) of ``a``, a position after side 1's play.
cdef void neural_eval_after(const Neural* nn, const Board* a, float* q) noexcept nogil
# Probabilities of the mover (side 1) for every child of ``g`` (generated from ``parent``):
# ``out[5 i .. 5 i + 4]``, the first layer computed from the inputs that differ from the parent's.
cdef void neural_children(const Neural* nn, const MoveGen* g, const Board* parent, float* out) noexcept nogil
# Start the shared part of valuing the children of ``parent``'s rolls (mover on roll as side 1).
cdef void neural_rolls_init(NeuralRolls* r, const Board* parent) noexcept nogil
# neural_children of ``g``, generated from ``r.parent``: the same values, to the bit.
cdef void neural_roll_children(const Neural* nn, NeuralRolls* r, const MoveGen* g, float* out) noexcept nogil
# neural_candidates of ``g``, generated from ``r.parent``: the same answer, to the bit;
# ``scratch`` is NN_OUT * g.n floats (or NULL: on the stack, or allocated for a large roll).
cdef int neural_roll_candidates(const Neural* nn, NeuralRolls* r, const MoveGen* g, int* top, int most,
                                float window, float* best, const PlayValue* value, float* scratch) noexcept nogil
# The child of ``g`` (generated from ``r.parent``) the net plays at 0 ply, its mover's
# probabilities in ``best`` (unless NULL); ``scratch`` as neural_roll_candidates'.  With
# ``prune`` and pruning nets, a roll of more than NN_PRUNE_BASE + floor(log2(g.n)) plays
# from a position with contact is first ranked by the pruning nets and only that many of
# their best are valued by the net (gnubg's pruning inside its look-ahead); otherwise (a
# race among them: the net is finer there than a pruning net) neural_roll_candidates' answer.
cdef int neural_roll_best(const Neural* nn, NeuralRolls* r, const MoveGen* g, bint prune, float* best,
                          float* scratch) noexcept nogil
# The children of ``g`` the net values best for the mover at 0 ply: their indices into
# ``top``, best first, at most ``most`` (up to NN_MAX_CANDIDATES) and within ``window``
# of the best; returns how many (0 only when ``g`` has no child).  Valued by ``value``
# (``window`` in its units), or by cubeless money equity when it is NULL.  When ``best``
# is not NULL, the mover's probabilities after the best child go there.
cdef int neural_candidates(const Neural* nn, const MoveGen* g, const Board* parent, int* top, int most,
                           float window, float* best, const PlayValue* value) noexcept nogil
# Start the sums of ``parent`` (the position the plays are made from, mover on roll as side 1).
cdef void neural_parent_init(NeuralParent* ps, const Board* parent) noexcept nogil
# Probabilities of the mover (side 1) after the children ``g.items[which[i]]``, i < n, of
# ``ps.parent``: ``out[5 i .. 5 i + 4]``, each from the parent's sums plus its own changes,
# so a child's value does not depend on which others are valued with it.
cdef void neural_children_of(const Neural* nn, NeuralParent* ps, const MoveGen* g, const int* which, int n,
                             float* out) noexcept nogil
# The child of ``g`` the net plays at 0 ply (the first of the best equity).
cdef int neural_choose(const Neural* nn, const MoveGen* g, const Board* parent) noexcept nogil
# One gradient step of ``nn.part[net]`` (NET_CONTACT, NET_RACE, NET_BACKGAME or NET_CRASHED) moving its value of ``a``
# (after side 1's play) towards ``target``, side 0's probabilities; ``tmp`` is NN_MAX_HIDDEN
# floats of scratch.  Returns the squared error of the win output before the step.
cdef float neural_train_step(Neural* nn, int net, const Board* a, const float* target, float lr,
                             float* tmp) noexcept nogil

# The Python face: a model owns its weights (``nn``) and a move generator of scratch
# space for its own calls, so the game loop's evaluator dispatch can point a player at
# ``&model.nn``.
cdef class Model:
    cdef Neural nn
    cdef MoveGen* g
    cdef readonly int contact_hidden
    cdef readonly int race_hidden
    cdef readonly int backgame_hidden
    cdef readonly int crashed_hidden
    cdef readonly int prune_hidden
