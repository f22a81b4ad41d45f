"""Constitutional Court tools over the local index (no MCP import: the server adapts these)."""

from __future__ import annotations

from typing import Annotated, Literal

import asyncio
import logging

import msgspec
from msgspec import Meta

from it_eli.search.decisions.arguments import validate_decision_ref
from it_eli.search.decisions.model import (
    PROVENANCE,
    CaseSearchResult,
    CaseStats,
    DecisionHeader,
    RecentResult,
    StoredDecision,
)
from it_eli.runtime.errors import IndexMissing, InvalidArg, ItEliError
from it_eli.search.query import HitWindow
from .paging import page_end, page_size
from .registry import tool

log = logging.getLogger(__name__)


class DecisionPart(msgspec.Struct, frozen=True):
    part: Literal["epigrafe", "testo", "dispositivo"]
    text: str
    offset: int  # where this slice starts within the part
    part_chars: int


class DecisionText(DecisionHeader, kw_only=True):
    """A decision's full text by part, paged over the concatenation of the parts."""

    parts: list[DecisionPart]
    offset: int
    total_chars: int
    next_offset: int | None
    source_url: str
    dataset_note: str = PROVENANCE


class CaseSearchParams(msgspec.Struct, kw_only=True):
    query: Annotated[str, Meta(description='Words, "phrases", AND/OR/NOT, -word, word*, field:word (see the tool description).')]
    anno: Annotated[int | None, Meta(description="Only decisions of this year (1956 onwards).")] = None
    year_from: Annotated[int | None, Meta(description="Only decisions from this year on.")] = None
    year_to: Annotated[int | None, Meta(description="Only decisions up to this year.")] = None
    tipologia: Annotated[str | None, Meta(description="sentenza or ordinanza (S / O).")] = None
    relatore: Annotated[str | None, Meta(description="The reporting judge's surname.")] = None
    limit: Annotated[int, Meta(ge=1, le=50, description="Hits per page.")] = 10
    offset: Annotated[int, Meta(ge=0, le=10_000, description="Hits to skip (paging).")] = 0


class CaseGetParams(msgspec.Struct, kw_only=True):
    ecli: Annotated[str | None, Meta(description="ECLI:IT:COST:<year>:<number>, e.g. ECLI:IT:COST:2014:238.")] = None
    anno: Annotated[int | str | None, Meta(description="Year of the decision (with numero, instead of ecli).")] = None
    numero: Annotated[int | str | None, Meta(description="Number of the decision (with anno), or number/year as cited: 238/2014.")] = None
    max_chars: Annotated[int, Meta(ge=1, description="Characters of text in this answer (at most the server's answer budget, IT_ELI_MAX_ANSWER_CHARS).")] = 20_000
    offset: Annotated[int, Meta(ge=0, description="Where this page starts: pass next_offset back.")] = 0


class CaseRecentParams(msgspec.Struct, kw_only=True):
    limit: Annotated[int, Meta(ge=1, le=50, description="How many decisions, newest deposit first.")] = 10


class NoParams(msgspec.Struct, kw_only=True):
    pass


async def ensure_decisions(app) -> None:
    """Provision the index on first use: the pre-built archive at IT_ELI_CASELAW_INDEX_URL when
    one is configured (checked against IT_ELI_CASELAW_INDEX_SHA256), else, or when that archive is
    unavailable or refused, a build from the Court's open data; switched off -> index_missing. An
    index of an older schema is replaced the same way when automatic builds are on (else, or when
    that fails, the search reports index_schema_mismatch with the command)."""
    outdated = app.decisions.exists() and not app.decisions.compatible()
    if app.decisions.exists() and (not outdated or not app.settings.auto_build):
        return
    if not app.settings.auto_build:
        raise IndexMissing(
            "the Constitutional Court index has not been built yet",
            valid="run `it-eli index build` (offline: `it-eli index build --source P_json2001_oggi.zip`) "
                  "or `it-eli index import ARCHIVE`",
            command="it-eli index build",
        )
    async with app.build_lock:
        if app.decisions.exists() and app.decisions.compatible():
            return
        prebuilt_failure = ""
        url = app.settings.caselaw_index_url
        if url:
            from it_eli.services.index_build import import_from

            try:
                report = await import_from(app, url, sha256=app.settings.caselaw_index_sha256)
                log.info("case-law index imported from %s (sha256 %s) in %.1fs", url, report.sha256, report.seconds)
                return
            except ItEliError as exc:
                prebuilt_failure = f"the pre-built index at {url} was not used ({exc.code}: {exc.message}); "
                log.warning("%sbuilding from the open data instead", prebuilt_failure)
        from it_eli.services.index_build import build_from_sources
        from it_eli.runtime.progress import report as report_progress

        # minutes of work inside one call: say so at once (clients with a progress token see it)
        report_progress("building the Constitutional Court index (first use)", 0)
        # the build outlives the call that started it (a call's deadline must not kill it); it
        # reports its progress to the call that started it (the task copies that call's context)
        task = app.extras.get("first_build")
        if task is None or task.done():
            task = app.extras["first_build"] = asyncio.ensure_future(build_from_sources(app, None))
        try:
            report = await asyncio.shield(task)
        except ItEliError as exc:
            if outdated:
                return
            raise IndexMissing(
                f"{prebuilt_failure}the Constitutional Court index has not been built and building it from the open data failed: {exc.message}",
                valid="run `it-eli index build` when online, or `it-eli index build --source FILE.zip` with a downloaded archive",
                command="it-eli index build",
            )
        if not report.published and not outdated:
            raise IndexMissing(
                prebuilt_failure + "the Constitutional Court index could not be built from the open data: " + "; ".join(report.errors[:3]),
                valid="run `it-eli index build --source FILE.zip` with a downloaded archive",
                command="it-eli index build",
            )


