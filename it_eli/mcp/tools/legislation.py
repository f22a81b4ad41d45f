"""Legislation tools: the MCP adapter of `it_eli.services.legislation`.

Codes, offline resolution, act metadata, article/act text and statute search as MCP tools: the
service finds the answer; this module only shapes it into the answer Structs, cuts it to the
answer budget and pages it (`max_chars`, `offset`/`next_offset`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from it_eli.mcp.budget import json_cost
from it_eli.runtime.errors import InvalidArg, ItEliError, NotAvailable, NotFound
from it_eli.law import codes
from it_eli.law import urn as urnmod
from it_eli.law.scanner.model import Partitions
from it_eli.runtime import clock
from it_eli.sources.normattiva.akn_fragment import article_xml
from it_eli.law.provision_status import ProvisionEvent, describe
from it_eli.law.provision_status import (
    ProvisionStatus,
    article_status,
    comma_status,
    status_notes,
    whole_status,
)
from it_eli.search.query import HitWindow
from it_eli.services.references import CitedDecision, Kind, ReferenceIdentity, identify_reference
from it_eli.services.legislation.articles import ServedArticle, served_article
from it_eli.services.legislation.acts import RETRY_HELP, UNREACHABLE, act_version
from it_eli.services.legislation.targets import (
    read_article_key,
    check_date,
    resolution_of,
    resolve_reference,
    SHARED_URN_CODES,
)
from it_eli.search.statutes.store import StatuteStore
from it_eli.search.statutes.search import StatuteSearchResult
from it_eli.search.statutes.records import DATASET_NOTE, StoredArticle, statute_citation
from . import paging
from .paging import next_hit_offset, page_size
from .registry import tool

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- contract

class CodeInfo(msgspec.Struct, kw_only=True):
    id: str
    name: str
    abbreviation: str
    aliases: list[str]
    urn: str | None  # None for EU and international acts (not on Normattiva): see eli / celex
    api_urn: str | None
    act_type: str
    number: str
    date: str
    human_readable_citation: str
    source_url: str
    family: str = "codice"  # codice | costituzione | ue | internazionale
    eli: str | None = None
    celex: str | None = None


class CodesResult(msgspec.Struct, kw_only=True):
    """The codes and major acts it_eli knows by name, with the URN Normattiva resolves."""

    codes: list[CodeInfo]
    dataset_note: str = DATASET_NOTE


class ResolveResult(msgspec.Struct, kw_only=True):
    """Offline: what a reference names (an Italian act, an EU act or treaty, an international
    convention, a court decision), its identifiers, an Italian citation and where to read it;
    `warnings` say what the reference did not give."""

    kind: Kind = "act"  # act (Italian, URN:NIR) | eu_act (ELI/CELEX) | international | decision (ECLI)
    urn: str | None  # Italian acts: URN:NIR, with ~artN when an article is cited
    act_urn: str | None
    api_urn: str | None  # form the OpenData API wants (annex for codes); None if partial
    human_readable_citation: str
    source_url: str | None
    act_type: str | None
    act_type_abbreviation: str | None
    year: int | None
    number: str | None
    date: str | None
    partial: bool  # a year-only URN (the text gave no full date)
    article: str | None = None
    code_id: str | None = None
    code_name: str | None = None
    warnings: list[str] = []
    partitions: Partitions = msgspec.field(default_factory=Partitions)  # comma, lettera, par. ... as written
    eli: str | None = None  # EU acts: the ELI (eli_uri is an Italian act's ELI on Normattiva)
    celex: str | None = None
    decision: CitedDecision | None = None  # kind decision: court, seat, section, number, year, ECLI
    eli_uri: str | None = None
    dataset_note: str = DATASET_NOTE


class ActInfo(msgspec.Struct, kw_only=True):
    """An act's identity, in-force version and article count/range."""

    urn: str
    eli_uri: str | None
    human_readable_citation: str
    source_url: str
    title: str | None
    act_type: str | None
    number: str | None
    date: str | None
    in_force_date: str | None
    version_note: str
    article_count: int
    first_article: str | None
    last_article: str | None
    article_keys: list[str]
    cached_versions: list[str]
    served_from: Literal["local_index", "normattiva_portal"]
    stale: bool
    fetched_at: str
    notes: list[str] = msgspec.field(default_factory=list)
    dataset_note: str = DATASET_NOTE


