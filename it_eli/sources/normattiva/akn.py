"""Akoma Ntoso parser for Normattiva exports ("Esporta in Akoma Ntoso" / `caricaAKN`).

Pure: bytes in, msgspec Structs out. Every upstream fact relied on here is recorded, with the
capture it was seen in, in DISCOVERY.md (Akoma Ntoso exports).

Shape of an export (AKN 3.0 namespace, one `<act name="monovigente">`, one date per file):
- identity in `act/meta/identification/FRBRWork` (`FRBRalias name="urn:nir"` / `name="eli"`,
  `FRBRdate`) and `act/meta/publication/@date` (Gazzetta Ufficiale date);
- ordinary acts keep their articles in `act/body//article` (`num`, `heading`, `paragraph`s);
- the codes (codice penale, ...) keep theirs in `attachments/attachment/doc name="Codice
  Penale-art. N"`, plain text starting `Art. N.` with the rubrica in parentheses, while the
  body holds only the approving decree's articles;
- the Costituzione keeps its XVIII transitional provisions as `doc name="Allegato-I"` …
  `"Allegato-XVIII"`.

Key decisions (see the notes for the why):
- code attachments win: their articles get the plain keys (`575`), the approving decree's body
  articles are prefixed `dec-` (`dec-1`);
- Costituzione transitional provisions are keyed `disp-trans-1` … `disp-trans-18` (their num
  keeps the printed roman numeral);
- articles of other attachments (`Allegato I.1-art. 1`, `Accordo-art. 3`) are keyed
  `<attachment slug>-art-<n>` so they never shadow the act's own articles;
- attachments that are not articles (tables, annexes) go to `Act.annexes`, not `articles`;
- Normattiva's editorial notes (`AGGIORNAMENTO (n)` blocks after a dashed line, authorial
  notes) go to `Article.notes`, not to `text`, so search matches the law, not the commentary.
"""

from __future__ import annotations

import re
from typing import Iterable

import msgspec
from lxml import etree

from it_eli.runtime.errors import InvalidArg, ItEliError, NotAvailable, UpstreamChanged
from it_eli.law.grammar import KEY_RE as _KEY_RE
from it_eli.law.grammar import LATIN as _LATIN
from it_eli.law.grammar import int_to_roman, normalize_article_key, roman_to_int
from it_eli.sources.normattiva import lifecycle as _lifecycle
from it_eli.law.provision_status import ActLifecycle, ProvisionEvent

__all__ = [
    "Comma",
    "Article",
    "ActIdentity",
    "Act",
    "parse_act",
    "normalize_article_key",
    "roman_to_int",
]

AKN_NS = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
_A = "{%s}" % AKN_NS
_NS = {"a": AKN_NS}


# --------------------------------------------------------------------------------------------
# Public structs
# --------------------------------------------------------------------------------------------


class Comma(msgspec.Struct):
    num: str  # as marked, without the trailing dot: "1", "1-bis", "4-bis.1"
    text: str


class Article(msgspec.Struct):
    key: str
    num: str
    heading: str | None
    text: str
    commi: list[Comma]
    repealed: bool
    amended: bool
    eid: str | None
    order: int
    in_attachment: bool
    notes: str = ""  # Normattiva's editorial notes (AGGIORNAMENTO blocks, avvertenze)
    attachment: str | None = None  # the attachment doc's @name, when in_attachment
    # The headings of the partitions above the article (libro, parte, titolo, capo, sezione),
    # outermost first, as the export writes them: "Capo I - Principi". Empty where the export
    # gives none (the codes kept as attachment docs carry no partitions).
    context: list[str] = msgspec.field(default_factory=list)
    # what the export records happened to it (repeals, Court declarations, conversion insertions)
    lifecycle: list[ProvisionEvent] = []
    # what the export's own text lacks, said with the text: it opens at a later item of a list
    text_gaps: list[str] = []


class ActIdentity(msgspec.Struct):
    urn: str | None
    eli: str | None
    title: str | None
    act_type: str | None
    number: str | None
    date: str | None
    year: int | None
    version_date: str | None
    codice_redazionale: str | None
    gu_date: str | None
    monovigente: bool = True
    version: str | None = None  # ELI tipoVersione: "CONSOLIDATED" or "ORIGINAL"
    expression_date: str | None = None  # FRBRExpression/FRBRdate as exported (unreliable)
    gu_number: str | None = None
    lifecycle: ActLifecycle | None = None  # entry into force, conversion law, lapse (preface note)


class Act(msgspec.Struct, dict=True):
    identity: ActIdentity
    articles: list[Article]
    annexes: list[Article] = []

    def article(self, key: str) -> Article | None:
        """Look up an article by key; accepts unnormalised keys ("Art. 21 septies", "XVIII")."""
        index = self._index()
        raw = (key or "").strip().lower()
        if raw in index:
            return index[raw]
        try:
            norm = normalize_article_key(key)
        except InvalidArg:
            return None
        if norm in index:
            return index[norm]
        # A bare roman numeral only means something in an act with transitional provisions.
        roman = roman_to_int(raw.rstrip("."))
        if roman is not None and f"disp-trans-{roman}" in index:
            return index[f"disp-trans-{roman}"]
        return None

    def _index(self) -> dict[str, Article]:
        # Cached per instance (dict=True gives the Struct a __dict__; it is not encoded).
        cache = self.__dict__.get("_key_index")
        if cache is None or len(cache) != len(self.articles):
            cache = {a.key: a for a in self.articles}
            self.__dict__["_key_index"] = cache
        return cache


