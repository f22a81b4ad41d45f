"""SentenzeWeb: pure parsing of the real captures, and the proof that user text stays data."""

from __future__ import annotations

import pytest
import re

from hypothesis import given, settings as hsettings, strategies as st

from it_eli.sources import sentenzeweb as sw
from it_eli.runtime.errors import InvalidArg, NotFound, QueryError, UpstreamChanged
from it_eli.law.query import Node, Not, Term, parse_query

BASE = "https://www.italgiure.giustizia.it/sncass"


def _read(testdata, name: str) -> bytes:
    return (testdata / "sentenzeweb" / name).read_bytes()


def _search(body: bytes) -> sw.CassazioneSearchResult:
    return sw.parse_search(body, query="x", solr_query="q", filters=[], rows=3, start=0, sentenzeweb_url=BASE)


# ------------------------------------------------------------------ parsing captures


def test_search_with_highlighting(testdata):
    res = _search(_read(testdata, "visualex__italgiure_search_2043_cc.json"))
    assert res.total == 1430 and len(res.hits) == 3 and res.next_offset == 3
    first = res.hits[0]
    assert first.sic_id == "snciv2026326016O"
    assert first.citation == "Cass. civ., sez. III, ord. n. 26016/2026"
    assert first.deposit_date == "2026-09-30" and first.chamber == "civile"
    assert "⟦2043⟧" in first.snippet and "<em>" not in first.snippet
    assert first.source_url.startswith("https://www.italgiure.giustizia.it/xway/application/nif/clean/hc.dll?")
    assert "snciv@s30@a2026@n26016@tO.clean.pdf" in first.source_url


def test_labour_section_citation(testdata):
    res = _search(_read(testdata, "visualex__italgiure_search_topic_chance_2043.json"))
    assert res.hits[0].citation == "Cass. civ., sez. lav., ord. n. 24908/2026"
    assert res.hits[1].citation == "Cass. civ., sez. I, ord. n. 22588/2026"


def test_empty_search(testdata):
    res = _search(_read(testdata, "visualex__italgiure_search_empty.json"))
    assert res.total == 0 and res.hits == [] and res.next_offset is None


def test_full_record_uses_filename_for_source_url(testdata):
    body = _read(testdata, "it-eli-mcp__cassazione_sample_solr_response.json")
    d = sw.parse_decision(body, sic_id="snciv2021521018O", sentenzeweb_url=BASE)
    assert d.citation == "Cass. civ., sez. V, ord. n. 21018/2021"
    assert d.decision_date == "2021-05-12" and d.deposit_date == "2021-07-22"
    assert d.source_url.endswith("db=snciv&id=./20210722/snciv@s50@a2021@n21018@tO.clean.pdf")
    assert d.dispositivo.startswith("P.Q.M.") and d.dispositivo in d.text  # ocrdis is also the end of ocr
    assert len(d.text) > 4000 and d.text.endswith("22 116. 20")  # whole: the MCP tool pages it


def test_criminal_and_obscured_records(testdata):
    pen = sw.parse_decision(
        _read(testdata, "visualex__italgiure_snpen_10787_2024.json"),
        sic_id="snpen2024710787O", sentenzeweb_url=BASE,
    )  # fmt: skip
    assert pen.citation == "Cass. pen., sez. VII, ord. n. 10787/2024" and pen.chamber == "penale"
    civ = sw.parse_decision(
        _read(testdata, "visualex__italgiure_snciv_10787_2024.json"),
        sic_id="snciv2024310787O", sentenzeweb_url=BASE,
    )  # fmt: skip
    assert civ.text_status == "obscuring_in_progress"


def test_not_found(testdata):
    with pytest.raises(NotFound):
        sw.parse_decision(
            _read(testdata, "visualex__italgiure_snciv_99999_2024.json"),
            sic_id="snciv2024399999O", sentenzeweb_url=BASE,
        )  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [b"<html><body>Service Unavailable</body></html>", b'{"response": {"numFound": 3, "docs": [', b"", b"[1, 2]"],
)
def test_unexpected_bodies_are_upstream_changed(body):
    with pytest.raises(UpstreamChanged):
        _search(body)


