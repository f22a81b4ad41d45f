"""The statute checks of verification: resolve the cited act, choose the version in force on the
date asked, and judge the article (its comma, lettera, numero and description) from the local index
or, online, from Normattiva; "does not exist" only on authoritative evidence."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

import msgspec
from cachetools import TTLCache

from it_eli.law import codes as codesmod
from it_eli.law import urn as urnmod
from it_eli.law.grammar import article_range_hint, canon_key, nearest_articles
from it_eli.law.provision_status import comma_status, in_effect, item_status, status_notes, whole_status
from it_eli.law.provision_status import describe as describe_event
from it_eli.law.scanner import Citation, extract_citations
from it_eli.runtime import clock
from it_eli.runtime.errors import IdentityMismatch, InvalidArg, ItEliError, NotFound
from it_eli.search.analysis import Analyzer
from it_eli.search.query import HitWindow
from it_eli.search.statutes import ORIGINAL, ActVersion, StatuteStore

from .antonyms import antonym_clash
from .article_parts import check_items, comma_in_text
from .content import (
    CONTENT_THRESHOLD,
    Text,
    content_score,
    description_fit,
    generic_stems,
    names_the_act,
    score_of,
    word_units,
)
from .reading import MAX_LIVE_LOOKUPS
from .report import CEDU_FALLBACK, EU_FALLBACK, FALLBACKS, REGIONAL_FALLBACK, Outcome

VERSIONS_CACHE_SECONDS = 60.0
VERSIONS_CACHE_ENTRIES = 1024  # acts whose version listings are kept (the biggest corpus has a few hundred)


def _parse_ts(ts: str) -> dt.datetime:
    try:
        when = dt.datetime.fromisoformat(ts)
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def _eff_date(v: ActVersion) -> str:
    """When a version starts to apply: its in-force date; the original applies from the act's date."""
    return v.in_force_date or v.date or "0000-00-00"


COST_URN = "urn:nir:stato:costituzione"
_TRANSITIONAL_KEY = re.compile(r"^disp-trans-\d{1,2}$")


class _Resolved(msgspec.Struct, kw_only=True):
    urn: str | None  # full act URN when known (cached or by coordinates)
    ref: object | None  # urnmod.Urn for live fetching
    label: str


