"""The live case-law answer cache: bounded in bytes (a few big GA decisions cannot fill memory),
fresh within its TTL, served stale past it (for when the upstream is down)."""

from __future__ import annotations

import time

from it_eli.services.caselaw_live import _TTLCache


def test_bounded_in_bytes_least_recently_used_goes_first():
    cache = _TTLCache(max_bytes=1000)
    cache.put("a", b"x" * 400, 60)
    cache.put("b", b"y" * 400, 60)
    assert cache.get("a") is not None  # "a" used: "b" is now the least recent
    cache.put("c", b"z" * 400, 60)
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None


def test_an_answer_bigger_than_the_bound_is_not_cached():
    cache = _TTLCache(max_bytes=1000)
    cache.put("big", ("x" * 5000, "text/html"), 60)
    assert cache.get("big") is None and cache.get_stale("big") is None


def test_expired_is_not_fresh_but_can_be_served_stale():
    cache = _TTLCache(size=10)
    cache.put("k", "answer", 0.01)
    time.sleep(0.05)
    assert cache.get("k") is None
    assert cache.get_stale("k") == "answer"
