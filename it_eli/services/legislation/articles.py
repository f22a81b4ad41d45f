"""One article as the service serves it: from the local index when a cached copy settles the
day, else from the OpenData API, else from the act's portal export; `not_found` only on positive
evidence of absence, a cached copy marked stale when Normattiva cannot be reached."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from typing import Literal

import msgspec

from it_eli.law.provision_status import ProvisionEvent, describe, inserted_event, not_yet_in_force
from it_eli.runtime import clock
from it_eli.runtime.errors import (
    InvalidArg,
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
    StoredArticle,
    is_placeholder,
    statute_citation,
)
from it_eli.search.statutes.store import StatuteStore
from it_eli.sources.normattiva import api
from it_eli.sources.normattiva.lifecycle import article_events, clean_text

from ...law import codes
from ...law import urn as urnmod
from ...law.grammar import article_range_hint
from ..currency import later_amending_acts
from .acts import (
    UNREACHABLE,
    act_version,
    has_local_copy,
    unavailable,
)
from .targets import (
    Target,
    check_not_before_act,
)

log = logging.getLogger(__name__)


class ServedArticle(msgspec.Struct, kw_only=True):
    """One article's stored text as the service found it, with where it came from and how sure it is."""

    article: StoredArticle
    at_date: str | None
    served_from: Literal["local_index", "normattiva_api", "normattiva_portal"]
    stale: bool
    notes: list[str] = msgspec.field(default_factory=list)
    eli: str | None = None  # the act's ELI when the stored article lacks one
    original: bool = False  # the original text (URN @originale / ELI ORIGINAL)
    amended_by: list[str] = msgspec.field(default_factory=list)  # later local acts amending it


def _served(a: StoredArticle, *, at_date, served_from, stale, notes, eli=None, original: bool = False,
            amended_by: list[str] | None = None) -> ServedArticle:
    """The article as served, unless its own record says it was not yet inserted on the day
    asked (or is not in the original text): that is positive evidence of absence."""
    day = at_date or clock.today_iso()
    inserted = inserted_event(a.lifecycle)
    if inserted is not None and original:
        raise NotFound(f"{_cite(a)} is not in the decree as published: {describe(inserted)}",
                       valid="the consolidated text (without @originale), from "
                       f"{inserted.since or 'the conversion law'} on", not_in_original=True,
                       in_force_from=inserted.since)
    not_yet = not_yet_error(a, day)
    if not_yet is not None:
        raise not_yet
    return ServedArticle(article=a, at_date=at_date, served_from=served_from, stale=stale, notes=list(notes), eli=eli,
                         original=original, amended_by=list(amended_by or []))


def _cite(a: StoredArticle) -> str:
    src = {"act_type": a.act_type, "act_number": a.act_number, "act_date": a.act_date, "act_year": a.act_year,
           "act_title": a.act_title, "urn": a.urn}
    return statute_citation(src, a.article)


def not_yet_error(a: StoredArticle, day: str) -> NotFound | None:
    """'Not yet in force on `day`' when the article's own record says it came in later (added by
    the conversion law): the one verdict get_text and verification both give."""
    inserted: ProvisionEvent | None = not_yet_in_force(a.lifecycle, day)
    if inserted is None:
        return None
    return NotFound(f"{_cite(a)}: not yet in force on {day}: {describe(inserted)}",
                    valid=f"a date from {inserted.since} on", not_yet_in_force=True, in_force_from=inserted.since)


def recorded_not_yet(store: StatuteStore, urn: str, key: str, day: str) -> NotFound | None:
    """'Not yet in force on `day`' when any cached text of the article (an export of any version)
    records that it came in after that day: local evidence, settled without Normattiva."""
    for c in store.article_candidates(urn, key):
        if not is_placeholder(c.text):
            err = not_yet_error(c, day)
            if err is not None:
                return err
    return None


def _day_after(iso: str) -> str:
    return (dt.date.fromisoformat(iso) + dt.timedelta(days=1)).isoformat()


def api_not_found_is_final(exc: NotFound, key: str) -> bool:
    """True when the API's 'does not exist' can be trusted without asking the portal.

    Only the coordinates 404 (the act exists, the article does not) for a plain numeric article.
    The API is known to answer 404 for existing articles with an extension (147-bis) in acts it
    serves in `lista` form, and 400/1003 or 'atto non trovato' for URN forms it does not accept
    (API_FACTS: error table, §4.9): those are checked against the portal's export.
    """
    return "coordinates" in exc.details and bool(re.fullmatch(r"\d+", key))


