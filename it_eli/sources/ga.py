"""Giustizia Amministrativa: the portal's decision search and the mdp decision texts.

Parsing is pure (bytes in, Structs out, lxml with no network and no entity expansion); the
async functions at the end do the I/O with the `HttpClient` they are given. Facts relied on
are in DISCOVERY.md (SentenzeWeb, GA, TLS).

`document_url` is user input that we fetch, so it is checked strictly (host, scheme, port,
path, query keys and values) and rebuilt from its checked parts before any request.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

import lxml.etree
import lxml.html
import msgspec

from it_eli.runtime.errors import InvalidArg, UpstreamChanged
from it_eli.sources.marks import HL_CLOSE, HL_OPEN, clip, lookup_key

from .http import RETRY_LATER, HttpClient

SEARCH_PATH = "/web/guest/dcsnprr"
PORTLET_ID = "decisioni_pareri_web_DecisioniPareriWebPortlet_INSTANCE_XKc17mrB8J10"
NS = f"_{PORTLET_ID}_"  # Liferay namespace of the portlet's form fields
DOC_PATH = "/visualizza/"
PAGE_SIZES = (20, 40, 60)

# ---------------------------------------------------------------- courts, seats, sections
# DISCOVERY (GA): the portal's sede values are the seat cities plus "Consiglio di Stato" and
# "C.G.A.R.S" (reported); a hit prints its sede in capitals (`ROMA`, captured). ECLI court codes
# per seat (TARLAZ captured; the others reported by a public project that checked them against
# the portal's own ECLI column): one TAR per region uses the region code, the eight two-seat
# regions use the seats' province codes, except Lazio/Roma which keeps TARLAZ.
CDS = "Consiglio di Stato"
CGARS = "C.G.A.R.S"
# seat (portal value) -> (region, ECLI court code, main seat of its region)
SEATS: dict[str, tuple[str, str, bool]] = {
    "Roma": ("Lazio", "TARLAZ", True), "Latina": ("Lazio", "TARLT", False),
    "Milano": ("Lombardia", "TARMI", True), "Brescia": ("Lombardia", "TARBS", False),
    "Napoli": ("Campania", "TARNA", True), "Salerno": ("Campania", "TARSA", False),
    "Palermo": ("Sicilia", "TARPA", True), "Catania": ("Sicilia", "TARCT", False),
    "Bari": ("Puglia", "TARBA", True), "Lecce": ("Puglia", "TARLE", False),
    "Catanzaro": ("Calabria", "TARCZ", True), "Reggio Calabria": ("Calabria", "TARRC", False),
    "L'Aquila": ("Abruzzo", "TARAQ", True), "Pescara": ("Abruzzo", "TARPE", False),
    "Bologna": ("Emilia-Romagna", "TARBO", True), "Parma": ("Emilia-Romagna", "TARPR", False),
    "Firenze": ("Toscana", "TARTOS", True), "Venezia": ("Veneto", "TARVEN", True),
    "Torino": ("Piemonte", "TARPIE", True), "Genova": ("Liguria", "TARLIG", True),
    "Ancona": ("Marche", "TARMAR", True), "Cagliari": ("Sardegna", "TARSAR", True),
    "Campobasso": ("Molise", "TARMOL", True), "Potenza": ("Basilicata", "TARBAS", True),
    "Perugia": ("Umbria", "TARUMB", True), "Trieste": ("Friuli-Venezia Giulia", "TARFVG", True),
    "Aosta": ("Valle d'Aosta", "TARVDA", True),
    "Trento": ("Trentino-Alto Adige", "TRGATN", True), "Bolzano": ("Trentino-Alto Adige", "TRGABZ", False),
}  # fmt: skip
TAR_SEATS = tuple(sorted(SEATS))
# the `sede` options of the portal's search form: 31 (reported from a real result page's form)
SEDE_OPTIONS: tuple[str, ...] = (CDS, CGARS, *TAR_SEATS)
ECLI_COURTS: dict[str, str] = {code: seat for seat, (_, code, _) in SEATS.items()} | {"CDS": CDS, "CGARS": CGARS}
REGIONS: dict[str, list[str]] = {}
for _seat, (_region, _, _main) in SEATS.items():
    REGIONS.setdefault(_region, []).insert(0 if _main else len(REGIONS.get(_region, [])), _seat)


def _norm(value: str) -> str:
    """Lower case, accents folded, apostrophes and dots dropped, other punctuation -> space:
    `T.A.R. Lazio - Roma` -> `tar lazio roma`, `L’Aquila` -> `laquila`."""
    text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"['’‘`´]", "", text).replace(".", "")
    text = re.sub(r"[^a-z0-9]+", " ", text)
    text = re.sub(r"\bt a r\b", "tar", text)
    return " ".join(text.split())


SEAT_ALIASES: dict[str, str] = {_norm(seat): seat for seat in SEATS} | {
    "aquila": "L'Aquila", "l aquila": "L'Aquila", "reggio": "Reggio Calabria", "alto adige": "Bolzano",
    "sudtirol": "Bolzano", "bozen": "Bolzano", **{code.lower(): seat for code, seat in ECLI_COURTS.items()},
}
REGION_ALIASES: dict[str, str] = {_norm(r): r for r in REGIONS} | {
    "emilia": "Emilia-Romagna", "friuli": "Friuli-Venezia Giulia", "fvg": "Friuli-Venezia Giulia",
    "friuli venezia giulia": "Friuli-Venezia Giulia", "valle daosta": "Valle d'Aosta", "vda": "Valle d'Aosta",
    "trentino": "Trentino-Alto Adige", "trentino alto adige": "Trentino-Alto Adige", "puglie": "Puglia",
}
_CDS_NAMES = ("consiglio di stato", "cons stato", "cons st", "cds", "cdst", "c d s", "cons di stato")
_CDS_PREFIXES = ("consiglio di stato", "consiglio stato")  # the full name, with or without "di"
_CGARS_NAMES = ("consiglio di giustizia amministrativa", "cgars", "cga", "c g a", "c g a r s", "cgar")
# words around a seat or region in what lawyers write: "T.A.R. per il Lazio, sede di Roma",
# "TAR Lombardia sezione staccata di Brescia", "T.R.G.A. Trento"
_SEDE_FILLERS = frozenset(
    "tar trga tribunale tribunali amministrativo amministrativa amministrativi regionale regionali giustizia "
    "per il la lo l del della dell di sede sezione sez staccata distaccata autonoma provincia prov regione "
    "sez staccata".split()
)
SEDE_VALID = (
    "Consiglio di Stato (Cons. Stato, CdS), C.G.A.R.S. (CGA), a TAR by region and/or seat "
    "('TAR Lazio, Roma', 'T.A.R. Toscana', 'Brescia', 'TRGA Trento'); regions with two seats: "
    + "; ".join(f"{r} = {' + '.join(s)}" for r, s in REGIONS.items() if len(s) > 1)
)
_ORDINALS = {"prima": 1, "seconda": 2, "terza": 3, "quarta": 4, "quinta": 5, "sesta": 6, "settima": 7,
             "ottava": 8, "nona": 9, "decima": 10}  # fmt: skip
_ROMANS = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_ROMAN_OF = {n: r.upper() for r, n in _ROMANS.items()}
# `SEZIONE 1B` (capture: "Sezione Prima Bis"), `3Q` ("Terza Quater", reported); T for ter assumed
_SUFFIXES = {"b": "bis", "bis": "bis", "t": "ter", "ter": "ter", "q": "quater", "quater": "quater",
             "quinquies": "quinquies"}  # fmt: skip
_SECTION_RE = re.compile(
    r"(?:sezione|sez|section)?\s*(?P<n>\d{1,2}|" + "|".join(sorted(_ROMANS, key=len, reverse=True)) + "|"
    + "|".join(_ORDINALS) + r")\s*(?P<s>" + "|".join(sorted(_SUFFIXES, key=len, reverse=True)) + r")?"
)
_NAMED_SECTIONS = (  # (words in the section's name, how it is cited)
    ("plen", "Ad. plen."), ("giurisd", "giurisd."), ("riunit", "riun."), ("normativ", "consult. atti norm."),
    ("consult", "consult."), ("speciale", "spec."),
)
SEZIONE_VALID = "a section such as IV, 4, quarta, I-bis (1B, prima bis), III-quater (3Q), Ad. plen., giurisd.; case-insensitive"
TYPE_ABBR = {"sentenza": "sent.", "sentenza breve": "sent.", "ordinanza": "ord.", "ordinanza collegiale": "ord.",
             "ordinanza cautelare": "ord.", "decreto": "decr.", "decreto cautelare": "decr.", "parere": "parere"}  # fmt: skip
TIPI: dict[str, str] = {
    **{k: "Sentenza" for k in ("sentenza", "sent", "sentenze")},
    **{k: "Ordinanza" for k in ("ordinanza", "ord", "ordinanze")},
    **{k: "Decreto" for k in ("decreto", "decr", "decreti")},
    **{k: "Parere" for k in ("parere", "pareri", "par")},
    **{k: "P" for k in ("adunanzaplenaria", "adplen", "plenaria", "ap")},
    **{k: "C" for k in ("adunanzagenerale", "adgen")},
}
TIPO_VALID = "sentenza (sent.), ordinanza (ord.), decreto (decr.), parere, adunanza plenaria (Ad. plen.), adunanza generale; case-insensitive"

_AUTH_SCRIPT_RE = re.compile(r"""Liferay\.authToken\s*=\s*['"]([A-Za-z0-9_-]{4,64})['"]""")
_AUTH_URL_RE = re.compile(r"""[?&;]p_auth=([A-Za-z0-9_-]{4,64})""")
_TOTAL_RE = re.compile(r"Trovati\s*<strong>\s*([\d.]+)\s*</strong>\s*risultat", re.I)
_ECLI_RE = re.compile(r"ECLI:IT:([A-Z]{2,8}):(\d{4}):0*(\d{1,7})([A-Z]{0,6})")
_PAGER_RE = re.compile(r"Risultati\s+da\s+\d+\s+a\s+\d+", re.I)

