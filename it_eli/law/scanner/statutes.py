"""An act as prose names it: its type, its coordinates (date first or number first), a regional law's
Region, a decree's issuer, a decree-law's conversion law; a code by its name. Apart because every
statute reader (articles, partitions, an act named alone) reads its act here."""

from __future__ import annotations

import re

import msgspec

from ..acts import ACT_TYPES, BY_URN_TYPE, ActType, authority_slug
from ..codes import CODES_BY_ID, approving_act, scan_pattern
from ..grammar import DAY_RE, MONTH_RE, iso_date
from .eu import EU_ACT, eu_act, eu_style_number
from .model import ActHit, ActRef
from .places import REGION_AFTER, REGION_OF_LEGGE, REGION_TAIL, region_name
from .tokens import WS, read_year

# (regex, act_type) from the act-type registry; order matters: longer / more specific first.
ACT_TYPE_PATTERNS: list[tuple[str, str]] = [(t.pattern, t.urn_type) for t in ACT_TYPES if t.pattern]
_ACT_TYPE_RE = re.compile("|".join(f"(?P<t{i}>{p})" for i, (p, _) in enumerate(ACT_TYPE_PATTERNS)), re.I)

# "n." and its spellings; "n" without its dot when a number follows ("legge n 241/1990")
_NUM_MARK = r"(?:nn?\.|nr\.|n°|n\.ro|num\.|numero|n(?=\s{1,3}\d))"
# an act's number: "241", lettered as the Gazzetta prints them "4/B", "87/E", "D/212" (upper-case letter).
# Atomic: a number is read whole or not at all, never a shorter number ("n. 12/2019/DRE" is not n. 1).
_ACT_NO = r"(?>\d{1,5}(?:\s?/\s?(?-i:[A-Z]{1,2})(?![A-Za-z0-9]))?|(?-i:[A-Z]{1,2})\s?/\s?\d{1,5})"
# a number that goes on after what the grammar above reads: "n. 231/2021/R/eel" (ARERA), "n. 173/07/CONS"
# (AGCOM), "n. 26/RGS" (MEF), "prot. n. 13107/18/W". Kept whole, as written: which part is the year is the
# issuer's own convention, so it is a number to show, never one to cut to "n. 23" or guess a year from
_CONTINUES = r"\s?/\s?[0-9A-Za-z]"
_COMPOUND_NO = re.compile(
    rf"{WS},?{WS}(?P<mark>{_NUM_MARK}){WS}(?P<cn>\d{{1,6}}(?:\s?/\s?[0-9A-Za-z]{{1,10}}){{1,6}})(?![\w/])", re.IGNORECASE
)
_DAY = rf"(?:{DAY_RE})"
# "nn. 301, 305 e 309": further numbers of acts of the same type, date or year
_MORE_NOS = rf"(?P<more>(?:{WS}(?:,|e|ed){WS}\d{{1,5}}(?![\d/])){{1,10}})?"
# date-first: "8 giugno 2001, n. 231" (number optional for d.m./dpcm), "del 12 maggio 2020", "7 ago. 1990"
_COORD_DATE = re.compile(
    rf"{WS}(?:del(?:l['’]\s?|\s{{1,3}})|in\s+data\s+)?(?P<d>{_DAY})\s{{1,3}}(?P<m>{MONTH_RE})\s{{0,3}}(?P<y>\d{{4}})(?!\d)"
    rf"(?:{WS},?{WS}{_NUM_MARK}{WS}(?P<n>{_ACT_NO})(?![\d/]){_MORE_NOS})?",
    re.I,
)
# numeric date: "D.L. 25.3.2020 n. 19", "l. 7/8/1990, n. 241", "L. 14-6-1975, n. 203", "DPR 3-9-78 n. 455", "7- 2-49"
_NDATE = r"(?P<d>\d{1,2})\s?(?P<sep>[./-])\s?(?P<m>\d{1,2})\s?(?P=sep)\s?(?P<y>\d{4}|\d{2})(?![\d/])"
_COORD_NDATE = re.compile(
    rf"{WS}(?:del(?:l['’]\s?|\s{{1,3}})|in\s+data\s+)?{_NDATE}"
    rf"(?:{WS},?{WS}{_NUM_MARK}{WS}(?P<n>{_ACT_NO})(?![\d/]){_MORE_NOS})?",
    re.I,
)
# number-first: "n. 241/1990", "241/90", "n. 231 del 2001", "n. 241 del 7 agosto 1990", "n. 80 del 31.3.1998", "n. 241"
_COORD_NUM = re.compile(
    rf"{WS}(?P<mark>{_NUM_MARK}{WS})?(?P<n>{_ACT_NO}){_MORE_NOS}(?:"
    rf"{WS}/{WS}(?P<y2>\d{{4}}|\d{{2}})(?![\d/])"
    rf"|{WS},?\s{{1,3}}(?:del(?:l['’]\s?|\s{{1,3}})|in\s+data\s+|,\s{{0,3}})(?:(?P<d>{_DAY})\s{{1,3}}(?P<m>{MONTH_RE})\s{{0,3}})?(?P<y4>\d{{4}})(?!\d)"
    rf"|{WS},?\s{{1,3}}del\s{{1,3}}(?P<y6>\d{{2}})(?![\d/.,]\d|\d|\s{{0,3}}(?:{MONTH_RE}|[./-]\s?\d))"
    rf"|{WS},?\s{{1,3}}(?:del(?:l['’]\s?|\s{{1,3}})|in\s+data\s+){_NDATE.replace('(?P<', '(?P<n_').replace('(?P=sep)', '(?P=n_sep)')}"
    rf"|{WS}\(\s{{0,3}}(?P<y5>\d{{4}})\s{{0,3}}\)"
    rf")?(?![\d/.,]\d|{_CONTINUES})",
    re.I,
)
# a decree-law's conversion law: ", conv. con modif. dalla l.", "(convertito in legge"
_CONV = re.compile(
    rf"{WS},?{WS}(?P<br>\(\s?)?(?:conv(?:\.|ertito)|convertito)(?:{WS},?{WS}(?:con{WS}modif(?:icazioni|\.)|con{WS}mod\.|in{WS}legge|con{WS}legge))?{WS},?{WS}(?:dall[ao]|dalla|in|con|da)?\s{{0,3}}",
    re.I,
)