class StatuteChecks:
    """The statute side of a Verifier (mixed into it; the Verifier holds the state below)."""

    app: object
    at: str | None
    offline: bool
    store: StatuteStore
    live_used: int
    an: Analyzer
    _versions: TTLCache
    _memo: dict[tuple, Outcome]

    async def versions(self, urn: str) -> list[ActVersion]:
        """Cached versions with their keys; kept VERSIONS_CACHE_SECONDS so a server sees later imports."""
        hit = self._versions.get(urn)
        if hit is not None:
            return hit
        got = await asyncio.to_thread(self.store.versions, urn, with_keys=True)
        got = [msgspec.structs.replace(v, keys=[canon_key(k) for k in v.keys]) for v in got]
        self._versions[urn] = got
        return got

    async def resolve_act(self, c: Citation) -> _Resolved | Outcome:
        act = c.act
        if act is None:
            why = "a back-reference with no earlier act" if c.via_backreference else "no act is named next to the article"
            return Outcome(status="act_unresolvable", detail=f"{why}: the article cannot be tied to an act")
        if act.act_type.startswith("ue."):
            return Outcome(status="out_of_corpus", gap_note=EU_FALLBACK,
                           detail=f"{act.raw}: an EU act, outside the Italian corpus it_eli checks (Normattiva)")
        if act.act_type == "internazionale":
            return Outcome(status="out_of_corpus", gap_note=CEDU_FALLBACK if act.code == "cedu" else FALLBACKS["out_of_corpus"],
                           detail=f"{act.raw}: an international convention, outside the Italian corpus it_eli checks")
        if act.act_type == "costituzione" or act.code == "cost":
            return _Resolved(urn=COST_URN, ref=urnmod.parse_urn(COST_URN), label="Cost.")
        act_type, number, year, date = act.act_type, act.number, act.year, act.date
        if act.act_type == "codice":
            code = codesmod.CODES_BY_ID.get(act.code or "")
            if code is None or not code.urn:
                return Outcome(status="act_unresolvable",
                               detail=f"{act.raw}: not a code it_eli knows (not the plain code its name contains)")
            if code.annex_of:
                return Outcome(
                    status="act_unresolvable", urn=code.api_urn,
                    detail=f"{act.raw}: an annex filed under the same act as the "
                    f"{codesmod.CODES_BY_ID[code.annex_of].name.lower()} ({code.urn}), so its articles cannot be told "
                    "apart from the code's in the index",
                )
            return _Resolved(urn=code.urn, ref=urnmod.parse_urn(code.urn), label=code.abbreviation)
        if act_type in ("legge.regionale", "legge.provinciale"):
            return Outcome(status="out_of_corpus", gap_note=REGIONAL_FALLBACK,
                           detail=f"{act.raw}: regional and provincial laws are outside the national corpus it_eli checks")
        if number and "/" in number and not year:
            return Outcome(status="act_unresolvable", detail=f"{act.raw}: the number {number} is read as written; "
                           "which of its parts is the year is the issuer's own convention, not read here")
        if not number or not year:
            return Outcome(status="act_unresolvable", detail=f"{act.raw}: the act has no number and year to identify it")
        try:
            res = urnmod.resolve(act_type, year, number, date)
        except InvalidArg as exc:
            return Outcome(status="act_unresolvable", detail=f"{act.raw}: {exc.message}")
        parsed = urnmod.parse_urn(res.act_urn)
        if not parsed.partial:
            full = res.act_urn
            if not await self.versions(full):
                other = await asyncio.to_thread(self.store.find_full_urn, msgspec.structs.replace(parsed, date=None))
                if other and other != full:
                    return Outcome(
                        status="act_unresolvable", urn=None,
                        detail=f"{act.raw}: no act with this date; the index holds {other} (same type, number and "
                        "year, another date) — check the citation before relying on either",
                    )
            return _Resolved(urn=full, ref=parsed, label=res.human_readable_citation)
        full = await asyncio.to_thread(self.store.find_full_urn, parsed)
        return _Resolved(urn=full, ref=urnmod.parse_urn(full) if full else parsed, label=res.human_readable_citation)

    async def check_conversion(self, c: Citation) -> Outcome | None:
        """'d.l. ..., conv. dalla l. ...': the conversion law against the one the decree's own export
        names in its preface note (or its lapse); None when no local copy says (the law is then
        checked as any act)."""
        decree = await self.resolve_act(Citation(raw=c.converts.raw, start=c.start, end=c.end, kind="statute",
                                                 act=c.converts))
        if isinstance(decree, Outcome) or not decree.urn:
            return None
        said = next((v for v in await self.versions(decree.urn) if v.converted_by or v.lapsed), None)
        if said is None:
            return None
        cited, law = c.act, f"{decree.label}"
        if said.lapsed and not said.converted_by:
            return Outcome(status="content_mismatch", urn=cited.urn, served_from="local_index",
                           source_url=said.source_url,
                           detail=f"{law} was not converted into law (its export says 'decaduto per mancata "
                                   f"conversione'): {cited.raw} cannot be its conversion law")
        named = next((x.act for x in extract_citations(said.converted_by) if x.act is not None), None)
        if named is None:
            return None
        same = (named.number == cited.number and named.year == cited.year
                and (cited.date is None or named.date is None or named.date == cited.date))
        if same:
            return Outcome(status="verified", urn=named.urn or cited.urn, served_from="local_index",
                           source_url=said.source_url,
                           detail=f"{cited.raw}: the law that converted {law}, as its export says "
                                   f"('convertito ... dalla {said.converted_by}')")
        return Outcome(status="content_mismatch", urn=cited.urn, served_from="local_index", source_url=said.source_url,
                       detail=f"{law} was converted by {said.converted_by} (its export says so), not by {cited.raw}")

    def _choose(self, versions: list[ActVersion], key: str | None, *, fetched_since: dt.datetime | None = None):
        """(version, verdict) with verdict 'present' | 'absent' (authoritative) | 'unknown'.

        'absent' needs a complete copy that is the act's text on the date asked: the newest
        version while fresh (no at_date), the version starting exactly on at_date, a version
        Normattiva has just sent for that date (`fetched_since`), or the versions on both sides
        of at_date both lacking the key. A stale copy, or one that may predate an amendment, is
        never proof."""
        if not versions:
            return None, "unknown"

        def just_fetched(v: ActVersion) -> bool:
            return fetched_since is not None and _parse_ts(v.fetched_at) >= fetched_since

        if self.at is None:
            v = versions[0]
            if key is None or key in v.keys:
                return v, "present"
            return v, ("absent" if self.store.is_fresh(v.fetched_at) or just_fetched(v) else "unknown")
        eligible = sorted((v for v in versions if _eff_date(v) <= self.at), key=_eff_date, reverse=True)
        if not eligible:
            return None, "unknown"
        v = eligible[0]
        if key is None or key in v.keys:
            return v, "present"
        if v.in_force_date == self.at or just_fetched(v):
            return v, "absent"
        newer = sorted((w for w in versions if _eff_date(w) > _eff_date(v)), key=_eff_date)
        if not newer:
            return v, ("absent" if self.store.is_fresh(v.fetched_at) else "unknown")
        # absent in the version in force on at_date and in the next one: never there in between
        # (exports keep repealed articles as "ARTICOLO ABROGATO")
        return v, ("absent" if key not in newer[0].keys else "unknown")

    async def check_statute(self, c: Citation) -> Outcome:
        if c.converts is not None:
            judged = await self.check_conversion(c)
            if judged is not None:
                return judged
        r = await self.resolve_act(c)
        if isinstance(r, Outcome):
            return r
        key = None
        if c.article is not None:
            try:
                key = canon_key(c.article)
            except Exception:
                return Outcome(status="unparseable_citation", detail=f"cannot read the article number {c.article!r}")
            # the Costituzione's transitional provisions are its articles too ('XII disp. trans. fin. Cost.')
            if not re.match(r"^\d", key) and not (r.urn == COST_URN and _TRANSITIONAL_KEY.match(key)):
                return Outcome(status="unparseable_citation", detail=f"cannot read the article number {c.article!r}")
        memo = (r.urn or str(r.ref), key, c.comma, c.lettera, c.numero, c.description)
        if memo in self._memo:
            return self._memo[memo]
        out = await self._check_statute(c, r, key)
        if key is not None and (out.status == "content_unconfirmed" or out.text_only_fit):
            out = await self._description_elsewhere(c, out, key)
        if out.status in ("verified", "comma_not_checkable", "lettera_not_checkable", "act_not_in_corpus",
                          "upstream_unavailable"):
            out = await self._repealed_act(c, r, key) or out
        self._memo[memo] = out
        return out

    async def _check_statute(self, c: Citation, r: _Resolved, key: str | None) -> Outcome:
        versions = await self.versions(r.urn) if r.urn else []
        not_yet = await self._not_yet_in_force(r, key)
        if not_yet is not None:
            return not_yet
        v, verdict = self._choose(versions, key)
        if verdict == "present" and v is not None:
            if key is None:
                return Outcome(status="verified", urn=r.urn, detail=f"{r.label}: the act is in the local index",
                               checked_version=v.version, served_from="local_index", source_url=v.source_url)
            out = await self._judge_cached(c, r, key, v)
            if out is not None:
                return out
        if verdict == "absent" and v is not None:
            return self._absent(r, key, v, "local_index", "complete copy in the local index")
        # the local index cannot answer
        if self.offline:
            if not versions:
                return Outcome(status="act_not_in_corpus", urn=r.urn,
                               detail=f"{r.label} is not in the local statute index and offline=true: not checked")
            return Outcome(status="upstream_unavailable", urn=r.urn,
                           detail=f"{r.label}: the cached copy cannot settle art. {key}"
                           + (f" on {self.at}" if self.at else " (older than the freshness window)")
                           + " and offline=true: not checked")
        return await self._live_statute(c, r, key, bool(versions))

    async def _not_yet_in_force(self, r: _Resolved, key: str | None) -> Outcome | None:
        """Asked of the legislation service, as it_get_text asks it: the cached exports record that
        the article came in after the date asked (added by the conversion law)."""
        from ..legislation.articles import recorded_not_yet
        from ..legislation.targets import Target, check_not_before_act

        day = self.at or clock.today_iso()
        try:
            check_not_before_act(Target(urn=r.urn, ref=r.ref), self.at)
        except NotFound as exc:
            return Outcome(status="not_found", urn=r.urn, detail=exc.message)
        err = await asyncio.to_thread(recorded_not_yet, self.store, r.urn, key, day) if r.urn and key else None
        if err is None:
            return None
        return Outcome(status="not_found", urn=r.urn, served_from="local_index", detail=err.message)

    async def _repealed_act(self, c: Citation, r: _Resolved, key: str | None) -> Outcome | None:
        """A held act repeals the cited act as a whole, with effect on the date asked: not law in force,
        whether or not the repealed act itself is held."""
        from ..currency import repealed_as_a_whole

        act = c.act
        if act is None or not act.number or not act.year or act.act_type in ("codice", "costituzione"):
            return None
        e = await asyncio.to_thread(repealed_as_a_whole, self.store, act.act_type, act.year, act.number)
        if e is None or in_effect(e, self.at) is False:
            return None
        where = f"art. {key} {r.label}" if key else r.label
        return Outcome(status="repealed", urn=r.urn, served_from="local_index",
                       detail=f"{where}: the act is not law in force: {status_notes([e], self.at)[0]} "
                       f"('{e.detail}'): flagged for review, not a hallucination")

    async def _judge_cached(self, c: Citation, r: _Resolved, key: str, v: ActVersion, extra: str = "") -> Outcome | None:
        """Judge an article listed in a cached version, from its stored text."""
        a = await asyncio.to_thread(self.store.get_article, v.urn, key, v.version)
        if a is None:  # key present in the listing: read any cached text of it
            cands = await asyncio.to_thread(self.store.article_candidates, v.urn, key)
            a = cands[0] if cands else None
        if a is None:
            return None
        stale = "" if self.store.is_fresh(v.fetched_at) else " (cached copy past its freshness window)"
        r2 = r if r.urn == v.urn else _Resolved(urn=v.urn, ref=r.ref, label=r.label)
        return self._judge_article(c, r2, key, heading=a.heading, text=a.text, commi=[x.num for x in a.commi],
                                   repealed=a.repealed, version=v.version, served="local_index",
                                   source_url=a.source_url, extra=extra or stale, act_title=a.act_title or v.title,
                                   lifecycle=a.lifecycle)

    def _absent(self, r: _Resolved, key: str, v: ActVersion, served: str, why: str) -> Outcome:
        from ..legislation.articles import first_text_after

        hint, near = article_range_hint(v.keys, key)
        day = self.at or clock.today_iso()
        first = first_text_after(self.store.article_candidates(v.urn, key), day)
        if first is not None:  # as it_get_text says it: a text of it starts later
            return Outcome(status="not_found", urn=v.urn, range_hint=hint, checked_version=v.version,
                           served_from=served, source_url=v.source_url,
                           detail=f"art. {key} {r.label} was not yet in force on {day} (version {v.version}, {why}; "
                           f"the first cached text of it is in force from {first})")
        return Outcome(status="not_found", urn=v.urn, range_hint=hint, nearest=near, checked_version=v.version,
                       served_from=served, source_url=v.source_url,
                       detail=f"art. {key} does not exist in {r.label} (version {v.version}, {why})")

    def _judge_article(self, c, r, key, *, heading, text, commi, repealed, version, served, source_url, extra="",
                       act_title=None, lifecycle=()) -> Outcome:
        """Order of verdicts: repealed or struck down (the article, or the comma / lettera cited);
        a missing comma, lettera or numero (not_found); a description that does not fit (review);
        a comma/lettera that could not be checked (gap); verified."""
        base = dict(urn=r.urn, checked_version=version, served_from=served, source_url=source_url)
        where = f"art. {key} {r.label}"
        out_of_force = self._out_of_force(c, commi, list(lifecycle or ()))
        if out_of_force is not None:
            st, ev, part = out_of_force
            status = "declared_unconstitutional" if st == "declared_unconstitutional" else "repealed"
            return Outcome(status=status, detail=f"{where}{' ' + part if part else ''} exists in the export but is not "
                           f"law in force: {describe_event(ev)}: flagged for review, not a hallucination" + extra, **base)
        if repealed:
            return Outcome(status="repealed", detail=f"{where} exists but is repealed (abrogato) in the version of {version}: "
                           "flagged for review, not a hallucination" + extra, **base)
        confirmed: list[str] = []
        gap: tuple[str, str] | None = None
        if c.comma:
            wanted = [x for x in c.comma.split(",") if x]
            if not commi:
                gap = ("comma_not_checkable", f"its commi are not marked in the export, so comma {c.comma} was not checked")
            else:
                have = [canon_key(x) for x in commi]
                missing = [w for w in wanted if w != "ultimo" and canon_key(w) not in have and not comma_in_text(text, w)]
                if missing:
                    near = nearest_articles(have, canon_key(missing[0]))
                    return Outcome(status="not_found",
                                   detail=f"{where} exists but has no comma {', '.join(missing)}" + extra,
                                   range_hint=f"art. {key} has {len(have)} commi, numbered from {have[0]} to {have[-1]}"
                                   + (f"; nearest existing: {', '.join(near)}" if near else ""), nearest=near, **base)
                confirmed.append(f"comma {c.comma}")
        items = check_items(text, c.comma, c.lettera, c.numero)
        if items is not None:
            verdict, what = items
            if verdict == "absent":
                return Outcome(status="not_found", detail=f"{where} exists, but {what}" + extra, **base)
            if verdict == "unknown" and gap is None:
                gap = ("lettera_not_checkable", what)
            elif verdict == "ok" and what:
                confirmed.append(what)
        score, text_only = None, False
        if c.description:
            review, score, text_only = self._judge_description(c, where, heading=heading, text=text,
                                                               act_title=act_title, extra=extra, base=base,
                                                               confirmed=confirmed)
            if review is not None:
                return review
        done = ("; " + ", ".join(confirmed)) if confirmed else ""
        recheck = score is not None and text_only
        if gap is not None:
            return Outcome(status=gap[0], content_score=score, detail=f"{where} exists{done}; but {gap[1]}" + extra,
                           text_only_fit=recheck, **base)
        return Outcome(status="verified", content_score=score, detail=f"{where} exists{done}" + extra,
                       text_only_fit=recheck, **base)

    def _out_of_force(self, c, commi, lifecycle: list) -> tuple | None:
        """(status, event, part) when the article, or the comma / lettera / numero cited, is not law in
        force on the date asked (repealed, struck down, lapsed); None when it is."""
        out_of_force = whole_status(lifecycle, self.at, list(commi or []))
        if out_of_force is None and c.comma and commi:
            for w in (x for x in c.comma.split(",") if x):
                num = commi[-1] if w == "ultimo" else w
                st, evs = comma_status(lifecycle, canon_key(num), canon_key(commi[-1]), self.at)
                if st in ("repealed", "declared_unconstitutional", "lapsed"):
                    out_of_force = (st, evs[0], f"comma {w}")
                    break
        if out_of_force is None and c.lettera:
            out_of_force = item_status(lifecycle, c.comma, c.lettera, self.at)
        if out_of_force is None and c.numero:
            for n in (x for x in c.numero.split(",") if x):
                out_of_force = item_status(lifecycle, c.comma, n, self.at)
                if out_of_force is not None:
                    break
        return out_of_force

    def _judge_description(self, c, where, *, heading, text, act_title, extra, base,
                           confirmed: list[str]) -> tuple[Outcome | None, float | None, bool]:
        """The cited description against the article: (an outcome to review, or None; its score;
        whether it fits the text but not a word of the rubrica). What fits is added to `confirmed`."""
        score, text_only = None, False
        if names_the_act(self.an, c.description, act_title):
            confirmed.append(f"the description ({c.description}) names the act, not the article: not compared")
        else:
            fit = description_fit(self.an, c.description, heading, text)
            score = score_of(fit, heading)
            text_only = bool(heading) and fit is not None and fit[0] == 0.0
            clash = antonym_clash(self.an, c.description, heading) if score is not None else None
            if clash is not None:
                # not a mismatch yet: check_statute looks for the article the description does fit
                return Outcome(status="content_unconfirmed", content_score=0.0,
                               antonym=f"{clash[0]} / {clash[1]}",
                               detail=f"{where} exists, but the description ({c.description}) says "
                               f"'{clash[0]}' where its rubrica says '{clash[1]}': the opposite meaning: review"
                               + extra, **base), score, text_only
            if score is not None and score < CONTENT_THRESHOLD:
                # not a mismatch yet: check_statute looks for the article the description does fit
                return Outcome(status="content_unconfirmed", content_score=score,
                               detail=f"{where} exists, but the description ({c.description}) does not match its "
                               f"rubrica/text (overlap {score:.2f}): review" + extra, **base), score, text_only
            if score is not None:
                confirmed.append(f"the description fits (overlap {score:.2f})")
        return None, score, text_only

    async def _description_elsewhere(self, c: Citation, o: Outcome, key: str) -> Outcome:
        """A description that does not match the cited article is called a mismatch only when it
        fits ANOTHER article of the same act better (art. 575 c.p. (furto) -> art. 624 'Furto';
        art. 3 Cost. (sciopero) -> art. 40). A doctrinal name the text does not use (a principle,
        a nickname) fits no article: it stays 'content_unconfirmed', to review, not a mismatch.
        A description found only in the cited article's text (not its rubrica) is a mismatch only
        when another article's rubrica says exactly that ('reati societari': art. 25-ter)."""
        if not o.urn or not c.description:
            return o
        strict = o.status != "content_unconfirmed"
        try:
            res = await asyncio.to_thread(self.store.search, c.description, urn=o.urn, window=HitWindow(size=5))
        except ItEliError:
            return o
        best = None
        for h in res.hits:
            other = canon_key(h.article)
            if other == key or h.repealed or antonym_clash(self.an, c.description, h.heading):
                continue
            if strict:
                # the other rubrica must BE the description: all its words in the rubrica, and the
                # rubrica's words (most of them) in the description
                fit = description_fit(self.an, c.description, h.heading, "")
                score = fit[0] if fit and h.heading else 0.0
                back = list(word_units(self.an, h.heading or "", generic_stems(self.an)).values())
                if score < 1.0 or not back or Text(self.an, c.description).share(back) < 0.75:
                    continue
            else:
                cands = await asyncio.to_thread(self.store.article_candidates, o.urn, other)
                text = cands[0].text if cands else h.snippet
                score = content_score(self.an, c.description, h.heading, text) or 0.0
                if score < CONTENT_THRESHOLD or score <= (o.content_score or 0):
                    continue
            if best is None or score > best[0]:
                best = (score, other, h.heading)
        if best is None:
            if o.antonym:
                return msgspec.structs.replace(o, status="content_mismatch", detail=o.detail.removesuffix(": review")
                                               + "; no other article of the act has that rubrica: review")
            if strict:
                return o
            return msgspec.structs.replace(o, detail=o.detail.removesuffix(": review") + "; no other article of the act "
                                           "fits it either, so it is not called a mismatch (a doctrinal name the text "
                                           "does not use?): review")
        score, other, heading = best
        what = f"art. {other}" + (f" ({heading})" if heading else "")
        head = (o.detail.removesuffix(": review") if not strict else
                f"art. {key} exists, but the description ({c.description}) is not its rubrica")
        return msgspec.structs.replace(
            o, status="content_mismatch", range_hint=f"the description fits {what}", text_only_fit=False,
            detail=f"{head}; it fits {what} of the same act (overlap {score:.2f}): review")

    async def _live_statute(self, c: Citation, r: _Resolved, key: str | None, had_cache: bool) -> Outcome:
        """Online: the legislation tools' channels (OpenData API, portal export with the identity
        check). 'Does not exist' only on positive evidence: the API's own 'act exists, article
        does not', or a complete export Normattiva has just sent (for at_date) that lacks the key.
        Anything else — an upstream down, a stale cached copy served in its place, the API's
        ambiguous 'act not found' with the portal unreachable — is upstream_unavailable."""
        from ..legislation import UNREACHABLE, Target, act_version, api_not_found_is_final, served_article

        if self.live_used >= MAX_LIVE_LOOKUPS:
            return Outcome(status="upstream_unavailable", urn=r.urn,
                           detail=f"{r.label}: live lookup budget of this call ({MAX_LIVE_LOOKUPS}) used up: not checked")
        self.live_used += 1
        self._versions.pop(r.urn or "", None)
        target = Target(urn=r.urn, ref=r.ref)
        since = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        try:
            if key is None:
                version, served, stale, _ = await act_version(self.app, target, self.at)
                self._versions.pop(version.urn, None)
                return Outcome(status="verified", urn=version.urn, checked_version=version.version, served_from=served,
                               source_url=version.source_url, detail=f"{r.label}: the act exists (Normattiva)"
                               + (" — stale cached copy" if stale else ""))
            try:
                served = await served_article(self.app, target, key, self.at)
            except NotFound as exc:
                if "portal" in exc.details and "range_hint" not in exc.details:
                    raise  # Normattiva confirmed the ACT does not exist: act_unresolvable below
                if exc.details.get("not_yet_in_force"):  # Normattiva's own answer: no text in force that day
                    return Outcome(status="not_found", urn=r.urn, served_from="normattiva_api",
                                   detail=f"art. {key} {r.label} is not in force on {self.at or 'today'} "
                                   f"(Normattiva: {exc.message[:200]})")
                return await self._settle_after_live(c, r, key, since, exc, api_final=api_not_found_is_final(exc, key))
            a = served.article
            r2 = _Resolved(urn=a.urn, ref=r.ref, label=r.label)
            return self._judge_article(c, r2, key, heading=a.heading, text=a.text, commi=[x.num for x in a.commi],
                                       repealed=a.repealed, version=a.in_force_date or ORIGINAL,
                                       served=served.served_from, source_url=a.source_url,
                                       extra=" (stale cached copy)" if served.stale else "", lifecycle=a.lifecycle)
        except IdentityMismatch as exc:
            return Outcome(status="act_unresolvable", urn=None,
                           detail=f"{r.label}: Normattiva answered with another act ({exc.message}); the citation's "
                           "coordinates are probably wrong")
        except NotFound as exc:
            return Outcome(status="act_unresolvable", urn=r.urn,
                           detail=f"{r.label}: Normattiva could not find the act ({exc.message}); check type, number and date")
        except UNREACHABLE as exc:
            what = "not in the local index" if not had_cache else "the cached copy cannot settle it"
            return Outcome(status="upstream_unavailable", urn=r.urn, detail=f"{r.label}: {what}, and Normattiva could not be reached ({exc.code})")
        except InvalidArg as exc:
            return Outcome(status="act_unresolvable", urn=r.urn, detail=f"{r.label}: {exc.message}")
        except ItEliError as exc:
            return Outcome(status="upstream_unavailable", urn=r.urn, detail=f"{r.label}: {exc.code}: {exc.message}")

    async def _settle_after_live(self, c: Citation, r: _Resolved, key: str, since: dt.datetime, exc: NotFound,
                                 *, api_final: bool) -> Outcome:
        """The legislation channel said 'not found'. Decide from evidence, not from the exception:
        what the local index holds now (a version Normattiva just sent counts for at_date)."""
        urn = r.urn
        if urn is None and isinstance(r.ref, urnmod.Urn) and r.ref.partial:
            urn = await asyncio.to_thread(self.store.find_full_urn, r.ref)
        versions: list[ActVersion] = []
        if urn:
            self._versions.pop(urn, None)
            versions = await self.versions(urn)
        v, verdict = self._choose(versions, key, fetched_since=since)
        if verdict == "absent" and v is not None:
            fresh = _parse_ts(v.fetched_at) >= since
            return self._absent(r, key, v, "normattiva_portal" if fresh else "local_index",
                                "complete export just received from Normattiva" if fresh else "complete copy in the local index")
        if verdict == "present" and v is not None:
            out = await self._judge_cached(c, r, key, v)
            if out is not None:
                return out
        if api_final:
            # the OpenData API's own answer: the act exists, this (plain numeric) article does not
            hint, near = (article_range_hint(versions[0].keys, key) if versions else (exc.details.get("hint") or None, []))
            return Outcome(status="not_found", urn=urn, range_hint=hint, nearest=near, served_from="normattiva_api",
                           detail=f"art. {key} does not exist in {r.label} (Normattiva OpenData API: the act exists, "
                           "the article does not)")
        held = f"the cached copy ({v.version}) lacks it but is not the authoritative text" if v is not None else (
            "no copy of the act is cached")
        return Outcome(status="upstream_unavailable", urn=urn,
                       detail=f"{r.label}: art. {key} could not be checked"
                       + (f" on {self.at}" if self.at else "")
                       + f": Normattiva could not be reached, or its answer was not conclusive; {held}")

    async def group_description(self, c: Citation, o: Outcome, group: list[Citation]) -> Outcome:
        """'artt. 575 e 577 c.p. (omicidio)': the description is the group's, so judge it on all its articles."""
        others = [g for g in group if g is not c and g.act is c.act]
        if not others or o.urn is None:
            return o
        heading, text = [], []
        for g in [c, *others]:
            for a in (await asyncio.to_thread(self.store.article_candidates, o.urn, canon_key(g.article)))[:1]:
                heading.append(a.heading or "")
                text.append(a.text[:20_000])
        score = content_score(self.an, c.description or "", " ".join(heading), " ".join(text))
        if score is None or score < CONTENT_THRESHOLD:
            return o
        return msgspec.structs.replace(o, status="verified", content_score=score, range_hint=None,
                                       detail=f"art. {canon_key(c.article)} exists; the description fits the group "
                                       f"{c.raw!r} (overlap {score:.2f})")
