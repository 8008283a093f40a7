"""The layers of the server package point one way, and only one way.

From the bottom: the rules engine, the bots, the table core, the store, the coordination primitives,
the live layer, the edge (the WebSocket and HTTP server, the wire protocol, the daily challenge, the
command-line client, the cluster launcher, the entry point). A module may import its own layer and the
layers below it, never one above; the imports of the whole package (wherever they sit, in a function
too) form no cycle; and no import hides under `if TYPE_CHECKING:`, the usual way to dodge a cycle.
Every module of the package belongs to a layer named here: a new top-level module must be placed.
"""

from __future__ import annotations

import functools
import sys

import pytest
from import_checks import (
    SERVER,
    find_cycle,
    import_graph,
    imported_modules,
    package_sources,
    type_checking_imports,
)

LAYERS = ("rules", "bots", "table", "store", "coord", "live", "edge")
# The layer of each top-level module or package of server/ (a package: all of its modules).
LAYER_OF = {
    "server": "rules",  # the package itself imports nothing
    "server.rules": "rules",
    "server.bots": "bots",
    "server.table": "table",
    "server.store": "store",
    "server.leaderboard": "store",  # the stored leaderboard's lines (the store keeps them)
    "server.archive": "store",  # the durable archive of finished sessions: a storage port beside the store
    "server.coord": "coord",
    "server.live": "live",
    **{f"server.{name}": "edge" for name in (
        "server", "connection", "settings", "http", "protocol", "challenge", "client", "cluster", "__main__",
        "metrics", "limits", "fd_limits", "gc_policy", "loop_lag", "replay_service", "static_files", "api")},
}
# Besides the standard library, what the table core may import: the layers below it.
TABLE_MAY_IMPORT = ("server.table", "server.rules", "server.bots")
IMPURE_STDLIB = {"asyncio", "socket", "threading", "time", "random", "secrets", "os", "subprocess", "io",
                 "selectors", "select", "multiprocessing", "concurrent"}


def layer(module: str) -> int:
    """The rank of a module's layer (0: the rules engine); KeyError for a module of no layer."""
    parts = module.split(".")
    for size in range(len(parts), 0, -1):
        name = ".".join(parts[:size])
        if name in LAYER_OF:
            return LAYERS.index(LAYER_OF[name])
    raise KeyError(module)


def upward_imports(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """The imports of `sources` that point to a higher layer."""
    graph, _ = import_graph(sources)
    return sorted(f"{importer} ({layer_name(importer)}) imports {imported} ({layer_name(imported)})"
                  for importer, targets in graph.items() for imported in targets
                  if layer(imported) > layer(importer))


def layer_name(module: str) -> str:
    """The name of a module's layer."""
    return LAYERS[layer(module)]


@functools.cache
def _server_sources() -> dict[str, tuple[str, bool]]:
    return package_sources(SERVER)


def server_sources() -> dict[str, tuple[str, bool]]:
    """Every module of the server package (a copy: a check may change it)."""
    sources = dict(_server_sources())
    assert {"server.rules.deal", "server.live.room", "server.live.ownership", "server.server"} <= set(sources)
    return sources


def test_every_module_of_the_server_package_belongs_to_a_layer() -> None:
    unplaced = []
    for module in server_sources():
        try:
            layer(module)
        except KeyError:
            unplaced.append(module)
    assert unplaced == [], "place each new top-level module in LAYER_OF"


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert upward_imports(server_sources()) == []


def test_the_imports_of_the_whole_package_form_no_cycle() -> None:
    graph, _ = import_graph(server_sources())
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_no_import_hides_under_type_checking() -> None:
    assert type_checking_imports(server_sources()) == []


def test_the_table_core_imports_no_asyncio_io_clock_or_randomness() -> None:
    offending = []
    for module, (source, is_package) in package_sources(SERVER / "table").items():
        package = module.split(".") if is_package else module.split(".")[:-1]
        for name in imported_modules(source, package):
            top = name.split(".")[0]
            if top == "server":
                if not name.startswith(TABLE_MAY_IMPORT):
                    offending.append(f"{module}: {name}")
            elif top != "__future__" and (top not in sys.stdlib_module_names or top in IMPURE_STDLIB):
                offending.append(f"{module}: {name}")
    assert offending == []


@pytest.mark.parametrize(("importer", "source", "upward"), [
    ("server.live.room", "from ..protocol import CreateRoom\n", True),
    ("server.table.play", "def f():\n    from ..live import Tables\n", True),  # hidden in a function too
    ("server.store.base", "from ..coord import Coordination\n", True),
    ("server.live.room", "from ..store import Store\nfrom ..table import facts\n", False),
    ("server.server", "from .live import Tables\nfrom .rules import Session\n", False),
])
def test_the_check_catches_an_upward_import(importer: str, source: str, upward: bool) -> None:
    sources = server_sources()
    sources[importer] = (source, sources[importer][1])
    found = [line for line in upward_imports(sources) if line.startswith(f"{importer} ")]
    assert bool(found) is upward, found


def test_the_check_catches_a_type_checking_import() -> None:
    sources = {"server.live.change": ("if TYPE_CHECKING:\n    from .room import LiveRoom\n", False),
               "server.live.room": ("from .change import CommittedChange\n", False)}
    assert type_checking_imports(sources) == ["server.live.change line 2: from .room import LiveRoom"]