# Codes and named acts, from the code registry (case-sensitive pieces are wrapped explicitly).
_CODE_ALT, CODE_ROWS = scan_pattern()
_CODE_RE = re.compile(_CODE_ALT)
_CODE_ROW_RES = [re.compile(c.pattern) for c in CODE_ROWS]


# who issued a ministerial or administrative act: "D.M. (Ministero della giustizia)", "circolare INPS"
_ISSUER_ACRONYMS = {
    "mef": "ministero.economia.finanze", "miur": "ministero.istruzione.universita.ricerca",
    "mise": "ministero.sviluppo.economico", "mimit": "ministero.imprese.made.italy", "mit": "ministero.infrastrutture.trasporti",
    "mur": "ministero.universita.ricerca", "inps": "istituto.nazionale.previdenza.sociale",
    "inail": "istituto.nazionale.assicurazione.infortuni.lavoro", "anac": "autorita.nazionale.anticorruzione",
    "consob": "commissione.nazionale.societa.borsa", "cipe": "comitato.interministeriale.programmazione.economica",
    "cipess": "comitato.interministeriale.programmazione.economica.sviluppo.sostenibile",
    "aifa": "agenzia.italiana.farmaco", "ivass": "istituto.vigilanza.assicurazioni",
    "agcm": "autorita.garante.concorrenza.mercato", "agcom": "autorita.garanzie.comunicazioni",
    "arera": "autorita.regolazione.energia.reti.ambiente", "maeci": "ministero.affari.esteri.cooperazione.internazionale",
    "mase": "ministero.ambiente.sicurezza.energetica", "masaf": "ministero.agricoltura.sovranita.alimentare.foreste",
    "mic": "ministero.cultura",
}
# a decree's ministry named by its bare head noun, as practice abbreviates it: "D.M. Giustizia n. 55/2014",
# "d.m. Salute 2 aprile 2015", "DM Infrastrutture e trasporti"
_MINISTRY_NOUNS = (
    r"(?:Giustizia|Interno|Salute|Difesa|Esteri|Lavoro(?:\s+e\s+(?:delle\s+)?politiche\s+sociali)?|Ambiente"
    r"|Economia(?:\s+e\s+(?:delle\s+)?[Ff]inanze)?|Finanze|Tesoro|Istruzione|Universit[àa](?:\s+e\s+(?:della\s+)?ricerca)?"
    r"|Cultura|Turismo|Infrastrutture(?:\s+e\s+(?:dei\s+)?trasporti)?|Trasporti|Sviluppo\s+economico"
    r"|Politiche\s+agricole(?:\s+alimentari)?(?:\s+e\s+forestali)?|Beni\s+culturali)"
)
_ISSUER = re.compile(
    rf"{WS},?{WS}\(?(?:del(?:l['’]\s?|la\s+|lo\s+|\s+)|dal(?:l['’]\s?|la\s+|\s+)|emanat[oa]\s+dal(?:l['’]\s?|la\s+|\s+))?"
    rf"(?P<iss>(?P<min>(?i:minist(?:ro|ero|r\.)|min\.))\s+(?P<mname>[A-Za-zÀ-ÿ'’,\s]{{3,110}}?)(?=\s{{0,3}}(?:\)|,|\(|n\.|nr\.|num\.|\d|del(?:l['’])?\s{{0,2}}\d|in\s+data|$))"
    rf"|(?P<mbare>(?-i:{_MINISTRY_NOUNS}))(?![a-zà-ù])"
    rf"|(?P<acr>MEF|MIUR|MISE|MIMIT|MIT|MUR|MAECI|MASE|MASAF|MiC|INPS|INAIL|ANAC|CONSOB|Consob|CIPESS|CIPE|AIFA|IVASS|AGCM|AGCOM|ARERA)\b"
    rf"|(?P<bdi>Banca\s+d['’]\s?Italia)"
    rf"|(?P<age>(?:Agenzia|Ag\.)\s+(?:delle\s+|dell['’]\s?|del\s+|per\s+l['’]\s?)?(?:[Ee]ntrate|[Dd]ogane(?:\s+e\s+dei\s+[Mm]onopoli)?|[Dd]emanio|[Ii]talia\s+[Dd]igitale|[Tt]erritorio))"
    rf"|(?P<gar>Garante\s+(?:per\s+la\s+protezione\s+dei\s+dati\s+personali|(?:della\s+)?privacy))"
    rf"|(?P<ent>(?:Comitato|Autorit[àa]|Istituto|Commissione|Presidenza\s+del\s+Consiglio|Dipartimento)\s+[A-Za-zÀ-ÿ'’,\s]{{3,110}}?)(?=\s{{0,3}}(?:\)|,|\(|n\.|nr\.|num\.|\d|del(?:l['’])?\s{{0,2}}\d|in\s+data|$)))\)?"
)


