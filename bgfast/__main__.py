"""``python -m bgfast``: the same as the ``bgfast`` command."""
import sys

from bgfast.cli import main

sys.exit(main())
