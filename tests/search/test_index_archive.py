"""Pre-built index archives: export, verified import, first-use provisioning from a URL.

Built from the real Court sample and real Akoma Ntoso exports (read in place). A refused archive
must change nothing: CURRENT names the same build, the previous index keeps answering, and no
file appears outside the index directory.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import msgspec
import pytest
import zstandard
from aiohttp import web
from aiohttp.test_utils import TestServer

from it_eli.cli import main as cli
from it_eli.services.app import App
from it_eli.search.decisions.reader import DecisionIndex
from it_eli.search.decisions.build import build_index
from it_eli.runtime.errors import ArchiveInvalid, IndexSchemaMismatch, InvalidArg
from it_eli.search.index_archive import export_index
from it_eli.search.archive_import import import_archive
from it_eli.search.statutes.store import StatuteStore
from it_eli.search.statutes.loading import import_files
from it_eli.mcp.tools import load_all
from it_eli.mcp.tools.registry import call

SAMPLE = "cortecost/P_json2001_oggi.RECONSTRUCTED.zip"
QUERIES = [
    "manifesta inammissibilità", "legittimità costituzionale", '"questione di legittimità"', "art. 3 Costituzione",
    "pensione", "tributi OR imposta", "giudice a quo -ordinanza", "rimession*", "relatore:Marini",
]


def _answers(settings) -> list:
    idx = DecisionIndex(settings)
    return [msgspec.to_builtins(idx.search(q)) for q in QUERIES]


@pytest.fixture
def built(testdata, make_settings, tmp_path):
    """A home with the real sample's index, and its exported archive."""
    settings = make_settings(home=str(tmp_path / "built"), auto_build="0")
    assert build_index(settings, [testdata / SAMPLE]).published
    archive = tmp_path / "decisions.tar.zst"
    report = export_index(settings, archive)
    return settings, archive, report


@pytest.fixture
def serving(testdata, make_settings, tmp_path):
    """A second home whose own index (the same sample, built there) is serving."""
    settings = make_settings(home=str(tmp_path / "serving"), auto_build="0")
    assert build_index(settings, [testdata / SAMPLE]).published
    return settings


def _state(settings) -> tuple[str | None, list[str], list[str]]:
    idx = DecisionIndex(settings)
    builds = sorted(p.name for p in idx.idir.builds.iterdir())
    files = sorted(str(p.relative_to(settings.home)) for p in settings.home.rglob("*") if p.is_file() and "logs" not in p.parts)
    return idx.idir.current_token(), builds, files


def _repack(src: Path, dest: Path, *, manifest=None, extra: list[tuple[tarfile.TarInfo, bytes | None]] = (), alter=None) -> Path:
    """Rewrite an exported archive: change its manifest, add crafted members, or alter one member."""
    with _tar(src) as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as out:
        for m, data in members:
            if m.name == "manifest.json" and manifest is not None:
                data = json.dumps(manifest(json.loads(data))).encode()
                m.size = len(data)
            if alter and m.name == alter:
                data = bytes([data[0] ^ 0xFF]) + data[1:]
            out.addfile(m, io.BytesIO(data))
            if m.name == "manifest.json":
                for info, payload in extra:
                    out.addfile(info, io.BytesIO(payload) if payload is not None else None)
    dest.write_bytes(zstandard.ZstdCompressor(write_checksum=True).compress(buf.getvalue()))
    return dest


def _tar(archive: Path) -> tarfile.TarFile:
    return tarfile.open(fileobj=io.BytesIO(zstandard.ZstdDecompressor().decompress(archive.read_bytes())))


# ---------------------------------------------------------------- round trip

