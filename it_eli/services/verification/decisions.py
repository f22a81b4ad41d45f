"""The decision checks of verification: Constitutional Court decisions against the local index
(authoritative only for a complete year), Cassazione and administrative decisions live
(SentenzeWeb, the GA portal), where an absence is a gap, never "does not exist"."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from it_eli.law.claims import (
    NEGATED,
    OUTCOME_NAMES,
    DecisionClaim,
    outcome_fits,
    read_outcomes,
)
from it_eli.law.grammar import canon_key
from it_eli.law.scanner import COURT_NAMES, Citation, extract_citations
from it_eli.runtime.errors import IndexMissing, ItEliError, NotFound

from .reading import MAX_LIVE_LOOKUPS
from .report import COURT_FALLBACKS, ClaimCheck, Outcome

# Constitutional Court numbering restarts every year; no year ever came near this number
# (the busiest, 1988, stayed below 1,200), so a higher number cannot exist.
COST_MAX_NUMBER = 2000
COST_FIRST_YEAR = 1956


def _ga_number(hit) -> str | None:
    """The decision number of a GA hit. The GA client already splits the portal's number (printed
    with the year in front: '202611314' = n. 11314/2026) into `number` and `year`; cutting a year
    off `number` again would turn n. 20261/2026 into n. 1."""
    m = re.match(r"ECLI:IT:[A-Z]+:\d{4}:0*(\d+)", hit.ecli or "")
    if m:
        return m.group(1)
    return (hit.number or "").strip().lstrip("0") or None


class DecisionChecks:
    """The case-law side of a Verifier (mixed into it; the Verifier holds the state below)."""

    app: object
    offline: bool
    live_used: int

    def _cost_year_complete(self, meta: dict, year: int) -> bool:
        """The index is authoritative for a year only when built from the Court's full download
        (under IT_ELI_HOME/downloads), the year is closed, and its numbers run 1..max without holes."""
        home_dl = str(self.app.settings.home / "downloads")
        sources = meta.get("sources") or []
        if not sources or not all(str(s).startswith(home_dl) for s in sources):
            return False
        built = (meta.get("built_at") or "0000")[:4]
        return year < int(built) if built.isdigit() else False

    async def check_cost(self, c: Citation, year: int | None, number: str | None,
                         claim: DecisionClaim | None = None) -> Outcome:
        if not (year and number and number.isdigit()):
            return Outcome(status="unparseable_citation", detail="a Constitutional Court citation needs number and year")
        n = int(number)
        this_year = dt.date.today().year
        ecli = f"ECLI:IT:COST:{year}:{n}"
        if year < COST_FIRST_YEAR or year > this_year or n < 1 or n > COST_MAX_NUMBER:
            return Outcome(status="not_found", detail=f"Corte cost. n. {n}/{year} cannot exist: the Court decides from "
                           f"{COST_FIRST_YEAR}, numbering restarts each year and never reached {COST_MAX_NUMBER}")
        try:
            d = await asyncio.to_thread(self.app.decisions.get_decision, anno=year, numero=n)
        except IndexMissing:
            return Outcome(status="out_of_corpus", detail="the Constitutional Court index is not built: not checked",
                           gap_note="build it with `it-eli index build`")
        except NotFound:
            meta = await asyncio.to_thread(self.app.decisions.index_meta)
            nums = await asyncio.to_thread(self.app.decisions.year_numbers, year)
            contiguous = bool(nums) and nums == list(range(1, nums[-1] + 1))
            if self._cost_year_complete(meta, year) and contiguous:
                return Outcome(status="not_found", served_from="cortecost_index",
                               range_hint=f"the Court's decisions of {year} are numbered 1 to {nums[-1]}",
                               detail=f"no Constitutional Court decision n. {n}/{year}: the index holds the whole year")
            yr = meta.get("year_range")
            return Outcome(status="out_of_corpus",
                           detail=f"Corte cost. n. {n}/{year} is not in the local index, which holds "
                           f"{meta.get('count', '?')} decisions ({yr[0]}-{yr[1]} partially)" if yr else
                           f"Corte cost. n. {n}/{year} is not in the local index")
        out = Outcome(status="verified", detail=f"{d.citation} exists ({ecli})",
                      served_from="cortecost_index", source_url=d.source_url)
        out.ecli = d.ecli
        _judge_claims(out, d, claim_checks(c, claim, d))
        return out

    async def check_cassazione(self, c: Citation, year: int | None, number: str | None) -> Outcome:
        from ..caselaw_live import it_cassazione_search
        from ..legislation import UNREACHABLE

        if not (year and number and number.isdigit()):
            return Outcome(status="unparseable_citation", detail="a Cassazione citation needs number and year")
        if self.offline:
            return Outcome(status="not_checked_offline", detail="Cassazione decisions are checked live (SentenzeWeb); offline=true: not checked")
        if self.live_used >= MAX_LIVE_LOOKUPS:
            return Outcome(status="upstream_unavailable", detail="live lookup budget of this call used up: not checked")
        self.live_used += 1
        chamber = {"civ": "civile", "pen": "penale"}.get(c.court_branch or "")
        try:
            res = await it_cassazione_search(self.app.http, self.app.settings, query=number, anno=year, chamber=chamber, limit=50)
        except UNREACHABLE as exc:
            return Outcome(status="upstream_unavailable", detail=f"SentenzeWeb could not be reached ({exc.code})")
        except ItEliError as exc:
            return Outcome(status="upstream_unavailable", detail=f"SentenzeWeb: {exc.code}: {exc.message[:160]}")
        for h in res.hits:
            if h.number == int(number) and h.year == year:
                return Outcome(status="verified", detail=f"{h.citation} found on SentenzeWeb", served_from="sentenzeweb",
                               source_url=h.source_url)
        return Outcome(status="out_of_corpus",
                       detail=f"SentenzeWeb returned no decision n. {number}/{year}; it publishes a limited window of "
                       "years and not every decision, so this is not proof that it does not exist")

    async def check_ga(self, c: Citation, year: int | None, number: str | None, ecli: str | None = None) -> Outcome:
        from ..caselaw_live import it_ga_search
        from ..legislation import UNREACHABLE

        if not (year and number and number.isdigit()):
            return Outcome(status="unparseable_citation", detail="an administrative decision needs number and year")
        if self.offline:
            return Outcome(status="not_checked_offline", detail="administrative decisions are checked live (GA portal); offline=true: not checked")
        if self.live_used >= MAX_LIVE_LOOKUPS:
            return Outcome(status="upstream_unavailable", detail="live lookup budget of this call used up: not checked")
        self.live_used += 1
        try:
            res = await it_ga_search(self.app.http, self.app.settings, numero=number, anno=year, limit=60)
        except UNREACHABLE as exc:
            return Outcome(status="upstream_unavailable", detail=f"the GA portal could not be reached ({exc.code})")
        except ItEliError as exc:
            return Outcome(status="upstream_unavailable", detail=f"GA portal: {exc.code}: {exc.message[:160]}")
        for h in res.hits:
            if (ecli and h.ecli == ecli) or (not ecli and _ga_number(h) == number and h.year == year):
                return Outcome(status="verified", detail=f"found on the GA portal ({h.sede or ''} {h.ecli or ''})".strip(),
                               served_from="ga", source_url=h.source_url)
        return Outcome(status="out_of_corpus",
                       detail=f"the GA portal's first page has no decision n. {number}/{year}; it serves only the newest "
                       "results, so this is not proof that it does not exist")

    async def check_case(self, c: Citation, claim: DecisionClaim | None = None) -> Outcome:
        if c.kind == "ecli":
            court = c.court or ""
            if court == "COST":
                return await self.check_cost(c, c.decision_year, c.decision_number, claim)
            if court == "CASS":
                return await self.check_cassazione(c, c.decision_year, c.decision_number)
            if court in ("CDS", "CGARS", "TAR"):
                return await self.check_ga(c, c.decision_year, c.decision_number, ecli=c.ecli)
            return Outcome(status="out_of_corpus", detail=f"ECLI court {court!r}: it_eli checks COST, CASS and the administrative courts")
        if c.court == "COST":
            return await self.check_cost(c, c.decision_year, c.decision_number, claim)
        if c.court == "CASS":
            return await self.check_cassazione(c, c.decision_year, c.decision_number)
        if c.court in ("CDS", "CGARS", "TAR"):
            return await self.check_ga(c, c.decision_year, c.decision_number)
        name = COURT_NAMES.get(c.court or "", c.court or "this court")
        return Outcome(status="out_of_corpus", gap_note=COURT_FALLBACKS.get(c.court or ""),
                       detail=f"a decision of the {name}: it_eli has no source for this court "
                       "(it checks the Corte costituzionale, the Cassazione and the administrative courts), so it was "
                       "not checked")


# ---------------------------------------------------------------- what the text says of a decision, against its record

# a provision whose act the text does not name: its own citation is reported as a gap already
UNREAD_ACT = "the text does not say which act this provision is of, so it was not compared"
QUOTE_CHARS = 280  # the record's words quoted in a verdict: enough for the formula and its object
_DISP_HEAD = re.compile(r"^\s*per\s+questi\s+motivi\s+la\s+corte\s+costituzionale\s*", re.IGNORECASE)
_DISP_TAIL = re.compile(r"\s*Cos[ìi]'?\s+deciso\b.*$", re.IGNORECASE | re.DOTALL)


def _part(d, name: str) -> str:
    return next((p.text for p in d.parts if p.part == name), "")


def dispositivo_words(d) -> str:
    """The dispositivo's operative words: without the 'per questi motivi' heading and the signatures."""
    text = _DISP_TAIL.sub("", _DISP_HEAD.sub("", _part(d, "dispositivo")))
    return " ".join(text.split())


