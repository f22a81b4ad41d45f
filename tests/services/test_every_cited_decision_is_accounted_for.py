"""Nothing a text cites is absent from the verification answer: every item of a list of Constitutional
Court decisions is checked (a made-up one is not_found, and the text is never a pass), and a reference
the scanner could not read comes back as an unparseable_citation gap with its words.

The Court's decisions are checked against the real sample of its open data (../shared/data/cortecost),
built as a downloaded index so that its year counts as complete and an absent number is not_found."""

from __future__ import annotations

import asyncio
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from it_eli.runtime.config import load_settings
from it_eli.search.decisions.build import build_index
from it_eli.search.statutes import import_files
from it_eli.services.app import App
from it_eli.services.verification.verifier import verify_text
from tests.offline_home import offline_env

PASSES = ("VERIFIED", "VERIFIED_WITH_GAPS")
YEAR = 2001  # the year the sample holds


@pytest.fixture(scope="module")
def court(tmp_path_factory, testdata):
    """(event loop, app, {number: type} of the sample's decisions of YEAR): the Court's sample as a
    downloaded index, and the Costituzione's export."""
    home = tmp_path_factory.mktemp("lists_home")
    s = load_settings(offline_env(home))
    dl = s.home / "downloads"
    dl.mkdir(parents=True)
    shutil.copy(testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip", dl / "P_json2001_oggi.zip")
    build_index(s, [dl / "P_json2001_oggi.zip"])
    rep = import_files(s, [str(testdata / "normattiva-akn" / "mcp-legal-it__costituzione.xml")])
    assert not rep.errors, rep.errors
    app = App(s)
    numbers = app.decisions.year_numbers(YEAR)
    assert numbers, "the sample holds no decision of 2001"
    kinds = {n: {"S": "sentenza", "O": "ordinanza"}[app.decisions.get_decision(anno=YEAR, numero=n).tipologia]
             for n in numbers}
    loop = asyncio.new_event_loop()
    yield loop, app, kinds
    loop.run_until_complete(app.close())
    loop.close()


def _verify(court, text: str):
    loop, app, _ = court
    return loop.run_until_complete(verify_text(app, text, offline=True))


@pytest.mark.parametrize("text", [
    "Come chiarito dalla Corte costituzionale nell'ord. n. 4/2001 e nella sentenza n. 9999 del 2001, la questione è "
    "inammissibile.",
    "La Corte costituzionale, con l'ordinanza n. 4 del 2001 e con la sentenza n. 9999 del 2001, ha deciso.",
    "Con l'ordinanza n. 4 del 2001 e con la sentenza n. 9999 del 2001 la Corte costituzionale ha deciso.",
    "Corte cost., ord. n. 4/2001 e sent. n. 9999/2001",
])
def test_a_made_up_decision_in_a_list_is_a_hallucination(court, text):
    res = _verify(court, text)
    assert res.status == "HALLUCINATION_DETECTED" and res.is_error
    by_number = {(c.decision_number, c.decision_year): c for c in res.citations}
    # ord. 4/2001 is found; what a sentence claims of it ("inammissibile") is checked against its
    # record (manifesta infondatezza), which may make it a content mismatch: never a pass either way
    assert by_number[("4", 2001)].status in ("verified", "content_mismatch")
    made_up = by_number[("9999", 2001)]
    assert made_up.status == "not_found" and made_up.decision_type == "sentenza" and "9999/2001" in made_up.detail


# ---------------------------------------------------------------- the property: every item, every place

# what joins two items (the article before the next item's type is drawn apart)
JOINS = [" e ", " ed ", ", ", "; ", " nonché ", " e con ", " e nella ", " nonché nella ", "; cfr. anche ", ", e ",
         " o ", " e, da ultimo, "]
_ARTICLE = {"sentenza": {"": "", " nella ": "la "}, "ordinanza": {"": "", " nella ": "l'"}}
_TYPE_WORDS = {"sentenza": ["sentenza", "sent."], "ordinanza": ["ordinanza", "ord."]}


def _elide(join: str, dtype: str) -> str:
    """'e nella' before an ordinanza is 'e nell'', 'e con' wants its article: the join as Italian writes it."""
    if join.endswith(" nella "):
        return join if dtype == "sentenza" else join[: -len("nella ")] + "nell'"
    if join.endswith(" con "):
        return join + ("la " if dtype == "sentenza" else "l'")
    return join


@st.composite
def decision(draw, kinds: dict[int, str]):
    """(made up?, number, type, as written)."""
    made_up = draw(st.booleans())
    if made_up:
        n = draw(st.one_of(st.integers(max(kinds) + 1, 1999), st.integers(2001, 99999)))
        dtype = draw(st.sampled_from(["sentenza", "ordinanza"]))
    else:
        n = draw(st.sampled_from(sorted(kinds)))
        dtype = kinds[n]
    word = draw(st.sampled_from(_TYPE_WORDS[dtype]))
    body = draw(st.sampled_from([f"n. {n}/{YEAR}", f"n. {n} del {YEAR}"]))
    return made_up, str(n), dtype, f"{word} {body}"


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.data())
def test_every_made_up_item_of_a_list_is_reported(court, data):
    kinds = court[2]
    items = data.draw(st.lists(decision(kinds), min_size=1, max_size=5))
    joined = items[0][3]
    for it in items[1:]:
        joined += _elide(data.draw(st.sampled_from(JOINS)), it[2]) + it[3]
    # no outcome is claimed of the decisions: what a text claims is checked elsewhere
    # (test_verification_decision_claims); here only that every item is accounted for
    place = data.draw(st.sampled_from(["court first", "court after", "court as subject"]))
    if place == "court first":
        head = data.draw(st.sampled_from(["Corte cost.,", "la Corte costituzionale, con", "C. cost.,"]))
        text = f"Come chiarito da {head} {joined}, sulla stessa questione."
    elif place == "court after":
        text = f"Si vedano {joined} della Corte costituzionale, sulla stessa questione."
    else:
        first = "la " if items[0][2] == "sentenza" else "l'"
        text = f"Con {first}{joined} la Corte costituzionale si è pronunciata sulla stessa questione."
    res = _verify(court, text)
    got = {}
    for c in res.citations:
        got.setdefault((c.decision_number, c.decision_year), []).append(c.status)
    for made_up, n, _, written in items:
        statuses = got.get((n, YEAR))
        assert statuses, f"{written!r} is missing from the answer to {text!r}"
        assert all(s == ("not_found" if made_up else "verified") for s in statuses), (text, n, statuses)
    if any(it[0] for it in items):
        assert res.status == "HALLUCINATION_DETECTED" and res.status not in PASSES, text
    else:
        assert res.status == "VERIFIED", (text, [(c.raw, c.status) for c in res.citations])


