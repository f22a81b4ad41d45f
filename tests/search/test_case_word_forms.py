"""Case search with the text stemmed once: the form typed ranks first, and a word scoped to a
part (`testo:word`) still finds its stem siblings there."""

from __future__ import annotations

import pytest

from it_eli.search.analysis import Analyzer
from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index
from tests.sources.test_cortecost_ingest import RECORD, court_archive


def _decision(numero: int, epigrafe: str, testo: str, dispositivo: str = "dichiara non fondata la questione") -> dict:
    return {**RECORD, "numero_pronuncia": str(numero), "ecli": f"ECLI:IT:COST:2014:{numero}",
            "epigrafe": epigrafe, "testo": testo, "dispositivo": dispositivo}


FILLER = "Ritenuto in fatto il giudice rimettente dubita della legittimità della norma sulla circolazione stradale."


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from it_eli.runtime.config import load_settings

    tmp = tmp_path_factory.mktemp("forms")
    records = [
        # only the stem sibling, once, in a shorter text: what BM25 on stems alone ranks first
        _decision(1, "giudizio sulla circolazione stradale",
                  FILLER + " La disciplina dei motocicli. " + FILLER),
        # the form typed, once, in a longer text
        _decision(2, "giudizio sulla responsabilità del conducente",
                  FILLER + " Il motociclista coinvolto nel sinistro chiede il risarcimento. " + FILLER),
        _decision(3, "giudizio sulla manifesta infondatezza", FILLER,
                  dispositivo="dichiara la manifesta infondatezza della questione"),
    ] + [_decision(10 + i, "giudizio in via incidentale", FILLER) for i in range(5)]
    settings = load_settings({"IT_ELI_HOME": str(tmp / "home")})
    assert build_index(settings, [court_archive(tmp, {2014: records})]).published
    return DecisionIndex(settings)


def test_premise_snowball_gives_both_forms_one_stem():
    an = Analyzer("it_legal")
    assert an.analyze("motociclista") == an.analyze("motocicli")


def test_the_form_typed_ranks_above_its_stem_sibling(index):
    res = index.search("motociclista")
    assert [h.numero for h in res.hits][:2] == [2, 1]  # the sibling is still found, below
    res = index.search("motocicli")
    assert res.hits[0].numero == 1


def test_a_scoped_word_finds_its_stem_siblings_in_that_part_only(index):
    # "manifestamente" is not in the texts: its sibling "manifesta" is, in epigrafe and dispositivo of 3
    scoped = index.search("dispositivo:manifestamente")
    assert [h.numero for h in scoped.hits] == [3]
    assert scoped.hits[0].snippet_part == "dispositivo" and "**manifesta**" in scoped.hits[0].snippet
    assert index.search("testo:manifestamente").total == 0
    assert [h.numero for h in index.search("testo:motociclista").hits] == [2, 1]


def test_a_scoped_phrase_is_literal_in_its_part(index):
    assert [h.numero for h in index.search('dispositivo:"manifesta infondatezza"').hits] == [3]
    assert index.search('testo:"manifesta infondatezza"').total == 0
