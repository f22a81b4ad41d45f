"""The decision checks of verification: Constitutional Court decisions against the local index
(authoritative only for a complete year), Cassazione and administrative decisions live
(SentenzeWeb, the GA portal), where an absence is a gap, never "does not exist"."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from it_eli.law.scanner import COURT_NAMES, Citation
from it_eli.runtime.errors import IndexMissing, ItEliError, NotFound

from .reading import MAX_LIVE_LOOKUPS
from .report import COURT_FALLBACKS, Outcome

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

    async def check_cost(self, c: Citation, year: int | None, number: str | None) -> Outcome:
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
        wanted = (c.decision_type or "").lower()
        tipo = {"S": "sentenza", "O": "ordinanza"}.get(d.tipologia, d.tipologia)
        out = Outcome(status="verified", detail=f"{d.citation} exists ({ecli})",
                      served_from="cortecost_index", source_url=d.source_url)
        if wanted in ("sentenza", "ordinanza") and wanted != tipo:
            out.status = "content_mismatch"
            out.detail = f"{d.citation} exists, but it is an {tipo}, cited as {wanted}: review"
        out.ecli = d.ecli
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

    async def check_case(self, c: Citation) -> Outcome:
        if c.kind == "ecli":
            court = c.court or ""
            if court == "COST":
                return await self.check_cost(c, c.decision_year, c.decision_number)
            if court == "CASS":
                return await self.check_cassazione(c, c.decision_year, c.decision_number)
            if court in ("CDS", "CGARS", "TAR"):
                return await self.check_ga(c, c.decision_year, c.decision_number, ecli=c.ecli)
            return Outcome(status="out_of_corpus", detail=f"ECLI court {court!r}: it_eli checks COST, CASS and the administrative courts")
        if c.court == "COST":
            return await self.check_cost(c, c.decision_year, c.decision_number)
        if c.court == "CASS":
            return await self.check_cassazione(c, c.decision_year, c.decision_number)
        if c.court in ("CDS", "CGARS", "TAR"):
            return await self.check_ga(c, c.decision_year, c.decision_number)
        name = COURT_NAMES.get(c.court or "", c.court or "this court")
        return Outcome(status="out_of_corpus", gap_note=COURT_FALLBACKS.get(c.court or ""),
                       detail=f"a decision of the {name}: it_eli has no source for this court "
                       "(it checks the Corte costituzionale, the Cassazione and the administrative courts), so it was "
                       "not checked")
