"""Benchmarks (not tests): `python -m benchmarks list`, `python -m benchmarks <name> [options]`.

Each benchmark is a module with `main(argv: list[str]) -> int`. To add one, add a line to
REGISTRY: name -> (module, one-line description). Work files go to benchmarks/.work/ (gitignored);
results are recorded by hand in benchmarks/RESULTS.md.
"""

from __future__ import annotations

from pathlib import Path

WORK_DIR = Path(__file__).resolve().parent / ".work"

REGISTRY: dict[str, tuple[str, str]] = {
    "load": (
        "benchmarks.load_test",
        "Load and soak: 50 MCP clients over HTTP + 20-at-once over stdio, latency, RSS, audit completeness (issue 7)",
    ),
    "heavy": (
        "benchmarks.bench_heavy_calls",
        "Light calls while heavy ones run: it_case_stats latency during six concurrent 1 MB verifications (issue 15)",
    ),
    "cortecost": (
        "benchmarks.bench_cortecost",
        "Constitutional Court index: it_eli (Tantivy) vs SQLite FTS5 on a 25k-decision SYNTHETIC archive (issue 2)",
    ),
    "citations": (
        "benchmarks.bench_citations",
        "Citation extraction throughput on 1 MB inputs, realistic and pathological, and the n vs 8n time ratio per shape (issue 5: linear time)",
    ),
    "content": (
        "benchmarks.bench_content",
        "Content check: precision/recall of content_mismatch on the labelled description table, offline (issue 12)",
    ),
    "verify": (
        "benchmarks.bench_verify",
        "Citation verification on the labelled table (extraction P/R, per-citation accuracy, safety counts), offline (issue 5)",
    ),
    "ranking": (
        "benchmarks.ranking",
        "Ranking quality (nDCG@10, MRR@10, R@100) on real statutes and decisions: it_eli vs ablations, FTS5, bm25s (issue 6)",
    ),
    "archive": (
        "benchmarks.bench_archive",
        "Pre-built index archive on the 25k SYNTHETIC corpus: export, import, identical answers, first use from a local URL (issue 18)",
    ),
    "statutes": (
        "benchmarks.bench_statutes",
        "Statute index: import time (codice penale, all 43 exports), cached it_get_text/it_get_act/search latency (issue 3)",
    ),
}
