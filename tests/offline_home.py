"""A throwaway IT_ELI_HOME that never leaves the machine, filled from the captured data.

Shared by the verification tests and the benchmarks (which import it; tests never import
benchmarks). Every upstream URL points at a closed local port, so a missed cache is an
`upstream_unavailable`, never a request to the real services.
"""

from __future__ import annotations

from pathlib import Path

CLOSED = "http://127.0.0.1:9"


def offline_env(home: Path) -> dict[str, str]:
    return {
        "IT_ELI_HOME": str(home), "IT_ELI_NORMATTIVA_URL": CLOSED, "IT_ELI_NORMATTIVA_API_URL": CLOSED + "/api",
        "IT_ELI_SENTENZEWEB_URL": CLOSED + "/sw", "IT_ELI_GA_URL": CLOSED + "/ga", "IT_ELI_HTTP_TIMEOUT": "1",
        "IT_ELI_HTTP_RETRIES": "0", "IT_ELI_THROTTLE_SECONDS": "0", "IT_ELI_AUTO_BUILD": "0",
    }


def prepare_home(settings, testdata: Path) -> None:
    """Import every Normattiva export and build the COST sample index (idempotent)."""
    from it_eli.search.decisions.reader import DecisionIndex
    from it_eli.search.decisions.build import build_index
    from it_eli.search.statutes.store import StatuteStore
    from it_eli.search.statutes.loading import import_files

    if not StatuteStore(settings).list_acts():
        files = sorted(str(p) for p in (testdata / "normattiva-akn").glob("*.xml"))
        rep = import_files(settings, files)
        if rep.errors:
            raise SystemExit(f"import errors: {rep.errors}")
    if not DecisionIndex(settings).exists():
        build_index(settings, [testdata / "cortecost" / "P_json2001_oggi.RECONSTRUCTED.zip"])
