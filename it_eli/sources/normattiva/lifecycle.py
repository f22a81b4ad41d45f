"""What happened to each provision, as the Normattiva export itself records it.

Pure: strings in, msgspec Structs out; fed by `akn/parser.py` with an article's raw text (markers and
note numbers still in), its commi and its editorial notes, and with the act's preface note.

Sources read (every one is recorded with the capture it was seen in, DISCOVERY.md "Lifecycle"):
- repeal notices that replace a provision's words: `((ARTICOLO ABROGATO DAL D.LGS. 2 LUGLIO 2010,
  N. 104))`, `((COMMA ABROGATO …))`, `((LETTERA SOPPRESSA …))`, `((NUMERO ABROGATO …))`,
  `((PERIODO SOPPRESSO …))`, `((PROVVEDIMENTO ABROGATO DALLA L. 28 DICEMBRE 2015, N. 208))`;
- AGGIORNAMENTO notes recording a Constitutional Court declaration of unconstitutionality, of the
  whole article, of commi, lettere or numeri, or only "nella parte in cui …" (partial);
- the preface note of a decree-law: `Decreto-Legge convertito con modificazioni dalla L. 24
  dicembre 2012, n. 231 (in G.U. 03/01/2013, n. 2)` or `… decaduto per mancata conversione`;
  an article wholly inside `(( ))` in a converted decree-law was added after publication, at the
  earliest by the conversion law, whose changes take effect the day after its publication
  (art. 15, comma 5, l. 400/1988).

Why a separate module: the parser keeps the words; this reads them into the events of
`it_eli.law.provision_status`, which decides what they mean for the law in force.
"""

from __future__ import annotations

import datetime as dt
import re

from it_eli.law import codes as _codes
from it_eli.law import grammar as _latin
from it_eli.law.grammar import MONTH_NUMBER, MONTHS
from it_eli.law.provision_status import (
    PARTIAL_DECLARATION_RE,
    ActLifecycle,
    ProvisionEvent,
    Scope,
)

__all__ = ["article_events", "act_lifecycle", "clean_text", "note_numbers", "derive_commi"]


# ------------------------------------------------------------------------------------------ dates

_MONTH_RE = "|".join(MONTHS)
_WORD_DATE_RE = re.compile(rf"(\d{{1,2}})(?:°|º)?\s+({_MONTH_RE})\s+(\d{{4}})", re.IGNORECASE)
_SLASH_DATE_RE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _iso(y: int, m: int, d: int) -> str | None:
    try:
        return dt.date(y, m, d).isoformat()
    except ValueError:
        return None


def _word_date(s: str) -> str | None:
    m = _WORD_DATE_RE.search(s)
    return _iso(int(m.group(3)), MONTH_NUMBER[m.group(2).lower()], int(m.group(1))) if m else None


def _slash_date(s: str) -> str | None:
    m = _SLASH_DATE_RE.search(s)
    return _iso(int(m.group(3)), int(m.group(2)), int(m.group(1))) if m else None


def _day_after(iso: str | None) -> str | None:
    return (dt.date.fromisoformat(iso) + dt.timedelta(days=1)).isoformat() if iso else None


# ------------------------------------------------------------------------------------------ act level

_CONVERTED_RE = re.compile(
    r"convertit[oa],?\s+(?:con\s+modificazioni,?\s+|senza\s+modificazioni,?\s+)?dall[ao]\s+"
    r"(?P<law>(?:L\.|legge)\s+\d{1,2}\s+\w+\s+\d{4},?\s+n\.\s*\d+)\s*\((?P<gu>[^)]*)\)",
    re.IGNORECASE,
)
_ENTRY_RE = re.compile(r"Entrata\s+in\s+vigore\s+del\s+provvedimento:\s*(\d{1,2}/\d{1,2}/\d{4})", re.IGNORECASE)
_LAPSED_RE = re.compile(r"decadut[oa]\s+per\s+mancata\s+conversione", re.IGNORECASE)