def test_facets_are_parsed():
    body = (
        b'{"response":{"numFound":5,"start":0,"docs":[]},"facet_counts":{"facet_fields":'
        b'{"anno":["2024",3,"2026",2],"szdec":["L",4,"5",1],"tipoprov":["Ordinanza",5],"kind":["snciv",5]}}}'
    )
    res = _search(body)
    assert [f.value for f in res.facets.anno] == ["2026", "2024"]
    assert res.facets.section[0].value == "L" and res.facets.chamber[0].value == "civile"


@pytest.mark.parametrize("good", ["snciv2021521018O", "snciv2026L24908O", "snpen2024710787O", "snciv2025224393O"])
def test_sic_id_accepts(good):
    assert sw.check_sic_id(good) == good


@pytest.mark.parametrize(
    "bad", ["", "snciv", "sncivXXXX521018O", 'snciv2021521018O" OR *:*', "snadm2021521018O", "snciv2021521018o", None, 5]
)
def test_sic_id_refuses(bad):
    with pytest.raises(InvalidArg) as exc:
        sw.check_sic_id(bad)
    assert exc.value.valid


def test_filters():
    assert sw.build_filters("civile", "lavoro", 2024) == ['kind:"snciv"', 'szdec:"L"', 'anno:"2024"']
    assert sw.build_filters(None, "tributaria", None) == ['kind:"snciv"', 'szdec:"5"']
    assert sw.build_filters("penale", None, None) == ['kind:"snpen"']
    for bad in [("penale", "lavoro", None), ("amministrativa", None, None), (None, None, 99), (None, None, "duemila")]:
        with pytest.raises(InvalidArg) as exc:
            sw.build_filters(*bad)
        assert exc.value.valid


@pytest.mark.parametrize(
    ("kwargs", "fq"),
    [
        ({"chamber": "Civile"}, ['kind:"snciv"']),
        ({"chamber": "PEN."}, ['kind:"snpen"']),
        ({"section": "sezioni unite"}, ['szdec:"U"']),
        ({"section": "SU"}, ['szdec:"U"']),
        ({"section": "S.U."}, ['szdec:"U"']),
        ({"section": "Sez. Un."}, ['szdec:"U"']),
        ({"section": "SS.UU.", "chamber": "penale"}, ['kind:"snpen"', 'szdec:"U"']),
        ({"section": "Lavoro"}, ['kind:"snciv"', 'szdec:"L"']),
        ({"sub_chamber": "Lavoro"}, ['kind:"snciv"', 'szdec:"L"']),
        ({"sub_chamber": "sezioni unite"}, ['szdec:"U"']),
        ({"section": "III"}, ['szdec:"3"']),
        ({"section": "sez. III", "chamber": "civile"}, ['kind:"snciv"', 'szdec:"3"']),
        ({"section": "terza"}, ['szdec:"3"']),
        ({"section": "7", "chamber": "penale"}, ['kind:"snpen"', 'szdec:"7"']),
        ({"section": "l"}, ['kind:"snciv"', 'szdec:"L"']),  # a facet value, any case
        ({"section": "III pen."}, ['kind:"snpen"', 'szdec:"3"']),
        ({"section": "Sez. Un. civ."}, ['kind:"snciv"', 'szdec:"U"']),
        ({"decision_type": "Sentenza"}, ['tipoprov:"Sentenza"']),
        ({"decision_type": "ord."}, ['tipoprov:"Ordinanza"']),
        ({"decision_type": "ordinanza interlocutoria"}, ['tipoprov:"Ordinanza Interlocutoria"']),
        ({"decision_type": "DECRETO"}, ['tipoprov:"Decreto"']),
        ({"section": "U", "decision_type": "sent.", "anno": 2020}, ['tipoprov:"Sentenza"', 'szdec:"U"', 'anno:"2020"']),
    ],
)
def test_section_and_decision_type_filters(kwargs, fq):
    args = {"chamber": None, "sub_chamber": None, "anno": None, **kwargs}
    assert sw.build_filters(args.pop("chamber"), args.pop("sub_chamber"), args.pop("anno"), **args) == fq


