"""SentenzeWeb as the court's own front-end shows and asks it (sentenzeweb/frontend/: 22 pages
rendered from live sn.solr answers, Nov 2025, and the court's index.js saved with them).

- every result card's printed values (id, type, section, number, ECLI, PDF link) come out of
  it_eli's parsing into the same Structs, with the same values;
- every value of every facet list the court printed is a filter it_cassazione_search accepts, and
  the clause it_eli sends for it is the one the court's script builds (`field:"value"`), in the `q`
  the script builds (text, start query, filters in the order of its facet lists);
- the request paths, facet parameters and sort orders are the script's.
Internet-marked tests (off by default) ask the real service the same requests.
"""

from __future__ import annotations

import itertools
import re

import pytest
from lxml import html as lxml_html

from it_eli.runtime.errors import InvalidArg
from it_eli.sources import sentenzeweb as sw
from it_eli.sources.sentenzeweb import answers
from it_eli.sources.http import HttpClient
from it_eli.services import caselaw_live as tools
from tests import sentenzeweb_frontend as fe
from tests.mcp.test_caselaw_live_tools import live, upstream  # noqa: F401  (the local server fixtures)

BASE = "https://www.italgiure.giustizia.it/sncass"
FORM_PAGE = "studiorizzo__sentenze.github.io__siti_Sentenze_Cassazione.html"


@pytest.fixture(scope="module")
def material(testdata):
    pages = fe.pages(testdata)
    if not pages:
        pytest.skip(f"no rendered SentenzeWeb pages under {testdata / fe.FRONTEND}")
    return testdata, pages


def _script_table(script: str, name: str) -> dict[str, str]:
    """A `var name={...}` label table of index.js, e.g. szdec2l."""
    body = re.search(r"var %s=\{([^}]*)\}" % name, script).group(1)
    return {k.strip('"'): v.strip('"') for k, v in (pair.split(":", 1) for pair in body.split(","))}


# ------------------------------------------------------------------ cards -> Structs


def _doc_from_card(card: dict) -> sw.SolrDoc:
    """The Solr record as the card shows it: raw values where the card prints them (id, numdec,
    anno, tipoprov, the PDF's file name), the section code inside the id (the card shows its label)."""
    pdf_id = card["pdf"].split("&id=", 1)[1] if card["pdf"] else None
    return sw.SolrDoc(id=card["id"], anno=card["anno"], numdec=card["numdec"], tipoprov=card["tipoprov"],
                      filename=[pdf_id] if pdf_id else None)


def test_every_card_parses_to_the_values_the_court_printed(material):
    data, pages = material
    labels = _script_table(fe.script(data), "szdec2l")
    seen = 0
    for page in pages:
        for card in fe.cards(page):
            hit = answers._hit(_doc_from_card(card), {}, BASE)
            assert hit.sic_id == card["id"]
            assert hit.ecli == card["ecli"].strip("() "), card  # ECLI:IT:CASS:2022:4CIV for numdec 00004
            assert hit.pdf_url == "https://www.italgiure.giustizia.it" + card["pdf"], card
            assert hit.decision_type == card["tipoprov"]
            assert hit.number == int(card["numcard"]) and hit.year == int(card["anno"])
            assert labels[hit.section] == card["szdec"]  # QUINTA
            assert hit.chamber == {"CIVILE": "civile", "PENALE": "penale"}[card["kind"]]
            assert f"n. {card['numcard']}/{card['anno']}" in hit.citation
            seen += 1
    assert seen == 205


def test_an_interlocutory_order_is_cited_ord_interl(material):
    _, pages = material
    cards = [c for p in pages for c in fe.cards(p) if c["tipoprov"] == "Ordinanza Interlocutoria"]
    assert cards and all(c["id"].endswith("I") for c in cards)
    hit = answers._hit(_doc_from_card(cards[0]), {}, BASE)
    assert hit.citation == "Cass. civ., sez. V, ord. interl. n. 30016/2025"
    assert hit.ecli == "ECLI:IT:CASS:2025:30016CIV"
    # the type letter of the id alone gives the same citation (a record without tipoprov)
    bare = answers._hit(sw.SolrDoc(id=cards[0]["id"]), {}, BASE)
    assert bare.citation == hit.citation and bare.pdf_url is None  # no file name: no PDF link claimed


