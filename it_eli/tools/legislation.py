"""Legislation tools: codes, offline resolution, act metadata, article/act text, statute search.

Order of channels for a text: the local statute index when it holds a fresh copy; otherwise the
OpenData API for one article (about 1 KB) or the portal's Akoma Ntoso export for a whole act;
every text fetched is stored. When Normattiva cannot be reached, a cached copy is served marked
`stale`; with nothing cached the answer is `upstream_unavailable` — never "does not exist".
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from typing import Literal

import msgspec

from ..budget import fit_end, json_cost
from ..errors import (
    IdentityMismatch,
    InvalidArg,
    ItEliError,
    NotAvailable,
    NotFound,
    UpstreamChanged,
    UpstreamUnavailable,
)
from ..normattiva import api, codes, portal
from ..normattiva import urn as urnmod
from ..normattiva.akn import normalize_article_key, parse_act
from ..statutes import DATASET_NOTE, ORIGINAL, StatuteSearchResult, StatuteStore, StoredArticle, _citation
from .registry import tool

log = logging.getLogger(__name__)

UNREACHABLE = (UpstreamUnavailable, UpstreamChanged, NotAvailable)


# ---------------------------------------------------------------- contract

class CodeInfo(msgspec.Struct, kw_only=True):
    id: str
    name: str
    abbreviation: str
    aliases: list[str]
    urn: str
    api_urn: str
    act_type: str
    number: str
    date: str
    human_readable_citation: str
    source_url: str


class CodesResult(msgspec.Struct, kw_only=True):
    """The codes and major acts it_eli knows by name, with the URN Normattiva resolves."""

    codes: list[CodeInfo]
    dataset_note: str = DATASET_NOTE


class ResolveResult(urnmod.Resolution, frozen=True, kw_only=True):
    """Offline resolution of act coordinates to identifiers and an Italian citation."""

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
    notes: list[str] = msgspec.field(default_factory=list)
    dataset_note: str = DATASET_NOTE


# ---------------------------------------------------------------- params

class NoParams(msgspec.Struct, kw_only=True):
    pass


class ResolveParams(msgspec.Struct, kw_only=True):
    act_type: str
    year: int | str | None = None
    number: int | str | None = None
    date: str | None = None
    article: str | None = None


class GetActParams(msgspec.Struct, kw_only=True):
    reference: str
    at_date: str | None = None


class GetTextParams(msgspec.Struct, kw_only=True):
    reference: str
    article: str | None = None
    at_date: str | None = None
    format: Literal["text", "akn_xml"] = "text"
    max_chars: int | None = None
    offset: int = 0


class SearchStatutesParams(msgspec.Struct, kw_only=True):
    query: str
    act: str | None = None
    limit: int = 10


# ---------------------------------------------------------------- references

class Target(msgspec.Struct, kw_only=True):
    """What a user's reference points at."""

    urn: str | None  # act-level URN as Normattiva exports write it (full date), when known
    ref: object  # Urn or Eli, for fetching
    article: str | None = None
    at_date: str | None = None
    eli_path: str | None = None


_CITED = re.compile(
    r"^\s*(?P<type>[a-zA-Z.\s\-]+?)\s*(?:n\.?\s*)?(?P<num>\d+)\s*(?:/|del\s+|\s)\s*(?P<year>\d{4}|\d{2})\s*$", re.I
)


