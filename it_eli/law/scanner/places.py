"""The places citations name: the Region of a regional law, the Region and seat of a TAR, the city
of an ordinary court. Apart because statutes and courts both read Regions, in the same spellings."""

from __future__ import annotations

import re

from .tokens import WS

_REGIONS = [
    "Lazio", "Lombardia", "Campania", "Sicilia", "Puglia", "Toscana", "Veneto", "Piemonte",
    "Emilia[\\s-]Romagna", "Emilia", "Liguria", "Calabria", "Sardegna", "Marche", "Abruzzo", "Umbria",
    "Friuli[\\s-]Venezia[\\s-]Giulia", "Friuli", "Basilicata", "Molise", "Trentino[\\s-]Alto[\\s-]Adige",
    "Trentino", "Valle\\s+d['’]Aosta", "Bolzano", "Trento",
]
_SEATS = [
    "Roma", "Latina", "Milano", "Brescia", "Napoli", "Salerno", "Palermo", "Catania", "Bari", "Lecce",
    "Firenze", "Venezia", "Torino", "Bologna", "Parma", "Genova", "Catanzaro", "Reggio\\s+Calabria",
    "Cagliari", "Ancona", "L['’]Aquila", "Pescara", "Perugia", "Trieste", "Potenza", "Campobasso",
    "Trento", "Bolzano", "Aosta",
]
# seats of ordinary courts, read whatever their case ("tribunale milano")
_CITIES = [
    "roma", "milano", "napoli", "torino", "palermo", "genova", "bologna", "firenze", "bari", "catania", "venezia",
    "verona", "messina", "padova", "trieste", "brescia", "taranto", "prato", "parma", "modena", "reggio\\s+(?:di\\s+)?calabria",
    "reggio\\s+(?:nell['’]\\s?)?emilia", "perugia", "livorno", "ravenna", "cagliari", "foggia", "rimini", "salerno",
    "ferrara", "sassari", "latina", "monza", "siracusa", "pescara", "bergamo", "vicenza", "trento", "bolzano",
    "novara", "piacenza", "ancona", "udine", "arezzo", "lecce", "la\\s+spezia", "pisa", "como", "lucca", "brindisi",
    "treviso", "varese", "busto\\s+arsizio", "pavia", "cremona", "mantova", "lodi", "asti", "cuneo", "ivrea",
    "alessandria", "savona", "imperia", "massa", "pistoia", "siena", "grosseto", "viterbo", "rieti", "frosinone",
    "cassino", "velletri", "tivoli", "civitavecchia", "teramo", "chieti", "l['’]\\s?aquila", "campobasso", "isernia",
    "avellino", "benevento", "caserta", "santa\\s+maria\\s+capua\\s+vetere", "nola", "torre\\s+annunziata",
    "potenza", "matera", "cosenza", "catanzaro", "crotone", "vibo\\s+valentia", "trapani", "agrigento", "caltanissetta",
    "enna", "ragusa", "marsala", "termini\\s+imerese", "nuoro", "oristano", "aosta", "belluno", "rovigo", "pordenone",
    "gorizia", "macerata", "fermo", "pesaro", "urbino", "ascoli\\s+piceno", "spoleto", "terni",
]
_REGION_RE = "(?:" + "|".join(_REGIONS) + r"|Lomb\.|Sic\.|Tosc\.|Camp\.|Piem\.|Sard\.|E\.\s?R\.|Emilia-Rom\.|F\.\s?V\.\s?G\.|FVG)"
_REGION_ABBREV = {"lomb.": "Lombardia", "sic.": "Sicilia", "tosc.": "Toscana", "camp.": "Campania", "piem.": "Piemonte",
                  "sard.": "Sardegna", "e.r.": "Emilia-Romagna", "e. r.": "Emilia-Romagna", "emilia-rom.": "Emilia-Romagna",
                  "f.v.g.": "Friuli-Venezia Giulia", "f. v. g.": "Friuli-Venezia Giulia", "fvg": "Friuli-Venezia Giulia"}
_SEAT_RE = "(?:" + "|".join(_SEATS) + ")"
# a Region named by its adjective: "legge regionale toscana", "l.r. lombarda", "Regione Siciliana",
# "legge provinciale altoatesina"
_REGION_ADJECTIVES = {
    "lombarda": "Lombardia", "toscana": "Toscana", "veneta": "Veneto", "campana": "Campania", "siciliana": "Sicilia",
    "pugliese": "Puglia", "piemontese": "Piemonte", "ligure": "Liguria", "laziale": "Lazio", "sarda": "Sardegna",
    "marchigiana": "Marche", "abruzzese": "Abruzzo", "umbra": "Umbria", "friulana": "Friuli-Venezia Giulia",
    "lucana": "Basilicata", "molisana": "Molise", "calabrese": "Calabria", "valdostana": "Valle d'Aosta",
    "emiliano-romagnola": "Emilia-Romagna", "emiliana": "Emilia-Romagna", "trentina": "Trento",
    "altoatesina": "Bolzano",
}
# after a regional type the Region may be written in any case, or as its adjective
_REGION_WORD = ("(?i:" + "|".join(sorted(_REGION_ADJECTIVES, key=len, reverse=True)) + "|" + "|".join(_REGIONS) + ")"
                + "|" + _REGION_RE)
