"""Articles: 'art. 2043 c.c.', 'artt. 3, 4 e 5 della legge n. 241/1990', 'artt. 1337 ss.', 'secondo comma
dell'art. 5'. Each article gets its partitions and its act, named after it, implied or referred back to;
an enumeration may give each article its own act."""

from __future__ import annotations

import re

from .anchors import TRIGGER
from .model import ActRef, Citation
from .partitions import STRUCT_VALUE
from .statutes import parse_act, parse_code, same_act
from .tokens import CONNECT, LONG_NUMBER_DIGITS, MAX_ARTICLE_DIGITS, NUMSUF, ORD, ORD_RE, SENTENCE_END, WS, norm_key

_ART_HEAD = re.compile(rf"(?P<kw>artt?\.|art(?=\s+\d)|articol[oi](?![a-z]))(?:{WS}n\.|{WS}da(?=\s))?{WS}(?P<num>{NUMSUF})", re.I)
# the annex an article is of: "art. 3 dell'allegato 1 al d.lgs. 104/2010"
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
