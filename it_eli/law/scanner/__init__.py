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

from ..acts import ACT_TYPES
from ..grammar import LATIN, MONTH_RE, ORDINAL_RE, ORDINALS, iso_date, roman_to_int, transitional_key
from ..urn import act_identifiers, article_urn, build_ecli
from .eu import BACKREF_EU, RecitalReader
from .model import PARTITION_NAMES, ActRef, Citation, Partitions, partitions_of
from .places import PLACE, TAR_PLACE, seat_name, tar_seat
from .statutes import ACT_TYPE_PATTERNS, CODE_ROWS, parse_act, parse_code, same_act
from .tokens import (
    CONNECT, LONG_NUMBER_DIGITS, MAX_ARTICLE_DIGITS, NUMSUF, ORD, ORD_FEM_RE, ORD_RE, SENTENCE_END, WS, norm_key,
    read_year,
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
    rf"|(?P<filler>(?:a(?:nche|ncora)?|c(?:on|elebre|itata)|d(?:ata|a\s{{1,3}}ultimo|i\s{{1,3}}recente)"
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
CASE_PREFIX = re.compile(
    rf"(?P<con>con\s{{1,3}}(?:la\s{{1,3}}|le\s{{1,3}}|l['’]\s?)?)?(?P<dtype>sent(?:enz[ae]|t?\.)|ord(?:inanz[ae]|d?\.))\s{{1,3}}"
    rf"(?:(?P<nums>(?:nn?\.\s{{0,3}})?\d{{1,6}}(?:{_LIST_SEP}(?:nn?\.\s{{0,3}})?\d{{1,6}}(?!\d)){{0,20}})"
    rf"(?:\s{{0,3}}/\s{{0,3}}(?P<y2>\d{{4}}|\d{{2}})|,?\s{{1,3}}del\s{{1,3}}(?:(?P<d>\d{{1,2}}|1°)\s{{1,3}}(?P<m>{MONTH_RE})\s{{1,3}})?(?P<y4>\d{{4}}))"
    # date first: "Con la sentenza 12 maggio 2021, n. 4001, il Tribunale di Milano"
    rf"|(?:del\s{{1,3}})?(?P<dd>\d{{1,2}}|1°)\s{{1,3}}(?P<dm>{MONTH_RE})\s{{1,3}}(?P<dy>\d{{4}}){WS},?{WS}n\.{WS}(?P<dn>\d{{1,6}})(?![\d/]))"
    # "... della Corte"; or, after "con", the court as the subject: "Con l'ordinanza n. 207 del 2018 la Corte
    # costituzionale" (without "con" the subject may be another court: "avverso la sentenza n. 5/2020 la Corte d'appello")
    rf"{WS},?\s{{1,3}}(?:(?P<of>della|dalla|delle|del|dal)\s{{1,3}}|(?P<of2>dell|dall)['’]\s?|(?:la|il)\s{{1,3}}|l['’]\s?)$",
    re.I,
)
PREFIX_WINDOW = 160  # characters looked back for the decision a court name follows

ECLI = re.compile(r"(?i:ECLI:IT):(?P<court>[A-Za-z0-9]{1,7}):(?P<year>\d{4}):(?P<ord>[A-Za-z0-9.]{1,25})(?<!\.)")

# Courts it_eli cannot check (no open source wired in, or not Italian): extracted all the same,
# so that a text citing them is never passed as if they were not there. (regex, court code)
_OTHER_COURT_LIST: list[tuple[str, str]] = [
    (r"Corte\s+(?:di\s+)?[Gg]iustizia\s+[Tt]ributaria|C\.?G\.?T\.?\b|CGT\b|Comm(?:\.|issione)\s?[Tt]rib(?:\.|utaria)"
     r"|C\.\s?[Tt]\.\s?[PR]\.|CT[PR]\b", "TRIBUTARIA"),
    (r"Corte\s+(?:di\s+)?[Gg]iust(?:izia|\.)(?:\s+(?:dell['’]\s?)?(?:UE|U\.E\.|CE|Unione(?:\s+[Ee]uropea)?"
     r"|[Ee]uropea|delle\s+[Cc]omunit[àa]\s+[Ee]uropee))?|CGUE\b|C\.G\.U\.E\.|CGCE\b|C\.G\.C\.E\.", "CGUE"),
    (r"Corte\s+(?:EDU|[Ee]du|E\.D\.U\.|[Ee]uropea\s+dei\s+diritti\s+dell['’]\s?[Uu]omo|di\s+Strasburgo)|C\.\s?EDU\b"
     r"|C\.\s?[Ee]du\b", "CEDU"),
    (r"Corte\s+(?:dei\s+)?[Cc]onti|C\.\s?[Cc]onti\b", "CCONTI"),
    # "d'appello" and "di Appello" (elision is not always written) name the same courts
    (r"Corte\s+(?:d['’]\s?|di\s+)[Aa]ssise(?:\s+(?:d['’]\s?|di\s+)[Aa]ppello)?|C\.\s?[Aa]ss\.", "ASSISE"),
    (r"Corte\s+(?:(?:d['’]\s?|di\s+)[Aa]ppello|[Aa]pp\.)|C\.\s?[Aa]pp\.|App\.(?=\s{1,3}[A-Z])|App\.$", "APP"),
    (r"[Tt]rib(?:\.|unale\b)", "TRIB"),
]
OTHER_COURTS = "|".join(p for p, _ in _OTHER_COURT_LIST)
SEATED = ("TRIB", "APP", "ASSISE", "TRIBUTARIA", "CCONTI")
_OTHER_COURT_RE = [(re.compile(p, re.I), code) for p, code in _OTHER_COURT_LIST]
# what each of them is, for the verifier's gaps and it_coverage
COURT_NAMES = {
    "COST": "Corte costituzionale", "CASS": "Corte di cassazione", "CDS": "Consiglio di Stato",
    "CGARS": "Consiglio di giustizia amministrativa per la Regione siciliana", "TAR": "Tribunale amministrativo regionale",
    "TRIB": "Tribunale", "APP": "Corte d'appello", "ASSISE": "Corte d'assise", "CCONTI": "Corte dei conti",
    "TRIBUTARIA": "giustizia tributaria (Corte di giustizia tributaria / Commissione tributaria)",
    "CGUE": "Corte di giustizia dell'Unione europea", "CEDU": "Corte europea dei diritti dell'uomo",
}


def court_of(anchor: str) -> str:
    """The court code of a trigger anchor ('Cass.', 'Trib.', 'Corte EDU', ...)."""
    a = re.sub(r"\s+", "", anchor.lower())
    if a.startswith(("t.a.r", "tar", "tribunaleamministrativo")):
        return "TAR"
    # the Supreme Court by its epithet; the Consiglio di Stato as "C. St." / "C. Stato" and its plenary
    if a.startswith(("supremacorte", "s.c.")):
        return "CASS"
    if a.startswith(("c.st", "ad.plen", "adunanzaplen")):
        return "CDS"
    for rx, code in _OTHER_COURT_RE:
        if rx.match(anchor):
            return code
    if a.startswith(("cortecost", "c.cost", "consulta")) or "cost" in a and a.startswith("c"):
        return "COST"
    if "cass" in a:
        return "CASS"
    if a.startswith(("c.g.a", "cga")) or "giust" in a:
        return "CGARS"
    if a.startswith(("cons", "consigliodistato", "c.d.s", "cds")):
        return "CDS"
    return "TAR"


# --------------------------------------------------------------------------- triggers

# The leading look-around is a cheap filter: a word start whose first letter can begin an anchor.
# It makes the 40-branch alternation run only at plausible positions (3x faster on plain prose).
_ACT_WORDS = "|".join(p for p, _ in ACT_TYPE_PATTERNS)
_CODE_WORDS = "|".join(c.pattern for c in CODE_ROWS)
TRIGGER = re.compile(
    r"(?<![\w])(?:"
    r"(?P<ecli>(?i:ECLI:IT:))"
    r"|(?P<art>(?i:artt?\.|art(?=\s+\d)|articol[oi](?![a-z])))"
    r"|(?P<court>(?:(?i:corte\s+(?:cost|costituzionale|(?:suprema\s+)?di\s+cassazione))|C\.\s?[Cc]ost\.|"
    r"(?:C\.\s?|Corte\s+)[Cc]ass(?:azione)?\b|(?i:cass(?:azione)?)\b|"
    r"Consulta\b|(?i:suprema\s+corte)(?:\s+(?i:di\s+cassazione))?|S\.\s?C\.(?![A-Za-z])|"
    r"Cons\.\s?(?:di\s+)?St|C\.\s?St(?:ato\b|\.)|(?i:consiglio\s+di\s+(?:stato|giustizia\s+amministrativa))|C\.d\.S\.|CdS\b|"
    r"Ad(?:\.|unanza)\s?[Pp]len(?:\.|aria\b)|"
    r"C\.G\.A|CGA|Cons\.\s?[Gg]iust\.\s?[Aa]mm\.|T\.A\.R\.?|TAR\b|Tar\b|(?i:tribunale\s+amministrativo(?:\s+regionale)?)|"
    r"(?i:" + OTHER_COURTS + r")))"
    r"|(?P<dt>(?-i:[IVX]{1,5})\s{1,3}(?i:disp)|(?i:" + ORD_FEM_RE + r"\s{1,3}disp|disp(?:\.|osizion[ei]|osiz\.)\s{0,3}trans))"
    r"|(?P<struct>(?i:allegato|allegati|all\.|tabella|tab\.|titolo|tit\.|capo)(?=\s{0,3}(?:\d|[IVXLC]{1,7}\b|[A-Z]\b|unico)))"
    r"|(?P<cons>(?:(?i:considerando|consid\.)|cons\.)(?=\s{1,3}(?:n\.\s{0,3})?\d))"
    r"|(?P<part>(?i:comma|commi|co\.|paragrafo|par\.|punto|lettera|lett\.)(?=\s{0,3}(?:\d|[a-z]{1,2}\))))"
    r"|(?P<act>(?i:regolamento|reg\.|direttiv[ae]|dir\.|decisione(?:[\s-]quadro)?)(?=\s{0,3}(?:delegato\s+|di\s+esecuzione\s+)?\(?\s?(?:UE|CE|CEE|Euratom|n\.\s?\d|\d))"
    r"|(?i:" + _ACT_WORDS + r")|" + _CODE_WORDS + r")"
    r")"
)


def _trigger_words() -> list[str]:
    """How every anchor can begin: the registries' names and aliases, court names, partition words."""
    words = ["art.", "artt.", "art ", "articolo", "articoli", "ecli", "corte", "c. ", "c.", "cass", "consulta", "cons.",
             "consiglio", "c.d.s.", "cds", "cdS", "cga", "c.g.a", "t.a.r", "tar ", "tar,", "tribunale", "trib.",
             "comm.", "commissione", "ctp", "ctr", "cgt", "cgue", "cgce", "c.g.u.e.", "c.g.c.e.", "c.t.p.", "c.t.r.",
             "c.edu", "c. edu", "c.cost", "c. cost", "c.conti", "c. conti", "c.app", "c. app", "c.ass", "c. ass",
             "cedu", "app.", "cons. giust", "cons.giust", "suprema", "s.c.", "s. c.", "ad. plen", "ad.plen", "adunanza",
             "allegato", "allegati", "all.", "tabella", "tab.", "titolo", "tit.", "capo",
             "considerando", "comma", "commi", "co.", "paragrafo", "par.", "punto", "lettera", "lett.", "regolamento",
             "direttive", "reg.", "direttiva", "dir.", "decisione", "disp", "norme",
             "decretolegge", "decreto-legge", "decreto legge", "decreto", "decr.", "d.-l.", "d. l.", "d. lgs", "d.lgs",
             "d. p.", "d.p.", "r. d.", "l. ", "legge", "circolare", "circ.", "delibera", "determina", "ordinanza",
             "o.m.", "o. m.", "regio", "gdpr", "rgpd"]
    words += [w for w in ORDINALS if w.endswith("a")]  # "dodicesima disposizione transitoria"
    names = []
    for t in ACT_TYPES:
        names += [*t.aliases, t.label, t.abbreviation]
    for c in CODE_ROWS:
        names += [*c.aliases, c.abbreviation, c.name]
    # a registry name counts only if the trigger reads it (aliases for it_resolve may be prose words)
    words += [n for n in names if TRIGGER.match(n) or TRIGGER.match(n + " 1/2000")]
    return [re.sub(r"\s+", " ", w.lower()) for w in words if w]


_WORDS = _trigger_words()
def _trie_regex(prefixes: set[str]) -> str:
    """One regex matching any of `prefixes`, as a trie (each step one character test): the C
    engine then discards most word starts in a character or two."""
    trie: dict = {}
    for p in prefixes:
        node = trie
        for ch in p:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        if "" in node and len(node) == 1:
            return ""
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


def _anchor_prefixes() -> set[str]:
    out = {w[:6] for w in _WORDS if len(w) >= 6} | {w for w in _WORDS if len(w) < 6}
    out = {re.sub(" ", "\x00", w) for w in out}  # a space in a name: any whitespace in the text
    return out | {r for r in ("i ", "v ", "x ", "ii", "iv", "ix", "vi", "xi", "xv", "xx")}


# word starts that may begin an anchor (the full trigger, an alternation of every act type and code
# name, is tried only there: on plain prose that keeps the scan near the speed of one small regex)
_PREFIXES = _anchor_prefixes()
_FIRST = "".join(sorted({w[0] for w in _PREFIXES} | {w[0].upper() for w in _PREFIXES}))
# the leading class lets the engine skip, at C speed, positions no anchor can start at
FILTER = re.compile(rf"(?=[{re.escape(_FIRST)}])(?<![\w])(?i:" + _trie_regex(_PREFIXES).replace("\x00", r"\s") + ")")


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


DASH_LEAD = re.compile(r"\s{0,3}[-–]")


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
        text = self.text
        c, court, pos = self._case_head(start, anchor)
        pos, got_num, got_date, date_end, plural, num_year, last = self._case_elements(c, court, pos)
        if not got_num and last == "dtype":
            # numbers right after the type, no "n.", sharing a year: "Corte cost., sentt. 348 e 349 del 2007"
            hm = BARE_HEAD.match(text, pos)
            lm = LIST_TAIL.match(text, hm.end()) if hm else None
            if lm and (lm.group("y2") or lm.group("y4")):
                c.decision_number, got_num, pos = str(int(hm.group("n"))), True, hm.end()
        if not got_num and not got_date:
            # a court name alone is prose; with a date and no number it is still a citation
            # ("Cass., 12 febbraio 2021"; "Corte EDU, 8 gennaio 2013, Torreggiani c. Italia")
            return start + 1
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

    def parse_case_prefixed(self, start: int, anchor: str) -> bool:
        """'sentenza n. 238 del 2014 della Corte costituzionale', 'le sentenze nn. 5 e 6 del 2001 del
        Consiglio di Stato', 'Con l'ordinanza n. 207 del 2018 la Corte costituzionale' (decision before
        the court): one citation per number, spanning decision and court."""
        text = self.text
        near = text[max(0, start - PREFIX_WINDOW - 60) : start].lower()
        if "sent" not in near and "ord" not in near:
            return False  # no decision type in reach: spare the regex searches
        court = court_of(anchor)
        # "la sentenza n. 5/2020 delle Sezioni Unite della Cassazione": the section stands between
        sec_start, section, branch = self._section_before(start) if court == "CASS" else (start, None, None)
        window = text[max(0, sec_start - PREFIX_WINDOW) : sec_start]
        m = CASE_PREFIX.search(window)
        if not m or not (m.group("of") or m.group("of2") or m.group("con")):
            return False
        s = sec_start - len(window) + m.start("dtype")
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
        if m.group("dn"):
            nums, year = [m.group("dn")], read_year(m.group("dy"))
            date = iso_date(m.group("dd"), m.group("dm"), year)
        else:
            nums, year = re.findall(r"\d+", m.group("nums")), read_year(m.group("y2") or m.group("y4"))
            date = iso_date(m.group("d"), m.group("m"), year)
        v = m.group("dtype").lower()
        for n in nums:
            self.out.append(Citation(
                raw=text[s:e], start=s, end=e, kind="case", court=court, court_seat=seat, court_section=section,
                court_branch=branch,
                decision_type="sentenza" if v.startswith("sent") else "ordinanza",
                decision_number=str(int(n)), decision_year=year, decision_date=date,
            ))
        return True


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
