"""The legislation service: how a reference is read, when the local index answers, when absence is proven.

Plain functions over the app's statute store and HTTP session that return domain Structs
(`Target`, `ActVersion`, `ServedArticle`); nothing here knows MCP, answer budgets or paging —
`it_eli.mcp.tools.legislation` adapts these answers for the MCP tools, and verification calls them
directly.

Order of channels for a text: the local statute index when it holds a copy known to be the text
asked for; otherwise the OpenData API for one article (about 1 KB) or the portal's Akoma Ntoso
export for a whole act; every text fetched is stored. When Normattiva cannot be reached, a cached
copy is served marked `stale`; with nothing cached the answer is `upstream_unavailable`.

"Does not exist" (`not_found`) needs positive evidence: a complete text of the act known to be
in force on the day asked that lacks the article, or a successful Normattiva answer saying so.
A cached version proves only the days it covers (`StatuteStore.covers`); an upstream failure is
never turned into an absence, and a local copy of an act outweighs an upstream "no such act".
"""

from __future__ import annotations

import asyncio
import datetime as dt
import html as _html
import logging
import re
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

from .currency import later_amending_acts
from it_eli.runtime.errors import (
    InvalidArg,
    ItEliError,
    NotAvailable,
    NotFound,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.sources.http import check_url_allowed, host_key
from ..law import codes
from ..law import urn as urnmod
from ..law.grammar import article_range_hint, normalize_article_key, roman_to_int
from ..law.scanner.model import Partitions, partitions_of
from ..law.scanner.scan import extract_citations
from it_eli.sources.normattiva import api, portal
from it_eli.runtime import clock
from it_eli.sources.normattiva.akn import parse_act
from it_eli.sources.normattiva.lifecycle import article_events, clean_text
from it_eli.law.provision_status import describe
from it_eli.law.provision_status import inserted_event
from it_eli.search.statutes import (
    ORIGINAL,
    ActVersion,
    StatuteStore,
    StoredArticle,
    _citation,
    is_placeholder,
    version_on,
)
from .references import unread_words

log = logging.getLogger(__name__)


class ServedArticle(msgspec.Struct, kw_only=True):
    """One article's stored text as the service found it, with where it came from and how sure it is."""

    article: StoredArticle
    at_date: str | None
    served_from: Literal["local_index", "normattiva_api", "normattiva_portal"]
    stale: bool
    notes: list[str] = msgspec.field(default_factory=list)
    eli: str | None = None  # the act's ELI when the stored article lacks one
    original: bool = False  # the original text (URN @originale / ELI ORIGINAL)
    amended_by: list[str] = msgspec.field(default_factory=list)  # later local acts amending it


def _served(a: StoredArticle, *, at_date, served_from, stale, notes, eli=None, original: bool = False,
            amended_by: list[str] | None = None) -> ServedArticle:
    """The article as served, unless its own record says it was not yet inserted on the day
    asked (or is not in the original text): that is positive evidence of absence."""
    day = at_date or clock.today_iso()
    inserted = inserted_event(a.lifecycle)
    if inserted is not None and (original or (inserted.since and day < inserted.since)):
        src = {"act_type": a.act_type, "act_number": a.act_number, "act_date": a.act_date, "act_year": a.act_year,
               "act_title": a.act_title, "urn": a.urn}
        cite = _citation(src, a.article)
        if original:
            raise NotFound(f"{cite} is not in the decree as published: {describe(inserted)}",
                           valid="the consolidated text (without @originale), from "
                           f"{inserted.since or 'the conversion law'} on", not_in_original=True,
                           in_force_from=inserted.since)
        raise NotFound(f"{cite}: not yet in force on {day}: {describe(inserted)}",
                       valid=f"a date from {inserted.since} on", not_yet_in_force=True, in_force_from=inserted.since)
    return ServedArticle(article=a, at_date=at_date, served_from=served_from, stale=stale, notes=list(notes), eli=eli,
                         original=original, amended_by=list(amended_by or []))


UNREACHABLE = (UpstreamUnavailable, UpstreamChanged, NotAvailable)

RETRY_HELP = (
    "retry later (Normattiva may be down or blocking for a while; details.retry_after_seconds says when, if known); "
    "to work offline, load the act's Akoma Ntoso export (normattiva.it, 'esporta in Akoma ntoso') with "
    "`it-eli statutes import FILE.xml`"
)

ARTICLE_FORMS = (
    "an article number as Normattiva prints it: '2043', '21-septies' (or '21 septies', '21septies'), "
    "'25-bis.1' (or '25 bis 1'), with any Latin suffix up to quinquagies ('bis' … 'decies', 'undecies', "
    "'duodevicies', 'undevicies', 'vicies', 'vicies semel' …); for the Costituzione's transitional "
    "provisions 'XVIII' or 'disp. trans. XVIII'; an article of an annex as 'art. 12 allegato II.12'; or a "
    "key exactly as it_get_act lists it ('dec-1', 'allegato-ii.12-art-12')"
)


def _unavailable(message: str, cause: ItEliError | None = None, **details) -> UpstreamUnavailable:
    if cause is not None:
        details.setdefault("upstream_error", f"{cause.code}: {cause.message[:300]}")
        for k in ("retry_after_seconds", "url", "status"):
            if k in cause.details:
                details.setdefault(k, cause.details[k])
    return UpstreamUnavailable(message, valid=RETRY_HELP, **details)


# ---------------------------------------------------------------- references

class Target(msgspec.Struct, kw_only=True):
    """What a user's reference points at."""

    urn: str | None  # act-level URN as Normattiva exports write it (full date), when known
    ref: object  # Urn or Eli, for fetching
    article: str | None = None  # as written ('25 bis 1', 'XVIII', '21-septies'); read by `read_article_key`
    at_date: str | None = None
    eli_path: str | None = None
    original: bool = False  # URN @originale / ELI ORIGINAL / portal 'originario'
    notes: list[str] = msgspec.field(default_factory=list)
    code_id: str | None = None  # when named as a code ('c.p.', 'preleggi')
    partitions: Partitions = msgspec.field(default_factory=Partitions)  # comma, lettera ... as written

    @property
    def is_costituzione(self) -> bool:
        return (self.urn or "").startswith("urn:nir:stato:costituzione") or (
            isinstance(self.ref, urnmod.Urn) and self.ref.act_type == "costituzione"
        )


_REFERENCE_HELP = (
    "a code name ('c.c.', 'codice penale', 'Cost.', 'TUEL' — see it_list_codes), a URN "
    "(urn:nir:stato:legge:1990-08-07;241, or year-only urn:nir:stato:legge:1990;241, with ~art2, @originale, "
    "!vig=YYYY-MM-DD), an ELI path (eli/id/1990/08/18/090G0294/CONSOLIDATED or /ORIGINAL), a www.normattiva.it "
    "URL (uri-res/N2Ls?urn..., eli/id/..., atto/caricaDettaglioAtto?atto.dataPubblicazioneGazzetta=..&"
    "atto.codiceRedazionale=.., do/atto/caricaAKN?dataGU=..&codiceRedaz=..), or a citation: 'l. 241/1990', "
    "'d.lgs. 231/2001', 'art. 575 c.p.', 'c.p. art. 575', 'art. 3 della Costituzione'"
)
_PUBLIC_PORTAL_HOSTS = frozenset({"www.normattiva.it:443", "www.normattiva.it:80", "normattiva.it:443", "normattiva.it:80"})
_SCHEME_RE = re.compile(r"^(?:[a-z][a-z0-9+.\-]*://|//|(?:javascript|data|file|ftp|mailto|gopher|about|blob|http|https):)", re.I)


def resolve_reference(store: StatuteStore, reference: str, *, portal_base: str | None = None) -> Target:
    ref_text = (reference or "").strip()
    if not ref_text:
        raise InvalidArg("reference is empty", valid=_REFERENCE_HELP)
    if len(ref_text) > 500:
        raise InvalidArg("reference is too long", valid=_REFERENCE_HELP)
    code = codes.lookup_code(ref_text)
    if code is not None:
        return Target(urn=code.urn, ref=urnmod.parse_urn(code.urn), code_id=code.id)
    low = ref_text.lower()
    if low.startswith(("www.normattiva.it/", "normattiva.it/")):
        ref_text, low = "https://" + ref_text, "https://" + low
    if low.startswith("urn:nir:"):
        return _target_from_parsed(store, urnmod.parse_urn(ref_text))
    if low.startswith(("eli/", "/eli/")):
        return _target_from_parsed(store, urnmod.parse_eli(ref_text))
    if _SCHEME_RE.match(ref_text):
        return _target_from_url(store, ref_text, portal_base)
    if re.match(r"^[^\s:]*eli/id/\d{4}/", ref_text, re.I):  # a bare ELI with a stray prefix ('./eli/id/...')
        return _target_from_parsed(store, urnmod.parse_eli(ref_text))
    return _target_from_text(store, ref_text)


def _target_from_parsed(store: StatuteStore, parsed, at_date: str | None = None, original: bool = False) -> Target:
    if isinstance(parsed, urnmod.Eli):
        path = parsed.path(with_version=False)
        return Target(urn=store.find_urn_by_eli(path), ref=parsed, at_date=at_date or parsed.version_date,
                      eli_path=path, original=original or parsed.kind == "ORIGINAL")
    act = parsed.act_urn()
    if parsed.act_type == "costituzione":
        act = codes.CODES_BY_ID["cost"].urn  # the exports write it without a date
    elif parsed.partial:
        act = store.find_full_urn(parsed) or None
    return Target(urn=act, ref=parsed, article=parsed.article, at_date=at_date or parsed.vigenza,
                  original=original or parsed.version == ORIGINAL)


def _check_reference_url(url: str, portal_base: str | None) -> None:
    allowed = set(_PUBLIC_PORTAL_HOSTS)
    if portal_base:
        allowed.add(host_key(portal_base))
    try:
        check_url_allowed(url, frozenset(allowed))
    except InvalidArg as exc:
        raise InvalidArg(f"not a normattiva.it URL: {url[:120]!r} ({exc.message})", valid=_REFERENCE_HELP) from None


def _target_from_url(store: StatuteStore, url: str, portal_base: str | None) -> Target:
    """www.normattiva.it URLs: exact host (or the configured portal), http(s), no user info."""
    url = _html.unescape(url)
    _check_reference_url(url, portal_base)
    parts = urlsplit(url)
    path, query = parts.path, parts.query
    if path.rstrip("/").endswith("/uri-res/N2Ls") and query:
        return _target_from_parsed(store, urnmod.parse_urn(unquote(query)))
    if "/eli/id/" in path + "/":
        return _target_from_parsed(store, urnmod.parse_eli(path))
    q = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True).items()}
    gu = q.get("atto.dataPubblicazioneGazzetta") or q.get("dataGU") or ""
    codice = q.get("atto.codiceRedazionale") or q.get("codiceRedaz") or ""
    if re.search(r"/(?:atto/caricaDettaglioAtto\w*|do/atto/caricaAKN)$", path) and gu and codice:
        # the act page's own links (normattiva-html/mcp-legal-it__landing_legge_241_1990.html)
        try:
            gu_iso = urnmod.parse_iso_date(gu[:10], "Gazzetta date")
        except InvalidArg:
            raise InvalidArg(f"unreadable Gazzetta date {gu!r} in the URL", valid=_REFERENCE_HELP) from None
        if not re.fullmatch(r"[0-9A-Za-z]{8}", codice):
            raise InvalidArg(f"unreadable codice redazionale {codice!r} in the URL", valid=_REFERENCE_HELP)
        original = q.get("tipoDettaglio", "").lower() == "originario"
        eli = urnmod.Eli(gu_date=gu_iso, codice_redazionale=codice.upper(), kind="ORIGINAL" if original else "CONSOLIDATED")
        vig = q.get("atto.dataVigenza") or q.get("dataVigenza") or ""
        at = None
        if vig:
            try:
                at = urnmod.parse_iso_date(vig[:10], "dataVigenza")
            except InvalidArg:
                at = None
            if at and at > clock.today_iso():
                at = None
        return _target_from_parsed(store, eli, at_date=at, original=original)
    raise InvalidArg(f"this normattiva.it URL does not name an act: {url[:160]!r}", valid=_REFERENCE_HELP)


