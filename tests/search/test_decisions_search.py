"""Searching the Constitutional Court index built from the real sample (12 ordinanze of 2001)."""

from __future__ import annotations

import json

import pytest

from it_eli.services.app import App
from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index
from it_eli.runtime.errors import IndexMissing, IndexSchemaMismatch, InvalidArg, NotFound, QueryError
from it_eli.search.query import HitWindow
from it_eli.mcp.tools.registry import call

FIFTY = HitWindow(size=50)  # every sample decision that matches


@pytest.fixture(scope="module")
def index(tmp_path_factory, testdata):
    from it_eli.runtime.config import load_settings

    home = tmp_path_factory.mktemp("home")
    settings = load_settings({"IT_ELI_HOME": str(home)})
    report = build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    assert report.published and report.indexed == 12
    return DecisionIndex(settings)


def test_search_without_accents_finds_accented_text(index):
    plain = index.search("inammissibilita")
    accented = index.search("inammissibilità")
    assert plain.total > 0 and plain.total == accented.total
    assert any("inammissibilit" in h.snippet for h in plain.hits)


def test_plural_finds_singular(index):
    res = index.search("rimessioni")  # the texts say "ordinanza di rimessione"
    assert res.total > 0
    assert any("**rimession" in h.snippet.lower() for h in res.hits)


def test_ordinanze_snippets_come_from_epigrafe_and_are_not_empty(index):
    res = index.search("pregiudizialità")
    assert res.total > 0
    for hit in res.hits:
        assert hit.tipologia == "O" and hit.snippet.strip()
        assert hit.snippet_part == "epigrafe" and "**" in hit.snippet


def test_snippet_highlights_point_at_the_marked_words(index):
    res = index.search("responsabilità civile")
    hit = res.hits[0]
    for h in hit.highlights:
        word = hit.snippet[h.start : h.end].lower()
        assert word.startswith(("respons", "civil"))


def test_hit_carries_ecli_italian_citation_and_dates(index):
    hit = index.search("Corte dei conti", window=HitWindow(size=1)).hits[0]
    assert hit.ecli.startswith("ECLI:IT:COST:2001:")
    assert hit.citation == f"Corte cost., ord. n. {hit.numero}/2001"
    assert hit.data_deposito.startswith("2001-") and hit.source_url.endswith(hit.ecli)


def test_phrase_and_boolean_operators(index):
    phrase = index.search('"manifesta infondatezza"').total
    both = index.search("manifesta AND infondatezza").total
    either = index.search("infondatezza OR inammissibilità").total
    without = index.search("infondatezza NOT inammissibilità").total
    assert 0 < phrase <= both <= either
    assert without <= both and without < either


def test_field_scoping_and_relatore_filter(index):
    by_field = index.search("relatore:bile")
    by_filter = index.search("questione", relatore="Bile")
    assert by_field.total > 0 and by_filter.total > 0
    assert all("Bile" in h.relatore for h in by_filter.hits)


def test_part_scoping_matches_and_snippets_only_that_part(index):
    # the catch-all field (decisions.toml catch_all) ranks, but `part:word` and the snippet stay per part
    everywhere = index.search("manifestamente")
    scoped = index.search("dispositivo:manifestamente")
    assert 0 < scoped.total <= everywhere.total
    for hit in scoped.hits:
        assert hit.snippet_part == "dispositivo" and "**manifest" in hit.snippet.lower()
    full = index.get_decision(ecli=scoped.hits[0].ecli)
    disp = next(p.text for p in full.parts if p.part == "dispositivo")
    assert scoped.hits[0].snippet.replace("**", "").rstrip("…").strip()[:40] in disp.replace("\n", " ")


def test_facets_by_year_and_type_and_filters(index):
    res = index.search("questione")
    assert res.facets["anno"][0].value == "2001" and res.facets["anno"][0].count == res.total
    assert {b.value for b in res.facets["tipologia"]} == {"O"}
    assert index.search("questione", anno=2001).total == res.total
    assert index.search("questione", year_from=2002, year_to=2010).total == 0
    assert index.search("questione", tipologia="sentenza").total == 0
    assert index.search("questione", tipologia="ordinanza").total == res.total


def test_and_falls_back_to_or_when_nothing_has_all_words(index):
    res = index.search("infondatezza zxqvw")
    assert res.total > 0 and res.relaxed_to_or and res.notes


