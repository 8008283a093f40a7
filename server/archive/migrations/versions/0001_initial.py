"""The archive's first schema: sessions, seats, deals, per-seat deal figures and ratings.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "sessions",
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("room_id", sa.Text, nullable=False),
        sa.Column("ruleset", sa.Text, nullable=False),
        sa.Column("house_rules", sa.Text, nullable=False),  # JSON
        sa.Column("options", sa.Text, nullable=False),  # JSON
        sa.Column("seat_names", sa.Text, nullable=False),  # JSON: four names (or nulls)
        sa.Column("balances", sa.Text, nullable=False),  # JSON: four integers
        sa.Column("started_at", sa.Double, nullable=False),
        sa.Column("ended_at", sa.Double, nullable=False),
        sa.Column("deal_count", sa.Integer, nullable=False),
        sa.Column("played_deals", sa.Integer, nullable=False),
        sa.Column("complete", sa.Boolean, nullable=False),  # False: left before its end, never rated
        sa.Column("archived_at", sa.Double, nullable=False),
    )
    op.create_index("sessions_room", "sessions", ["room_id"])
    op.create_table(
        "seats",
        sa.Column("session_id", sa.Text, sa.ForeignKey("sessions.session_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("name", sa.Text),
        sa.Column("player", sa.Text),  # the hashed player key
        sa.Column("bot", sa.Text),  # the bot's level
        sa.Column("balance", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
    )
    op.create_index("seats_player", "seats", ["player"])
    op.create_table(
        "deals",
        sa.Column("session_id", sa.Text, sa.ForeignKey("sessions.session_id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("record", sa.Text, nullable=False),  # the deal record, JSON text as written
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("contract", sa.Text),
        sa.Column("contract_kind", sa.Text),
        sa.Column("declarers", sa.Text, nullable=False),  # JSON list of seats
        sa.Column("made", sa.Boolean),
        sa.Column("multiplier", sa.Integer, nullable=False),
        sa.Column("seed", sa.Text),
        sa.Column("seed_commitment", sa.Text),
    )
    op.create_table(
        "deal_seats",
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("declarer", sa.Boolean, nullable=False),
        sa.Column("tricks", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(["session_id", "number"], ["deals.session_id", "deals.number"],
                                ondelete="CASCADE"),
    )
    op.create_table(
        "ratings",
        sa.Column("ruleset", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, primary_key=True),  # "player" or "bot"
        sa.Column("ident", sa.Text, primary_key=True),  # hashed player key or bot level
        sa.Column("name", sa.Text),
        sa.Column("mu", sa.Double, nullable=False),
        sa.Column("sigma", sa.Double, nullable=False),
        sa.Column("ordinal", sa.Double, nullable=False),  # mu - 3 sigma: what boards rank by
        sa.Column("sessions", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
    )
    op.create_index("ratings_board", "ratings", ["ruleset", "ordinal"])


def downgrade() -> None:
    """Drop the tables."""
    for table in ("ratings", "deal_seats", "deals", "seats", "sessions"):
        op.drop_table(table)
