"""Labelled table: what a text says of a Constitutional Court decision, against the record.

Built from the 12 real records of ../shared/data/cortecost (ECLI:IT:COST:2001:1..12), written as
lawyers write these sentences (the Court's formula, a paraphrase, the outcome before or after the
citation, negations, lists). Each case: id, text, the number of the 2001 decision it is about, the
expected verdict of each claim kind the text makes (type / date / outcome / provision:
"fits", "contradicted", "not_checkable"), and the citation's expected status.

What the records decided (dispositivo), for whoever extends the table:
  1 manifesta infondatezza, art. 6, c. 5, d.l. 453/1993        7 manifesta infondatezza, artt. 11 e 12 d.l. 69/1989
  2 manifesta inammissibilità and manifesta infondatezza,       8 restituzione degli atti (art. 89 d.lgs. 77/1995)
    art. 68 d.lgs. 29/1993                                      9 conflitto tra poteri dichiarato ammissibile
  3 manifesta infondatezza, art. 8 d.l. 384/1992               10 conflitto tra poteri dichiarato ammissibile
  4 manifesta infondatezza, art. 2052 c.c.                     11 manifesta inammissibilità, artt. 10 e 147 r.d. 267/1942
  5 restituzione degli atti (art. 5 d.lgs. 504/1992)           12 restituzione degli atti (art. 34 d.lgs. 80/1998)
  6 manifesta inammissibilità, art. 1, c. 2, l. 75/1993
All 12 are ordinanze, decided 2000-12-15 (n. 12: 2001-01-05), deposited 2001-01-04 (n. 12: 2001-01-23).
"""

from __future__ import annotations

F, C, U = "fits", "contradicted", "not_checkable"
V, CM, CU = "verified", "content_mismatch", "content_unconfirmed"

