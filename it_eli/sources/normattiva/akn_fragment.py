"""One article's Akoma Ntoso XML, cut from a whole export.

Why: `format=akn_xml` with an `article` must return that article, not the whole 4 MB code. The
article is found by the same keys the parser gives (`parse_act`), then its element — a body
`<article eId=…>` or a code's `<attachment><doc name="Codice Penale-art. N">` — is serialised
with the AKN namespace declared.
"""

from __future__ import annotations

from lxml import etree

from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.sources.normattiva.akn.tree import A, parse_tree

__all__ = ["article_xml"]


def article_xml(xml: bytes, key: str) -> bytes | None:
    """The XML of article `key` of an export, or None when the export has no such article."""
    act = parse_act(xml)
    art = act.article(key)
    if art is None:
        return None
    root = parse_tree(xml, False)
    el = None
    if art.attachment:
        for doc in root.iter(A + "doc"):
            if doc.get("name") == art.attachment:
                el = doc
                break
    elif art.eid:
        for cand in root.iter(A + "article"):
            if cand.get("eId") == art.eid:
                el = cand
                break
    if el is None:
        # fall back on document order: the n-th body article
        body = [a for a in root.iter(A + "article")]
        if 0 <= art.order < len(body) and not art.in_attachment:
            el = body[art.order]
    if el is None:
        return None
    return etree.tostring(el, encoding="utf-8", xml_declaration=True)