def _quote(text: str) -> str:
    if len(text) <= QUOTE_CHARS:
        return f"«{text}»"
    cut = text[:QUOTE_CHARS].rsplit(" ", 1)[0]
    return f"«{cut} …»"


def _provisions(text: str) -> list[tuple[tuple[str, str], str]]:
    """The provisions a part of the record names, in order: ((act, article), as written)."""
    return [((_act_key(c.act.urn), canon_key(c.article)), " ".join(c.raw.split())) for c in extract_citations(text)
            if c.kind == "statute" and c.article and c.act is not None and c.act.urn and not c.act_unresolved]


def _act_key(urn: str) -> str:
    """An act's identity as citations give it: type, year and number ('d.lgs. n. 29 del 1993' names
    no day, the Court's epigrafe does), the part after the number kept (a code's annex ';262:2')."""
    return re.sub(r":(\d{4})-\d\d-\d\d;", r":\1;", urn.split("~")[0])



def claim_checks(c: Citation, claim: DecisionClaim | None, d) -> list[ClaimCheck]:
    """Each thing the text says of decision `d` (type, date, outcome, provision at issue), with
    the record's answer."""
    checks: list[ClaimCheck] = []
    tipo = {"S": "sentenza", "O": "ordinanza"}.get(d.tipologia, d.tipologia)
    wanted = (c.decision_type or "").lower()
    if wanted in ("sentenza", "ordinanza"):
        checks.append(ClaimCheck(claim="type", said=wanted, verdict="fits" if wanted == tipo else "contradicted",
                                 record=f"the record is an {tipo}"))
    if c.decision_date:
        dates = [x for x in (d.data_decisione, d.data_deposito) if x]
        checks.append(ClaimCheck(
            claim="date", said=c.decision_date,
            verdict="not_checkable" if not dates else "fits" if c.decision_date in dates else "contradicted",
            record=f"decided {d.data_decisione or '?'}, deposited {d.data_deposito or '?'}"))
    if claim is None:
        return checks
    disp = dispositivo_words(d)
    record = {k for k, _, _ in read_outcomes(disp) if not k.startswith(NEGATED)}
    for key, words in zip(claim.outcomes, claim.outcome_words):
        fits = outcome_fits(key, record)
        said = ("not " if key.startswith(NEGATED) else "") + OUTCOME_NAMES[key.removeprefix(NEGATED)]
        checks.append(ClaimCheck(
            claim="outcome", said=f"{said} ('{words}')",
            verdict="not_checkable" if fits is None else "fits" if fits else "contradicted",
            record=f"the dispositivo reads {_quote(disp)}" if disp else "the record holds no dispositivo"))
    if claim.provisions:
        checks.extend(_provision_checks(claim, d, disp))
    return checks


