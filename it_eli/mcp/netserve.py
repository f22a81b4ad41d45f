"""Serving MCP over HTTP on a network: who may connect, and how much they may hold.

Why a module: the SDK's streamable-HTTP app already checks Host/Origin (TransportSecuritySettings),
bearer tokens (AuthSettings + a TokenVerifier), body size, open sessions and their idle expiry;
this module only chooses those settings from the operator's configuration, refuses to start a
server that would be open to a network without a token, and adds what neither the SDK nor uvicorn
has: a deadline for a client to send a whole request (headers and body), and a hard cap on open
connections (a slow or idle client cannot hold file descriptors until the server is unreachable).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from it_eli.runtime.config import Settings
from it_eli.runtime.errors import InvalidArg

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::", "")


def check_exposure(settings: Settings, host: str) -> None:
    """Refuse to serve off loopback without a token, unless the operator opted out in so many words."""
    if is_loopback(host) or settings.http_token or settings.http_no_auth:
        return
    raise InvalidArg(
        f"refusing to serve on {host}, reachable from the network, without authentication",
        valid="set IT_ELI_HTTP_TOKEN (or IT_ELI_HTTP_TOKEN_FILE) to a random token clients send as "
        "`Authorization: Bearer <token>`; or bind to 127.0.0.1; or, only behind a reverse proxy that "
        "authenticates, set IT_ELI_HTTP_NO_AUTH=1",
    )


def allowed_hosts(settings: Settings, host: str) -> list[str]:
    """Host header values accepted: loopback names, the bind address (unless a wildcard), and the
    configured names; each with or without a port."""
    names = list(LOOPBACK_NAMES)
    if not is_wildcard(host) and not is_loopback(host):
        names.append(f"[{host}]" if ":" in host else host)
    elif is_loopback(host) and host not in ("127.0.0.1", "localhost", "::1"):
        names.append(host)  # 127.0.0.2 and the like
    names.extend(settings.http_allowed_hosts)
    out: list[str] = []
    for n in dict.fromkeys(n.lower() for n in names):
        out.extend([n] if n.rsplit(":", 1)[-1].isdigit() and not n.endswith("]") else [n, f"{n}:*"])
    return out


def allowed_origins(settings: Settings, hosts: list[str]) -> list[str]:
    if settings.http_allowed_origins:
        return [o.rstrip("/") for o in settings.http_allowed_origins]
    return [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]


class StaticTokenVerifier:
    """The SDK's TokenVerifier for one shared secret, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str):
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.strip().encode("utf-8"), self._token):
            return AccessToken(token="static", client_id="it_eli-client", scopes=[])
        return None


def streamable_app(server, settings: Settings, host: str, port: int):
    """The SDK's Starlette app with it_eli's network policy."""
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = allowed_hosts(settings, host)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=allowed_origins(settings, hosts),
    )
    auth = verifier = None
    if settings.http_token:
        base = f"http://{'127.0.0.1' if is_wildcard(host) else host}:{port}"
        auth = AuthSettings(issuer_url=base, resource_server_url=None)
        verifier = StaticTokenVerifier(settings.http_token)
    return server.streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        transport_security=security,
        auth=auth,
        token_verifier=verifier,
        max_sessions=settings.http_max_sessions,
        session_idle_timeout=settings.http_session_idle_seconds,
    )


def protocol_class(max_connections: int, read_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a connection cap and a whole-request read deadline."""

    class GuardedH11(H11Protocol):
        _refused = False
        _read_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= max_connections:
                self._refused = True
                transport.abort()  # before uvicorn counts it: the descriptor is freed at once
                return
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._read_deadline = self.loop.call_later(read_timeout, self._too_slow)

        def _disarm(self) -> None:
            handle = getattr(self, "_read_deadline", None)
            if handle is not None:
                handle.cancel()
                self._read_deadline = None

        def _too_slow(self) -> None:
            self._read_deadline = None
            if self.conn.their_state is h11.DONE or self.transport.is_closing():
                return
            if self.conn.their_state is not h11.IDLE:  # a request begun and not finished: say so once
                log.warning("closed a connection that did not send its whole request within %.0f s", read_timeout)
            self.transport.close()  # a handler waiting for the body gets http.disconnect

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.DONE:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection gets its own deadline

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11


def uvicorn_config(starlette_app, settings: Settings, host: str, port: int):
    import uvicorn

    return uvicorn.Config(
        starlette_app, host=host, port=port, log_level="warning", log_config=None,
        http=protocol_class(settings.http_max_connections, settings.http_read_timeout),
        limit_concurrency=settings.http_max_connections,
        timeout_keep_alive=5,
    )

