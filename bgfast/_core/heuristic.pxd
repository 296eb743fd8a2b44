# cython: language_level=3
"""C declarations of the heuristic evaluator (see heuristic.pyx)."""
from bgfast._core.board cimport Board
from bgfast._core.movegen cimport MoveGen

cdef enum:
    H_SIDE = 70               # features of one side (see _side_features)
    H_GLOBAL = 15             # features of the whole board
    H_NFEAT = 2 * H_SIDE + H_GLOBAL
    H_NCLASS = 4              # 0 contact, 1 race, 2 contact with side 1 home free, 3 side 0 home free
    H_NOUT = 5                # win, win gammon, win backgammon, lose gammon, lose backgammon

# Probabilities of side 1 (the side that has just moved); side 0 is on roll.
cdef int heuristic_features(const Board* b, float* f) noexcept nogil
cdef void heuristic_probs(const Board* b, float* p) noexcept nogil
cdef float probs_equity(const float* p) noexcept nogil
cdef float heuristic_equity(const Board* b) noexcept nogil
cdef int heuristic_choose(const MoveGen* g, const Board* parent) noexcept nogil
# Probabilities of side 1 of ``b`` *on roll*: 0 plies = the opponent's view of the
# position flipped, 1 ply = the average over the 21 rolls of the best play.
cdef void heuristic_preroll(MoveGen* g, const Board* b, int plies, float* p) noexcept nogil
