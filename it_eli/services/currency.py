"""Whether the newest local version of an act may be outdated by an act held in the same store.

Why: "fresh" only means "imported recently". When the local store also holds a later act that
amends this one (d.lgs. 209/2024 rewrites articles of d.lgs. 36/2023, whose local version is of
2023-05-30), the local text cannot be called today's: it is the newest version held locally,
not confirmed current.
"""

from __future__ import annotations

import re

from it_eli.law.grammar import MONTHS
from it_eli.law.provision_status import ProvisionEvent, whole_act_repeal
from it_eli.search.query import HitWindow
from it_eli.search.statutes.records import StoredArticle, statute_citation
from it_eli.search.statutes.store import StatuteStore

__all__ = ["later_amending_acts", "repealed_as_a_whole"]

_AMENDING_RE = re.compile(r"modific|sostitu|abrogat|inserit|soppress|aggiunt|integrat", re.IGNORECASE)
_URN_DATE_RE = re.compile(r":(\d{4}-\d{2}-\d{2});")


def _act_phrase(date_iso: str, number: str) -> str:
    y, m, d = date_iso.split("-")
    return f"{int(d)} {MONTHS[int(m) - 1]} {y}, n. {number.lstrip('0') or number}"


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


def repealed_as_a_whole(store: StatuteStore, act_type: str, year: int | str, number: str) -> ProvisionEvent | None:
    """The repeal of the act as a whole that an act held in the store enacts ("Il decreto legislativo
    18 aprile 2016, n. 50, e' abrogato dal 1° luglio 2023": art. 226 d.lgs. 36/2023), or None.

    Why here: the repealed act is often not held at all, so its own export cannot say it; the
    repealing act's text can. Computed once per index generation."""
    key = ("repealed_as_a_whole", act_type, str(year), str(number))
    try:
        return store._memoized(key, lambda: _repealed_as_a_whole(store, act_type, year, number))
    except Exception:  # a search problem loses the warning, never the answer
        return None


def _repealed_as_a_whole(store: StatuteStore, act_type: str, year: int | str, number: str) -> ProvisionEvent | None:
    # only articles that name the act next to the verb: reading each one's text is the costly part
    res = store.search(f'"{year}, n. {str(number).lstrip("0")}" AND (abrogato OR abrogata)', window=HitWindow(size=50))
    for h in res.hits:
        cands = store.article_candidates(h.urn, h.article)
        if not cands:
            continue
        c = cands[0]
        got = whole_act_repeal(c.text, act_type, year, number)
        if got is None:
            continue
        since, words = got
        src = {"act_type": c.act_type, "act_number": c.act_number, "act_date": c.act_date, "act_year": c.act_year,
               "act_title": c.act_title, "urn": c.urn}
        # no date in the clause: the text in force from c.in_force_date records it, so it had effect by then
        return ProvisionEvent(kind="repealed", scope="act", by=statute_citation(src, c.article), by_date=c.act_date,
                              since=since, detail=words, effect_by=None if since else c.in_force_date)
    return None
