"""The registry of Italian act types: every alias lawyers write, the URN:NIR authority and type,
the Normattiva form, and the pattern the citation scanner reads in prose.

Why one table: the URN builder, it_resolve's act_type argument, the scanner and the search
rewrite all need the same facts about "d.lgs." or "D.L.L."; spread over modules they drifted
(`D. L. L. 21 marzo 1945, n. 143` read as a legge, `r.d.lgs.` as a d.lgs.).

URN forms: state acts `urn:nir:stato:<type>`; the exports' own links (normattiva-akn hrefs
`/akn/it/act/decreto.legislativo/capo.provvisorio.stato/...`, `decreto/presidente.consiglio`,
`decreto/ministero.economia.finanze`, `circolare/ministero.finanze`, `delibera/comitato.
interministeriale.programmazione.economica`, `legge/regione.…`) give the authority of the
others. Types whose URN form was not seen resolving on Normattiva are marked `verified=False`.
"""

from __future__ import annotations

import re

import msgspec
from unidecode import unidecode

from it_eli.runtime.errors import InvalidArg


class ActType(msgspec.Struct, frozen=True):
    """One act type: its URN:NIR spelling, how citations abbreviate it, what people write."""

    urn_type: str  # e.g. 'decreto.legislativo' (the key used everywhere in it_eli)
    authority: str  # URN:NIR issuing authority segment ('stato'; '' = from the text: region, ministry)
    urn_name: str  # type segment as written after the authority
    abbreviation: str  # 'D.Lgs.'
    label: str  # 'decreto legislativo' (how the exports write it in prose)
    api_code: str | None  # OpenData API tipoProvvedimentoCodice (PLE, PLL, ...)
    aliases: tuple[str, ...]
    verified: bool = True  # False: URN form not seen resolving on Normattiva
    pattern: str = ""  # regex of the type in prose (case-insensitive)
    normattiva: str = ""  # the type as Normattiva titles it: 'DECRETO LEGISLATIVO'
    historical: bool = False  # Kingdom / Lieutenancy / provisional State: two-digit years are 19yy
    date_only: bool = False  # may be cited by its date alone (no number): D.M., D.P.C.M., R.D.
    family: str = "stato"  # stato | storico | costituzionale | regionale | ministeriale | amministrativo


def _t(urn_type, authority, urn_name, abbreviation, label, api_code, aliases, pattern, *, verified=True,
       historical=False, date_only=False, family="stato", normattiva=None) -> ActType:
    return ActType(urn_type, authority, urn_name, abbreviation, label, api_code, tuple(aliases), verified, pattern,
                   normattiva or label.upper(), historical, date_only, family)


_D = r"\.?\s?"  # an optional abbreviation dot and space: "d.lgs." "d. lgs" "dlgs"