MAX_SNIPPET_CHARS = 600

DOC_PARAM_RES: dict[str, re.Pattern[str]] = {
    "nodeRef": re.compile(r""),
    "schema": re.compile(r"[a-z][a-z_]{1,19}"),
    "nrg": re.compile(r"\d{6,12}"),
    "nomeFile": re.compile(r"\d{6,12}_\d{2}\.(?:html|pdf)"),
    "subDir": re.compile(r"Provvedimenti"),
}
DOC_URL_VALID = (
    "a decision URL from it_ga_search, e.g. https://mdp.giustizia-amministrativa.it/visualizza/"
    "?nodeRef=&schema=tar_rm&nrg=202515527&nomeFile=202611970_01.html&subDir=Provvedimenti"
)
# the decision host's `schema` (URL) -> sede: tar_rm (capture), cds (reported); others unknown
SCHEMA_SEDE = {"tar_rm": "Roma", "cds": CDS}


def court_name(sede: str | None) -> str | None:
    """How the court of a sede is cited: `T.A.R. Lazio, Roma`, `Cons. Stato`, `C.G.A.R.S.`."""
    if sede == CDS:
        return "Cons. Stato"
    if sede == CGARS:
        return "C.G.A.R.S."
    if sede in ("Trento", "Bolzano"):
        return f"T.R.G.A. {sede}"
    if sede in SEATS:
        return f"T.A.R. {SEATS[sede][0]}, {sede}"
    return None


