"""The case reader: a court, then its section, decision type, date and number ('Cass. civ., sez. III,
12 febbraio 2021, n. 3456'), the further decisions listed or chained after it, a decision named
before its court, an ECLI. Apart: the courts' family, read element by element (case_grammar)."""

from __future__ import annotations

import re

from ..grammar import ORDINALS, iso_date, roman_to_int
from .anchors import TRIGGER
from .case_grammar import (
    BARE_HEAD,
    CASE_CHAIN,
    CASE_EL,
    CASE_PREFIX,
    DASH_LEAD,
    DATE_PARTS,
    ECLI,
    EU_TRIB,
    LIST_ITEM,
    LIST_TAIL,
    NUM_PARTS,
    OF_AFTER,
    OF_BEFORE,
    PLEN_OF_CDS,
    PLURAL_DTYPE,
    PREFIX_WINDOW,
    SEC_BEFORE,
    item_numbers,
)
from .courts import SEATED, court_of
from .model import Citation
from .places import PLACE, TAR_PLACE, seat_name, tar_seat
from .tokens import read_year


def _roman(s: str) -> str:
    return str(roman_to_int(s) or s)


def _case_date(raw: str) -> tuple[str | None, int | None]:
    """(ISO date, year) of a decision's date as written ('2.1.19' -> 2019-01-02); (None, None) if none."""
    dm = DATE_PARTS.search(raw)
    if not dm:
        return None, None
    if dm.group("d"):
        y = int(dm.group("y"))
        return iso_date(dm.group("d"), dm.group("m"), y), y
    y = read_year(dm.group("y2"))
    return iso_date(dm.group("d2"), dm.group("m2"), y), y


def _is_deposit(raw: str) -> bool:
    return raw.lstrip("( ").lower().startswith("dep")


def _take_date(c: Citation, raw: str, deposit: bool = False) -> None:
    """Date a decision by the first date written, or by its deposit when that follows
    ("12/01/2022 (dep. 10/03/2022)"): a decision is numbered and dated when deposited."""
    iso, y = _case_date(raw)
    if not iso:
        return  # "12.13.20" is no date, and its "20" no year
    if c.decision_date is None:
        c.decision_date, c.decision_year = iso, c.decision_year or y
    elif (deposit or _is_deposit(raw)) and c.decision_date != iso:
        if c.decision_year == int(c.decision_date[:4]):
            c.decision_year = y  # the year came from the hearing's date
        c.decision_date = iso


def _section_code(raw: str) -> str:
    """A section's code from its ordinal as written: 'Terza' -> '3', 'Seconda Bis' -> '2-bis',
    'IV Sezione' -> '4', '3ª' -> '3'."""
    words = re.sub(r"(?i)\s*(?:sez(?:ione|\.))\s*$", "", re.sub(r"\s?[ªº°^]", "", raw.strip())).replace("-", " ").split()
    head = words[0].lower().rstrip("ªº°^a") if words[0][0].isdigit() else words[0].lower()
    if head.isdigit():
        base = str(int(head))
    elif head in ORDINALS:
        base = str(ORDINALS[head])
    else:
        base = _roman(head.upper())
    return base + "".join("-" + w.lower() for w in words[1:])


def _read_section(c: Citation, g: str, val: str) -> bool:
    """Set on `c` the section or branch a case element `g` names ('civ.', 'S.U.', 'sez. III', 'sez. L', 'Sezione
    Terza', 'lav.', 'sez. giur.'); False when the element names neither."""
    if g == "branch":
        c.court_branch = "civ" if val.lower().startswith("civ") else "pen"
    elif g == "su":
        c.court_section = "U"
    elif g == "plen":
        c.court_section = "plen"
    elif g == "sez":
        v = val.rstrip(".").lower()
        v = {"l": "lav", "f": "fer"}.get(v, v)  # the Cassazione's own codes: "Sez. L", "Sez. F"
        if v.startswith("lav"):
            c.court_section, c.court_branch = "lav", c.court_branch or "civ"
        elif v.startswith("trib"):
            c.court_section, c.court_branch = "trib", c.court_branch or "civ"
        elif v.startswith("fer"):
            c.court_section = "fer"
        elif v[:3] in ("pen", "civ") and v in ("pen", "civ", "penale", "civile"):
            c.court_branch = v[:3]  # "sez. penale" of a Corte d'appello: the branch
        else:
            rm = re.match(r"([ivx]+|\d+)(.*)", v)
            if rm:
                base = _roman(rm.group(1).upper()) if rm.group(1)[0] in "ivx" else str(int(rm.group(1)))
                suf = rm.group(2).strip(" -–")
                c.court_section = base + ("-" + suf if suf else "")
            else:
                c.court_section = v
    elif g in ("sezw", "sezpre"):
        c.court_section = _section_code(val)
    elif g == "bare":
        c.court_section = _roman(val.split("-")[0]) + ("-" + val.split("-")[1] if "-" in val else "")
    elif g == "lav":
        c.court_section, c.court_branch = "lav", c.court_branch or "civ"
    elif g == "sezx":
        c.court_section = c.court_section or re.sub(r"^sez(?:ioni|ione|z?\.)\s?", "", re.sub(r"\s+", " ", val.strip()).lower())
    else:
        return False
    return True


