"""The one HTTP layer every upstream goes through.

One aiohttp session per server lifetime; per-host politeness throttle and circuit breaker;
retries only for failures that can pass (connect errors, 429 with Retry-After, 502/503/504);
a body size cap; every URL (redirects included) checked against the configured upstream hosts.
Failures come out typed: `upstream_unavailable` never means "does not exist".

Retries are tenacity's, the throttle aiolimiter's, the breaker circuitbreaker's. Home-made, and
why: redirects are followed one hop at a time here (aiohttp's own following would reach a host
before it could be checked against the allow-list), and the body cap and minimum download rate
are read as the body streams in (no client library bounds a body that way).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import re
import ssl
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
import certifi
import msgspec
from aiolimiter import AsyncLimiter
from circuitbreaker import CircuitBreaker
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from it_eli import __version__
from it_eli.runtime import progress
from it_eli.runtime.config import Settings
from it_eli.runtime.deadline import upstream_window
from it_eli.runtime.errors import InvalidArg, NotFound, UpstreamChanged, UpstreamUnavailable

log = logging.getLogger(__name__)

USER_AGENT = f"it_eli/{__version__} (+https://github.com/it-eli; legal research appliance)"
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
MAX_REDIRECTS = 5
MAX_RETRY_AFTER = 30.0  # a longer Retry-After is not waited for: the call fails at once, saying when to retry
MIN_DOWNLOAD_RATE = 16 * 1024  # bytes/s a download must average once past http_timeout (slow-drip guard)


RETRY_LATER = "retry later: the upstream could not be reached or failed (this says nothing about whether the thing asked for exists)"
MOVED = RETRY_LATER + "; if it persists the upstream has moved: report it"
_SSL_REPR = re.compile(r"ssl:<[^>]{0,200}>")


def _exc_text(exc: BaseException) -> str:
    """aiohttp's connection errors print `ssl:<ssl.SSLContext object at 0x…>`: say `ssl` instead."""
    return _SSL_REPR.sub("ssl", str(exc))


def _retry_in(seconds: float | None) -> str:
    return f"retry in {seconds:.0f} s or later" if seconds else RETRY_LATER


