"""Seat players. A bot sees exactly one seat's view, the same object a human's client receives."""

from .base import Bot, BotError, bot_names, get_bot

__all__ = ["Bot", "BotError", "bot_names", "get_bot"]