def sede_of(text: str | None) -> str | None:
    """A sede as the portal prints it (`ROMA`, `CONSIGLIO DI STATO`) -> our sede value, or None."""
    if not text:
        return None
    n = _norm(text)
    if n.startswith(_CDS_PREFIXES) or n in _CDS_NAMES:
        return CDS
    if n.startswith(_CGARS_NAMES[0]) or n in _CGARS_NAMES:
        return CGARS
    return SEAT_ALIASES.get(n)


def _seat_kind(seat: str) -> str:
    return "sede" if SEATS[seat][2] else "sezione autonoma" if seat == "Bolzano" else "sezione staccata"


def resolve_sede(sede: str | None) -> str | None:
    """What lawyers write for a court or a TAR (region and/or seat) -> the portal's sede value.

    A region with two TAR seats is not guessed: the answer lists them (`invalid_arg`)."""
    if sede is None or not isinstance(sede, str) or not sede.strip():
        if sede is not None and not isinstance(sede, str):
            raise InvalidArg(f"sede must be text, got {type(sede).__name__}", valid=SEDE_VALID)
        return None
    n = _norm(sede)
    if not n:
        raise InvalidArg(f"unknown sede {sede[:60]!r}", valid=SEDE_VALID)
    if n in _CDS_NAMES or n.startswith(_CDS_PREFIXES):
        return CDS
    if n in _CGARS_NAMES or n.startswith(_CGARS_NAMES[0]) or n.split()[0] in ("cga", "cgars"):
        return CGARS
    rest = " ".join(w for w in n.split() if w not in _SEDE_FILLERS)
    region = seat = None
    if rest in SEAT_ALIASES:
        seat = SEAT_ALIASES[rest]
    elif rest in REGION_ALIASES:
        region = REGION_ALIASES[rest]
    else:
        for alias in sorted(REGION_ALIASES, key=len, reverse=True):  # "lazio roma", "roma lazio"
            head, tail = rest[: len(alias) + 1], rest[len(alias) + 1 :]
            before, last = rest[: -len(alias) - 1], rest[-len(alias) - 1 :]
            if head == alias + " " and tail in SEAT_ALIASES:
                region, seat = REGION_ALIASES[alias], SEAT_ALIASES[tail]
            elif last == " " + alias and before in SEAT_ALIASES:
                region, seat = REGION_ALIASES[alias], SEAT_ALIASES[before]
            if seat:
                break
    if seat is not None:
        if region is not None and SEATS[seat][0] != region:
            raise InvalidArg(f"{seat} is not a TAR seat of {region}",
                             valid=f"{region}: " + ", ".join(REGIONS[region]) + f"; {seat} is in {SEATS[seat][0]}")
        return seat
    if region is not None:
        seats = REGIONS[region]
        if len(seats) == 1:
            return seats[0]
        raise InvalidArg(
            f"{region} has {len(seats)} seats of its administrative court: say which one",
            valid=" or ".join(f"'{s}' ({court_name(s)}, {_seat_kind(s)})" for s in seats),
        )
    code = re.sub(r"^ECLI:IT:", "", sede.strip().upper()).split(":")[0]
    if re.fullmatch(r"T(?:AR|RGA)[A-Z]{2,4}", code):  # an ECLI court code that is not one of a seat
        regions = [r for r in REGIONS if _norm(r).replace(" ", "").startswith(code[3:].lower()[:3])]
        seats = [s for r in regions for s in REGIONS[r]]
        raise InvalidArg(
            f"{code} is not a known ECLI court code: the TAR codes are per seat",
            valid="; ".join(f"{s} = {SEATS[s][1]}" for s in seats) if seats else SEDE_VALID,
        )
    raise InvalidArg(f"unknown sede {sede[:60]!r}", valid=SEDE_VALID)


def resolve_tipo(tipo: str | None) -> str | None:
    if tipo is None or not isinstance(tipo, str) or not tipo.strip():
        if tipo is not None and not isinstance(tipo, str):
            raise InvalidArg("tipo must be text", valid=TIPO_VALID)
        return None
    found = TIPI.get(lookup_key(tipo))
    if found is None:
        raise InvalidArg(f"unknown tipo {tipo[:60]!r}", valid=TIPO_VALID)
    return found


