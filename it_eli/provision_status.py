"""Whether a provision is law in force on a day, told from the lifecycle the export records.

Services (get_text, verification) ask here instead of reading `repealed` alone: an article can
be struck down by the Constitutional Court, repealed comma by comma, added by a conversion law
after the decree's date, or belong to a decree-law that lapsed. Pure: events in, verdicts out.
"""

from __future__ import annotations

from typing import Literal

from it_eli.normattiva.lifecycle import (
    ProvisionEvent,
    comma_verdict,
    describe,
    not_yet_in_force,
    struck_whole,
)

__all__ = ["ProvisionStatus", "article_status", "comma_status", "status_notes", "inserted_event"]

# what a lawyer needs to know before relying on the words served
ProvisionStatus = Literal[
    "in_force",  # nothing recorded against it (on that day)
    "partly_affected",  # a part (a comma, a lettera, 'nella parte in cui …') repealed or struck down
    "repealed",  # abrogato: the whole provision
    "declared_unconstitutional",  # struck down by the Constitutional Court (art. 136 Cost.)
    "lapsed",  # decree-law not converted: without effect from the start
    "not_yet_in_force",  # added later (e.g. by the conversion law) than the day asked
]


def inserted_event(events: list[ProvisionEvent]) -> ProvisionEvent | None:
    return next((e for e in events if e.kind == "inserted_after_publication"), None)


def _status_of(e: ProvisionEvent) -> ProvisionStatus:
    if e.kind == "unconstitutional":
        return "declared_unconstitutional"
    if e.kind == "lapsed":
        return "lapsed"
    return "repealed"


def article_status(events: list[ProvisionEvent], day: str | None, *, repealed_flag: bool = False) -> ProvisionStatus:
    """The article's standing on `day` (None: as the export has it)."""
    if day is not None and not_yet_in_force(events, day):
        return "not_yet_in_force"
    whole = struck_whole(events, day)
    if whole is not None:
        return _status_of(whole)
    if repealed_flag:
        return "repealed"
    if any(e.kind in ("repealed", "unconstitutional") and (day is None or e.since is None or e.since <= day)
           for e in events):
        return "partly_affected"
    return "in_force"


def comma_status(events: list[ProvisionEvent], comma: str, last_comma: str | None, day: str | None
                 ) -> tuple[ProvisionStatus, list[ProvisionEvent]]:
    """(status of one comma, the events behind it) on `day`."""
    whole_art = struck_whole(events, day)
    if whole_art is not None:
        return _status_of(whole_art), [whole_art]
    whole, partial = comma_verdict(events, comma, last_comma, day)
    if whole is not None:
        return _status_of(whole), [whole]
    if partial:
        return "partly_affected", partial
    return "in_force", []


def status_notes(events: list[ProvisionEvent], day: str | None) -> list[str]:
    """One sentence per event that a reader of the text must see (past or on `day`)."""
    out = []
    for e in events:
        if e.kind == "inserted_after_publication":
            continue
        if day is not None and e.since is not None and e.since > day:
            out.append("from " + e.since + ": " + describe(e))
            continue
        out.append(describe(e))
    return out