def _resolve_reference(store: StatuteStore, reference: str) -> Target:
    ref_text = (reference or "").strip()
    if not ref_text:
        raise InvalidArg("reference is empty", valid=_REFERENCE_HELP)
    if len(ref_text) > 500:
        raise InvalidArg("reference is too long", valid=_REFERENCE_HELP)
    code = codes.lookup_code(ref_text)
    if code is not None:
        return Target(urn=code.urn, ref=urnmod.parse_urn(code.urn))
    if ref_text.lower().startswith(("urn:nir:", "eli/", "/eli/", "http://", "https://")) or "eli/id/" in ref_text:
        if ref_text.startswith(("http://", "https://")):
            host = re.sub(r"^https?://", "", ref_text).split("/", 1)[0].split("?", 1)[0].lower()
            if not host.endswith("normattiva.it"):
                raise InvalidArg(f"not a normattiva.it URL: {ref_text[:120]!r}", valid=_REFERENCE_HELP)
        parsed = urnmod.parse_reference(ref_text)
        if isinstance(parsed, urnmod.Eli):
            path = parsed.path(with_version=False)
            return Target(urn=store.find_urn_by_eli(path), ref=parsed, at_date=parsed.version_date, eli_path=path)
        act = parsed.act_urn()
        if parsed.partial:
            act = store.find_full_urn(parsed) or None
        return Target(urn=act, ref=parsed, article=parsed.article, at_date=parsed.vigenza)
    m = _CITED.match(ref_text)
    if m:
        year = int(m["year"])
        if year < 100:
            year += 2000 if year <= dt.date.today().year % 100 else 1900
        res = urnmod.resolve(m["type"].strip(), year, m["num"])
        parsed = urnmod.parse_urn(res.act_urn)
        full = res.act_urn if not parsed.partial else store.find_full_urn(parsed)
        return Target(urn=full, ref=parsed)
    target = _reference_from_citation(store, ref_text)
    if target is not None:
        return target
    raise InvalidArg(f"cannot read the reference {ref_text[:120]!r}", valid=_REFERENCE_HELP)


def _reference_from_citation(store: StatuteStore, text: str) -> Target | None:
    """A reference written as a lawyer cites ('decreto legislativo 8 giugno 2001, n. 231',
    'art. 575 c.p.'): read with the citation extractor, so every form it knows works here too."""
    from ..citations.extract import CODE_ACTS, extract_citations

    for c in extract_citations(text):
        if c.kind != "statute" or c.act is None or c.act_unresolved:
            continue
        act = c.act
        if act.act_type == "costituzione" or act.code == "cost":
            urn = "urn:nir:stato:costituzione"
            return Target(urn=urn, ref=urnmod.parse_urn(urn), article=c.article)
        if act.code:
            code = codes.CODES_BY_ID.get(act.code)
            if code is not None:
                return Target(urn=code.urn, ref=urnmod.parse_urn(code.urn), article=c.article)
            if act.code not in CODE_ACTS:
                return None
            act_type, number, year = CODE_ACTS[act.code]
            date = None
        else:
            act_type, number, year, date = act.act_type, act.number, act.year, act.date
        if not (act_type and number and year):
            return None
        res = urnmod.resolve(act_type, year, number, date)
        parsed = urnmod.parse_urn(res.act_urn)
        full = res.act_urn if not parsed.partial else store.find_full_urn(parsed)
        return Target(urn=full, ref=parsed, article=c.article)
    return None


_REFERENCE_HELP = (
    "a code name ('c.c.', 'codice penale', 'Cost.', 'TUEL' — see it_list_codes), a URN "
    "(urn:nir:stato:legge:1990-08-07;241, or year-only urn:nir:stato:legge:1990;241), an ELI path "
    "(eli/id/1990/08/18/090G0294/CONSOLIDATED), a normattiva.it URL, or 'l. 241/1990', 'd.lgs. 231/2001'"
)


def _check_date(at_date: str | None) -> str | None:
    if at_date in (None, ""):
        return None
    iso = urnmod.parse_iso_date(str(at_date), "at_date")
    if iso > dt.date.today().isoformat():
        raise InvalidArg(f"at_date {iso} is in the future", valid="today or a past date (YYYY-MM-DD)")
    if iso < "1861-03-17":
        raise InvalidArg(f"at_date {iso} is before the Kingdom of Italy's first laws", valid="a date from 1861-03-17")
    return iso


def _budget(app, max_chars: int | None) -> int:
    budget = app.settings.max_answer_chars
    if max_chars is None:
        return budget
    if not (1 <= max_chars <= budget):
        raise InvalidArg(f"max_chars={max_chars}", valid=f"an integer from 1 to {budget}")
    return max_chars


def _page(text: str, offset: int, size: int) -> tuple[str, int | None]:
    """A page of at most `size` characters whose JSON encoding also fits `size` (quotes and
    newlines count double once encoded)."""
    if offset < 0 or offset > len(text):
        raise InvalidArg(f"offset={offset}", valid=f"an offset from 0 to {len(text)} (use next_offset)")
    end = min(len(text), offset + size, fit_end(text, offset, size)) if offset < len(text) else offset
    return text[offset:end], (end if end < len(text) else None)


