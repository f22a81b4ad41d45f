"""The courts a citation may name: their codes and names (the Italian courts it_eli checks, and those
it cannot: CGUE, CEDU, the ordinary and tax courts), and the code of the anchor that names one. Apart
because the trigger, the case reader and the verifier all speak of courts by these codes."""

from __future__ import annotations

import re

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
# courts cited with their seat: "Trib. Milano", "Corte d'appello di Napoli"
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
