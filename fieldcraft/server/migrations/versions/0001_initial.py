"""Initial schema: tables, seats, actions (one row per action) and snapshots.

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("overrides", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("host_hash", sa.String(64), nullable=True),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_tables_status", "game_tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("actor", sa.Integer, nullable=False),
        sa.Column("by_bot", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "snapshots",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("snapshots")
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_index("ix_game_tables_status", table_name="game_tables")
    op.drop_table("game_tables")
