"""Paging shared by the MCP tools: the adapters own the answer budget.

The domain hands over whole texts and windows of hits; the tools check the caller's `max_chars`
and `offset` here, cut a page whose JSON encoding fits the answer budget (it_eli.mcp.budget) and say
where the next page starts (`next_offset`), so no domain function takes a page size or a
position in an answer.
"""

from __future__ import annotations

import msgspec

from it_eli.mcp.budget import fit_end
from it_eli.runtime.config import Settings
from it_eli.runtime.errors import InvalidArg, checked_int
from it_eli.search.query import HitWindow

MAX_OFFSET = 50_000_000  # past any decision's length: a larger offset is a caller's mistake



def answer_budget(settings: Settings) -> int:
    """Characters one live answer's own content may take (it_eli.mcp.budget: the envelope is extra)."""
    return max(1000, settings.max_answer_chars)


def page_size(cap: int, max_chars: int | None, *, least: int = 1) -> int:
    """The caller's `max_chars`, from `least` up to `cap`; the whole `cap` when not given."""
    return cap if max_chars is None else checked_int("max_chars", max_chars, least, cap)


def check_offset(offset: object) -> int:
    """Where a page starts; checked before any request, whatever the text's length turns out to be."""
    return checked_int("offset", offset, 0, MAX_OFFSET)


def next_hit_offset(window: HitWindow, total: int) -> int | None:
    """Where the window after `window` starts, or None when `window` reaches the last of `total` hits."""
    end = window.start + window.size
    return end if end < total else None


def page_end(text: str, start: int, max_chars: int, max_cost: int) -> int:
    """Where the page of `text` from `start` ends: at most `max_chars` characters that cost at most
    `max_cost` once JSON-encoded (quotes and newlines count double: it_eli.mcp.budget)."""
    n = len(text)
    return min(n, start + max_chars, fit_end(text, start, max_cost)) if start < n else n


def page(text: str, offset: int, max_chars: int, budget: int | None = None) -> tuple[str, int | None]:
    """At most `max_chars` characters from `offset`, and at most `budget` (default `max_chars`)
    once JSON-encoded, with the next offset (None at the end)."""
    if offset < 0 or offset > len(text):
        raise InvalidArg(f"offset={offset} is past the end of the text" if offset > 0 else f"offset={offset}",
                         valid=f"an offset from 0 to {len(text)} (use next_offset)")
    end = page_end(text, offset, max_chars, max_chars if budget is None else budget)
    return text[offset:end], (end if end < len(text) else None)


def encoded_size(value: object) -> int:
    """Characters of `value` as the MCP server sends it (it_eli.mcp.budget's definition)."""
    return len(msgspec.json.encode(value).decode("utf-8"))


def fit_hits(make, hits: list, budget: int) -> tuple[object, list]:
    """The answer `make(hits)` with hits cut from the end until it fits `budget` characters: a
    search answer is cut in the adapter, so a service (verification) always reads every hit."""
    result = make(hits)
    while hits and encoded_size(result) > budget:
        hits = hits[: max(0, min(len(hits) - 1, len(hits) * 3 // 4))]
        result = make(hits)
    return result, hits