def act_lifecycle(preface_note: str) -> ActLifecycle:
    """The preface note of an export ('Entrata in vigore del provvedimento: …', conversion, lapse)."""
    text = " ".join((preface_note or "").split())
    entry = _ENTRY_RE.search(text)
    conv = _CONVERTED_RE.search(text)
    gu = None
    if conv:
        # "(in G.U. 03/01/2013, n. 2)" or "(in S.O. n. 25, relativo alla G.U. 18/07/2020, n. 180)"
        g = re.search(r"G\.\s?U\.\s*(\d{1,2}/\d{1,2}/\d{4})", conv.group("gu"))
        gu = _slash_date(g.group(1)) if g else None
    return ActLifecycle(
        entry_into_force=_slash_date(entry.group(1)) if entry else None,
        converted_by=" ".join(conv.group("law").split()) if conv else None,
        conversion_gu_date=gu,
        conversion_effect=_day_after(gu),
        lapsed=bool(_LAPSED_RE.search(text)),
    )


# ------------------------------------------------------------------------------------------ markers

_OPEN, _CLOSE = "((", "))"
# a note reference: "(42)" or "((46))" standing alone after the words it annotates
_NOTE_REF_RE = re.compile(r"(?<![\w(])\(\(?\s*(\d{1,4}[a-z]?)\s*\)\)?(?![\w)])")
_NOTE_HEAD_RE = re.compile(r"AGGIORNAMENTO\s*\((\d{1,4}[a-z]?)\)", re.IGNORECASE)


_DASHES_RE = re.compile(r"^-{5,}\s*$", re.MULTILINE)


def split_notes(text: str) -> tuple[str, str]:
    """(law, editorial notes) of a text in which the export left its '-----' / AGGIORNAMENTO
    block inside the same paragraph as the provision."""
    m = _DASHES_RE.search(text or "")
    if not m:
        return text, ""
    return text[: m.start()].rstrip(), text[m.start():].strip()


def note_numbers(notes: str) -> set[str]:
    """The numbers of the AGGIORNAMENTO notes the export attaches to an article."""
    return {m.group(1) for m in _NOTE_HEAD_RE.finditer(notes or "")}


