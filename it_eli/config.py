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
    return env.get(name, ENV_VARS[name][0]).strip().lower() not in ("0", "false", "no", "off")


def _optional_url(env: Mapping[str, str], name: str) -> str | None:
    return _url(env, name) if env.get(name, "").strip() else None


def is_sha256(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value.lower())


def _optional_sha256(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name, "").strip().lower()
    if raw and not is_sha256(raw):
        raise InvalidArg(f"{name}={raw!r} is not a sha256 digest", valid="64 hexadecimal characters (sha256sum's output), or empty")
    return raw or None


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    home = Path(env["IT_ELI_HOME"]).expanduser() if env.get("IT_ELI_HOME") else _default_home()
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
    )
