"""The command line's standard streams: stdin read within a bound, stdout when the reader goes away
(`it-eli ... | head`)."""

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


def read_stdin_bounded(limit: int, what: str) -> str:
    """All of standard input as UTF-8 text, refused (input_too_large) past `limit` bytes rather
    than read into memory without end."""
    from it_eli.runtime.errors import InvalidArg
    from it_eli.services.verification.reading import InputTooLarge

    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise InputTooLarge(f"more than {limit:,} bytes of {what} on standard input", valid=f"at most {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidArg(f"{what} on standard input: not UTF-8 (byte {exc.start})", valid="UTF-8 text") from None
