"""Per-seat views: each seat sees exactly what it may know; a spectator sees the public part only."""

from __future__ import annotations

import json

from rules_helpers import SUIT_HANDS, assert_view_hides, calls_deal, play_first_legal

from server.rules import Deal
from server.rules.views import seat_view

SEED = "a-long-secret-seed-for-views"
VIEW_KEYS = {
    "ruleset", "house_rules", "seat", "dealer", "eldest", "phase", "to_act", "multiplier", "hand",
    "hand_counts", "turn_up", "turn_up_in_hand", "calls", "announcements", "auction", "contract",
    "discarded", "discards_made", "exposed", "trick", "tricks", "tricks_won", "legal", "result",
}


def test_view_keys_and_json_for_every_seat_and_spectator() -> None:
    deal = calls_deal([(0, "prop"), (1, "pass"), (2, "cop"), (3, "pass")], seed=SEED)
    for seat in (0, 1, 2, 3, None):
        view = deal.view(seat)
        assert set(view) >= VIEW_KEYS  # keys may be added, never renamed or removed
        assert not {"dealt", "discards", "seed"} & set(view)  # only once the deal has ended
        assert json.loads(json.dumps(view)) == view
        assert view["seat"] == seat
    assert deal.turn_up is not None
    assert deal.view(0)["contract"] == {
        "name": "prop-cop", "kind": "prop-cop", "declarers": [0, 2], "level": 8, "trump": deal.turn_up[1],
        "trump_chooser": None, "team": True, "discard": False, "expose": None,
    }


def test_view_holds_own_hand_only_and_card_counts() -> None:
    deal = calls_deal([], seed=SEED)
    for seat in range(4):
        view = assert_view_hides(deal, seat)
        assert sorted(view["hand"]) == sorted(deal.dealt[seat])
        assert view["hand_counts"] == [13, 13, 13, 13]
    spectator = assert_view_hides(deal, None)
    assert spectator["hand"] is None and spectator["legal"] == []


def test_view_holds_the_seats_legal_actions_only() -> None:
    deal = calls_deal([], seed=SEED)
    assert deal.view(0)["legal"] == deal.legal_actions(0) != []
    assert deal.view(1)["legal"] == []


def test_view_turn_up_public_and_held_by_dealer_until_played() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "pass"), (1, "pass"), (2, "pass"), (3, "solo")):
        deal.apply(seat, call)
    for seat in (0, 1, 2, None):
        view = deal.view(seat)
        assert view["turn_up"] == "2C" and view["turn_up_in_hand"] is True
    deal.apply(0, "play AS")
    deal.apply(1, "play AH")
    deal.apply(2, "play AD")
    deal.apply(3, "play 2C")
    for seat in (0, 1, 2, 3, None):
        assert deal.view(seat)["turn_up_in_hand"] is False
        assert_view_hides(deal, seat)


def test_view_calls_tricks_and_current_trick_are_public() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    for seat, card in ((0, "AS"), (1, "AH"), (2, "AD"), (3, "3C"), (3, "KC")):
        deal.apply(seat, f"play {card}")
    spectator = deal.view(None)
    assert spectator["calls"] == [[0, "solo"], [1, "pass"], [2, "pass"], [3, "pass"]]
    assert spectator["tricks"] == [{"leader": 0, "cards": [[0, "AS"], [1, "AH"], [2, "AD"], [3, "3C"]],
                                    "winner": 3}]
    assert spectator["trick"] == {"leader": 3, "cards": [[3, "KC"]]}
    assert spectator["tricks_won"] == [0, 0, 0, 1]
    assert spectator["hand_counts"] == [12, 12, 12, 11]


def test_view_seed_never_before_the_deal_ends() -> None:
    deal = Deal.from_seed("solo-whist", SEED, 3)
    for seat, call in ((0, "solo"), (1, "pass"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    while not deal.finished:
        for seat in (0, 1, 2, 3, None):
            assert_view_hides(deal, seat)
        assert "seed" not in deal.to_record()
        play_first_legal(deal, until_tricks=len(deal.tricks) + 1)
    for seat in (0, 1, 2, 3, None):
        view = deal.view(seat)
        assert view["seed"] == SEED
        assert [sorted(h) for h in view["dealt"]] == [sorted(h) for h in deal.dealt]
        assert view["result"] == deal.result()
    assert deal.to_record()["seed"] == SEED


def test_view_spread_misere_hand_public_exactly_after_trick_1() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "pass"), (1, "spread-misere"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    for seat, card in ((0, "AS"), (1, "2H"), (2, "2D")):
        deal.apply(seat, f"play {card}")
        for viewer in (0, 2, 3, None):
            view = assert_view_hides(deal, viewer)
            assert view["exposed"] == {}
            assert not any(card[1] == "H" for card in view["hand"] or [])
    events = deal.apply(3, "play 2C")
    exposed = sorted(deal.hands[1])
    assert len(exposed) == 12
    assert {"type": "exposed", "seat": 1, "cards": deal.view(1)["hand"]} in events
    for viewer in (0, 1, 2, 3, None):
        view = assert_view_hides(deal, viewer)
        assert sorted(view["exposed"]["1"]) == exposed
    # The exposed hand follows the play.
    deal.apply(0, "play KS")
    deal.apply(1, "play 3H")
    assert "3H" not in deal.view(None)["exposed"]["1"] and len(deal.view(2)["exposed"]["1"]) == 11


def test_view_ordinary_misere_is_never_exposed() -> None:
    deal = Deal("solo-whist", SUIT_HANDS, dealer=3, turn_up="2C")
    for seat, call in ((0, "pass"), (1, "misere"), (2, "pass"), (3, "pass")):
        deal.apply(seat, call)
    while not deal.finished:
        assert deal.view(None)["exposed"] == {}
        for seat in (0, 1, 2, 3, None):
            assert_view_hides(deal, seat)
        play_first_legal(deal, until_tricks=len(deal.tricks) + 1)


def test_view_is_a_copy_changing_it_changes_nothing() -> None:
    deal = calls_deal([], seed=SEED)
    view = deal.view(0)
    view["house_rules"]["overtricks"] = True
    view["hand"].clear()
    view["calls"].append([0, "solo"])
    assert deal.house_rules["overtricks"] is False
    assert deal.view(0) == seat_view(deal, 0) != view
    assert len(deal.view(0)["hand"]) == 13
