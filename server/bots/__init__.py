"""Seat players. A bot sees exactly one seat's view, the same object a human's client receives."""

from .base import BOT_LEVELS, Bot, BotError, RandomBot, bot_names, get_bot, load_bot, register_bot
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .knowledge import Knowledge, SampledDeal, consistent_deals, rebuild_deal, sample_hidden_hands

register_bot("heuristic", HeuristicBot)
register_bot("expert", ExpertBot)

__all__ = [
    "BOT_LEVELS", "Bot", "BotError", "ExpertBot", "HeuristicBot", "Knowledge", "RandomBot", "SampledDeal",
    "bot_names", "consistent_deals", "get_bot", "load_bot", "rebuild_deal", "register_bot",
    "sample_hidden_hands",
]