_ART_WORD_RE = re.compile(r"(?<![a-z])(?:articol[oi]|artt?\.?|art(?=\s*\d))(?![a-z])", re.I)
_ART_ROMAN = re.compile(r"(?<![a-z])(?:articolo|art\.?)\s*(?P<r>(?-i:[IVXL]+))(?![a-z\d])", re.I)
# what may stand around a reference's citation: articles, connectors, punctuation
def _target_from_text(store: StatuteStore, text: str) -> Target:
    """A reference written as a lawyer cites it, read by the one citation scanner (it_eli.law):
    the article (before or after the act), an annex, commi/lettere (not selected), the act by code
    name, coordinates or any form the scanner knows. What the scanner cannot read is named in the
    error, never dropped."""
    notes: list[str] = []
    roman = _ART_ROMAN.match(text.strip())
    body = text
    article: str | None = None
    if roman is not None:  # "art. XVIII Cost.": a transitional provision of the Costituzione
        article = roman["r"]
        body = text.strip()[roman.end():]
    cites = [c for c in extract_citations(body) if c.kind == "statute"]
    with_act = [c for c in cites if c.act is not None and not c.act_unresolved]
    if not with_act:
        if cites and cites[0].article is not None and article is None:
            raise InvalidArg(f"cannot read the reference {text[:120]!r}: art. {cites[0].article} is followed by "
                             f"{unread_words(body, [(cites[0].start, cites[0].end)], keep_filler=True)[:80]!r}, which is not an act",
                             valid=f"{ARTICLE_FORMS}; then the act: {_REFERENCE_HELP}")
        if _ART_WORD_RE.search(body) and article is None:
            raise InvalidArg(f"cannot read the article number in {text[:120]!r}", valid=ARTICLE_FORMS)
        raise InvalidArg(f"cannot read the reference {text[:120]!r}", valid=_REFERENCE_HELP)
    arts = {c.article for c in cites if c.article is not None}
    if len(arts) > 1:
        raise InvalidArg(f"{text[:120]!r} names several articles: ask for one article at a time",
                         valid="e.g. 'art. 575 c.p.', then 'art. 577 c.p.'")
    spans = [(c.start, c.end) for c in cites] + [(c.act.start, c.act.end) for c in cites if c.act and c.act.start >= 0]
    rest = unread_words(body, spans)
    if rest:
        raise InvalidArg(f"cannot read the reference {text[:120]!r}: it_eli does not know {rest[:80]!r}",
                         valid=f"{ARTICLE_FORMS}; then the act: {_REFERENCE_HELP}")
    c = next((x for x in with_act if x.article is not None), with_act[0])
    target = _act_target(store, c)
    if target is None:
        raise InvalidArg(f"cannot read the reference {text[:120]!r}: the act is not identified", valid=_REFERENCE_HELP)
    if c.article is not None:
        article = c.article
        for part in ("comma", "lettera", "numero"):
            if getattr(c, part):
                notes.append(f"'{part} {getattr(c, part)}' is not selected: the whole article is returned")
    if c.allegato is not None and article is not None:
        article = f"allegato-{_annex_slug(c.allegato)}-art-{read_article_key(article, costituzione=False)}"
    target.article = article if article is not None else target.article
    target.notes = notes
    target.partitions = partitions_of(c)
    return target


