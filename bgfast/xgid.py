"""The old home of the XGID codec, kept as an alias: it lives in :mod:`bgfast.codecs.xgid`.

>>> from bgfast.xgid import parse_xgid
>>> parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10").max_cube
1024
"""
from bgfast.codecs.xgid import (
    STARTING_XGID,
    XgidRecord,
    board_to_xgid_field,
    format_xgid,
    parse_xgid,
    xgid_field_to_board,
)

__all__ = ["STARTING_XGID", "XgidRecord", "board_to_xgid_field", "format_xgid", "parse_xgid", "xgid_field_to_board"]
