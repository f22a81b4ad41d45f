"""How a caller names a decision (ECLI, number and year, "238/2014") and a search's filters
(`anno:2014` in the query, `tipologia`), checked and normalised before the index is asked:
pure, and shared by the index and the MCP tools.
"""

from __future__ import annotations

import datetime as dt
import re

from it_eli.runtime.errors import InvalidArg, QueryError

_ECLI_RE = re.compile(r"^ECLI:IT:COST:(\d{4}):(\d{1,5})$", re.I)
FILTER_IN_QUERY = re.compile(r"(?<!\S)(anno|tipologia|tipo):(\S+)(?!\S)", re.I)


def filters_from_query(query: str, anno, tipologia) -> tuple[str, int | None, str | None, list[str]]:
    """`anno:2014` and `tipologia:sentenza` written inside the query are the filters of the same
    name (clients and models write them that way); the rest of the query is searched."""
    notes: list[str] = []

    def take(m: re.Match) -> str:
        nonlocal anno, tipologia
        name, value = m.group(1).lower(), m.group(2)
        if name == "anno":
            if not value.isdigit():
                raise InvalidArg(f"anno:{value[:20]} is not a year", valid="anno:YYYY, e.g. anno:2014")
            if anno is not None and anno != int(value):
                raise InvalidArg(f"anno:{value} in the query and anno={anno} disagree", valid="one year, once")
            anno = int(value)
        else:
            if tipologia is not None and normalise_tipologia(tipologia) != normalise_tipologia(value):
                raise InvalidArg(f"{name}:{value} in the query and tipologia={tipologia} disagree", valid="one type, once")
            tipologia = value
        notes.append(f"{name}:{value} read as the {('anno' if name == 'anno' else 'tipologia')} filter")
        return " "
    rest = FILTER_IN_QUERY.sub(take, query).strip()
    if not rest:
        raise QueryError(
            "the query has only filters and no words to search",
            valid="some words to search, with the filters as the anno / tipologia arguments (e.g. it_case_recent for the newest)",
        )
    return rest, anno, tipologia, notes


def normalise_tipologia(value: str) -> str:
    v = value.strip().lower().rstrip(".")
    table = {"s": "S", "sent": "S", "sentenza": "S", "sentenze": "S", "o": "O", "ord": "O", "ordinanza": "O", "ordinanze": "O"}
    if v not in table:
        raise InvalidArg(f"tipologia={value!r}", valid="'sentenza' (S) or 'ordinanza' (O)")
    return table[v]


def _as_int(name: str, value: int | str | None) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InvalidArg(f"{name}={value!r}", valid=f"{name} as an integer")
    if isinstance(value, int):
        return value
    s = str(value).strip()
    if not s.isdigit():
        example = {"anno": "2014", "numero": "238"}.get(name, "238")
        also = ", or number/year as cited: 238/2014" if name == "numero" else ""
        raise InvalidArg(f"{name}={value!r} is not a number", valid=f"{name} as an integer, e.g. {example}{also}")
    return int(s)


_NUMERO_ANNO_RE = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")


def validate_decision_ref(ecli, anno, numero) -> tuple[str | None, int | None, int | None]:
    m = _NUMERO_ANNO_RE.fullmatch(numero) if isinstance(numero, str) else None
    if m:  # "238/2014", as decisions are cited: the number and the year
        numero, year = m.group(1), int(m.group(2))
        if anno is not None and anno != "" and _as_int("anno", anno) != year:
            raise InvalidArg(f"numero says {year}, anno says {anno}", valid="the same year in both, or the year in one only")
        anno = year
    anno_i, numero_i = _as_int("anno", anno), _as_int("numero", numero)
    if ecli:
        m = _ECLI_RE.match(str(ecli).strip())
        if not m:
            raise InvalidArg(
                f"ecli={str(ecli)[:80]!r} is not a Constitutional Court ECLI",
                valid="ECLI:IT:COST:<year>:<number>, e.g. ECLI:IT:COST:2014:238",
            )
        e_anno, e_num = int(m.group(1)), int(m.group(2))
        this_year = dt.date.today().year
        if not (1956 <= e_anno <= this_year + 1) or e_num <= 0:
            raise InvalidArg(f"ecli={str(ecli)[:80]!r}: year {e_anno}, number {e_num}",
                             valid=f"a year from 1956 (the Court's first decisions) to {this_year}, a number >= 1")
        if (anno_i is not None and anno_i != e_anno) or (numero_i is not None and numero_i != e_num):
            raise InvalidArg("ecli and anno/numero disagree", valid="give the ECLI alone, or anno and numero")
        return f"ECLI:IT:COST:{e_anno}:{e_num}", None, None
    if anno_i is None or numero_i is None:
        raise InvalidArg("which decision?", valid="ecli (ECLI:IT:COST:2014:238) or both anno and numero")
    this_year = dt.date.today().year
    if not (1956 <= anno_i <= this_year + 1) or numero_i <= 0:
        raise InvalidArg(f"anno={anno_i}, numero={numero_i}", valid=f"anno from 1956 to {this_year}, numero >= 1")
    return None, anno_i, numero_i
