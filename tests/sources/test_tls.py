"""TLS chain completion: a server sending the WRONG intermediate (as SentenzeWeb does).

A root CA signs two intermediates, "OV" (the leaf's real issuer) and "DV" (the wrong one the
server sends). The leaf's AIA caIssuers URL points at a local HTTP server serving OV's DER.
Plain verification fails; the AIA-completed context succeeds with verification on; a chain
ending at an untrusted root is still refused.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import socket
import ssl
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from cryptography.x509.oid import NameOID

from it_eli.sources import tls
from it_eli.runtime.errors import UpstreamUnavailable
from it_eli.sources.http import HttpClient

NOW = dt.datetime.now(dt.timezone.utc)


class Cert:
    def __init__(self, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
        self.cert, self.key = cert, key

    @property
    def pem(self) -> bytes:
        return self.cert.public_bytes(Encoding.PEM)

    @property
    def der(self) -> bytes:
        return self.cert.public_bytes(Encoding.DER)


def _make(cn: str, issuer: Cert | None, *, ca: bool, aia: str | None = None) -> Cert:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "it_eli test")])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer.cert.subject if issuer else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=1))
        .not_valid_after(NOW + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
    else:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        ).add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    if issuer:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False
        )
    if aia:
        builder = builder.add_extension(
            x509.AuthorityInformationAccess(
                [x509.AccessDescription(x509.oid.AuthorityInformationAccessOID.CA_ISSUERS, x509.UniformResourceIdentifier(aia))]
            ),
            critical=False,
        )
    return Cert(builder.sign(issuer.key if issuer else key, hashes.SHA256()), key)


class PKI:
    """Trusted root with OV/DV intermediates, and a rogue (untrusted) root with its own chain."""

    def __init__(self, tmp: Path, aia_base: str) -> None:
        self.root = _make("Test Trusted Root", None, ca=True)
        self.ov = _make("Test OV CA", self.root, ca=True)
        self.dv = _make("Test DV CA", self.root, ca=True)
        self.leaf = _make("localhost", self.ov, ca=False, aia=aia_base + "/ov.der")
        self.rogue_root = _make("Rogue Root", None, ca=True)
        self.rogue_ca = _make("Rogue CA", self.rogue_root, ca=True)
        self.rogue_leaf = _make("localhost", self.rogue_ca, ca=False, aia=aia_base + "/rogue.der")
        self.cafile = tmp / "roots.pem"
        self.cafile.write_bytes(self.root.pem)
        self.tmp = tmp

    def server_context(self, leaf: Cert, *extra: Cert) -> ssl.SSLContext:
        chain = self.tmp / f"chain-{id(leaf)}-{len(extra)}.pem"
        key = self.tmp / f"key-{id(leaf)}.pem"
        chain.write_bytes(leaf.pem + b"".join(c.pem for c in extra))
        key.write_bytes(leaf.key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(chain, key)
        return ctx


def _hello_app() -> web.Application:
    app = web.Application()
    async def ping(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app.router.add_get("/sncass/ping", ping)
    return app


@pytest.fixture
async def pki(tmp_path):
    """AIA server (plain HTTP, serves the CA certificates as DER) + the PKI pointing at it."""
    holder: dict[str, PKI] = {}

    async def ov(request: web.Request) -> web.Response:
        return web.Response(body=holder["pki"].ov.der, content_type="application/pkix-cert")

    async def rogue(request: web.Request) -> web.Response:
        return web.Response(body=holder["pki"].rogue_ca.der, content_type="application/pkix-cert")

    app = web.Application()
    app.router.add_get("/ov.der", ov)
    app.router.add_get("/rogue.der", rogue)
    aia = TestServer(app)
    await aia.start_server()
    holder["pki"] = PKI(tmp_path, str(aia.make_url("")).rstrip("/"))
    tls.clear_cache()
    yield holder["pki"]
    tls.clear_cache()
    await aia.close()


async def _tls_server(ctx: ssl.SSLContext) -> TestServer:
    server = TestServer(_hello_app())
    await server.start_server(ssl=ctx)
    return server


def _handshake(port: int, ctx: ssl.SSLContext) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        with ctx.wrap_socket(sock, server_hostname="127.0.0.1"):
            pass


def _plain(cafile: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cafile))


@pytest.mark.parametrize("send_wrong_intermediate", [True, False], ids=["wrong-intermediate", "leaf-only"])
async def test_aia_completion_fixes_the_chain(pki, send_wrong_intermediate):
    extra = (pki.dv,) if send_wrong_intermediate else ()
    server = await _tls_server(pki.server_context(pki.leaf, *extra))
    try:
        port = server.port
        with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer"):
            await asyncio.to_thread(_handshake, port, _plain(pki.cafile))
        ctx = await tls.ssl_context_for_host("127.0.0.1", port, cafile=str(pki.cafile), allow_private_ip=True)
        assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
        await asyncio.to_thread(_handshake, port, ctx)
        assert await tls.ssl_context_for_host("127.0.0.1", port, cafile=str(pki.cafile)) is ctx  # cached
    finally:
        await server.close()


async def test_http_client_uses_the_completed_context(pki, make_settings):
    server = await _tls_server(pki.server_context(pki.leaf, pki.dv))
    try:
        url = f"https://127.0.0.1:{server.port}/sncass"
        settings = make_settings(sentenzeweb_url=url)
        async with HttpClient(settings) as client:
            with pytest.raises(UpstreamUnavailable):  # default (certifi) context: refused
                await client.request("GET", url + "/ping")
        async with HttpClient(settings) as client:
            assert await tls.install_for_url(client, url, cafile=str(pki.cafile), allow_private_ip=True)
            resp = await client.request("GET", url + "/ping")
            assert resp.status == 200 and resp.body == b"ok"
    finally:
        await server.close()


async def test_cached_intermediate_completes_without_aia(pki):
    server = await _tls_server(pki.server_context(pki.leaf, pki.dv))
    try:
        ctx = await tls.ssl_context_for_host(
            "127.0.0.1", server.port, cafile=str(pki.cafile), intermediates=[pki.ov.cert], allow_private_ip=True
        )
        await asyncio.to_thread(_handshake, server.port, ctx)
    finally:
        await server.close()


async def test_untrusted_root_is_still_refused(pki):
    server = await _tls_server(pki.server_context(pki.rogue_leaf, pki.rogue_ca))
    try:
        with pytest.raises(UpstreamUnavailable):
            await tls.ssl_context_for_host("127.0.0.1", server.port, cafile=str(pki.cafile), allow_private_ip=True)
        with pytest.raises(UpstreamUnavailable):  # an intermediate handed over does not become trusted
            await tls.ssl_context_for_host(
                "127.0.0.1", server.port, cafile=str(pki.cafile), intermediates=[pki.rogue_ca.cert], allow_private_ip=True
            )
        # Even a context holding the rogue intermediate verifies to a root: the handshake fails.
        ctx = tls.context_with_intermediates([pki.rogue_ca.cert], str(pki.cafile))
        with pytest.raises(ssl.SSLCertVerificationError):
            await asyncio.to_thread(_handshake, server.port, ctx)
    finally:
        await server.close()


async def test_hostname_is_still_checked(pki):
    server = await _tls_server(pki.server_context(pki.leaf, pki.dv))
    try:
        ctx = await tls.ssl_context_for_host("127.0.0.1", server.port, cafile=str(pki.cafile), allow_private_ip=True)

        def wrong_name() -> None:
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
                with ctx.wrap_socket(sock, server_hostname="www.italgiure.giustizia.it"):
                    pass

        with pytest.raises(ssl.SSLCertVerificationError):
            await asyncio.to_thread(wrong_name)
    finally:
        await server.close()


async def test_install_skips_plain_http_and_remembers_failures(pki):
    async with _NullClient() as client:
        assert not await tls.install_for_url(client, "http://127.0.0.1:1/sncass")
        assert not await tls.install_for_url(client, "https://127.0.0.1:1/sncass", allow_private_ip=True, timeout=1)
        assert client.contexts == {}


class _NullClient:
    """Records set_ssl_context calls (install_for_url needs nothing else from a client)."""

    def __init__(self) -> None:
        self.contexts: dict[str, ssl.SSLContext] = {}

    def set_ssl_context(self, host: str, ctx: ssl.SSLContext) -> None:
        self.contexts[host] = ctx

    async def __aenter__(self) -> _NullClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


@pytest.mark.internet
async def test_real_sentenzeweb_chain():
    ctx = await tls.ssl_context_for_host("www.italgiure.giustizia.it", 443, timeout=20)
    await asyncio.to_thread(
        lambda: ctx.wrap_socket(socket.create_connection(("www.italgiure.giustizia.it", 443), timeout=20),
                                server_hostname="www.italgiure.giustizia.it").close()
    )  # fmt: skip
