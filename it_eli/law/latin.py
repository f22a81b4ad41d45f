"""Latin ordinal suffixes of inserted articles and commi (bis, ter … duodevicies, vicies semel).

One grammar for every reader of article numbers (the URN parser, the Akoma Ntoso parser, the
legislation tools), so a number accepted in one place is accepted everywhere. Why a grammar and
not a list: the legislator goes on inserting — D.Lgs. 231/2001 reaches 25-duodevicies and
25-undevicies (eIds `art_25-duodevicies`, `art_25-undevicies` in `normattiva-akn/
mcp-legal-it__dlgs_231_2001.xml`), the c.p. 452-quinquiesdecies; up to 50 (quinquagies) the
forms are: a simple multiplier (bis … novies/nonies), or an optional unit prefix (un, duo, tre,
ter, quater, quin, quinquies, se, sexies, septies, octies, novies/nonies, semel, bis, and the
subtractive unde-/duode-) joined to a tens word (decies, vicies, tricies/trigies, quadragies,
quinquagies), optionally followed by an additive unit (vicies semel, vicies bis).

The canonical key drops the separators inside the suffix and writes `novies` for `nonies` (both
are printed for the same suffix; L. 241/1990's 21-nonies has eId `art_21-novies`).
"""

from __future__ import annotations

import re

_UNITS = r"(?:un|duo|tre|ter|quater|quin|quinquies|se|sexies|septies|octies|novies|nonies|semel|bis|unde|duode)"
_TENS = r"(?:decies|vicies|tricies|trigies|quadragies|quinquagies)"
_SIMPLE = r"(?:bis|ter|quater|quinquies|sexies|septies|octies|novies|nonies)"
_ADDED = r"(?:semel|bis|ter|quater|quinquies|sexies|septies|octies|novies|nonies)"

# Compound forms first: the regex alternation takes the first alternative that fits, so
# "terdecies" is read whole, not as "ter" + garbage.
LATIN = (
    r"(?:" + _UNITS + r"?[\s_-]?" + _TENS + r"(?:[\s_-]?" + _ADDED + r"(?![a-z]))?"
    r"|" + _SIMPLE + r")"
)
LATIN_RE = re.compile(r"^" + LATIN + r"$", re.IGNORECASE)


def canonical_suffix(raw: str) -> str:
    """'quinquies decies' -> 'quinquiesdecies'; 'nonies' -> 'novies'."""
    return re.sub(r"[\s_-]", "", raw).lower().replace("nonies", "novies")


def is_suffix(raw: str) -> bool:
    return bool(LATIN_RE.match(raw.strip()))