def _range_hint(store: StatuteStore, urn: str, key: str, version: str | None = None) -> str:
    versions = store.versions(urn, with_keys=True)
    if not versions:
        return ""
    v = next((x for x in versions if x.version == version), versions[0])
    hint, _ = article_range_hint(v.keys, key)
    return hint + (f" (version of {v.version})" if len(versions) > 1 else "")


def _local_article(store: StatuteStore, cands: list[StoredArticle], versions: list[ActVersion], day: str,
                   today: str, now: bool) -> tuple[StoredArticle | None, bool]:
    """The cached text of the article in force on `day`, and whether the cache settles it."""
    v = version_on(versions, day) if versions else None
    act_c = next((c for c in cands if c.kind == "act" and v is not None and c.version == v.version), None)
    singles = [c for c in cands if c.kind == "article" and c.in_force_date and c.in_force_date <= day
               and (c.valid_to is None or c.valid_to >= day)]
    single = max(singles, key=lambda c: (c.in_force_date, c.fetched_at)) if singles else None
    pick = act_c
    if single is not None and (act_c is None or (act_c.in_force_date or "") < single.in_force_date):
        pick = single  # the newer text wins; on a tie the whole act's export
    if pick is None:
        return None, False
    if pick.kind == "act":
        return pick, store.covers(versions, v, day, today, now=now)
    if now:  # an open window seen at fetch time is today's text while fresh
        return pick, store.is_fresh(pick.fetched_at) and (pick.valid_to is None or pick.valid_to >= today)
    return pick, pick.valid_to is not None or day <= pick.fetched_at[:10]


def _proven_absent(store: StatuteStore, urn: str, key: str, cands: list[StoredArticle], versions: list[ActVersion],
                   day: str, today: str, now: bool = False) -> ActVersion | None:
    """The cached version that proves the article was not there on `day`, or None.

    Proof: the version in force that day (by the cache) lacks it and covers that day; or it lacks
    it and so does the next cached version, with no cached text of the article starting between
    them — Normattiva's exports keep a repealed article as '((ARTICOLO ABROGATO …))', so an
    article absent from two consecutive versions was never there in between (DISCOVERY §6)."""
    v = version_on(versions, day) if versions else None
    if v is None or store.get_article(urn, key, v.version) is not None:
        return None
    if store.covers(versions, v, day, today, now=now):
        return v
    if now or v.in_force_date is None:
        return None
    later = [x for x in versions if x.in_force_date and x.in_force_date > v.in_force_date]
    if not later:
        return None
    nxt = later[-1]  # newest first: the last one is the next after v
    if store.get_article(urn, key, nxt.version) is not None:
        return None
    if any(c.in_force_date and v.in_force_date < c.in_force_date <= nxt.in_force_date for c in cands):
        return None
    return v


def first_text_after(cands: list[StoredArticle], day: str) -> str | None:
    """The first day of a cached text of the article starting after `day`, when a complete text in
    force on `day` lacks it: the article came in later (not yet in force), it is not unknown to the act."""
    later = sorted(c.in_force_date for c in cands if c.in_force_date and c.in_force_date > day)
    return later[0] if later else None


async def _not_found_in(app, urn: str, key: str, version: ActVersion, cands: list[StoredArticle], at: str | None,
                        why: str) -> NotFound:
    store: StatuteStore = app.statutes
    day = at or clock.today_iso()
    hint = await asyncio.to_thread(_range_hint, store, urn, key, version.version)
    title = version.title or urn
    first = first_text_after(cands, day)
    if first is not None:
        return NotFound(
            f"art. {key} of {title} was not yet in force on {day} (the first cached text of it is in force from "
            f"{first}; {why})", valid=f"a date from {first} on", range_hint=hint, not_yet_in_force=True,
            checked_version=version.version,
        )
    when = f" on {at}" if at else ""
    return NotFound(f"art. {key} does not exist in {title}{when} ({why})", valid=hint, range_hint=hint,
                    checked_version=version.version)


