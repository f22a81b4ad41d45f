"""Citation verification: does every article and decision a text cites exist?

Why this shape: a gate that silently skips is worse than none. Every extracted citation ends
in exactly one status; what could not be checked is a typed gap with a fallback, never a quiet
"verified", and "does not exist" (`not_found`) is said only when the act is *known* — a fresh
complete copy in the local index, or an authoritative upstream answer — and the article is
absent. An act that is merely not cached, unreachable or ambiguous is a gap, never `not_found`.

Order of sources: the local statute index, then (unless offline) the legislation tools' own
channels (OpenData API, portal export with the act-identity check); the local Constitutional
Court index; SentenzeWeb and the GA portal for Cassazione and administrative decisions.
Facts relied on: DISCOVERY.md (verification).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections import Counter
from typing import Literal

import msgspec
from cachetools import TTLCache

from it_eli.runtime import progress
from it_eli.search.analysis import Analyzer
from .content_meaning import antonym_clash
from it_eli.law.scanner.courts import COURT_NAMES
from it_eli.law.scanner.model import Citation, Partitions, partitions_of
from it_eli.law.scanner.scan import extract_citations
from it_eli.runtime.errors import IdentityMismatch, IndexMissing, InvalidArg, ItEliError, NotFound
from it_eli.law import codes as codesmod
from it_eli.law import urn as urnmod
from it_eli.law.grammar import LATIN, article_range_hint, canon_key, nearest_articles
from it_eli.law.provision_status import describe as describe_event
from it_eli.law.provision_status import comma_status, item_status, whole_status
from it_eli.search.query import HitWindow
from it_eli.search.statutes import ORIGINAL, ActVersion, StatuteStore
from it_eli.runtime.workers import PROCESS_MIN_CHARS, in_process, in_thread

MAX_INPUT_CHARS = 1_000_000
MAX_LIVE_LOOKUPS = 40  # per call: a pasted brief must not turn into hundreds of upstream requests
# Constitutional Court numbering restarts every year; no year ever came near this number
# (the busiest, 1988, stayed below 1,200), so a higher number cannot exist.
COST_MAX_NUMBER = 2000
COST_FIRST_YEAR = 1956
VERSIONS_CACHE_SECONDS = 60.0
VERSIONS_CACHE_ENTRIES = 1024  # acts whose version listings are kept (the biggest corpus has a few hundred)
CONTENT_THRESHOLD = 0.5  # calibrated on tests/verify_cases.py (see DISCOVERY.md (verification))

Status = Literal[
    "verified", "not_found", "repealed", "declared_unconstitutional", "content_mismatch", "content_unconfirmed",
    "act_not_in_corpus", "act_unresolvable", "upstream_unavailable", "unparseable_citation",
    "comma_not_checkable", "lettera_not_checkable", "out_of_corpus",
]
GAP_KINDS = (
    "act_not_in_corpus", "act_unresolvable", "upstream_unavailable", "unparseable_citation",
    "comma_not_checkable", "lettera_not_checkable", "out_of_corpus",
)
# outcomes where the article (or decision) was found but a human should look: not a pass
REVIEW_KINDS = ("repealed", "declared_unconstitutional", "content_mismatch", "content_unconfirmed")
# existence decided and confirmed (the comma/lettera gaps: the article itself was found)
CONFIRMED_KINDS = ("verified", "comma_not_checkable", "lettera_not_checkable")
# Overall, worst first: a status never reads as a pass unless something was confirmed and nothing needs review.
#   HALLUCINATION_DETECTED  a cited article, comma, lettera or decision does not exist (tool isError)
#   NEEDS_REVIEW            nothing missing, but a repealed article or a description that does not fit / is unconfirmed
#   NOTHING_VERIFIED        citations found, none could be confirmed (all gaps)
#   NO_CITATIONS_FOUND      nothing recognised
#   VERIFIED_WITH_GAPS      at least one confirmed, the rest are gaps (listed with fallbacks)
#   VERIFIED                every citation confirmed
Overall = Literal[
    "VERIFIED", "VERIFIED_WITH_GAPS", "NEEDS_REVIEW", "NOTHING_VERIFIED", "HALLUCINATION_DETECTED", "NO_CITATIONS_FOUND",
]

FALLBACKS = {
    "act_not_in_corpus": "run without offline (the act is then fetched from Normattiva), or import its "
    "Akoma Ntoso export with `it-eli statutes import`",
    "act_unresolvable": "cite the act with type, date and number (e.g. 'l. 7 agosto 1990, n. 241') or check it "
    "on normattiva.it",
    "upstream_unavailable": "retry later, or check the source by hand (normattiva.it, italgiure.giustizia.it, "
    "giustizia-amministrativa.it)",
    "unparseable_citation": "write the citation in full: article and act, or court, number and year",
    "comma_not_checkable": "read the article's text (it_get_text) to check the comma by hand",
    "lettera_not_checkable": "read the article's text (it_get_text) to check the lettera / numero by hand",
    "out_of_corpus": "check it at the source: cortecostituzionale.it, italgiure.giustizia.it, "
    "giustizia-amministrativa.it, or the regional bulletin",
}
# where to look for what it_eli does not hold (also listed by it_coverage)
EU_FALLBACK = "EUR-Lex (eur-lex.europa.eu): EU treaties, regulations and directives, and the Court of Justice's case law"
CEDU_FALLBACK = "HUDOC (hudoc.echr.coe.int) and the Convention's text on coe.int"
REGIONAL_FALLBACK = "the Region's (or autonomous Province's) official bulletin (BUR) or its legislation database"
COURT_FALLBACKS = {
    "TRIB": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "APP": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "ASSISE": "the court's own site, or a case-law database (no open source of merit courts is wired in)",
    "TRIBUTARIA": "the tax-justice database of the MEF (giustiziatributaria.gov.it) or a case-law database",
    "CCONTI": "the Corte dei conti's database (banchedati.corteconti.it)",
    "CGUE": "curia.europa.eu or EUR-Lex (eur-lex.europa.eu)",
    "CEDU": "HUDOC (hudoc.echr.coe.int)",
}


class InputTooLarge(InvalidArg):
    """The text to verify exceeds the bound (a typed error, not a truncated check)."""

    code = "input_too_large"


class CheckedCitation(msgspec.Struct, kw_only=True):
    raw: str
    kind: Literal["statute", "case", "ecli"]
    status: Status
    detail: str
    start: int
    end: int
    urn: str | None = None  # the act the citation resolved to; else the URN its text identifies (offline too)
    ecli: str | None = None
    eli: str | None = None  # EU acts: their ELI (not on Normattiva)
    article: str | None = None  # normalised key
    comma: str | None = None
    lettera: str | None = None  # 'a' / 'a,b' / 'a-bis'
    numero: str | None = None  # '7' / '1,4'
    court: str | None = None
    court_seat: str | None = None
    court_section: str | None = None  # '3', 'U' (Sezioni Unite), 'lav', 'trib', 'fer', 'plen'
    court_branch: str | None = None  # Cassazione: civ / pen
    decision_type: str | None = None
    decision_number: str | None = None
    decision_year: int | None = None
    decision_date: str | None = None
    celex: str | None = None  # EU acts: their CELEX number (EUR-Lex)
    partitions: Partitions = msgspec.field(default_factory=Partitions)  # every partition cited (par., punto ...)
    range_hint: str | None = None
    nearest: list[str] = msgspec.field(default_factory=list)
    description: str | None = None
    content_score: float | None = None
    checked_version: str | None = None  # in-force date of the text checked ('originale' for the original)
    served_from: str | None = None  # local_index, normattiva_api, normattiva_portal, cortecost_index, ...
    source_url: str | None = None


class VerifyGap(msgspec.Struct, kw_only=True):
    kind: str
    citation: str
    note: str
    fallback: str


class VerifySummary(msgspec.Struct, kw_only=True):
    citations: int
    checked: int  # citations whose existence was actually decided (verified, repealed, mismatch, not_found)
    verified: int
    not_found: int
    repealed: int
    content_mismatch: int
    content_unconfirmed: int  # article found, its description neither fits nor clearly belongs elsewhere
    partly_verified: int  # article found, but its comma / lettera / numero could not be checked (also counted in gaps)
    to_review: int  # repealed + content_mismatch + content_unconfirmed
    gaps: int
    live_lookups: int
    declared_unconstitutional: int = 0  # article or comma struck down by the Constitutional Court


class VerifyResult(msgspec.Struct, kw_only=True):
    """Per-citation verification of a text; isError=true when a cited article or decision does not exist."""

    status: Overall
    is_error: bool
    needs_review: bool  # repealed articles, descriptions that do not fit or are unconfirmed: a human should look
    summary: VerifySummary
    citations: list[CheckedCitation]
    gaps: list[VerifyGap]
    at_date: str | None
    offline: bool
    checked_at: str
    notes: list[str] = msgspec.field(default_factory=list)



class ReportedCitation(CheckedCitation, kw_only=True):
    """One distinct citation of the text -- same act, article, comma, lettera, numero, description
    and verdict -- with how often it occurs and where (`start`/`end`: its first occurrence)."""

    occurrences: int = 1
    positions: list[int] = msgspec.field(default_factory=list)  # start offsets of its first occurrences (at most 10)
    fallback: str | None = None  # a gap: where to check it by hand


class GapGroup(msgspec.Struct, kw_only=True):
    kind: str  # the gap's status (act_not_in_corpus, upstream_unavailable, out_of_corpus, ...)
    fallback: str  # where to check these citations by hand
    citations: int  # occurrences in the text
    distinct: int  # distinct citations (entries of `citations` with this status and fallback)


# ---------------------------------------------------------------- helpers

_NON_TOPICAL = re.compile(
    r"^\s*(?:come\b|nel(?:la)?\s+(?:testo|formulazione|versione)|testo\b|vers\.|versione\b|ratione\b|vigente\b|"
    r"applicabile\b|abrogat|c\.\s?d\.|cd\.?\s|cosiddett|così\b|introdott|inserit|aggiunt|sostituit|modificat|"
    r"in\s+vigore|ora\b|oggi\b|già\b|gia'|richiamat|citat|ss\.|e\s+ss|sic\b|enfasi|corsivo|grassetto)",
    re.I,
)
_RUBRICATO = re.compile(r"^\s*(?:rubricat[oa]|intitolat[oa]|recante)\s*[:«\"“']?\s*", re.I)
# A description that names the act rather than the article: "legge Gelli-Bianco", "riforma Cartabia",
# "legge finanziaria 2007", "decreto Cura Italia", "codice Rocco", "Jobs Act".
_ACT_NAMING = re.compile(
    r"^\s*(?:(?:la|il|l['’])\s*)?(?:legge(?:\s+delega)?|l\.|decreto(?:[\s-]legge|\s+legislativo)?|d\.\s?l\.|d\.\s?lgs\.|"
    r"d\.\s?p\.\s?r\.|riforma|codice|testo\s+unico|t\.\s?u\.|regolamento|direttiva|pacchetto|manovra|jobs\s+act|"
    r"statuto|ordinamento|legge\s+quadro)(?![a-zà-ù])(?P<rest>.*)$",
    re.I | re.S,
)
_PROPER = re.compile(r"\b[A-ZÀ-Ý][A-Za-zà-ÿ'’]+|\b(?:18|19|20)\d{2}\b|\b(?:bis|ter|quater)\b")
_GENERIC = None


def _generic_stems(an: Analyzer) -> set[str]:
    global _GENERIC
    if _GENERIC is None:
        _GENERIC = set(an.analyze(
            "articolo articoli comma commi legge leggi norma norme disposizione disposizioni disciplina "
            "materia casi caso previsto prevista decreto codice reato reati delitto delitti "
            "principio principi diritto diritti non regola regole generale generali"
        ))
    return _GENERIC


# Names practitioners give to institutes whose rubrica (or text) says something else (description
# -> words of the rubrica/text). Small on purpose: each entry is a well-known name, not a thesaurus.
NICKNAMES = {
    "patteggiamento": "applicazione della pena su richiesta",
    "preavviso di rigetto": "comunicazione dei motivi ostativi all'accoglimento",
    "autotutela": "annullamento d'ufficio revoca",
    "scia": "segnalazione certificata di inizio attivita'",
    "superbonus": "incentivi per l'efficienza energetica",
    "rito abbreviato": "giudizio abbreviato",
    "messa alla prova": "sospensione del procedimento con messa alla prova",
    "legittima difesa": "difesa legittima",
    "stalking": "atti persecutori",
    "revenge porn": "diffusione illecita di immagini o video sessualmente espliciti",
    "codice rosso": "atti persecutori maltrattamenti",
    # doctrinal names of constitutional and criminal principles (the Costituzione has no rubriche)
    "legalità": "punito fatto legge",
    "legalita'": "punito fatto legge",
    "irretroattività": "punito fatto legge commesso",
    "uguaglianza sostanziale": "rimuovere ostacoli ordine economico sociale",
    "eguaglianza sostanziale": "rimuovere ostacoli ordine economico sociale",
    "uguaglianza formale": "pari dignità sociale eguali davanti alla legge",
    "eguaglianza formale": "pari dignità sociale eguali davanti alla legge",
    "presunzione di non colpevolezza": "non considerato colpevole sino alla condanna definitiva",
    "presunzione di innocenza": "non considerato colpevole sino alla condanna definitiva",
    "finalità rieducativa": "rieducazione del condannato",
    "funzione rieducativa": "rieducazione del condannato",
    "responsabilità aquiliana": "fatto doloso o colposo danno ingiusto risarcire",
    "responsabilità extracontrattuale": "fatto doloso o colposo danno ingiusto risarcire",
}


def _norm_stem(stem: str) -> str:
    """One spelling per morphological family the stemmer leaves apart: uguale/eguale (u/e
    alternation), uguaglianza/uguale (the -gli- of the noun): 'uguagl' -> 'egual'."""
    if stem.startswith("ugu"):
        stem = "egu" + stem[3:]
    if len(stem) >= 5:
        stem = stem.replace("gl", "l")
    return stem


def _common_prefix(a: str, b: str) -> int:
    k, n = 0, min(len(a), len(b))
    while k < n and a[k] == b[k]:
        k += 1
    return k


def _close(d: str, t: str, *, prefix_ok: bool) -> bool:
    """Same word family: a common prefix of 6+ characters covering 80 % of the shorter word
    (concors/concorr, tentativo/tentato), or (stems) one a prefix of the other (colpevol/colpevolezz)."""
    short = min(len(d), len(t))
    if prefix_ok and short >= 5 and (d.startswith(t) or t.startswith(d)):
        return True
    k = _common_prefix(d, t)
    return k >= 6 and k >= 0.8 * short


_WORD_RE = re.compile(r"[^\W\d_]+")


class _Text:
    """The stems and the words of a rubrica or text, matched leniently (see `_close`). Lenient on
    purpose: a missed mismatch only leaves a description unflagged, a false one accuses a correct
    citation."""

    def __init__(self, an: Analyzer, text: str) -> None:
        self.stems = {_norm_stem(t) for t in an.analyze(text)} if text else set()
        self.words = {w for w in _WORD_RE.findall(an.prepare(text).lower()) if len(w) >= 5} if text else set()
        self._by5s = self._index(self.stems)
        self._by5w = self._index(self.words)

    @staticmethod
    def _index(items) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for t in items:
            if len(t) >= 5:
                out.setdefault(t[:5], []).append(t)
        return out

    def has(self, unit: tuple[str, str]) -> bool:
        stem, word = _norm_stem(unit[0]), unit[1]
        if stem in self.stems:
            return True
        if len(stem) >= 5 and any(_close(stem, t, prefix_ok=True) for t in self._by5s.get(stem[:5], ())):
            return True
        return len(word) >= 6 and any(_close(word, t, prefix_ok=False) for t in self._by5w.get(word[:5], ()))

    def share(self, units) -> float:
        units = list(units)
        return sum(1 for u in units if self.has(u)) / len(units) if units else 0.0


def _units(an: Analyzer, text: str, drop: set[str] | None = None) -> dict[str, tuple[str, str]]:
    """stem -> (stem, surface word) for each content word of a short text."""
    out: dict[str, tuple[str, str]] = {}
    for w in _WORD_RE.findall(an.prepare(text).lower()):
        for stem in an.analyze(w)[:1]:
            if drop is None or stem not in drop:
                out.setdefault(stem, (stem, w))
    return out


def _description_words(an: Analyzer, description: str) -> list[list[tuple[str, str]]] | None:
    """The readings of a topical description, each a list of content words (stem, surface): the
    words as written, and for each well-known name in it (NICKNAMES) the same description with
    that name replaced by the words the rubrica/text uses. None: not a claim about the content."""
    if _NON_TOPICAL.match(description):
        return None
    desc = _RUBRICATO.sub("", description).strip(" «»\"“”'")
    low = desc.lower()
    generic = _generic_stems(an)
    readings = [list(_units(an, desc, generic).values())]
    for nick, expansion in NICKNAMES.items():
        m = re.search(rf"(?<![\w]){re.escape(nick)}(?![\w])", low)
        if m:
            rest = _units(an, low[: m.start()] + " " + low[m.end() :], generic)
            for k, u in _units(an, expansion).items():  # the rubrica's own words, generic or not
                rest.setdefault(k, u)
            readings.append(list(rest.values()))
    readings = [r for r in readings if r]
    return readings or None


def names_the_act(an: Analyzer, description: str, act_title: str | None) -> bool:
    """'(legge Gelli-Bianco)', '(riforma Cartabia)', '(legge sul procedimento amministrativo)': the
    description is the act's name or title, so it says nothing about which article is cited."""
    m = _ACT_NAMING.match(_RUBRICATO.sub("", description).strip(" «»\"“”'"))
    if not m:
        return False
    rest = m.group("rest").strip()
    if not rest or _PROPER.search(rest):
        return True
    units = list(_units(an, rest, _generic_stems(an)).values())
    return bool(units) and bool(act_title) and _Text(an, act_title).share(units) >= CONTENT_THRESHOLD


