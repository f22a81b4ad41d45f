"""Whether the newest local version of an act may be outdated by an act held in the same store.

Why: "fresh" only means "imported recently". When the local store also holds a later act that
amends this one (d.lgs. 209/2024 rewrites articles of d.lgs. 36/2023, whose local version is of
2023-05-30), the local text cannot be called today's: it is the newest version held locally,
not confirmed current.
"""

from __future__ import annotations

import re

from it_eli.search.query import HitWindow
from it_eli.search.statutes.store import StatuteStore
from it_eli.search.statutes.records import StoredArticle, statute_citation

__all__ = ["later_amending_acts"]

_MONTHS = ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
           "ottobre", "novembre", "dicembre")
_AMENDING_RE = re.compile(r"modific|sostitu|abrogat|inserit|soppress|aggiunt|integrat", re.IGNORECASE)
_URN_DATE_RE = re.compile(r":(\d{4}-\d{2}-\d{2});")


def _act_phrase(date_iso: str, number: str) -> str:
    y, m, d = date_iso.split("-")
    return f"{int(d)} {_MONTHS[int(m) - 1]} {y}, n. {number.lstrip('0') or number}"


def later_amending_acts(store: StatuteStore, a: StoredArticle, *, limit: int = 3) -> list[str]:
    """Citations of acts in the local store, dated after the version `a` comes from, whose text
    names this act next to a verb of amendment ("sono apportate le seguenti modificazioni")."""
    if not a.act_date or not a.act_number or not a.in_force_date:
        return []
    from it_eli.runtime.clock import today_iso

    # the answer depends only on the store's content (and, through the search's in-force filter,
    # on the day): computed once per index generation, not on every it_get_text of the article
    key = ("later_amending_acts", a.urn, a.act_date, a.act_number, a.in_force_date, limit, today_iso())
    try:
        return list(store._memoized(key, lambda: _later_amending_acts(store, a, limit)))
    except Exception:  # a search problem must not break serving the text; it only loses the warning
        return []


def _later_amending_acts(store: StatuteStore, a: StoredArticle, limit: int) -> list[str]:
    phrase = _act_phrase(a.act_date, a.act_number)
    res = store.search(f'"{phrase}"', window=HitWindow(size=50))  # a failure is not memoized (the caller catches it)
    found: dict[str, str] = {}
    for h in res.hits:
        if h.urn == a.urn or h.urn in found:
            continue
        m = _URN_DATE_RE.search(h.urn)
        if not m or m.group(1) <= a.in_force_date:
            continue
        cands = store.article_candidates(h.urn, h.article)
        text = cands[0].text if cands else h.snippet
        low = " ".join(text.split()).lower()
        at = low.find(phrase.lower())
        window = low[max(0, at - 300): at + len(phrase) + 300] if at >= 0 else low[:600]
        if not _AMENDING_RE.search(window):
            continue
        c = cands[0] if cands else None
        src = {"act_type": c.act_type if c else None, "act_number": c.act_number if c else None,
               "act_date": c.act_date if c else m.group(1), "act_year": c.act_year if c else None,
               "act_title": c.act_title if c else h.act_title, "urn": h.urn}
        found[h.urn] = statute_citation(src)
        if len(found) >= limit:
            break
    return list(found.values())