async def _store_api_article(app, ref: urnmod.Urn, key: str, art: api.ApiArticle, *, original: bool = False):
    store: StatuteStore = app.statutes
    urn = ref.act_urn()
    if ref.act_type == "costituzione":
        urn = codes.CODES_BY_ID["cost"].urn
    eli = await asyncio.to_thread(store.any_eli, urn)
    # the same reading of the export's record as for the AKN exports: lifecycle from the raw text
    # and the AGGIORNAMENTO notes, then the text without markers and note numbers
    notes_text = "\n-----\n".join(art.editorial_notes)
    events = article_events(key, art.text, [], notes_text, act_number=art.number, act_type=art.act_type)
    await asyncio.to_thread(
        store.add_single_article, urn=urn, key=key, heading=clean_text(art.heading or "", notes_text) or None,
        text=clean_text(art.text, notes_text), lifecycle=events, amended="((" in art.text,
        in_force_from=art.in_force_from, in_force_to=art.in_force_to, repealed=art.repealed,
        act_title=art.act_subtitle or art.act_title, act_type=art.act_type, act_number=art.number,
        act_date=art.date, act_year=int(art.date[:4]) if art.date else None, eli=eli,
        source_url=art.source_url or urnmod.portal_url(ref, app.settings.normattiva_url), original=original,
    )
    stored = await asyncio.to_thread(store.get_article, urn, key, art.in_force_from or ORIGINAL)
    if stored is None:
        raise UpstreamChanged("the article was fetched but could not be read back")
    return stored, eli


def _not_yet(ref: urnmod.Urn, key: str, art: api.ApiArticle, day: str) -> NotFound:
    """Normattiva's placeholder 'NON ANCORA ESISTENTE O VIGENTE' (urn_non_ancora_vigente.json):
    the article did not exist yet on that day; its window ends the day before it appears."""
    cite = urnmod.citation_for(msgspec.structs.replace(ref, article=key, annex=None, vigenza=None, version=None))
    start = _day_after(art.in_force_to) if art.in_force_to else None
    return NotFound(
        f"{cite}: not yet in force on {day}" + (f" (in force from {start})" if start else ""),
        valid=f"a date from {start} on" if start else "a later date", not_yet_in_force=True, in_force_from=start,
        upstream="Normattiva OpenData API: 'NON ANCORA ESISTENTE O VIGENTE'",
    )


def _api_ref(target: Target) -> urnmod.Urn | None:
    """The full URN the OpenData API can take, or None (partial URN not resolved, ELI not cached)."""
    if target.urn and not target.urn.endswith(";"):
        try:
            ref = urnmod.parse_urn(target.urn)
        except InvalidArg:
            return None
        return None if ref.partial else ref
    if isinstance(target.ref, urnmod.Urn) and not target.ref.partial:
        return target.ref
    return None


async def served_article(app, target: Target, key: str, at: str | None) -> ServedArticle:
    """Article `key` of the act as in force on `at` (today when None), from the local index when it
    settles the day, else from Normattiva; NotFound only on positive evidence of absence."""
    store: StatuteStore = app.statutes
    today = clock.today_iso()
    day = at or today
    check_not_before_act(target, at)
    if target.original:
        return await _original_article(app, target, key)
    notes: list[str] = list(target.notes)
    cands: list[StoredArticle] = []
    versions: list[ActVersion] = []
    if target.urn:
        cands = [c for c in await asyncio.to_thread(store.article_candidates, target.urn, key) if not is_placeholder(c.text)]
        versions = await asyncio.to_thread(store.versions, target.urn)
    local, settled = _local_article(store, cands, versions, day, today, at is None)
    if local is not None and settled:
        newer = await asyncio.to_thread(later_amending_acts, store, local) if at is None else []
        return _served(local, at_date=at, served_from="local_index", stale=False, notes=notes, amended_by=newer)
    if target.urn:
        not_yet = next((e for e in (not_yet_error(c, day) for c in cands) if e is not None), None)
        if not_yet is not None:
            raise not_yet
    if local is None and target.urn:
        proof = await asyncio.to_thread(_proven_absent, store, target.urn, key, cands, versions, day, today, at is None)
        if proof is not None:
            raise await _not_found_in(app, target.urn, key, proof, cands, at, f"cached complete text of {proof.version}")
    fallback = local

    # live: the OpenData API is the channel for one article
    fetched, api_error, future = await _api_article(app, target, key, at, day, today, cands)
    if fetched is not None:  # built outside the try: a 'not yet inserted' answer is the stored text's, not the API's
        stored, api_notes, eli = fetched
        return _served(stored, at_date=at, served_from="normattiva_api", stale=False,
                               notes=notes + api_notes, eli=eli)

    # the portal export of the whole act (also resolves partial URNs and ELIs)
    try:
        version, served_from, stale, vnotes = await act_version(app, target, at)
    except NotFound:
        raise
    except UNREACHABLE as exc:
        evidence = bool(cands) or bool(versions) or future is not None or await has_local_copy(store, target)
        if fallback is not None:
            notes.append(f"Normattiva could not be reached ({exc.code})")
            if at:
                notes.append(f"no cached copy is known to be the text in force on {at}: the cached text in force from "
                             f"{fallback.in_force_date or 'the original publication'} is shown")
            return _served(fallback, at_date=at, served_from="local_index", stale=True, notes=notes)
        raise _neither_channel(exc, key, at, api_error, future, evidence) from None
    if isinstance(api_error, NotFound):
        notes.append("the OpenData API said this article does not exist; the portal's export of the act was checked instead")
    notes.extend(vnotes)
    a = await asyncio.to_thread(store.get_article, version.urn, key, version.version)
    if a is not None and not is_placeholder(a.text):
        return _served(a, at_date=at, served_from=served_from, stale=stale, notes=notes)
    raise await _missing_from_version(app, version, key, at, day, today, served_from, stale)