def _annex_slug(annex: str) -> str:
    """'II.12' -> 'ii.12', as the parser keys an annex's articles ('Allegato II.12-art. 3')."""
    s = re.sub(r"[^0-9a-z.]+", "-", annex.lower())
    return re.sub(r"-{2,}", "-", s).strip("-.")


def _act_target(store: StatuteStore, c) -> Target | None:
    """The act of a citation the scanner read: a code by its registry URN, any other act by the URN
    the scanner built (completed to the full date from the index when the text gives only the year)."""
    act = c.act
    if act.act_type == "costituzione" or act.code == "cost":
        urn = "urn:nir:stato:costituzione"
        return Target(urn=urn, ref=urnmod.parse_urn(urn))
    if act.code:
        code = codes.CODES_BY_ID.get(act.code)
        if code is None or not code.urn:
            return None
        return Target(urn=code.urn, ref=urnmod.parse_urn(code.api_urn if code.annex_of else code.urn),
                      code_id=code.id)
    if not act.urn:
        return None
    try:
        parsed = urnmod.parse_urn(act.urn)
    except InvalidArg:
        return None
    full = parsed.act_urn() if not parsed.partial else store.find_full_urn(parsed)
    return Target(urn=full, ref=parsed)


_INTERNAL_KEY = re.compile(
    r"^(?:dec|[a-z][a-z0-9.]*(?:-[a-z0-9.]+)*?-art)-\d+(?:-[a-z]+)?(?:\.\d+)?(?:~\d+)?$"
    r"|^\d+(?:-[a-z]+)?(?:\.\d+)?~\d+$|^disp-trans-\d+$"
)


