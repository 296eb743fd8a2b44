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


cdef inline bint _ahead(float key, float tie, float other_key, float other_tie) noexcept nogil:
    return key > other_key or (key == other_key and tie > other_tie)


cdef inline int topk_insert_tied(float* keys, float* ties, int* items, int kept, int most, float key, float tie,
                                 int item) noexcept nogil:
    """As :func:`topk_insert`, items of equal ``key`` ordered by ``tie`` (descending, kept in
    ``ties`` beside ``keys``); an item that ties one already kept in both goes after it."""
    cdef int j
    if kept < most:
        j = kept
        kept += 1
    elif _ahead(key, tie, keys[kept - 1], ties[kept - 1]):
        j = kept - 1
    else:
        return kept
    while j > 0 and _ahead(key, tie, keys[j - 1], ties[j - 1]):
        keys[j] = keys[j - 1]
        ties[j] = ties[j - 1]
        items[j] = items[j - 1]
        j -= 1
    keys[j] = key
    ties[j] = tie
    items[j] = item
    return kept
