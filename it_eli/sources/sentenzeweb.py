"""SentenzeWeb (Corte di Cassazione): the public Solr behind www.italgiure.giustizia.it/sncass/.

Parsing is pure (bytes in, Structs out); `fetch_select` is the one I/O function and uses the
`HttpClient` it is given. Every upstream fact relied on here is in DISCOVERY.md (SentenzeWeb, GA, TLS).

Query safety: user text never reaches Solr as syntax. The query is parsed by `it_eli.search.query`
(the language of it_case_search: words, "phrases", AND / OR / NOT, `-word`, parentheses) and
compiled here; each word and each phrase becomes one phrase clause `ocr:"..."` in which only `\\`
and `"` are special (both backslash-escaped). The only Solr syntax in `q` is ours: the clauses,
`AND` / `OR` / `NOT`, parentheses, `*:*` (everything, for a purely negative group) and the
numbers of `~N` (phrase slop) and `^N` (weight) that the parser has already validated. Words are
ANDed by default because the upstream ORs bare words.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote, urlencode, urlsplit

import msgspec

from it_eli.law.grammar import int_to_roman
from it_eli.law.query import And, Node, Not, Or, Term, parse_query
from it_eli.runtime.errors import (
    InvalidArg,
    NotFound,
    QueryError,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.sources.marks import HL_CLOSE, HL_OPEN, clip, lookup_key

from .http import RETRY_LATER, HttpClient

SELECT_PATH = "/isapi/hc.dll/sn.solr/sn-collection/select"
# The court's front-end (index.js) marks what a request is for in the URL's query string:
# `select?app.query=<kind>` (a search; bare `select?app.query` with no archive chosen),
# `select?app.facet` (facet counts); the decision's detail goes to plain `select`.
APP_QUERY = "app.query"
APP_FACET = "app.facet"
# Every search of the court's client is restricted to the two archives (its hidden `startquery`):
# the collection also holds other kinds of documents (the suggester's `kind:"key"` entries).
START_QUERY = '(kind:"snciv" OR kind:"snpen")'
FORM_CONTENT_TYPE = "application/x-www-form-urlencoded; charset=UTF-8"
# Public PDF of a decision: the `filename` field with `.pdf` -> `.clean.pdf`, under this path.
PDF_PATH = "/xway/application/nif/clean/hc.dll"

# `id` = kind + year + section char + decision number + type letter (snciv2021521018O,
# snciv2026L24908O, snpen2024710787O in the captures).
SIC_ID_RE = re.compile(r"^(snciv|snpen)(\d{4})([0-9A-Z])(\d{1,6})([A-Z])$")
SIC_ID_VALID = "kind+year+section+number+type, e.g. snciv2021521018O or snpen2024710787O"


# While a decision is being anonymised its text says so; the court's script then refuses to open
# the PDF (index.js `toTargetDoc` checks both phrases).
OBSCURING_MARKS = ("in fase di oscuramento", "in fase di valutazione oscuramento")
RATE_OVERFLOW_RETRY_SECONDS = 5

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

SEARCH_FIELDS = "id,kind,anno,numdec,numdep,szdec,ssz,tipoprov,datdec,datdep,pd,materia,filename,presidente,relatore"
# the court's facet lists, in its order
FACET_FIELDS = ("kind", "tipoprov", "szdec", "anno")
# `field:word` in a query: SentenzeWeb is searched on its full text only (`ocr`).
QUERY_FIELDS = {"testo": "ocr", "ocr": "ocr", "text": "ocr"}
QUERY_VALID = (
    'words, "phrases", AND / OR / NOT, -word, (groups), "phrase"~N, word^N; all words are required '
    'unless joined by OR. Filters are arguments: chamber, section, decision_type, anno'
)

# Caps on fields copied from upstream answers, so no answer outgrows the budget (it_eli.mcp.budget).
MAX_SNIPPET_CHARS = 600
MAX_MATERIA = 5


# ---------------------------------------------------------------- raw Solr shapes


class SolrDoc(msgspec.Struct, kw_only=True):
    id: str
    kind: str | None = None
    anno: str | int | None = None
    numdec: str | int | None = None
    numdep: str | int | None = None
    szdec: str | None = None
    ssz: str | None = None
    tipoprov: str | None = None
    datdec: str | list[str] | None = None
    datdep: str | list[str] | None = None
    pd: str | list[str] | None = None
    materia: str | list[str] | None = None
    presidente: str | list[str] | None = None
    relatore: str | list[str] | None = None
    filename: str | list[str] | None = None
    ocr: str | list[str] | None = None
    ocrdis: str | list[str] | None = None


class SolrResult(msgspec.Struct):
    numFound: int
    start: int = 0
    docs: list[SolrDoc] = []


class SolrFacets(msgspec.Struct):
    facet_fields: dict[str, list[str | int]] = {}


class SolrAnswer(msgspec.Struct):
    response: SolrResult
    highlighting: dict[str, dict[str, list[str]]] = {}
    facet_counts: SolrFacets | None = None


# ---------------------------------------------------------------- public Structs


class FacetCount(msgspec.Struct, frozen=True):
    """One value of a facet and how many hits have it: pass `value` back as a filter."""

    value: str
    count: int


class CassazioneFacets(msgspec.Struct, frozen=True):
    """Counts over ALL hits (not only this page), so the caller can narrow the search: each
    value can be passed back as the filter of the same name (anno, section, decision_type, chamber)."""

    anno: list[FacetCount] = msgspec.field(default_factory=list)
    section: list[FacetCount] = msgspec.field(default_factory=list)
    decision_type: list[FacetCount] = msgspec.field(default_factory=list)
    chamber: list[FacetCount] = msgspec.field(default_factory=list)


class CassazioneIdentity(msgspec.Struct, frozen=True, kw_only=True):
    """What identifies a Cassazione decision and how it is cited (shared by hits and texts)."""

    sic_id: str
    citation: str
    chamber: Chamber | None = None
    section: str | None = None
    decision_type: str | None = None
    number: int | None = None
    year: int | None = None
    decision_date: str | None = None
    deposit_date: str | None = None
    materia: list[str] = msgspec.field(default_factory=list)
    ecli: str | None = None  # as the court prints it on SentenzeWeb (ECLI:IT:CASS:2025:30020CIV)
    pdf_url: str | None = None  # the court's PDF of the decision, when SentenzeWeb links one


class CassazioneHit(CassazioneIdentity, frozen=True, kw_only=True):
    """One Cassazione decision found by a search."""

    snippet: str | None = None
    source_url: str


class CassazioneSearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """A page of SentenzeWeb hits; `snippet` marks matches as ⟦…⟧."""

    query: str
    solr_query: str
    filters: list[str] = msgspec.field(default_factory=list)
    total: int
    offset: int
    limit: int
    next_offset: int | None = None
    hits: list[CassazioneHit] = msgspec.field(default_factory=list)
    facets: CassazioneFacets = msgspec.field(default_factory=CassazioneFacets)
    notes: list[str] = msgspec.field(default_factory=list)
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


TextStatus = Literal["full", "obscuring_in_progress", "empty"]


class CassazioneText(CassazioneIdentity, frozen=True, kw_only=True):
    """One decision as SentenzeWeb holds it, whole: the full text (`ocr`) and the dispositivo
    (`ocrdis`, "" when the record has none). Paging them is the MCP tool's business."""

    presidente: str | None = None
    relatore: str | None = None
    text_status: TextStatus = "full"
    text: str
    dispositivo: str = ""
    source_url: str
    licence: str = "IODL 2.0 (Corte di Cassazione, SentenzeWeb)"
    stale: bool = False  # True: the upstream could not be used; this is an expired cached answer
    stale_note: str | None = None


