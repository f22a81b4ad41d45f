"""The forms a citation takes in the texts, for search: a query that is a citation
(`d.lgs. 80/1998`, `art. 3 Cost.`, `l. 241/90`) also matches `decreto legislativo 31 marzo 1998,
n. 80`, `articolo 3 della Costituzione`, `legge 7 agosto 1990, n. 241`.

Why phrases with slop and not one string: the texts put the day and month, "n." and "del"
between the words the query has; a sloppy phrase of the words both share finds every order the
texts use without knowing the date the query omits. Pure: the search layer turns each
(words, slop) into its own query node.
"""

from __future__ import annotations

import re

from .acts import BY_URN_TYPE
from .codes import CODES_BY_ID
from .grammar import MONTHS
from .scanner.model import Citation
from .scanner.scan import extract_citations

MAX_CITATIONS = 3  # a query naming more acts than this is a question, not a citation
_FILLER = re.compile(r"(?i)^(?:[\s,;:.()\-–/]|\b(?:del|della|dello|delle|dei|degli|dell|di|il|la|lo|l|le|gli|i|e|ed)\b|['’])*$")


def _act_forms(c: Citation) -> list[tuple[str, int]]:
    act = c.act
    if act.code:
        code = CODES_BY_ID.get(act.code)
        if code is None:
            return []
        if code.family == "costituzione":
            return [("costituzione", 0), ("cost", 0)]
        names = [code.name.lower()] + [a for a in code.aliases if " " in a and not re.search(r"\d", a)][:2]
        out = [(re.sub(r"\s*\(.*\)", "", n), 0) for n in names]
        if code.number and code.date:
            info = BY_URN_TYPE.get(code.act_type)
            if info is not None:
                out.append((f"{info.label} {code.year} {code.number}", 5))
        return out
    info = BY_URN_TYPE.get(act.act_type)
    if info is None or not act.number or not (act.year or act.date):
        return []
    year = act.year or int(act.date[:4])
    label = info.label.replace("-", " ")
    out = []
    if act.date:
        y, m, d = (int(x) for x in act.date.split("-"))
        out.append((f"{label} {d} {MONTHS[m - 1]} {y} {act.number}", 2))
    out += [(f"{label} {year} {act.number}", 5), (f"{label} {act.number} {year}", 3)]
    return out


def citation_phrases(query: str) -> list[tuple[str, int]]:
    """(words, slop) phrases for a query that is a citation; [] when it is not one (words around
    the citation that are not connectors make it a question, searched as written)."""
    if not isinstance(query, str) or len(query) > 300 or '"' in query or ":" in query:
        return []
    cites = [c for c in extract_citations(query) if c.kind == "statute" and c.act is not None]
    if not cites or len(cites) > MAX_CITATIONS:
        return []
    spans = sorted([(c.start, c.end) for c in cites] + [(c.act.start, c.act.end) for c in cites if c.act.start >= 0])
    rest, last = [], 0
    for s, e in spans:
        rest.append(query[last:s])
        last = max(last, e)
    rest.append(query[last:])
    if not _FILLER.match(" ".join(rest)):
        return []
    out: list[tuple[str, int]] = []
    for c in cites:
        forms = _act_forms(c)
        if c.article and re.match(r"\d", c.article):
            key = c.article.replace("-", " ")
            forms = [(f"{word} {key} {f}", slop + 4) for f, slop in forms for word in ("articolo", "art")]
        out += forms
    return list(dict.fromkeys(out))
