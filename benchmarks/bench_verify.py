"""Citation verification on the labelled table tests/verify_cases.py, OFFLINE, on the real data.

Prints extraction precision/recall (expected vs extracted citations) and per-citation
verification accuracy, plus the two safety counts the gate lives by: non-existent articles
reported as anything but not_found, and acts missing from the corpus reported as not_found.

Run: .venv/bin/python -m benchmarks verify [--testdata DIR] [--keep-home DIR] [--show-errors]
The statute exports and the Constitutional Court sample are imported into a throwaway
IT_ELI_HOME (or --keep-home, reused when it already holds them). Upstream URLs point at a
closed local port, so nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from it_eli.runtime.config import load_settings  # noqa: E402
from tests.citation_match import key_of, match  # noqa: E402
from tests.offline_home import offline_env, prepare_home  # noqa: E402


async def run_table(app, cases, *, offline: bool = True, map_status=None):
    """Verify every case; returns rows (case id, expected dict|None, got status|None, CheckedCitation|None)."""
    from it_eli.law.scanner.scan import extract_citations
    from it_eli.services.verification.verifier import verify_text

    rows, tp, fn, fp, overall = [], 0, 0, 0, []
    for cid, text, expected in cases:
        res = await verify_text(app, text, offline=offline)
        extracted = extract_citations(text)
        pairs, missed, spurious = match(expected, extracted)
        tp += len(pairs)
        fn += missed
        fp += spurious
        got_by_index = {i: res.citations[i] for i in range(len(res.citations))}
        matched = {i for _, i in pairs}
        for e, i in pairs:
            want = map_status(e["status"]) if map_status else e["status"]
            rows.append((cid, e, want, got_by_index[i]))
        for e in expected:
            if not any(e is p for p, _ in pairs):
                rows.append((cid, e, e["status"], None))
        for i, c in got_by_index.items():
            if i not in matched:
                rows.append((cid, None, None, c))
        overall.append((cid, expected, res))
    return rows, tp, fn, fp, overall


def report(rows, tp, fn, fp, overall) -> dict:
    from it_eli.services.verification.report import GAP_KINDS

    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    judged = [(e, want, got) for _, e, want, got in rows if e is not None and got is not None]
    correct = sum(1 for e, want, got in judged if got.status == want)
    nf_expected = [(e, got) for _, e, want, got in rows if e is not None and want == "not_found"]
    nf_wrong = [(e, got) for e, got in nf_expected if got is None or got.status != "not_found"]
    gap_expected = [(e, got) for _, e, want, got in rows if e is not None and want in ("act_not_in_corpus", "upstream_unavailable")]
    missing_as_nf = [(e, got) for e, got in gap_expected if got is not None and got.status == "not_found"]
    verified_with_gaps = [cid for cid, _, res in overall if res.status == "VERIFIED" and any(
        c.status in GAP_KINDS for c in res.citations)]
    by_status = Counter(want for _, e, want, got in rows if e is not None)
    return {
        "cases": len(overall), "expected_citations": tp + fn, "extracted": tp + fp,
        "extraction_precision": round(p, 4), "extraction_recall": round(r, 4),
        "verification_accuracy": round(correct / len(judged), 4) if judged else 0.0, "judged": len(judged),
        "nonexistent_not_reported_not_found": len(nf_wrong), "nonexistent_total": len(nf_expected),
        "missing_act_reported_not_found": len(missing_as_nf), "missing_act_total": len(gap_expected),
        "overall_verified_despite_gaps": len(verified_with_gaps), "expected_by_status": dict(by_status),
    }


async def _held_out(settings) -> tuple[int, int, int]:
    """Agreement with the extraction table's own status labels (not written with the verifier)."""
    from it_eli.services.app import App
    from it_eli.law.scanner.scan import extract_citations
    from it_eli.services.verification.verifier import verify_text
    from it_eli.services.verification.report import GAP_KINDS
    from tests.citation_cases import CASES as EXTRACTION_CASES

    def cls(s):
        return "gap" if s in GAP_KINDS else "exists" if s in ("verified", "repealed", "content_mismatch") else s

    app = App(settings)
    n = exact = same = 0
    try:
        for _cid, text, expected, _core in EXTRACTION_CASES:
            labelled = [dict(e, status=e["expected_status"]) for e in expected
                        if e["kind"] == "statute" and e.get("expected_status")]
            if not labelled:
                continue
            res = await verify_text(app, text, offline=True)
            pairs, _, _ = match(labelled, extract_citations(text))
            for e, i in pairs:
                got = res.citations[i].status
                want = e["status"]
                n += 1
                exact += got == want
                same += cls(got) == cls(want) or (want == "verified" and got == "comma_not_checkable")
    finally:
        await app.close()
    return n, exact, same


