"""The requests as the court's own client shapes them: filters AND-ed into `q` after its start
query, the sort menu, and the parameters of a search, its facet counts and one decision by id."""

from __future__ import annotations

from it_eli.runtime.errors import InvalidArg
from it_eli.sources.marks import lookup_key
from it_eli.sources.sentenzeweb.court import (
    KIND_OF_CHAMBER,
    SIC_ID_RE,
    SIC_ID_VALID,
    resolve_chamber,
    resolve_decision_type,
    resolve_section,
)
from it_eli.sources.sentenzeweb.query import solr_phrase

SELECT_PATH = "/isapi/hc.dll/sn.solr/sn-collection/select"
# The court's front-end (index.js) marks what a request is for in the URL's query string:
# `select?app.query=<kind>` (a search; bare `select?app.query` with no archive chosen),
# `select?app.facet` (facet counts); the decision's detail goes to plain `select`.
APP_QUERY = "app.query"
APP_FACET = "app.facet"
# Every search of the court's client is restricted to the two archives (its hidden `startquery`):
# the collection also holds other kinds of documents (the suggester's `kind:"key"` entries).
START_QUERY = '(kind:"snciv" OR kind:"snpen")'
SEARCH_FIELDS = "id,kind,anno,numdec,numdep,szdec,ssz,tipoprov,datdec,datdep,pd,materia,filename,presidente,relatore"
# the court's facet lists, in its order
FACET_FIELDS = ("kind", "tipoprov", "szdec", "anno")


def build_filters(
    chamber: str | None,
    sub_chamber: str | None,
    anno: int | None,
    *,
    section: str | None = None,
    decision_type: str | None = None,
) -> list[str]:
    """Validated filters as the court's client writes them, `field:"value"`, in the order of its
    facet lists (kind, tipoprov, szdec, anno). Never user text: only values from the tables above.

    `sub_chamber` is the older name of `section` (same values); both may be given if they agree.
    """
    chamber = resolve_chamber(chamber)
    sec = resolve_section(section)
    sub = resolve_section(sub_chamber, "sub_chamber")
    if sec and sub and sec[0] != sub[0]:
        raise InvalidArg(
            f"section {section!r} and sub_chamber {sub_chamber!r} disagree",
            valid="give only section (sub_chamber is its older name)",
        )
    sec = sec or sub
    if sec is not None and sec[1] is not None:
        if chamber is not None and chamber != sec[1]:
            raise InvalidArg(
                f"section {str(section or sub_chamber)[:60]!r} is a {sec[1]} section, chamber is {chamber}",
                valid=f"chamber={sec[1]} or no chamber",
            )
        chamber = sec[1]
    filters: list[str] = []
    if chamber is not None:
        filters.append(f"kind:{solr_phrase(KIND_OF_CHAMBER[chamber])}")
    dtype = resolve_decision_type(decision_type)
    if dtype is not None:
        filters.append(f"tipoprov:{solr_phrase(dtype)}")
    if sec is not None:
        filters.append(f"szdec:{solr_phrase(sec[0])}")
    if anno is not None:
        if isinstance(anno, str) and anno.strip().isdigit():
            anno = int(anno.strip())
        if isinstance(anno, bool) or not isinstance(anno, int) or not 1900 <= anno <= 2100:
            raise InvalidArg(f"anno {anno!r} is not a year", valid="a year such as 2024")
        filters.append(f"anno:{solr_phrase(str(anno))}")
    return filters


def court_query(text_q: str, filters: list[str]) -> str:
    """The `q` the court's client sends: the text in parentheses, its start query, then every
    filter AND-ed in (it never sends `fq`)."""
    return " AND ".join([f"({text_q})", f"({START_QUERY})", *filters])


def filter_kind(filters: list[str]) -> str | None:
    """The archive chosen by the filters (`snciv` / `snpen`), named in `select?app.query=<kind>`."""
    for f in filters:
        if f.startswith("kind:"):
            return f[len("kind:"):].strip('"')
    return None


