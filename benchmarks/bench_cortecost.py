"""Issue 2: the Constitutional Court index, it_eli (Tantivy) against SQLite FTS5, side by side.

    python -m benchmarks cortecost [--count 25000] [--seed 42] [--queries 240] [--rounds 2]

1. Writes (or reuses) a SYNTHETIC archive in the Court's layout (tests/synthetic_corpus.py).
2. Builds each system's index in its own child process: build time (inside the child, archive
   read included), peak memory (max RSS of that child, from wait4's rusage), index size on disk.
3. Runs the same fixed query set in-process against both, warm-up first, with and without a
   year filter, and reports p50/p95 latency.

The FTS5 side models the reference server: all records of the archive are loaded into memory
first, then inserted into one FTS5 table (unicode61 remove_diacritics 2) with a column per part,
in one transaction; queries AND the words (FTS5's implicit AND, phrases quoted), rank by bm25,
return 10 rows with a snippet; the year filter is `AND anno = ?` on an UNINDEXED column of the
same table (checked row by row over the matches).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import WORK_DIR
from . import cortecost_stages as stages
from .cortecost_stages import percentile

TARGETS = {
    "build_speedup": 2.0,  # it_eli build at least 2x faster than FTS5
    "peak_mb": 600.0,  # it_eli build peak RSS
    "p95_ms": 10.0,  # it_eli in-process query p95
}
FTS5_TABLE = "pronunce"
FTS5_DDL = (
    f"CREATE VIRTUAL TABLE {FTS5_TABLE} USING fts5("
    "ecli UNINDEXED, anno UNINDEXED, numero UNINDEXED, tipologia UNINDEXED, data_deposito UNINDEXED, "
    "relatore, epigrafe, testo, dispositivo, "
    "tokenize='unicode61 remove_diacritics 2')"
)
FTS5_SQL = (
    f"SELECT ecli, anno, numero, snippet({FTS5_TABLE}, -1, '**', '**', '…', 24), bm25({FTS5_TABLE}) "
    f"FROM {FTS5_TABLE} WHERE {FTS5_TABLE} MATCH ? {{filter}} ORDER BY rank LIMIT 10"
)


def log(msg: str) -> None:
    print(f"[cortecost {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _testdata() -> Path:
    from it_eli.runtime.config import load_settings

    return load_settings(os.environ).testdata


def _settings(home: Path):
    from it_eli.runtime.config import load_settings

    return load_settings({"IT_ELI_HOME": str(home), "IT_ELI_AUTO_BUILD": "0", "IT_ELI_LOG_LEVEL": "WARNING"})


def dir_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ---------------------------------------------------------------- children (one build each)

def child_iteli(archive: Path, home: Path, heap_bytes: int, threads: int) -> dict:
    import it_eli.search.decisions.build as decisions

    # Where the time goes: wrap (in this child only) the archive reader and the per-document
    # Python work; what remains is Tantivy (indexing threads, commit) and the loop itself.
    spent = {"read": 0.0, "document": 0.0}
    real_iter, real_document = decisions.iter_source, decisions._document

    def timed_iter(*a, **kw):
        it = real_iter(*a, **kw)
        while True:
            t = time.perf_counter()
            try:
                d = next(it)
            except StopIteration:
                spent["read"] += time.perf_counter() - t
                return
            spent["read"] += time.perf_counter() - t
            yield d

    def timed_document(d):
        t = time.perf_counter()
        try:
            return real_document(d)
        finally:
            spent["document"] += time.perf_counter() - t

    decisions.iter_source, decisions._document = timed_iter, timed_document
    settings = _settings(home)
    t0 = time.perf_counter()
    report = decisions.build_index(settings, [archive], heap_bytes=heap_bytes, threads=threads)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "indexed": report.indexed, "errors": report.errors[:5], "index_path": report.index_path,
            "read_seconds": spent["read"], "document_seconds": spent["document"],
            "tantivy_seconds": seconds - spent["read"] - spent["document"]}


def child_fts5(archive: Path, db: Path) -> dict:
    from it_eli.sources.cortecost import SourceReport, iter_source

    t0 = time.perf_counter()
    report = SourceReport(source=str(archive))
    records = list(iter_source(archive, report))  # the reference holds the whole archive in memory
    t_load = time.perf_counter() - t0
    con = sqlite3.connect(db)
    con.execute(FTS5_DDL)
    with con:
        con.executemany(
            f"INSERT INTO {FTS5_TABLE} (ecli, anno, numero, tipologia, data_deposito, relatore, epigrafe, testo, dispositivo) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((d.ecli, d.anno, d.numero, d.tipologia, d.data_deposito or "", d.relatore, d.epigrafe, d.testo, d.dispositivo)
             for d in records),
        )
    con.close()
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "load_seconds": t_load, "indexed": len(records), "errors": report.errors[:5]}


def child_floor(archive: Path, work: Path, threads: int, heap_bytes: int) -> dict:
    """What Tantivy alone costs, with the archive already read and every document already built:
    CPU seconds (all threads) to index and commit the same documents as the real build (each part
    in its field and again in `body`), `body` alone, and the full documents with the stemmer
    taken out of `it_legal`. On a 2-core machine no build can take less than its total CPU / 2."""
    import tantivy

    import it_eli.search.decisions.build as decisions
    from it_eli.search.analysis import build_tantivy_analyzer
    from it_eli.sources.cortecost import SourceReport, iter_source
    from it_eli.search.schema import create_index, load_index_def

    t = time.process_time()
    records = list(iter_source(archive, SourceReport(source=str(archive))))
    read_cpu = time.process_time() - t
    t = time.process_time()
    full = [decisions._document(d) for d in records]
    document_cpu = time.process_time() - t
    an = decisions.shared_analyzer()
    body_only = []
    for d in records:
        doc = tantivy.Document(ecli=d.ecli, anno=d.anno, numero=d.numero, tipologia=d.tipologia)
        for part in decisions.PARTS:
            text = getattr(d, part)
            if text:
                doc.add_text("body", an.prepare(text))
        body_only.append(doc)
    defn = load_index_def(decisions.DEFN_NAME)
    # analysis alone: each part through its field's analyzer and through the stemmed one (body)
    # (Python builds each token list: an upper bound of what the analysis costs in the writer)
    part_an = build_tantivy_analyzer(defn.field(decisions.PARTS[0]).analyzer or defn.default_analyzer)
    body_an = build_tantivy_analyzer(defn.default_analyzer)
    t = time.process_time()
    for d in records:
        for part in decisions.PARTS:
            text = getattr(d, part)
            if text:
                prepared = an.prepare(text)
                part_an.analyze(prepared)
                body_an.analyze(prepared)
    analyse_cpu = time.process_time() - t
    out: dict[str, float] = {"read_cpu": read_cpu, "document_cpu": document_cpu, "analyse_cpu": analyse_cpu}
    for label, docs, no_stem in (("as_built", full, False), ("body_only", body_only, False),
                                 ("as_built_no_stemmer", full, True)):
        target = work / f"floor-{label}"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        index = create_index(target, defn)
        if no_stem:
            index.register_tokenizer("it_legal", build_tantivy_analyzer("it_legal", disable=frozenset({"stemmer"})))
        writer = index.writer(heap_size=heap_bytes, num_threads=threads)
        c0, w0 = time.process_time(), time.perf_counter()
        for doc in docs:
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        out[f"{label}_cpu"] = time.process_time() - c0
        out[f"{label}_wall"] = time.perf_counter() - w0
        del writer, index
        shutil.rmtree(target, ignore_errors=True)
    return out


def run_child(args: list[str], out: Path) -> tuple[dict, float, float]:
    """Run this module as a child; returns (its JSON answer, peak RSS in MB, wall seconds)."""
    t0 = time.perf_counter()
    with open(out, "w") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_cortecost", "--child", *args],
                                stdout=fh, cwd=Path(__file__).resolve().parent.parent)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"child {args[0]} failed with exit code {proc.returncode}")
    answer = json.loads(out.read_text())
    answer["cpu_seconds"] = usage.ru_utime + usage.ru_stime  # the work done, whatever else loads the machine
    return answer, usage.ru_maxrss / 1024, wall  # ru_maxrss is in KiB on Linux


# ---------------------------------------------------------------- queries

def fts5_query(q: str) -> str:
    if q.startswith('"'):
        return q
    return " ".join(f'"{w}"' for w in q.split())


def time_queries(run, queries: list[tuple[str, int | None]], rounds: int) -> tuple[list[float], int, int, str]:
    """Per-query latencies in ms over `rounds` passes; also #empty results, #errors, first error."""
    empty = errors = 0
    first_error = ""
    for q, year in queries:  # warm-up pass (also counts empties)
        try:
            if run(q, year) == 0:
                empty += 1
        except Exception as exc:  # noqa: BLE001 - counted and reported; the figures are then invalid
            errors += 1
            first_error = first_error or f"{q!r}: {exc!r}"[:300]
    times = []
    for _ in range(rounds):
        for q, year in queries:
            t0 = time.perf_counter_ns()
            try:
                run(q, year)
            except Exception:  # noqa: BLE001
                pass
            times.append((time.perf_counter_ns() - t0) / 1e6)
    return times, empty, errors, first_error


