"""Offline deployment: `it-eli statutes import normattiva-akn/*.xml`, then a real MCP client
session over stdio (`python -m it_eli serve`) with every upstream on a closed port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import REPO_ROOT

LEGISLATION_TOOLS = {"it_list_codes", "it_resolve", "it_get_act", "it_get_text", "it_search_statutes"}


def error_body(res) -> dict:
    """A typed error travels as text only (no structuredContent: it is not the tool's result type)."""
    assert res.structured_content is None
    return json.loads(res.content[0].text)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def offline_env(tmp_path_factory, testdata):
    home = tmp_path_factory.mktemp("statute_home")
    dead = f"http://127.0.0.1:{_closed_port()}"
    env = dict(os.environ)
    env.update({
        "IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING",
        "IT_ELI_NORMATTIVA_URL": dead, "IT_ELI_NORMATTIVA_API_URL": dead + "/t/normattiva.api/bff-opendata/v1/api/v1",
        "IT_ELI_HTTP_TIMEOUT": "2", "IT_ELI_HTTP_RETRIES": "0",
    })
    exports = sorted(str(p) for p in (testdata / "normattiva-akn").glob("*.xml"))
    assert len(exports) == 43
    r = subprocess.run([sys.executable, "-m", "it_eli", "statutes", "import", *exports], env=env, cwd=REPO_ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "from 43 acts" in r.stdout and "0 files refused" in r.stdout
    return env


EXPECTED = [
    # reference, article, urn, eli prefix, citation, start of text
    ("Cost.", "3", "urn:nir:stato:costituzione", "https://www.normattiva.it/eli/id/1947/12/27/047U0001/",
     "art. 3 Cost.", "Tutti i cittadini hanno pari dignita' sociale"),
    ("codice penale", "575", "urn:nir:stato:regio.decreto:1930-10-19;1398",
     "https://www.normattiva.it/eli/id/1930/10/26/030U1398/CONSOLIDATED/20260602", "art. 575 c.p.",
     "Chiunque cagiona la morte di un uomo"),
    ("l. 241/1990", "21-septies", "urn:nir:stato:legge:1990-08-07;241",
     "https://www.normattiva.it/eli/id/1990/08/18/090G0294/CONSOLIDATED/20260421",
     "art. 21-septies L. 7 agosto 1990, n. 241", "1. E' nullo il provvedimento amministrativo"),
    ("d.lgs. 231/2001", "25-bis.1", "urn:nir:stato:decreto.legislativo:2001-06-08;231",
     "https://www.normattiva.it/eli/id/2001/06/19/001G0293/CONSOLIDATED/20260602",
     "art. 25-bis.1 D.Lgs. 8 giugno 2001, n. 231", None),
]


async def test_offline_mcp_session_serves_imported_statutes(offline_env):
    params = StdioServerParameters(command=sys.executable, args=["-m", "it_eli", "serve"], env=offline_env, cwd=str(REPO_ROOT))
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert LEGISLATION_TOOLS <= set(tools)
        assert tools["it_get_text"].input_schema["required"] == ["reference"]

        for ref, art, urn, eli, citation, start in EXPECTED:
            res = await client.call_tool("it_get_text", {"reference": ref, "article": art})
            assert not res.is_error, res.structured_content
            p = res.structured_content
            assert p["served_from"] == "local_index" and p["stale"] is False
            assert p["urn"] == urn and p["article"] == art
            assert p["eli_uri"].startswith(eli)
            assert p["human_readable_citation"] == citation
            assert p["source_url"].startswith("https://www.normattiva.it/uri-res/N2Ls?" + urn)
            assert "CC BY 4.0" in p["dataset_note"] and "Normattiva" in p["dataset_note"]
            assert p["text"] and (start is None or p["text"].startswith(start)), p["text"][:200]

        # point in time among the imported versions, offline: the exact version date is local
        res = await client.call_tool("it_get_text", {"reference": "d.lgs. 231/2001", "article": "25-bis.1",
                                                     "at_date": "2026-01-24"})
        assert not res.is_error and res.structured_content["in_force_date"] == "2026-01-24"
        # a later date with no exact version: Normattiva is unreachable, the older copy comes marked stale
        res = await client.call_tool("it_get_text", {"reference": "d.lgs. 231/2001", "article": "25-bis.1",
                                                     "at_date": "2026-03-01"})
        assert not res.is_error and res.structured_content["stale"] is True
        assert res.structured_content["in_force_date"] == "2026-01-24"

        res = await client.call_tool("it_search_statutes", {"query": "omicidio", "limit": 5})
        hits = res.structured_content["hits"]
        assert ("urn:nir:stato:regio.decreto:1930-10-19;1398", "575") in [(h["urn"], h["article"]) for h in hits[:3]]
        res = await client.call_tool("it_search_statutes", {"query": "conclusione del procedimento", "limit": 5})
        hits = res.structured_content["hits"]
        assert ("urn:nir:stato:legge:1990-08-07;241", "2") in [(h["urn"], h["article"]) for h in hits[:3]]
        assert res.structured_content["acts_in_index"] >= 25

        res = await client.call_tool("it_get_act", {"reference": "Cost."})
        assert not res.is_error and res.structured_content["served_from"] == "local_index"

        # not cached and no network: typed, never "does not exist"
        res = await client.call_tool("it_get_text", {"reference": "c.c.", "article": "2043"})
        assert res.is_error and error_body(res)["code"] == "upstream_unavailable"
        res = await client.call_tool("it_get_text", {"reference": "l. 241/1990", "article": "999"})
        assert res.is_error and error_body(res)["code"] == "not_found"  # the complete act says so
        res = await client.call_tool("it_get_text", {"reference": "Cost.", "article": "3", "max_chars": 0})
        assert res.is_error and error_body(res)["code"] == "invalid_arg"


async def test_an_article_sent_as_a_json_number_is_the_article(offline_env):
    """MCP Inspector sends `--tool-arg article=24` as the number 24: it means article "24"."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "it_eli", "serve"], env=offline_env, cwd=str(REPO_ROOT))
    async with Client(params) as client:
        res = await client.call_tool("it_get_text", {"reference": "Cost.", "article": 24})
        assert not res.is_error, res.content[0].text
        assert res.structured_content["article"] == "24"
        assert res.structured_content["text"].startswith("Tutti possono agire in giudizio")
        res = await client.call_tool("it_resolve", {"act_type": "legge", "year": 1990, "number": 241, "article": 3})
        assert not res.is_error, res.content[0].text
        assert res.structured_content["urn"].startswith("urn:nir:stato:legge:1990-08-07;241")
        # a type no client could mean as the identifier: says what to send
        res = await client.call_tool("it_get_text", {"reference": "Cost.", "article": [24]})
        body = error_body(res)
        assert body["code"] == "invalid_arg" and "article: a string" in body["valid"]