def _outside_spans(text: str) -> str:
    """The text outside every `(( … ))` span (nesting counted)."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(text):
        if text.startswith(_OPEN, i):
            depth += 1
            i += 2
            continue
        if text.startswith(_CLOSE, i) and depth:
            depth -= 1
            i += 2
            continue
        if depth == 0:
            out.append(text[i])
        i += 1
    return "".join(out)


def wholly_marked(text: str, notes: str = "") -> bool:
    """Every word of the text sits inside `(( ))`: the whole provision was inserted or rewritten."""
    if _OPEN not in (text or ""):
        return False
    rest = _NOTE_REF_RE.sub(" ", _outside_spans(text))
    return not re.search(r"[^\W\d_]", rest)


def clean_text(text: str, notes: str = "") -> str:
    """Served and indexed text: without `(( ))` amendment markers and without note numbers.

    Only numbers that are notes of this article (an `AGGIORNAMENTO (n)` exists) are taken out, so
    a parenthesised number that is part of the law stays; an article with no notes keeps them all
    except the `((n))` form, which is never law.
    """
    if not text or "(" not in text:
        return text  # the parser already normalised whitespace; nothing to take out
    known = note_numbers(notes) if "AGGIORNAMENTO" in (notes or "") else set()

    def _ref(m: re.Match) -> str:
        whole = m.group(0)
        if m.group(1) in known or whole.startswith(_OPEN):
            return " "
        return whole

    lines = []
    for line in text.split("\n"):
        if "(" in line or ")" in line:
            line = _NOTE_REF_RE.sub(_ref, line).replace(_OPEN, " ").replace(_CLOSE, " ")
            line = _TIDY_RE.sub(_tidy, line).strip()
            if not _HAS_WORD_RE.search(line):
                continue
        lines.append(line)
    return "\n".join(lines)


_TIDY_RE = re.compile(r"[ \t]{2,}|\s+(?=[.,;:)])|(?<=\()\s+")
_HAS_WORD_RE = re.compile(r"\w")


def _tidy(m: re.Match) -> str:
    return " " if m.group(0).startswith("  ") and not m.string[m.end():m.end() + 1] in ".,;:)" else ""


# an unnumbered code article: each line is one comma, except list items ("1)", "a)") and
# lines continuing a sentence (starting lowercase after a line without final punctuation)
_ITEM_LINE_RE = re.compile(r"^\s*(?:\d{1,3}(?:[-\s]?[a-z]+)?\s*[)°]|[a-z]{1,2}\)|-\s)", re.IGNORECASE)


def derive_commi(text: str) -> list[tuple[str, str]]:
    """(number, text) of each comma of an article whose export does not number them (the codes'
    attachments): Normattiva prints each comma as its own paragraph; list items ("1)", "a)") and
    a line that goes on a sentence left open belong to the comma before."""
    lines = [ln for ln in (text or "").split("\n") if ln.strip()]
    commi: list[str] = []
    for ln in lines:
        cont = bool(commi) and (
            _ITEM_LINE_RE.match(ln)
            or (not re.search(r"[.;:!?»\"”)]\s*$", commi[-1]) and ln[:1].islower())
        )
        if cont:
            commi[-1] += "\n" + ln
        else:
            commi.append(ln)
    return [(str(i + 1), c) for i, c in enumerate(commi)]


# ------------------------------------------------------------------------------------------ repeals

_NOTICE_RE = re.compile(
    r"(?:\(\(\s*|^[\s(]*)(?P<what>ARTICOL[OI]|COMMA|COMMI|LETTERA|LETTERE|NUMERO|NUMERI|PERIODO|PERIODI|PROVVEDIMENTO|"
    r"CAPOVERSO|PARTE)\s+(?P<verb>ABROGAT|SOPPRESS)[OIAE]\s+(?P<by>(?:DALLA|DALLO|DALLE|DALL'|DAI|DAL|DA|CON|PER\s+EFFETTO)\b[^\n]*?)"
    r"\s*(?:\)\)|\.?\s*$)",
    re.MULTILINE,
)
_SCOPE_OF = {
    "ARTICOLO": "article", "ARTICOLI": "article", "PROVVEDIMENTO": "act", "COMMA": "comma", "COMMI": "comma",
    "CAPOVERSO": "comma", "LETTERA": "lettera", "LETTERE": "lettera", "NUMERO": "numero", "NUMERI": "numero",
    "PERIODO": "periodo", "PERIODI": "periodo", "PARTE": "periodo",
}
_BY_RE = re.compile(r"^(?:DALLA|DALLO|DALLE|DALL'|DAI|DAL|DA|CON|PER\s+EFFETTO\s+(?:DEL|DELLA|DELL')?)\s*", re.IGNORECASE)
_LETTER_LINE_RE = re.compile(r"^\s*\(*\s*([a-z]{1,2}(?:-?(?:" + _latin.LATIN + r"))?)\)", re.IGNORECASE)
_NUMBER_LINE_RE = re.compile(r"^\s*\(*\s*(\d{1,3}(?:-?(?:" + _latin.LATIN + r"))?)[)°]", re.IGNORECASE)


def _repealer(raw: str) -> tuple[str, str | None]:
    by = " ".join(_BY_RE.sub("", raw.strip()).split()).rstrip(" .,")
    return by, _word_date(by)


def _repeal_events(text: str, commi: list[tuple[str, str]], whole_article: bool) -> list[ProvisionEvent]:
    out: list[ProvisionEvent] = []
    head = (text or "")[:400]
    m = _NOTICE_RE.search(head)
    if m and _SCOPE_OF[m.group("what").upper()] in ("article", "act") and not _outside_words(text, m):
        by, when = _repealer(m.group("by"))
        scope = _SCOPE_OF[m.group("what").upper()]
        return [ProvisionEvent(kind="repealed", scope=scope, by=by, by_date=when, detail=m.group(0).strip("() "))]
    if whole_article:
        return out
    for num, ctext in commi:
        for m in _NOTICE_RE.finditer(ctext):
            scope = _SCOPE_OF[m.group("what").upper()]
            by, when = _repealer(m.group("by"))
            detail = m.group(0).strip("() ")
            line_start = ctext.rfind("\n", 0, m.start()) + 1
            nxt = _NEXT_COMMA_RE.match(ctext[line_start:]) if line_start > 0 else None
            if nxt is not None and scope in ("comma", "article", "act"):
                # "12. COMMA ABROGATO …" left inside comma 11 by the export: it is comma 12's notice
                label = re.match(r"\(*\s*(\d+(?:\s*-?\s*[a-z]+)?(?:\.\d+)?)", ctext[line_start:], re.IGNORECASE)
                out.append(ProvisionEvent(kind="repealed", scope="comma", comma=_norm_comma(label.group(1)), by=by,
                                          by_date=when, detail=detail))
                continue
            if scope in ("comma", "article", "act"):
                # the notice stands for the whole comma only when nothing else of it is left (lines
                # opening with their own number, "2-bis). …", are a next comma the export left inside)
                own = _own_lines(ctext, m)
                if _outside_words(own, _NOTICE_RE.search(own) or m):
                    scope_e: Scope = "periodo"
                    out.append(ProvisionEvent(kind="repealed", scope=scope_e, comma=num, by=by, by_date=when,
                                              detail=detail, partial=True))
                else:
                    out.append(ProvisionEvent(kind="repealed", scope="comma", comma=num, by=by, by_date=when,
                                              detail=detail))
            else:
                line = ctext[: m.start()].rsplit("\n", 1)[-1] + m.group(0)
                lm = (_LETTER_LINE_RE if scope == "lettera" else _NUMBER_LINE_RE).match(line)
                item = lm.group(1).lower() if lm and scope in ("lettera", "numero") else None
                out.append(ProvisionEvent(kind="repealed", scope=scope, comma=num, item=item, by=by, by_date=when,
                                          detail=detail, partial=scope == "periodo"))
    return out


_NEXT_COMMA_RE = re.compile(r"^\(*\s*\d+(?:\s*-?\s*(?:" + _latin.LATIN + r"))?(?:\.\d+)?\s*\)?\s*[.)](?!\d)", re.IGNORECASE)


def _own_lines(ctext: str, m: re.Match) -> str:
    """The comma's text up to the first later line that opens with a comma number of its own."""
    start = ctext.rfind("\n", 0, m.start()) + 1
    end = ctext.find("\n", m.end())
    if end < 0:
        return ctext
    lines = ctext[end + 1:].split("\n")
    keep = []
    for ln in lines:
        if _NEXT_COMMA_RE.match(ln):
            break
        keep.append(ln)
    return "\n".join([ctext[:end]] + keep) if start >= 0 else ctext


