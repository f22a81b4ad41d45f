"""Paging shared by the MCP tools: the domain hands over whole answers and windows of hits, the
tools cut them to the answer budget and say where the next page starts (`next_offset`)."""

from __future__ import annotations

from ..budget import fit_end
from ..errors import InvalidArg
from ..query import HitWindow


def next_hit_offset(window: HitWindow, total: int) -> int | None:
    """Where the window after `window` starts, or None when `window` reaches the last of `total` hits."""
    end = window.start + window.size
    return end if end < total else None


def page_size(app, max_chars: int | None) -> int:
    """The characters a page may hold: `max_chars` (1 to the answer budget), or the whole budget."""
    budget = app.settings.max_answer_chars
    if max_chars is None:
        return budget
    if not (1 <= max_chars <= budget):
        raise InvalidArg(f"max_chars={max_chars}", valid=f"an integer from 1 to {budget}")
    return max_chars


def page_end(text: str, start: int, max_chars: int, max_cost: int) -> int:
    """Where the page of `text` from `start` ends: at most `max_chars` characters that cost at most
    `max_cost` once JSON-encoded (quotes and newlines count double: it_eli.budget)."""
    n = len(text)
    return min(n, start + max_chars, fit_end(text, start, max_cost)) if start < n else n


def page_text(text: str, offset: int, size: int) -> tuple[str, int | None]:
    """A page of at most `size` characters whose JSON encoding also fits `size`, and the next offset."""
    if offset < 0 or offset > len(text):
        raise InvalidArg(f"offset={offset}", valid=f"an offset from 0 to {len(text)} (use next_offset)")
    end = page_end(text, offset, size, size)
    return text[offset:end], (end if end < len(text) else None)
