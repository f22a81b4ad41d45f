"""A JSON-RPC line nested deeper than the transport reads gets a typed error with the request's id,
and the stdio server goes on answering (one hostile line once ended the process)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest


def _nest(depth: int, kind: str) -> str:
    if kind == "arrays":
        return "[" * depth + "]" * depth
    if kind == "objects":
        return '{"a":' * depth + "1" + "}" * depth
    return '[{"k":' * (depth // 2) + '"x"' + "}]" * (depth // 2)  # mixed


def _args(depth: int, kind: str) -> str:
    return '{"query":%s}' % _nest(depth, kind)


# every place and shape a deep value can take in a message, and ids before and after it
DEEP_LINES = [
    ('{"jsonrpc":"2.0","id":%(id)s,"method":"tools/call","params":{"name":"it_case_search","arguments":%(a)s}}',
     1500, "arrays"),
    ('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"it_case_search","arguments":%(a)s},"id":%(id)s}',
     1500, "objects"),
    ('{"params":{"arguments":%(a)s,"name":"it_case_search","id":999},"id":%(id)s,"jsonrpc":"2.0","method":"tools/call"}',
     300, "mixed"),
    ('{"jsonrpc":"2.0","id":%(id)s,"method":"tools/call","params":{"name":"it_case_search","arguments":{"q":"}]\\"id\\":1"},"x":%(a)s}}',
     100_000, "arrays"),
]


@pytest.fixture()
def server(tmp_path):
    env = {**os.environ, "IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen([sys.executable, "-m", "it_eli", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    yield proc
    proc.stdin.close()
    proc.wait(timeout=30)
    proc.stderr.close()
    proc.stdout.close()


def _send(proc, line: str) -> None:
    proc.stdin.write((line + "\n").encode())
    proc.stdin.flush()


def _answer(proc) -> dict:
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    assert ready, "no answer within 30 s: the client would wait forever"
    line = proc.stdout.readline()
    assert line, f"the server ended (exit {proc.wait(timeout=10)})"
    return json.loads(line)


def test_deep_lines_get_a_parse_error_with_their_id_and_the_session_goes_on(server):
    _send(server, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
    assert _answer(server)["id"] == 1
    _send(server, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    for n, (template, depth, kind) in enumerate(DEEP_LINES):
        for req_id in (100 + n, f'"req-{n}"'):
            _send(server, template % {"id": req_id, "a": _args(depth, kind)})
            got = _answer(server)
            assert got["id"] == json.loads(str(req_id)), template
            assert got["error"]["code"] == -32700 and "nest too deeply" in got["error"]["message"]
            # the next request is answered as if nothing had happened
            _send(server, json.dumps({"jsonrpc": "2.0", "id": 50, "method": "tools/list"}))
            listed = _answer(server)
            assert listed["id"] == 50 and any(t["name"] == "it_case_search" for t in listed["result"]["tools"])
    # a deep line whose id is itself unreadable still gets an answer (id null), and the session goes on
    _send(server, '{"jsonrpc":"2.0","method":"tools/list","id":%s}' % _nest(2000, "arrays"))
    got = _answer(server)
    assert got["id"] is None and got["error"]["code"] == -32700
    _send(server, json.dumps({"jsonrpc": "2.0", "id": 51, "method": "tools/call",
                              "params": {"name": "it_case_search", "arguments": {"query": "x", "limit": "tanti"}}}))
    got = _answer(server)
    assert got["id"] == 51 and json.loads(got["result"]["content"][0]["text"])["code"] == "invalid_arg"
    assert server.poll() is None
