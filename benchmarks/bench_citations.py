"""Throughput of extract_citations on 1 MB inputs: realistic prose and pathological patterns.

Run: .venv/bin/python -m benchmarks citations
The realistic input is built from the labelled table's sentences (synthetic concatenation);
the pathological ones repeat shapes that would make a backtracking regex explode.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from it_eli.law.scanner import extract_citations  # noqa: E402
from tests.citation_cases import CASES  # noqa: E402

MB = 1_000_000


def _fill(unit: str) -> str:
    return (unit * (MB // len(unit) + 1))[:MB]


def main(argv: list[str] | None = None) -> int:
    prose = " ".join(c[1] for c in CASES) + " "
    inputs = {
        "table prose (synthetic)": _fill(prose),
        "art. art. art.": _fill("art. "),
        "artt. 1, 2, 3 ...": _fill("artt. 1, 2, 3, 4, 5, 6, 7, 8, 9 e 10 c.p.; "),
        "long digit run": "art. " + "7" * (MB - 5),
        "((((": _fill("(((("),
        "legge n. legge n.": _fill("legge n. "),
        "Cass., sez. Cass., sez.": _fill("Cass., sez. III, "),
        "comma prefixes": _fill("il secondo comma dell'art. 5, comma 2, lett. a), n. 3) "),
        "no anchors (plain Italian)": _fill("Il giudice ha rigettato la domanda proposta dal ricorrente. "),
    }
    for name, text in inputs.items():
        t0 = time.perf_counter()
        out = extract_citations(text)
        dt = time.perf_counter() - t0
        print(f"{name:32s} {len(text)/MB:5.2f} MB  {dt*1000:8.1f} ms  {len(text)/MB/dt:7.2f} MB/s  {len(out):7d} citations")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
