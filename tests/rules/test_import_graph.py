"""The modules of server/rules import one another one way: no cycle, and no import hidden in a function.

Every import of a rules module must sit at the top of its module (not in a function, a class or an
`if TYPE_CHECKING:` block, the usual ways to dodge a cycle), and the graph of imports between the
modules of server/rules must be acyclic. A package's `__init__` running before its submodules is not an
edge: only what a module names in its own imports is.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "server" / "rules"


def module_name(path: Path) -> str:
    """`server.rules.variants.couleur` for server/rules/variants/couleur.py (a package: its name)."""
    parts = ["server", *path.relative_to(RULES.parent).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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
    """The import edges between `sources` (name -> (source, is_package)) and the imports that are not at
    the top level of their module."""
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


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """A cycle of the graph, or None."""
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as error:
        return list(error.args[1])
    return None


def rules_sources() -> dict[str, tuple[str, bool]]:
    return {module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
            for path in sorted(RULES.rglob("*.py"))}


def test_server_rules_import_graph_has_no_cycle() -> None:
    sources = rules_sources()
    assert {"server.rules.deal", "server.rules.views", "server.rules.registry"} <= set(sources)
    graph, _ = import_graph(sources)
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"
    # The way the layers point: the ruleset interface knows no deal, views and variants; deals know all.
    assert "server.rules.deal" not in graph["server.rules.views"]
    assert not graph["server.rules.ruleset"] & {"server.rules.deal", "server.rules.views",
                                                  "server.rules.registry"}
    assert "server.rules.views" in graph["server.rules.deal"]


def test_server_rules_has_no_import_inside_a_function_or_a_type_checking_block() -> None:
    _, nested = import_graph(rules_sources())
    assert nested == []


def test_the_checks_catch_a_cycle_and_a_hidden_import() -> None:
    sources = {
        "server.rules": ("", True),
        "server.rules.a": ("from .b import thing\n", False),
        "server.rules.b": ("def f():\n    from .a import other\n", False),
        "server.rules.c": ("if TYPE_CHECKING:\n    from . import a\n", False),
    }
    graph, nested = import_graph(sources)
    assert graph["server.rules.a"] == {"server.rules.b"} and graph["server.rules.c"] == {"server.rules.a"}
    cycle = find_cycle(graph) or []  # where the cycle starts depends on set order (hash randomisation)
    assert len(cycle) == 3 and cycle[0] == cycle[-1] and set(cycle) == {"server.rules.a", "server.rules.b"}
    assert [line.split(" line")[0] for line in nested] == ["server.rules.b", "server.rules.c"]


@pytest.mark.parametrize(("source", "expected"), [
    ("from ..cards import SUITS", {"server.rules.cards"}),
    ("from .. import cards, ruleset", {"server.rules.cards", "server.rules.ruleset"}),
    ("from server.rules.deal import Deal", {"server.rules.deal"}),
    ("import server.rules.views", {"server.rules.views"}),
    ("from . import whist", {"server.rules.variants.whist"}),
])
def test_imports_resolve_to_the_modules_they_name(source: str, expected: set[str]) -> None:
    names = ["server.rules", "server.rules.cards", "server.rules.ruleset", "server.rules.deal",
             "server.rules.views", "server.rules.variants", "server.rules.variants.whist"]
    sources = {name: ("", name.count(".") < 2 or name.endswith("variants")) for name in names}
    sources["server.rules.variants.x"] = (source, False)
    graph, _ = import_graph(sources)
    assert graph["server.rules.variants.x"] == expected
