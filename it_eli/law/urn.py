"""URN:NIR, ELI and normattiva.it URLs: parse, build, and resolve citations offline.

Pure functions only (no I/O). Normattiva identifies acts three ways and people cite them a
fourth: `urn:nir:stato:legge:1990-08-07;241` (the resolver's key), `eli/id/1990/08/18/090G0294/
CONSOLIDATED/20260421` (Gazzetta date + codice redazionale + version), the portal URL wrapping
either, and "L. 7 agosto 1990, n. 241". Everything here turns one into the others so the I/O
modules never have to guess, and `resolve()` answers "what is the URN of d.lgs. 231/2001" without
touching the network. Facts and their evidence: DISCOVERY.md (Normattiva).
"""

from __future__ import annotations

import datetime as _dt
import re
from urllib.parse import unquote

import msgspec
from unidecode import unidecode

from it_eli.runtime.errors import InvalidArg
from . import codes as _codes
from .acts import (
    AUTHORITY_FAMILIES,
    BY_URN_TYPE,
    URN_SPELLINGS,
    ActType,
    accepted_act_types,
    act_type_info,
    authority_slug,
    canonical_act_type,
)
from .grammar import LATIN, article_key, italian_date

DEFAULT_PORTAL = "https://www.normattiva.it"
FIRST_YEAR = 1861  # Kingdom of Italy; Normattiva's corpus starts here.


# `stato:codice.civile:1942-03-16;262` etc.: a code named by its nature, i.e. the approving decree.
_CODE_URN_NAMES: dict[str, str] = {
    "codice.civile": "cc",
    "codice.penale": "cp",
    "codice.procedura.civile": "cpc",
    "codice.procedura.penale": "cpp",
    "codice.navigazione": "navigazione",
}


# ---------------------------------------------------------------- article keys

def article_urn_part(key: str) -> str:
    """URN form of an article: '21-septies' -> 'art21septies' (the API rejects 'art5-bis')."""
    return "art" + key.replace("-", "")


# ---------------------------------------------------------------- URN:NIR

class Urn(msgspec.Struct, frozen=True, kw_only=True):
    """A parsed URN:NIR. `date` None with `year` set is the partial (year-only) form."""

    act_type: str
    date: str | None = None
    year: int | None = None
    number: str | None = None
    annex: str | None = None
    article: str | None = None  # normalised key, '21-septies'
    version: str | None = None  # 'originale' for '@originale'
    vigenza: str | None = None  # ISO date from '!vig='
    authority: str | None = None  # when not the type's own: 'regione.lombardia', 'ministero.giustizia'
    subdivision: str | None = None  # what follows the article: 'com3', 'com2-leta'

    @property
    def partial(self) -> bool:
        return self.date is None and self.act_type != "costituzione"

    def act_urn(self) -> str:
        """The act alone (no annex, article, version): the key the portal resolves."""
        t = act_type_info(self.act_type)
        out = f"urn:nir:{self.authority or t.authority or 'stato'}:{t.urn_name}"
        when = self.date or (str(self.year) if self.year else None)
        if when:
            out += f":{when}"
        if self.number:
            out += f";{self.number}"
        return out

    def to_string(self, *, annex: bool = True, article: bool = True, version: bool = True) -> str:
        out = self.act_urn()
        if annex and self.annex:
            out += f":{self.annex}"
        if article and self.article:
            out += "~" + article_urn_part(self.article)
            if self.subdivision:
                out += "-" + self.subdivision
        if version and self.version:
            out += f"@{self.version}"
        if version and self.vigenza:
            out += f"!vig={self.vigenza}"
        return out

    def __str__(self) -> str:
        return self.to_string()


