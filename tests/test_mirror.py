"""tests/ mirrors server/: every module `server/<package>/<module>.py` has its own tests under
`tests/<package>/`, in a file whose name contains the module's name (top-level modules `server/<x>.py`:
under `tests/server/`), or is listed in `TESTED_ELSEWHERE` below with the test files that test it.
So a newcomer finds a module's tests where they look first, and a new module without tests is noticed.
Test file names are unique over the whole tree (pytest imports them by basename: no `__init__.py`)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "server"
TESTS = ROOT / "tests"

# Modules without a test file of their own name, and where their tests are (each file really tests the
# module: checked by hand when the entry was written; below, that each file exists and imports from the
# module's package). An entry whose module gets a file of its own name must go (see the last check).
TESTED_ELSEWHERE: dict[str, tuple[str, ...]] = {
    # The archive port, its SQL and both adapters: one contract suite run on SQLite and PostgreSQL.
    "archive/base": ("archive/test_contract.py",),
    "archive/sql": ("archive/test_contract.py",),
    "archive/sqlite": ("archive/test_contract.py",),
    "archive/postgres": ("archive/test_contract.py",),
    # `python -m server.archive upgrade/revision` and the migrations it runs; export/import.
    "archive/__main__": ("archive/test_schema.py", "archive/test_exchange.py"),
    "archive/migrations/env": ("archive/test_schema.py",),
    "archive/migrations/versions/0001_initial": ("archive/test_schema.py",),
    # The bot interface and registry (`get_bot`): the same decision from the same view and seed, and
    # nothing but the view seen.
    "bots/base": ("bots/test_determinism.py", "bots/test_no_peeking.py"),
    # The heuristic bot, by what it does: its play and its bidding.
    "bots/heuristic": ("bots/test_play.py", "bots/test_bidding.py"),
    "bots/evaluate": ("bots/test_bidding.py",),  # hand evaluation is the bidding's
    "bots/worlds": ("bots/test_inference.py",),  # worlds drawn by the inferred weights
    "bots/stats": ("bench/test_helpers.py",),  # the one percentile formula, shared with bench/
    # The launcher, its child processes and the HAProxy configuration: one real cluster.
    "cluster/__main__": ("cluster/test_cluster_launcher.py",),
    "cluster/haproxy": ("cluster/test_cluster_launcher.py",),
    "cluster/processes": ("cluster/test_cluster_launcher.py",),
    "live/bots": ("live/test_bot_driver.py",),  # the driver and the scheduler (not the bots package)
    "live/change": ("live/test_live_room.py",),  # what a room hands its listeners; its JSON round trip
    "live/new_room": ("live/test_tables.py",),  # the live layer's create_room request
    "rules/__main__": ("rules/test_replay_cli.py",),
    "rules/actions": ("rules/test_errors.py", "rules/test_solo_whist_auction.py"),  # parsing, refusals
    "rules/cards": ("rules/test_deck.py",),
    "rules/deal": ("rules/test_whist.py", "rules/test_session.py", "rules/test_property.py"),
    "rules/fair": ("rules/test_verify.py",),  # the seed commitment, verified
    "rules/ruleset": ("rules/test_registry.py", "rules/test_property.py"),
    "rules/seeds": ("rules/test_registry.py",),  # every data file has a ruleset and back
    # The auction the two Belgian rulesets share, through each ruleset.
    "rules/variants/belgian": ("rules/test_couleur_auction.py", "rules/test_belge_club.py"),
    # Its parts (the seed's tables, the state and its copy plan, the refusal rules, the turn logic):
    # every call and refusal of both rulesets goes through them.
    "rules/variants/belgian_auction": ("rules/test_couleur_auction.py", "rules/test_belge_club.py"),
    "rules/variants/belgian_data": ("rules/test_couleur_auction.py", "rules/test_belge_club.py"),
    "rules/variants/belgian_refusals": ("rules/test_couleur_auction.py", "rules/test_belge_club.py"),
    "rules/variants/belgian_state": ("rules/test_copying.py", "rules/test_couleur_auction.py"),
    # Both stores pass one contract suite; the key names are part of it.
    "store/base": ("store/test_store.py",),
    "store/memory": ("store/test_store.py",),
    "store/redis": ("store/test_store.py",),
    "store/redis_scripts": ("store/test_store.py",),  # the scripts the Redis store runs
    # The Redis Cluster save path: the same contract, run on the session's Redis Cluster.
    "store/cluster_saves": ("store/test_store.py", "store/test_sharded.py"),
    "store/keys": ("store/test_store.py",),
    "table/errors": ("server/test_error_codes.py",),  # each error's wire code, documented and translated
    "table/facts": ("table/test_table_presence.py", "table/test_table_seating.py",
                    "table/test_table_clock.py"),
    "table/outcome": ("table/test_table_play.py", "table/test_table_seating.py"),  # what commands return
    "__main__": ("server/test_http_and_process.py",),  # `whist-server` as a process
    "connection": ("server/test_transport.py", "server/test_bad_input.py"),
    "loop_lag": ("server/test_metrics.py",),
    "replay_service": ("server/test_replay_request.py",),
}


def modules() -> list[str]:
    """Every module of the package, as `<package>/<path>/<name>` (top level: `<name>`); no `__init__`."""
    return sorted(str(path.relative_to(SERVER).with_suffix("")) for path in SERVER.rglob("*.py")
                  if path.name != "__init__.py")


def folder_of(module: str) -> Path:
    """Where a module's tests sit: `tests/<package>/`, `tests/server/` for a top-level module."""
    parts = module.split("/")
    return TESTS / (parts[0] if len(parts) > 1 else "server")


def own_tests(module: str) -> list[Path]:
    """The test files under the module's folder whose name contains the module's name."""
    name = module.rsplit("/", 1)[-1]
    return sorted(path for path in folder_of(module).rglob("test_*.py") if name in path.stem)


def test_every_module_has_its_own_tests_or_says_where_they_are() -> None:
    missing = [module for module in modules() if not own_tests(module) and module not in TESTED_ELSEWHERE]
    assert missing == [], (f"no tests/<package>/test_*<module>*.py for {missing}: add one, or list the "
                           "module in TESTED_ELSEWHERE with the files that test it")


def test_every_pointer_names_existing_tests_of_the_module_package() -> None:
    for module, files in TESTED_ELSEWHERE.items():
        package = module.split("/")[0] if "/" in module else ""
        imported = f"server.{package}" if package else "server"
        for file in files:
            path = TESTS / file
            assert path.is_file(), f"{module}: {file} does not exist"
            assert imported in path.read_text(), f"{module}: {file} imports nothing from {imported}"


def test_the_list_holds_only_modules_without_tests_of_their_own() -> None:
    known = set(modules())
    assert [module for module in TESTED_ELSEWHERE if module not in known] == [], "modules that are gone"
    assert [module for module in TESTED_ELSEWHERE if own_tests(module)] == [], \
        "modules that have a test file of their own name now: drop their entries"


def test_test_file_names_are_unique_over_the_tree() -> None:
    seen: dict[str, Path] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        assert path.name not in seen, f"{path} and {seen[path.name]}: pytest imports both as {path.stem}"
        seen[path.name] = path