# ---------------------------------------------------------------- query building


def solr_phrase(text: str) -> str:
    """One Solr phrase literal: inside quotes only backslash and quote are special."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


class _Compiler:
    """`it_eli.search.query` AST -> Solr `q`. Every user term becomes an escaped phrase on `ocr`."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.terms: list[str] = []  # the phrase texts sent, in order (for tests and the answer)

    def term(self, t: Term) -> str | None:
        if t.field is not None and t.field not in QUERY_FIELDS:
            raise QueryError(
                f"unknown field {t.field!r}: SentenzeWeb is searched on the decision's text only",
                valid="testo:word or no field; " + QUERY_VALID,
            )
        text = " ".join(t.text.split())
        if not any(ch.isalnum() for ch in text):
            return None  # could not match an indexed token
        if t.prefix:
            self.notes.append(f"'{text}*': SentenzeWeb is searched by whole words and phrases; searched as the word '{text}'")
        if t.fuzzy:
            self.notes.append(f"'{text}~': spelling tolerance is not available on SentenzeWeb; searched as written")
        self.terms.append(text)
        clause = f"{QUERY_FIELDS.get(t.field or 'ocr', 'ocr')}:{solr_phrase(text)}"
        if t.slop and len(text.split()) > 1:
            clause += f"~{int(t.slop)}"
        if t.boost != 1.0:
            clause += f"^{_number(float(t.boost))}"
        return clause

    def group(self, node: Node) -> str | None:
        """A sub-expression as an operand: parenthesised unless it is a single clause."""
        out = self.compile(node)
        if out is None or isinstance(node, Term):
            return out
        return f"({out})"

    def compile(self, node: Node) -> str | None:
        if isinstance(node, Term):
            return self.term(node)
        if isinstance(node, Or):
            parts = [p for p in (self.group(c) for c in node.children) if p is not None]
            if not parts:
                return None
            return parts[0] if len(parts) == 1 else " OR ".join(parts)
        children = node.children if isinstance(node, And) else [node]
        positives: list[str] = []
        negatives: list[str] = []
        for child in children:
            if isinstance(child, Not):
                inner = self.group(child.child)
                if inner is not None:
                    negatives.append(inner)
                continue
            part = self.group(child)
            if part is not None:
                positives.append(part)
        if not positives and not negatives:
            return None
        out = " AND ".join(positives) if positives else "*:*"
        for neg in negatives:
            out += f" AND NOT {neg}"
        return out