def section_label(raw: str | None) -> str | None:
    """A section as cited after `sez.`: `SEZIONE 1B` -> `I-bis`, `Sezione Quarta` -> `IV`,
    `SEZIONE 4Q` -> `IV-quater`; `Ad. plen.` for the Adunanza plenaria. None when unreadable."""
    if not raw:
        return None
    n = _norm(raw)
    m = _SECTION_RE.fullmatch(n) or _SECTION_RE.fullmatch(n.replace(" ", ""))
    if m:
        num = m.group("n")
        value = int(num) if num.isdigit() else _ROMANS.get(num) or _ORDINALS.get(num)
        if not value or value > 10:
            return None
        suffix = _SUFFIXES.get(m.group("s") or "")
        return _ROMAN_OF[value] + (f"-{suffix}" if suffix else "")
    if len(n) <= 60:  # a section's name, not a sentence that happens to contain "plenaria"
        for words, label in _NAMED_SECTIONS:
            if words in n:
                return label
    return None


def section_cite(label: str) -> str:
    return label if label == "Ad. plen." else f"sez. {label}"


def resolve_sezione(sezione: object) -> str | None:
    if sezione is None or (isinstance(sezione, str) and not sezione.strip()):
        return None
    if isinstance(sezione, bool) or not isinstance(sezione, (str, int)):
        raise InvalidArg("sezione must be text, e.g. 'IV' or 'I-bis'", valid=SEZIONE_VALID)
    label = section_label(str(sezione))
    if label is None:
        raise InvalidArg(f"unknown sezione {str(sezione)[:60]!r}", valid=SEZIONE_VALID)
    return label


def split_number(raw: str | None, ecli: str | None) -> tuple[str | None, int | None]:
    """(decision number, year): the ECLI's ordinal and year, else the portal number `YYYYNNNNN`
    (`202611970` = n. 11970/2026, captured next to ECLI:IT:TARLAZ:2026:11970SENT)."""
    m = _ECLI_RE.fullmatch(ecli or "")
    if m:
        return m.group(3), int(m.group(2))
    raw = (raw or "").strip()
    if re.fullmatch(r"(?:19|20)\d{2}\d{5}", raw):
        return str(int(raw[4:])), int(raw[:4])
    return (raw or None), None


def type_abbr(decision_type: str | None) -> str:
    t = " ".join((decision_type or "").lower().split())
    return TYPE_ABBR.get(t) or (t or "provv.")


def ga_citation(sede: str | None, section: str | None, decision_type: str | None, number: str | None,
                year: int | None, court: str | None = None) -> str | None:
    """Italian citation: `T.A.R. Lazio, Roma, sez. I-bis, sent. n. 11970/2026`,
    `Cons. Stato, sez. IV, sent. n. 123/2021`, `C.G.A.R.S., sez. giurisd., sent. n. 1/2024`."""
    court = court or court_name(sede)
    if not court or not number:
        return None
    parts = [court]
    if section:
        parts.append(section_cite(section))
    elif sede == CGARS and type_abbr(decision_type) != "parere":
        parts.append("sez. giurisd.")  # its only judicial section (the others are consultative)
    parts.append(f"{type_abbr(decision_type)} n. {number}" + (f"/{year}" if year else ""))
    return ", ".join(parts)


def build_ecli(sede: str | None, decision_type: str | None, number: str | None, year: int | None) -> str | None:
    """ECLI:IT:<court code>:<year>:<number><type>, only where every part is sourced: a known court
    code and a sentenza (SENT; captured). Other types have several codes (ORD/OCAU/OCOL…, reported),
    so they are never built."""
    code = next((c for c, s in ECLI_COURTS.items() if s == sede), None)
    if not (code and number and number.isdigit() and year) or (decision_type or "").strip().lower() != "sentenza":
        return None
    return f"ECLI:IT:{code}:{year}:{int(number)}SENT"


# ---------------------------------------------------------------- Structs


class GaHit(msgspec.Struct, frozen=True, kw_only=True):
    """One administrative decision from the portal search: number and year split
    (`202611970` on the portal = n. 11970/2026), the Italian citation and the native ECLI."""

    citation: str | None = None
    ecli: str | None = None
    court: str | None = None
    sede: str | None = None
    region: str | None = None
    section: str | None = None
    decision_type: str | None = None
    number: str | None = None
    year: int | None = None
    portal_number: str | None = None
    registro_generale: str | None = None
    snippet: str | None = None
    document_url: str | None = None
    pdf_only: bool = False
    source_url: str


class GaSearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """First page of the portal's answer (newest first); `anno` and `sezione` are filtered here,
    on that page, not upstream (the answer says so in `note`)."""

    total_upstream: int
    returned: int
    sede: str | None = None
    anno_filter: int | None = None
    anno_applied_client_side: bool = False
    sezione_filter: str | None = None
    note: str | None = None
    hits: list[GaHit] = msgspec.field(default_factory=list)
    licence: str = "Official decisions (art. 5 l. 633/1941), Giustizia Amministrativa"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


class GaSection(msgspec.Struct, frozen=True):
    """Where a section of the decision sits in the full text (character offsets)."""

    name: Literal["epigrafe", "fatto_e_diritto", "motivazione", "dispositivo", "sottoscrizioni"]
    start: int
    length: int