def _provision_checks(claim: DecisionClaim, d, disp: str) -> list[ClaimCheck]:
    """A provision named with the outcome is at issue in the decision when its epigrafe or
    dispositivo names it; named nowhere in the decision, the text attributes it wrongly."""
    named = _provisions(disp) + _provisions(_part(d, "epigrafe"))
    at_issue = {k for k, _ in named}
    elsewhere = {k for k, _ in _provisions(_part(d, "testo"))}
    shown = "; ".join(dict.fromkeys(raw for _, raw in named))[:QUOTE_CHARS]
    out = []
    for p in claim.provisions:
        if p.act_urn is None or p.article is None:
            out.append(ClaimCheck(claim="provision", said=p.raw, verdict="not_checkable", record=UNREAD_ACT))
            continue
        key = (_act_key(p.act_urn), canon_key(p.article))
        if key in at_issue:
            verdict, said_of = "fits", "the decision's epigrafe or dispositivo names it"
        elif key in elsewhere:
            verdict, said_of = "not_checkable", "only the reasoning names it, not the question decided"
        else:
            verdict, said_of = "contradicted", (f"the decision does not name it; its epigrafe and dispositivo name {shown}"
                                                if shown else "the decision does not name it")
        out.append(ClaimCheck(claim="provision", said=p.raw, verdict=verdict, record=said_of))
    return out