def description_fit(an: Analyzer, description: str, heading: str | None, text: str) -> tuple[float, float] | None:
    """(share of the description's content words found in the rubrica, share found in the text),
    for its best reading; None when the description is not a claim about the article's content."""
    readings = _description_words(an, description)
    if not readings:
        return None
    h = _Text(an, heading) if heading else None
    t = _Text(an, text[:60_000])
    return max(((h.share(r) if h else 0.0), t.share(r)) for r in readings)


def _score_of(fit: tuple[float, float] | None, heading: str | None) -> float | None:
    if fit is None:
        return None
    on_heading, on_text = fit
    if heading and on_heading >= CONTENT_THRESHOLD:
        return round(max(on_heading, on_text), 3)
    # the text alone: scaled so that CONTENT_THRESHOLD means "three quarters of the words"
    return round(on_text * CONTENT_THRESHOLD / 0.75, 3) if on_text < 1 else 1.0


def content_score(an: Analyzer, description: str, heading: str | None, text: str) -> float | None:
    """How well a parenthetical description fits the article (None: nothing to check).

    The rubrica is the article's own summary, so a description that shares half of its content
    words with it fits; without such overlap, the text must hold three quarters of them (one
    common word such as 'persona' or 'reati' in a long text proves nothing).
    """
    return _score_of(description_fit(an, description, heading, text), heading)