# Order matters for the scanner: longer and more specific forms first.
ACT_TYPES: tuple[ActType, ...] = (
    _t("legge.costituzionale", "stato", "legge.costituzionale", "L. cost.", "legge costituzionale", None,
       ("l. cost.", "l.cost.", "legge cost.", "legge costituzionale", "lcost", "l. costituzionale"),
       r"legge\s+cost(?:ituzionale\b|\.)|l\.\s?cost(?:ituzionale\b|\.)", family="costituzionale"),
    _t("decreto.legislativo.del.capo.provvisorio.dello.stato", "capo.provvisorio.stato", "decreto.legislativo",
       "D.Lgs.C.P.S.", "decreto legislativo del Capo provvisorio dello Stato", None,
       ("d.lgs.c.p.s.", "dlgscps", "d.lgs. c.p.s.", "decreto legislativo del capo provvisorio dello stato"),
       r"decreto\s+legislativo\s+del\s+capo\s+provvisorio\s+dello\s+stato|d\.\s?lgs\.\s?(?:del\s+)?(?:c\.\s?p\.\s?s\.|capo\s+provvisorio\s+dello\s+stato)",
       historical=True, family="storico"),
    _t("decreto.del.capo.provvisorio.dello.stato", "capo.provvisorio.stato", "decreto",
       "D.C.P.S.", "decreto del Capo provvisorio dello Stato", None,
       ("d.c.p.s.", "dcps", "decreto del capo provvisorio dello stato"),
       r"decreto\s+del\s+capo\s+provvisorio\s+dello\s+stato|d\.\s?c\.\s?p\.\s?s\.", historical=True, family="storico",
       verified=False),
    _t("decreto.legge.luogotenenziale", "stato", "decreto.legge.luogotenenziale", "D.L.Lgt.",
       "decreto-legge luogotenenziale", None,
       ("d.l.lgt.", "dllgt", "decreto-legge luogotenenziale", "decreto legge luogotenenziale"),
       r"decreto[\s-]+legge\s+luogotenenziale|d\.\s?l\.\s?lgt\.?", historical=True, family="storico"),
    _t("decreto.legislativo.luogotenenziale", "stato", "decreto.legislativo.luogotenenziale", "D.Lgs.Lgt.",
       "decreto legislativo luogotenenziale", None,
       ("d.lgs.lgt.", "d.lgs.lgt", "dlgslgt", "d.l.l.", "dll", "d.lgs.luogotenenziale",
        "decreto legislativo luogotenenziale"),
       r"decreto\s+legislativo\s+luogotenenziale|d\.\s?lgs\.\s?(?:lgt\.?|luogotenenziale)|d\.\s?l\.\s?l\.|DLL\b|d\.\s?lgs\.\s?lt\.",
       historical=True, family="storico"),
    _t("decreto.luogotenenziale", "stato", "decreto.luogotenenziale", "D.Lgt.", "decreto luogotenenziale", None,
       ("d.lgt.", "dlgt", "decreto luogotenenziale"),
       r"decreto\s+luogotenenziale|d\.\s?lgt\.", historical=True, family="storico"),
    _t("regio.decreto.legislativo", "stato", "regio.decreto.legislativo", "R.D.Lgs.", "regio decreto legislativo", None,
       ("r.d.lgs.", "rdlgs", "r.d.lgs", "regio decreto legislativo"),
       r"regio\s+decreto[\s-]+legislativo|r\.\s?d\.\s?lgs\.?|RDLgs\b", historical=True, family="storico"),
    _t("regio.decreto.legge", "stato", "regio.decreto.legge", "R.D.L.", "regio decreto-legge", None,
       ("r.d.l.", "rdl", "regio decreto-legge", "regio decreto legge", "regio d.l."),
       r"regio\s+decreto[\s-]+legge|regio\s+d\.\s?l\.|r\.\s?d\.\s?l\.|RDL\b", historical=True, family="storico",
       normattiva="REGIO DECRETO-LEGGE"),
    _t("decreto.legislativo", "stato", "decreto.legislativo", "D.Lgs.", "decreto legislativo", "PLL",
       ("d.lgs", "d.lgs.", "dlgs", "d. lgs.", "d.leg.vo", "d.lgsl.", "d.lg.", "dlg", "d.l.vo", "d.lvo", "dlgs.",
        "decreto legislativo", "decreto-legislativo", "decr. legisl.", "d.legisl."),
       r"decreto[\s-]+legislativo|decr\.\s?legisl\.|d\.\s?lgs\.?(?:\s?vo)?|d\.\s?leg(?:isl)?\.(?:\s?vo)?|d\.\s?lgsl\.|dlgs\.?|d\.\s?lg\.|d\.\s?l\.\s?vo|d\.\s?lvo\b|D\.?Lvo\b"),
    _t("decreto.legge", "stato", "decreto.legge", "D.L.", "decreto-legge", "PDL",
       ("d.l.", "d.l", "dl", "decreto-legge", "decreto legge", "decretolegge", "d.-l."),
       r"decreto[\s-]*legge|d\.\s?-?\s?l\.|DL(?=[\s.])|dl(?=\s+n\.)", normattiva="DECRETO-LEGGE"),
    _t("decreto.del.presidente.della.repubblica", "stato", "decreto.del.presidente.della.repubblica",
       "D.P.R.", "decreto del Presidente della Repubblica", "PPR",
       ("dpr", "d.p.r.", "d.p.r", "d.pres.rep.", "decreto del presidente della repubblica", "decreto presidenziale"),
       r"decreto\s+del\s+presidente\s+della\s+repubblica|d\.\s?p\.\s?r\.?(?=\s)|d\.\s?pres\.\s?rep\.|dpr(?=[\s.])"),
    _t("decreto.del.presidente.del.consiglio.dei.ministri", "presidente.consiglio.ministri", "decreto",
       "D.P.C.M.", "decreto del Presidente del Consiglio dei ministri", None,
       ("dpcm", "d.p.c.m.", "d.p.c.m", "decreto del presidente del consiglio dei ministri"),
       r"decreto\s+del\s+presidente\s+del\s+consiglio\s+dei\s+ministri|d\.\s?p\.\s?c\.\s?m\.?|dpcm(?=[\s.])",
       verified=False, date_only=True),
    _t("decreto.del.presidente.della.giunta.regionale", "", "decreto.presidente.giunta", "D.P.G.R.",
       "decreto del Presidente della Giunta regionale", None,
       ("d.p.g.r.", "dpgr", "decreto del presidente della giunta regionale"),
       r"decreto\s+del\s+presidente\s+della\s+giunta\s+regionale|d\.\s?p\.\s?g\.\s?r\.|dpgr(?=\s)",
       verified=False, family="regionale"),
    _t("regio.decreto", "stato", "regio.decreto", "R.D.", "regio decreto", "PRD",
       ("r.d.", "r.d", "rd", "regio decreto", "regio-decreto"),
       r"regio[\s-]+decreto|r\.\s?d\.|RD(?=\s)", historical=True, date_only=True, family="storico"),
    _t("decreto.interministeriale", "", "decreto", "D.I.", "decreto interministeriale", None,
       ("d.i.", "decreto interministeriale"),
       r"decreto\s+interministeriale|d\.\s?i\.(?=\s)", verified=False, date_only=True, family="ministeriale"),
    _t("decreto.ministeriale", "", "decreto", "D.M.", "decreto ministeriale", None,
       ("d.m.", "d.m", "dm", "decreto ministeriale", "decreto del ministro"),
       r"decreto\s+ministeriale|decreto(?=\s+(?:del|dal)\s+minist(?:r[oa]|ero)\b)|d\.\s?m\.|DM(?=\s)", verified=False, date_only=True,
       family="ministeriale"),
    _t("legge.regionale", "", "legge", "L.R.", "legge regionale", None,
       ("l.r.", "lr", "l. reg.", "legge regionale", "l.reg."),
       r"legge\s+regionale|l\.\s?r\.|l\.\s?reg\.|LR(?=\s)", family="regionale"),
    _t("legge.provinciale", "", "legge", "L.P.", "legge provinciale", None,
       ("l.p.", "lp", "l. prov.", "legge provinciale"),
       r"legge\s+provinciale|l\.\s?p\.(?=\s{0,3}(?:Bolzano|Trento|n\.|\d))|l\.\s?prov\.", family="regionale"),
    _t("circolare", "", "circolare", "Circ.", "circolare", None, ("circ.", "circolare"),
       r"circolare|circ\.", verified=False, date_only=True, family="amministrativo"),
    _t("delibera", "", "delibera", "Del.", "delibera", None, ("del.", "delibera", "deliberazione"),
       r"deliberazione|delibera", verified=False, date_only=True, family="amministrativo"),
    _t("determinazione", "", "determinazione", "Det.", "determinazione", None,
       ("det.", "determinazione", "determina"),
       r"determinazione|determina(?=\s)", verified=False, date_only=True, family="amministrativo"),
    _t("ordinanza.ministeriale", "", "ordinanza", "O.M.", "ordinanza ministeriale", None,
       ("o.m.", "om", "ordinanza ministeriale"),
       r"ordinanza\s+ministeriale|o\.\s?m\.", verified=False, date_only=True, family="ministeriale"),
    _t("legge", "stato", "legge", "L.", "legge", "PLE",
       ("l", "l.", "legge", "lg", "lg.", "leg."),
       r"legge|l\.|lg\.|L(?=\s+n\.)"),
    _t("costituzione", "stato", "costituzione", "Cost.", "Costituzione", "COS",
       ("cost.", "cost", "costituzione", "costituzione della repubblica"), "", family="costituzionale"),
)