def read_article_key(raw, *, costituzione: bool) -> str:
    """The canonical key of an article as written, or InvalidArg naming the valid forms.

    Never guesses: '-1' or 'abc' is refused, not read as art. 1 (`normalize_article_key` slugs
    anything it cannot read, which suits internal keys but not a user's article)."""
    s = str(raw).strip()
    if not s:
        raise InvalidArg("the article is empty", valid=ARTICLE_FORMS)
    low = s.lower()
    if _INTERNAL_KEY.match(low):
        return low
    key = normalize_article_key(s)
    if key.startswith("disp-trans-"):
        if not costituzione:
            raise InvalidArg(f"{s!r}: transitional provisions numbered in roman figures are the Costituzione's",
                             valid=ARTICLE_FORMS)
        return key
    bare = re.sub(r"(?i)^\s*(?:articolo|art\.?)\s*", "", s).rstrip(". ")
    n = roman_to_int(bare)
    if n is not None:
        if costituzione:
            return f"disp-trans-{n}"
        raise InvalidArg(f"not an article number: {s!r} (roman numerals name only the Costituzione's disposizioni "
                         "transitorie e finali)", valid=ARTICLE_FORMS)
    try:
        key = urnmod.article_key(s)
    except InvalidArg:
        raise InvalidArg(f"not an article number: {s[:80]!r}", valid=ARTICLE_FORMS) from None
    if re.match(r"0(?!\d)", key):
        raise InvalidArg(f"not an article number: {s!r} (articles are numbered from 1)", valid=ARTICLE_FORMS)
    return key


# codes filed under another code's URN (only an annex tells them apart: API_FACTS §5): their
# articles would be looked up, cached and fetched as the other code's
SHARED_URN_CODES = frozenset({"preleggi"})


def check_date(at_date: str | None) -> str | None:
    if at_date in (None, ""):
        return None
    iso = urnmod.parse_iso_date(str(at_date), "at_date")
    if iso > clock.today_iso():
        raise InvalidArg(f"at_date {iso} is in the future", valid="today or a past date (YYYY-MM-DD)")
    if iso < "1861-03-17":
        raise InvalidArg(f"at_date {iso} is before the Kingdom of Italy's first laws", valid="a date from 1861-03-17")
    return iso


def _check_not_before_act(target: Target, at: str | None) -> None:
    """An act cannot be in force before the day it was made: positive evidence of absence."""
    ref = target.ref
    if at and isinstance(ref, urnmod.Urn) and ref.date and at < ref.date and ref.act_type != "costituzione":
        raise NotFound(
            f"{urnmod.citation_for(msgspec.structs.replace(ref, article=None))} is dated {ref.date}: it was not yet in "
            f"force on {at}", valid=f"a date from {ref.date} on", not_yet_in_force=True,
        )


def _day_after(iso: str) -> str:
    return (dt.date.fromisoformat(iso) + dt.timedelta(days=1)).isoformat()


def resolution_of(target: Target, key: str | None, base: str) -> urnmod.Resolution:
    ref = target.ref
    if target.code_id:
        return urnmod.resolve(target.code_id, article=key if key and re.match(r"\d", key) else None, base_url=base)
    if isinstance(ref, urnmod.Urn) and not ref.partial or (isinstance(ref, urnmod.Urn) and ref.act_type == "costituzione"):
        code = codes.CODES_BY_ID["cost"] if ref.act_type == "costituzione" else codes.lookup_act(ref.act_type, ref.year, ref.number)
        if code is not None:
            return urnmod.resolve(code.id, article=key if key and re.match(r"\d", key) else None, base_url=base)
        return urnmod.resolve(ref.act_type, ref.year, ref.number, ref.date, article=key if key and re.match(r"\d", key) else None,
                              base_url=base, authority=ref.authority)
    if isinstance(ref, urnmod.Urn):
        return urnmod.resolve(ref.act_type, ref.year, ref.number, article=key if key and re.match(r"\d", key) else None,
                              base_url=base, authority=ref.authority)
    if target.urn:
        return resolution_of(Target(urn=target.urn, ref=urnmod.parse_urn(target.urn)), key, base)
    raise NotAvailable(
        f"{ref} is an ELI of an act not in the local index: its URN is only known once Normattiva is asked",
        valid="it_get_act with this ELI (online), or a URN / citation",
    )