def comma_in_text(text: str, comma: str) -> bool:
    """A comma the export did not mark but whose number opens a sentence of the text.

    Why: some exports (d.lgs. 36/2023) put every comma of an article in one unnumbered
    paragraph, "1. … 2. … 3. …"; the parser then marks only the first. A number followed by a
    full stop and a capitalised word is taken as the comma's start (lenient on purpose: the
    error it can make is a missed hallucination, never a false one).
    """
    k = canon_key(comma)
    variants = {k, k.replace("novies", "nonies"), k.replace("-", " "), k.replace("-", "")}
    alt = "|".join(re.escape(v) for v in variants)
    return re.search(rf"(?:^|[\s(])(?:{alt})\.\s+(?:\(\(\s*)?[A-ZÀ-Ý«\"“(]", text) is not None


_LATIN_ALT = LATIN
# Lettere and numeri as the exports print them (the parser puts each <point> on its own line,
# its <num> first): "a) ...", "a-bis) ...", "((b) ...", numbers "1) ..." or "1° ...". Inline lists
# ("...: a) ...; b) ...") count too; a cross-reference ("lettera a)", "(articolo 90)") does not.
_ITEM_START = r"(?:^[ \t]*|(?<=[:;])[ \t]+)(?:\(\([ \t]*)?"
_LETTER_ITEM = re.compile(rf"{_ITEM_START}([a-z]{{1,2}}(?:[-\s]?(?:{_LATIN_ALT}))?)\)(?=[\s;,.:]|$)", re.M)
_NUMBER_ITEM = re.compile(rf"{_ITEM_START}(\d{{1,3}}(?:[-\s]?(?:{_LATIN_ALT}))?)(?:\)|°|º)(?=[\s;,.:]|$)", re.M)
_COMMA_START = re.compile(r"(?m)^\s*(?:\(\(\s*)?\d{1,4}(?:[-\s]?[a-z]{3,15})?\.\s")


def _item_key(s: str) -> str:
    return re.sub(r"[\s\-–]+", "-", s.strip().lower()).replace("nonies", "novies")


def _items(rx: re.Pattern, text: str) -> list[str]:
    return [_item_key(m.group(1)) for m in rx.finditer(text)]


def _comma_segment(text: str, comma: str) -> str | None:
    """The text of one comma, when the article prints its commi as numbered lines ("2. ...")."""
    k = canon_key(comma)
    alt = "|".join(re.escape(v) for v in {k, k.replace("novies", "nonies"), k.replace("-", " "), k.replace("-", "")})
    m = re.search(rf"(?m)^\s*(?:\(\(\s*)?(?:{alt})\.\s", text)
    if not m:
        return None
    n = _COMMA_START.search(text, m.end())
    return text[m.start() : n.start() if n else len(text)]


def _letter_segment(text: str, letter: str) -> str:
    """The text of one lettera, up to the next lettera (its numeri live there)."""
    found = [m for m in _LETTER_ITEM.finditer(text)]
    for i, m in enumerate(found):
        if _item_key(m.group(1)) == letter:
            return text[m.start() : found[i + 1].start() if i + 1 < len(found) else len(text)]
    return ""


def _span(items: list[str]) -> str:
    return f"{items[0]}) to {items[-1]})" if len(items) > 1 else f"{items[0]})"


def check_items(text: str, comma: str | None, lettera: str | None, numero: str | None) -> tuple[str, str] | None:
    """Check a citation's lettere and numeri against the article's text.

    Returns None when the citation has neither, else (verdict, detail) with verdict 'ok',
    'absent' (the complete text has no such lettera/numero) or 'unknown' (numeri: the text has
    no numbered items at all, so another numbering may be meant). A comma named alone narrows
    the search to that comma when the text numbers its commi; otherwise the whole article counts.
    """
    if not lettera and not numero:
        return None
    scope, where = text, "the article"
    if comma and "," not in comma and comma != "ultimo":
        seg = _comma_segment(text, comma)
        if seg is not None:
            scope, where = seg, f"comma {comma}"
    found: list[str] = []
    if lettera:
        all_letters = _items(_LETTER_ITEM, text)
        here = _items(_LETTER_ITEM, scope)
        for want in (_item_key(x) for x in lettera.split(",") if x.strip()):
            if want in here:
                found.append(f"lett. {want})")
                continue
            if not all_letters:
                return "absent", f"the article has no lettere at all, so lett. {want}) does not exist"
            if want in all_letters:
                return "absent", f"lett. {want}) is not in {where} (the article has it in another comma)"
            return "absent", f"{where} has no lett. {want}) (its lettere: {_span(here or all_letters)})"
        if numero and len(lettera.split(",")) == 1:
            scope, where = _letter_segment(scope, _item_key(lettera)), f"lett. {_item_key(lettera)})"
    if numero:
        all_numbers = _items(_NUMBER_ITEM, text)
        here = _items(_NUMBER_ITEM, scope)
        for want in (_item_key(x) for x in numero.split(",") if x.strip()):
            if want in here:
                found.append(f"n. {want})")
                continue
            if not all_numbers:
                return "unknown", f"the article's text has no numbered items (1), 2) ... or 1°, 2° ...): n. {want} was not checked"
            return "absent", f"{where} has no n. {want}" + (f" (its numeri: {_span(here)})" if here else " (it has no numeri)")
    return "ok", ", ".join(found)


def _plan(cites: list[Citation]) -> list[tuple[Citation, list[Citation], tuple]]:
    """Each citation with the others sharing its place in the text, and its memo key."""
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in cites:
        if c.kind == "statute" and c.article is not None:
            groups.setdefault((c.start, c.end), []).append(c)
    out = []
    for c in cites:
        group = groups.get((c.start, c.end), []) if c.kind == "statute" else []
        out.append((c, group, _citation_key(c, group)))
    return out


PACK_CHUNK = 500  # citations per msgpack chunk: decoding one holds the GIL a few ms, not 100+


def _extract_packed(text: str) -> list[bytes]:
    """In a worker process: the citations, msgpack-encoded in chunks (cheaper to send back than
    pickles, and decoded chunk by chunk so the server's loop thread gets the GIL in between)."""
    cites = extract_citations(text)
    return [msgspec.msgpack.encode(cites[i : i + PACK_CHUNK]) for i in range(0, len(cites), PACK_CHUNK)]


def _unpack(chunks: list[bytes]) -> list[Citation]:
    out: list[Citation] = []
    for chunk in chunks:
        out.extend(msgspec.msgpack.decode(chunk, type=list[Citation]))
    return out


