# cython: language_level=3
"""C declarations of the neural net's self-play training (see training.pyx)."""
from bgfast._core.neural cimport Model

# The Python face: a model's games against itself (or another built-in player) on the game
# loop, from one starting position (a variant's), and the training data they make.
cdef class SelfPlay:
    cdef readonly Model model
    cdef readonly tuple start
    cdef object evaluator     # the model at 0 ply as the game loop's evaluator (a CoreEvaluator)
