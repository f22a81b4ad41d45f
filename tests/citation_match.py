"""Matching extracted citations to a labelled table's expected ones, by legal identity.

Shared by the verification tests and `python -m benchmarks verify` (benchmarks import tests'
helpers, never the reverse).
"""

from __future__ import annotations


def act_id(act) -> tuple | None:
    """Comparable identity of an act, from an extracted ActRef or a labelled dict."""
    if act is None:
        return None
    if isinstance(act, dict):
        if act.get("code"):
            return ("code", act["code"])
        return (act["act_type"], act.get("number"), act.get("year"))
    if act.code:
        return ("code", act.code)
    if act.act_type == "costituzione":
        return ("code", "cost")
    return (act.act_type, act.number, act.year)


def key_of(item) -> tuple:
    """Matching key of an expected dict or an extracted Citation."""
    from it_eli.law.grammar import canon_key

    if isinstance(item, dict):
        if item["kind"] == "statute":
            art = canon_key(item["article"]) if item["article"] else None
            return ("statute", art, act_id(item["act"]))
        if item["kind"] == "case":
            return ("case", item["court"], item["number"], item["year"])
        return ("ecli", item["ecli"])
    if item.kind == "statute":
        art = canon_key(item.article) if item.article else None
        return ("statute", art, act_id(item.act))
    if item.kind == "case":
        return ("case", item.court, item.decision_number, item.decision_year)
    return ("ecli", item.ecli)


def match(expected: list[dict], extracted: list) -> tuple[list[tuple[dict, int]], int, int]:
    """Pairs (expected, index into extracted), plus counts of missed and spurious."""
    free = list(range(len(extracted)))
    pairs = []
    missed = 0
    keys = [key_of(c) for c in extracted]
    for e in expected:
        k = key_of(e)
        hit = next((i for i in free if keys[i] == k), None)
        if hit is None:
            missed += 1
            continue
        free.remove(hit)
        pairs.append((e, hit))
    return pairs, missed, len(free)
