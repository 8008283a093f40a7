"""`fork_session`: the table applies a change to a copy, so the session it was given never moves.

The copy is generic (every field by its type, `server/rules/copying.py`): these tests play the copy
through a deal's end and into the next deal, which changes every field a session has (the deal, the
balances, the history, the counts), and check the original against what it was.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.rules import Session
from server.table.state import fork_session


def state(session: Session) -> str:
    """Every field of the session and of its deal that a change could touch, written out."""
    deal = session.deal
    written: dict[str, Any] = {
        "fields": {name: value for name, value in vars(session).items() if name not in ("ruleset", "deal")},
        "snapshot": session.snapshot(),
        "deal": [deal.to_record(), deal.result(), [deal.view(seat) for seat in (0, 1, 2, 3, None)]],
    }
    return json.dumps(written, sort_keys=True, default=repr)


def play_to_the_next_deal(session: Session) -> None:
    """Every seat plays its last legal action until the deal ends, then the next deal starts."""
    while not session.deal.finished:
        seat = min(session.deal.to_act())
        session.apply(seat, session.deal.legal_actions(seat)[-1])
    if not session.over:
        session.next_deal()


@pytest.mark.parametrize("ruleset", ["couleur", "belge-club", "solo-whist", "whist"])
def test_playing_a_fork_on_leaves_the_session_as_it_was(ruleset: str) -> None:
    session = Session(ruleset, "fork-secret", deals=4)
    play_to_the_next_deal(session)  # a history, balances and counts that a fork could share
    seat = min(session.deal.to_act())
    session.apply(seat, session.deal.legal_actions(seat)[0])
    before = state(session)
    fork = fork_session(session)
    play_to_the_next_deal(fork)
    play_to_the_next_deal(fork)
    assert len(fork.history) == len(session.history) + 2
    assert state(session) == before
    assert fork.ruleset is session.ruleset and fork.house_rules is session.house_rules
