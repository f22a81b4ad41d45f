"""The grammar of a case citation: one element regex (section, decision type, date, number...) the
case reader steps through, and the forms around it: lists and chains of decisions, a decision named
before its court, ECLI. Apart from the reader, as the patterns are from what is done with each piece."""

from __future__ import annotations

import re

from ..grammar import MONTH_RE, ORDINAL_RE, iso_date
from .tokens import WS, read_year

# a decision's date: "12 febbraio 2021", "10/03/2021", "2.1.19" (one separator, two- or four-digit year)
# "16 - 19 dicembre 1968": decided on the 16th, deposited on the 19th (the date of record is the last one)
_TEXT_DATE = rf"(?:(?:\d{{1,2}}|1°)\s{{0,3}}[-–]\s{{0,3}})?(?:\d{{1,2}}|1°)\s{{1,3}}{MONTH_RE}\s{{1,3}}\d{{4}}(?!\d)"
_NUM_DATE = r"\d{1,2}(?P<dsep>[./-])\d{1,2}(?P=dsep)(?:\d{4}|\d{2})(?!\d|[./]\d)"
_DEPOSIT = r"dep(?:\.|ositata|osito)(?:\s{1,3}(?:il|del))?\s{1,3}"
# the hearing before the deposit ("(ud. 12/01/2022) 10/03/2022", "(data ud. ...)"): not the decision's date
_HEARING = (rf"(?:data\s{{1,3}})?(?:ud(?:\.|ienza)|c\.\s?c\.|camera\s+di\s+consiglio)(?:\s{{1,3}}(?:del|dell['’]))?{WS}"
            rf"(?:{_TEXT_DATE}|{_NUM_DATE.replace('dsep', 'hsep')})")
# a section's suffix: "VI-3", "6-1", "IV-bis", "III T"; never the "n" of "sez. I n. 123"
# (a spaced "VI - 3" too, as the databases print it, but never the day of a date: "sez. III - 5 marzo 2021")
_SEZ_SUF = (r"(?:[-\s]?(?:bis|ter|quater)(?![a-zà-ù])|-\d(?!\d)"
            rf"|\s{{1,2}}[-–]\s{{1,2}}\d(?!\d|\s{{0,3}}(?:{MONTH_RE})|\s?[./-]\s?\d)|[-\s]?(?-i:[A-Z])(?![A-Za-z.]))?")
