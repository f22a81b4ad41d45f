"""Build Tantivy schemas and open indexes from the declarative definitions in index_schema/.

An index directory holds the Tantivy files plus `it_eli_meta.json`: the schema name and version
and a fingerprint of the field + analyzer definitions. Opening checks them, so an index built
under another definition is refused with the rebuild command instead of answering wrongly.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import tantivy

from .analysis import SCHEMA_DIR, analyzer_specs, build_tantivy_analyzer, stopwords
from it_eli.runtime.errors import IndexMissing, IndexSchemaMismatch

META_FILE = "it_eli_meta.json"
REBUILD_COMMANDS = {
    "decisions": "it-eli index build",
    "statute_articles": "it-eli statutes rebuild",
}


class FieldDef(msgspec.Struct, frozen=True):
    name: str
    type: str
    stored: bool = False
    indexed: bool = True
    fast: bool = False
    analyzer: str | None = None
    boost: float = 0.0
    part: bool = False


class IndexDef(msgspec.Struct, frozen=True):
    name: str
    version: int
    default_analyzer: str
    fields: list[FieldDef]
    # Query-time ranking settings (not in the fingerprint: changing them needs no rebuild).
    # `catch_all`: a text field holding every part's text again (indexed, not stored), searched
    # beside the parts so a word scores as in one bag of words; the index builder fills it.
    catch_all: str | None = None
    tie_breaker: float = 0.3  # a word's score = best field + tie_breaker x the other fields
    proximity_fields: list[str] | None = None  # fields of the proximity bonus (None: the default fields)
    # `rank_fields`: the fields plain words are matched and ranked on (None: every boosted text
    # field). The part fields still serve `field:word` scoping and the per-part snippets.
    rank_fields: list[str] | None = None
    # `exact_fields`: unstemmed fields where an unscoped word's form as typed earns `exact_weight` x
    # its BM25 there (the typed form outranks its stem siblings; it_eli.search.query.exact_form_query)
    exact_fields: list[str] | None = None
    exact_weight: float = 0.0

    @property
    def exact_boosts(self) -> dict[str, float] | None:
        """The exact-form fields with their weight, or None when the index has none."""
        if not self.exact_fields or self.exact_weight <= 0:
            return None
        return {n: self.exact_weight for n in self.exact_fields}

    @property
    def text_fields(self) -> list[FieldDef]:
        return [f for f in self.fields if f.type == "text"]

    @property
    def boosts(self) -> dict[str, float]:
        return {f.name: f.boost for f in self.fields if f.type == "text" and f.boost > 0}

    @property
    def ranking_boosts(self) -> dict[str, float]:
        """Fields (with boosts) that unscoped words are matched and ranked on."""
        if self.rank_fields is None:
            return self.boosts
        return {n: (self.boosts.get(n) or 1.0) for n in self.rank_fields}

    @property
    def parts(self) -> list[str]:
        return [f.name for f in self.fields if f.part]

    @property
    def proximity_boosts(self) -> dict[str, float] | None:
        """The proximity fields with their boosts, or None for the default fields."""
        if self.proximity_fields is None:
            return None
        return {n: (self.boosts.get(n) or 1.0) for n in self.proximity_fields}

    def field(self, name: str) -> FieldDef | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def fingerprint(self) -> str:
        payload = {
            "fields": msgspec.to_builtins(self.fields),
            "analyzers": analyzer_specs(),
            "stopwords": stopwords(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


@functools.cache
def load_index_def(name: str) -> IndexDef:
    with (SCHEMA_DIR / f"{name}.toml").open("rb") as fh:
        raw = tomllib.load(fh)
    return msgspec.convert(raw, IndexDef)


def build_schema(defn: IndexDef) -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    for f in defn.fields:
        if f.type == "text":
            sb.add_text_field(f.name, stored=f.stored, fast=f.fast, tokenizer_name=f.analyzer or defn.default_analyzer)
        elif f.type == "raw":
            if f.indexed or f.fast:
                sb.add_text_field(f.name, stored=f.stored, fast=f.fast, tokenizer_name="raw", index_option="basic")
            else:
                sb.add_text_field(f.name, stored=f.stored, tokenizer_name="raw", index_option="basic")
        elif f.type == "i64":
            sb.add_integer_field(f.name, stored=f.stored, indexed=f.indexed, fast=f.fast)
        elif f.type == "bytes":
            sb.add_bytes_field(f.name, stored=f.stored, indexed=False, fast=False)
        else:
            raise ValueError(f"unknown field type {f.type!r} in {defn.name}")
    return sb.build()


def register_analyzers(index: tantivy.Index, disable: frozenset[str] = frozenset()) -> None:
    for name in analyzer_specs():
        if name == "version":
            continue
        index.register_tokenizer(name, build_tantivy_analyzer(name, disable=disable))


def write_meta(path: Path, defn: IndexDef, extra: dict[str, Any]) -> None:
    meta = {"schema": defn.name, "schema_version": defn.version, "fingerprint": defn.fingerprint, **extra}
    tmp = path / (META_FILE + ".tmp")
    tmp.write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path / META_FILE)


def read_meta(path: Path) -> dict[str, Any]:
    try:
        return json.loads((path / META_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def create_index(path: Path, defn: IndexDef) -> tantivy.Index:
    path.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(build_schema(defn), path=str(path))
    register_analyzers(index)
    return index


def open_index(path: Path, defn: IndexDef) -> tuple[tantivy.Index, dict[str, Any]]:
    """Open an existing index, refusing one built under another schema definition."""
    rebuild = REBUILD_COMMANDS.get(defn.name, "it-eli index build")
    meta = read_meta(path)
    if not meta or not (path / "meta.json").exists():
        raise IndexMissing(
            f"no {defn.name} index at {path}",
            valid=f"build it first: `{rebuild}`",
            command=rebuild,
        )
    if meta.get("schema_version") != defn.version or meta.get("fingerprint") != defn.fingerprint:
        raise IndexSchemaMismatch(
            f"the {defn.name} index at {path} was built under schema version "
            f"{meta.get('schema_version')} ({meta.get('fingerprint')}); this it_eli expects version "
            f"{defn.version} ({defn.fingerprint})",
            valid=f"rebuild it with `{rebuild}`",
            command=rebuild,
        )
    index = _open_tantivy(path)
    register_analyzers(index)
    return index, meta


def open_checked(path: Path, defn: IndexDef) -> tuple[tantivy.Index, dict[str, Any]]:
    """Open a build and read its segment list, so a corrupt meta or a truncated segment shows
    here (as an exception) rather than in the middle of a search."""
    index, meta = open_index(path, defn)
    index.searcher().num_docs  # noqa: B018 -- opens every segment's files
    return index, meta


_SHADOWS: list[str] = []


def _open_tantivy(path: Path) -> tantivy.Index:
    """Open for reading; on a read-only home, through a shadow directory.

    Why: Tantivy takes a lock file in the index directory even to read, which a read-only
    IT_ELI_HOME (a shared mount, a container image) refuses. Reading needs no lock from it_eli
    (builds never change a published build), so the files are linked from a private temporary
    directory where Tantivy may put its lock."""
    try:
        return tantivy.Index.open(str(path))
    except ValueError as exc:
        if "Lockfile" not in str(exc):
            raise
    shadow = tempfile.mkdtemp(prefix="it_eli-ro-")
    if not _SHADOWS:
        atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in _SHADOWS])
    _SHADOWS.append(shadow)
    for f in path.iterdir():
        if f.is_file() and not f.name.endswith(".lock"):
            os.symlink(f.resolve(), os.path.join(shadow, f.name))
    return tantivy.Index.open(shadow)
