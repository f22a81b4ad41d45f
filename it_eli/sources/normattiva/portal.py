"""Normattiva portal: act page -> `caricaAKN` link -> Akoma Ntoso export, identity-checked.

Why this shape: the portal has no API. `/uri-res/N2Ls?<urn>` (or `/eli/id/...`) answers the act's
HTML page and opens a session; the page links `/do/atto/caricaAKN?dataGU=..&codiceRedaz=..&
dataVigenza=..`, which must be fetched in the same session (the HttpClient keeps one cookie jar
per client). The resolver answers 200 with ANOTHER act for some wrong URNs, and its "Errore" page
for unknown ones, so every export is checked against what was asked before anyone reads it.
Parsing is pure (bytes in, Structs out); the two async functions do the I/O.
"""

from __future__ import annotations

import datetime as _dt
import html as _html
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urljoin

import msgspec

from it_eli.runtime.config import Settings
from it_eli.runtime.errors import IdentityMismatch, InvalidArg, NotAvailable, UpstreamChanged
from it_eli.sources.http import HttpClient
from it_eli.law.urn import (
    Eli,
    Urn,
    citation_for,
    parse_eli,
    parse_iso_date,
    parse_reference,
    parse_urn,
    portal_url,
)

if TYPE_CHECKING:
    from .akn.model import Act

AKN_PATH = "/do/atto/caricaAKN"


class AknLink(msgspec.Struct, frozen=True, kw_only=True):
    """The 'esporta in Akoma ntoso' link of an act page (dates as the portal writes them)."""

    href: str  # unescaped, as in the page (relative)
    data_gu: str  # YYYYMMDD
    codice_redazionale: str
    data_vigenza: str | None  # YYYYMMDD


class XmlIdentity(msgspec.Struct, frozen=True, kw_only=True):
    """Who an AKN export says it is, read from its FRBRalias entries (no full parse needed)."""

    urn: str
    eli: str | None
    act_type: str
    date: str | None
    year: int | None
    number: str | None
    codice_redazionale: str | None
    gu_date: str | None
    version_date: str | None


class FetchedAct(msgspec.Struct, frozen=True, kw_only=True):
    xml: bytes
    source_url: str  # public act page (attribution)
    akn_url: str  # the export actually fetched
    identity: XmlIdentity


_LINK_RE = re.compile(rb"""href\s*=\s*["']([^"']*caricaAKN\?[^"']*)["']""", re.I)


def find_akn_link(html: bytes) -> AknLink | None:
    """The caricaAKN link of an act page (the page writes `&amp;`), or None."""
    m = _LINK_RE.search(html)
    if not m:
        return None
    href = _html.unescape(m.group(1).decode("utf-8", "replace"))
    q = parse_qs(href.split("?", 1)[1])
    gu, code = q.get("dataGU", [""])[0], q.get("codiceRedaz", [""])[0]
    if not re.fullmatch(r"\d{8}", gu) or not re.fullmatch(r"[0-9A-Za-z]{8}", code):
        return None
    vig = q.get("dataVigenza", [""])[0]
    return AknLink(href=href, data_gu=gu, codice_redazionale=code.upper(),
                   data_vigenza=vig if re.fullmatch(r"\d{8}", vig) else None)


def is_error_page(html: bytes) -> bool:
    """The portal's 'Errore' page (title 'Normattiva - Errore'), served with HTTP 200."""
    head = html[:200_000]
    return bool(
        re.search(rb"<title>\s*Normattiva\s*-\s*Errore\s*</title>", head, re.I)
        or b"Errore nel caricamento delle informazioni" in head
    )


def looks_like_akn(xml: bytes) -> bool:
    return b"akomaNtoso" in xml[:4096]


_ALIAS_RE = re.compile(rb"<(?:\w+:)?FRBRalias\b([^>]*)>")
_ATTR_RE = re.compile(rb"""(\w+)\s*=\s*"([^"]*)\"""")