def _version_note(in_force_date: str | None, at_date: str | None, stale: bool, valid_to: str | None = None) -> str:
    if at_date:
        base = f"text in force on {at_date}"
        if in_force_date:
            base += f" (version in force from {in_force_date}" + (f" to {valid_to})" if valid_to else ")")
    elif in_force_date:
        base = f"text in force today according to the version of {in_force_date}"
    else:
        base = "original text as published (no consolidated version)"
    if stale:
        base += "; served from the local index because Normattiva could not be reached — it may be out of date"
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
            id=c.id, name=c.name, abbreviation=c.abbreviation, aliases=list(c.aliases), urn=c.urn, api_urn=c.api_urn,
            act_type=c.act_type, number=c.number, date=c.date, human_readable_citation=c.act_citation,
            source_url=urnmod.portal_url(c.urn, base),
        )
        for c in codes.CODES
    ]
    return CodesResult(codes=out)


@tool("it_resolve", ResolveParams, ResolveResult)
async def it_resolve(app, act_type, year=None, number=None, date=None, article=None):
    """Offline: act type (as people write it: 'l.', 'legge', 'd.lgs', 'dlgs', 'd.l.', 'dpr', 'r.d.',
    or a code name) + year + number (+ date, + article) -> URN:NIR, Italian citation and the
    normattiva.it page. No network."""
    res = urnmod.resolve(act_type, year, number, date, article=article, base_url=app.settings.normattiva_url)
    eli = None
    try:
        urn_full = res.act_urn
        store = app.statutes
        found = await asyncio.to_thread(store.versions, urn_full)
        eli = _eli_uri(found[0].eli) if found else None
    except ItEliError:
        eli = None
    return ResolveResult(**msgspec.structs.asdict(res), eli_uri=eli)


async def _fetch_and_store_act(app, target: Target, at_date: str | None):
    """Portal export -> parse -> identity checked -> stored. Returns (version label, urn)."""
    fetched = await portal.fetch_act_xml(app.http, app.settings, target.ref, at_date)
    act = parse_act(fetched.xml)
    portal.check_identity(target.ref, act.identity)
    store: StatuteStore = app.statutes
    # attribution link by the act's own full URN (the request may have been a year-only URN or an ELI)
    source_url = urnmod.portal_url(act.identity.urn, app.settings.normattiva_url) if act.identity.urn else fetched.source_url
    await asyncio.to_thread(store.add_act, act, source_url=source_url, raw_xml=fetched.xml)
    version = act.identity.version_date or ORIGINAL
    return version, act.identity.urn


async def _act_version(app, target: Target, at_date: str | None, *, want_keys: bool = False):
    """(ActVersion, served_from, stale, notes) for the act, fetching when the cache cannot answer."""
    store: StatuteStore = app.statutes
    notes: list[str] = []
    cached = None
    if target.urn:
        versions = await asyncio.to_thread(store.versions, target.urn, with_keys=want_keys)
        if at_date is None:
            cached = versions[0] if versions else None
            if cached and store.is_fresh(cached.fetched_at):
                return cached, "local_index", False, notes
        else:
            exact = [v for v in versions if v.in_force_date == at_date]
            if exact:
                return exact[0], "local_index", False, notes
            older = [v for v in versions if v.in_force_date and v.in_force_date <= at_date]
            cached = older[0] if older else None
    try:
        version, urn = await _fetch_and_store_act(app, target, at_date)
    except UNREACHABLE as exc:
        if cached is None:
            if isinstance(exc, NotAvailable):
                await _confirm_missing_act(app, target, exc)
            raise
        notes.append(f"Normattiva could not be reached ({exc.code}: {exc.message[:160]})")
        if at_date:
            notes.append(f"no cached version starts exactly on {at_date}: the newest cached version before it is shown")
        return cached, "local_index", True, notes
    versions = await asyncio.to_thread(store.versions, urn, with_keys=want_keys)
    chosen = next((v for v in versions if v.version == version), None)
    if chosen is None:
        raise UpstreamChanged("the act was fetched but could not be read back from the local index")
    return chosen, "normattiva_portal", False, notes


