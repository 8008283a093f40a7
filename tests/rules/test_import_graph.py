"""The modules of server/rules import one another one way: no cycle, and no import hidden in a function.

Every import of a rules module must sit at the top of its module (not in a function, a class or an
`if TYPE_CHECKING:` block, the usual ways to dodge a cycle), and the graph of imports between the
modules of server/rules must be acyclic. A package's `__init__` running before its submodules is not an
edge: only what a module names in its own imports is.
"""

from __future__ import annotations

import pytest
from import_checks import SERVER, find_cycle, import_graph, package_sources

RULES = SERVER / "rules"


def rules_sources() -> dict[str, tuple[str, bool]]:
    return package_sources(RULES)


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
