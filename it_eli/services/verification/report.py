"""The report of a verification: the statuses, the verdict Structs, the fallbacks of each gap,
and the overall verdict and summary built from the outcomes of the checks. Apart so that the
checks and the faces (MCP, CLI) share one vocabulary."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Literal

import msgspec

from it_eli.law.grammar import canon_key
from it_eli.law.scanner import Partitions, partitions_of

Status = Literal[
    "verified", "not_found", "repealed", "declared_unconstitutional", "content_mismatch", "content_unconfirmed",
    "act_not_in_corpus", "act_unresolvable", "upstream_unavailable", "not_checked_offline", "unparseable_citation",
    "comma_not_checkable", "lettera_not_checkable", "out_of_corpus",
]
GAP_KINDS = (
    "act_not_in_corpus", "act_unresolvable", "upstream_unavailable", "not_checked_offline", "unparseable_citation",
    "comma_not_checkable", "lettera_not_checkable", "out_of_corpus",
)
# outcomes where the article (or decision) was found but a human should look: not a pass
REVIEW_KINDS = ("repealed", "declared_unconstitutional", "content_mismatch", "content_unconfirmed")
# existence decided and confirmed (the comma/lettera gaps: the article itself was found)
CONFIRMED_KINDS = ("verified", "comma_not_checkable", "lettera_not_checkable")
# Overall, worst first: a status never reads as a pass unless something was confirmed and nothing needs review.
#   HALLUCINATION_DETECTED  a cited article, comma, lettera or decision does not exist (tool isError)
#   NEEDS_REVIEW            nothing missing, but a repealed article or a description that does not fit / is unconfirmed
#   NOTHING_VERIFIED        citations found, none could be confirmed (all gaps)
#   NO_CITATIONS_FOUND      nothing recognised
#   VERIFIED_WITH_GAPS      at least one confirmed, the rest are gaps (listed with fallbacks)
#   VERIFIED                every citation confirmed
Overall = Literal[
    "VERIFIED", "VERIFIED_WITH_GAPS", "NEEDS_REVIEW", "NOTHING_VERIFIED", "HALLUCINATION_DETECTED", "NO_CITATIONS_FOUND",
]

FALLBACKS = {
    "act_not_in_corpus": "run without offline (the act is then fetched from Normattiva), or import its "
    "Akoma Ntoso export with `it-eli statutes import`",
    "act_unresolvable": "cite the act with type, date and number (e.g. 'l. 7 agosto 1990, n. 241') or check it "
    "on normattiva.it",
    "upstream_unavailable": "retry later, or check the source by hand (normattiva.it, italgiure.giustizia.it, "
    "giustizia-amministrativa.it)",
    # nothing was tried: "retry later" would send the reader after an outage that never happened
    "not_checked_offline": "run without offline (Cassazione is then looked up on SentenzeWeb, administrative "
    "decisions on the GA portal), or check it by hand at italgiure.giustizia.it or giustizia-amministrativa.it",
    "unparseable_citation": "write the citation in full: article and act, or court, number and year",
    "comma_not_checkable": "read the article's text (it_get_text) to check the comma by hand",
    "lettera_not_checkable": "read the article's text (it_get_text) to check the lettera / numero by hand",
    "out_of_corpus": "check it at the source: cortecostituzionale.it, italgiure.giustizia.it, "
    "giustizia-amministrativa.it, or the regional bulletin",
}
# where to look for what it_eli does not hold (also listed by it_coverage)
EU_FALLBACK = "EUR-Lex (eur-lex.europa.eu): EU treaties, regulations and directives, and the Court of Justice's case law"
CEDU_FALLBACK = "HUDOC (hudoc.echr.coe.int) and the Convention's text on coe.int"
REGIONAL_FALLBACK = "the Region's (or autonomous Province's) official bulletin (BUR) or its legislation database"
COURT_FALLBACKS = {
    "TRIB": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "APP": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "ASSISE": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "TRIBUTARIA": "the tax-justice database of the MEF (giustiziatributaria.gov.it) or a case-law database",
    "CCONTI": "the Corte dei conti's database (banchedati.corteconti.it)",
    "CGUE": "curia.europa.eu or EUR-Lex (eur-lex.europa.eu)",
    "CEDU": "HUDOC (hudoc.echr.coe.int)",
}


class ClaimCheck(msgspec.Struct, kw_only=True, frozen=True):
    """One thing the text says of a cited decision (its type, date, outcome, the provision at
    issue) set against the decision's own record."""

    claim: Literal["type", "date", "outcome", "provision"]
    said: str  # the text's words
    verdict: Literal["fits", "contradicted", "not_checkable"]
    record: str  # what the record says (the dispositivo's words, cut short), or why it cannot say


