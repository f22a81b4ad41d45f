"""Normattiva OpenData API: one article by URN, at a date, with the API's traps handled.

Why a separate path from the portal: one article costs ~1.3 KB here against megabytes of AKN
export. The API has sharp edges (API_FACTS.md in the shared data, summarised with evidence in
DISCOVERY.md (Normattiva)): codes answer only from their annex (`262:2`), `~art1` may come
back as the decree's preamble, some URNs answer a two-item `lista` (original publication +
republication with notes), 400/1003 and 404 mean "does not exist", 500/1000 means "service down,
says nothing about the norm", 409 is a WAF. `interpret_answer` is pure (status, content type,
body -> ApiArticle or typed error); `fetch_article` does the one POST.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import lxml.html
import msgspec

from it_eli.runtime.config import Settings
from it_eli.runtime.errors import (
    IdentityMismatch,
    InvalidArg,
    NotAvailable,
    NotFound,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.sources.http import HttpClient
from it_eli.runtime import clock as _clock
from it_eli.law import codes as _codes
from it_eli.law.urn import Urn, article_key, citation_for, parse_iso_date, parse_reference, portal_url

ARTICLE_PATH = "/atto/dettaglio-atto-urn"
ACT_TYPES_PATH = "/tipologiche/denominazione-atto"

# tipoProvvedimentoCodice -> canonical urn:nir type (tipologiche_denominazione_atto.json)
API_TYPE_CODES: dict[str, str] = {
    "PLE": "legge",
    "PLC": "legge.costituzionale",
    "PLL": "decreto.legislativo",
    "PDL": "decreto.legge",
    "PPR": "decreto.del.presidente.della.repubblica",
    "PRD": "regio.decreto",
    "PRL": "regio.decreto.legge",
    "PLG": "decreto.legislativo.luogotenenziale",
    "PCM_DPC": "decreto.del.presidente.del.consiglio.dei.ministri",
    "PDM": "decreto.ministeriale",
    "COS": "costituzione",
}


class ApiArticle(msgspec.Struct, kw_only=True):
    """One article as the OpenData API gives it, text made plain and verbatim."""

    urn: str  # the URN sent (API form: annex, ~art, !vig)
    article_key: str | None
    heading: str | None
    text: str  # whitespace-normalised, accents as served; editorial notes and preamble removed
    in_force_from: str | None  # ISO; None when the API says "0" (unknown / not yet in force)
    in_force_to: str | None  # ISO; None when open-ended ("99999999")
    act_title: str  # 'LEGGE 7 agosto 1990, n. 241'
    act_subtitle: str  # sottoTitolo, whitespace-normalised (apostrophe accents kept)
    act_type: str | None  # canonical urn:nir type
    act_type_code: str | None  # 'PLE'
    number: str | None
    date: str | None  # ISO act date
    gu_date: str | None
    gu_number: int | None
    supplement: int | None
    at_date: str | None = None  # the !vig= asked for
    citation: str = ""
    source_url: str = ""  # portal page, for attribution (CC BY 4.0, IPZS)
    html: str | None = None
    preamble: str | None = None  # preamble text the API put before/inside the article
    editorial_notes: list[str] = []  # AGGIORNAMENTO / note blocks
    repealed: bool = False
    not_yet_in_force: bool = False
    future_version: bool = False  # in_force_from after today: not today's text
    possibly_truncated: bool = False  # the interactive path stops at 100 commi
    candidates: int = 1  # 2 when the API answered the `lista` form
    notes: list[str] = []


# ---------------------------------------------------------------- pure helpers

def _api_date(raw: Any) -> str | None:
    s = str(raw or "").strip()
    if not re.fullmatch(r"\d{8}", s) or s in ("00000000", "99999999"):
        return None
    try:
        return _dt.date(int(s[:4]), int(s[4:6]), int(s[6:])).isoformat()
    except ValueError:
        return None


def _ymd(y: Any, m: Any, d: Any) -> str | None:
    try:
        return _dt.date(int(y), int(m), int(d)).isoformat()
    except (TypeError, ValueError):
        return None


def _ws_keep(s: str) -> str:
    """Collapse whitespace runs (newlines included) to one space, keeping edge spaces."""
    return re.sub(r"\s+", " ", s)


def _ws(s: str) -> str:
    return re.sub(r"\s+", " ", s or "").strip()


_BLOCK_TAGS = {"div", "p", "h1", "h2", "h3", "h4", "li", "ul", "ol", "table", "tr", "blockquote", "citation", "citations"}
_PREAMBLE_CLASSES = (
    "preamble-before-title-akn", "preamble-title-akn", "preamble-end-akn", "formula-introduttiva",
    "preamble-citations-akn", "preamble-text-akn", "preamble-citation-akn",
)
_NOTE_CLASSES = ("art_aggiornamento-akn", "note-akn")


def _classes(el: Any) -> set[str]:
    return set((el.get("class") or "").split())


def _lines_of(el: Any) -> list[str]:
    """Plain text of an element: <br> and blocks break lines, inline stays inline."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        block = tag in _BLOCK_TAGS and "ins-akn" not in _classes(node)
        if tag == "br":
            parts.append("\n")
        elif block:
            parts.append("\n")
        # Source newlines are layout, not text: only <br> and blocks break lines.
        if tag and tag != "br" and node.text:
            parts.append(_ws_keep(node.text))
        for child in node:
            walk(child)
            if child.tail:
                parts.append(_ws_keep(child.tail))
        if block:
            parts.append("\n")

    walk(el)
    return [line for line in (_ws(x) for x in "".join(parts).split("\n")) if line]


