"""The layers, read from the imports: adapters -> services -> index/sources -> law core.

The MCP tools (it_eli/mcp/tools/), the MCP server and the CLIs are the adapters: only they may import
one another, and only they cut answers to an answer budget and page them. A domain module that
imports an adapter, or a public domain function that takes `max_chars`/`offset`, puts MCP paging
back into the domain (verification once asked the MCP layer for a 50-million-character page).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "it_eli"

ADAPTER_MODULES = ("it_eli.mcp", "it_eli.cli", "it_eli.__main__")
PAGING_PARAMETERS = frozenset({"max_chars", "offset", "next_offset"})



def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_adapter(module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in ADAPTER_MODULES)


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(module: str, tree: ast.Module, is_package: bool) -> set[str]:
    """Every module name an import statement of `module` may load, absolute or relative, at any depth
    (imports inside functions count: a lazy import is still a dependency)."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def _public_functions(module: str, tree: ast.Module):
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and not child.name.startswith("_"):
                yield f"{prefix}{child.name}", child

    yield from walk(tree, f"{module}.")


def test_the_import_reader_sees_relative_and_lazy_imports():
    tree = ast.parse("def f():\n    from ..mcp.tools.legislation import x\nfrom .registry import tool\n")
    seen = _imported("it_eli.services.legislation", tree, is_package=False)
    assert "it_eli.mcp.tools.legislation" in seen and "it_eli.services.registry" in seen


def test_only_the_adapters_import_the_adapters():
    modules = _modules()
    assert "it_eli.services.legislation" in modules and "it_eli.mcp.tools.legislation" in modules
    offenders = []
    for name, tree in modules.items():
        if _is_adapter(name):
            continue
        is_package = (PACKAGE.parent / Path(*name.split("."))).is_dir()
        bad = sorted(m for m in _imported(name, tree, is_package) if _is_adapter(m) and m.startswith("it_eli."))
        if bad:
            offenders.append(f"{name} imports {', '.join(bad)}")
    assert not offenders, "domain modules importing the MCP/CLI adapters:\n" + "\n".join(offenders)


def test_no_domain_function_pages_its_answer():
    found: dict[str, set[str]] = {}
    for name, tree in _modules().items():
        if _is_adapter(name):
            continue
        for qual, fn in _public_functions(name, tree):
            args = fn.args
            params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} & PAGING_PARAMETERS
            if params:
                found[qual] = params
    assert not found, f"domain functions that take answer-paging parameters (page in the adapter instead): {found}"


def test_the_legislation_service_does_not_page():
    tree = _modules()["it_eli.services.legislation"]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
            assert not names & (PAGING_PARAMETERS | {"size"}), f"{node.name} takes {names & PAGING_PARAMETERS}"


# the index layer: the only modules that may speak Tantivy (docs/architecture.md)
INDEX_MODULES = frozenset({
    "it_eli.search.statutes", "it_eli.search.decisions", "it_eli.search.query", "it_eli.search.query_assist", "it_eli.search.analysis", "it_eli.search.schema",
})


def test_only_the_index_layer_imports_tantivy():
    offenders = []
    for name, tree in _modules().items():
        is_package = (PACKAGE.parent / Path(*name.split("."))).is_dir()
        if name not in INDEX_MODULES and any(m == "tantivy" or m.startswith("tantivy.")
                                             for m in _imported(name, tree, is_package)):
            offenders.append(name)
    assert not offenders, f"Tantivy used outside the index layer (add a method to the store instead): {offenders}"
