"""Citation extraction from Italian legal prose: statutes, case law, ECLI.

Why a scanner and not one big regex: drafts mix many citation shapes and must be processed
in linear time whatever the input (a pasted 1 MB brief, or garbage like ``art. art. art.``).
One flat trigger regex finds *anchors* (``art.``, ``legge``, ``Cass.``, ``ECLI:`` ...); at each
anchor small, anchored, length-bounded regexes parse forward (and, for prefixes such as
``secondo comma dell'art.``, look back over a fixed 80-character window). Every parser either
consumes text or fails after a bounded amount of work, and scanning resumes after what was
consumed, so total work is O(len(text)).

Conventions (abbreviations, two-digit year pivot, court names) are documented in
DISCOVERY.md (citation conventions).
"""

from __future__ import annotations

import re

import msgspec

from ..grammar import LATIN, ORDINAL_RE, ORDINALS, roman_to_int, transitional_key
from ..urn import act_identifiers, article_urn, build_ecli
from .anchors import FILTER, TRIGGER
from .cases import CaseReader
from .courts import COURT_NAMES
from .eu import BACKREF_EU, RecitalReader
from .model import PARTITION_NAMES, ActRef, Citation, Partitions, partitions_of
from .statutes import parse_act, parse_code, same_act
from .tokens import (
    CONNECT, LONG_NUMBER_DIGITS, MAX_ARTICLE_DIGITS, NUMSUF, ORD, ORD_FEM_RE, ORD_RE, SENTENCE_END, WS, norm_key,
)

__all__ = ["ActRef", "Citation", "Partitions", "extract_citations", "partitions_of", "COURT_NAMES", "PARTITION_NAMES"]


# --------------------------------------------------------------------------- acts


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
# what leads from partitions named first to their act: "comma 56 della legge ...", "paragrafo 3, lettera b), della"
_TO_ACT = re.compile(r"\s{0,3},?\s{0,3}(?:del|della|dello|dell['’]|dei|degli|delle|al|alla|allo|all['’])(?![a-zà-ù])", re.I)
# "del citato d.lgs. n. 165/2001": an act written out in full after a word that points back to it
_POINTER = re.compile(r"(?:citat[oa]|predett[oa]|richiamat[oa]|menzionat[oa]|suddett[oa]|succitat[oa]|sopra\s+citat[oa])\s{1,3}",
                      re.I)

# --------------------------------------------------------------------------- articles

_ART_HEAD = re.compile(rf"(?P<kw>artt?\.|art(?=\s+\d)|articol[oi](?![a-z]))(?:{WS}n\.|{WS}da(?=\s))?{WS}(?P<num>{NUMSUF})", re.I)
_COMMA = re.compile(
    rf"{WS},?{WS}(?:"
    rf"(?:comma|co\.|c\.)\s{{0,3}}(?P<c1>{NUMSUF})"
    rf"|commi\s{{1,3}}(?:da\s{{1,3}})?(?P<cf>{NUMSUF})(?:\s{{1,3}}a\s{{1,3}}|\s{{0,3}}[-–]\s{{0,3}})(?P<ct>\d{{1,4}}(?![\d/]))"  # a range: its ends
    rf"|commi\s{{1,3}}(?P<cl>{NUMSUF}(?:\s{{0,3}}(?:,|e|ed|o|oppure)\s{{0,3}}{NUMSUF}){{0,20}})"
    rf"|(?P<co>{ORD_RE}(?:\s{{0,3}}(?:,|e|ed|o)\s{{1,3}}{ORD_RE}){{1,6}})\s{{1,3}}comm[ai](?![a-z])"  # "primo e secondo comma"
    rf"|(?P<c2>{ORD_RE})\s{{1,3}}comma"
    rf"|(?P<c3>\d{{1,2}})\s?[°º]\s?(?:comma|co\.)"
    rf"|comma\s{{1,3}}(?P<c4>{ORD_RE})(?![a-z])"
    rf"|(?P<cpv>cpv\.?|capov(?:erso|\.))(?![a-z])"  # capoverso: the second comma ("art. 81 cpv. c.p.")
    rf")",
    re.I,
)
_LETT = re.compile(
    rf"{WS},?{WS}(?:lettera|lettere|lett\.|lett(?=\s))\s{{0,3}}(?P<l>[a-z]{{1,2}}(?:[-\s]?(?i:{LATIN}))?)(?![a-zà-ù])\)?"
    rf"(?P<more>(?:\s{{0,3}}(?:,|e|ed)\s{{0,3}}[a-z]{{1,2}}\)){{0,20}})",
    re.I,
)
# "n. 7" / "n. 7)" / "nn. 1 e 4" after an article, comma or lettera: the numero (never "n. 241/1990",
# "n. 231 del 2001", which are an act's coordinates)
_NUMERO = re.compile(
    rf"{WS},?{WS}(?:nn?\.|num\.|numeri|numero)\s{{0,3}}(?P<n>\d{{1,{MAX_ARTICLE_DIGITS}}}(?:[-\s]?(?i:{LATIN})(?![a-zà-ù]))?)(?P<par>[)°º])?"
    rf"(?P<more>(?:\s{{0,3}}(?:,|e|ed)\s{{0,3}}\d{{1,{MAX_ARTICLE_DIGITS}}}[)°º]?(?![\d/])){{0,10}})(?![\d/])"
    rf"(?!\s{{0,3}},?\s{{0,3}}del(?:l['’]|\s{{1,3}})\d)",
    re.I,
)
_PERIODO = re.compile(
    rf"{WS},?{WS}(?:(?P<po>{ORD_RE})\s{{1,3}}periodo|periodo\s{{1,3}}(?P<pn>\d{{1,2}})|(?P<cv>primo|secondo|terzo)\s+capoverso)",
    re.I)
