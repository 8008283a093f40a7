"""The shape of `bench/`, read from its source: modules run with `python -m bench.<name>` that import
each other without a circle, never edit `sys.path`, never import the tests, start no program written
in a string (`python -c`), and that the server never imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def imported(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def bench_modules() -> dict[str, Path]:
    return {f"bench.{path.stem}": path for path in sorted(BENCH.glob("*.py")) if path.stem != "__init__"}


def test_the_bench_modules_import_each_other_without_a_circle() -> None:
    modules = bench_modules()
    graph = {name: sorted(imported(path) & modules.keys() - {name}) for name, path in modules.items()}
    assert graph["bench.load_human"] == ["bench.fast_socket", "bench.helpers"]  # the graph is read at all
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"an import circle: {' -> '.join((*path, name))}"
        if name not in done:
            for other in graph[name]:
                visit(other, (*path, name))
            done.add(name)

    for name in graph:
        visit(name, ())


def test_no_bench_module_edits_sys_path_imports_the_tests_or_runs_a_string() -> None:
    for name, path in bench_modules().items():
        tree = ast.parse(path.read_text(), str(path))
        edits = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "sys"]
        assert not edits, f"{name} uses sys.path (lines {edits})"
        tests = sorted(module for module in imported(path) if module.split(".")[0] in ("tests", "conftest"))
        assert not tests, f"{name} imports {tests}"
        inline = [node.lineno for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value == "-c"]
        assert not inline, f"{name} starts a program written in a string (lines {inline})"


def test_the_server_never_imports_bench() -> None:
    importers = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "server").rglob("*.py")
                       if any(module.split(".")[0] == "bench" for module in imported(path)))
    assert importers == []
