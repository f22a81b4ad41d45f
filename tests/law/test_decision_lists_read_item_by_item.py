"""Lists of one court's decisions are read item by item, whatever joins them and wherever the court is
named: every item comes back with the court of the list and its own type, number and year (a made-up
item that vanished from the extraction would vanish from the verification answer too)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from it_eli.law.scanner.scan import extract_citations

# (how the court is named before its decisions, its code)
COURT_FIRST = [
    ("Corte cost.", "COST"), ("la Corte costituzionale", "COST"), ("C. cost.", "COST"),
    ("Cass. civ., sez. III", "CASS"), ("Cass. pen., Sez. VI", "CASS"), ("la Corte di cassazione", "CASS"),
    ("Cons. Stato, sez. IV", "CDS"), ("Consiglio di Stato, Sez. VI", "CDS"), ("TAR Lazio, Roma, sez. II", "TAR"),
    ("C.G.A.R.S.", "CGARS"), ("Corte EDU", "CEDU"), ("CGUE", "CGUE"), ("Corte dei conti", "CCONTI"),
]
# (how the court is named after its decisions, its code)
COURT_AFTER = [
    ("della Corte costituzionale", "COST"), ("della Corte di cassazione", "CASS"),
    ("del Consiglio di Stato", "CDS"), ("della Consulta", "COST"),
]
DTYPES = {"sentenza": "sentenza", "sent.": "sentenza", "ordinanza": "ordinanza", "ord.": "ordinanza"}
# what may stand before a decision's type in a list: an article, a preposition with it
ARTICLES = {"sentenza": ["", "la ", "nella ", "con la ", "dalla "], "sent.": ["", "la ", "nella "],
            "ordinanza": ["", "l'", "nell'", "con l'", "dall'"], "ord.": ["", "l'", "nell'"]}
JOINS = [" e ", " ed ", ", ", "; ", " nonché ", ", nonché ", "; cfr. anche ", " e, da ultimo, ", " o ", ", e ",
         "; v. anche "]
MONTHS = ["gennaio", "marzo", "luglio", "dicembre"]


@st.composite
def item(draw):
    """One decision as a list writes it: (text, type, number, year, text without its article)."""
    n = draw(st.integers(1, 29999))
    y = draw(st.integers(1960, 2025))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    form = draw(st.sampled_from(["slash", "del", "date"]))
    body = {"slash": f"n. {n}/{y}", "del": f"n. {n} del {y}",
            "date": f"{draw(st.integers(1, 28))} {draw(st.sampled_from(MONTHS))} {y}, n. {n}"}[form]
    bare = f"{dtype} {body}"
    return f"{draw(st.sampled_from(ARTICLES[dtype]))}{bare}", DTYPES[dtype], str(n), y, bare


def _read(text: str) -> list[tuple]:
    return [(c.court, c.decision_number, c.decision_year) for c in extract_citations(text) if c.kind == "case"]


def _joined(draw, items: list[tuple]) -> str:
    out = items[0][0]
    for it in items[1:]:
        out += draw(st.sampled_from(JOINS)) + it[0]
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_item_after_the_court_is_read(data):
    head, court = data.draw(st.sampled_from(COURT_FIRST))
    items = data.draw(st.lists(item(), min_size=2, max_size=5))
    text = f"Come chiarito da {head}, {_joined(data.draw, items)}, la questione è inammissibile."
    got = extract_citations(text)
    cases = [c for c in got if c.kind == "case"]
    assert [(c.court, c.decision_number, c.decision_year) for c in cases] == [
        (court, n, y) for _, _, n, y, _ in items], text
    assert [c.decision_type for c in cases] == [t for _, t, _, _, _ in items], text
    assert all(text[c.start:c.end] == c.raw for c in got)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_item_before_the_court_is_read(data):
    after, court = data.draw(st.sampled_from(COURT_AFTER))
    items = data.draw(st.lists(item(), min_size=2, max_size=5))
    text = f"Si vedano {_joined(data.draw, items)} {after}, che hanno deciso la questione."
    assert _read(text) == [(court, n, y) for _, _, n, y, _ in items], text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_items_before_the_court_as_subject_are_read(data):
    """'Con l'ordinanza n. 4 del 2001 e con la sentenza n. 9 del 2001 la Corte costituzionale ...'"""
    items = data.draw(st.lists(item(), min_size=2, max_size=4))
    words = [it[4] for it in items]
    art = ["la " if w.startswith("sent") else "l'" for w in words]
    text = "Con " + "".join((" e con " if i else "") + art[i] + w for i, w in enumerate(words))
    text += " la Corte costituzionale ha dichiarato inammissibile la questione."
    assert _read(text) == [("COST", n, y) for _, _, n, y, _ in items], text


@pytest.mark.parametrize("text,want", [
    # the sentences: the second decision was lost
    ("Come chiarito dalla Corte costituzionale nell'ord. n. 4/2001 e nella sentenza n. 9999 del 2001, la "
     "questione è inammissibile.", [("COST", "4", 2001, "ordinanza"), ("COST", "9999", 2001, "sentenza")]),
    ("La Corte costituzionale, con l'ordinanza n. 4 del 2001 e con la sentenza n. 9999 del 2001, ha deciso.",
     [("COST", "4", 2001, "ordinanza"), ("COST", "9999", 2001, "sentenza")]),
    ("con l'ordinanza n. 4 del 2001 e con la sentenza n. 9999 del 2001 la Corte costituzionale ha deciso",
     [("COST", "4", 2001, "ordinanza"), ("COST", "9999", 2001, "sentenza")]),
    # each item keeps its own section and date
    ("Cons. Stato, sez. IV, 12 marzo 2020, n. 1234, e sez. V, 3 aprile 2021, n. 55",
     [("CDS", "1234", 2020, None), ("CDS", "55", 2021, None)]),
    ("CGUE, sentenza 5 marzo 2020, causa C-311/18, e sentenza C-5/19",
     [("CGUE", "C-311/18", 2020, "sentenza"), ("CGUE", "C-5/19", 2019, "sentenza")]),
    # an item said to be of another court or authority is not this list's
    ("Corte cost., sent. n. 4/2001 e la sentenza n. 5/2020 del giudice di pace", [("COST", "4", 2001, "sentenza")]),
    ("Corte cost., sent. n. 4/2001 e la sentenza n. 5/2020 del Tribunale di Roma",
     [("COST", "4", 2001, "sentenza"), ("TRIB", "5", 2020, "sentenza")]),
    # a bare "n." with neither type nor year is no decision; an act after the list is not an item
    ("Corte cost. n. 4/2001, n. 6", [("COST", "4", 2001, None)]),
    ("Corte cost., sent. n. 242/2019, e l. n. 5/2020", [("COST", "242", 2019, "sentenza")]),
])
def test_lists_of_decisions_keep_every_item(text, want):
    got = [(c.court, c.decision_number, c.decision_year, c.decision_type) for c in extract_citations(text)
           if c.kind == "case"]
    assert got == want