async def extract_off_loop(text: str) -> list[Citation]:
    """The citations of `text`, extracted in a worker process when the text is long, else in a thread."""
    if len(text) < PROCESS_MIN_CHARS:
        return await in_thread(extract_citations, text)
    return await in_thread(_unpack, await in_process(_extract_packed, text))


def _citation_key(c: Citation, group: list[Citation]) -> tuple:
    """What a citation's verdict depends on: everything but where it stands in the text. A
    description is judged with the articles cited with it ('artt. 575 e 577 c.p. (omicidio)')
    and its verdict quotes the citation, so then the group and the text count too."""
    # where the act is named is not part of it (the same act cited twice is one check)
    act = msgspec.json.encode(msgspec.structs.replace(c.act, start=-1, end=-1)) if c.act is not None else None
    described = None
    if c.description:
        described = (c.raw, tuple(g.article for g in group if g.act is c.act))
    return (c.kind, act, c.act_unresolved, c.via_backreference, c.article, c.comma, c.lettera, c.numero,
            c.description, c.court, c.court_section, c.court_branch, c.court_seat, c.decision_type,
            c.decision_number, c.decision_year, c.decision_date, c.ecli, described, partitions_of(c),
            msgspec.json.encode(msgspec.structs.replace(c.converts, start=-1, end=-1)) if c.converts else None)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _parse_ts(ts: str) -> dt.datetime:
    try:
        when = dt.datetime.fromisoformat(ts)
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def _ga_number(hit) -> str | None:
    """The decision number of a GA hit. The GA client already splits the portal's number (printed
    with the year in front: '202611314' = n. 11314/2026) into `number` and `year`; cutting a year
    off `number` again would turn n. 20261/2026 into n. 1."""
    m = re.match(r"ECLI:IT:[A-Z]+:\d{4}:0*(\d+)", hit.ecli or "")
    if m:
        return m.group(1)
    return (hit.number or "").strip().lstrip("0") or None


def _eff_date(v: ActVersion) -> str:
    """When a version starts to apply: its in-force date; the original applies from the act's date."""
    return v.in_force_date or v.date or "0000-00-00"


class _Outcome(msgspec.Struct, kw_only=True):
    status: str
    detail: str
    urn: str | None = None
    range_hint: str | None = None
    nearest: list[str] = msgspec.field(default_factory=list)
    content_score: float | None = None
    checked_version: str | None = None
    served_from: str | None = None
    source_url: str | None = None
    gap_note: str | None = None
    ecli: str | None = None
    text_only_fit: bool = False  # the description fits the text, not a word of it is in the rubrica: see _description_elsewhere
    antonym: str | None = None  # the description says the opposite of the rubrica ("annullabilità" vs "nullità")


COST_URN = "urn:nir:stato:costituzione"
_TRANSITIONAL_KEY = re.compile(r"^disp-trans-\d{1,2}$")


class _Resolved(msgspec.Struct, kw_only=True):
    urn: str | None  # full act URN when known (cached or by coordinates)
    ref: object | None  # urnmod.Urn for live fetching
    label: str


# ---------------------------------------------------------------- verifier

