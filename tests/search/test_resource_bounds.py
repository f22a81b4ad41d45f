"""Inputs read whole are bounded first: nested archives by their total expansion, statute files
by their size and kind."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from it_eli.sources.cortecost import MIN_TOTAL_BUDGET, SourceReport, iter_source
from it_eli.search.statutes.loading import import_files


def _zip(members: list[tuple[str, bytes]], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def test_a_nested_archive_that_expands_past_its_budget_is_stopped(tmp_path):
    """Each member is modest (7 MB, under the per-member bomb check) but the nested archive holds
    twenty of them: ~140 MB from a file of a few hundred KB."""
    member = b"[" + b" " * (7 * 1024 * 1024) + b"]"
    inner = _zip([(f"Cc_{i}.json", member) for i in range(20)])
    archive = tmp_path / "nested.zip"
    archive.write_bytes(_zip([("Cc_Opendata_Pronunce_2001_json.zip", inner)], zipfile.ZIP_STORED))
    assert archive.stat().st_size * 200 < MIN_TOTAL_BUDGET < 20 * len(member)
    report = SourceReport(source=str(archive))
    assert list(iter_source(archive, report)) == []
    assert any("expands beyond" in e and "nested zip bomb" in e for e in report.errors), report.errors
    assert report.members < 12  # stopped once the budget was spent, not after reading all twenty


def test_the_real_zip_of_zips_is_within_its_budget(testdata):
    archive = testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"
    report = SourceReport(source=str(archive))
    assert len(list(iter_source(archive, report))) == 12 and not report.errors


def test_a_huge_sparse_statute_file_is_refused_without_being_read(tmp_path, make_settings):
    sparse = tmp_path / "huge.xml"
    with open(sparse, "wb") as fh:
        fh.truncate(2 * 1024**3)  # 2 GB, no blocks on disk
    report = import_files(make_settings(), [str(sparse)])
    assert report.acts == 0
    assert "more than the" in report.errors[0] and "IT_ELI_MAX_BODY_BYTES" in report.errors[0]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this platform")
def test_a_device_is_refused_as_a_statute_file(make_settings):
    report = import_files(make_settings(), ["/dev/zero"])
    assert report.acts == 0 and "not a regular file" in report.errors[0]


def test_a_real_export_still_imports(make_settings, testdata):
    report = import_files(make_settings(), [str(testdata / "normattiva-akn" / "mcp-legal-it__legge_241_1990.xml")])
    assert report.acts == 1 and not report.errors and os.path.getsize(
        testdata / "normattiva-akn" / "mcp-legal-it__legge_241_1990.xml") < make_settings().max_body_bytes


def test_the_statute_memo_is_bounded_in_bytes_however_many_acts_are_asked(make_settings, testdata):
    from it_eli.search.statutes.store import StatuteStore

    settings = make_settings()
    import_files(settings, [str(testdata / "normattiva-akn" / "mcp-legal-it__legge_241_1990.xml")])
    store = StatuteStore(settings)
    store.MEMO_BYTES = 64 * 1024
    store._memo = type(store._memo)(maxsize=store.MEMO_BYTES, getsizeof=store._memo.getsizeof)
    for n in range(3000):  # URNs a client made up: each answer (no versions) would be kept
        assert store.versions(f"urn:nir:stato:legge:1990-08-07;{1000 + n}") == []
    assert store._memo.currsize <= 64 * 1024 and len(store._memo) < 3000
    real = store.list_acts()[0]
    assert store.versions(real) and store.versions(real)  # still memoized and answered