class Response(msgspec.Struct, frozen=True):
    status: int
    url: str
    headers: dict[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def text(self, default_encoding: str = "utf-8") -> str:
        ct = self.headers.get("content-type", "")
        enc = default_encoding
        if "charset=" in ct:
            enc = ct.split("charset=", 1)[1].split(";")[0].strip().strip('"') or default_encoding
        try:
            return self.body.decode(enc)
        except (LookupError, UnicodeDecodeError):
            return self.body.decode("cp1252", errors="replace")


def host_key(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port if parts.port is not None else (443 if parts.scheme == "https" else 80)  # ":0" is not the default
    return f"{(parts.hostname or '').lower()}:{port}"


def check_url_allowed(url: str, allowed_hosts: frozenset[str]) -> str:
    """Refuse any URL that is not plain http(s) on a configured upstream host."""
    if not isinstance(url, str) or not url.isascii() or any(c <= " " or c in "\\\x7f" for c in url):
        # Non-ASCII (IDN look-alikes, full-width dots), whitespace, control characters and
        # backslashes are read differently by different URL parsers: refuse them all, so the
        # host checked here is the host connected to. IDNs must come in punycode (xn--).
        raise InvalidArg(
            f"not a plain URL: {str(url)[:200]!r}",
            valid="an http(s) URL in plain ASCII (punycode for IDNs), no spaces or backslashes",
        )
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        raise InvalidArg(f"not a valid URL: {url[:200]!r}", valid="an http(s) URL of a configured upstream")
    if parts.scheme not in ("http", "https"):
        raise InvalidArg(f"URL scheme {parts.scheme!r} not allowed", valid="http or https")
    if parts.username or parts.password or "@" in parts.netloc:
        raise InvalidArg("URLs with user information are not allowed", valid="an http(s) URL without user@")
    if host_key(url) not in allowed_hosts:
        raise InvalidArg(
            f"host {parts.hostname!r} is not an allowed upstream",
            valid="one of: " + ", ".join(sorted(h.rsplit(":", 1)[0] for h in allowed_hosts)),
        )
    return url


class _HostBreaker(CircuitBreaker):
    """One upstream host's circuit: an upstream failure (unavailable or changed) counts, any other
    outcome (an answer, a 404) closes it; a cancelled call is neither."""

    def __init__(self, threshold: int, seconds: float) -> None:
        # circuitbreaker reads 0 as "use the default": a zero window is the smallest one instead
        super().__init__(failure_threshold=threshold, recovery_timeout=max(seconds, 1e-6),
                         expected_exception=(UpstreamUnavailable, UpstreamChanged))

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is not None and not issubclass(exc_type, Exception):
            return False
        return super().__exit__(exc_type, exc_value, traceback)


class HttpClient:
    """Shared client. Create once per process (or per test) and `await close()`.

    Circuit breaker, per host: after `circuit_threshold` consecutive failed calls (each after its
    own retries) the host is not contacted for `circuit_seconds`; every call in that window fails
    at once with `upstream_unavailable` and `retry_after_seconds`. When the window ends one call
    goes through (half-open): success closes the circuit, failure reopens it at once. Why: a down
    upstream must not be hammered, and callers must not wait out timeouts that will repeat.
    """

    CIRCUIT_THRESHOLD = 5
    CIRCUIT_SECONDS = 60.0

    def __init__(
        self,
        settings: Settings,
        *,
        throttle: Mapping[str, float] | None = None,
        ssl_contexts: Mapping[str, ssl.SSLContext] | None = None,
    ) -> None:
        self.settings = settings
        self.allowed_hosts = settings.allowed_hosts
        self._throttle = dict(throttle or {})
        self._ssl_contexts = dict(ssl_contexts or {})
        self._default_ssl = ssl.create_default_context(cafile=certifi.where())
        self._limiters: dict[str, AsyncLimiter | None] = {}
        self._breakers: dict[str, _HostBreaker] = {}
        self._session: aiohttp.ClientSession | None = None
        self.circuit_threshold = max(1, int(getattr(settings, "circuit_threshold", self.CIRCUIT_THRESHOLD)))
        self.circuit_seconds = float(getattr(settings, "circuit_seconds", self.CIRCUIT_SECONDS))

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # unsafe=True: keep cookies from IP-address hosts too (local test servers).
            self._session = aiohttp.ClientSession(
                cookie_jar=aiohttp.CookieJar(unsafe=True),
                headers={"User-Agent": USER_AGENT},
                auto_decompress=True,
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def set_ssl_context(self, host: str, ctx: ssl.SSLContext) -> None:
        self._ssl_contexts[host] = ctx

    def _breaker(self, key: str) -> _HostBreaker:
        breaker = self._breakers.get(key)
        if breaker is None:
            breaker = self._breakers[key] = _HostBreaker(self.circuit_threshold, self.circuit_seconds)
        return breaker

    async def _wait_turn(self, key: str) -> None:
        """Politeness: at least the host's interval between two requests to it (a leaky bucket
        of one: the next request waits until the last one has drained)."""
        if key not in self._limiters:
            interval = self._throttle.get(key.rsplit(":", 1)[0], self.settings.throttle_seconds)
            self._limiters[key] = AsyncLimiter(1, interval) if interval > 0 else None
        limiter = self._limiters[key]
        if limiter is not None:
            await limiter.acquire()

    def circuit_open(self, url: str) -> bool:
        return self._breaker(host_key(url)).opened

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | list[tuple[str, str]] | None = None,
        data: Any = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        not_found_statuses: frozenset[int] | tuple[int, ...] = (404, 410),
        accept_statuses: frozenset[int] | tuple[int, ...] = (200,),
        max_body: int | None = None,
        timeout: float | None = None,
        what: str = "",
        same_host_redirects: bool = False,
    ) -> Response:
        """Do one logical request (with retries and redirects); return only accepted answers.

        `same_host_redirects`: a redirect to any other host (even another configured upstream) is
        refused before it is followed — for URLs a client hands us (no request forgery). Inside a
        tool call, the whole request (retries included) ends by the call's upstream cut-off.
        """
        async with upstream_window(what or host_key(url)):
            return await self._request(method, url, params=params, data=data, json=json, headers=headers,
                                       not_found_statuses=not_found_statuses, accept_statuses=accept_statuses,
                                       max_body=max_body, timeout=timeout, what=what,
                                       same_host_redirects=same_host_redirects)

    async def _request(self, method, url, *, params, data, json, headers, not_found_statuses, accept_statuses,
                       max_body, timeout, what, same_host_redirects) -> Response:
        check_url_allowed(url, self.allowed_hosts)
        key = host_key(url)
        label = what or key
        breaker = self._check_circuit(key, label)
        with breaker:  # an upstream failure raised out of here counts; an answer or a 404 closes it
            resp = await self._with_retries(method, url, params, data, json, headers, max_body, timeout, key,
                                            same_host_redirects, label)
            if resp.status in accept_statuses:
                return resp
            if resp.status in not_found_statuses:
                raise NotFound(f"{label}: the upstream says this does not exist (HTTP {resp.status})", url=resp.url)
            raise UpstreamUnavailable(f"{label}: unexpected HTTP {resp.status}", valid=RETRY_LATER, status=resp.status,
                                      url=resp.url)

    async def _with_retries(self, method, url, params, data, json, headers, max_body, timeout, key,
                            same_host_redirects, label) -> Response:
        """One logical request: retryable failures tried again (Retry-After, else 0.5 s, 1 s, 2 s …)."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.http_retries + 1),
            retry=retry_if_exception(lambda e: isinstance(e, _Retryable) and not _too_long(e)),
            wait=_retry_wait,
            before_sleep=lambda rs: log.info("%s: %s; retrying in %.1fs", label, rs.outcome.exception(),
                                             rs.upcoming_sleep),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._once(method, url, params, data, json, headers, max_body, timeout, key,
                                            same_host_redirects)
        except _Retryable as exc:
            if _too_long(exc):
                # Honouring it would hold the caller for minutes: fail now and say when.
                raise UpstreamUnavailable(
                    f"{label}: {exc}; the upstream asks to retry in {exc.retry_after:.0f}s",
                    valid=_retry_in(exc.retry_after), url=url, retry_after_seconds=round(exc.retry_after, 1),
                ) from None
            raise UpstreamUnavailable(f"{label}: {exc}", valid=_retry_in(exc.retry_after), url=url,
                                      retry_after_seconds=exc.retry_after) from None
        raise AssertionError("unreachable: tenacity either returns or re-raises")

    def _check_circuit(self, key: str, label: str) -> _HostBreaker:
        """The host's breaker; while it is open, fail at once saying when to retry. Once the window
        ends one call goes through (half-open): success closes it, failure reopens it at once."""
        breaker = self._breaker(key)
        if breaker.opened:
            remaining = max(breaker.open_remaining, 0.1)
            raise UpstreamUnavailable(
                f"{label}: {self.circuit_threshold} failures in a row, not contacting this host for a while",
                valid=_retry_in(remaining), host=key.rsplit(":", 1)[0], retry_after_seconds=round(remaining, 1),
            )
        return breaker

    async def _once(self, method, url, params, data, json, headers, max_body, timeout, key,
                    same_host_redirects: bool = False) -> Response:
        limit = max_body or self.settings.max_body_bytes
        client_timeout = aiohttp.ClientTimeout(total=timeout or self.settings.http_timeout)
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            check_url_allowed(current, self.allowed_hosts)
            ssl_ctx = self._ssl_contexts.get(urlsplit(current).hostname or "", self._default_ssl)
            await self._wait_turn(key)
            try:
                async with self.session.request(
                    method,
                    current,
                    params=params,
                    data=data,
                    json=json,
                    headers=headers,
                    allow_redirects=False,
                    timeout=client_timeout,
                    ssl=ssl_ctx if current.startswith("https") else None,
                ) as r:
                    if r.status in (301, 302, 303, 307, 308) and "Location" in r.headers:
                        nxt = urljoin(str(r.url), r.headers["Location"])
                        # where the upstream sends us is the upstream's doing, not the caller's:
                        # refused before it is followed, reported as a changed upstream
                        try:
                            check_url_allowed(nxt, self.allowed_hosts)
                        except InvalidArg:
                            raise UpstreamChanged(
                                f"{url[:200]}: redirected to {urlsplit(nxt).hostname!r}, outside the upstream "
                                "allow-list; not followed", valid=MOVED, url=url[:200],
                            ) from None
                        if same_host_redirects and host_key(nxt) != host_key(url):
                            raise UpstreamChanged(
                                f"{url[:200]}: redirected to another host ({urlsplit(nxt).hostname}); not followed",
                                valid=MOVED, url=url[:200],
                            )
                        if r.status == 303 or (r.status in (301, 302) and method == "POST"):
                            method, data, json = "GET", None, None
                        current, params = nxt, None
                        key = host_key(current)
                        continue
                    if r.status in RETRYABLE_STATUSES:
                        raise _Retryable(f"HTTP {r.status}", _retry_after(r.headers.get("Retry-After")))
                    body = await _read_capped(r, limit)
                    return Response(
                        status=r.status,
                        url=str(r.url),
                        headers={k.lower(): v for k, v in r.headers.items()},
                        body=body,
                    )
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, asyncio.TimeoutError) as exc:
                if isinstance(exc, asyncio.TimeoutError):
                    raise _Retryable(f"timed out after {client_timeout.total}s", None)
                raise _Retryable(f"connection failed: {type(exc).__name__}: {_exc_text(exc)}", None)
        raise UpstreamChanged(f"too many redirects from {url}")


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _too_long(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable) and exc.retry_after is not None and exc.retry_after > MAX_RETRY_AFTER


_backoff = wait_exponential(multiplier=0.5, exp_base=2)  # 0.5 s, 1 s, 2 s …


def _retry_wait(retry_state) -> float:
    """The upstream's Retry-After when it gave one, else exponential backoff."""
    exc = retry_state.outcome.exception() if retry_state.outcome else None
    if isinstance(exc, _Retryable) and exc.retry_after is not None:
        return exc.retry_after
    return _backoff(retry_state)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date); None when unreadable.

    Not capped here: the caller decides whether the wait is acceptable (see MAX_RETRY_AFTER).
    """
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


PROGRESS_FROM_BYTES = 1 << 20  # a body at least this big (a whole act's export) reports its progress


async def _read_capped(r: aiohttp.ClientResponse, limit: int, label: str = "") -> bytes:
    declared = r.content_length
    if declared is not None and declared > limit:
        raise UpstreamChanged(f"answer of {declared} bytes exceeds the {limit}-byte cap", url=str(r.url))
    chunks: list[bytes] = []
    size = 0
    phase = f"downloading {label or urlsplit(str(r.url)).hostname}"
    async for chunk in r.content.iter_chunked(65536):
        size += len(chunk)
        if size > limit:
            raise UpstreamChanged(f"answer exceeds the {limit}-byte cap", url=str(r.url))
        chunks.append(chunk)
        if size >= PROGRESS_FROM_BYTES:
            progress.report(phase, size, declared, "B")
    return b"".join(chunks)


async def download_to_file(client: HttpClient, url: str, dest, *, max_bytes: int = 2 * 1024**3, what: str = "") -> None:
    """Stream a large body (an archive) to `dest` without holding it in memory.

    Writes `dest.part` and renames on success, so an interrupted download never looks complete.
    """
    from pathlib import Path

    dest = Path(dest)
    check_url_allowed(url, client.allowed_hosts)
    key = host_key(url)
    breaker = client._check_circuit(key, what or key)
    with breaker:
        await _download(client, url, dest, key, max_bytes, what)


async def _download(client: HttpClient, url: str, dest, key: str, max_bytes: int, what: str) -> None:
    tmp = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=client.settings.http_timeout, sock_read=client.settings.http_timeout)
    ssl_ctx = client._ssl_contexts.get(urlsplit(url).hostname or "", client._default_ssl)
    await client._wait_turn(key)
    try:
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            async with client.session.get(
                current, timeout=timeout, allow_redirects=False,
                ssl=ssl_ctx if current.startswith("https") else None,
            ) as r:
                if r.status in (301, 302, 303, 307, 308) and "Location" in r.headers:
                    # e.g. http -> https, or a mirror path: followed only within the allow-list
                    nxt = urljoin(str(r.url), r.headers["Location"])
                    try:
                        current = check_url_allowed(nxt, client.allowed_hosts)
                    except InvalidArg:
                        raise UpstreamUnavailable(
                            f"{what or url}: redirected to {urlsplit(nxt).hostname!r}, outside the upstream allow-list",
                            valid=RETRY_LATER, url=url,
                        ) from None
                    ssl_ctx = client._ssl_contexts.get(urlsplit(current).hostname or "", client._default_ssl)
                    continue
                await _save_body(client, r, tmp, max_bytes, what or current, current)
                break
        else:
            raise UpstreamChanged(f"{what or url}: too many redirects", url=url)
    except (aiohttp.ClientError, asyncio.TimeoutError, _TooSlow) as exc:
        tmp.unlink(missing_ok=True)
        raise UpstreamUnavailable(f"{what or url}: {type(exc).__name__}: {_exc_text(exc)}", valid=RETRY_LATER, url=url)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(dest)


async def _save_body(client: HttpClient, r, tmp, max_bytes: int, label: str, url: str) -> None:
    """Stream one 200 answer to `tmp`, within the size cap and the minimum rate."""
    if r.status in (404, 410):
        raise NotFound(f"{label}: HTTP {r.status}", url=url)
    if r.status != 200:
        raise UpstreamUnavailable(f"{label}: HTTP {r.status}", valid=RETRY_LATER, status=r.status, url=url)
    size = 0
    started = time.monotonic()
    grace = client.settings.http_timeout
    phase = f"downloading {label}"
    progress.report(phase, 0, r.content_length, "B")
    with open(tmp, "wb") as fh:
        async for chunk in r.content.iter_chunked(1 << 20):
            size += len(chunk)
            if size > max_bytes:
                raise UpstreamChanged(f"{label}: larger than {max_bytes} bytes", url=url)
            fh.write(chunk)
            progress.report(phase, size, r.content_length, "B")
            _check_rate(size, started, grace, label)
        _check_rate(size, started, grace, label)
    progress.report(phase, size, size, "B")


class _TooSlow(Exception):
    pass


def _check_rate(size: int, started: float, grace: float, label: str) -> None:
    """A body that trickles in (each read just inside sock_read) must still end: past `grace`
    seconds the average rate must reach MIN_DOWNLOAD_RATE, so a 2 GB archive at full speed is
    fine while a slow drip fails within about `grace` seconds."""
    elapsed = time.monotonic() - started
    if elapsed > grace and size < MIN_DOWNLOAD_RATE * elapsed:
        raise _TooSlow(f"{label}: {size} bytes in {elapsed:.1f}s, below {MIN_DOWNLOAD_RATE} bytes/s")