# the Region (or autonomous Province) after a regional law's type: "l.r. Lombardia", "legge della Regione Puglia",
# "legge provinciale di Bolzano", "legge regionale toscana"
REGION_AFTER = re.compile(
    rf"{WS},?{WS}(?:della\s+|del\s+|per\s+la\s+|di\s+)?(?:[Rr]egione\s+|[Pp]rov(?:incia|\.)\s+(?:[Aa]utonoma\s+)?(?:di\s+)?)?"
    rf"(?P<reg>{_REGION_WORD})(?![a-zà-ù])"
)
REGION_OF_LEGGE = re.compile(
    rf"{WS}(?:della|dalla)\s+(?:[Rr]egione|[Pp]rovincia\s+autonoma\s+di)\s+(?P<reg>{_REGION_WORD})(?![a-zà-ù])"
)
# after a regional law's coordinates: "l.r. n. 12/2005 Lombardia", "l.r. 11 marzo 2005, n. 12 (Lombardia)"
REGION_TAIL = re.compile(
    rf"{WS}(?:,{WS}|\({WS})?(?:(?:della|dalla|del)\s+)?(?:[Rr]egione\s+|[Pp]rovincia\s+(?:autonoma\s+)?(?:di\s+)?)?"
    rf"(?P<reg>{_REGION_RE})(?![a-zà-ù])(?:{WS}\))?"
)


def region_name(raw: str) -> str:
    """A Region as written ('lombarda', 'Lomb.', 'puglia') -> its name ('Lombardia', 'Puglia')."""
    r = re.sub(r"\s+", " ", raw)
    low = r.lower()
    if low in _REGION_ADJECTIVES:
        return _REGION_ADJECTIVES[low]
    return _REGION_ABBREV.get(low, r.title() if r.islower() else r)


# a TAR's Region and seat: "TAR Lazio, Roma", "T.A.R. per la Lombardia", "TAR Catania"
TAR_PLACE = re.compile(
    rf"{WS}[,\-–]?{WS}(?:(?:per\s+(?:il|la|l['’])|del|della|dell['’]|di)\s{{0,3}})?(?P<reg>{_REGION_RE})"
    # the seat, after a comma, a space or named as one, in any case: "Lazio, Roma", "Lazio Roma" (as databases
    # print it), "per la Lombardia sezione staccata di Brescia"
    rf"(?:(?:{WS}[,\-–(]{WS}|\s{{1,3}})(?:(?i:sede(?:\s+staccata)?\s+di|sez(?:\.|ione)\s+staccata\s+di|sede)\s+)?"
    rf"(?P<seat>{_SEAT_RE})(?![a-zà-ù])\)?)?"
    rf"|{WS}[,\-–]?{WS}(?:di\s+)?(?P<seat2>{_SEAT_RE})",
)


def tar_seat(pm: re.Match) -> str:
    """A TAR's seat from a TAR_PLACE match: 'Lazio, Roma', 'Lombardia', 'Catania'."""
    if pm.group("reg"):
        reg = re.sub(r"\s+", " ", pm.group("reg"))
        return reg + (", " + pm.group("seat") if pm.group("seat") else "")
    return pm.group("seat2")


# after the court name of an ordinary, accounting or tax court: its seat ("Trib. Milano",
# "Corte d'appello di Napoli", "Tribunale per i minorenni di Roma", "Trib. sorv. Bari")
PLACE = re.compile(
    r"\s{0,3},?\s{0,3}(?:(?:per\s+i\s+minorenni|di\s+sorveglianza|del\s+riesame|min(?:\.|orenni)|sorv(?:\.|eglianza)|riesame"
    r"|[Oo]rdinario|[Cc]ivile|[Pp]enale"  # "Tribunale ordinario di Roma": the kind, then the seat
    r"|d['’]\s?[Aa]ppello|[Rr]eg(?:\.|ionale)|[Pp]rov(?:\.|inciale)|di\s+(?:primo|secondo)\s+grado)\s{0,3})?"
    r"(?:(?:di|del|della|dell['’]|per\s+(?:il|la|l['’]))\s{0,3})?"
    r"(?P<place>L['’]\s?[A-Z][a-zà-ù]+|(?-i:[A-Z])[a-zà-ù'’]+(?:(?:[\s-]{1,2}|\s(?:di|nell['’]|d['’])\s?)(?-i:[A-Z])[a-zà-ù'’]+){0,3}"
    r"|(?i:" + "|".join(_CITIES) + r")(?![a-zà-ù]))"
)


def seat_name(raw: str) -> str:
    """A seat as written, in its usual capitals when written in lower case ('l'aquila' -> "L'Aquila")."""
    s = re.sub(r"\s+", " ", raw).strip()
    if not s.islower():
        return s
    words = [w if w in ("di", "nell'", "nell’", "sul") else re.sub(r"(^|['’])([a-zà-ù])", lambda m: m[1] + m[2].upper(), w)
             for w in s.split(" ")]
    return " ".join(words)
