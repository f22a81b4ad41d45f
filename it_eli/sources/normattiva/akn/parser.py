"""The entry point, `parse_act`: one export into an Act, its body and attachment articles joined,
keyed once each, then finished as served (lifecycle read, markers and notes out of the text, commi
derived where the export does not mark them)."""

from __future__ import annotations

import re
from typing import Iterable

import msgspec
from lxml import etree

from it_eli.law.grammar import LATIN as _LATIN
from it_eli.sources.normattiva import lifecycle as _lifecycle
from it_eli.sources.normattiva.akn.attachments import attachment_articles
from it_eli.sources.normattiva.akn.body import body_article
from it_eli.sources.normattiva.akn.identity import read_identity
from it_eli.sources.normattiva.akn.marks import is_repealed, normalise_comma_num
from it_eli.sources.normattiva.akn.model import Act, ActIdentity, Article, Comma
from it_eli.sources.normattiva.akn.text import element_text
from it_eli.sources.normattiva.akn.tree import A, fail, parse_tree


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
        raise fail("the XML is nested too deeply to be a Normattiva export", user_supplied) from None


def _parse_act(xml: bytes, user_supplied: bool) -> Act:
    root = parse_tree(xml, user_supplied)
    act = root.find(A + "act")
    if act is None:
        kinds = sorted({etree.QName(c).localname for c in root if isinstance(c.tag, str)})
        raise fail(f"akomaNtoso holds no <act> (found: {', '.join(kinds) or 'nothing'})", user_supplied)
    identity = read_identity(act)

    body_articles: list[Article] = []
    body = act.find(A + "body")
    order = 0
    if body is not None:
        for el in body.iter(A + "article"):
            body_articles.append(body_article(el, order))
            order += 1
    att_articles, annexes, code_found = attachment_articles(act, identity, order)

    if code_found:
        # The body only approves the code: its articles must not shadow the code's.
        body_articles = [msgspec.structs.replace(a, key=f"dec-{a.key}") for a in body_articles]

    articles = _dedupe(body_articles + att_articles)
    if not articles and not annexes and body is None:
        raise fail("the act has neither a body nor attachments", user_supplied)
    preface = act.find(A + "preface")
    preface_notes: list[str] = []
    preface_text = element_text(preface, preface_notes) if preface is not None else ""
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
            out.append((normalise_comma_num(m.group("num")), "\n".join(lines[i:end])))
        return out
    if code and not is_repealed(text):
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
