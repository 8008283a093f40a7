"""A deal record as a list of frames, one per action, for a replay viewer that shows every hand.

Pure and standard library only: it replays the record with the public engine API (`deal_from_record`,
`Deal.apply`, `Deal.view`, `Deal.result`) and copies out what a viewer draws after each action. The
record is the whole truth here (it holds every hand), so nothing in a frame is secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .deal import Deal
from .errors import IllegalAction, MalformedAction, MalformedRecord
from .record import RecordError, deal_from_record

SEATS = (0, 1, 2, 3)


def record_steps(record: Mapping[str, Any]) -> dict[str, Any]:
    """`{"steps": [frame, ...], "result": {...}}` for a deal record.

    `steps[0]` is the deal as dealt; `steps[i]` is the table after the record's i-th action. Raises
    `RecordError` (kind `malformed_record` or `illegal_action`, with the action's index and the engine's
    reason) for a record that does not replay; nothing is returned for a part of it.
    """
    try:
        deal, actions = deal_from_record(record)
    except MalformedRecord as error:
        raise RecordError("malformed_record", None, error.reason) from None
    steps = [_frame(deal, None, [])]
    for index, entry in enumerate(actions):
        if not (isinstance(entry, list) and len(entry) == 2):
            raise RecordError("malformed_record", index, "an action entry is a [seat, action] pair")
        seat, action = entry
        try:
            events = deal.apply(seat, action)
        except MalformedAction as error:
            raise RecordError("malformed_record", index, error.reason) from None
        except IllegalAction as error:
            raise RecordError("illegal_action", index, error.reason) from None
        steps.append(_frame(deal, [seat, action], events))
    return {"steps": steps, "result": deal.result()}


def _frame(deal: Deal, action: list[Any] | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What the table shows after `action`: the four hands, the trick, the tricks won, the calls..."""
    views = [deal.view(seat) for seat in SEATS]
    public = deal.view(None)
    completed = next((event for event in events if event.get("type") == "trick"), None)
    contract = public["contract"]
    trick = public["trick"]
    return {
        "action": action,
        "phase": public["phase"],
        "hands": [view["hand"] for view in views],
        # A trick completed by this action stays on the table in its frame, with its winner.
        "trick": (
            {"cards": completed["cards"], "winner": completed["winner"]} if completed is not None
            else {"cards": trick["cards"], "winner": None} if trick is not None
            else None
        ),
        "tricks_won": public["tricks_won"],
        "calls": public["calls"],
        "contract": contract,
        "trump": contract["trump"] if contract else None,
        "to_act": public["to_act"],
        "discards": {str(seat): views[seat]["discarded"] for seat in SEATS if views[seat]["discarded"]},
        "exposed": sorted(int(seat) for seat in public["exposed"]),
        "events": [dict(event) for event in events],
    }
