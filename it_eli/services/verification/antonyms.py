"""Opposite meanings between a cited description and an article's rubrica.

Why: word overlap cannot tell `nullità` from `annullabilità`, `ammissibile` from `inammissibile`
or "punibilità" from "non punibilità": the two share their root, and the one word that differs
is the one that carries the meaning. A description that says the opposite of the rubrica does
not fit it, however many other words they share.

The rule (general, no list of pairs): two words clash when one is the other's root behind a
negating prefix (in-/im-/il-/ir-, a-/an-, dis-, s-, non-) — compared on the same Italian analysis
as search (it_eli/search/analysis.py, index_schema/analyzers.toml) —, when they are one root behind two
prefixes of opposite direction (inclusione / esclusione, assenso / dissenso), or when a word is negated by `non`
/ `senza` in one text and not in the other. Words both texts share are never compared.
"""

from __future__ import annotations

import re

from it_eli.search.analysis import Analyzer

__all__ = ["antonym_clash"]

_NEG_PREFIXES = ("non", "dis", "in", "im", "il", "ir", "an", "a", "s")
_NEGATORS = ("non", "senza")
# prefixes of opposite direction: two words that differ only by one of these (inclusione /
# esclusione, assenso / dissenso, importazione / esportazione) name opposite things
_DIRECTION_PREFIXES = ("contro", "sovra", "sotto", "post", "pre", "pro", "dis", "ex", "es", "in", "im", "as", "a",
                       "s")
_WORD_RE = re.compile(r"[^\W\d_]+")
MIN_ROOT = 4  # characters the two roots must share (null-, legittim-, ammissibil-)


def _words(an: Analyzer, text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(an.prepare(text or "").lower())]


def _stem(an: Analyzer, word: str) -> str:
    out = an.analyze(word)
    return out[0] if out else ""


def _same_root(a: str, b: str) -> bool:
    k = 0
    n = min(len(a), len(b))
    while k < n and a[k] == b[k]:
        k += 1
    return k >= MIN_ROOT and k >= 0.55 * n


def _prefixed(an: Analyzer, neg: str, plain: str) -> bool:
    """`neg` is `plain` behind a negating prefix (annullabilità / nullità, illegittimo / legittimo)."""
    for p in _NEG_PREFIXES:
        if not neg.startswith(p) or plain.startswith(p):
            continue
        rest = neg[len(p):]
        if len(rest) < 5:
            continue
        # the prefix assimilates and doubles the consonant (in+legittimo = illegittimo: the "l" of
        # "il" is already the root's); compare the surface rest and its stem with the other word
        if _same_root(rest, plain) or _same_root(_stem(an, rest), _stem(an, plain)):
            return True
    return False


def _swapped_prefix(a: str, b: str) -> bool:
    """`a` and `b` are one root behind two different prefixes of opposite direction."""
    for p in _DIRECTION_PREFIXES:
        if not a.startswith(p):
            continue
        for q in _DIRECTION_PREFIXES:
            if q == p or not b.startswith(q) or p.startswith(q) or q.startswith(p):
                continue
            ra, rb = a[len(p):], b[len(q):]
            if len(ra) >= 5 and ra == rb:
                return True
    return False


def _negated(words: list[str]) -> set[str]:
    return {words[i + 1] for i, w in enumerate(words[:-1]) if w in _NEGATORS}


def antonym_clash(an: Analyzer, description: str, rubrica: str | None) -> tuple[str, str] | None:
    """(word of the description, word of the rubrica) that mean the opposite, or None."""
    if not description or not rubrica:
        return None
    dw, rw = _words(an, description), _words(an, rubrica)
    dstems = {_stem(an, w) for w in dw}
    rstems = {_stem(an, w) for w in rw}
    d_only = [w for w in dict.fromkeys(dw) if len(w) >= 5 and _stem(an, w) not in rstems]
    r_only = [w for w in dict.fromkeys(rw) if len(w) >= 5 and _stem(an, w) not in dstems]
    for d in d_only:
        for r in r_only:
            if _prefixed(an, d, r) or _prefixed(an, r, d) or _swapped_prefix(d, r):
                return d, r
    dneg, rneg = _negated(dw), _negated(rw)
    for w in dneg - rneg:
        if len(w) >= 4 and _stem(an, w) in rstems:
            return f"non {w}", w
    for w in rneg - dneg:
        if len(w) >= 4 and _stem(an, w) in dstems:
            return w, f"non {w}"
    return None