async def _fetch_and_store_act(app, target: Target, at_date: str | None):
    """Portal export -> parse -> identity checked -> stored. Returns (version label, urn)."""
    fetched = await portal.fetch_act_xml(app.http, app.settings, target.ref, at_date)
    act = parse_act(fetched.xml)
    portal.check_identity(target.ref, act.identity)
    store: StatuteStore = app.statutes
    # attribution link by the act's own full URN (the request may have been a year-only URN or an ELI)
    source_url = urnmod.portal_url(act.identity.urn, app.settings.normattiva_url) if act.identity.urn else fetched.source_url
    # without a date the portal exports the text in force today; with one, the text of that day only
    await asyncio.to_thread(store.add_act, act, source_url=source_url, raw_xml=fetched.xml,
                            current=at_date is None, as_of=at_date or clock.today_iso())
    version = act.identity.version_date or ORIGINAL
    return version, act.identity.urn


async def _has_local_copy(store: StatuteStore, target: Target) -> bool:
    """Local evidence that the act exists: anything of it in the statute index."""
    if not target.urn:
        return False
    return target.urn in await asyncio.to_thread(store.list_acts)


def _labels(versions: list[ActVersion]) -> str:
    return ", ".join(v.version for v in versions[:8]) + (" …" if len(versions) > 8 else "")


async def act_version(app, target: Target, at_date: str | None, *, want_keys: bool = False):
    """(ActVersion, served_from, stale, notes) for the act, fetching when the cache cannot answer.

    A cached version answers without the network only for a day it covers (`StatuteStore.covers`);
    otherwise Normattiva is asked, and if it cannot be reached the cached version in force on that
    day by the cache's knowledge is returned with stale=True."""
    store: StatuteStore = app.statutes
    notes: list[str] = []
    today = clock.today_iso()
    day = at_date or today
    _check_not_before_act(target, at_date)
    versions = await asyncio.to_thread(store.versions, target.urn, with_keys=want_keys) if target.urn else []
    if target.original:
        orig = next((v for v in versions if v.version == ORIGINAL), None)
        if orig is not None:
            return orig, "local_index", False, ["the original text as published (the cached ORIGINAL export)"]
        raise NotAvailable(
            "the original text of the whole act is not in the local index, and Normattiva's portal export gives "
            "consolidated versions only",
            valid="one article's original text (URN ...~artN@originale, through the OpenData API), or import the act's "
            "ORIGINAL Akoma Ntoso export with `it-eli statutes import FILE.xml`",
        )
    cached = version_on(versions, day) if versions else None
    if cached is not None and store.covers(versions, cached, day, today, now=at_date is None):
        return cached, "local_index", False, notes
    try:
        version, urn = await _fetch_and_store_act(app, target, at_date)
    except UNREACHABLE as exc:
        if cached is None:
            if versions:
                raise _unavailable(
                    f"Normattiva did not give the text in force on {day} ({exc.code}: {exc.message[:160]}), and none "
                    f"of the cached versions of {versions[0].title or target.urn} is in force then (cached: "
                    f"{_labels(versions)})",
                    exc, cached_versions=[v.version for v in versions],
                ) from None
            if isinstance(exc, NotAvailable) and not await _has_local_copy(store, target):
                await _confirm_missing_act(app, target, exc)
            elif isinstance(exc, NotAvailable):
                raise _unavailable(f"Normattiva could not load this act now ({exc.message[:200]}); the local index "
                                   "holds parts of it, so it exists", exc) from None
            raise
        notes.append(f"Normattiva could not be reached ({exc.code}: {exc.message[:160]})")
        if at_date:
            notes.append(f"no cached version is known to be the text in force on {at_date}: the newest cached version "
                         f"starting before it ({cached.version}) is shown")
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
            f"{urnmod.citation_for(msgspec.structs.replace(ref, article=None))} does not exist on Normattiva (portal "
            f"'Errore' page; OpenData API: {exc.message})",
            valid=_REFERENCE_HELP, urn=ref.act_urn(), portal=portal_error.message[:200],
        ) from None
    except ItEliError:
        return


def api_not_found_is_final(exc: NotFound, key: str) -> bool:
    """True when the API's 'does not exist' can be trusted without asking the portal.

    Only the coordinates 404 (the act exists, the article does not) for a plain numeric article.
    The API is known to answer 404 for existing articles with an extension (147-bis) in acts it
    serves in `lista` form, and 400/1003 or 'atto non trovato' for URN forms it does not accept
    (API_FACTS: error table, §4.9): those are checked against the portal's export.
    """
    return "coordinates" in exc.details and bool(re.fullmatch(r"\d+", key))


