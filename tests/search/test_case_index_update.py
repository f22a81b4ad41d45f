"""Bringing the Constitutional Court index up to date: only new and changed decisions are indexed,
into a new build swapped in when complete, while the previous one keeps serving."""

from __future__ import annotations

import json
import os

import pytest

from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index, read_digests, update_index
from it_eli.runtime.errors import IndexSchemaMismatch
from it_eli.search.schema import META_FILE
from tests.sources.test_cortecost_ingest import RECORD, court_archive


def _decision(numero: int, testo: str, anno: int = 2014) -> dict:
    return {**RECORD, "numero_pronuncia": str(numero), "anno_pronuncia": str(anno), "ecli": f"ECLI:IT:COST:{anno}:{numero}",
            "testo": testo}


FIRST = [_decision(n, f"Ritenuto in fatto la questione numero {n} sulla circolazione stradale") for n in range(1, 6)]


def _numbers(res) -> list[int]:
    return sorted(h.numero for h in res.hits)


def _files(build) -> dict[str, int]:
    return {f.name: f.stat().st_size for f in build.iterdir() if f.is_file() and not f.name.startswith(".tantivy")}


@pytest.fixture
def built(tmp_path, make_settings):
    settings = make_settings()
    first = build_index(settings, [court_archive(tmp_path, {2014: FIRST}, name="first.zip")])
    assert first.published and first.indexed == 5
    return settings


def test_an_update_adds_the_new_decisions_and_replaces_the_changed_one(tmp_path, built):
    index = DecisionIndex(built)
    old_build = index.idir.current()
    old_files = _files(old_build)
    assert index.search("circolazione").total == 5
    changed = _decision(3, "Ritenuto in fatto la questione sulla navigazione aerea")
    new = [_decision(n, f"Considerato in diritto la questione numero {n} sulla navigazione aerea", 2015) for n in (1, 2)]
    archive = court_archive(tmp_path, {2014: [*FIRST[:2], changed, *FIRST[3:]], 2015: new}, name="second.zip")

    report = update_index(built, [archive])
    assert report.published and report.incremental
    assert (report.added, report.replaced, report.unchanged, report.total) == (2, 1, 4, 7)
    assert report.year_range == [2014, 2015]
    # the reader switches to the new build: the changed text is found, its old text no longer
    assert index.search("navigazione").total == 3
    assert 3 not in _numbers(index.search("circolazione"))
    assert index.stats().total == 7 and index.stats().by_type == {"sentenza": 7}
    assert index.get_decision(ecli="ECLI:IT:COST:2015:2").anno == 2015
    # the previous build was never written to (its segment files are shared, not modified)
    assert _files(old_build) == old_files
    meta = json.loads((index.idir.current() / META_FILE).read_text())
    assert meta["count"] == 7 and len(meta["sources"]) == 2 and meta["updated_from"] == old_build.name
    assert set(read_digests(index.idir.current())) == {f"ECLI:IT:COST:2014:{n}" for n in range(1, 6)} | {
        "ECLI:IT:COST:2015:1", "ECLI:IT:COST:2015:2"}


def test_an_update_with_nothing_new_publishes_nothing(tmp_path, built):
    index = DecisionIndex(built)
    before = index.idir.current()
    report = update_index(built, [court_archive(tmp_path, {2014: FIRST[:3]}, name="same.zip")])
    assert not report.published and report.incremental and not report.errors
    assert (report.added, report.replaced, report.unchanged) == (0, 0, 3)
    assert index.idir.current() == before and index.search("circolazione").total == 5


def test_an_update_from_sources_without_decisions_is_not_up_to_date(tmp_path, built):
    """An archive or folder holding no decision (a wrong path, an empty download) says so: a
    scheduled job must not read it as "nothing new"."""
    empty = tmp_path / "empty"
    empty.mkdir()
    index = DecisionIndex(built)
    before = index.idir.current()
    for source in (empty, court_archive(tmp_path, {2014: []}, name="none.zip")):
        report = update_index(built, [source])
        assert not report.published and report.incremental
        assert report.errors == ["no decisions found in the sources"]
        assert index.idir.current() == before and index.search("circolazione").total == 5


def test_a_failing_update_leaves_the_previous_index_serving(tmp_path, built):
    index = DecisionIndex(built)
    before = index.idir.current()
    many = [_decision(n, "Considerato in diritto sulla navigazione aerea", 2016) for n in range(1, 600)]

    def progress(count, where):
        if count >= 250:
            raise RuntimeError("killed half way")

    with pytest.raises(RuntimeError):
        update_index(built, [court_archive(tmp_path, {2016: many}, name="big.zip")], progress=progress)
    assert index.idir.current() == before
    assert index.search("navigazione").total == 0 and index.search("circolazione").total == 5
    # and the next update starts again from the index as published
    report = update_index(built, [court_archive(tmp_path, {2016: many[:10]}, name="small.zip")])
    assert report.published and report.added == 10 and index.stats().total == 15


def test_an_index_of_an_older_schema_is_rebuilt_in_full_not_updated(tmp_path, built):
    index = DecisionIndex(built)
    meta_path = index.idir.current() / META_FILE
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "schema_version": meta["schema_version"] - 1}))
    with pytest.raises(IndexSchemaMismatch):
        DecisionIndex(built).search("circolazione")
    report = update_index(built, [court_archive(tmp_path, {2014: FIRST[:2]}, name="two.zip")])
    assert report.published and not report.incremental and report.total == 2
    assert DecisionIndex(built).search("circolazione").total == 2


def test_index_update_and_build_commands_add_only_what_is_new(tmp_path, built, monkeypatch, capsys):
    from it_eli.cli.main import main

    monkeypatch.setenv("IT_ELI_HOME", str(built.home))
    archive = court_archive(tmp_path, {2014: FIRST, 2017: [_decision(9, "la navigazione aerea", 2017)]}, name="cli.zip")
    assert main(["index", "update", "--source", str(archive)]) == 0
    assert "added 1, replaced 0, 5 unchanged" in capsys.readouterr().out
    assert main(["index", "build", "--source", str(archive)]) == 0
    assert "already up to date" in capsys.readouterr().out
    assert main(["index", "build", "--full", "--source", str(archive)]) == 0
    assert "indexed 6 decisions" in capsys.readouterr().out
