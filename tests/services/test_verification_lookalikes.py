"""Verification of look-alikes (tests/lookalike_cases.py): a citation the scanner reads as a gap
(a number kept whole, a code's name qualified into another act, an office's acronym) is a gap in
the report that quotes what was read; it never comes back verified, or not found, as another act."""

from __future__ import annotations

from pathlib import Path

import pytest

from it_eli.runtime.config import load_settings
from it_eli.search.statutes import import_files
from it_eli.services.app import App
from it_eli.services.verification.report import GAP_KINDS
from it_eli.services.verification.verifier import verify_text
from tests.lookalike_cases import LOOKALIKES
from tests.offline_home import offline_env

# the plain acts the look-alikes resemble: held, so a wrong reading would come back "verified" or "not found"
EXPORTS = ["mcp-legal-it__codice_penale.xml", "scabopdf__codice_procedura_penale.xml", "mcp-legal-it__legge_241_1990.xml",
           "scabopdf__codice_strada.xml", "alessionar__20230331_23G00044_VIGENZA_20230530.xml"]

GAP_ROWS = [r for r in LOOKALIKES if r["expect"] in ("gap", "never")]


@pytest.fixture(scope="module")
def home(tmp_path_factory, testdata) -> Path:
    h = tmp_path_factory.mktemp("lookalike_home")
    rep = import_files(load_settings(offline_env(h)), [str(testdata / "normattiva-akn" / f) for f in EXPORTS])
    assert not rep.errors, rep.errors
    return h


@pytest.fixture
async def app(home):
    a = App(load_settings(offline_env(home)))
    yield a
    await a.close()


@pytest.mark.parametrize("row", GAP_ROWS, ids=[r["text"][:60] for r in GAP_ROWS])
async def test_lookalike_is_a_gap_never_another_act(app, row):
    res = await verify_text(app, row["text"], offline=True)
    wrong = [(c.raw, c.status, c.urn) for c in res.citations if c.status not in GAP_KINDS]
    assert not wrong, f"a look-alike answered as another act: {wrong}"
    assert res.status not in ("VERIFIED", "VERIFIED_WITH_GAPS")
    if row["expect"] == "gap":
        quoted = [c for c in res.citations if row["words"] in c.detail]
        assert quoted, f"no gap says what was read ({row['words']!r}): {[(c.raw, c.detail) for c in res.citations]}"


# the plain acts still verify (the look-alikes' controls), as the act the index holds
PLAIN = [
    ("Si applica l'art. 52 c.p.", "urn:nir:stato:regio.decreto:1930-10-19;1398"),
    ("Si applica l'art. 360 c.p.p.", "urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447"),
    ("Si applica l'art. 3 della legge n 241/1990.", "urn:nir:stato:legge:1990-08-07;241"),
    ("Si applica l'art. 3 della l. n 241 del 1990.", "urn:nir:stato:legge:1990-08-07;241"),
]


@pytest.mark.parametrize("text,urn", PLAIN)
async def test_the_plain_act_still_verifies(app, text, urn):
    res = await verify_text(app, text, offline=True)
    assert res.status == "VERIFIED", [(c.raw, c.status, c.detail) for c in res.citations]
    assert [c.urn for c in res.citations] == [urn]