def test_decision_carries_ecli_and_pdf_link(testdata):
    body = (testdata / "sentenzeweb" / "it-eli-mcp__cassazione_sample_solr_response.json").read_bytes()
    d = sw.parse_decision(body, sic_id="snciv2021521018O", sentenzeweb_url=BASE)
    assert d.ecli == "ECLI:IT:CASS:2021:21018CIV"
    assert d.pdf_url == ("https://www.italgiure.giustizia.it/xway/application/nif/clean/hc.dll?verbo=attach&db=snciv"
                         "&id=./20210722/snciv@s50@a2021@n21018@tO.clean.pdf")
    pen = sw.parse_decision((testdata / "sentenzeweb" / "visualex__italgiure_snpen_10787_2024.json").read_bytes(),
                            sic_id="snpen2024710787O", sentenzeweb_url=BASE)
    assert pen.ecli == "ECLI:IT:CASS:2024:10787PEN" and pen.pdf_url is None  # that record has no filename


# ------------------------------------------------------------------ labels of the court's script


def test_section_codes_are_the_scripts_and_T_is_a_subsection(material):
    data, _ = material
    script = fe.script(data)
    szdec = _script_table(script, "szdec2l")
    assert set(sw.SECTION_CODES) == set(szdec) == {"1", "2", "3", "4", "5", "6", "7", "F", "L", "U"}
    assert "T" not in szdec
    for code, label in szdec.items():  # the label the court shows is read back as its code
        assert sw.resolve_section(label)[0] == code
        assert sw.resolve_section(code)[0] == code
    ssz = _script_table(script, "ssz2l")
    assert ssz == {"5": "T", "L": "LAVORO"}
    assert sw.section_label("snciv", "6", "5") == "VI-T" and sw.section_label("snciv", "6", "L") == "VI-L"
    with pytest.raises(InvalidArg):
        sw.resolve_section("T")  # not a section: the tax sub-section of the sixth
    for written in ("VI-T", "6-T", "sez. VI-L", "6-5"):  # how lawyers cite a sub-section: no such filter
        with pytest.raises(InvalidArg) as exc:
            sw.resolve_section(written)
        assert "section=6" in exc.value.valid


def test_every_filter_value_sent_is_a_value_the_court_printed_or_labels(material):
    """And back: what a filter sends is a facet value of the rendered pages or a key of the script."""
    data, pages = material
    printed = {f: {raw for p in pages for raw, _, _ in fe.facets(p)[f]} for f in ("kind", "tipoprov", "szdec")}
    assert set(sw.DECISION_TYPES.values()) == printed["tipoprov"]
    assert set(sw.KIND_OF_CHAMBER.values()) == printed["kind"]
    assert printed["szdec"] <= set(sw.SECTION_CODES) == set(_script_table(fe.script(data), "szdec2l"))


# ------------------------------------------------------------------ facets <-> filters


def _filter_for(field: str, value: str) -> list[str]:
    """The filters it_eli sends when `value` is passed as the argument matching that facet."""
    if field == "kind":
        return sw.build_filters(value, None, None)
    if field == "anno":
        return sw.build_filters(None, None, value)
    arg = {"tipoprov": "decision_type", "szdec": "section"}[field]
    return sw.build_filters(None, None, None, **{arg: value})


def test_every_printed_facet_value_is_a_filter_sent_as_the_court_sends_it(material):
    _, pages = material
    checked = set()
    for page in pages:
        for field, rows in fe.facets(page).items():
            for raw, label, _count in rows:
                clause = f'{field}:"{raw}"'  # what the script's input2Query builds for that value
                assert clause in _filter_for(field, raw), (field, raw)
                if field != "anno":
                    assert clause in _filter_for(field, label), (field, label)  # CIVILE, UNITE, QUINTA
                checked.add((field, raw))
    assert ("tipoprov", "Ordinanza Interlocutoria") in checked and ("szdec", "U") in checked
    assert len(checked) == 2 + 4 + 7 + 6