_ART_LINE = re.compile(r"^(?:Art\.|Articolo)\s*(\d+(?:[\s\-]*[a-z]+)?(?:\.\d+)?)\s*\.?\s*$", re.I)
_FORMULA = re.compile(
    r"^(?:EMANA|PROMULGA|Emana|Promulga)\b|\bil seguente (?:decreto|regolamento)\b|\bla seguente legge\b", re.I
)
_PREAMBLE_START = re.compile(r"^(?:IL PRESIDENTE DELLA REPUBBLICA|La Camera dei deputati|Avvertenza|VITTORIO EMANUELE)", re.I)


def _heading_after(lines: list[str], i: int) -> tuple[str | None, int]:
    """A rubrica on the line after 'Art. N.': '(Capacita' giuridica).' or a short plain title."""
    if i >= len(lines) - 1:
        return None, i
    cand = lines[i]
    m = re.fullmatch(r"\((.*)\)\.?", cand)
    if m:
        return m.group(1).strip(), i + 1
    if len(cand) <= 160 and not re.match(r"^\d+\.?\s", cand) and not cand.startswith("((") and "NON ANCORA" not in cand:
        return cand.rstrip(".").strip(), i + 1
    return None, i


def parse_article_html(html: str) -> dict[str, Any]:
    """articoloHtml -> num, heading, text, preamble, notes, comma labels. Pure, no network.

    lxml.html with a parser that never fetches anything; entities (&agrave;) decoded.
    """
    parser = lxml.html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True)
    root = lxml.html.fromstring(f"<div>{html}</div>", parser=parser)
    preamble_lines, notes = _drop_editorial(root)
    num, heading = _take_num_heading(root)
    labels = [_ws(x.text_content()).rstrip(".") for x in root.iter() if isinstance(x.tag, str) and "comma-num-akn" in _classes(x)]
    lines = _lines_of(root)
    # Preamble inside the article block (D.Lgs. 36/2023 art. 1, lista item 1 and 2).
    if lines and _PREAMBLE_START.match(lines[0]):
        for i, line in enumerate(lines[:400]):
            if _FORMULA.search(line):
                preamble_lines.extend(lines[: i + 1])
                lines = lines[i + 1 :]
                break
    num, heading, lines = _take_code_header(lines, num, heading)
    nm = re.match(r"^Codice \w+-art\.\s*(.+)$", lines[0]) if lines else None
    if nm and num is None:  # 'Codice Penale-art. 416 bis' / 'NON ANCORA ESISTENTE O VIGENTE'
        num, lines = nm.group(1), lines[1:]
    return {
        "num": num,
        "heading": heading or None,
        "text": "\n".join(lines),
        "preamble": "\n".join(preamble_lines) or None,
        "notes": notes,
        "labels": labels,
        # a code's articles come in its annex's block (reale-atto-cc-*, urn_articolo_allegato);
        # the approving decree's own articles come as `article-num-akn` (legalize sample-code)
        "in_annex": "attachment-just-text" in html,
    }


def _drop_editorial(root: Any) -> tuple[list[str], list[str]]:
    """Take the editorial notes and the preamble blocks out of the tree: (preamble lines, notes)."""
    preamble_lines: list[str] = []
    notes: list[str] = []
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        cls = _classes(el)
        if cls & set(_NOTE_CLASSES):
            text = "\n".join(_lines_of(el))
            if text:
                notes.append(text)
            el.drop_tree()
        elif cls & set(_PREAMBLE_CLASSES):
            preamble_lines.extend(_lines_of(el))
            el.drop_tree()
    return preamble_lines, notes


