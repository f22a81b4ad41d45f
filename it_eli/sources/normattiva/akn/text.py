"""Elements flattened to text: line breaks at block boundaries, authorial notes diverted, whitespace
normalised. Apart because body and attachments read their text the same way."""

from __future__ import annotations

import re

from it_eli.sources.normattiva.akn.tree import NS, A

_BLOCK = frozenset(
    A + t
    for t in (
        "p", "paragraph", "content", "list", "intro", "point", "wrapUp", "alinea", "subparagraph",
        "section", "blockList", "item", "listIntroduction", "listWrapUp", "tr", "table", "blockContainer",
        "heading", "subheading", "clause", "indent", "hcontainer", "tblock", "subsection",
    )
)
_CELL = frozenset(A + t for t in ("td", "th"))
NUM = A + "num"
_NOTE = A + "authorialNote"
_BR = A + "eol"
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
            t = clean_whitespace("".join(buf))
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
    if tag == NUM:
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


def clean_whitespace(s: str) -> str:
    """Whitespace normalisation only: collapse runs inside lines, drop blank lines."""
    s = _GLUE_RE.sub(" ", s)
    lines = (_WS_RE.sub(" ", line).strip() for line in s.split("\n"))
    return "\n".join(line for line in lines if line)


def element_text(el, notes: list[str] | None = None) -> str:
    out: list[str] = []
    if el.text:
        out.append(el.text)
    _collect_children(el, out, notes)
    return clean_whitespace("".join(out))


def inline_text(s: str | None) -> str:
    return _WS_RE.sub(" ", (s or "").replace("\n", " ")).strip()


def first_value(el, path: str) -> str | None:
    r = el.xpath(path, namespaces=NS)
    if not r:
        return None
    v = r[0]
    # str(): xpath string results are lxml smart strings that keep the whole tree alive.
    return str(v) if isinstance(v, str) else inline_text("".join(v.itertext()))


def text_without_num(paragraph, notes: list[str]) -> str:
    out: list[str] = []
    if paragraph.text:
        out.append(paragraph.text)
    for child in paragraph:
        if child.tag == NUM:
            if child.tail:
                out.append(child.tail)
            continue
        _collect(child, out, notes)
        if child.tail:
            out.append(child.tail)
    return clean_whitespace("".join(out))
