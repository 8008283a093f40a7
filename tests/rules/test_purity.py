"""server/rules imports only the standard library (tomllib included) and its own modules."""

from __future__ import annotations

import sys

from import_checks import SERVER, imported_modules

RULES = SERVER / "rules"


def impure_imports(source: str, package: list[str]) -> list[str]:
    """The imports of `source` that are neither the standard library nor server.rules."""
    offenders = []
    for name in imported_modules(source, package):
        if name == "server.rules" or name.startswith("server.rules."):
            continue
        top = name.split(".")[0]
        if top == "__future__" or (top in sys.stdlib_module_names and top != "server"):
            continue
        offenders.append(name)
    return offenders


def test_rules_modules_import_only_stdlib_and_server_rules() -> None:
    modules = sorted(RULES.rglob("*.py"))
    assert len(modules) >= 14
    assert "tomllib" in sys.stdlib_module_names
    offenders = {}
    for module in modules:
        package = ["server", *module.relative_to(RULES.parent).parent.parts]
        found = impure_imports(module.read_text(), package)
        if found:
            offenders[str(module)] = found
    assert offenders == {}


def test_purity_check_catches_outside_imports() -> None:
    variants = ["server", "rules", "variants"]
    assert impure_imports("from ..bots import base", ["server", "rules"]) == ["server.bots"]
    assert impure_imports("from ...bots.base import Bot", variants) == ["server.bots.base"]
    assert impure_imports("import redis\nimport pydantic.main", variants) == ["redis", "pydantic.main"]
    assert impure_imports("from server.protocol import X", variants) == ["server.protocol"]
    assert impure_imports("import tomllib, hashlib\nfrom ..deal import Deal\nfrom . import x", variants) == []