def sniff_identity(xml: bytes) -> XmlIdentity:
    """Read the urn:nir and eli FRBRalias of an export; UpstreamChanged if they are missing."""
    if not looks_like_akn(xml):
        raise UpstreamChanged("the export is not Akoma Ntoso XML")
    aliases: dict[str, str] = {}
    for m in _ALIAS_RE.finditer(xml[:300_000]):
        attrs = {k.decode(): v.decode("utf-8", "replace") for k, v in _ATTR_RE.findall(m.group(1))}
        if "name" in attrs and "value" in attrs:
            aliases.setdefault(attrs["name"], _html.unescape(attrs["value"]))
    urn_s = aliases.get("urn:nir")
    if not urn_s:
        raise UpstreamChanged("the export has no urn:nir FRBRalias: cannot check its identity")
    u = parse_urn(urn_s)
    eli_s = aliases.get("eli")
    e = None
    if eli_s:
        try:
            e = parse_eli(eli_s)
        except InvalidArg:
            e = None
    return XmlIdentity(
        urn=urn_s, eli=eli_s, act_type=u.act_type, date=u.date, year=u.year, number=u.number,
        codice_redazionale=e.codice_redazionale if e else None, gu_date=e.gu_date if e else None,
        version_date=e.version_date if e else None,
    )


def _norm_type(t: Any) -> str:
    return re.sub(r"[\s_\-]+", ".", str(t or "").strip().lower())


def _norm_num(n: Any) -> str:
    return str(n if n is not None else "").strip().lstrip("0")


def _describe_identity(identity: Any) -> str:
    try:
        return citation_for(parse_urn(identity.urn)) + f" ({identity.urn})"
    except Exception:  # noqa: BLE001 - only for a message
        return str(getattr(identity, "urn", identity))


def check_identity(requested: Urn | Eli | str, identity: Any) -> None:
    """Raise IdentityMismatch unless `identity` (akn ActIdentity or XmlIdentity) is the act asked for.

    Compares type + number + date (or year for a partial URN); for an ELI, the codice
    redazionale and Gazzetta date. Never lets another act's text through.
    """
    req = parse_reference(requested) if isinstance(requested, str) else requested
    got_urn = None
    try:
        got_urn = parse_urn(identity.urn) if getattr(identity, "urn", None) else None
    except InvalidArg:
        got_urn = None
    problems: list[str] = []
    if isinstance(req, Eli):
        code = getattr(identity, "codice_redazionale", None)
        gu = getattr(identity, "gu_date", None)
        if not code and getattr(identity, "eli", None):
            try:
                e = parse_eli(identity.eli)
                code, gu = e.codice_redazionale, e.gu_date
            except InvalidArg:
                pass
        if not code or code.upper() != req.codice_redazionale:
            problems.append(f"codice redazionale {code} != {req.codice_redazionale}")
        if gu and gu != req.gu_date:
            problems.append(f"Gazzetta date {gu} != {req.gu_date}")
        asked = str(req)
    else:
        # The urn:nir alias is authoritative; the parser's act_type only when there is none.
        types = {_norm_type(got_urn.act_type if got_urn else getattr(identity, "act_type", None))}
        types.discard("")
        if _norm_type(req.act_type) not in types:
            problems.append(f"act type {'/'.join(sorted(types)) or '?'} != {req.act_type}")
        if req.act_type != "costituzione":
            got_num = _norm_num(getattr(identity, "number", None) or (got_urn.number if got_urn else None))
            if got_num != _norm_num(req.number):
                problems.append(f"number {got_num} != {req.number}")
            got_date = getattr(identity, "date", None) or (got_urn.date if got_urn else None)
            got_year = getattr(identity, "year", None) or (got_urn.year if got_urn else None)
            if got_date and not got_year:
                got_year = int(str(got_date)[:4])
            if req.date:
                if str(got_date) != req.date:
                    problems.append(f"date {got_date} != {req.date}")
            elif req.year and (got_year is None or int(got_year) != req.year):
                problems.append(f"year {got_year} != {req.year}")
        asked = f"{citation_for(req)} ({req.act_urn()})"
    if problems:
        raise IdentityMismatch(
            f"Normattiva returned {_describe_identity(identity)} when asked for {asked}",
            requested=asked, returned=getattr(identity, "urn", None), returned_eli=getattr(identity, "eli", None),
            differences=problems,
        )