async def _confirm_missing_act(app, target: Target, portal_error: ItEliError) -> None:
    """The portal's 'Errore' page is not proof that an act does not exist (it also means
    'cannot load now'); with a full URN, ask the OpenData API: its 'atto non trovato' / 1003 is
    (API_FACTS, error table). Raises NotFound when confirmed, else returns (caller re-raises)."""
    ref = target.ref
    if not isinstance(ref, urnmod.Urn) or ref.partial:
        return
    try:
        await api.fetch_article(app.http, app.settings, ref, "1")
    except NotFound as exc:
        if "coordinates" in exc.details:
            return  # the act exists (only art. 1 / the annex is off): keep the portal's error
        raise NotFound(
            f"{urnmod.citation_for(ref)} does not exist on Normattiva (portal 'Errore' page; OpenData API: {exc.message})",
            valid=_REFERENCE_HELP, urn=ref.act_urn(), portal=portal_error.message[:200],
        ) from None
    except ItEliError:
        return


def _api_not_found_is_final(exc: NotFound, key: str) -> bool:
    """True when the API's 'does not exist' can be trusted without asking the portal.

    Only the coordinates 404 (the act exists, the article does not) for a plain numeric article.
    The API is known to answer 404 for existing articles with an extension (147-bis) in acts it
    serves in `lista` form, and 400/1003 or 'atto non trovato' for URN forms it does not accept
    (API_FACTS: error table, §4.9): those are checked against the portal's export.
    """
    return "coordinates" in exc.details and bool(re.fullmatch(r"\d+", key))


@tool("it_get_act", GetActParams, ActInfo, open_world=True)
async def it_get_act(app, reference, at_date=None):
    """Metadata of an act by code name, URN, ELI path or normattiva.it URL: URN and ELI, title,
    Italian citation, the version in force (today or on at_date), article count and range, and the
    article keys. Served from the local statute index when fresh, else fetched from Normattiva."""
    at = _check_date(at_date)
    store: StatuteStore = app.statutes
    target = await asyncio.to_thread(_resolve_reference, store, reference)
    at = at or target.at_date
    version, served_from, stale, notes = await _act_version(app, target, at, want_keys=True)
    src = {"act_type": version.act_type, "act_number": version.number, "act_date": version.date,
           "act_year": version.year, "act_title": version.title, "urn": version.urn}
    return ActInfo(
        urn=version.urn, eli_uri=_eli_uri(version.eli), human_readable_citation=_citation(src), source_url=version.source_url,
        title=version.title, act_type=version.act_type, number=version.number, date=version.date,
        in_force_date=version.in_force_date, version_note=_version_note(version.in_force_date, at, stale),
        article_count=version.article_count, first_article=version.first_article, last_article=version.last_article,
        article_keys=version.keys[:3000], cached_versions=[v.version for v in await asyncio.to_thread(store.versions, version.urn)],
        served_from=served_from, stale=stale, fetched_at=version.fetched_at, notes=notes,
    )


def _article_result(a: StoredArticle, *, at_date, served_from, stale, notes, size, offset, eli=None) -> TextResult:
    page, nxt = _page(a.text, offset, size)
    commi = [CommaText(num=c.num, text=c.text) for c in a.commi] if offset == 0 and nxt is None else []
    if commi and json_cost(page) + sum(json_cost(c.text) + len(c.num) + 24 for c in commi) > size:
        # the commi repeat the text: send them only when both fit the answer budget
        commi = []
        notes = list(notes) + ["commi omitted: the article's text already holds them and both would not fit one answer"]
    src = {"act_type": a.act_type, "act_number": a.act_number, "act_date": a.act_date, "act_year": a.act_year,
           "act_title": a.act_title, "urn": a.urn}
    return TextResult(
        urn=a.urn, eli_uri=_eli_uri(a.eli or eli), human_readable_citation=_citation(src, a.article),
        source_url=a.source_url, article=a.article, heading=a.heading, text=page,
        commi=commi,
        repealed=a.repealed, amended=a.amended, format="text", at_date=at_date, in_force_date=a.in_force_date,
        valid_to=a.valid_to, version_note=_version_note(a.in_force_date, at_date, stale, a.valid_to),
        served_from=served_from, stale=stale, fetched_at=a.fetched_at, offset=offset, total_chars=len(a.text),
        next_offset=nxt, notes=notes,
    )


def _article_label(a: StoredArticle) -> str:
    """The printed label ('Art. 21-septies.', 'XVIII', 'Articolo 19'): the parser keeps it whole."""
    num = (a.num or "").strip()
    if not num:
        return f"Art. {a.article}"
    return num if re.match(r"(?i)art|[ivxlc]+$", num) else f"Art. {num}"


