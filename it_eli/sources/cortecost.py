"""Constitutional Court open data: streaming reader of the published archives.

The Court publishes zip-of-zips (`P_json2001_oggi.zip` -> `Cc_Opendata_Pronunce_<YYYY>_json.zip`
-> `Cc_Opendata_Pronunce_<YYYY>.json` = {"elenco_pronunce": [...]}), in cp1252/latin-1 or UTF-8,
with HTML entities (`&#13;`) and dd/mm/yyyy dates. Records are yielded one year at a time, so
memory holds at most one year's JSON whatever the size of the archive. Anything unreadable is
counted with its reason in a `SourceReport`, never raised mid-build.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import IO

import msgspec

from it_eli.runtime import progress

# Limits against hostile archives.
MAX_DEPTH = 4
MAX_MEMBER_BYTES = 512 * 1024 * 1024  # one decompressed member (a year's JSON is tens of MB)
MAX_RATIO = 200  # decompressed/compressed beyond this for a big member: a zip bomb
# The whole archive, every nesting level summed, may expand to at most this many times its own
# size (the real zip of zips expands about 10x): nesting multiplies per-member ratios, so a few MB
# of nested zips could otherwise cost gigabytes.
MAX_TOTAL_RATIO = 200
MIN_TOTAL_BUDGET = 64 * 1024 * 1024
NESTED_IN_MEMORY = 32 * 1024 * 1024  # a nested zip larger than this is spooled to a temporary file
MIN_BOMB_CHECK = 8 * 1024 * 1024
FIRST_YEAR = 1956

_ECLI = re.compile(r"^ECLI:IT:COST:(\d{4}):(\d{1,5})$")
_DATE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*$")
_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    ecli: str
    anno: int
    numero: int
    tipologia: str  # 'S' sentenza, 'O' ordinanza, other letters as the Court writes them
    data_decisione: str | None = None
    data_deposito: str | None = None
    presidente: str = ""
    relatore: str = ""
    redattore: str = ""
    collegio: str = ""
    epigrafe: str = ""
    testo: str = ""
    dispositivo: str = ""


class SourceReport(msgspec.Struct, kw_only=True):
    source: str
    records: int = 0
    rejected: dict[str, int] = msgspec.field(default_factory=dict)
    errors: list[str] = msgspec.field(default_factory=list)
    members: int = 0

    def reject(self, reason: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1


def decode_bytes(data: bytes) -> str:
    """UTF-8 when it is valid (newer files), else cp1252 (older ones), else latin-1."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_BLANK_LINES = re.compile(r"\n{3,}")