async def _api_article(app, target: Target, key: str, at: str | None, day: str, today: str,
                       cands: list[StoredArticle]) -> tuple[tuple | None, ItEliError | None, api.ApiArticle | None]:
    """The article from the OpenData API, stored: (stored article, notes, eli) or None, the API's
    error when it did not give it (the portal is asked next), and a later version it answered first."""
    api_error: ItEliError | None = None
    future: api.ApiArticle | None = None
    fetched = None
    ref = _api_ref(target)
    if ref is not None:
        try:
            art = await api.fetch_article(app.http, app.settings, ref, key, at)
            if art.not_yet_in_force:
                raise _not_yet(ref, key, art, day)
            if at is None and art.future_version:
                # without !vig the API answers its latest version even when it starts after today
                # (reale-abrogato-tuir-51.json): keep it, then ask for the text in force today
                future = art
                await _store_api_article(app, ref, key, art)
                art = await api.fetch_article(app.http, app.settings, ref, key, today)
                if art.not_yet_in_force:
                    raise _not_yet(ref, key, art, day)
            stored, eli = await _store_api_article(app, ref, key, art)
            api_notes = [n for n in art.notes if not n.startswith("this version starts on")]
            if future is not None:
                api_notes.append(f"Normattiva also has a later version starting on {future.in_force_from} "
                                 f"({'repealed' if future.repealed else 'amended'} from then); this is the text in force today")
            fetched = (stored, api_notes, eli)
        except NotFound as exc:
            if exc.details.get("not_yet_in_force"):
                raise
            if api_not_found_is_final(exc, key) and not cands and future is None:
                raise
            api_error = exc  # confirm with the portal's export of the whole act
        except UNREACHABLE as exc:
            api_error = exc
        except InvalidArg as exc:  # e.g. the API cannot take this reference form: use the portal
            api_error = exc
    return fetched, api_error, future


def _neither_channel(exc: ItEliError, key: str, at: str | None, api_error: ItEliError | None,
                     future: api.ApiArticle | None, evidence: bool) -> ItEliError:
    """The error when neither the API nor the portal gave the text and nothing is cached: the API's
    'no such act' when the portal cannot load the act either and nothing local says it exists,
    else upstream_unavailable with both answers."""
    if isinstance(api_error, NotFound) and "coordinates" not in api_error.details and not evidence \
            and isinstance(exc, NotAvailable):
        return api_error  # the API said 'no such act' and the portal cannot load it either
    details = {"portal_error": f"{exc.code}: {exc.message[:300]}"}
    if api_error is not None:
        details["api_error"] = f"{api_error.code}: {api_error.message[:300]}"
    if future is not None:
        details["later_version_from"] = future.in_force_from
    return unavailable(
        f"Normattiva did not give the text of art. {key} in force {'on ' + at if at else 'today'}"
        + (f" (the OpenData API answered only its version starting on {future.in_force_from}, after today)"
           if future is not None else "")
        + f": OpenData API {api_error.code if api_error is not None else 'not asked'}, portal {exc.code}"
        + ("; the local index holds this act, so this is no evidence about the article" if evidence else ""),
        None, **details,
    )