def _outside_words(text: str, m: re.Match) -> bool:
    """Words of the law left beside a repeal notice (so it repealed only part of the text)."""
    rest = text[: m.start()] + " " + text[m.end():]
    rest = _NOTE_REF_RE.sub(" ", rest)
    rest = re.sub(r"^\s*\(*\s*\d+(?:[-\s]?[a-z]+)?(?:\.\d+)?\s*[.)]", " ", rest)  # the comma's own number
    return bool(re.search(r"[^\W\d_]{3,}", rest))


# ------------------------------------------------------------------------------------------ Court

_ORDINALS = {
    "primo": 1, "secondo": 2, "terzo": 3, "quarto": 4, "quinto": 5, "sesto": 6, "settimo": 7, "ottavo": 8,
    "nono": 9, "decimo": 10, "undicesimo": 11, "dodicesimo": 12, "tredicesimo": 13, "quattordicesimo": 14,
    "quindicesimo": 15, "sedicesimo": 16,
    # cardinals written out ("del comma quattro del presente articolo", c.p. 222)
    "uno": 1, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8, "nove": 9,
    "dieci": 10,
}
_ORD_RE = "|".join(sorted(_ORDINALS, key=len, reverse=True)) + "|ultimo"
_COMMA_NUM = r"\d+(?:\s*-?\s*(?:" + _latin.LATIN + r"))?(?:\.\d+)?"
_DECL_RE = re.compile(r"illegittimita'?\s*(?:\"\s*)?(?:costituzionale)?", re.IGNORECASE)
_COURT_RE = re.compile(r"Corte\s+[Cc]ostituzionale", re.IGNORECASE)
_DECISION_RE = re.compile(
    r"(?P<kind>sentenza|ordinanza)\s+(?P<dates>[^()]{0,60}?\d{4})\s*,?\s*n\.\s*(?P<n>\d+)(?P<after>[^()]{0,20}\((?P<gu>[^)]*)\))?",
    re.IGNORECASE,
)
_ART_REF_RE = re.compile(
    r"\b(?:art(?:t)?\.|articol[oi])\s*(?P<nums>" + _COMMA_NUM + r"(?:\s*(?:,|e|ed)\s*(?!comm)" + _COMMA_NUM + r")*)",
    re.IGNORECASE,
)
_SELF_RE = re.compile(r"\b(?:presente|questo|detto|medesimo|stesso)\s+(?:art(?:icolo|\.)|decreto|codice)", re.IGNORECASE)
_ACT_NUM_RE = re.compile(r"\b(?:\d{4}|\d{1,2}\s+(?:" + _MONTH_RE + r")\s+\d{4})\s*,?\s*n\.\s*(?P<n>\d+)", re.IGNORECASE)
_CODE_NAME_RE = re.compile(
    r"\b(?:codice\s+(?:di\s+procedura\s+(?:penale|civile)|penale|civile|della\s+strada|dell'amministrazione\s+digitale)"
    r"|c\.\s?p\.\s?p\.|c\.\s?p\.\s?c\.|c\.\s?p\.|c\.\s?c\.|cod\.\s*(?:proc\.\s*)?(?:pen|civ)\.)",
    re.IGNORECASE,
)
_COMMA_REFS_RE = re.compile(
    rf"\b(?:comm[ai]\s+(?P<nums>{_COMMA_NUM}(?:\s*(?:,|e|ed)\s*{_COMMA_NUM})*)"
    rf"|comm[ai]\s+(?P<ords_after>(?:{_ORD_RE})(?:\s*(?:,|e|ed)\s*(?:{_ORD_RE}))*)"
    rf"|(?P<ords_before>(?:{_ORD_RE})(?:\s*(?:,|e|ed)\s*(?:del\s+|dell')?(?:{_ORD_RE}))*)\s+comm[ai])\b",
    re.IGNORECASE,
)
_ITEM_REF_RE = re.compile(
    r"\b(?:(?P<let>lettera|lett\.)\s*(?P<l>[a-z]{1,2})\)|(?P<numw>numero|n\.)\s*(?P<nn>\d{1,3})\)?(?!\s*\d)|"
    r"(?P<per>(?:primo|secondo|terzo|quarto|quinto|ultimo)\s+periodo))",
    re.IGNORECASE,
)


