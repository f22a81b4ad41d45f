"""Whether a cited description fits the article: its content words against the rubrica and the text.

Apart from the verdicts because it is word matching on the search analysis (stems, nicknames,
lenient prefixes); the opposite-meaning check is in antonyms.py."""

from __future__ import annotations

import re

from it_eli.search.analysis import Analyzer

CONTENT_THRESHOLD = 0.5  # calibrated on tests/verify_cases.py (see DISCOVERY.md (verification))


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


def generic_stems(an: Analyzer) -> set[str]:
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


class Text:
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


def word_units(an: Analyzer, text: str, drop: set[str] | None = None) -> dict[str, tuple[str, str]]:
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
    generic = generic_stems(an)
    readings = [list(word_units(an, desc, generic).values())]
    for nick, expansion in NICKNAMES.items():
        m = re.search(rf"(?<![\w]){re.escape(nick)}(?![\w])", low)
        if m:
            rest = word_units(an, low[: m.start()] + " " + low[m.end() :], generic)
            for k, u in word_units(an, expansion).items():  # the rubrica's own words, generic or not
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
    units = list(word_units(an, rest, generic_stems(an)).values())
    return bool(units) and bool(act_title) and Text(an, act_title).share(units) >= CONTENT_THRESHOLD


def description_fit(an: Analyzer, description: str, heading: str | None, text: str) -> tuple[float, float] | None:
    """(share of the description's content words found in the rubrica, share found in the text),
    for its best reading; None when the description is not a claim about the article's content."""
    readings = _description_words(an, description)
    if not readings:
        return None
    h = Text(an, heading) if heading else None
    t = Text(an, text[:60_000])
    return max(((h.share(r) if h else 0.0), t.share(r)) for r in readings)


def score_of(fit: tuple[float, float] | None, heading: str | None) -> float | None:
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
    return score_of(description_fit(an, description, heading, text), heading)
