"""Sessions: running balances, the dealer moving on after every deal (D1), and the three endings."""

from __future__ import annotations

import json

import pytest

from server.rules import IllegalAction, Session
from server.rules.deck import cut_for_dealer

ALL_PASS = "pass"


def pass_out(session: Session) -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    while not session.deal.finished:
        events += session.apply(min(session.deal.to_act()), "pass")
    return events


def solo_by_eldest(session: Session) -> list[dict[str, object]]:
    """Eldest calls solo, the others pass, cards are played first-legal."""
    deal = session.deal
    events = session.apply(deal.eldest, "solo")
    while not deal.finished:
        seat = min(deal.to_act())
        action = "pass" if deal.phase.value == "auction" else deal.legal_actions(seat)[0]
        events += session.apply(seat, action)
    return events


def test_session_first_dealer_from_the_cut() -> None:
    assert Session("solo-whist", "cut-secret").deal.dealer == cut_for_dealer("cut-secret")
    assert Session("solo-whist", "cut-secret", first_dealer=2).deal.dealer == 2


def test_D1_dealer_passes_clockwise_after_every_deal_thrown_in_included() -> None:
    session = Session("solo-whist", "d1", first_dealer=1)
    dealers = []
    for number in range(6):
        dealers.append(session.deal.dealer)
        if number % 2:
            solo_by_eldest(session)
        else:
            pass_out(session)
            assert session.deal.thrown_in
        session.next_deal()
    assert dealers == [1, 2, 3, 0, 1, 2]


def test_session_balances_accumulate_the_points_of_every_deal() -> None:
    session = Session("solo-whist", "balances", first_dealer=0, house_rules={"stake_multiplier": 2})
    expected = [0, 0, 0, 0]
    for _ in range(4):
        solo_by_eldest(session)
        points = session.deal.result()["points"]
        assert points != [0, 0, 0, 0] and sum(points) == 0
        expected = [a + b for a, b in zip(expected, points, strict=True)]
        assert session.balances == expected
        assert session.history[-1]["balances"] == expected
        session.next_deal()
    assert len(session.history) == 4


def test_session_each_deal_has_its_own_seed_revealed_only_at_its_end() -> None:
    session = Session("solo-whist", "seeds", first_dealer=0)
    first = session.deal
    assert first.seed == session.deal_seed(0) and "secret" not in json.dumps(first.view(None))
    assert "seeds" not in json.dumps(first.view(0))
    pass_out(session)
    second = session.next_deal()
    assert second.seed == session.deal_seed(0, redeal=1) != first.seed
    assert session.history[0]["record"]["seed"] == first.seed


def test_session_seeds_follow_played_deals_so_a_thrown_in_deal_shifts_nothing() -> None:
    # Daily challenge fairness: the n-th played deal's cards do not depend on earlier throw-ins.
    steady = Session("solo-whist", "same-day", first_dealer=0)
    solo_by_eldest(steady)
    steady.next_deal()
    with_redeal = Session("solo-whist", "same-day", first_dealer=0)
    pass_out(with_redeal)
    redealt = with_redeal.next_deal()
    assert redealt.seed == with_redeal.deal_seed(0, redeal=1) != steady.history[0]["record"]["seed"]
    solo_by_eldest(with_redeal)
    with_redeal.next_deal()
    assert with_redeal.deal.seed == steady.deal.seed == steady.deal_seed(1)


def test_session_ends_after_n_played_deals_thrown_in_not_counted() -> None:
    session = Session("solo-whist", "n-deals", deals=2, first_dealer=0)
    pass_out(session)
    assert not session.over
    session.next_deal()
    solo_by_eldest(session)
    assert not session.over
    session.next_deal()
    events = solo_by_eldest(session)
    assert session.over and events[-1] == {"type": "session_over", "balances": session.balances}
    with pytest.raises(IllegalAction, match="session is over"):
        session.next_deal()


def test_session_ends_at_a_positive_target_balance() -> None:
    session = Session("solo-whist", "target", target=9, first_dealer=0)
    for _ in range(40):
        solo_by_eldest(session)
        if session.over:
            break
        assert max(session.balances) < 9
        session.next_deal()
    assert session.over and max(session.balances) >= 9


def test_session_open_ended_never_over() -> None:
    session = Session("solo-whist", "open", first_dealer=0)
    for _ in range(10):
        solo_by_eldest(session)
        assert not session.over
        session.next_deal()


def test_session_next_deal_only_after_the_deal_ends() -> None:
    session = Session("solo-whist", "early")
    with pytest.raises(IllegalAction, match="not over"):
        session.next_deal()


@pytest.mark.parametrize("stop_after", [0, 3, 9])
def test_session_snapshot_restores_exactly(stop_after: int) -> None:
    session = Session("solo-whist", "snap", house_rules={"overtricks": True}, deals=5, first_dealer=3)
    solo_by_eldest(session)
    session.next_deal()
    pass_out(session)
    session.next_deal()
    deal = session.deal
    deal_actions = [(deal.eldest, "solo"), ((deal.eldest + 1) % 4, "pass"), ((deal.eldest + 2) % 4, "pass"),
                    ((deal.eldest + 3) % 4, "pass")]
    for seat, action in deal_actions[:stop_after]:
        session.apply(seat, action)
    while len(deal.log) < stop_after:
        seat = min(deal.to_act())
        session.apply(seat, deal.legal_actions(seat)[0])
    snapshot = json.loads(json.dumps(session.snapshot()))
    restored = Session.restore(snapshot)
    assert restored.balances == session.balances
    assert restored.deal.log == session.deal.log and restored.deal.dealer == session.deal.dealer
    assert [h["result"] for h in restored.history] == [h["result"] for h in session.history]
    assert restored.deal.view(1) == session.deal.view(1)


def test_session_snapshot_between_deals_restores() -> None:
    session = Session("solo-whist", "snap-end", first_dealer=0)
    solo_by_eldest(session)
    restored = Session.restore(json.loads(json.dumps(session.snapshot())))
    assert restored.deal.finished and restored.balances == session.balances
    assert len(restored.history) == 1
    assert restored.next_deal().dealer == session.next_deal().dealer == 1
