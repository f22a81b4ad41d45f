"""The per-session call cap holds over streamable HTTP: one MCP session sending 200 calls at
once gets `busy` beyond the cap (calls running plus queued), while another session is served.

The SDK makes a new session object for every HTTP request, so a cap keyed on that object never
counted more than one call; the cap is keyed on the MCP session id the transport checked."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import aiohttp
import pytest

from it_eli.runtime.workers import PER_CLIENT_CALLS, PER_CLIENT_QUEUE

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "mcp-protocol-version": "2025-06-18"}
FLOOD = 200



def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, hanging):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("IT_ELI_HTTP")}
    env.update({"IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING",
                "IT_ELI_SENTENZEWEB_URL": hanging + "/sncass", "IT_ELI_CALL_DEADLINE": "6", "IT_ELI_HTTP_RETRIES": "0"})
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(timeout=15)
    proc.stderr.close()


async def _post(http: aiohttp.ClientSession, url: str, body: dict, headers: dict) -> tuple[int, dict, dict | None]:
    """Status, headers and the JSON-RPC answer of a POST (plain JSON or one SSE event)."""
    async with http.post(url, json=body, headers=headers) as resp:
        text = await resp.text()
        if not text.strip():
            return resp.status, dict(resp.headers), None
        if resp.headers.get("content-type", "").startswith("text/event-stream"):
            text = next(line[5:] for line in text.splitlines() if line.startswith("data:") and line[5:].strip())
        return resp.status, dict(resp.headers), json.loads(text)


async def _session(http: aiohttp.ClientSession, url: str) -> dict[str, str]:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    status, headers, answer = await _post(http, url, init, HEADERS)
    assert status == 200, answer
    session = {**HEADERS, "mcp-session-id": headers["mcp-session-id"]}
    status, _, _ = await _post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert status == 202
    return session


def _tool_code(answer: dict) -> str:
    result = answer["result"]
    return json.loads(result["content"][0]["text"]).get("code", "ok") if result["isError"] else "ok"


async def test_one_session_flooding_gets_busy_beyond_the_cap_and_another_is_served(server):
    connector = aiohttp.TCPConnector(limit=FLOOD + 10)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=180)) as http:
        flooder = await _session(http, server)
        other = await _session(http, server)

        async def call(headers, n: int, name: str, args: dict) -> str:
            body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": name, "arguments": args}}
            return _tool_code((await _post(http, server, body, headers))[2])

        search = {"query": "responsabilità medica", "limit": 3}
        flood = [asyncio.create_task(call(flooder, n, "it_cassazione_search", search)) for n in range(1, FLOOD + 1)]
        await asyncio.sleep(1.0)
        # another session is not held up by the flood: its own calls run
        assert await call(other, 1, "it_list_codes", {}) == "ok"
        codes = await asyncio.gather(*flood)
    admitted = PER_CLIENT_CALLS + PER_CLIENT_QUEUE
    busy = codes.count("busy")
    assert busy >= FLOOD - admitted - PER_CLIENT_CALLS, codes  # at most a few slots free up while the flood arrives
    assert set(codes) <= {"busy", "upstream_unavailable", "deadline_exceeded"}, set(codes)
