"""Test collections built from the real texts in the shared data dir (read in place, never copied).

- statutes: the Akoma Ntoso exports, one version per act (same URN -> the CONSOLIDATED export with
  the greatest version_date; an ORIGINAL only when the act has no consolidated export), cut into
  articles by `parse_act`, exactly as the statute index cuts them. Repealed articles and articles
  with no text are left out (a search over the law in force).
- known-item queries: an article's rubrica as the query, that article as the only answer, run on an
  index WITHOUT headings. Skipped: no heading, repealed, fewer than 2 content words (tokens left by
  the shipped analyzer), and headings that occur more than once in the corpus (no single answer).
  A sample of at most `cap` queries is drawn with a fixed seed.
- handwritten queries + graded qrels: `statute_queries.json` (see JUDGMENTS.md).
- natural-language queries + graded qrels: `statute_nl_queries.json` (issue 13): questions and
  requests in people's own words, over every act of the corpus (see JUDGMENTS.md).
- every statute document carries its `context` (the partition headings above the article, as
  `parse_act` reads them) beside its text and act title; only the known-item index leaves out
  the rubrica.
- decisions: the 88 administrative decisions of ita_casehold_val.csv (query = the keyword headings
  of the massima, answer = the decision), plus the 12 Constitutional Court records as distractors.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
KNOWN_ITEM_SEED = 6
KNOWN_ITEM_CAP = 1000

# The CI-fast subset: a few whole acts (file names in normattiva-akn/).
SMALL_ACTS = (
    "mcp-legal-it__legge_241_1990.xml",
    "mcp-legal-it__dlgs_231_2001.xml",
    "scabopdf__legge_gelli_bianco.xml",
    "alessionar__20190612_19G00059_VIGENZA_20200719.xml",
)


def testdata_dir() -> Path:
    return Path(os.environ.get("IT_ELI_TESTDATA") or (REPO_ROOT.parent / "shared" / "data"))


@dataclass
class Doc:
    """One searchable unit. `fields` maps the index field name to its text."""

    id: str
    fields: dict[str, str]


@dataclass
class Collection:
    name: str
    kind: str  # "statutes" | "decisions": which index definition the it_eli setups use
    docs: list[Doc]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    note: str = ""
    meta: dict = field(default_factory=dict)


# ------------------------------------------------------------------ statutes

def statute_articles(testdata: Path, files: tuple[str, ...] | None = None) -> list[tuple[dict, object]]:
    """(act identity as dict, Article) for the newest version of every act."""
    from it_eli.sources.normattiva.akn.parser import parse_act

    paths = sorted((testdata / "normattiva-akn").glob("*.xml"))
    if files is not None:
        paths = [p for p in paths if p.name in files]
    best: dict[str, tuple[tuple, object]] = {}
    for p in paths:
        act = parse_act(p.read_bytes())
        ident = act.identity
        urn = ident.urn or p.name
        consolidated = (ident.version or "").upper() != "ORIGINAL"
        rank = (consolidated, ident.version_date or "", p.name)
        if urn not in best or rank > best[urn][0]:
            best[urn] = (rank, act)
    out = []
    for urn, (_, act) in sorted(best.items()):
        ident = {"urn": urn, "title": act.identity.title or ""}
        for art in act.articles:
            if art.repealed or not art.text.strip():
                continue
            out.append((ident, art))
    return out


def article_id(urn: str, key: str) -> str:
    return f"{urn}#{key}"


def statute_docs(arts, with_headings: bool) -> list[Doc]:
    docs = []
    for ident, art in arts:
        f = {"text": art.text, "act_title": ident["title"], "context": "\n".join(art.context)}
        if with_headings:
            f["heading"] = art.heading or ""
        docs.append(Doc(article_id(ident["urn"], art.key), f))
    return docs


def known_item(arts, *, cap: int | None = KNOWN_ITEM_CAP, seed: int = KNOWN_ITEM_SEED) -> Collection:
    from it_eli.search.analysis import Analyzer

    an = Analyzer("it_legal")
    counts: dict[str, int] = {}
    for _, art in arts:
        if art.heading:
            h = " ".join(an.analyze(art.heading))
            counts[h] = counts.get(h, 0) + 1
    queries, qrels = {}, {}
    for ident, art in arts:
        if not art.heading:
            continue
        toks = an.analyze(art.heading)
        if len(toks) < 2 or counts[" ".join(toks)] > 1:
            continue
        did = article_id(ident["urn"], art.key)
        queries[did] = art.heading
        qrels[did] = {did: 2}
    eligible = len(queries)
    if cap is not None and len(queries) > cap:
        keep = sorted(random.Random(seed).sample(sorted(queries), cap))
        queries = {q: queries[q] for q in keep}
        qrels = {q: qrels[q] for q in keep}
    return Collection(
        "statute-known-item", "statutes", statute_docs(arts, with_headings=False), queries, qrels,
        note=f"{len(queries)} of {eligible} eligible rubriche (seed {seed}); index without headings",
    )


def handwritten(arts, path: Path = HERE / "statute_queries.json", name: str = "statute-handwritten",
                what: str = "written queries") -> Collection:
    spec = json.loads(path.read_text(encoding="utf-8"))
    have = {article_id(i["urn"], a.key) for i, a in arts}
    queries, qrels = {}, {}
    for q in spec["queries"]:
        rels = {d: g for d, g in q["qrels"].items() if d in have and g > 0}
        if rels:
            queries[q["id"]] = q["query"]
            qrels[q["id"]] = rels
    return Collection(name, "statutes", statute_docs(arts, with_headings=True), queries, qrels,
                      note=f"{len(queries)} {what}, graded qrels (JUDGMENTS.md)")


def natural_language(arts) -> Collection:
    return handwritten(arts, HERE / "statute_nl_queries.json", "statute-nl",
                       "natural-language questions over every act")


# ------------------------------------------------------------------ decisions

_HEADING_SEP = re.compile(r"\s*[–—]\s*|\s+-\s*|\s*-\s+")


def massima_headings(summary: str) -> str:
    """The keyword headings that open a massima ("Edilizia – Condono – ... – Ambito."), one or more
    lines, each a chain of short dash-separated keywords; the principle of law that follows is a
    sentence, so the first line that is not such a chain ends the headings."""
    lines = [ln.replace("\xa0", " ").replace("\u200b", "").strip() for ln in summary.replace("\r", "").split("\n")]
    out = []
    for ln in (x for x in lines if x):
        segs = [s for s in _HEADING_SEP.split(ln) if s.strip()]
        if len(segs) >= 2 and len(ln) < 600 and max(len(s.split()) for s in segs) <= 25:
            out.append(ln)
            continue
        break
    return " ".join(out)


_FATTO = re.compile(r"\n\s*(?:FATTO|Fatto|FATTO E DIRITTO|Fatto e diritto)\b")
_PQM = re.compile(r"P\.\s*Q\.\s*M\.")


def split_decision(doc: str) -> dict[str, str]:
    """Cut an administrative decision into the parts of the decisions index: epigrafe (up to the
    'FATTO' heading), testo (the reasons) and dispositivo (after the last 'P.Q.M.')."""
    m = _FATTO.search(doc)
    start = m.start() if m else 0
    pqms = list(_PQM.finditer(doc))
    end = pqms[-1].start() if pqms and pqms[-1].start() > start else len(doc)
    return {"epigrafe": doc[:start], "testo": doc[start:end], "dispositivo": doc[end:]}


def decisions(testdata: Path) -> Collection:
    csv.field_size_limit(1 << 30)
    with open(testdata / "casehold" / "ita_casehold_val.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    docs, queries, qrels = [], {}, {}
    for i, r in enumerate(rows):
        did = f"casehold:{i:02d}"
        docs.append(Doc(did, split_decision(r["doc"])))
        q = massima_headings(r["summary"])
        if q:
            queries[did] = q
            qrels[did] = {did: 2}
    for p in sorted((testdata / "cortecost" / "records").glob("*.json")):
        rec = json.loads(p.read_text(encoding="utf-8"))
        docs.append(Doc(rec["ecli"], {"epigrafe": rec.get("epigrafe") or "", "testo": rec.get("testo") or "",
                                      "dispositivo": rec.get("dispositivo") or ""}))
    return Collection("decisions-casehold", "decisions", docs, queries, qrels,
                      note=f"{len(queries)} massime headings -> decision; {len(docs)} documents")


def load_collections(testdata: Path, *, small: bool = False, cap: int | None = KNOWN_ITEM_CAP,
                     only: list[str] | None = None) -> list[Collection]:
    """Every collection, or those named in `only` (unknown names: ValueError listing the valid ones)."""
    names = ["statute-known-item"] + ([] if small else ["statute-handwritten", "statute-nl"]) + ["decisions-casehold"]
    want = set(only or names)
    if want - set(names):
        raise ValueError(f"unknown collection(s) {sorted(want - set(names))}; valid: {', '.join(names)}")
    cols = []
    if want & {n for n in names if n.startswith("statute")}:
        arts = statute_articles(testdata, SMALL_ACTS if small else None)
        if "statute-known-item" in want:
            cols.append(known_item(arts, cap=cap))
        if "statute-handwritten" in want:
            cols.append(handwritten(arts))
        if "statute-nl" in want:
            cols.append(natural_language(arts))
    if "decisions-casehold" in want:
        cols.append(decisions(testdata))
    for c in cols:
        c.meta["docs"] = len(c.docs)
    return cols