# --------------------------------------------------------------------------------------------
# Article keys
# --------------------------------------------------------------------------------------------

# Article keys, Roman numerals and Latin suffixes live in the legal-language core (it_eli.law.grammar).


# --------------------------------------------------------------------------------------------
# Safe parsing
# --------------------------------------------------------------------------------------------

_EXPECTED = (
    "an Akoma Ntoso 3.0 XML document as exported by Normattiva "
    "(<akomaNtoso xmlns=\"http://docs.oasis-open.org/legaldocml/ns/akn/3.0\"><act>…)"
)


def _fail(message: str, user_supplied: bool, **details) -> ItEliError:
    if user_supplied:
        return InvalidArg(message, valid=_EXPECTED, **details)
    return UpstreamChanged(message, valid=_EXPECTED, **details)


def _make_parser() -> etree.XMLParser:
    # No entity expansion, no DTD, no network; huge_tree because single articles reach ~1M chars.
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=True,
        remove_comments=True,
        remove_pis=True,
    )


def _sniff(xml: bytes, user_supplied: bool) -> None:
    """Refuse what must never reach the XML parser: HTML pages and DTDs (entity bombs, XXE)."""
    if not isinstance(xml, (bytes, bytearray, memoryview)):
        raise _fail(f"expected bytes, got {type(xml).__name__}", user_supplied)
    head = bytes(xml[:8192])
    if not head.strip():
        raise _fail("empty document", user_supplied)
    probe = head.replace(b"\x00", b"").lower()  # also catches UTF-16 text
    if b"<html" in probe:
        if b"errore" in probe or b"errore" in bytes(xml[:65536]).lower():
            # Normattiva answers unknown/unavailable acts with its "Normattiva - Errore" page.
            raise NotAvailable(
                "Normattiva returned its error page instead of an Akoma Ntoso export",
                valid=_EXPECTED,
            )
        raise _fail("got an HTML page, not an Akoma Ntoso XML export", user_supplied)
    # A DTD may only sit in the prolog, i.e. before the root element; entity declarations
    # cannot occur anywhere else. Scan the whole prolog (it may be long) case-insensitively.
    whole = bytes(xml).replace(b"\x00", b"") if b"\x00" in head else bytes(xml)
    root_at = _root_start(whole)
    prolog = whole[: root_at if root_at >= 0 else len(whole)].upper()
    if b"<!DOCTYPE" in prolog or b"<!ENTITY" in prolog:
        raise _fail(
            "document carries a DOCTYPE/ENTITY declaration; refused (Normattiva exports have none)",
            user_supplied,
        )


def _root_start(data: bytes) -> int:
    """Offset of the root element's `<`, skipping the XML declaration, PIs, comments and DTD."""
    i = 0
    n = len(data)
    while i < n:
        j = data.find(b"<", i)
        if j < 0 or j + 1 >= n:
            return -1
        nxt = data[j + 1 : j + 2]
        if nxt == b"?":
            k = data.find(b"?>", j)
            i = n if k < 0 else k + 2
        elif data.startswith(b"<!--", j):
            k = data.find(b"-->", j)
            i = n if k < 0 else k + 3
        elif nxt == b"!":
            # DOCTYPE (possibly with an internal subset): never the root; keep scanning past it.
            k = data.find(b">", j)
            i = n if k < 0 else k + 1
        else:
            return j
    return -1


def _parse_tree(xml: bytes, user_supplied: bool) -> etree._Element:
    _sniff(xml, user_supplied)
    try:
        root = etree.fromstring(bytes(xml), _make_parser())
    except etree.XMLSyntaxError as exc:
        raise _fail(f"not well-formed XML: {exc}", user_supplied) from None
    except ValueError as exc:  # e.g. unicode strings with encoding declaration
        raise _fail(f"unreadable XML: {exc}", user_supplied) from None
    doc = root.getroottree()
    if doc.docinfo.doctype or doc.docinfo.internalDTD is not None:
        raise _fail("document carries a DOCTYPE declaration; refused", user_supplied)
    if root.tag != _A + "akomaNtoso":
        raise _fail(f"root element is {root.tag!r}, not akomaNtoso in the AKN 3.0 namespace", user_supplied)
    return root


# --------------------------------------------------------------------------------------------
# Text extraction
# --------------------------------------------------------------------------------------------

_BLOCK = frozenset(
    _A + t
    for t in (
        "p", "paragraph", "content", "list", "intro", "point", "wrapUp", "alinea", "subparagraph",
        "section", "blockList", "item", "listIntroduction", "listWrapUp", "tr", "table", "blockContainer",
        "heading", "subheading", "clause", "indent", "hcontainer", "tblock", "subsection",
    )
)
_CELL = frozenset(_A + t for t in ("td", "th"))
_NUM = _A + "num"
_NOTE = _A + "authorialNote"
_BR = _A + "eol"
_NL = "\n"
_GLUE = "\x00"  # after a <num>: the following block starts on the same line