_URN_RE = re.compile(
    r"^urn:nir:(?P<auth>[a-z][a-z0-9.]*):(?P<type>[a-z][a-z.\-]*)"
    r"(?::(?P<when>\d{4}(?:-\d{2}-\d{2})?))?"
    r"(?:;(?P<num>[0-9]+[a-z]*(?:-[0-9a-z]+)?))?"
    r"(?::(?P<annex>\d+))?"
    r"(?:~(?P<part>[a-z0-9.\-]+))?"
    r"(?:@(?P<ver>[a-z0-9.\-]+))?"
    r"(?:!vig=(?P<vig>[0-9\-]*))?$",
    re.I,
)
# "~art5-bis", "~art21septies", "~art25bis.1", "~art17-com3", "~art2-com1-leta": every piece read
_PART_RE = re.compile(rf"^art(?P<n>\d+)(?:[-_]?(?P<lat>{LATIN}))?(?:\.(?P<sub>\d+))?(?P<rest>.*)$", re.I)
_SUBDIVISION_RE = re.compile(r"-(?P<kind>com|let|num|par|per|cpv|pun)\.?(?P<v>[0-9a-z]+)", re.I)


def parse_iso_date(raw: str, what: str = "date") -> str:
    """Validate YYYY-MM-DD (or YYYYMMDD, DD/MM/YYYY) and return ISO; InvalidArg otherwise.

    The API accepts impossible dates such as 2005-13-45 (API_FACTS §6), so we check here.
    """
    s = (raw or "").strip()
    for fmt in ("%Y-%m-%d", "%Y%m%d", "%d/%m/%Y", "%d-%m-%Y"):
        try:
            return _dt.datetime.strptime(s, fmt).date().isoformat()
        except ValueError:
            continue
    raise InvalidArg(f"malformed {what}: {raw!r}", valid="a real date as YYYY-MM-DD, e.g. 1990-08-07")


def parse_urn(text: str) -> Urn:
    """Parse a URN:NIR (full, partial, with annex/article/version/vigenza)."""
    s = unquote((text or "").strip())
    m = _URN_RE.match(s)
    if not m:
        raise InvalidArg(
            f"not a URN:NIR: {text!r}",
            valid="e.g. urn:nir:stato:legge:1990-08-07;241, urn:nir:stato:legge:1990;241, "
            "urn:nir:stato:regio.decreto:1942-03-16;262:2~art2043, ...!vig=2020-01-01",
        )
    auth, typ = m["auth"].lower(), m["type"].lower()
    when, num = m["when"], m["num"]
    code_id = _CODE_URN_NAMES.get(typ) if auth == "stato" else None
    if code_id is not None:
        code = _codes.CODES_BY_ID[code_id]
        typ, auth = code.act_type, "stato"
        when = when or code.date
        num = num or code.number
    canon, authority = _urn_act_type(auth, typ)
    date = year = None
    if when:
        if len(when) == 4:
            year = int(when)
        else:
            date = parse_iso_date(when, "URN date")
            year = int(date[:4])
    if canon != "costituzione" and (year is None or num is None):
        raise InvalidArg(f"URN lacks date/year or number: {text!r}", valid="urn:nir:stato:<type>:<YYYY-MM-DD>;<n>")
    article = subdivision = None
    part = m["part"]
    if part:
        article, subdivision = _urn_partition(part, text)
    vig = m["vig"]
    if vig is not None:
        vig = parse_iso_date(vig, "!vig= date")
    return Urn(
        act_type=canon, date=date, year=year, number=(num.lstrip("0") or "0") if num else None,
        annex=m["annex"], article=article, version=(m["ver"] or None) and m["ver"].lower(), vigenza=vig,
        authority=authority, subdivision=subdivision,
    )


def _urn_act_type(auth: str, typ: str) -> tuple[str, str | None]:
    """(act type, authority when it is not the type's own) of a URN's `authority:type`."""
    canon = URN_SPELLINGS.get((auth, typ))
    if canon is not None:
        info = BY_URN_TYPE[canon]
        return canon, (auth if info.authority and auth != info.authority else None)
    info = BY_URN_TYPE.get(typ.replace("-", "."))
    if info is not None and info.authority == auth:
        return info.urn_type, None
    for prefix, name, canon in AUTHORITY_FAMILIES:
        if typ == name and auth.startswith(prefix) and (prefix or auth != "stato"):
            return canon, auth
    raise InvalidArg(f"unknown act type in URN: {auth}:{typ}", valid=accepted_act_types())


