"""The `replay` request: a deal record in, the replay viewer's frames out (stateless, no room needed)."""

from __future__ import annotations

from typing import Any

from .protocol import ProtocolError
from .rules.record import RecordError
from .rules.steps import record_steps


def replay_answer(record: dict[str, Any]) -> dict[str, Any]:
    """`{"steps": [...], "result": {...}}`; a record that does not replay gets `bad_record` and the reason."""
    try:
        return record_steps(record)
    except RecordError as error:
        where = f"action {error.action_index}: " if error.action_index is not None else ""
        raise ProtocolError("bad_record", f"this deal record does not replay ({error.kind}): "
                            f"{where}{error.reason}") from None
