"""The act's identity in an export: URN, ELI, dates, number and title, read from the FRBR
metadata and the preface. Apart because it reads `meta`, never the articles."""

from __future__ import annotations

import re

from it_eli.sources.normattiva.akn.model import ActIdentity
from it_eli.sources.normattiva.akn.text import first_value, inline_text

_ISO_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_ELI_RE = re.compile(
    r"eli/id/(?P<y>\d{4})/(?P<m>\d{2})/(?P<d>\d{2})/(?P<code>[^/]+)/(?P<ver>[A-Z]+)(?:/(?P<vd>\d{8}))?"
)
_URN_RE = re.compile(
    r"^urn:nir:(?P<auth>[^:]+):(?P<type>[^:;]+)(?::(?P<date>\d{4}-\d{2}-\d{2}))?(?:;(?P<num>[^:@~]+))?"
)
_DOCTYPE_MAP = {
    "LEGGE": "legge",
    "DECRETO LEGISLATIVO": "decreto.legislativo",
    "DECRETO-LEGGE": "decreto.legge",
    "DECRETO LEGGE": "decreto.legge",
    "REGIO DECRETO": "regio.decreto",
    "DECRETO DEL PRESIDENTE DELLA REPUBBLICA": "decreto.del.presidente.della.repubblica",
    "COSTITUZIONE": "costituzione",
    "LEGGE COSTITUZIONALE": "legge.costituzionale",
}


def _iso(d: str | None) -> str | None:
    """ISO date or None: the exports write `0000-00-00` where the act has no date."""
    if not d:
        return None
    m = _ISO_RE.match(d.strip())
    if not m or m.group(1) == "0000" or m.group(2) == "00" or m.group(3) == "00":
        return None
    return d.strip()


_WORK = "a:meta/a:identification/a:FRBRWork"


def read_identity(act) -> ActIdentity:
    work = _WORK
    urn = first_value(act, f"{work}/a:FRBRalias[@name='urn:nir']/@value")
    eli = first_value(act, f"{work}/a:FRBRalias[@name='eli']/@value")
    work_date = _iso(first_value(act, f"{work}/a:FRBRdate/@date"))
    expr_date = _iso(first_value(act, "a:meta/a:identification/a:FRBRExpression/a:FRBRdate/@date"))
    gu_date = _iso(first_value(act, "a:meta/a:publication/@date"))
    gu_number = first_value(act, "a:meta/a:publication/@number") or None

    act_type, number, urn_date = _type_and_number(act, urn)
    code, version, version_date, gu_date = _eli_parts(act, eli, gu_date)

    date = _iso(urn_date) or work_date or _iso(first_value(act, "a:preface//a:docDate/@date"))
    year = int(date[:4]) if date else (int(gu_date[:4]) if gu_date else None)

    title = _title(act)

    return ActIdentity(
        urn=urn,
        eli=eli,
        title=title,
        act_type=act_type,
        number=number,
        date=date,
        year=year,
        version_date=version_date,
        codice_redazionale=code,
        gu_date=gu_date,
        monovigente=(act.get("name") == "monovigente"),
        version=version,
        expression_date=expr_date,
        gu_number=gu_number,
    )


def _type_and_number(act, urn: str | None) -> tuple[str | None, str | None, str | None]:
    """(act type, number, date) from the urn:nir alias, else from the preface's docType/docNumber."""
    act_type = number = urn_date = None
    if urn:
        m = _URN_RE.match(urn.strip())
        if m:
            act_type = m.group("type")
            urn_date = m.group("date")
            number = m.group("num")
    doc_type = first_value(act, "a:preface//a:docType")
    if not act_type and doc_type:
        act_type = _DOCTYPE_MAP.get(inline_text(doc_type).upper())
    if not number:
        dn = first_value(act, "a:preface//a:docNumber")
        number = dn if dn and dn.strip() not in ("", "0") else None
    return act_type, number, urn_date


def _eli_parts(act, eli: str | None, gu_date: str | None) -> tuple[str | None, str | None, str | None, str | None]:
    """(codice redazionale, version, version date, GU date) from the ELI alias; the GU date
    given is kept when set, the code read from the preservation block when the ELI has none."""
    work = _WORK
    code = version = version_date = None
    if eli:
        m = _ELI_RE.search(eli)
        if m:
            code = m.group("code")
            version = m.group("ver")
            if m.group("vd"):
                vd = m.group("vd")
                version_date = _iso(f"{vd[:4]}-{vd[4:6]}-{vd[6:]}")
            if not gu_date:
                gu_date = _iso(f"{m.group('y')}-{m.group('m')}-{m.group('d')}")
    if not code:
        code = first_value(act, f"{work}/a:preservation//*[@property='eli:id_local']/@content")
    return code, version, version_date, gu_date


def _title(act) -> str | None:
    title = first_value(act, "a:preface//a:docTitle")
    if not title:
        title = first_value(act, f"{_WORK}/a:preservation//*[@property='eli:title']/@content")
    return inline_text(title) or None
