"""Which act a statute citation is of when the text does not name it right there: the act named
just before, a back-reference ('della medesima legge', 'cit.'), the act a description leads to.
Apart because it is the scanner's memory: every statute reader asks it."""

from __future__ import annotations

import re

from .eu import BACKREF_EU
from .model import ActRef, Citation
from .statutes import parse_act, parse_code, same_act
from .tokens import CONNECT, SENTENCE_END

# Back-references: "della medesima legge", "dello stesso decreto", "del citato d.lgs.", "l. cit."
_BR_NOUN = (
    r"(?P<noun>legge|regio\s+decreto(?:[\s-]+legge)?|decreto[\s-]+legislativo|decreto[\s-]+legge|decreto|d\.\s?lgs\.|d\.\s?l\.|"
    r"d\.\s?p\.\s?r\.|dpr|codice|testo\s+unico|t\.\s?u\.|regolamento|direttiva|l\.|provvedimento|atto|normativa)"
)
_BACKREF_PRE = re.compile(
    rf"(?:medesim[oa]|stess[oa]|citat[oa]|predett[oa]|suddett[oa]|richiamat[oa]|menzionat[oa]|sopra\s+citat[oa]|anzidett[oa])\s{{1,3}}{_BR_NOUN}",
    re.I,
)
_BACKREF_POST = re.compile(rf"{_BR_NOUN}\s{{0,3}}(?:cit\.|citat[oa](?![a-z])|da\s+ultimo\s+citat[oa])", re.I)
_BACKREF_BARE = re.compile(r"cit\.", re.I)
# "del regolamento DORA", "della direttiva NIS 2": the kind written before the act's nickname
_EU_KIND_WORD = re.compile(r"(?i:regolamento|direttiva|reg\.|dir\.)\s{1,3}")

_GAP = re.compile(r"\s{0,3},?\s{0,3}")
# "dell'articolo 10 del regolamento di cui al decreto del Ministro dell'interno 4 aprile 2000, n. 119", "del testo
# unico delle leggi in materia bancaria e creditizia, di cui al decreto legislativo ...": the act named after what it
# is, joined by "di cui al" / "approvato con" (bounded: no sentence end, at most 120 characters between)
_DESCRIBED = re.compile(
    r"\s{0,3},?\s{0,3}(?:del|della|dello|dell['’]|al|alla|dal|dalla|nel|nella)\s{0,3}"
    r"(?:testo\s+unico|t\.\s?u\.|regolamento|codice|disciplina|norme|decreto|legge)\b[^;.!?()\n]{0,120}?"
    r"(?:,\s{0,3})?(?:di\s+cui\s+al(?:la|lo|l['’]\s?)?|approvat[oa]\s+(?:con|dal(?:la)?)|emanat[oa]\s+con|adottat[oa]\s+con)\s{1,3}",
    re.I,
)
# "del citato d.lgs. n. 165/2001": an act written out in full after a word that points back to it
_POINTER = re.compile(r"(?:citat[oa]|predett[oa]|richiamat[oa]|menzionat[oa]|suddett[oa]|succitat[oa]|sopra\s+citat[oa])\s{1,3}",
                      re.I)
# the act types a back-reference's noun may stand for
_KIND_OF_NOUN = [
    (re.compile(r"regio\s+decreto[\s-]+legge", re.I), ("regio.decreto.legge",)),
    (re.compile(r"regio\s+decreto", re.I), ("regio.decreto",)),
    (re.compile(r"direttiva", re.I), ("ue.direttiva",)),
    (re.compile(r"decreto[\s-]+legislativo|d\.\s?lgs\.", re.I), ("decreto.legislativo",)),
    (re.compile(r"decreto[\s-]+legge|d\.\s?l\.", re.I), ("decreto.legge",)),
    (re.compile(r"d\.\s?p\.\s?r\.|dpr", re.I), ("decreto.del.presidente.della.repubblica",)),
    (re.compile(r"decreto", re.I), ("decreto.legislativo", "decreto.legge", "decreto.del.presidente.della.repubblica",
                                    "decreto.ministeriale", "regio.decreto", "regio.decreto.legge",
                                    "decreto.del.presidente.del.consiglio.dei.ministri")),
    (re.compile(r"legge|l\.", re.I), ("legge", "legge.costituzionale", "legge.regionale")),
    (re.compile(r"codice", re.I), ("codice",)),
]


def _kinds_for(noun: str) -> tuple[str, ...] | None:
    for rx, kinds in _KIND_OF_NOUN:
        if rx.fullmatch(noun.strip()):
            return kinds
    return None  # testo unico, regolamento, atto...: any act


