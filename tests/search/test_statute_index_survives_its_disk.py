"""The statute index survives its disk like the Court index: a CURRENT that cannot be read, or a
build whose files are truncated, is served from the newest complete build that can be read, with
an `index_corrupt` note in every answer; never replaced by a new empty index (0 acts, silence)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from it_eli.mcp.tools.registry import call
from it_eli.search.indexdir import IndexDir
from it_eli.search.statutes.loading import import_files
from it_eli.search.statutes.records import index_root
from it_eli.search.statutes.store import StatuteStore
from it_eli.services.app import App

EXPORTS = ["mcp-legal-it__legge_241_1990.xml", "mcp-legal-it__costituzione.xml"]
TEXT = "Ai sensi dell'art. 3 della legge 7 agosto 1990, n. 241, e dell'art. 3 Cost., il provvedimento va motivato."

# every way CURRENT is found broken on a disk
BROKEN_POINTERS = {
    "garbled bytes": lambda root: (root / "CURRENT").write_bytes(b"\x00\xff\xfe garbage"),
    "empty": lambda root: (root / "CURRENT").write_bytes(b""),
    "names a build that is gone": lambda root: (root / "CURRENT").write_text("20200101T000000-deadbeef\n"),
    "a path outside the builds": lambda root: (root / "CURRENT").write_text("../../..\n"),
    "deleted": lambda root: (root / "CURRENT").unlink(),
}
SEGMENT_FILES = ["store", "idx", "term", "pos", "fast", "fieldnorm"]


@pytest.fixture
def imported(make_settings, testdata):
    settings = make_settings(auto_build="0", normattiva_url="http://127.0.0.1:9", normattiva_api_url="http://127.0.0.1:9",
                             http_retries="0")
    report = import_files(settings, [str(testdata / "normattiva-akn" / name) for name in EXPORTS])
    assert report.acts == 2 and not report.errors
    return settings


def _snapshot(root: Path) -> tuple[list[str], bytes | None]:
    pointer = root / "CURRENT"
    return sorted(p.name for p in (root / "builds").iterdir()), pointer.read_bytes() if pointer.exists() else None


def _truncate(build: Path, ext: str) -> None:
    files = list(build.glob(f"*.{ext}"))
    assert files
    for f in files:
        os.truncate(f, min(100, f.stat().st_size // 2))


async def _answers(settings) -> dict[str, tuple[bool, dict]]:
    app = App(settings)
    try:
        return {
            "search": await call(app, "it_search_statutes", {"query": "motivazione del provvedimento", "limit": 2}),
            "text": await call(app, "it_get_text", {"reference": "art. 3 l. 241/1990"}),
            "verify": await call(app, "it_verify_citations", {"text": TEXT, "offline": True}),
            "coverage": await call(app, "it_coverage", {}),
        }
    finally:
        await app.close()


def _assert_served_with_a_note(answers: dict[str, tuple[bool, dict]], build_name: str) -> None:
    for name, (is_error, payload) in answers.items():
        assert not is_error, (name, payload)
        note = payload["notes"][0]
        assert note.startswith("index_corrupt:") and "`it-eli statutes rebuild`" in note and build_name in note, name
    assert answers["search"][1]["total"] > 0
    assert "motivat" in answers["text"][1]["text"]
    assert answers["verify"][1]["status"] == "VERIFIED" and answers["verify"][1]["summary"]["verified"] == 2
    assert answers["coverage"][1]["statutes"]["acts"] == 2


@pytest.mark.parametrize("how", list(BROKEN_POINTERS))
async def test_a_broken_current_pointer_serves_the_acts_with_a_note_and_creates_nothing(imported, how):
    root = index_root(imported)
    build = IndexDir(root).current()
    BROKEN_POINTERS[how](root)
    before = _snapshot(root)
    _assert_served_with_a_note(await _answers(imported), build.name)
    assert _snapshot(root) == before  # no empty index made, CURRENT not repointed over the damage


@pytest.mark.parametrize("ext", SEGMENT_FILES)
async def test_truncated_files_fall_back_to_the_previous_build(imported, ext):
    store = StatuteStore(imported)
    previous = IndexDir(index_root(imported)).current()
    time.sleep(1.1)  # build names carry the second they were made
    assert store.rebuild() > 0
    current = IndexDir(index_root(imported)).current()
    assert current != previous and previous.is_dir()
    _truncate(current, ext)
    _assert_served_with_a_note(await _answers(imported), previous.name)


@pytest.mark.parametrize("ext", ["store", "term"])
async def test_with_no_build_to_fall_back_on_the_error_is_typed_and_rebuild_repairs(imported, ext):
    _truncate(IndexDir(index_root(imported)).current(), ext)
    answers = await _answers(imported)
    for name in ("search", "text", "verify"):
        is_error, payload = answers[name]
        assert is_error and payload["code"] == "index_corrupt" and payload["details"]["command"] == "it-eli statutes rebuild"
    coverage = answers["coverage"][1]
    assert coverage["statutes"]["acts"] == 0 and coverage["notes"][0].startswith("index_corrupt:")

    env = {**os.environ, "IT_ELI_HOME": str(imported.home), "IT_ELI_LOG_LEVEL": "WARNING"}
    run = subprocess.run([sys.executable, "-m", "it_eli", "statutes", "rebuild"], capture_output=True, text=True,
                         env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-1500:]
    repaired = await _answers(imported)
    assert not repaired["search"][0] and repaired["search"][1]["total"] > 0
    assert not any(n.startswith("index_corrupt") for _, p in repaired.values() for n in p["notes"])
    assert repaired["verify"][1]["status"] == "VERIFIED"


def test_the_import_command_stores_into_the_build_it_serves_and_warns(imported, testdata):
    """`statutes import` over a broken CURRENT: the acts land beside the others (no empty index
    published over them), and stderr says the index is corrupt."""
    root = index_root(imported)
    build = IndexDir(root).current()
    (root / "CURRENT").write_bytes(b"\x00garbage")
    env = {**os.environ, "IT_ELI_HOME": str(imported.home), "IT_ELI_LOG_LEVEL": "WARNING"}
    run = subprocess.run([sys.executable, "-m", "it_eli", "statutes", "import",
                          str(testdata / "normattiva-akn" / "mcp-legal-it__dlgs_231_2001.xml")],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0 and "index_corrupt" in run.stderr, run.stderr[-1500:]
    assert sorted(p.name for p in (root / "builds").iterdir()) == [build.name]
    assert len(StatuteStore(imported).list_acts()) == 3
