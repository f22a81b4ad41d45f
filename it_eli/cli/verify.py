"""`it-eli verify FILE|-`: the citation gate for pipelines.

Exit codes (it_eli/runtime/exitcodes.py; why a distinct code for "not a pass": a gate that passes when
it could not look, or when something needs a human, is worse than none):
  0  VERIFIED, or VERIFIED_WITH_GAPS: at least one citation confirmed, none missing, none to review
     (the gaps are listed with where to check them)
  1  HALLUCINATION_DETECTED: a cited article, comma, lettera or decision does not exist
  2  usage error: unreadable file, not UTF-8, more than 1,000,000 characters, bad --at-date
  3  not a pass, look by hand: NO_CITATIONS_FOUND, NOTHING_VERIFIED (every citation is a gap), or
     NEEDS_REVIEW (a repealed article, or a description that does not fit or could not be confirmed)
  4  could not be done now (an index or upstream unavailable)
  5  internal error (a bug), never a verdict

The output may be cut short by the reader (`it-eli verify big.txt | head`): that is not an error,
the command then exits quietly with its verdict's code.
"""

from __future__ import annotations

import asyncio
import sys

import msgspec

from it_eli.cli.streams import stdout_to_devnull
from it_eli.runtime import exitcodes
from it_eli.runtime.errors import ItEliError

EXIT_OK, EXIT_HALLUCINATION, EXIT_USAGE, EXIT_UNCHECKED = (
    exitcodes.OK, exitcodes.HALLUCINATION, exitcodes.BAD_INPUT, exitcodes.NOT_A_PASS)

_MARK = {
    "verified": "OK  ", "not_found": "FAIL", "repealed": "WARN", "declared_unconstitutional": "WARN", "content_mismatch": "WARN", "content_unconfirmed": "WARN",
}
_HEADLINE = {
    "VERIFIED": "every citation was found",
    "VERIFIED_WITH_GAPS": "the citations checked were found; the gaps below were NOT checked",
    "NEEDS_REVIEW": "NOT A PASS: nothing is missing, but some citations need a human look",
    "NOTHING_VERIFIED": "NOT A PASS: no citation could be checked",
    "HALLUCINATION_DETECTED": "a cited article, comma, lettera or decision does not exist",
    "NO_CITATIONS_FOUND": "NOT A PASS: no citation was recognised",
}


def _read(path: str) -> str:
    from it_eli.services.verification.reading import MAX_INPUT_CHARS

    if path == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_CHARS * 4 + 1)
    else:
        with open(path, "rb") as fh:
            data = fh.read(MAX_INPUT_CHARS * 4 + 1)
    return data.decode("utf-8")


def exit_code(result) -> int:
    return exitcodes.for_status(result.status)


def render_text(result) -> str:
    s = result.summary
    lines = [
        f"{result.status}: {_HEADLINE.get(result.status, '')}",
        f"  {s.citations} citations: {s.verified} verified"
        + (f", {s.partly_verified} found but comma/lettera not checked" if s.partly_verified else "")
        + f", {s.not_found} not found, {s.to_review} to review"
        + (f" ({s.repealed} repealed, {s.content_mismatch} description mismatch, {s.content_unconfirmed} description "
           "unconfirmed)" if s.to_review else "")
        + f", {s.gaps - s.partly_verified} not checked"
        + (" (offline)" if result.offline else "") + (f" (law in force on {result.at_date})" if result.at_date else ""),
    ]
    for c in result.citations:
        mark = _MARK.get(c.status, "GAP ")
        lines.append(f"{mark} {c.status:<20} {c.raw.strip()[:70]}")
        lines.append(f"       {c.detail}")
        if c.range_hint:
            lines.append(f"       hint: {c.range_hint}")
    if result.gaps:
        lines.append("gaps (not checked — verify by hand):")
        for g in result.gaps:
            lines.append(f"  - [{g.kind}] {g.citation.strip()[:70]}: {g.fallback}")
    lines.extend(f"note: {n}" for n in result.notes)
    return "\n".join(lines)


def run_verify(args, settings) -> int:
    """Called by `it-eli verify`; prints the result and returns the exit code."""
    from it_eli.services.app import App
    from it_eli.services.verification.verifier import verify_text

    try:
        text = _read(args.file)
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except UnicodeDecodeError:
        print(f"error: {args.file} is not UTF-8 text", file=sys.stderr)
        return EXIT_USAGE

    async def run():
        app = App(settings)
        try:
            return await verify_text(app, text, at_date=getattr(args, "at_date", None),
                                     offline=bool(getattr(args, "offline", False)))
        finally:
            await app.close()

    try:
        result = asyncio.run(run())
    except ItEliError as exc:
        print(f"error ({exc.code}): {exc.message}" + (f" — valid: {exc.valid}" if exc.valid else ""), file=sys.stderr)
        return exitcodes.for_error(exc.code)
    if getattr(args, "format", "text") == "json":
        out = msgspec.json.format(msgspec.json.encode(result)).decode()
    else:
        out = render_text(result)
    _write(out + "\n")
    return exit_code(result)


def _write(out: str) -> None:
    """Print the report; a reader that stops early (`| head`) is not an error: no traceback."""
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_to_devnull()