def _ord_value(word: str) -> str:
    w = word.lower()
    return "ultimo" if w == "ultimo" else str(_ORDINALS[w])


def _comma_nums(span: str) -> list[str]:
    out: list[str] = []
    for m in _COMMA_REFS_RE.finditer(span):
        if m.group("nums"):
            for n in re.split(r"\s*(?:,|\be\b|\bed\b)\s*", m.group("nums")):
                n = re.sub(r"\s*-?\s*", "", n, count=0) if n else n
                if n:
                    out.append(_norm_comma(n))
        else:
            words = m.group("ords_after") or m.group("ords_before")
            for w in re.findall(_ORD_RE, words, re.IGNORECASE):
                out.append(_ord_value(w))
    seen: list[str] = []
    for n in out:
        if n not in seen:
            seen.append(n)
    return seen


def _norm_comma(s: str) -> str:
    m = re.match(r"(\d+)\s*-?\s*([a-z]+)?(\.\d+)?", s.strip(), re.IGNORECASE)
    if not m:
        return s
    out = m.group(1)
    if m.group(2):
        out += "-" + _latin.canonical_suffix(m.group(2))
    return out + (m.group(3) or "")


def _decision(block: str) -> tuple[str, str | None, str | None]:
    """(citation, decision date, date of effect) of the Court's decision a note reports."""
    m = _DECISION_RE.search(block)
    if not m:
        return "Corte costituzionale (decision not identified in the note)", None, None
    kind = m.group("kind").lower()
    dates = m.group("dates")
    # "16 - 19 dicembre 1968", "26 marzo - 6 aprile 1998", "11 dicembre 2024 - 23 gennaio 2025": the
    # deposit (the decision's date of record) is the last one written
    year = re.findall(r"\d{4}", dates)[-1]
    parts = [p for p in re.split(r"\s*[-–]\s*", dates) if p.strip()]
    last = parts[-1] if parts else dates
    dm = re.search(rf"(\d{{1,2}})\s+({_MONTH_RE})", last, re.IGNORECASE)
    when = _iso(int(year), MONTH_NUMBER[dm.group(2).lower()], int(dm.group(1))) if dm else None
    gu = None
    if m.group("gu"):
        gu = _slash_date(m.group("gu"))
    if gu is None:
        g = re.search(r"G\.\s?U\.[^)]{0,30}?(\d{1,2}/\d{1,2}/\d{4})", block)
        gu = _slash_date(g.group(1)) if g else None
    label = f"Corte costituzionale, {kind} " + (f"{int(dm.group(1))} {dm.group(2).lower()} {year}" if dm else year)
    label += f", n. {m.group('n')}"
    if gu:
        label += f" (G.U. {gu})"
    # art. 136 Cost.: the provision ceases to have effect the day after the decision's publication
    return label, when, _day_after(gu)