# a section's ordinal in words or as "3ª" / "3^" / "3a": "Sezione Terza", "Sezione Seconda Bis", "Terza Sezione", "3ª sez."
_SEZ_ORD = (rf"(?:{ORDINAL_RE}|\d{{1,2}}(?:\s?[ªº°^]|a(?=\s)))(?![a-zà-ù])(?:[-\s]{{1,2}}(?:bis|ter|quater)(?![a-zà-ù]))?")
_SEZ_WORD = r"(?:[Ss]ez(?:ione(?![a-zà-ù])|\.)|SEZ(?:IONE|\.))"
# one element of a case citation; a dash separates too ("5 marzo 2021 - n. 6000"), and a bracket may open
# the rest ("Corte costituzionale (sent. n. 242/2019)", "TAR Lazio (Sezione Seconda Bis)")
CASE_EL = re.compile(
    rf"{WS}[,;\-–]?{WS}(?:\((?=\s{{0,2}}(?:{_SEZ_WORD}|[IVX]{{1,4}}\s|{ORDINAL_RE}\s|sent|ord|nn?\.|cfr\.|\d)){WS})?(?:"
    rf"(?P<branch>civ(?:il[ei](?![a-zà-ù])|\.)|pen(?:al[ei](?![a-zà-ù])|\.))"
    rf"|(?P<su>S\.\s?U\.|SS\.\s?UU\.|(?:sez(?:\.|ioni|ione)?|sezz\.)\s?u(?:n(?:\.|ite))?\.?(?![a-zà-ù])|sezioni\s+unite)"
    rf"|(?P<plen>Ad(?:\.|unanza)\s?[Pp]len(?:\.|aria)|A\.\s?P\.)"
    rf"|(?:[Ss]ez(?:ione|\.)|[Ss]ezione)\s{{0,3}}(?P<sez>lav(?:oro|\.)|trib(?:utaria|\.)|fer(?:iale|\.)|(?-i:[LF])\.?(?![A-Za-zà-ù])|pen(?:\.|ale(?![a-zà-ù]))|civ(?:\.|ile(?![a-zà-ù]))|[IVX]{{1,4}}{_SEZ_SUF}|\d{{1,2}}(?!\s?[ªº°^]){_SEZ_SUF}|quater|stralcio)"
    rf"(?:{WS}\))?"
    rf"|{_SEZ_WORD}\s{{0,3}}(?=[pstqondvu\d])(?P<sezw>{_SEZ_ORD})(?:{WS}\))?"
    # (the look-ahead spares the ordinals' alternation wherever no "sez" follows the next word)
    rf"|(?=[^\s,;()]{{1,16}}(?:[-\s](?:bis|ter|quater))?\s{{1,3}}sez)(?P<sezpre>(?:[IVX]{{1,4}}(?:[-\s](?:bis|ter|quater))?|{_SEZ_ORD})\s{{1,3}}{_SEZ_WORD})(?:{WS}\))?"
    # a section named in words: "sez. giur.", "sezione specializzata in materia di impresa"
    rf"|(?P<sezx>(?:[Ss]ez(?:ioni|ione|\.)|[Ss]ezz\.)\s{{0,3}}(?:(?:[a-zà-ù]{{2,16}}\.?|per\s+(?:la|il|l['’]))\s{{0,3}}){{1,6}})"
    rf"|(?P<lav>lav\.|lavoro)"
    rf"|(?P<tribs>trib(?:\.|utaria(?![a-zà-ù])))"
    rf"|(?P<bare>[IVX]{{1,4}}(?:-bis|-ter)?)(?=\s{{0,3}},)"
    rf"|(?P<dtype>sent(?:enz[ae]|t?\.)|ord(?:inanz[ae]|d?\.)(?:\s?interl(?:ocutori[ae]|\.))?|decr(?:et[oi]|\.)|dec\.|parer[ei]|decision[ei])"
    rf"|(?P<hearing>(?P<hpar>\({WS})?{_HEARING}(?(hpar){WS}\)))"
    rf"|(?P<date>(?P<dpar>\({WS}(?=dep))?(?:del\s+|{_DEPOSIT})?(?:{_TEXT_DATE}|{_NUM_DATE})(?(dpar){WS}\)))"
    rf"|(?P<causa>(?:(?:causa|cause\s+riunite|proc(?:\.|edimento))\s{{0,3}})?(?-i:[CTF])\s?[-–]\s?\d{{1,4}}/\d{{2}}(?![\d/])(?:\s?P\b)?)"
    rf"|(?P<num>(?:(?:ric(?:\.|orso)\s{{0,3}})?n(?:n?\.|r\.|°|um\.)|numer[oi]){WS}\d{{1,6}}(?:{WS}/{WS}(?:\d{{4}}|\d{{2}})(?![\d/])|{WS},?\s{{1,3}}del(?:l['’]|\s{{1,3}})(?:(?:\d{{1,2}}|1°)\s{{1,3}}{MONTH_RE}\s{{1,3}})?\d{{4}}(?!\d))?(?![\d/])"
    rf"|\d{{1,6}}{WS}/{WS}\d{{4}}(?![\d/])"
    rf"|\d{{1,6}}{WS},?\s{{1,3}}del(?:l['’]|\s{{1,3}})(?:(?:\d{{1,2}}|1°)\s{{1,3}}{MONTH_RE}\s{{1,3}})?\d{{4}}(?!\d))"
    rf"|(?P<year>(?:19|20)\d{{2}})(?![\d/])(?!\.\d)"
    # how the court sat, between its name and its decision: skipped
    rf"|(?P<qual>in\s{{1,3}}(?:sede\s{{1,3}}(?:giurisdizionale|consultiva|di\s{{1,3}}rinvio|penale|civile)"
    rf"|composizione\s{{1,3}}(?:monocratica|collegiale)|funzione\s{{1,3}}di\s{{1,3}}giudice\s{{1,3}}(?:del\s{{1,3}}lavoro|d['’]\s?appello|tutelare)"
    rf")(?![a-zà-ù]))"
    # (grouped by first letter: tried at every element, one test per letter rather than one per word)
    rf"|(?P<filler>(?:a(?:nche|ncora)?|c(?:on|elebre|itata)|d(?:ata|alla|a\s{{1,3}}ultimo|i\s{{1,3}}recente)"
    rf"|ex\s{{1,3}}(?:multis|plurimis)|[tf]ra\s{{1,3}}le\s{{1,3}}altre|già|in(?:fine|oltre)?|l[ae]|medesima"
    rf"|n(?:ella|elle|ota)|p(?:oi|ure|ronuncia|recedente|er\s{{1,3}}tutte)|r(?:ecente|ichiamata|icordata)"
    rf"|s(?:ua|tessa|torica|uccessiva))(?![a-zà-ù])"
    rf"|cfr\.|(?:l|nell|coll|dall|sull)['’]\s?(?=[a-zà-ù]))"
    rf"|(?P<gc>G\.\s?C\.|GC\b|Grande\s+(?:Camera|Sezione|Chambre))"
    rf"|(?P<place>(?-i:[A-Z])[a-zà-ù'’]{{2,}}(?:[\s-]{{1,2}}(?-i:[A-Z])[a-zà-ù'’]{{2,}}){{0,2}})"
    rf")",
    re.I,
)
SEC_BEFORE = re.compile(
    rf"(?P<sec>[Ss]ezioni\s{{1,3}}[Uu]nite|S\.\s?U\.|SS\.\s?UU\.|{_SEZ_ORD}\s{{1,3}}[Ss]ezione"
    rf"|[Ss]ezione\s{{1,3}}(?:{_SEZ_ORD}|[Ll]avoro|[Tt]ributaria))(?:\s{{1,3}}(?P<b>civil[ei]|penal[ei]))?"
    rf"\s{{1,3}}(?:della|dalla)\s{{1,3}}$", re.I)
