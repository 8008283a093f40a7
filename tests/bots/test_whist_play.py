"""The heuristic bot plays whole `whist` deals (a ruleset added after the bot, with no bot change of
its own) and every decision is one of the seat's legal actions."""

from __future__ import annotations

from bots_helpers import frozen_copy

from server.bots import get_bot
from server.rules import Deal


def test_the_heuristic_bot_plays_whole_whist_deals_legally() -> None:
    bot = get_bot("heuristic")
    for number in range(20):
        deal = Deal.from_seed("whist", f"bot-whist-{number}", number % 4, {"honours": number % 2 == 1})
        decisions = 0
        while not deal.finished:
            seat = min(deal.to_act())
            view = frozen_copy(deal.view(seat))
            action = bot.decide(view, f"bot-whist-{number}:{decisions}", 20.0)
            assert action in view["legal"], (number, seat, action, view["legal"])
            deal.apply(seat, action)
            decisions += 1
        assert decisions == 52 and deal.result()["tricks_played"] == 13
        assert deal.ruleset.points_problem(deal) is None
