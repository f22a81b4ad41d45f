"""The closing pass finds what looks like a reference and was not read (a decision or act noun with
its number, 'artt.', a massima's 'Rv.'), with the words of the whole list; and finds nothing where
the scanner read everything, over every labelled table."""

from __future__ import annotations

import pytest

from it_eli.law.scanner.scan import extract_citations
from it_eli.law.scanner.unread import unread_references
from tests.citation_cases import CASES
from tests.citation_forms import FORMS
from tests.verify_cases import CASES as VERIFY_CASES


def _unread(text: str) -> list[tuple[str, str]]:
    return [(text[s:e], kind) for s, e, kind in unread_references(text, extract_citations(text))]


@pytest.mark.parametrize("text,want", [
    # decisions with no court in reach, as the Court's own texts cite its decisions (2001 sample)
    ("vedi, ex plurimis, sentenze n. 189 del 2000, n. 160 del 1995 e n. 351 del 1989; che",
     [("sentenze n. 189 del 2000, n. 160 del 1995 e n. 351 del 1989", "case")]),
    ("(cfr., da ultimo, le ordinanze n. 91, n. 150 e n. 389 del 2000)", [("ordinanze n. 91, n. 150 e n. 389 del 2000", "case")]),
    ("la sentenza 12 marzo 2020, n. 5, del giudice di pace", [("sentenza 12 marzo 2020, n. 5", "case")]),
    ("l'ordinanza interlocutoria n. 3 del 2001", [("ordinanza interlocutoria n. 3 del 2001", "case")]),
    ("il decreto ingiuntivo n. 1234/2020", [("decreto ingiuntivo n. 1234/2020", "statute")]),
    ("come nella massima Rv. 282650-01", [("Rv. 282650-01", "case")]),
    # what was read is not found again
    ("Cass. pen., sez. VI, n. 2340/2022, Rv. 282650.", []),
    ("Si vedano gli artt. 3 e 4 e la legge n. 241/1990.", []),
    ("Corte cost., sentenze n. 31 e n. 32 del 2012", []),
    ("nell'ord. n. 4/2001 e nella sentenza n. 9 del 2001 della Corte costituzionale", []),
    # no number, no reference
    ("la sentenza impugnata, n. 5 del ruolo", []),
    ("la sentenza di primo grado è stata riformata", []),
])
def test_references_no_reader_read_are_found_with_their_words(text, want):
    assert _unread(text) == want


# texts of the tables that do cite something the scanner leaves unread: a decision of a court no
# reader knows, an act number too long to be read (both belong in the answer as gaps)
KNOWN_UNREAD = {
    "La sentenza n. 123/2024 del giudice di pace è stata appellata.": [("sentenza n. 123/2024", "case")],
    "Visto l'art. 3 del d.m. 12 maggio 2020, n. 123456.": [("d.m. 12 maggio 2020, n. 123456", "statute")],
}


def test_the_labelled_tables_leave_nothing_unread():
    texts = [c[1] for c in CASES] + [c[1] for c in VERIFY_CASES] + [r["text"] for r in FORMS]
    found = {t: u for t in texts if (u := _unread(t))}
    assert found == KNOWN_UNREAD