OF_AFTER = re.compile(r"\s{0,3},?\s{0,3}(?:della|dalla|delle|del|dal)\s{1,3}|\s{0,3},?\s{0,3}(?:dell|dall)['’]\s?", re.I)
OF_BEFORE = re.compile(r"(?:della|dalla)\s{1,3}$", re.I)
PLEN_OF_CDS = re.compile(r"\s{1,3}del\s{1,3}(?:Consiglio\s{1,3}di\s{1,3}Stato|Cons\.\s?(?:di\s+)?St(?:ato\b|\.))")
EU_TRIB = re.compile(r"\s{0,3}(?:UE\b|U\.E\.|dell['’]\s?Unione\s+[Ee]uropea|di\s+primo\s+grado\s+(?:UE|CE)\b)")
NUM_PARTS = re.compile(
    rf"(?:(?:n(?:n?\.|r\.|°|um\.)|numer[oi]){WS})?(?P<n>\d{{1,6}})(?:{WS}/{WS}(?P<y2>\d{{4}}|\d{{2}})|{WS},?\s{{1,3}}del(?:l['’]|\s{{1,3}})(?:(?P<d>\d{{1,2}}|1°)\s{{1,3}}(?P<m>{MONTH_RE})\s{{1,3}})?(?P<y4>\d{{4}}))?",
    re.I,
)
DATE_PARTS = re.compile(
    rf"(?P<d>\d{{1,2}}|1°)\s{{1,3}}(?P<m>{MONTH_RE})\s{{1,3}}(?P<y>\d{{4}})|(?P<d2>\d{{1,2}})[./-](?P<m2>\d{{1,2}})[./-](?P<y2>\d{{4}}|\d{{2}})(?!\d)",
    re.I,
)
# a dash between two dates: "2 dicembre 2025 - 22 gennaio 2026" (decided, then deposited)
DASH_LEAD = re.compile(r"\s{0,3}[-–]")
# Lists of decisions of one court: "sentt. nn. 348 e 349 del 2007", "n. 10, n. 11 e n. 82 del 2000".
# A year (or date) written after the last number is every listed number's; each number keeps its own
# when it has one ("n. 475 del 1994, n. 355 del 1995": the chain below).
_LIST_SEP = r"(?:\s{0,3},\s{0,3}(?:ed?\s{1,3})?|\s{1,3}ed?\s{1,3})"


