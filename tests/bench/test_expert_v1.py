"""Today's expert kept for comparison (`bench.expert_v1`): loadable by name, legal, the heuristic's card
in the first 7 tricks, and a search of its own (not the new expert's) in the last 6."""

from __future__ import annotations

from bench.expert_v1 import EXACT_TRICKS, ExpertV1Bot
from server.bots import get_bot, load_bot
from server.rules import Deal


def test_today_s_expert_loads_by_name_plays_legally_and_searches_only_the_last_tricks() -> None:
    v1 = load_bot("bench.expert_v1:ExpertV1Bot")
    assert isinstance(v1, ExpertV1Bot) and v1.name == "expert-v1"
    heuristic, expert = get_bot("heuristic"), get_bot("expert")
    early = late_differ = 0
    for i in range(6):
        deal = Deal.from_seed("couleur", f"expert-v1:{i}", i % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            action = v1.decide(view, f"v1:{i}:{seat}", 20.0)
            assert action in view["legal"]
            if view["phase"] == "play" and len(view["legal"]) > 1:
                if max(view["hand_counts"]) > EXACT_TRICKS:
                    assert action == heuristic.decide(view, "h", 20.0)
                    early += 1
                elif action != heuristic.decide(view, "h", 20.0) or action != expert.decide(view, "e", 20.0):
                    late_differ += 1
            deal.apply(seat, action)
    assert early > 20 and late_differ > 0