def compile_query(query: str) -> tuple[str, list[str], list[str]]:
    """(Solr `q`, the phrase texts sent, notes) for user text in the language of it_case_search."""
    parsed = parse_query(query)
    comp = _Compiler()
    q = comp.compile(parsed.root)
    if q is None or not comp.terms:
        raise QueryError("the query has no words to search for", valid=QUERY_VALID)
    return q, comp.terms, list(dict.fromkeys(parsed.notes + comp.notes))


def build_q(query: str) -> str:
    """The Solr `q` for user text (see `compile_query`)."""
    return compile_query(query)[0]


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


def build_filters(
    chamber: str | None,
    sub_chamber: str | None,
    anno: int | None,
    *,
    section: str | None = None,
    decision_type: str | None = None,
) -> list[str]:
    """Validated filters as the court's client writes them, `field:"value"`, in the order of its
    facet lists (kind, tipoprov, szdec, anno). Never user text: only values from the tables above.

    `sub_chamber` is the older name of `section` (same values); both may be given if they agree.
    """
    chamber = resolve_chamber(chamber)
    sec = resolve_section(section)
    sub = resolve_section(sub_chamber, "sub_chamber")
    if sec and sub and sec[0] != sub[0]:
        raise InvalidArg(
            f"section {section!r} and sub_chamber {sub_chamber!r} disagree",
            valid="give only section (sub_chamber is its older name)",
        )
    sec = sec or sub
    if sec is not None and sec[1] is not None:
        if chamber is not None and chamber != sec[1]:
            raise InvalidArg(
                f"section {str(section or sub_chamber)[:60]!r} is a {sec[1]} section, chamber is {chamber}",
                valid=f"chamber={sec[1]} or no chamber",
            )
        chamber = sec[1]
    filters: list[str] = []
    if chamber is not None:
        filters.append(f"kind:{solr_phrase(KIND_OF_CHAMBER[chamber])}")
    dtype = resolve_decision_type(decision_type)
    if dtype is not None:
        filters.append(f"tipoprov:{solr_phrase(dtype)}")
    if sec is not None:
        filters.append(f"szdec:{solr_phrase(sec[0])}")
    if anno is not None:
        if isinstance(anno, str) and anno.strip().isdigit():
            anno = int(anno.strip())
        if isinstance(anno, bool) or not isinstance(anno, int) or not 1900 <= anno <= 2100:
            raise InvalidArg(f"anno {anno!r} is not a year", valid="a year such as 2024")
        filters.append(f"anno:{solr_phrase(str(anno))}")
    return filters


def court_query(text_q: str, filters: list[str]) -> str:
    """The `q` the court's client sends: the text in parentheses, its start query, then every
    filter AND-ed in (it never sends `fq`)."""
    return " AND ".join([f"({text_q})", f"({START_QUERY})", *filters])


