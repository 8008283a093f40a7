"""The hidden-card check shared by the leak proof (`bench.leak_proof`), the cluster players
(`bench.cluster_players`) and the server tests (the fuzzer, the red team): every frame a client
received, against the records of the deals it belongs to; and `cards_in`, the cards a message names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

DealKey = tuple[str, int]  # (room id, deal number, thrown-in deals included)


def hidden_card_leaks(messages: Iterable[dict[str, Any]], records: Mapping[DealKey, dict[str, Any]]
                      ) -> tuple[int, list[str]]:
    """Check one client's `state` and `events` frames, in the order received: before the client has seen
    its deal end, a frame names only the recipient seat's own hand, the turn-up, played cards and exposed
    hands (a spectator: no hand). A `state` frame tells the recipient's seat (`you.seat`); `events`
    frames go to the seat of the last `state`. Returns (frames checked, one line per leaked card)."""
    seat: int | None = None
    ended: set[DealKey] = set()
    shown: dict[DealKey, set[str]] = {}  # exposed hands, public from the moment they are shown
    checked = 0
    leaks: list[str] = []
    for message in messages:
        if message["type"] == "state":
            seat = message["you"]["seat"]
            key = (message["room_id"], message["room"]["deal_number"])
            if message["view"] is not None and message["view"]["phase"] == "end":
                ended.add(key)
        elif message["type"] == "events":
            key = (message["room_id"], message["deal_number"])
        else:
            continue
        if key in ended or key not in records:
            continue
        record = records[key]
        hands = [set(hand.split()) for hand in record["hands"]]
        actions = [action.split() for _, action in record["actions"]]
        played = {words[1] for words in actions if words[0] == "play" and len(words) > 1}
        discards = {words[1] for words in actions if words[0] == "discard" and len(words) > 1}
        turn_up = {record["turn_up"]} if record.get("turn_up") else set()
        known = played | turn_up | shown.setdefault(key, set())
        if seat is not None:
            known |= hands[seat]
        exposed = [(event["seat"], event["cards"]) for event in message.get("events", [])
                   if event["type"] == "exposed"]
        view = message.get("view") or {}
        exposed += [(int(other), cards) for other, cards in (view.get("exposed") or {}).items()]
        for other, cards in exposed:
            if not set(cards) <= hands[other] - discards:
                leaks.append(f"{key}: seat {seat} was shown {sorted(set(cards) - hands[other])} as seat "
                             f"{other}'s exposed hand")
            shown[key] |= set(cards) & (hands[other] - discards)
        known |= shown[key]
        leaks.extend(f"{key}: seat {seat} was sent {card} in a {message['type']} frame"
                     for card in sorted(cards_in(message) - known))
        checked += 1
        if any(event["type"] in ("end", "thrown_in") for event in message.get("events", [])):
            ended.add(key)
    return checked, leaks


CARDS = frozenset(rank + suit for rank in "AKQJT98765432" for suit in "SHDC")  # the words CARD matches


def cards_in(value: Any, skip_keys: frozenset[str] = frozenset({"name"})) -> set[str]:
    """Every card named anywhere in a message (as a string or a word of a string)."""
    # One walk with an explicit stack into one set: the leak proof runs this on every frame it
    # receives, and a recursive walk that unites a set per level cost most of its time.
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) <= 2:  # most strings: a card, or too short to hold two words
                if item in CARDS:
                    found.add(item)
            else:
                found.update(word for word in item.split() if word in CARDS)
        elif isinstance(item, dict):
            stack.extend(sub for key, sub in item.items() if key not in skip_keys)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found