class CheckedCitation(msgspec.Struct, kw_only=True):
    raw: str
    kind: Literal["statute", "case", "ecli"]
    status: Status
    detail: str
    start: int
    end: int
    urn: str | None = None  # the act the citation resolved to; else the URN its text identifies (offline too)
    ecli: str | None = None
    eli: str | None = None  # EU acts: their ELI (not on Normattiva)
    article: str | None = None  # normalised key
    comma: str | None = None
    lettera: str | None = None  # 'a' / 'a,b' / 'a-bis'
    numero: str | None = None  # '7' / '1,4'
    court: str | None = None
    court_seat: str | None = None
    court_section: str | None = None  # '3', 'U' (Sezioni Unite), 'lav', 'trib', 'fer', 'plen'
    court_branch: str | None = None  # Cassazione: civ / pen
    decision_type: str | None = None
    decision_number: str | None = None
    decision_year: int | None = None
    decision_date: str | None = None
    celex: str | None = None  # EU acts: their CELEX number (EUR-Lex)
    partitions: Partitions = msgspec.field(default_factory=Partitions)  # every partition cited (par., punto ...)
    range_hint: str | None = None
    nearest: list[str] = msgspec.field(default_factory=list)
    description: str | None = None
    content_score: float | None = None
    checked_version: str | None = None  # in-force date of the text checked ('originale' for the original)
    served_from: str | None = None  # local_index, normattiva_api, normattiva_portal, cortecost_index, ...
    source_url: str | None = None
    claims: list[ClaimCheck] = msgspec.field(default_factory=list)  # decisions: what the text says of it, checked


class VerifyGap(msgspec.Struct, kw_only=True):
    kind: str
    citation: str
    note: str
    fallback: str


class VerifySummary(msgspec.Struct, kw_only=True):
    citations: int
    checked: int  # citations whose existence was actually decided (verified, repealed, mismatch, not_found)
    verified: int
    not_found: int
    repealed: int
    content_mismatch: int
    content_unconfirmed: int  # article found, its description neither fits nor clearly belongs elsewhere
    partly_verified: int  # article found, but its comma / lettera / numero could not be checked (also counted in gaps)
    to_review: int  # repealed + content_mismatch + content_unconfirmed
    gaps: int
    live_lookups: int
    declared_unconstitutional: int = 0  # article or comma struck down by the Constitutional Court


class VerifyResult(msgspec.Struct, kw_only=True):
    """Per-citation verification of a text; isError=true when a cited article or decision does not exist."""

    status: Overall
    is_error: bool
    needs_review: bool  # repealed articles, descriptions that do not fit or are unconfirmed: a human should look
    summary: VerifySummary
    citations: list[CheckedCitation]
    gaps: list[VerifyGap]
    at_date: str | None
    offline: bool
    checked_at: str
    notes: list[str] = msgspec.field(default_factory=list)


