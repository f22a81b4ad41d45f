"""Statute search answers people who ask in their own words: colloquial terms reach the code's
(thesaurus, said in `expanded`), question frames are not searched (said in `question_words`),
a typo in a rare word is corrected (said in `corrected`), the typed form outranks its stem
siblings, and an article is found through the headings above it (libro, titolo, capo)."""

from __future__ import annotations

import pytest

from it_eli.search.query import HitWindow
from it_eli.search.query_assist import strip_question, thesaurus
from it_eli.search.statutes.loading import import_files

CP = "urn:nir:stato:regio.decreto:1930-10-19;1398"
CPP = "urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447"
CDS = "urn:nir:stato:decreto.legislativo:1992-04-30;285"


@pytest.fixture(scope="module")
def store(testdata, tmp_path_factory):
    from it_eli.runtime.config import load_settings
    from it_eli.search.statutes.store import StatuteStore

    home = tmp_path_factory.mktemp("questions") / "home"
    settings = load_settings({"IT_ELI_HOME": str(home)})
    names = ["mcp-legal-it__codice_penale.xml", "scabopdf__codice_procedura_penale.xml", "scabopdf__codice_strada.xml"]
    rep = import_files(settings, [str(testdata / "normattiva-akn" / n) for n in names])
    assert rep.errors == [] and rep.acts == 3
    return StatuteStore(settings)


def keys(result, n=None):
    return [(h.urn, h.article) for h in result.hits[:n]]


@pytest.mark.parametrize("query, urn, article, expansion", [
    ("scippo", CP, "624-bis", "furto con strappo"),
    ("strozzinaggio", CP, "644", "usura"),
    ("pizzo", CP, "629", "estorsione"),
    ("caporalato", CP, "603-bis", "intermediazione illecita"),
    ("stalking", CP, "612-bis", "atti persecutori"),
    ("revenge porn", CP, "612-ter", "sessualmente esplicit"),
])
def test_a_colloquial_term_finds_the_code_article_and_says_why(store, query, urn, article, expansion):
    res = store.search(query)
    assert (urn, article) in keys(res, 3)
    assert any(e.startswith(query) and expansion in e for e in res.expanded), res.expanded
    assert any("expanded" in n for n in res.notes)


@pytest.mark.parametrize("frame", ["cosa rischia chi", "è possibile", "cosa succede se c'è", "vorrei sapere"])
@pytest.mark.parametrize("subject", ["sequestro conservativo", "furto in abitazione"])
def test_a_question_frame_does_not_change_the_hits_of_its_subject(store, frame, subject):
    asked = store.search(f"{frame} {subject}?")
    plain = store.search(subject)
    assert keys(asked) == keys(plain)
    assert asked.question_words and not plain.question_words


def test_a_frame_asking_how_long_searches_for_the_duration(store):
    res = store.search("quanto dura la custodia cautelare")
    assert any("durata" in q for q in res.question_words)
    assert (CPP, "303") in keys(res, 3)  # Termini di durata massima della custodia cautelare


def test_frames_leave_operators_and_phrases_alone():
    assert strip_question('"cosa rischia" AND furto') == ('"cosa rischia" AND furto', [])
    assert strip_question("cosa") == ("cosa", [])  # nothing would be left: kept
    assert strip_question("furto di cosa mobile altrui")[1] == []  # the code's "cosa" is not a frame


def test_a_typo_in_a_rare_word_is_corrected_and_said(store):
    typed = store.search("sequestro conservatvo")
    right = store.search("sequestro conservativo")
    assert typed.corrected == ["conservatvo → conservativo"]
    assert keys(typed, 5) == keys(right, 5)
    assert any("corrected" in n for n in typed.notes)
    # a word the index has is never "corrected"
    assert right.corrected == []


@pytest.mark.parametrize("word", ["bagno", "amico"])
def test_a_real_word_the_codes_never_use_is_not_corrected(store, word):
    # no article has it (so a correction would be tried) but it is Italian: the person meant it
    assert store.search(word).total == 0
    res = store.search(f"{word} furto")
    assert res.corrected == []


def test_a_word_with_no_near_neighbour_is_left_as_typed(store):
    res = store.search("zqxwvy furto")
    assert res.corrected == []


def test_the_typed_form_outranks_its_stem_siblings(make_settings):
    from it_eli.search.statutes.store import StatuteStore

    st = StatuteStore(make_settings())
    common = dict(heading=None, in_force_from="2020-01-01", in_force_to=None, repealed=False, act_title="Prova",
                  act_type="legge", act_number="1", act_date="2020-01-01", act_year=2020, eli=None, source_url="")
    # two articles alike but for the form: both share the stem motociclist-
    st.add_single_article(urn="urn:nir:stato:legge:2020-01-01;1", key="1",
                          text="Obblighi del motociclista sulle strade urbane.", **common)
    st.add_single_article(urn="urn:nir:stato:legge:2020-01-01;1", key="2",
                          text="Obblighi dei motociclisti sulle strade urbane.", **common)
    for typed, first in (("motociclista", "1"), ("motociclisti", "2")):
        res = st.search(typed, at_date="2021-01-01")
        assert [h.article for h in res.hits] == [first, "2" if first == "1" else "1"], typed


def test_an_article_is_found_through_the_headings_above_it(store):
    # c.p.p. Libro V, Titolo VI "Arresto in flagranza e fermo": the partition is searchable
    res = store.search('contesto:"arresto in flagranza"', window=HitWindow(size=50))
    arts = {a for u, a in keys(res)}
    assert res.hits and all(u == CPP for u, _ in keys(res))
    assert {"380", "381", "384"} <= arts


def test_the_thesaurus_is_large_and_well_formed():
    rows = thesaurus()
    assert len(rows) >= 300
    terms = [r.term for r in rows]
    assert len(terms) == len(set(terms)), "a term listed twice"
    assert all(0 < r.weight < 1 for r in rows), "expansions weigh less than the words typed"
