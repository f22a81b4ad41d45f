"""The major codes and statutes, with the URN Normattiva actually resolves.

Why a table: a code is cited by name ("art. 2043 c.c."), its URN is the approving decree's
(R.D. 16 marzo 1942, n. 262), and the OpenData API wants the annex that holds the articles
(`262:2`); none of that can be derived. Every row's source is recorded in
DISCOVERY.md (Normattiva) (AKN export FRBRalias/FRBRdate, API answer titles, UPSTREAMS.md).
Pure data; imports nothing from the rest of the package so urn.py can depend on it.
"""

from __future__ import annotations

import re

import msgspec
from unidecode import unidecode


class Code(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str  # official-ish Italian name
    abbreviation: str  # how an article is cited after "art. N": 'c.c.', or the act citation
    aliases: tuple[str, ...]
    act_type: str  # canonical urn:nir type
    date: str  # ISO act date
    number: str
    urn: str  # what the portal resolves
    api_urn: str  # what the OpenData API wants (annex form where needed)
    act_citation: str  # 'R.D. 16 marzo 1942, n. 262'
    source: str  # evidence for the date/number/URN

    @property
    def year(self) -> int:
        return int(self.date[:4])


def _c(id, name, abbreviation, aliases, act_type, date, number, act_citation, source, annex=None, urn=None):
    base = urn or f"urn:nir:stato:{act_type}:{date};{number}"
    api = base + (f":{annex}" if annex else "")
    return Code(
        id=id, name=name, abbreviation=abbreviation, aliases=tuple(aliases), act_type=act_type, date=date,
        number=number, urn=base, api_urn=api, act_citation=act_citation, source=source,
    )


CODES: tuple[Code, ...] = (
    Code(
        id="cost", name="Costituzione della Repubblica italiana", abbreviation="Cost.",
        aliases=("cost", "cost.", "costituzione", "costituzione italiana", "costituzione della repubblica"),
        act_type="costituzione", date="1947-12-27", number="", urn="urn:nir:stato:costituzione",
        api_urn="urn:nir:stato:costituzione:1947-12-27", act_citation="Cost.",
        source="AKN normattiva-akn/mcp-legal-it__costituzione.xml (urn:nir:stato:costituzione; ELI GU 1947/12/27); "
        "API sdk contratto urn_costituzione (annoGU 1947-12-27)",
    ),
    _c("cc", "Codice civile", "c.c.", ("c.c.", "cc", "cod. civ.", "cod.civ.", "codice civile", "c. civ."),
       "regio.decreto", "1942-03-16", "262", "R.D. 16 marzo 1942, n. 262",
       "API normattiva-mcp reale-atto-cc-2043 (REGIO DECRETO 16 marzo 1942, n. 262; 200 only with :2); "
       "reale-404-coordinate (without :2)", annex="2"),
    _c("preleggi", "Disposizioni sulla legge in generale (preleggi)", "disp. prel. c.c.",
       ("preleggi", "disp. prel.", "disp. prel. c.c.", "disposizioni sulla legge in generale"),
       "regio.decreto", "1942-03-16", "262", "R.D. 16 marzo 1942, n. 262",
       "API_FACTS §5 annex table (262:1), urn-attesi.txt", annex="1"),
    _c("cp", "Codice penale", "c.p.", ("c.p.", "cp", "cod. pen.", "cod.pen.", "codice penale", "c. pen."),
       "regio.decreto", "1930-10-19", "1398", "R.D. 19 ottobre 1930, n. 1398",
       "AKN mcp-legal-it__codice_penale.xml / scabopdf__codice_penale.xml (FRBRdate 1930-10-19); API annex :1 "
       "(API_FACTS §5; sdk urn_non_ancora_vigente title)", annex="1"),
    _c("cpc", "Codice di procedura civile", "c.p.c.",
       ("c.p.c.", "cpc", "cod. proc. civ.", "codice di procedura civile", "codice procedura civile"),
       "regio.decreto", "1940-10-28", "1443", "R.D. 28 ottobre 1940, n. 1443",
       "UPSTREAMS.md canonical URNs; API annex :1 (API_FACTS §5, urn-attesi.txt); no capture of the act", annex="1"),
    _c("cpp", "Codice di procedura penale", "c.p.p.",
       ("c.p.p.", "cpp", "cod. proc. pen.", "codice di procedura penale", "codice procedura penale"),
       "decreto.del.presidente.della.repubblica", "1988-09-22", "447", "D.P.R. 22 settembre 1988, n. 447",
       "AKN scabopdf__codice_procedura_penale.xml (urn:nir ...1988-09-22;447); no annex (API_FACTS §5)"),
    _c("privacy", "Codice in materia di protezione dei dati personali", "Codice privacy",
       ("codice privacy", "codice della privacy", "cod. privacy", "d.lgs. 196/2003",
        "codice in materia di protezione dei dati personali"),
       "decreto.legislativo", "2003-06-30", "196", "D.Lgs. 30 giugno 2003, n. 196",
       "UPSTREAMS.md canonical URNs; no capture of the act"),
    _c("cad", "Codice dell'amministrazione digitale", "CAD",
       ("cad", "c.a.d.", "codice dell'amministrazione digitale", "codice amministrazione digitale", "d.lgs. 82/2005"),
       "decreto.legislativo", "2005-03-07", "82", "D.Lgs. 7 marzo 2005, n. 82",
       "AKN ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml (FRBRdate 2005-03-07)"),
    _c("dlgs231", "Responsabilita' amministrativa degli enti (D.Lgs. 231/2001)", "D.Lgs. 8 giugno 2001, n. 231",
       ("d.lgs. 231/2001", "dlgs 231/2001", "231/2001", "decreto 231", "responsabilita amministrativa degli enti"),
       "decreto.legislativo", "2001-06-08", "231", "D.Lgs. 8 giugno 2001, n. 231",
       "AKN mcp-legal-it__dlgs_231_2001.xml and scabopdf__dlgs_231_2001.xml (FRBRdate 2001-06-08)"),
    _c("l241", "Legge sul procedimento amministrativo (L. 241/1990)", "L. 7 agosto 1990, n. 241",
       ("l. 241/1990", "legge 241/1990", "241/1990", "legge sul procedimento amministrativo",
        "procedimento amministrativo"),
       "legge", "1990-08-07", "241", "L. 7 agosto 1990, n. 241",
       "AKN mcp-legal-it__legge_241_1990.xml (FRBRdate 1990-08-07); portal page mcp-legal-it__landing_legge_241_1990.html"),
    _c("strada", "Nuovo codice della strada", "C.d.S.",
       ("c.d.s.", "cds", "codice della strada", "nuovo codice della strada", "cod. strada"),
       "decreto.legislativo", "1992-04-30", "285", "D.Lgs. 30 aprile 1992, n. 285",
       "AKN scabopdf__codice_strada.xml (FRBRdate 1992-04-30)"),
    _c("contratti", "Codice dei contratti pubblici", "D.Lgs. 31 marzo 2023, n. 36",
       ("codice dei contratti pubblici", "codice contratti pubblici", "codice appalti", "codice degli appalti",
        "d.lgs. 36/2023", "codice dei contratti"),
       "decreto.legislativo", "2023-03-31", "36", "D.Lgs. 31 marzo 2023, n. 36",
       "AKN alessionar__20230331_23G00044_VIGENZA_20230530.xml (FRBRdate 2023-03-31); "
       "API reale-preambolo-36-2023-art1 (lista form)"),
    _c("consumo", "Codice del consumo", "Cod. consumo",
       ("codice del consumo", "cod. consumo", "c. cons.", "cod. cons.", "d.lgs. 206/2005"),
       "decreto.legislativo", "2005-09-06", "206", "D.Lgs. 6 settembre 2005, n. 206",
       "no capture: date from the act's official title (D.Lgs. 6 settembre 2005, n. 206); unverified here"),
    _c("tuir", "Testo unico delle imposte sui redditi", "TUIR",
       ("tuir", "t.u.i.r.", "testo unico delle imposte sui redditi", "testo unico imposte sui redditi",
        "d.p.r. 917/1986"),
       "decreto.del.presidente.della.repubblica", "1986-12-22", "917", "D.P.R. 22 dicembre 1986, n. 917",
       "API reale-abrogato-tuir-51 (DECRETO DEL PRESIDENTE DELLA REPUBBLICA 22 dicembre 1986, n. 917)"),
    _c("tuel", "Testo unico delle leggi sull'ordinamento degli enti locali", "TUEL",
       ("tuel", "t.u.e.l.", "testo unico enti locali", "testo unico degli enti locali", "d.lgs. 267/2000"),
       "decreto.legislativo", "2000-08-18", "267", "D.Lgs. 18 agosto 2000, n. 267",
       "API reale-lista-tuel-42 (DECRETO LEGISLATIVO 18 agosto 2000, n. 267; lista form)"),
    _c("navigazione", "Codice della navigazione", "cod. nav.",
       ("cod. nav.", "c. nav.", "c.nav.", "codice della navigazione", "codice navigazione"),
       "regio.decreto", "1942-03-30", "327", "R.D. 30 marzo 1942, n. 327",
       "API reale-atto-navigazione-422 (REGIO DECRETO 30 marzo 1942, n. 327; asked as 327:1)", annex="1"),
    _c("statuto_lavoratori", "Statuto dei lavoratori", "L. 20 maggio 1970, n. 300",
       ("statuto dei lavoratori", "statuto lavoratori", "l. 300/1970"),
       "legge", "1970-05-20", "300", "L. 20 maggio 1970, n. 300",
       "API reale-atto-statuto-18 (LEGGE 20 maggio 1970, n. 300)"),
)

CODES_BY_ID: dict[str, Code] = {c.id: c for c in CODES}


def _key(raw: str) -> str:
    s = unidecode(raw or "").lower().replace("'", " ")
    s = re.sub(r"[.\s_\-]+", " ", s).strip()
    return s.replace(" ", "")


_BY_ALIAS: dict[str, Code] = {}
for _code in CODES:
    for _a in (_code.id, _code.name, _code.abbreviation, *_code.aliases):
        _BY_ALIAS.setdefault(_key(_a), _code)


def lookup_code(name_or_alias: str) -> Code | None:
    """'c.c.', 'Cod. civ.', 'codice civile', 'cc' -> the civil code; None if not a known code."""
    return _BY_ALIAS.get(_key(name_or_alias))


def lookup_act(act_type: str, year: int, number: str | int) -> Code | None:
    """The code approved by this act, if any (first match: c.c. before the preleggi)."""
    n = str(number).lstrip("0")
    for c in CODES:
        if c.act_type == act_type and c.number == n and c.year == int(year):
            return c
    return None
