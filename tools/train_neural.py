"""Train bgfast's neural net: ``python tools/train_neural.py td RUN_DIR [--games N ...]``.

See :mod:`bgfast.train.cli` for the commands.
"""
import sys

from bgfast.train.cli import main

if __name__ == "__main__":
    sys.exit(main())
