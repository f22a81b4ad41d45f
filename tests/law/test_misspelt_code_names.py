"""A misspelt code name gets the closest names of the code table (a did-you-mean), as lawyers
mistype them: a letter doubled, dropped or swapped, an abbreviation with a stray letter, with the
linking words around it; words that are no code name, or a name already known, get none."""

from __future__ import annotations

import pytest

from it_eli.law.codes import lookup_code, similar_codes

MISSPELT = [
    ("codice penalle", "cp"),
    ("codice civle", "cc"),
    ("codcie civile", "cc"),
    ("Costitutzione", "cost"),
    ("della Costituzone", "cost"),
    ("Cosituzione", "cost"),
    ("cod. proc. civl.", "cpc"),
    ("codice di procedura penalle", "cpp"),
    ("c.p.pp", "cpp"),
    ("codice del processo amministrativvo", "cpa"),
    ("statuto dei lavoratri", "statuto_lavoratori"),
    ("testo unico bancarioo", "tub"),
    ("codice dell'ambientte", "ambiente"),
]


@pytest.mark.parametrize(("written", "code_id"), MISSPELT)
def test_the_closest_code_comes_first(written, code_id):
    assert lookup_code(written) is None  # the table itself does not know the misspelling
    got = [c.id for c in similar_codes(written)]
    assert got[:1] == [code_id] and len(got) <= 3, got


@pytest.mark.parametrize("written", ["Codice Penale.", "codice dell ambiente", "c.p.c.", "Costituzione"])
def test_a_name_written_right_gets_no_suggestion(written):
    assert lookup_code(written) is not None
    assert similar_codes(written) == []


@pytest.mark.parametrize("written", ["italianoo", "xyz", "del", "ricorso fondato", "Tribunale di Milano", "codice della"])
def test_words_that_are_no_code_name_get_no_suggestion(written):
    assert similar_codes(written) == []
