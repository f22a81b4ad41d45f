"""Paging of long texts for the MCP answers: the adapters own the answer budget.

The services hand over whole texts; the tools check the caller's `max_chars` and `offset` here
and cut a page whose JSON encoding fits the answer budget (it_eli.budget), so no domain function
ever takes a page size or a position in an answer.
"""

from __future__ import annotations

from ..budget import fit_end
from ..config import Settings
from ..errors import InvalidArg

MAX_OFFSET = 50_000_000  # past any decision's length: a larger offset is a caller's mistake


def _check_int(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidArg(f"{name}={value!r} is out of range", valid=f"an integer from {lo} to {hi}")
    return value


def answer_budget(settings: Settings) -> int:
    """Characters one answer's own content may take (it_eli.budget: the envelope is extra)."""
    return max(1000, settings.max_answer_chars)


def page_size(settings: Settings, max_chars: int | None) -> int:
    """The caller's `max_chars`, from 100 up to the answer budget; the whole budget when not given."""
    cap = answer_budget(settings)
    return cap if max_chars is None else _check_int("max_chars", max_chars, 100, cap)


def check_offset(offset: object) -> int:
    """Where a page starts; checked before any request, whatever the text's length turns out to be."""
    return _check_int("offset", offset, 0, MAX_OFFSET)


def page(text: str, offset: int, max_chars: int, budget: int | None = None) -> tuple[str, int | None]:
    """At most `max_chars` characters, and at most `budget` once JSON-encoded (it_eli.budget)."""
    if offset > len(text):
        raise InvalidArg(f"offset {offset} is past the end of the text", valid=f"0..{len(text)}")
    end = min(len(text), offset + max_chars)
    if budget is not None:
        end = min(end, fit_end(text, offset, budget))
    return text[offset:end], (end if end < len(text) else None)