def filter_kind(filters: list[str]) -> str | None:
    """The archive chosen by the filters (`snciv` / `snpen`), named in `select?app.query=<kind>`."""
    for f in filters:
        if f.startswith("kind:"):
            return f[len("kind:"):].strip('"')
    return None


# The court's sort menu (`#sortchoice`): "data pubblicazione" (auto for the civil archive),
# "data udienza" (auto for the criminal one), "rilevanza" (no sort sent: Solr's score order).
SORTS: dict[str, str | None] = {
    "relevance": None,
    "deposit_date": "pd desc,numdec desc",
    "decision_date": "datdec desc,pd desc,numdec desc",
}
SORT_NAMES: dict[str, str] = {
    **{k: "relevance" for k in ("relevance", "rilevanza", "score")},
    **{k: "deposit_date" for k in ("depositdate", "deposit", "datapubblicazione", "pubblicazione", "deposito", "date", "data")},
    **{k: "decision_date" for k in ("decisiondate", "decision", "hearing", "dataudienza", "udienza", "decisione")},
}
SORT_VALID = "relevance (rilevanza), deposit_date (data pubblicazione, newest first), decision_date (data udienza)"


def resolve_sort(sort: object) -> str:
    if sort is None or (isinstance(sort, str) and not sort.strip()):
        return "relevance"
    name = SORT_NAMES.get(lookup_key(sort)) if isinstance(sort, str) else None
    if name is None:
        raise InvalidArg(f"unknown sort {str(sort)[:40]!r}", valid=SORT_VALID)
    return name


def search_params(
    text_q: str, filters: list[str], rows: int, start: int, sort: str = "relevance"
) -> list[tuple[str, str]]:
    """A search as the court's client posts it to `select?app.query=<kind>` (the `app.query`
    pair goes in the URL, the rest in the form body; see `fetch_select`). `rows` hits from hit
    `start` (0-based), Solr's own window: the court's script sends `start=docStart-1&rows=...`."""
    params = [
        (APP_QUERY, filter_kind(filters) or ""),
        ("start", str(start)),
        ("rows", str(rows)),
        ("q", court_query(text_q, filters)),
        ("wt", "json"),
        ("indent", "off"),
    ]
    order = SORTS[resolve_sort(sort)]
    if order:
        params.append(("sort", order))
    params += [
        ("fl", SEARCH_FIELDS),
        ("hl", "true"),
        ("hl.snippets", "4"),
        ("hl.fragsize", "100"),
        ("hl.fl", "ocr"),
        # highlight the user's words only: the filters are in `q` too, and `5` or `2020` would
        # otherwise be marked wherever they occur in the text (the court sends its own hl.q too)
        ("hl.q", text_q),
        ("hl.maxAnalyzedChars", "1000000"),
    ]
    return params


FACET_LIMIT = 257  # the court's default list length (256) + 1


def facet_params(text_q: str, filters: list[str]) -> list[tuple[str, str]]:
    """Facet counts as the court's client asks them (`select?app.facet`, `facet.method=enum`),
    for every facet field at once, over the same `q` as the search."""
    params = [
        (APP_FACET, ""),
        ("facet.method", "enum"),
        ("facet.mincount", "1"),
        ("wt", "json"),
        ("indent", "off"),
        ("q", court_query(text_q, filters)),
        ("fl", "name"),
        ("facet", "true"),
    ]
    for field in FACET_FIELDS:
        params += [("facet.limit", str(FACET_LIMIT)), ("facet.sort", "false"), ("facet.prefix", ""),
                   ("facet.field", field)]
    return params


def get_params(sic_id: str) -> list[tuple[str, str]]:
    """One decision by id, posted to plain `select` as the court's detail view does."""
    sic_id = check_sic_id(sic_id)
    return [("start", "0"), ("rows", "1"), ("q", f"id:{solr_phrase(sic_id)}"), ("wt", "json"), ("indent", "off"),
            ("fl", "*")]


def check_sic_id(sic_id: object) -> str:
    """The id, trimmed of surrounding whitespace (a pasted newline), or `invalid_arg`."""
    cleaned = sic_id.strip() if isinstance(sic_id, str) else sic_id
    if not isinstance(cleaned, str) or not SIC_ID_RE.fullmatch(cleaned):
        raise InvalidArg(f"not a SentenzeWeb id: {str(sic_id)[:60]!r}", valid=SIC_ID_VALID)
    return cleaned