def _range_hint(store: StatuteStore, urn: str, key: str) -> str:
    versions = store.versions(urn, with_keys=True)
    if not versions:
        return ""
    v = versions[0]
    near = _nearest_keys(v.keys, key)
    return (
        f"the act has {v.article_count} articles, numbered from {v.first_article} to {v.last_article}"
        + (f"; nearest existing: {', '.join(near)}" if near else "")
    )


def _nearest_keys(keys: list[str], key: str) -> list[str]:
    base = re.match(r"\d+", key)
    if not base:
        return []
    same = [k for k in keys if re.match(rf"{base.group(0)}(?!\d)", k)]
    return same[:8]


async def _article(app, target: Target, key: str, at: str | None, size: int, offset: int) -> TextResult:
    store: StatuteStore = app.statutes
    notes: list[str] = []
    today = dt.date.today().isoformat()
    cands: list[StoredArticle] = []
    if target.urn:
        cands = await asyncio.to_thread(store.article_candidates, target.urn, key)
    fallback = None
    if at is None:
        current = [c for c in cands if c.valid_to is None or c.valid_to >= today]
        if current:
            fallback = current[0]
            if store.is_fresh(current[0].fetched_at):
                return _article_result(current[0], at_date=None, served_from="local_index", stale=False, notes=notes, size=size, offset=offset)
    else:
        window = [c for c in cands if c.in_force_date and c.in_force_date <= at and (c.valid_to is None or c.valid_to >= at)]
        exact = [c for c in window if c.kind == "article" or c.in_force_date == at]
        if exact:
            return _article_result(exact[0], at_date=at, served_from="local_index", stale=False, notes=notes, size=size, offset=offset)
        fallback = window[0] if window else None
    # a fresh complete copy of the act that lacks this article: it does not exist (no network needed)
    if target.urn and at is None:
        versions = await asyncio.to_thread(store.versions, target.urn)
        if versions and store.is_fresh(versions[0].fetched_at) and not cands:
            hint = await asyncio.to_thread(_range_hint, store, target.urn, key)
            raise NotFound(f"art. {key} does not exist in {versions[0].title or target.urn}", valid=hint, range_hint=hint)
    # live: the OpenData API is the channel for one article
    api_error: ItEliError | None = None
    fetched = None
    if isinstance(target.ref, urnmod.Urn) and not target.ref.partial or (target.urn and not target.urn.endswith(";")):
        try:
            ref = urnmod.parse_urn(target.urn) if target.urn else target.ref
            if not ref.partial:
                art = await api.fetch_article(app.http, app.settings, ref, key, at)
                urn = ref.act_urn()
                eli = await asyncio.to_thread(store.any_eli, urn)
                await asyncio.to_thread(
                    store.add_single_article, urn=urn, key=key, heading=art.heading, text=art.text,
                    in_force_from=art.in_force_from, in_force_to=art.in_force_to, repealed=art.repealed,
                    act_title=art.act_subtitle or art.act_title, act_type=art.act_type, act_number=art.number,
                    act_date=art.date, act_year=int(art.date[:4]) if art.date else None, eli=eli,
                    source_url=art.source_url or urnmod.portal_url(ref, app.settings.normattiva_url),
                )
                stored = await asyncio.to_thread(store.get_article, urn, key, art.in_force_from or ORIGINAL)
                if stored is None:
                    raise UpstreamChanged("the article was fetched but could not be read back")
                fetched = (stored, list(art.notes), eli)
        except NotFound as exc:
            if _api_not_found_is_final(exc, key):
                raise
            api_error = exc  # confirm with the portal's export of the whole act
        except UNREACHABLE as exc:
            api_error = exc
        except InvalidArg as exc:  # e.g. the API cannot take this reference form: use the portal
            api_error = exc
    if fetched is not None:  # built outside the try: a bad offset is the caller's error, not the API's
        stored, api_notes, eli = fetched
        return _article_result(stored, at_date=at, served_from="normattiva_api", stale=False,
                               notes=api_notes, size=size, offset=offset, eli=eli)
    # the portal export of the whole act (also resolves partial URNs and ELIs)
    try:
        version, served_from, stale, vnotes = await _act_version(app, target, at)
    except NotFound:
        raise
    except UNREACHABLE as exc:
        if isinstance(api_error, NotFound) and (isinstance(exc, NotAvailable) or fallback is None):
            raise api_error from None  # the API said 'does not exist' and the portal cannot say otherwise
        if fallback is not None:
            notes.append(f"Normattiva could not be reached ({exc.code})")
            return _article_result(fallback, at_date=at, served_from="local_index", stale=True, notes=notes, size=size, offset=offset)
        if api_error is not None and not isinstance(api_error, InvalidArg):
            raise api_error from None
        raise
    if isinstance(api_error, NotFound):
        notes.append("the OpenData API said this article does not exist; the portal's export of the act was checked instead")
    notes.extend(vnotes)
    a = await asyncio.to_thread(store.get_article, version.urn, key, version.version)
    if a is None:
        hint = await asyncio.to_thread(_range_hint, store, version.urn, key)
        raise NotFound(f"art. {key} does not exist in {version.title or version.urn}", valid=hint, range_hint=hint)
    return _article_result(a, at_date=at, served_from=served_from, stale=stale, notes=notes, size=size, offset=offset)