def measure_queries(home: Path, db: Path, queries: list[str], years: list[int], rounds: int, seed: int) -> dict:
    from it_eli.search.decisions.reader import DecisionIndex
    from it_eli.runtime.errors import QueryError

    rng = random.Random(seed)
    plain = [(q, None) for q in queries]
    filtered = [(q, rng.choice(years)) for q in queries]

    index = DecisionIndex(_settings(home))

    def iteli(q: str, year: int | None) -> int:
        try:
            return index.search(q, anno=year).total
        except QueryError:
            return 0

    con = sqlite3.connect(db)
    sql_plain = FTS5_SQL.format(filter="")
    sql_year = FTS5_SQL.format(filter="AND anno = ?")

    def fts5(q: str, year: int | None) -> int:
        if year is None:
            rows = con.execute(sql_plain, (fts5_query(q),)).fetchall()
        else:
            rows = con.execute(sql_year, (fts5_query(q), year)).fetchall()
        return len(rows)

    def iteli_core(q: str, year: int | None) -> int:
        """Diagnostic: it_eli's ranked search with count and facets, without snippets."""
        from it_eli.search.decisions.model import FIELD_ALIASES
        from it_eli.search.query import HitWindow, ranked_search
        from it_eli.law.query import parse_query

        idx, searcher, _ = index.searcher()
        filters = index._filters(idx, year, None, None, None, None)
        ranked = ranked_search(
            searcher, idx.schema, parse_query(q), index.defn.ranking_boosts, FIELD_ALIASES, index._analyzers,
            window=HitWindow(size=10), filters=filters, tie_breaker=index.defn.tie_breaker,
            proximity_fields=index.defn.proximity_boosts,
        )
        index._facets(searcher, index._with_filters(ranked.query, filters))
        return ranked.count

    out = {}
    systems = [("it_eli", iteli), ("fts5", fts5)]
    try:
        iteli_core(queries[0], None)
        systems.append(("it_eli_core", iteli_core))
    except Exception as exc:  # noqa: BLE001 - a diagnostic only; private API may change
        log(f"queries: it_eli core diagnostic skipped ({exc!r})")
    for system, run in systems:
        for label, qs in (("all", plain), ("year", filtered)):
            log(f"queries: {system} {label} ({len(qs)} queries x {rounds} rounds, after a warm-up pass)")
            times, empty, errors, first_error = time_queries(run, qs, rounds)
            if errors:
                log(f"queries: {system} {label}: {errors} errors, first {first_error}")
            out[f"{system}.{label}"] = {
                "p50_ms": percentile(times, 0.5), "p95_ms": percentile(times, 0.95), "max_ms": max(times),
                "mean_ms": statistics.fmean(times), "empty": empty, "errors": errors, "n": len(times),
                "first_error": first_error,
            }
    con.close()
    return out


