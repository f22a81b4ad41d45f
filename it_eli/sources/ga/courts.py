"""The administrative courts as lawyers write them and as they are cited: Consiglio di Stato,
C.G.A.R.S. and the TAR seats by region, their sections, decision types and ECLI court codes.
Apart because the portal's hits and the decision texts are both read and cited with them."""

from __future__ import annotations

import re
import unicodedata

from it_eli.runtime.errors import InvalidArg
from it_eli.sources.marks import lookup_key

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


def norm(value: str) -> str:
    """Lower case, accents folded, apostrophes and dots dropped, other punctuation -> space:
    `T.A.R. Lazio - Roma` -> `tar lazio roma`, `L’Aquila` -> `laquila`."""
    text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode().lower()
    text = re.sub(r"['’‘`´]", "", text).replace(".", "")
    text = re.sub(r"[^a-z0-9]+", " ", text)
    text = re.sub(r"\bt a r\b", "tar", text)
    return " ".join(text.split())


SEAT_ALIASES: dict[str, str] = {norm(seat): seat for seat in SEATS} | {
    "aquila": "L'Aquila", "l aquila": "L'Aquila", "reggio": "Reggio Calabria", "alto adige": "Bolzano",
    "sudtirol": "Bolzano", "bozen": "Bolzano", **{code.lower(): seat for code, seat in ECLI_COURTS.items()},
}
REGION_ALIASES: dict[str, str] = {norm(r): r for r in REGIONS} | {
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


ECLI_RE = re.compile(r"ECLI:IT:([A-Z]{2,8}):(\d{4}):0*(\d{1,7})([A-Z]{0,6})")


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
    n = norm(text)
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
    n = norm(sede)
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
        regions = [r for r in REGIONS if norm(r).replace(" ", "").startswith(code[3:].lower()[:3])]
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
    n = norm(raw)
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
    m = ECLI_RE.fullmatch(ecli or "")
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