def _list_num(group: str) -> str:
    """A listed number (captured as `group`), never the day of a date."""
    return rf"(?:(?:nn?\.|nr\.){WS})?(?P<{group}>\d{{1,6}})(?!\d|[./-]\d{{1,2}}[./-]\d|\s{{1,3}}(?:{MONTH_RE}))"


_LIST_YEAR = (rf"(?:{WS}/{WS}(?P<y2>\d{{4}}|\d{{2}})"
              rf"|{WS},?\s{{1,3}}del(?:l['’]\s?|\s{{1,3}})(?:anno\s{{1,3}})?(?:(?P<d>\d{{1,2}}|1°)\s{{1,3}}(?P<m>{MONTH_RE})\s{{1,3}})?(?P<y4>\d{{4}}))")
BARE_HEAD = re.compile(rf"{WS}(?P<n>\d{{1,6}})(?!\d|[./-]\d|\s{{1,3}}(?:{MONTH_RE}))", re.I)
LIST_ITEM = re.compile(_LIST_SEP + _list_num("n"), re.I)
# the rest of a list after its first number: more numbers, then the year they share (if written)
LIST_TAIL = re.compile(rf"(?P<nums>(?:{_LIST_SEP}{_list_num('x')}){{1,20}})(?:{_LIST_YEAR})?(?![\d/])", re.I)
CASE_CHAIN = re.compile(
    rf"(?:{WS}[,;]{WS}(?:(?P<and>e\s{{1,3}})|id\.,?\s{{0,3}}|ivi\s{{1,3}})?|\s{{1,3}}(?P<and2>e)\s{{1,3}})"
    rf"(?P<dt>(?:sent(?:enz[ae]|t?\.)|ord(?:inanz[ae]|d?\.))\s{{1,3}})?"  # "ord. n. 475/1994; sent. n. 5/1995"
    rf"(?P<num>(?P<mark>(?:nn?\.|nr\.){WS})?(?P<n>\d{{1,6}})(?!\d)(?P<nums>(?:{_LIST_SEP}{_list_num('x')}){{0,20}}){_LIST_YEAR})(?![\d/])",
    re.I,
)
PLURAL_DTYPE = re.compile(r"sentenze|sentt\.|ordinanze|ordd\.|decreti|pareri|decisioni", re.I)
# "sentenza n. 238 del 2014 della Corte costituzionale": decision before the court
_PREFIX_ITEM = (
    rf"(?P<dtype>sent(?:enz[ae]|t?\.)|ord(?:inanz[ae]|d?\.))\s{{1,3}}"
    rf"(?:(?P<nums>(?:nn?\.\s{{0,3}})?\d{{1,6}}(?:{_LIST_SEP}(?:nn?\.\s{{0,3}})?\d{{1,6}}(?!\d)){{0,20}})"
    rf"(?:\s{{0,3}}/\s{{0,3}}(?P<y2>\d{{4}}|\d{{2}})|,?\s{{1,3}}del\s{{1,3}}(?:(?P<d>\d{{1,2}}|1°)\s{{1,3}}(?P<m>{MONTH_RE})\s{{1,3}})?(?P<y4>\d{{4}}))"
    # date first: "Con la sentenza 12 maggio 2021, n. 4001, il Tribunale di Milano"
    rf"|(?:del\s{{1,3}})?(?P<dd>\d{{1,2}}|1°)\s{{1,3}}(?P<dm>{MONTH_RE})\s{{1,3}}(?P<dy>\d{{4}}){WS},?{WS}n\.{WS}(?P<dn>\d{{1,6}})(?![\d/]))"
)
CASE_PREFIX = re.compile(
    rf"(?P<con>con\s{{1,3}}(?:la\s{{1,3}}|le\s{{1,3}}|l['’]\s?)?)?{_PREFIX_ITEM}"
    # "... della Corte"; or, after "con", the court as the subject: "Con l'ordinanza n. 207 del 2018 la Corte
    # costituzionale" (without "con" the subject may be another court: "avverso la sentenza n. 5/2020 la Corte d'appello")
    rf"{WS},?\s{{1,3}}(?:(?P<of>della|dalla|delle|del|dal)\s{{1,3}}|(?P<of2>dell|dall)['’]\s?|(?:la|il)\s{{1,3}}|l['’]\s?)$",
    re.I,
)
PREFIX_WINDOW = 160  # characters looked back for the decision a court name follows

