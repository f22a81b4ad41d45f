"""Where a citation may start: the trigger, one regex of every anchor ('art.', an act type, a code, a
court, 'ECLI:'...), and a trie of their first characters that skips plain prose at C speed. Apart
because the pass runs it at every word, and readers use it to look ahead for another citation."""

from __future__ import annotations

import re

from ..acts import ACT_TYPES
from ..grammar import ORDINALS
from .courts import OTHER_COURTS
from .statutes import ACT_TYPE_PATTERNS, CODE_ROWS
from .tokens import ORD_FEM_RE

# The leading look-around is a cheap filter: a word start whose first letter can begin an anchor.
# It makes the 40-branch alternation run only at plausible positions (3x faster on plain prose).
_ACT_WORDS = "|".join(p for p, _ in ACT_TYPE_PATTERNS)
_CODE_WORDS = "|".join(c.pattern for c in CODE_ROWS)
TRIGGER = re.compile(
    r"(?<![\w])(?:"
    r"(?P<ecli>(?i:ECLI:IT:))"
    r"|(?P<art>(?i:artt?\.|art(?=\s+\d)|articol[oi](?![a-z])))"
    r"|(?P<court>(?:(?i:corte\s+(?:cost|costituzionale|(?:suprema\s+)?di\s+cassazione))|C\.\s?[Cc]ost\.|"
    r"(?:C\.\s?|Corte\s+)[Cc]ass(?:azione)?\b|(?i:cass(?:azione)?)\b|"
    r"Consulta\b|(?i:suprema\s+corte)(?:\s+(?i:di\s+cassazione))?|S\.\s?C\.(?![A-Za-z])|"
    r"Cons\.\s?(?:di\s+)?St|C\.\s?St(?:ato\b|\.)|(?i:consiglio\s+di\s+(?:stato|giustizia\s+amministrativa))|C\.d\.S\.|CdS\b|"
    r"Ad(?:\.|unanza)\s?[Pp]len(?:\.|aria\b)|"
    r"C\.G\.A|CGA|Cons\.\s?[Gg]iust\.\s?[Aa]mm\.|T\.A\.R\.?|TAR\b|Tar\b|(?i:tribunale\s+amministrativo(?:\s+regionale)?)|"
    r"(?i:" + OTHER_COURTS + r")))"
    r"|(?P<dt>(?-i:[IVX]{1,5})\s{1,3}(?i:disp)|(?i:" + ORD_FEM_RE + r"\s{1,3}disp|disp(?:\.|osizion[ei]|osiz\.)\s{0,3}trans))"
    r"|(?P<struct>(?i:allegato|allegati|all\.|tabella|tab\.|titolo|tit\.|capo)(?=\s{0,3}(?:\d|[IVXLC]{1,7}\b|[A-Z]\b|unico)))"
    r"|(?P<cons>(?:(?i:considerando|consid\.)|cons\.)(?=\s{1,3}(?:n\.\s{0,3})?\d))"
    r"|(?P<part>(?i:comma|commi|co\.|paragrafo|par\.|punto|lettera|lett\.)(?=\s{0,3}(?:\d|[a-z]{1,2}\))))"
    r"|(?P<act>(?i:regolamento|reg\.|direttiv[ae]|dir\.|decisione(?:[\s-]quadro)?)(?=\s{0,3}(?:delegato\s+|di\s+esecuzione\s+)?\(?\s?(?:(?i:UE|CE|CEE|Euratom)(?![a-zà-ù'’])|n\.?\s?\d|\d))"
    r"|(?i:" + _ACT_WORDS + r")|" + _CODE_WORDS + r")"
    r")"
)


def _trigger_words() -> list[str]:
    """How every anchor can begin: the registries' names and aliases, court names, partition words."""
    words = ["art.", "artt.", "art ", "articolo", "articoli", "ecli", "corte", "c. ", "c.", "cass", "consulta", "cons.",
             "consiglio", "c.d.s.", "cds", "cdS", "cga", "c.g.a", "t.a.r", "tar ", "tar,", "tribunale", "trib.",
             "comm.", "commissione", "ctp", "ctr", "cgt", "cgue", "cgce", "c.g.u.e.", "c.g.c.e.", "c.t.p.", "c.t.r.",
             "c.edu", "c. edu", "c.cost", "c. cost", "c.conti", "c. conti", "c.app", "c. app", "c.ass", "c. ass",
             "cedu", "app.", "cons. giust", "cons.giust", "suprema", "s.c.", "s. c.", "ad. plen", "ad.plen", "adunanza",
             "allegato", "allegati", "all.", "tabella", "tab.", "titolo", "tit.", "capo",
             "considerando", "comma", "commi", "co.", "paragrafo", "par.", "punto", "lettera", "lett.", "regolamento",
             "direttive", "reg.", "direttiva", "dir.", "decisione", "disp", "norme",
             "decretolegge", "decreto-legge", "decreto legge", "decreto", "decr.", "d.-l.", "d. l.", "d. lgs", "d.lgs",
             "d. p.", "d.p.", "r. d.", "l. ", "legge", "circolare", "circ.", "delibera", "determina", "ordinanza",
             "o.m.", "o. m.", "regio", "gdpr", "rgpd"]
    words += [w for w in ORDINALS if w.endswith("a")]  # "dodicesima disposizione transitoria"
    names = []
    for t in ACT_TYPES:
        names += [*t.aliases, t.label, t.abbreviation]
    for c in CODE_ROWS:
        names += [*c.aliases, c.abbreviation, c.name]
    # a registry name counts only if the trigger reads it (aliases for it_resolve may be prose words)
    words += [n for n in names if TRIGGER.match(n) or TRIGGER.match(n + " 1/2000")]
    return [re.sub(r"\s+", " ", w.lower()) for w in words if w]


_WORDS = _trigger_words()


def _trie_regex(prefixes: set[str]) -> str:
    """One regex matching any of `prefixes`, as a trie (each step one character test): the C
    engine then discards most word starts in a character or two."""
    trie: dict = {}
    for p in prefixes:
        node = trie
        for ch in p:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node and len(node) == 1:
            return ""
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


def _anchor_prefixes() -> set[str]:
    out = {w[:6] for w in _WORDS if len(w) >= 6} | {w for w in _WORDS if len(w) < 6}
    out = {re.sub(" ", "\x00", w) for w in out}  # a space in a name: any whitespace in the text
    return out | {r for r in ("i ", "v ", "x ", "ii", "iv", "ix", "vi", "xi", "xv", "xx")}


# word starts that may begin an anchor (the full trigger, an alternation of every act type and code
# name, is tried only there: on plain prose that keeps the scan near the speed of one small regex)
_PREFIXES = _anchor_prefixes()
_FIRST = "".join(sorted({w[0] for w in _PREFIXES} | {w[0].upper() for w in _PREFIXES}))
# the leading class lets the engine skip, at C speed, positions no anchor can start at
FILTER = re.compile(rf"(?=[{re.escape(_FIRST)}])(?<![\w])(?i:" + _trie_regex(_PREFIXES).replace("\x00", r"\s") + ")")
