"""Whether a provision is law in force on a day, told from the lifecycle the export records.

Services (get_text, verification) ask here instead of reading `repealed` alone: an article can
be struck down by the Constitutional Court, repealed comma by comma, added by a conversion law
after the decree's date, or belong to a decree-law that lapsed. Pure: events in, verdicts out.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from it_eli.normattiva.lifecycle import (
    ProvisionEvent,
    comma_verdict,
    describe,
    not_yet_in_force,
    struck_whole,
)

__all__ = ["whole_status", "item_status", "ProvisionStatus", "article_status", "comma_status", "status_notes", "inserted_event"]

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


def article_status(events: list[ProvisionEvent], day: str | None, *, repealed_flag: bool = False,
                   commi: list[str] | None = None) -> ProvisionStatus:
    """The article's standing on `day` (None: as the export has it)."""
    if day is not None and not_yet_in_force(events, day):
        return "not_yet_in_force"
    whole = struck_whole(events, day) or every_comma_out(events, commi or [], day)
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


def whole_status(events: list[ProvisionEvent], day: str | None, commi: list[str] | None = None
                 ) -> tuple[str, ProvisionEvent, str] | None:
    """(status, event, '') when the whole article is out of force on `day`: struck or repealed
    as a whole, or every one of its commi is (c.p. art. 559: four commi, two decisions)."""
    e = struck_whole(events, day) or every_comma_out(events, commi or [], day)
    return (_status_of(e), e, "") if e is not None else None


def every_comma_out(events: list[ProvisionEvent], commi: list[str], day: str | None) -> ProvisionEvent | None:
    """The last of the events that took each comma out of force, when every comma is out."""
    if not commi or not events:
        return None
    last: ProvisionEvent | None = None
    for n in commi:
        whole, _ = comma_verdict(events, n, commi[-1], day)
        if whole is None:
            return None
        if last is None or (whole.since or "") >= (last.since or ""):
            last = whole
    if last is None:
        return None
    outs = [comma_verdict(events, n, commi[-1], day)[0] for n in commi]
    kinds = {e.kind for e in outs}
    bys = list(dict.fromkeys(e.by for e in outs if e.by))
    scope_note = "every comma of the article" if len(commi) > 1 else "the article's only comma"
    return msgspec.structs.replace(last, scope="article", comma=None, by=" and ".join(bys) or last.by,
                                   detail=f"{scope_note} is out of force ({', '.join(sorted(kinds))}); last: {last.detail}")


def item_status(events: list[ProvisionEvent], comma: str | None, item: str, day: str | None
                ) -> tuple[str, ProvisionEvent, str] | None:
    """(status, event, 'lettera x') when the cited lettera (or numero) is wholly out of force."""
    want = item.strip(" )").lower()
    for e in events:
        if e.scope not in ("lettera", "numero") or e.partial or (e.item or "").lower() != want:
            continue
        if comma and e.comma and e.comma.replace(" ", "").lower() != comma.split(",")[0].replace(" ", "").lower():
            continue
        if day is not None and e.since is not None and e.since > day:
            continue
        return _status_of(e), e, f"{e.scope} {e.item}" + (f" of comma {e.comma}" if e.comma else "")
    return None