def test_ecli_and_year_number_lookups_agree(index):
    a = index.get_decision(ecli="ECLI:IT:COST:2001:4")
    b = index.get_decision(anno=2001, numero=4)
    c = index.get_decision(anno="2001", numero="4")
    assert a == b == c
    assert [p.part for p in a.parts] == ["epigrafe", "dispositivo"]  # an ordinanza: testo is empty
    assert "2052 del codice civile" in a.parts[0].text


def test_numero_as_lawyers_cite_it_carries_the_year(index):
    """`n. 4/2001` is how a decision is cited: numero "4/2001" names the year too."""
    a = index.get_decision(anno=2001, numero=4)
    assert index.get_decision(numero="4/2001") == a
    assert index.get_decision(anno=2001, numero=" 4 / 2001 ") == a
    with pytest.raises(InvalidArg) as exc:
        index.get_decision(anno=2000, numero="4/2001")
    assert "2000" in exc.value.message and "2001" in exc.value.message
    with pytest.raises(InvalidArg) as exc:
        index.get_decision(numero="4/")
    assert "238/2014" in exc.value.valid


async def test_long_text_is_paged_without_losing_a_character(index):
    """The index hands the decision over whole; it_case_get_decision pages it, and the pages
    rebuild it."""
    full = index.get_decision(anno=2001, numero=2)
    assert full.total_chars == sum(len(p.text) for p in full.parts) > 700
    app = App(index.settings)
    try:
        pieces, offset = [], 0
        while offset is not None:
            err, page = await call(app, "it_case_get_decision", {"anno": 2001, "numero": 2, "max_chars": 700, "offset": offset})
            assert not err and sum(len(p["text"]) for p in page["parts"]) <= 700
            assert page["total_chars"] == full.total_chars
            pieces.append("".join(p["text"] for p in page["parts"]))
            offset = page["next_offset"]
    finally:
        await app.close()
    assert len(pieces) > 1 and "".join(pieces) == "".join(p.text for p in full.parts)


def test_missing_decision_is_not_found_with_a_hint(index):
    with pytest.raises(NotFound) as exc:
        index.get_decision(anno=2001, numero=999)
    assert "2001" in exc.value.valid


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"query": ""}, QueryError),
        ({"query": "   "}, QueryError),
        ({"query": "il la dei"}, QueryError),  # only stopwords
        ({"query": "x" * 10_000}, InvalidArg),
        ({"query": "nonexistent:parola"}, QueryError),
        ({"query": "questione", "anno": 1850}, InvalidArg),
        ({"query": "questione", "window": HitWindow(size=0)}, InvalidArg),
        ({"query": "questione", "window": HitWindow(size=1000)}, InvalidArg),
        ({"query": "questione", "window": HitWindow(start=10_001)}, InvalidArg),
        ({"query": "questione", "tipologia": "decreto ingiuntivo"}, InvalidArg),
        ({"query": "questione", "year_from": 2010, "year_to": 2000}, InvalidArg),
    ],
)
def test_bad_search_input_gets_a_typed_error_that_says_what_is_valid(index, kwargs, error):
    with pytest.raises(error) as exc:
        index.search(**kwargs)
    assert exc.value.valid


@pytest.mark.parametrize("query", ['"manifesta infondatezza', "questione (AND", "questione)", "AND OR NOT questione", '\\" : * ? ~ ^ [ ] { }'])
def test_odd_syntax_gives_a_result_or_a_typed_error_never_a_crash(index, query):
    try:
        res = index.search(query)
        assert res.total >= 0
    except (QueryError, InvalidArg) as exc:
        assert exc.valid


@pytest.mark.parametrize("ecli", ["ECLI:IT:COST:2001", "ECLI:IT:CASS:2001:4", "2001/4", "ECLI:IT:COST:20x1:4"])
def test_malformed_ecli_is_invalid_arg(index, ecli):
    with pytest.raises(InvalidArg) as exc:
        index.get_decision(ecli=ecli)
    assert "ECLI:IT:COST:" in exc.value.valid


def test_no_index_is_index_missing_naming_the_command(make_settings):
    with pytest.raises(IndexMissing) as exc:
        DecisionIndex(make_settings()).search("questione")
    assert "it-eli index build" in exc.value.valid