def _issuer_authority(m: re.Match) -> tuple[str, str]:
    """(issuer as written, URN:NIR authority) of an _ISSUER match."""
    iss = re.sub(r"\s+", " ", m.group("iss")).strip()
    if m.group("acr"):
        return iss, _ISSUER_ACRONYMS[m.group("acr").lower()]
    if m.group("mname") or m.group("mbare"):
        return iss, "ministero." + authority_slug(m.group("mname") or m.group("mbare"))
    if m.group("bdi"):
        return iss, "banca.italia"
    return iss, authority_slug(iss.replace("Ag.", "Agenzia"))


def _as_written(raw: str) -> str:
    """A compound number kept as the text writes it (spaces aside): no year read out of it."""
    return re.sub(r"\s+", "", raw)


def _act_number(raw: str) -> str:
    """'0241' -> '241'; '4 / B' -> '4/B'."""
    s = re.sub(r"\s+", "", raw)
    return str(int(s)) if s.isdigit() else s.upper()


def parse_act(text: str, pos: int) -> ActHit | None:
    """An act with coordinates at pos: type + (date and/or number/year), with its Region or issuer."""
    eu = EU_ACT.match(text, pos)
    if eu and (eu.group("org") or eu.group("org2") or eu.group("org3") or eu_style_number(eu)):
        hit = eu_act(eu, text, pos)
        if hit is not None:
            return hit
    m = _ACT_TYPE_RE.match(text, pos)
    if not m:
        return None
    act_type = ACT_TYPE_PATTERNS[int(m.lastgroup[1:])][1]
    info = BY_URN_TYPE[act_type]
    word = m.group(0)
    # abbreviated 'l.' must not be a dotted initial inside something else ('l.r.' handled above)
    p = m.end()
    if act_type == "legge" and word.lower() == "l." and text[pos - 1 : pos] in ("'", "’"):
        return None
    act_type, info, region, issuer, authority, p = _region_or_issuer(text, p, act_type, info)
    d = _COORD_DATE.match(text, p)
    if d is None:
        d = _COORD_NDATE.match(text, p)
        if d is not None and iso_date(d.group("d"), d.group("m"), read_year(d.group("y"), act_type)) is None:
            d = None  # "l. 24/1/90" is not a date: read as a number below
    if d and d.group("n") is None and (c := _COMPOUND_NO.match(text, d.end())):
        # "del 1° giugno 2021, n. 231/2021/R/eel"
        year = read_year(d.group("y"), act_type)
        read = (_as_written(c.group("cn")), year, iso_date(d.group("d"), d.group("m"), year), [], c.end())
    elif d:
        read = _date_first(d, act_type, info, region, issuer)
    elif n := _COORD_NUM.match(text, p):
        read = _number_first(n, act_type)
    elif c := _COMPOUND_NO.match(text, p):
        read = (_as_written(c.group("cn")), None, None, [], c.end())
    elif region is not None or issuer is not None:
        # "art. 5 l.r. Lombardia": a regional law, coordinates not given
        return ActHit(ActRef(act_type=act_type, region=region, issuer=issuer, authority=authority,
                              raw=text[pos:p].strip(), start=pos, end=p), p)
    else:
        return None
    if read is None:
        return None
    number, year, date, more, end = read
    if number is not None and "/" not in number[number.find("/") + 1:]:
        number = _act_number(number)  # a compound number ("231/2021/R/eel") stays as written
    act_type, region, issuer, authority, end = _region_or_issuer_after(text, end, act_type, info, region, issuer,
                                                                       authority)
    act = ActRef(act_type=act_type, number=number, year=year, date=date, raw=text[pos:end].strip(), region=region,
                 issuer=issuer, authority=authority)
    if act_type == "decreto.legge":
        end = _conversion_law(text, pos, end, act)
    act.start, act.end = pos, end
    others = [msgspec.structs.replace(act, number=str(int(x)), converted_by=None) for x in more]
    return ActHit(act, end, others)


