"""What the import checks have in common (the purity of server/rules and server/table, the import graph
of server/rules, the layers of the whole server package): the modules a source imports, read with
`ast` (nothing is imported), and the graph of imports between a package's modules."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "server"


def imported_modules(source: str, package: list[str]) -> list[str]:
    """Absolute names of the modules `source` imports; `package` is its package, e.g. [server, rules]."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names.append(".".join([*base, *(node.module.split(".") if node.module else [])]))
            else:
                assert node.module is not None
                names.append(node.module)
    return names


def module_name(path: Path, root: Path = SERVER) -> str:
    """`server.rules.variants.couleur` for server/rules/variants/couleur.py (a package: its name)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_sources(root: Path) -> dict[str, tuple[str, bool]]:
    """Every module under `root` (a folder of server/, or server/ itself): name -> (source, is_package)."""
    return {module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
            for path in sorted(root.rglob("*.py"))}


def resolve(node: ast.ImportFrom | ast.Import, importer: str, is_package: bool,
            modules: set[str]) -> list[str]:
    """The modules of `modules` that the import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if node.level:
        package = importer.split(".") if is_package else importer.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1])
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module or ""
    named = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules]
    return named or ([target] if target in modules else [])


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> tuple[dict[str, set[str]], list[str]]:
    """The import edges between `sources` (name -> (source, is_package)), wherever the import sits, and
    the imports that are not at the top level of their module."""
    modules = set(sources)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    nested: list[str] = []
    for name, (source, is_package) in sources.items():
        tree = ast.parse(source)
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            targets = [t for t in resolve(node, name, is_package, modules) if t != name]
            if targets and id(node) not in top_level:
                nested.append(f"{name} line {node.lineno}: {ast.unparse(node)}")
            graph[name].update(targets)
    return graph, nested


def type_checking_imports(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """The imports under an `if TYPE_CHECKING:` block (the usual way to dodge a cycle)."""
    found = []
    for name, (source, _) in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                found += [f"{name} line {inner.lineno}: {ast.unparse(inner)}" for inner in ast.walk(node)
                          if isinstance(inner, ast.Import | ast.ImportFrom)]
    return found


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle of the graph, or None."""
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        return list(error.args[1])
    return None