class GaMetadata(msgspec.Struct, frozen=True, kw_only=True):
    """Registry data from `meta`/`meta/descrittori` of the decision XML."""

    document_id: str | None = None
    tipologia: str | None = None
    numero: str | None = None
    anno: int | None = None
    registro_generale: str | None = None
    registro_anno: int | None = None
    urn: str | None = None
    data_pubblicazione: str | None = None
    estensore: str | None = None
    court: str | None = None


class GaText(msgspec.Struct, frozen=True, kw_only=True):
    """One decision with its text whole (paging it is the MCP tool's business); `pdf_only`
    decisions carry no text (open `source_url`). `ecli_source`: `portal` (the ECLI the portal
    printed next to the decision's link), `built` (from the decision's own data), or None."""

    document_url: str
    citation: str | None = None
    ecli: str | None = None
    ecli_source: Literal["portal", "built"] | None = None
    court: str | None = None
    sede: str | None = None
    section: str | None = None
    decision_type: str | None = None
    number: str | None = None
    year: int | None = None
    publication_date: str | None = None
    note: str | None = None
    pdf_only: bool = False
    metadata: GaMetadata = msgspec.field(default_factory=GaMetadata)
    sections: list[GaSection] = msgspec.field(default_factory=list)
    text: str = ""
    source_url: str
    licence: str = "Official decisions (art. 5 l. 633/1941), Giustizia Amministrativa"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- argument checks


def resolve_numero(numero: object, anno: object) -> tuple[str | None, int | None]:
    """`numero` as int or digits, or `11970/2026` (then it also gives the year) -> (digits, anno)."""
    if numero is None or (isinstance(numero, str) and not numero.strip()):
        return None, anno if isinstance(anno, int) else None
    if isinstance(numero, bool) or not isinstance(numero, (int, str)):
        raise InvalidArg("numero must be a number or digits", valid="e.g. 11970, '11970' or '11970/2026'")
    text = str(numero).strip()
    m = re.fullmatch(r"(?:n\.?\s*)?(\d{1,9})(?:\s*(?:/|del|del\s+|-)\s*(\d{4}))?", text, re.I)
    if not m or int(m.group(1)) == 0:
        raise InvalidArg(f"numero {text[:40]!r} is not a decision number",
                         valid="1 to 9 digits (e.g. 11970), optionally with the year: '11970/2026'")
    year = int(m.group(2)) if m.group(2) else None
    if year is not None and anno is not None and anno != year:
        raise InvalidArg(f"numero says {year}, anno says {anno}", valid="the same year in both, or the year in one only")
    return m.group(1), year if year is not None else anno  # type: ignore[return-value]


def portal_numero(numero: str, anno: int | None) -> str:
    """The portal prints a decision's number as YYYY + five digits (`202611970`, captured); with a
    year the number is sent that way (reported to be what its number search matches)."""
    if anno is not None and len(numero) <= 5:
        return f"{anno}{int(numero):05d}"
    return numero


def page_size(limit: int) -> int:
    return next((s for s in PAGE_SIZES if limit <= s), PAGE_SIZES[-1])


def search_form(query: str | None, sede: str | None, tipo: str | None, numero: str | None, limit: int) -> dict[str, str]:
    form = {
        NS + "searchtextProvvedimenti": query or "",
        NS + "sedeProvvedimenti": sede or "",
        NS + "TipoProvvedimentoItem": tipo or "",
        NS + "isAdvancedSearch": "false",
        NS + "pageSize": str(page_size(limit)),
    }
    if numero:
        form[NS + "asSearchMode"] = "provv"
        form[NS + "numeroProvvedimenti"] = numero
    return form


def action_params(p_auth: str) -> dict[str, str]:
    return {
        "p_p_id": PORTLET_ID,
        "p_p_lifecycle": "1",
        "p_p_state": "normal",
        "p_p_mode": "view",
        NS + "javax.portlet.action": "search",
        "p_auth": p_auth,
    }


def check_document_url(url: object, document_base: str) -> str:
    """Accept only the decision host's `/visualizza/` URLs; return the URL rebuilt canonically."""
    if not isinstance(url, str) or len(url) > 1000:
        raise InvalidArg("document_url must be a string of at most 1000 characters", valid=DOC_URL_VALID)
    base = urlsplit(document_base)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise InvalidArg(f"not a valid URL: {url[:200]!r}", valid=DOC_URL_VALID)
    if parts.scheme.lower() != base.scheme.lower():
        raise InvalidArg(f"scheme {parts.scheme!r} not allowed for decisions", valid=DOC_URL_VALID)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise InvalidArg("URLs with user information are not allowed", valid=DOC_URL_VALID)
    if (parts.hostname or "").lower() != (base.hostname or "").lower():
        raise InvalidArg(f"host {parts.hostname!r} is not the decision host", valid=DOC_URL_VALID)
    if port != base.port:
        raise InvalidArg(f"port {port} is not allowed", valid=DOC_URL_VALID)
    if parts.path != DOC_PATH or parts.fragment:
        raise InvalidArg(f"path {parts.path!r} is not a decision path", valid=DOC_URL_VALID)
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InvalidArg("malformed query string", valid=DOC_URL_VALID)
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or not set(keys) <= set(DOC_PARAM_RES):
        raise InvalidArg("unexpected or repeated query parameters", valid=DOC_URL_VALID)
    values = dict(pairs)
    for key in ("schema", "nrg", "nomeFile"):
        if key not in values:
            raise InvalidArg(f"missing query parameter {key}", valid=DOC_URL_VALID)
    for key, value in values.items():
        if not DOC_PARAM_RES[key].fullmatch(value):
            raise InvalidArg(f"bad value for {key}: {value[:60]!r}", valid=DOC_URL_VALID)
    ordered = [(k, values.get(k, "Provvedimenti" if k == "subDir" else "")) for k in DOC_PARAM_RES]
    return f"{base.scheme}://{base.netloc}{DOC_PATH}?{urlencode(ordered)}"


