"""Answers worked out once per index generation (to spare CPU on every call) still follow the
index: what a later import or build adds shows in the very next answer of a running server."""

from __future__ import annotations

from it_eli.services.app import App
from it_eli.runtime.config import load_settings

AKN = "normattiva-akn"
CODICE_APPALTI = "alessionar__20230331_23G00044_VIGENZA_20230530.xml"  # d.lgs. 36/2023, as of 2023-05-30
CORRETTIVO = "scabopdf__dlgs_correttivo_appalti.xml"  # d.lgs. 209/2024, which amends it


def _env(h):
    closed = "http://127.0.0.1:9"
    return {"IT_ELI_HOME": str(h), "IT_ELI_NORMATTIVA_URL": closed, "IT_ELI_NORMATTIVA_API_URL": closed + "/api",
            "IT_ELI_SENTENZEWEB_URL": closed + "/sw", "IT_ELI_GA_URL": closed + "/ga", "IT_ELI_HTTP_TIMEOUT": "1",
            "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_THROTTLE_SECONDS": "0", "IT_ELI_AUTO_BUILD": "0"}


async def test_an_amending_act_imported_later_reaches_the_text_served_before(tmp_path, testdata):
    from it_eli.search.statutes.loading import import_files
    from it_eli.mcp.tools.legislation import it_get_text

    settings = load_settings(_env(tmp_path))
    assert not import_files(settings, [str(testdata / AKN / CODICE_APPALTI)]).errors
    app = App(settings)
    try:
        before = await it_get_text(app, reference="art. 8 d.lgs. 36/2023")
        again = await it_get_text(app, reference="art. 8 d.lgs. 36/2023")
        assert "n. 209" not in before.version_note and again.version_note == before.version_note
        # another process (the CLI) imports the act that amends it while the server runs
        assert not import_files(load_settings(_env(tmp_path)), [str(testdata / AKN / CORRETTIVO)]).errors
        after = await it_get_text(app, reference="art. 8 d.lgs. 36/2023")
        assert "not confirmed current" in after.version_note and "n. 209" in after.version_note
    finally:
        await app.close()
