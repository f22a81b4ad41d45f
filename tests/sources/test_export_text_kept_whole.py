"""Every word an export gives an article reaches the served article (text, heading, notes), and
a text the export itself gives incomplete says so: walks every export in normattiva-akn/."""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree

from it_eli.sources.normattiva.akn.parser import parse_act
from it_eli.sources.normattiva.akn.tree import A, NS, make_parser
from it_eli.law.grammar import LATIN as _LATIN

AKN = "normattiva-akn"
WORD = re.compile(r"[^\W\d_]{3,}")
LATIN = re.compile(_LATIN, re.IGNORECASE)  # "Art. 33-nonies." printed in the text, keyed 33-novies


def _words(*parts: str) -> Counter:
    return Counter(w.lower() for p in parts for w in WORD.findall(p or ""))


def _exports(testdata):
    for path in sorted((testdata / AKN).glob("*.xml")):
        raw = path.read_bytes()
        yield path.name, parse_act(raw), etree.fromstring(raw, make_parser()).find(A + "act")


def test_no_word_of_an_article_is_lost(testdata):
    """The parser drops no words: each word of an article element (or of an article's attachment
    doc) is in what is served for it. Left out: the article number, the codes' title line and a
    placeholder heading ('null'); a word split by inline markup (quotedText inside a word) is
    compared as the export's pieces."""
    checked = 0
    lost: list[tuple[str, str, list[str]]] = []
    for name, act, el in _exports(testdata):
        body = el.find(A + "body")
        served = [a for a in act.articles if not a.in_attachment]
        pairs = list(zip(body.iter(A + "article"), served)) if body is not None else []
        attached = sorted((a for a in act.articles + act.annexes if a.in_attachment), key=lambda a: a.order)
        docs = el.xpath("a:attachments/a:attachment/a:doc", namespaces=NS)
        assert len(docs) == len(attached), name
        pairs.extend((doc.find(A + "mainBody"), a) for doc, a in zip(docs, attached) if doc.find(A + "mainBody") is not None)
        for node, a in pairs:
            own = [node.find(A + "num")] + ([node.find(A + "heading")] if a.heading is None else [])
            # the printed "Art. N." and a placeholder line "Articolo" (d.lgs. 36/2023) are not law
            skip = set(_words(a.num, a.key.replace("-", " "), a.attachment or "", "articolo",
                              "codice penale disposizioni transitorie finali",
                              *(" ".join(x.itertext()) for x in own if x is not None)))
            have = _words(a.heading or "", a.text, a.notes)
            # a word cut by inline elements ("t<quotedText>e</quotedText>rzo") is served whole
            served_text = " ".join([a.heading or "", a.text, a.notes]).lower()
            missing = [w for w in _words(" ".join(node.itertext())) if w not in have and w not in skip
                       and w not in served_text and not LATIN.fullmatch(w)]
            if missing:
                lost.append((name, a.key, missing[:5]))
            checked += 1
    assert checked > 5000
    assert lost == [], lost[:30]


def test_text_the_export_gives_incomplete_says_so(testdata):
    """l. 633/1941 art. 120: the export's only <p> opens at "2)" (heading literally "null"): the
    sentence introducing the list and item 1 are in no element of the export. The rule: a text
    that opens at a later item of a list carries a gap; every other text carries none."""
    flagged = []
    for name, act, _ in _exports(testdata):
        for a in act.articles:
            opens_late = re.match(r"^\(*\s*(?:(?:[2-9]|\d{2,3})\s*[)°]|[b-z]\))\s", a.text)
            assert bool(a.text_gaps) == bool(opens_late), (name, a.key, a.text[:60])
            if a.text_gaps:
                flagged.append((name, a.key))
    assert ("alessionar__19410716_041U0633_VIGENZA_20220922.xml", "120") in flagged
    art = parse_act((testdata / AKN / "alessionar__19410716_041U0633_VIGENZA_20220922.xml").read_bytes()).article("120")
    assert art.heading is None and art.text.startswith("2) senza pregiudizio")
    assert "starts at item 2)" in art.text_gaps[0] and "incomplete" in art.text_gaps[0]