# EU acts: "par. 1", "paragrafo 3", "§ 2"; "punto 7"
_PARAGRAFO = re.compile(rf"{WS},?{WS}(?:par(?:agrafo|\.)|§)\s{{0,3}}(?P<v>\d{{1,3}}(?:[-\s]?(?i:{LATIN})(?![a-zà-ù]))?)(?![\d/])", re.I)
_PUNTO = re.compile(rf"{WS},?{WS}(?:punto|punti|pt\.)\s{{0,3}}(?P<v>\d{{1,3}}(?:[-\s]?(?i:{LATIN})(?![a-zà-ù]))?|[a-z]\))(?![\d/])", re.I)
# structure of an act: "allegato II.12", "tabella A", "titolo V", "capo II", with "sezione", "parte", "libro" between
STRUCT_VALUE = r"(?:(?i:" + ORDINAL_RE + r")|\d{1,3}(?:[-\s](?:bis|ter|quater))?(?:\.\d{1,3})*|(?-i:[IVXLC]{1,7})(?:[-\s](?:bis|ter))?(?:\.\d{1,3})*|(?-i:[A-Z])(?:\.\d{1,3})*|unico)(?![\w/])"
_STRUCT = re.compile(
    rf"(?P<kind>allegato|allegati|all\.|tabella|tab\.|titolo|tit\.|capo|sezione|sez\.|parte|libro|lib\.)\s{{0,3}}(?P<v>{STRUCT_VALUE})",
    re.I,
)
_STRUCT_KIND = {"allegato": "allegato", "allegati": "allegato", "all.": "allegato", "tabella": "tabella", "tab.": "tabella",
                "titolo": "titolo", "tit.": "titolo", "capo": "capo"}
