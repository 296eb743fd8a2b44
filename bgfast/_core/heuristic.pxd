# cython: language_level=3
"""C declarations of the heuristic evaluator (see heuristic.pyx)."""
from libc.stdint cimport uint32_t
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen


cdef enum:
    H_SIDE = 70               # features of one side (see _side_features)
    H_GLOBAL = 15             # features of the whole board
    H_NFEAT = 2 * H_SIDE + H_GLOBAL
    H_DENSE = 22              # dense features at the start of each side's block; the rest are 0/1
    H_NDENSE = 2 * H_DENSE + H_GLOBAL - 1   # all dense features but the constant (heuristic_dense)
    H_NCLASS = 4              # 0 contact, 1 race, 2 contact with side 1 home free, 3 side 0 home free
    H_ZPAD = 8                # the NOUT outputs of a weight row, padded to 8 floats
    H_FILTER_MAX = 64         # the most plays the move filter keeps
    H_FILTER_ALL = 4096       # a "filter" that keeps every play (no filter)

# One set of weights, transposed for the evaluation: w[class][feature][output].
ctypedef struct WeightTable:
    float w[H_NCLASS][H_NFEAT][H_ZPAD]

# A set of weights owned by a Python object (heuristic.pyx), so that evaluators can point to it.
cdef class HeuristicWeights:
    cdef WeightTable* table

# How a heuristic evaluator plays: its weights, and its move filter.
ctypedef struct HeuristicSettings:
    const WeightTable* weights
    int filter                # plays fully evaluated: pubeval's best ``filter`` (H_FILTER_ALL = all)
    float blend               # weight of pubeval's score beside the equity among the kept plays

# What the features of one side read off the board (heuristic.pyx, _side_masks and _side_own).
ctypedef struct SideInfo:
    uint32_t made             # own coordinates: bit i = point i+1 held with 2+ checkers
    uint32_t blots            # own coordinates: single checkers
    uint32_t occ              # own coordinates: occupied points, bit 24 = the bar
    uint32_t rmade            # made points in the opponent's coordinates
    uint32_t rblots           # blots in the opponent's coordinates
    int pips
    int keith
    int home                  # home-board points made
    int rear                  # index of the rearmost checker (-1 if none)
    int prime                 # the longest run of made points
    int prime_lo              # index of its lowest point (when prime >= 3)

# The children of one roll share the side on roll's checkers unless the play hits:
# that side's features that do not depend on the mover's checkers, computed once.
ctypedef struct DenseRoll:
    SideInfo s0
    float own0[H_DENSE]
    int bar0                  # checkers of side 0 on its bar: more in a child = a hit

# Probabilities of side 1 (the side that has just moved); side 0 is on roll.
cdef int heuristic_features(const Board* b, float* f) noexcept nogil
# The dense features of ``b`` alone (H_NDENSE floats): side 1's H_DENSE, side 0's, then the
# global features after the constant; the same values as heuristic_features gives them.
cdef void heuristic_dense(const Board* b, float* v) noexcept nogil
# heuristic_dense of the children of one roll: once for the parent, then per child.
cdef void heuristic_dense_roll(const Board* parent, DenseRoll* r) noexcept nogil
cdef void heuristic_dense_child(const DenseRoll* r, const Board* child, float* v) noexcept nogil
cdef void heuristic_probs(const WeightTable* w, const Board* b, float* p) noexcept nogil
cdef float heuristic_equity(const WeightTable* w, const Board* b) noexcept nogil
cdef int heuristic_choose(const HeuristicSettings* s, const MoveGen* g, const Board* parent) noexcept nogil
