"""Lists of decisions of one court, read item by item: "Corte cost., ord. n. 4/2001 e nella sentenza
n. 9 del 2001", "Cons. Stato, sez. IV, n. 1/2020, nonché sez. V, 3 aprile 2021, n. 2", "con l'ordinanza
n. 4 del 2001 e con la sentenza n. 9 del 2001 la Corte costituzionale". Every item keeps the court of
the list, and its own type, section and date. Apart from the case reader because a list is what
follows (or precedes) a decision already read, whatever joins its items."""

from __future__ import annotations

import re

from .anchors import TRIGGER
from .case_grammar import EARLIER_ITEM, LIST_JOIN, OF_AFTER, item_numbers
from .model import Citation

# who else a decision may be "of" when no court anchor names it: "la sentenza n. 5/2020 del giudice di pace"
_OTHER_AUTHORITY = re.compile(
    r"(?:giudic[ei]|tribunal[ei]|corte|consiglio|commissione|collegio|g\.?i\.?p\.?|g\.?u\.?p\.?|ufficio|sezione|"
    r"autorit[àa]|garante|ministr[oi]|ministero|presidente|prefett[oi]|sindaco|comune|regione)(?![a-zà-ù])", re.I)
_SAME = re.compile(r"(?:stess[ao]|medesim[ao]|predett[ao]|citat[ao]|suddett[ao])\s", re.I)
_OPENED_BY_CON = re.compile(r"(?<![\w])con\s{1,3}(?:la\s{1,3}|le\s{1,3}|l['’]\s?)?$", re.I)
EARLIER_WINDOW = 160  # characters looked back for each earlier item of a list named before its court
MAX_EARLIER = 40  # items of one list read backwards (each step is bounded by the window)


class CaseListReader:
    """The items of a list of decisions after (or before) the one the case reader read. A part of
    the scanner (`_Scanner`), next to `CaseReader`."""

    def continued_items(self, first: Citation, pos: int) -> int:
        """Further decisions of `first`'s court joined to it by any connector ('e', 'nonché', ',', ';',
        'e nella', 'cfr. anche' ...): each read with its own elements. Returns where the list ends."""
        while True:
            jm = LIST_JOIN.match(self.text, pos)
            if not jm:
                return pos
            c = Citation(raw="", start=jm.end(), end=jm.end(), kind="case", court=first.court,
                         court_seat=first.court_seat, court_section=first.court_section, court_branch=first.court_branch)
            end = self.decision_rest(c, first.court, jm.end(), item=True)
            if end is None:
                return pos
            pos = end

    def of_someone_else(self, pos: int, court: str | None) -> bool:
        """Whether the decision ending at pos is said to be of a court or authority ("n. 5/2020 della
        Consulta", "del giudice di pace"): then it is not an item of this list (a court named by its
        anchor is read by that court's reader)."""
        om = OF_AFTER.match(self.text, pos)
        if not om:
            return False
        tm = TRIGGER.match(self.text, om.end())
        if tm and tm.lastgroup == "court":
            return True
        return not _SAME.match(self.text, om.end()) and bool(_OTHER_AUTHORITY.match(self.text, om.end()))

    def earlier_items(self, last: Citation) -> None:
        """The items named before `last` in a list that ends with its court ("con l'ordinanza n. 4 del
        2001 e con la sentenza n. 9 del 2001 la Corte costituzionale"), each of the court of `last`."""
        text = self.text
        for m in self._earlier_matches(last.start):
            nums, year, date = item_numbers(m)
            v = m.group("dtype").lower()
            s, e = m.start("dtype"), self._item_end(m)
            for n in nums:
                self.out.append(Citation(
                    raw=text[s:e], start=s, end=e, kind="case", court=last.court, court_seat=last.court_seat,
                    court_section=last.court_section, court_branch=last.court_branch,
                    decision_type="sentenza" if v.startswith("sent") else "ordinanza",
                    decision_number=str(int(n)), decision_year=year, decision_date=date))

    def list_opened_by_con(self, s: int) -> bool:
        """Whether the list whose last item starts at s is opened by "con" ("Con l'ordinanza n. 4 e la
        sentenza n. 9 del 2001 la Corte ..."): then the court after it is the subject that decided them."""
        for m in self._earlier_matches(s):
            s = m.start("dtype")
        return bool(_OPENED_BY_CON.search(self.text, max(0, s - 12), s))

    def _earlier_matches(self, s: int):
        """The items before the one starting at s, each joined to the next by a connector, read backwards
        one bounded window at a time; the walk stops at an item already read."""
        for _ in range(MAX_EARLIER):
            m = EARLIER_ITEM.search(self.text, max(0, s - EARLIER_WINDOW), s)
            if not m or self._covered(m.start("dtype")):
                return
            yield m
            s = m.start("dtype")

    @staticmethod
    def _item_end(m: re.Match) -> int:
        """Where an earlier item's own words end (before the connector that joins it to the next)."""
        ends = [m.end(g) for g in ("y2", "y4", "dn") if m.group(g)]
        return max(ends) if ends else m.end("dtype")

    def _covered(self, pos: int) -> bool:
        """Whether a citation already read spans pos (an item read forwards is not read again)."""
        for c in reversed(self.out[-MAX_EARLIER:]):
            if c.start <= pos < c.end:
                return True
        return False
