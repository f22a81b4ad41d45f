"""`it-eli verify FILE|-`: the citation gate for pipelines.

Exit codes (why a distinct code for "nothing checked": a gate that passes when it could not
look is worse than none):
  0  VERIFIED, or VERIFIED_WITH_GAPS with at least one citation actually checked
  1  HALLUCINATION_DETECTED: a cited article, comma or decision does not exist
  2  usage error: unreadable file, not UTF-8, more than 1,000,000 characters, bad --at-date
  3  nothing was checked: NO_CITATIONS_FOUND, or every citation is a gap
"""

from __future__ import annotations

import asyncio
import sys

import msgspec

from .errors import ItEliError

EXIT_OK, EXIT_HALLUCINATION, EXIT_USAGE, EXIT_UNCHECKED = 0, 1, 2, 3

_MARK = {
    "verified": "OK  ", "not_found": "FAIL", "repealed": "WARN", "content_mismatch": "WARN",
}


def _read(path: str) -> str:
    from .verify import MAX_INPUT_CHARS

    if path == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_CHARS * 4 + 1)
    else:
        with open(path, "rb") as fh:
            data = fh.read(MAX_INPUT_CHARS * 4 + 1)
    return data.decode("utf-8")


def exit_code(result) -> int:
    if result.status == "HALLUCINATION_DETECTED":
        return EXIT_HALLUCINATION
    if result.status == "NO_CITATIONS_FOUND" or result.summary.checked == 0:
        return EXIT_UNCHECKED
    return EXIT_OK


def render_text(result) -> str:
    s = result.summary
    lines = [
        f"{result.status}: {s.citations} citations, {s.checked} checked — {s.verified} verified, {s.not_found} not found, "
        f"{s.repealed} repealed, {s.content_mismatch} to review, {s.gaps} gaps"
        + (f" (offline)" if result.offline else "") + (f" (law in force on {result.at_date})" if result.at_date else ""),
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
    from .app import App
    from .verify import verify_text

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
        return EXIT_USAGE
    if getattr(args, "format", "text") == "json":
        print(msgspec.json.format(msgspec.json.encode(result)).decode())
    else:
        print(render_text(result))
    return exit_code(result)