def _region_or_issuer(text: str, p: int, act_type: str, info: ActType) -> tuple:
    """What stands between an act's type and its coordinates: a regional law's Region ('l.r.
    Lombardia', 'legge della Regione Puglia'), a decree's issuer ('D.M. Giustizia').
    Returns (act_type, info, region, issuer, authority, where the coordinates start)."""
    region = issuer = authority = None
    if info.family == "regionale":
        r = REGION_AFTER.match(text, p)
    elif act_type == "legge":
        r = REGION_OF_LEGGE.match(text, p)  # "legge della Regione Lombardia 11 marzo 2005, n. 12"
        if r:
            act_type, info = "legge.regionale", BY_URN_TYPE["legge.regionale"]
    else:
        r = None
    if r:
        region, p = region_name(r.group("reg")), r.end()
    if info.family in ("ministeriale", "amministrativo"):
        im = _ISSUER.match(text, p)
        if im:
            (issuer, authority), p = _issuer_authority(im), im.end()
    return act_type, info, region, issuer, authority, p


def _date_first(d: re.Match, act_type: str, info: ActType, region: str | None, issuer: str | None) -> tuple | None:
    """(number, year, date, further numbers, end) of date-first coordinates; None when they do not
    name an act."""
    year = read_year(d.group("y"), act_type)
    if year is None:
        return None
    date = iso_date(d.group("d"), d.group("m"), year)
    number = d.group("n")
    more = re.findall(r"\d+", d.group("more") or "")
    end = d.end()
    if number is None and not info.date_only and region is None and issuer is None:
        return None  # "legge 7 agosto 1990" with no number: not enough to name a law
    return number, year, date, more, end


