# cython: language_level=3
"""The best ``k`` of a stream of scored items, best first: a move filter's bookkeeping.

Header only (inline), for the move filters of the evaluators (the heuristic's pubeval
filter, the net's 1-ply candidates).
"""


cdef inline int topk_insert(float* keys, int* items, int kept, int most, float key, int item) noexcept nogil:
    """Insert ``item`` scored ``key`` among the ``kept`` best so far (``keys`` descending, at
    most ``most``); an item that ties one already kept goes after it.  Returns the new count."""
    cdef int j
    if kept < most:
        j = kept
        kept += 1
    elif key > keys[kept - 1]:
        j = kept - 1
    else:
        return kept
    while j > 0 and keys[j - 1] < key:
        keys[j] = keys[j - 1]
        items[j] = items[j - 1]
        j -= 1
    keys[j] = key
    items[j] = item
    return kept
