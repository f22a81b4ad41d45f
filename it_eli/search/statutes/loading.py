"""`it-eli statutes import`: Akoma Ntoso exports read from files into the statute store, for
offline deployments, tests and benchmarks; a file is read only once known to be a regular file
of bounded size."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import msgspec

from it_eli.runtime import progress
from it_eli.runtime.config import Settings
from it_eli.runtime.errors import InvalidArg, ItEliError
from it_eli.sources.normattiva.akn import Act, parse_act

from .records import version_label
from .store import StatuteStore


class ImportReport(msgspec.Struct, kw_only=True):
    acts: int
    articles: int
    seconds: float
    errors: list[str]
    imported: list[str]


def portal_source_url(settings: Settings, act: Act) -> str:
    """Where a person can read this act: the portal's URN resolver (with the in-force date)."""
    ident = act.identity
    base = "https://www.normattiva.it/uri-res/N2Ls?"
    urn = ident.urn or ""
    if ident.version_date:
        urn += f"!vig={ident.version_date}"
    return base + urn


def read_bounded(path: Path, limit: int) -> bytes:
    """A file read whole only once it is known to be a regular file of at most `limit` bytes (the
    largest upstream body accepted): a 2 GB sparse file or a device is refused, not read."""
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArg("not a regular file", valid="an Akoma Ntoso export (.xml) saved from Normattiva")
        if st.st_size > limit:
            raise InvalidArg(f"{st.st_size:,} bytes is more than the {limit:,} accepted (IT_ELI_MAX_BODY_BYTES)",
                             valid="an Akoma Ntoso export of one act (the largest codes are a few MB)")
        raw = fh.read(limit + 1)
    if len(raw) > limit:  # grew while being read
        raise InvalidArg(f"more than the {limit:,} bytes accepted (IT_ELI_MAX_BODY_BYTES)",
                         valid="an Akoma Ntoso export of one act")
    return raw


def import_files(settings: Settings, files: list[str]) -> ImportReport:
    """`it-eli statutes import`: load Akoma Ntoso exports (offline deployments, tests, benchmarks)."""
    store = StatuteStore(settings)
    started = time.monotonic()
    acts = articles = 0
    errors: list[str] = []
    imported: list[str] = []
    for done, name in enumerate(files):
        progress.report("importing statutes", done, len(files), "files")  # a bulk import takes minutes
        path = Path(name)
        try:
            raw = read_bounded(path, settings.max_body_bytes)
        except OSError as exc:
            errors.append(f"{name}: {exc.strerror or exc}")
            continue
        except ItEliError as exc:
            errors.append(f"{name}: {exc.message} (valid: {exc.valid})")
            continue
        try:
            act = parse_act(raw, user_supplied=True)
            n = store.add_act(act, source_url=portal_source_url(settings, act), raw_xml=raw)
        except ItEliError as exc:
            errors.append(f"{name}: {exc.message}" + (f" (valid: {exc.valid})" if exc.valid else ""))
            continue
        acts += 1
        articles += n
        imported.append(f"{act.identity.urn}@{version_label(act.identity.version_date)}")
    progress.report("importing statutes", len(files), len(files), "files")
    return ImportReport(acts=acts, articles=articles, seconds=round(time.monotonic() - started, 2), errors=errors, imported=imported)
