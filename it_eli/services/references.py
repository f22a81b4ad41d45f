"""What a written reference names, offline, when it is not an act Normattiva's URN model resolves:
a court decision, an EU act or treaty, an international convention, or an Italian act the scanner
identifies only by a URN without a number (a D.P.C.M. or a ministerial decree cited by its date).

Why here: `it_resolve` must resolve everything the citation scanner identifies (a calling model
that verified "Cass. civ., sez. III, n. 6597/2021" must be able to ask what it is), and must say
what it could not read instead of answering "cannot read". Pure: the scanner's reading, the law
core's identifiers, nothing looked up.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from it_eli.runtime.errors import InvalidArg
from ..law import codes
from ..law import urn as urnmod
from ..law.grammar import int_to_roman, italian_date
from ..law.scanner.courts import COURT_NAMES
from ..law.scanner.model import PARTITION_NAMES, Citation, Partitions, partitions_of
from ..law.scanner.scan import extract_citations

Kind = Literal["act", "eu_act", "international", "decision"]


# how a court is abbreviated at the head of an Italian citation (Cass. civ., sez. III, ...)
_COURT_ABBR = {"COST": "Corte cost.", "CASS": "Cass.", "CDS": "Cons. Stato", "CGARS": "C.G.A.R.S.", "TAR": "T.A.R.",
               "TRIB": "Trib.", "APP": "App.", "ASSISE": "Corte d'assise", "CCONTI": "Corte conti",
               "TRIBUTARIA": "Giust. trib.", "CGUE": "CGUE", "CEDU": "Corte EDU"}
_SECTION_NAMES = {"U": "Sez. Un.", "lav": "sez. lav.", "trib": "sez. trib.", "fer": "sez. fer.", "plen": "Ad. plen."}
# where a decision can be read, by court (only the Constitutional Court has a page per ECLI), and
# the it_eli tool that finds it
_DECISION_SOURCES = {
    "CASS": ("https://www.italgiure.giustizia.it/sncass/", "it_cassazione_search"),
    "CDS": ("https://www.giustizia-amministrativa.it", "it_ga_search"),
    "CGARS": ("https://www.giustizia-amministrativa.it", "it_ga_search"),
    "TAR": ("https://www.giustizia-amministrativa.it", "it_ga_search"),
    "COST": ("https://www.cortecostituzionale.it", "it_case_get_decision"),
}


class CitedDecision(msgspec.Struct, kw_only=True):
    """A court decision as the citation gives it; the ECLI only where it can be built, never guessed."""

    court: str  # COST, CASS, CDS, CGARS, TAR, TRIB, APP, ...
    court_name: str
    number: str | None = None
    year: int | None = None
    date: str | None = None  # YYYY-MM-DD when the citation gives the day
    seat: str | None = None
    section: str | None = None
    branch: str | None = None  # Cassazione: civ / pen
    decision_type: str | None = None
    ecli: str | None = None


class ReferenceIdentity(msgspec.Struct, kw_only=True):
    """What a reference names, with its identifiers and what the text did not give."""

    kind: Kind
    citation: str  # an Italian citation of what is named
    source_url: str | None
    act_type: str | None = None
    urn: str | None = None  # URN:NIR with ~artN when an article is cited
    act_urn: str | None = None
    eli: str | None = None
    celex: str | None = None
    code_id: str | None = None
    code_name: str | None = None
    year: int | None = None
    number: str | None = None
    date: str | None = None
    article: str | None = None
    partitions: Partitions = msgspec.field(default_factory=Partitions)
    decision: CitedDecision | None = None
    warnings: list[str] = msgspec.field(default_factory=list)


# what may stand around a reference without being part of it: punctuation, articles, prepositions
_FILLER = re.compile(
    r"(?i)^(?:[\s,;:.()\-–]|\b(?:del|della|dello|delle|dei|degli|dell|di|il|la|lo|l|le|gli|i|nel|nella|al|alla)\b|['’])*$"
)


def unread_words(text: str, spans: list[tuple[int, int]], *, keep_filler: bool = False) -> str:
    """What of `text` lies outside the spans the scanner read ('' when only filler is left, unless
    `keep_filler`): a resolver names it in its error instead of dropping it."""
    out, last = [], 0
    for s, e in sorted(spans):
        out.append(text[last:s])
        last = max(last, e)
    out.append(text[last:])
    rest = " ".join(x.strip() for x in out if x.strip())
    return rest if keep_filler or not _FILLER.match(rest) else ""


def _first_identified(text: str) -> Citation | None:
    for c in extract_citations(text):
        if c.kind in ("case", "ecli") and c.court:
            return c
        if c.kind == "statute" and c.act is not None and not c.act_unresolved:
            return c
    return None


_PARTITION_ABBR = {"comma": "comma", "lettera": "lett.", "numero": "n.", "periodo": "periodo", "paragrafo": "par.",
                   "punto": "punto", "considerando": "considerando", "allegato": "allegato", "tabella": "tabella",
                   "titolo": "titolo", "capo": "capo"}


def _cited_part(c: Citation, name: str) -> str:
    """'art. 6, par. 1, lett. f), GDPR': the article and the partitions named, then the act."""
    bits = [f"art. {c.article}"] if c.article else []
    for p in PARTITION_NAMES:
        v = getattr(c, p, None)
        if v:
            bits.append(f"{_PARTITION_ABBR[p]} {v}" + (")" if p == "lettera" else ""))
    return (", ".join(bits) + ("," if len(bits) > 1 else "") + " " + name) if bits else name


def _section_label(section: str | None) -> str | None:
    if not section:
        return None
    if section in _SECTION_NAMES:
        return _SECTION_NAMES[section]
    head, _, tail = section.partition("-")
    if head.isdigit() and 0 < int(head) <= 20:
        head = int_to_roman(int(head))
    return "sez. " + head + (f"-{tail}" if tail else "")


def decision_citation(d: CitedDecision) -> str:
    """'Cass. civ., sez. III, 10 marzo 2021, n. 6597', 'Corte cost., n. 242/2019'."""
    head = _COURT_ABBR.get(d.court, d.court_name)
    if d.branch in ("civ", "pen"):
        head += f" {d.branch}."
    if d.seat:
        head += f" {d.seat}"  # Trib. Milano, T.A.R. Lombardia, Milano: the seat names the court
    bits = [head]
    if (label := _section_label(d.section)) is not None:
        bits.append(label)
    if d.date:
        bits.append(italian_date(d.date))
    if d.number:
        bits.append(f"n. {d.number}" + (f"/{d.year}" if d.year and not d.date else ""))
    elif d.year:
        bits.append(str(d.year))
    return ", ".join(bits)


def _decision(c: Citation) -> ReferenceIdentity:
    d = CitedDecision(
        court=c.court, court_name=COURT_NAMES.get(c.court, c.court), number=c.decision_number, year=c.decision_year,
        date=c.decision_date, seat=c.court_seat, section=c.court_section, branch=c.court_branch,
        decision_type=c.decision_type, ecli=c.ecli,
    )
    warnings = []
    if not d.number or not d.year:
        warnings.append("the citation gives no " + " and no ".join(w for w, v in (("number", d.number), ("year", d.year))
                                                                     if not v) + ": the decision is not identified")
    if d.ecli is None:
        why = {"CASS": "the Cassazione's ECLI needs the chamber (civ./pen.)",
               "CDS": "the Consiglio di Stato's ECLI needs the decision type (sentenza)"}.get(
            d.court, "no ECLI is built for this court from a citation")
        warnings.append(f"no ECLI: {why}; an ECLI is never guessed")
    source, tool = _DECISION_SOURCES.get(d.court, (None, None))
    if d.court == "COST" and d.ecli:
        from it_eli.search.decisions.model import public_url

        source = public_url(d.ecli)
    if tool is None:
        warnings.append(f"{d.court_name}: no open source of this court is wired into it_eli; check it by hand")
    else:
        warnings.append(f"offline: whether the decision exists is not checked here ({tool} or it_verify_citations "
                        "checks it)")
    return ReferenceIdentity(kind="decision", citation=decision_citation(d), source_url=source, year=d.year,
                             number=d.number, date=d.date, decision=d, warnings=warnings)


def _foreign_act(c: Citation) -> ReferenceIdentity:
    act = c.act
    code = codes.CODES_BY_ID.get(act.code) if act.code else None
    international = act.act_type == "internazionale" or (code is not None and code.family == "internazionale")
    name = code.abbreviation if code is not None else act.raw.strip()
    citation = _cited_part(c, name)
    warnings = []
    if not international and not (act.eli or act.celex):
        warnings.append("the EU act is not identified by year and number: no ELI or CELEX")
    if international:
        warnings.append("an international convention: not on Normattiva nor EUR-Lex; its text is at the treaty's "
                        "depositary (for the CEDU: the Council of Europe)")
        source = None
    else:
        source = urnmod.eu_source_url(act.celex, act.eli)
    return ReferenceIdentity(
        kind="international" if international else "eu_act", citation=citation, source_url=source,
        act_type=act.act_type, eli=act.eli, celex=act.celex, code_id=code.id if code else None,
        code_name=code.name if code else None, year=act.year, number=act.number, date=act.date, article=c.article,
        partitions=partitions_of(c), warnings=warnings,
    )


def _numberless_act(c: Citation, base: str) -> ReferenceIdentity:
    act = c.act
    return ReferenceIdentity(
        kind="act", citation=_cited_part(c, act.raw.strip()),
        source_url=urnmod.resolver_url(act.urn, base), act_type=act.act_type, urn=c.urn or act.urn, act_urn=act.urn,
        year=act.year, number=act.number, date=act.date, article=c.article, partitions=partitions_of(c),
        warnings=["the act is cited without a number: its URN names it by authority, type and date, which the "
                  "portal may not resolve to one act (several acts of one day share it)"],
    )


def identify_reference(text: str, *, portal_base: str = urnmod.DEFAULT_PORTAL) -> ReferenceIdentity | None:
    """The identity of a reference that is a decision, an EU or international act, or an act known
    only by a numberless URN; None when it is an act the URN model resolves (or nothing read)."""
    c = _first_identified(text)
    if c is None:
        return None
    foreign = c.kind == "statute" and (c.act.eli or c.act.celex or c.act.act_type.startswith("ue.")
                                       or c.act.act_type == "internazionale")
    if c.kind in ("case", "ecli") or foreign:
        spans = [(c.start, c.end)] + ([(c.act.start, c.act.end)] if c.act is not None and c.act.start >= 0 else [])
        if rest := unread_words(text, spans):
            raise InvalidArg(f"cannot read the reference {text[:120]!r}: it_eli does not know {rest[:80]!r}",
                             valid="one citation: a decision (Cass. civ., sez. III, n. 6597/2021; Corte cost. n. "
                                   "242/2019; ECLI), an EU act (art. 6 GDPR, direttiva 2006/123/CE) or an act")
    if c.kind in ("case", "ecli"):
        return _decision(c)
    act = c.act
    if foreign:
        return _foreign_act(c)
    if act.urn and act.number is None and not act.code and act.act_type != "costituzione":
        return _numberless_act(c, portal_base)
    return None