def _urn_partition(part: str, text: str) -> tuple[str, str | None]:
    """'art5-bis' -> ('5-bis', None); 'art17-com3' -> ('17', 'com3'). A tail that is not read is an
    error, never a shorter reference (`~art5-bis` once came back as art. 5)."""
    pm = _PART_RE.match(part)
    if not pm:
        raise InvalidArg(f"unsupported URN partition {part!r} in {text!r}",
                         valid="~art<N>[suffix][-com<N>][-let<x>], e.g. ~art2043, ~art21septies, ~art5-bis, ~art17-com3")
    key = pm["n"] + (pm["lat"] or "") + (f".{pm['sub']}" if pm["sub"] else "")
    rest = pm["rest"] or ""
    pieces = _SUBDIVISION_RE.findall(rest)
    if _SUBDIVISION_RE.sub("", rest):
        raise InvalidArg(f"unread tail {_SUBDIVISION_RE.sub('', rest)!r} in the URN partition {part!r}",
                         valid="~art<N>[suffix][-com<N>][-let<x>], e.g. ~art5-bis, ~art17-com3")
    sub = "-".join(f"{k.lower()}{v.lower()}" for k, v in pieces) or None
    return article_key(key), sub


# ---------------------------------------------------------------- ELI

class Eli(msgspec.Struct, frozen=True, kw_only=True):
    """Normattiva ELI: Gazzetta date + codice redazionale (+ version date)."""

    gu_date: str  # ISO
    codice_redazionale: str
    kind: str = "CONSOLIDATED"  # or ORIGINAL
    version_date: str | None = None  # ISO

    def path(self, *, with_version: bool = True) -> str:
        y, m, d = self.gu_date.split("-")
        out = f"eli/id/{y}/{m}/{d}/{self.codice_redazionale}/{self.kind}"
        if with_version and self.version_date:
            out += "/" + self.version_date.replace("-", "")
        return out

    def __str__(self) -> str:
        return self.path()


_ELI_RE = re.compile(
    r"eli/id/(\d{4})/(\d{2})/(\d{2})/([0-9A-Z]{8})(?:/(CONSOLIDATED|ORIGINAL)(?:/(\d{8}))?)?/?$", re.I
)


def parse_eli(text: str) -> Eli:
    s = (text or "").strip().split("?", 1)[0].split("#", 1)[0]
    m = _ELI_RE.search(s)
    if not m:
        raise InvalidArg(f"not a Normattiva ELI: {text!r}", valid="e.g. eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421")
    gu = parse_iso_date(f"{m[1]}-{m[2]}-{m[3]}", "ELI Gazzetta date")
    ver = parse_iso_date(m[6], "ELI version date") if m[6] else None
    return Eli(gu_date=gu, codice_redazionale=m[4].upper(), kind=(m[5] or "CONSOLIDATED").upper(), version_date=ver)


def parse_reference(text: str) -> Urn | Eli:
    """A URN, an ELI path, or a normattiva.it URL carrying either."""
    s = (text or "").strip()
    if "N2Ls?" in s:
        s = unquote(s.split("N2Ls?", 1)[1])
    if "eli/id/" in s.lower():
        return parse_eli(s)
    if s.lower().startswith("urn:nir:"):
        return parse_urn(s)
    raise InvalidArg(
        f"not a URN:NIR, ELI or normattiva.it URL: {text!r}",
        valid="urn:nir:stato:legge:1990-08-07;241 | eli/id/1990/08/18/090G0294/CONSOLIDATED | "
        "https://www.normattiva.it/uri-res/N2Ls?urn:nir:...",
    )


def portal_url(ref: Urn | Eli | str, base: str = DEFAULT_PORTAL) -> str:
    """The public page of an act (for attribution and for the portal flow)."""
    if isinstance(ref, str):
        ref = parse_reference(ref)
    if isinstance(ref, Eli):
        return f"{base.rstrip('/')}/{ref.path()}"
    return resolver_url(ref.to_string(), base)


def resolver_url(urn: str, base: str = DEFAULT_PORTAL) -> str:
    """The portal's URN resolver for a URN as written, also one the URN model cannot parse (a
    D.P.C.M. cited by its date alone has no number)."""
    return f"{base.rstrip('/')}/uri-res/N2Ls?{urn}"