# (id, text, number/2001, {claim kind: [verdicts in order]}, expected status)
CASES: list[tuple[str, str, int, dict[str, list[str]], str]] = [
    # ------------------------------------------------ true claims: must fit
    ("t-4-formula", ("La Corte costituzionale, con ordinanza n. 4 del 2001, ha dichiarato manifestamente infondata la "
     "questione di legittimità costituzionale dell'art. 2052 c.c."), 4, {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-4-plain", "Corte cost., ord. n. 4/2001, ha ritenuto infondata la questione sull'art. 2052 del codice civile.", 4,
     {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-4-noun", ("Con l'ordinanza n. 4 del 2001 la Corte costituzionale ha dichiarato la manifesta infondatezza della "
     "questione sollevata dal giudice di pace di Ceva."), 4, {"type": [F], "outcome": [F]}, V),
    ("t-4-negated", "La Corte costituzionale, con l'ord. n. 4 del 2001, non ha dichiarato l'illegittimità dell'art. 2052 c.c.",
     4, {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-3-excluded", ("Con l'ordinanza n. 3 del 2001 la Corte costituzionale ha escluso l'illegittimità costituzionale "
     "dell'art. 8 del d.l. n. 384 del 1992."), 3, {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-1-consulta", ("Con l'ordinanza n. 1 del 2001 la Consulta ha dichiarato la manifesta infondatezza della questione "
     "relativa all'art. 6, comma 5, del d.l. 15 novembre 1993, n. 453."), 1, {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-6-before", "La questione è stata dichiarata manifestamente inammissibile (Corte cost., ord. n. 6 del 2001).", 6,
     {"type": [F], "outcome": [F]}, V),
    ("t-6-rigettata", ("La Corte cost., ord. n. 6 del 2001, ha rigettato la questione sollevata dalla Commissione "
     "tributaria regionale di Venezia."), 6, {"type": [F], "outcome": [F]}, V),
    ("t-11-lfall", "Corte cost., ord. n. 11/2001: manifestamente inammissibile la questione sugli artt. 10 e 147 l. fall.",
     11, {"type": [F], "outcome": [F], "provision": [F, F]}, V),
    ("t-11-inamm", ("Con ord. n. 11 del 2001 la Corte costituzionale ha dichiarato inammissibile la questione sulla legge "
     "fallimentare."), 11, {"type": [F], "outcome": [F]}, V),
    ("t-12-restituito", "Con ordinanza n. 12 del 2001 la Corte costituzionale ha restituito gli atti al tribunale di Trapani.",
     12, {"type": [F], "outcome": [F]}, V),
    ("t-8-ordinato", ("La Corte cost., ord. n. 8/2001, ha ordinato la restituzione degli atti al giudice rimettente per "
     "un nuovo esame della rilevanza."), 8, {"type": [F], "outcome": [F]}, V),
    ("t-5-biella", ("Corte cost., ord. n. 5 del 2001, ha disposto la restituzione degli atti alla Commissione tributaria "
     "provinciale di Biella."), 5, {"type": [F], "outcome": [F]}, V),
    ("t-9-conflitto", ("Con ord. n. 9 del 2001 la Corte costituzionale ha dichiarato ammissibile il conflitto di "
     "attribuzione proposto dalla Corte d'appello di Roma."), 9, {"type": [F], "outcome": [F]}, V),
    ("t-10-conflitto", ("La Corte costituzionale, con l'ordinanza n. 10 del 2001, ha dichiarato ammissibile il conflitto "
     "tra poteri dello Stato."), 10, {"type": [F], "outcome": [F]}, V),
    ("t-2-both", ("Corte cost., ord. n. 2 del 2001, ha dichiarato in parte manifestamente inammissibile e in parte "
     "manifestamente infondata la questione sull'art. 68 del d.lgs. n. 29 del 1993."), 2,
     {"type": [F], "outcome": [F, F], "provision": [F]}, V),
    ("t-7-after", ("Corte cost., ord. n. 7 del 2001: la questione sugli artt. 11 e 12 del d.l. 2 marzo 1989, n. 69 è "
     "manifestamente infondata."), 7, {"type": [F], "outcome": [F], "provision": [F, F]}, V),
    ("t-7-param", ("Con l'ordinanza n. 7 del 2001 la Corte costituzionale ha dichiarato manifestamente infondata la "
     "questione sollevata in riferimento all'art. 53 Cost."), 7, {"type": [F], "outcome": [F], "provision": [F]}, V),
    ("t-5-date", "Corte cost., ord. 4 gennaio 2001, n. 5, ha ordinato la restituzione degli atti.", 5,
     {"type": [F], "date": [F], "outcome": [F]}, V),
    ("t-12-ecli", "L'ordinanza ECLI:IT:COST:2001:12 ha restituito gli atti al giudice a quo.", 12, {"outcome": [F]}, V),
    # ------------------------------------------------ wrong claims: must be contradicted (never a pass)
    ("w-5-issue", ("La Corte costituzionale, con ordinanza n. 5 del 2001, ha dichiarato l'illegittimità costituzionale "
     "dell'art. 2052 c.c."), 5, {"type": [F], "outcome": [C], "provision": [C]}, CM),
    ("w-4-sentenza", "La Corte cost., con sentenza n. 4 del 2001, ha dichiarato illegittimo l'art. 2052 c.c.", 4,
     {"type": [C], "outcome": [C], "provision": [F]}, CM),
    ("w-1-inamm", ("Con l'ordinanza n. 1 del 2001 la Corte costituzionale ha dichiarato inammissibile la questione "
     "sollevata dalla Corte dei conti."), 1, {"type": [F], "outcome": [C]}, CM),
    ("w-6-nonfondata", ("Corte cost., ord. n. 6/2001, ha dichiarato non fondata la questione sull'art. 1, comma 2, della "
     "legge 24 marzo 1993, n. 75."), 6, {"type": [F], "outcome": [C], "provision": [F]}, CM),
    ("w-12-infondata", "Corte cost., ord. n. 12 del 2001, ha dichiarato manifestamente infondata la questione.", 12,
     {"type": [F], "outcome": [C]}, CM),
    ("w-9-inamm", "Corte cost., ord. n. 9 del 2001, ha dichiarato inammissibile il conflitto di attribuzione.", 9,
     {"type": [F], "outcome": [C]}, CM),
    ("w-8-illeg", ("La Corte costituzionale (ord. n. 8 del 2001) ha dichiarato l'illegittimità costituzionale "
     "dell'art. 89 del d.lgs. 25 febbraio 1995, n. 77."), 8, {"type": [F], "outcome": [C], "provision": [F]}, CM),
    ("w-3-provision", ("Con l'ord. n. 3 del 2001 la Corte costituzionale ha dichiarato manifestamente infondata la "
     "questione relativa all'art. 2043 c.c."), 3, {"type": [F], "outcome": [F], "provision": [C]}, CM),
    ("w-11-estinto", "Corte cost., ord. n. 11 del 2001, ha dichiarato estinto il processo.", 11,
     {"type": [F], "outcome": [C]}, CM),
    ("w-7-cessata", "Con ord. n. 7/2001 la Corte costituzionale ha dichiarato cessata la materia del contendere.", 7,
     {"type": [F], "outcome": [C]}, CM),
    ("w-4-incost", "Corte cost., ord. n. 4 del 2001, ha dichiarato incostituzionale l'art. 2052 c.c.", 4,
     {"type": [F], "outcome": [C], "provision": [F]}, CM),
    ("w-4-before", "L'art. 2052 c.c. è stato dichiarato costituzionalmente illegittimo da Corte cost., ord. n. 4 del 2001.",
     4, {"type": [F], "outcome": [C], "provision": [F]}, CM),
    ("w-2-accolto", ("Con l'ordinanza n. 2 del 2001 la Corte costituzionale ha accolto la questione sull'art. 68 del "
     "d.lgs. n. 29 del 1993."), 2, {"type": [F], "outcome": [C], "provision": [F]}, CM),
    ("w-5-respinto", "La Corte cost., ord. n. 5 del 2001, ha respinto la questione sull'IMU comunale.", 5,
     {"type": [F], "outcome": [C]}, CM),
    ("w-10-manif-inamm", "Corte cost., ord. n. 10 del 2001, ha dichiarato manifestamente inammissibile il conflitto.", 10,
     {"type": [F], "outcome": [C]}, CM),
    ("w-5-date", "Corte cost., ord. 10 gennaio 2001, n. 5, ha ordinato la restituzione degli atti.", 5,
     {"type": [F], "date": [C], "outcome": [F]}, CM),
    ("w-7-ecli", ("Il precedente (ECLI:IT:COST:2001:7) ha dichiarato l'illegittimità degli artt. 11 e 12 del d.l. "
     "2 marzo 1989, n. 69."), 7, {"outcome": [C], "provision": [F, F]}, CM),
    ("w-1-negated", ("La Corte costituzionale, con l'ord. n. 1 del 2001, non ha dichiarato la manifesta infondatezza "
     "della questione."), 1, {"type": [F], "outcome": [C]}, CM),
    # ------------------------------------------------ no outcome claimed: the decision only exists
    ("n-4-see", "Si veda, sulla responsabilità per i danni cagionati da animali, Corte cost., ord. n. 4 del 2001.", 4,
     {"type": [F]}, V),
    ("n-12-riproposta", "Il giudice a quo, dopo Corte cost., ord. n. 12/2001, ha riproposto la questione.", 12,
     {"type": [F]}, V),
    ("n-6-conforme", "In senso conforme, Corte cost., ord. n. 6 del 2001.", 6, {"type": [F]}, V),
    ("n-9-pronunciata", ("La Corte costituzionale, con l'ordinanza n. 9 del 2001, si è pronunciata sul conflitto "
     "sollevato dalla Corte d'appello di Roma."), 9, {"type": [F]}, V),
    ("n-1-tema", "Corte cost., ord. n. 1/2001, in tema di giurisdizione della Corte dei conti.", 1, {"type": [F]}, V),
    ("n-3-nonumber", "Corte cost. n. 3/2001 ha esaminato il trattamento fiscale delle pensioni.", 3, {}, V),
    ("n-5-raised", ("La questione di illegittimità costituzionale decisa da Corte cost., ord. n. 5 del 2001 riguardava "
     "l'ICI."), 5, {"type": [F]}, V),
]


async def verdicts_of(app, cases=CASES) -> list[tuple[str, str, str, str | None, str, str]]:
    """Verify each case offline: rows (case id, claim kind, expected verdict, verdict given or None,
    expected status, status given). Shared by the test and `python -m benchmarks verify`."""
    from it_eli.services.verification.verifier import verify_text

    rows = []
    for cid, text, _n, want, status in cases:
        res = await verify_text(app, text, offline=True)
        decisions = [c for c in res.citations if c.kind != "statute"]
        got_status = decisions[0].status if decisions else "missing"
        got: dict[str, list[str]] = {}
        for k in decisions[0].claims if decisions else []:
            got.setdefault(k.claim, []).append(k.verdict)
        for kind in sorted(set(want) | set(got)):
            w, g = want.get(kind, []), got.get(kind, [])
            for i in range(max(len(w), len(g))):
                rows.append((cid, kind, w[i] if i < len(w) else "absent", g[i] if i < len(g) else None, status, got_status))
    return rows


def contradicted_scores(rows) -> dict[str, float | int]:
    """Precision and recall of "contradicted" over every labelled claim, and the count that
    must stay zero: a claim labelled contradicted given as a fit."""
    tp = sum(1 for r in rows if r[2] == "contradicted" and r[3] == "contradicted")
    fp = sum(1 for r in rows if r[2] != "contradicted" and r[3] == "contradicted")
    fn = sum(1 for r in rows if r[2] == "contradicted" and r[3] != "contradicted")
    return {"claims": len(rows), "contradicted": tp + fn, "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "wrong_called_fit": sum(1 for r in rows if r[2] == "contradicted" and r[3] == "fits"),
            "true_fits": sum(1 for r in rows if r[2] == "fits" and r[3] == "fits"),
            "true_total": sum(1 for r in rows if r[2] == "fits")}
