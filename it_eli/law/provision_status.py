"""Whether a provision is law in force on a day, told from the lifecycle the export records.

Services (get_text, verification) ask here instead of reading `repealed` alone: an article can
be struck down by the Constitutional Court, repealed comma by comma, added by a conversion law
after the decree's date, or belong to a decree-law that lapsed. Pure: events in, verdicts out.
"""

from __future__ import annotations

import re
from typing import Literal

import msgspec

from .acts import lookup_act_type
from .grammar import MONTH_NUMBER, MONTHS

EventKind = Literal["repealed", "unconstitutional", "inserted_after_publication", "lapsed"]
Scope = Literal["act", "article", "comma", "lettera", "numero", "periodo"]


class ProvisionEvent(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One thing that happened to an article or to a part of it."""

    kind: EventKind
    scope: Scope
    comma: str | None = None  # "1-bis", "2"; "ultimo" when the note says so and commi are unknown
    item: str | None = None  # lettera "e", numero "5", periodo "secondo"
    partial: bool = False  # "nella parte in cui …": the words stay, read as the decision changed them
    by: str = ""  # the act or decision: "Corte costituzionale, sentenza 19 dicembre 1968, n. 126"
    by_date: str | None = None  # ISO date of that act or decision
    since: str | None = None  # ISO date from which it has effect, when the export says or the law fixes it
    detail: str = ""  # the export's own words (the declaration, the notice)
    note: str | None = None  # the AGGIORNAMENTO number the export gives it
    # when `since` is not known: the first day of the text that already records the event (the
    # version it was read from), so it had effect by then at the latest; set when read from the store
    effect_by: str | None = None


class ActLifecycle(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Facts about the act as a whole, read from the preface note."""

    entry_into_force: str | None = None  # "Entrata in vigore del provvedimento: 03/12/2012"
    converted_by: str | None = None  # "L. 24 dicembre 2012, n. 231"
    conversion_gu_date: str | None = None  # ISO date of the conversion law's G.U.
    conversion_effect: str | None = None  # the day after: when the conversion's changes take effect
    lapsed: bool = False  # "decaduto per mancata conversione": without effect from the start


PARTIAL_DECLARATION_RE = re.compile(
    r"nella\s*parte\s+in\s+cui|nelle\s*parti\s+in\s+cui|\b(?:parte|parti|casi|ipotesi)\s+in\s+cui|limitatamente|nei\s+limiti|nei\s+medesimi\s+limiti|"
    r"\bove\b|\bin\s+quanto\b|per\s+la\s+parte|nella\s+parte\s+relativa|secondo\s+quanto\s+precisato|"
    r"con\s+riferimento\s+a|\bse\b\s+riferit|\bsolo\s+(?:per|nel)",
    re.IGNORECASE,
)


def _comma_key(s: str | None) -> str:
    return (s or "").replace(" ", "").lower()


def in_effect(e: ProvisionEvent, day: str | None) -> bool | None:
    """Whether the event had effect on `day`: True, False, or None when the export cannot say.

    The repeal notices carry no date of effect. What bounds it: an act has no effect before the
    date it bears (`by_date`), and a text in force from `effect_by` that already records the
    event proves it had effect by then. Between the two it is undecided (None): callers count it
    (the words held are not law in force) and say it is not known (`status_notes`).
    """
    if day is None:
        return True
    if e.since is not None:
        return e.since <= day
    if e.kind == "lapsed":
        return True  # a decree-law not converted is without effect from the start
    if e.by_date is not None and day < e.by_date:
        return False
    if e.effect_by is not None and e.effect_by <= day:
        return True
    return None


def _counts(e: ProvisionEvent, day: str | None) -> bool:
    return in_effect(e, day) is not False


def struck_whole(events: list[ProvisionEvent], day: str | None = None) -> ProvisionEvent | None:
    """The event that took the whole article out of force (on `day`, when given), or None."""
    for e in events:
        if e.scope in ("article", "act") and not e.partial and e.kind in ("repealed", "unconstitutional", "lapsed"):
            if _counts(e, day):
                return e
    return None


def comma_verdict(events: list[ProvisionEvent], comma: str, last_comma: str | None = None,
                  day: str | None = None) -> tuple[ProvisionEvent | None, list[ProvisionEvent]]:
    """(event that took the whole comma out of force, events that touched part of it)."""
    want = _comma_key(comma)
    whole = None
    partial: list[ProvisionEvent] = []
    for e in events:
        c = _comma_key(e.comma)
        if e.comma is None or not (c == want or (c == "ultimo" and last_comma and _comma_key(last_comma) == want)):
            continue
        if not _counts(e, day):
            continue
        if e.scope == "comma" and not e.partial and whole is None:
            whole = e
        else:
            partial.append(e)
    return whole, partial


def not_yet_in_force(events: list[ProvisionEvent], day: str) -> ProvisionEvent | None:
    """The insertion event that says the article did not exist yet on `day`."""
    for e in events:
        if e.kind == "inserted_after_publication" and e.since and day < e.since:
            return e
    return None


def describe(e: ProvisionEvent) -> str:
    """One sentence a lawyer reads: what happened, to what, by what, since when."""
    if e.scope == "article":
        what = "the article"
    elif e.scope == "act":
        what = "the whole act"
    elif e.scope == "comma":
        what = f"comma {e.comma}"
    else:
        what = f"{e.scope} {e.item or ''}".strip() + (f" of comma {e.comma}" if e.comma else "")
    if e.kind == "inserted_after_publication":
        return f"{what} {e.detail}"
    if e.kind == "lapsed":
        return e.detail
    if e.kind == "repealed":
        verb = "partly repealed" if e.partial else "repealed"
        s = f"{what} {verb} by {e.by}" if e.by else f"{what} {verb}"
        if e.since:
            s += f" (since {e.since})"
        else:
            s += " (date of effect not stated in the export"
            s += f"; already recorded in the text in force on {e.effect_by})" if e.effect_by else ")"
        return s
    verb = "declared unconstitutional in part" if e.partial else "declared unconstitutional"
    s = f"{what} {verb} by {e.by}"
    if e.since:
        s += f"; without effect since {e.since}"
    if e.partial:
        m = PARTIAL_DECLARATION_RE.search(e.detail)
        if m:
            s += ": " + e.detail[m.start():][:300]
    return s


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


# ------------------------------------------------------------------ an act repealed as a whole by another

# the act nouns a repeal clause names its object with (their URN type is the act-type table's)
_REPEALED_NOUNS = ("decreto legislativo", "decreto-legge", "decreto legge", "legge", "regio decreto",
                   "decreto del presidente della repubblica")
_REPEAL_DATE = r"(?P<{p}d>\d{{1,2}})°?\s+(?P<{p}m>{months})\s+(?P<{p}y>\d{{4}})"


def _repeal_clause_re(year: int | str, number: str) -> re.Pattern:
    months = "|".join(MONTHS)
    nouns = "|".join(sorted((re.escape(n) for n in _REPEALED_NOUNS), key=len, reverse=True))
    return re.compile(
        # the clause opens a comma or a sentence: "1. Il decreto …", "A decorrere dal …, il decreto …"
        r"(?:^|\n|[.;:]\s+|\b\d+(?:-[a-z]+)?\.\s*)"
        r"(?:a\s+decorrere\s+dal(?:la\s+data\s+del)?\s+" + _REPEAL_DATE.format(p="a", months=months) + r",\s*)?"
        r"(?:il|la)\s+(?P<noun>" + nouns + r")\s+(?:\d{1,2}°?\s+(?:" + months + r")\s+)?"
        + str(year) + r",\s*n\.\s*" + re.escape(str(number).lstrip("0")) + r"(?![\d/])\s*,?"
        r"(?:\s*e\s+successive\s+modific\w+\s*,?)?\s+(?:e'|è)\s+abrogat[oa]\b"
        r"(?:\s+(?:dal|a\s+decorrere\s+dal)\s+" + _REPEAL_DATE.format(p="b", months=months) + ")?",
        re.IGNORECASE,
    )


def whole_act_repeal(text: str, act_type: str, year: int | str, number: str) -> tuple[str | None, str] | None:
    """(ISO date of effect, or None when the clause gives none; the clause's words) when `text`
    repeals the act as a whole ("Il decreto legislativo 18 aprile 2016, n. 50, e' abrogato dal 1°
    luglio 2023"), None when it does not, or repeals only a part of it ("L'articolo 15 … e' abrogato")."""
    flat = " ".join((text or "").replace("((", "").replace("))", "").split(" "))
    for m in _repeal_clause_re(year, number).finditer(flat):
        if lookup_act_type(m.group("noun")).urn_type != act_type:
            continue
        g = "b" if m.group("bd") else ("a" if m.group("ad") else None)
        since = None
        if g is not None:
            since = f"{int(m.group(g + 'y')):04d}-{MONTH_NUMBER[m.group(g + 'm').lower()]:02d}-{int(m.group(g + 'd')):02d}"
        return since, " ".join(m.group(0).split()).lstrip(".;: ")
    return None
