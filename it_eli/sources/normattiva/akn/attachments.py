"""The attachments, `attachments/attachment/doc`: the codes' articles, the Costituzione's
transitional provisions, other attachments' articles and the annexes. Apart because each doc is
plain text whose "Art. N." and rubrica must be read off the print."""

from __future__ import annotations

import re

import msgspec

from it_eli.law.grammar import int_to_roman, normalize_article_key, roman_to_int
from it_eli.sources.normattiva.akn.marks import (
    HEADER_RE,
    NOTES_START_RE,
    clean_heading,
    has_amendments,
    is_repealed,
    take_heading,
)
from it_eli.sources.normattiva.akn.model import ActIdentity, Article
from it_eli.sources.normattiva.akn.text import clean_whitespace, element_text, first_value
from it_eli.sources.normattiva.akn.tree import NS, A

_DOC_ART_RE = re.compile(r"^(?P<group>.+?)\s*-\s*art\.?\s*(?P<num>\S.*)$", re.IGNORECASE)
_ALLCAPS_RE = re.compile(r"^[^a-z]*[A-Z][^a-z]*$")
_DISP_TRANS_TITLE_RE = re.compile(r"^DISPOSIZIONI\s+TRANSITORIE\s+E\s+FINALI\b", re.IGNORECASE)


def _slug(s: str) -> str:
    s = re.sub(r"[^0-9a-z.]+", "-", s.lower())
    return re.sub(r"-{2,}", "-", s).strip("-.")


def _doc_texts(doc) -> tuple[str, str]:
    """(normative text, editorial notes) of an attachment doc's mainBody."""
    main = doc.find(A + "mainBody")
    if main is None:
        return "", ""
    notes: list[str] = []
    parts: list[str] = []
    in_notes = False
    for child in main:
        if not isinstance(child.tag, str):
            continue
        t = element_text(child, notes)
        if not t:
            continue
        if in_notes or NOTES_START_RE.match(t.split("\n", 1)[0]):
            in_notes = True
            notes.append(t)
        else:
            parts.append(t)
    if main.text and main.text.strip():
        parts.insert(0, clean_whitespace(main.text))
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
        m = HEADER_RE.match(line)
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
        heading, rest, amended = take_heading(rest)
        if heading is None and is_code:
            # Every article of a code has a rubrica; when it is not parenthesised it is the
            # first line, provided more text follows and it is not a repeal notice.
            first, _, remainder = rest.partition("\n")
            if remainder and not is_repealed(first) and not re.match(r"^\W*(COMMA|ARTICOLO)\b", first):
                heading, h_amended = clean_heading(first)
                amended = amended or h_amended
                rest = remainder
        return label, heading, "\n".join(before + ([rest] if rest else [])), amended
    return None, None, text, False


def attachment_articles(act, identity: ActIdentity, start_order: int) -> tuple[list[Article], list[Article], bool]:
    """Articles and annexes from `attachments/attachment/doc`; flag whether a code was found."""
    docs = act.xpath("a:attachments/a:attachment/a:doc", namespaces=NS)
    if not docs:
        return [], [], False
    names = [d.get("name") or "" for d in docs]
    code_groups = _code_groups(names)
    articles: list[Article] = []
    annexes: list[Article] = []
    seen: dict[str, int] = {}
    order = start_order
    is_costituzione = identity.act_type == "costituzione"
    for doc, name in zip(docs, names):
        eid = doc.get("eId") or first_value(doc, "a:meta/a:identification/a:FRBRWork/a:FRBRthis/@value")
        text, notes = _doc_texts(doc)
        m = _DOC_ART_RE.match(name)
        roman = None
        if is_costituzione:
            rm = re.match(r"^Allegato[\s-]*([IVXLCDM]+)$", name.strip(), re.IGNORECASE)
            roman = roman_to_int(rm.group(1)) if rm else None
        if m:
            art = _numbered_article(doc, name, m, text, notes, eid, order, code_groups)
            target = articles
        elif roman:
            art = _transitional_provision(doc, name, roman, text, notes, eid, order)
            target = articles
        else:
            art = _annex(doc, name, text, notes, eid, order)
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


def _code_groups(names: list[str]) -> set[str]:
    """The groups of the docs named '<group>-art. N' that are codes ('Codice Penale')."""
    code_groups = set()
    for n in names:
        m = _DOC_ART_RE.match(n)
        if m and m.group("group").strip().lower().startswith("codice"):
            code_groups.add(m.group("group").strip())
    return code_groups


def _numbered_article(doc, name: str, m, text: str, notes: str, eid, order: int, code_groups: set[str]) -> Article:
    """A doc named '<group>-art. N' (`m` its name's match): a code's article keyed by its number,
    any other group's keyed `<group slug>-art-<n>`."""
    group = m.group("group").strip()
    label, heading, body, h_amended = _split_header(text, name, group in code_groups)
    raw_num = m.group("num").strip()
    num_key = normalize_article_key(raw_num)
    if not re.match(r"^\d", num_key) and label:
        num_key = normalize_article_key(label)
    key = num_key if group in code_groups else f"{_slug(group)}-art-{num_key}"
    return Article(
        key=key,
        num=label or f"Art. {raw_num}",
        heading=heading,
        text=body,
        commi=[],
        repealed=is_repealed(body),
        amended=h_amended or has_amendments(body) or doc.find(".//" + A + "ins") is not None,
        eid=eid,
        order=order,
        in_attachment=True,
        notes=notes,
        attachment=name,
    )


def _transitional_provision(doc, name: str, roman: int, text: str, notes: str, eid, order: int) -> Article:
    """One of the Costituzione's transitional provisions (`Allegato-XVIII`), keyed `disp-trans-<n>`."""
    lines = text.split("\n")
    while lines and _DISP_TRANS_TITLE_RE.match(lines[0]):
        lines.pop(0)
    label = None
    if lines and roman_to_int(lines[0].strip().rstrip(".")) == roman:
        label = lines.pop(0).strip()
    body = "\n".join(lines)
    return Article(
        key=f"disp-trans-{roman}",
        num=label or int_to_roman(roman),
        heading=None,
        text=body,
        commi=[],
        repealed=is_repealed(body),
        amended=has_amendments(body) or doc.find(".//" + A + "ins") is not None,
        eid=eid,
        order=order,
        in_attachment=True,
        notes=notes,
        attachment=name,
    )


def _annex(doc, name: str, text: str, notes: str, eid, order: int) -> Article:
    """An attachment that is no article (a table, an annex): kept whole, keyed by its name."""
    return Article(
        key=_slug(name) or "allegato",
        num=name,
        heading=None,
        text=text,
        commi=[],
        repealed=False,
        amended=has_amendments(text) or doc.find(".//" + A + "ins") is not None,
        eid=eid,
        order=order,
        in_attachment=True,
        notes=notes,
        attachment=name,
    )
