"""The small grammar every reference is made of: months, dates and years, Roman numerals,
Latin suffixes of inserted articles, article keys, their order and the nearest-article rule.

Why one module: these pieces were written five times (scanner, URN parser, export parser, tools,
verifier) and disagreed (Latin suffixes stopping at 20, 30 or 50; two Roman parsers; two month
tables; two "nearest article" rules). Every reader of a reference now asks here.

Latin suffixes (bis, ter … duodevicies, vicies semel): the legislator goes on inserting —
D.Lgs. 231/2001 reaches 25-duodevicies and 25-undevicies (eIds `art_25-duodevicies`,
`art_25-undevicies` in `normattiva-akn/mcp-legal-it__dlgs_231_2001.xml`), the c.p.
452-quinquiesdecies. Up to 50 (quinquagies) a suffix is a simple multiplier (bis … novies/nonies),
or an optional unit prefix (un, duo, tre, ter, quater, quin, quinquies, se, sexies, septies,
octies, novies/nonies, semel, bis, and the subtractive unde-/duode-) joined to a tens word
(decies, vicies, tricies/trigies, quadragies, quinquagies), optionally followed by an additive
unit (vicies semel, vicies bis). The canonical key drops the separators inside the suffix and
writes `novies` for `nonies` (both are printed for the same suffix; L. 241/1990's 21-nonies has
eId `art_21-novies`).
"""

from __future__ import annotations

import datetime as _dt
import re

from it_eli.runtime.errors import InvalidArg

# ---------------------------------------------------------------- months and dates

MONTHS = (
    "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno",
    "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre",
)
# abbreviations lawyers write ("7 ago. 1990", "1 sett. 2003")
_MONTH_ABBREV = {
    "genn": 1, "gen": 1, "febb": 2, "feb": 2, "mar": 3, "apr": 4, "mag": 5, "giu": 6, "lug": 7, "ago": 8,
    "sett": 9, "set": 9, "ott": 10, "nov": 11, "dic": 12,
}
MONTH_NUMBER: dict[str, int] = {m: i + 1 for i, m in enumerate(MONTHS)} | {f"{k}.": v for k, v in _MONTH_ABBREV.items()}
MONTH_RE = "(?:" + "|".join(MONTHS) + "|(?:" + "|".join(sorted(_MONTH_ABBREV, key=len, reverse=True)) + r")\.)"
# a day as written: "7", "07", "1°", "1º", "primo"
DAY_RE = r"(?:[12]\d|3[01]|0?[1-9])(?:\s?[°º])?(?!\d)|primo"


def month_number(word: str) -> int | None:
    w = (word or "").strip().lower()
    if w.isdigit():
        n = int(w)
        return n if 1 <= n <= 12 else None
    return MONTH_NUMBER.get(w)


def day_number(word: str) -> int | None:
    w = (word or "").strip().lower().rstrip("°º ")
    if w == "primo":
        return 1
    return int(w) if w.isdigit() else None


def two_digit_year(yy: int, *, historical: bool = False, today: _dt.date | None = None) -> int:
    """'90' -> 1990, '01' -> 2001: a year not later than this one; a historical act type
    (regio decreto, decreto luogotenenziale ...) is always 19yy."""
    if historical:
        return 1900 + yy
    this = (today or _dt.date.today()).year % 100
    return 2000 + yy if yy <= this else 1900 + yy


def year_of(raw: str | None, *, historical: bool = False) -> int | None:
    """A year as written (2 or 4 digits); None when it is not a plausible year of an act."""
    if not raw:
        return None
    s = raw.strip()
    if not s.isdigit():
        return None
    if len(s) == 2:
        return two_digit_year(int(s), historical=historical)
    v = int(s)
    return v if len(s) == 4 and 1800 <= v <= 2100 else None


def iso_date(day: str | int | None, month: str | int | None, year: int | None) -> str | None:
    """ISO date of a day, month (word, abbreviation or number) and year; None if not a real date."""
    if day is None or month is None or not year:
        return None
    d = day if isinstance(day, int) else day_number(str(day))
    m = month if isinstance(month, int) else month_number(str(month))
    if not d or not m:
        return None
    try:
        return _dt.date(year, m, d).isoformat()
    except ValueError:
        return None


