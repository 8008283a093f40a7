"""Dependencies point one way (docs/architecture.md): rules <- bots <- rooms <- app."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

BOTS = Path(__file__).resolve().parents[2] / "server" / "bots"


def allowed(module: str) -> bool:
    """Standard library, the rules engine, or the bots package itself."""
    top = module.split(".")[0]
    if top == "server":
        return module.startswith(("server.rules", "server.bots"))
    return top == "__future__" or top in sys.stdlib_module_names


def test_allowed_tells_the_layers_apart() -> None:
    assert allowed("server.rules.cards") and allowed("hashlib") and allowed("collections.abc")
    assert not allowed("server.rooms") and not allowed("redis") and not allowed("websockets")


def test_bots_import_only_the_standard_library_and_the_rules_engine() -> None:
    offending = []
    for path in sorted(BOTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: only within server.bots
                    if node.level > 1:
                        offending.append((path.name, "." * node.level + (node.module or "")))
                    continue
                names = [node.module or ""]
            offending += [(path.name, name) for name in names if not allowed(name)]
    assert offending == []