# ---------------------------------------------------------------- report

def _mark(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def render(res: dict) -> str:
    it, ft, q = res["it_eli"], res["fts5"], res["queries"]
    speedup = ft["build_seconds"] / it["build_seconds"]
    rows = [
        ("build time (s)", f"{it['build_seconds']:.1f}", f"{ft['build_seconds']:.1f}",
         f">= {TARGETS['build_speedup']:.0f}x faster than FTS5", f"{speedup:.2f}x",
         _mark(speedup >= TARGETS["build_speedup"])),
        ("build peak RSS (MB)", f"{it['peak_mb']:.0f}", f"{ft['peak_mb']:.0f}", f"< {TARGETS['peak_mb']:.0f} MB",
         f"{it['peak_mb']:.0f} MB", _mark(it["peak_mb"] < TARGETS["peak_mb"])),
        ("index size (MB)", f"{it['index_mb']:.1f}", f"{ft['index_mb']:.1f}", "smaller than FTS5",
         f"{it['index_mb'] / ft['index_mb']:.2f}x", _mark(it["index_mb"] < ft["index_mb"])),
    ]
    for label, name in (("all", "no filter"), ("year", "year filter")):
        a, b = q[f"it_eli.{label}"], q[f"fts5.{label}"]
        rows.append((f"query p50, {name} (ms)", f"{a['p50_ms']:.2f}", f"{b['p50_ms']:.2f}", "", "", ""))
        status = _mark(a["p95_ms"] < TARGETS["p95_ms"]) if not (a["errors"] or b["errors"]) else "INVALID (errors)"
        rows.append((f"query p95, {name} (ms)", f"{a['p95_ms']:.2f}", f"{b['p95_ms']:.2f}",
                     f"< {TARGETS['p95_ms']:.0f} ms", f"{a['p95_ms']:.2f} ms", status))
    head = ("metric", "it_eli", "SQLite FTS5", "target (it_eli)", "it_eli vs target", "status")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows]
    c = res["corpus"]
    out.append("")
    out.append(
        f"corpus: {c['count']} SYNTHETIC decisions {c['years'][0]}-{c['years'][1]} ({c['by_type']}), "
        f"{c['text_mb']} MB of text, JSON {c['json_mb']} MB, zip {c['zip_mb']} MB; "
        f"queries: {res['n_queries']} x {res['rounds']} rounds per mode; machine: {res['machine']}"
    )
    for label in ("all", "year"):
        a, b = q[f"it_eli.{label}"], q[f"fts5.{label}"]
        out.append(f"empty results ({label}): it_eli {a['empty']}, FTS5 {b['empty']}; errors: it_eli {a['errors']}, "
                   f"FTS5 {b['errors']}")
    out.append(f"FTS5 build: {ft['load_seconds']:.1f} s of it reading the archive into memory (same reader as it_eli)")
    if "read_seconds" in it:
        out.append(f"it_eli build: reading the archive {it['read_seconds']:.1f} s, Python per-document work "
                   f"(_document: msgpack + Analyzer.prepare) {it['document_seconds']:.1f} s, Tantivy indexing/commit "
                   f"and loop {it['tantivy_seconds']:.1f} s (writer heap {it['heap_mb']} MB, {it['threads']} threads)")
    fl = res.get("floor")
    if fl:
        cores = os.cpu_count() or 1
        need = ft["build_seconds"] / TARGETS["build_speedup"]
        out.append(
            f"CPU floor (diagnostic; documents read and built beforehand, CPU seconds over all threads): Tantivy "
            f"indexing + commit of the documents as built (each part in its field and again in body) "
            f"{fl['as_built_cpu']:.1f} CPU-s (wall {fl['as_built_wall']:.1f} s), body alone {fl['body_only_cpu']:.1f}, "
            f"as built without the stemmer {fl['as_built_no_stemmer_cpu']:.1f}. On {cores} cores Tantivy's share "
            f"alone takes at least {fl['as_built_cpu'] / cores:.1f} s (body alone {fl['body_only_cpu'] / cores:.1f} s, "
            f"no stemmer {fl['as_built_no_stemmer_cpu'] / cores:.1f} s) before a byte of the archive is read; "
            f"{TARGETS['build_speedup']:g}x FTS5 means the whole build in {need:.1f} s. "
            f"(Reading {fl['read_cpu']:.1f} CPU-s and per-document Python {fl['document_cpu']:.1f} CPU-s come on top.)")
    if "it_eli_core.all" in q:
        a, b = q["it_eli_core.all"], q["it_eli_core.year"]
        out.append(f"it_eli without snippets (search + count + facets; diagnostic): p50/p95 {a['p50_ms']:.2f}/"
                   f"{a['p95_ms']:.2f} ms, with year filter {b['p50_ms']:.2f}/{b['p95_ms']:.2f} ms")
    return "\n".join(out)


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GB RAM, Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}"


