"""TLS chain completion for upstreams that send the wrong intermediate (SentenzeWeb).

www.italgiure.giustizia.it sends a leaf issued by one CA together with a *different*
intermediate, so a verifying client cannot build a path to a trusted root. Browsers cope by
AIA chasing: the leaf names its issuer's certificate URL (caIssuers). We do the same with the
maintained `aia-chaser` library, or take a cached intermediate the operator supplies.

Verification is never switched off:
- the completed chain is checked (signatures, validity) up to a root of the trust store
  (certifi by default) before any intermediate is used;
- the resulting context verifies as usual (CERT_REQUIRED, hostname check) and gets the
  intermediates only as *chain-building* material: partial-chain trust is cleared, so a path
  must still end at a trusted root, and an untrusted root is refused.
The only unverified step is reading the server's leaf certificate in a probe handshake that
sends no data; nothing read there is trusted.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import time
import warnings
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

import certifi
from aia_chaser import AiaChaser, AiaChaserError, VerifyCertificatesConfig, verify_certificate_chain
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.utils import CryptographyDeprecationWarning

from it_eli.runtime.errors import UpstreamUnavailable
from .http import HttpClient

log = logging.getLogger(__name__)

FAILURE_RETRY_SECONDS = 600.0
_contexts: dict[tuple[str, int, str], ssl.SSLContext] = {}
_failures: dict[tuple[str, int, str], float] = {}


def load_roots(cafile: str | None = None) -> list[x509.Certificate]:
    """Trust anchors (certifi's Mozilla store unless a CA file is given)."""
    with open(cafile or certifi.where(), "rb") as fh, warnings.catch_warnings():
        # a few old Mozilla roots have non-positive serials; cryptography only warns about them
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        return x509.load_pem_x509_certificates(fh.read())


def fetch_leaf(host: str, port: int = 443, timeout: float = 15.0) -> x509.Certificate:
    """Read the server's leaf certificate (probe handshake; the result is not trusted)."""
    probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    probe.check_hostname = False
    probe.verify_mode = ssl.CERT_NONE  # probe only: we need the leaf of a chain that does not verify
    with socket.create_connection((host, port), timeout=timeout) as sock:
        with probe.wrap_socket(sock, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    if not der:
        raise UpstreamUnavailable(f"{host}:{port} presented no certificate")
    return x509.load_der_x509_certificate(der)


def complete_chain(
    leaf: x509.Certificate,
    roots: Sequence[x509.Certificate],
    *,
    intermediates: Iterable[x509.Certificate] = (),
    allow_private_ip: bool = False,
) -> list[x509.Certificate]:
    """Leaf -> intermediates -> trusted root, verified; from supplied certs or by AIA chasing."""
    trusted = {c.subject: c for c in roots}
    supplied = {c.subject: c for c in intermediates}
    chain = [leaf]
    while chain[-1].issuer not in trusted and chain[-1].issuer in supplied and len(chain) < 8:
        chain.append(supplied[chain[-1].issuer])
    if chain[-1].issuer in trusted:
        chain.append(trusted[chain[-1].issuer])
    else:
        chaser = AiaChaser(context=_anchor_context(roots), allow_private_ip=allow_private_ip)
        chain = list(chaser.aia_chase_cert(leaf))
    config = VerifyCertificatesConfig(allow_private_ip=allow_private_ip)
    verify_certificate_chain(chain, trusted=trusted, config=config)
    return chain


def _anchor_context(roots: Sequence[x509.Certificate]) -> ssl.SSLContext:
    """A context used by aia-chaser only as the list of trusted roots (it does no handshake here)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cadata=b"".join(c.public_bytes(Encoding.DER) for c in roots))
    return ctx


def context_with_intermediates(intermediates: Iterable[x509.Certificate], cafile: str | None = None) -> ssl.SSLContext:
    """A fully verifying client context that can use `intermediates` to build the path."""
    ctx = ssl.create_default_context(cafile=cafile or certifi.where())
    ctx.verify_flags &= ~getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
    der = b"".join(c.public_bytes(Encoding.DER) for c in intermediates)
    if der:
        ctx.load_verify_locations(cadata=der)
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    return ctx


def build_context_for_host(
    host: str,
    port: int = 443,
    *,
    cafile: str | None = None,
    intermediates: Iterable[x509.Certificate] = (),
    allow_private_ip: bool = False,
    timeout: float = 15.0,
) -> ssl.SSLContext:
    """Blocking: probe the leaf, complete and verify its chain, return the verifying context."""
    roots = load_roots(cafile)
    leaf = fetch_leaf(host, port, timeout)
    chain = complete_chain(leaf, roots, intermediates=intermediates, allow_private_ip=allow_private_ip)
    middle = [c for c in chain[1:] if c.subject != c.issuer]
    return context_with_intermediates(middle, cafile)


async def ssl_context_for_host(
    host: str,
    port: int = 443,
    *,
    cafile: str | None = None,
    intermediates: Sequence[x509.Certificate] = (),
    allow_private_ip: bool = False,
    timeout: float = 15.0,
) -> ssl.SSLContext:
    """Cached per (host, port, trust store); raises UpstreamUnavailable if no chain verifies."""
    key = (host.lower(), port, cafile or "")
    if key in _contexts:
        return _contexts[key]
    try:
        ctx = await asyncio.wait_for(
            asyncio.to_thread(
                build_context_for_host,
                host,
                port,
                cafile=cafile,
                intermediates=intermediates,
                allow_private_ip=allow_private_ip,
                timeout=timeout,
            ),
            timeout=timeout * 4,
        )
    except (AiaChaserError, OSError, ValueError, asyncio.TimeoutError) as exc:
        raise UpstreamUnavailable(
            f"cannot complete the TLS certificate chain of {host}: {type(exc).__name__}: {exc}",
            valid="the server's chain must lead to a trusted root (certifi)",
        ) from exc
    _contexts[key] = ctx
    return ctx


async def install_for_url(client: HttpClient, url: str, **kwargs: object) -> bool:
    """Give the client a chain-completing context for the URL's host (https only).

    A failure is logged and remembered for a while; the client then keeps its default
    verifying context, whose own failure surfaces as `upstream_unavailable`.
    """
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return False
    host, port = parts.hostname, parts.port or 443
    key = (host.lower(), port, str(kwargs.get("cafile") or ""))
    if key not in _contexts and _failures.get(key, 0.0) > time.monotonic():
        return False
    try:
        ctx = await ssl_context_for_host(host, port, **kwargs)  # type: ignore[arg-type]
    except UpstreamUnavailable as exc:
        log.warning("%s", exc.message)
        _failures[key] = time.monotonic() + FAILURE_RETRY_SECONDS
        return False
    client.set_ssl_context(host, ctx)
    return True


def clear_cache() -> None:
    _contexts.clear()
    _failures.clear()