def _vigenza(at_date: str | _dt.date | None) -> str | None:
    if at_date is None or at_date == "":
        return None
    iso = at_date.isoformat() if isinstance(at_date, _dt.date) else parse_iso_date(str(at_date), "at_date")
    return iso.replace("-", "")


async def fetch_act_xml(
    client: HttpClient, settings: Settings, urn_or_eli: Urn | Eli | str, at_date: str | _dt.date | None = None
) -> FetchedAct:
    """Act page -> caricaAKN (same session) -> export bytes, checked to be the act asked for.

    `at_date` (or the URN's `!vig=`, or the ELI's version date) becomes `dataVigenza`.
    Errore page -> NotAvailable; page without the export link -> UpstreamChanged;
    another act -> IdentityMismatch.
    """
    ref = parse_reference(urn_or_eli) if isinstance(urn_or_eli, str) else urn_or_eli
    base = settings.normattiva_url.rstrip("/")
    if isinstance(ref, Eli):
        page_url = f"{base}/{ref.path(with_version=False)}"
        vig = _vigenza(at_date) or (ref.version_date.replace("-", "") if ref.version_date else None)
    else:
        page_url = f"{base}/uri-res/N2Ls?{ref.act_urn()}"
        vig = _vigenza(at_date) or (ref.vigenza.replace("-", "") if ref.vigenza else None)
    page = await client.request("GET", page_url, what="Normattiva act page")
    if is_error_page(page.body):
        raise NotAvailable("Normattiva answered its 'Errore' page for this act", url=page_url)
    link = find_akn_link(page.body)
    if link is None:
        raise UpstreamChanged("the Normattiva act page has no 'esporta in Akoma ntoso' link", url=page_url)
    if isinstance(ref, Eli) and link.codice_redazionale != ref.codice_redazionale:
        raise IdentityMismatch(
            f"Normattiva's page for {ref} links the export of {link.codice_redazionale}",
            requested=str(ref), returned=link.codice_redazionale,
        )
    query = {"dataGU": link.data_gu, "codiceRedaz": link.codice_redazionale}
    data_vig = vig or link.data_vigenza
    if data_vig:
        query["dataVigenza"] = data_vig
    akn_url = urljoin(page.url, AKN_PATH) + "?" + urlencode(query)
    export = await client.request("GET", akn_url, what="Normattiva AKN export")
    if is_error_page(export.body):
        raise NotAvailable("Normattiva answered its 'Errore' page for the export", url=akn_url)
    identity = sniff_identity(export.body)
    check_identity(ref, identity)
    if vig and identity.version_date and identity.version_date.replace("-", "") > vig:
        raise UpstreamChanged(
            f"asked for the text in force on {vig}, the export is the version of {identity.version_date}",
            url=akn_url,
        )
    return FetchedAct(xml=export.body, source_url=portal_url(ref, base), akn_url=akn_url, identity=identity)


async def fetch_act(
    client: HttpClient, settings: Settings, ref: Urn | Eli | str, at_date: str | _dt.date | None = None
) -> tuple[Act, str]:
    """Fetch and parse an act: (akn.Act, source_url); identity checked on the parsed Act too."""
    from .akn.parser import parse_act  # parser lives beside us; imported late so URN tools stay light

    parsed = parse_reference(ref) if isinstance(ref, str) else ref
    fetched = await fetch_act_xml(client, settings, parsed, at_date)
    act = parse_act(fetched.xml)
    check_identity(parsed, act.identity)
    return act, fetched.source_url