def _act_mentioned(span: str) -> tuple[str, str | None] | None:
    """The act an article reference belongs to, when the span names one: ('number', n) or
    ('code', number) or ('self', None)."""
    cands = []
    m = _ACT_NUM_RE.search(span)
    if m:
        cands.append((m.start(), ("number", m.group("n"))))
    c = _CODE_NAME_RE.search(span)
    if c:
        code = _codes.lookup_code(c.group(0))
        if code is None:
            name = c.group(0).lower()
            code = next((k for k in _codes.CODES if k.name.lower() in name or name in k.name.lower()), None)
        cands.append((c.start(), ("code", code.number if code else None)))
    s = _SELF_RE.search(span)
    if s:
        cands.append((s.start(), ("self", None)))
    if not cands:
        return None
    return min(cands, key=lambda x: x[0])[1]


def _targets(head: str, key: str, act_number: str | None) -> list[str] | None:
    """The spans of `head` (the declaration before its 'nella parte in cui') that concern this
    article: None when the declaration is about other provisions only."""
    refs = list(_ART_REF_RE.finditer(head))
    spans: list[str] = []
    mine = act_number.lstrip("0") if act_number else None
    base_key = key.split("~", 1)[0]
    for i, r in enumerate(refs):
        nums = [_norm_comma(x) for x in re.split(r"\s*(?:,|\be\b|\bed\b)\s*", r.group("nums")) if x]
        if base_key not in nums:
            continue
        end = refs[i + 1].start() if i + 1 < len(refs) else len(head)
        span = head[r.start():end]
        act = _act_mentioned(span[len(r.group(0)):])
        if act is not None and act[0] in ("number", "code") and act[1] is not None and mine is not None \
                and act[1].lstrip("0") != mine:
            continue
        # commi written before the reference ("del secondo comma dell'art. 28")
        before = head[refs[i - 1].end() if i else 0 : r.start()]
        spans.append(before + " " + span)
    if _SELF_RE.search(head) and re.search(r"presente\s+articolo|questo\s+articolo", head, re.IGNORECASE):
        # "del primo e del secondo comma del presente articolo", "del presente articolo, terzo comma"
        cut = head
        for r in refs:
            cut = cut.replace(r.group(0), " ")
        spans.append(cut)
    return spans or None


_RETRACTED_RE = re.compile(r"\bnon\s+(?:prevede|contiene|dichiara|reca)\b[^.;]{0,20}$|\bnon\s+(?:piu'\s+)?(?:l'|la\s+)?$",
                           re.IGNORECASE)


def _split_declarations(block: str) -> list[str]:
    """One piece per declaration; a declaration the note says is no more (an errata corrige:
    "non prevede piu' l'illegittimita' …") is left out."""
    starts = [m.start() for m in _DECL_RE.finditer(block)
              if not _RETRACTED_RE.search(block[max(0, m.start() - 40):m.start()])]
    return [block[s : (starts[i + 1] if i + 1 < len(starts) else len(block))] for i, s in enumerate(starts)]