class CommaText(msgspec.Struct, frozen=True):
    num: str
    text: str
    # 'repealed' / 'declared_unconstitutional' when the export records it for this comma
    status: ProvisionStatus = "in_force"


class TextResult(msgspec.Struct, kw_only=True):
    """One article (or the whole act) as in force today or on `at_date`, paged by characters."""

    urn: str
    eli_uri: str | None
    human_readable_citation: str
    source_url: str
    article: str | None
    heading: str | None
    text: str
    commi: list[CommaText]
    repealed: bool
    amended: bool
    format: Literal["text", "akn_xml"]
    at_date: str | None
    in_force_date: str | None
    valid_to: str | None
    version_note: str
    served_from: Literal["local_index", "normattiva_api", "normattiva_portal"]
    stale: bool
    fetched_at: str
    offset: int
    total_chars: int
    next_offset: int | None
    original: bool = False  # the original text (URN @originale / ELI ORIGINAL), not a consolidated one
    notes: list[str] = msgspec.field(default_factory=list)
    dataset_note: str = DATASET_NOTE
    # whether the words served are law in force on the day asked, from the export's own record
    # (repeal notices, Constitutional Court declarations, conversion laws); see `lifecycle`
    provision_status: ProvisionStatus = "in_force"
    lifecycle: list[ProvisionEvent] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)  # parts not in force, partial declarations


# ---------------------------------------------------------------- params

class NoParams(msgspec.Struct, kw_only=True):
    pass


class ResolveParams(msgspec.Struct, kw_only=True):
    act_type: Annotated[str | None, Meta(description="l., legge, d.lgs., d.l., d.P.R., r.d. ... or a code name.")] = None
    year: Annotated[int | str | None, Meta(description="Year of the act.")] = None
    number: Annotated[int | str | None, Meta(description="Number of the act.")] = None
    date: Annotated[str | None, Meta(description="Date of the act, YYYY-MM-DD (when the number repeats within a year).")] = None
    article: Annotated[str | None, Meta(description="Article: 21, 21-septies, 25-bis.1, XVIII (Costituzione's transitional provisions).")] = None
    reference: Annotated[str | None, Meta(description="A reference as a lawyer writes it (art. 2043 c.c., l. 241/1990, d.lgs. 231/2001 art. 25-bis), a code name, a URN:NIR, an ELI path or a normattiva.it URL. Instead of act_type/year/number.")] = None


class GetActParams(msgspec.Struct, kw_only=True):
    reference: Annotated[str, Meta(description="A reference as a lawyer writes it (art. 2043 c.c., l. 241/1990, d.lgs. 231/2001 art. 25-bis), a code name, a URN:NIR, an ELI path or a normattiva.it URL.")]
    at_date: Annotated[str | None, Meta(description="YYYY-MM-DD: the text in force on that day (default today).")] = None


class GetTextParams(msgspec.Struct, kw_only=True):
    reference: Annotated[str, Meta(description="A reference as a lawyer writes it (art. 2043 c.c., l. 241/1990, d.lgs. 231/2001 art. 25-bis), a code name, a URN:NIR, an ELI path or a normattiva.it URL.")]
    article: Annotated[str | None, Meta(description="Article, when the reference names none: 2043, 21-septies, 25-bis.1.")] = None
    at_date: Annotated[str | None, Meta(description="YYYY-MM-DD: the text in force on that day (default today).")] = None
    format: Annotated[Literal["text", "akn_xml"], Meta(description="text, or the Akoma Ntoso XML.")] = "text"
    max_chars: Annotated[int | None, Meta(description="Characters in this answer, >= 1 (at most the server's answer budget).")] = None
    offset: Annotated[int, Meta(ge=0, description="Where this page starts: pass next_offset back.")] = 0


class SearchStatutesParams(msgspec.Struct, kw_only=True):
    query: Annotated[str, Meta(description='Words, "phrases", AND/OR/NOT, -word, word*, rubrica:word / testo:word.')]
    act: Annotated[str | None, Meta(description="Only this act: a code name, URN or 'l. 241/1990'.")] = None
    limit: Annotated[int, Meta(ge=1, le=50, description="Hits per page.")] = 10
    offset: Annotated[int, Meta(ge=0, le=10_000, description="Hits to skip: pass next_offset back.")] = 0
    at_date: Annotated[str | None, Meta(description="YYYY-MM-DD: the text in force on that day (default today).")] = None


