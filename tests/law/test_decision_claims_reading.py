"""Reading what a sentence claims of a decision it cites (it_eli.law.claims): the Court's
outcome formulas as lawyers write them, negations, lists, and the dispositivi of the real records."""

from __future__ import annotations

import json

import pytest

from it_eli.law.claims import outcome_fits, read_decision_claims, read_outcomes
from it_eli.law.scanner import extract_citations


@pytest.mark.parametrize("text,outcome", [
    ("ha dichiarato l'illegittimità costituzionale dell'art. 5", "illegittimita"),
    ("ha dichiarato costituzionalmente illegittimo l'art. 5", "illegittimita"),
    ("l'art. 5 è stato dichiarato incostituzionale", "illegittimita"),
    ("ha accolto la questione", "illegittimita"),
    ("ha dichiarato non fondata la questione", "non_fondata"),
    ("ha ritenuto infondate le questioni", "non_fondata"),
    ("ha dichiarato la manifesta infondatezza della questione", "manifestamente_infondata"),
    ("la questione è manifestamente infondata", "manifestamente_infondata"),
    ("ha dichiarato inammissibile la questione", "inammissibile"),
    ("ha dichiarato la manifesta inammissibilità della questione", "manifestamente_inammissibile"),
    ("ha ordinato la restituzione degli atti al giudice a quo", "restituzione_atti"),
    ("ha restituito gli atti al tribunale", "restituzione_atti"),
    ("ha dichiarato estinto il processo", "estinzione"),
    ("ha dichiarato cessata la materia del contendere", "cessata_materia"),
    ("ha dichiarato ammissibile il conflitto di attribuzione", "ammissibile"),
    ("ha respinto la questione", "respinta"),
    ("non ha dichiarato l'illegittimità dell'art. 5", "not:illegittimita"),
    ("ha escluso l'illegittimità costituzionale dell'art. 5", "not:illegittimita"),
])
def test_outcome_formulas_are_read(text, outcome):
    assert [k for k, _, _ in read_outcomes(text)] == [outcome]


@pytest.mark.parametrize("text", [
    "ha esaminato la questione di illegittimità costituzionale dell'art. 5",
    "il giudice ha sollevato eccezione di incostituzionalità",
    "si è pronunciata sul conflitto tra poteri",
    "nel giudizio di ammissibilità del conflitto",
])
def test_a_question_raised_is_no_outcome(text):
    assert read_outcomes(text) == []


def _claims(text):
    cites = extract_citations(text)
    return {text[s:e]: c for (s, e), c in read_decision_claims(text, cites).items()}


def test_an_outcome_belongs_to_the_decision_it_follows_and_not_to_the_next():
    claims = _claims("Corte cost., ord. n. 4 del 2001, ha dichiarato manifestamente infondata la questione; "
                     "Corte cost., ord. n. 5 del 2001, ha restituito gli atti.")
    assert [c.outcomes for c in claims.values()] == [("manifestamente_infondata",), ("restituzione_atti",)]


def test_an_outcome_before_the_citation_is_claimed_of_it():
    claims = _claims("La questione è manifestamente inammissibile (Corte cost., ord. n. 6 del 2001).")
    assert [c.outcomes for c in claims.values()] == [("manifestamente_inammissibile",)]


def test_a_list_of_decisions_shares_what_follows_it():
    claims = _claims("Corte cost., ord. n. 1 del 2001 e ord. n. 4 del 2001 hanno dichiarato manifestamente infondate "
                     "le questioni.")
    assert len(claims) == 2 and all(c.outcomes == ("manifestamente_infondata",) for c in claims.values())


def test_the_next_sentence_claims_nothing_of_the_decision():
    claims = _claims("Si veda Corte cost., ord. n. 4 del 2001. Il tribunale ha dichiarato inammissibile l'appello.")
    assert [c.outcomes for c in claims.values()] == [()]


def test_the_provision_named_with_the_outcome_is_claimed():
    (claim,) = _claims("Corte cost., ord. n. 5 del 2001, ha dichiarato l'illegittimità dell'art. 2052 c.c.").values()
    assert [(p.article, p.act_urn) for p in claim.provisions] == [("2052", "urn:nir:stato:regio.decreto:1942-03-16;262:2")]


def test_plain_outcomes_cover_their_manifest_form_but_not_the_reverse():
    assert outcome_fits("non_fondata", {"manifestamente_infondata"})
    assert not outcome_fits("manifestamente_infondata", {"non_fondata"})
    assert outcome_fits("not:illegittimita", {"restituzione_atti"})
    assert not outcome_fits("illegittimita", {"restituzione_atti"})
    assert outcome_fits("illegittimita", set()) is None  # nothing the reader knows in the record: not checkable


RECORD_OUTCOMES = {1: {"manifestamente_infondata"}, 2: {"manifestamente_inammissibile", "manifestamente_infondata"},
                   3: {"manifestamente_infondata"}, 4: {"manifestamente_infondata"}, 5: {"restituzione_atti"},
                   6: {"manifestamente_inammissibile"}, 7: {"manifestamente_infondata"}, 8: {"restituzione_atti"},
                   9: {"ammissibile"}, 10: {"ammissibile"}, 11: {"manifestamente_inammissibile"},
                   12: {"restituzione_atti"}}


def test_the_real_dispositivi_read_as_what_the_court_decided(testdata):
    for path in sorted((testdata / "cortecost" / "records").glob("record_*.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        got = {k for k, _, _ in read_outcomes(rec["dispositivo"])}
        assert got == RECORD_OUTCOMES[int(rec["numero_pronuncia"])], (rec["ecli"], got)