# str.splitlines() breaks lines at these; the other str.isspace() characters are blanks.
_LINE_BREAK = re.compile(r"\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_OTHER_BLANK = re.compile(r"[\t\x1f\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]")
# the blanks other than space and LF, looked for one by one: `ch in text` is a memchr-speed scan
# (and free for a character wider than the text's), 15x faster than one character-class regex
# search, which was a third of clean_text's time (benchmarks/RESULTS.md, cortecost)
_BLANKS_BUT_SPACE_AND_LF = tuple("\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") + tuple(
    chr(c) for c in range(0x2000, 0x200B))
_SPACE_RUN = re.compile(" {2,}")


def clean_text(value: object) -> str:
    """Entities decoded, CR/CRLF to LF, blanks folded within each line, at most one empty line.

    Same result as `"\\n".join(" ".join(line.split()) for line in text.splitlines())` (a test
    keeps it so), done with whole-text C scans: this runs on every field of every decision of
    the archive, and the per-line form cost 1.4 s of a 25k-decision build.
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if "&" in text:
        text = html.unescape(text.replace("&#13;", ""))
    if any(ch in text for ch in _BLANKS_BUT_SPACE_AND_LF):
        text = _OTHER_BLANK.sub(" ", _LINE_BREAK.sub("\n", text))
    if "  " in text:
        text = _SPACE_RUN.sub(" ", text)
    text = text.replace(" \n", "\n").replace("\n ", "\n")
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()


def iso_date(value: object) -> str | None:
    if not value:
        return None
    s = str(value)
    m = _DATE.match(s)
    if m:
        d, mth, y = (int(g) for g in m.groups())
    else:
        m = _ISO.match(s)
        if not m:
            return None
        y, mth, d = (int(g) for g in m.groups())
    try:
        return date(y, mth, d).isoformat()
    except ValueError:
        return None


_TYPE_WORDS = {"sentenza": "S", "ordinanza": "O", "decreto": "D"}


def normalise_record(raw: dict, report: SourceReport) -> Decision | None:
    """One Court record -> Decision, or None (counted) when it lacks year or number."""
    if not isinstance(raw, dict):
        report.reject("record is not an object")
        return None
    anno_raw = str(raw.get("anno_pronuncia") or "").strip()
    numero_raw = str(raw.get("numero_pronuncia") or "").strip()
    ecli_raw = str(raw.get("ecli") or "").strip().upper()
    m = _ECLI.match(ecli_raw)
    if (not anno_raw or not numero_raw) and m:
        anno_raw, numero_raw = anno_raw or m.group(1), numero_raw or m.group(2)
    if not anno_raw.isdigit() or not numero_raw.isdigit():
        report.reject("missing or non-numeric year/number")
        return None
    anno, numero = int(anno_raw), int(numero_raw)
    if not (FIRST_YEAR <= anno <= date.today().year + 1) or numero <= 0:
        report.reject("year or number out of range")
        return None
    ecli = ecli_raw if m and int(m.group(1)) == anno and int(m.group(2)) == numero else f"ECLI:IT:COST:{anno}:{numero}"
    tip = str(raw.get("tipologia_pronuncia") or raw.get("decision_type") or "").strip()
    tip = _TYPE_WORDS.get(tip.lower(), tip[:1].upper() if tip else "?")
    return Decision(
        ecli=ecli,
        anno=anno,
        numero=numero,
        tipologia=tip,
        data_decisione=iso_date(raw.get("data_decisione")),
        data_deposito=iso_date(raw.get("data_deposito")),
        presidente=clean_text(raw.get("presidente")),
        relatore=clean_text(raw.get("relatore_pronuncia")),
        redattore=clean_text(raw.get("redattore_pronuncia")),
        collegio=clean_text(raw.get("collegio")),
        epigrafe=clean_text(raw.get("epigrafe")),
        testo=clean_text(raw.get("testo")),
        dispositivo=clean_text(raw.get("dispositivo")),
    )


def records_from_json(data: bytes, report: SourceReport, name: str) -> Iterator[Decision]:
    try:
        # the Court writes `&#13;` before every line feed inside texts; clean_text drops it from
        # each field, and one pass over the file's bytes spares it a copy of every text
        doc = msgspec.json.decode(decode_bytes(data.replace(b"&#13;", b"")))
    except (msgspec.DecodeError, ValueError, RecursionError) as exc:
        report.errors.append(f"{name}: not JSON ({str(exc)[:80]})")
        return
    if isinstance(doc, dict) and "elenco_pronunce" in doc:
        items = doc["elenco_pronunce"]
    elif isinstance(doc, list):
        items = doc
    elif isinstance(doc, dict) and ("numero_pronuncia" in doc or "ecli" in doc):
        items = [doc]
    else:
        report.errors.append(f"{name}: JSON without 'elenco_pronunce'")
        return
    if not isinstance(items, list):
        report.errors.append(f"{name}: 'elenco_pronunce' is not a list")
        return
    del doc
    for raw in items:
        rec = normalise_record(raw, report)
        if rec is not None:
            report.records += 1
            yield rec


class _Expansion:
    """What is left of the archive's expansion budget (bytes decompressed, all levels)."""

    def __init__(self, archive_bytes: int) -> None:
        self.limit = max(MIN_TOTAL_BUDGET, MAX_TOTAL_RATIO * archive_bytes)
        self.left = self.limit


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, report: SourceReport, name: str,
                 budget: _Expansion, out: IO[bytes] | None = None) -> bytes | IO[bytes] | None:
    """The member's bytes (or, given `out`, the member written into it), within every bound."""
    if info.file_size > MAX_MEMBER_BYTES:
        report.errors.append(f"{name}: declared size {info.file_size} exceeds the {MAX_MEMBER_BYTES}-byte limit")
        return None
    if info.file_size > MIN_BOMB_CHECK and info.compress_size and info.file_size / info.compress_size > MAX_RATIO:
        report.errors.append(f"{name}: compression ratio {info.file_size // info.compress_size}:1 looks like a zip bomb")
        return None
    expanded = f"{name}: the archive expands beyond {budget.limit:,} bytes ({MAX_TOTAL_RATIO}x its size; nested zip bomb?)"
    if info.file_size > budget.left:
        report.errors.append(expanded)
        budget.left = 0
        return None
    buf = bytearray() if out is None else None
    size = 0
    try:
        with zf.open(info) as fh:
            while True:
                chunk = fh.read(1 << 20)
                if not chunk:
                    break
                size += len(chunk)
                budget.left -= len(chunk)
                if size > MAX_MEMBER_BYTES or size > max(info.file_size, 1) * 1.01 + 1024:
                    report.errors.append(f"{name}: decompresses beyond its declared size (zip bomb?)")
                    return None
                if budget.left < 0:
                    report.errors.append(expanded)
                    return None
                if buf is not None:
                    buf += chunk
                else:
                    out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        report.errors.append(f"{name}: corrupt member ({str(exc)[:80]})")
        return None
    if buf is not None:
        return bytes(buf)
    out.seek(0)
    return out