@tool("it_get_text", GetTextParams, TextResult, open_world=True)
async def it_get_text(app, reference, article=None, at_date=None, format="text", max_chars=None, offset=0):
    """Text of one article (or of the whole act) by code name, URN, ELI or normattiva.it URL,
    as in force today or on at_date (YYYY-MM-DD, multivigenza). format=akn_xml gives the Akoma Ntoso
    export. Long answers are paged: pass next_offset back as offset. Every answer carries urn,
    eli_uri, human_readable_citation, source_url and says which version it is."""
    at = _check_date(at_date)
    size = _budget(app, max_chars)
    store: StatuteStore = app.statutes
    target = await asyncio.to_thread(_resolve_reference, store, reference)
    at = at or target.at_date
    key = article if article not in (None, "") else target.article
    if key is not None:
        key = normalize_article_key(str(key))
    if key and format == "text":
        return await _article(app, target, key, at, size, offset)
    version, served_from, stale, notes = await _act_version(app, target, at)
    src = {"act_type": version.act_type, "act_number": version.number, "act_date": version.date,
           "act_year": version.year, "act_title": version.title, "urn": version.urn}
    if format == "akn_xml":
        raw = await asyncio.to_thread(store.raw_xml, version.urn, version.version)
        if raw is None:
            raise NotAvailable("the Akoma Ntoso export of this version is not kept locally", valid="format='text'")
        full = raw.decode("utf-8", "replace")
        if key:
            notes.append("format=akn_xml returns the whole act's export; the article is inside it")
    else:
        articles = await asyncio.to_thread(store.articles, version.urn, version.version)
        full = "\n\n".join(
            _article_label(a) + (f" - {a.heading}" if a.heading else "") + "\n" + a.text for a in articles
        )
    page, nxt = _page(full, offset, size)
    return TextResult(
        urn=version.urn, eli_uri=_eli_uri(version.eli), human_readable_citation=_citation(src),
        source_url=version.source_url, article=None, heading=version.title, text=page, commi=[], repealed=False,
        amended=False, format=format, at_date=at, in_force_date=version.in_force_date, valid_to=None,
        version_note=_version_note(version.in_force_date, at, stale), served_from=served_from, stale=stale,
        fetched_at=version.fetched_at, offset=offset, total_chars=len(full), next_offset=nxt, notes=notes,
    )


@tool("it_search_statutes", SearchStatutesParams, StatuteSearchResult)
async def it_search_statutes(app, query, act=None, limit=10):
    """Full-text search (Italian stemming, accent folding) over the local statute index: every
    article it_eli has fetched or imported. Optional act: a code name, URN or 'l. 241/1990'.
    Hits with urn, article, heading, highlighted snippet, eli, in-force date and citation."""
    store: StatuteStore = app.statutes
    urn = None
    if act:
        target = await asyncio.to_thread(_resolve_reference, store, act)
        if not target.urn or target.urn not in await asyncio.to_thread(store.list_acts):
            raise NotFound(f"{act!r} is not in the local statute index", valid="fetch it first with it_get_act, or omit act")
        urn = target.urn
    return await asyncio.to_thread(store.search, query, urn=urn, limit=limit)