def _collect(el, out: list[str], notes: list[str] | None) -> None:
    """Flatten an element to text, with line breaks at block boundaries and notes diverted."""
    tag = el.tag
    if not isinstance(tag, str):  # comments / PIs (already removed by the parser, be safe)
        if el.tail:
            out.append(el.tail)
        return
    if tag == _NOTE:
        if notes is not None:
            buf: list[str] = []
            _collect_children(el, buf, None)
            t = _clean("".join(buf))
            if t:
                notes.append(t)
        return
    block = tag in _BLOCK
    if block:
        out.append(_NL)
    elif tag in _CELL:
        out.append(" ")
    elif tag == _BR:
        out.append(_NL)
    if el.text:
        out.append(el.text)
    _collect_children(el, out, notes)
    if tag == _NUM:
        out.append(_GLUE)
    elif block:
        out.append(_NL)


def _collect_children(el, out: list[str], notes: list[str] | None) -> None:
    for child in el:
        _collect(child, out, notes)
        if child.tail:
            out.append(child.tail)


_WS_RE = re.compile(r"[ \t\r\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_GLUE_RE = re.compile(r"\x00\s*")


def _clean(s: str) -> str:
    """Whitespace normalisation only: collapse runs inside lines, drop blank lines."""
    s = _GLUE_RE.sub(" ", s)
    lines = (_WS_RE.sub(" ", line).strip() for line in s.split("\n"))
    return "\n".join(line for line in lines if line)


def _text(el, notes: list[str] | None = None) -> str:
    out: list[str] = []
    if el.text:
        out.append(el.text)
    _collect_children(el, out, notes)
    return _clean("".join(out))


def _inline(s: str | None) -> str:
    return _WS_RE.sub(" ", (s or "").replace("\n", " ")).strip()


# --------------------------------------------------------------------------------------------
# Markers
# --------------------------------------------------------------------------------------------

_NOTES_START_RE = re.compile(r"^-{5,}\s*$")
_REPEALED_RE = re.compile(
    r"^[\s(\"'«]*(?:\d+[\s.]+)?(?:ARTICOLO|ARTICOLI|ARTT?\.)\b[^()\n]{0,80}?\b(?:ABROGAT|SOPPRESS)[OIAE]\b",
)
_AMEND_OPEN = "(("
_AMEND_CLOSE = "))"
_COMMA_IN_TEXT_RE = re.compile(
    r"^[(\s]*(?P<num>\d+(?:[-\s]?" + _LATIN + r")?(?:\.\d+)?)\s*\.\s+\S", re.IGNORECASE
)


def _is_repealed(text: str) -> bool:
    """Normattiva replaces a repealed article's text with `((ARTICOLO ABROGATO DAL/DALLA …))`."""
    return bool(_REPEALED_RE.match(text[:300].upper()))


def _has_amendments(*parts: str | None) -> bool:
    return any(p and (_AMEND_OPEN in p or _AMEND_CLOSE in p) for p in parts)


def _clean_heading(h: str | None) -> tuple[str | None, bool]:
    """`(( (Delitti contro l'industria). ))` -> ("Delitti contro l'industria", amended=True).

    Amendment markers inside the rubrica ("Ricettazione ((, nonche' autoriciclaggio))") stay:
    only the wrapping parentheses and the markers around the whole rubrica go.
    """
    if h is None:
        return None, False
    h = _inline(h)
    amended = _AMEND_OPEN in h or _AMEND_CLOSE in h
    prev = None
    while h and h != prev:
        prev = h
        h = h.strip().rstrip(".").strip()
        opens, closes = h.count("("), h.count(")")
        if h.startswith("((") and (h.endswith("))") or opens > closes):
            h = h[2:]
        elif h.endswith("))") and closes > opens:
            h = h[:-2]
        elif h.startswith("(") and h.endswith(")") and _balanced_close(h, 0) == len(h) - 1:
            h = h[1:-1]
        elif h.startswith("(") and opens > closes:
            h = h[1:]
        elif h.endswith(")") and closes > opens:
            h = h[:-1]
    h = h.strip()
    return (h or None), amended


def _balanced_close(s: str, start: int) -> int:
    """Index of the parenthesis closing the one at `start`, -1 if unbalanced."""
    depth = 0
    for i in range(start, len(s)):
        c = s[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


# --------------------------------------------------------------------------------------------
# Identity
# --------------------------------------------------------------------------------------------

_ISO_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_ELI_RE = re.compile(
    r"eli/id/(?P<y>\d{4})/(?P<m>\d{2})/(?P<d>\d{2})/(?P<code>[^/]+)/(?P<ver>[A-Z]+)(?:/(?P<vd>\d{8}))?"
)
_URN_RE = re.compile(
    r"^urn:nir:(?P<auth>[^:]+):(?P<type>[^:;]+)(?::(?P<date>\d{4}-\d{2}-\d{2}))?(?:;(?P<num>[^:@~]+))?"
)
_DOCTYPE_MAP = {
    "LEGGE": "legge",
    "DECRETO LEGISLATIVO": "decreto.legislativo",
    "DECRETO-LEGGE": "decreto.legge",
    "DECRETO LEGGE": "decreto.legge",
    "REGIO DECRETO": "regio.decreto",
    "DECRETO DEL PRESIDENTE DELLA REPUBBLICA": "decreto.del.presidente.della.repubblica",
    "COSTITUZIONE": "costituzione",
    "LEGGE COSTITUZIONALE": "legge.costituzionale",
}


def _iso(d: str | None) -> str | None:
    """ISO date or None: the exports write `0000-00-00` where the act has no date."""
    if not d:
        return None
    m = _ISO_RE.match(d.strip())
    if not m or m.group(1) == "0000" or m.group(2) == "00" or m.group(3) == "00":
        return None
    return d.strip()


def _first(el, path: str) -> str | None:
    r = el.xpath(path, namespaces=_NS)
    if not r:
        return None
    v = r[0]
    # str(): xpath string results are lxml smart strings that keep the whole tree alive.
    return str(v) if isinstance(v, str) else _inline("".join(v.itertext()))


def _identity(act) -> ActIdentity:
    work = "a:meta/a:identification/a:FRBRWork"
    urn = _first(act, f"{work}/a:FRBRalias[@name='urn:nir']/@value")
    eli = _first(act, f"{work}/a:FRBRalias[@name='eli']/@value")
    work_date = _iso(_first(act, f"{work}/a:FRBRdate/@date"))
    expr_date = _iso(_first(act, "a:meta/a:identification/a:FRBRExpression/a:FRBRdate/@date"))
    gu_date = _iso(_first(act, "a:meta/a:publication/@date"))
    gu_number = _first(act, "a:meta/a:publication/@number") or None

    act_type = number = urn_date = None
    if urn:
        m = _URN_RE.match(urn.strip())
        if m:
            act_type = m.group("type")
            urn_date = m.group("date")
            number = m.group("num")
    doc_type = _first(act, "a:preface//a:docType")
    if not act_type and doc_type:
        act_type = _DOCTYPE_MAP.get(_inline(doc_type).upper())
    if not number:
        dn = _first(act, "a:preface//a:docNumber")
        number = dn if dn and dn.strip() not in ("", "0") else None

    code = version = version_date = None
    if eli:
        m = _ELI_RE.search(eli)
        if m:
            code = m.group("code")
            version = m.group("ver")
            if m.group("vd"):
                vd = m.group("vd")
                version_date = _iso(f"{vd[:4]}-{vd[4:6]}-{vd[6:]}")
            if not gu_date:
                gu_date = _iso(f"{m.group('y')}-{m.group('m')}-{m.group('d')}")
    if not code:
        code = _first(act, f"{work}/a:preservation//*[@property='eli:id_local']/@content")

    date = _iso(urn_date) or work_date or _iso(_first(act, "a:preface//a:docDate/@date"))
    year = int(date[:4]) if date else (int(gu_date[:4]) if gu_date else None)

    title = _first(act, "a:preface//a:docTitle")
    if not title:
        title = _first(act, f"{work}/a:preservation//*[@property='eli:title']/@content")
    title = _inline(title) or None

    return ActIdentity(
        urn=urn,
        eli=eli,
        title=title,
        act_type=act_type,
        number=number,
        date=date,
        year=year,
        version_date=version_date,
        codice_redazionale=code,
        gu_date=gu_date,
        monovigente=(act.get("name") == "monovigente"),
        version=version,
        expression_date=expr_date,
        gu_number=gu_number,
    )


# --------------------------------------------------------------------------------------------
# Body articles
# --------------------------------------------------------------------------------------------


def _body_article(el, order: int) -> Article:
    num_label = _inline(el.findtext(_NUM)) or ""
    heading_el = el.find(_A + "heading")
    heading_raw = _text(heading_el) if heading_el is not None else None
    heading, heading_amended = _clean_heading(heading_raw)
    eid = el.get("eId")
    key = _key_from_num(num_label, eid)

    # First pass: (comma label or None, text, is_paragraph) per block, notes diverted.
    notes: list[str] = []
    entries: list[tuple[str | None, str, bool]] = []
    in_notes = False
    for child in el:
        tag = child.tag
        if not isinstance(tag, str) or tag in (_NUM, _A + "heading"):
            continue
        num_el = child.find(_NUM) if tag == _A + "paragraph" else None
        if num_el is not None:
            label = _inline("".join(num_el.itertext())) or None
            rest = _text_without_num(child, notes)
        else:
            label = None
            rest = _text(child, notes)
        if not rest and not label:
            continue
        if in_notes or _NOTES_START_RE.match(rest.split("\n", 1)[0]):
            in_notes = True  # "-----" then "AGGIORNAMENTO (n)": editorial, to the end
            notes.append(rest)
            continue
        entries.append((label, rest, tag == _A + "paragraph"))

    # Some exports leave <heading/> empty and print "Art. N." and/or the rubrica as the first,
    # unnumbered paragraph: take them out of the text.
    if entries and entries[0][0] is None:
        first = entries[0][1]
        lines = first.split("\n")
        hm = _HEADER_RE.match(lines[0])
        if hm and normalize_article_key(hm.group("label")) == key:
            after = lines[0][hm.end():].lstrip(" .")
            lines = ([after] if after else []) + lines[1:]
            first = "\n".join(lines)
        if heading is None and first:
            numbered_later = any(lab for lab, _, _ in entries[1:])
            h, rest_after, h_amended = _take_heading(first)
            if h is not None:
                heading, heading_amended = h, heading_amended or h_amended
                first = rest_after
            elif numbered_later and "\n" not in first and len(first) <= 400:
                heading, h_amended = _clean_heading(first)
                heading_amended = heading_amended or h_amended
                first = ""
        if first:
            entries[0] = (None, first, entries[0][2])
        else:
            entries.pop(0)

    if not entries and heading_raw:
        # c.p.p. 334-bis: the whole inserted article sits inside <heading>.
        h, rest_after, h_amended = _take_heading(heading_raw)
        if h is not None and rest_after:
            heading, heading_amended = h, True if h_amended else heading_amended
            entries.append((None, rest_after, True))

    lines_out: list[str] = []
    commi: list[Comma] = []
    pending: list[str] = []  # unnumbered fragments waiting for the next comma ("((" alone)
    any_marked = False
    for label, rest, is_para in entries:
        if label:
            any_marked = True
            text = "\n".join(pending + [rest]) if pending else rest
            pending = []
            commi.append(Comma(num=label.rstrip(". "), text=text))
            lines_out.append(f"{label} {rest}".strip() if rest else label)
            continue
        lines_out.append(rest)
        m = _COMMA_IN_TEXT_RE.match(rest) if is_para else None
        if m:
            # Unnumbered paragraph that starts with its comma number, typically an inserted
            # comma "((2-bis. …))" or one inside a "((" … "))" span.
            text = "\n".join(pending + [rest]) if pending else rest
            pending = []
            commi.append(Comma(num=_normalise_comma_num(m.group("num")), text=text))
            any_marked = True
        elif commi:
            commi[-1] = Comma(num=commi[-1].num, text=commi[-1].text + "\n" + rest)
        else:
            pending.append(rest)
    text = "\n".join(lines_out)
    if not any_marked:
        commi = []
    return Article(
        key=key,
        num=num_label,
        heading=heading,
        text=text,
        commi=commi,
        repealed=_is_repealed(text),
        amended=heading_amended or _has_amendments(text) or el.find(".//" + _A + "ins") is not None,
        eid=eid,
        order=order,
        in_attachment=False,
        notes="\n".join(n for n in notes if n),
        context=_partition_headings(el),
    )


_PARTITIONS = frozenset(_A + t for t in ("book", "part", "title", "chapter", "section", "subsection", "hcontainer"))
_LEVELS = ("parte", "libro", "titolo", "capo", "sezione")
_LEVEL_RE = re.compile(
    r"\b(parte|libro|titolo|capo|sezione)\s+(prima|seconda|terza|quarta|quinta|unica|[ivxlc]+(?:-[a-z]+)?|\d+)\b",
    re.IGNORECASE,
)


def _partition_label(el) -> str:
    num = _inline(el.findtext(_NUM)) or ""
    h_el = el.find(_A + "heading")
    heading = _inline(" ".join(h_el.itertext())) if h_el is not None else ""
    return re.sub(r"\s+", " ", " - ".join(x for x in (num.strip(" -"), heading.strip(" -")) if x)).strip(" -")


def _level_segments(label: str) -> list[tuple[int, str]]:
    """'LIBRO I SOGGETTI Titolo I GIUDICE' -> [(1, 'LIBRO I SOGGETTI'), (2, 'Titolo I GIUDICE')]."""
    marks = list(_LEVEL_RE.finditer(label))
    return [(_LEVELS.index(m.group(1).lower()), label[m.start(): marks[i + 1].start() if i + 1 < len(marks) else None]
             .strip(" -")) for i, m in enumerate(marks)]


def _partition_headings(el) -> list[str]:
    """The headings above an article, outermost first. Several exports (c.p.p., codice della
    strada) write their partitions as flat sibling chapters whose heading names only the levels
    that change ('Capo II ESAME DELLE PARTI'): the higher levels still in force (libro, titolo)
    are taken from the nearest preceding partition that names them."""
    ancestors = [a for a in el.iterancestors() if a.tag in _PARTITIONS]
    out = [lab for lab in (_partition_label(a) for a in reversed(ancestors)) if lab]
    if not ancestors:
        return out
    levels = [lv for lab in out for lv, _ in _level_segments(lab)]
    top = min(levels) if levels else None
    if top is None:
        return out
    inherited: list[str] = []
    sib = ancestors[-1].getprevious()
    while sib is not None and top > 0:
        if sib.tag in _PARTITIONS:
            higher = [(lv, seg) for lv, seg in _level_segments(_partition_label(sib)) if lv < top]
            if higher:
                inherited = [seg for _, seg in higher] + inherited
                top = higher[0][0]
        sib = sib.getprevious()
    return inherited + out


def _text_without_num(paragraph, notes: list[str]) -> str:
    out: list[str] = []
    if paragraph.text:
        out.append(paragraph.text)
    for child in paragraph:
        if child.tag == _NUM:
            if child.tail:
                out.append(child.tail)
            continue
        _collect(child, out, notes)
        if child.tail:
            out.append(child.tail)
    return _clean("".join(out))


def _normalise_comma_num(s: str) -> str:
    m = re.match(r"(\d+)[-\s]?([a-z]+)?(\.\d+)?", s.strip(), re.IGNORECASE)
    if not m:
        return s.strip()
    out = m.group(1)
    if m.group(2):
        out += "-" + m.group(2).lower()
    if m.group(3):
        out += m.group(3)
    return out


def _key_from_num(num_label: str, eid: str | None) -> str:
    if num_label:
        key = normalize_article_key(num_label)
        if _KEY_RE.fullmatch(key.replace("-", "")) or re.match(r"^\d", key):
            return key
    if eid:
        return normalize_article_key(eid.split("__", 1)[0])
    return normalize_article_key(num_label) if num_label else ""


# --------------------------------------------------------------------------------------------
# Attachments
# --------------------------------------------------------------------------------------------

_DOC_ART_RE = re.compile(r"^(?P<group>.+?)\s*-\s*art\.?\s*(?P<num>\S.*)$", re.IGNORECASE)
_HEADER_RE = re.compile(
    r"^(?P<label>(?:Art\.|Art\b|Articolo)\s*(?P<num>\d+(?:[\s-]*" + _LATIN + r")?(?:\.\d+)?)\.?)"
    r"(?=\s|$|[.(])\s*\.?\s*",
    re.IGNORECASE,
)
_ALLCAPS_RE = re.compile(r"^[^a-z]*[A-Z][^a-z]*$")
_DISP_TRANS_TITLE_RE = re.compile(r"^DISPOSIZIONI\s+TRANSITORIE\s+E\s+FINALI\b", re.IGNORECASE)


def _slug(s: str) -> str:
    s = re.sub(r"[^0-9a-z.]+", "-", s.lower())
    return re.sub(r"-{2,}", "-", s).strip("-.")


def _doc_texts(doc) -> tuple[str, str]:
    """(normative text, editorial notes) of an attachment doc's mainBody."""
    main = doc.find(_A + "mainBody")
    if main is None:
        return "", ""
    notes: list[str] = []
    parts: list[str] = []
    in_notes = False
    for child in main:
        if not isinstance(child.tag, str):
            continue
        t = _text(child, notes)
        if not t:
            continue
        if in_notes or _NOTES_START_RE.match(t.split("\n", 1)[0]):
            in_notes = True
            notes.append(t)
        else:
            parts.append(t)
    if main.text and main.text.strip():
        parts.insert(0, _clean(main.text))
    return "\n".join(parts), "\n".join(notes)


def _split_header(text: str, doc_name: str = "", is_code: bool = False) -> tuple[str | None, str | None, str, bool]:
    """Split `Art. N.` / `(rubrica)` off an attachment's text.

    Returns (printed label, heading, remaining text, heading amended). The codes' header may be
    preceded by an all-caps title ("CODICE PENALE") which is dropped; anything else before the
    header is kept in the text. Some repealed code articles print the doc name
    ("Codice Penale-art. 519") instead of "Art. 519.".
    """
    lines = text.split("\n")
    for i, line in enumerate(lines[:6]):
        m = _HEADER_RE.match(line)
        by_name = bool(doc_name) and line.strip().lower() == doc_name.strip().lower()
        if not (m or by_name):
            continue
        before = lines[:i]
        if all(_ALLCAPS_RE.match(b) for b in before):
            before = []
        if m:
            label = m.group("label").strip()
            after = line[m.end():].lstrip(" .")
        else:
            label, after = None, ""
        rest_lines = ([after] if after else []) + lines[i + 1 :]
        # "Art. 1</ref>. " leaves a lone "." line in some exports.
        while rest_lines and rest_lines[0].strip() in (".", ""):
            rest_lines.pop(0)
        rest = "\n".join(rest_lines)
        heading, rest, amended = _take_heading(rest)
        if heading is None and is_code:
            # Every article of a code has a rubrica; when it is not parenthesised it is the
            # first line, provided more text follows and it is not a repeal notice.
            first, _, remainder = rest.partition("\n")
            if remainder and not _is_repealed(first) and not re.match(r"^\W*(COMMA|ARTICOLO)\b", first):
                heading, h_amended = _clean_heading(first)
                amended = amended or h_amended
                rest = remainder
        return label, heading, "\n".join(before + ([rest] if rest else [])), amended
    return None, None, text, False


_MARKED_HEADING_RE = re.compile(r"^\(\s?\(\s*(?=\()")


def _take_heading(rest: str) -> tuple[str | None, str, bool]:
    """Take a parenthesised rubrica `(Omicidio)` or `(( (Rubrica). …` off the front of `rest`.

    When the amendment span opened before the rubrica goes on over the text
    ("(( (Circostanze attenuanti). Le pene … ))"), the remaining text gets the "((" back so
    the markers stay balanced and verbatim.
    """
    s = rest.lstrip()
    amended = False
    m = _MARKED_HEADING_RE.match(s)
    if m:
        amended = True
        start = m.end()
    elif s.startswith("(") and not s.startswith("(("):
        start = 0
    else:
        # "((text…))" is an amended first comma (or a repeal notice), not a rubrica.
        return None, rest, False
    close = _balanced_close(s, start)
    if close < 0:
        return None, rest, False
    head_raw = s[start : close + 1]
    # An update-note reference such as "(96)" is not a rubrica.
    if re.fullmatch(r"\(\s*\d+[a-z]?\s*\)", head_raw):
        return None, rest, False
    after = s[close + 1 :].lstrip(" .")
    if amended:
        if after.startswith("))"):
            after = after[2:].lstrip(" .")
        elif after.strip():
            after = "((" + after.lstrip()
    heading, h_amended = _clean_heading(head_raw)
    return heading, after.strip(), amended or h_amended


def _attachment_articles(act, identity: ActIdentity, start_order: int) -> tuple[list[Article], list[Article], bool]:
    """Articles and annexes from `attachments/attachment/doc`; flag whether a code was found."""
    docs = act.xpath("a:attachments/a:attachment/a:doc", namespaces=_NS)
    if not docs:
        return [], [], False
    names = [d.get("name") or "" for d in docs]
    code_groups = set()
    for n in names:
        m = _DOC_ART_RE.match(n)
        if m and m.group("group").strip().lower().startswith("codice"):
            code_groups.add(m.group("group").strip())
    articles: list[Article] = []
    annexes: list[Article] = []
    seen: dict[str, int] = {}
    order = start_order
    is_costituzione = identity.act_type == "costituzione"
    for doc, name in zip(docs, names):
        eid = doc.get("eId") or _first(doc, "a:meta/a:identification/a:FRBRWork/a:FRBRthis/@value")
        text, notes = _doc_texts(doc)
        m = _DOC_ART_RE.match(name)
        roman = None
        if is_costituzione:
            rm = re.match(r"^Allegato[\s-]*([IVXLCDM]+)$", name.strip(), re.IGNORECASE)
            roman = roman_to_int(rm.group(1)) if rm else None
        if m:
            group = m.group("group").strip()
            label, heading, body, h_amended = _split_header(text, name, group in code_groups)
            raw_num = m.group("num").strip()
            num_key = normalize_article_key(raw_num)
            if not re.match(r"^\d", num_key) and label:
                num_key = normalize_article_key(label)
            key = num_key if group in code_groups else f"{_slug(group)}-art-{num_key}"
            art = Article(
                key=key,
                num=label or f"Art. {raw_num}",
                heading=heading,
                text=body,
                commi=[],
                repealed=_is_repealed(body),
                amended=h_amended or _has_amendments(body) or doc.find(".//" + _A + "ins") is not None,
                eid=eid,
                order=order,
                in_attachment=True,
                notes=notes,
                attachment=name,
            )
            target = articles
        elif roman:
            lines = text.split("\n")
            while lines and _DISP_TRANS_TITLE_RE.match(lines[0]):
                lines.pop(0)
            label = None
            if lines and roman_to_int(lines[0].strip().rstrip(".")) == roman:
                label = lines.pop(0).strip()
            body = "\n".join(lines)
            art = Article(
                key=f"disp-trans-{roman}",
                num=label or int_to_roman(roman),
                heading=None,
                text=body,
                commi=[],
                repealed=_is_repealed(body),
                amended=_has_amendments(body) or doc.find(".//" + _A + "ins") is not None,
                eid=eid,
                order=order,
                in_attachment=True,
                notes=notes,
                attachment=name,
            )
            target = articles
        else:
            art = Article(
                key=_slug(name) or "allegato",
                num=name,
                heading=None,
                text=text,
                commi=[],
                repealed=False,
                amended=_has_amendments(text) or doc.find(".//" + _A + "ins") is not None,
                eid=eid,
                order=order,
                in_attachment=True,
                notes=notes,
                attachment=name,
            )
            target = annexes
        base = art.key
        if base in seen:
            seen[base] += 1
            art = msgspec.structs.replace(art, key=f"{base}~{seen[base]}")
        else:
            seen[base] = 1
        target.append(art)
        order += 1
    return articles, annexes, bool(code_groups)


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def parse_act(xml: bytes, *, user_supplied: bool = False) -> Act:
    """Parse one Normattiva Akoma Ntoso export.

    Errors: `UpstreamChanged` when bytes fetched from Normattiva are not the expected AKN (or
    carry a DTD), `InvalidArg` for the same problems in a user-supplied file
    (`user_supplied=True`), `NotAvailable` when the bytes are Normattiva's "Errore" page.
    """
    try:
        return _parse_act(xml, user_supplied)
    except RecursionError:
        # the text walkers recurse per element: a document nested ~1000 deep is no real export
        raise _fail("the XML is nested too deeply to be a Normattiva export", user_supplied) from None


def _parse_act(xml: bytes, user_supplied: bool) -> Act:
    root = _parse_tree(xml, user_supplied)
    act = root.find(_A + "act")
    if act is None:
        kinds = sorted({etree.QName(c).localname for c in root if isinstance(c.tag, str)})
        raise _fail(f"akomaNtoso holds no <act> (found: {', '.join(kinds) or 'nothing'})", user_supplied)
    identity = _identity(act)

    body_articles: list[Article] = []
    body = act.find(_A + "body")
    order = 0
    if body is not None:
        for el in body.iter(_A + "article"):
            body_articles.append(_body_article(el, order))
            order += 1
    att_articles, annexes, code_found = _attachment_articles(act, identity, order)

    if code_found:
        # The body only approves the code: its articles must not shadow the code's.
        body_articles = [msgspec.structs.replace(a, key=f"dec-{a.key}") for a in body_articles]

    articles = _dedupe(body_articles + att_articles)
    if not articles and not annexes and body is None:
        raise _fail("the act has neither a body nor attachments", user_supplied)
    preface = act.find(_A + "preface")
    preface_notes: list[str] = []
    preface_text = _text(preface, preface_notes) if preface is not None else ""
    act_life = _lifecycle.act_lifecycle("\n".join([preface_text, *preface_notes]))
    identity = msgspec.structs.replace(identity, lifecycle=act_life)
    articles = [_finish(a, identity, code_found) for a in articles]
    return Act(identity=identity, articles=articles, annexes=annexes)


_NO_HEADING_RE = re.compile(r"^(?:null|none|articolo|art\.?)(?:\s*[\w-]+)?\.?$", re.IGNORECASE)
_NUMBERED_LINE_RE = re.compile(r"^\(*\s*(?P<num>\d+(?:[-\s]?" + _LATIN + r")?(?:\.\d+)?)\s*\.\s+\S", re.IGNORECASE)


def _finish(a: Article, identity: ActIdentity, code_found: bool) -> Article:
    """The article as served and indexed: its lifecycle read from the raw text and notes, then
    the amendment markers and note numbers taken out of text and commi (they stay in `notes`
    and `lifecycle`), a placeholder heading ('null', 'Articolo') dropped, and the commi listed
    where the export prints them without marking them."""
    text, extra_notes = _lifecycle.split_notes(a.text)
    if extra_notes:
        a = msgspec.structs.replace(a, text=text, notes="\n".join(n for n in (a.notes, extra_notes) if n))
    raw_commi = [(c.num, _lifecycle.split_notes(c.text)[0]) for c in a.commi]
    derived = raw_commi if len(raw_commi) > 1 else _commi_from_text(a.text, code=True)
    events = _lifecycle.article_events(
        a.key, a.text, derived or raw_commi, a.notes, act_number=identity.number, act=identity.lifecycle,
        act_type=identity.act_type, original_export=identity.version == "ORIGINAL", heading_marked=a.amended,
    )
    heading = a.heading
    if heading is not None:
        heading = _lifecycle.clean_text(heading, a.notes).replace("\n", " ") or None
    if heading is not None and (not heading.strip() or _NO_HEADING_RE.match(heading.strip())):
        heading = None
    commi = [Comma(num=n, text=_lifecycle.clean_text(t, a.notes)) for n, t in (derived or raw_commi)]
    clean = _lifecycle.clean_text(a.text, a.notes)
    return msgspec.structs.replace(
        a, heading=heading, text=clean, commi=[c for c in commi if c.text], text_gaps=_opening_gap(clean),
        lifecycle=events,
        repealed=a.repealed or any(e.kind == "repealed" and e.scope in ("article", "act") and not e.partial
                                   for e in events),
    )


# a list item that is not a list's first: "2)", "3°", "b)", "c-bis)"
_LATER_ITEM_RE = re.compile(r"^\(*\s*(?:(?P<n>\d{1,3})\s*[)°]|(?P<l>[b-z])(?:-?[a-z]+)?\))(?=\s)", re.IGNORECASE)


def _opening_gap(text: str) -> list[str]:
    """The export's text starts inside a list (l. 633/1941 art. 120 opens at "2)": the export has
    neither the sentence introducing the list nor item 1, in no element): say so, so the words
    are not taken for the whole article."""
    m = _LATER_ITEM_RE.match(text or "")
    if m is None or (m.group("n") is not None and int(m.group("n")) < 2):
        return []
    first = m.group(0).strip("( ")
    return [f"the export's text of this article starts at item {first}: the words before it (the opening of the "
            f"article and the earlier items) are missing from Normattiva's export, so this text is incomplete"]


def _commi_from_text(text: str, *, code: bool) -> list[tuple[str, str]]:
    """Commi of an article the export did not mark: lines opening with their number ('2. …',
    '((2-bis. …'), or, in a code's attachment (which prints each comma as a paragraph), each line."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    numbered = [(i, m) for i, ln in enumerate(lines) if (m := _NUMBERED_LINE_RE.match(ln))]
    if len(numbered) >= 2 and numbered[0][0] == 0:
        out: list[tuple[str, str]] = []
        bounds = [i for i, _ in numbered] + [len(lines)]
        for (i, m), end in zip(numbered, bounds[1:]):
            out.append((_normalise_comma_num(m.group("num")), "\n".join(lines[i:end])))
        return out
    if code and not _is_repealed(text):
        return _lifecycle.derive_commi(text)
    return []


def _dedupe(articles: Iterable[Article]) -> list[Article]:
    """Keep document order; a repeated key gets `~2`, `~3` so each article stays addressable."""
    seen: dict[str, int] = {}
    out: list[Article] = []
    for a in articles:
        if a.key in seen:
            seen[a.key] += 1
            a = msgspec.structs.replace(a, key=f"{a.key}~{seen[a.key]}")
        else:
            seen[a.key] = 1
        out.append(a)
    return out