def _court_events(notes: str, key: str, act_number: str | None) -> list[ProvisionEvent]:
    out: list[ProvisionEvent] = []
    blocks = re.split(r"\n?-{5,}\n?", notes or "")
    for block in blocks:
        flat = " ".join(block.split())
        if not _COURT_RE.search(flat) or not _DECL_RE.search(flat):
            continue
        # a declaration that a REPEAL or AMENDMENT was unconstitutional revives the words: not a
        # strike-down of this article ("… dell'art. 299 del d.lgs. 313/2002 nella parte in cui abroga l'art. 660")
        num = _NOTE_HEAD_RE.search(flat)
        citation, when, since = _decision(flat)
        for decl in _split_declarations(flat):
            pm = PARTIAL_DECLARATION_RE.search(decl)
            head = decl[: pm.start()] if pm else decl
            spans = _targets(head, key, act_number)
            if spans is None:
                continue
            partial = pm is not None
            detail = decl.strip(" -;:\"")[:600]
            commi: list[str] = []
            items: list[tuple[str, str]] = []
            for sp in spans:
                for n in _comma_nums(sp):
                    if n not in commi:
                        commi.append(n)
                for im in _ITEM_REF_RE.finditer(sp):
                    if im.group("l"):
                        items.append(("lettera", im.group("l").lower()))
                    elif im.group("nn") and not re.search(r"\d{4}\s*,?\s*$", sp[: im.start()]):
                        items.append(("numero", im.group("nn")))
                    elif im.group("per"):
                        items.append(("periodo", im.group("per").split()[0].lower()))
            common = dict(kind="unconstitutional", by=citation, by_date=when, since=since, detail=detail,
                          note=num.group(1) if num else None)
            if not commi and not items and re.search(r"\b(?:comm[ai]|lett(?:era|ere|\.)|numer[oi]|period[oi]|"
                                                     r"capovers[oi]|parol[ae])\b", " ".join(spans), re.IGNORECASE):
                # a part is named but could not be read: never widen it to the whole article
                out.append(ProvisionEvent(scope="article", partial=True, **common))
                continue
            if not commi:
                if items:
                    for scope, item in items:
                        out.append(ProvisionEvent(scope=scope, item=item, partial=partial or scope == 'periodo', **common))
                else:
                    out.append(ProvisionEvent(scope="article", partial=partial, **common))
                continue
            for n in commi:
                if items:
                    for scope, item in items:
                        out.append(ProvisionEvent(scope=scope, comma=n, item=item, partial=partial or scope == 'periodo', **common))
                else:
                    out.append(ProvisionEvent(scope="comma", comma=n, partial=partial, **common))
    return out


# ------------------------------------------------------------------------------------------ entry point


def article_events(
    key: str,
    text: str,
    commi: list[tuple[str, str]],
    notes: str,
    *,
    act_number: str | None = None,
    act: ActLifecycle | None = None,
    act_type: str | None = None,
    original_export: bool = False,
    heading_marked: bool = False,
) -> list[ProvisionEvent]:
    """Everything the export records about one article (raw text: markers and note numbers in)."""
    events = _repeal_events(text, commi, whole_article=False)
    if not any(e.scope in ("article", "act") for e in events):
        pass
    events += _court_events(notes, key, act_number)
    if act is not None and act.lapsed:
        events.insert(0, ProvisionEvent(
            kind="lapsed", scope="act", by="mancata conversione (art. 77 Cost.)", since=act.entry_into_force,
            detail="decree-law not converted into law: without effect from the start (decaduto per mancata conversione)"))
    if act is not None and act.converted_by and act_type == "decreto.legge" and wholly_marked(text, notes) \
            and not any(e.kind == "repealed" and e.scope in ("article", "act") for e in events):
        certain = original_export and heading_marked
        events.append(ProvisionEvent(
            kind="inserted_after_publication", scope="article", by=act.converted_by,
            since=act.conversion_effect,
            detail=("added by the conversion law" if certain else
                    "not in the decree as published: added at the earliest by the conversion law")
            + (f" {act.converted_by}, whose changes take effect from {act.conversion_effect}"
               if act.conversion_effect else f" {act.converted_by}"),
        ))
    return events


# ------------------------------------------------------------------------------------------ readers


