"""EU acts as Italian prose cites them: regulations, directives and decisions with their numbering,
their recitals, the act named by its kind alone once cited. Apart because the EU numbers its acts
by rules of its own (year first or number first, by kind and era)."""

from __future__ import annotations

import datetime as _dt
import re

from ..grammar import MONTH_RE
from .model import ActHit, ActRef, Citation
from .tokens import CONNECT, WS

# EU acts: "Regolamento (UE) 2016/679", "reg. CE n. 44/2001", "direttiva 2006/123/CE", "Dir. (UE) 2019/1937"
EU_ACT = re.compile(
    rf"(?P<kind>regolamento|reg\.|direttiv[ae]|dir\.|decisione(?:[\s-]quadro)?)"
    rf"(?:\s{{1,3}}(?:delegato|di\s+esecuzione))?{WS}"
    rf"(?:\(\s?(?P<org>UE|CEE|CE|Euratom|GAI)\s?\)|(?P<org2>UE|CEE|CE)(?![A-Za-z]))?{WS}"
    rf"(?P<n>n(?:\.{WS}|\s{{1,3}}(?=\d)))?(?P<a>\d{{1,4}})\s?/\s?(?P<b>\d{{1,4}})(?![\d])(?:\s?/\s?(?P<org3>UE|CEE|CE|GAI|Euratom))?"
    rf"(?:{WS},?{WS}del\s+Parlamento\s+europeo\s+e\s+del\s+Consiglio|{WS},?{WS}del\s+Consiglio)?"
    rf"(?:{WS},?{WS}del\s+(?:\d{{1,2}}|1°)\s{{1,3}}{MONTH_RE}\s{{1,3}}\d{{4}})?",
    re.I,
)
# further acts of the same kind, the kind written once: "le direttive 79/409/CEE e 92/43/CEE"
_EU_MORE = re.compile(
    rf"{WS}(?:,|e|ed)\s{{1,3}}(?:n\.{WS})?(?P<a>\d{{2,4}})\s?/\s?(?P<b>\d{{1,4}})(?![\d])(?:\s?/\s?(?:UE|CEE|CE|GAI|Euratom))?"
)


def _eu_year(raw: str) -> int | None:
    """A year of an EU act's number: four digits from 1958 (the first acts) to this year, or two
    digits (1958-1998 numbering, '93/13/CEE'); None when it cannot be one."""
    v = int(raw)
    if len(raw) == 2:
        return 1900 + v if v >= 58 else 2000 + v
    return v if len(raw) == 4 and 1958 <= v <= _dt.date.today().year else None


def _eu_numbering(kind: str, a: str, b: str, numbered: bool) -> tuple[int, str] | None:
    """(year, number) of an EU act's 'a/b'. Directives were always numbered year first ('93/13/CEE',
    '2006/123/CE'); regulations and decisions until 2014 number first ('(CE) n. 44/2001',
    '(CEE) n. 1408/71', 'decisione n. 1386/2013/UE', but Commission decisions 'decisione
    2010/87/UE'), since 2015 year first ('(UE) 2016/679'). So: a directive's first part is its year;
    otherwise the part that can only be a year is the year, and with both possible 'n.' says
    number first."""
    if kind == "ue.direttiva":
        year = _eu_year(a)
        return (year, str(int(b))) if year else None
    ya, yb = (_eu_year(a) if len(a) == 4 else None), _eu_year(b) if len(b) in (2, 4) else None
    if ya and not yb:
        return ya, str(int(b))
    if yb and not ya:
        return yb, str(int(a))
    if ya and yb:
        return (yb, str(int(a))) if numbered else (ya, str(int(b)))
    return None


