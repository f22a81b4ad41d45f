"""What the scanner answers: a citation, the act it points to, the partitions it names; and what
an act reader hands back. Apart because every reader, and the services, speak in these."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Literal

import msgspec


class ActRef(msgspec.Struct):
    """The act a statute citation points to, and its identifiers (built offline from what the
    text gives: the URN has the full date when the text gives it, the year otherwise)."""

    act_type: str
    number: str | None = None
    year: int | None = None
    date: str | None = None  # ISO, only when the text gives day, month and year
    code: str | None = None  # short id for codes: 'cc','cp','cpc','cpp','cost',...
    raw: str = ""
    converted_by: ActRef | None = None  # "d.l. ..., conv. dalla l. ..." -> the conversion law
    region: str | None = None  # regional / provincial laws: "l.r. Lombardia ..." -> 'Lombardia'
    issuer: str | None = None  # ministerial and administrative acts: 'Ministero della giustizia', 'CIPE'
    authority: str | None = None  # URN:NIR authority when not the type's own: 'regione.lombardia'
    urn: str | None = None  # URN:NIR of the act (None when the text does not identify it)
    eli: str | None = None  # EU acts
    celex: str | None = None  # EU acts
    start: int = -1  # where the act is named in the text (it may stand before its article)
    end: int = -1


class Citation(msgspec.Struct):
    raw: str
    start: int
    end: int
    kind: Literal["statute", "case", "ecli"]
    act: ActRef | None = None
    act_unresolved: bool = False
    via_backreference: bool = False
    article: str | None = None
    comma: str | None = None
    lettera: str | None = None
    numero: str | None = None
    description: str | None = None
    court: str | None = None
    court_section: str | None = None
    decision_type: str | None = None
    decision_number: str | None = None
    decision_year: int | None = None
    decision_date: str | None = None
    ecli: str | None = None
    # additions (defaults keep the agreed shape intact)
    court_seat: str | None = None  # TAR seat, e.g. 'Lazio, Roma' (ECLI: 'LAZ')
    court_branch: str | None = None  # Cassazione 'civ' / 'pen'
    article_range: str | None = None  # 'artt. 1-5' -> both endpoints carry '1-5'
    and_following: bool = False  # 'artt. 1337 ss. c.c.'
    urn: str | None = None  # URN:NIR of what is cited (the act, ~artN when an article is), built offline
    periodo: str | None = None  # '2', 'ultimo'
    paragrafo: str | None = None  # EU acts: 'art. 6, par. 1'
    punto: str | None = None  # EU acts: 'art. 4, punto 7'
    considerando: str | None = None  # EU acts: 'considerando 26'
    allegato: str | None = None  # 'allegato 1', 'allegato II.12'
    tabella: str | None = None  # 'tabella A'
    titolo: str | None = None  # 'titolo V'
    capo: str | None = None  # 'capo II'
    converts: ActRef | None = None  # a conversion law cited on its decree-law: that decree ('conv. dalla l. ...')


# from the largest part of an article to the smallest, then the parts of an act
PARTITION_NAMES = ("paragrafo", "comma", "punto", "lettera", "numero", "periodo", "considerando", "allegato", "tabella",
                   "titolo", "capo")


class Partitions(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """The parts of an article (or of an EU act) a citation names, as written."""

    comma: str | None = None
    lettera: str | None = None
    numero: str | None = None
    periodo: str | None = None
    paragrafo: str | None = None
    punto: str | None = None
    considerando: str | None = None
    allegato: str | None = None
    tabella: str | None = None
    titolo: str | None = None
    capo: str | None = None


def partitions_of(c: Citation) -> Partitions:
    """The partitions a citation names, apart from its act and article (it_resolve's answer)."""
    return Partitions(**{p: getattr(c, p) for p in PARTITION_NAMES if getattr(c, p, None)})


class ActHit(msgspec.Struct):
    """An act read in the text, and where its citation ends."""

    act: ActRef
    end: int
    more: list[ActRef] = []  # "nn. 301, 305 e 309": the other acts of the same type and date/year


class SpanCover:
    """Whether a place of the text lies inside one of some spans (what the readers read): sorted
    starts and the furthest end reached so far, so each question is one bisection."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [s for s, _ in ordered]
        self._reach: list[int] = []  # _reach[i]: the furthest end of ordered[0..i]
        far = -1
        for _, e in ordered:
            far = max(far, e)
            self._reach.append(far)

    def __contains__(self, at: int) -> bool:
        i = bisect.bisect_right(self._starts, at) - 1
        return i >= 0 and self._reach[i] > at