# ---------------------------------------------------------------- citations

def act_citation(act_type: str, *, date: str | None = None, year: int | None = None, number: str | None = None) -> str:
    """'L. 7 agosto 1990, n. 241'; 'L. n. 241/1990' when only the year is known; 'Cost.'."""
    t = act_type_info(act_type)
    if act_type == "costituzione":
        return "Cost."
    if date:
        return f"{t.abbreviation} {italian_date(date)}, n. {number}"
    return f"{t.abbreviation} n. {number}/{year}"


def article_citation(article: str, act: str) -> str:
    """'art. 21-septies L. 7 agosto 1990, n. 241', 'art. 575 c.p.'."""
    return f"art. {article} {act}"


class Resolution(msgspec.Struct, frozen=True, kw_only=True):
    """What an offline resolution gives: identifiers, the citation, the page to fetch."""

    urn: str  # full, with article if asked
    act_urn: str  # act only
    api_urn: str | None  # form the OpenData API wants (annex for codes); None if partial
    human_readable_citation: str
    source_url: str
    act_type: str
    act_type_abbreviation: str
    year: int | None
    number: str | None
    date: str | None
    partial: bool
    article: str | None = None
    code_id: str | None = None
    code_name: str | None = None
    warnings: list[str] = []


def _number(raw: str | int | None) -> str:
    """'241' -> '241'; lettered numbers as the Gazzetta prints them ('4/B', 'D/212', '87/E') keep
    their letter, in the URN's lower-case form ('4-b', 'd-212', '87-e')."""
    s = re.sub(r"^\s*(?:n\.?|num\.?|nr\.?|numero)\s*", "", str(raw if raw is not None else ""), flags=re.I).strip()
    if s.isdigit() and int(s) > 0:
        return str(int(s))
    m = re.fullmatch(r"(?:(\d+)\s*[/-]\s*([a-z]{1,3})|([a-z]{1,3})\s*[/-]\s*(\d+))", s, re.I)
    if m:
        return f"{int(m[1])}-{m[2].lower()}" if m[1] else f"{m[3].lower()}-{int(m[4])}"
    raise InvalidArg(f"act number must be a positive integer, got {raw!r}", valid="e.g. 241, or a lettered 4/B")


def _year(raw: str | int | None) -> int:
    current = _dt.date.today().year
    try:
        y = int(str(raw).strip())
    except (TypeError, ValueError):
        raise InvalidArg(f"year must be a number, got {raw!r}", valid=f"{FIRST_YEAR}..{current}") from None
    if not FIRST_YEAR <= y <= current:
        raise InvalidArg(f"year {y} out of range", valid=f"{FIRST_YEAR}..{current}")
    return y


def _code_resolution(code: _codes.Code, article: str | None, base: str) -> Resolution:
    # an annex sharing its act with a code (the preleggi, annex 1 of the c.c.'s R.D.) is named by its annex
    own = code.api_urn if code.annex_of else code.urn
    urn = parse_urn(own)
    api = parse_urn(code.api_urn)
    if article:
        # Article links carry the date even for the Costituzione (costituzione:1947-12-27~art3).
        urn = msgspec.structs.replace(urn, article=article, date=code.date, year=code.year)
        api = msgspec.structs.replace(api, article=article)
    # The act alone is cited as the act (D.P.R. 22 settembre 1988, n. 447); an article of a
    # code by the code's abbreviation (art. 575 c.p.).
    cite = article_citation(article, code.abbreviation) if article else code.act_citation
    return Resolution(
        urn=str(urn), act_urn=own, api_urn=str(api), human_readable_citation=cite,
        source_url=portal_url(urn, base), act_type=code.act_type,
        act_type_abbreviation=act_type_info(code.act_type).abbreviation, year=code.year, number=code.number,
        date=code.date, partial=False, article=article, code_id=code.id, code_name=code.name,
    )


