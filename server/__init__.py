"""Whist server: rules engine, bots and the real-time table server."""
