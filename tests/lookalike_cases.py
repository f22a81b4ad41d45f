"""Look-alikes: citations one letter, one slash or one qualifier away from another act. Each row says
what a reader must answer: the act it names (its URN:NIR or ELI, and the article), or a gap that
quotes what was read. Never another act, never a shorter number.

Forms from how practice writes them: the numbers of the authorities' own acts as the captured
decisions and exports print them (`delibera dell'ARERA n. 231/2021/R/eel`, `n. 274/2022/R/ gas`, in
normattiva-akn/scabopdf__legge_bilancio_2023.xml and the GA sample; `prot. n. 13107/18/W`,
cortecost records), the Agenzia delle Entrate's lettered circolari (`n. 25/E`), AGCOM's
(`n. 173/07/CONS`), the MEF's (`n. 26/RGS`); EU acts in the cases and spacing the exports use
(`direttiva n. 2014/24/UE`, `regolamento n. 2010/1259/UE`) and lower-case as briefs type them;
`n` without its dot; codes whose name, qualified, is another act (the military codes, R.D. 20
febbraio 1941, n. 303; the regolamento di esecuzione del codice della strada, D.P.R. 16 dicembre
1992, n. 495; the codes of another era).

A row is `act(text, identifier, article)`: the citation carries that identifier (act URN or ELI);
`gap(text, words)`: a citation whose act is identified by nothing and whose words include `words`;
`never(text)`: no act identified at all (an office's acronym in the slot of an issuer is not the EU
act sharing it). In every row, no citation may carry an identifier the row does not name.
"""

from __future__ import annotations

L241 = "urn:nir:stato:legge:1990;241"
L241_DATE = "urn:nir:stato:legge:1990-08-07;241"
CP = "urn:nir:stato:regio.decreto:1930-10-19;1398:1"
CPC = "urn:nir:stato:regio.decreto:1940-10-28;1443:1"
CPP = "urn:nir:stato:decreto.del.presidente.della.repubblica:1988-09-22;447"
CC = "urn:nir:stato:regio.decreto:1942-03-16;262:2"
CDS = "urn:nir:stato:decreto.legislativo:1992-04-30;285"
DISP_ATT_CPC = "urn:nir:stato:regio.decreto:1941-12-18;1368"
CONTRATTI = "urn:nir:stato:decreto.legislativo:2023-03-31;36"
GDPR = "http://data.europa.eu/eli/reg/2016/679/oj"
BRUX = "http://data.europa.eu/eli/reg/2012/1215/oj"
DSA = "http://data.europa.eu/eli/reg/2022/2065/oj"
DMA = "http://data.europa.eu/eli/reg/2022/1925/oj"
MICA = "http://data.europa.eu/eli/reg/2023/1114/oj"
DORA = "http://data.europa.eu/eli/reg/2022/2554/oj"
AIACT = "http://data.europa.eu/eli/reg/2024/1689/oj"


def act(text: str, ident: str, article: str | None = None) -> dict:
    return {"text": text, "expect": "act", "ident": ident, "article": article}


def gap(text: str, words: str, article: str | None = None) -> dict:
    return {"text": text, "expect": "gap", "words": words, "article": article}


def never(text: str) -> dict:
    return {"text": text, "expect": "never"}


# acronyms of ministries and agencies against the names of EU acts
ACRONYMS = [
    act("Il trattamento è lecito ai sensi dell'art. 6 del GDPR.", GDPR, "6"),
    act("Il trattamento è lecito ai sensi dell'art. 6 gdpr.", GDPR, "6"),
    act("Gli obblighi dei fornitori discendono dall'art. 16 del DSA.", DSA, "16"),
    act("Il gatekeeper è designato ai sensi dell'art. 3 del DMA.", DMA, "3"),
    act("La cripto-attività è definita dall'art. 3 del MiCA.", MICA, "3"),
    act("Il registro degli incidenti è previsto dall'art. 17 del DORA.", DORA, "17"),
    act("Il sistema è ad alto rischio ai sensi dell'art. 6 dell'AI Act.", AIACT, "6"),
    never("Si veda la circolare DSA n. 5/2020 sull'organizzazione degli uffici."),
    never("La delibera DMA n. 12/2021 approva il bilancio."),
    never("Con la nota DORA n. 3/2022 l'ufficio ha risposto."),
    never("La determinazione DSA n. 7/2019 è stata impugnata."),
    act("La delibera ANAC n. 1134/2017 detta le linee guida.",
        "urn:nir:autorita.nazionale.anticorruzione:delibera:2017;1134"),
    act("Si applica l'art. 5 del d.m. MIT n. 12/2019.", "urn:nir:ministero.infrastrutture.trasporti:decreto:2019;12", "5"),
    act("Si applica l'art. 5 del d.m. MAECI n. 12/2019.",
        "urn:nir:ministero.affari.esteri.cooperazione.internazionale:decreto:2019;12", "5"),
    never("Il regolamento IVASS n. 40/2018 disciplina la distribuzione assicurativa."),
    never("Il MEF ha chiarito la questione con la nota del 3 marzo."),
    never("L'AGCM e l'AGCOM hanno avviato un'indagine congiunta; la CONSOB e l'IVASS vigilano."),
]