async def _missing_from_version(app, version: ActVersion, key: str, at: str | None, day: str, today: str,
                                served_from: str, stale: bool) -> ItEliError:
    """The error for an article the act's version lacks: NotFound when that proves it absent on
    the day, else upstream_unavailable naming what the cached copies cannot settle."""
    store: StatuteStore = app.statutes
    cands = [c for c in await asyncio.to_thread(store.article_candidates, version.urn, key) if not is_placeholder(c.text)]
    if not stale:
        why = "complete export from Normattiva" if served_from == "normattiva_portal" else f"cached complete text of {version.version}"
        return await _not_found_in(app, version.urn, key, version, cands, at, why)
    versions = await asyncio.to_thread(store.versions, version.urn)
    proof = await asyncio.to_thread(_proven_absent, store, version.urn, key, cands, versions, day, today, at is None)
    if proof is not None:
        return await _not_found_in(app, version.urn, key, proof, cands, at, f"cached complete texts from {proof.version}")
    hint = await asyncio.to_thread(_range_hint, store, version.urn, key, version.version)
    has_it = sorted({c.version for c in cands})
    if at is None:
        why = (f"whether art. {key} of {version.title or version.urn} exists today: the newest cached version "
               f"({version.version}) lacks it, but it is not known to be today's text (past its freshness window, "
               f"IT_ELI_STATUTE_TTL_DAYS)")
    else:
        why = (f"whether art. {key} of {version.title or version.urn} existed on {at}: the cached version of "
               f"{version.version} lacks it" + (f", the cached version(s) of {', '.join(has_it)} have it" if has_it else "")
               + ", and a version in between may differ")
    return unavailable(f"Normattiva could not be reached, and the cached copies cannot settle {why}", None,
                       range_hint=hint, cached_version=version.version)


async def _original_article(app, target: Target, key: str) -> ServedArticle:
    """The original text of one article: a cached original (ORIGINAL export or an earlier
    `@originale` answer), else the OpenData API's `@originale` (urn_versione_originale.json)."""
    store: StatuteStore = app.statutes
    notes = list(target.notes)
    cands = await asyncio.to_thread(store.article_candidates, target.urn, key) if target.urn else []
    orig = [c for c in cands if c.original and not is_placeholder(c.text)]
    if orig:
        return _served(orig[0], at_date=None, served_from="local_index", stale=False, notes=notes, original=True)
    versions = await asyncio.to_thread(store.versions, target.urn) if target.urn else []
    orig_v = next((v for v in versions if v.version == ORIGINAL), None)
    if orig_v is not None:
        raise await _not_found_in(app, target.urn, key, orig_v, [], None, "the cached ORIGINAL export of the act")
    ref = _api_ref(target)
    error: ItEliError | None = None
    if ref is None and isinstance(target.ref, urnmod.Eli):
        # an ELI of an act not cached: its act page (and export) gives the URN the API needs
        try:
            consolidated = msgspec.structs.replace(target.ref, kind="CONSOLIDATED", version_date=None)
            version, _, _, _ = await act_version(app, Target(urn=None, ref=consolidated), None)
            ref = urnmod.parse_urn(version.urn)
            target = msgspec.structs.replace(target, urn=version.urn)
        except (*UNREACHABLE, NotFound) as exc:
            error = exc
    if ref is not None:
        try:
            art = await api.fetch_article(app.http, app.settings, ref, key, original=True)
            if not art.not_yet_in_force:
                stored, eli = await _store_api_article(app, ref, key, art, original=True)
                return _served(stored, at_date=None, served_from="normattiva_api", stale=False,
                                       notes=notes + list(art.notes), eli=eli, original=True)
            error = NotAvailable("the OpenData API answered its 'not yet in force' placeholder for the original text")
        except NotFound as exc:
            if api_not_found_is_final(exc, key):
                raise NotFound(f"art. {key}: the OpenData API says it is not in this act ({exc.message})",
                               valid=exc.valid, coordinates=exc.details.get("coordinates")) from None
            error = exc
        except (*UNREACHABLE, InvalidArg) as exc:
            error = exc
    msg = "the original text of this article is not available"
    if error is not None:
        msg += f": the OpenData API answered {error.code} ({error.message[:160]})"
    elif ref is None:
        msg += ": the act's full URN is not known locally (the OpenData API needs it)"
    if isinstance(error, (UpstreamUnavailable, UpstreamChanged)):
        raise unavailable(msg, error) from None
    raise NotAvailable(msg, valid="retry later; or ask for the consolidated text (without @originale) or for at_date "
                       "= the act's first day in force; or import the act's ORIGINAL Akoma Ntoso export")