async def test_facets_come_back_as_values_that_pass_back_as_filters(material, upstream, live):
    """The facet answer (the page's printed values) through the live tool, and each value back."""
    client, settings = live()
    res = await tools.it_cassazione_search(client, settings, query="danno")
    printed = fe.facets(material[0] / fe.FRONTEND / upstream.facet_page)
    assert [(f.value, f.count) for f in res.facets.decision_type] == [(r, n) for r, _, n in printed["tipoprov"]]
    assert [f.value for f in res.facets.chamber] == ["civile", "penale"]
    for name, values in (("decision_type", res.facets.decision_type), ("section", res.facets.section),
                         ("chamber", res.facets.chamber), ("anno", res.facets.anno)):
        for f in values:
            again = await tools.it_cassazione_search(client, settings, query="danno", **{name: f.value})
            assert again.filters, (name, f.value)
    q = dict(upstream.params[-2])["q"]  # the last search: anno=2020
    assert q.endswith(' AND anno:"2020"')


# ------------------------------------------------------------------ requests vs the script


def _form_page(data) -> lxml_html.HtmlElement:
    return lxml_html.fromstring((data / fe.FRONTEND / FORM_PAGE).read_bytes())


def _court_query(page, text_q: str, chosen: dict[str, str]) -> str:
    """index.js `Y.buildQuery`, read off the script: `(<text>)`, then `(<startquery>)`, then for each
    facet list in page order (`data-role="keylist"`) a chosen value as `AND field:"value"`."""
    start = page.xpath('//input[@data-role="startquery"]/@value')[0]
    order = page.xpath('//*[@data-role="keylist"]/@data-arg')
    q = f"({text_q}) AND ({start})"
    for field in order:
        if field in chosen:
            q += f' AND {field}:"{chosen[field]}"'
    return q


def test_q_for_every_filter_combination_is_the_scripts(material):
    data, pages = material
    page = _form_page(data)
    script = fe.script(data)
    assert "Y.buildQuery=function" in script and 'bC+=bD+":"' in script  # the clause builder read above
    values = fe.facets(pages[0])
    text_q = 'ocr:"danno"'
    n = 0
    for kind, tipo, sez, anno in itertools.product(
        [None, *[r for r, _, _ in values["kind"]]], [None, *[r for r, _, _ in values["tipoprov"]]],
        [None, *[r for r, _, _ in values["szdec"]]], [None, *[r for r, _, _ in values["anno"]]],
    ):
        if kind == "snpen" and sez == "L":
            continue  # a civil section: it_eli refuses the pair (tested elsewhere)
        chamber = {"snciv": "civile", "snpen": "penale", None: None}[kind]
        filters = sw.build_filters(chamber, None, int(anno) if anno else None, section=sez, decision_type=tipo)
        chosen = {k: v for k, v in (("kind", kind), ("tipoprov", tipo), ("szdec", sez), ("anno", anno)) if v}
        if sez == "L" and kind is None:
            chosen["kind"] = "snciv"  # the labour section implies the civil archive
        assert sw.court_query(text_q, filters) == _court_query(page, text_q, chosen)
        params = sw.search_params(text_q, filters, 10, 0)
        marks, body = sw.split_request(params)
        assert marks == ("app.query=" + chosen["kind"] if "kind" in chosen else "app.query")
        assert not any(k == "fq" for k, _ in body)
        n += 1
    assert n > 300


def test_paths_facet_parameters_and_sorts_are_the_scripts(material):
    data, _ = material
    script = fe.script(data)
    assert '"/select?app.query"+kindArg' in script and 'url:Y.solr()+"/select?app.facet"' in script
    assert 'solrIsapi:"isapi/hc.dll/sn.solr/sn-collection"' in script
    assert sw.SELECT_PATH == "/isapi/hc.dll/sn.solr/sn-collection/select"
    # facet request: the script's fixed head, then per field limit/sort/prefix/field
    head = re.search(r'data:"(facet\.method=enum&facet\.mincount=1&wt=json&indent=off&q=)"', script).group(1)
    marks, body = sw.split_request(sw.facet_params('ocr:"danno"', ['szdec:"U"']))
    assert marks == "app.facet"
    assert "&".join(f"{k}={v}" for k, v in body[:5]).startswith(head)
    assert [k for k, _ in body[5:7]] == ["fl", "facet"] and dict(body)["fl"] == "name"
    assert [k for k, _ in body[7:11]] == ["facet.limit", "facet.sort", "facet.prefix", "facet.field"]
    assert "H=256" in script and dict(body)["facet.limit"] == "257"
    # sorts: the values of the page's #sortchoice menu ("" = rilevanza: no sort sent)
    menu = _form_page(data).xpath('//select[@id="sortchoice"]/option/@value')
    assert sorted(v or "" for v in sw.SORTS.values() if v) == sorted(v for v in menu if v)
    assert "sort" not in dict(sw.search_params("x", [], 10, 0, "relevance"))
    assert dict(sw.search_params("x", [], 10, 0, "deposit_date"))["sort"] == "pd desc,numdec desc"
    assert dict(sw.search_params("x", [], 10, 0, "data udienza"))["sort"] == "datdec desc,pd desc,numdec desc"
    with pytest.raises(InvalidArg) as exc:
        sw.resolve_sort("alphabetical")
    assert "deposit_date" in exc.value.valid