def _range_hint(store: StatuteStore, urn: str, key: str, version: str | None = None) -> str:
    versions = store.versions(urn, with_keys=True)
    if not versions:
        return ""
    v = next((x for x in versions if x.version == version), versions[0])
    hint, _ = article_range_hint(v.keys, key)
    return hint + (f" (version of {v.version})" if len(versions) > 1 else "")


def _local_article(store: StatuteStore, cands: list[StoredArticle], versions: list[ActVersion], day: str,
                   today: str, now: bool) -> tuple[StoredArticle | None, bool]:
    """The cached text of the article in force on `day`, and whether the cache settles it."""
    v = version_on(versions, day) if versions else None
    act_c = next((c for c in cands if c.kind == "act" and v is not None and c.version == v.version), None)
    singles = [c for c in cands if c.kind == "article" and c.in_force_date and c.in_force_date <= day
               and (c.valid_to is None or c.valid_to >= day)]
    single = max(singles, key=lambda c: (c.in_force_date, c.fetched_at)) if singles else None
    pick = act_c
    if single is not None and (act_c is None or (act_c.in_force_date or "") < single.in_force_date):
        pick = single  # the newer text wins; on a tie the whole act's export
    if pick is None:
        return None, False
    if pick.kind == "act":
        return pick, store.covers(versions, v, day, today, now=now)
    if now:  # an open window seen at fetch time is today's text while fresh
        return pick, store.is_fresh(pick.fetched_at) and (pick.valid_to is None or pick.valid_to >= today)
    return pick, pick.valid_to is not None or day <= pick.fetched_at[:10]


def _proven_absent(store: StatuteStore, urn: str, key: str, cands: list[StoredArticle], versions: list[ActVersion],
                   day: str, today: str, now: bool = False) -> ActVersion | None:
    """The cached version that proves the article was not there on `day`, or None.

    Proof: the version in force that day (by the cache) lacks it and covers that day; or it lacks
    it and so does the next cached version, with no cached text of the article starting between
    them — Normattiva's exports keep a repealed article as '((ARTICOLO ABROGATO …))', so an
    article absent from two consecutive versions was never there in between (DISCOVERY §6)."""
    v = version_on(versions, day) if versions else None
    if v is None or store.get_article(urn, key, v.version) is not None:
        return None
    if store.covers(versions, v, day, today, now=now):
        return v
    if now or v.in_force_date is None:
        return None
    later = [x for x in versions if x.in_force_date and x.in_force_date > v.in_force_date]
    if not later:
        return None
    nxt = later[-1]  # newest first: the last one is the next after v
    if store.get_article(urn, key, nxt.version) is not None:
        return None
    if any(c.in_force_date and v.in_force_date < c.in_force_date <= nxt.in_force_date for c in cands):
        return None
    return v


async def _not_found_in(app, urn: str, key: str, version: ActVersion, cands: list[StoredArticle], at: str | None,
                        why: str) -> NotFound:
    store: StatuteStore = app.statutes
    day = at or clock.today_iso()
    hint = await asyncio.to_thread(_range_hint, store, urn, key, version.version)
    title = version.title or urn
    later = sorted(c.in_force_date for c in cands if c.in_force_date and c.in_force_date > day)
    if later:
        return NotFound(
            f"art. {key} of {title} was not yet in force on {day} (the first cached text of it is in force from "
            f"{later[0]}; {why})", valid=f"a date from {later[0]} on", range_hint=hint, not_yet_in_force=True,
            checked_version=version.version,
        )
    when = f" on {at}" if at else ""
    return NotFound(f"art. {key} does not exist in {title}{when} ({why})", valid=hint, range_hint=hint,
                    checked_version=version.version)


async def _store_api_article(app, ref: urnmod.Urn, key: str, art: api.ApiArticle, *, original: bool = False):
    store: StatuteStore = app.statutes
    urn = ref.act_urn()
    if ref.act_type == "costituzione":
        urn = codes.CODES_BY_ID["cost"].urn
    eli = await asyncio.to_thread(store.any_eli, urn)
    # the same reading of the export's record as for the AKN exports: lifecycle from the raw text
    # and the AGGIORNAMENTO notes, then the text without markers and note numbers
    notes_text = "\n-----\n".join(art.editorial_notes)
    events = article_events(key, art.text, [], notes_text, act_number=art.number, act_type=art.act_type)
    await asyncio.to_thread(
        store.add_single_article, urn=urn, key=key, heading=clean_text(art.heading or "", notes_text) or None,
        text=clean_text(art.text, notes_text), lifecycle=events, amended="((" in art.text,
        in_force_from=art.in_force_from, in_force_to=art.in_force_to, repealed=art.repealed,
        act_title=art.act_subtitle or art.act_title, act_type=art.act_type, act_number=art.number,
        act_date=art.date, act_year=int(art.date[:4]) if art.date else None, eli=eli,
        source_url=art.source_url or urnmod.portal_url(ref, app.settings.normattiva_url), original=original,
    )
    stored = await asyncio.to_thread(store.get_article, urn, key, art.in_force_from or ORIGINAL)
    if stored is None:
        raise UpstreamChanged("the article was fetched but could not be read back")
    return stored, eli


