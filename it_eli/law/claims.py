"""What a text says a Constitutional Court decision decided: the outcome words (illegittimità,
non fondata, manifestamente inammissibile, restituzione degli atti ...) and the provisions named
next to a decision citation, read from the sentence around it. Pure: a reading, not a check.

Why a reading of its own: "exists" is not "verified". A real number with an invented holding
(`ord. n. 5 del 2001, ha dichiarato l'illegittimità ...` when the Court returned the papers) is the
misattribution courts sanction; the outcome words are the claim that the record can confirm.
The same reader reads the Court's dispositivo, so the text and the record speak one vocabulary.
"""

from __future__ import annotations

import bisect
import re

import msgspec

from .scanner.model import Citation, SpanCover

# canonical outcomes of the Court (the formulas of its dispositivi)
OUTCOME_NAMES = {
    "illegittimita": "illegittimità costituzionale",
    "non_fondata": "non fondata",
    "manifestamente_infondata": "manifestamente infondata",
    "inammissibile": "inammissibile",
    "manifestamente_inammissibile": "manifestamente inammissibile",
    "restituzione_atti": "restituzione degli atti",
    "estinzione": "estinzione del processo",
    "cessata_materia": "cessata materia del contendere",
    "ammissibile": "ammissibile (conflitto o referendum)",
    "respinta": "questione respinta (non fondata o inammissibile)",
}
# a claim fits the record when the record holds one of these outcomes: the plain word covers its
# manifest form ("infondata" is said of a "manifesta infondatezza"), never the other way round
FITS = {
    "non_fondata": {"non_fondata", "manifestamente_infondata"},
    "inammissibile": {"inammissibile", "manifestamente_inammissibile"},
    "respinta": {"non_fondata", "manifestamente_infondata", "inammissibile", "manifestamente_inammissibile"},
}

_A = r"[àa]'?"  # 'illegittimità', 'illegittimita'', 'illegittimita'
# most specific first: a span read by one pattern is not read again by a later one
_OUTCOME_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple((k, re.compile(p, re.IGNORECASE)) for k, p in (
    ("manifestamente_infondata", r"\bmanifest(?:amente|a|e)\s+(?:infondat[aeio]|infondatezza)\b"),
    ("manifestamente_inammissibile", r"\bmanifest(?:amente|a|e)\s+(?:inammissibil[ei]|inammissibilit" + _A + ")"),
    ("restituzione_atti", r"\brestitu(?:zione|ito|iti|ire|isce|ì|ito)\s+(?:de)?gli\s+atti\b|\batti\s+(?:sono\s+stati\s+)?restituiti\b"),
    ("estinzione", r"\bestin(?:zione|to|ti|guere)\s+(?:del\s+|il\s+)?(?:processo|giudizio)\b|\bestinto\s+il\s+(?:processo|giudizio)\b"),
    ("cessata_materia", r"\bcessat[ao]\s+(?:la\s+)?materia\s+del\s+contendere\b"),
    ("illegittimita", r"\b(?:costituzionalmente\s+)?illegittim(?:it" + _A + r"|[aoie])\b|\bincostituzional(?:e|i|it" + _A + r")"
     r"|\baccolt[ao]\s+la\s+questione\b|\bha\s+accolto\s+la\s+questione\b"),
    ("non_fondata", r"\bnon\s+fondat[aei]\b|\binfondat(?:[aei]|ezza)\b"),
    ("inammissibile", r"\binammissibil(?:[ei]|it" + _A + r")"),
    ("ammissibile", r"\bdichiar\w*\s+(?:il\s+conflitto\s+|la\s+richiesta\s+(?:di\s+referendum\s+)?)?ammissibil[ei]\b"),
    ("respinta", r"\b(?:respint[aoei]|rigettat[aoei]|ha\s+respinto|ha\s+rigettato)\b"),
))
# "questione di illegittimità", "eccezione di incostituzionalità": the question raised, not the outcome
_RAISED = re.compile(r"(?:question[ei]|eccezion[ei]|dubbi?o?|profil[io]|censur[ae]|vizi?o?|sospett[oi])\s+(?:di\s+)?$", re.IGNORECASE)
# a negation just before the outcome ("non ha dichiarato", "ha escluso l'") turns it into "not X"
_NEGATION = re.compile(r"\b(?:non\s+(?:ha|hanno|aveva|è|sono|fu|venne)\b[^.;]{0,30}|(?:esclus[oa]|negat[oa]|escludendo|negando)\s+(?:l'|la\s+|il\s+|che\s+)?[^.;]{0,12})$", re.IGNORECASE)

_CONNECTOR = re.compile(r"^[\s,;()]*(?:(?:e|ed|nonché|o|oppure|nonche'|con|la|le|l'|il|i|nn?\.|nonchè|poi|anche|nella|nelle|nell')[\s,;()]*)*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!](?=\s+[A-ZÀ-Ý«\"(]|\s*$)|\n\s*\n|;")

NEGATED = "not:"
# how far from a decision citation its sentence is read for a claim: a lawyer's sentence, not a page
# (and the reading stays linear in the text whatever its punctuation)
CLAIM_BEFORE = 300
CLAIM_AFTER = 400


class ClaimedProvision(msgspec.Struct, frozen=True):
    raw: str
    act_urn: str | None  # None: the act could not be read, so the provision cannot be compared
    article: str | None


class DecisionClaim(msgspec.Struct, frozen=True):
    """What the sentence around a decision citation says of it."""

    outcomes: tuple[str, ...] = ()  # canonical keys; "not:KEY" when negated
    outcome_words: tuple[str, ...] = ()  # the text's own words, one per outcome
    provisions: tuple[ClaimedProvision, ...] = ()  # named with an outcome in the same stretch


