"""The codes and named acts: Costituzione, codici, testi unici, acts known by a nickname (legge
Gelli-Bianco, l. fall.), EU acts by nickname (GDPR, DORA, AI Act, eIDAS ...), with the URN (or ELI
and CELEX) and the pattern the citation scanner reads in prose.

Why a table: a code is cited by name ("art. 2043 c.c."), its URN is the approving decree's
(R.D. 16 marzo 1942, n. 262), and the OpenData API wants the annex that holds the articles
(`262:2`); none of that can be derived. One table serves it_list_codes, it_resolve, the scanner
and the verifier, so a name one of them reads the others know. Every row's source is recorded
(`source`; DISCOVERY.md, Normattiva).
"""

from __future__ import annotations

import difflib
import re

import msgspec
from unidecode import unidecode


class Code(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str  # official-ish Italian name
    abbreviation: str  # how an article is cited after "art. N": 'c.c.', or the act citation
    aliases: tuple[str, ...]
    act_type: str  # canonical urn:nir type of the approving act ('ue.regolamento' for EU acts)
    date: str  # ISO act date ('' when not known)
    number: str
    urn: str  # what the portal resolves ('' for EU and international acts)
    api_urn: str  # what the OpenData API wants (annex form where needed); for an annex, its own URN
    act_citation: str  # 'R.D. 16 marzo 1942, n. 262'
    source: str  # evidence for the date/number/URN
    pattern: str = ""  # how the scanner reads it in prose (regex; case-insensitive pieces marked (?i:))
    family: str = "codice"  # codice | costituzione | ue | internazionale
    eli: str | None = None  # EU acts: ELI URI
    celex: str | None = None  # EU acts: CELEX number
    annex_of: str | None = None  # 'cc' for the preleggi: same approving act, another annex

    @property
    def year(self) -> int:
        return int(self.date[:4]) if self.date else 0

    @property
    def kind(self) -> str:
        """The scanner's act_type for a citation of this code."""
        return {"costituzione": "costituzione", "codice": "codice"}.get(self.family, self.act_type)


def _c(id, name, abbreviation, aliases, act_type, date, number, act_citation, source, annex=None, urn=None,
       pattern="", annex_of=None):
    base = urn or f"urn:nir:stato:{act_type}:{date};{number}"
    api = base + (f":{annex}" if annex else "")
    return Code(
        id=id, name=name, abbreviation=abbreviation, aliases=tuple(aliases), act_type=act_type, date=date,
        number=number, urn=base, api_urn=api, act_citation=act_citation, source=source, pattern=pattern,
        annex_of=annex_of,
    )


def _eu(id, name, abbreviation, aliases, act_type, date, number, celex, eli, pattern, family="ue"):
    kind = {"ue.regolamento": "Regolamento (UE)", "ue.direttiva": "Direttiva (UE)"}.get(act_type, "")
    cite = f"{kind} {date[:4]}/{number}" if kind else name
    return Code(id=id, name=name, abbreviation=abbreviation, aliases=tuple(aliases), act_type=act_type,
                date=date, number=str(number or ""), urn="", api_urn="", act_citation=cite,
                source="EUR-Lex (CELEX and ELI of the act)", pattern=pattern, family=family, eli=eli, celex=celex)


# Order: the scanner tries the patterns in this order at each position, so longer and more
# specific names come first (c.p.c. before c.p., TUEL before TUE, disp. att. c.p.c. before c.p.c.).
# the abbreviation's last dot may be missing at a sentence's end or before a comma ("art. 2052 cod.civ")
_END = r"(?:\.|(?![A-Za-zÀ-ÿ.]))"
_C_CC = rf"(?:c\.\s?c\.|cod\.\s?civ{_END}|codice\s+civile)"
_C_CPC = rf"(?:c\.\s?p\.\s?c\.|cod\.\s?proc\.\s?civ{_END}|codice\s+di\s+procedura\s+civile)"
_C_CPP = rf"(?:c\.\s?p\.\s?p\.|cod\.\s?proc\.\s?pen{_END}|codice\s+di\s+procedura\s+penale)"
_C_CP = rf"(?:c\.\s?p\.(?!\s?[pcai]\.)|cod\.\s?pen{_END}|codice\s+penale)"
_ATT = r"disp(?:\.|osizioni)\s?(?:di\s+)?(?:att(?:\.|uazione)|coord(?:\.|inamento))(?:\s?(?:e\s+)?(?:trans(?:\.|itorie)))?\s?(?:del\s+|al\s+|per\s+il\s+)?"

CODES: tuple[Code, ...] = (
    # EU and international acts cited by name (outside the Italian corpus: the verifier says where to look)
    _eu("gdpr", "Regolamento generale sulla protezione dei dati", "GDPR", ("gdpr", "rgpd", "regolamento generale sulla protezione dei dati"),
        "ue.regolamento", "2016-04-27", "679", "32016R0679", "http://data.europa.eu/eli/reg/2016/679/oj",
        r"(?i:GDPR|RGPD)\b|(?i:regolamento\s+generale\s+(?:sulla|per\s+la)\s+protezione\s+dei\s+dati(?:\s+personali)?)"),
    _eu("dora", "Digital Operational Resilience Act", "DORA", ("dora", "digital operational resilience act"),
        "ue.regolamento", "2022-12-14", "2554", "32022R2554", "http://data.europa.eu/eli/reg/2022/2554/oj",
        r"DORA\b|(?i:digital\s+operational\s+resilience\s+act)"),
    _eu("aiact", "Regolamento sull'intelligenza artificiale (AI Act)", "AI Act",
        ("ai act", "aia", "regolamento sull'intelligenza artificiale", "regolamento ia"),
        "ue.regolamento", "2024-06-13", "1689", "32024R1689", "http://data.europa.eu/eli/reg/2024/1689/oj",
        r"(?i:AI\s+Act\b|artificial\s+intelligence\s+act|regolamento\s+(?:europeo\s+)?(?:sull['’]\s?intelligenza\s+artificiale|IA\b))"),
    _eu("eidas", "Regolamento eIDAS", "eIDAS", ("eidas", "regolamento eidas"),
        "ue.regolamento", "2014-07-23", "910", "32014R0910", "http://data.europa.eu/eli/reg/2014/910/oj",
        r"(?i:eIDAS\b)"),
    _eu("dsa", "Digital Services Act", "DSA", ("dsa", "digital services act"),
        "ue.regolamento", "2022-10-19", "2065", "32022R2065", "http://data.europa.eu/eli/reg/2022/2065/oj",
        r"DSA\b|(?i:digital\s+services\s+act)"),
    _eu("dma", "Digital Markets Act", "DMA", ("dma", "digital markets act"),
        "ue.regolamento", "2022-09-14", "1925", "32022R1925", "http://data.europa.eu/eli/reg/2022/1925/oj",
        r"DMA\b|(?i:digital\s+markets\s+act)"),
    _eu("mica", "Regolamento sui mercati delle cripto-attività (MiCA)", "MiCA", ("mica", "micar"),
        "ue.regolamento", "2023-05-31", "1114", "32023R1114", "http://data.europa.eu/eli/reg/2023/1114/oj",
        r"MiCAR?\b|MICAR?\b"),
    _eu("nis2", "Direttiva NIS 2", "NIS 2", ("nis2", "nis 2", "direttiva nis 2", "direttiva nis2"),
        "ue.direttiva", "2022-12-14", "2555", "32022L2555", "http://data.europa.eu/eli/dir/2022/2555/oj",
        r"(?i:(?:direttiva\s+)?NIS\s?2\b)"),
    _eu("tfue", "Trattato sul funzionamento dell'Unione europea", "TFUE", ("tfue", "t.f.u.e.", "trattato sul funzionamento dell'unione europea"),
        "ue.trattato", "2012-10-26", "", "12012E/TXT", None,
        r"TFUE\b|T\.F\.U\.E\.|(?i:trattato\s+sul\s+funzionamento\s+dell['’]\s?unione\s+europea)"),
    _eu("tue", "Trattato sull'Unione europea", "TUE", ("tue", "t.u.e.", "trattato sull'unione europea"),
        "ue.trattato", "2012-10-26", "", "12012M/TXT", None,
        r"TUE\b|T\.U\.E\.(?!\s?L)|(?i:trattato\s+sull['’]\s?unione\s+europea)"),
    _eu("cdfue", "Carta dei diritti fondamentali dell'Unione europea", "CDFUE",
        ("cdfue", "carta di nizza", "carta dei diritti fondamentali dell'unione europea"),
        "ue.carta", "2012-10-26", "", "12012P/TXT", None,
        r"CDFUE\b|(?i:carta\s+dei\s+diritti\s+fondamentali(?:\s+dell['’]\s?(?:unione(?:\s+europea)?|UE))?|carta\s+di\s+nizza)"),
    _eu("cedu", "Convenzione europea dei diritti dell'uomo", "CEDU", ("cedu", "c.e.d.u.", "convenzione europea dei diritti dell'uomo"),
        "internazionale", "1950-11-04", "", None, None,
        r"CEDU\b|C\.E\.D\.U\.|(?i:convenzione\s+(?:europea\s+)?(?:dei|per\s+la\s+salvaguardia\s+dei)\s+diritti\s+dell['’]\s?uomo"
        r"(?:\s+e\s+delle\s+libert[àa]\s+fondamentali)?|conv\.\s?eur\.\s?dir\.\s?uomo)", family="internazionale"),
    # implementing provisions and annexes of the codes (before the codes: "disp. att. c.p.c." holds "c.p.c.")
    _c("disp-att-cpc", "Disposizioni per l'attuazione del codice di procedura civile", "disp. att. c.p.c.",
       ("disp. att. c.p.c.", "disposizioni di attuazione del codice di procedura civile"),
       "regio.decreto", "1941-12-18", "1368", "R.D. 18 dicembre 1941, n. 1368",
       "official title (R.D. 18 dicembre 1941, n. 1368); no capture", pattern=rf"(?i:{_ATT}{_C_CPC})"),
    _c("disp-att-cpp", "Norme di attuazione, di coordinamento e transitorie del codice di procedura penale", "disp. att. c.p.p.",
       ("disp. att. c.p.p.", "norme di attuazione del codice di procedura penale"),
       "decreto.legislativo", "1989-07-28", "271", "D.Lgs. 28 luglio 1989, n. 271",
       "official title (D.Lgs. 28 luglio 1989, n. 271); no capture",
       pattern=rf"(?i:{_ATT}{_C_CPP}|norme\s+di\s+attuazione(?:,\s+di\s+coordinamento\s+e\s+transitorie)?\s+del\s+codice\s+di\s+procedura\s+penale)"),
    _c("disp-att-cc", "Disposizioni per l'attuazione del codice civile e disposizioni transitorie", "disp. att. c.c.",
       ("disp. att. c.c.", "disposizioni di attuazione del codice civile"),
       "regio.decreto", "1942-03-30", "318", "R.D. 30 marzo 1942, n. 318",
       "official title (R.D. 30 marzo 1942, n. 318); no capture", pattern=rf"(?i:{_ATT}{_C_CC})"),
    _c("disp-att-cp", "Disposizioni di coordinamento e transitorie per il codice penale", "disp. coord. c.p.",
       ("disp. att. c.p.", "disp. coord. c.p.", "disposizioni di coordinamento e transitorie per il codice penale"),
       "regio.decreto", "1931-05-28", "601", "R.D. 28 maggio 1931, n. 601",
       "official title (R.D. 28 maggio 1931, n. 601); no capture", pattern=rf"(?i:{_ATT}{_C_CP})"),
    _c("preleggi", "Disposizioni sulla legge in generale (preleggi)", "disp. prel. c.c.",
       ("preleggi", "disp. prel.", "disp. prel. c.c.", "disposizioni sulla legge in generale", "disposizioni preliminari al codice civile"),
       "regio.decreto", "1942-03-16", "262", "R.D. 16 marzo 1942, n. 262",
       "API_FACTS §5 annex table (262:1), urn-attesi.txt", annex="1", annex_of="cc",
       pattern=r"(?i:disp(?:\.|osizioni)\s?(?:prel(?:\.|iminari)|sulla\s+legge\s+in\s+generale)(?:\s?(?:al\s+|del\s+)?(?:c\.\s?c\.|cod\.\s?civ\.|codice\s+civile))?|preleggi|disp\.\s?sulla\s+legge\s+in\s+gen(?:\.|erale))"),
    # codes and consolidated acts practitioners cite by name (before c.p./c.c.: "c.p.i." starts like "c.p.")
    _c("statuto_lavoratori", "Statuto dei lavoratori", "L. 20 maggio 1970, n. 300",
       ("statuto dei lavoratori", "statuto lavoratori", "l. 300/1970", "st. lav."),
       "legge", "1970-05-20", "300", "L. 20 maggio 1970, n. 300",
       "API reale-atto-statuto-18 (LEGGE 20 maggio 1970, n. 300)", pattern=r"(?i:statuto\s+dei\s+lavoratori|st\.\s?lav\.)"),
    _c("statuto_contribuente", "Statuto dei diritti del contribuente", "L. 27 luglio 2000, n. 212",
       ("statuto del contribuente", "statuto dei diritti del contribuente"),
       "legge", "2000-07-27", "212", "L. 27 luglio 2000, n. 212", "official title; no capture",
       pattern=r"(?i:statuto\s+(?:dei\s+diritti\s+)?del\s+contribuente)"),
    _c("ordpen", "Ordinamento penitenziario", "ord. pen.", ("ordinamento penitenziario", "ord. pen.", "o.p."),
       "legge", "1975-07-26", "354", "L. 26 luglio 1975, n. 354", "official title; no capture",
       pattern=r"(?i:ord(?:\.|inamento)\s?pen(?:\.|itenziario)|o\.\s?p\.(?=\s|,|;|\)))"),
    _c("ordgiud", "Ordinamento giudiziario", "ord. giud.", ("ordinamento giudiziario", "ord. giud."),
       "regio.decreto", "1941-01-30", "12", "R.D. 30 gennaio 1941, n. 12", "official title; no capture",
       pattern=r"(?i:ord(?:\.|inamento)\s?giud(?:\.|iziario))"),
    _c("lfall", "Legge fallimentare", "l. fall.", ("legge fallimentare", "l. fall.", "l.fall."),
       "regio.decreto", "1942-03-16", "267", "R.D. 16 marzo 1942, n. 267", "official title; no capture",
       pattern=r"(?i:l(?:\.|egge)\s?fall(?:\.|imentare))|L\.\s?F\.(?![A-Za-z])"),
    _c("lnot", "Legge notarile", "l. not.", ("legge notarile", "l. not."),
       "legge", "1913-02-16", "89", "L. 16 febbraio 1913, n. 89", "official title; no capture",
       pattern=r"(?i:legge\s+notarile|l\.\s?not\.)"),
    _c("lda", "Legge sul diritto d'autore", "l.d.a.", ("legge sul diritto d'autore", "l.d.a.", "lda", "l. aut."),
       "legge", "1941-04-22", "633", "L. 22 aprile 1941, n. 633", "official title; no capture",
       pattern=r"(?i:legge\s+sul\s+diritto\s+d['’]\s?autore|l\.\s?d\.\s?a\.|l\.\s?aut\.)"),
    _c("lcamb", "Legge cambiaria", "l. camb.", ("legge cambiaria", "l. camb."),
       "regio.decreto", "1933-12-14", "1669", "R.D. 14 dicembre 1933, n. 1669", "official title; no capture",
       pattern=r"(?i:legge\s+cambiaria|l\.\s?camb\.)"),
    _c("lass", "Legge sull'assegno", "l. ass.", ("legge assegni", "legge sull'assegno"),
       "regio.decreto", "1933-12-21", "1736", "R.D. 21 dicembre 1933, n. 1736", "official title; no capture",
       pattern=r"(?i:legge\s+(?:sull['’]\s?assegno|assegni)|l\.\s?ass\.)"),
    _c("ldiv", "Legge sul divorzio", "l. div.", ("legge sul divorzio", "legge divorzio", "l. div."),
       "legge", "1970-12-01", "898", "L. 1 dicembre 1970, n. 898", "official title; no capture",
       pattern=r"(?i:legge\s+(?:sul\s+)?divorzio|l\.\s?div\.)"),
    _c("equocanone", "Legge sull'equo canone", "L. 27 luglio 1978, n. 392", ("legge sull'equo canone", "equo canone"),
       "legge", "1978-07-27", "392", "L. 27 luglio 1978, n. 392", "official title; no capture",
       pattern=r"(?i:legge\s+(?:sull['’]\s?)?equo\s+canone)"),
    _c("gelli", "Legge Gelli-Bianco (sicurezza delle cure e responsabilità professionale sanitaria)", "L. 8 marzo 2017, n. 24",
       ("legge gelli-bianco", "legge gelli", "gelli-bianco", "l. gelli"),
       "legge", "2017-03-08", "24", "L. 8 marzo 2017, n. 24", "AKN scabopdf__legge_gelli_bianco.xml",
       pattern=r"(?i:(?:legge|l\.)\s?Gelli(?:[\s-]+Bianco)?)"),
    _c("lpinto", "Legge Pinto (equa riparazione)", "L. 24 marzo 2001, n. 89", ("legge pinto", "l. pinto"),
       "legge", "2001-03-24", "89", "L. 24 marzo 2001, n. 89", "official title; no capture",
       pattern=r"(?i:(?:legge|l\.)\s?Pinto)"),
    _c("lfornero", "Legge Fornero (riforma del mercato del lavoro)", "L. 28 giugno 2012, n. 92", ("legge fornero", "riforma fornero"),
       "legge", "2012-06-28", "92", "L. 28 giugno 2012, n. 92", "official title; no capture",
       pattern=r"(?i:(?:legge|l\.)\s?Fornero)"),
    _c("lmerlin", "Legge Merlin", "L. 20 febbraio 1958, n. 75", ("legge merlin",),
       "legge", "1958-02-20", "75", "L. 20 febbraio 1958, n. 75", "official title; no capture",
       pattern=r"(?i:(?:legge|l\.)\s?Merlin)"),
    _c("lbasaglia", "Legge Basaglia", "L. 13 maggio 1978, n. 180", ("legge basaglia",),
       "legge", "1978-05-13", "180", "L. 13 maggio 1978, n. 180", "official title; no capture",
       pattern=r"(?i:(?:legge|l\.)\s?Basaglia)"),
    _c("severino", "Decreto Severino (incandidabilità)", "D.Lgs. 31 dicembre 2012, n. 235",
       ("legge severino", "decreto severino"),
       "decreto.legislativo", "2012-12-31", "235", "D.Lgs. 31 dicembre 2012, n. 235", "official title; no capture",
       pattern=r"(?i:(?:legge|decreto|l\.|d\.\s?lgs\.)\s?Severino)"),
    _c("ccii", "Codice della crisi d'impresa e dell'insolvenza", "CCII",
       ("ccii", "c.c.i.i.", "codice della crisi", "codice della crisi d'impresa e dell'insolvenza"),
       "decreto.legislativo", "2019-01-12", "14", "D.Lgs. 12 gennaio 2019, n. 14", "official title; no capture",
       pattern=r"CCII\b|(?i:c\.\s?c\.\s?i\.\s?i\.)|(?i:codice\s+della\s+crisi(?:\s+d['’]\s?impresa(?:\s+e\s+dell['’]\s?insolvenza)?)?)"),
    _c("tuedilizia", "Testo unico dell'edilizia", "T.U. edilizia",
       ("t.u. edilizia", "testo unico edilizia", "testo unico dell'edilizia"),
       "decreto.del.presidente.della.repubblica", "2001-06-06", "380", "D.P.R. 6 giugno 2001, n. 380",
       "official title; no capture",
       pattern=r"(?i:t\.\s?u\.\s?(?:dell['’]\s?)?edilizia|testo\s+unico\s+(?:dell['’]\s?)?edilizia)"),
    _c("tusl", "Testo unico sulla salute e sicurezza sul lavoro", "D.Lgs. 9 aprile 2008, n. 81",
       ("t.u. sicurezza", "testo unico sicurezza sul lavoro", "tusl", "testo unico sulla sicurezza"),
       "decreto.legislativo", "2008-04-09", "81", "D.Lgs. 9 aprile 2008, n. 81", "official title; no capture",
       pattern=r"TUSL\b|(?i:t\.\s?u\.\s?(?:sulla\s+)?sicurezza(?:\s+sul\s+lavoro)?|testo\s+unico\s+(?:sulla\s+(?:salute\s+e\s+)?)?sicurezza(?:\s+sul(?:\s+|l['’]\s?)lavoro)?)"),
    _c("tuimm", "Testo unico sull'immigrazione", "D.Lgs. 25 luglio 1998, n. 286",
       ("t.u. immigrazione", "testo unico immigrazione", "testo unico sull'immigrazione"),
       "decreto.legislativo", "1998-07-25", "286", "D.Lgs. 25 luglio 1998, n. 286", "official title; no capture",
       pattern=r"(?i:t\.\s?u\.\s?(?:sull['’]\s?)?imm(?:igrazione|\.)|testo\s+unico\s+(?:sull['’]\s?|dell['’]\s?)?immigrazione)"),
    _c("tustup", "Testo unico sugli stupefacenti", "D.P.R. 9 ottobre 1990, n. 309",
       ("t.u. stupefacenti", "testo unico stupefacenti", "testo unico sugli stupefacenti"),
       "decreto.del.presidente.della.repubblica", "1990-10-09", "309", "D.P.R. 9 ottobre 1990, n. 309",
       "official title; no capture",
       pattern=r"(?i:t\.\s?u\.\s?(?:sugli\s+|degli\s+)?stup(?:efacenti|\.)|testo\s+unico\s+(?:sugli\s+|degli\s+|in\s+materia\s+di\s+)?stupefacenti)"),
    _c("tusg", "Testo unico sulle spese di giustizia", "D.P.R. 30 maggio 2002, n. 115",
       ("t.u. spese di giustizia", "testo unico spese di giustizia", "tusg"),
       "decreto.del.presidente.della.repubblica", "2002-05-30", "115", "D.P.R. 30 maggio 2002, n. 115",
       "official title; no capture",
       pattern=r"TUSG\b|(?i:t\.\s?u\.\s?(?:sulle\s+)?spese\s+di\s+giustizia|testo\s+unico\s+(?:sulle\s+|in\s+materia\s+di\s+)?spese\s+di\s+giustizia)"),
    _c("tupi", "Testo unico del pubblico impiego", "D.Lgs. 30 marzo 2001, n. 165",
       ("tupi", "t.u.p.i.", "testo unico pubblico impiego", "testo unico del pubblico impiego"),
       "decreto.legislativo", "2001-03-30", "165", "D.Lgs. 30 marzo 2001, n. 165", "official title; no capture",
       pattern=r"TUPI\b|(?i:t\.\s?u\.\s?p\.\s?i\.|t\.\s?u\.\s?(?:sul\s+|del\s+)?pubblico\s+impiego|testo\s+unico\s+(?:sul\s+|del\s+)?pubblico\s+impiego)"),
    _c("tudoc", "Testo unico sulla documentazione amministrativa", "D.P.R. 28 dicembre 2000, n. 445",
       ("t.u. documentazione amministrativa", "testo unico documentazione amministrativa"),
       "decreto.del.presidente.della.repubblica", "2000-12-28", "445", "D.P.R. 28 dicembre 2000, n. 445",
       "official title; no capture",
       pattern=r"(?i:(?:t\.\s?u\.|testo\s+unico)\s+(?:sulla\s+|della\s+|in\s+materia\s+di\s+)?documentazione\s+amministrativa)"),
    _c("tuespr", "Testo unico sulle espropriazioni per pubblica utilità", "D.P.R. 8 giugno 2001, n. 327",
       ("t.u. espropri", "testo unico espropriazioni", "testo unico sugli espropri"),
       "decreto.del.presidente.della.repubblica", "2001-06-08", "327", "D.P.R. 8 giugno 2001, n. 327",
       "official title; no capture",
       pattern=r"(?i:(?:t\.\s?u\.|testo\s+unico)\s+(?:sulle\s+|sugli\s+|in\s+materia\s+di\s+|delle\s+|degli\s+)?espropri(?:azioni)?)"),
    _c("tuiva", "Decreto IVA (istituzione e disciplina dell'imposta sul valore aggiunto)", "D.P.R. 26 ottobre 1972, n. 633",
       ("t.u. iva", "decreto iva", "d.p.r. iva", "testo unico iva"),
       "decreto.del.presidente.della.repubblica", "1972-10-26", "633", "D.P.R. 26 ottobre 1972, n. 633",
       "official title; no capture",
       pattern=r"(?i:(?:t\.\s?u\.|testo\s+unico|decreto|d\.\s?p\.\s?r\.)\s?IVA)(?![a-z])"),
    _c("tureg", "Testo unico dell'imposta di registro", "D.P.R. 26 aprile 1986, n. 131",
       ("t.u. registro", "testo unico dell'imposta di registro", "t.u.r."),
       "decreto.del.presidente.della.repubblica", "1986-04-26", "131", "D.P.R. 26 aprile 1986, n. 131",
       "official title; no capture",
       pattern=r"(?i:(?:t\.\s?u\.|testo\s+unico)\s+(?:dell['’]\s?imposta\s+di\s+)?registro|t\.\s?u\.\s?r\.)"),
    _c("tulps", "Testo unico delle leggi di pubblica sicurezza", "TULPS",
       ("tulps", "t.u.l.p.s.", "testo unico delle leggi di pubblica sicurezza"),
       "regio.decreto", "1931-06-18", "773", "R.D. 18 giugno 1931, n. 773", "official title; no capture",
       pattern=r"TULPS\b|Tulps\b|(?i:t\.\s?u\.\s?l\.\s?p\.\s?s\.|testo\s+unico\s+delle\s+leggi\s+di\s+pubblica\s+sicurezza)"),
    _c("tusp", "Testo unico in materia di società a partecipazione pubblica", "TUSP",
       ("tusp", "t.u.s.p.", "testo unico società partecipate", "testo unico delle società partecipate"),
       "decreto.legislativo", "2016-08-19", "175", "D.Lgs. 19 agosto 2016, n. 175", "official title; no capture",
       pattern=r"TUSP\b|(?i:t\.\s?u\.\s?s\.\s?p\.|testo\s+unico\s+(?:delle\s+|sulle\s+|in\s+materia\s+di\s+)?societ[àa]\s+(?:a\s+)?partecipa(?:te|zione\s+pubblica))"),
    _c("tub", "Testo unico bancario", "TUB", ("tub", "t.u.b.", "testo unico bancario"),
       "decreto.legislativo", "1993-09-01", "385", "D.Lgs. 1 settembre 1993, n. 385", "official title; no capture",
       pattern=r"TUB\b|(?i:t\.\s?u\.\s?b\.|testo\s+unico\s+bancario|t\.\s?u\.\s?bancario)"),
    _c("tuf", "Testo unico della finanza", "TUF", ("tuf", "t.u.f.", "testo unico della finanza"),
       "decreto.legislativo", "1998-02-24", "58", "D.Lgs. 24 febbraio 1998, n. 58", "official title; no capture",
       pattern=r"TUF\b|(?i:t\.\s?u\.\s?f\.|testo\s+unico\s+(?:della\s+)?finanza|t\.\s?u\.\s?finanza)"),
    _c("ambiente", "Codice dell'ambiente", "cod. amb.",
       ("codice dell'ambiente", "cod. amb.", "codice ambiente", "testo unico ambientale", "t.u. ambiente", "tua"),
       "decreto.legislativo", "2006-04-03", "152", "D.Lgs. 3 aprile 2006, n. 152", "official title; no capture",
       pattern=r"(?i:codice\s+dell['’]\s?ambiente|cod\.\s?amb(?:\.|iente)|testo\s+unico\s+(?:ambientale|dell['’]\s?ambiente)|t\.\s?u\.\s?(?:ambientale|ambiente|dell['’]\s?ambiente))"),
    _c("cpi", "Codice della proprietà industriale", "c.p.i.",
       ("c.p.i.", "cpi", "codice della proprietà industriale"),
       "decreto.legislativo", "2005-02-10", "30", "D.Lgs. 10 febbraio 2005, n. 30", "official title; no capture",
       pattern=r"(?i:c\.\s?p\.\s?i\.|codice\s+della\s+propriet(?:à|a['’])\s+industriale|cod\.\s?propr\.\s?ind\.)"),
    _c("antimafia", "Codice antimafia", "cod. antimafia",
       ("codice antimafia", "cod. antimafia", "codice delle leggi antimafia"),
       "decreto.legislativo", "2011-09-06", "159", "D.Lgs. 6 settembre 2011, n. 159", "official title; no capture",
       pattern=r"(?i:codice\s+(?:delle\s+leggi\s+)?antimafia|cod\.\s?antimafia|c\.\s?a\.\s?m\.)"),
    _c("assicurazioni", "Codice delle assicurazioni private", "cod. ass.",
       ("codice delle assicurazioni", "codice delle assicurazioni private", "cod. ass.", "c.a.p."),
       "decreto.legislativo", "2005-09-07", "209", "D.Lgs. 7 settembre 2005, n. 209", "official title; no capture",
       pattern=r"(?i:codice\s+delle\s+assicurazioni(?:\s+private)?|cod\.\s?ass(?:\.|icurazioni))"),
    _c("beniculturali", "Codice dei beni culturali e del paesaggio", "cod. beni cult.",
       ("codice dei beni culturali", "codice dei beni culturali e del paesaggio", "codice urbani"),
       "decreto.legislativo", "2004-01-22", "42", "D.Lgs. 22 gennaio 2004, n. 42", "official title; no capture",
       pattern=r"(?i:codice\s+(?:dei\s+)?beni\s+culturali(?:\s+e\s+del\s+paesaggio)?|codice\s+Urbani|cod\.\s?beni\s+cult\.)"),
    _c("terzosettore", "Codice del Terzo settore", "CTS", ("codice del terzo settore", "cts"),
       "decreto.legislativo", "2017-07-03", "117", "D.Lgs. 3 luglio 2017, n. 117", "official title; no capture",
       pattern=r"CTS\b|(?i:codice\s+del\s+terzo\s+settore)"),
    _c("comunicazioni", "Codice delle comunicazioni elettroniche", "cod. com. el.",
       ("codice delle comunicazioni elettroniche",),
       "decreto.legislativo", "2003-08-01", "259", "D.Lgs. 1 agosto 2003, n. 259", "official title; no capture",
       pattern=r"(?i:codice\s+delle\s+comunicazioni\s+elettroniche|cod\.\s?com\.\s?el\.)"),
    _c("pariopportunita", "Codice delle pari opportunità tra uomo e donna", "cod. pari opp.",
       ("codice delle pari opportunità", "codice pari opportunità"),
       "decreto.legislativo", "2006-04-11", "198", "D.Lgs. 11 aprile 2006, n. 198", "official title; no capture",
       pattern=r"(?i:codice\s+(?:delle\s+)?pari\s+opportunit(?:à|a['’])|cod\.\s?pari\s+opp\.)"),
    _c("cgc", "Codice di giustizia contabile", "c.g.c.", ("codice di giustizia contabile", "c.g.c."),
       "decreto.legislativo", "2016-08-26", "174", "D.Lgs. 26 agosto 2016, n. 174", "official title; no capture",
       pattern=r"(?i:codice\s+(?:di|della)\s+giustizia\s+contabile|c\.\s?g\.\s?c\.)"),
    _c("com", "Codice dell'ordinamento militare", "c.o.m.", ("codice dell'ordinamento militare", "c.o.m."),
       "decreto.legislativo", "2010-03-15", "66", "D.Lgs. 15 marzo 2010, n. 66", "official title; no capture",
       pattern=r"(?i:codice\s+dell['’]\s?ordinamento\s+militare|c\.\s?o\.\s?m\.)"),
    _c("protezionecivile", "Codice della protezione civile", "cod. prot. civ.", ("codice della protezione civile",),
       "decreto.legislativo", "2018-01-02", "1", "D.Lgs. 2 gennaio 2018, n. 1", "official title; no capture",
       pattern=r"(?i:codice\s+della\s+protezione\s+civile|cod\.\s?prot\.\s?civ\.)"),
    _c("nautica", "Codice della nautica da diporto", "cod. nautica", ("codice della nautica da diporto", "codice della nautica"),
       "decreto.legislativo", "2005-07-18", "171", "D.Lgs. 18 luglio 2005, n. 171", "official title; no capture",
       pattern=r"(?i:codice\s+della\s+nautica(?:\s+da\s+diporto)?|cod\.\s?nautica)"),
    _c("turismo", "Codice del turismo", "cod. tur.", ("codice del turismo",),
       "decreto.legislativo", "2011-05-23", "79", "D.Lgs. 23 maggio 2011, n. 79", "official title; no capture",
       pattern=r"(?i:codice\s+del\s+turismo|cod\.\s?tur(?:\.|ismo))"),
    _c("cpc", "Codice di procedura civile", "c.p.c.",
       ("c.p.c.", "cpc", "cod. proc. civ.", "codice di procedura civile", "codice procedura civile"),
       "regio.decreto", "1940-10-28", "1443", "R.D. 28 ottobre 1940, n. 1443",
       "UPSTREAMS.md canonical URNs; API annex :1 (API_FACTS §5, urn-attesi.txt); no capture of the act", annex="1",
       pattern=rf"(?i:{_C_CPC}|cpc\b)"),
    _c("cpp", "Codice di procedura penale", "c.p.p.",
       ("c.p.p.", "cpp", "cod. proc. pen.", "codice di procedura penale", "codice procedura penale"),
       "decreto.del.presidente.della.repubblica", "1988-09-22", "447", "D.P.R. 22 settembre 1988, n. 447",
       "AKN scabopdf__codice_procedura_penale.xml (urn:nir ...1988-09-22;447); no annex (API_FACTS §5)",
       pattern=rf"(?i:{_C_CPP}|cpp\b)"),
    _c("cpa", "Codice del processo amministrativo", "c.p.a.",
       ("c.p.a.", "cpa", "cod. proc. amm.", "codice del processo amministrativo"),
       "decreto.legislativo", "2010-07-02", "104", "D.Lgs. 2 luglio 2010, n. 104",
       "official title (the code is Allegato 1 of D.Lgs. 2 luglio 2010, n. 104); no capture",
       pattern=r"(?i:c\.\s?p\.\s?a\.|cod\.\s?proc\.\s?amm\.|codice\s+del\s+processo\s+amministrativo|cpa\b)"),
    _c("cc", "Codice civile", "c.c.", ("c.c.", "cc", "cod. civ.", "cod.civ.", "codice civile", "c. civ."),
       "regio.decreto", "1942-03-16", "262", "R.D. 16 marzo 1942, n. 262",
       "API normattiva-mcp reale-atto-cc-2043 (REGIO DECRETO 16 marzo 1942, n. 262; 200 only with :2); "
       "reale-404-coordinate (without :2)", annex="2", pattern=rf"(?i:{_C_CC}|c\.\s?civ\.|cc\b)"),
    _c("cp", "Codice penale", "c.p.", ("c.p.", "cp", "cod. pen.", "cod.pen.", "codice penale", "c. pen."),
       "regio.decreto", "1930-10-19", "1398", "R.D. 19 ottobre 1930, n. 1398",
       "AKN mcp-legal-it__codice_penale.xml / scabopdf__codice_penale.xml (FRBRdate 1930-10-19); API annex :1 "
       "(API_FACTS §5; sdk urn_non_ancora_vigente title)", annex="1", pattern=rf"(?i:{_C_CP}|c\.\s?pen\.|cp\b)"),
    Code(
        id="cost", name="Costituzione della Repubblica italiana", abbreviation="Cost.",
        aliases=("cost", "cost.", "costituzione", "costituzione italiana", "costituzione della repubblica",
                 "carta costituzionale"),
        act_type="costituzione", date="1947-12-27", number="", urn="urn:nir:stato:costituzione",
        api_urn="urn:nir:stato:costituzione:1947-12-27", act_citation="Cost.",
        source="AKN normattiva-akn/mcp-legal-it__costituzione.xml (urn:nir:stato:costituzione; ELI GU 1947/12/27); "
        "API sdk contratto urn_costituzione (annoGU 1947-12-27)", family="costituzione",
        pattern=r"(?i:cost\.|costituzione(?:\s+(?:della\s+)?repubblica(?:\s+italiana)?)?|carta\s+costituzionale)|Cost\b",
    ),
    _c("consumo", "Codice del consumo", "Cod. consumo",
       ("codice del consumo", "cod. consumo", "c. cons.", "cod. cons.", "d.lgs. 206/2005"),
       "decreto.legislativo", "2005-09-06", "206", "D.Lgs. 6 settembre 2005, n. 206",
       "no capture: date from the act's official title (D.Lgs. 6 settembre 2005, n. 206); unverified here",
       pattern=r"(?i:cod\.\s?cons(?:\.|umo)|c\.\s?cons\.|codice\s+del\s+consumo)"),
    _c("strada", "Nuovo codice della strada", "C.d.S.",
       ("c.d.s.", "cds", "codice della strada", "nuovo codice della strada", "cod. strada", "c.s."),
       "decreto.legislativo", "1992-04-30", "285", "D.Lgs. 30 aprile 1992, n. 285",
       "AKN scabopdf__codice_strada.xml (FRBRdate 1992-04-30)",
       pattern=r"(?i:(?:nuovo\s+)?codice\s+della\s+strada|c\.\s?d\.\s?s\.|cod\.\s?strada)|CdS\b|cds\b"),
    _c("contratti", "Codice dei contratti pubblici", "D.Lgs. 31 marzo 2023, n. 36",
       ("codice dei contratti pubblici", "codice contratti pubblici", "codice appalti", "codice degli appalti",
        "d.lgs. 36/2023", "codice dei contratti"),
       "decreto.legislativo", "2023-03-31", "36", "D.Lgs. 31 marzo 2023, n. 36",
       "AKN alessionar__20230331_23G00044_VIGENZA_20230530.xml (FRBRdate 2023-03-31); "
       "API reale-preambolo-36-2023-art1 (lista form)",
       pattern=r"(?i:(?:nuovo\s+)?codice\s+(?:dei\s+contratti(?:\s+pubblici)?|degli\s+appalti(?:\s+pubblici)?|appalti)|cod\.\s?contr(?:\.|atti)(?:\s?pubbl\.)?)"),
    _c("privacy", "Codice in materia di protezione dei dati personali", "Codice privacy",
       ("codice privacy", "codice della privacy", "cod. privacy", "d.lgs. 196/2003",
        "codice in materia di protezione dei dati personali"),
       "decreto.legislativo", "2003-06-30", "196", "D.Lgs. 30 giugno 2003, n. 196",
       "UPSTREAMS.md canonical URNs; no capture of the act",
       pattern=r"(?i:codice\s+(?:della\s+|in\s+materia\s+di\s+)?privacy|codice\s+in\s+materia\s+di\s+protezione\s+dei\s+dati\s+personali|cod\.\s?privacy)"),
    _c("cad", "Codice dell'amministrazione digitale", "CAD",
       ("cad", "c.a.d.", "codice dell'amministrazione digitale", "codice amministrazione digitale", "d.lgs. 82/2005"),
       "decreto.legislativo", "2005-03-07", "82", "D.Lgs. 7 marzo 2005, n. 82",
       "AKN ondata__CAD_dlgs82-2005__005G0104_VIGENZA_20250130.xml (FRBRdate 2005-03-07)",
       pattern=r"CAD\b|(?i:c\.\s?a\.\s?d\.|codice\s+dell['’]\s?amministrazione\s+digitale)"),
    _c("tuir", "Testo unico delle imposte sui redditi", "TUIR",
       ("tuir", "t.u.i.r.", "testo unico delle imposte sui redditi", "testo unico imposte sui redditi",
        "d.p.r. 917/1986"),
       "decreto.del.presidente.della.repubblica", "1986-12-22", "917", "D.P.R. 22 dicembre 1986, n. 917",
       "API reale-abrogato-tuir-51 (DECRETO DEL PRESIDENTE DELLA REPUBBLICA 22 dicembre 1986, n. 917)",
       pattern=r"TUIR\b|Tuir\b|(?i:t\.\s?u\.\s?i\.\s?r\.|testo\s+unico\s+(?:delle\s+)?imposte\s+sui\s+redditi)"),
    _c("tuel", "Testo unico delle leggi sull'ordinamento degli enti locali", "TUEL",
       ("tuel", "t.u.e.l.", "testo unico enti locali", "testo unico degli enti locali", "d.lgs. 267/2000"),
       "decreto.legislativo", "2000-08-18", "267", "D.Lgs. 18 agosto 2000, n. 267",
       "API reale-lista-tuel-42 (DECRETO LEGISLATIVO 18 agosto 2000, n. 267; lista form)",
       pattern=r"TUEL\b|Tuel\b|(?i:t\.\s?u\.\s?e\.\s?l\.|t\.\s?u\.\s?enti\s+locali|testo\s+unico\s+(?:degli|delle\s+leggi\s+sull['’]\s?ordinamento\s+degli)?\s?enti\s+locali)"),
    _c("navigazione", "Codice della navigazione", "cod. nav.",
       ("cod. nav.", "c. nav.", "c.nav.", "codice della navigazione", "codice navigazione"),
       "regio.decreto", "1942-03-30", "327", "R.D. 30 marzo 1942, n. 327",
       "API reale-atto-navigazione-422 (REGIO DECRETO 30 marzo 1942, n. 327; asked as 327:1)", annex="1",
       pattern=r"(?i:codice\s+della\s+navigazione|cod\.\s?nav\.|c\.\s?nav\.)"),
    _c("dlgs231", "Responsabilita' amministrativa degli enti (D.Lgs. 231/2001)", "D.Lgs. 8 giugno 2001, n. 231",
       ("d.lgs. 231/2001", "dlgs 231/2001", "231/2001", "decreto 231", "responsabilita amministrativa degli enti"),
       "decreto.legislativo", "2001-06-08", "231", "D.Lgs. 8 giugno 2001, n. 231",
       "AKN mcp-legal-it__dlgs_231_2001.xml and scabopdf__dlgs_231_2001.xml (FRBRdate 2001-06-08)",
       pattern=r"(?i:decreto\s+231\b)"),
    _c("l241", "Legge sul procedimento amministrativo (L. 241/1990)", "L. 7 agosto 1990, n. 241",
       ("l. 241/1990", "legge 241/1990", "241/1990", "legge sul procedimento amministrativo",
        "procedimento amministrativo"),
       "legge", "1990-08-07", "241", "L. 7 agosto 1990, n. 241",
       "AKN mcp-legal-it__legge_241_1990.xml (FRBRdate 1990-08-07); portal page mcp-legal-it__landing_legge_241_1990.html",
       pattern=r"(?i:legge\s+sul\s+procedimento\s+amministrativo)"),
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


def _words(raw: str) -> list[str]:
    return re.sub(r"[^a-z0-9]+", " ", unidecode(raw or "").lower()).split()


# every way the table names a code, spaced ('codice penale', 'cod proc civ', 'c p'): what a
# misspelling is compared with
_BY_SPACED: dict[str, Code] = {}
for _code in CODES:
    for _a in (_code.name, _code.abbreviation, *_code.aliases):
        _BY_SPACED.setdefault(" ".join(_words(_a)), _code)
_BY_SPACED.pop("", None)
SIMILAR_CUTOFF = 0.8  # 'penalle' for 'penale' passes, 'codice della strada' for 'codice civile' does not
SIMILAR_MARGIN = 0.08  # names this much less alike than the best are not offered
MAX_SIMILAR_WORDS = 8  # only the first words of an unread phrase are compared (bounded work)
# a run of words that starts or ends with one of these is part of a longer name ('codice della')
_LINKING = frozenset("d e ed di del dello della dei degli delle al allo alla ai agli alle in il lo la i gli le l".split())


def similar_codes(phrase: str, n: int = 3) -> list[Code]:
    """The codes whose name, abbreviation or alias is closest to a run of words of `phrase` that
    is not itself a known name ('codice penalle' -> the penal code): a did-you-mean, best first."""
    words = _words(phrase)[:MAX_SIMILAR_WORDS]
    spans = [(i, j) for i in range(len(words)) for j in range(i + 1, min(len(words), i + 5) + 1)]
    known = [(i, j) for i, j in spans if " ".join(words[i:j]) in _BY_SPACED and j - i > 1]
    scored: dict[str, tuple[float, Code]] = {}
    for i, j in spans:
        gram = " ".join(words[i:j])
        if len(gram) < 4 or gram in _BY_SPACED or words[i] in _LINKING or words[j - 1] in _LINKING:
            continue
        if any(ki <= i and j <= kj for ki, kj in known):  # a piece of a name written right
            continue
        # a typo keeps about the length: not a prefix of a longer name ('regolamento', 'regolamento ai')
        near = [name for name in _BY_SPACED if abs(len(name) - len(gram)) <= max(2, len(name) // 5)]
        for name in difflib.get_close_matches(gram, near, n=n, cutoff=SIMILAR_CUTOFF):
            score = difflib.SequenceMatcher(None, gram, name).ratio()
            code = _BY_SPACED[name]
            if score > scored.get(code.id, (0.0, code))[0]:
                scored[code.id] = (score, code)
    ranked = sorted(scored.values(), key=lambda sc: -sc[0])
    return [c for score, c in ranked if score >= ranked[0][0] - SIMILAR_MARGIN][:n]


def lookup_act(act_type: str, year: int, number: str | int) -> Code | None:
    """The code approved by this act, if any (the code itself before an annex sharing its act:
    c.c. before the preleggi)."""
    n = str(number).lstrip("0")
    hits = [c for c in CODES if c.urn and c.act_type == act_type and c.number == n and c.year == int(year)]
    return min(hits, key=lambda c: c.annex_of is not None) if hits else None


def approving_act(code_id: str) -> tuple[str, str, int] | None:
    """(act type, number, year) of the act a code is, or is approved by; None for EU/international acts."""
    c = CODES_BY_ID.get(code_id)
    if c is None or not c.urn or c.family != "codice":
        return None
    return c.act_type, c.number, c.year


def scan_pattern() -> tuple[str, list[Code]]:
    """The alternation the scanner matches code names with (one named group per code, in table order)."""
    rows = [c for c in CODES if c.pattern]
    return "|".join(f"(?P<c{i}>{c.pattern})" for i, c in enumerate(rows)), rows