def resolve(
    act_type: str,
    year: int | str | None = None,
    number: int | str | None = None,
    date: str | None = None,
    *,
    article: str | int | None = None,
    base_url: str = DEFAULT_PORTAL,
    authority: str | None = None,
) -> Resolution:
    """Offline: act type (any common abbreviation or a code name) + year + number -> URN & citation.

    Raises InvalidArg (with the accepted values) for an unknown type, a year outside
    1861..this year, a non-numeric number, a malformed or inconsistent date.
    """
    art = article_key(article) if article not in (None, "") else None
    if year in (None, "") and number in (None, "") and not date:
        code = _codes.lookup_code(act_type)
        if code is not None:
            return _code_resolution(code, art, base_url)
    canon = canonical_act_type(act_type)
    warnings: list[str] = []
    if canon == "costituzione":
        return _code_resolution(_codes.CODES_BY_ID["cost"], art, base_url)
    iso = parse_iso_date(date, "act date") if date else None
    if iso and _dt.date.fromisoformat(iso) > _dt.date.today():
        raise InvalidArg(f"act date {iso} is in the future", valid="a past date")
    if year in (None, "") and iso:
        year = iso[:4]
    y = _year(year)
    if iso and int(iso[:4]) != y:
        raise InvalidArg(f"date {iso} does not fall in year {y}", valid=f"a date in {y}, or omit the date")
    n = _number(number)
    code = _codes.lookup_act(canon, y, n)
    if code is not None and (iso is None or iso == code.date):
        return _code_resolution(code, art, base_url)
    info = act_type_info(canon)
    if not info.authority and not authority:
        raise InvalidArg(
            f"{info.label}: the URN needs the issuing authority (the Region for a regional law, the Ministry for a "
            "ministerial decree)", valid="authority='regione.lombardia' / 'ministero.giustizia', or a citation naming it")
    if not info.verified:
        warnings.append(
            f"{info.abbreviation}: this URN form is a best effort; Normattiva may file such acts under the "
            "issuing ministry/authority, so it may not resolve"
        )
    auth = authority if authority and authority != info.authority else None
    urn = Urn(act_type=canon, date=iso, year=y, number=n, article=art, authority=auth)
    if iso is None:
        warnings.append("year-only (partial) URN: the portal resolves it, the OpenData API needs the full date")
    cite = act_citation(canon, date=iso, year=y, number=n)
    if art:
        cite = article_citation(art, cite)
    return Resolution(
        urn=str(urn), act_urn=urn.act_urn(), api_urn=str(urn) if iso else None,
        human_readable_citation=cite, source_url=portal_url(urn, base_url), act_type=canon,
        act_type_abbreviation=info.abbreviation, year=y, number=n, date=iso, partial=iso is None,
        article=art, warnings=warnings,
    )


def citation_for(urn: Urn) -> str:
    """Human citation of a parsed URN (code abbreviation when the act is a known code)."""
    code = None
    if urn.number and urn.year:
        code = _codes.lookup_act(urn.act_type, urn.year, urn.number)
    if urn.act_type == "costituzione":
        code = _codes.CODES_BY_ID["cost"]
    if urn.article:
        act = code.abbreviation if code else act_citation(urn.act_type, date=urn.date, year=urn.year, number=urn.number)
        return article_citation(urn.article, act)
    if code is not None:
        return code.act_citation
    return act_citation(urn.act_type, date=urn.date, year=urn.year, number=urn.number)


# ---------------------------------------------------------------- EU acts

EURLEX = "https://eur-lex.europa.eu"
# ELI type and CELEX letter; framework decisions (former third pillar) have a type of their own
_EU_ELI_KIND = {"ue.regolamento": ("reg", "R"), "ue.direttiva": ("dir", "L"), "ue.decisione": ("dec", "D"),
                "ue.decisione.quadro": ("dec_framw", "F")}


def eu_identifiers(act_type: str, year: int | None, number: str | None) -> tuple[str | None, str | None]:
    """(ELI, CELEX) of an EU regulation, directive or decision: Regolamento (UE) 2016/679 ->
    http://data.europa.eu/eli/reg/2016/679/oj, 32016R0679."""
    kind = _EU_ELI_KIND.get(act_type)
    if kind is None or not year or not number or not str(number).isdigit():
        return None, None
    return f"http://data.europa.eu/eli/{kind[0]}/{year}/{int(number)}/oj", f"3{year}{kind[1]}{int(number):04d}"


