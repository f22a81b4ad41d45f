"""Paging shared by the MCP tools: the domain hands over whole answers and windows of hits, the
tools cut them to the answer budget and say where the next page starts (`next_offset`)."""

from __future__ import annotations

from ..query import HitWindow


def next_hit_offset(window: HitWindow, total: int) -> int | None:
    """Where the window after `window` starts, or None when `window` reaches the last of `total` hits."""
    end = window.start + window.size
    return end if end < total else None