def _number_first(n: re.Match, act_type: str) -> tuple | None:
    """(number, year, date, further numbers, end) of number-first coordinates ('n. 241/1990', 'n. 231
    del 2001'); None when they do not name an act."""
    date = None
    number = n.group("n")
    yraw = n.group("y2") or n.group("y4") or n.group("n_y") or n.group("y5") or n.group("y6")
    year = read_year(yraw, act_type)
    if yraw and year is None:
        return None
    if not yraw and not n.group("mark"):
        return None  # "legge 104" alone is too ambiguous; require "n." or a year
    if n.group("d"):
        date = iso_date(n.group("d"), n.group("m"), year)
    elif n.group("n_d"):
        date = iso_date(n.group("n_d"), n.group("n_m"), year)
    more = re.findall(r"\d+", n.group("more") or "")
    end = n.end()
    return number, year, date, more, end


def _region_or_issuer_after(text: str, end: int, act_type: str, info: ActType, region: str | None, issuer: str | None,
                            authority: str | None) -> tuple:
    """The Region or issuer written after an act's coordinates ('legge n. 12/2005 della Regione
    Lombardia', 'l.r. n. 12/2005 Lombardia'). Returns (act_type, region, issuer, authority, end)."""
    if act_type == "legge" and region is None:
        r = REGION_OF_LEGGE.match(text, end)  # "legge n. 12/2005 della Regione Lombardia"
        if r:
            act_type, region, end = "legge.regionale", region_name(r.group("reg")), r.end()
    elif info.family == "regionale" and region is None:
        r = REGION_TAIL.match(text, end)
        if r:
            region, end = region_name(r.group("reg")), r.end()
    if info.family in ("ministeriale", "amministrativo") and issuer is None:
        im = _ISSUER.match(text, end)
        if im:
            (issuer, authority), end = _issuer_authority(im), im.end()
    return act_type, region, issuer, authority, end


def _conversion_law(text: str, pos: int, end: int, act: ActRef) -> int:
    """'d.l. ..., conv. dalla l. ...': a decree-law's conversion law, set on `act`; returns where
    the decree's citation ends."""
    c = _CONV.match(text, end)
    if c and c.end() > end + 2:
        conv = parse_act(text, c.end())
        if conv and conv.act.act_type == "legge":
            act.converted_by = conv.act
            end = conv.end
            if c.group("br"):  # "d.l. 76/2020 (conv. in l. 120/2020), art. 1": the bracket closes the decree
                close = re.match(r"\s{0,3}\)", text[end:end + 4])
                end += close.end() if close else 0
            act.raw = text[pos:end].strip()
    return end


