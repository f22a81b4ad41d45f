"""What Normattiva prints inside an article's text: the repeal notice, the (( )) amendment markers,
the "Art. N." header, the rubrica in parentheses, the comma numbers. Shared by body and attachments."""

from __future__ import annotations

import re

from it_eli.law.grammar import LATIN as _LATIN
from it_eli.sources.normattiva.akn.text import inline_text

NOTES_START_RE = re.compile(r"^-{5,}\s*$")
_REPEALED_RE = re.compile(
    r"^[\s(\"'«]*(?:\d+[\s.]+)?(?:ARTICOLO|ARTICOLI|ARTT?\.)\b[^()\n]{0,80}?\b(?:ABROGAT|SOPPRESS)[OIAE]\b",
)
_AMEND_OPEN = "(("
_AMEND_CLOSE = "))"


def is_repealed(text: str) -> bool:
    """Normattiva replaces a repealed article's text with `((ARTICOLO ABROGATO DAL/DALLA …))`."""
    return bool(_REPEALED_RE.match(text[:300].upper()))


def has_amendments(*parts: str | None) -> bool:
    return any(p and (_AMEND_OPEN in p or _AMEND_CLOSE in p) for p in parts)


def clean_heading(h: str | None) -> tuple[str | None, bool]:
    """`(( (Delitti contro l'industria). ))` -> ("Delitti contro l'industria", amended=True).

    Amendment markers inside the rubrica ("Ricettazione ((, nonche' autoriciclaggio))") stay:
    only the wrapping parentheses and the markers around the whole rubrica go.
    """
    if h is None:
        return None, False
    h = inline_text(h)
    amended = _AMEND_OPEN in h or _AMEND_CLOSE in h
    prev = None
    while h and h != prev:
        prev = h
        h = h.strip().rstrip(".").strip()
        opens, closes = h.count("("), h.count(")")
        if h.startswith("((") and (h.endswith("))") or opens > closes):
            h = h[2:]
        elif h.endswith("))") and closes > opens:
            h = h[:-2]
        elif h.startswith("(") and h.endswith(")") and _balanced_close(h, 0) == len(h) - 1:
            h = h[1:-1]
        elif h.startswith("(") and opens > closes:
            h = h[1:]
        elif h.endswith(")") and closes > opens:
            h = h[:-1]
    h = h.strip()
    return (h or None), amended


def _balanced_close(s: str, start: int) -> int:
    """Index of the parenthesis closing the one at `start`, -1 if unbalanced."""
    depth = 0
    for i in range(start, len(s)):
        c = s[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def normalise_comma_num(s: str) -> str:
    m = re.match(r"(\d+)[-\s]?([a-z]+)?(\.\d+)?", s.strip(), re.IGNORECASE)
    if not m:
        return s.strip()
    out = m.group(1)
    if m.group(2):
        out += "-" + m.group(2).lower()
    if m.group(3):
        out += m.group(3)
    return out


HEADER_RE = re.compile(
    r"^(?P<label>(?:Art\.|Art\b|Articolo)\s*(?P<num>\d+(?:[\s-]*" + _LATIN + r")?(?:\.\d+)?)\.?)"
    r"(?=\s|$|[.(])\s*\.?\s*",
    re.IGNORECASE,
)


_MARKED_HEADING_RE = re.compile(r"^\(\s?\(\s*(?=\()")


def take_heading(rest: str) -> tuple[str | None, str, bool]:
    """Take a parenthesised rubrica `(Omicidio)` or `(( (Rubrica). …` off the front of `rest`.

    When the amendment span opened before the rubrica goes on over the text
    ("(( (Circostanze attenuanti). Le pene … ))"), the remaining text gets the "((" back so
    the markers stay balanced and verbatim.
    """
    s = rest.lstrip()
    amended = False
    m = _MARKED_HEADING_RE.match(s)
    if m:
        amended = True
        start = m.end()
    elif s.startswith("(") and not s.startswith("(("):
        start = 0
    else:
        # "((text…))" is an amended first comma (or a repeal notice), not a rubrica.
        return None, rest, False
    close = _balanced_close(s, start)
    if close < 0:
        return None, rest, False
    head_raw = s[start : close + 1]
    # An update-note reference such as "(96)" is not a rubrica.
    if re.fullmatch(r"\(\s*\d+[a-z]?\s*\)", head_raw):
        return None, rest, False
    after = s[close + 1 :].lstrip(" .")
    if amended:
        if after.startswith("))"):
            after = after[2:].lstrip(" .")
        elif after.strip():
            after = "((" + after.lstrip()
    heading, h_amended = clean_heading(head_raw)
    return heading, after.strip(), amended or h_amended
