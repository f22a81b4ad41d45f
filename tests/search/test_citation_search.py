"""Search that understands citations: a query that is a citation also matches the forms the texts
write it in (it_case_search, it_search_statutes)."""

from __future__ import annotations

import pytest

from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index
from it_eli.law.forms import citation_phrases
from it_eli.search.statutes.store import StatuteStore
from it_eli.search.statutes.loading import import_files


@pytest.fixture(scope="module")
def decisions(tmp_path_factory, testdata):
    from it_eli.runtime.config import load_settings

    settings = load_settings({"IT_ELI_HOME": str(tmp_path_factory.mktemp("home"))})
    build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    return DecisionIndex(settings)


@pytest.mark.parametrize("query", ["d.lgs. 80/1998", "D.Lgs. n. 80 del 1998", "dlgs 80/98"])
def test_case_search_by_short_citation_finds_the_decision_citing_the_long_form(decisions, query):
    # ordinanza 12/2001 cites "decreto legislativo 31 marzo 1998, n. 80" and never "d.lgs. 80/1998"
    res = decisions.search(query)
    assert res.hits and res.hits[0].ecli == "ECLI:IT:COST:2001:12", [h.ecli for h in res.hits]
    assert any("citation" in n for n in res.notes)


def test_a_question_is_not_rewritten():
    assert citation_phrases("quali sanzioni prevede il d.lgs. 231/2001 per le società") == []
    assert citation_phrases("danno ingiusto") == []


def test_forms_of_a_citation():
    phrases = [w for w, _ in citation_phrases("l. 241/90")]
    assert "legge 1990 241" in phrases and "legge 241 1990" in phrases
    assert any(w.startswith("articolo 3 costituzione") for w, _ in citation_phrases("art. 3 Cost."))


def test_statute_search_by_citation_matches_the_written_out_form(testdata, make_settings):
    settings = make_settings()
    import_files(settings, [testdata / "normattiva-akn" / "ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml"])
    store = StatuteStore(settings)
    res = store.search("l. 241/90")
    # the CAD writes "legge 7 agosto 1990, n. 241": matched (and marked) as the law, year in four digits
    top = res.hits[0].snippet or ""
    assert "**legge** 7 agosto **1990**, n. **241**" in top, top


@pytest.fixture(scope="module")
def codes_store(tmp_path_factory, testdata):
    from it_eli.runtime.config import load_settings

    settings = load_settings({"IT_ELI_HOME": str(tmp_path_factory.mktemp("codes"))})
    akn = testdata / "normattiva-akn"
    import_files(settings, [akn / "mcp-legal-it__codice_penale.xml", akn / "mcp-legal-it__costituzione.xml",
                            akn / "mcp-legal-it__legge_241_1990.xml"])
    return StatuteStore(settings)


@pytest.mark.parametrize("query,article", [
    ("art. 52 c.p.", "52"), ("art. 3 Cost.", "3"), ("l. 241/1990 art. 21-octies", "21-octies"),
    ("legittima difesa ex art. 52 c.p.", "52"),
])
def test_the_article_a_statute_search_cites_comes_first(codes_store, query, article):
    # the words alone rank other articles above it: 'art. 52 c.p.' found art. 55 first
    res = codes_store.search(query)
    assert res.hits[0].article == article and res.cited_first == 1, [h.article for h in res.hits]


def test_paging_a_cited_search_loses_and_repeats_nothing(codes_store):
    from it_eli.search.query import HitWindow

    pages = [codes_store.search("art. 52 c.p.", window=HitWindow(start=s, size=3)) for s in range(0, 12, 3)]
    shown = [h.article for p in pages for h in p.hits]
    whole = codes_store.search("art. 52 c.p.", window=HitWindow(size=50))
    assert shown.count("52") == 1 and len(set(shown)) == len(shown)
    assert set(shown) == {h.article for h in whole.hits}
