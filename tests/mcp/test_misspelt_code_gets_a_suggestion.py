"""it_resolve and it_get_text answer a misspelt code name ('codice penalle') as they answer a
misspelt argument name: invalid_arg with a did-you-mean naming the closest codes."""

from __future__ import annotations

import pytest

from it_eli.mcp.tools import load_all
from it_eli.mcp.tools.registry import call
from it_eli.services.app import App

load_all()
DEAD = "http://127.0.0.1:9"

CASES = [
    ("codice penalle", "Codice penale", "c.p."),
    ("art. 575 codice penalle", "Codice penale", "c.p."),
    ("codice penalle, art. 575", "Codice penale", "c.p."),
    ("art. 2043 del codice civle", "Codice civile", "c.c."),
    ("art. 3 della Costituzone", "Costituzione della Repubblica italiana", "Cost."),
    ("art. 111 cod. proc. civl.", "Codice di procedura civile", "c.p.c."),
]


@pytest.fixture()
async def app(make_settings):
    a = App(make_settings(auto_build="0", normattiva_url=DEAD, normattiva_api_url=DEAD, sentenzeweb_url=DEAD,
                          ga_url=DEAD, ga_document_url=DEAD))
    yield a
    await a.close()


@pytest.mark.parametrize("tool", ["it_resolve", "it_get_text"])
@pytest.mark.parametrize(("reference", "name", "abbreviation"), CASES)
async def test_a_misspelt_code_gets_the_closest_names(app, tool, reference, name, abbreviation):
    is_error, out = await call(app, tool, {"reference": reference})
    assert is_error and out["code"] == "invalid_arg", out
    assert out["valid"].startswith(f"did you mean {name!r} ({abbreviation})"), out["valid"][:200]
    assert out["details"]["did_you_mean"][0] == name


@pytest.mark.parametrize("tool", ["it_resolve", "it_get_text"])
async def test_words_far_from_any_code_get_no_guess(app, tool):
    is_error, out = await call(app, tool, {"reference": "art. 12 del regolamento condominiale"})
    assert is_error and out["code"] == "invalid_arg"
    assert "did you mean" not in out["valid"] and "did_you_mean" not in out.get("details", {})
