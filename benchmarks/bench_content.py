"""Content check on the labelled (citation, description) table: precision and recall of
`content_mismatch`, offline, against every Normattiva export imported into a throwaway home.

    python -m benchmarks content [--show-errors]

The table is tests/content_cases.py (right and wrong descriptions, paraphrases, antonyms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.offline_home import offline_env, prepare_home  # noqa: E402
from it_eli.runtime.config import load_settings  # noqa: E402


async def _run(settings, cases) -> list[tuple[str, bool, str, str, str]]:
    from it_eli.services.app import App
    from it_eli.services.verification.verifier import verify_text

    app = App(settings)
    out = []
    try:
        for text, mismatch, kind in cases:
            r = await verify_text(app, text)
            c = r.citations[0] if r.citations else None
            out.append((text, mismatch, kind, c.status if c else "none", c.detail if c else ""))
    finally:
        await app.close()
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks content")
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args(argv)
    from tests.content_cases import CASES

    testdata = Path(os.environ.get("IT_ELI_TESTDATA") or Path(__file__).resolve().parent.parent.parent / "shared" / "data")
    with tempfile.TemporaryDirectory(prefix="it-eli-content-") as tmp:
        settings = load_settings(offline_env(Path(tmp)))
        prepare_home(settings, testdata)
        t0 = time.perf_counter()
        rows = asyncio.run(_run(settings, CASES))
        took = time.perf_counter() - t0
    tp = sum(1 for _, m, _, s, _ in rows if m and s == "content_mismatch")
    fp = sum(1 for _, m, _, s, _ in rows if not m and s == "content_mismatch")
    fn = sum(1 for _, m, _, s, _ in rows if m and s != "content_mismatch")
    by_kind = Counter()
    ok_kind = Counter()
    for _, m, k, s, _ in rows:
        by_kind[k] += 1
        ok_kind[k] += (s == "content_mismatch") == m
    statuses = Counter(s for *_, s, _ in rows)
    print(f"cases: {len(rows)}  (mismatch labelled: {sum(1 for r in rows if r[1])})")
    print(f"content_mismatch: TP={tp} FP={fp} FN={fn}  precision={tp / max(1, tp + fp):.3f}  recall={tp / max(1, tp + fn):.3f}")
    print("per kind (correct/total): " + ", ".join(f"{k} {ok_kind[k]}/{n}" for k, n in sorted(by_kind.items())))
    print("statuses: " + ", ".join(f"{k} {v}" for k, v in statuses.most_common()))
    print(f"time: {took:.1f} s for {len(rows)} checks (machine shared with other jobs)")
    if args.show_errors:
        for text, m, k, s, d in rows:
            if (s == "content_mismatch") != m:
                print(f"  [{k}] expected {'mismatch' if m else 'no mismatch'}, got {s}: {text}\n      {d[:240]}")
    return 0
