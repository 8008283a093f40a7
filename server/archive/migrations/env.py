"""Alembic's environment for the archive: always run on the connection that
server/archive/schema.py hands over (`config.attributes["connection"]`), inside its transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