_STRUCT_SEP = re.compile(
    rf"{WS},?{WS}(?:(?:allegat[oa]|annessa|annesso)\s{{1,3}}(?:alla|allo|all['’]|al)(?![a-zà-ù])\s{{0,3}}"
    rf"|(?:della|dello|delle|dell['’]|del|alla|allo|all['’]|al|nella|nell['’]|nel)(?![a-zà-ù])\s{{0,3}})?",
    re.I,
)
# "considerando 26", "considerando n. 47" (EU acts)
_ANNEX_AFTER = re.compile(
    rf"{WS},?{WS}(?:dell['’]\s?|del\s+|nell['’]\s?|all['’]\s?)?(?:allegato|all\.)\s{{0,3}}(?P<v>{STRUCT_VALUE})", re.I
)
# a sentence's end where abbreviations abound ("c.c. e", "d.lgs. 231"): ; ! ? a new line, or a full stop and a capital
_SENTENCE_STOP = re.compile(r"[;!?]|\n|\.\s+[A-ZÀ-Ú]")
# what joins an article to the citation just before it: a comma and/or a conjunction, an article or preposition
_JOINED = re.compile(
    r"\s{0,3}(?:,\s{0,3}(?:(?:e|ed|nonch[ée]|nonche['’]|o|oppure|ovvero|nonch[ée]\s+(?:anche|pure))\s{1,3})?"
    r"|(?:e|ed|nonch[ée]|nonche['’]|o|oppure|ovvero)\s{1,3})"
    r"(?:(?:l['’]|dell['’]|all['’]|nell['’]|dall['’]|sull['’]|dagli|degli|agli|negli|gli)\s{0,3})?",
    re.I,
)
# the Costituzione's transitional provisions: "XII disp. trans. fin.", "la XII disposizione transitoria e finale",
# "disposizione transitoria XIX", "dodicesima disposizione transitoria"
_DT_WORDS = r"disp(?:\.|osizion[ei]|osiz\.)\s{0,3}trans(?:\.|itori[ae])(?:\s{0,3}(?:e\s{1,3})?fin(?:\.|al[ei]))?"
_DISP_TRANS = re.compile(
    rf"(?:(?P<r1>(?-i:[IVX]{{1,5}}))|(?P<o1>{ORD_FEM_RE}))\s{{1,3}}{_DT_WORDS}"
    rf"|{_DT_WORDS}\s{{1,3}}(?:n\.\s{{0,3}})?(?:(?P<r2>(?-i:[IVX]{{1,5}}))|(?P<d2>\d{{1,2}}))(?![\w])",
    re.I,
)
_SEQ_SEP = re.compile(rf"{WS}(?:,\s{{0,3}}(?:(?:e|ed|nonché|nonche['’])\s)?|e|ed|nonché|nonche['’]?|-|–)\s{{0,3}}(?:(?:l['’]|gli\s+)?(?:artt?\.|articol[oi](?![a-z]))\s{{0,3}})?", re.I)
_AND_SEP = re.compile(rf"{WS}(?:e|ed)\s{{1,3}}(?:(?:l['’]|all['’]|dell['’])?(?:art\.|articolo)\s{{0,3}})?", re.I)
_RANGE = re.compile(rf"{WS}(?:[-–]|a)\s{{0,3}}(?P<to>{NUMSUF})", re.I)
_NUM_START = re.compile(rf"(?P<num>{NUMSUF})(?!\s{{0,3}}(?:°|º|%|euro|persone|anni|giorni|mesi|volte|pagine|/))", re.I)
_SS = re.compile(r"\s{0,3}(?:e\s{1,3})?(?:(?:ss|segg|sgg|seg)\.|seguenti\b|successivi\b)", re.I)
_DESC = re.compile(r"\s{0,3}\((?P<d>[^()\n]{2,200})\)")
_DESC_REJECT = re.compile(r"\s*(?:art|artt|cfr|v\.|vedi|conv|in\s+g\.u|g\.u\.|ecli|cass|corte|\d)", re.I)

# prefixes before an article: "secondo comma dell'art.", "comma 2 dell'articolo", "lett. a) del comma 1 dell'art."
_PREFIX = re.compile(
    # "numero 1) della lettera a) del comma 1 dell'articolo 3", "il secondo periodo del comma 1 dell'articolo"
    rf"(?:(?:numero|n\.)\s{{0,3}}(?P<pnu>\d{{1,3}})\)?{WS},?\s{{0,3}}(?:della?{WS})?)?"
    rf"(?:(?:lett(?:era|\.)?)\s{{0,3}}(?P<pl>[a-z]{{1,2}})\)?{WS},?\s{{0,3}}(?:del(?:l['’])?{WS})?)?"
    rf"(?:(?:il{WS}|al{WS}|nel{WS})?(?P<ppe>{ORD_RE})\s{{1,3}}periodo{WS},?\s{{0,3}}(?:del{WS})?)?"
    rf"(?:(?:il{WS}|al{WS}|del{WS}|nel{WS}|dal{WS})?(?:(?P<po>{ORD_RE})\s{{1,3}}comma|comma\s{{1,3}}(?P<pn>{NUMSUF}))|(?:ai|nei|dei)?{WS}commi\s{{1,3}}(?P<pc>\d{{1,{MAX_ARTICLE_DIGITS}}}(?:\s{{0,3}}(?:,|e)\s{{0,3}}\d{{1,{MAX_ARTICLE_DIGITS}}}){{0,10}}))"
    rf"(?:{WS},?{WS}(?:lett(?:era|\.)?)\s{{0,3}}(?P<pl2>[a-z]{{1,2}})\)?)?"  # "comma 1, lett. a), dell'art. 2"
    rf"{WS},?{WS}(?:dell['’]|dell'|del|all['’]|nell['’]|di\s+cui\s+all['’]){WS}$",
    re.I,
)

