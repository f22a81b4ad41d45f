"""A decision from the mdp host: its `<GA><Provvedimento>` XML read into metadata, the full text
and its sections (no network, no entity expansion), and its citation and ECLI from its own data."""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

import lxml.etree
import msgspec

from it_eli.runtime.errors import UpstreamChanged
from it_eli.sources.ga.courts import (
    CDS,
    CGARS,
    REGION_ALIASES,
    REGIONS,
    build_ecli,
    court_name,
    ga_citation,
    norm,
    section_label,
)
from it_eli.sources.ga.portal import GaHit
from it_eli.sources.marks import clip

# the decision host's `schema` (URL) -> sede: tar_rm (capture), cds (reported); others unknown
SCHEMA_SEDE = {"tar_rm": "Roma", "cds": CDS}


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
    line = norm(metadata.court or "")
    if "consiglio di stato" in line:
        return CDS
    if "consiglio di giustizia amministrativa" in line:
        return CGARS
    words = f" {line} "
    for seat in ("Trento", "Bolzano"):
        if "giustizia amministrativa" in line and f" {norm(seat)} " in words:
            return seat
    if "tribunale amministrativo regionale" not in line:
        return None
    region = next((r for alias, r in sorted(REGION_ALIASES.items(), key=lambda kv: -len(kv[0]))
                   if f" {alias} " in words), None)
    if region is None:
        return None
    named = [s for s in REGIONS[region] if f" {norm(s)} " in words]
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