def _read_causa(c: Citation, val: str) -> None:
    """An EU case number: 'C-311/18', 'causa T-604/18'."""
    cm = re.search(r"([CTF])\s?[-–]\s?(\d{1,4})/(\d{2})", val)
    c.decision_number = f"{cm.group(1)}-{int(cm.group(2))}/{cm.group(3)}"
    c.decision_year = c.decision_year or read_year(cm.group(3))


def _read_number(c: Citation, val: str) -> bool:
    """A decision's number with its year or date: 'n. 1234/2020', 'n. 5 del 12 marzo 2021'. True when
    the number carries its year."""
    nm = NUM_PARTS.match(val)
    c.decision_number = str(int(nm.group("n")))
    yraw = nm.group("y2") or nm.group("y4")
    if yraw:
        c.decision_year = read_year(yraw)
    if nm.group("d") and c.decision_date is None:
        c.decision_date = iso_date(nm.group("d"), nm.group("m"), c.decision_year)
    return bool(yraw)


class CaseReader:
    """Case law: a court, then its section, decision type, date and number ('Cass. civ., sez. III, 12
    febbraio 2021, n. 3456'), lists and chains of the same court's decisions, the decision named
    before its court, and ECLI. A part of the scanner (`_Scanner`)."""

    # -- ECLI -----------------------------------------------------------------
    def parse_ecli(self, start: int) -> int:
        m = ECLI.match(self.text, start)
        if not m:
            return start + 1
        court, ordinal = m.group("court").upper(), m.group("ord").upper()
        c = Citation(raw=m.group(0), start=start, end=m.end(), kind="ecli", ecli=m.group(0).upper(),
                     decision_year=int(m.group("year")))
        if court.startswith("TAR") and len(court) > 3:
            c.court, c.court_seat = "TAR", court[3:]
        else:
            c.court = court
        om = re.match(r"(\d+)([A-Z]*)", ordinal)
        if om:
            c.decision_number = str(int(om.group(1)))
            suf = om.group(2)
            if suf in ("SENT", "S"):
                c.decision_type = "sentenza"
            elif suf in ("ORD", "O"):
                c.decision_type = "ordinanza"
            elif suf in ("CIV", "PEN"):
                c.court_branch = suf.lower()
            elif suf:
                c.decision_type = suf.lower()
        self.out.append(c)
        return m.end()

    # -- case law -----------------------------------------------------------
    def parse_case(self, start: int, anchor: str) -> int:
        c, court, pos = self._case_head(start, anchor)
        end = self.decision_rest(c, court, pos)
        if end is None:
            return start + 1
        return self.continued_items(c, end)

    def decision_rest(self, c: Citation, court: str, pos: int, item: bool = False) -> int | None:
        """Read a decision's elements from pos (its court already on `c`), append it and the decisions
        listed or chained with it; returns where they end, or None when no decision is there. An `item`
        of a list needs its number and, unless its type is written, its year; and is not another court's."""
        text = self.text
        pos, got_num, got_date, date_end, plural, num_year, last = self._case_elements(c, court, pos)
        if not got_num and last == "dtype":
            # numbers right after the type, no "n.", sharing a year: "Corte cost., sentt. 348 e 349 del 2007"
            hm = BARE_HEAD.match(text, pos)
            lm = LIST_TAIL.match(text, hm.end()) if hm else None
            if lm and (lm.group("y2") or lm.group("y4")):
                c.decision_number, got_num, pos = str(int(hm.group("n"))), True, hm.end()
        if not got_num and (item or not got_date):
            # a court name alone is prose; with a date and no number it is still a citation
            # ("Cass., 12 febbraio 2021"; "Corte EDU, 8 gennaio 2013, Torreggiani c. Italia")
            return None
        if not got_num:
            pos = date_end  # date-only: the citation ends with its date
        listed, pos = self._listed_numbers(c, pos, got_num and not num_year, plural)
        # a trailing date after the number: "n. 456, 12 luglio 2023" / "n. 456 del 12/07/2023"
        m = CASE_EL.match(text, pos) if not listed else None
        if m and m.lastgroup == "date" and (c.decision_date is None or _is_deposit(m.group("date"))):
            _take_date(c, m.group("date"))
            pos = m.end()
        if c.decision_year is None and c.decision_date:
            c.decision_year = int(c.decision_date[:4])
        if item and (c.decision_type is None and c.decision_year is None or self.of_someone_else(pos, court)):
            return None  # "e n. 6" is no decision; "e la sentenza n. 5/2020 del giudice di pace" not this court's
        c.end = pos
        c.raw = text[c.start:pos]
        self.out.append(c)
        # a list shares its span, as an enumeration of articles does ("artt. 3 e 4")
        for n in listed:
            self.out.append(self._same_court(c, c.start, pos, n, c.decision_year, c.decision_date, c.decision_type))
        return self._chained_decisions(c, pos, plural)

    def _case_head(self, start: int, anchor: str) -> tuple[Citation, str, int]:
        """The court named at start, with what its name carries: the section written before it, the
        plenary, the Tribunale UE, the seat. Returns (the citation begun, court, where its elements start)."""
        text = self.text
        court = court_of(anchor)
        pos = start + len(anchor)
        # complete the anchor word: "Corte costituzionale", "Cassazione", "Consiglio di Stato", "C.G.A.R.S.", "C.G.A.S."
        tm = re.match(r"(?:ituzionale|ato|\.R\.S\.?|RS\b|\.S\.|S\b|\.)?\.?", text[pos : pos + 12])
        if tm:
            pos += tm.end()
        if court == "CGARS":
            sm = re.match(r"(?:\s+per\s+la\s+Regione\s+[Ss]iciliana|\s*(?:-\s*)?Sicilia|\s*[Rr]eg\.\s*[Ss]ic\.)?", text[pos : pos + 40])
            pos += sm.end() if sm else 0
        c = Citation(raw="", start=start, end=start, kind="case", court=court)
        if court == "CASS":
            c.start, c.court_section, c.court_branch = self._section_before(start)
        if court == "CDS" and anchor[:2].lower() == "ad":
            # "Ad. plen." alone is the Consiglio di Stato's plenary ("Adunanza plenaria del Consiglio di Stato")
            c.court_section = "plen"
            sm = PLEN_OF_CDS.match(text, pos)
            pos = sm.end() if sm else pos
        if court == "TRIB":
            um = EU_TRIB.match(text, pos)
            if um:  # Tribunale UE (the EU General Court): an EU court
                court = c.court = "CGUE"
                pos = um.end()
        if court in SEATED:
            pm = PLACE.match(text, pos)
            if pm:
                c.court_seat = seat_name(pm.group("place"))
                pos = pm.end()
        if court == "TAR":
            pm = TAR_PLACE.match(text, pos)
            if pm:
                c.court_seat, pos = tar_seat(pm), pm.end()
        return c, court, pos

    def _case_elements(self, c: Citation, court: str, pos: int) -> tuple:
        """The elements after the court's name, up to the decision's number: section, type, date,
        seat... Returns (pos, got_num, got_date, date_end, plural, num_year, last element)."""
        text = self.text
        got_num = got_date = used_filler = plural = num_year = False
        date_end = pos
        last = None
        for _ in range(12):
            m = CASE_EL.match(text, pos)
            if not m or m.end() == pos:
                break
            g = m.lastgroup
            prev, last = last, g
            val = m.group(g)
            if _read_section(c, g, val):
                pass
            elif g == "tribs":
                # "Cass. trib." is the Cassazione's tax section (a civil one), never a Tribunale
                if court != "CASS":
                    break
                c.court_section, c.court_branch = "trib", c.court_branch or "civ"
            elif g == "dtype":
                v = val.lower()
                plural = plural or bool(PLURAL_DTYPE.match(v))
                c.decision_type = ("sentenza" if v.startswith("sent") else "ordinanza" if v.startswith("ord")
                                   else "decreto" if v.startswith("dec") and v != "decisione" else v)
            elif g == "date":
                # "2 dicembre 2025 - 22 gennaio 2026": a dash between two dates joins decision and deposit
                _take_date(c, val, deposit=prev == "date" and bool(DASH_LEAD.match(text, pos)))
                if not got_date:
                    got_date, date_end = not used_filler, m.end()
            elif g == "hearing":
                pass  # "(ud. 12/01/2022)": the hearing, not the decision's date
            elif g == "year":
                c.decision_year = c.decision_year or int(val)
            elif g == "filler":
                used_filler = True
            elif g == "place":
                if not got_date:
                    c.court_seat = c.court_seat or val
            elif g == "causa":
                _read_causa(c, val)
                got_num = True
                pos = m.end()
                break
            elif g == "num":
                got_num, num_year = True, _read_number(c, val)
                plural = plural or val[:2].lower() == "nn" or val[:6].lower() == "numeri"
                pos = m.end()
                break
            pos = m.end()
        return pos, got_num, got_date, date_end, plural, num_year, last

    def _listed_numbers(self, c: Citation, pos: int, open_list: bool, plural: bool) -> tuple[list[str], int]:
        """More numbers sharing the first one's year: "sentt. nn. 348 e 349 del 2007". Returns (the
        further numbers, where they end); ([], pos) when none."""
        listed: list[str] = []
        lm = LIST_TAIL.match(self.text, pos) if open_list and c.decision_number.isdigit() else None
        if lm and (lm.group("y2") or lm.group("y4") or plural):
            listed = [im.group("n") for im in LIST_ITEM.finditer(lm.group("nums"))]
            yraw = lm.group("y2") or lm.group("y4")
            if yraw:
                c.decision_year = read_year(yraw)
                ldate = iso_date(lm.group("d"), lm.group("m"), c.decision_year)
                if ldate or (c.decision_date and c.decision_date[:4] != str(c.decision_year)):
                    c.decision_date = ldate
            pos = lm.end()
        return listed, pos

    def _chained_decisions(self, c: Citation, pos: int, plural: bool) -> int:
        """Same court, further decisions: "Cons. Stato, sez. IV, n. 3509 del 2016; n. 472 del 2016",
        each with its year or sharing one: "; nn. 10 e 11 del 2001". Returns where the chain ends."""
        text = self.text
        dtype = c.decision_type if plural else None
        while True:
            m = CASE_CHAIN.match(text, pos)
            if not m or not (m.group("mark") or plural or m.group("and") or m.group("and2")):
                # a bare "5/2020" continues a list opened in the plural ("sentenze nn. ...") or joined by "e"
                # ("sent. n. 348/2007 e 349/2007"); after a comma alone it may be a law ("Cass. n. 5/2020, 241/1990")
                return pos
            if self._of_other_court(m.end(), c.court):
                return pos  # "...; ordinanza n. 207/2018 della Consulta": that court's, not this one's
            if m.group("dt"):
                v = m.group("dt").lower()
                dtype = "sentenza" if v.startswith("sent") else "ordinanza"
                plural = plural or bool(PLURAL_DTYPE.match(v))
            year = read_year(m.group("y2") or m.group("y4"))
            date = iso_date(m.group("d"), m.group("m"), year)
            s2 = m.start("dt") if m.group("dt") else m.start("num")
            nums = [m.group("n")] + [im.group("n") for im in LIST_ITEM.finditer(m.group("nums"))]
            for n in nums:
                self.out.append(self._same_court(c, s2, m.end(), n, year, date, dtype))
            pos = m.end()

    def _of_other_court(self, pos: int, court: str) -> bool:
        """Whether a court other than `court` is named right after pos as the decision's
        ("n. 207/2018 della Consulta")."""
        om = OF_AFTER.match(self.text, pos)
        if not om:
            return False
        tm = TRIGGER.match(self.text, om.end())
        return bool(tm and tm.lastgroup == "court" and court_of(tm.group(0)) != court)

    def _section_before(self, start: int) -> tuple[int, str | None, str | None]:
        """(where the citation starts, section, branch) when the Cassazione's section is named before it:
        "le Sezioni Unite della Cassazione", "la terza sezione penale della Corte di cassazione"."""
        if not OF_BEFORE.search(self.text, max(0, start - 10), start):
            return start, None, None  # cheap test first: the section needs "della"/"dalla" right before
        bm = SEC_BEFORE.search(self.text, max(0, start - 60), start)
        if not bm:
            return start, None, None
        sec = bm.group("sec").lower()
        section = ("U" if re.match(r"sezioni|s\.|ss\.", sec) else "lav" if "lavoro" in sec
                   else "trib" if "tribut" in sec else _section_code(re.sub(r"\s*sezione\s*", " ", sec)))
        b = (bm.group("b") or "").lower()
        branch = "civ" if b.startswith("civ") or section in ("lav", "trib") else "pen" if b else None
        return bm.start(), section, branch

    def _same_court(self, c: Citation, s: int, e: int, number: str, year: int | None, date: str | None,
                    dtype: str | None) -> Citation:
        """A further decision of the court, seat and section of `c`, spanning text[s:e]."""
        return Citation(raw=self.text[s:e], start=s, end=e, kind="case", court=c.court, court_seat=c.court_seat,
                        court_section=c.court_section, court_branch=c.court_branch, decision_type=dtype,
                        decision_number=str(int(number)), decision_year=year, decision_date=date)

    def parse_case_prefixed(self, start: int, anchor: str) -> int:
        """'sentenza n. 238 del 2014 della Corte costituzionale', 'le sentenze nn. 5 e 6 del 2001 del
        Consiglio di Stato', 'Con l'ordinanza n. 207 del 2018 la Corte costituzionale' (decision before
        the court): one citation per number, spanning decision and court; with the items listed before and
        after it. Returns where what was read ends (0: nothing was)."""
        text = self.text
        near = text[max(0, start - PREFIX_WINDOW - 60) : start].lower()
        if "sent" not in near and "ord" not in near:
            return 0  # no decision type in reach: spare the regex searches
        court = court_of(anchor)
        # "la sentenza n. 5/2020 delle Sezioni Unite della Cassazione": the section stands between
        sec_start, section, branch = self._section_before(start) if court == "CASS" else (start, None, None)
        window = text[max(0, sec_start - PREFIX_WINDOW) : sec_start]
        m = CASE_PREFIX.search(window)
        s = sec_start - len(window) + m.start("dtype") if m else 0
        if not m or not (m.group("of") or m.group("of2") or m.group("con") or self.list_opened_by_con(s)):
            return 0
        e = start + len(anchor)
        tm = re.match(r"(?:ituzionale|ato|\.R\.S\.?|RS\b|\.S\.|S\b)?", text[e : e + 12])
        e += tm.end()
        e += text.startswith(".", e) and anchor.lower().endswith("cass")  # "della Cass."
        if court == "CASS" and (bm := re.match(r"\s{1,3}(civ(?:ile|\.)|pen(?:ale|\.))", text[e : e + 12], re.I)):
            branch, e = bm.group(1)[:3].lower(), e + bm.end()  # "della Cass. civ."
        seat = None
        if court in SEATED:
            pm = PLACE.match(text, e)
            if pm:
                seat, e = seat_name(pm.group("place")), pm.end()
        elif court == "TAR":
            pm = TAR_PLACE.match(text, e)
            if pm:
                seat, e = tar_seat(pm), pm.end()
        elif court == "CDS" and anchor[:2].lower() == "ad":
            section = "plen"
            sm = PLEN_OF_CDS.match(text, e)
            e = sm.end() if sm else e
        nums, year, date = item_numbers(m)
        v = m.group("dtype").lower()
        for n in nums:
            self.out.append(Citation(
                raw=text[s:e], start=s, end=e, kind="case", court=court, court_seat=seat, court_section=section,
                court_branch=branch,
                decision_type="sentenza" if v.startswith("sent") else "ordinanza",
                decision_number=str(int(n)), decision_year=year, decision_date=date,
            ))
        first = self.out[-len(nums)]
        self.earlier_items(first)
        return self.continued_items(first, e)
