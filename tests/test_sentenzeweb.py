"""SentenzeWeb: pure parsing of the real captures, and the proof that user text stays data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from it_eli import sentenzeweb as sw
from it_eli.errors import InvalidArg, NotFound, UpstreamChanged

BASE = "https://www.italgiure.giustizia.it/sncass"


def _read(testdata, name: str) -> bytes:
    return (testdata / "sentenzeweb" / name).read_bytes()


def _search(body: bytes) -> sw.CassazioneSearchResult:
    return sw.parse_search(body, query="x", solr_query="q", filters=[], limit=3, offset=0, sentenzeweb_url=BASE)


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
    d = sw.parse_decision(body, sic_id="snciv2021521018O", max_chars=1000, offset=0, sentenzeweb_url=BASE)
    assert d.citation == "Cass. civ., sez. V, ord. n. 21018/2021"
    assert d.decision_date == "2021-05-12" and d.deposit_date == "2021-07-22"
    assert d.source_url.endswith("db=snciv&id=./20210722/snciv@s50@a2021@n21018@tO.clean.pdf")
    assert d.dispositivo.startswith("P.Q.M.")
    assert len(d.text) == 1000 and d.next_offset == 1000 and d.total_chars > 4000
    rest = sw.parse_decision(body, sic_id="snciv2021521018O", max_chars=100000, offset=1000, sentenzeweb_url=BASE)
    assert rest.next_offset is None and d.text + rest.text == d.text + rest.text  # pages join
    assert rest.text.endswith("22 116. 20")
    with pytest.raises(InvalidArg):
        sw.parse_decision(body, sic_id="snciv2021521018O", max_chars=10, offset=10**6, sentenzeweb_url=BASE)


def test_criminal_and_obscured_records(testdata):
    pen = sw.parse_decision(
        _read(testdata, "visualex__italgiure_snpen_10787_2024.json"),
        sic_id="snpen2024710787O", max_chars=5000, offset=0, sentenzeweb_url=BASE,
    )  # fmt: skip
    assert pen.citation == "Cass. pen., sez. VII, ord. n. 10787/2024" and pen.chamber == "penale"
    civ = sw.parse_decision(
        _read(testdata, "visualex__italgiure_snciv_10787_2024.json"),
        sic_id="snciv2024310787O", max_chars=5000, offset=0, sentenzeweb_url=BASE,
    )  # fmt: skip
    assert civ.text_status == "obscuring_in_progress"


def test_not_found(testdata):
    with pytest.raises(NotFound):
        sw.parse_decision(
            _read(testdata, "visualex__italgiure_snciv_99999_2024.json"),
            sic_id="snciv2024399999O", max_chars=100, offset=0, sentenzeweb_url=BASE,
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
    assert sw.build_filters("civile", "lavoro", 2024) == ["kind:snciv", "szdec:L", "anno:2024"]
    assert sw.build_filters(None, "tributaria", None) == ["kind:snciv", "szdec:5"]
    assert sw.build_filters("penale", None, None) == ["kind:snpen"]
    for bad in [("penale", "lavoro", None), ("amministrativa", None, None), (None, None, 99), (None, None, "2024")]:
        with pytest.raises(InvalidArg):
            sw.build_filters(*bad)


def test_phrases_and_words():
    assert sw.build_q('perdita di chance') == 'ocr:"perdita" AND ocr:"di" AND ocr:"chance"'
    assert sw.build_q('"perdita di chance" 2043') == 'ocr:"perdita di chance" AND ocr:"2043"'
    with pytest.raises(InvalidArg):
        sw.build_q('  "" * : ( ) ')


# ------------------------------------------------------------------ query-structure proof


def parse_q(q: str) -> list[str]:
    """Strict reader of the only shape allowed: ocr:"…" joined by ' AND '.

    Inside a Lucene/Solr quoted term a backslash escapes the next character and an
    unescaped quote ends the term; everything else is literal. We accept only `\\\\` and
    `\\"` escapes, so the decoded content is exactly what the parser sees as phrase text.
    """
    clauses: list[str] = []
    i = 0
    while True:
        assert q.startswith('ocr:"', i), q[i : i + 20]
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
        if i == len(q):
            return clauses
        assert q.startswith(" AND ", i), q[i : i + 20]
        i += 5


SPECIALS = list('+-&|!(){}[]^"~*?:\\/ ') + ["OR", "AND", "NOT", "&&", "||", "{!lucene}", "*:*", "ocr:", "\n", "\t", "\u00a0"]
texts = st.lists(
    st.one_of(st.sampled_from(SPECIALS), st.text(min_size=1, max_size=30), st.sampled_from(["art.", "2043", "c.c."])),
    max_size=400,
).map("".join) | st.text(max_size=10_000)


@hsettings(max_examples=300, deadline=None)
@given(texts)
def test_user_text_never_changes_query_structure(text):
    try:
        q = sw.build_q(text)
    except InvalidArg:
        assert sw.query_terms(text) == []
        return
    clauses = parse_q(q)
    assert clauses == sw.query_terms(text)
    for clause in clauses:
        assert any(ch.isalnum() for ch in clause)
        for word in clause.split():
            assert word in text or word.replace('"', "") in text.replace('"', "")
    if '"' not in text:  # no phrases: exactly the whitespace-separated words carrying a letter/digit
        assert clauses == [w for w in text.split() if any(ch.isalnum() for ch in w)]
    fq = sw.build_filters("civile", "lavoro", 2020)
    params = sw.search_params(q, fq, 10, 0)
    assert [v for k, v in params if k == "q"] == [q]
    assert [p for p in params if p[0] != "q"] == [p for p in sw.search_params("X", fq, 10, 0) if p[0] != "q"]


def test_long_query_of_specials_is_one_phrase_each():
    text = ('a:b OR "c* [d TO e]" \\ ' * 500)[:10_000]
    clauses = parse_q(sw.build_q(text))
    assert "OR" in clauses and "c* [d TO e]" in clauses and "a:b" in clauses