# The court's sort menu (`#sortchoice`): "data pubblicazione" (auto for the civil archive),
# "data udienza" (auto for the criminal one), "rilevanza" (no sort sent: Solr's score order).
SORTS: dict[str, str | None] = {
    "relevance": None,
    "deposit_date": "pd desc,numdec desc",
    "decision_date": "datdec desc,pd desc,numdec desc",
}
SORT_NAMES: dict[str, str] = {
    **{k: "relevance" for k in ("relevance", "rilevanza", "score")},
    **{k: "deposit_date" for k in ("depositdate", "deposit", "datapubblicazione", "pubblicazione", "deposito", "date", "data")},
    **{k: "decision_date" for k in ("decisiondate", "decision", "hearing", "dataudienza", "udienza", "decisione")},
}
SORT_VALID = "relevance (rilevanza), deposit_date (data pubblicazione, newest first), decision_date (data udienza)"


def resolve_sort(sort: object) -> str:
    if sort is None or (isinstance(sort, str) and not sort.strip()):
        return "relevance"
    name = SORT_NAMES.get(lookup_key(sort)) if isinstance(sort, str) else None
    if name is None:
        raise InvalidArg(f"unknown sort {str(sort)[:40]!r}", valid=SORT_VALID)
    return name


def search_params(
    text_q: str, filters: list[str], rows: int, start: int, sort: str = "relevance"
) -> list[tuple[str, str]]:
    """A search as the court's client posts it to `select?app.query=<kind>` (the `app.query`
    pair goes in the URL, the rest in the form body; see `fetch_select`). `rows` hits from hit
    `start` (0-based), Solr's own window: the court's script sends `start=docStart-1&rows=...`."""
    params = [
        (APP_QUERY, filter_kind(filters) or ""),
        ("start", str(start)),
        ("rows", str(rows)),
        ("q", court_query(text_q, filters)),
        ("wt", "json"),
        ("indent", "off"),
    ]
    order = SORTS[resolve_sort(sort)]
    if order:
        params.append(("sort", order))
    params += [
        ("fl", SEARCH_FIELDS),
        ("hl", "true"),
        ("hl.snippets", "4"),
        ("hl.fragsize", "100"),
        ("hl.fl", "ocr"),
        # highlight the user's words only: the filters are in `q` too, and `5` or `2020` would
        # otherwise be marked wherever they occur in the text (the court sends its own hl.q too)
        ("hl.q", text_q),
        ("hl.maxAnalyzedChars", "1000000"),
    ]
    return params


FACET_LIMIT = 257  # the court's default list length (256) + 1


def facet_params(text_q: str, filters: list[str]) -> list[tuple[str, str]]:
    """Facet counts as the court's client asks them (`select?app.facet`, `facet.method=enum`),
    for every facet field at once, over the same `q` as the search."""
    params = [
        (APP_FACET, ""),
        ("facet.method", "enum"),
        ("facet.mincount", "1"),
        ("wt", "json"),
        ("indent", "off"),
        ("q", court_query(text_q, filters)),
        ("fl", "name"),
        ("facet", "true"),
    ]
    for field in FACET_FIELDS:
        params += [("facet.limit", str(FACET_LIMIT)), ("facet.sort", "false"), ("facet.prefix", ""),
                   ("facet.field", field)]
    return params


def get_params(sic_id: str) -> list[tuple[str, str]]:
    """One decision by id, posted to plain `select` as the court's detail view does."""
    sic_id = check_sic_id(sic_id)
    return [("start", "0"), ("rows", "1"), ("q", f"id:{solr_phrase(sic_id)}"), ("wt", "json"), ("indent", "off"),
            ("fl", "*")]


def check_sic_id(sic_id: object) -> str:
    """The id, trimmed of surrounding whitespace (a pasted newline), or `invalid_arg`."""
    cleaned = sic_id.strip() if isinstance(sic_id, str) else sic_id
    if not isinstance(cleaned, str) or not SIC_ID_RE.fullmatch(cleaned):
        raise InvalidArg(f"not a SentenzeWeb id: {str(sic_id)[:60]!r}", valid=SIC_ID_VALID)
    return cleaned
