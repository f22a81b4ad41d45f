"""A real MCP client session against `it-eli serve` (stdio and streamable HTTP)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from it_eli.services.app import App
from it_eli.search.decisions.build import build_index
from it_eli.mcp.tools.registry import call

CASE_TOOLS = {"it_case_search", "it_case_get_decision", "it_case_recent", "it_case_stats"}


def error_body(res) -> dict:
    """A typed error travels as text only (no structuredContent: it is not the tool's result type)."""
    assert res.structured_content is None
    return json.loads(res.content[0].text)


@pytest.fixture(scope="module")
def built_home(tmp_path_factory, testdata):
    from it_eli.runtime.config import load_settings

    home = tmp_path_factory.mktemp("home")
    settings = load_settings({"IT_ELI_HOME": str(home)})
    assert build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"]).indexed == 12
    return home


def _env(home) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"})
    return env


async def _exercise(client: Client) -> None:
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert CASE_TOOLS <= set(tools)
    for name in CASE_TOOLS:
        assert tools[name].output_schema["type"] == "object"
        assert tools[name].input_schema["type"] == "object"
    assert tools["it_case_search"].input_schema["required"] == ["query"]

    # the client validates structured content against outputSchema on every successful call
    plain = await client.call_tool("it_case_search", {"query": "legittimita costituzionale", "limit": 3})
    assert not plain.is_error
    res = plain.structured_content
    assert res["total"] > 0 and res["hits"][0]["citation"].startswith("Corte cost., ord. n. ")
    assert all(h["snippet"] for h in res["hits"])  # ordinanze: reasoning in the epigrafe
    assert res["facets"]["anno"] == [{"value": "2001", "count": res["total"]}]

    plural = await client.call_tool("it_case_search", {"query": "questioni rimesse"})
    assert not plural.is_error and plural.structured_content["total"] > 0

    by_ecli = await client.call_tool("it_case_get_decision", {"ecli": "ECLI:IT:COST:2001:5"})
    by_num = await client.call_tool("it_case_get_decision", {"anno": 2001, "numero": "5"})
    assert not by_ecli.is_error and by_ecli.structured_content == by_num.structured_content

    recent = await client.call_tool("it_case_recent", {"limit": 2})
    assert len(recent.structured_content["decisions"]) == 2
    stats = await client.call_tool("it_case_stats", {})
    assert stats.structured_content["total"] == 12 and stats.structured_content["schema_version"] >= 1

    bad = await client.call_tool("it_case_search", {"query": "questione", "anno": 1850})
    assert bad.is_error and error_body(bad)["code"] == "invalid_arg" and error_body(bad)["valid"]
    bad = await client.call_tool("it_case_get_decision", {"ecli": "ECLI:IT:COST:xx"})
    assert bad.is_error and error_body(bad)["code"] == "invalid_arg"
    bad = await client.call_tool("it_case_search", {"query": "questione", "limit": "tanti"})
    assert bad.is_error and error_body(bad)["code"] == "invalid_arg"

    # an unknown tool is a protocol error (JSON-RPC invalid params), as the MCP spec lists it
    with pytest.raises(MCPError) as exc:
        await client.call_tool("it_no_such_tool", {})
    assert exc.value.code == INVALID_PARAMS and "it_case_search" in str(exc.value.data)


async def test_stdio_session(built_home):
    params = StdioServerParameters(command=sys.executable, args=["-m", "it_eli", "serve"], env=_env(built_home))
    async with Client(params) as client:
        await _exercise(client)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_streamable_http_session(built_home):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--port", str(port)],
        env=_env(built_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await _exercise(client)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert out == b""  # nothing but the protocol on stdout (and HTTP serves none)


async def test_first_call_offline_returns_index_missing_with_the_command(make_settings):
    # the open-data host is a closed local port: the automatic build cannot work
    app = App(make_settings(cortecost_opendata_url=f"http://127.0.0.1:{_free_port()}/opendata/", http_timeout="2"))
    try:
        is_error, payload = await call(app, "it_case_search", {"query": "questione"})
    finally:
        await app.close()
    assert is_error and payload["code"] == "index_missing"
    assert "it-eli index build" in payload["valid"]


def test_cli_tool_output_into_a_closed_pipe_ends_quietly(built_home):
    """`it-eli tool ... | head -c 20`: the reader leaves early; no traceback on stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "it_eli", "tool", "it_case_get_decision", '{"ecli": "ECLI:IT:COST:2001:4", "max_chars": 20000}'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(built_home),
    )
    assert proc.stdout.read(20)
    proc.stdout.close()  # the pipe's reader is gone
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_stdio_answers_an_unreadable_line_instead_of_leaving_the_client_waiting(built_home):
    """Not JSON, a lone surrogate, not JSON-RPC: each gets a JSON-RPC error (with the request's id
    when it can still be read), and the session goes on."""
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=_env(built_home))

    def send(line: str) -> None:
        proc.stdin.write((line + "\n").encode("utf-8", "surrogatepass"))
        proc.stdin.flush()

    def answer() -> dict:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no answer within 30 s: the client would wait forever"
        return json.loads(proc.stdout.readline())

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        assert answer()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send("not json at all")
        got = answer()
        assert got["id"] is None and got["error"]["code"] == -32700 and "not valid JSON" in got["error"]["message"]
        send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"it_case_stats","arguments":{"x":"\\ud800"}}}')
        got = answer()
        assert got["id"] == 7 and got["error"]["code"] == -32700
        send('{"jsonrpc":"2.0","id":9}')
        got = answer()
        assert got["id"] == 9 and got["error"]["code"] == -32600
        send(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "it_case_stats", "arguments": {}}}))
        got = answer()
        assert got["id"] == 10 and json.loads(got["result"]["content"][0]["text"])["total"] == 12
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)