# --------------------------------------------------------------------------- cases


# --------------------------------------------------------------------------- triggers


def _is_long(key: str) -> bool:
    """An article key whose number has LONG_NUMBER_DIGITS digits or more ('20121', '99999-bis')."""
    n = len(key) - len(key.lstrip("0123456789"))
    return n >= LONG_NUMBER_DIGITS


def _drop_long_numbers(items: list[tuple[str, dict]], ends: list[int], rng: str | None) -> tuple[int, str | None]:
    """Drop the long numbers ending an enumeration (not articles, when no act follows): returns
    (where the group now ends, its range if it still has one)."""
    while len(items) > 1 and _is_long(items[-1][0]):
        items.pop()
        ends.pop()
    return ends[-1], (rng if len(items) > 1 else None)


# --------------------------------------------------------------------------- parsing helpers


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


class PartitionReader:
    """The partitions of an article (comma, lettera, numero, periodo, paragrafo, punto), and the
    citations they lead: the Costituzione's transitional provisions, an act's allegato, titolo or
    capo, partitions named before their act. A part of the scanner (`_Scanner`)."""

    def parse_item_specs(self, pos: int) -> tuple[dict, int]:
        text = self.text
        spec: dict = {}
        for _ in range(8):
            m = _COMMA.match(text, pos)
            if m and "comma" not in spec:
                if m.group("c1"):
                    spec["comma"] = norm_key(m.group("c1"))
                elif m.group("cf"):  # "commi da 231 a 252": both ends, as an article range gives its ends
                    spec["comma"] = f"{norm_key(m.group('cf'))},{norm_key(m.group('ct'))}"
                elif m.group("co"):
                    spec["comma"] = ",".join(ORD[w.lower()] for w in re.findall(ORD_RE, m.group("co"), re.I))
                elif m.group("cl"):
                    parts = re.split(r"\s*(?:,|\be\b|\bed\b|\bo\b|\boppure\b)\s*", m.group("cl"))
                    spec["comma"] = ",".join(norm_key(x) for x in parts if x.strip())
                elif m.group("c3"):
                    spec["comma"] = str(int(m.group("c3")))
                elif m.group("cpv"):
                    spec["comma"] = "2"
                else:
                    spec["comma"] = ORD[(m.group("c2") or m.group("c4")).lower()]
                pos = m.end()
                continue
            m = _LETT.match(text, pos)
            if m and "lettera" not in spec:
                letters = [norm_key(m.group("l"))] + re.findall(r"([a-z]{1,2})\)", m.group("more") or "", re.I)
                spec["lettera"] = ",".join(x.lower() for x in letters)
                pos = m.end()
                continue
            m = _NUMERO.match(text, pos)
            if m and "numero" not in spec:
                nums = [norm_key(m.group("n"))] + re.findall(r"\d+", m.group("more") or "")
                spec["numero"] = ",".join(nums)
                pos = m.end()
                continue
            m = _PERIODO.match(text, pos)
            if m and "periodo" not in spec:
                if m.group("pn"):
                    spec["periodo"] = m.group("pn")
                elif m.group("po"):
                    spec["periodo"] = ORD[m.group("po").lower()]
                pos = m.end()
                continue
            m = _PARAGRAFO.match(text, pos)
            if m and "paragrafo" not in spec:
                spec["paragrafo"] = norm_key(m.group("v"))
                pos = m.end()
                continue
            m = _PUNTO.match(text, pos)
            if m and "punto" not in spec:
                spec["punto"] = norm_key(m.group("v").rstrip(")"))
                pos = m.end()
                continue
            break
        return spec, pos

    # -- the Costituzione's transitional provisions -------------------------------
    def parse_disp_trans(self, start: int) -> int:
        text = self.text
        m = _DISP_TRANS.match(text, start)
        if not m:
            return start + 1
        roman = m.group("r1") or m.group("r2")
        value = roman_to_int(roman) if roman else (ORDINALS.get(m.group("o1").lower()) if m.group("o1") else int(m.group("d2")))
        if not value:
            return m.end()
        spec, end = self.parse_item_specs(m.end())
        act, end2 = self.act_after(end)
        if act is None or act.act_type == "costituzione":
            act = ActRef(act_type="costituzione", code="cost", raw=text[end:end2].strip() or "Cost.")
            end = end2 if end2 != end else end
        else:
            end = end2
        self.out.append(Citation(raw=text[start:end], start=start, end=end, kind="statute", act=act,
                                 article=transitional_key(value), comma=spec.get("comma"), lettera=spec.get("lettera")))
        return end

    # -- partitions above the article: allegato, tabella, titolo, capo -------------------
    def parse_structure(self, start: int) -> int:
        text = self.text
        pos = start
        parts: dict[str, str] = {}
        for _ in range(6):
            m = _STRUCT.match(text, pos)
            if not m:
                break
            kind = _STRUCT_KIND.get(m.group("kind").lower())
            if kind and kind not in parts:
                parts[kind] = m.group("v")
            pos = m.end()
            sep = _STRUCT_SEP.match(text, pos)
            if not sep or not _STRUCT.match(text, sep.end()):
                break
            pos = sep.end()
        if not parts:
            return start + 1
        sep = _STRUCT_SEP.match(text, pos)
        act, end = self.act_after(sep.end() if sep else pos)
        if act is None:
            return pos  # "capo II" with no act: a heading, not a citation
        self.flush_pending()
        self.remember(act)
        self.out.append(Citation(raw=text[start:end], start=start, end=end, kind="statute", act=act, **parts))
        return end

    # -- partitions named before an act, no article between ----------------------
    def parse_partitions_of_act(self, start: int) -> int:
        """'comma 56 della legge n. 296/2006' (an act of one article), 'paragrafo 3, lettera b), della
        direttiva 2002/24/CE': the act cited with its partitions. Before an article ('comma 2
        dell'art. 5') nothing is read here: the article reads its own prefix."""
        near = self.text[start : start + 160].lower()
        if "del" not in near and "al" not in near:
            return start + 1  # no preposition near: the partitions of an article named later, or of nothing
        spec, end = self.parse_item_specs(start)
        if not spec:
            return start + 1
        # only a preposition leads from the partitions to an act: cheap to test, and most commi are of an
        # article named later ('comma 2 dell'art. 5') or of none (a text that just says 'commi 1 e 2')
        if not _TO_ACT.match(self.text, end):
            return end
        act, end2 = self.act_after(end)
        if act is None:
            return start + 1
        self.flush_pending()
        self.remember(act)
        self.out.append(Citation(raw=self.text[start:end2], start=start, end=end2, kind="statute", act=act, **spec))
        return end2