def _not_yet(ref: urnmod.Urn, key: str, art: api.ApiArticle, day: str) -> NotFound:
    """Normattiva's placeholder 'NON ANCORA ESISTENTE O VIGENTE' (urn_non_ancora_vigente.json):
    the article did not exist yet on that day; its window ends the day before it appears."""
    cite = urnmod.citation_for(msgspec.structs.replace(ref, article=key, annex=None, vigenza=None, version=None))
    start = _day_after(art.in_force_to) if art.in_force_to else None
    return NotFound(
        f"{cite}: not yet in force on {day}" + (f" (in force from {start})" if start else ""),
        valid=f"a date from {start} on" if start else "a later date", not_yet_in_force=True, in_force_from=start,
        upstream="Normattiva OpenData API: 'NON ANCORA ESISTENTE O VIGENTE'",
    )


def _api_ref(target: Target) -> urnmod.Urn | None:
    """The full URN the OpenData API can take, or None (partial URN not resolved, ELI not cached)."""
    if target.urn and not target.urn.endswith(";"):
        try:
            ref = urnmod.parse_urn(target.urn)
        except InvalidArg:
            return None
        return None if ref.partial else ref
    if isinstance(target.ref, urnmod.Urn) and not target.ref.partial:
        return target.ref
    return None


async def served_article(app, target: Target, key: str, at: str | None) -> ServedArticle:
    """Article `key` of the act as in force on `at` (today when None), from the local index when it
    settles the day, else from Normattiva; NotFound only on positive evidence of absence."""
    store: StatuteStore = app.statutes
    today = clock.today_iso()
    day = at or today
    _check_not_before_act(target, at)
    if target.original:
        return await _original_article(app, target, key)
    notes: list[str] = list(target.notes)
    cands: list[StoredArticle] = []
    versions: list[ActVersion] = []
    if target.urn:
        cands = [c for c in await asyncio.to_thread(store.article_candidates, target.urn, key) if not is_placeholder(c.text)]
        versions = await asyncio.to_thread(store.versions, target.urn)
    local, settled = _local_article(store, cands, versions, day, today, at is None)
    if local is not None and settled:
        newer = await asyncio.to_thread(later_amending_acts, store, local) if at is None else []
        return _served(local, at_date=at, served_from="local_index", stale=False, notes=notes, amended_by=newer)
    if local is None and target.urn:
        proof = await asyncio.to_thread(_proven_absent, store, target.urn, key, cands, versions, day, today, at is None)
        if proof is not None:
            raise await _not_found_in(app, target.urn, key, proof, cands, at, f"cached complete text of {proof.version}")
    fallback = local

    # live: the OpenData API is the channel for one article
    api_error: ItEliError | None = None
    future: api.ApiArticle | None = None
    fetched = None
    ref = _api_ref(target)
    if ref is not None:
        try:
            art = await api.fetch_article(app.http, app.settings, ref, key, at)
            if art.not_yet_in_force:
                raise _not_yet(ref, key, art, day)
            if at is None and art.future_version:
                # without !vig the API answers its latest version even when it starts after today
                # (reale-abrogato-tuir-51.json): keep it, then ask for the text in force today
                future = art
                await _store_api_article(app, ref, key, art)
                art = await api.fetch_article(app.http, app.settings, ref, key, today)
                if art.not_yet_in_force:
                    raise _not_yet(ref, key, art, day)
            stored, eli = await _store_api_article(app, ref, key, art)
            api_notes = [n for n in art.notes if not n.startswith("this version starts on")]
            if future is not None:
                api_notes.append(f"Normattiva also has a later version starting on {future.in_force_from} "
                                 f"({'repealed' if future.repealed else 'amended'} from then); this is the text in force today")
            fetched = (stored, api_notes, eli)
        except NotFound as exc:
            if exc.details.get("not_yet_in_force"):
                raise
            if api_not_found_is_final(exc, key) and not cands and future is None:
                raise
            api_error = exc  # confirm with the portal's export of the whole act
        except UNREACHABLE as exc:
            api_error = exc
        except InvalidArg as exc:  # e.g. the API cannot take this reference form: use the portal
            api_error = exc
    if fetched is not None:  # built outside the try: a 'not yet inserted' answer is the stored text's, not the API's
        stored, api_notes, eli = fetched
        return _served(stored, at_date=at, served_from="normattiva_api", stale=False,
                               notes=notes + api_notes, eli=eli)

    # the portal export of the whole act (also resolves partial URNs and ELIs)
    try:
        version, served_from, stale, vnotes = await act_version(app, target, at)
    except NotFound:
        raise
    except UNREACHABLE as exc:
        evidence = bool(cands) or bool(versions) or future is not None or await _has_local_copy(store, target)
        if fallback is not None:
            notes.append(f"Normattiva could not be reached ({exc.code})")
            if at:
                notes.append(f"no cached copy is known to be the text in force on {at}: the cached text in force from "
                             f"{fallback.in_force_date or 'the original publication'} is shown")
            return _served(fallback, at_date=at, served_from="local_index", stale=True, notes=notes)
        if isinstance(api_error, NotFound) and "coordinates" not in api_error.details and not evidence \
                and isinstance(exc, NotAvailable):
            raise api_error from None  # the API said 'no such act' and the portal cannot load it either
        details = {"portal_error": f"{exc.code}: {exc.message[:300]}"}
        if api_error is not None:
            details["api_error"] = f"{api_error.code}: {api_error.message[:300]}"
        if future is not None:
            details["later_version_from"] = future.in_force_from
        raise _unavailable(
            f"Normattiva did not give the text of art. {key} in force {'on ' + at if at else 'today'}"
            + (f" (the OpenData API answered only its version starting on {future.in_force_from}, after today)"
               if future is not None else "")
            + f": OpenData API {api_error.code if api_error is not None else 'not asked'}, portal {exc.code}"
            + ("; the local index holds this act, so this is no evidence about the article" if evidence else ""),
            None, **details,
        ) from None
    if isinstance(api_error, NotFound):
        notes.append("the OpenData API said this article does not exist; the portal's export of the act was checked instead")
    notes.extend(vnotes)
    a = await asyncio.to_thread(store.get_article, version.urn, key, version.version)
    if a is not None and not is_placeholder(a.text):
        return _served(a, at_date=at, served_from=served_from, stale=stale, notes=notes)
    cands = [c for c in await asyncio.to_thread(store.article_candidates, version.urn, key) if not is_placeholder(c.text)]
    if not stale:
        why = "complete export from Normattiva" if served_from == "normattiva_portal" else f"cached complete text of {version.version}"
        raise await _not_found_in(app, version.urn, key, version, cands, at, why)
    versions = await asyncio.to_thread(store.versions, version.urn)
    proof = await asyncio.to_thread(_proven_absent, store, version.urn, key, cands, versions, day, today, at is None)
    if proof is not None:
        raise await _not_found_in(app, version.urn, key, proof, cands, at, f"cached complete texts from {proof.version}")
    hint = await asyncio.to_thread(_range_hint, store, version.urn, key, version.version)
    has_it = sorted({c.version for c in cands})
    if at is None:
        why = (f"whether art. {key} of {version.title or version.urn} exists today: the newest cached version "
               f"({version.version}) lacks it, but it is not known to be today's text (past its freshness window, "
               f"IT_ELI_STATUTE_TTL_DAYS)")
    else:
        why = (f"whether art. {key} of {version.title or version.urn} existed on {at}: the cached version of "
               f"{version.version} lacks it" + (f", the cached version(s) of {', '.join(has_it)} have it" if has_it else "")
               + ", and a version in between may differ")
    raise _unavailable(f"Normattiva could not be reached, and the cached copies cannot settle {why}", None,
                       range_hint=hint, cached_version=version.version)


