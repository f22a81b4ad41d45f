"""A citation of an act that a held act repeals as a whole is flagged, not passed as a plain gap.

d.lgs. 36/2023 (held) says 'Il decreto legislativo 18 aprile 2016, n. 50, e' abrogato dal 1°
luglio 2023' (art. 226); the CAD (held) says 'Il decreto legislativo 28 febbraio 2005, n. 42,
e' abrogato' (art. 91, comma 3-ter). Neither repealed act is held: only the repealing text says it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from it_eli.runtime.config import load_settings
from it_eli.search.statutes import import_files
from it_eli.services.app import App
from it_eli.services.verification.verifier import verify_text
from tests.offline_home import offline_env

EXPORTS = ["alessionar__20230331_23G00044_VIGENZA_20230530.xml", "ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml"]


@pytest.fixture(scope="module")
def repealing_home(tmp_path_factory, testdata) -> Path:
    home = tmp_path_factory.mktemp("repealing")
    rep = import_files(load_settings(offline_env(home)), [str(testdata / "normattiva-akn" / f) for f in EXPORTS])
    assert not rep.errors, rep.errors
    return home


async def _check(home: Path, text: str, at: str | None):
    app = App(load_settings(offline_env(home)))
    try:
        return await verify_text(app, text, at_date=at, offline=True)
    finally:
        await app.close()


REPEALED = [
    ("Si applica l'art. 3 del d.lgs. 18 aprile 2016, n. 50.", None, "since 2023-07-01"),
    ("Ai sensi dell'art. 95, comma 3, d.lgs. 50/2016, l'offerta e' valutata.", "2023-07-01", "art. 226"),
    ("Si veda il d.lgs. n. 50 del 2016.", "2024-01-10", "art. 226"),
    ("Come previsto dal d.lgs. 28 febbraio 2005, n. 42, il sistema e' pubblico.", None, "date of effect not stated"),
]


@pytest.mark.parametrize("text,at,said", REPEALED)
async def test_citation_of_an_act_repealed_by_a_held_act_needs_review(repealing_home, text, at, said):
    res = await _check(repealing_home, text, at)
    c = res.citations[0]
    assert c.status == "repealed" and said in c.detail and "abrogat" in c.detail, c.detail
    assert res.status == "NEEDS_REVIEW"


async def test_before_the_repeal_takes_effect_the_act_is_not_called_repealed(repealing_home):
    res = await _check(repealing_home, "Si applica l'art. 3 del d.lgs. 18 aprile 2016, n. 50.", "2023-06-30")
    assert res.citations[0].status == "act_not_in_corpus"


async def test_an_act_only_partly_repealed_is_not_called_repealed(repealing_home):
    # the CAD repeals art. 15, comma 1, of l. 59/1997, not the whole law
    res = await _check(repealing_home, "Si veda l'art. 20 della legge 15 marzo 1997, n. 59.", None)
    assert res.citations[0].status == "act_not_in_corpus"