def _take_num_heading(root: Any) -> tuple[str | None, str | None]:
    """The article's marked number and rubrica, taken out of the tree."""
    num = heading = None
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        cls = _classes(el)
        if "article-num-akn" in cls and num is None:
            m = _ART_LINE.match(_ws(el.text_content()))
            num = m.group(1) if m else _ws(el.text_content())
            el.set("data-consumed", "1")
        elif "article-heading-akn" in cls and heading is None:
            heading = _ws(el.text_content()).strip()
            if heading.startswith("(") and heading.endswith(")"):
                heading = heading[1:-1].strip()
            el.set("data-consumed", "1")
    for el in list(root.iter()):
        if isinstance(el.tag, str) and el.get("data-consumed"):
            el.drop_tree()
    return num, heading


def _take_code_header(
    lines: list[str], num: str | None, heading: str | None,
) -> tuple[str | None, str | None, list[str]]:
    """Code articles (attachment-just-text): 'CODICE CIVILE' / 'Art. 2043.' / '(rubrica).' / text."""
    for i, line in enumerate(lines[:6]):
        m = _ART_LINE.match(line)
        if m:
            if num is None:
                num = m.group(1)
            rest = lines[i + 1 :]
            if heading is None:
                heading, j = _heading_after(lines, i + 1)
                rest = lines[j:]
            lines = rest
            break
    return num, heading, lines


def _truncated(labels: list[str]) -> bool:
    """The API stops at comma 100 silently: last numeric label a multiple of 100 (API_FACTS §9.3)."""
    for lab in reversed(labels):
        if lab.isdigit():
            n = int(lab)
            return n >= 100 and n % 100 == 0
    return False


def _is_republication(item: dict[str, Any]) -> bool:
    return str(item.get("articoloDataInizioVigenza")) == "0" or _ws(item.get("sottoTitolo") or "").lower().startswith(
        "ripubblicazione"
    )


def choose_item(data: dict[str, Any]) -> tuple[dict[str, Any], int, list[str]]:
    """`data.atto`, or from `data.lista` the original publication (never the republication).

    Decision (documented in notes): the republication-with-notes copy has start date "0" and a
    sottoTitolo beginning 'Ripubblicazione'; exactly one other item must remain, else the
    answer is reported as ambiguous (NotAvailable) with the candidates, never guessed.
    """
    atto = data.get("atto")
    if isinstance(atto, dict):
        return atto, 1, []
    lista = data.get("lista")
    if not isinstance(lista, list) or not lista or not all(isinstance(x, dict) for x in lista):
        raise UpstreamChanged("OpenData API answer without data.atto or data.lista")
    if len(lista) == 1:
        return lista[0], 1, []
    originals = [x for x in lista if not _is_republication(x)]
    if len(originals) == 1:
        chosen = originals[0]
        others = [x for x in lista if x is not chosen]
        note = (
            f"the API answered {len(lista)} publications of this act; used the original publication "
            f"(GU n. {chosen.get('numeroGU')} of {_ymd(chosen.get('annoGU'), chosen.get('meseGU'), chosen.get('giornoGU'))}), "
            "not the republication with notes ("
            + ", ".join(
                f"GU n. {o.get('numeroGU')} of {_ymd(o.get('annoGU'), o.get('meseGU'), o.get('giornoGU'))}" for o in others
            )
            + ")"
        )
        return chosen, len(lista), [note]
    raise NotAvailable(
        f"ambiguous URN: the API answered {len(lista)} publications and none is clearly the original",
        candidates=[
            {"title": x.get("titolo"), "gu_number": x.get("numeroGU"), "supplement": x.get("numeroSupplemento"),
             "gu_date": _ymd(x.get("annoGU"), x.get("meseGU"), x.get("giornoGU"))}
            for x in lista
        ],
    )


_APPROVING_DECREE = re.compile(r"^Approvazione del (?:testo )?(?:definitivo )?(?:del )?Codice\b", re.I)


