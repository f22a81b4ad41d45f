"""Reading the Court's open-data archives: formats, encodings, and hostile archives."""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from it_eli.sources.cortecost import SourceReport, clean_text, iter_source
from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index

RECORD = {
    "numero_pronuncia": "238",
    "anno_pronuncia": "2014",
    "tipologia_pronuncia": "S",
    "data_decisione": "22/10/2014",
    "data_deposito": "22/10/2014",
    "ecli": "ECLI:IT:COST:2014:238",
    "presidente": "TESAURO",
    "relatore_pronuncia": "Giuseppe Tesauro",
    "redattore_pronuncia": "Giuseppe Tesauro",
    "collegio": "",
    "epigrafe": "nel giudizio di legittimit&#224; costituzionale dell'art. 1&#13;\r\ndella legge",
    "testo": "Ritenuto in fatto la questione di legittimità sollevata dal Tribunale di Firenze",
    "dispositivo": "dichiara non fondata la questione",
}


def court_archive(tmp_path: Path, years: dict[int, list[dict]], encoding: str = "cp1252", name: str = "P_json.zip") -> Path:
    """An archive in the Court's published layout: outer zip -> per-year zip -> per-year JSON."""
    outer = tmp_path / name
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED) as oz:
        for year, records in years.items():
            payload = json.dumps({"elenco_pronunce": records}, ensure_ascii=False, indent=1).encode(encoding)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as iz:
                iz.writestr(f"Cc_Opendata_Pronunce_{year}.json", payload)
            oz.writestr(f"Cc_Opendata_Pronunce_{year}_json.zip", buf.getvalue())
    return outer


def read_all(path: Path) -> tuple[list, SourceReport]:
    report = SourceReport(source=str(path))
    return list(iter_source(path, report)), report


def test_real_archive_reads_all_twelve_decisions(testdata):
    decisions, report = read_all(testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip")
    assert len(decisions) == 12 and not report.errors and not report.rejected
    first = next(d for d in decisions if d.numero == 1)
    assert first.ecli == "ECLI:IT:COST:2001:1"
    assert first.data_deposito == "2001-01-04" and first.data_decisione == "2000-12-15"
    assert first.tipologia == "O" and first.testo == "" and "legittimità" in first.epigrafe  # cp1252 decoded
    assert "\r" not in first.epigrafe


def test_cp1252_entities_crlf_and_iso_dates(tmp_path):
    decisions, report = read_all(court_archive(tmp_path, {2014: [RECORD]}))
    (d,) = decisions
    assert d.epigrafe.startswith("nel giudizio di legittimità costituzionale")
    assert "\r" not in d.epigrafe and "&#" not in d.epigrafe
    assert d.testo.endswith("Tribunale di Firenze") and d.data_deposito == "2014-10-22"


def test_utf8_and_latin1_files_are_both_read(tmp_path):
    for enc in ("utf-8", "latin-1"):
        folder = tmp_path / enc
        folder.mkdir()
        (d,), _ = read_all(court_archive(folder, {2014: [RECORD]}, encoding=enc))
        assert "legittimità sollevata" in d.testo


def test_ecli_built_from_year_and_number_when_missing_or_wrong(tmp_path):
    rec = dict(RECORD, ecli="", numero_pronuncia="12", anno_pronuncia="1999")
    rec2 = dict(RECORD, ecli="ECLI:IT:COST:2014:999", numero_pronuncia="5", anno_pronuncia="2014")
    decisions, _ = read_all(court_archive(tmp_path, {1999: [rec], 2014: [rec2]}))
    assert sorted(d.ecli for d in decisions) == ["ECLI:IT:COST:1999:12", "ECLI:IT:COST:2014:5"]


def test_zip_of_zips_of_any_depth(tmp_path):
    inner = court_archive(tmp_path, {2014: [RECORD]}, name="inner.zip")
    wrapper = tmp_path / "wrapper.zip"
    with zipfile.ZipFile(wrapper, "w") as z:
        z.write(inner, "level2/inner.zip")
    decisions, report = read_all(wrapper)
    assert len(decisions) == 1 and not report.errors


def test_records_without_year_or_number_are_counted_not_indexed(tmp_path):
    bad = [dict(RECORD, anno_pronuncia="", ecli=""), dict(RECORD, numero_pronuncia="n/a", ecli=""), dict(RECORD, anno_pronuncia="1850", ecli="")]
    decisions, report = read_all(court_archive(tmp_path, {2014: [RECORD] + bad}))
    assert len(decisions) == 1
    assert sum(report.rejected.values()) == 3


def test_corrupt_zip_non_json_and_zip_bomb_are_reported(tmp_path):
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04" + b"\x00garbage" * 100)
    notjson = tmp_path / "notjson.zip"
    with zipfile.ZipFile(notjson, "w") as z:
        z.writestr("Cc_Opendata_Pronunce_2014.json", b"<html>Service Unavailable</html>")
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("Cc_Opendata_Pronunce_2014.json", b"\x00" * (64 * 1024 * 1024))
    for path, needle in ((corrupt, "zip"), (notjson, "not JSON"), (bomb, "bomb")):
        decisions, report = read_all(path)
        assert decisions == []
        assert any(needle in e for e in report.errors), report.errors


def test_bad_sources_never_replace_a_good_index(tmp_path, make_settings, testdata):
    settings = make_settings()
    good = build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    assert good.published and good.indexed == 12
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip at all")
    bad = build_index(settings, [corrupt])
    assert not bad.published and bad.errors
    assert DecisionIndex(settings).stats().total == 12


def test_a_build_that_dies_half_way_leaves_the_previous_index_serving(tmp_path, make_settings, testdata):
    settings = make_settings()
    build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
    reader = DecisionIndex(settings)
    assert reader.search("legittimità").total > 0

    class Boom(Exception):
        pass

    def progress(count, where):
        raise Boom()

    many = court_archive(tmp_path, {y: [dict(RECORD, numero_pronuncia=str(i), ecli="") for i in range(1, 300)] for y in (2014, 2015)})
    with pytest.raises(Boom):
        build_index(settings, [many], progress=progress)
    assert reader.stats().total == 12
    assert DecisionIndex(settings).search("legittimità").total > 0


_BLANK_RUNS = re.compile(r"\n{3,}")
_CLEAN_ALPHABET = [" ", "  ", "\n", "\r\n", "a", "é", "\u200b", "&#13;", "&amp;", "&nbsp;", "&#10;"] + [
    c for c in map(chr, range(0x3001)) if c.isspace()
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_CLEAN_ALPHABET), max_size=16).map("".join))
def test_clean_text_is_the_linewise_definition(raw):
    """The whole-text cleaner gives exactly what a reader would get line by line: entities
    decoded, every Unicode line break a newline, blanks folded, lines trimmed, one empty line."""
    expected = html.unescape(raw.replace("&#13;", "")) if "&" in raw else raw
    expected = "\n".join(" ".join(line.split()) for line in expected.splitlines())
    expected = _BLANK_RUNS.sub("\n\n", expected).strip()
    assert clean_text(raw) == expected