@pytest.mark.parametrize(
    ("kwargs", "listed"),
    [
        ({"section": "ottava"}, "sezioni unite"),
        ({"section": "Lavoro", "chamber": "penale"}, "chamber=civile"),
        ({"section": "U", "sub_chamber": "lavoro"}, "section"),
        ({"decision_type": "massima"}, "ordinanza interlocutoria"),
        ({"chamber": "amministrativa"}, "penale"),
    ],
)
def test_bad_filters_list_the_valid_values(kwargs, listed):
    args = {"chamber": None, "sub_chamber": None, "anno": None, **kwargs}
    with pytest.raises(InvalidArg) as exc:
        sw.build_filters(args.pop("chamber"), args.pop("sub_chamber"), args.pop("anno"), **args)
    assert listed in exc.value.valid


def test_phrases_and_words():
    assert sw.build_q('perdita di chance') == 'ocr:"perdita" AND ocr:"di" AND ocr:"chance"'
    assert sw.build_q('"perdita di chance" 2043') == 'ocr:"perdita di chance" AND ocr:"2043"'
    with pytest.raises((InvalidArg, QueryError)):
        sw.build_q('  "" * : ( ) ')


@pytest.mark.parametrize(
    ("query", "q"),
    [
        ('"danno biologico" OR "danno morale"', 'ocr:"danno biologico" OR ocr:"danno morale"'),
        ("danno -morale", 'ocr:"danno" AND NOT ocr:"morale"'),
        ("danno NOT morale", 'ocr:"danno" AND NOT ocr:"morale"'),
        ('danno -"danno morale"', 'ocr:"danno" AND NOT ocr:"danno morale"'),
        ("(danno OR lesione) AND biologico", '(ocr:"danno" OR ocr:"lesione") AND ocr:"biologico"'),
        ("danno (biologico OR morale) -patrimoniale",
         'ocr:"danno" AND (ocr:"biologico" OR ocr:"morale") AND NOT ocr:"patrimoniale"'),
        ("NOT danno", '*:* AND NOT ocr:"danno"'),
        ("danno OR -morale", 'ocr:"danno" OR (*:* AND NOT ocr:"morale")'),
        ('"danno ingiusto"~3', 'ocr:"danno ingiusto"~3'),
        ("danno^2 morale", 'ocr:"danno"^2 AND ocr:"morale"'),
        ("testo:danno", 'ocr:"danno"'),
        ("responsabilità medica", 'ocr:"responsabilità" AND ocr:"medica"'),
        ("c.c. art.2043 dell'art.", 'ocr:"c.c." AND ocr:"art.2043" AND ocr:"dell\'art."'),
    ],
)
def test_operators_have_the_meaning_of_it_case_search(query, q):
    assert sw.build_q(query) == q


def test_operator_notes_and_unknown_fields():
    q, terms, notes = sw.compile_query("risarcimento* danno~")
    assert q == 'ocr:"risarcimento" AND ocr:"danno"' and terms == ["risarcimento", "danno"]
    assert any("whole words" in n for n in notes) and any("spelling" in n for n in notes)
    with pytest.raises(QueryError) as exc:
        sw.build_q("relatore:rossi")
    assert "testo:" in exc.value.valid and "section" in exc.value.valid


# ------------------------------------------------------------------ query-structure proof


_FIXED = ("(", ")", " AND NOT ", " AND ", " OR ", "*:*")
_SUFFIX = re.compile(r"(?:~\d{1,2})?(?:\^\d{1,2}(?:\.\d+)?)?")