def test_round_trip_into_an_empty_home_answers_identically_and_records_the_archive(built, make_settings, tmp_path):
    settings, archive, exported = built
    manifest = json.loads(_tar(archive).extractfile("manifest.json").read())
    assert manifest["indexes"][0]["count"] == 12 and manifest["indexes"][0]["year_range"] == [2001, 2001]
    assert manifest["indexes"][0]["sources"][0].endswith(SAMPLE.split("/")[1])
    assert all(len(f["sha256"]) == 64 for f in manifest["files"]) and manifest["it_eli_version"]

    fresh = make_settings(home=str(tmp_path / "fresh"), auto_build="0")
    report = import_archive(fresh, archive, sha256=exported.sha256)
    assert report.published == ["decisions"] and report.sha256 == exported.sha256
    assert _answers(fresh) == _answers(settings)
    origin = DecisionIndex(fresh).stats().origin
    assert origin.kind == "imported" and origin.archive_sha256 == exported.sha256
    assert origin.archive == str(archive.resolve()) and origin.sources == DecisionIndex(settings).stats().sources
    here = DecisionIndex(settings).stats().origin
    assert here.kind == "built" and here.archive is None and here.sources[0].endswith(".zip")


def test_a_running_reader_switches_to_the_imported_index(built, serving):
    _, archive, exported = built
    reader = DecisionIndex(serving)  # as a server holds it
    before = reader.search("manifesta inammissibilità")
    assert reader.stats().origin.kind == "built"
    import_archive(serving, archive)
    assert reader.stats().origin.archive_sha256 == exported.sha256
    assert [h.ecli for h in reader.search("manifesta inammissibilità").hits] == [h.ecli for h in before.hits]


def test_export_without_an_index_says_what_to_do_first(make_settings, built, tmp_path):
    empty = make_settings(home=str(tmp_path / "empty"), auto_build="0")
    with pytest.raises(InvalidArg) as info:
        export_index(empty, tmp_path / "x.tar.zst")
    assert "it-eli index build" in info.value.valid
    settings, _, _ = built
    with pytest.raises(InvalidArg) as info:
        export_index(settings, tmp_path / "y.tar.zst", with_statutes=True)
    assert "it-eli statutes import" in info.value.valid
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(("x.", "y."))]


def test_statutes_travel_with_the_index_on_request(testdata, built, make_settings, tmp_path):
    settings, _, _ = built
    akn = testdata / "normattiva-akn"
    rep = import_files(settings, [str(akn / "mcp-legal-it__legge_241_1990.xml"), str(akn / "mcp-legal-it__costituzione.xml")])
    assert rep.errors == []
    archive = tmp_path / "all.tar.zst"
    export_index(settings, archive, with_statutes=True)
    fresh = make_settings(home=str(tmp_path / "fresh"), auto_build="0")
    assert import_archive(fresh, archive).published == ["decisions", "statute_articles"]
    old, new = StatuteStore(settings), StatuteStore(fresh)
    cost = "urn:nir:stato:costituzione"
    version = new.versions(cost)[0].version
    assert new.get_article(cost, "3", version).text == old.get_article(cost, "3", version).text
    # the kept exports came too: a rebuild in the new home finds every article again
    assert new.rebuild() == old.rebuild()


# ---------------------------------------------------------------- refusals change nothing

def _refused(settings, archive, exc_type, reason=None, **kw):
    before = _state(settings)
    answers = _answers(settings)
    with pytest.raises(exc_type) as info:
        import_archive(settings, archive, **kw)
    assert _state(settings) == before
    assert _answers(settings) == answers
    if reason:
        assert info.value.details["reason"] == reason
    return info.value


def test_wrong_sha256_is_refused(built, serving):
    _, archive, _ = built
    err = _refused(serving, archive, ArchiveInvalid, "sha256_mismatch", sha256="0" * 64)
    assert err.code == "archive_invalid" and "download it again" in err.valid