ECLI = re.compile(r"(?i:ECLI:IT):(?P<court>[A-Za-z0-9]{1,7}):(?P<year>\d{4}):(?P<ord>[A-Za-z0-9.]{1,25})(?<!\.)")

# Lists of decisions of one court, each item with its own type, date and number: "Corte cost., ord.
# n. 4/2001 e nella sentenza n. 9 del 2001", "Cons. Stato, sez. IV, n. 1/2020, nonché sez. V, n. 2/2021",
# "; cfr. anche ord. n. 5/2001". What joins two items: a connector, then words that introduce a decision.
_JOIN_WORD = (r"(?:e|ed|nonch[éè]|o|ovvero|oppure|come\s{1,3}(?:pure|anche)|oltre\s{1,3}(?:che|a(?:lla|ll['’]\s?)?))"
              r"(?![a-zà-ù])")
_INTRO = (r"(?:(?:cfr|v|vd|vedi|conf|contra)\.?|si\s{1,3}vedan?[oa]|anche|poi|pure|inoltre|ancora|altres[iì]|infine"
          r"|da\s{1,3}ultimo|(?:più\s{1,3})?di\s{1,3}recente|successivamente|in\s{1,3}seguito|ex\s{1,3}multis"
          r"|tra\s{1,3}le\s{1,3}altre|con|nella|nelle|nel|nei|dalla|dalle|alla|alle|sulla|la|le|il|i)(?![a-zà-ù])"
          r"|(?:nell|dall|coll|sull|all|l)['’]\s?")
_JOIN = (rf"(?:{WS}(?:[,;:(]{WS}(?:{_JOIN_WORD})?|(?<=\s){_JOIN_WORD}|\s{{1,3}}{_JOIN_WORD})"
         rf"(?:{WS},?{WS}(?:{_INTRO})){{0,5}}(?:{WS},)?{WS})")
# an item begins with a decision's type, its section or "n." and a number
LIST_JOIN = re.compile(
    rf"{_JOIN}(?=(?:sent(?:enz[ae]|t?\.)|ord(?:inanz[ae]|d?\.)|decision[ei]|parer[ei])\s{{0,3}}(?:nn?\.|nr\.|n°|\d|caus"
    rf"|(?-i:[CTF])\s?[-–]\s?\d)|(?:[Ss]ez(?:\.|ione|ioni)|sezz\.)\s|caus[ae]\s|(?-i:[CTF])\s?[-–]\s?\d{{1,4}}/"
    rf"|(?:ric(?:\.|orso)\s{{0,3}})?(?:nn?\.|nr\.)\s{{0,3}}\d)",
    re.I,
)
# the item named before a later one of the same list ("con l'ordinanza n. 4 del 2001 e con la sentenza ..."),
# read backwards from that one's start
EARLIER_ITEM = re.compile(rf"{_PREFIX_ITEM}(?![\d/]){_JOIN}$", re.I)


def item_numbers(m: re.Match) -> tuple[list[str], int | None, str | None]:
    """A decision item's numbers, year and date, written with its own date (`n. 5 del 12 marzo
    2001`) or as numbers sharing one year (`nn. 4 e 5/2001`)."""
    if m.group("dn"):
        year = read_year(m.group("dy"))
        return [m.group("dn")], year, iso_date(m.group("dd"), m.group("dm"), year)
    year = read_year(m.group("y2") or m.group("y4"))
    return re.findall(r"\d+", m.group("nums")), year, iso_date(m.group("d"), m.group("m"), year)
