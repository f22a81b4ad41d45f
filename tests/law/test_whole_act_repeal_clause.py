"""A clause that repeals another act as a whole is read as such, and nothing less is.

The first rows are the clauses of the held exports (art. 226 d.lgs. 36/2023, art. 91 CAD); the
others are the ways the same clause is written in the Gazzetta (a starting date before or after the
verb, 'e successive modificazioni', 'è', a feminine act), and the look-alikes that repeal a part
of the act, another act with the same number and year, or a longer number.
"""

from __future__ import annotations

import pytest

from it_eli.law.provision_status import whole_act_repeal

DLGS, LEGGE, DL = "decreto.legislativo", "legge", "decreto.legge"

REPEALS = [
    ("1. Il decreto legislativo 18 aprile 2016, n. 50, e' abrogato dal 1° luglio 2023.\n2. A decorrere",
     DLGS, 2016, "50", "2023-07-01"),
    ("((3-bis. L'articolo 15, comma 1, della legge 15 marzo 1997, n. 59, e' abrogato.\n"
     " 3-ter. Il decreto legislativo 28 febbraio 2005, n. 42, e' abrogato.))", DLGS, 2005, "42", None),
    ("4. A decorrere dal 1° gennaio 2024, la legge 3 marzo 2009, n. 18, e' abrogata.", LEGGE, 2009, "18", "2024-01-01"),
    ("2. Il decreto-legge 17 marzo 2020, n. 18, e successive modificazioni, è abrogato a decorrere dal 15 maggio 2021.",
     DL, 2020, "18", "2021-05-15"),
    ("Il decreto legislativo n. 163 del 2006 resta in vigore. 3. Il decreto legislativo 12 aprile 2006, n. 163, "
     "e' abrogato.", DLGS, 2006, "163", None),
]

NOT_WHOLE = [
    ("3-bis. L'articolo 15, comma 1, della legge 15 marzo 1997, n. 59, e' abrogato.", LEGGE, 1997, "59"),
    ("1. Il decreto legislativo 18 aprile 2016, n. 50, e' abrogato dal 1° luglio 2023.", LEGGE, 2016, "50"),
    ("1. Il decreto legislativo 18 aprile 2016, n. 500, e' abrogato.", DLGS, 2016, "50"),
    ("1. Il decreto legislativo 18 aprile 2016, n. 50, e' modificato come segue:", DLGS, 2016, "50"),
    ("Le disposizioni di cui al decreto legislativo n. 50 del 2016 continuano ad applicarsi.", DLGS, 2016, "50"),
    ("Il comma 2 dell'articolo 3 del decreto legislativo 18 aprile 2016, n. 50, e' abrogato.", DLGS, 2016, "50"),
]


@pytest.mark.parametrize("text,act_type,year,number,since", REPEALS)
def test_a_whole_act_repeal_is_read_with_its_date(text, act_type, year, number, since):
    got = whole_act_repeal(text, act_type, year, number)
    assert got is not None and got[0] == since
    assert f"n. {number}" in got[1] and "abrogat" in got[1]


@pytest.mark.parametrize("text,act_type,year,number", NOT_WHOLE)
def test_a_part_or_another_act_is_not_a_whole_act_repeal(text, act_type, year, number):
    assert whole_act_repeal(text, act_type, year, number) is None
