"""Reading an export's bytes safely: HTML error pages and DTDs (entity bombs, XXE) refused before
lxml sees them, a parser that fetches and expands nothing, and the AKN namespace. The bottom of the
parser: every other module reads the tree this one gives."""

from __future__ import annotations

from lxml import etree

from it_eli.runtime.errors import InvalidArg, ItEliError, NotAvailable, UpstreamChanged

AKN_NS = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
A = "{%s}" % AKN_NS
NS = {"a": AKN_NS}


_EXPECTED = (
    "an Akoma Ntoso 3.0 XML document as exported by Normattiva "
    "(<akomaNtoso xmlns=\"http://docs.oasis-open.org/legaldocml/ns/akn/3.0\"><act>…)"
)


def fail(message: str, user_supplied: bool, **details) -> ItEliError:
    if user_supplied:
        return InvalidArg(message, valid=_EXPECTED, **details)
    return UpstreamChanged(message, valid=_EXPECTED, **details)


def make_parser() -> etree.XMLParser:
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
        raise fail(f"expected bytes, got {type(xml).__name__}", user_supplied)
    head = bytes(xml[:8192])
    if not head.strip():
        raise fail("empty document", user_supplied)
    probe = head.replace(b"\x00", b"").lower()  # also catches UTF-16 text
    if b"<html" in probe:
        if b"errore" in probe or b"errore" in bytes(xml[:65536]).lower():
            # Normattiva answers unknown/unavailable acts with its "Normattiva - Errore" page.
            raise NotAvailable(
                "Normattiva returned its error page instead of an Akoma Ntoso export",
                valid=_EXPECTED,
            )
        raise fail("got an HTML page, not an Akoma Ntoso XML export", user_supplied)
    # A DTD may only sit in the prolog, i.e. before the root element; entity declarations
    # cannot occur anywhere else. Scan the whole prolog (it may be long) case-insensitively.
    whole = bytes(xml).replace(b"\x00", b"") if b"\x00" in head else bytes(xml)
    root_at = _root_start(whole)
    prolog = whole[: root_at if root_at >= 0 else len(whole)].upper()
    if b"<!DOCTYPE" in prolog or b"<!ENTITY" in prolog:
        raise fail(
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


def parse_tree(xml: bytes, user_supplied: bool) -> etree._Element:
    _sniff(xml, user_supplied)
    try:
        root = etree.fromstring(bytes(xml), make_parser())
    except etree.XMLSyntaxError as exc:
        raise fail(f"not well-formed XML: {exc}", user_supplied) from None
    except ValueError as exc:  # e.g. unicode strings with encoding declaration
        raise fail(f"unreadable XML: {exc}", user_supplied) from None
    doc = root.getroottree()
    if doc.docinfo.doctype or doc.docinfo.internalDTD is not None:
        raise fail("document carries a DOCTYPE declaration; refused", user_supplied)
    if root.tag != A + "akomaNtoso":
        raise fail(f"root element is {root.tag!r}, not akomaNtoso in the AKN 3.0 namespace", user_supplied)
    return root