def italian_date(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{d} {MONTHS[m - 1]} {y}"


# ---------------------------------------------------------------- Roman numerals

_ROMAN_RE = re.compile(r"^[ivxlcdm]+$", re.IGNORECASE)
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def int_to_roman(n: int) -> str:
    out = []
    for v, sym in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                   (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= v:
            out.append(sym)
            n -= v
    return "".join(out)


def roman_to_int(s: str) -> int | None:
    """Value of a Roman numeral ("XVIII" -> 18), None when `s` is not one (non-canonical
    spellings such as "IIII" or "VX" are refused, so that words are not taken for numbers)."""
    s = (s or "").strip().upper()
    if not s or not _ROMAN_RE.match(s):
        return None
    total = 0
    for i, ch in enumerate(s):
        v = _ROMAN_VALUES[ch]
        total += -v if i + 1 < len(s) and _ROMAN_VALUES[s[i + 1]] > v else v
    return total if int_to_roman(total) == s else None


# ordinal words: "secondo comma", "la XII disposizione" / "dodicesima disposizione"
_ORDINAL_WORDS = (
    "primo", "secondo", "terzo", "quarto", "quinto", "sesto", "settimo", "ottavo", "nono", "decimo",
    "undicesimo", "dodicesimo", "tredicesimo", "quattordicesimo", "quindicesimo", "sedicesimo",
    "diciassettesimo", "diciottesimo", "diciannovesimo", "ventesimo",
)
ORDINALS: dict[str, int] = {}
for _i, _w in enumerate(_ORDINAL_WORDS, 1):
    ORDINALS[_w] = _i
    ORDINALS[_w[:-1] + "a"] = _i  # feminine: "dodicesima disposizione"
ORDINAL_RE = "(?:" + "|".join(sorted(ORDINALS, key=len, reverse=True)) + ")"

# ---------------------------------------------------------------- Latin suffixes

_UNITS = r"(?:un|duo|tre|ter|quater|quin|quinquies|se|sexies|septies|octies|novies|nonies|semel|bis|unde|duode)"
_TENS = r"(?:decies|vicies|tricies|trigies|quadragies|quinquagies)"
_SIMPLE = r"(?:bis|ter|quater|quinquies|sexies|septies|octies|novies|nonies)"
_ADDED = r"(?:semel|bis|ter|quater|quinquies|sexies|septies|octies|novies|nonies)"

# Compound forms first: the regex alternation takes the first alternative that fits, so
# "terdecies" is read whole, not as "ter" + garbage.
LATIN = (
    r"(?:" + _UNITS + r"?[\s_-]?" + _TENS + r"(?:[\s_-]?" + _ADDED + r"(?![a-z]))?"
    r"|" + _SIMPLE + r")"
)
LATIN_RE = re.compile(r"^" + LATIN + r"$", re.IGNORECASE)

_UNIT_VALUE = {
    "un": 1, "semel": 1, "duo": 2, "bis": 2, "tre": 3, "ter": 3, "quater": 4, "quin": 5, "quinquies": 5,
    "se": 6, "sexies": 6, "septies": 7, "octies": 8, "novies": 9, "nonies": 9, "unde": -1, "duode": -2,
}
_TENS_VALUE = {"decies": 10, "vicies": 20, "tricies": 30, "trigies": 30, "quadragies": 40, "quinquagies": 50}
_LATIN_PARTS = re.compile(r"^(?P<u>" + _UNITS + r")?(?P<t>" + _TENS + r")(?P<a>" + _ADDED + r")?$")


def canonical_suffix(raw: str) -> str:
    """'quinquies decies' -> 'quinquiesdecies'; 'nonies' -> 'novies'."""
    return re.sub(r"[\s_-]", "", raw).lower().replace("nonies", "novies")


def is_suffix(raw: str) -> bool:
    return bool(LATIN_RE.match(raw.strip()))


def latin_value(suffix: str) -> int | None:
    """The number a suffix stands for: bis 2, terdecies 13, duodevicies 18, vicies semel 21."""
    s = canonical_suffix(suffix or "")
    if s in _UNIT_VALUE and s not in ("un", "duo", "tre", "quin", "se", "semel", "unde", "duode"):
        return _UNIT_VALUE[s]
    m = _LATIN_PARTS.match(s)
    if not m:
        return None
    return _TENS_VALUE[m["t"]] + (_UNIT_VALUE[m["u"]] if m["u"] else 0) + (_UNIT_VALUE[m["a"]] if m["a"] else 0)


# ---------------------------------------------------------------- article keys

ARTICLE_FORMS = "e.g. 2043, 21-septies, 25-bis.1, 416 bis, art. 3, XII (a transitional provision of the Costituzione)"

_STRICTKEY_RE = re.compile(
    rf"^\s*(?:art(?:icolo)?\.?\s*)?(\d+)\s*[-\s.]?\s*({LATIN})?(?![a-z])((?:\s*[.\s]\s*\d+)?)\s*\.?\s*$", re.I
)
KEY_RE = re.compile(
    r"(?P<n>\d+)\s*[-_\s]?\s*(?P<lat>" + LATIN + r")?(?![a-z])\s*(?:[._\s]?\s*(?P<sub>\d+)(?![\d]))?",
    re.IGNORECASE,
)
_ART_PREFIX_RE = re.compile(r"^\s*(?:art(?:icol[oi])?|artt)\s*[._]?\s*", re.IGNORECASE)
_DISP_TRANS_RE = re.compile(
    r"^\s*(?:disp(?:osizion[ei])?\.?[\s_-]*)?trans(?:itori[ae])?\.?(?:[\s_-]*e[\s_-]*fin(?:al[ei])?\.?)?"
    r"[\s._-]*(?P<n>[ivxlcdm]+|\d+)\.?\s*$"
    r"|^\s*(?P<n2>[ivxlcdm]+|\d+)\.?[\s_-]*disp(?:osizion[ei])?\.?[\s_-]*trans(?:itori[ae])?\.?"
    r"(?:[\s_-]*(?:e[\s_-]*)?fin(?:al[ei])?\.?)?\s*$",
    re.IGNORECASE,
)


def transitional_key(value: int) -> str:
    """The key of the Costituzione's n-th disposizione transitoria e finale."""
    return f"disp-trans-{value}"


def article_key(raw: str | int) -> str:
    """Strict: an article number as a user writes it -> its key ('21 septies' -> '21-septies',
    '25-bis.1' kept, 'nonies' -> 'novies'); InvalidArg for anything else."""
    m = _STRICTKEY_RE.match(str(raw))
    if not m:
        raise InvalidArg(f"not an article number: {raw!r}", valid=ARTICLE_FORMS)
    num, ext, sub = m.group(1).lstrip("0") or "0", m.group(2) or "", m.group(3) or ""
    if sub and not ext and not sub.lstrip().startswith("."):
        raise InvalidArg(f"not an article number: {raw!r}", valid=ARTICLE_FORMS)
    ext = canonical_suffix(ext)
    sub = "." + re.sub(r"\D", "", sub) if sub else ""
    return num + (f"-{ext}" if ext else "") + sub


def normalize_article_key(raw: str) -> str:
    """Lenient canonical key: `2043`, `21-septies`, `25-bis.1`, `102-terdecies`, `disp-trans-18`.

    Why: users, citations and the exports spell the same article many ways ("Art. 21 septies",
    "21septies", "art_25bis1", "25 bis.1"); keys must meet in one spelling. Anything that is not
    recognisably an article number is returned as a lowercase slug (so internal keys such as
    `dec-1` or `allegato-i.1-art-3` pass through unchanged).
    """
    if raw is None or not re.search(r"[0-9A-Za-z]", raw):
        raise InvalidArg("article key is empty", valid=ARTICLE_FORMS)
    s = raw.strip()
    m = _DISP_TRANS_RE.match(s)
    if m:
        n = m.group("n") or m.group("n2")
        value = int(n) if n.isdigit() else roman_to_int(n)
        if value:
            return transitional_key(value)
    body = _ART_PREFIX_RE.sub("", s, count=1)
    m = KEY_RE.match(body)
    if m and m.group("n"):
        rest = body[m.end():]
        # Accept trailing punctuation or a following citation ("2043 c.c.", "1, comma 2").
        if not rest.strip(" .") or re.match(r"^[\s,;:)(.]", rest) or m.group(0)[-1:].isspace():
            key = m.group("n")  # "01" stays: the c.p.p.'s approving decree prints "Art. 01." beside "Art. 1."
            if m.group("lat"):
                key += "-" + canonical_suffix(m.group("lat"))
            if m.group("sub"):
                key += "." + m.group("sub")
            return key
    slug = re.sub(r"\s+", "-", s.lower()).strip("-")
    return re.sub(r"-{2,}", "-", slug)


def canon_key(key: str) -> str:
    """One spelling per article/comma key, never raising (unreadable keys are lower-cased)."""
    try:
        return normalize_article_key(key)
    except InvalidArg:
        return (key or "").strip().lower()


_ORDER_RE = re.compile(r"^(\d+)(?:-([a-z]+))?(?:\.(\d+))?$")


def article_order(key: str) -> tuple[int, int, int] | None:
    """Sort key of an article key in the act's order: 21 < 21.1 < 21-bis < 21-bis.1 < 21-ter < 22.
    None for keys that are not numbered articles."""
    m = _ORDER_RE.match(key or "")
    if not m:
        return None
    lat = 1 if not m.group(2) else (latin_value(m.group(2)) or 99)
    return int(m.group(1)), lat, int(m.group(3) or 0)


def _split_prefix(key: str) -> tuple[str, str]:
    """'allegato-ii-art-3' -> ('allegato-ii-art-', '3'): an annex's articles are numbered apart."""
    m = re.match(r"^(.*-art-)(.+)$", key or "")
    return (m.group(1), m.group(2)) if m else ("", key or "")


def article_range_hint(keys: list[str], key: str) -> tuple[str, list[str]]:
    """What an act holds instead of a missing article, one wording for every tool: 'the act has 51
    numbered articles, from 1 to 31; nearest existing: 21-decies, 21-duodecies'. An approving
    decree's articles (dec-1), the Costituzione's transitional provisions and annexes are counted
    apart from the numbered ones."""
    near = nearest_articles(keys, key)
    numbered = sorted((k for k in keys if k[:1].isdigit()), key=lambda k: article_order(k) or (10**6, 0, 0))
    others = [k for k in keys if not k[:1].isdigit()]
    span = f"{len(numbered)} numbered article{'s' if len(numbered) != 1 else ''}"
    if numbered:
        span += f", from {numbered[0]} to {numbered[-1]}"
    if others:
        shown = ", ".join(others[:3]) + (f" … {others[-1]}" if len(others) > 3 else "")
        span += f", and {len(others)} other provision{'s' if len(others) > 1 else ''} ({shown})"
    return f"the act has {span}" + (f"; nearest existing: {', '.join(near)}" if near else ""), near


def nearest_articles(keys: list[str], key: str) -> list[str]:
    """The existing neighbours of a missing article, one rule for every tool: the closest
    existing key below and above it (within the same number for a suffix: '21-septies' ->
    ['21-sexies', '21-octies'] when both exist); annex articles among their annex's."""
    prefix, tail = _split_prefix(key)
    want = article_order(tail)
    if want is None:
        return []
    parsed = []
    for k in keys:
        p, t = _split_prefix(k)
        if p == prefix and (o := article_order(t)) is not None:
            parsed.append((o, k))
    same = sorted(x for x in parsed if x[0][0] == want[0])
    pool = same if (same and (want[1] > 1 or want[2])) else sorted(parsed)
    below = [k for o, k in pool if o < want]
    above = [k for o, k in pool if o > want]
    return ([below[-1]] if below else []) + ([above[0]] if above else [])