def render_issue16(res: dict) -> str:
    """Issue 16's acceptance, side by side with the reference package when it was measured."""
    it, ref, mcp, up = res["it_eli"], res.get("reference"), res.get("mcp", {}), res.get("update")
    rows = []
    if ref:
        ratio = it["build_seconds"] / ref["seconds"]
        rows.append(("full build (s)", f"{it['build_seconds']:.1f}", f"{ref['seconds']:.1f}", "<= 0.5x the reference",
                     f"{ratio:.2f}x", _mark(ratio <= 0.5)))
        rows.append(("build peak RSS (MB)", f"{it['peak_mb']:.0f}", f"{ref['peak_mb']:.0f}", "< 600 MB",
                     f"{it['peak_mb']:.0f} MB", _mark(it["peak_mb"] < 600)))
        rows.append(("index size (MB)", f"{it['index_mb']:.1f}", f"{ref['index_mb']:.1f}", "smaller than the reference",
                     f"{it['index_mb'] / ref['index_mb']:.2f}x", _mark(it["index_mb"] < ref["index_mb"])))
    for label, name in (("all", "no filter"), ("year", "year filter")):
        a, b = mcp.get(f"it_eli.{label}"), mcp.get(f"reference.{label}")
        if a:
            rows.append((f"it_case_search over MCP stdio p50, {name} (ms)", f"{a['p50_ms']:.2f}",
                         f"{b['p50_ms']:.2f}" if b else "—", "", "", ""))
            rows.append((f"it_case_search over MCP stdio p95, {name} (ms)", f"{a['p95_ms']:.2f}",
                         f"{b['p95_ms']:.2f}" if b else "—", "<= 5 ms", f"{a['p95_ms']:.2f} ms",
                         _mark(a["p95_ms"] <= 5.0) if not a["errors"] else "INVALID (errors)"))
    if "noop" in mcp:
        n = mcp["noop"]
        rows.append(("no-op tool over MCP stdio (same SDK), p50 / p95 (ms)", f"{n['p50_ms']:.2f} / {n['p95_ms']:.2f}",
                     "", "the floor", "", ""))
    if up:
        rows.append((f"update: +{up['added']} decisions to the {up['total'] - up['added']} index (s)",
                     f"{up['seconds']:.2f}", "—", "< 3 s", f"{up['seconds']:.2f} s", _mark(up["seconds"] < 3.0)))
    if not rows:
        return ""
    head = ("issue 16", "it_eli", "reference package", "target", "it_eli vs target", "status")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows]
    st = res.get("stages")
    if st:
        for label in ("all", "year"):
            parts = ", ".join(f"{k} {v['mean_ms']:.2f}" for k, v in st[label].items() if k != "total")
            out.append(f"search stages in-process ({label}), mean ms: {parts}; total p50/p95 "
                       f"{st[label]['total']['p50_ms']:.2f}/{st[label]['total']['p95_ms']:.2f}")
    fl = res.get("floor")
    if fl:
        out.append(f"build stages (CPU-s): read {fl['read_cpu']:.1f}, Python per document {fl['document_cpu']:.1f}, "
                   f"analyse (the analyzers alone, token lists built) {fl.get('analyse_cpu', float('nan')):.1f}, "
                   f"Tantivy analyse+index+commit of the pre-built documents {fl['as_built_cpu']:.1f} "
                   f"(wall {fl['as_built_wall']:.1f} s; body alone {fl['body_only_cpu']:.1f})")
    if "read_seconds" in it:
        out.append(f"build stages (wall s, in the build): read {it['read_seconds']:.1f}, Python per document "
                   f"{it['document_seconds']:.1f}, Tantivy index + commit (what the loop waits for) "
                   f"{it['tantivy_seconds']:.1f}")
    if ref:
        out.append(f"build CPU (user + system, all threads): it_eli {it.get('cpu_seconds') or float('nan'):.1f} CPU-s, "
                   f"reference {ref['cpu_seconds']:.1f} CPU-s; it_eli build wall {it['wall_seconds']:.1f} s "
                   f"(process, interpreter start included)")
    out.append(f"load average at start / end: {res.get('load_start')} / {res.get('load_end')}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks cortecost", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=25_000, help="decisions in the synthetic archive (default 25000)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--queries", type=int, default=240, help="size of the fixed query set (default 240)")
    ap.add_argument("--rounds", type=int, default=2, help="timed passes over the query set (default 2)")
    ap.add_argument("--heap-mb", type=int, default=192, help="it_eli writer heap (build_index heap_bytes)")
    ap.add_argument("--threads", type=int, default=2, help="it_eli writer threads")
    ap.add_argument("--regenerate", action="store_true", help="rewrite the corpus even if cached")
    ap.add_argument("--no-floor", action="store_true",
                    help="skip the CPU floor diagnostic (Tantivy alone on pre-built documents, ~1 min)")
    ap.add_argument("--reference-python", default=os.environ.get("IT_ELI_REFERENCE_PYTHON"),
                    help="a Python with the reference package (italy-eli-mcp) installed: its own build and its "
                         "MCP server are measured beside it_eli's (default: $IT_ELI_REFERENCE_PYTHON; none: skipped)")
    ap.add_argument("--mcp-queries", type=int, default=120, help="queries sent over MCP stdio per mode (default 120)")
    ap.add_argument("--update-count", type=int, default=350, help="decisions of the archive added by the update step")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--archive", help=argparse.SUPPRESS)
    ap.add_argument("--target", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.child:
        if args.child == "iteli":
            res = child_iteli(Path(args.archive), Path(args.target), args.heap_mb * 1_000_000, args.threads)
        elif args.child == "floor":
            res = child_floor(Path(args.archive), Path(args.target), args.threads, args.heap_mb * 1_000_000)
        else:
            res = child_fts5(Path(args.archive), Path(args.target))
        print(json.dumps(res))
        return 0

    from tests.synthetic_corpus import generate, make_queries

    started = time.perf_counter()
    load_start = os.getloadavg()
    work = WORK_DIR / "cortecost"
    work.mkdir(parents=True, exist_ok=True)
    testdata = _testdata()
    if not (testdata / "cortecost").is_dir():
        print(f"no captured Court data at {testdata}/cortecost (set IT_ELI_TESTDATA)", file=sys.stderr)
        return 2
    log(f"corpus: {args.count} SYNTHETIC decisions (seed {args.seed}) ...")
    info = generate(WORK_DIR, testdata, count=args.count, seed=args.seed, force=args.regenerate, log=log)
    log(f"corpus: {info.path.name} ({'reused' if info.reused else f'written in {info.seconds:.0f} s'})")
    info.path.read_bytes()  # same warm page cache for both builds

    home, db = work / "home", work / "fts5.sqlite3"
    shutil.rmtree(home, ignore_errors=True)
    for p in (db, db.with_name(db.name + "-journal"), db.with_name(db.name + "-wal")):
        p.unlink(missing_ok=True)

    log("build: it_eli (child process) ...")
    it, it_rss, it_wall = run_child(["iteli", "--archive", str(info.path), "--target", str(home),
                                     "--heap-mb", str(args.heap_mb), "--threads", str(args.threads)], work / "iteli.json")
    from it_eli.search.decisions.model import index_root
    from it_eli.search.indexdir import IndexDir

    current = IndexDir(index_root(_settings(home))).current()
    it_size = dir_bytes(current) if current else 0
    log(f"build: it_eli {it['indexed']} docs in {it['seconds']:.1f} s, peak {it_rss:.0f} MB, {it_size / 1e6:.1f} MB")

    log("build: FTS5 (child process) ...")
    ft, ft_rss, ft_wall = run_child(["fts5", "--archive", str(info.path), "--target", str(db)], work / "fts5.json")
    ft_size = dir_bytes(db)
    log(f"build: FTS5 {ft['indexed']} docs in {ft['seconds']:.1f} s, peak {ft_rss:.0f} MB, {ft_size / 1e6:.1f} MB")

    floor = None
    if not args.no_floor:
        log("floor: Tantivy alone on pre-built documents (child process) ...")
        floor, _, _ = run_child(["floor", "--archive", str(info.path), "--target", str(work),
                                 "--heap-mb", str(args.heap_mb), "--threads", str(args.threads)], work / "floor.json")

    reference = None
    if args.reference_python:
        log("build: reference package (its own ingest, child process) ...")
        reference = stages.reference_build(args.reference_python, info.path, work / "reference.sqlite3",
                                           work / "reference-home")
        log(f"build: reference {reference['seconds']:.1f} s, peak {reference['peak_mb']:.0f} MB, "
            f"{reference['index_mb']:.1f} MB")

    queries = make_queries(testdata, n=args.queries, seed=args.seed)
    years = sorted(info.by_year)
    qres = measure_queries(home, db, queries, years, args.rounds, args.seed)

    rng = random.Random(args.seed)
    mixed = [(q, None) for q in queries] + [(q, rng.choice(years)) for q in queries]
    log("stages: it_eli search, stage by stage ...")
    stage_res = {"all": stages.search_stages(home, mixed[: len(queries)], args.rounds),
                 "year": stages.search_stages(home, mixed[len(queries):], args.rounds)}
    mcp_res = {}
    sample = queries[: args.mcp_queries]
    calls = {"all": [{"query": q, "limit": 10} for q in sample],
             "year": [{"query": q, "limit": 10, "anno": rng.choice(years)} for q in sample]}
    servers = [("noop", stages.noop_server(), "noop", {"all": [{} for _ in sample]}),
               ("it_eli", stages.iteli_server(home), "it_case_search", calls)]
    if reference:
        ref_calls = {k: [{k2: (str(v) if k2 == "anno" else v) for k2, v in c.items()} for c in v]
                     for k, v in calls.items()}
        servers.append(("reference", stages.reference_server(args.reference_python, work / "reference.sqlite3",
                                                               work / "reference-home"), "it_case_search", ref_calls))
    for name, (command, env), tool, modes in servers:
        for label, cs in modes.items():
            log(f"mcp: {name} {label} ({len(cs)} calls x {args.rounds} rounds over stdio) ...")
            key = name if name == "noop" else f"{name}.{label}"
            mcp_res[key] = stages.mcp_latency(command, env, tool, cs, args.rounds)

    log(f"update: +{args.update_count} decisions ...")
    extra = generate(WORK_DIR, testdata, count=args.update_count, years=(2027, 2027), seed=args.seed + 1, log=log)
    update = stages.update_seconds(home, [extra.path])

    res = {
        "corpus": info.summary(),
        "it_eli": {**{k: it[k] for k in ("read_seconds", "document_seconds", "tantivy_seconds") if k in it},
                   "build_seconds": it["seconds"], "wall_seconds": it_wall, "peak_mb": it_rss,
                   "index_mb": it_size / 1e6, "indexed": it["indexed"], "errors": it["errors"],
                   "heap_mb": args.heap_mb, "threads": args.threads, "cpu_seconds": it.get("cpu_seconds")},
        "fts5": {"build_seconds": ft["seconds"], "load_seconds": ft["load_seconds"], "wall_seconds": ft_wall,
                 "peak_mb": ft_rss, "index_mb": ft_size / 1e6, "indexed": ft["indexed"], "errors": ft["errors"]},
        "queries": qres,
        "floor": floor,
        "reference": reference,
        "stages": stage_res,
        "mcp": mcp_res,
        "update": update,
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "n_queries": len(queries),
        "rounds": args.rounds,
        "machine": machine(),
        "total_seconds": time.perf_counter() - started,
    }
    (work / "results.json").write_text(json.dumps(res, indent=2))
    (work / "queries.txt").write_text("\n".join(queries) + "\n", encoding="utf-8")
    print(render(res))
    print()
    print(render_issue16(res))
    print(f"\n(results: {work / 'results.json'}; whole run {res['total_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