# numbers with slashes and letters: read whole, as written, or not at all
NUMBERS = [
    gap("Si veda la circolare INPS n. 12/2019/DRE.", "12/2019/DRE"),
    gap("Si veda la circ. n. 40/2019/E.", "40/2019/E"),
    gap("La delibera AGCOM n. 173/07/CONS disciplina il regime.", "173/07/CONS"),
    gap("Con la delibera n. 173/07/CONS dell'AGCOM l'Autorità ha deciso.", "173/07/CONS"),
    gap("Si veda la circolare MEF n. 26/RGS del 2022.", "26/RGS"),
    gap("di cui all'articolo 42 dell'allegato A alla delibera dell'ARERA n. 231/2021/R/eel, del 1° giugno 2021, e il",
        "231/2021/R/eel", "42"),
    gap("di cui alla delibera dell'ARERA n. 274/2022/R/ gas, del 24 giugno 2022, e' adottata", "274/2022/R/ gas"),
    gap("la delibera ARERA del 1° giugno 2021, n. 231/2021/R/eel, ha fissato le tariffe", "231/2021/R/eel"),
    gap("Si applica la legge 7 agosto 1990, n. 241/90/A.", "241/90/A"),
    act("Si veda la circolare dell'Agenzia delle Entrate n. 25/E del 2021.", "urn:nir:agenzia.entrate:circolare:2021;25-e"),
    act("Si veda la circolare n. 40/E del 2019 dell'Agenzia delle Entrate.", "urn:nir:agenzia.entrate:circolare:2019;40-e"),
    act("Si applica l'art. 3 della legge n. 241/1990.", L241, "3"),
    act("Si applica la legge 7 agosto 1990, n. 241.", L241_DATE),
]

# "n" with and without its dot
N_MARKS = [
    act("Si applica l'art. 3 della legge n 241/1990.", L241, "3"),
    act("Si applica l'art. 3 della l. n 241 del 1990.", L241, "3"),
    act("Si applica l'art. 3 della legge n. 241 del 1990.", L241, "3"),
    act("Si applica l'art. 3 della legge 7 agosto 1990, n 241.", L241_DATE, "3"),
    act("Si applica l'art. 3 della L. n.241/1990.", L241, "3"),
    act("Si applica l'art. 3 del d.lgs. n 50 del 2016.", "urn:nir:stato:decreto.legislativo:2016;50", "3"),
    act("Il reg. ce n 44/2001 è stato rifuso.", "http://data.europa.eu/eli/reg/2001/44/oj"),
]

# lower and upper case of the same EU act
CASES = [
    act("Il Regolamento (UE) 2016/679 prevede obblighi di informazione.", GDPR),
    act("Il regolamento (ue) 2016/679 prevede obblighi di informazione.", GDPR),
    act("IL REGOLAMENTO (UE) 2016/679 PREVEDE OBBLIGHI.", GDPR),
    act("ai sensi del regolamento ue 2016/679, art. 6", GDPR, "6"),
    act("Il reg. UE n. 1215/2012 disciplina la competenza.", BRUX),
    act("Il reg. ue n. 1215/2012 disciplina la competenza.", BRUX),
    act("La direttiva (ue) 2019/1937 protegge chi segnala.", "http://data.europa.eu/eli/dir/2019/1937/oj"),
    act("La DIRETTIVA 2006/123/CE si applica ai servizi.", "http://data.europa.eu/eli/dir/2006/123/oj"),
    act("in contrasto con l'effetto utile della direttiva n. 2014/24/UE e in violazione", "http://data.europa.eu/eli/dir/2014/24/oj"),
    never("La decisione ce l'ha il giudice del merito."),
]

# a code's name, and the same name qualified into another act
CODES = [
    act("Si applica l'art. 52 c.p.", CP, "52"),
    gap("Si applica l'art. 52 del codice penale militare di pace.", "codice penale militare di pace", "52"),
    gap("Si applica l'art. 52 del codice penale militare di guerra.", "codice penale militare di guerra", "52"),
    act("Si applica l'art. 5 del codice di procedura civile.", CPC, "5"),
    act("Si applica l'art. 5 disp. att. c.p.c.", DISP_ATT_CPC, "5"),
    act("Si applica l'art. 5 delle disposizioni di attuazione del c.p.c.", DISP_ATT_CPC, "5"),
    gap("Si applica l'art. 5 delle norme di attuazione del c.p.c.", "norme di attuazione del c.p.c.", "5"),
    act("Si applica l'art. 186 del codice della strada.", CDS, "186"),
    gap("Si applica l'art. 2 del regolamento di esecuzione del codice della strada.",
        "regolamento di esecuzione del codice della strada", "2"),
    gap("Si applica l'art. 5 del regolamento di esecuzione e di attuazione del nuovo codice della strada.",
        "regolamento di esecuzione e di attuazione del nuovo codice della strada", "5"),
    gap("Si applica l'art. 5 reg. esec. c.d.s.", "reg. esec. c.d.s.", "5"),
    gap("Si applica l'art. 2 del regolamento di attuazione del codice dei contratti pubblici.",
        "regolamento di attuazione del codice dei contratti pubblici", "2"),
    act("Si applica l'art. 5 del codice dei contratti pubblici.", CONTRATTI, "5"),
    gap("Si applica l'art. 5 del codice dei contratti pubblici del 2016.", "codice dei contratti pubblici del 2016", "5"),
    gap("Si applica l'art. 142 del codice della strada del 1959.", "codice della strada del 1959", "142"),
    act("Si applica l'art. 2043 del codice civile del 1942.", CC, "2043"),
    gap("Si applica l'art. 1151 del codice civile del 1865.", "codice civile del 1865", "1151"),
    gap("Si applica l'art. 360 del codice di procedura penale del 1930.", "codice di procedura penale del 1930", "360"),
    act("Si applica l'art. 360 c.p.p.", CPP, "360"),
    gap("Si applica l'art. 1382 del codice civile francese.", "codice civile francese", "1382"),
]

LOOKALIKES = ACRONYMS + NUMBERS + N_MARKS + CASES + CODES
