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

from ..errors import InvalidArg
from . import codes as _codes
from . import latin as _latin

DEFAULT_PORTAL = "https://www.normattiva.it"
FIRST_YEAR = 1861  # Kingdom of Italy; Normattiva's corpus starts here.

MONTHS_IT = (
    "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno",
    "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre",
)


class ActType(msgspec.Struct, frozen=True):
    """One act type: its URN:NIR spelling, how citations abbreviate it, what people write."""

    urn_type: str  # e.g. 'decreto.legislativo'
    authority: str  # URN:NIR issuing authority segment, 'stato' for most
    urn_name: str  # type segment as written after the authority
    abbreviation: str  # 'D.Lgs.'
    label: str  # 'decreto legislativo'
    api_code: str | None  # OpenData API tipoProvvedimentoCodice (PLE, PLL, ...)
    aliases: tuple[str, ...]
    verified: bool = True  # False: URN form not seen resolving on Normattiva


ACT_TYPES: tuple[ActType, ...] = (
    ActType("legge", "stato", "legge", "L.", "legge", "PLE",
            ("l", "l.", "legge", "lg", "lg.", "leg.")),
    ActType("legge.costituzionale", "stato", "legge.costituzionale", "L. cost.", "legge costituzionale", None,
            ("l. cost.", "l.cost.", "legge cost.", "legge costituzionale", "lcost")),
    ActType("decreto.legislativo", "stato", "decreto.legislativo", "D.Lgs.", "decreto legislativo", "PLL",
            ("d.lgs", "d.lgs.", "dlgs", "d. lgs.", "d.leg.vo", "d.lgsl.", "d.lg.", "dlg", "d.l.vo",
             "decreto legislativo", "decreto-legislativo")),
    ActType("decreto.legge", "stato", "decreto.legge", "D.L.", "decreto-legge", "PDL",
            ("d.l.", "d.l", "dl", "decreto-legge", "decreto legge")),
    ActType("decreto.del.presidente.della.repubblica", "stato", "decreto.del.presidente.della.repubblica",
            "D.P.R.", "decreto del Presidente della Repubblica", "PPR",
            ("dpr", "d.p.r.", "d.p.r", "d.pres.rep.", "decreto del presidente della repubblica")),
    ActType("regio.decreto", "stato", "regio.decreto", "R.D.", "regio decreto", "PRD",
            ("r.d.", "r.d", "rd", "regio decreto", "regio-decreto")),
    ActType("regio.decreto.legge", "stato", "regio.decreto.legge", "R.D.L.", "regio decreto-legge", None,
            ("r.d.l.", "rdl", "regio decreto-legge", "regio decreto legge")),
    ActType("decreto.legislativo.luogotenenziale", "stato", "decreto.legislativo.luogotenenziale",
            "D.Lgs.Lgt.", "decreto legislativo luogotenenziale", None,
            ("d.lgs.lgt.", "d.lgs.lgt", "dlgslgt", "decreto legislativo luogotenenziale")),
    ActType("decreto.del.presidente.del.consiglio.dei.ministri", "presidente.consiglio.ministri", "decreto",
            "D.P.C.M.", "decreto del Presidente del Consiglio dei ministri", None,
            ("dpcm", "d.p.c.m.", "d.p.c.m", "decreto del presidente del consiglio dei ministri"), verified=False),
    ActType("decreto.ministeriale", "stato", "decreto.ministeriale", "D.M.", "decreto ministeriale", None,
            ("d.m.", "d.m", "dm", "decreto ministeriale"), verified=False),
    ActType("costituzione", "stato", "costituzione", "Cost.", "Costituzione", "COS",
            ("cost.", "cost", "costituzione", "costituzione della repubblica")),
)

# Alternative authority:type spellings seen inside Normattiva's own links (articoloHtml of the
# OpenData API answers: `presidente.repubblica:decreto:1986-12-22;917`, `stato:codice.civile:...`).
_URN_SPELLINGS: dict[tuple[str, str], str] = {
    ("presidente.repubblica", "decreto"): "decreto.del.presidente.della.repubblica",
    ("stato", "decreto.presidente.repubblica"): "decreto.del.presidente.della.repubblica",
    ("presidente.consiglio.ministri", "decreto"): "decreto.del.presidente.del.consiglio.dei.ministri",
}
# `stato:codice.civile:1942-03-16;262` etc.: a code named by its nature, i.e. the approving decree.
_CODE_URN_NAMES: dict[str, str] = {
    "codice.civile": "cc",
    "codice.penale": "cp",
    "codice.procedura.civile": "cpc",
    "codice.procedura.penale": "cpp",
    "codice.navigazione": "navigazione",
}


def _alias_key(raw: str) -> str:
    return re.sub(r"[\s._\-]+", "", unidecode(raw).lower())


_BY_URN: dict[str, ActType] = {t.urn_type: t for t in ACT_TYPES}
_BY_ALIAS: dict[str, ActType] = {}
for _t in ACT_TYPES:
    for _a in (*_t.aliases, _t.urn_type, _t.abbreviation, _t.label):
        _BY_ALIAS.setdefault(_alias_key(_a), _t)


def accepted_act_types() -> str:
    """The list shown to a caller who wrote an unknown act type."""
    return "; ".join(f"{t.urn_type}: {', '.join(t.aliases)}" for t in ACT_TYPES)


def canonical_act_type(raw: str) -> str:
    """'d.lgs.' / 'D. Lgs.' / 'decreto legislativo' -> 'decreto.legislativo'; InvalidArg if unknown."""
    t = _BY_ALIAS.get(_alias_key(raw or ""))
    if t is None:
        raise InvalidArg(f"unknown act type {raw!r}", valid=accepted_act_types())
    return t.urn_type


