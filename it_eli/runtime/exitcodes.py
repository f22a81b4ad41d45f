"""Exit codes of every `it-eli` command: each means one thing, whatever the command.

A pipeline must tell "the text cites something that does not exist" from "the tool broke" and
from "nothing could be checked": a crash that exits like a verdict is a gate that lies.

  0  OK: done; for `verify`, VERIFIED or VERIFIED_WITH_GAPS
  1  HALLUCINATION: a cited article, comma, lettera or decision does not exist (only verdicts)
  2  BAD_INPUT: usage error, bad argument, unreadable or refused input, or what was asked for
     does not exist (`not_found`)
  3  NOT_A_PASS: checked, but nothing to rely on: NEEDS_REVIEW, NOTHING_VERIFIED,
     NO_CITATIONS_FOUND
  4  UNAVAILABLE: could not be done now: an upstream failed or changed, the index is missing or
     from another schema, the build published nothing; retrying later may work
  5  INTERNAL_ERROR: a bug (the traceback goes to stderr); please report it
130  interrupted (Ctrl-C)
"""

from __future__ import annotations

OK, HALLUCINATION, BAD_INPUT, NOT_A_PASS, UNAVAILABLE, INTERNAL_ERROR, INTERRUPTED = 0, 1, 2, 3, 4, 5, 130

_BY_ERROR_CODE = {
    "invalid_arg": BAD_INPUT,
    "query_error": BAD_INPUT,
    "input_too_large": BAD_INPUT,
    "not_found": BAD_INPUT,
    "identity_mismatch": BAD_INPUT,
    "ingest_error": BAD_INPUT,
    "archive_invalid": BAD_INPUT,
    "upstream_unavailable": UNAVAILABLE,
    "upstream_changed": UNAVAILABLE,
    "index_missing": UNAVAILABLE,
    "index_schema_mismatch": UNAVAILABLE,
    "not_available": UNAVAILABLE,
    "index_corrupt": UNAVAILABLE,
    "deadline_exceeded": UNAVAILABLE,
    "busy": UNAVAILABLE,
    "internal_error": INTERNAL_ERROR,
}


def for_error(code: str) -> int:
    """The exit code of a typed error (`ItEliError.code` / a tool's error body `code`)."""
    return _BY_ERROR_CODE.get(code, INTERNAL_ERROR)


def for_status(status: str) -> int:
    """The exit code of a verification verdict."""
    if status == "HALLUCINATION_DETECTED":
        return HALLUCINATION
    if status in ("VERIFIED", "VERIFIED_WITH_GAPS"):
        return OK
    return NOT_A_PASS  # NEEDS_REVIEW, NOTHING_VERIFIED, NO_CITATIONS_FOUND: never a pass