def _walk_zip(fileobj: IO[bytes], report: SourceReport, label: str, depth: int, budget: _Expansion) -> Iterator[Decision]:
    if depth > MAX_DEPTH:
        report.errors.append(f"{label}: archives nested deeper than {MAX_DEPTH}")
        return
    try:
        zf = zipfile.ZipFile(fileobj)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        report.errors.append(f"{label}: corrupt zip ({str(exc)[:80]})")
        return
    with zf:
        members = sorted(zf.infolist(), key=lambda i: i.filename)
        # progress over the archive's own members (a year each in the Court's archives): their
        # compressed sizes are known up front, so the bar has a percentage and a time left
        total, read = sum(i.compress_size for i in members), 0
        for info in members:
            if depth == 1:
                progress.report(f"indexing {label}", read, total, "B")
                read += info.compress_size
            if info.is_dir():
                continue
            name = f"{label}!{info.filename}"
            lower = info.filename.lower()
            if lower.endswith(".zip"):
                # spooled: a big nested archive waits on disk, not in memory, while it is walked
                with tempfile.SpooledTemporaryFile(max_size=NESTED_IN_MEMORY) as spool:
                    inner = _read_member(zf, info, report, name, budget, spool)
                    if inner is not None:
                        report.members += 1
                        yield from _walk_zip(inner, report, name, depth + 1, budget)
            elif lower.endswith(".json"):
                data = _read_member(zf, info, report, name, budget)
                if data is not None:
                    report.members += 1
                    yield from records_from_json(data, report, name)
            else:
                report.reject("archive member that is not JSON or zip (skipped)")
        if depth == 1:
            progress.report(f"indexing {label}", total, total, "B")


def iter_source(path: Path, report: SourceReport) -> Iterator[Decision]:
    """Decisions from a local zip (any nesting), a JSON file, or a directory of those."""
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and child.suffix.lower() in (".zip", ".json"):
                yield from iter_source(child, report)
        return
    if not path.exists():
        report.errors.append(f"{path}: no such file")
        return
    if path.suffix.lower() == ".json" or not zipfile.is_zipfile(path):
        if path.suffix.lower() != ".json":
            report.errors.append(f"{path}: neither a zip archive nor a .json file")
            return
        if path.stat().st_size > MAX_MEMBER_BYTES:
            report.errors.append(f"{path}: larger than {MAX_MEMBER_BYTES} bytes")
            return
        report.members += 1
        yield from records_from_json(path.read_bytes(), report, str(path))
        return
    with open(path, "rb") as fh:
        yield from _walk_zip(fh, report, path.name, 1, _Expansion(path.stat().st_size))


def summarize_rejections(reports: list[SourceReport]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for r in reports:
        total.update(r.rejected)
    return dict(total)
