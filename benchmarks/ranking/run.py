"""Issue 6: ranking quality of it_eli against its own ablations and the baselines a user would pick.

    python -m benchmarks ranking [--small] [--only NAME,...] [--cap N] [--json OUT] [--check]

Prints nDCG@10 / MRR@10 / Recall@100 / zero-result share for every setup on every collection
(benchmarks/ranking/data.py says how each collection is built), then the acceptance targets.
`--small` is the CI-fast subset (a few acts + the casehold decisions) that
tests/test_ranking_regression.py checks against expected.json; `--check` does the same here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .data import KNOWN_ITEM_CAP, load_collections, testdata_dir
from .metrics import evaluate
from .systems import all_systems

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected.json"
TARGETS = {"vs_fts5": 1.20, "vs_bm25s": 1.05}  # it_eli nDCG@10 over the baselines'


def run(*, small: bool = False, only: list[str] | None = None, cap: int | None = KNOWN_ITEM_CAP,
        log=lambda m: None) -> dict:
    """{collection: {"note", "docs", "setups": {setup: metrics + seconds}}}."""
    cols = load_collections(testdata_dir(), small=small, cap=cap)
    systems = [s for s in all_systems() if not only or s.name in only]
    out: dict = {}
    for col in cols:
        if not col.queries:
            log(f"{col.name}: no queries, skipped")
            continue
        out[col.name] = {"note": col.note, "docs": len(col.docs), "queries": len(col.queries), "setups": {}}
        for sysm in systems:
            t0 = time.perf_counter()
            sysm.index(col)
            t1 = time.perf_counter()
            runs = {qid: sysm.search(q) for qid, q in col.queries.items()}
            t2 = time.perf_counter()
            m = evaluate(runs, col.qrels)
            m["index_s"], m["query_ms"] = round(t1 - t0, 2), round(1000 * (t2 - t1) / max(1, len(runs)), 2)
            out[col.name]["setups"][sysm.name] = m
            log(f"{col.name:22} {sysm.name:12} nDCG@10 {m['ndcg@10']:.3f}  ({t1 - t0:.1f}s index, {m['query_ms']} ms/q)")
            sysm._state = {}
    return out


def table(results: dict) -> str:
    lines = []
    for cname, c in results.items():
        lines.append(f"\n{cname}: {c['queries']} queries, {c['docs']} documents — {c['note']}")
        lines.append(f"  {'setup':12} {'nDCG@10':>8} {'MRR@10':>8} {'R@100':>8} {'zero':>7} {'ms/q':>7}")
        for sname, m in c["setups"].items():
            lines.append(
                f"  {sname:12} {m['ndcg@10']:8.3f} {m['mrr@10']:8.3f} {m['recall@100']:8.3f} "
                f"{100 * m['zero']:6.1f}% {m['query_ms']:7.2f}"
            )
    return "\n".join(lines)


def targets(results: dict) -> tuple[bool, list[str]]:
    """it_eli ahead of every baseline everywhere; the issue's nDCG targets; fewer zero-result queries."""
    ok, lines = True, []
    for cname, c in results.items():
        s = c["setups"]
        if "it_eli" not in s:
            continue
        me = s["it_eli"]
        for base, factor in (("fts5", TARGETS["vs_fts5"]), ("bm25s", TARGETS["vs_bm25s"])):
            if base not in s:
                continue
            b = s[base]
            ratio = me["ndcg@10"] / b["ndcg@10"] if b["ndcg@10"] else float("inf")
            good = ratio >= factor and me["zero"] <= b["zero"] and (me["zero"] < b["zero"] or b["zero"] == 0)
            ok &= good
            lines.append(
                f"  {'PASS' if good else 'MISS'} {cname:22} it_eli/{base:6} nDCG x{ratio:.2f} (target x{factor:.2f}); "
                f"zero {100 * me['zero']:.1f}% vs {100 * b['zero']:.1f}%"
            )
        for base in ("fts5-or",):
            if base in s:
                good = me["ndcg@10"] > s[base]["ndcg@10"]
                ok &= good
                lines.append(f"  {'PASS' if good else 'MISS'} {cname:22} it_eli ahead of {base}: "
                             f"{me['ndcg@10']:.3f} vs {s[base]['ndcg@10']:.3f}")
    return ok, lines


def check(results: dict, expected: dict) -> list[str]:
    """Failures: a setup's figure below its expected value minus the tolerance."""
    tol = expected.get("tolerance", 0.02)
    fails = []
    for cname, setups in expected.get("small", {}).items():
        for sname, figures in setups.items():
            got = results.get(cname, {}).get("setups", {}).get(sname)
            if got is None:
                fails.append(f"{cname}/{sname}: not run")
                continue
            for metric, value in figures.items():
                if metric == "zero":
                    if got[metric] > value + tol:
                        fails.append(f"{cname}/{sname} {metric}: {got[metric]:.3f} > {value:.3f} + {tol}")
                elif got[metric] < value - tol:
                    fails.append(f"{cname}/{sname} {metric}: {got[metric]:.3f} < {value:.3f} - {tol}")
    return fails


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks ranking", description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", action="store_true", help="CI-fast subset (a few acts + casehold)")
    ap.add_argument("--only", help="comma-separated setup names")
    ap.add_argument("--cap", type=int, default=KNOWN_ITEM_CAP, help="known-item queries sampled (0 = all)")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--check", action="store_true", help="compare it_eli with expected.json (implies --small)")
    args = ap.parse_args(argv)
    if not (testdata_dir() / "normattiva-akn").is_dir():
        print(f"no test data at {testdata_dir()} (set IT_ELI_TESTDATA)", file=sys.stderr)
        return 2
    small = args.small or args.check
    t0 = time.perf_counter()
    results = run(small=small, only=args.only.split(",") if args.only else None, cap=args.cap or None,
                  log=lambda m: print(m, file=sys.stderr, flush=True))
    print(table(results))
    ok, lines = targets(results)
    print("\ntargets:" + ("" if lines else " (it_eli or the baselines not run)"))
    print("\n".join(lines))
    print(f"\n{time.perf_counter() - t0:.0f}s, {'small' if small else 'full'} collections")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    if args.check:
        fails = check(results, json.loads(EXPECTED.read_text(encoding="utf-8")))
        print("check: " + ("OK" if not fails else "FAILED\n  " + "\n  ".join(fails)))
        return 1 if fails else 0
    return 0
