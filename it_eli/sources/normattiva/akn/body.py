"""The act's own articles, `act/body//article`: key, heading, text, commi and the partitions above
each. Apart from the attachments, which print the same things as plain text."""

from __future__ import annotations

import re

from it_eli.law.grammar import KEY_RE as _KEY_RE
from it_eli.law.grammar import LATIN as _LATIN
from it_eli.law.grammar import normalize_article_key
from it_eli.sources.normattiva.akn.marks import (
    HEADER_RE,
    NOTES_START_RE,
    clean_heading,
    has_amendments,
    is_repealed,
    normalise_comma_num,
    take_heading,
)
from it_eli.sources.normattiva.akn.model import Article, Comma
from it_eli.sources.normattiva.akn.text import NUM, element_text, inline_text, text_without_num
from it_eli.sources.normattiva.akn.tree import A

_COMMA_IN_TEXT_RE = re.compile(
    r"^[(\s]*(?P<num>\d+(?:[-\s]?" + _LATIN + r")?(?:\.\d+)?)\s*\.\s+\S", re.IGNORECASE
)


def body_article(el, order: int) -> Article:
    num_label = inline_text(el.findtext(NUM)) or ""
    heading_el = el.find(A + "heading")
    heading_raw = element_text(heading_el) if heading_el is not None else None
    heading, heading_amended = clean_heading(heading_raw)
    eid = el.get("eId")
    key = _key_from_num(num_label, eid)

    # First pass: (comma label or None, text, is_paragraph) per block, notes diverted.
    notes: list[str] = []
    entries = _blocks(el, notes)

    # Some exports leave <heading/> empty and print "Art. N." and/or the rubrica as the first,
    # unnumbered paragraph: take them out of the text.
    heading, heading_amended = _take_printed_header(entries, key, heading, heading_amended)

    if not entries and heading_raw:
        # c.p.p. 334-bis: the whole inserted article sits inside <heading>.
        h, rest_after, h_amended = take_heading(heading_raw)
        if h is not None and rest_after:
            heading, heading_amended = h, True if h_amended else heading_amended
            entries.append((None, rest_after, True))

    text, commi = _text_and_commi(entries)
    return Article(
        key=key,
        num=num_label,
        heading=heading,
        text=text,
        commi=commi,
        repealed=is_repealed(text),
        amended=heading_amended or has_amendments(text) or el.find(".//" + A + "ins") is not None,
        eid=eid,
        order=order,
        in_attachment=False,
        notes="\n".join(n for n in notes if n),
        context=_partition_headings(el),
    )


def _blocks(el, notes: list[str]) -> list[tuple[str | None, str, bool]]:
    """(comma label or None, text, is_paragraph) per block of the article; editorial notes go to `notes`."""
    entries: list[tuple[str | None, str, bool]] = []
    in_notes = False
    for child in el:
        tag = child.tag
        if not isinstance(tag, str) or tag in (NUM, A + "heading"):
            continue
        num_el = child.find(NUM) if tag == A + "paragraph" else None
        if num_el is not None:
            label = inline_text("".join(num_el.itertext())) or None
            rest = text_without_num(child, notes)
        else:
            label = None
            rest = element_text(child, notes)
        if not rest and not label:
            continue
        if in_notes or NOTES_START_RE.match(rest.split("\n", 1)[0]):
            in_notes = True  # "-----" then "AGGIORNAMENTO (n)": editorial, to the end
            notes.append(rest)
            continue
        entries.append((label, rest, tag == A + "paragraph"))
    return entries


def _take_printed_header(
    entries: list[tuple[str | None, str, bool]], key: str, heading: str | None, heading_amended: bool,
) -> tuple[str | None, bool]:
    """Drop a printed "Art. N." off the first unnumbered block and take its rubrica as the heading
    when the export gave none; `entries` is changed in place. Returns (heading, heading amended)."""
    if not (entries and entries[0][0] is None):
        return heading, heading_amended
    first = entries[0][1]
    lines = first.split("\n")
    hm = HEADER_RE.match(lines[0])
    if hm and normalize_article_key(hm.group("label")) == key:
        after = lines[0][hm.end():].lstrip(" .")
        lines = ([after] if after else []) + lines[1:]
        first = "\n".join(lines)
    if heading is None and first:
        numbered_later = any(lab for lab, _, _ in entries[1:])
        h, rest_after, h_amended = take_heading(first)
        if h is not None:
            heading, heading_amended = h, heading_amended or h_amended
            first = rest_after
        elif numbered_later and "\n" not in first and len(first) <= 400:
            heading, h_amended = clean_heading(first)
            heading_amended = heading_amended or h_amended
            first = ""
    if first:
        entries[0] = (None, first, entries[0][2])
    else:
        entries.pop(0)
    return heading, heading_amended


def _text_and_commi(entries: list[tuple[str | None, str, bool]]) -> tuple[str, list[Comma]]:
    """The article's text and its commi: the marked ones, and the unnumbered paragraphs that open
    with their comma number; none when no comma is marked."""
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
            commi.append(Comma(num=normalise_comma_num(m.group("num")), text=text))
            any_marked = True
        elif commi:
            commi[-1] = Comma(num=commi[-1].num, text=commi[-1].text + "\n" + rest)
        else:
            pending.append(rest)
    text = "\n".join(lines_out)
    if not any_marked:
        commi = []
    return text, commi


_PARTITIONS = frozenset(A + t for t in ("book", "part", "title", "chapter", "section", "subsection", "hcontainer"))
_LEVELS = ("parte", "libro", "titolo", "capo", "sezione")
_LEVEL_RE = re.compile(
    r"\b(parte|libro|titolo|capo|sezione)\s+(prima|seconda|terza|quarta|quinta|unica|[ivxlc]+(?:-[a-z]+)?|\d+)\b",
    re.IGNORECASE,
)


def _partition_label(el) -> str:
    num = inline_text(el.findtext(NUM)) or ""
    h_el = el.find(A + "heading")
    heading = inline_text(" ".join(h_el.itertext())) if h_el is not None else ""
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


def _key_from_num(num_label: str, eid: str | None) -> str:
    if num_label:
        key = normalize_article_key(num_label)
        if _KEY_RE.fullmatch(key.replace("-", "")) or re.match(r"^\d", key):
            return key
    if eid:
        return normalize_article_key(eid.split("__", 1)[0])
    return normalize_article_key(num_label) if num_label else ""