def _check_annex(requested: Urn, item: dict[str, Any], in_annex: bool, notes: list[str]) -> None:
    """A code's article is asked in its annex; the act's own article is its approving decree's.

    R.D. 262/1942 asked without its annex answers art. 1 of the decree that approves the Codice
    civile (legalize sample-code.json), with the same title, number and date as the code's
    articles: only the block it comes in tells them apart.
    """
    if requested.annex is not None and not in_annex:
        raise IdentityMismatch(
            f"asked art. {requested.article} of annex {requested.annex} of {item.get('titolo')!r}; the OpenData API "
            "answered an article of the act's own body (the approving decree), not of the annex",
            requested=str(requested), returned=item.get("titolo"), differences=["annex article expected, body article returned"],
        )
    if requested.annex is None and not in_annex and _APPROVING_DECREE.match(_ws(item.get("sottoTitolo") or "")):
        hint = ""
        if requested.number and requested.year:
            code = _codes.lookup_act(requested.act_type, requested.year, requested.number)
            if code is not None and code.api_urn != code.urn:
                hint = f" ({code.api_urn}~art{requested.article})"
        notes.append(
            f"this is art. {requested.article} of the decree that approves the code ({_ws(item.get('sottoTitolo') or '')}), "
            f"not of the code: the code's articles are in its annex{hint or ' (:1 or :2 after the number)'}"
        )


def _check_api_identity(requested: Urn, item: dict[str, Any], parsed_num: str | None) -> None:
    """The API does not echo the URN: compare type, number, date and article with what was asked."""
    problems = []
    got_type = API_TYPE_CODES.get(str(item.get("tipoProvvedimentoCodice") or ""))
    if got_type and got_type != requested.act_type:
        problems.append(f"act type {got_type} != {requested.act_type}")
    if requested.act_type != "costituzione":
        if str(item.get("numeroProvvedimento")) != str(requested.number):
            problems.append(f"number {item.get('numeroProvvedimento')} != {requested.number}")
        got_date = _ymd(item.get("annoProvvedimento"), item.get("meseProvvedimento"), item.get("giornoProvvedimento"))
        if requested.date and got_date and got_date != requested.date:
            problems.append(f"date {got_date} != {requested.date}")
    if requested.article and parsed_num:
        try:
            if article_key(parsed_num) != requested.article:
                problems.append(f"article {parsed_num} != {requested.article}")
        except InvalidArg:
            pass
    if problems:
        raise IdentityMismatch(
            f"the OpenData API returned {item.get('titolo')!r} (art. {parsed_num}) for {requested}",
            requested=str(requested), returned=item.get("titolo"), differences=problems,
        )


def _error_body(body: bytes) -> dict[str, Any]:
    try:
        out = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep
        return {}
    return out if isinstance(out, dict) else {}


def interpret_answer(
    status: int, content_type: str, body: bytes, requested: Urn, *, include_html: bool = False,
    portal_base: str = "https://www.normattiva.it", today: _dt.date | None = None,
) -> ApiArticle:
    """Turn one dettaglio-atto-urn answer into an ApiArticle or the right typed error. Pure."""
    sent = str(requested)
    _raise_for_status(status, body, requested, sent)
    item, n_items, notes, html = _answer_item(body, sent)
    parsed = parse_article_html(html)
    _check_api_identity(requested, item, parsed["num"])
    _check_annex(requested, item, parsed["in_annex"], notes)
    text = parsed["text"]
    frm = _api_date(item.get("articoloDataInizioVigenza"))
    to = _api_date(item.get("articoloDataFineVigenza"))
    today = today or _clock.today()
    not_yet = "NON ANCORA ESISTENTE O VIGENTE" in text.upper()
    repealed = bool(re.search(r"\bABROGAT[OA]\b", text[:300])) and len(text) < 400
    if parsed["preamble"] and requested.article == "1":
        notes.append("the API put the act's preamble with art. 1; it is returned apart in `preamble`")
    possibly_truncated = _truncated(parsed["labels"])
    if possibly_truncated:
        notes.append("the API returns at most 100 commi: this article may be cut; use the AKN export for the full text")
    if requested.vigenza and frm and frm > requested.vigenza and not not_yet:
        # asked for a date, answered a version that starts after it (the `lista` form's first item
        # may start in the future: L. 234/2021 from 2027-01-01, legalize sample-with-tables.json)
        raise NotAvailable(
            f"the OpenData API answered the version in force from {frm} when asked for the text in force on "
            f"{requested.vigenza}: that is not the text of that date",
            urn=sent, in_force_from=frm, at_date=requested.vigenza,
            valid="the portal's export of the whole act at that date (it_get_text without article, or it_get_act)",
        )
    future = bool(frm and frm > today.isoformat())
    if future:
        notes.append(f"this version starts on {frm}, after today: ask with !vig=<date> for the text in force now")
    if repealed:
        notes.append("repealed: ask with !vig= set to the day before the repeal for the last text")
    num = parsed["num"]
    key = _answer_key(num, requested)
    act_type = API_TYPE_CODES.get(str(item.get("tipoProvvedimentoCodice") or ""))
    number = str(item.get("numeroProvvedimento")) if item.get("numeroProvvedimento") else None
    date = _ymd(item.get("annoProvvedimento"), item.get("meseProvvedimento"), item.get("giornoProvvedimento"))
    page_urn = msgspec.structs.replace(requested, annex=None, version=None, vigenza=None)
    return ApiArticle(
        urn=sent, article_key=key, heading=parsed["heading"], text=text, in_force_from=frm, in_force_to=to,
        act_title=_ws(item.get("titolo") or ""), act_subtitle=_ws(item.get("sottoTitolo") or ""),
        act_type=act_type, act_type_code=item.get("tipoProvvedimentoCodice"), number=number, date=date,
        gu_date=_ymd(item.get("annoGU"), item.get("meseGU"), item.get("giornoGU")),
        gu_number=item.get("numeroGU"), supplement=item.get("numeroSupplemento"), at_date=requested.vigenza,
        citation=citation_for(requested), source_url=portal_url(page_urn, portal_base),
        html=html if include_html else None, preamble=parsed["preamble"] if _has_words(parsed["preamble"]) else None,
        editorial_notes=parsed["notes"], repealed=repealed, not_yet_in_force=not_yet, future_version=future,
        possibly_truncated=possibly_truncated, candidates=n_items, notes=notes,
    )