class ActContext:
    """Which act a statute citation is of: the act named just before it and how far it reaches, a
    back-reference ('della medesima legge', 'cit.'), the act named after a partition. A part of the
    scanner (`_Scanner`), which holds the state of the pass."""

    # -- standalone acts ---------------------------------------------------
    def flush_pending(self) -> None:
        if self.pending and not self.pending_used:
            act, s, e = self.pending
            if act.act_type not in ("codice", "costituzione"):
                self.out.append(Citation(raw=self.text[s:e], start=s, end=e, kind="statute", act=act))
        self.pending = None
        self.pending_used = False

    def _set_pending(self, act: ActRef, s: int, e: int) -> None:
        # a second act named in the same sentence: an article after both is not surely of the last
        # ("La legge n. 241 del 1990 ha modificato la disciplina del codice penale con l'art. 3")
        prev = self.pending
        near = prev is not None and s - prev[2] <= 200 and not SENTENCE_END.search(self.text, prev[2], s)
        if near and same_act(prev[0], act):
            # the same act named twice: "La legge n. 300/70 (Statuto dei lavoratori)"; "il codice di procedura
            # penale fu approvato con d.P.R. 22 settembre 1988, n. 447": the act cited by its coordinates counts
            if act.code or not prev[0].code:
                self.anchor_end = e
                return
            self.pending = None
        else:
            self.pending_conflict = bool(near)
        self.flush_pending()
        self.pending = (act, s, e)
        self.anchor_end = e
        self.remember(act)

    def remember(self, act: ActRef) -> None:
        self.n_acts += 1
        self.last_by_type[act.act_type] = (self.n_acts, act)

    def pending_reaches(self, start: int) -> ActRef | None:
        if not self.pending or self.pending_conflict:
            return None
        if start - self.anchor_end > 80:  # test before slicing: keeps the scan linear
            return None
        gap = self.text[self.anchor_end : start]
        if re.search(r"[.;!?]\s|\n", gap) or re.search(r"[;!?]$", gap):
            return None
        return self.pending[0]

    # -- back-references -----------------------------------------------------
    def resolve(self, kinds: tuple[str, ...] | None) -> ActRef | None:
        found = [self.last_by_type[k] for k in (kinds or self.last_by_type) if k in self.last_by_type]
        return max(found, key=lambda t: t[0])[1] if found else None

    def parse_act_spec(self, pos: int, article_keys: list[str]):
        """After the article list: code, coordinates, back-reference. Returns (act, end, via_br, unresolved)."""
        text = self.text
        c = CONNECT.match(text, pos)
        p = c.end() if c else pos
        # the connector may be the act's own first word ("ai" of "AI Act"): try without it too
        bare = _GAP.match(text, pos).end()
        pointer = _POINTER.match(text, p)
        described = _DESCRIBED.match(text, pos)
        for q in dict.fromkeys((p, *((pointer.end(),) if pointer else ()), bare, pos,
                                *((described.end(),) if described else ()))):
            hit = parse_act(text, q) or parse_code(text, q)
            if hit:
                return hit.act, hit.end, False, False
        kind_word = _EU_KIND_WORD.match(text, p)
        if kind_word:
            hit = parse_code(text, kind_word.end())
            if hit:
                return hit.act, hit.end, False, False
        for q in ((p, pos) if p != pos else (pos,)):
            b = _BACKREF_PRE.match(text, q) or _BACKREF_POST.match(text, q)
            if b:
                act = self.resolve(_kinds_for(b.group("noun")))
                return act, b.end(), True, act is None
            b = BACKREF_EU.match(text, q)
            if b:
                act = self.resolve(("ue.regolamento",) if b.group("noun") == "Regolamento" else ("ue.direttiva",))
                if act is not None:
                    return act, b.end(), True, False
            b = _BACKREF_BARE.match(text, q)
            if b:
                act = None
                for k in article_keys:
                    act = self.article_acts.get(k) or act
                act = act or self.resolve(None)
                return act, b.end(), True, act is None
        return None, pos, False, True

    # -- standalone act mention ------------------------------------------------
    def parse_act_mention(self, start: int) -> int:
        hit = parse_act(self.text, start) or parse_code(self.text, start)
        if not hit:
            return start + 1
        self._set_pending(hit.act, start, hit.end)
        for other in hit.more:  # "dd.P.R. nn. 301, 305 e 309 del 1990": each act cited
            self.out.append(Citation(raw=self.text[start:hit.end], start=start, end=hit.end, kind="statute", act=other))
        return hit.end

    def act_after(self, pos: int) -> tuple[ActRef | None, int]:
        """The act named right after a partition ('... della Costituzione', '... al d.lgs. 231/2001'),
        else (None, pos)."""
        c = CONNECT.match(self.text, pos)
        for q in dict.fromkeys((c.end() if c else pos, _GAP.match(self.text, pos).end(), pos)):
            hit = parse_act(self.text, q) or parse_code(self.text, q)
            if hit:
                return hit.act, hit.end
        return None, pos