class Verifier:
    """One verification run: shares caches and the live-lookup budget across citations."""

    def __init__(self, app, *, at_date: str | None = None, offline: bool = False) -> None:
        self.app = app
        self.at = at_date
        self.offline = offline
        self.store: StatuteStore = app.statutes
        self.live_used = 0
        self.an = Analyzer()
        self._versions: TTLCache = app.extras.setdefault(
            "verify_versions", TTLCache(maxsize=VERSIONS_CACHE_ENTRIES, ttl=VERSIONS_CACHE_SECONDS))
        self._memo: dict[tuple, _Outcome] = {}
        self.notes: list[str] = []

    # ---------------------------------------------------------- statute side
    async def versions(self, urn: str) -> list[ActVersion]:
        """Cached versions with their keys; kept VERSIONS_CACHE_SECONDS so a server sees later imports."""
        hit = self._versions.get(urn)
        if hit is not None:
            return hit
        got = await asyncio.to_thread(self.store.versions, urn, with_keys=True)
        got = [msgspec.structs.replace(v, keys=[canon_key(k) for k in v.keys]) for v in got]
        self._versions[urn] = got
        return got

    async def resolve_act(self, c: Citation) -> _Resolved | _Outcome:
        act = c.act
        if act is None:
            why = "a back-reference with no earlier act" if c.via_backreference else "no act is named next to the article"
            return _Outcome(status="act_unresolvable", detail=f"{why}: the article cannot be tied to an act")
        if act.act_type.startswith("ue."):
            return _Outcome(status="out_of_corpus", gap_note=EU_FALLBACK,
                            detail=f"{act.raw}: an EU act, outside the Italian corpus it_eli checks (Normattiva)")
        if act.act_type == "internazionale":
            return _Outcome(status="out_of_corpus", gap_note=CEDU_FALLBACK if act.code == "cedu" else FALLBACKS["out_of_corpus"],
                            detail=f"{act.raw}: an international convention, outside the Italian corpus it_eli checks")
        if act.act_type == "costituzione" or act.code == "cost":
            return _Resolved(urn=COST_URN, ref=urnmod.parse_urn(COST_URN), label="Cost.")
        act_type, number, year, date = act.act_type, act.number, act.year, act.date
        if act.act_type == "codice":
            code = codesmod.CODES_BY_ID.get(act.code or "")
            if code is None or not code.urn:
                return _Outcome(status="act_unresolvable", detail=f"{act.raw}: unknown code")
            if code.annex_of:
                return _Outcome(
                    status="act_unresolvable", urn=code.api_urn,
                    detail=f"{act.raw}: an annex filed under the same act as the "
                    f"{codesmod.CODES_BY_ID[code.annex_of].name.lower()} ({code.urn}), so its articles cannot be told "
                    "apart from the code's in the index",
                )
            return _Resolved(urn=code.urn, ref=urnmod.parse_urn(code.urn), label=code.abbreviation)
        if act_type in ("legge.regionale", "legge.provinciale"):
            return _Outcome(status="out_of_corpus", gap_note=REGIONAL_FALLBACK,
                            detail=f"{act.raw}: regional and provincial laws are outside the national corpus it_eli checks")
        if not number or not year:
            return _Outcome(status="act_unresolvable", detail=f"{act.raw}: the act has no number and year to identify it")
        try:
            res = urnmod.resolve(act_type, year, number, date)
        except InvalidArg as exc:
            return _Outcome(status="act_unresolvable", detail=f"{act.raw}: {exc.message}")
        parsed = urnmod.parse_urn(res.act_urn)
        if not parsed.partial:
            full = res.act_urn
            if not await self.versions(full):
                other = await asyncio.to_thread(self.store.find_full_urn, msgspec.structs.replace(parsed, date=None))
                if other and other != full:
                    return _Outcome(
                        status="act_unresolvable", urn=None,
                        detail=f"{act.raw}: no act with this date; the index holds {other} (same type, number and "
                        "year, another date) — check the citation before relying on either",
                    )
            return _Resolved(urn=full, ref=parsed, label=res.human_readable_citation)
        full = await asyncio.to_thread(self.store.find_full_urn, parsed)
        return _Resolved(urn=full, ref=urnmod.parse_urn(full) if full else parsed, label=res.human_readable_citation)

    async def check_conversion(self, c: Citation) -> _Outcome | None:
        """'d.l. ..., conv. dalla l. ...': the conversion law against the one the decree's own export
        names in its preface note (or its lapse); None when no local copy says (the law is then
        checked as any act)."""
        decree = await self.resolve_act(Citation(raw=c.converts.raw, start=c.start, end=c.end, kind="statute",
                                                 act=c.converts))
        if isinstance(decree, _Outcome) or not decree.urn:
            return None
        said = next((v for v in await self.versions(decree.urn) if v.converted_by or v.lapsed), None)
        if said is None:
            return None
        cited, law = c.act, f"{decree.label}"
        if said.lapsed and not said.converted_by:
            return _Outcome(status="content_mismatch", urn=cited.urn, served_from="local_index",
                            source_url=said.source_url,
                            detail=f"{law} was not converted into law (its export says 'decaduto per mancata "
                                   f"conversione'): {cited.raw} cannot be its conversion law")
        named = next((x.act for x in extract_citations(said.converted_by) if x.act is not None), None)
        if named is None:
            return None
        same = (named.number == cited.number and named.year == cited.year
                and (cited.date is None or named.date is None or named.date == cited.date))
        if same:
            return _Outcome(status="verified", urn=named.urn or cited.urn, served_from="local_index",
                            source_url=said.source_url,
                            detail=f"{cited.raw}: the law that converted {law}, as its export says "
                                   f"('convertito ... dalla {said.converted_by}')")
        return _Outcome(status="content_mismatch", urn=cited.urn, served_from="local_index", source_url=said.source_url,
                        detail=f"{law} was converted by {said.converted_by} (its export says so), not by {cited.raw}")

    def _choose(self, versions: list[ActVersion], key: str | None, *, fetched_since: dt.datetime | None = None):
        """(version, verdict) with verdict 'present' | 'absent' (authoritative) | 'unknown'.

        'absent' needs a complete copy that is the act's text on the date asked: the newest
        version while fresh (no at_date), the version starting exactly on at_date, a version
        Normattiva has just sent for that date (`fetched_since`), or the versions on both sides
        of at_date both lacking the key. A stale copy, or one that may predate an amendment, is
        never proof."""
        if not versions:
            return None, "unknown"

        def just_fetched(v: ActVersion) -> bool:
            return fetched_since is not None and _parse_ts(v.fetched_at) >= fetched_since

        if self.at is None:
            v = versions[0]
            if key is None or key in v.keys:
                return v, "present"
            return v, ("absent" if self.store.is_fresh(v.fetched_at) or just_fetched(v) else "unknown")
        eligible = sorted((v for v in versions if _eff_date(v) <= self.at), key=_eff_date, reverse=True)
        if not eligible:
            return None, "unknown"
        v = eligible[0]
        if key is None or key in v.keys:
            return v, "present"
        if v.in_force_date == self.at or just_fetched(v):
            return v, "absent"
        newer = sorted((w for w in versions if _eff_date(w) > _eff_date(v)), key=_eff_date)
        if not newer:
            return v, ("absent" if self.store.is_fresh(v.fetched_at) else "unknown")
        # absent in the version in force on at_date and in the next one: never there in between
        # (exports keep repealed articles as "ARTICOLO ABROGATO")
        return v, ("absent" if key not in newer[0].keys else "unknown")

    async def check_statute(self, c: Citation) -> _Outcome:
        if c.converts is not None:
            judged = await self.check_conversion(c)
            if judged is not None:
                return judged
        r = await self.resolve_act(c)
        if isinstance(r, _Outcome):
            return r
        key = None
        if c.article is not None:
            try:
                key = canon_key(c.article)
            except Exception:
                return _Outcome(status="unparseable_citation", detail=f"cannot read the article number {c.article!r}")
            # the Costituzione's transitional provisions are its articles too ('XII disp. trans. fin. Cost.')
            if not re.match(r"^\d", key) and not (r.urn == COST_URN and _TRANSITIONAL_KEY.match(key)):
                return _Outcome(status="unparseable_citation", detail=f"cannot read the article number {c.article!r}")
        memo = (r.urn or str(r.ref), key, c.comma, c.lettera, c.numero, c.description)
        if memo in self._memo:
            return self._memo[memo]
        out = await self._check_statute(c, r, key)
        if key is not None and (out.status == "content_unconfirmed" or out.text_only_fit):
            out = await self._description_elsewhere(c, out, key)
        self._memo[memo] = out
        return out

    async def _check_statute(self, c: Citation, r: _Resolved, key: str | None) -> _Outcome:
        versions = await self.versions(r.urn) if r.urn else []
        v, verdict = self._choose(versions, key)
        if verdict == "present" and v is not None:
            if key is None:
                return _Outcome(status="verified", urn=r.urn, detail=f"{r.label}: the act is in the local index",
                                checked_version=v.version, served_from="local_index", source_url=v.source_url)
            out = await self._judge_cached(c, r, key, v)
            if out is not None:
                return out
        if verdict == "absent" and v is not None:
            return self._absent(r, key, v, "local_index", "complete copy in the local index")
        # the local index cannot answer
        if self.offline:
            if not versions:
                return _Outcome(status="act_not_in_corpus", urn=r.urn,
                                detail=f"{r.label} is not in the local statute index and offline=true: not checked")
            return _Outcome(status="upstream_unavailable", urn=r.urn,
                            detail=f"{r.label}: the cached copy cannot settle art. {key}"
                            + (f" on {self.at}" if self.at else " (older than the freshness window)")
                            + " and offline=true: not checked")
        return await self._live_statute(c, r, key, bool(versions))

    async def _judge_cached(self, c: Citation, r: _Resolved, key: str, v: ActVersion, extra: str = "") -> _Outcome | None:
        """Judge an article listed in a cached version, from its stored text."""
        a = await asyncio.to_thread(self.store.get_article, v.urn, key, v.version)
        if a is None:  # key present in the listing: read any cached text of it
            cands = await asyncio.to_thread(self.store.article_candidates, v.urn, key)
            a = cands[0] if cands else None
        if a is None:
            return None
        stale = "" if self.store.is_fresh(v.fetched_at) else " (cached copy past its freshness window)"
        r2 = r if r.urn == v.urn else _Resolved(urn=v.urn, ref=r.ref, label=r.label)
        return self._judge_article(c, r2, key, heading=a.heading, text=a.text, commi=[x.num for x in a.commi],
                                   repealed=a.repealed, version=v.version, served="local_index",
                                   source_url=a.source_url, extra=extra or stale, act_title=a.act_title or v.title,
                                   lifecycle=a.lifecycle)

    def _absent(self, r: _Resolved, key: str, v: ActVersion, served: str, why: str) -> _Outcome:
        hint, near = article_range_hint(v.keys, key)
        return _Outcome(status="not_found", urn=v.urn, range_hint=hint, nearest=near, checked_version=v.version,
                        served_from=served, source_url=v.source_url,
                        detail=f"art. {key} does not exist in {r.label} (version {v.version}, {why})")

    def _judge_article(self, c, r, key, *, heading, text, commi, repealed, version, served, source_url, extra="",
                       act_title=None, lifecycle=()) -> _Outcome:
        """Order of verdicts: repealed or struck down (the article, or the comma / lettera cited);
        a missing comma, lettera or numero (not_found); a description that does not fit (review);
        a comma/lettera that could not be checked (gap); verified."""
        base = dict(urn=r.urn, checked_version=version, served_from=served, source_url=source_url)
        where = f"art. {key} {r.label}"
        lifecycle = list(lifecycle or ())
        out_of_force = whole_status(lifecycle, self.at, list(commi or []))
        if out_of_force is None and c.comma and commi:
            for w in (x for x in c.comma.split(",") if x):
                num = commi[-1] if w == "ultimo" else w
                st, evs = comma_status(lifecycle, canon_key(num), canon_key(commi[-1]), self.at)
                if st in ("repealed", "declared_unconstitutional", "lapsed"):
                    out_of_force = (st, evs[0], f"comma {w}")
                    break
        if out_of_force is None and c.lettera:
            out_of_force = item_status(lifecycle, c.comma, c.lettera, self.at)
        if out_of_force is None and c.numero:
            for n in (x for x in c.numero.split(",") if x):
                out_of_force = item_status(lifecycle, c.comma, n, self.at)
                if out_of_force is not None:
                    break
        if out_of_force is not None:
            st, ev, part = out_of_force
            status = "declared_unconstitutional" if st == "declared_unconstitutional" else "repealed"
            return _Outcome(status=status, detail=f"{where}{' ' + part if part else ''} exists in the export but is not "
                            f"law in force: {describe_event(ev)}: flagged for review, not a hallucination" + extra, **base)
        if repealed:
            return _Outcome(status="repealed", detail=f"{where} exists but is repealed (abrogato) in the version of {version}: "
                            "flagged for review, not a hallucination" + extra, **base)
        confirmed: list[str] = []
        gap: tuple[str, str] | None = None
        if c.comma:
            wanted = [x for x in c.comma.split(",") if x]
            if not commi:
                gap = ("comma_not_checkable", f"its commi are not marked in the export, so comma {c.comma} was not checked")
            else:
                have = [canon_key(x) for x in commi]
                missing = [w for w in wanted if w != "ultimo" and canon_key(w) not in have and not comma_in_text(text, w)]
                if missing:
                    near = nearest_articles(have, canon_key(missing[0]))
                    return _Outcome(status="not_found",
                                    detail=f"{where} exists but has no comma {', '.join(missing)}" + extra,
                                    range_hint=f"art. {key} has {len(have)} commi, numbered from {have[0]} to {have[-1]}"
                                    + (f"; nearest existing: {', '.join(near)}" if near else ""), nearest=near, **base)
                confirmed.append(f"comma {c.comma}")
        items = check_items(text, c.comma, c.lettera, c.numero)
        if items is not None:
            verdict, what = items
            if verdict == "absent":
                return _Outcome(status="not_found", detail=f"{where} exists, but {what}" + extra, **base)
            if verdict == "unknown" and gap is None:
                gap = ("lettera_not_checkable", what)
            elif verdict == "ok" and what:
                confirmed.append(what)
        score = None
        if c.description:
            if names_the_act(self.an, c.description, act_title):
                confirmed.append(f"the description ({c.description}) names the act, not the article: not compared")
            else:
                fit = description_fit(self.an, c.description, heading, text)
                score = _score_of(fit, heading)
                text_only = bool(heading) and fit is not None and fit[0] == 0.0
                clash = antonym_clash(self.an, c.description, heading) if score is not None else None
                if clash is not None:
                    # not a mismatch yet: check_statute looks for the article the description does fit
                    return _Outcome(status="content_unconfirmed", content_score=0.0,
                                    antonym=f"{clash[0]} / {clash[1]}",
                                    detail=f"{where} exists, but the description ({c.description}) says "
                                    f"'{clash[0]}' where its rubrica says '{clash[1]}': the opposite meaning: review"
                                    + extra, **base)
                if score is not None and score < CONTENT_THRESHOLD:
                    # not a mismatch yet: check_statute looks for the article the description does fit
                    return _Outcome(status="content_unconfirmed", content_score=score,
                                    detail=f"{where} exists, but the description ({c.description}) does not match its "
                                    f"rubrica/text (overlap {score:.2f}): review" + extra, **base)
                if score is not None:
                    confirmed.append(f"the description fits (overlap {score:.2f})")
        done = ("; " + ", ".join(confirmed)) if confirmed else ""
        recheck = score is not None and text_only
        if gap is not None:
            return _Outcome(status=gap[0], content_score=score, detail=f"{where} exists{done}; but {gap[1]}" + extra,
                            text_only_fit=recheck, **base)
        return _Outcome(status="verified", content_score=score, detail=f"{where} exists{done}" + extra,
                        text_only_fit=recheck, **base)

    async def _description_elsewhere(self, c: Citation, o: _Outcome, key: str) -> _Outcome:
        """A description that does not match the cited article is called a mismatch only when it
        fits ANOTHER article of the same act better (art. 575 c.p. (furto) -> art. 624 'Furto';
        art. 3 Cost. (sciopero) -> art. 40). A doctrinal name the text does not use (a principle,
        a nickname) fits no article: it stays 'content_unconfirmed', to review, not a mismatch.
        A description found only in the cited article's text (not its rubrica) is a mismatch only
        when another article's rubrica says exactly that ('reati societari': art. 25-ter)."""
        if not o.urn or not c.description:
            return o
        strict = o.status != "content_unconfirmed"
        try:
            res = await asyncio.to_thread(self.store.search, c.description, urn=o.urn, window=HitWindow(size=5))
        except ItEliError:
            return o
        best = None
        for h in res.hits:
            other = canon_key(h.article)
            if other == key or h.repealed or antonym_clash(self.an, c.description, h.heading):
                continue
            if strict:
                # the other rubrica must BE the description: all its words in the rubrica, and the
                # rubrica's words (most of them) in the description
                fit = description_fit(self.an, c.description, h.heading, "")
                score = fit[0] if fit and h.heading else 0.0
                back = list(_units(self.an, h.heading or "", _generic_stems(self.an)).values())
                if score < 1.0 or not back or _Text(self.an, c.description).share(back) < 0.75:
                    continue
            else:
                cands = await asyncio.to_thread(self.store.article_candidates, o.urn, other)
                text = cands[0].text if cands else h.snippet
                score = content_score(self.an, c.description, h.heading, text) or 0.0
                if score < CONTENT_THRESHOLD or score <= (o.content_score or 0):
                    continue
            if best is None or score > best[0]:
                best = (score, other, h.heading)
        if best is None:
            if o.antonym:
                return msgspec.structs.replace(o, status="content_mismatch", detail=o.detail.removesuffix(": review")
                                               + "; no other article of the act has that rubrica: review")
            if strict:
                return o
            return msgspec.structs.replace(o, detail=o.detail.removesuffix(": review") + "; no other article of the act "
                                           "fits it either, so it is not called a mismatch (a doctrinal name the text "
                                           "does not use?): review")
        score, other, heading = best
        what = f"art. {other}" + (f" ({heading})" if heading else "")
        head = (o.detail.removesuffix(": review") if not strict else
                f"art. {key} exists, but the description ({c.description}) is not its rubrica")
        return msgspec.structs.replace(
            o, status="content_mismatch", range_hint=f"the description fits {what}", text_only_fit=False,
            detail=f"{head}; it fits {what} of the same act (overlap {score:.2f}): review")

    async def _live_statute(self, c: Citation, r: _Resolved, key: str | None, had_cache: bool) -> _Outcome:
        """Online: the legislation tools' channels (OpenData API, portal export with the identity
        check). 'Does not exist' only on positive evidence: the API's own 'act exists, article
        does not', or a complete export Normattiva has just sent (for at_date) that lacks the key.
        Anything else — an upstream down, a stale cached copy served in its place, the API's
        ambiguous 'act not found' with the portal unreachable — is upstream_unavailable."""
        from .legislation import UNREACHABLE, Target, act_version, api_not_found_is_final, served_article

        if self.live_used >= MAX_LIVE_LOOKUPS:
            return _Outcome(status="upstream_unavailable", urn=r.urn,
                            detail=f"{r.label}: live lookup budget of this call ({MAX_LIVE_LOOKUPS}) used up: not checked")
        self.live_used += 1
        self._versions.pop(r.urn or "", None)
        target = Target(urn=r.urn, ref=r.ref)
        since = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        try:
            if key is None:
                version, served, stale, _ = await act_version(self.app, target, self.at)
                self._versions.pop(version.urn, None)
                return _Outcome(status="verified", urn=version.urn, checked_version=version.version, served_from=served,
                                source_url=version.source_url, detail=f"{r.label}: the act exists (Normattiva)"
                                + (" — stale cached copy" if stale else ""))
            try:
                served = await served_article(self.app, target, key, self.at)
            except NotFound as exc:
                if "portal" in exc.details and "range_hint" not in exc.details:
                    raise  # Normattiva confirmed the ACT does not exist: act_unresolvable below
                if exc.details.get("not_yet_in_force"):  # Normattiva's own answer: no text in force that day
                    return _Outcome(status="not_found", urn=r.urn, served_from="normattiva_api",
                                    detail=f"art. {key} {r.label} is not in force on {self.at or 'today'} "
                                    f"(Normattiva: {exc.message[:200]})")
                return await self._settle_after_live(c, r, key, since, exc, api_final=api_not_found_is_final(exc, key))
            a = served.article
            r2 = _Resolved(urn=a.urn, ref=r.ref, label=r.label)
            return self._judge_article(c, r2, key, heading=a.heading, text=a.text, commi=[x.num for x in a.commi],
                                       repealed=a.repealed, version=a.in_force_date or ORIGINAL,
                                       served=served.served_from, source_url=a.source_url,
                                       extra=" (stale cached copy)" if served.stale else "", lifecycle=a.lifecycle)
        except IdentityMismatch as exc:
            return _Outcome(status="act_unresolvable", urn=None,
                            detail=f"{r.label}: Normattiva answered with another act ({exc.message}); the citation's "
                            "coordinates are probably wrong")
        except NotFound as exc:
            return _Outcome(status="act_unresolvable", urn=r.urn,
                            detail=f"{r.label}: Normattiva could not find the act ({exc.message}); check type, number and date")
        except UNREACHABLE as exc:
            what = "not in the local index" if not had_cache else "the cached copy cannot settle it"
            return _Outcome(status="upstream_unavailable", urn=r.urn, detail=f"{r.label}: {what}, and Normattiva could not be reached ({exc.code})")
        except InvalidArg as exc:
            return _Outcome(status="act_unresolvable", urn=r.urn, detail=f"{r.label}: {exc.message}")
        except ItEliError as exc:
            return _Outcome(status="upstream_unavailable", urn=r.urn, detail=f"{r.label}: {exc.code}: {exc.message}")

    async def _settle_after_live(self, c: Citation, r: _Resolved, key: str, since: dt.datetime, exc: NotFound,
                                 *, api_final: bool) -> _Outcome:
        """The legislation channel said 'not found'. Decide from evidence, not from the exception:
        what the local index holds now (a version Normattiva just sent counts for at_date)."""
        urn = r.urn
        if urn is None and isinstance(r.ref, urnmod.Urn) and r.ref.partial:
            urn = await asyncio.to_thread(self.store.find_full_urn, r.ref)
        versions: list[ActVersion] = []
        if urn:
            self._versions.pop(urn, None)
            versions = await self.versions(urn)
        v, verdict = self._choose(versions, key, fetched_since=since)
        if verdict == "absent" and v is not None:
            fresh = _parse_ts(v.fetched_at) >= since
            return self._absent(r, key, v, "normattiva_portal" if fresh else "local_index",
                                "complete export just received from Normattiva" if fresh else "complete copy in the local index")
        if verdict == "present" and v is not None:
            out = await self._judge_cached(c, r, key, v)
            if out is not None:
                return out
        if api_final:
            # the OpenData API's own answer: the act exists, this (plain numeric) article does not
            hint, near = (article_range_hint(versions[0].keys, key) if versions else (exc.details.get("hint") or None, []))
            return _Outcome(status="not_found", urn=urn, range_hint=hint, nearest=near, served_from="normattiva_api",
                            detail=f"art. {key} does not exist in {r.label} (Normattiva OpenData API: the act exists, "
                            "the article does not)")
        held = f"the cached copy ({v.version}) lacks it but is not the authoritative text" if v is not None else (
            "no copy of the act is cached")
        return _Outcome(status="upstream_unavailable", urn=urn,
                        detail=f"{r.label}: art. {key} could not be checked"
                        + (f" on {self.at}" if self.at else "")
                        + f": Normattiva could not be reached, or its answer was not conclusive; {held}")

    async def _group_description(self, c: Citation, o: _Outcome, group: list[Citation]) -> _Outcome:
        """'artt. 575 e 577 c.p. (omicidio)': the description is the group's, so judge it on all its articles."""
        others = [g for g in group if g is not c and g.act is c.act]
        if not others or o.urn is None:
            return o
        heading, text = [], []
        for g in [c, *others]:
            for a in (await asyncio.to_thread(self.store.article_candidates, o.urn, canon_key(g.article)))[:1]:
                heading.append(a.heading or "")
                text.append(a.text[:20_000])
        score = content_score(self.an, c.description or "", " ".join(heading), " ".join(text))
        if score is None or score < CONTENT_THRESHOLD:
            return o
        return msgspec.structs.replace(o, status="verified", content_score=score, range_hint=None,
                                       detail=f"art. {canon_key(c.article)} exists; the description fits the group "
                                       f"{c.raw!r} (overlap {score:.2f})")

    # ---------------------------------------------------------- case law
    def _cost_year_complete(self, meta: dict, year: int) -> bool:
        """The index is authoritative for a year only when built from the Court's full download
        (under IT_ELI_HOME/downloads), the year is closed, and its numbers run 1..max without holes."""
        home_dl = str(self.app.settings.home / "downloads")
        sources = meta.get("sources") or []
        if not sources or not all(str(s).startswith(home_dl) for s in sources):
            return False
        built = (meta.get("built_at") or "0000")[:4]
        return year < int(built) if built.isdigit() else False

    async def check_cost(self, c: Citation, year: int | None, number: str | None) -> _Outcome:
        if not (year and number and number.isdigit()):
            return _Outcome(status="unparseable_citation", detail="a Constitutional Court citation needs number and year")
        n = int(number)
        this_year = dt.date.today().year
        ecli = f"ECLI:IT:COST:{year}:{n}"
        if year < COST_FIRST_YEAR or year > this_year or n < 1 or n > COST_MAX_NUMBER:
            return _Outcome(status="not_found", detail=f"Corte cost. n. {n}/{year} cannot exist: the Court decides from "
                            f"{COST_FIRST_YEAR}, numbering restarts each year and never reached {COST_MAX_NUMBER}")
        try:
            d = await asyncio.to_thread(self.app.decisions.get_decision, anno=year, numero=n)
        except IndexMissing:
            return _Outcome(status="out_of_corpus", detail="the Constitutional Court index is not built: not checked",
                            gap_note="build it with `it-eli index build`")
        except NotFound:
            meta = await asyncio.to_thread(self.app.decisions.index_meta)
            nums = await asyncio.to_thread(self.app.decisions.year_numbers, year)
            contiguous = bool(nums) and nums == list(range(1, nums[-1] + 1))
            if self._cost_year_complete(meta, year) and contiguous:
                return _Outcome(status="not_found", served_from="cortecost_index",
                                range_hint=f"the Court's decisions of {year} are numbered 1 to {nums[-1]}",
                                detail=f"no Constitutional Court decision n. {n}/{year}: the index holds the whole year")
            yr = meta.get("year_range")
            return _Outcome(status="out_of_corpus",
                            detail=f"Corte cost. n. {n}/{year} is not in the local index, which holds "
                            f"{meta.get('count', '?')} decisions ({yr[0]}-{yr[1]} partially)" if yr else
                            f"Corte cost. n. {n}/{year} is not in the local index")
        wanted = (c.decision_type or "").lower()
        tipo = {"S": "sentenza", "O": "ordinanza"}.get(d.tipologia, d.tipologia)
        out = _Outcome(status="verified", detail=f"{d.citation} exists ({ecli})",
                       served_from="cortecost_index", source_url=d.source_url)
        if wanted in ("sentenza", "ordinanza") and wanted != tipo:
            out.status = "content_mismatch"
            out.detail = f"{d.citation} exists, but it is an {tipo}, cited as {wanted}: review"
        out.ecli = d.ecli
        return out

    async def check_cassazione(self, c: Citation, year: int | None, number: str | None) -> _Outcome:
        from .caselaw_live import it_cassazione_search
        from .legislation import UNREACHABLE

        if not (year and number and number.isdigit()):
            return _Outcome(status="unparseable_citation", detail="a Cassazione citation needs number and year")
        if self.offline:
            return _Outcome(status="upstream_unavailable", detail="Cassazione decisions are checked live (SentenzeWeb); offline=true: not checked")
        if self.live_used >= MAX_LIVE_LOOKUPS:
            return _Outcome(status="upstream_unavailable", detail="live lookup budget of this call used up: not checked")
        self.live_used += 1
        chamber = {"civ": "civile", "pen": "penale"}.get(c.court_branch or "")
        try:
            res = await it_cassazione_search(self.app.http, self.app.settings, query=number, anno=year, chamber=chamber, limit=50)
        except UNREACHABLE as exc:
            return _Outcome(status="upstream_unavailable", detail=f"SentenzeWeb could not be reached ({exc.code})")
        except ItEliError as exc:
            return _Outcome(status="upstream_unavailable", detail=f"SentenzeWeb: {exc.code}: {exc.message[:160]}")
        for h in res.hits:
            if h.number == int(number) and h.year == year:
                return _Outcome(status="verified", detail=f"{h.citation} found on SentenzeWeb", served_from="sentenzeweb",
                                source_url=h.source_url)
        return _Outcome(status="out_of_corpus",
                        detail=f"SentenzeWeb returned no decision n. {number}/{year}; it publishes a limited window of "
                        "years and not every decision, so this is not proof that it does not exist")

    async def check_ga(self, c: Citation, year: int | None, number: str | None, ecli: str | None = None) -> _Outcome:
        from .caselaw_live import it_ga_search
        from .legislation import UNREACHABLE

        if not (year and number and number.isdigit()):
            return _Outcome(status="unparseable_citation", detail="an administrative decision needs number and year")
        if self.offline:
            return _Outcome(status="upstream_unavailable", detail="administrative decisions are checked live (GA portal); offline=true: not checked")
        if self.live_used >= MAX_LIVE_LOOKUPS:
            return _Outcome(status="upstream_unavailable", detail="live lookup budget of this call used up: not checked")
        self.live_used += 1
        try:
            res = await it_ga_search(self.app.http, self.app.settings, numero=number, anno=year, limit=60)
        except UNREACHABLE as exc:
            return _Outcome(status="upstream_unavailable", detail=f"the GA portal could not be reached ({exc.code})")
        except ItEliError as exc:
            return _Outcome(status="upstream_unavailable", detail=f"GA portal: {exc.code}: {exc.message[:160]}")
        for h in res.hits:
            if (ecli and h.ecli == ecli) or (not ecli and _ga_number(h) == number and h.year == year):
                return _Outcome(status="verified", detail=f"found on the GA portal ({h.sede or ''} {h.ecli or ''})".strip(),
                                served_from="ga", source_url=h.source_url)
        return _Outcome(status="out_of_corpus",
                        detail=f"the GA portal's first page has no decision n. {number}/{year}; it serves only the newest "
                        "results, so this is not proof that it does not exist")

    async def check_case(self, c: Citation) -> _Outcome:
        if c.kind == "ecli":
            court = c.court or ""
            if court == "COST":
                return await self.check_cost(c, c.decision_year, c.decision_number)
            if court == "CASS":
                return await self.check_cassazione(c, c.decision_year, c.decision_number)
            if court in ("CDS", "CGARS", "TAR"):
                return await self.check_ga(c, c.decision_year, c.decision_number, ecli=c.ecli)
            return _Outcome(status="out_of_corpus", detail=f"ECLI court {court!r}: it_eli checks COST, CASS and the administrative courts")
        if c.court == "COST":
            return await self.check_cost(c, c.decision_year, c.decision_number)
        if c.court == "CASS":
            return await self.check_cassazione(c, c.decision_year, c.decision_number)
        if c.court in ("CDS", "CGARS", "TAR"):
            return await self.check_ga(c, c.decision_year, c.decision_number)
        name = COURT_NAMES.get(c.court or "", c.court or "this court")
        return _Outcome(status="out_of_corpus", gap_note=COURT_FALLBACKS.get(c.court or ""),
                        detail=f"a decision of the {name}: it_eli has no source for this court "
                        "(it checks the Corte costituzionale, the Cassazione and the administrative courts), so it was "
                        "not checked")

    # ---------------------------------------------------------- run
    async def run(self, text: str) -> VerifyResult:
        # CPU-heavy steps run off the event loop (it_eli/runtime/workers.py): the extraction in a worker
        # process for a long text, the grouping and the report in a thread; only the checks,
        # which wait on indexes and upstreams, run here.
        cites = await extract_off_loop(text)
        plan = await in_thread(_plan, cites)
        # Each distinct citation is checked once: a brief that cites art. 2043 c.c. 500 times costs
        # one check (and at most one live lookup), not 500.
        done: dict[tuple, tuple[_Outcome, str | None]] = {}
        for i, (c, group, memo) in enumerate(plan):
            if i % 50 == 0 or i + 1 == len(plan):
                progress.report("checking citations", i if i + 1 < len(plan) else len(plan), len(plan))
            if memo in done:
                continue
            if c.kind == "statute":
                o = await self.check_statute(c)
                if o.status in ("content_mismatch", "content_unconfirmed"):
                    o = await self._group_description(c, o, group)
                ecli = None
            else:
                o = await self.check_case(c)
                ecli = c.ecli or o.ecli
            done[memo] = (o, ecli)
        return await in_thread(self._report, plan, done)

    def _report(self, plan, done: dict[tuple, tuple[_Outcome, str | None]]) -> VerifyResult:
        checked: list[CheckedCitation] = []
        gaps: list[VerifyGap] = []
        keys: dict[str, str] = {}
        for c, _group, memo in plan:
            o, ecli = done[memo]
            art = None
            if c.article is not None:
                art = keys.get(c.article)
                if art is None:
                    try:
                        art = canon_key(c.article)
                    except Exception:
                        art = c.article
                    keys[c.article] = art
            cc = CheckedCitation(
                raw=c.raw, kind=c.kind, status=o.status, detail=o.detail, start=c.start, end=c.end,
                urn=o.urn or (c.act.urn if c.act is not None else None), ecli=ecli,
                eli=c.act.eli if c.act is not None else None,
                article=art, comma=c.comma, lettera=c.lettera, numero=c.numero, court=c.court, court_seat=c.court_seat,
                court_section=c.court_section, court_branch=c.court_branch, decision_type=c.decision_type,
                decision_number=c.decision_number, decision_year=c.decision_year, decision_date=c.decision_date,
                celex=c.act.celex if c.act is not None else None, partitions=partitions_of(c), range_hint=o.range_hint, nearest=list(o.nearest), description=c.description,
                content_score=o.content_score, checked_version=o.checked_version, served_from=o.served_from,
                source_url=o.source_url,
            )
            checked.append(cc)
            if o.status in GAP_KINDS:
                gaps.append(VerifyGap(kind=o.status, citation=c.raw, note=o.detail,
                                      fallback=o.gap_note or FALLBACKS[o.status]))
        return self._result(checked, gaps)

    def _result(self, checked: list[CheckedCitation], gaps: list[VerifyGap]) -> VerifyResult:
        by_status = Counter(x.status for x in checked)
        count = by_status.__getitem__
        nf = count("not_found")
        decided = sum(by_status[s] for s in ("not_found", *REVIEW_KINDS, *CONFIRMED_KINDS))
        confirmed = sum(by_status[s] for s in CONFIRMED_KINDS)
        review = sum(by_status[s] for s in REVIEW_KINDS)
        if not checked:
            status = "NO_CITATIONS_FOUND"
        elif nf:
            status = "HALLUCINATION_DETECTED"
        elif review:
            status = "NEEDS_REVIEW"
        elif not confirmed:
            status = "NOTHING_VERIFIED"
        elif gaps:
            status = "VERIFIED_WITH_GAPS"
        else:
            status = "VERIFIED"
        notes = list(self.notes)
        if status == "NO_CITATIONS_FOUND":
            notes.append("no citation was recognised in the text: nothing was checked (this is not a pass)")
        if status == "NOTHING_VERIFIED":
            notes.append("no citation could be confirmed: every one is a gap (this is not a pass)")
        if status == "NEEDS_REVIEW":
            notes.append(f"{review} citation(s) need a human look (repealed article, or a description that does not fit "
                         "or could not be confirmed): this is not a pass")
        return VerifyResult(
            status=status, is_error=status == "HALLUCINATION_DETECTED",
            needs_review=bool(review),
            summary=VerifySummary(
                citations=len(checked), checked=decided, verified=count("verified"), not_found=nf,
                repealed=count("repealed"), content_mismatch=count("content_mismatch"),
                content_unconfirmed=count("content_unconfirmed"), to_review=review,
                declared_unconstitutional=count("declared_unconstitutional"),
                partly_verified=count("comma_not_checkable") + count("lettera_not_checkable"), gaps=len(gaps),
                live_lookups=self.live_used,
            ),
            citations=checked, gaps=gaps, at_date=self.at, offline=self.offline, checked_at=_now(), notes=notes,
        )