async def _original_article(app, target: Target, key: str) -> ServedArticle:
    """The original text of one article: a cached original (ORIGINAL export or an earlier
    `@originale` answer), else the OpenData API's `@originale` (urn_versione_originale.json)."""
    store: StatuteStore = app.statutes
    notes = list(target.notes)
    cands = await asyncio.to_thread(store.article_candidates, target.urn, key) if target.urn else []
    orig = [c for c in cands if c.original and not is_placeholder(c.text)]
    if orig:
        return _served(orig[0], at_date=None, served_from="local_index", stale=False, notes=notes, original=True)
    versions = await asyncio.to_thread(store.versions, target.urn) if target.urn else []
    orig_v = next((v for v in versions if v.version == ORIGINAL), None)
    if orig_v is not None:
        raise await _not_found_in(app, target.urn, key, orig_v, [], None, "the cached ORIGINAL export of the act")
    ref = _api_ref(target)
    error: ItEliError | None = None
    if ref is None and isinstance(target.ref, urnmod.Eli):
        # an ELI of an act not cached: its act page (and export) gives the URN the API needs
        try:
            consolidated = msgspec.structs.replace(target.ref, kind="CONSOLIDATED", version_date=None)
            version, _, _, _ = await act_version(app, Target(urn=None, ref=consolidated), None)
            ref = urnmod.parse_urn(version.urn)
            target = msgspec.structs.replace(target, urn=version.urn)
        except (*UNREACHABLE, NotFound) as exc:
            error = exc
    if ref is not None:
        try:
            art = await api.fetch_article(app.http, app.settings, ref, key, original=True)
            if not art.not_yet_in_force:
                stored, eli = await _store_api_article(app, ref, key, art, original=True)
                return _served(stored, at_date=None, served_from="normattiva_api", stale=False,
                                       notes=notes + list(art.notes), eli=eli, original=True)
            error = NotAvailable("the OpenData API answered its 'not yet in force' placeholder for the original text")
        except NotFound as exc:
            if api_not_found_is_final(exc, key):
                raise NotFound(f"art. {key}: the OpenData API says it is not in this act ({exc.message})",
                               valid=exc.valid, coordinates=exc.details.get("coordinates")) from None
            error = exc
        except (*UNREACHABLE, InvalidArg) as exc:
            error = exc
    msg = "the original text of this article is not available"
    if error is not None:
        msg += f": the OpenData API answered {error.code} ({error.message[:160]})"
    elif ref is None:
        msg += ": the act's full URN is not known locally (the OpenData API needs it)"
    if isinstance(error, (UpstreamUnavailable, UpstreamChanged)):
        raise _unavailable(msg, error) from None
    raise NotAvailable(msg, valid="retry later; or ask for the consolidated text (without @originale) or for at_date "
                       "= the act's first day in force; or import the act's ORIGINAL Akoma Ntoso export")

