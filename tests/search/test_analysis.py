"""The Italian analyzer: what must and must not match, on words taken from the real texts.

Each row: (text as it stands in a real capture, what a user types, must match?, capture file).
The check is end to end: the text is indexed with the shipped analyzer and the query is run
through the shipped query compiler, exactly as searches are.
"""

from __future__ import annotations

import re

import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st

from it_eli.search.analysis import _ACCENT, Analyzer, apostrophe_accent
from it_eli.search.query import QueryCompiler
from it_eli.law.query import parse_query
from it_eli.search.schema import build_schema, load_index_def, register_analyzers

L241 = "normattiva-akn/mcp-legal-it__legge_241_1990.xml"
COST = "normattiva-akn/mcp-legal-it__costituzione.xml"
CP = "normattiva-akn/mcp-legal-it__codice_penale.xml"
REC = "cortecost/records/record_0000.json"
REC2 = "cortecost/records/record_0002.json"
REC7 = "cortecost/records/record_0007.json"
REC8 = "cortecost/records/record_0008.json"

PAIRS = [
    # apostrophe-accents (Normattiva) = real accents = no accents
    ("facolta'", "facoltà", True, L241),
    ("facolta'", "facolta", True, L241),
    ("responsabilita'", "responsabilità", True, L241),
    ("responsabilita'", "responsabilita", True, L241),
    ("responsabilita'", "responsabile", True, L241),  # the reference's FTS5 misses this one
    ("autorita'", "autorità", True, L241),
    ("pubblicita'", "pubblicità", True, L241),
    ("liberta'", "libertà", True, COST),
    ("liberta'", "liberta", True, COST),
    ("nonche'", "nonché", True, L241),
    ("attivita'", "attività", True, L241),
    ("modalita'", "modalità", True, L241),
    ("puo' essere", "può", True, L241),
    ("E' vietata", "è vietata", True, COST),
    # accented text found without accents
    ("legittimità", "legittimita", True, REC),
    ("inammissibilità", "inammissibilita", True, REC),
    ("perché", "perche", True, REC7),
    ("libertà", "liberta", True, REC7),
    # plurals and inflections find each other (Snowball Italian)
    ("ordinanze", "ordinanza", True, REC),
    ("questioni", "questione", True, REC),
    ("procedimenti", "procedimento", True, REC),
    ("giudici", "giudice", True, COST),
    ("reati", "reato", True, COST),
    ("pene", "pena", True, COST),
    ("contratti", "contratto", True, L241),
    ("comuni", "comune", True, REC7),
    ("persone", "persona", True, REC2),
    ("notificazioni", "notificazione", True, L241),
    ("amministrazioni", "amministrazione", True, L241),
    ("sanzioni", "sanzione", True, L241),
    # elision split: the word after the apostrophe is searchable on its own
    ("dell'ordinanza", "ordinanza", True, REC2),
    ("d'appello", "appello", True, REC8),
    ("dell'art. 6", "art", True, REC),
    ("l'ordinanza", "ordinanza", True, REC2),
    # phrases survive stopwords and elisions
    ("procedimento amministrativo", '"procedimento amministrativo"', True, L241),
    ("diritti inviolabili", '"diritto inviolabile"', True, COST),
    ("Corte d'appello di Roma", '"corte d\'appello"', True, REC8),
    # must NOT match: different words that a naive folding or prefixing would confuse
    ("omicidio", "omissione", False, CP),
    ("pena", "penale", False, CP),
    ("Stato", "statale", False, REC),
    ("giurisdizione", "giurisprudenza", False, REC),
    ("ricorrente", "ricorso", False, REC8),
    ("rimessione", "remissione", False, REC2),
    ("contratti", "contrattazione collettiva", False, L241),
    ("procedimento amministrativo", '"amministrativo procedimento"', False, L241),
    ("la sentenza", "la", False, "cortecost/records/record_0009.json"),  # a stopword alone finds nothing
]


def _index_with(text: str):
    defn = load_index_def("statute_articles")
    schema = build_schema(defn)
    index = tantivy.Index(schema)
    register_analyzers(index)
    w = index.writer(15_000_000, 1)
    an = Analyzer()
    w.add_document(tantivy.Document(doc_id="x", text=an.prepare(text)))
    w.commit()
    index.reload()
    return index


def _matches(text: str, query: str) -> bool:
    index = _index_with(text)
    compiler = QueryCompiler(index.schema, {"text": 1.0}, {"text": ["text"]}, {"text": Analyzer()})
    try:
        q = compiler.compile(parse_query(query).root)
    except Exception:
        return False
    if q is None:
        return False
    return index.searcher().search(q, 1).count > 0


def test_the_table_is_large_enough():
    assert len(PAIRS) >= 40
    assert sum(1 for p in PAIRS if not p[2]) >= 8


@pytest.mark.parametrize("text,query,expected,source", PAIRS, ids=[f"{p[1]}~{p[0]}" for p in PAIRS])
def test_pair(text, query, expected, source):
    assert _matches(text, query) is expected


@pytest.mark.parametrize("text,query,expected,source", PAIRS, ids=[f"{p[0]}@{p[3]}" for p in PAIRS])
def test_pair_text_is_from_the_real_capture(testdata, text, query, expected, source):
    """The left side of each pair is real: it occurs verbatim in the named capture."""
    data = (testdata / source).read_bytes().decode("utf-8", "replace")
    if source.endswith(".json"):
        import json

        data = " ".join(str(v) for v in json.loads(data).values())
    assert text in data


def test_apostrophe_filter_keeps_byte_length_and_leaves_elisions():
    for s in ["facolta' dell'ente", "E' vietato", "perche'", "l'art. 3", "citta’ metropolitana"]:
        assert len(apostrophe_accent(s).encode()) == len(s.encode())
    assert apostrophe_accent("dell'amministrazione") == "dell'amministrazione"
    assert apostrophe_accent("la facolta' e' piena") == "la facoltà è piena"


_WORD_FINAL_QUOTE = re.compile(r"([aeiouAEIOU])'(?!\w)")
_WORD_FINAL_TYPO_QUOTE = re.compile(r"(?<=\w)([aeiouAEIOU])\u2019(?!\w)")


def _accent_by_definition(text: str) -> str:
    """The rule as two regexes: a vowel + quote ending a word (or a lone E'), then the same
    with the typographic quote after a letter, padded to keep the byte length."""

    def straight(m: re.Match) -> str:
        i = m.start()
        after_letter = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        return _ACCENT[m.group(1)] if after_letter or m.group(1) in "eE" else m.group(0)

    text = _WORD_FINAL_QUOTE.sub(straight, text)
    return _WORD_FINAL_TYPO_QUOTE.sub(lambda m: _ACCENT[m.group(1)] + "  ", text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["a", "e", "E", "o", "x", "l", "'", "\u2019", " ", "_", "1", ".", "à", "\n"]),
                max_size=12).map("".join))
def test_apostrophe_filter_is_the_regex_rule(text):
    """The fast literal scan accents exactly what the plain regex rule accents."""
    assert apostrophe_accent(text) == _accent_by_definition(text)
    assert len(apostrophe_accent(text).encode()) == len(text.encode())


def test_display_text_is_not_folded():
    """Folding happens in the index; the analyzer never changes what a reader sees."""
    an = Analyzer()
    assert an.analyze("Facolta'") == an.analyze("facoltà")
    assert "facolta'" in "La facolta' del giudice"  # stored text is the caller's business, untouched