class ReportedCitation(CheckedCitation, kw_only=True):
    """One distinct citation of the text -- same act, article, comma, lettera, numero, description
    and verdict -- with how often it occurs and where (`start`/`end`: its first occurrence)."""

    occurrences: int = 1
    positions: list[int] = msgspec.field(default_factory=list)  # start offsets of its first occurrences (at most 10)
    fallback: str | None = None  # a gap: where to check it by hand


class GapGroup(msgspec.Struct, kw_only=True):
    kind: str  # the gap's status (act_not_in_corpus, upstream_unavailable, out_of_corpus, ...)
    fallback: str  # where to check these citations by hand
    citations: int  # occurrences in the text
    distinct: int  # distinct citations (entries of `citations` with this status and fallback)


class Outcome(msgspec.Struct, kw_only=True):
    status: str
    detail: str
    urn: str | None = None
    range_hint: str | None = None
    nearest: list[str] = msgspec.field(default_factory=list)
    content_score: float | None = None
    checked_version: str | None = None
    served_from: str | None = None
    source_url: str | None = None
    gap_note: str | None = None
    ecli: str | None = None
    text_only_fit: bool = False  # the description fits the text, not a word of it is in the rubrica: see _description_elsewhere
    antonym: str | None = None  # the description says the opposite of the rubrica ("annullabilità" vs "nullità")
    claims: list[ClaimCheck] = msgspec.field(default_factory=list)


def report_of(plan, done: dict[tuple, tuple[Outcome, str | None]], *, notes: list[str], live_used: int,
              at: str | None, offline: bool) -> VerifyResult:
    """The result of a run: each planned citation with the outcome of its check, the gaps, the verdict."""
    checked: list[CheckedCitation] = []
    gaps: list[VerifyGap] = []
    keys: dict[str, str] = {}
    for c, _group, memo in plan:
        o, ecli = done[memo]
        art = None
        if c.article is not None:
            art = keys.get(c.article)
            if art is None:
                try:
                    art = canon_key(c.article)
                except Exception:
                    art = c.article
                keys[c.article] = art
        cc = CheckedCitation(
            raw=c.raw, kind=c.kind, status=o.status, detail=o.detail, start=c.start, end=c.end,
            urn=o.urn or (c.act.urn if c.act is not None else None), ecli=ecli,
            eli=c.act.eli if c.act is not None else None,
            article=art, comma=c.comma, lettera=c.lettera, numero=c.numero, court=c.court, court_seat=c.court_seat,
            court_section=c.court_section, court_branch=c.court_branch, decision_type=c.decision_type,
            decision_number=c.decision_number, decision_year=c.decision_year, decision_date=c.decision_date,
            celex=c.act.celex if c.act is not None else None, partitions=partitions_of(c), range_hint=o.range_hint, nearest=list(o.nearest), description=c.description,
            content_score=o.content_score, checked_version=o.checked_version, served_from=o.served_from,
            source_url=o.source_url, claims=list(o.claims),
        )
        checked.append(cc)
        if o.status in GAP_KINDS:
            gaps.append(VerifyGap(kind=o.status, citation=c.raw, note=o.detail,
                                  fallback=o.gap_note or FALLBACKS[o.status]))
    return _result_of(checked, gaps, notes=notes, live_used=live_used, at=at, offline=offline)