def test_index_built_under_another_schema_version_is_refused(make_settings, testdata):
    settings = make_settings()
    build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    reader = DecisionIndex(settings)
    meta_path = reader.idir.current() / "it_eli_meta.json"
    meta = json.loads(meta_path.read_text())
    meta["schema_version"] = 0
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(IndexSchemaMismatch) as exc:
        DecisionIndex(settings).search("questione")
    assert "it-eli index build" in exc.value.valid


def test_a_new_build_is_picked_up_by_a_running_reader(make_settings, testdata, tmp_path):
    from tests.sources.test_cortecost_ingest import RECORD, court_archive

    settings = make_settings()
    build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    reader = DecisionIndex(settings)
    assert reader.stats().total == 12
    build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip", court_archive(tmp_path, {2014: [RECORD]})])
    assert reader.stats().total == 13
    assert "Corte cost., sent. n. 238/2014" in [h.citation for h in reader.search("Firenze").hits]


def test_filters_written_inside_the_query_are_applied(index):
    res = index.search("questione anno:2001 tipologia:ordinanza")
    assert res.total == index.search("questione", anno=2001, tipologia="ordinanza").total > 0
    assert any("anno:2001" in n for n in res.notes)
    assert index.search("questione anno:2002").total == 0
    with pytest.raises(QueryError):
        index.search("anno:2001")
    with pytest.raises(InvalidArg):
        index.search("questione anno:2001", anno=2002)
    with pytest.raises(InvalidArg):
        index.search("questione anno:1850")


def _numbers(res):
    return {h.numero for h in res.hits}


def test_minus_excludes_a_phrase_a_field_word_and_a_group(index):
    """`-"phrase"`, `-field:word` and `-(group)` exclude exactly what NOT does."""
    everything = _numbers(index.search("Corte costituzionale", window=FIFTY))
    stampa = _numbers(index.search('"a mezzo stampa"', window=FIFTY))
    assert stampa and stampa < everything
    assert _numbers(index.search('-"a mezzo stampa"', window=FIFTY)) == _numbers(index.search('NOT "a mezzo stampa"', window=FIFTY))
    assert _numbers(index.search('-"a mezzo stampa"', window=FIFTY)).isdisjoint(stampa)
    sgarbi = _numbers(index.search("epigrafe:Sgarbi", window=FIFTY))
    assert sgarbi
    minus_field = index.search("conflitto -epigrafe:Sgarbi", window=FIFTY)
    assert _numbers(minus_field) == _numbers(index.search("conflitto NOT epigrafe:Sgarbi", window=FIFTY))
    assert _numbers(minus_field).isdisjoint(sgarbi) and not minus_field.relaxed_to_or
    assert _numbers(index.search("conflitto -(Sgarbi OR Bossi)", window=FIFTY)).isdisjoint(
        _numbers(index.search("Sgarbi OR Bossi", window=FIFTY)))


@pytest.mark.parametrize("query", ["diffamazione NOT", "fauna AND NOT", "fauna OR NOT", "NOT", "NOT NOT", "-", "( NOT )"])
def test_dangling_not_is_ignored_with_a_note_or_a_query_error(index, query):
    try:
        res = index.search(query)
    except QueryError as exc:
        assert exc.valid
        return
    assert res.total > 0 and any("without an operand" in n for n in res.notes)


def test_every_page_of_a_query_has_the_same_total_and_no_overlap(index):
    """Paging through a two-word query whose AND fills the first page: one list, one total."""
    pages = [index.search("Corte dei conti", window=HitWindow(start=o, size=3)) for o in range(0, 15, 3)]
    assert len({p.total for p in pages}) == 1
    assert len({p.relaxed_to_or for p in pages}) == 1
    seen = [h.ecli for p in pages for h in p.hits]
    assert len(seen) == len(set(seen)) == min(pages[0].total, 15)


def test_explicit_and_is_not_reported_as_relaxed(index):
    for query in ("fauna AND capriolo AND motociclista", "(Sgarbi OR Bossi) AND diffamazione"):
        res = index.search(query)
        assert res.total > 0 and not res.relaxed_to_or
        assert not any("only some" in n for n in res.notes)


@pytest.mark.parametrize("singular,plural", [("atto", "atti"), ("potere", "poteri"), ("parlamentare", "parlamentari"),
                                             ("ente", "enti")])
