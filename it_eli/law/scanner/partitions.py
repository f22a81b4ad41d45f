"""The partitions of an article (comma, lettera, numero, periodo, paragrafo, punto) and of an act
(allegato, tabella, titolo, capo), and the citations a partition leads. Apart from the article reader:
partitions are read after an article, before it, and with no article at all."""

from __future__ import annotations

import re

from ..grammar import LATIN, ORDINAL_RE, ORDINALS, roman_to_int, transitional_key
from .model import ActRef, Citation
from .tokens import MAX_ARTICLE_DIGITS, NUMSUF, ORD, ORD_FEM_RE, ORD_RE, WS, norm_key

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
# what leads from partitions named first to their act: "comma 56 della legge ...", "paragrafo 3, lettera b), della"
_TO_ACT = re.compile(r"\s{0,3},?\s{0,3}(?:del|della|dello|dell['’]|dei|degli|delle|al|alla|allo|all['’])(?![a-zà-ù])", re.I)
# the Costituzione's transitional provisions: "XII disp. trans. fin.", "la XII disposizione transitoria e finale",
# "disposizione transitoria XIX", "dodicesima disposizione transitoria"
_DT_WORDS = r"disp(?:\.|osizion[ei]|osiz\.)\s{0,3}trans(?:\.|itori[ae])(?:\s{0,3}(?:e\s{1,3})?fin(?:\.|al[ei]))?"
_DISP_TRANS = re.compile(
    rf"(?:(?P<r1>(?-i:[IVX]{{1,5}}))|(?P<o1>{ORD_FEM_RE}))\s{{1,3}}{_DT_WORDS}"
    rf"|{_DT_WORDS}\s{{1,3}}(?:n\.\s{{0,3}})?(?:(?P<r2>(?-i:[IVX]{{1,5}}))|(?P<d2>\d{{1,2}}))(?![\w])",
    re.I,
)


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