# ---------------------------------------------------------------- the closing pass: what was not read is a gap

@pytest.mark.parametrize("text,words", [
    # a decision with no court in reach
    ("Si applica l'art. 3 Cost., come chiarito nella sentenza n. 5 del 2001.", ["sentenza n. 5 del 2001"]),
    # a massima's number standing alone (after its decision it belongs to it: see below)
    ("L'art. 3 Cost. va letto come nella massima Rv. 282650.", ["Rv. 282650"]),
    # a decision said to be of a judge no reader knows
    ("L'art. 3 Cost. è stato richiamato dalla sentenza n. 123/2024 del giudice di pace.", ["sentenza n. 123/2024"]),
])
def test_a_reference_not_read_is_a_gap_with_its_words_never_a_pass(court, text, words):
    res = _verify(court, text)
    assert res.status not in ("VERIFIED", "NO_CITATIONS_FOUND"), res.status
    unread = [c for c in res.citations if c.status == "unparseable_citation"]
    assert [c.raw for c in unread] == words
    assert [g.citation for g in res.gaps if g.kind == "unparseable_citation"] == words
    assert all(w in c.detail for w, c in zip(words, unread, strict=True))
    assert any(c.status == "verified" for c in res.citations)  # the rest is still checked


@pytest.mark.parametrize("text", [
    "Si vedano Corte cost., ord. n. 4/2001 e ord. n. 5/2001, nonché l'art. 3 Cost.",
    "Cass. pen., sez. VI, n. 2340/2022, Rv. 282650, e l'art. 3 Cost.",
    "Gli artt. 2 e 3 Cost. sono richiamati dall'ordinanza n. 7 del 2001 della Corte costituzionale.",
])
def test_what_was_read_adds_no_gap(court, text):
    res = _verify(court, text)
    assert not [c for c in res.citations if c.status == "unparseable_citation"], [c.raw for c in res.citations]