class ArticleReader:
    """Articles: 'art. 2043 c.c.', 'artt. 3, 4 e 5 della legge n. 241/1990', each with its partitions and
    its act, given, implied or referred back to. A part of the scanner (`_Scanner`)."""

    def parse_articles(self, start: int) -> int:
        text = self.text
        m = _ART_HEAD.match(text, start)
        if not m:
            return start + 1
        plural = m.group("kw").lower() in ("artt.", "articoli")
        prefix = self._prefix(start)
        group_start = start
        first = True
        head_end, first_key = m.end(), norm_key(m.group("num"))
        while True:
            items, rng, and_following, art_end, ends = self._parse_group(group_start, head_end, first_key, plural)
            keys = [k for k, _ in items]
            allegato = None
            am = _ANNEX_AFTER.match(text, art_end)
            if am:  # "art. 3 dell'allegato 1 al d.lgs. 104/2010": the annex's own article
                allegato, art_end = am.group("v"), am.end()
            act, pos2, via_br, unresolved = self.parse_act_spec(art_end, keys)
            if act is None and not via_br and _is_long(items[-1][0]) and len(items) > 1:
                # "artt. 3 e 4, 20121 Milano": a long number after the first, with no act after it,
                # is a postal code, an amount, a protocol number -- not an article
                art_end, rng = _drop_long_numbers(items, ends, rng)
                and_following = False
                keys = [k for k, _ in items]
            end = art_end
            if act is not None or via_br:
                end = self._act_given(act, via_br, items, pos2)
            else:
                act = self._act_implied(start, end)
            if via_br and act is not None:
                self._backfill(act, group_start)
            self._cite_articles(items, act, via_br, rng, and_following, allegato, group_start, end,
                                prefix if first else None)
            first = False
            # "artt. 3 Cost., 97 Cost. e 1 l. 241/1990": each item with its own act
            if not (plural and act is not None and not via_br):
                return end
            nxt = self._next_group(end, plural)
            if nxt is None:
                return end
            group_start, head_end, first_key = nxt

    def _parse_group(self, start: int, head_end: int, first_key: str, plural: bool):
        """Article items sharing one act: '575, 576 e 577 c.p.'. Returns (items, range, ss, end, ends),
        `ends[i]` being where item i (with its commi, lettere, numeri) ends."""
        text = self.text
        items: list[tuple[str, dict]] = []
        key = first_key
        spec, pos = self.parse_item_specs(head_end)
        items.append((key, spec))
        ends = [pos]
        rng = None
        while True:
            r = _RANGE.match(text, pos)
            if r and not spec and len(items) == 1 and (plural or text[pos:r.start("to")].strip() in ("-", "–")):
                to = norm_key(r.group("to"))
                if to.isdigit() and key.isdigit() and int(to) > int(key):
                    rng = f"{key}-{to}"
                    items.append((to, {}))
                    pos = r.end()
                    ends.append(pos)
                    break
            s = (_SEQ_SEP if plural else _AND_SEP).match(text, pos)
            if not s or (not plural and s.end() == s.start()):
                break
            n = _NUM_START.match(text, s.end())
            if not n:
                break
            key = norm_key(n.group("num"))
            spec, pos = self.parse_item_specs(n.end())
            items.append((key, spec))
            ends.append(pos)
        ss = _SS.match(text, pos)
        if ss:
            pos = ss.end()
        return items, rng, bool(ss), pos, ends

    def _act_given(self, act: ActRef | None, via_br: bool, items: list[tuple[str, dict]], end: int) -> int:
        """The act named after the articles (or back-referred to): it ends any preceding act's reach,
        and partitions may follow it ('art. 62-bis c.p., comma 1'). Returns where the citation ends."""
        if not via_br:
            # "art. 2043 c.c.": an explicit act ends the reach of any preceding act
            self.flush_pending()
            self.remember(act)
        if len(items) == 1 and not items[0][1]:
            # trailing specs after the act: "art. 62-bis c.p., comma 1"
            spec, e2 = self.parse_item_specs(end)
            if _is_long(spec.get("numero") or ""):
                spec = {}  # "d.m. 12 maggio 2020, n. 123456": the act's (or a protocol) number
            if spec:
                items[0] = (items[0][0], spec)
                end = e2
        return end

    def _act_implied(self, start: int, end: int) -> ActRef | None:
        """No act after the articles: the act named just before ('la legge n. 241/1990, all'art. 3'),
        or the act of the citation this one is joined to; None when neither."""
        act = self.pending_reaches(start)
        if act is not None:
            self.pending_used = True
            self.anchor_end = end
        else:
            act = self._joined_act(start, end)
        return act

    def _cite_articles(self, items: list[tuple[str, dict]], act: ActRef | None, via_br: bool, rng: str | None,
                       and_following: bool, allegato: str | None, group_start: int, end: int,
                       prefix: dict | None) -> None:
        """One citation per article of a group, all spanning the group; the prefix read before the
        first group ('secondo comma dell'art. 5') goes to its first article."""
        text = self.text
        desc = None
        d = _DESC.match(text, end)
        if d and not _DESC_REJECT.match(d.group("d")):
            desc = d.group("d").strip()
        raw = text[group_start:end]
        for i, (k, sp) in enumerate(items):
            c = Citation(
                raw=raw, start=group_start, end=end, kind="statute", act=act, act_unresolved=act is None,
                via_backreference=via_br, article=k, comma=sp.get("comma"), lettera=sp.get("lettera"),
                numero=sp.get("numero"), article_range=rng if rng and i in (0, len(items) - 1) else None,
                and_following=and_following and i == len(items) - 1,
                description=desc if i == len(items) - 1 else None,
                periodo=sp.get("periodo"), paragrafo=sp.get("paragrafo"), punto=sp.get("punto"), allegato=allegato,
            )
            if i == 0 and prefix:
                if c.comma is None and prefix.get("comma"):
                    c.comma = prefix["comma"]
                if c.lettera is None and prefix.get("lettera"):
                    c.lettera = prefix["lettera"]
                if c.numero is None and prefix.get("numero"):
                    c.numero = prefix["numero"]
                if c.periodo is None and prefix.get("periodo"):
                    c.periodo = prefix["periodo"]
            self.out.append(c)
            if act is not None:
                self.article_acts[k] = act

    def _next_group(self, end: int, plural: bool) -> tuple[int, int, str] | None:
        """(start, end of head, first key) of the next group of an enumeration when it names its own
        act ('artt. 3 Cost., 97 Cost. e 1 l. 241/1990'); None when the enumeration ends here."""
        text = self.text
        s = _SEQ_SEP.match(text, end)
        if not s or s.end() == end:
            return None
        n = _NUM_START.match(text, s.end())
        if not n:
            return None
        # only continue if this next group names its own act
        probe_items, _, _, probe_end, _ = self._parse_group(s.end(), n.end(), norm_key(n.group("num")), plural)
        c = CONNECT.match(text, probe_end)
        q = c.end() if c else probe_end
        if not (parse_code(text, q) or parse_act(text, q) or parse_code(text, probe_end) or parse_act(text, probe_end)):
            return None
        i = text[s.start() : s.end()].lower().find("art")  # ", gli artt. 3 ..." -> raw starts at the anchor
        group_start = s.start() + i if i >= 0 else s.end()
        return group_start, n.end(), norm_key(n.group("num"))

    def _joined_act(self, start: int, end: int) -> ActRef | None:
        """'l'art. 2043 c.c. e dell'art. 2059', 'l'art. 7 della legge 241 del 1990 e l'art. 8': an
        article joined by a conjunction or a comma to the citation just before it shares that
        citation's act, unless the rest of the sentence names another act (then the article may be
        of that one, and is left without an act rather than given a guess)."""
        prev = next((c for c in reversed(self.out) if c.kind == "statute"), None)
        if prev is None or prev.act is None or prev.end > start or start - prev.end > 40:
            return None
        if not _JOINED.fullmatch(self.text, prev.end, start):
            return None
        ahead = self.text[end : end + 200]
        stop = _SENTENCE_STOP.search(ahead)
        ahead = ahead[: stop.start()] if stop else ahead
        for t in TRIGGER.finditer(ahead):
            if t.lastgroup in ("art", "court", "ecli", "dt", "struct", "cons", "part"):
                continue
            hit = parse_act(ahead, t.start()) or parse_code(ahead, t.start())
            if hit is not None and not same_act(hit.act, prev.act):
                return None
        return prev.act

    def _backfill(self, act: ActRef, start: int) -> None:
        """'all'art. 9 e ... all'art. 13 dello stesso decreto': a back-reference names the act the
        sentence is about, so the articles before it in the same sentence left without an act get it."""
        for c in reversed(self.out):
            if c.kind != "statute" or c.start >= start:
                continue
            if SENTENCE_END.search(self.text, c.end, start) or start - c.end > 300:
                return
            if c.act is None and c.act_unresolved and c.article is not None:
                c.act, c.act_unresolved, c.via_backreference = act, False, True

    def _prefix(self, start: int) -> dict | None:
        window = self.text[max(0, start - 80) : start]
        i = window.rfind("omm")  # every prefix form names a comma/commi: cheap pre-check and cut
        if i < 0:
            return None
        window = window[max(0, i - 50) :]
        m = _PREFIX.search(window)
        if not m:
            return None
        out = {}
        if m.group("po"):
            out["comma"] = ORD[m.group("po").lower()]
        elif m.group("pn"):
            out["comma"] = norm_key(m.group("pn"))
        elif m.group("pc"):
            out["comma"] = ",".join(re.findall(r"\d+", m.group("pc")))
        if m.group("pl") or m.group("pl2"):
            out["lettera"] = (m.group("pl") or m.group("pl2")).lower()
        if m.group("pnu"):
            out["numero"] = m.group("pnu")
        if m.group("ppe"):
            out["periodo"] = ORD[m.group("ppe").lower()]
        return out


