"""Whether a provision is law in force on a day, told from the lifecycle the export records.

Services (get_text, verification) ask here instead of reading `repealed` alone: an article can
be struck down by the Constitutional Court, repealed comma by comma, added by a conversion law
after the decree's date, or belong to a decree-law that lapsed. Pure: events in, verdicts out.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from it_eli.sources.normattiva.lifecycle import (
    ProvisionEvent,
    comma_verdict,
    describe,
    in_effect,
    not_yet_in_force,
    struck_whole,
)

__all__ = ["hit_status", "whole_status", "item_status", "ProvisionStatus", "article_status", "comma_status", "status_notes", "inserted_event"]

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
    if repealed_flag and not any(e.kind == "repealed" and e.scope in ("article", "act") and in_effect(e, day) is False
                                 for e in events):
        return "repealed"
    if any(e.kind in ("repealed", "unconstitutional") and in_effect(e, day) is not False for e in events):
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
        when = in_effect(e, day)
        if when is False:
            out.append(f"not yet in effect on {day} (the {'decision' if e.kind == 'unconstitutional' else 'act'} is "
                       f"dated {e.by_date}): " + describe(e))
            continue
        if when is None:
            out.append(describe(e) + f"; whether it had effect on {day} cannot be told from the export: treated as "
                       "out of force, not confirmed")
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
        if in_effect(e, day) is False:
            continue
        return _status_of(e), e, f"{e.scope} {e.item}" + (f" of comma {e.comma}" if e.comma else "")
    return None


def hit_status(events: list[ProvisionEvent], day: str | None, *, repealed_flag: bool = False,
               commi: list[str] | None = None) -> tuple[ProvisionStatus, str | None]:
    """(status, one sentence saying why) of an article met in a search, so a hit is never shown
    as plainly in force when the export records it struck down, repealed or lapsed."""
    status = article_status(events, day, repealed_flag=repealed_flag, commi=commi)
    if status == "in_force":
        return status, None
    if status == "not_yet_in_force":
        e = inserted_event(events)
        return status, (describe(e) if e else None)
    whole = whole_status(events, day, commi)
    if whole is not None:
        return status, "NOT law in force: " + status_notes([whole[1]], day)[0]
    if status == "repealed":
        return status, "NOT law in force: the article is repealed (abrogato); date of effect not stated in the export"
    parts = [e for e in events if e.kind in ("repealed", "unconstitutional") and in_effect(e, day) is not False]
    more = f" (and {len(parts) - 1} more recorded)" if len(parts) > 1 else ""
    return status, "in force in part: " + (status_notes(parts[:1], day) or [""])[0] + more