def _judge_claims(out: Outcome, d, checks: list[ClaimCheck]) -> None:
    """A contradicted claim never passes (content_mismatch, with the record's words); a claim
    the record cannot settle is said to be unconfirmed; only what was checked is called so."""
    out.claims = checks
    bad = [k for k in checks if k.verdict == "contradicted"]
    open_ = [k for k in checks if k.verdict == "not_checkable" and k.record != UNREAD_ACT]
    if bad:
        out.status = "content_mismatch"
        if [k.claim for k in bad] == ["type"]:
            out.detail = f"{d.citation} exists, but it is an {d.tipo}, cited as {bad[0].said}: review"
        else:
            said = "; ".join(f"{k.claim}: the text says {k.said}, but {k.record}" for k in bad)
            out.detail = f"{d.citation} exists ({d.ecli}), but its record contradicts the text: {said}: review"
    elif open_:
        out.status = "content_unconfirmed"
        said = "; ".join(f"{k.claim} {k.said} ({k.record})" for k in open_)
        out.detail = f"{d.citation} exists ({d.ecli}); what the text says of it could not be checked: {said}"
    elif checks:
        said = ", ".join(f"{k.claim} {k.said}" + (" (not compared: act not named)" if k.record == UNREAD_ACT else "")
                         for k in checks)
        out.detail = f"{d.citation} exists ({d.ecli}) and what the text says of it fits its record: {said}"
        if not any(k.claim == "outcome" for k in checks):
            out.detail += "; the text claims no outcome of it, so what it decided was not checked"
    else:
        out.detail = (f"{d.citation} exists ({d.ecli}); the text claims no outcome of it, so only its existence "
                      "was checked")
