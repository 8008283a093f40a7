"""The table core is pure: it imports the standard library (no asyncio, no I/O), the rules engine and
the bots, and nothing of the live server (no store, no sockets, no live rooms)."""

from __future__ import annotations

import sys
from pathlib import Path

from import_checks import SERVER, imported_modules

TABLE = SERVER / "table"
FORBIDDEN_STDLIB = {"asyncio", "socket", "threading", "time", "random", "secrets", "os", "subprocess"}


def imported(path: Path) -> list[str]:
    """Absolute names of the modules a file of server/table imports."""
    return imported_modules(path.read_text(encoding="utf-8"), ["server", "table"])


def allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top == "server":
        return name.startswith(("server.table", "server.rules", "server.bots"))
    return top == "__future__" or (top in sys.stdlib_module_names and top not in FORBIDDEN_STDLIB)


def test_the_table_core_imports_no_asyncio_store_socket_clock_or_randomness() -> None:
    files = sorted(TABLE.glob("*.py"))
    assert len(files) >= 7
    offending = [(path.name, name) for path in files for name in imported(path) if not allowed(name)]
    assert offending == []


def test_the_check_tells_the_layers_apart() -> None:
    assert allowed("server.rules.deal") and allowed("server.bots") and allowed("dataclasses")
    assert not allowed("server.store") and not allowed("server.live.room") and not allowed("asyncio")
    assert not allowed("time") and not allowed("secrets") and not allowed("websockets")