def eu_source_url(celex: str | None, eli: str | None = None) -> str:
    """The act's page on EUR-Lex (by CELEX), else its ELI."""
    if celex:
        return f"{EURLEX}/legal-content/IT/TXT/?uri=CELEX:{celex}"
    return eli or f"{EURLEX}/homepage.html"


# ---------------------------------------------------------------- identifiers of a cited act

_COST_URN = "urn:nir:stato:costituzione"
_COST_ARTICLE_BASE = "urn:nir:stato:costituzione:1947-12-27"  # article links carry the date (API_FACTS)


def _region_authority(act_type: str, region: str | None) -> str | None:
    if not region:
        return None
    slug = authority_slug(region)
    if act_type == "legge.provinciale" or slug in ("bolzano", "trento"):
        return f"provincia.autonoma.{slug}"
    return f"regione.{slug}"


def act_identifiers(act) -> tuple[str | None, str | None, str | None]:
    """(URN:NIR, ELI, CELEX) of a cited act (a scanner ActRef): the URN has the full date when the
    text gives it, the year otherwise; None where the text does not identify the act (a regional
    law without its Region, a law without number). Codes give their own (annex) URN; EU acts
    their ELI and CELEX."""
    if act.code:
        code = _codes.CODES_BY_ID.get(act.code)
        if code is None:
            return None, None, None
        if code.family == "costituzione":
            return _COST_URN, None, None
        if code.family in ("ue", "internazionale"):
            return None, code.eli, code.celex
        return code.api_urn, None, None
    if act.act_type == "costituzione":
        return _COST_URN, None, None
    if act.act_type.startswith("ue."):
        eli, celex = eu_identifiers(act.act_type, act.year, act.number)
        return None, eli, celex
    info = BY_URN_TYPE.get(act.act_type)
    if info is None or not (act.date or act.year):
        return None, None, None
    if not act.number and not info.date_only:
        return None, None, None
    authority = getattr(act, "authority", None) or _region_authority(act.act_type, getattr(act, "region", None))
    name = info.urn_name
    if not authority:
        if info.authority:
            authority = info.authority
        elif info.family in ("ministeriale", "amministrativo"):
            authority, name = "stato", info.urn_type  # issuer not named: the generic state form (unverified)
        else:
            return None, None, None  # a regional law whose Region the text does not name
    out = f"urn:nir:{authority}:{name}:{act.date or act.year}"
    if act.number:
        try:
            out += ";" + _number(act.number)
        except InvalidArg:
            return None, None, None
    return out, None, None


def article_urn(act, article: str | None) -> str | None:
    """The URN of an article of a cited act: '…;241~art21septies'; the act's URN for a partition
    that has no URN form (the Costituzione's transitional provisions, annex headings)."""
    base = act.urn
    if base is None or not article:
        return base
    if not re.match(r"\d", article):
        return base
    if base == _COST_URN:
        base = _COST_ARTICLE_BASE
    return f"{base}~{article_urn_part(article)}"


# ---------------------------------------------------------------- ECLI

_ECLI_BRANCH = {"civ": "CIV", "pen": "PEN"}


def build_ecli(court: str | None, year: int | None, number: str | None, *, branch: str | None = None,
               decision_type: str | None = None) -> str | None:
    """The ECLI of a decision when its parts are known: Corte costituzionale ECLI:IT:COST:2024:203;
    Cassazione ECLI:IT:CASS:2021:3704CIV (the branch is part of it); Consiglio di Stato
    ECLI:IT:CDS:2016:3509SENT (a sentenza; other decision types have several codes, so none is
    built). None otherwise: an ECLI is never guessed."""
    if not (court and year and number and str(number).isdigit()):
        return None
    n = int(number)
    if court == "COST":
        return f"ECLI:IT:COST:{year}:{n}"
    if court == "CASS" and branch in _ECLI_BRANCH:
        return f"ECLI:IT:CASS:{year}:{n}{_ECLI_BRANCH[branch]}"
    if court == "CDS" and decision_type == "sentenza":
        return f"ECLI:IT:CDS:{year}:{n}SENT"
    return None
