"""One verification run: the Verifier, which reads the text, checks each distinct citation once
(statutes and decisions sharing its caches and live-lookup budget) and reports."""

from __future__ import annotations

from cachetools import TTLCache

from it_eli.law.claims import read_decision_claims
from it_eli.runtime import progress
from it_eli.runtime.workers import in_thread
from it_eli.search.analysis import Analyzer
from it_eli.search.statutes import StatuteStore

from .decisions import DecisionChecks
from .reading import check_input, extract_off_loop, plan_checks, unread_citations, unread_key
from .report import Outcome, VerifyResult, report_of
from .statutes import VERSIONS_CACHE_ENTRIES, VERSIONS_CACHE_SECONDS, StatuteChecks


class Verifier(StatuteChecks, DecisionChecks):
    """One verification run: shares caches and the live-lookup budget across citations."""

    def __init__(self, app, *, at_date: str | None = None, offline: bool = False) -> None:
        self.app = app
        self.at = at_date
        self.offline = offline
        self.store: StatuteStore = app.statutes
        self.live_used = 0
        self.an = Analyzer()
        self._versions: TTLCache = app.extras.setdefault(
            "verify_versions", TTLCache(maxsize=VERSIONS_CACHE_ENTRIES, ttl=VERSIONS_CACHE_SECONDS))
        self._memo: dict[tuple, Outcome] = {}
        self.notes: list[str] = []

    async def run(self, text: str) -> VerifyResult:
        # CPU-heavy steps run off the event loop (it_eli/runtime/workers.py): the extraction in a worker
        # process for a long text, the grouping and the report in a thread; only the checks,
        # which wait on indexes and upstreams, run here.
        cites = await extract_off_loop(text)
        # the closing pass: what looks like a reference and was not read is a gap, never left out
        unread = await in_thread(unread_citations, text, cites)
        plan = await in_thread(plan_checks, cites, unread)
        # what the text says of each decision it cites is part of that citation's check
        claims = await in_thread(read_decision_claims, text, cites)
        plan = [(c, group, memo + (claims.get((c.start, c.end)),)
                 if c.kind != "statute" and memo[:1] != ("unread",) else memo)
                for c, group, memo in plan]
        # Each distinct citation is checked once: a brief that cites art. 2043 c.c. 500 times costs
        # one check (and at most one live lookup), not 500.
        done: dict[tuple, tuple[Outcome, str | None]] = {unread_key(u): (_unread_outcome(u), None) for u in unread}
        for i, (c, group, memo) in enumerate(plan):
            if i % 50 == 0 or i + 1 == len(plan):
                progress.report("checking citations", i if i + 1 < len(plan) else len(plan), len(plan))
            if memo in done:
                continue
            if c.kind == "statute":
                o = await self.check_statute(c)
                if o.status in ("content_mismatch", "content_unconfirmed"):
                    o = await self.group_description(c, o, group)
                ecli = None
            else:
                o = await self.check_case(c, claims.get((c.start, c.end)))
                ecli = c.ecli or o.ecli
            done[memo] = (o, ecli)
        return await in_thread(report_of, plan, done, notes=self.notes, live_used=self.live_used, at=self.at,
                              offline=self.offline)


def _unread_outcome(c) -> Outcome:
    what = "a decision (or a massima)" if c.kind == "case" else "an act or its articles"
    return Outcome(status="unparseable_citation",
                   detail=f"“{c.raw}” looks like a reference to {what}, but it could not be read (court, act or "
                   "year missing or written in a form not recognised): it was not checked")


async def verify_text(app, text: str, *, at_date: str | None = None, offline: bool = False) -> VerifyResult:
    """Verify every citation in `text` (see the package docstring for the rules)."""
    from ..legislation import check_date

    text = check_input(text)
    at = check_date(at_date)
    return await Verifier(app, at_date=at, offline=offline).run(text)
