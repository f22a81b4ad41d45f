"""Verification tools: it_verify_citations (the gate) and it_coverage (what the gate can see).

The logic is in it_eli.services.verification; this module declares the MCP contract and pages the report within
the answer budget (the domain returns every citation; paging is how MCP asks). it_coverage exists
because a verification result is only as good as the corpus behind it: a client must be able
to ask what is covered, since when, and where to look for the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import json

from typing import Annotated

import msgspec
from cachetools import TTLCache
from msgspec import Meta

from it_eli.mcp.budget import ENVELOPE_CHARS
from it_eli.runtime.errors import IndexMissing, InvalidArg, ItEliError
from it_eli.search.indexdir import note_serving
from it_eli.search.statutes import DATASET_NOTE, StatuteStore
from it_eli.services.verification.reading import MAX_INPUT_CHARS, MAX_LIVE_LOOKUPS, check_input
from it_eli.services.verification.report import (
    CEDU_FALLBACK,
    COURT_FALLBACKS,
    EU_FALLBACK,
    REGIONAL_FALLBACK,
    CheckedCitation,
    GapGroup,
    Overall,
    ReportedCitation,
    VerifyResult,
    VerifySummary,
    distinct_citations,
    gap_groups,
)
from it_eli.services.verification.verifier import verify_text
from it_eli.runtime.workers import in_thread
from .registry import tool


class VerifyParams(msgspec.Struct, kw_only=True):
    text: Annotated[str, Meta(description="The text whose citations to check (a brief, an opinion, an AI draft), up to 1,000,000 characters.")]
    at_date: Annotated[str | None, Meta(description="YYYY-MM-DD: check the statutes as in force on that day (default today).")] = None
    offline: Annotated[bool, Meta(description="Use only the local indexes: what they cannot settle becomes a gap.")] = False
    offset: Annotated[int, Meta(description="First distinct citation of this page: pass next_offset back.")] = 0


class VerifyAnswer(msgspec.Struct, kw_only=True):
    """it_verify_citations: the verdict and the counts for the WHOLE text, then its distinct
    citations worst first (not_found, then those to review, then gaps, then verified), a page at a
    time within the answer budget; next_offset (when not null) gets the next page."""

    status: Overall
    is_error: bool
    needs_review: bool  # repealed articles, descriptions that do not fit or are unconfirmed: a human should look
    summary: VerifySummary  # every occurrence counted, whatever the page
    distinct_citations: int
    offset: int  # index of this page's first entry among the distinct citations
    next_offset: int | None  # pass it back as `offset` (same text, at_date, offline) for the next page
    truncated: bool  # more distinct citations than this page holds
    citations: list[ReportedCitation]
    gaps: list[GapGroup]  # every gap kind and fallback, counted over the whole text
    at_date: str | None
    offline: bool
    checked_at: str
    notes: list[str] = msgspec.field(default_factory=list)


class CoverageParams(msgspec.Struct, kw_only=True):
    offset: Annotated[int, Meta(description="First act of this page: pass next_offset back.")] = 0


class CachedVersion(msgspec.Struct, kw_only=True):
    version: str  # in-force date, or 'originale'
    article_count: int
    fetched_at: str  # when this copy was captured/imported
    fresh: bool  # within IT_ELI_STATUTE_TTL_DAYS: absence of an article is authoritative


class CachedAct(msgspec.Struct, kw_only=True):
    urn: str
    title: str | None
    versions: list[CachedVersion]
    versions_total: int | None = None  # set when `versions` (newest first) had to be cut to fit the answer


class StatuteCoverage(msgspec.Struct, kw_only=True):
    acts: int  # every act in the index (acts_list is one page of them)
    articles_newest_versions: int
    acts_list: list[CachedAct]
    freshness_days: float
    first_capture: str | None
    last_capture: str | None
    offset: int = 0  # index of acts_list's first act
    next_offset: int | None = None  # pass it back as `offset` for the next acts


class DecisionCoverage(msgspec.Struct, kw_only=True):
    built: bool
    built_at: str | None = None
    decisions: int = 0
    year_range: list[int] | None = None
    by_type: dict[str, int] = msgspec.field(default_factory=dict)
    sources: list[str] = msgspec.field(default_factory=list)  # the first MAX_SOURCES files the index was built from
    sources_total: int = 0
    complete_download: bool = False  # built from the Court's full open data: absences are authoritative


class LiveSource(msgspec.Struct, kw_only=True):
    name: str
    url: str
    used_for: str
    limits: str


class CoverageGap(msgspec.Struct, kw_only=True):
    what: str
    why: str
    fallback: str


class CoverageResult(msgspec.Struct, kw_only=True):
    """What the appliance covers (local indexes with dates, live sources) and what it does not, with fallbacks."""

    statutes: StatuteCoverage
    constitutional_court: DecisionCoverage
    live_sources: list[LiveSource]
    not_covered: list[CoverageGap]
    verify_limits: dict[str, int]
    dataset_note: str = DATASET_NOTE
    truncated: bool = False  # statutes.acts_list holds only part of the acts: see statutes.next_offset
    notes: list[str] = msgspec.field(default_factory=list)


MAX_SOURCES = 20
MAX_TITLE_CHARS = 300  # an act's full title is given by it_get_act
PAGE_CACHE_SECONDS = 600.0
PAGE_CACHE_ENTRIES = 2
MAX_RAW_CHARS = 300  # a citation's text as reported ('artt. 1, 2, 3, ... c.p.' can be any length)
MAX_FIELD_CHARS = 600  # any other text of a reported citation (details quote the citation)
_CHECKED_TEXTS = tuple(f for f in CheckedCitation.__struct_fields__ if f != "raw")


@tool("it_verify_citations", VerifyParams, VerifyAnswer, open_world=True)
async def it_verify_citations(app, text, at_date=None, offline=False, offset=0):
    """Check every legal citation in a text (at most 1,000,000 characters): statute articles with
    their commi, lettere and numeri (local index, then Normattiva with the act-identity check),
    Constitutional Court decisions (local index), Cassazione and administrative decisions (live);
    other courts, EU and regional acts are extracted and reported out_of_corpus. Each citation gets
    verified, not_found (with range hint and nearest existing articles), repealed, content_mismatch
    (its description fits another article), content_unconfirmed (fits none: review), or a typed gap
    with a fallback. status: VERIFIED | VERIFIED_WITH_GAPS (a pass) | NEEDS_REVIEW | NOTHING_VERIFIED |
    NO_CITATIONS_FOUND (not a pass) | HALLUCINATION_DETECTED (isError). status, summary and gaps
    always cover the whole text; identical citations are listed once with their occurrences and
    first positions, worst first (not_found first); when they do not all fit, pass next_offset back
    as offset (same text) for the rest. at_date (YYYY-MM-DD) checks the law in force on that date;
    offline=true uses only local indexes."""
    return await verify_answer(app, text, at_date=at_date, offline=offline, offset=offset)


async def verify_answer(app, text: str, *, at_date: str | None = None, offline: bool = False,
                        offset: int = 0) -> VerifyAnswer:
    """Verify `text` and answer one page within IT_ELI_MAX_ANSWER_CHARS.

    Why a cache: the next pages of a long report are asked with the same text, and checking it
    again for each page would cost a full verification per page. A check whose report did not fit
    is kept PAGE_CACHE_SECONDS (the newest PAGE_CACHE_ENTRIES texts) and serves offset > 0; offset
    0 always checks afresh (`checked_at` says when a page was checked)."""
    if not isinstance(offset, int) or offset < 0:
        raise InvalidArg(f"offset={offset}", valid="an offset from 0 (use next_offset)")
    text = check_input(text)
    max_chars = app.settings.max_answer_chars
    key = (hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), at_date, bool(offline))
    cache: TTLCache = app.extras.setdefault("verify_pages", TTLCache(maxsize=PAGE_CACHE_ENTRIES, ttl=PAGE_CACHE_SECONDS))
    hit = cache.get(key) if offset > 0 else None
    if hit is not None:
        return await in_thread(answer_page, hit[0], hit[1], offset=offset, max_chars=max_chars)
    result = await verify_text(app, text, at_date=at_date, offline=offline)
    reported = await in_thread(reported_citations, result)
    answer = await in_thread(answer_page, result, reported, offset=offset, max_chars=max_chars)
    if answer.truncated:
        cache[key] = (msgspec.structs.replace(result, citations=[], gaps=[]), reported)
    return answer


def answer_page(result: VerifyResult, reported: list[ReportedCitation] | None = None, *, offset: int = 0,
                max_chars: int) -> VerifyAnswer:
    """The MCP answer: status, summary and gap groups always whole; the distinct citations
    (`reported`, by default those of `result`) from `offset`, as many as fit in `max_chars` (and
    the envelope in ENVELOPE_CHARS)."""
    if reported is None:
        reported = reported_citations(result)
    total = len(reported)
    if offset < 0 or offset > total:
        raise InvalidArg(f"offset={offset}: the text has {total} distinct citations (status {result.status})",
                         valid=f"an offset from 0 to {total} (use next_offset)")
    answer = VerifyAnswer(
        status=result.status, is_error=result.is_error, needs_review=result.needs_review, summary=result.summary,
        distinct_citations=total, offset=offset, next_offset=total, truncated=False, citations=[],
        gaps=gap_groups(reported), at_date=result.at_date, offline=result.offline, checked_at=result.checked_at,
        notes=[*result.notes, _paging_note(total, total, total, total)],  # the widest note: measured, then rewritten
    )
    room = min(max_chars, max_chars + ENVELOPE_CHARS - _json_len(answer))
    page: list[ReportedCitation] = []
    used = 0
    for r in reported[offset:]:
        cost = _json_len(r) + 2  # ", " between entries
        if used + cost > room:
            if page:
                break
            r = _squeeze(r)  # one entry per page at least, so that paging always advances
            cost = _json_len(r) + 2
        page.append(r)
        used += cost
    nxt = offset + len(page)
    answer.citations = page
    answer.notes = list(result.notes)
    if nxt < total:
        answer.next_offset, answer.truncated = nxt, True
        answer.notes.append(_paging_note(len(page), total, offset, nxt))
    else:
        answer.next_offset = None
    return answer


def reported_citations(result: VerifyResult) -> list[ReportedCitation]:
    """The distinct citations as the answer lists them: each text clipped, so that one entry
    always fits a page whatever the text cited (a citation's text can be any length)."""
    return [_clip_texts(r) for r in distinct_citations(result)]


def _clip_texts(r: ReportedCitation) -> ReportedCitation:
    cut = {f: _clip(v, MAX_FIELD_CHARS) for f in _CHECKED_TEXTS
           if isinstance(v := getattr(r, f), str) and len(v) > MAX_FIELD_CHARS}
    if len(r.raw) > MAX_RAW_CHARS:
        cut["raw"] = _clip(r.raw, MAX_RAW_CHARS)
    return msgspec.structs.replace(r, **cut) if cut else r


def _paging_note(shown: int, total: int, offset: int, nxt: int) -> str:
    return (f"distinct citations {offset + 1}-{offset + shown} of {total} shown (worst first); for the rest call "
            f"again with the same text, at_date and offline, and offset={nxt}")


def _clip(text: str | None, n: int) -> str | None:
    return text if text is None or len(text) <= n else text[: n - 1] + "…"


def _squeeze(r: ReportedCitation) -> ReportedCitation:
    """A citation too big for a small budget: shorter texts, first position only."""
    return msgspec.structs.replace(
        r, raw=_clip(r.raw, 80), detail=_clip(r.detail, 200), range_hint=_clip(r.range_hint, 120),
        description=_clip(r.description, 80), positions=r.positions[:1],
    )


def _statute_coverage(store: StatuteStore) -> StatuteCoverage:
    acts: list[CachedAct] = []
    captures: list[str] = []
    newest_articles = 0
    for urn in store.list_acts():
        versions = store.versions(urn)
        if not versions:
            continue  # only single articles fetched through the API
        newest_articles += versions[0].article_count
        captures.extend(v.fetched_at for v in versions)
        title = versions[0].title
        if title and len(title) > MAX_TITLE_CHARS:
            title = title[: MAX_TITLE_CHARS - 1] + "…"
        acts.append(CachedAct(urn=urn, title=title, versions=[
            CachedVersion(version=v.version, article_count=v.article_count, fetched_at=v.fetched_at,
                          fresh=store.is_fresh(v.fetched_at)) for v in versions
        ]))
    return StatuteCoverage(
        acts=len(acts), articles_newest_versions=newest_articles, acts_list=acts,
        freshness_days=store.settings.statute_ttl_days, first_capture=min(captures) if captures else None,
        last_capture=max(captures) if captures else None,
    )


def _decision_coverage(app) -> DecisionCoverage:
    try:
        stats = app.decisions.stats()
    except IndexMissing:
        return DecisionCoverage(built=False)
    home_dl = str(app.settings.home / "downloads")
    sources = [str(s) for s in (stats.sources or [])]
    return DecisionCoverage(
        built=True, built_at=stats.built_at, decisions=stats.total, year_range=stats.year_range,
        by_type=dict(stats.by_type), sources=sources[:MAX_SOURCES], sources_total=len(sources),
        complete_download=bool(sources) and all(s.startswith(home_dl) for s in sources),
    )


def _live_sources(s) -> list[LiveSource]:
    """The upstreams verification asks when the local indexes cannot settle a citation, with their limits."""
    return [
        LiveSource(name="Normattiva portal (Akoma Ntoso export)", url=s.normattiva_url,
                   used_for="acts not in the local index: whole act, identity-checked, then cached",
                   limits="national acts only; regional laws and EU acts are not there"),
        LiveSource(name="Normattiva OpenData API", url=s.normattiva_api_url,
                   used_for="one article of an act by full URN (codes by their annex)",
                   limits="needs the act's full date; its 'act not found' is ambiguous, so the portal export decides"),
        LiveSource(name="Cassazione SentenzeWeb", url=s.sentenzeweb_url,
                   used_for="Cassazione decisions by number and year",
                   limits="a window of recent years; absence is a gap, never 'not found'"),
        LiveSource(name="Giustizia Amministrativa portal", url=s.ga_url,
                   used_for="Consiglio di Stato, C.G.A.R.S. and TAR decisions by number (year filtered locally)",
                   limits="only the newest page of results; absence is a gap, never 'not found'"),
    ]


def _coverage_gaps(cost: DecisionCoverage) -> list[CoverageGap]:
    """What it_eli does not cover, each with why and where to look instead."""
    return [
        CoverageGap(what="Constitutional Court decisions outside the local index",
                    why="the index holds only what was built" + ("" if cost.complete_download else " (not the Court's full download)"),
                    fallback="`it-eli index build` (full open data), or www.cortecostituzionale.it"),
        CoverageGap(what="acts not in the local statute index, when offline or Normattiva is unreachable",
                    why="no copy to check against", fallback="`it-eli statutes import FILE.xml`, or retry online"),
        CoverageGap(what="regional and provincial laws (l.r., l.p.)", why="outside Normattiva's national corpus as it_eli "
                    "reads it; citations are reported out_of_corpus", fallback=REGIONAL_FALLBACK),
        CoverageGap(what="EU acts (regulations, directives, GDPR, TFUE/TUE, the Charter)",
                    why="not Italian acts; citations are reported out_of_corpus", fallback=EU_FALLBACK),
        CoverageGap(what="the European Convention on Human Rights (CEDU)", why="not an Italian act; citations are "
                    "reported out_of_corpus", fallback=CEDU_FALLBACK),
        CoverageGap(what="preleggi and disposizioni di attuazione", why="annexes without their own URN here",
                    fallback="read them on normattiva.it"),
        CoverageGap(what="ordinary courts of merit (Tribunale, Corte d'appello, Corte d'assise)",
                    why="no open source wired in; their decisions are extracted and reported out_of_corpus",
                    fallback=COURT_FALLBACKS["TRIB"]),
        CoverageGap(what="Corte dei conti", why="no open source wired in; reported out_of_corpus",
                    fallback=COURT_FALLBACKS["CCONTI"]),
        CoverageGap(what="tax courts (Corte di giustizia tributaria, Commissioni tributarie)",
                    why="no open source wired in; reported out_of_corpus", fallback=COURT_FALLBACKS["TRIBUTARIA"]),
        CoverageGap(what="European courts: Court of Justice of the EU (CGUE) and Corte EDU",
                    why="not Italian courts; reported out_of_corpus",
                    fallback=COURT_FALLBACKS["CGUE"] + "; " + COURT_FALLBACKS["CEDU"]),
        CoverageGap(what="Cassazione and administrative decisions outside the live sources' window",
                    why="SentenzeWeb shows a window of years, the GA portal only its newest results: an absence is "
                    "out_of_corpus, never not_found", fallback="italgiure.giustizia.it, giustizia-amministrativa.it"),
        CoverageGap(what="commi of acts whose export does not number them (e.g. Costituzione, codice penale)",
                    why="the Akoma Ntoso export has no numbered paragraphs", fallback="read the article text (it_get_text)"),
        CoverageGap(what="numeri of an article whose text has no numbered items",
                    why="another numbering may be meant; reported lettera_not_checkable",
                    fallback="read the article text (it_get_text)"),
    ]


@tool("it_coverage", CoverageParams, CoverageResult)
async def it_coverage(app, offset=0):
    """What it_eli can check and since when: statute acts in the local index (versions, capture
    dates, freshness), the Constitutional Court index (build date, years, count, sources), the
    live sources and their limits, and what is not covered, each with a fallback. The acts come a
    page at a time when they do not all fit: pass statutes.next_offset back as offset."""
    if offset < 0:
        raise InvalidArg(f"offset={offset}", valid="an offset from 0 (use statutes.next_offset)")
    s = app.settings
    try:
        statutes = await asyncio.to_thread(_statute_coverage, app.statutes)
    except ItEliError as exc:
        # zero acts because the index cannot be read is not "no acts": say so in the answer
        note_serving(f"{exc.code}: {exc.message}" + (f"; {exc.valid}" if exc.valid else ""))
        statutes = StatuteCoverage(acts=0, articles_newest_versions=0, acts_list=[], freshness_days=s.statute_ttl_days,
                                   first_capture=None, last_capture=None)
    cost = await asyncio.to_thread(_decision_coverage, app)
    live = _live_sources(s)
    gaps = _coverage_gaps(cost)
    result = CoverageResult(
        statutes=statutes, constitutional_court=cost, live_sources=live, not_covered=gaps,
        verify_limits={"max_input_chars": MAX_INPUT_CHARS, "max_live_lookups_per_call": MAX_LIVE_LOOKUPS},
    )
    return _coverage_page(result, offset, s.max_answer_chars)


def _json_len(obj) -> int:
    """Characters of `obj` as the client receives it (see it_eli/mcp/budget.py)."""
    return len(json.dumps(msgspec.to_builtins(obj), ensure_ascii=False))


def _coverage_page(result: CoverageResult, offset: int, max_chars: int) -> CoverageResult:
    """Everything but the list of acts is small and fixed; the acts (one per imported or fetched
    act: unbounded) come from `offset`, as many as fit in `max_chars`."""
    acts = result.statutes.acts_list
    total = len(acts)
    if offset > total:
        raise InvalidArg(f"offset={offset}: the index holds {total} acts", valid=f"an offset from 0 to {total} (use statutes.next_offset)")
    result.statutes.acts_list, result.statutes.offset, result.statutes.next_offset = [], offset, total
    widest = _acts_note(total, total, total, total)
    result.notes = [widest]
    room = min(max_chars, max_chars + ENVELOPE_CHARS - _json_len(result))
    page: list[CachedAct] = []
    used = 0
    for act in acts[offset:]:
        cost = _json_len(act) + 2
        if used + cost > room:
            if page:
                break
            act, cost = _cut_versions(act, max(room, 0))  # one act per page at least: paging advances
        page.append(act)
        used += cost
    nxt = offset + len(page)
    result.statutes.acts_list = page
    result.notes = []
    if nxt < total:
        result.statutes.next_offset, result.truncated = nxt, True
        result.notes.append(_acts_note(len(page), total, offset, nxt))
    else:
        result.statutes.next_offset = None
    return result


def _acts_note(shown: int, total: int, offset: int, nxt: int) -> str:
    return f"statutes.acts_list holds acts {offset + 1}-{offset + shown} of {total}; call again with offset={nxt} for the rest"


def _cut_versions(act: CachedAct, room: int) -> tuple[CachedAct, int]:
    """An act with more versions than the budget holds: its newest versions, and how many it has."""
    keep = list(act.versions)
    cut = msgspec.structs.replace(act, versions=keep, versions_total=len(act.versions))
    while len(keep) > 1 and _json_len(cut) + 2 > room:
        keep = keep[: max(1, len(keep) // 2)]
        cut = msgspec.structs.replace(act, versions=keep, versions_total=len(act.versions))
    if len(keep) == len(act.versions):
        cut = act
    return cut, _json_len(cut) + 2