def eu_style_number(m: re.Match) -> bool:
    """'direttiva 2014/24', 'regolamento 2016/679' without (UE): a four-digit year first is the EU's
    numbering (directives since 1999, every act since 2015); an Italian ministerial 'direttiva n.
    3/2020' puts its number first."""
    a, kind = m.group("a"), m.group("kind").lower()
    if m.group("n") or not a.isdigit():
        return False
    if len(a) == 2:  # 'direttiva 93/13': directives were numbered year first, two digits until 1998
        return kind.startswith("dir") and int(a) >= 58
    if len(a) != 4:
        return False
    first_year = 1999 if kind.startswith("dir") else 2015
    return first_year <= int(a) <= _dt.date.today().year


def eu_act(m: re.Match, text: str, pos: int) -> ActHit | None:
    """An EU act with its number read by `_eu_numbering`; None when 'a/b' cannot be an EU number."""
    kind = m.group("kind").lower()
    act_type = ("ue.regolamento" if kind.startswith("reg") else "ue.direttiva" if kind.startswith("dir")
                else "ue.decisione.quadro" if "quadro" in kind else "ue.decisione")
    read = _eu_numbering(act_type, m.group("a"), m.group("b"), bool(m.group("n")))
    if read is None:
        return None
    year, number = read
    more: list[ActRef] = []
    end = m.end()
    # "le direttive 79/409/CEE e 92/43/CEE", "regolamenti (UE) 2016/679 e 2018/1725": the kind written once
    for _ in range(10):
        nxt = _EU_MORE.match(text, end)
        if nxt is None or (other := _eu_numbering(act_type, nxt.group("a"), nxt.group("b"), False)) is None:
            break
        more.append(ActRef(act_type=act_type, number=other[1], year=other[0], raw=nxt.group(0).strip(" ,"),
                           start=nxt.start("a"), end=nxt.end()))
        end = nxt.end()
    return ActHit(ActRef(act_type=act_type, number=number, year=year, raw=text[pos:m.end()].strip(), start=pos,
                          end=m.end()), end, more)


# an EU act named by its kind alone once cited, as briefs define it ("il Regolamento (UE) 2016/679 (di
# seguito, il Regolamento)"; "l'art. 6, par. 1, della direttiva"): capitalised Regolamento (a lower-case
# "regolamento" is as often a municipal or a condominium one), Direttiva or direttiva; never when
# coordinates follow
BACKREF_EU = re.compile(
    r"(?P<noun>(?-i:Regolamento)|(?i:direttiva))(?![a-zà-ù])(?!\s{0,3}(?:\(|n\.|nr\.|\d|UE\b|CE\b|CEE\b|delegat|di\s+esecuzione))"
)
# "considerando 26", "considerando n. 47"
_CONSIDERANDO = re.compile(r"(?:(?i:considerando|consid\.)|cons\.)\s{1,3}(?:n\.\s{0,3})?(?P<v>\d{1,3})(?![\d/])")


class RecitalReader:
    """An EU act's recitals ('considerando 26 del GDPR'), and the EU act named by its kind alone once
    cited ('del Regolamento'). A part of the scanner (`_Scanner`)."""

    def parse_considerando(self, start: int) -> int:
        m = _CONSIDERANDO.match(self.text, start)
        if not m:
            return start + 1
        act, end = self.act_after(m.end())
        if act is None:
            act = self.pending_reaches(start)
            end = m.end()
        if act is None:
            act, end = self._eu_backreference(m.end())
            if act is None:
                return m.end()
        self.out.append(Citation(raw=self.text[start:end], start=start, end=end, kind="statute", act=act,
                                 considerando=m.group("v")))
        return end

    def _eu_backreference(self, pos: int) -> tuple[ActRef | None, int]:
        """'considerando 155 del Regolamento': the EU act of that kind cited last, else (None, pos)."""
        c = CONNECT.match(self.text, pos)
        b = BACKREF_EU.match(self.text, c.end() if c else pos)
        if not b:
            return None, pos
        act = self.resolve(("ue.regolamento",) if b.group("noun") == "Regolamento" else ("ue.direttiva",))
        return (act, b.end()) if act is not None else (None, pos)