def check_input(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidArg("text must be a string", valid="the text whose citations are to be verified")
    if len(text) > MAX_INPUT_CHARS:
        raise InputTooLarge(
            f"the text has {len(text):,} characters; at most {MAX_INPUT_CHARS:,} are verified in one call",
            valid=f"split the text into parts of at most {MAX_INPUT_CHARS:,} characters", chars=len(text),
        )
    return text


async def verify_text(app, text: str, *, at_date: str | None = None, offline: bool = False) -> VerifyResult:
    """Verify every citation in `text` (see the module docstring for the rules)."""
    from .legislation import check_date

    text = check_input(text)
    at = check_date(at_date)
    return await Verifier(app, at_date=at, offline=offline).run(text)


# ---------------------------------------------------------------- the report: distinct citations, worst first

MAX_POSITIONS = 10  # start offsets listed per distinct citation
# worst first: what must never be overlooked (or lost to a page boundary) comes before what is fine
REPORT_ORDER = (
    "not_found", "content_mismatch", "declared_unconstitutional", "repealed", "content_unconfirmed",
    "upstream_unavailable", "act_unresolvable",
    "unparseable_citation", "act_not_in_corpus", "out_of_corpus", "comma_not_checkable", "lettera_not_checkable",
    "verified",
)
_RANK = {s: i for i, s in enumerate(REPORT_ORDER)}
_FIELDS = CheckedCitation.__struct_fields__
_KEY_AT = [i for i, f in enumerate(_FIELDS) if f not in ("raw", "start", "end")]


def distinct_citations(result: VerifyResult) -> list[ReportedCitation]:
    """The citations of `result` grouped (same everything but the place in the text), worst first,
    in order of first appearance within each status; texts whole (an answer clips them)."""
    gaps = iter(result.gaps)  # one per gap citation, in the citations' order
    found: dict[tuple, ReportedCitation] = {}
    for c in result.citations:
        fallback = next(gaps).fallback if c.status in GAP_KINDS else None
        values = msgspec.structs.astuple(c)
        key = tuple(tuple(values[i]) if isinstance(values[i], list) else values[i] for i in _KEY_AT) + (fallback,)
        r = found.get(key)
        if r is None:
            fields = dict(zip(_FIELDS, values))
            fields["nearest"] = list(c.nearest)
            found[key] = ReportedCitation(**fields, positions=[c.start], fallback=fallback)
        else:
            r.occurrences += 1
            if len(r.positions) < MAX_POSITIONS:
                r.positions.append(c.start)
    return sorted(found.values(), key=lambda r: _RANK.get(r.status, len(_RANK)))  # stable: first appearance


def gap_groups(reported: list[ReportedCitation]) -> list[GapGroup]:
    """Every gap kind and fallback of the distinct citations, counted over the whole text: what
    was not checked must be visible even when its citations are not."""
    groups: dict[tuple[str, str], GapGroup] = {}
    for r in reported:
        if r.fallback is None:
            continue
        g = groups.get((r.status, r.fallback))
        if g is None:
            g = groups[(r.status, r.fallback)] = GapGroup(kind=r.status, fallback=r.fallback, citations=0, distinct=0)
        g.citations += r.occurrences
        g.distinct += 1
    return list(groups.values())
