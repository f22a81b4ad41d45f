"""The tokens every family of citation reads: bounded whitespace, an article's number with its
suffix, ordinals, years, the connectors between a citation's parts. Apart so the readers share one
spelling of each."""

from __future__ import annotations

import re

from ..acts import BY_URN_TYPE
from ..grammar import LATIN, ORDINALS, canon_key, year_of

# An article / comma number with an optional suffix: 21-septies, 416 bis, 25-bis.1.
# Up to 9 digits: no act has more than a few thousand articles or commi (l. 296/2006 art. 1 has
# 1,364 commi), but a made-up "art. 99999 c.p." must be extracted, and then found missing, rather
# than skipped as if the text did not cite it. A longer run is not an article number (an id, a
# phone number): it is left alone. Long numbers that are something else after an enumeration
# ("artt. 3 e 4, 20121 Milano") are dropped in `parse_articles` when no act follows.
MAX_ARTICLE_DIGITS = 9
LONG_NUMBER_DIGITS = 5  # from here a number in an enumeration needs an act next to it
NUMSUF = (rf"\d{{1,{MAX_ARTICLE_DIGITS}}}(?:(?:\s?[-–]\s?|\s|)(?i:{LATIN})(?![a-zà-ù])"
           rf"(?:\.\d{{1,2}}(?!\d)|\s\d{{1,2}}(?=\s{{1,3}}[A-Za-z]|\s{{0,3}}[,;)]|\s{{0,3}}$))?)?(?![\d])")
ORD = {w: str(n) for w, n in ORDINALS.items() if w.endswith("o")} | {"ultimo": "ultimo", "penultimo": "penultimo"}
ORD_RE = "(?:" + "|".join(sorted(ORD, key=len, reverse=True)) + ")"

WS = r"\s{0,3}"  # bounded whitespace between tokens keeps every match short

# what joins an article (or a partition) to its act: "dell'", "di cui al", "previsto dalla", a comma
CONNECT = re.compile(
    r"\s{0,3},?\s{0,3}(?:(?:del|della|dello|dei|delle|degli|dell['’]|al|alla|allo|ai|agli|ex|di\s+cui\s+al(?:la|lo|l['’])?|previsto\s+dal(?:la)?|in)\b\s{0,3}|dell['’]\s?)?",
    re.I,
)

SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|\n")
# feminine ordinals: "dodicesima disposizione transitoria"
ORD_FEM_RE = "(?:" + "|".join(sorted((w for w in ORDINALS if w.endswith("a")), key=len, reverse=True)) + ")"


def read_year(y: str | None, act_type: str | None = None) -> int | None:
    info = BY_URN_TYPE.get(act_type or "")
    return year_of(y, historical=bool(info and info.historical))


def norm_key(s: str) -> str:
    """'21 septies' -> '21-septies'; '25-bis.1' stays; 'a bis' (a lettera) -> 'a-bis'."""
    return canon_key(re.sub(r"[\s\u00a0]+", " ", s.strip()).replace("–", "-"))
