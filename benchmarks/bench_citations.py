"""Citation extraction: throughput on 1 MB inputs, and how its time grows with the input's length.

Run: .venv/bin/python -m benchmarks citations [--linear-only]
The realistic input is built from the labelled table's sentences (synthetic concatenation); the
pathological ones (tests/adversarial_text.py) repeat shapes that would make a backtracking regex
explode. The linearity table times each shape at n and 8n characters (best of several runs,
garbage collector off): linear time is a ratio near 8, quadratic near 64. A ratio above
LINEAR_LIMIT fails the run (exit code 1). Wall-clock figures: other processes on the machine
move them; the ratio is what to read.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from it_eli.law.scanner.scan import extract_citations
from tests.adversarial_text import ADVERSARIAL, adversarial_text  # noqa: E402
from tests.citation_cases import CASES  # noqa: E402

MB = 1_000_000
LINEAR_N = 40_000  # characters of the small input; the large one is 8x
LINEAR_LIMIT = 24.0  # 8n / n time ratio: linear ~8x, quadratic ~64x; the rest is room for noise


def _fill(unit: str) -> str:
    return (unit * (MB // len(unit) + 1))[:MB]


def best_time(text: str, runs: int) -> float:
    """Fastest of `runs` extractions (a collection landing in one run would dwarf a few ms)."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(runs):
            t = time.perf_counter()
            extract_citations(text)
            best = min(best, time.perf_counter() - t)
    finally:
        gc.enable()
    return best


def throughput() -> None:
    prose = " ".join(c[1] for c in CASES) + " "
    inputs = {"table prose (synthetic)": _fill(prose)}
    inputs.update({name: adversarial_text(name, MB) for name in ADVERSARIAL})
    print("throughput on 1 MB inputs")
    for name, text in inputs.items():
        t0 = time.perf_counter()
        out = extract_citations(text)
        dt = time.perf_counter() - t0
        print(f"  {name:34s} {len(text)/MB:5.2f} MB  {dt*1000:8.1f} ms  {len(text)/MB/dt:7.2f} MB/s  {len(out):7d} citations")


def linearity(n: int = LINEAR_N) -> bool:
    """Print the 8n / n time ratio per shape; True when every ratio is under LINEAR_LIMIT."""
    print(f"\nlinearity: time at {8 * n:,} chars / time at {n:,} chars (linear ~8, quadratic ~64; "
          f"limit {LINEAR_LIMIT:.0f})")
    ok = True
    for name in ADVERSARIAL:
        small, big = adversarial_text(name, n), adversarial_text(name, 8 * n)
        best_time(small, 1)  # warm up the regex caches
        t_small = max(best_time(small, 5), 1e-4)
        t_big = best_time(big, 2)
        ratio = t_big / t_small
        good = ratio < LINEAR_LIMIT
        ok &= good
        print(f"  {'ok  ' if good else 'SLOW'} {name:34s} {t_small*1000:8.2f} ms -> {t_big*1000:8.2f} ms  x{ratio:5.1f}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks citations", description=__doc__.splitlines()[0])
    ap.add_argument("--linear-only", action="store_true", help="only the n vs 8n table")
    args = ap.parse_args(argv or [])
    if not args.linear_only:
        throughput()
    return 0 if linearity() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