@tool("it_case_search", CaseSearchParams, CaseSearchResult)
async def it_case_search(app, query, anno=None, year_from=None, year_to=None, tipologia=None, relatore=None, limit=10, offset=0):
    """Search the Italian Constitutional Court's decisions (every sentenza and ordinanza since 1956)
    with Italian stemming and accent folding (a word also finds its singular/plural; accents are
    optional). One or two words must all match (documents with only some of them then fill the
    list, said in notes); longer queries are ranked by relevance over all their words; "quoted
    phrases" ("phrase"~3: words at most 3 apart); AND/OR/NOT and -word / -"phrase"; word* (prefix),
    word~ (spelling distance), word^2 (weight); field:word or field:(a OR b) for epigrafe, testo,
    dispositivo, relatore; anno:YYYY and tipologia:sentenza|ordinanza inside the query act as the filters.
    Filters: anno, year_from/year_to, tipologia (sentenza|ordinanza), relatore. Returns ranked hits
    with ECLI, Italian citation, deposit date, highlighted snippet, plus facet counts by year and type."""
    await ensure_decisions(app)
    return await asyncio.to_thread(
        app.decisions.search, query, anno=anno, year_from=year_from, year_to=year_to,
        tipologia=tipologia, relatore=relatore, window=HitWindow(start=offset, size=limit),
    )


@tool("it_case_get_decision", CaseGetParams, DecisionText)
async def it_case_get_decision(app, ecli=None, anno=None, numero=None, max_chars=20_000, offset=0):
    """Full text of one Constitutional Court decision by ECLI (ECLI:IT:COST:2014:238) or by anno +
    numero, split into epigrafe / testo / dispositivo. Long decisions are paged: pass next_offset
    back as offset; max_chars bounds the answer."""
    await ensure_decisions(app)
    # the errors in the order they always came: which decision, then the page, then the lookup
    ecli, anno, numero = validate_decision_ref(ecli, anno, numero)
    size = page_size(app.settings.max_answer_chars, max_chars)
    if offset < 0:
        raise InvalidArg(f"offset={offset}", valid="0 or a positive integer (use next_offset)")

    def get_page() -> DecisionText:
        whole = app.decisions.get_decision(ecli=ecli, anno=anno, numero=numero)
        return decision_page(whole, offset, size, app.settings.max_answer_chars)

    return await asyncio.to_thread(get_page)


def decision_page(d: StoredDecision, offset: int, max_chars: int, budget: int) -> DecisionText:
    """The page of `d` from `offset` over its parts joined: at most `max_chars` characters, and
    at most `budget` once JSON-encoded (it_eli.mcp.budget); each part's slice says where it starts."""
    total = d.total_chars
    if offset > total:
        raise InvalidArg(f"offset={offset} is past the end", valid=f"an offset from 0 to {total}")
    end = page_end("".join(p.text for p in d.parts), offset, max_chars, budget)
    parts: list[DecisionPart] = []
    pos = 0
    for p in d.parts:
        start, stop = pos, pos + len(p.text)
        lo, hi = max(start, offset), min(stop, end)
        if lo < hi:
            parts.append(DecisionPart(part=p.part, text=p.text[lo - start : hi - start], offset=lo - start,
                                      part_chars=len(p.text)))
        pos = stop
    header = {f: getattr(d, f) for f in DecisionHeader.__struct_fields__}
    return DecisionText(**header, parts=parts, offset=offset, total_chars=total,
                        next_offset=end if end < total else None, source_url=d.source_url)


@tool("it_case_recent", CaseRecentParams, RecentResult)
async def it_case_recent(app, limit=10):
    """The most recently deposited Constitutional Court decisions in the local index."""
    await ensure_decisions(app)
    return await asyncio.to_thread(app.decisions.recent, limit)


@tool("it_case_stats", NoParams, CaseStats)
async def it_case_stats(app):
    """What the local Constitutional Court index holds: totals, year range, counts by type, build
    time, sources, schema version, origin (built here from which open-data sources, or imported
    from which archive with its sha256) and provenance (licence CC BY-SA 3.0, Corte costituzionale)."""
    await ensure_decisions(app)
    return await asyncio.to_thread(app.decisions.stats)