_ALTERNATIVES = "|".join(f"(?P<{k}>{rx.pattern})" for k, rx in _OUTCOME_PATTERNS)
# on lower-cased text, a formula can only start with one of these letters: the look-ahead spares
# trying every alternative at every place (5x faster on citation-dense text)
_ONE_PASS = re.compile(f"(?=[mraecihnd])(?:{_ALTERNATIVES})")
_ONE_PASS_ANY_CASE = re.compile(_ALTERNATIVES, re.IGNORECASE)  # when lower-casing changes the length


def read_outcomes(text: str) -> list[tuple[str, int, int]]:
    """Every outcome formula in `text` (key, start, end), in order; negated ones as "not:KEY".
    One pass: at each place the most specific formula wins ("manifestamente infondata" before
    "infondata")."""
    found: list[tuple[str, int, int]] = []
    lowered = text.lower()
    matches = _ONE_PASS.finditer(lowered) if len(lowered) == len(text) else _ONE_PASS_ANY_CASE.finditer(text)
    for m in matches:
        key = m.lastgroup or ""
        before = text[max(0, m.start() - 60): m.start()]
        if key == "illegittimita" and _RAISED.search(before):
            continue
        if key != "respinta" and _NEGATION.search(before):
            key = NEGATED + key
        found.append((key, m.start(), m.end()))
    return found


def _sentences(text: str, cites: list[Citation], case_starts: list[int]) -> list[tuple[int, int]]:
    """The sentences of `text`; a dot inside a citation ('Corte cost.', 'c.c.') ends none.
    Linear in the text: citations are looked up by bisection, never scanned per boundary."""
    inside = SpanCover((c.start, c.end) for c in cites)
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() in inside:
            continue
        j = bisect.bisect_left(case_starts, m.end())
        if m.group() == ";" and j < len(case_starts) and case_starts[j] <= m.end() + 4:
            continue  # 'ord. n. 1 del 2001; n. 2 del 2001': a list, not a new sentence
        out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def _groups(text: str, cases: list[Citation]) -> list[list[Citation]]:
    """Decision citations standing together ('nn. 1 e 2 del 2001', 'ord. 4/2001 e sent. 9/2001'):
    what is said after the list is said of each."""
    groups: list[list[Citation]] = []
    for c in cases:
        if groups and _CONNECTOR.match(text[groups[-1][-1].end: c.start]):
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def read_decision_claims(text: str, cites: list[Citation]) -> dict[tuple[int, int], DecisionClaim]:
    """For each decision citation (by its span), what its sentence claims of it. An outcome read
    after a list of decisions belongs to that list, up to the next decision; one before the first
    decision of the sentence belongs to the first ('È inammissibile (Corte cost., ord. n. 5/2001)')."""
    out: dict[tuple[int, int], DecisionClaim] = {}
    cases = sorted((c for c in cites if c.kind != "statute"), key=lambda c: c.start)
    if not cases:
        return out
    case_starts = [c.start for c in cases]
    statutes = sorted((c for c in cites if c.kind == "statute" and c.article), key=lambda c: c.start)
    statute_starts = [c.start for c in statutes]
    for s_start, s_end in _sentences(text, cites, case_starts):
        lo, hi = bisect.bisect_left(case_starts, s_start), bisect.bisect_left(case_starts, s_end)
        if lo == hi:
            continue
        groups = _groups(text, cases[lo:hi])
        for i, group in enumerate(groups):
            seg_start = max(s_start, group[0].start - CLAIM_BEFORE) if i == 0 else group[0].start
            seg_end = min(groups[i + 1][0].start if i + 1 < len(groups) else s_end, group[-1].end + CLAIM_AFTER)
            near = statutes[bisect.bisect_left(statute_starts, seg_start): bisect.bisect_left(statute_starts, seg_end)]
            claim = _claim_in(text, seg_start, seg_end, group, near)
            for c in group:
                out[(c.start, c.end)] = claim
    return out


def _claim_in(text: str, start: int, end: int, group: list[Citation], statutes: list[Citation]) -> DecisionClaim:
    found = [(k, s + start, e + start) for k, s, e in read_outcomes(text[start:end])]
    found = [f for f in found if not any(c.start <= f[1] < c.end for c in group)]  # words inside the citation itself
    if not found:
        return DecisionClaim()
    provs = tuple(ClaimedProvision(raw=c.raw, article=c.article,
                                   act_urn=None if (c.act is None or c.act_unresolved or c.via_backreference) else c.act.urn or None)
                  for c in statutes)
    return DecisionClaim(outcomes=tuple(k for k, _, _ in found),
                         outcome_words=tuple(_words_of(text, s, e, start) for _, s, e in found), provisions=provs)


def _words_of(text: str, start: int, end: int, floor: int) -> str:
    """The outcome as the text words it, with up to three words before it in the same clause
    ('ha dichiarato l'illegittimità', 'non ha dichiarato la manifesta infondatezza')."""
    chunk = re.split(r"[,;:()]", text[max(floor, start - 50): start])[-1]
    lead = " ".join(chunk.split()[-3:])
    glue = " " if chunk and chunk[-1].isspace() else ""  # 'l'' sticks to the word it elides
    return (lead + glue if lead else "") + " ".join(text[start:end].split())


def outcome_fits(claimed: str, record: set[str]) -> bool | None:
    """Whether a claimed outcome agrees with the outcomes the record's dispositivo states; None
    when the record states none that this reader knows (then nothing can be said)."""
    if not record:
        return None
    if claimed.startswith(NEGATED):
        key = claimed[len(NEGATED):]
        return not (FITS.get(key, {key}) & record)
    return bool(FITS.get(claimed, {claimed}) & record)
