"""The layers, read from the imports: the folders of it_eli are its architecture.

    it_eli/cli/       the command line             may import mcp and everything below
    it_eli/mcp/       the MCP face                 may import services and everything below
    it_eli/services/  legislation, case law, verification
    it_eli/search/    Tantivy                      may import sources' parsers, not their I/O
    it_eli/sources/   one module per upstream, the one HTTP layer
    it_eli/law/       the Italian legal language, pure
    it_eli/runtime/   plumbing                     imports nothing else of it_eli

Only the two faces (mcp, cli) cut answers to an answer budget and page them: a domain module that
imports a face, or a public domain function that takes `max_chars`/`offset`, puts MCP paging back
into the domain (verification once asked the MCP layer for a 50-million-character page).
Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "it_eli"

# bottom to top: a module may import its own package and the packages before it
LAYERS = ("runtime", "law", "sources", "search", "services", "mcp", "cli")
FACES = ("mcp", "cli")
# outside the layers: the package's face (its version) and `python -m it_eli`
OUTSIDE = {"it_eli": set(LAYERS), "it_eli.__main__": {"cli"}}
SOURCE_IO = frozenset({"it_eli.sources.http", "it_eli.sources.tls"})
PAGING_PARAMETERS = frozenset({"max_chars", "offset", "next_offset"})

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60
# module -> why it may be longer (data tables only; none today)
LONG_MODULES: dict[str, str] = {}
# "module.qualified.name" -> why it may be longer (data tables only; none today)
LONG_FUNCTIONS: dict[str, str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    return {_module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(module: str, tree: ast.Module, is_package: bool) -> set[str]:
    """Every module name an import statement of `module` may load, absolute or relative, at any depth."""
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


def _graph() -> dict[str, set[str]]:
    """module -> the it_eli modules it imports (a name imported from a module is that module)."""
    modules = _modules()
    graph = {}
    for name, (path, tree) in modules.items():
        seen = _imported(name, tree, path.name == "__init__.py")
        graph[name] = {m for m in seen if m in modules and m != name}
    return graph


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node
            yield from _functions(node, f"{prefix}{node.name}.")


def test_the_import_reader_sees_relative_and_lazy_imports():
    tree = ast.parse("def f():\n    from ..mcp.tools.legislation import x\nfrom .references import y\n")
    seen = _imported("it_eli.services.legislation", tree, is_package=False)
    assert "it_eli.mcp.tools.legislation" in seen and "it_eli.services.references" in seen


def test_every_module_sits_in_a_layer():
    stray = sorted(m for m in _modules() if _layer(m) is None and m not in OUTSIDE)
    assert not stray, f"modules outside the layer packages {LAYERS}: {stray}"


def test_imports_run_down_the_layers():
    offenders = []
    for module, imports in _graph().items():
        allowed = OUTSIDE.get(module) or set(LAYERS[: LAYERS.index(_layer(module)) + 1])
        for target in sorted(imports):
            if target in OUTSIDE:
                if target != "it_eli":  # the package's version is everyone's
                    offenders.append(f"{module} imports {target}")
            elif _layer(target) not in allowed:
                offenders.append(f"{module} ({_layer(module) or 'outside'}) imports {target} ({_layer(target)})")
    assert not offenders, "imports against the layers:\n" + "\n".join(offenders)


def test_the_index_reads_sources_without_their_io():
    offenders = [f"{m} imports {t}" for m, ts in _graph().items() if _layer(m) == "search" for t in sorted(ts & SOURCE_IO)]
    assert not offenders, "the index layer does network I/O (move it to a service):\n" + "\n".join(offenders)


def test_no_import_cycles():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, f"modules that import each other: {cycles}"


def test_no_module_is_too_long_to_hold_in_mind():
    long = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, (p, _) in _modules().items()}
    over = {m: n for m, n in long.items() if n > MAX_MODULE_LINES and m not in LONG_MODULES}
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split them, or name the data table in LONG_MODULES): {over}"
    assert set(LONG_MODULES) <= set(long), f"LONG_MODULES names modules that are gone: {set(LONG_MODULES) - set(long)}"


def test_no_function_is_too_long_to_hold_in_mind():
    over = {}
    for module, (_, tree) in _modules().items():
        for qual, fn in _functions(tree):
            lines = fn.end_lineno - fn.lineno + 1
            if lines > MAX_FUNCTION_LINES and f"{module}.{qual}" not in LONG_FUNCTIONS:
                over[f"{module}.{qual}"] = lines
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines (split them, or name the data table in LONG_FUNCTIONS): {over}"


@pytest.mark.parametrize("package", LAYERS)
def test_each_package_says_what_it_holds_and_may_import(package):
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert doc and "import" in doc.lower(), f"it_eli/{package}/__init__.py: say in two lines what it holds and what it may import"


def test_no_domain_function_pages_its_answer():
    found: dict[str, set[str]] = {}
    for name, (_, tree) in _modules().items():
        if _layer(name) in FACES or name in OUTSIDE:
            continue
        for qual, fn in _functions(tree):
            if qual.split(".")[-1].startswith("_") or any(p.startswith("_") for p in qual.split(".")[:-1]):
                continue
            args = fn.args
            params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} & PAGING_PARAMETERS
            if params:
                found[f"{name}.{qual}"] = params
    assert not found, f"domain functions that take answer-paging parameters (page in the adapter instead): {found}"


def test_the_legislation_service_does_not_page():
    package = "it_eli.services.legislation"
    trees = [tree for name, (_, tree) in _modules().items() if name == package or name.startswith(package + ".")]
    assert len(trees) > 1, f"{package} is a package of modules"
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
                assert not names & (PAGING_PARAMETERS | {"size"}), f"{node.name} takes {names & PAGING_PARAMETERS}"


@pytest.mark.parametrize(("library", "home"), [("tantivy", "search"), ("aiohttp", "sources"), ("mcp", "mcp")])
def test_each_library_is_spoken_in_one_layer(library, home):
    """Tantivy only in the index layer (the services ask the stores), aiohttp only in the one HTTP
    layer, the MCP SDK only in the MCP face."""
    offenders = []
    for name, (path, tree) in _modules().items():
        if _layer(name) == home:
            continue
        loaded = _imported(name, tree, path.name == "__init__.py")
        if any(m == library or m.startswith(library + ".") for m in loaded):
            offenders.append(name)
    assert not offenders, f"{library} used outside it_eli/{home}/: {offenders}"
