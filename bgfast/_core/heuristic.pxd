# cython: language_level=3
"""C declarations of the heuristic evaluator (see heuristic.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen


cdef enum:
    H_SIDE = 70               # features of one side (see _side_features)
    H_GLOBAL = 15             # features of the whole board
    H_NFEAT = 2 * H_SIDE + H_GLOBAL
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

# Probabilities of side 1 (the side that has just moved); side 0 is on roll.
cdef int heuristic_features(const Board* b, float* f) noexcept nogil
cdef void heuristic_probs(const WeightTable* w, const Board* b, float* p) noexcept nogil
cdef float heuristic_equity(const WeightTable* w, const Board* b) noexcept nogil
cdef int heuristic_choose(const HeuristicSettings* s, const MoveGen* g, const Board* parent) noexcept nogil
