"""Whether an article's text holds the comma, lettera and numero a citation names.

Apart because it reads the printed text (numbered commi, "a)" / "1)" items), which the export
does not always mark; the verdicts that use it are in statutes.py."""

from __future__ import annotations

import re

from it_eli.law.grammar import LATIN, canon_key


def comma_in_text(text: str, comma: str) -> bool:
    """A comma the export did not mark but whose number opens a sentence of the text.

    Why: some exports (d.lgs. 36/2023) put every comma of an article in one unnumbered
    paragraph, "1. … 2. … 3. …"; the parser then marks only the first. A number followed by a
    full stop and a capitalised word is taken as the comma's start (lenient on purpose: the
    error it can make is a missed hallucination, never a false one).
    """
    k = canon_key(comma)
    variants = {k, k.replace("novies", "nonies"), k.replace("-", " "), k.replace("-", "")}
    alt = "|".join(re.escape(v) for v in variants)
    return re.search(rf"(?:^|[\s(])(?:{alt})\.\s+(?:\(\(\s*)?[A-ZÀ-Ý«\"“(]", text) is not None


_LATIN_ALT = LATIN
# Lettere and numeri as the exports print them (the parser puts each <point> on its own line,
# its <num> first): "a) ...", "a-bis) ...", "((b) ...", numbers "1) ..." or "1° ...". Inline lists
# ("...: a) ...; b) ...") count too; a cross-reference ("lettera a)", "(articolo 90)") does not.
_ITEM_START = r"(?:^[ \t]*|(?<=[:;])[ \t]+)(?:\(\([ \t]*)?"
_LETTER_ITEM = re.compile(rf"{_ITEM_START}([a-z]{{1,2}}(?:[-\s]?(?:{_LATIN_ALT}))?)\)(?=[\s;,.:]|$)", re.M)
_NUMBER_ITEM = re.compile(rf"{_ITEM_START}(\d{{1,3}}(?:[-\s]?(?:{_LATIN_ALT}))?)(?:\)|°|º)(?=[\s;,.:]|$)", re.M)
_COMMA_START = re.compile(r"(?m)^\s*(?:\(\(\s*)?\d{1,4}(?:[-\s]?[a-z]{3,15})?\.\s")


def _item_key(s: str) -> str:
    return re.sub(r"[\s\-–]+", "-", s.strip().lower()).replace("nonies", "novies")


def _items(rx: re.Pattern, text: str) -> list[str]:
    return [_item_key(m.group(1)) for m in rx.finditer(text)]


def _comma_segment(text: str, comma: str) -> str | None:
    """The text of one comma, when the article prints its commi as numbered lines ("2. ...")."""
    k = canon_key(comma)
    alt = "|".join(re.escape(v) for v in {k, k.replace("novies", "nonies"), k.replace("-", " "), k.replace("-", "")})
    m = re.search(rf"(?m)^\s*(?:\(\(\s*)?(?:{alt})\.\s", text)
    if not m:
        return None
    n = _COMMA_START.search(text, m.end())
    return text[m.start() : n.start() if n else len(text)]


def _letter_segment(text: str, letter: str) -> str:
    """The text of one lettera, up to the next lettera (its numeri live there)."""
    found = [m for m in _LETTER_ITEM.finditer(text)]
    for i, m in enumerate(found):
        if _item_key(m.group(1)) == letter:
            return text[m.start() : found[i + 1].start() if i + 1 < len(found) else len(text)]
    return ""


def _span(items: list[str]) -> str:
    return f"{items[0]}) to {items[-1]})" if len(items) > 1 else f"{items[0]})"


def check_items(text: str, comma: str | None, lettera: str | None, numero: str | None) -> tuple[str, str] | None:
    """Check a citation's lettere and numeri against the article's text.

    Returns None when the citation has neither, else (verdict, detail) with verdict 'ok',
    'absent' (the complete text has no such lettera/numero) or 'unknown' (numeri: the text has
    no numbered items at all, so another numbering may be meant). A comma named alone narrows
    the search to that comma when the text numbers its commi; otherwise the whole article counts.
    """
    if not lettera and not numero:
        return None
    scope, where = text, "the article"
    if comma and "," not in comma and comma != "ultimo":
        seg = _comma_segment(text, comma)
        if seg is not None:
            scope, where = seg, f"comma {comma}"
    found: list[str] = []
    if lettera:
        all_letters = _items(_LETTER_ITEM, text)
        here = _items(_LETTER_ITEM, scope)
        for want in (_item_key(x) for x in lettera.split(",") if x.strip()):
            if want in here:
                found.append(f"lett. {want})")
                continue
            if not all_letters:
                return "absent", f"the article has no lettere at all, so lett. {want}) does not exist"
            if want in all_letters:
                return "absent", f"lett. {want}) is not in {where} (the article has it in another comma)"
            return "absent", f"{where} has no lett. {want}) (its lettere: {_span(here or all_letters)})"
        if numero and len(lettera.split(",")) == 1:
            scope, where = _letter_segment(scope, _item_key(lettera)), f"lett. {_item_key(lettera)})"
    if numero:
        all_numbers = _items(_NUMBER_ITEM, text)
        here = _items(_NUMBER_ITEM, scope)
        for want in (_item_key(x) for x in numero.split(",") if x.strip()):
            if want in here:
                found.append(f"n. {want})")
                continue
            if not all_numbers:
                return "unknown", f"the article's text has no numbered items (1), 2) ... or 1°, 2° ...): n. {want} was not checked"
            return "absent", f"{where} has no n. {want}" + (f" (its numeri: {_span(here)})" if here else " (it has no numeri)")
    return "ok", ", ".join(found)