def test_singular_and_plural_find_each_other_where_snowball_splits_them(index, singular, plural):
    """Snowball leaves short words and -are/-ere nouns apart; the query tries the other form."""
    one, other = _numbers(index.search(singular, window=FIFTY)), _numbers(index.search(plural, window=FIFTY))
    assert one and one == other


def test_exact_form_ranks_above_the_inflected_one(index):
    """`atti` finds `atto` too, but a decision using `atti` itself comes first."""
    res = index.search("atti", window=FIFTY)
    first = index.get_decision(ecli=res.hits[0].ecli)
    assert " atti " in " ".join(p.text for p in first.parts).lower().replace("\n", " ")


def test_a_phrase_typed_without_accents_finds_the_accented_phrase(index):
    accented = _numbers(index.search('"responsabilità dello Stato"'))
    assert accented
    assert _numbers(index.search('"responsabilita dello Stato"')) == accented
    assert _numbers(index.search("\"responsabilita' dello Stato\"")) == accented


def test_recent_orders_same_day_decisions_by_number(index):
    recent = index.recent(limit=12).decisions
    keys = [(d.data_deposito, d.numero) for d in recent]
    assert keys == sorted(keys, reverse=True)
    assert [d.numero for d in index.recent(limit=3).decisions] == [d.numero for d in recent[:3]]


def test_ecli_with_an_impossible_year_is_invalid_like_anno(index):
    with pytest.raises(InvalidArg) as exc:
        index.get_decision(ecli="ECLI:IT:COST:1850:4")
    assert "1956" in exc.value.valid


def test_a_phrase_snippet_comes_from_where_the_phrase_stands(index):
    """`"manifesta inammissibilità"` stands in the dispositivo; the epigrafe only says
    "manifestamente inammissibile": the snippet shows the phrase, both words marked."""
    res = index.search('"manifesta inammissibilità"')
    assert res.hits
    for hit in res.hits:
        assert hit.snippet_part == "dispositivo"
        assert "**manifesta** **inammissibilità**" in hit.snippet
    hit = index.search('"danni causati dalla fauna"').hits[0]
    assert "**danni** **causati** dalla **fauna**" in hit.snippet


def test_snippet_shows_the_words_where_they_stand_together(index):
    """Decision 4 names `civile` early and `responsabilità` later; they stand together only in
    "responsabilità civile": that is the place to show."""
    hit = next(h for h in index.search("responsabilita civile", window=HitWindow(size=20)).hits if h.numero == 4)
    assert "**responsabilità** **civile**" in hit.snippet


def test_lucene_suffixes_an_assistant_writes_mean_what_they_say(index):
    """`word*`, `word~`, `word^2`, `"phrase"~N`, `field:(group)`: never a silent zero."""
    assert _numbers(index.search("responsabilit*")) >= _numbers(index.search("responsabilità"))
    hit = index.search("fau*").hits[0]
    assert "**fauna**" in hit.snippet and hit.highlights
    assert _numbers(index.search("fuana~1")) == _numbers(index.search("fauna"))  # a transposition
    assert index.search("fauna^3 Stato").hits[0].numero == index.search("fauna").hits[0].numero
    assert not _numbers(index.search('"danni fauna"'))
    assert _numbers(index.search('"danni fauna"~3')) == _numbers(index.search('"danni causati dalla fauna"'))
    assert _numbers(index.search("epigrafe:(fauna OR Sgarbi)", window=FIFTY)) == (
        _numbers(index.search("epigrafe:fauna", window=FIFTY)) | _numbers(index.search("epigrafe:Sgarbi", window=FIFTY)))


@pytest.mark.parametrize("query,note", [("fa*", "at least 3 letters"), ("fauna^99", "weight out of range")])
def test_unusable_suffixes_are_dropped_with_a_note(index, query, note):
    res = index.search(query)
    assert any(note in n for n in res.notes)


def test_years_outside_the_index_are_named_not_left_as_an_empty_answer(index):
    res = index.search("questione", anno=2014)
    assert res.total == 0 and any("2001-2001 only" in n for n in res.notes)
    assert not any("only" in n for n in index.search("questione", anno=2001).notes)
    assert any("2001-2001 only" in n for n in index.search("questione", year_from=1990, year_to=2001).notes)