# Alternative authority:type spellings seen in Normattiva's links (API articoloHtml:
# `presidente.repubblica:decreto:1986-12-22;917`; AKN hrefs `decreto/presidente.consiglio`).
URN_SPELLINGS: dict[tuple[str, str], str] = {
    ("presidente.repubblica", "decreto"): "decreto.del.presidente.della.repubblica",
    ("stato", "decreto.presidente.repubblica"): "decreto.del.presidente.della.repubblica",
    ("presidente.consiglio.ministri", "decreto"): "decreto.del.presidente.del.consiglio.dei.ministri",
    ("presidente.consiglio", "decreto"): "decreto.del.presidente.del.consiglio.dei.ministri",
    ("capo.provvisorio.stato", "decreto.legislativo"): "decreto.legislativo.del.capo.provvisorio.dello.stato",
    ("capo.provvisorio.stato", "decreto"): "decreto.del.capo.provvisorio.dello.stato",
    ("stato", "decreto.ministeriale"): "decreto.ministeriale",
}
# authority prefixes whose type is read from the authority: regione.<x>:legge, ministero.<x>:decreto
AUTHORITY_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("regione.", "legge", "legge.regionale"),
    ("provincia.autonoma.", "legge", "legge.provinciale"),
    ("regione.", "decreto.presidente.giunta", "decreto.del.presidente.della.giunta.regionale"),
    ("ministero.", "decreto", "decreto.ministeriale"),
    ("ministero.", "circolare", "circolare"),
    ("ministero.", "ordinanza", "ordinanza.ministeriale"),
    ("ministeri.", "decreto", "decreto.interministeriale"),
    ("", "circolare", "circolare"),
    ("", "delibera", "delibera"),
    ("", "determinazione", "determinazione"),
)