def parse_q(q: str) -> list[str]:
    """Strict reader of the only shapes allowed: `ocr:"…"` phrases (optionally `~N`, `^N`), joined
    by ` AND `, ` OR `, ` AND NOT `, grouped by balanced parentheses, and `*:*`. Returns the
    phrases' contents.

    Inside a Lucene/Solr quoted term a backslash escapes the next character and an unescaped
    quote ends the term; everything else is literal. We accept only `\\\\` and `\\"` escapes, so the
    decoded content is exactly what the parser sees as phrase text. Anything outside a phrase must
    be one of the fixed tokens: no user character can be there.
    """
    clauses: list[str] = []
    depth = 0
    i = 0
    while i < len(q):
        if q.startswith('ocr:"', i):
            i += 5
            buf: list[str] = []
            while True:
                c = q[i]
                if c == "\\":
                    assert q[i + 1] in '\\"'
                    buf.append(q[i + 1])
                    i += 2
                elif c == '"':
                    i += 1
                    break
                else:
                    buf.append(c)
                    i += 1
            clauses.append("".join(buf))
            i = _SUFFIX.match(q, i).end()
            continue
        tok = next((t for t in _FIXED if q.startswith(t, i)), None)
        assert tok is not None, q[i : i + 20]
        depth += {"(": 1, ")": -1}.get(tok, 0)
        assert depth >= 0, q
        i += len(tok)
    assert depth == 0, q
    return clauses


def _terms(node: Node) -> list[str]:
    """The words and phrases of a parsed query, in order, that can match something."""
    if isinstance(node, Term):
        text = " ".join(node.text.split())
        return [text] if any(ch.isalnum() for ch in text) else []
    if isinstance(node, Not):
        return _terms(node.child)
    return [t for c in node.children for t in _terms(c)]


SPECIALS = list('+-&|!(){}[]^"~*?:\\/ ') + ["OR", "AND", "NOT", "&&", "||", "{!lucene}", "*:*", "ocr:", "testo:",
                                          "\n", "\t", "\u00a0", "~3", "^2", "\u201c", "»"]
texts = st.lists(
    st.one_of(st.sampled_from(SPECIALS), st.text(min_size=1, max_size=30), st.sampled_from(["art.", "2043", "c.c."])),
    max_size=400,
).map("".join) | st.text(max_size=2_000)


@hsettings(max_examples=400, deadline=None)
@given(texts)
def test_user_text_never_changes_query_structure(text):
    try:
        q, terms, _ = sw.compile_query(text)
    except (InvalidArg, QueryError) as exc:
        assert exc.valid
        return
    clauses = parse_q(q)
    assert sorted(clauses) == sorted(terms) == sorted(_terms(parse_query(text).root))  # negations go last
    for clause in clauses:
        assert any(ch.isalnum() for ch in clause)
        for word in clause.split():
            assert word in text or word.replace('"', "") in text.replace('"', "")
    fq = sw.build_filters("civile", "lavoro", 2020, section=None, decision_type="sentenza")
    params = sw.search_params(q, fq, 10, 0)
    assert [v for k, v in params if k == "q"] == [sw.court_query(q, fq)] and dict(params)["hl.q"] == q
    assert sw.court_query(q, fq) == f'({q}) AND ((kind:"snciv" OR kind:"snpen")) AND ' + " AND ".join(fq)
    others = [p for p in sw.search_params("X", fq, 10, 0) if p[0] not in ("q", "hl.q")]
    assert [p for p in params if p[0] not in ("q", "hl.q")] == others


def test_long_query_of_specials_is_one_phrase_each():
    text = ('{!lucene} OR "c* [d TO e]" \\ *:* ' * 100)[:1000]
    clauses = parse_q(sw.build_q(text))
    assert "{!lucene}" in clauses and "c* [d TO e]" in clauses and "OR" not in clauses
