"""Index builds and pre-built archives, from files or URLs: shared by `it-eli index build` /
`index import` and the server's first-use provisioning."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from it_eli.runtime.errors import InvalidArg, ItEliError, UpstreamUnavailable
from it_eli.search.archive_import import import_archive
from it_eli.search.decisions.build import build_index, update_index
from it_eli.search.decisions.model import BuildReport
from it_eli.search.index_archive import ImportReport, check_sha256_arg
from it_eli.sources.http import check_url_allowed, download_to_file

log = logging.getLogger(__name__)

SOURCE_VALID = "a local .zip/.json file or directory, or an http(s) URL of the Court's open data"
DEFAULT_ARCHIVES = ("P_json1956_1980.zip", "P_json1981_2000.zip", "P_json2001_oggi.zip")


def default_source_urls(settings) -> list[str]:
    base = settings.cortecost_opendata_url
    if not base.endswith("/"):
        base += "/"
    return [base + name for name in DEFAULT_ARCHIVES]


async def resolve_sources(app, sources: list[str] | None) -> list[Path]:
    """Local paths as they are; http(s) URLs downloaded (allow-listed) under IT_ELI_HOME/downloads."""
    wanted = sources or default_source_urls(app.settings)
    paths: list[Path] = []
    failures: list[str] = []
    for src in wanted:
        if src.startswith(("http://", "https://")):
            name = Path(urlsplit(src).path).name or "archive.zip"
            dest = app.settings.home / "downloads" / name
            try:
                await download_to_file(app.http, src, dest, what=f"Court open data {name}")
            except InvalidArg:  # a URL the caller gave outside the allow-list: their mistake
                raise
            except ItEliError as exc:
                failures.append(f"{src}: {exc.message}")
                continue
            paths.append(dest)
        else:
            p = Path(src).expanduser()
            if not p.exists():
                raise InvalidArg(f"source {src!r} does not exist", valid=SOURCE_VALID)
            if p.is_file() and p.suffix.lower() != ".json" and not zipfile.is_zipfile(p):
                raise InvalidArg(f"source {src!r} is neither a zip archive nor a .json file", valid=SOURCE_VALID)
            paths.append(p)
    if failures and not paths:
        raise UpstreamUnavailable("could not download the Court's open data: " + "; ".join(failures))
    if failures:
        log.warning("some sources could not be downloaded: %s", "; ".join(failures))
    return paths


async def build_from_sources(
    app, sources: list[str] | None, progress: Callable[[int, str], None] | None = None, *, full: bool = False,
) -> BuildReport:
    """An update by default (only what the current index lacks or holds changed; a full build when
    there is no usable index); `full` rebuilds everything."""
    paths = await resolve_sources(app, sources)
    stop = threading.Event()
    try:
        return await asyncio.to_thread(build_index if full else update_index, app.settings, paths, progress=progress,
                                       stop=stop)
    except asyncio.CancelledError:
        # a cancelled await leaves the thread running: without this it would finish and publish
        stop.set()
        raise


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


async def import_from(app, file_or_url: str, *, sha256: str | None = None) -> ImportReport:
    """Import a local archive, or download one through the HTTP layer (allow-listed) first."""
    expected = check_sha256_arg(sha256)
    if not is_url(file_or_url):
        return await asyncio.to_thread(import_archive, app.settings, Path(file_or_url).expanduser(), sha256=expected)
    try:
        check_url_allowed(file_or_url, app.http.allowed_hosts)
    except InvalidArg as exc:
        raise InvalidArg(
            exc.message + " (not on the upstream allow-list)",
            valid="set IT_ELI_CASELAW_INDEX_URL to the archive's URL (its host joins the allow-list), "
                  "or download the archive and import the file",
        ) from None
    name = Path(urlsplit(file_or_url).path).name or "index.tar.zst"
    dest = app.settings.home / "downloads" / f"{uuid.uuid4().hex[:8]}-{name}"
    try:
        await download_to_file(app.http, file_or_url, dest, what=f"pre-built index {name}")
        return await asyncio.to_thread(import_archive, app.settings, dest, sha256=expected, source=file_or_url)
    finally:
        dest.unlink(missing_ok=True)