def is_pdf_url(url: str) -> bool:
    return dict(parse_qsl(urlsplit(url).query)).get("nomeFile", "").endswith(".pdf")


# ---------------------------------------------------------------- parsing: portal


def extract_p_auth(page: bytes | str) -> str:
    """The Liferay CSRF token, from `Liferay.authToken = '…'` or a `p_auth=` action URL."""
    text = page.decode("utf-8", "replace") if isinstance(page, bytes) else page
    m = _AUTH_SCRIPT_RE.search(text) or _AUTH_URL_RE.search(text.replace("&amp;", "&"))
    if not m:
        raise UpstreamChanged("GA search page carries no p_auth token (Liferay layout changed?)")
    return m.group(1)


def _html_root(body: bytes) -> lxml.html.HtmlElement:
    parser = lxml.html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, encoding="utf-8")
    try:
        return lxml.html.document_fromstring(body, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise UpstreamChanged(f"GA answered an unreadable page: {exc}")


def _text(el: lxml.html.HtmlElement | None) -> str:
    return " ".join(el.text_content().split()) if el is not None else ""


def _raw_section(raw: str | None) -> str | None:
    """A section name we cannot read, as printed, for the citation (`SEZIONE STRALCIO` -> `stralcio`)."""
    text = re.sub(r"^sezione\s+", "", " ".join((raw or "").split()).lower())
    return clip(text, 40) or None


def _hit(article: lxml.html.HtmlElement, document_base: str) -> GaHit | None:
    url = None
    for a in article.iter("a"):
        href = (a.get("href") or "").strip()
        if DOC_PATH in href:
            url = href
            break
    ecli = None
    raw_sede = raw_section = dtype = raw_number = rg = None
    snippet = None
    for div in article.iter("div"):
        classes = (div.get("class") or "").split()
        txt = _text(div)
        if "snippet" in classes:
            for em in div.iter("em"):
                em.text = HL_OPEN + (em.text or "")
                em.tail = HL_CLOSE + (em.tail or "")
            snippet = _text(div).strip(" .…") or None
            continue
        if " sede di " in f" {txt} " and "numero provv" in txt:
            bolds = [_text(b) for b in div.findall(".//b")]
            if len(bolds) >= 4:
                dtype, raw_sede, raw_section, raw_number = bolds[:4]
        elif txt.startswith("Numero ricorso"):
            b = div.find(".//b")
            rg = _text(b) or None
        elif m := _ECLI_RE.search(txt):
            ecli = m.group(0)
    document_url = None
    if url:
        try:
            document_url = check_document_url(url, document_base)
        except InvalidArg:
            document_url = None
    if document_url is None and ecli is None:
        if _PAGER_RE.search(_text(article)):
            return None  # the pagination footer is an `article.ricerca--item` too (reported)
        raise UpstreamChanged("GA result item without decision URL or ECLI")
    number, year = split_number(raw_number, ecli)
    sede = sede_of(raw_sede)
    em = _ECLI_RE.fullmatch(ecli or "")
    if sede is None and em:
        sede = ECLI_COURTS.get(em.group(1))
    section = section_label(raw_section)
    if section is None and em and em.group(4) == "APLE":
        section = "Ad. plen."  # ECLI type of the Adunanza plenaria (reported)
    decision_type = dtype.capitalize() if dtype else None
    court = court_name(sede) or (clip(raw_sede.title(), 60) if raw_sede else None)
    return GaHit(
        citation=ga_citation(sede, section or _raw_section(raw_section), decision_type, number, year, court=court),
        ecli=ecli,
        court=court,
        sede=sede or clip(raw_sede, 60),
        region=SEATS[sede][0] if sede in SEATS else None,
        section=section or clip(raw_section, 60),
        decision_type=clip(decision_type, 60),
        number=clip(number, 12),
        year=year,
        portal_number=clip(raw_number, 20),
        registro_generale=clip(rg, 20),
        snippet=clip(snippet, MAX_SNIPPET_CHARS),
        document_url=document_url,
        pdf_only=bool(document_url and is_pdf_url(document_url)),
        source_url=document_url or (url if url and len(url) <= 1000 else None) or document_base,
    )


def parse_search_page(body: bytes, document_base: str) -> tuple[int, list[GaHit]]:
    """(upstream total, hits) from the POST answer; a page with neither is `upstream_changed`."""
    text = body.decode("utf-8", "replace")
    m = _TOTAL_RE.search(text)
    root = _html_root(body)
    articles = [a for a in root.iter("article") if "ricerca--item" in (a.get("class") or "").split()]
    if m is None:
        if articles:
            raise UpstreamChanged("GA results without the 'Trovati N risultati' total")
        if re.search(r"nessun\w*\s+(risultat|provvediment|document)", text, re.I):
            return 0, []
        raise UpstreamChanged("GA answered a page that is not a search result")
    total = int(m.group(1).replace(".", ""))
    return total, [h for h in (_hit(a, document_base) for a in articles) if h is not None]


def filter_hits(hits: list[GaHit], anno: int | None, sezione: str | None) -> list[GaHit]:
    return [h for h in hits if (anno is None or h.year == anno) and (sezione is None or h.section == sezione)]


# ---------------------------------------------------------------- parsing: decision XML

_XML_PARSER_KW = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False)


