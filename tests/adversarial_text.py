"""Texts shaped to make a backtracking citation scanner explode: one unit repeated (after an
optional prefix) to any length. Shared by the hostile-input tests, which run the extractor on
them under a hang guard, and `python -m benchmarks citations`, which prints how its time grows
with their length (benchmarks import tests' helpers, never the reverse)."""

from __future__ import annotations

# name -> (prefix, repeated unit)
ADVERSARIAL: dict[str, tuple[str, str]] = {
    "art. art. art.": ("", "art. "),
    "art. 1, art. 1, ...": ("", "art. 1, "),
    "artt. 1, 2, 3 ...": ("", "artt. 1, 2, 3, 4, 5, 6, 7, 8, 9 e 10 c.p.; "),
    "long digit run": ("art. ", "7"),
    "((((": ("", "(((("),
    "art. 5 ((": ("", "art. 5 (("),
    "legge n. legge n.": ("", "legge n. "),
    "l. n. 1/2000 ... medesimo decreto": ("", "l. n. 1/2000, art. 3 del medesimo decreto; "),
    "Cass., sez. Cass., sez.": ("", "Cass., sez. III, "),
    "commi 1 e 2": ("", "commi 1 e 2 "),
    "comma prefixes": ("", "il secondo comma dell'art. 5, comma 2, lett. a), n. 3) "),
    "ECLI ECLI": ("", "ECLI:IT:COST:2014:238 "),
    "no anchors (plain Italian)": ("", "Il giudice ha rigettato la domanda proposta dal ricorrente. "),
}


def adversarial_text(name: str, size: int) -> str:
    """`size` characters of the named shape."""
    prefix, unit = ADVERSARIAL[name]
    return (prefix + unit * (size // len(unit) + 1))[:size]
