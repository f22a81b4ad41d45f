"""Every tool refuses what its input schema does not allow, and says what would have worked.

Derived from the registry (a tool registered later is covered without touching this file): a
misspelt or invented argument is never silently dropped, since a dropped filter gives unfiltered
results that look filtered.
"""

from __future__ import annotations

import msgspec
import pytest

from it_eli.services.app import App
from it_eli.mcp.tools import load_all
from it_eli.mcp.tools.registry import TOOLS, call, input_schema

load_all()


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_input_schema_forbids_other_arguments(name):
    assert input_schema(TOOLS[name])["additionalProperties"] is False


@pytest.mark.parametrize("name", sorted(TOOLS))
async def test_an_unknown_argument_is_invalid_and_named(name, make_settings):
    fields = [f.encode_name for f in msgspec.structs.fields(TOOLS[name].params)]
    app = App(make_settings(auto_build="0", normattiva_url="http://127.0.0.1:9",
                            normattiva_api_url="http://127.0.0.1:9", sentenzeweb_url="http://127.0.0.1:9",
                            ga_url="http://127.0.0.1:9", ga_document_url="http://127.0.0.1:9"))
    try:
        is_error, out = await call(app, name, {"sezzione_inventata": "1"})
    finally:
        await app.close()
    assert is_error and out["code"] == "invalid_arg"
    assert "sezzione_inventata" in out["message"]
    assert all(f in out["valid"] for f in fields)


async def test_a_misspelt_argument_gets_a_suggestion(make_settings):
    app = App(make_settings(auto_build="0"))
    try:
        is_error, out = await call(app, "it_case_search", {"query": "fauna", "annno": 2001})
    finally:
        await app.close()
    assert is_error and out["code"] == "invalid_arg" and "did you mean 'anno'" in out["valid"]


async def test_a_value_outside_a_fixed_set_lists_the_set(make_settings):
    app = App(make_settings(auto_build="0"))
    try:
        is_error, out = await call(app, "it_get_text", {"reference": "c.p.", "article": "1", "format": "pdf"})
    finally:
        await app.close()
    assert is_error and out["code"] == "invalid_arg"
    assert "'text'" in out["valid"] and "'akn_xml'" in out["valid"]


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_argument_is_described_for_the_model(name):
    """An assistant reads the input schema: every argument says what it is."""
    props = input_schema(TOOLS[name]).get("properties", {})
    assert all(p.get("description") for p in props.values()), [k for k, p in props.items() if not p.get("description")]


@pytest.mark.parametrize(("name", "arg", "lo", "hi"), [
    ("it_cassazione_search", "limit", 1, 50), ("it_cassazione_search", "offset", 0, 10000),
    ("it_cassazione_get", "offset", 0, None), ("it_ga_search", "limit", 1, 60), ("it_ga_get_decision", "offset", 0, None),
])
async def test_live_tools_paging_bounds_are_in_the_schema(name, arg, lo, hi, make_settings):
    """A client (and the model) reads the range from the schema, as for it_case_search; the
    call outside it is refused before any request, naming the range."""
    prop = input_schema(TOOLS[name])["properties"][arg]
    assert prop.get("minimum") == lo and prop.get("maximum") == hi
    app = App(make_settings(auto_build="0", sentenzeweb_url="http://127.0.0.1:9", ga_url="http://127.0.0.1:9",
                            ga_document_url="http://127.0.0.1:9"))
    base = {"it_cassazione_search": {"query": "danno"}, "it_cassazione_get": {"sic_id": "snciv2021521018O"},
            "it_ga_search": {"query": "appalto"},
            "it_ga_get_decision": {"document_url": "http://127.0.0.1:9/visualizza/?nomeFile=202611970_01.html"}}[name]
    try:
        is_error, out = await call(app, name, {**base, arg: lo - 1})
    finally:
        await app.close()
    assert is_error and out["code"] == "invalid_arg" and out["valid"].startswith(f"{arg}: an integer") and str(lo) in out["valid"]


def test_a_schema_validating_client_may_send_an_identifier_as_a_number():
    """Clients that check arguments against inputSchema before sending must not refuse
    `article: 24`, which the server takes as "24"."""
    import jsonschema

    from it_eli.mcp.tools import load_all
    from it_eli.mcp.tools.registry import TOOLS, input_schema

    load_all()
    for tool, args in (("it_get_text", {"reference": "costituzione", "article": 24}),
                       ("it_resolve", {"reference": "c.c.", "article": 2043})):
        jsonschema.validate(args, input_schema(TOOLS[tool]))
    with pytest.raises(jsonschema.ValidationError):  # still not any type
        jsonschema.validate({"reference": "c.c.", "article": [1]}, input_schema(TOOLS["it_resolve"]))
