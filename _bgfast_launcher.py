"""The ``bgfast`` command's entry point.

It lives outside the package so that it runs before bgfast (and numpy with it) is
imported: a Ctrl-C while they load, in the command's first tenths of a second, then
ends the command as a later one does (``bgfast: interrupted``, status 130), not with
a traceback.  Everything else is :func:`bgfast.cli.main`.
"""
import sys


def main() -> int:
    """Import the command line and run it; 130 on a Ctrl-C at any point."""
    try:
        from bgfast.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        print("bgfast: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
