"""The wire codes of errors: each table error class carries its own, every code the server sends is
documented in docs/protocol.md, and the web client has a message for it in every language."""

from __future__ import annotations

import re
from pathlib import Path

from server import rules
from server.server import wire_error
from server.table import errors

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
LANGUAGES = ROOT / "client_web" / "js" / "lang"


def table_errors() -> list[type[errors.TableError]]:
    """Every class of server/table/errors.py below `TableError`."""
    return [kind for kind in vars(errors).values()
            if isinstance(kind, type) and issubclass(kind, errors.TableError)
            and kind is not errors.TableError]


def wire_codes() -> set[str]:
    """Every error code the server can send: the table errors' codes, the codes the edge raises itself
    (`ProtocolError("code", ...)` anywhere in server/) and the answer to a bug."""
    pattern = re.compile(r'ProtocolError\(\s*"([a-z_]+)"')
    raised = {code for path in (ROOT / "server").rglob("*.py") for code in pattern.findall(path.read_text())}
    return {kind.code for kind in table_errors()} | raised | {"internal_error"}


def test_every_table_error_carries_its_own_wire_code() -> None:
    kinds = table_errors()
    assert len(kinds) > 20
    assert [kind.__name__ for kind in kinds if "code" not in vars(kind)] == []
    codes = [kind.code for kind in kinds]
    assert len(set(codes)) == len(codes), "two table errors share a wire code"
    assert all(re.fullmatch(r"[a-z_]+", code) for code in codes)
    assert errors.every_error() == kinds
    answer = wire_error(errors.HintsOff("no hints here"))
    assert (answer.code, answer.message) == ("hints_off", "no hints here")


def test_the_staleness_tuples_are_read_from_the_classes() -> None:
    assert set(errors.STALE) == {kind for kind in table_errors() if kind.stale_view}
    assert set(errors.NEVER_STALE) == {kind for kind in table_errors() if not kind.stale_copy}
    assert errors.NotYourTurn in errors.STALE and errors.NotYourTurn not in errors.NEVER_STALE
    # The store being down may explain a client's old view, and no catching up with the store helps.
    assert errors.StoreUnavailable in errors.STALE and errors.StoreUnavailable in errors.NEVER_STALE


def test_the_tables_action_errors_are_the_rules_ones_refused_at_a_table() -> None:
    for table_kind, rules_kind in ((errors.IllegalAction, rules.IllegalAction),
                                   (errors.MalformedAction, rules.MalformedAction)):
        problem = table_kind("the suit must be followed")
        assert isinstance(problem, rules_kind) and isinstance(problem, errors.TableError)
        assert problem.message == problem.reason == "the suit must be followed"
    assert not issubclass(rules.IllegalAction, errors.TableError)


def test_every_wire_code_is_documented() -> None:
    codes = wire_codes()
    assert len(codes) > 30
    table = DOC.read_text().split("| code | when |", 1)[1]
    missing = sorted(code for code in codes if f"`{code}`" not in table)
    assert not missing, f"error codes missing from docs/protocol.md: {missing}"


def test_every_wire_code_has_a_message_in_every_language() -> None:
    files = sorted(LANGUAGES.glob("*.js"))
    assert [path.stem for path in files] == ["en", "fr", "nl"]
    codes = wire_codes()
    for path in files:
        keys = set(re.findall(r'"error\.code\.([a-z_]+)"\s*:', path.read_text()))
        assert sorted(codes - keys) == [], f"{path.name} has no message for these error codes"