async def _claims(settings) -> dict:
    """What texts say of Constitutional Court decisions, against the records (tests/decision_claim_cases.py)."""
    from it_eli.services.app import App
    from tests.decision_claim_cases import contradicted_scores, verdicts_of

    app = App(settings)
    try:
        return contradicted_scores(await verdicts_of(app))
    finally:
        await app.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks verify", description=__doc__.splitlines()[0])
    ap.add_argument("--testdata", default=None, help="shared data dir (default ../shared/data)")
    ap.add_argument("--keep-home", default=None, help="IT_ELI_HOME to (re)use instead of a temp dir")
    ap.add_argument("--online-closed", action="store_true",
                    help="offline=false with upstreams on a closed port (gaps become upstream_unavailable)")
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args(argv or [])
    from it_eli.services.app import App
    from tests.conftest import testdata_dir
    from tests.verify_cases import CASES

    testdata = Path(args.testdata) if args.testdata else testdata_dir()
    if not testdata.is_dir():
        print(f"test data not found at {testdata}", file=sys.stderr)
        return 2
    tmp = None
    if args.keep_home:
        home = Path(args.keep_home)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="it_eli_bench_verify_")
        home = Path(tmp.name)
    settings = load_settings(offline_env(home))
    t0 = time.perf_counter()
    prepare_home(settings, testdata)
    t_import = time.perf_counter() - t0

    async def go():
        app = App(settings)
        try:
            mapper = (lambda s: "upstream_unavailable" if s == "act_not_in_corpus" else s) if args.online_closed else None
            return await run_table(app, CASES, offline=not args.online_closed, map_status=mapper)
        finally:
            await app.close()

    t1 = time.perf_counter()
    rows, tp, fn, fp, overall = asyncio.run(go())
    t_run = time.perf_counter() - t1
    rep = report(rows, tp, fn, fp, overall)
    mode = "offline=false, upstream on a closed port" if args.online_closed else "offline=true"
    print(f"verification benchmark ({mode}); table: tests/verify_cases.py; data: {testdata}")
    print(f"  import + COST index build: {t_import:.1f}s; {rep['cases']} cases verified in {t_run:.1f}s")
    print(f"  extraction: precision {rep['extraction_precision']:.4f}, recall {rep['extraction_recall']:.4f} "
          f"({rep['expected_citations']} expected, {rep['extracted']} extracted)")
    print(f"  verification accuracy (matched citations): {rep['verification_accuracy']:.4f} over {rep['judged']}")
    print(f"  non-existent articles/decisions not reported not_found: {rep['nonexistent_not_reported_not_found']} "
          f"of {rep['nonexistent_total']}")
    print(f"  acts missing from the corpus reported not_found: {rep['missing_act_reported_not_found']} "
          f"of {rep['missing_act_total']}")
    print(f"  texts reported VERIFIED although a citation is a gap: {rep['overall_verified_despite_gaps']}")
    print(f"  expected statuses: {rep['expected_by_status']}")
    if args.show_errors:
        for cid, e, want, got in rows:
            if e is None:
                print(f"  SPURIOUS {cid}: {got.raw!r} -> {got.status}")
            elif got is None:
                print(f"  MISSED   {cid}: {key_of(e)}")
            elif got.status != want:
                print(f"  WRONG    {cid}: {key_of(e)} want {want} got {got.status}: {got.detail[:120]}")
    held = asyncio.run(_held_out(settings))
    print(f"  held-out (tests/citation_cases.py expected_status, written for extraction): {held[1]}/{held[0]} exact, "
          f"{held[2]}/{held[0]} same verdict class (verified / not_found / gap)")
    cl = asyncio.run(_claims(settings))
    print(f"  decision claims (tests/decision_claim_cases.py, {cl['claims']} claims, {cl['contradicted']} contradicted): "
          f"'contradicted' precision {cl['precision']:.4f}, recall {cl['recall']:.4f}; wrong claims called a fit "
          f"{cl['wrong_called_fit']}; true claims that fit {cl['true_fits']}/{cl['true_total']}")
    if tmp is not None:
        tmp.cleanup()
    ok = (rep["extraction_precision"] >= 0.97 and rep["extraction_recall"] >= 0.97
          and rep["nonexistent_not_reported_not_found"] == 0 and rep["missing_act_reported_not_found"] == 0
          and rep["overall_verified_despite_gaps"] == 0 and cl["wrong_called_fit"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
