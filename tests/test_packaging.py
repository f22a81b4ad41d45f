"""The wheel carries what the code needs: every subpackage, the index definitions, py.typed, and
every third-party package the code imports is a declared dependency."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# import name -> distribution name, where they differ
DIST_OF = {"mcp_types": "mcp-types", "aia_chaser": "aia-chaser", "lxml": "lxml", "yaml": "pyyaml",
           "spellchecker": "pyspellchecker"}


def _dist_names(reqs: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, 1)[0].strip().lower().replace("_", "-") for r in reqs}


def test_every_subpackage_is_shipped():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "it_eli").rglob("__init__.py")}
    on_disk = {p for p in on_disk if "__pycache__" not in p}
    assert on_disk | {"it_eli.index_schema"} == listed


def test_index_definitions_and_stopwords_are_package_data():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["it_eli.index_schema"]
    shipped = {p.name for p in (ROOT / "index_schema").iterdir() if any(p.match(g) for g in data)}
    assert {"analyzers.toml", "decisions.toml", "statute_articles.toml", "stopwords_it.txt"} <= shipped
    assert (ROOT / "it_eli" / "py.typed").is_file()


def test_the_code_finds_the_definitions_through_the_package():
    from it_eli.search.analysis import SCHEMA_DIR, stopwords

    assert (SCHEMA_DIR / "decisions.toml").is_file()
    assert "della" in stopwords()


def test_every_imported_third_party_package_is_declared():
    declared = _dist_names(PYPROJECT["project"]["dependencies"])
    stdlib = set(sys.stdlib_module_names)
    imported: set[str] = set()
    for path in (ROOT / "it_eli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in stdlib and m != "it_eli"}
    missing = {m for m in third_party if DIST_OF.get(m, m).lower().replace("_", "-") not in declared}
    assert not missing, f"imported but not declared in pyproject dependencies: {sorted(missing)}"


def test_build_backend_supports_the_spdx_licence_string():
    # `license = "Apache-2.0"` (an SPDX expression) needs setuptools 77 or later
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    req = next(r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools"))
    assert int(re.search(r">=(\d+)", req).group(1)) >= 77