def act_type_info(urn_type: str) -> ActType:
    try:
        return _BY_URN[urn_type]
    except KeyError:
        raise InvalidArg(f"unknown act type {urn_type!r}", valid=accepted_act_types()) from None


# ---------------------------------------------------------------- article keys

_ARTICLE_RE = re.compile(
    rf"^\s*(?:art(?:icolo)?\.?\s*)?(\d+)\s*[-\s.]?\s*({_latin.LATIN})?(?![a-z])((?:\s*[.\s]\s*\d+)?)\s*\.?\s*$", re.I
)


def article_key(raw: str | int) -> str:
    """'21 septies' / '21septies' / 'art. 21-septies' -> '21-septies'; '25-bis.1' kept."""
    m = _ARTICLE_RE.match(str(raw))
    if not m:
        raise InvalidArg(f"not an article number: {raw!r}", valid="e.g. 2043, 21-septies, 25-bis.1")
    num, ext, sub = m.group(1).lstrip("0") or "0", m.group(2) or "", m.group(3) or ""
    if sub and not ext and not sub.lstrip().startswith("."):
        raise InvalidArg(f"not an article number: {raw!r}", valid="e.g. 2043, 21-septies, 25-bis.1")
    ext = _latin.canonical_suffix(ext)  # nonies -> novies: both are printed; akn.normalize_article_key agrees
    sub = "." + re.sub(r"\D", "", sub) if sub else ""
    return num + (f"-{ext}" if ext else "") + sub


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

    @property
    def partial(self) -> bool:
        return self.date is None and self.act_type != "costituzione"

    def act_urn(self) -> str:
        """The act alone (no annex, article, version): the key the portal resolves."""
        t = act_type_info(self.act_type)
        out = f"urn:nir:{t.authority}:{t.urn_name}"
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
        if version and self.version:
            out += f"@{self.version}"
        if version and self.vigenza:
            out += f"!vig={self.vigenza}"
        return out

    def __str__(self) -> str:
        return self.to_string()


_URN_RE = re.compile(
    r"^urn:nir:(?P<auth>[a-z][a-z.]*):(?P<type>[a-z][a-z.\-]*)"
    r"(?::(?P<when>\d{4}(?:-\d{2}-\d{2})?))?"
    r"(?:;(?P<num>[0-9]+[a-z]*))?"
    r"(?::(?P<annex>\d+))?"
    r"(?:~(?P<part>[a-z0-9.\-]+))?"
    r"(?:@(?P<ver>[a-z0-9.\-]+))?"
    r"(?:!vig=(?P<vig>[0-9\-]*))?$",
    re.I,
)


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
    canon = _URN_SPELLINGS.get((auth, typ))
    if canon is None:
        typ_dot = typ.replace("-", ".")
        info = _BY_URN.get(typ_dot)
        if info is None or info.authority != auth:
            raise InvalidArg(f"unknown act type in URN: {auth}:{typ}", valid=accepted_act_types())
        canon = info.urn_type
    date = year = None
    if when:
        if len(when) == 4:
            year = int(when)
        else:
            date = parse_iso_date(when, "URN date")
            year = int(date[:4])
    if canon != "costituzione" and (year is None or num is None):
        raise InvalidArg(f"URN lacks date/year or number: {text!r}", valid="urn:nir:stato:<type>:<YYYY-MM-DD>;<n>")
    article = None
    part = m["part"]
    if part:
        pm = re.match(r"^art(\d+[a-z]*(?:\.\d+)?)", part, re.I)
        if not pm:
            raise InvalidArg(f"unsupported URN partition {part!r}", valid="~art<N>, e.g. ~art2043 or ~art21septies")
        article = article_key(pm.group(1))
    vig = m["vig"]
    if vig is not None:
        vig = parse_iso_date(vig, "!vig= date")
    return Urn(
        act_type=canon, date=date, year=year, number=(num.lstrip("0") or "0") if num else None,
        annex=m["annex"], article=article, version=(m["ver"] or None) and m["ver"].lower(), vigenza=vig,
    )


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
    base = base.rstrip("/")
    if isinstance(ref, Eli):
        return f"{base}/{ref.path()}"
    return f"{base}/uri-res/N2Ls?{ref.to_string()}"


# ---------------------------------------------------------------- citations

def italian_date(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{d} {MONTHS_IT[m - 1]} {y}"


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
    s = re.sub(r"^\s*(?:n\.?|num\.?|numero)\s*", "", str(raw if raw is not None else ""), flags=re.I).strip()
    if not s.isdigit() or int(s) <= 0:
        raise InvalidArg(f"act number must be a positive integer, got {raw!r}", valid="e.g. 241")
    return str(int(s))


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
    urn = parse_urn(code.urn)
    api = parse_urn(code.api_urn)
    if article:
        # Article links carry the date even for the Costituzione (costituzione:1947-12-27~art3).
        urn = msgspec.structs.replace(urn, article=article, date=code.date, year=code.year)
        api = msgspec.structs.replace(api, article=article)
    # The act alone is cited as the act (D.P.R. 22 settembre 1988, n. 447); an article of a
    # code by the code's abbreviation (art. 575 c.p.).
    cite = article_citation(article, code.abbreviation) if article else code.act_citation
    return Resolution(
        urn=str(urn), act_urn=code.urn, api_urn=str(api), human_readable_citation=cite,
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
    if not info.verified:
        warnings.append(
            f"{info.abbreviation}: this URN form is a best effort; Normattiva may file such acts under the "
            "issuing ministry/authority, so it may not resolve"
        )
    urn = Urn(act_type=canon, date=iso, year=y, number=n, article=art)
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
