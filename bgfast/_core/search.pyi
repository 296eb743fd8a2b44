# Type stub for bgfast._core.search (search.pyx): the neural net's n-ply search.
from collections.abc import Mapping, Sequence

_Level = tuple[int, float] | None
_Filters = tuple[tuple[_Level, ...], ...]

MAX_PLIES: int
MAX_KEEP: int
DEFAULT_FILTERS: _Filters
GREEDY_FILTERS: _Filters
REPLIES: tuple[str, ...]
DEFAULT_REPLIES: str
DEFAULT_CACHE_SIZE: int

def check_filters(
    filters: Sequence[Sequence[tuple[int, float] | None]] | Mapping[int, Sequence[tuple[int, float] | None]] | None,
) -> _Filters: ...
def check_replies(replies: str | None) -> str: ...