# ------------------------------------------------------------------ the same requests, live


LIVE_CASES = [
    {"decision_type": "ordinanza interlocutoria", "section": "SU"},
    *[{"section": code} for code in ("1", "2", "3", "5", "6", "L", "U")],
    *[{"decision_type": t} for t in ("Decreto", "Ordinanza", "Ordinanza Interlocutoria", "Sentenza")],
    {"chamber": "civile", "section": "5", "anno": 2022},
]


@pytest.mark.internet
@pytest.mark.parametrize("args", LIVE_CASES, ids=lambda a: ",".join(f"{k}={v}" for k, v in a.items()))
async def test_real_sentenzeweb_answers_each_filter(make_settings, args):
    """Run when the real service can be reached: each filter finds decisions of that kind only."""
    settings = make_settings(throttle_seconds="1.5", http_timeout="30")
    async with HttpClient(settings) as client:
        res = await tools.it_cassazione_search(client, settings, query="ricorso", limit=5, **args)
    assert res.total > 0 and res.hits, (args, res.notes)
    for hit in res.hits:
        if "decision_type" in args:
            assert hit.decision_type == sw.resolve_decision_type(args["decision_type"])
        if "section" in args:
            assert hit.section == sw.resolve_section(args["section"])[0]
        assert hit.ecli and hit.ecli.startswith(f"ECLI:IT:CASS:{hit.year}:")
    assert res.facets.decision_type, "the facet request answered nothing"


async def test_the_window_is_solrs_start_and_rows_as_the_script_sends_them(material, live, upstream):
    """The court's script pages with Solr's own words (`start=docStart-1&rows=...`): the source
    module and the service speak them too; only the MCP tool calls `start` its offset."""
    data, _ = material
    assert 'data:"start="+(docStart-1)+"&rows="' in fe.script(data)
    params = dict(sw.search_params("x", [], 5, 7))
    assert (params["start"], params["rows"]) == ("7", "5")
    client, settings = live()
    res = await tools.it_cassazione_search(client, settings, query="danno", limit=2, start=40)
    assert (dict(upstream.params[0])["start"], dict(upstream.params[0])["rows"]) == ("40", "2")
    assert (res.offset, res.limit, res.next_offset) == (40, 2, 42)


@pytest.mark.parametrize(("sort", "sent"), [(None, None), ("deposit_date", "pd desc,numdec desc"),
                                            ("data udienza", "datdec desc,pd desc,numdec desc")])
async def test_sort_reaches_the_search_request(live, upstream, sort, sent):
    client, settings = live()
    await tools.it_cassazione_search(client, settings, query="danno", sort=sort)
    search = dict(upstream.params[0])
    assert search.get("sort") == sent and "sort" not in dict(upstream.params[1])  # not on the facet request


@pytest.mark.parametrize("phrase", ["La sentenza richiesta è in fase di oscuramento",
                                    "Il provvedimento è in fase di valutazione oscuramento"])
def test_no_pdf_is_offered_while_the_decision_is_being_anonymised(testdata, phrase):
    """index.js refuses to open the PDF while the text carries either phrase. SYNTHETIC: the real
    sample record with its text replaced by the phrase."""
    import json

    rec = json.loads((testdata / "sentenzeweb" / "it-eli-mcp__cassazione_sample_solr_response.json").read_text())
    rec["response"]["docs"][0]["ocr"] = [phrase]
    d = sw.parse_decision(json.dumps(rec).encode(), sic_id="snciv2021521018O", sentenzeweb_url=BASE)
    assert d.text_status == "obscuring_in_progress" and d.pdf_url is None
    assert d.ecli == "ECLI:IT:CASS:2021:21018CIV"
