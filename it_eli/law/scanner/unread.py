"""The closing pass over a text: the spans that look like a reference (a decision or act noun with
its number, 'artt.' and a number, a massima's 'Rv.') that no citation read by the scanner covers.

Apart from the readers because it judges their work: whatever a reader failed to read must still
reach the answer (as a gap with its words), never vanish. One flat regex, linear in the text."""

from __future__ import annotations

import bisect
import re

from ..grammar import MONTH_RE
from .model import Citation, SpanCover

_DECISION = r"sentenz[ae]|sent(?:t)?\.|ordinanz[ae]|ord(?:d)?\.|decret[oi]|decr\.|decision[ei]|dec\."
_ACT = (r"legge|leggi|l\.|d\.\s?lgs\.?|d\.\s?l\.|d\.\s?p\.\s?r\.|d\.\s?m\.|decreto[-\s]legge|regolament[oi]|reg\."
        r"|direttiv[ae]|dir\.|circolar[ei]|circ\.|deliber(?:a|e|azione)|determin(?:a|e|azione)")
_DATE = rf"(?:\d{{1,2}}|1°)(?:\s{{1,3}}{MONTH_RE}\s{{1,3}}|\s?(?P<ds>[./-])\s?\d{{1,2}}\s?(?P=ds)\s?)\d{{2,4}}"
_YEAR = (r"(?:\s{0,3}/\s{0,3}\d{2,4}(?![\d/])"
         rf"|,?\s{{1,3}}del(?:l['’]\s?|\s{{1,3}})(?:anno\s{{1,3}})?(?:\d{{1,2}}\s{{1,3}}{MONTH_RE}\s{{1,3}})?\d{{4}}(?!\d))")
# a noun, up to two words and a date between ("sentenza 12 marzo 2020, n. 5", "ordinanza
# interlocutoria n. 3"), then n. / nn. and a number, and the numbers listed after it ("sentenze n. 10,
# n. 11 e n. 12 del 2001"); "artt." and its first number; "Rv." and its number
REFERENCE_LIKE = re.compile(
    rf"(?<![\w.])(?:(?P<noun>{_DECISION}|{_ACT})(?:\s{{1,3}}[a-zà-ù]{{3,16}}){{0,2}}?"
    rf"(?:\s{{1,3}}(?:del\s{{1,3}})?{_DATE}\s{{0,3}},?\s{{0,3}}|\s{{0,3}})"
    rf"(?:nn?\.|nr\.|n°|numer[oi])\s{{0,3}}(?P<n>\d{{1,9}}){_YEAR}?"
    rf"(?:(?:\s{{0,3}}[,;]\s{{0,3}}(?:ed?\s{{1,3}})?|\s{{1,3}}(?:ed?|nonch[éè])\s{{1,3}})(?:(?:nn?\.|nr\.)\s{{0,3}})?"
    rf"\d{{1,6}}(?![\d.]){_YEAR}?){{0,20}}"
    rf"|artt\.\s{{0,3}}(?P<a>\d{{1,9}})"
    rf"|Rv\.?\s{{0,3}}(?P<rv>\d{{5,7}})(?:-\d{{2}})?)",
    re.I,
)
_RV_AFTER = 6  # characters between a decision citation and the massima number that belongs to it


def unread_references(text: str, cites: list[Citation]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every reference-like span of `text` whose number no citation covers, in
    order; kind is 'case' for a decision or a massima, 'statute' for an act or articles."""
    read = SpanCover(_covering_spans(cites))
    case_ends = sorted(c.end for c in cites if c.kind in ("case", "ecli"))
    out = []
    for m in REFERENCE_LIKE.finditer(text):
        g = "n" if m.group("n") else "a" if m.group("a") else "rv"
        at = m.start(g)
        if at in read:
            continue
        if g == "rv":
            j = bisect.bisect_right(case_ends, m.start()) - 1
            if j >= 0 and m.start() - case_ends[j] <= _RV_AFTER:
                continue  # "Cass. pen., sez. VI, n. 2340/2022, Rv. 282650": the massima of that decision
        noun = (m.group("noun") or "").lower()
        kind = "case" if g == "rv" or re.match(_DECISION, noun) and not noun.startswith("decreto") else "statute"
        out.append((m.start(), m.end(), kind))
    return out


def _covering_spans(cites: list[Citation]):
    """Every stretch of text a citation read: its own span, and where its act (and conversion law) is named."""
    for c in cites:
        yield c.start, c.end
        for act in (c.act, c.act.converted_by if c.act else None, c.converts):
            if act is not None and act.start >= 0:
                yield act.start, act.end