def _raise_for_status(status: int, body: bytes, requested: Urn, sent: str) -> None:
    """The typed error of an answer that is not a 200: WAF, outage, unknown act or article."""
    if status == 409:
        raise UpstreamUnavailable(
            "the Normattiva OpenData API's firewall (WAF) blocked the request (HTTP 409); not retried",
            status=409, note="IPZS WAF answer; it rejects the request form, not the norm", urn=sent,
            valid="retry later; the portal's export of the whole act is another route (it_get_act / it_get_text without article)",
        )
    err = _error_body(body) if status != 200 else {}
    code = str(err.get("code")) if err.get("code") is not None else None
    message = str(err.get("message") or "")
    if status == 500:
        raise UpstreamUnavailable(
            "the Normattiva OpenData API is not answering (HTTP 500"
            + (f", code {code}" if code else "") + "); this says nothing about the norm",
            status=500, upstream_code=code, urn=sent, valid="retry in a few minutes (the service's outages have lasted ~10 min)",
        )
    if status == 400:
        if code == "1003":
            raise NotFound(
                "the OpenData API rejects this URN: the act does not exist (or the URN form is not accepted)",
                urn=sent, upstream_code=code, upstream_message=message[:300],
            )
        raise UpstreamUnavailable(f"the OpenData API answered 400 (code {code})", status=400, urn=sent,
                                  upstream_message=message[:300], valid="retry later (the service sometimes answers 400 then 200)")
    if status == 404:
        if "No matching resource" in (err.get("description") or "") or err.get("type") == "Status report":
            raise UpstreamChanged("the OpenData API endpoint path is not recognised (gateway 404)", urn=sent)
        if message.startswith("dataPubblicazioneGazzetta") or "codiceRedazionale" in message:
            hint = None
            if requested.annex is None and requested.number and requested.year:
                c = _codes.lookup_act(requested.act_type, requested.year, requested.number)
                if c is not None and c.api_urn != c.urn:
                    hint = f"this code's articles are in an annex: {c.api_urn}"
            raise NotFound(
                "the act exists but this article (or annex) does not", urn=sent, coordinates=message[:300], hint=hint,
                valid=hint,
            )
        raise NotFound("the OpenData API says this act does not exist", urn=sent, upstream_message=message[:300])
    if status != 200:
        raise UpstreamUnavailable(f"the OpenData API answered HTTP {status}", status=status, urn=sent, valid="retry later")


def _answer_item(body: bytes, sent: str) -> tuple[dict[str, Any], int, list[str], str]:
    """(the chosen item, how many the API answered, notes, its articoloHtml) of a 200's JSON body."""
    try:
        doc = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep
        raise UpstreamChanged("the OpenData API answered 200 with a body that is not JSON", urn=sent) from None
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, dict):
        raise UpstreamChanged("the OpenData API answer has no `data` object", urn=sent)
    item, n_items, notes = choose_item(data)
    html = item.get("articoloHtml")
    if not isinstance(html, str):
        raise UpstreamChanged("the OpenData API answer has no articoloHtml", urn=sent)
    return item, n_items, notes, html


