"""The synthetic corpus generator (shared with the benchmarks) writes an archive it_eli.sources.cortecost reads back completely."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from it_eli.sources.cortecost import SourceReport, iter_source
from tests.synthetic_corpus import SYNTHETIC_NOTE, generate, make_queries


def test_generated_archive_reads_back(testdata, tmp_path):
    info = generate(tmp_path, testdata, count=200, years=(1999, 2001), seed=3)
    assert "SYNTHETIC" in info.path.name
    assert sum(info.by_year.values()) == 200 and set(info.by_year) == {1999, 2000, 2001}

    # The Court's layout and encoding: zip of per-year zips, cp1252, &#13; entities, CRLF.
    with zipfile.ZipFile(info.path) as outer:
        assert sorted(outer.namelist()) == [f"Cc_Opendata_Pronunce_{y}_json.zip" for y in (1999, 2000, 2001)]
        with zipfile.ZipFile(io.BytesIO(outer.read("Cc_Opendata_Pronunce_2000_json.zip"))) as inner:
            assert inner.namelist() == ["Cc_Opendata_Pronunce_2000.json"]
            raw = inner.read("Cc_Opendata_Pronunce_2000.json")
    assert b"&#13;" in raw and b"\r\n" in raw
    assert b"legittimit\xe0" in raw  # cp1252 'à', not UTF-8
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    doc = json.loads(raw.decode("cp1252"))
    assert doc["nota"] == SYNTHETIC_NOTE and "SYNTHETIC" in doc["nota"]

    report = SourceReport(source=str(info.path))
    decisions = list(iter_source(info.path, report))
    assert len(decisions) == 200 and report.records == 200
    assert not report.errors and not report.rejected
    assert len({d.ecli for d in decisions}) == 200
    assert {d.tipologia for d in decisions} == {"S", "O"}
    for d in decisions:
        text = d.epigrafe + d.testo + d.dispositivo
        assert "&#13;" not in text and "\r" not in text
        assert d.data_deposito and d.data_decisione and d.relatore
        if d.tipologia == "O":
            assert d.testo == "" and len(d.epigrafe) > 1500  # reasoning sits in epigrafe
        else:
            assert "Considerato in diritto" in d.testo
    assert any("legittimità" in d.epigrafe for d in decisions)

    # Deterministic: the same parameters give the same bytes.
    again = generate(tmp_path / "again", testdata, count=200, years=(1999, 2001), seed=3)
    assert again.path.read_bytes() == info.path.read_bytes()


def test_query_set_is_fixed(testdata):
    a, b = make_queries(testdata, n=50, seed=1), make_queries(testdata, n=50, seed=1)
    assert a == b and len(set(a)) == 50
    assert any(q.startswith('"') for q in a)
    assert all(1 <= len(q.strip('"').split()) <= 3 for q in a)
