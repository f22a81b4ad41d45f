"""How a user's reference to a law is read: the `Target` it points at (a code, a URN, an ELI,
a normattiva.it URL, a citation), the article key as written, the date asked, and the portal
page it resolves to. No network: the local index only completes a partial URN or an ELI."""

from __future__ import annotations

import html as _html
import re
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

from it_eli.law import codes
from it_eli.law import urn as urnmod
from it_eli.law.grammar import normalize_article_key, roman_to_int
from it_eli.law.scanner import Partitions, extract_citations, partitions_of
from it_eli.runtime import clock
from it_eli.runtime.errors import (
    InvalidArg,
    NotAvailable,
    NotFound,
)
from it_eli.search.statutes.records import (
    ORIGINAL,
)
from it_eli.search.statutes.store import StatuteStore
from it_eli.services.references import unread_words
from it_eli.sources.http import check_url_allowed, host_key

ARTICLE_FORMS = (
    "an article number as Normattiva prints it: '2043', '21-septies' (or '21 septies', '21septies'), "
    "'25-bis.1' (or '25 bis 1'), with any Latin suffix up to quinquagies ('bis' … 'decies', 'undecies', "
    "'duodevicies', 'undevicies', 'vicies', 'vicies semel' …); for the Costituzione's transitional "
    "provisions 'XVIII' or 'disp. trans. XVIII'; an article of an annex as 'art. 12 allegato II.12'; or a "
    "key exactly as it_get_act lists it ('dec-1', 'allegato-ii.12-art-12')"
)


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


MAX_GUESS_CHARS = 200  # of the unread words, compared with the code names (bounded work)
REFERENCE_HELP = (
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
        raise InvalidArg("reference is empty", valid=REFERENCE_HELP)
    if len(ref_text) > 500:
        raise InvalidArg("reference is too long", valid=REFERENCE_HELP)
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
        raise InvalidArg(f"not a normattiva.it URL: {url[:120]!r} ({exc.message})", valid=REFERENCE_HELP) from None


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
            raise InvalidArg(f"unreadable Gazzetta date {gu!r} in the URL", valid=REFERENCE_HELP) from None
        if not re.fullmatch(r"[0-9A-Za-z]{8}", codice):
            raise InvalidArg(f"unreadable codice redazionale {codice!r} in the URL", valid=REFERENCE_HELP)
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
    raise InvalidArg(f"this normattiva.it URL does not name an act: {url[:160]!r}", valid=REFERENCE_HELP)


_ART_WORD_RE = re.compile(r"(?<![a-z])(?:articol[oi]|artt?\.?|art(?=\s*\d))(?![a-z])", re.I)
_ART_ROMAN = re.compile(r"(?<![a-z])(?:articolo|art\.?)\s*(?P<r>(?-i:[IVXL]+))(?![a-z\d])", re.I)
# what may stand around a reference's citation: articles, connectors, punctuation
def _did_you_mean(unread: str) -> tuple[str, list[str] | None]:
    """The start of `valid` and the `did_you_mean` detail for words that may be a misspelt code
    name ('codice penalle'): the closest names of the code table, or nothing."""
    similar = codes.similar_codes(unread[:MAX_GUESS_CHARS])
    if not similar:
        return "", None
    names = [c.name for c in similar]
    return "did you mean " + " or ".join(f"{c.name!r} ({c.abbreviation})" for c in similar) + "? ", names


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
            after = unread_words(body, [(cites[0].start, cites[0].end)], keep_filler=True)
            hint, names = _did_you_mean(after)
            raise InvalidArg(f"cannot read the reference {text[:120]!r}: art. {cites[0].article} is followed by "
                             f"{after[:80]!r}, which is not an act",
                             valid=f"{hint}{ARTICLE_FORMS}; then the act: {REFERENCE_HELP}", did_you_mean=names)
        if _ART_WORD_RE.search(body) and article is None:
            raise InvalidArg(f"cannot read the article number in {text[:120]!r}", valid=ARTICLE_FORMS)
        hint, names = _did_you_mean(body)
        raise InvalidArg(f"cannot read the reference {text[:120]!r}", valid=hint + REFERENCE_HELP, did_you_mean=names)
    arts = {c.article for c in cites if c.article is not None}
    if len(arts) > 1:
        raise InvalidArg(f"{text[:120]!r} names several articles: ask for one article at a time",
                         valid="e.g. 'art. 575 c.p.', then 'art. 577 c.p.'")
    spans = [(c.start, c.end) for c in cites] + [(c.act.start, c.act.end) for c in cites if c.act and c.act.start >= 0]
    rest = unread_words(body, spans)
    if rest:
        hint, names = _did_you_mean(rest)
        raise InvalidArg(f"cannot read the reference {text[:120]!r}: it_eli does not know {rest[:80]!r}",
                         valid=f"{hint}{ARTICLE_FORMS}; then the act: {REFERENCE_HELP}", did_you_mean=names)
    c = next((x for x in with_act if x.article is not None), with_act[0])
    target = _act_target(store, c)
    if target is None:
        raise InvalidArg(f"cannot read the reference {text[:120]!r}: the act is not identified", valid=REFERENCE_HELP)
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


def check_not_before_act(target: Target, at: str | None) -> None:
    """An act cannot be in force before the day it was made: positive evidence of absence."""
    ref = target.ref
    if at and isinstance(ref, urnmod.Urn) and ref.date and at < ref.date and ref.act_type != "costituzione":
        raise NotFound(
            f"{urnmod.citation_for(msgspec.structs.replace(ref, article=None))} is dated {ref.date}: it was not yet in "
            f"force on {at}", valid=f"a date from {ref.date} on", not_yet_in_force=True,
        )


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
