"""The command line's standard streams when the reader goes away (`it-eli ... | head`)."""

from __future__ import annotations

import os
import sys


def stdout_to_devnull() -> None:
    """After a BrokenPipeError on stdout: Python flushes stdout again at exit, so point it at
    /dev/null, or that flush fails with a second traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