def _local(el: lxml.etree._Element) -> str:
    return lxml.etree.QName(el).localname if isinstance(el.tag, str) else ""


def _block_text(el: lxml.etree._Element | None, skip: frozenset[str] = frozenset()) -> str:
    """Text of an element, one line per `div`, `*Ted` twins and whitespace dropped."""
    if el is None:
        return ""
    lines: list[str] = []

    def walk(node: lxml.etree._Element) -> None:
        name = _local(node)
        if not name or name.endswith("Ted") or name in skip:
            return
        kids = [c for c in node if isinstance(c.tag, str)]
        if not kids or name == "div" and not any(_local(c) == "div" for c in kids):
            line = " ".join("".join(node.itertext()).split())
            if line:
                lines.append(line)
            return
        if node.text and node.text.strip():
            lines.append(" ".join(node.text.split()))
        for c in kids:
            walk(c)
            if c.tail and c.tail.strip():
                lines.append(" ".join(c.tail.split()))

    walk(el)
    return "\n".join(lines)


def _child(el: lxml.etree._Element | None, name: str) -> lxml.etree._Element | None:
    if el is None:
        return None
    return next((c for c in el if _local(c) == name), None)


def _dmy_to_iso(value: str | None) -> str | None:
    m = re.fullmatch(r"(\d{2})/(\d{2})/(\d{4})", (value or "").strip())
    return f"{m.group(3)}-{m.group(2)}-{m.group(1)}" if m else None


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


SECTION_TAGS: tuple[tuple[str, str], ...] = (
    ("epigrafe", "epigrafe"),
    ("premessa", "fatto_e_diritto"),
    ("motivazione", "motivazione"),
    ("dispositivo", "dispositivo"),
    ("sottoscrizioni", "sottoscrizioni"),
)
HEADINGS = {
    "epigrafe": "EPIGRAFE",
    "fatto_e_diritto": "FATTO E DIRITTO",
    "motivazione": "MOTIVAZIONE",
    "dispositivo": "DISPOSITIVO",
    "sottoscrizioni": "SOTTOSCRIZIONI",
}


def parse_decision_xml(body: bytes) -> tuple[GaMetadata, str, list[GaSection]]:
    """`<GA><Provvedimento>` -> (metadata, full text with headings, section offsets)."""
    head = body.lstrip()[:300].lower()
    if head.startswith(b"<!doctype html") or head.startswith(b"<html"):
        raise UpstreamChanged("the decision host answered HTML where the GA XML was expected")
    try:
        root = lxml.etree.fromstring(body, parser=lxml.etree.XMLParser(**_XML_PARSER_KW))
    except lxml.etree.XMLSyntaxError as exc:
        raise UpstreamChanged(f"decision XML is not well formed: {exc}")
    prov = _child(root, "Provvedimento") if _local(root) == "GA" else None
    if prov is None:
        raise UpstreamChanged(f"expected <GA><Provvedimento>, got <{_local(root)}>")
    meta = _child(prov, "meta")
    desc = _child(meta, "descrittori")
    fasc = _child(desc, "fascicolo")
    reg = _child(desc, "registro")
    urn = _child(desc, "urn")
    est = _child(_child(meta, "firmaEstensore"), "firma")
    adunanza = _child(_child(prov, "epigrafe"), "adunanza")
    court_lines = _block_text(adunanza).split("\n")[:2] if adunanza is not None else []
    reg_year = _int_or_none(reg.get("anno")) if reg is not None else None
    reg_n = reg.get("n") if reg is not None else None
    metadata = GaMetadata(
        document_id=clip(meta.get("id") if meta is not None else None, 80),
        tipologia=clip(_block_text(_child(meta, "tipologia")) or None, 60),
        numero=clip(fasc.get("n") if fasc is not None else None, 12),
        anno=_int_or_none(fasc.get("anno")) if fasc is not None else None,
        registro_generale=clip(f"{reg_n}/{reg_year}" if reg_n and reg_year else None, 30),
        registro_anno=reg_year,
        urn=clip((urn.text or "").strip() or None if urn is not None else None, 200),
        data_pubblicazione=_dmy_to_iso(_block_text(_child(meta, "dataPubblicazione"))),
        estensore=clip((est.text or "").strip() or None if est is not None else None),
        court=clip(" ".join(court_lines) or None, 300),
    )
    parts: list[str] = []
    sections: list[GaSection] = []
    pos = 0
    for tag, name in SECTION_TAGS:
        body_text = _block_text(_child(prov, tag))
        if not body_text:
            continue
        block = f"{HEADINGS[name]}\n{body_text}"
        if parts:
            pos += 2
        sections.append(GaSection(name=name, start=pos, length=len(block)))  # type: ignore[arg-type]
        parts.append(block)
        pos += len(block)
    text = "\n\n".join(parts)
    if not text:
        raise UpstreamChanged("decision XML has no text sections")
    return metadata, text, sections


