"""The Cassazione as SentenzeWeb files it: the two archives and their ids, chambers, sections and
decision types, as callers write them and as a citation prints them. Apart because both the
filters we send and the citations we read are checked against these tables."""

from __future__ import annotations

import re
from typing import Literal

from it_eli.law.grammar import int_to_roman
from it_eli.runtime.errors import InvalidArg
from it_eli.sources.marks import lookup_key

# `id` = kind + year + section char + decision number + type letter (snciv2021521018O,
# snciv2026L24908O, snpen2024710787O in the captures).
SIC_ID_RE = re.compile(r"^(snciv|snpen)(\d{4})([0-9A-Z])(\d{1,6})([A-Z])$")
SIC_ID_VALID = "kind+year+section+number+type, e.g. snciv2021521018O or snpen2024710787O"

Chamber = Literal["civile", "penale"]
SubChamber = Literal["lavoro", "tributaria"]

KIND_OF_CHAMBER: dict[str, str] = {"civile": "snciv", "penale": "snpen"}
CHAMBER_OF_KIND: dict[str, Chamber] = {"snciv": "civile", "snpen": "penale"}
# what callers write for a chamber (compared after `lookup_key`: lower case, no dots or spaces)
CHAMBER_NAMES: dict[str, str] = {
    "civile": "civile", "civ": "civile", "snciv": "civile", "civil": "civile",
    "penale": "penale", "pen": "penale", "snpen": "penale", "criminal": "penale",
}  # fmt: skip
CHAMBER_VALID = "civile (civ.) or penale (pen.), case-insensitive"

_ROMAN = {str(n): int_to_roman(n) for n in range(1, 8)}  # the Cassazione's numbered sections, I-VII
_ORDINAL_WORDS = {"prima": "1", "seconda": "2", "terza": "3", "quarta": "4", "quinta": "5", "sesta": "6", "settima": "7"}
# szdec codes a `section` filter may send and what each means (DISCOVERY: the court's script labels
# 1-7, F, L, U; its civil facet shows 1,2,3,5,6,L,U; 7 is seen in a criminal record).
SECTION_CODES: dict[str, str] = {
    "1": "I", "2": "II", "3": "III", "4": "IV", "5": "V (civil: tributaria)", "6": "VI", "7": "VII",
    "L": "lavoro (civil)", "U": "sezioni unite", "F": "feriale",
}  # fmt: skip
# section words (after `lookup_key` and without a leading "sez"/"sezione"/"sezioni") -> (szdec, chamber it implies)
SECTION_NAMES: dict[str, tuple[str, str | None]] = {
    **{k: ("U", None) for k in ("u", "un", "unite", "su", "ssuu", "sunite")},
    **{k: ("L", "civile") for k in ("l", "lav", "lavoro")},
    **{k: ("5", "civile") for k in ("trib", "tributaria")},
    **{k: ("F", None) for k in ("f", "fer", "feriale")},
    **{d: (d, None) for d in _ROMAN},
    **{r.lower(): (d, None) for d, r in _ROMAN.items()},
    **{w: (d, None) for w, d in _ORDINAL_WORDS.items()},
}
SECTION_VALID = (
    "section: 1-7 (or I-VII, prima…settima), L / lavoro (civil), U / sezioni unite (SU, S.U., SS.UU., "
    "sez. un.), F / feriale, tributaria (= civil section 5); case-insensitive; or a value of facets.section"
)
# decision types: the upstream's words (`tipoprov`) and what callers write for them
DECISION_TYPES: dict[str, str] = {
    **{k: "Sentenza" for k in ("sentenza", "sent", "s")},
    **{k: "Ordinanza" for k in ("ordinanza", "ord", "o")},
    **{k: "Ordinanza Interlocutoria" for k in ("ordinanzainterlocutoria", "ordinterl", "ordint", "interlocutoria", "i")},
    **{k: "Decreto" for k in ("decreto", "decr", "d")},
}
DECISION_TYPE_VALID = "sentenza (sent.), ordinanza (ord.), ordinanza interlocutoria (ord. interl.), decreto (decr.); case-insensitive"