# ---------------------------------------------------------------- parsing


def decode_answer(body: bytes, content_type: str = "") -> SolrAnswer:
    """Decode a select answer; anything but the expected JSON is `upstream_changed`."""
    head = body.lstrip()[:200].lower()
    if b"rate overflow" in head:
        raise UpstreamUnavailable(
            "SentenzeWeb: rate overflow (too many requests)",
            valid=f"retry after {RATE_OVERFLOW_RETRY_SECONDS} s",
            retry_after_seconds=RATE_OVERFLOW_RETRY_SECONDS,
        )
    if not head:
        raise UpstreamChanged("SentenzeWeb answered with an empty body", valid=RETRY_LATER)
    if head.startswith(b"<") or "html" in content_type:
        raise UpstreamChanged("SentenzeWeb answered HTML where Solr JSON was expected", content_type=content_type)
    try:
        return msgspec.json.decode(body, type=SolrAnswer)
    except (msgspec.DecodeError, RecursionError) as exc:  # RecursionError: JSON nested too deep
        raise UpstreamChanged(f"SentenzeWeb answer is not the expected Solr JSON: {str(exc)[:200]}") from None


def _first(value: str | int | list[str] | None) -> str | None:
    if isinstance(value, list):
        return str(value[0]) if value else None
    return None if value is None else str(value)