class _Scanner(ArticleReader, PartitionReader, RecitalReader, CaseReader, ActContext):
    """One pass over the text; holds the context needed for back-references."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[Citation] = []
        # last mention of each act type: (order, act); a dict keeps back-reference lookup O(1)
        self.last_by_type: dict[str, tuple[int, ActRef]] = {}
        self.n_acts = 0
        self.article_acts: dict[str, ActRef] = {}  # last act seen per article key ('art. 3 cit.')
        self.pending: tuple[ActRef, int, int] | None = None  # standalone act: (act, start, end)
        self.pending_used = False
        self.pending_conflict = False
        self.anchor_end = 0  # end of the text that last extended the pending act's reach

    def run(self) -> list[Citation]:
        text = self.text
        pos = 0
        n = len(text)
        while pos < n:
            f = FILTER.search(text, pos)
            if not f:
                break
            m = TRIGGER.match(text, f.start())
            if not m:
                pos = f.start() + 1
                continue
            s = m.start()
            g = m.lastgroup
            if g == "ecli":
                pos = self.parse_ecli(s)
            elif g == "art":
                pos = self.parse_articles(s)
            elif g == "dt":
                pos = self.parse_disp_trans(s)
            elif g == "struct":
                pos = self.parse_structure(s)
            elif g == "cons":
                pos = self.parse_considerando(s)
            elif g == "part":
                pos = self.parse_partitions_of_act(s)
            elif g == "court":
                anchor = m.group(0)
                if anchor in ("C.d.S.", "CdS") and not re.match(r"\s*,?\s*(?:[Ss]ez|n\.|sent|ord|[Aa]d\.|A\.\s?P\.)", text[m.end() : m.end() + 12]):
                    pos = m.end()
                    continue
                new = self.parse_case(s, anchor)
                if new == s + 1:
                    if self.parse_case_prefixed(s, anchor):
                        new = max(m.end(), self.out[-1].end)
                pos = max(new, m.end()) if new != s + 1 else s + 1
            else:
                pos = self.parse_act_mention(s)
        self.flush_pending()
        self._cite_conversion_laws()
        self.out.sort(key=lambda c: (c.start, c.end))
        return self.out

    def _cite_conversion_laws(self) -> None:
        """'D.L. 6 dicembre 2011, n. 201, convertito dalla legge 22 dicembre 2011, n. 214': the
        conversion law is cited too (and can be wrong on its own), so it is a citation of its own
        beside the decree that carries it as `converted_by`."""
        seen = {(c.start, c.end) for c in self.out if c.kind == "statute" and c.article is None}
        for c in list(self.out):
            conv = c.act.converted_by if c.kind == "statute" and c.act is not None else None
            if conv is None or conv.start < 0 or (conv.start, conv.end) in seen:
                continue
            seen.add((conv.start, conv.end))
            decree = msgspec.structs.replace(c.act, converted_by=None)
            self.out.append(Citation(raw=self.text[conv.start:conv.end], start=conv.start, end=conv.end,
                                     kind="statute", act=conv, converts=decree))


def extract_citations(text: str) -> list[Citation]:
    """Every statute article, act, case and ECLI citation in `text`, in order of appearance.

    Never raises on odd input; offsets always satisfy ``text[c.start:c.end] == c.raw``.
    """
    if not isinstance(text, str) or not text:
        return []
    out = _Scanner(text).run()
    for c in out:
        identify(c)
    return out


def identify(c: Citation) -> None:
    """Fill the identifiers of a citation: the act's URN (or ELI/CELEX), the cited article's URN,
    a decision's ECLI where it can be built. Pure: what the text gives, nothing looked up."""
    if c.kind == "statute" and c.act is not None:
        act = c.act
        if act.urn is None and act.eli is None:
            act.urn, act.eli, act.celex = act_identifiers(act)
            if act.converted_by is not None and act.converted_by.urn is None:
                act.converted_by.urn = act_identifiers(act.converted_by)[0]
        c.urn = article_urn(act, c.article) if act.urn else None
    elif c.kind == "case" and c.ecli is None:
        c.ecli = build_ecli(c.court, c.decision_year, c.decision_number, branch=c.court_branch,
                            decision_type=c.decision_type)