# tipoprov (the upstream's words) -> citation abbreviation.
TIPOPROV_ABBR: dict[str, str] = {
    "sentenza": "sent.",
    "ordinanza": "ord.",
    "ordinanza interlocutoria": "ord. interl.",
    "decreto": "decr.",
}
# last letter of the id / `@t` of the filename, when tipoprov is missing.
TYPE_LETTER_ABBR: dict[str, str] = {"S": "sent.", "O": "ord.", "I": "ord. interl.", "D": "decr."}


def resolve_chamber(chamber: object) -> str | None:
    if chamber is None or (isinstance(chamber, str) and not chamber.strip()):
        return None
    name = CHAMBER_NAMES.get(lookup_key(chamber)) if isinstance(chamber, str) else None
    if name is None:
        raise InvalidArg(f"unknown chamber {str(chamber)[:60]!r}", valid=CHAMBER_VALID)
    return name


def resolve_section(section: object, what: str = "section") -> tuple[str, str | None] | None:
    """A section as written by a lawyer (or a facet value) -> (szdec code, chamber it implies)."""
    if section is None or (isinstance(section, str) and not section.strip()):
        return None
    if isinstance(section, bool) or not isinstance(section, (str, int)):
        raise InvalidArg(f"{what} must be text, e.g. 'III' or 'sezioni unite'", valid=SECTION_VALID)
    key = lookup_key(str(section))
    key = re.sub(r"^(sezioni|sezione|sez)(?=.)", "", key)
    m = re.fullmatch(r"(.+?)(civile|civ|penale|pen)", key)  # "III pen.", "sez. un. civ."
    chamber = None
    if m and m.group(1) in SECTION_NAMES:
        key, chamber = m.group(1), CHAMBER_NAMES[m.group(2)]
    found = SECTION_NAMES.get(key)
    if found is None and re.fullmatch(r"(?:6|vi|sesta)(?:t|trib|tributaria|l|lav|lavoro|[1-5])", key):
        raise InvalidArg(
            f"{what} {str(section)[:60]!r} is a sub-section of the old sixth civil section (field ssz), "
            "which SentenzeWeb offers no filter for",
            valid="section=6 (each hit's citation names its sub-section, e.g. sez. VI-T); " + SECTION_VALID,
        )
    if found is None:
        raise InvalidArg(f"unknown {what} {str(section)[:60]!r}", valid=SECTION_VALID)
    if chamber is not None and found[1] is not None and found[1] != chamber:
        raise InvalidArg(f"{what} {str(section)[:60]!r}: that section exists in the {found[1]} chamber only",
                         valid=SECTION_VALID)
    return found[0], found[1] or chamber


def resolve_decision_type(decision_type: object) -> str | None:
    if decision_type is None or (isinstance(decision_type, str) and not decision_type.strip()):
        return None
    name = DECISION_TYPES.get(lookup_key(decision_type)) if isinstance(decision_type, str) else None
    if name is None:
        raise InvalidArg(f"unknown decision_type {str(decision_type)[:60]!r}", valid=DECISION_TYPE_VALID)
    return name


def section_label(kind: str | None, szdec: str | None, ssz: str | None = None) -> str | None:
    """Section as cited: I..VII, `lav.` (L), `un.` (U), `VI-3` for the old sixth's subsections."""
    if not szdec:
        return None
    if szdec == "L":
        return "lav."
    if szdec == "U":
        return "un."
    if szdec == "F":
        return "fer."
    roman = _ROMAN.get(szdec, szdec)
    if szdec == "6" and ssz and ssz not in ("0", ""):
        # the court's script labels the sub-section field: `5` -> T (tributaria), `L` -> lavoro
        return f"{roman}-{SUBSECTION_LABELS.get(ssz, ssz)}"
    return roman


# `ssz` (sub-section of the old sixth civil section) as cited; the court's script: {"5": "T", L: "LAVORO"}
SUBSECTION_LABELS = {"5": "T", "T": "T", "L": "L"}


def type_abbr(tipoprov: str | None, sic_id: str) -> str:
    if tipoprov and tipoprov.strip().lower() in TIPOPROV_ABBR:
        return TIPOPROV_ABBR[tipoprov.strip().lower()]
    return TYPE_LETTER_ABBR.get(sic_id[-1:], "provv.")