def _all(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [v for v in value if v]


def iso_date(value: str | None) -> str | None:
    """`20210722` -> `2021-07-22`; anything else -> None."""
    if value and re.fullmatch(r"\d{8}", value):
        return f"{value[:4]}-{value[4:6]}-{value[6:]}"
    return None


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and len(value) <= 9 else None


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


def citation(doc: SolrDoc) -> str:
    """Italian citation, e.g. `Cass. civ., sez. III, ord. n. 24393/2025`."""
    m = SIC_ID_RE.fullmatch(doc.id)
    kind = doc.kind or (m.group(1) if m else None)
    szdec = doc.szdec or (m.group(3) if m else None)
    number = _int(_first(doc.numdec)) or (int(m.group(4)) if m else None)
    year = _first(doc.anno) or (m.group(2) if m else None)
    parts = ["Cass. civ." if kind == "snciv" else "Cass. pen." if kind == "snpen" else "Cass."]
    sez = section_label(kind, clip(szdec, 8), clip(doc.ssz, 8))
    if sez:
        parts.append(f"sez. {sez}")
    ref = type_abbr(doc.tipoprov, doc.id)
    if number is not None and year:
        ref += f" n. {number}/{clip(year, 8)}"
    parts.append(ref)
    return ", ".join(parts)


def ecli(doc: SolrDoc) -> str | None:
    """The ECLI the court's front-end prints on every card: `ECLI:IT:CASS:<anno>:<numdec without
    leading zeros><CIV|PEN>` (index.js; seen on 205 rendered cards, e.g. ECLI:IT:CASS:2022:4CIV for
    numdec 00004)."""
    m = SIC_ID_RE.fullmatch(doc.id)
    if m is None:
        return None
    year = _first(doc.anno) or m.group(2)
    number = (_first(doc.numdec) or m.group(4)).lstrip("0")
    if not (re.fullmatch(r"\d{4}", year) and number.isdigit() and len(number) <= 7):
        return None
    return f"ECLI:IT:CASS:{year}:{number}{'PEN' if m.group(1) == 'snpen' else 'CIV'}"


def _filename(doc: SolrDoc) -> str | None:
    filename = _first(doc.filename)
    if filename and (len(filename) > 200 or not re.fullmatch(r"[\w./@-]+", filename)):
        return None  # not the shape seen in the captures
    return filename or None


def _pdf_link(kind: str, filename: str, sentenzeweb_url: str) -> str:
    """The court's PDF address for a file name (index.js: `.pdf` -> `.clean.pdf` unless it has `.clean.`)."""
    if ".clean." not in filename:
        filename = filename.replace(".pdf", ".clean.pdf")
    return (f"{public_base(sentenzeweb_url)}{PDF_PATH}?verbo=attach&db={quote(kind, safe='')}"
            f"&id={quote(filename, safe='./@')}")


def pdf_url(doc: SolrDoc, sentenzeweb_url: str) -> str | None:
    """The court's PDF link, only when the record has a `filename` (as the front-end shows it)."""
    filename = _filename(doc)
    m = SIC_ID_RE.fullmatch(doc.id)
    return _pdf_link(m.group(1), filename, sentenzeweb_url) if filename and m else None


def public_base(sentenzeweb_url: str) -> str:
    parts = urlsplit(sentenzeweb_url)
    return f"{parts.scheme}://{parts.netloc}"


def source_url(doc: SolrDoc, sentenzeweb_url: str) -> str:
    """The decision's public PDF: the court's link, or one derived from the fields when the record
    has no `filename` (ssz assumed `0`), or last the Solr record itself."""
    linked = pdf_url(doc, sentenzeweb_url)
    if linked:
        return linked
    m = SIC_ID_RE.fullmatch(doc.id)
    dep = _first(doc.datdep) or _first(doc.pd)
    if m and dep and re.fullmatch(r"\d{8}", dep):
        ssz = doc.ssz if doc.ssz and re.fullmatch(r"[0-9A-Z]", doc.ssz) else "0"
        kind = m.group(1)
        derived = f"./{dep}/{kind}@s{m.group(3)}{ssz}@a{m.group(2)}@n{int(m.group(4)):05d}@t{m.group(5)}.pdf"
        return _pdf_link(kind, derived, sentenzeweb_url)
    # Last resort: the Solr record itself (opens in a browser as JSON).
    return f"{sentenzeweb_url}{SELECT_PATH}?q={quote('id:' + solr_phrase(doc.id), safe='')}&wt=json"


def clean_snippet(fragment: str) -> str:
    """Solr's `<em>` markup -> ⟦ ⟧ markers; nothing else of the fragment is markup."""
    text = fragment.replace(HL_OPEN, "").replace(HL_CLOSE, "")
    text = re.sub(r"<em\b[^>]*>", HL_OPEN, text, flags=re.I)
    text = re.sub(r"</em>", HL_CLOSE, text, flags=re.I)
    text = text.replace(HL_CLOSE + HL_OPEN, "")
    return " ".join(text.split())


def _hit(doc: SolrDoc, highlighting: dict[str, dict[str, list[str]]], sentenzeweb_url: str) -> CassazioneHit:
    m = SIC_ID_RE.fullmatch(doc.id)
    if m is None:
        raise UpstreamChanged(f"SentenzeWeb returned an id of unknown shape: {doc.id[:60]!r}")
    frags = (highlighting.get(doc.id, {}).get("ocr") or [])[:4]
    snippet = " … ".join(clean_snippet(f[: MAX_SNIPPET_CHARS * 4]) for f in frags) or None
    return CassazioneHit(
        sic_id=doc.id,
        citation=citation(doc),
        chamber=CHAMBER_OF_KIND.get(m.group(1)),
        section=clip(doc.szdec, 8) or m.group(3),
        decision_type=clip(doc.tipoprov, 60),
        number=_int(_first(doc.numdec)) or int(m.group(4)),
        year=_int(_first(doc.anno)) or int(m.group(2)),
        decision_date=iso_date(_first(doc.datdec)),
        deposit_date=iso_date(_first(doc.datdep) or _first(doc.pd)),
        materia=[clip(v) for v in _all(doc.materia)[:MAX_MATERIA]],
        ecli=ecli(doc),
        pdf_url=pdf_url(doc, sentenzeweb_url),
        snippet=clip(snippet, MAX_SNIPPET_CHARS),
        source_url=source_url(doc, sentenzeweb_url),
    )


def _facet(pairs: list[str | int]) -> list[FacetCount]:
    out = []
    for i in range(0, len(pairs) - 1, 2):
        value, count = pairs[i], pairs[i + 1]
        if isinstance(count, int) and count > 0:
            out.append(FacetCount(value=clip(str(value), 60), count=count))
    return out


def facets_of(answer: SolrAnswer) -> CassazioneFacets:
    ff = answer.facet_counts.facet_fields if answer.facet_counts else {}
    return CassazioneFacets(
        anno=sorted(_facet(ff.get("anno", [])), key=lambda f: f.value, reverse=True),
        section=_facet(ff.get("szdec", [])),
        decision_type=_facet(ff.get("tipoprov", [])),
        chamber=[FacetCount(value=CHAMBER_OF_KIND.get(f.value, f.value), count=f.count) for f in _facet(ff.get("kind", []))],
    )


def parse_facets(body: bytes, content_type: str = "") -> CassazioneFacets:
    """The answer of a `select?app.facet` request."""
    return facets_of(decode_answer(body, content_type))


def parse_search(
    body: bytes,
    *,
    query: str,
    solr_query: str,
    filters: list[str],
    rows: int,
    start: int,
    sentenzeweb_url: str,
    content_type: str = "",
    notes: list[str] | None = None,
    facets: CassazioneFacets | None = None,
) -> CassazioneSearchResult:
    """The answer to `search_params(..., rows, start)`: at most `rows` hits, the first being hit
    `start` of the search (Solr's window; the result calls it `offset`/`limit`, as the tool does).
    Every hit the court sent: the MCP tool cuts the answer to its budget, verification reads it all."""
    answer = decode_answer(body, content_type)
    hits = [_hit(d, answer.highlighting, sentenzeweb_url) for d in answer.response.docs[:rows]]
    if facets is None:
        facets = facets_of(answer)
    total = answer.response.numFound

    nxt = start + len(hits)
    return CassazioneSearchResult(
        query=clip(query, 2000) or "",
        solr_query=solr_query,
        filters=filters,
        total=total,
        offset=start,
        limit=rows,
        next_offset=nxt if hits and nxt < total else None,
        hits=hits,
        facets=facets,
        notes=list(notes or []),
    )


def parse_decision(body: bytes, *, sic_id: str, sentenzeweb_url: str, content_type: str = "") -> CassazioneText:
    """One decision by id, its text and dispositivo whole (`get_params` asked for every field)."""
    answer = decode_answer(body, content_type)
    docs = [d for d in answer.response.docs if d.id == sic_id]
    if not docs:
        raise NotFound(f"SentenzeWeb has no decision {sic_id}", valid=SIC_ID_VALID, sic_id=sic_id)
    doc = docs[0]
    hit = _hit(doc, {}, sentenzeweb_url)
    full = "\n\n".join(_all(doc.ocr)).strip()
    status: TextStatus = "full"
    if not full:
        status = "empty"
    elif any(mark in full.lower() for mark in OBSCURING_MARKS) and len(full) < 300:
        status = "obscuring_in_progress"
    return CassazioneText(
        sic_id=sic_id,
        citation=hit.citation,
        chamber=hit.chamber,
        section=hit.section,
        decision_type=hit.decision_type,
        number=hit.number,
        year=hit.year,
        decision_date=hit.decision_date,
        deposit_date=hit.deposit_date,
        materia=hit.materia,
        ecli=hit.ecli,
        pdf_url=hit.pdf_url if status != "obscuring_in_progress" else None,  # as the court: no PDF yet
        presidente=clip(_first(doc.presidente)),
        relatore=clip(_first(doc.relatore)),
        text_status=status,
        text=full,
        dispositivo="\n".join(_all(doc.ocrdis)).strip(),
        source_url=hit.source_url,
    )


# ---------------------------------------------------------------- I/O

def split_request(params: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """(query string of the URL, form body): the court's client names the request in the URL
    (`app.query=snciv`, bare `app.query` or `app.facet`) and posts everything else."""
    marks = [k if not v else f"{k}={quote(v, safe='')}" for k, v in params if k in (APP_QUERY, APP_FACET)]
    body = [(k, v) for k, v in params if k not in (APP_QUERY, APP_FACET)]
    return "&".join(marks), body


async def fetch_select(client: HttpClient, sentenzeweb_url: str, params: list[tuple[str, str]]) -> tuple[bytes, str]:
    """One POST on the Solr select, form-encoded as the court's client sends it; returns
    (body, content type). Any non-200 is unavailable."""
    marks, body = split_request(params)
    url = sentenzeweb_url + SELECT_PATH + (f"?{marks}" if marks else "")
    resp = await client.request(
        "POST",
        url,
        data=urlencode(body).encode("ascii"),
        headers={"Accept": "application/json", "Content-Type": FORM_CONTENT_TYPE, "Referer": sentenzeweb_url + "/"},
        not_found_statuses=(),
        what="SentenzeWeb",
    )
    return resp.body, resp.content_type