# ---------------------------------------------------------------- errors

def _statute_errors(fn):
    """Every unavailability the legislation tools report says what would work (`valid`)."""

    @functools.wraps(fn)
    async def wrapper(app, **kwargs):
        try:
            return await fn(app, **kwargs)
        except UNREACHABLE as exc:
            if not exc.valid:
                exc.valid = RETRY_HELP
            raise

    return wrapper


def _version_note(in_force_date: str | None, at_date: str | None, stale: bool, valid_to: str | None = None,
                  *, original: bool = False) -> str:
    if original:
        base = "original text as published (the first version, not a consolidated one)"
        if in_force_date:
            base += f"; in force from {in_force_date}" + (f" to {valid_to}" if valid_to else "")
    elif at_date:
        base = f"text in force on {at_date}"
        if in_force_date:
            base += f" (version in force from {in_force_date}" + (f" to {valid_to})" if valid_to else ")")
    elif in_force_date:
        base = f"text in force today according to the version of {in_force_date}"
    else:
        base = "original text as published (no consolidated version)"
    if stale and not at_date and not original and in_force_date:
        # past its freshness window and not confirmed by Normattiva: never called "in force today"
        return (f"newest version held locally, dated {in_force_date}; not confirmed current (Normattiva could not "
                "be reached and the local copy is past its freshness window)")
    if stale:
        base += (
            "; served from the local index because Normattiva could not be reached — it may be out of date"
            + (f" (no cached copy is known to be the text in force on {at_date})" if at_date else "")
        )
    return base


def _eli_uri(eli: str | None) -> str | None:
    if not eli:
        return None
    return "https://www.normattiva.it/" + eli.lstrip("/")


# ---------------------------------------------------------------- tools

@tool("it_list_codes", NoParams, CodesResult)
async def it_list_codes(app):
    """The Italian codes and major acts it_eli knows by name (Costituzione, codice civile, penale,
    procedura civile e penale, privacy, CAD, D.Lgs. 231/2001, L. 241/1990, codice della strada,
    contratti pubblici, consumo, TUIR, TUEL, navigazione ...), each with the URN Normattiva resolves,
    the OpenData API form and the Italian citation."""
    base = app.settings.normattiva_url
    out = [
        CodeInfo(
            id=c.id, name=c.name, abbreviation=c.abbreviation, aliases=list(c.aliases), urn=c.urn or None,
            api_urn=c.api_urn or None, act_type=c.act_type, number=c.number, date=c.date,
            human_readable_citation=c.act_citation, family=c.family, eli=c.eli, celex=c.celex,
            source_url=urnmod.portal_url(c.urn, base) if c.urn else urnmod.eu_source_url(c.celex, c.eli),
        )
        for c in codes.CODES
    ]
    return CodesResult(codes=out)


@tool("it_resolve", ResolveParams, ResolveResult)
async def it_resolve(app, act_type=None, year=None, number=None, date=None, article=None, reference=None):
    """Offline: act type (as people write it: 'l.', 'legge', 'd.lgs', 'dlgs', 'd.l.', 'dpr', 'r.d.',
    or a code name) + year + number (+ date, + article) -> URN:NIR, Italian citation and the
    normattiva.it page. Or `reference` alone: any citation the extractor reads (URN, ELI,
    normattiva.it URL, 'art. 3 Cost.', 'l. 241/1990', 'art. 6, par. 1, lett. f), GDPR', 'Cass. civ.,
    sez. III, n. 6597/2021', an ECLI); `kind` says what it names (act, eu_act, international,
    decision), with ELI/CELEX or court, section, number, year and ECLI, the partitions cited, and
    warnings for what the reference does not give. No network."""
    base = app.settings.normattiva_url
    store: StatuteStore = app.statutes
    if act_type in (None, "") and reference in (None, ""):
        raise InvalidArg("give act_type (with year and number) or reference",
                         valid="act_type='l.', year=1990, number=241 — or reference='urn:nir:stato:legge:1990-08-07;241'")
    if reference not in (None, "") and any(v not in (None, "") for v in (act_type, year, number, date)):
        # two descriptions of the act: never pick one silently
        raise InvalidArg("give either reference or act_type/year/number/date, not both",
                         valid="reference='l. 241/1990' (article optional) — or act_type='l.', year=1990, number=241")
    if act_type in (None, ""):
        other = identify_reference(reference, portal_base=base) if isinstance(reference, str) else None
        if other is not None:
            return _resolved_other(other, article)
        target = await asyncio.to_thread(resolve_reference, store, reference, portal_base=base)
        key = None
        raw = article if article not in (None, "") else target.article
        if raw is not None:
            key = read_article_key(raw, costituzione=target.is_costituzione)
        res = resolution_of(target, key, base)
    else:
        res = urnmod.resolve(act_type, year, number, date, article=article, base_url=base)
    eli = None
    try:
        found = await asyncio.to_thread(store.versions, res.act_urn)
        eli = _eli_uri(found[0].eli) if found else None
    except ItEliError:
        eli = None
    partitions = target.partitions if act_type in (None, "") else Partitions()
    return ResolveResult(**msgspec.structs.asdict(res), partitions=partitions, eli_uri=eli)