def _result_of(checked: list[CheckedCitation], gaps: list[VerifyGap], *, notes: list[str], live_used: int,
               at: str | None, offline: bool) -> VerifyResult:
    by_status = Counter(x.status for x in checked)
    count = by_status.__getitem__
    nf = count("not_found")
    decided = sum(by_status[s] for s in ("not_found", *REVIEW_KINDS, *CONFIRMED_KINDS))
    confirmed = sum(by_status[s] for s in CONFIRMED_KINDS)
    review = sum(by_status[s] for s in REVIEW_KINDS)
    if not checked:
        status = "NO_CITATIONS_FOUND"
    elif nf:
        status = "HALLUCINATION_DETECTED"
    elif review:
        status = "NEEDS_REVIEW"
    elif not confirmed:
        status = "NOTHING_VERIFIED"
    elif gaps:
        status = "VERIFIED_WITH_GAPS"
    else:
        status = "VERIFIED"
    notes = list(notes)
    if status == "NO_CITATIONS_FOUND":
        notes.append("no citation was recognised in the text: nothing was checked (this is not a pass)")
    if status == "NOTHING_VERIFIED":
        notes.append("no citation could be confirmed: every one is a gap (this is not a pass)")
    if status == "NEEDS_REVIEW":
        notes.append(f"{review} citation(s) need a human look (repealed article, or a description that does not fit "
                     "or could not be confirmed, or a decision whose record contradicts what the text says of it): "
                     "this is not a pass")
    return VerifyResult(
        status=status, is_error=status == "HALLUCINATION_DETECTED",
        needs_review=bool(review),
        summary=VerifySummary(
            citations=len(checked), checked=decided, verified=count("verified"), not_found=nf,
            repealed=count("repealed"), content_mismatch=count("content_mismatch"),
            content_unconfirmed=count("content_unconfirmed"), to_review=review,
            declared_unconstitutional=count("declared_unconstitutional"),
            partly_verified=count("comma_not_checkable") + count("lettera_not_checkable"), gaps=len(gaps),
            live_lookups=live_used,
        ),
        citations=checked, gaps=gaps, at_date=at, offline=offline, checked_at=_now(), notes=notes,
    )


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the report: distinct citations, worst first

MAX_POSITIONS = 10  # start offsets listed per distinct citation
# worst first: what must never be overlooked (or lost to a page boundary) comes before what is fine
REPORT_ORDER = (
    "not_found", "content_mismatch", "declared_unconstitutional", "repealed", "content_unconfirmed",
    "upstream_unavailable", "act_unresolvable", "not_checked_offline",
    "unparseable_citation", "act_not_in_corpus", "out_of_corpus", "comma_not_checkable", "lettera_not_checkable",
    "verified",
)
_RANK = {s: i for i, s in enumerate(REPORT_ORDER)}
_FIELDS = CheckedCitation.__struct_fields__
_KEY_AT = [i for i, f in enumerate(_FIELDS) if f not in ("raw", "start", "end")]


def distinct_citations(result: VerifyResult) -> list[ReportedCitation]:
    """The citations of `result` grouped (same everything but the place in the text), worst first,
    in order of first appearance within each status; texts whole (an answer clips them)."""
    gaps = iter(result.gaps)  # one per gap citation, in the citations' order
    found: dict[tuple, ReportedCitation] = {}
    for c in result.citations:
        fallback = next(gaps).fallback if c.status in GAP_KINDS else None
        values = msgspec.structs.astuple(c)
        key = tuple(tuple(values[i]) if isinstance(values[i], list) else values[i] for i in _KEY_AT) + (fallback,)
        r = found.get(key)
        if r is None:
            fields = dict(zip(_FIELDS, values))
            fields["nearest"] = list(c.nearest)
            found[key] = ReportedCitation(**fields, positions=[c.start], fallback=fallback)
        else:
            r.occurrences += 1
            if len(r.positions) < MAX_POSITIONS:
                r.positions.append(c.start)
    return sorted(found.values(), key=lambda r: _RANK.get(r.status, len(_RANK)))  # stable: first appearance


def gap_groups(reported: list[ReportedCitation]) -> list[GapGroup]:
    """Every gap kind and fallback of the distinct citations, counted over the whole text: what
    was not checked must be visible even when its citations are not."""
    groups: dict[tuple[str, str], GapGroup] = {}
    for r in reported:
        if r.fallback is None:
            continue
        g = groups.get((r.status, r.fallback))
        if g is None:
            g = groups[(r.status, r.fallback)] = GapGroup(kind=r.status, fallback=r.fallback, citations=0, distinct=0)
        g.citations += r.occurrences
        g.distinct += 1
    return list(groups.values())
