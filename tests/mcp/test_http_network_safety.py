"""`it-eli serve --transport http` shared on a network: authenticated, Host/Origin checked, bounded.

Each test starts the real server as a subprocess and talks HTTP to it, as a client (or an
attacker) on the network would.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest

TOKEN = "tok-" + "k3y" * 8
INIT = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}).encode()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IT_ELI_HTTP")}
    env.update({"IT_ELI_HOME": str(tmp_path / "home"), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"})
    env.update(extra)
    return env


@contextmanager
def serving(tmp_path, host: str = "127.0.0.1", **env: str):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--host", host, "--port", str(port)],
        env=_env(tmp_path, **env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        reach = "127.0.0.1" if host == "0.0.0.0" else host
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                socket.create_connection((reach, port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        yield reach, port
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def post(addr, body: bytes = INIT, *, host_header: str | None = None, **headers: str):
    """One raw HTTP POST to /mcp; returns (status, headers, body)."""
    import http.client

    conn = http.client.HTTPConnection(*addr, timeout=20)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update({k.replace("_", "-"): v for k, v in headers.items()})
    if host_header:
        conn.putrequest("POST", "/mcp", skip_host=True)
        conn.putheader("Host", host_header)
    else:
        conn.putrequest("POST", "/mcp")
    for k, v in h.items():
        conn.putheader(k, v)
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    out = resp.status, dict(resp.getheaders()), resp.read(2000)
    conn.close()
    return out


def test_serving_on_every_interface_without_a_token_refuses_to_start(tmp_path):
    port = _free_port()
    run = subprocess.run(
        [sys.executable, "-m", "it_eli", "serve", "--transport", "http", "--host", "0.0.0.0", "--port", str(port)],
        env=_env(tmp_path), capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert "without authentication" in run.stderr and "IT_ELI_HTTP_TOKEN" in run.stderr
    assert run.stdout == ""


def test_the_operator_may_opt_out_of_the_token_explicitly(tmp_path):
    with serving(tmp_path, "0.0.0.0", IT_ELI_HTTP_NO_AUTH="1") as addr:
        status, _, _ = post(addr)
        assert status == 200


def test_with_a_token_a_request_without_it_or_with_another_gets_401(tmp_path):
    with serving(tmp_path, "0.0.0.0", IT_ELI_HTTP_TOKEN=TOKEN) as addr:
        status, headers, _ = post(addr)
        assert status == 401 and "Bearer" in headers.get("www-authenticate", "")
        assert post(addr, Authorization="Bearer " + TOKEN[:-1] + "X")[0] == 401
        assert post(addr, Authorization="Bearer " + TOKEN)[0] == 200


async def test_a_client_with_the_token_in_a_file_uses_the_tools(tmp_path):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    with serving(tmp_path, "0.0.0.0", IT_ELI_HTTP_TOKEN_FILE=str(token_file)) as (host, port):
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(streamable_http_client(f"http://{host}:{port}/mcp", http_client=http)) as client:
            res = await client.call_tool("it_resolve", {"act_type": "legge", "year": 1990, "number": 241})
            assert not res.is_error and "1990" in res.content[0].text


@pytest.mark.parametrize("bind", ["127.0.0.2", "0.0.0.0"])
def test_a_foreign_host_or_origin_is_refused_on_every_bind_address(tmp_path, bind):
    env = {"IT_ELI_HTTP_TOKEN": TOKEN} if bind == "0.0.0.0" else {}
    auth = {"Authorization": "Bearer " + TOKEN}
    with serving(tmp_path, bind, IT_ELI_HTTP_ALLOWED_HOSTS="law.example.org", **env) as addr:
        assert post(addr, host_header="attacker.example", **auth)[0] == 421
        assert post(addr, host_header=f"attacker.example:{addr[1]}", **auth)[0] == 421
        assert post(addr, Origin="http://attacker.example", **auth)[0] == 403
        # the configured name, with or without a port, and its own origin
        assert post(addr, host_header="law.example.org", Origin="https://law.example.org", **auth)[0] == 200
        assert post(addr, host_header=f"law.example.org:{addr[1]}", **auth)[0] == 200
        assert post(addr, **auth)[0] == 200  # the address it was reached on


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (TimeoutError, socket.timeout):
        return False
    except ConnectionResetError:
        return True


def test_a_client_too_slow_to_send_its_request_is_cut_off(tmp_path):
    with serving(tmp_path, IT_ELI_HTTP_READ_TIMEOUT="1") as addr:
        slow_headers = socket.create_connection(addr)
        slow_headers.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
        slow_body = socket.create_connection(addr)
        slow_body.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nContent-Length: 5000\r\n\r\n{\"jsonrpc\""
        )
        idle = socket.create_connection(addr)  # connects and says nothing
        try:
            assert _closed_by_server(slow_headers, 15)
            assert _closed_by_server(slow_body, 15)
            assert _closed_by_server(idle, 15)
        finally:
            for s in (slow_headers, slow_body, idle):
                s.close()
        assert post(addr)[0] == 200  # a prompt client is still served


def test_connections_beyond_the_cap_are_closed_and_the_server_stays_reachable(tmp_path):
    with serving(tmp_path, IT_ELI_HTTP_MAX_CONNECTIONS="4", IT_ELI_HTTP_READ_TIMEOUT="2") as addr:
        held = [socket.create_connection(addr) for _ in range(4)]
        time.sleep(0.3)
        extra = socket.create_connection(addr)
        try:
            assert _closed_by_server(extra, 5)
            for s in held:
                assert _closed_by_server(s, 15)  # the idle ones time out
        finally:
            for s in [*held, extra]:
                s.close()
        assert post(addr)[0] == 200


def test_sessions_are_capped_and_an_idle_one_expires(tmp_path):
    with serving(tmp_path, IT_ELI_HTTP_MAX_SESSIONS="2", IT_ELI_HTTP_SESSION_IDLE_SECONDS="1") as addr:
        first = post(addr)
        second = post(addr)
        assert first[0] == second[0] == 200
        assert post(addr)[0] == 503  # a third while two are open
        sid = first[1]["mcp-session-id"]
        time.sleep(2.5)
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
        assert post(addr, ping, **{"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"})[0] == 404
        assert post(addr)[0] == 200  # room again
