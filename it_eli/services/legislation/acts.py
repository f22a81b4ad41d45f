"""Which version of a whole act answers: a cached one that covers the day asked, else the
portal's export, fetched and stored; and the one error (with its retry help) for a Normattiva
that cannot be reached, shared by the act and article answers."""

from __future__ import annotations

import asyncio

import msgspec

from it_eli.law import urn as urnmod
from it_eli.runtime import clock
from it_eli.runtime.errors import (
    ItEliError,
    NotAvailable,
    NotFound,
    UpstreamChanged,
    UpstreamUnavailable,
)
from it_eli.search.statutes.reading import version_on
from it_eli.search.statutes.records import (
    ORIGINAL,
    ActVersion,
)
from it_eli.search.statutes.store import StatuteStore
from it_eli.sources.normattiva import api, portal
from it_eli.sources.normattiva.akn import parse_act

from .targets import (
    REFERENCE_HELP,
    Target,
    check_not_before_act,
)

UNREACHABLE = (UpstreamUnavailable, UpstreamChanged, NotAvailable)

RETRY_HELP = (
    "retry later (Normattiva may be down or blocking for a while; details.retry_after_seconds says when, if known); "
    "to work offline, load the act's Akoma Ntoso export (normattiva.it, 'esporta in Akoma ntoso') with "
    "`it-eli statutes import FILE.xml`"
)


def unavailable(message: str, cause: ItEliError | None = None, **details) -> UpstreamUnavailable:
    if cause is not None:
        details.setdefault("upstream_error", f"{cause.code}: {cause.message[:300]}")
        for k in ("retry_after_seconds", "url", "status"):
            if k in cause.details:
                details.setdefault(k, cause.details[k])
    return UpstreamUnavailable(message, valid=RETRY_HELP, **details)


async def _fetch_and_store_act(app, target: Target, at_date: str | None):
    """Portal export -> parse -> identity checked -> stored. Returns (version label, urn)."""
    fetched = await portal.fetch_act_xml(app.http, app.settings, target.ref, at_date)
    act = parse_act(fetched.xml)
    portal.check_identity(target.ref, act.identity)
    store: StatuteStore = app.statutes
    # attribution link by the act's own full URN (the request may have been a year-only URN or an ELI)
    source_url = urnmod.portal_url(act.identity.urn, app.settings.normattiva_url) if act.identity.urn else fetched.source_url
    # without a date the portal exports the text in force today; with one, the text of that day only
    await asyncio.to_thread(store.add_act, act, source_url=source_url, raw_xml=fetched.xml,
                            current=at_date is None, as_of=at_date or clock.today_iso())
    version = act.identity.version_date or ORIGINAL
    return version, act.identity.urn


async def has_local_copy(store: StatuteStore, target: Target) -> bool:
    """Local evidence that the act exists: anything of it in the statute index."""
    if not target.urn:
        return False
    return target.urn in await asyncio.to_thread(store.list_acts)


def _labels(versions: list[ActVersion]) -> str:
    return ", ".join(v.version for v in versions[:8]) + (" …" if len(versions) > 8 else "")


async def act_version(app, target: Target, at_date: str | None, *, want_keys: bool = False):
    """(ActVersion, served_from, stale, notes) for the act, fetching when the cache cannot answer.

    A cached version answers without the network only for a day it covers (`StatuteStore.covers`);
    otherwise Normattiva is asked, and if it cannot be reached the cached version in force on that
    day by the cache's knowledge is returned with stale=True."""
    store: StatuteStore = app.statutes
    notes: list[str] = []
    today = clock.today_iso()
    day = at_date or today
    check_not_before_act(target, at_date)
    versions = await asyncio.to_thread(store.versions, target.urn, with_keys=want_keys) if target.urn else []
    if target.original:
        orig = next((v for v in versions if v.version == ORIGINAL), None)
        if orig is not None:
            return orig, "local_index", False, ["the original text as published (the cached ORIGINAL export)"]
        raise NotAvailable(
            "the original text of the whole act is not in the local index, and Normattiva's portal export gives "
            "consolidated versions only",
            valid="one article's original text (URN ...~artN@originale, through the OpenData API), or import the act's "
            "ORIGINAL Akoma Ntoso export with `it-eli statutes import FILE.xml`",
        )
    cached = version_on(versions, day) if versions else None
    if cached is not None and store.covers(versions, cached, day, today, now=at_date is None):
        return cached, "local_index", False, notes
    try:
        version, urn = await _fetch_and_store_act(app, target, at_date)
    except UNREACHABLE as exc:
        if cached is None:
            if versions:
                raise unavailable(
                    f"Normattiva did not give the text in force on {day} ({exc.code}: {exc.message[:160]}), and none "
                    f"of the cached versions of {versions[0].title or target.urn} is in force then (cached: "
                    f"{_labels(versions)})",
                    exc, cached_versions=[v.version for v in versions],
                ) from None
            if isinstance(exc, NotAvailable) and not await has_local_copy(store, target):
                await _confirm_missing_act(app, target, exc)
            elif isinstance(exc, NotAvailable):
                raise unavailable(f"Normattiva could not load this act now ({exc.message[:200]}); the local index "
                                   "holds parts of it, so it exists", exc) from None
            raise
        notes.append(f"Normattiva could not be reached ({exc.code}: {exc.message[:160]})")
        if at_date:
            notes.append(f"no cached version is known to be the text in force on {at_date}: the newest cached version "
                         f"starting before it ({cached.version}) is shown")
        return cached, "local_index", True, notes
    versions = await asyncio.to_thread(store.versions, urn, with_keys=want_keys)
    chosen = next((v for v in versions if v.version == version), None)
    if chosen is None:
        raise UpstreamChanged("the act was fetched but could not be read back from the local index")
    return chosen, "normattiva_portal", False, notes


async def _confirm_missing_act(app, target: Target, portal_error: ItEliError) -> None:
    """The portal's 'Errore' page is not proof that an act does not exist (it also means
    'cannot load now'); with a full URN, ask the OpenData API: its 'atto non trovato' / 1003 is
    (API_FACTS, error table). Raises NotFound when confirmed, else returns (caller re-raises)."""
    ref = target.ref
    if not isinstance(ref, urnmod.Urn) or ref.partial:
        return
    try:
        await api.fetch_article(app.http, app.settings, ref, "1")
    except NotFound as exc:
        if "coordinates" in exc.details:
            return  # the act exists (only art. 1 / the annex is off): keep the portal's error
        raise NotFound(
            f"{urnmod.citation_for(msgspec.structs.replace(ref, article=None))} does not exist on Normattiva (portal "
            f"'Errore' page; OpenData API: {exc.message})",
            valid=REFERENCE_HELP, urn=ref.act_urn(), portal=portal_error.message[:200],
        ) from None
    except ItEliError:
        return