def alias_key(raw: str) -> str:
    return re.sub(r"[\s._\-]+", "", unidecode(raw or "").lower())


BY_URN_TYPE: dict[str, ActType] = {t.urn_type: t for t in ACT_TYPES}
_BY_ALIAS: dict[str, ActType] = {}
for _t_ in ACT_TYPES:
    for _a in (*_t_.aliases, _t_.urn_type, _t_.abbreviation, _t_.label):
        _BY_ALIAS.setdefault(alias_key(_a), _t_)


def accepted_act_types() -> str:
    """The list shown to a caller who wrote an unknown act type."""
    return "; ".join(f"{t.urn_type}: {', '.join(t.aliases)}" for t in ACT_TYPES)


def lookup_act_type(raw: str) -> ActType | None:
    return _BY_ALIAS.get(alias_key(raw or ""))


def canonical_act_type(raw: str) -> str:
    """'d.lgs.' / 'D. Lgs.' / 'decreto legislativo' -> 'decreto.legislativo'; InvalidArg if unknown."""
    t = lookup_act_type(raw)
    if t is None:
        raise InvalidArg(f"unknown act type {raw!r}", valid=accepted_act_types())
    return t.urn_type


def act_type_info(urn_type: str) -> ActType:
    try:
        return BY_URN_TYPE[urn_type]
    except KeyError:
        raise InvalidArg(f"unknown act type {urn_type!r}", valid=accepted_act_types()) from None


_STOP = {"d", "di", "del", "della", "dello", "dei", "degli", "delle", "dell", "e", "ed", "per", "la", "il", "lo", "le",
         "gli", "i", "l", "in", "a", "al", "alla"}


def authority_slug(name: str) -> str:
    """'Ministero dell'economia e delle finanze' -> 'economia.finanze'; 'Valle d'Aosta' -> 'valle.aosta'
    (the exports' form: `decreto/ministero.economia.finanze`)."""
    words = re.findall(r"[a-z0-9]+", unidecode(name or "").lower())
    return ".".join(w for w in words if w not in _STOP)