_COURT_LINE_SECTION = re.compile(r"\(\s*sezione\s+([^)]{1,40})\)", re.I)
_URN_SECTION = re.compile(r";sezione\.([0-9A-Za-z]{1,6})")


def decision_sede(url: str, metadata: GaMetadata) -> str | None:
    """The sede of a decision: from the URL's `schema` when known, else its court line
    (`Il Tribunale Amministrativo Regionale per il Lazio (Sezione Prima Bis)`, captured): a TAR's
    region gives its main seat unless a seat of that region (a sezione staccata) is named."""
    schema = dict(parse_qsl(urlsplit(url).query)).get("schema", "")
    if schema in SCHEMA_SEDE:
        return SCHEMA_SEDE[schema]
    line = _norm(metadata.court or "")
    if "consiglio di stato" in line:
        return CDS
    if "consiglio di giustizia amministrativa" in line:
        return CGARS
    words = f" {line} "
    for seat in ("Trento", "Bolzano"):
        if "giustizia amministrativa" in line and f" {_norm(seat)} " in words:
            return seat
    if "tribunale amministrativo regionale" not in line:
        return None
    region = next((r for alias, r in sorted(REGION_ALIASES.items(), key=lambda kv: -len(kv[0]))
                   if f" {alias} " in words), None)
    if region is None:
        return None
    named = [s for s in REGIONS[region] if f" {_norm(s)} " in words]
    return named[0] if named else REGIONS[region][0]


def decision_section(metadata: GaMetadata) -> str | None:
    m = _URN_SECTION.search(metadata.urn or "")  # urn:nir:tar.lazio;sezione.1B:sentenza:… (captured)
    if m and (label := section_label(m.group(1))):
        return label
    m = _COURT_LINE_SECTION.search(metadata.court or "")
    return section_label(m.group(1)) if m else None


def decision_identity(url: str, metadata: GaMetadata, hit: GaHit | None = None) -> dict[str, Any]:
    """Citation, ECLI and the rest for a decision, from its own data (and the search hit that
    gave its URL, when this server has it: the portal's ECLI is taken from there)."""
    sede = decision_sede(url, metadata) or (hit.sede if hit else None)
    section = decision_section(metadata) or (hit.section if hit else None)
    dtype = metadata.tipologia or (hit.decision_type if hit else None)
    number = metadata.numero or (hit.number if hit else None)
    year = metadata.anno or (hit.year if hit else None)
    if number and number.isdigit():
        number = str(int(number))
    ecli, source, note = (hit.ecli, "portal", None) if hit and hit.ecli else (None, None, None)
    if ecli is None and (ecli := build_ecli(sede, dtype, number, year)):
        source = "built"
        note = ("ecli built from the decision's court, year, number and type (ECLI:IT:<court>:<year>:<number>SENT); "
                "the portal prints the ECLI in it_ga_search hits: a 'sentenza breve' would be …SENB")
    return {
        "citation": ga_citation(sede, section, dtype, number, year),
        "ecli": ecli, "ecli_source": source, "court": court_name(sede), "sede": sede, "section": section,
        "decision_type": clip(dtype, 60), "number": clip(number, 12), "year": year,
        "publication_date": metadata.data_pubblicazione, "note": note,
    }


# ---------------------------------------------------------------- I/O


async def open_session(client: HttpClient, ga_url: str) -> str:
    """GET the search page: the session cookie lands in the client's jar; returns p_auth."""
    resp = await client.request("GET", ga_url + SEARCH_PATH, not_found_statuses=(), what="GA search page")
    return extract_p_auth(resp.body)


async def post_search(client: HttpClient, ga_url: str, p_auth: str, form: dict[str, str]) -> bytes:
    resp = await client.request(
        "POST",
        ga_url + SEARCH_PATH,
        params=action_params(p_auth),
        data=form,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(),
        what="GA search",
    )
    return resp.body


async def fetch_document(client: HttpClient, url: str, document_base: str, ga_url: str) -> bytes:
    """GET a checked decision URL. The URL was checked before the request, so whatever goes wrong
    after it (a redirect off the decision host or path, an empty body) is the upstream's doing:
    `upstream_changed`, never `invalid_arg` nor `not_found` (only a 404/410 says "absent")."""
    resp = await client.request(
        "GET",
        url,
        headers={"Referer": ga_url + SEARCH_PATH},
        not_found_statuses=(404, 410),
        what="GA decision",
        same_host_redirects=True,
    )
    final = urlsplit(resp.url)
    base = urlsplit(document_base)
    if (final.hostname or "").lower() != (base.hostname or "").lower() or final.port != base.port or final.path != DOC_PATH:
        raise UpstreamChanged(
            f"GA decision: the decision host redirected to {final.path[:80]!r}, not a decision page",
            valid=RETRY_LATER, url=url,
        )
    if not resp.body.strip():
        raise UpstreamChanged(
            "GA decision: the decision host answered 200 with an empty body (this is not proof that the decision "
            "does not exist)",
            valid=RETRY_LATER + "; or open source_url in a browser", url=url,
        )
    return resp.body
