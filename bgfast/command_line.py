"""The argument parser of every bgfast command line (``bgfast``, ``bgfast train``,
``python -m bgfast.engines.ubgi_server``): one home for how they treat bad arguments.

* An error is one line, ``bgfast: error: MESSAGE (see 'PROG --help')``, and exit status 2,
  like every other bgfast error (argparse prints the whole usage text first).
* Options are never abbreviated (``allow_abbrev=False``): ``--cube`` is not taken for
  ``--cubeful``, so a mistyped option, or one a later version adds, is an error instead of
  another option silently.
"""
from __future__ import annotations

import argparse
from typing import Any, NoReturn

__all__ = ["EXIT_USAGE", "Parser"]

EXIT_USAGE = 2
"""The exit status of bad input, as argparse uses it."""


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose errors are one line and which takes no
    abbreviated option; its sub-parsers (``add_subparsers``) are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"bgfast: error: {message} (see '{self.prog} --help')\n")