def _resolved_other(other: ReferenceIdentity, article) -> ResolveResult:
    """A decision, an EU or international act, or a numberless act: the scanner's reading as is."""
    warnings = list(other.warnings)
    if article not in (None, ""):
        if other.kind == "decision":
            raise InvalidArg(f"article={article!r} goes with an act, and the reference names a decision",
                             valid="reference alone for a decision; article with an act's reference")
        if other.article not in (None, str(article)):
            raise InvalidArg(f"the reference names art. {other.article} and article={article!r}",
                             valid="the article in the reference or in `article`, not two different ones")
    return ResolveResult(
        kind=other.kind, urn=other.urn, act_urn=other.act_urn, api_urn=None,
        human_readable_citation=other.citation, source_url=other.source_url, act_type=other.act_type,
        act_type_abbreviation=None, year=other.year, number=other.number, date=other.date,
        partial=other.kind == "act" and other.date is None, article=other.article or (str(article) if article else None),
        code_id=other.code_id, code_name=other.code_name, warnings=warnings, partitions=other.partitions,
        eli=other.eli, celex=other.celex, decision=other.decision,
    )


@tool("it_get_act", GetActParams, ActInfo, open_world=True)
@_statute_errors
async def it_get_act(app, reference, at_date=None):
    """Metadata of an act by code name, URN, ELI path or normattiva.it URL: URN and ELI, title,
    Italian citation, the version in force (today or on at_date), article count and range, and the
    article keys. Served from the local statute index when fresh, else fetched from Normattiva."""
    at = check_date(at_date)
    store: StatuteStore = app.statutes
    target = await asyncio.to_thread(resolve_reference, store, reference, portal_base=app.settings.normattiva_url)
    at = at or target.at_date
    version, served_from, stale, notes = await act_version(app, target, at, want_keys=True)
    src = {"act_type": version.act_type, "act_number": version.number, "act_date": version.date,
           "act_year": version.year, "act_title": version.title, "urn": version.urn}
    return ActInfo(
        urn=version.urn, eli_uri=_eli_uri(version.eli), human_readable_citation=statute_citation(src), source_url=version.source_url,
        title=version.title, act_type=version.act_type, number=version.number, date=version.date,
        in_force_date=version.in_force_date,
        version_note=_version_note(version.in_force_date, at, stale, original=target.original),
        article_count=version.article_count, first_article=version.first_article, last_article=version.last_article,
        article_keys=version.keys[:3000], cached_versions=[v.version for v in await asyncio.to_thread(store.versions, version.urn)],
        served_from=served_from, stale=stale, fetched_at=version.fetched_at, notes=target.notes + notes,
    )