def test_truncated_archive_is_refused(built, serving, tmp_path):
    _, archive, _ = built
    data = archive.read_bytes()
    for cut in (200, len(data) // 2, len(data) - 10, len(data) - 5):
        short = tmp_path / f"short-{cut}.tar.zst"
        short.write_bytes(data[:cut])
        _refused(serving, short, ArchiveInvalid, "corrupt")
        # with the digest pinned, the digest is what is reported wrong
        _refused(serving, short, ArchiveInvalid, "sha256_mismatch", sha256=hashlib.sha256(data).hexdigest())


def test_altered_member_is_refused(built, serving, tmp_path):
    _, archive, _ = built
    bad = _repack(archive, tmp_path / "altered.tar.zst", alter="decisions/meta.json")
    _refused(serving, bad, ArchiveInvalid, "member_mismatch")


def _member(name, kind=tarfile.REGTYPE, data=b"x", linkname=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


@pytest.mark.parametrize("member", [
    _member("../evil"),
    _member("decisions/../../evil"),
    _member("/tmp/evil-absolute"),
    _member("elsewhere/evil"),
    _member("decisions/link", tarfile.SYMTYPE, linkname="/etc/passwd"),
    _member("decisions/hard", tarfile.LNKTYPE, linkname="decisions/meta.json"),
    _member("decisions/dev", tarfile.CHRTYPE),
    _member("decisions/fifo", tarfile.FIFOTYPE),
], ids=["dotdot", "nested-dotdot", "absolute", "unknown-root", "symlink", "hardlink", "device", "fifo"])
def test_member_outside_the_index_or_not_a_plain_file_is_refused(built, serving, tmp_path, member):
    _, archive, _ = built
    bad = _repack(archive, tmp_path / "hostile.tar.zst", extra=[member])
    _refused(serving, bad, ArchiveInvalid)
    assert not (tmp_path / "evil").exists() and not Path("/tmp/evil-absolute").exists()


def _raw_member(info: tarfile.TarInfo, data: bytes, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    info.size = len(data)
    return info.tobuf(fmt, "utf-8", "surrogateescape") + data + bytes(-len(data) % tarfile.BLOCKSIZE)


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT], ids=["pax", "gnu-longname"])
@pytest.mark.parametrize("where", ["after-manifest", "first"])
def test_oversized_extended_headers_are_refused(built, serving, tmp_path, fmt, where):
    """A member whose name is 3 MB long: an extended header tarfile would read whole."""
    _, archive, _ = built
    with _tar(archive) as tar:
        members = [_raw_member(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    hostile = _raw_member(tarfile.TarInfo("decisions/" + "a" * 3_000_000), b"", fmt)
    members.insert(0 if where == "first" else 1, hostile)
    bad = tmp_path / "headers.tar.zst"
    bad.write_bytes(zstandard.ZstdCompressor().compress(b"".join(members) + bytes(2 * tarfile.BLOCKSIZE)))
    # refused at the header, before tarfile buffers it: first by the manifest check, later by the
    # bound on one read (without it the 3 MB name would be read whole, then refused as unlisted)
    _refused(serving, bad, ArchiveInvalid, "manifest" if where == "first" else "too_large")


def test_file_not_in_the_manifest_is_refused(built, serving, tmp_path):
    _, archive, _ = built
    bad = _repack(archive, tmp_path / "extra.tar.zst", extra=[_member("decisions/smuggled.bin")])
    _refused(serving, bad, ArchiveInvalid, "manifest")


def test_archive_of_another_schema_version_is_refused(built, serving, tmp_path):
    _, archive, _ = built

    def older(m):
        m["indexes"][0]["schema_version"] -= 1
        return m

    err = _refused(serving, _repack(archive, tmp_path / "old.tar.zst", manifest=older), IndexSchemaMismatch)
    assert err.code == "index_schema_mismatch" and "it-eli index build" in err.valid

    def other_analyzer(m):
        m["analyzer_version"] += 1
        return m

    _refused(serving, _repack(archive, tmp_path / "an.tar.zst", manifest=other_analyzer), IndexSchemaMismatch)


def test_bombs_are_bounded_before_unpacking(built, serving, tmp_path):
    _, archive, exported = built
    _refused(serving, archive, ArchiveInvalid, "too_large", max_unpacked_bytes=exported.unpacked_bytes - 1)
    _refused(serving, archive, ArchiveInvalid, "too_many_members", max_members=exported.files - 1)

    def lying(m):  # a manifest that under-declares a member: writing stops at the declared size
        m["files"][-1]["size"] = 1
        return m

    _refused(serving, _repack(archive, tmp_path / "lying.tar.zst", manifest=lying), ArchiveInvalid, "member_mismatch")


def test_not_an_archive_is_refused(serving, tmp_path):
    junk = tmp_path / "junk.tar.zst"
    junk.write_bytes(zstandard.ZstdCompressor().compress(b"not a tar file at all" * 100))
    _refused(serving, junk, ArchiveInvalid)
    junk.write_bytes(gzip.compress(b"not zstd either" * 100))
    _refused(serving, junk, ArchiveInvalid, "corrupt")
    unsized = tmp_path / "unsized.tar.zst"  # a frame that does not say how much it unpacks to
    unsized.write_bytes(zstandard.ZstdCompressor(write_content_size=False).compress(b"\0" * 10240))
    _refused(serving, unsized, ArchiveInvalid, "manifest")
    _refused(serving, tmp_path / "missing.tar.zst", InvalidArg)


def test_cli_exports_and_refuses_a_wrong_digest_with_the_error_code(built, serving, monkeypatch, capsys, tmp_path):
    settings, _, _ = built
    monkeypatch.setenv("IT_ELI_HOME", str(settings.home))
    out = tmp_path / "cli.tar.zst"
    assert cli.main(["index", "export", str(out)]) == 0
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert f"sha256 {digest}" in capsys.readouterr().out
    monkeypatch.setenv("IT_ELI_HOME", str(serving.home))
    before = _state(serving)
    assert cli.main(["index", "import", str(out), "--sha256", "f" * 64]) == 2
    assert "error (archive_invalid)" in capsys.readouterr().err and _state(serving) == before
    assert cli.main(["index", "import", str(out), "--sha256", digest]) == 0
    assert DecisionIndex(serving).stats().origin.archive_sha256 == digest


def test_cli_refuses_a_url_off_the_allow_list(serving, monkeypatch, capsys):
    monkeypatch.setenv("IT_ELI_HOME", str(serving.home))
    before = _state(serving)
    assert cli.main(["index", "import", "http://index-mirror.example/decisions.tar.zst"]) == 2
    err = capsys.readouterr().err
    assert "error (invalid_arg)" in err and "allow-list" in err
    assert _state(serving) == before


# ---------------------------------------------------------------- first use from a URL

class ArchiveHost:
    """A real local HTTP server: the archive under /indexes/, the Court's sample under the
    open-data path (the other open-data archives 404); counts requests per path."""

    def __init__(self, archive: Path, sample: Path) -> None:
        self.archive, self.sample = archive, sample
        self.hits: dict[str, int] = {}

    async def handle(self, request: web.Request):
        self.hits[request.path] = self.hits.get(request.path, 0) + 1
        if request.path == "/indexes/decisions.tar.zst":
            return web.FileResponse(self.archive)
        if request.path.endswith("/P_json2001_oggi.zip"):
            return web.FileResponse(self.sample)
        return web.Response(status=404)

    async def __aenter__(self):
        app = web.Application()
        app.router.add_get("/{tail:.*}", self.handle)
        self.server = TestServer(app)
        await self.server.start_server()
        return self

    async def __aexit__(self, *exc):
        await self.server.close()

    def url(self, path: str) -> str:
        return str(self.server.make_url(path))


def _first_use_settings(make_settings, tmp_path, host, **extra):
    return make_settings(
        home=str(tmp_path / "first-use"), caselaw_index_url=host.url("/indexes/decisions.tar.zst"),
        cortecost_opendata_url=host.url("/opendata/distribuzione/pronunce/"), **extra,
    )


async def test_first_use_provisions_from_the_configured_url(built, testdata, make_settings, tmp_path):
    _, archive, exported = built
    load_all()
    async with ArchiveHost(archive, testdata / SAMPLE) as host:
        settings = _first_use_settings(make_settings, tmp_path, host, caselaw_index_sha256=exported.sha256)
        assert f"127.0.0.1:{host.server.port}" in settings.allowed_hosts
        app = App(settings)
        try:
            is_error, payload = await call(app, "it_case_search", {"query": "manifesta inammissibilità"})
            assert not is_error and payload["total"] > 0
            _, stats = await call(app, "it_case_stats", {})
        finally:
            await app.close()
        assert stats["origin"]["kind"] == "imported" and stats["origin"]["archive_sha256"] == exported.sha256
        assert stats["origin"]["archive"] == host.url("/indexes/decisions.tar.zst")
        assert not any("opendata" in p for p in host.hits)  # no open-data build happened
        assert list((settings.home / "downloads").glob("*")) == []  # the download is not kept


async def test_first_use_falls_back_to_the_open_data_when_the_archive_is_refused(built, testdata, make_settings, tmp_path):
    _, archive, _ = built
    load_all()
    async with ArchiveHost(archive, testdata / SAMPLE) as host:
        settings = _first_use_settings(make_settings, tmp_path, host, caselaw_index_sha256="a" * 64)
        app = App(settings)
        try:
            is_error, payload = await call(app, "it_case_search", {"query": "manifesta inammissibilità"})
            _, stats = await call(app, "it_case_stats", {})
        finally:
            await app.close()
    assert not is_error and payload["total"] > 0
    assert stats["origin"]["kind"] == "built" and stats["origin"]["sources"][0].endswith("P_json2001_oggi.zip")
    assert host.hits["/indexes/decisions.tar.zst"] == 1


@pytest.mark.parametrize("switch", ["caselaw_autobuild", "auto_build"])
async def test_autobuild_off_under_either_name_fetches_nothing(built, testdata, make_settings, tmp_path, switch):
    _, archive, _ = built
    load_all()
    async with ArchiveHost(archive, testdata / SAMPLE) as host:
        settings = _first_use_settings(make_settings, tmp_path, host, **{switch: "0"})
        app = App(settings)
        try:
            is_error, payload = await call(app, "it_case_search", {"query": "pensione"})
        finally:
            await app.close()
    assert is_error and payload["code"] == "index_missing" and "it-eli index import" in payload["valid"]
    assert host.hits == {}


def test_a_malformed_pinned_digest_or_url_is_a_configuration_error(make_settings):
    with pytest.raises(InvalidArg, match="IT_ELI_CASELAW_INDEX_SHA256"):
        make_settings(caselaw_index_sha256="abc")
    with pytest.raises(InvalidArg, match="IT_ELI_CASELAW_INDEX_URL"):
        make_settings(caselaw_index_url="ftp://example.org/index.tar.zst")
    assert make_settings().caselaw_index_url is None


async def test_cli_imports_from_a_configured_url(built, serving, testdata, monkeypatch, capsys):
    import asyncio

    _, archive, exported = built
    async with ArchiveHost(archive, testdata / SAMPLE) as host:
        url = host.url("/indexes/decisions.tar.zst")
        monkeypatch.setenv("IT_ELI_HOME", str(serving.home))
        monkeypatch.setenv("IT_ELI_CASELAW_INDEX_URL", url)
        code = await asyncio.to_thread(cli.main, ["index", "import", url, "--sha256", exported.sha256])
    assert code == 0 and f"sha256 {exported.sha256}" in capsys.readouterr().out
    origin = DecisionIndex(serving).stats().origin
    assert origin.kind == "imported" and origin.archive == url