def _answer_key(num: str | None, requested: Urn) -> str | None:
    """The answered article's key, read from its printed number, else the one asked for."""
    key = None
    if num:
        try:
            key = article_key(num)
        except InvalidArg:
            key = None
    key = key or requested.article
    return key


def _has_words(s: str | None) -> bool:
    return bool(s and re.search(r"\w", s))


def api_urn_for(ref: Urn | str, article: str | int | None = None, at_date: str | _dt.date | None = None,
                original: bool = False) -> Urn:
    """The URN the API wants: full date, annex for codes, ~artN without hyphen, !vig validated."""
    urn = parse_reference(ref) if isinstance(ref, str) else ref
    if not isinstance(urn, Urn):
        raise InvalidArg("the OpenData API takes URNs, not ELI paths", valid="urn:nir:stato:<type>:<YYYY-MM-DD>;<n>~art<N>")
    if urn.act_type == "costituzione" and not urn.date:
        urn = msgspec.structs.replace(urn, date="1947-12-27", year=1947)
    if urn.partial:
        raise InvalidArg(
            f"the OpenData API needs the act's full date, not only the year: {urn}",
            valid="urn:nir:stato:<type>:<YYYY-MM-DD>;<n> (resolve the date first, e.g. through the portal)",
        )
    if article not in (None, ""):
        urn = msgspec.structs.replace(urn, article=article_key(article))
    if not urn.article:
        raise InvalidArg("an article is required (without ~art the API returns the act's opening)", valid="e.g. ~art2043 or article='2043'")
    if urn.annex is None and urn.number and urn.year:
        code = _codes.lookup_act(urn.act_type, urn.year, urn.number)
        if code is not None and code.api_urn != code.urn:
            urn = msgspec.structs.replace(urn, annex=code.api_urn.rsplit(":", 1)[1])
    if at_date not in (None, ""):
        iso = at_date.isoformat() if isinstance(at_date, _dt.date) else parse_iso_date(str(at_date), "at_date")
        urn = msgspec.structs.replace(urn, vigenza=iso, version=None)
    elif original:
        urn = msgspec.structs.replace(urn, version="originale", vigenza=None)
    return urn


async def fetch_article(
    client: HttpClient,
    settings: Settings,
    ref: Urn | str,
    article: str | int | None = None,
    at_date: str | _dt.date | None = None,
    *,
    original: bool = False,
    include_html: bool = False,
) -> ApiArticle:
    """POST atto/dettaglio-atto-urn {"urn": ...}: one article, optionally in force at `at_date`."""
    urn = api_urn_for(ref, article, at_date, original)
    resp = await client.request(
        "POST",
        settings.normattiva_api_url.rstrip("/") + ARTICLE_PATH,
        json={"urn": str(urn)},
        headers={"Accept": "application/json"},
        accept_statuses=(200, 400, 404, 409, 500),
        not_found_statuses=(),
        what="Normattiva OpenData API",
    )
    return interpret_answer(
        resp.status, resp.content_type, resp.body, urn, include_html=include_html, portal_base=settings.normattiva_url
    )


async def fetch_act_types(client: HttpClient, settings: Settings) -> dict[str, str]:
    """GET tipologiche/denominazione-atto (a cheap liveness/shape check). No Content-Type: the WAF 409s it."""
    resp = await client.request(
        "GET", settings.normattiva_api_url.rstrip("/") + ACT_TYPES_PATH, headers={"Accept": "application/json"},
        accept_statuses=(200, 409), what="Normattiva OpenData API",
    )
    if resp.status == 409:
        raise UpstreamUnavailable("the Normattiva OpenData API's firewall (WAF) blocked the request (HTTP 409)", status=409,
                                  valid="retry later")
    try:
        rows = msgspec.json.decode(resp.body)
        return {str(r["label"]): str(r["value"]) for r in rows}
    except (msgspec.DecodeError, RecursionError, KeyError, TypeError):
        raise UpstreamChanged("tipologiche/denominazione-atto answered an unknown shape") from None


def next_version_date(article: ApiArticle) -> str | None:
    """The !vig= date that gives the following version (day after the window's end), or None.

    The API has no version list (API_FACTS §6): history is walked one request per version.
    """
    if not article.in_force_to:
        return None
    return (_dt.date.fromisoformat(article.in_force_to) + _dt.timedelta(days=1)).isoformat()
