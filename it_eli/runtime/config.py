"""All configuration, read in one place from the environment.

Every variable here is documented in the README (a test keeps the two in step).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import platformdirs

from .errors import InvalidArg

# name -> (default, one-line description). The README table is checked against this.
ENV_VARS: dict[str, tuple[str, str]] = {
    "IT_ELI_HOME": ("<user data dir>/it_eli", "Where indexes, caches and logs live."),
    "IT_ELI_TESTDATA": ("../shared/data", "Captured upstream data read by tests and benchmarks."),
    "IT_ELI_CORTECOST_OPENDATA_URL": (
        "https://dati.cortecostituzionale.it/opendata/distribuzione/pronunce/",
        "Base URL of the Constitutional Court's open-data archives.",
    ),
    "IT_ELI_NORMATTIVA_URL": ("https://www.normattiva.it", "Normattiva portal."),
    "IT_ELI_NORMATTIVA_API_URL": (
        "https://api.normattiva.it/t/normattiva.api/bff-opendata/v1/api/v1",
        "Normattiva OpenData API.",
    ),
    "IT_ELI_SENTENZEWEB_URL": ("https://www.italgiure.giustizia.it/sncass", "SentenzeWeb (Cassazione)."),
    "IT_ELI_GA_URL": ("https://www.giustizia-amministrativa.it", "Giustizia Amministrativa search portal."),
    "IT_ELI_GA_DOCUMENT_URL": (
        "https://mdp.giustizia-amministrativa.it",
        "Giustizia Amministrativa decision host.",
    ),
    "IT_ELI_HTTP_TIMEOUT": ("20", "Total seconds allowed for one upstream request."),
    "IT_ELI_HTTP_RETRIES": ("2", "Retries for retryable upstream failures (connect errors, 429, 502-504)."),
    "IT_ELI_CIRCUIT_THRESHOLD": ("5", "Failed calls in a row after which an upstream host is left alone for a while."),
    "IT_ELI_CIRCUIT_SECONDS": ("60", "Seconds an upstream host is left alone once its failures reach the threshold."),
    "IT_ELI_THROTTLE_SECONDS": ("1.0", "Minimum seconds between two requests to the same upstream host."),
    "IT_ELI_MAX_BODY_BYTES": ("67108864", "Largest upstream body accepted (bytes)."),
    "IT_ELI_STATUTE_TTL_DAYS": ("30", "Days a cached statute article counts as fresh."),
    "IT_ELI_SEARCH_CACHE_SECONDS": ("600", "Seconds a live case-law search answer is reused."),
    "IT_ELI_MAX_ANSWER_CHARS": ("60000", "Size budget of one tool answer's text, in characters."),
    "IT_ELI_AUTO_BUILD": ("1", "Provision the case-law index on first use (0 to disable; same as IT_ELI_CASELAW_AUTOBUILD)."),
    "IT_ELI_CASELAW_AUTOBUILD": ("1", "Provision the case-law index on first use: from IT_ELI_CASELAW_INDEX_URL, else built from the open data (0: neither)."),
    "IT_ELI_CASELAW_INDEX_URL": ("", "URL of a pre-built case-law index archive (`it-eli index export`) imported on first use; its host is allow-listed."),
    "IT_ELI_CASELAW_INDEX_SHA256": ("", "sha256 the archive at IT_ELI_CASELAW_INDEX_URL must have (empty: not pinned)."),
    "IT_ELI_LOG_LEVEL": ("INFO", "Log level (logs go to stderr, never stdout)."),
    "IT_ELI_AUDIT_MAX_BYTES": ("10485760", "Size at which the audit log (IT_ELI_HOME/logs/audit.jsonl) is rotated (bytes)."),
    "IT_ELI_AUDIT_KEEP": ("5", "Rotated audit log files kept (audit.jsonl.1 ... .N)."),
    "IT_ELI_CALL_DEADLINE": ("40", "Seconds a tool call may take; upstream lookups stop a few seconds earlier and the call answers with what it has."),
    "IT_ELI_HTTP_TOKEN": ("", "Bearer token HTTP clients must send (required when serving off loopback)."),
    "IT_ELI_HTTP_TOKEN_FILE": ("", "File holding the bearer token (instead of IT_ELI_HTTP_TOKEN)."),
    "IT_ELI_HTTP_NO_AUTH": ("0", "1 to serve off loopback without a token (only behind a proxy that authenticates)."),
    "IT_ELI_HTTP_ALLOWED_HOSTS": ("", "Comma-separated Host names clients may use (besides loopback and the bind address)."),
    "IT_ELI_HTTP_ALLOWED_ORIGINS": ("", "Comma-separated browser Origins allowed (default: http(s) on the allowed hosts)."),
    "IT_ELI_HTTP_MAX_CONNECTIONS": ("256", "Open HTTP connections at most; more are closed at once."),
    "IT_ELI_HTTP_MAX_SESSIONS": ("200", "Open MCP sessions at most; a new one beyond gets 503."),
    "IT_ELI_HTTP_SESSION_IDLE_SECONDS": ("300", "Seconds after which an MCP session with no request is closed."),
    "IT_ELI_HTTP_READ_TIMEOUT": ("10", "Seconds a client has to send a whole request (headers and body)."),
}

REPO_ROOT = Path(__file__).resolve().parent.parent


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("it_eli", appauthor=False))


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    home: Path
    testdata: Path
    cortecost_opendata_url: str
    normattiva_url: str
    normattiva_api_url: str
    sentenzeweb_url: str
    ga_url: str
    ga_document_url: str
    http_timeout: float
    http_retries: int
    throttle_seconds: float
    max_body_bytes: int
    statute_ttl_days: float
    search_cache_seconds: float
    max_answer_chars: int
    auto_build: bool
    log_level: str
    circuit_threshold: int = 5
    circuit_seconds: float = 60.0
    audit_max_bytes: int = 10_485_760
    audit_keep: int = 5
    caselaw_index_url: str | None = None
    caselaw_index_sha256: str | None = None
    call_deadline: float = 40.0
    http_token: str = ""
    http_no_auth: bool = False
    http_allowed_hosts: tuple[str, ...] = ()
    http_allowed_origins: tuple[str, ...] = ()
    http_max_connections: int = 256
    http_max_sessions: int = 200
    http_session_idle_seconds: float = 300.0
    http_read_timeout: float = 10.0

    @property
    def upstream_urls(self) -> dict[str, str]:
        return {
            "cortecost": self.cortecost_opendata_url,
            "normattiva": self.normattiva_url,
            "normattiva_api": self.normattiva_api_url,
            "sentenzeweb": self.sentenzeweb_url,
            "ga": self.ga_url,
            "ga_document": self.ga_document_url,
        }

    @property
    def allowed_hosts(self) -> frozenset[str]:
        """Hosts (with port) the appliance may talk to: exactly the configured upstreams."""
        urls = list(self.upstream_urls.values())
        if self.caselaw_index_url:
            urls.append(self.caselaw_index_url)
        return frozenset(_host_port(u) for u in urls)


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{(parts.hostname or '').lower()}:{port}"


def _number(env: Mapping[str, str], name: str, kind: type) -> float | int:
    raw = env.get(name, ENV_VARS[name][0]).strip()
    try:
        value = kind(raw)
    except ValueError:
        raise InvalidArg(f"{name}={raw!r} is not a number", valid=f"a {kind.__name__}, e.g. {ENV_VARS[name][0]}")
    if value < 0:
        raise InvalidArg(f"{name}={raw!r} is negative", valid="zero or a positive number")
    return value


def _url(env: Mapping[str, str], name: str) -> str:
    raw = env.get(name, ENV_VARS[name][0]).strip()
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidArg(f"{name}={raw!r} is not an http(s) URL", valid="e.g. " + (ENV_VARS[name][0] or "https://host/path"))
    return raw.rstrip("/") if not raw.endswith("/pronunce/") else raw


def _flag(env: Mapping[str, str], name: str) -> bool:
    """A yes/no setting; anything else is refused, so a typo never flips a safety switch."""
    raw = (env.get(name, "").strip() or ENV_VARS[name][0]).lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise InvalidArg(f"{name}={raw!r} is not a yes/no setting", valid="1/true/yes/on or 0/false/no/off")


def _optional_url(env: Mapping[str, str], name: str) -> str | None:
    return _url(env, name) if env.get(name, "").strip() else None


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value.lower())


def _optional_sha256(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name, "").strip().lower()
    if raw and not is_sha256(raw):
        raise InvalidArg(f"{name}={raw!r} is not a sha256 digest", valid="64 hexadecimal characters (sha256sum's output), or empty")
    return raw or None


def _home(env: Mapping[str, str]) -> Path:
    """IT_ELI_HOME, refused at start when it (or the nearest existing folder above it) is not a
    folder: otherwise every command and every tool call fails later, as an internal error."""
    home = Path(env["IT_ELI_HOME"]).expanduser() if env.get("IT_ELI_HOME") else _default_home()
    where = home
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        what = "is a file" if where == home else f"is under {str(where)!r}, which is a file"
        raise InvalidArg(f"IT_ELI_HOME={str(home)!r} {what}, not a folder",
                         valid="a folder (or a path where one can be created) for indexes, caches and logs; "
                               "unset, it is " + str(_default_home()))
    return home


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    home = _home(env)
    testdata = Path(env.get("IT_ELI_TESTDATA") or (REPO_ROOT.parent / "shared" / "data"))
    return Settings(
        home=home,
        testdata=testdata,
        cortecost_opendata_url=_url(env, "IT_ELI_CORTECOST_OPENDATA_URL"),
        normattiva_url=_url(env, "IT_ELI_NORMATTIVA_URL"),
        normattiva_api_url=_url(env, "IT_ELI_NORMATTIVA_API_URL"),
        sentenzeweb_url=_url(env, "IT_ELI_SENTENZEWEB_URL"),
        ga_url=_url(env, "IT_ELI_GA_URL"),
        ga_document_url=_url(env, "IT_ELI_GA_DOCUMENT_URL"),
        http_timeout=float(_number(env, "IT_ELI_HTTP_TIMEOUT", float)),
        http_retries=int(_number(env, "IT_ELI_HTTP_RETRIES", int)),
        throttle_seconds=float(_number(env, "IT_ELI_THROTTLE_SECONDS", float)),
        max_body_bytes=int(_number(env, "IT_ELI_MAX_BODY_BYTES", int)),
        statute_ttl_days=float(_number(env, "IT_ELI_STATUTE_TTL_DAYS", float)),
        search_cache_seconds=float(_number(env, "IT_ELI_SEARCH_CACHE_SECONDS", float)),
        max_answer_chars=int(_number(env, "IT_ELI_MAX_ANSWER_CHARS", int)),
        # the seeds' name and ours: either one set to 0 turns first-use provisioning off
        auto_build=_flag(env, "IT_ELI_AUTO_BUILD") and _flag(env, "IT_ELI_CASELAW_AUTOBUILD"),
        caselaw_index_url=_optional_url(env, "IT_ELI_CASELAW_INDEX_URL"),
        caselaw_index_sha256=_optional_sha256(env, "IT_ELI_CASELAW_INDEX_SHA256"),
        log_level=env.get("IT_ELI_LOG_LEVEL", "INFO").strip().upper() or "INFO",
        circuit_threshold=max(1, int(_number(env, "IT_ELI_CIRCUIT_THRESHOLD", int))),
        circuit_seconds=float(_number(env, "IT_ELI_CIRCUIT_SECONDS", float)),
        audit_max_bytes=int(_number(env, "IT_ELI_AUDIT_MAX_BYTES", int)),
        audit_keep=int(_number(env, "IT_ELI_AUDIT_KEEP", int)),
        call_deadline=float(_number(env, "IT_ELI_CALL_DEADLINE", float)),
        http_token=_token(env),
        http_no_auth=_flag(env, "IT_ELI_HTTP_NO_AUTH"),
        http_allowed_hosts=_names(env, "IT_ELI_HTTP_ALLOWED_HOSTS"),
        http_allowed_origins=_names(env, "IT_ELI_HTTP_ALLOWED_ORIGINS"),
        http_max_connections=max(1, int(_number(env, "IT_ELI_HTTP_MAX_CONNECTIONS", int))),
        http_max_sessions=max(1, int(_number(env, "IT_ELI_HTTP_MAX_SESSIONS", int))),
        http_session_idle_seconds=max(1.0, float(_number(env, "IT_ELI_HTTP_SESSION_IDLE_SECONDS", float))),
        http_read_timeout=max(0.1, float(_number(env, "IT_ELI_HTTP_READ_TIMEOUT", float))),
    )


def _names(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in env.get(name, "").split(",") if x.strip())


def _token(env: Mapping[str, str]) -> str:
    """The HTTP bearer token, from IT_ELI_HTTP_TOKEN or the file IT_ELI_HTTP_TOKEN_FILE names."""
    token = env.get("IT_ELI_HTTP_TOKEN", "").strip()
    path = env.get("IT_ELI_HTTP_TOKEN_FILE", "").strip()
    if path and not token:
        try:
            token = Path(path).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise InvalidArg(f"IT_ELI_HTTP_TOKEN_FILE={path!r} cannot be read ({exc.strerror})",
                             valid="a readable file holding the token on one line")
        if not token:
            raise InvalidArg(f"IT_ELI_HTTP_TOKEN_FILE={path!r} is empty", valid="a file holding the token on one line")
    if token and len(token) < 16:
        raise InvalidArg("the HTTP token is shorter than 16 characters",
                         valid="a random token of 16+ characters, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
    return token