def _article_result(served: ServedArticle, size: int, offset: int) -> TextResult:
    """The MCP answer for a served article: its text paged to `size`, lifecycle and commi within budget."""
    a, at_date, stale, notes = served.article, served.at_date, served.stale, served.notes
    original, amended_by = served.original, served.amended_by
    day = at_date or clock.today_iso()
    src = {"act_type": a.act_type, "act_number": a.act_number, "act_date": a.act_date, "act_year": a.act_year,
           "act_title": a.act_title, "urn": a.urn}
    events, warnings, cut = _bounded_lifecycle(a.lifecycle, day, size // 5)
    if cut:
        notes = list(notes) + [cut]
    page, nxt = paging.page(a.text, offset, max(1, size - json_cost(msgspec.json.encode(events).decode())
                                          - sum(json_cost(w) + 4 for w in warnings)))
    status = article_status(a.lifecycle, day, repealed_flag=a.repealed, commi=[c.num for c in a.commi])
    last = a.commi[-1].num if a.commi else None
    commi = [CommaText(num=c.num, text=c.text, status=comma_status(a.lifecycle, c.num, last, day)[0])
             for c in a.commi] if offset == 0 and nxt is None else []
    if commi and json_cost(page) + sum(json_cost(c.text) + len(c.num) + 40 for c in commi) > size:
        # the commi repeat the text: send them only when both fit the answer budget
        commi = []
        notes = list(notes) + ["commi omitted: the article's text already holds them and both would not fit one answer"]
    version_note = _version_note(a.in_force_date, at_date, stale, a.valid_to, original=original)
    if original and a.amended and a.kind == "act" and a.act_type == "decreto.legge":
        warnings = [*warnings, "Normattiva's ORIGINAL export of a converted decree-law also carries changes made on "
                    "conversion (marked (( )) in the export): this wording may differ from the decree as published "
                    "in the G.U."]
    warnings = [*a.text_gaps, *warnings]
    if amended_by and a.in_force_date and not original:
        version_note = (f"newest version held locally, dated {a.in_force_date}; not confirmed current: the local "
                        f"store holds later act(s) that amend this act ({'; '.join(amended_by)})")
    out = whole_status(a.lifecycle, day, [c.num for c in a.commi])
    whole = out[1] if out else None
    if whole is not None:
        version_note = (f"NOT law in force{' on ' + at_date if at_date else ''}: {describe(whole)}. The words below "
                        f"are the export's record of the text, not a rule that applies ({version_note})")
    elif status == "repealed":
        version_note = f"NOT law in force: the article is repealed (abrogato) ({version_note})"
    elif status == "partly_affected":
        version_note += "; parts of it are repealed or were declared unconstitutional: see warnings"
    return TextResult(
        urn=a.urn, eli_uri=_eli_uri(a.eli or served.eli), human_readable_citation=statute_citation(src, a.article),
        source_url=a.source_url, article=a.article, heading=a.heading, text=page,
        commi=commi,
        repealed=a.repealed, amended=a.amended, format="text", at_date=at_date, in_force_date=a.in_force_date,
        valid_to=a.valid_to,
        version_note=version_note,
        served_from=served.served_from, stale=stale, fetched_at=a.fetched_at, offset=offset, total_chars=len(a.text),
        next_offset=nxt, original=original, notes=notes, provision_status=status, lifecycle=events,
        warnings=warnings,
    )


def _bounded_lifecycle(events: list[ProvisionEvent], day: str, budget: int
                       ) -> tuple[list[ProvisionEvent], list[str], str | None]:
    """The lifecycle events and their warnings within `budget` characters each: what takes a
    whole provision out of force first, then the partial declarations (l. 296/2006 art. 1 has
    hundreds). Says how many were left out."""
    ordered = sorted(events, key=lambda e: (e.partial, e.scope not in ("act", "article")))
    kept: list[ProvisionEvent] = []
    warnings: list[str] = []
    cost_e = cost_w = 0
    for e in ordered:
        w = status_notes([e], day)
        ce = len(msgspec.json.encode(e)) + 1
        cw = sum(json_cost(x) + 4 for x in w)
        if cost_e + ce > budget or cost_w + cw > budget:
            break
        kept.append(e)
        warnings.extend(w)
        cost_e += ce
        cost_w += cw
    if len(kept) == len(events):
        return list(events), warnings, None
    return kept, warnings, (f"lifecycle: {len(kept)} of {len(events)} recorded events shown (the ones that take "
                            "a whole provision out of force first); the rest are in the act's AKN notes")


def _article_label(a: StoredArticle) -> str:
    """The printed label ('Art. 21-septies.', 'XVIII', 'Articolo 19'): the parser keeps it whole."""
    num = (a.num or "").strip()
    if not num:
        return f"Art. {a.article}"
    return num if re.match(r"(?i)art|[ivxlc]+$", num) else f"Art. {num}"


@tool("it_get_text", GetTextParams, TextResult, open_world=True)
@_statute_errors
async def it_get_text(app, reference, article=None, at_date=None, format="text", max_chars=None, offset=0):
    """Text of one article (or of the whole act) by code name, URN, ELI or normattiva.it URL,
    as in force today or on at_date (YYYY-MM-DD, multivigenza). format=akn_xml gives the Akoma Ntoso
    export. Long answers are paged: pass next_offset back as offset. Every answer carries urn,
    eli_uri, human_readable_citation, source_url and says which version it is."""
    at = check_date(at_date)
    size = page_size(app.settings.max_answer_chars, max_chars)
    store: StatuteStore = app.statutes
    target = await asyncio.to_thread(resolve_reference, store, reference, portal_base=app.settings.normattiva_url)
    at = at or target.at_date
    raw = article if article not in (None, "") else target.article
    key = read_article_key(raw, costituzione=target.is_costituzione) if raw is not None else None
    if key and target.code_id in SHARED_URN_CODES:
        raise NotAvailable(
            f"the {codes.CODES_BY_ID[target.code_id].name} share the URN of the R.D. that approves the codice civile "
            f"({target.urn}), whose articles carry the same numbers: it_eli cannot tell art. {key} of one from the "
            "other's, and will not serve the wrong one",
            valid="the article's text on normattiva.it (annex 1 of R.D. 16 marzo 1942, n. 262), or 'c.c.' for the codice civile",
        )
    if key and format == "text":
        return _article_result(await served_article(app, target, key, at), size, offset)
    version, served_from, stale, notes = await act_version(app, target, at)
    notes = target.notes + notes
    src = {"act_type": version.act_type, "act_number": version.number, "act_date": version.date,
           "act_year": version.year, "act_title": version.title, "urn": version.urn}
    if format == "akn_xml":
        raw_xml = await asyncio.to_thread(store.raw_xml, version.urn, version.version)
        if raw_xml is None:
            raise NotAvailable("the Akoma Ntoso export of this version is not kept locally", valid="format='text'")
        if key:
            part = await asyncio.to_thread(article_xml, raw_xml, key)
            if part is None:
                raise NotFound(f"art. {key} is not in the Akoma Ntoso export of {version.title or version.urn} "
                               f"(version {version.version})", valid="an article of the act (see it_get_act), or no "
                               "article for the whole export")
            raw_xml = part
            notes.append(f"the Akoma Ntoso XML of art. {key} only, cut from the export of version {version.version}")
        full = raw_xml.decode("utf-8", "replace")
    else:
        articles = await asyncio.to_thread(store.articles, version.urn, version.version)
        full = "\n\n".join(
            _article_label(a) + (f" - {a.heading}" if a.heading else "") + "\n" + a.text for a in articles
        )
    page, nxt = paging.page(full, offset, size)
    return TextResult(
        urn=version.urn, eli_uri=_eli_uri(version.eli), human_readable_citation=statute_citation(src),
        source_url=version.source_url, article=None, heading=version.title, text=page, commi=[], repealed=False,
        amended=False, format=format, at_date=at, in_force_date=version.in_force_date, valid_to=None,
        version_note=_version_note(version.in_force_date, at, stale, original=target.original),
        served_from=served_from, stale=stale, fetched_at=version.fetched_at, offset=offset, total_chars=len(full),
        next_offset=nxt, original=target.original, notes=notes,
    )


@tool("it_search_statutes", SearchStatutesParams, StatuteSearchResult)
async def it_search_statutes(app, query, act=None, limit=10, offset=0, at_date=None):
    """Full-text search (Italian stemming, accent folding) over the local statute index: every
    article it_eli has fetched or imported, each once, in its text in force today (or on at_date,
    YYYY-MM-DD). Optional act: a code name, URN or 'l. 241/1990'. Hits with urn, article, heading,
    highlighted snippet, eli, in-force date and citation; total counts articles, not versions;
    pages with offset / next_offset. Same query language as it_case_search."""
    at = check_date(at_date)
    store: StatuteStore = app.statutes
    urn = None
    if act:
        target = await asyncio.to_thread(resolve_reference, store, act, portal_base=app.settings.normattiva_url)
        if not target.urn or target.urn not in await asyncio.to_thread(store.list_acts):
            raise NotFound(f"{act!r} is not in the local statute index", valid="fetch it first with it_get_act, or omit act")
        urn = target.urn
    window = HitWindow(start=offset, size=limit)
    res = await asyncio.to_thread(store.search, query, urn=urn, window=window, at_date=at)
    return msgspec.structs.replace(res, next_offset=next_hit_offset(window, res.total))