# what makes a code's name another act, before it: its implementing regulation or rules ("regolamento di
# esecuzione del codice della strada", "norme di attuazione del c.p.c."; the registry's own rows, as "disp.
# att. c.p.c.", are read first)
_IMPLEMENTING_HEAD = re.compile(
    r"(?:regolamento|reg\.|norme|disposizioni|disp\.)\s{1,3}(?:(?:di|per\s+l['’])\s{0,3})?"
    r"(?:esecuzione|attuazione|esec\.|att\.|coordinamento|coord\.)"
    r"(?:\s{1,3}e\s{1,3}(?:di\s{1,3})?(?:attuazione|esecuzione|transitorie))?\s{1,3}"
    r"(?:del(?:l['’]\s?|\s{1,3})|al(?:l['’]\s?|\s{1,3})|per\s+il\s+)?(?:nuovo\s+)?",
    re.IGNORECASE,
)
# ... and after it: a military code ("codice penale militare di pace"), a foreign code ("codice civile
# francese"), or the code of another era ("codice di procedura penale del 1930")
_OTHER_CODE_AFTER = re.compile(
    r"\s{1,3}(?:militar[ei](?:\s+di\s+(?:pace|guerra))?"
    r"|(?:frances|tedesc|german|svizzer|spagnol|austriac|portoghes|olandes|belg|sammarines)[a-z]{1,4}"
    r"|del(?:l['’]\s?|\s+)(?:anno\s+)?(?P<y>1[5-9]\d\d|20[0-4]\d)(?!\d))(?![a-zà-ù])",
    re.IGNORECASE,
)
# the slot of an administrative act's issuer: "circolare DSA", "delibera DMA n. 5/2020" name an office, not the
# EU act that shares its acronym
_ISSUER_SLOT = re.compile(
    r"(?:circolare|circ\.|delibera|deliberazione|determina|determinazione|nota|parere|provvedimento|risoluzione"
    r"|decreto|d\.\s?m\.|interpello)\s{1,3}(?:del(?:l['’]\s?|la\s+|lo\s+|\s+))?$",
    re.IGNORECASE,
)


def parse_code(text: str, pos: int) -> ActHit | None:
    """A code or an act named by its name; when a qualifier makes the name another act (its
    implementing regulation, a military or a foreign code), that act as read, with no code: a gap,
    never the plain code."""
    head = _IMPLEMENTING_HEAD.match(text, pos)
    if head and _CODE_RE.match(text, pos) is None and (inner := _code_at(text, head.end())) is not None:
        return _other_act(text, pos, inner.end)
    hit = _code_at(text, pos)
    if hit is None:
        return None
    if hit.act.raw.isupper() and len(hit.act.raw) <= 5 and _ISSUER_SLOT.search(text[max(0, pos - 30):pos]):
        return None
    after = _OTHER_CODE_AFTER.match(text, hit.end)
    code = CODES_BY_ID.get(hit.act.code or "")
    if after and (not after.group("y") or (code is not None and code.year and int(after.group("y")) < code.year)):
        return _other_act(text, pos, after.end())
    return hit


def _other_act(text: str, pos: int, end: int) -> ActHit:
    """A code's name qualified into another act: read as written, identified by nothing."""
    return ActHit(ActRef(act_type="codice", raw=text[pos:end], start=pos, end=end), end)


def _code_at(text: str, pos: int) -> ActHit | None:
    m = _CODE_RE.match(text, pos)
    if not m:
        return None
    i = int(m.lastgroup[1:]) if m.lastgroup else next(int(k[1:]) for k, v in m.groupdict().items() if v)
    if m.end() < len(text) and text[m.end()].isalpha():
        # a name cut inside a longer one ('c.c.' of 'c.c.i.i.'): the longest name that ends a word, or none
        whole = [(j, w) for j, rx in enumerate(_CODE_ROW_RES) if (w := rx.match(text, pos)) is not None
                 and not (w.end() < len(text) and text[w.end()].isalpha())]
        i, m = max(whole, key=lambda t: t[1].end(), default=(None, None))
        if m is None:
            return None
    code = CODE_ROWS[i]
    return ActHit(ActRef(act_type=code.kind, code=code.id, raw=m.group(0), start=pos, end=m.end()), m.end())


def _act_identity(a: ActRef) -> tuple:
    """What names the act, whether cited by name or by coordinates ('Statuto dei lavoratori' = l. 300/1970)."""
    if a.code:
        appr = approving_act(a.code)
        return (appr[0], appr[1], appr[2]) if appr else (a.code,)
    if a.number is None:  # a D.P.C.M. or a D.M. cited by its date: the date names it, and so do the issuer and Region
        return (a.act_type, a.date or a.year, a.issuer, a.region)
    return (a.act_type, a.number, a.year)


def same_act(a: ActRef, b: ActRef) -> bool:
    return _act_identity(a) == _act_identity(b)
